#!/usr/bin/env python3
"""Inputs and checks for the int8 / uint8 and TF32 gemm tests, in plain
Python (no NumPy).

    gemm_types.py ints FILE DTYPE ROWS COLS SEED
        write a ROWS x COLS int8 or uint8 .npy of the whole range (products of
        two such values overflow int16)
    gemm_types.py floats FILE ROWS COLS SEED
        write a ROWS x COLS float32 .npy of values in (-2, 2) whose low 13
        mantissa bits are random (so TF32's dropping of them shows)
    gemm_types.py int DIR [--trans-a] [--trans-b]
        C (int32) == A @ B exactly, the int64 product wrapped to int32
    gemm_types.py tf32 DIR [--trans-a] [--trans-b]
        C (float32) == the float64 product of the operands with their low 13
        mantissa bits cleared (TF32 as tlc reads it), within 4 float32 ulps
        of the sum of magnitudes; and C is far (more than 100 times that)
        from the exact float32 product and from operands rounded to nearest
        TF32 somewhere, so the test tells the three apart
    gemm_types.py f32 DIR [--trans-a] [--trans-b]
        C (float32) == the exact float64 product within 4 float32 ulps of the
        sum of magnitudes, and far from the truncated-TF32 one somewhere (a
        float32 matrix instruction that multiplies in full float32)

Exit 0 when the check holds; 1 with the first mismatch on stderr."""
import random
import struct
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from check_npy import read_npy  # noqa: E402


def write(path, descr, shape, code, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, shape[0], shape[1])
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(f"<{len(values)}{code}", *values))


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def from_bits(u):
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def trunc(x):
    """TF32 as tlc reads a float32 operand: the low 13 mantissa bits dropped."""
    return from_bits(f32_bits(x) & 0xFFFFE000)


def rna(x):
    """TF32 rounded to nearest, ties away (cvt.rna.tf32.f32)."""
    return from_bits((f32_bits(x) + 0x1000) & 0xFFFFE000)


def operands(d, trans_a, trans_b):
    _, ashape, a = read_npy(f"{d}/A.npy")
    _, bshape, b = read_npy(f"{d}/B.npy")
    descr, cshape, c = read_npy(f"{d}/C.npy")
    M, N = cshape
    K = ashape[0] if trans_a else ashape[1]
    rows = [[a[k * ashape[1] + i] if trans_a else a[i * K + k] for k in range(K)] for i in range(M)]
    cols = [[b[j * K + k] if trans_b else b[k * bshape[1] + j] for k in range(K)] for j in range(N)]
    return rows, cols, c, M, N


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    ta, tb = "--trans-a" in args, "--trans-b" in args
    if cmd == "ints":
        path, dtype, r, c, seed = args[0], args[1], int(args[2]), int(args[3]), int(args[4])
        rng = random.Random(seed)
        lo, hi = (-128, 127) if dtype == "int8" else (0, 255)
        write(path, "|i1" if dtype == "int8" else "|u1", (r, c), "b" if dtype == "int8" else "B",
              [rng.randint(lo, hi) for _ in range(r * c)])
    elif cmd == "floats":
        path, r, c, seed = args[0], int(args[1]), int(args[2]), int(args[3])
        rng = random.Random(seed)
        vals = []
        for _ in range(r * c):
            u = f32_bits(rng.uniform(-2.0, 2.0))
            vals.append(from_bits((u & ~0x1FFF) | rng.randrange(1, 0x2000)))
        write(path, "<f4", (r, c), "f", vals)
    elif cmd == "int":
        rows, cols, c, M, N = operands(args[0], ta, tb)
        for i in range(M):
            for j in range(N):
                want = sum(x * y for x, y in zip(rows[i], cols[j]))
                want = (want + 2**31) % 2**32 - 2**31
                if c[i * N + j] != want:
                    fail(f"C[{i}, {j}] = {c[i * N + j]}, the int64 product wrapped to int32 is {want}")
        print(f"int gemm: {M * N} elements exact")
    elif cmd == "f32":
        rows, cols, c, M, N = operands(args[0], ta, tb)
        trows, tcols = [[trunc(x) for x in r] for r in rows], [[trunc(x) for x in r] for r in cols]
        far = 0.0
        for i in range(M):
            for j in range(N):
                mag = sum(abs(x * y) for x, y in zip(rows[i], cols[j]))
                tol = 4 * mag * 2.0**-24
                want = sum(x * y for x, y in zip(rows[i], cols[j]))
                got = c[i * N + j]
                if abs(got - want) > tol:
                    fail(f"C[{i}, {j}] = {got!r}, the float32 operands' product is {want!r} (tol {tol:.3g})")
                t = sum(x * y for x, y in zip(trows[i], tcols[j]))
                far = max(far, abs(got - t) / max(tol, 1e-30))
        if far < 100:
            fail("C is near the truncated-TF32 product everywhere: the test does not tell float32 from TF32")
        print(f"f32 gemm: {M * N} elements within 4 ulps of the float32 product (up to {far:.0f} tolerances "
              "from the TF32 one)")
    elif cmd == "tf32":
        rows, cols, c, M, N = operands(args[0], ta, tb)
        trows, tcols = [[trunc(x) for x in r] for r in rows], [[trunc(x) for x in r] for r in cols]
        nrows, ncols = [[rna(x) for x in r] for r in rows], [[rna(x) for x in r] for r in cols]
        far_exact = far_rna = 0.0
        for i in range(M):
            for j in range(N):
                mag = sum(abs(x * y) for x, y in zip(rows[i], cols[j]))
                tol = 4 * mag * 2.0**-24
                want = sum(x * y for x, y in zip(trows[i], tcols[j]))
                got = c[i * N + j]
                if abs(got - want) > tol:
                    fail(f"C[{i}, {j}] = {got!r}, the TF32 (truncated operands) product is {want!r} (tol {tol:.3g})")
                exact = sum(x * y for x, y in zip(rows[i], cols[j]))
                near = sum(x * y for x, y in zip(nrows[i], ncols[j]))
                far_exact = max(far_exact, abs(got - exact) / max(tol, 1e-30))
                far_rna = max(far_rna, abs(got - near) / max(tol, 1e-30))
        if far_exact < 100 or far_rna < 100:
            fail(f"C is within {min(far_exact, far_rna):.3g} tolerances of the exact or the round-to-nearest "
                 "product everywhere: the test does not tell TF32 truncation apart")
        print(f"tf32 gemm: {M * N} elements within 4 ulps of the truncated-operand product "
              f"(up to {far_exact:.0f} / {far_rna:.0f} tolerances from the exact / round-to-nearest ones)")
    else:
        fail(f"unknown command {cmd}")


main()
