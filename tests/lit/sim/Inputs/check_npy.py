#!/usr/bin/env python3
"""Check tlc-sim's .npy outputs against references computed here, in plain
Python (no NumPy: CI need not install it), from the inputs the simulator
wrote beside them.

    check_npy.py add DIR [R0 R1 C0 C1] C == A + B rounded to C's dtype, bit for bit (2-D:
                                      in rows [R0, R1) and columns [C0, C1) only)
    check_npy.py gemm DIR ATOL RTOL [--trans-a] [--trans-b] [--fp8-e4m3 | --fp8-e5m2]
                                      |C - A @ B| <= ATOL + RTOL |A @ B| (float64 product)
    check_npy.py attention DIR ATOL RTOL [--causal]
                                      Output ~ softmax(Q K^T / sqrt(D)) V per batch and head
                                      (Q, K, V, Output of shape (B, S, H, D); float64 reference)
    check_npy.py reversed DIR          B is A reversed (1-D), bit for bit
    check_npy.py twice DIR             B == 2 A element by element, bit for bit (every
                                      element written)
    check_npy.py shuffles DIR LANES DOWN UP
                                      B = shfl_down(A, DOWN), C = shfl_up(A, UP) in warps of
                                      LANES (own value past the warp's ends), D = erf(A),
                                      E = clamp(A, -0.5, 0.5): float32, bit for bit
    check_npy.py stmatrix DIR          C (16 x 16) holds what one stmatrix .x4 stores from lane l's
                                      registers R[2k], R[2k + 1] = 8 l + 2k, 8 l + 2k + 1 with tile k
                                      at rows 8 (k % 2), columns 8 (k // 2) (the PTX ISA's stmatrix:
                                      lane 4i + c holds row i, columns 2c and 2c + 1 of each tile)
    check_npy.py finite DIR NAME...   every element of each NAME.npy is finite (no NaN:
                                      the simulator's never-written memory reads as NaN)
    check_npy.py close DIR1 DIR2 NAME ATOL RTOL
                                      |x1 - x2| <= ATOL + RTOL |x2| element by element
    check_npy.py apart DIR1 DIR2 NAME ATOL RTOL
                                      some element is not within that tolerance
    check_npy.py same DIR1 DIR2 NAME  NAME.npy is byte-identical in both
    check_npy.py differ DIR1 DIR2 NAME NAME.npy differs
    check_npy.py write FILE DTYPE V...  write the 1-D .npy of the values V (given in the test,
                                      each exactly a value of the tlc dtype DTYPE: bfloat16 and
                                      float8_e4m3fn as their raw bits, as the simulator reads them)
    check_npy.py values DIR NAME DTYPE V...
                                      NAME.npy holds exactly the values V (bit for bit; NaN
                                      matches NaN), read as the tlc dtype DTYPE

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import ast
import math
import struct
import sys

FORMATS = {"<f2": "e", "<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|b1": "?", "|i1": "b", "|u1": "B",
           "<u2": "H", "<i2": "h", "<u4": "I"}


def e4m3(bits):
    """A float8_e4m3fn value from its bits (bias 7, no infinities, NaN S.1111.111)."""
    sign = -1.0 if bits & 0x80 else 1.0
    e, m = (bits >> 3) & 15, bits & 7
    if e == 15 and m == 7:
        return math.nan
    return sign * (m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


def e5m2(bits):
    """A float8_e5m2 value from its bits (bias 15, IEEE-like: infinities and NaNs at e = 31)."""
    sign = -1.0 if bits & 0x80 else 1.0
    e, m = (bits >> 2) & 31, bits & 3
    if e == 31:
        return sign * math.inf if m == 0 else math.nan
    return sign * (m * 2.0 ** -16 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


FP8 = "--fp8-e4m3" in sys.argv  # '|u1' files hold float8_e4m3fn bits (the simulator's convention)
FP8_E5M2 = "--fp8-e5m2" in sys.argv  # ... or float8_e5m2 bits


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))  # a Python dict literal, by the format's definition
    code = FORMATS[header["descr"]]
    shape = header["shape"]
    n = math.prod(shape)
    body = data[10 + hlen:]
    values = list(struct.unpack(f"<{n}{code}", body[:n * struct.calcsize(code)]))
    if header["descr"] == "|u1" and FP8:
        values = [e4m3(x) for x in values]
    elif header["descr"] == "|u1" and FP8_E5M2:
        values = [e5m2(x) for x in values]
    if header["descr"] == "<u2":
        # the simulator writes bfloat16 as its raw bits: the top half of a float32
        values = [struct.unpack("<f", struct.pack("<I", x << 16))[0] for x in values]
    return header["descr"], shape, values


def round_to(descr, x):
    if descr == "<f2":
        try:
            return struct.unpack("<e", struct.pack("<e", x))[0]
        except OverflowError:
            return math.copysign(math.inf, x)
    if descr == "<f4":
        return struct.unpack("<f", struct.pack("<f", x))[0]
    return x


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def check_add(d, region):
    _, shape, a = read_npy(f"{d}/A.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    descr, cshape, c = read_npy(f"{d}/C.npy")
    if cshape != shape:
        fail(f"C has shape {cshape}, A {shape}")
    n = 0
    for i, (x, y, z) in enumerate(zip(a, b, c)):
        if region and not (region[0] <= i // shape[1] < region[1] and region[2] <= i % shape[1] < region[3]):
            continue
        want = round_to(descr, x + y)
        if struct.pack("<d", want) != struct.pack("<d", z):
            fail(f"element {i}: {x} + {y} = {want}, tlc-sim wrote {z}")
        n += 1
    print(f"add: {n} elements equal bit for bit")


def check_gemm(d, atol, rtol, trans_a, trans_b):
    _, ashape, a = read_npy(f"{d}/A.npy")
    _, bshape, b = read_npy(f"{d}/B.npy")
    _, cshape, c = read_npy(f"{d}/C.npy")
    M, N = cshape
    K = ashape[0] if trans_a else ashape[1]
    rows = [[a[k * ashape[1] + i] if trans_a else a[i * K + k] for k in range(K)] for i in range(M)]
    cols = [[b[j * K + k] if trans_b else b[k * bshape[1] + j] for k in range(K)] for j in range(N)]
    worst = 0.0
    for i in range(M):
        for j in range(N):
            ref = math.fsum(x * y for x, y in zip(rows[i], cols[j]))
            err = abs(c[i * N + j] - ref)
            if not err <= atol + rtol * abs(ref):
                fail(f"C[{i}, {j}] = {c[i * N + j]}, the float64 product {ref} (error {err})")
            worst = max(worst, err)
    print(f"gemm: {M}x{N}x{K}, largest error {worst:.3g} (atol {atol}, rtol {rtol})")


def check_shuffles(d, lanes, down, up):
    _, shape, a = read_npy(f"{d}/A.npy")
    n = shape[0]
    want = {"B": [], "C": [], "D": [], "E": []}
    for t in range(n):
        lane, base = t % lanes, t - t % lanes
        want["B"].append(a[base + lane + down] if lane + down < lanes else a[t])
        want["C"].append(a[base + lane - up] if lane - up >= 0 else a[t])
        want["D"].append(round_to("<f4", math.erf(a[t])))
        want["E"].append(max(min(a[t], 0.5), -0.5))
    for name, ref in want.items():
        _, _, got = read_npy(f"{d}/{name}.npy")
        for t, (x, y) in enumerate(zip(got, ref)):
            # erf: float32 erff against float64 erf rounded to float32 may differ in the last bit
            ok = abs(x - y) <= 2 ** -22 * max(abs(y), 1e-30) if name == "D" else struct.pack("<d", x) == struct.pack("<d", y)
            if not ok:
                fail(f"{name}[{t}] = {x}, want {y} (A[{t}] = {a[t]}, warps of {lanes})")
    print(f"shuffles: {n} threads in warps of {lanes}: B, C, D, E as expected")


def check_attention(d, atol, rtol, causal):
    _, shape, q = read_npy(f"{d}/Q.npy")
    _, _, k = read_npy(f"{d}/K.npy")
    _, _, v = read_npy(f"{d}/V.npy")
    _, _, o = read_npy(f"{d}/Output.npy")
    B, S, H, D = shape
    at = lambda x, b, s, h: x[((b * S + s) * H + h) * D:((b * S + s) * H + h) * D + D]
    worst = 0.0
    for b in range(B):
        for h in range(H):
            keys = [at(k, b, j, h) for j in range(S)]
            vals = [at(v, b, j, h) for j in range(S)]
            for i in range(S):
                qi = at(q, b, i, h)
                n = i + 1 if causal else S
                scores = [math.fsum(x * y for x, y in zip(qi, keys[j])) / math.sqrt(D) for j in range(n)]
                top = max(scores)
                w = [math.exp(x - top) for x in scores]
                total = math.fsum(w)
                out = at(o, b, i, h)
                for c in range(D):
                    ref = math.fsum(w[j] * vals[j][c] for j in range(n)) / total
                    err = abs(out[c] - ref)
                    if not err <= atol + rtol * abs(ref):
                        fail(f"Output[{b}, {i}, {h}, {c}] = {out[c]}, the float64 reference {ref} (error {err})")
                    worst = max(worst, err)
    print(f"attention: B{B} S{S} H{H} D{D}{' causal' if causal else ''}, largest error {worst:.3g}")


DESCR = {"bool": "|b1", "int8": "|i1", "uint8": "|u1", "int16": "<i2", "int32": "<i4", "uint32": "<u4",
         "int64": "<i8", "float16": "<f2",
         "float32": "<f4", "float64": "<f8", "bfloat16": "<u2", "float8_e4m3fn": "|u1"}


def e4m3_bits(x):
    """The bits of x, a float8_e4m3fn value (exactly one)."""
    for b in range(256):
        v = e4m3(b)
        if (math.isnan(x) and math.isnan(v)) or (v == x and math.copysign(1, v) == math.copysign(1, x)):
            return b
    sys.exit(f"{x} is not a float8_e4m3fn value")


def encode(dtype, x):
    """x in the storage of the tlc dtype (what read_npy decodes back)."""
    if dtype == "bfloat16":
        bits = struct.unpack("<I", struct.pack("<f", x))[0]
        if bits & 0xFFFF:
            sys.exit(f"{x} is not a bfloat16 value")
        return bits >> 16
    if dtype == "float8_e4m3fn":
        return e4m3_bits(x)
    if dtype == "bool":
        return bool(x)
    if dtype.startswith("float"):
        if struct.unpack("<" + FORMATS[DESCR[dtype]][-1], struct.pack("<" + FORMATS[DESCR[dtype]][-1], x))[0] != x \
                and not math.isnan(x):
            sys.exit(f"{x} is not a {dtype} value")
        return x
    return int(x)


def number(text):
    return float(text) if any(c in text for c in ".ein") else int(text)


def write_npy(path, dtype, values, shape=None):
    descr = DESCR[dtype]
    header = repr({"descr": descr, "fortran_order": False, "shape": tuple(shape or (len(values),))})
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    body = struct.pack(f"<{len(values)}{FORMATS[descr]}", *[encode(dtype, v) for v in values])
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + body)


def check_values(d, name, dtype, want):
    global FP8
    FP8 = dtype == "float8_e4m3fn"
    descr, shape, got = read_npy(f"{d}/{name}.npy")
    if descr != DESCR[dtype]:
        fail(f"{name}.npy holds {descr}, not {dtype}")
    if len(got) != len(want):
        fail(f"{name}.npy has {len(got)} elements, the test gives {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        same = (math.isnan(g) and math.isnan(w)) if isinstance(w, float) and math.isnan(w) else \
            (g == w and (not isinstance(w, float) or math.copysign(1, g) == math.copysign(1, w)))
        if not same:
            fail(f"{name}[{i}]: tlc-sim wrote {g}, the definition gives {w}")
    print(f"{name}: {len(want)} values as defined")


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        write_npy(sys.argv[2], sys.argv[3], [number(v) for v in sys.argv[4:]])
        return
    if cmd == "values":
        check_values(sys.argv[2], sys.argv[3], sys.argv[4], [number(v) for v in sys.argv[5:]])
        return
    if cmd == "add":
        check_add(sys.argv[2], [int(x) for x in sys.argv[3:7]])
    elif cmd == "gemm":
        check_gemm(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), "--trans-a" in sys.argv, "--trans-b" in sys.argv)
    elif cmd == "attention":
        check_attention(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), "--causal" in sys.argv)
    elif cmd == "shuffles":
        check_shuffles(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "twice":
        _, _, a = read_npy(f"{sys.argv[2]}/A.npy")
        _, _, b = read_npy(f"{sys.argv[2]}/B.npy")
        bad = [i for i, (x, y) in enumerate(zip(a, b)) if not y == 2 * x]
        if bad or len(a) != len(b):
            fail(f"B[{bad[0] if bad else len(b)}] is not 2 A ({len(bad)} elements differ)")
        print(f"twice: {len(b)} elements")
    elif cmd == "stmatrix":
        _, shape, c = read_npy(f"{sys.argv[2]}/C.npy")
        if shape != (16, 16):
            fail(f"C has shape {shape}, not (16, 16)")
        for k in range(4):
            for i in range(8):
                for col in range(4):
                    for u in range(2):
                        row, column = 8 * (k % 2) + i, 8 * (k // 2) + 2 * col + u
                        want = 8 * (4 * i + col) + 2 * k + u
                        if c[row * 16 + column] != want:
                            fail(f"C[{row}, {column}] = {c[row * 16 + column]}, stmatrix stores {want} there")
        print("stmatrix: 256 elements where the instruction puts them")
    elif cmd == "reversed":
        _, _, a = read_npy(f"{sys.argv[2]}/A.npy")
        _, _, b = read_npy(f"{sys.argv[2]}/B.npy")
        if b != a[::-1]:
            fail("B is not A reversed")
        print(f"reversed: {len(b)} elements")
    elif cmd == "finite":
        for name in sys.argv[3:]:
            _, _, values = read_npy(f"{sys.argv[2]}/{name}.npy")
            bad = [i for i, x in enumerate(values) if not math.isfinite(x)]
            if bad:
                fail(f"{name}[{bad[0]}] = {values[bad[0]]} ({len(bad)} elements not finite)")
            print(f"{name}: {len(values)} finite elements")
    elif cmd == "close":
        _, s1, x = read_npy(f"{sys.argv[2]}/{sys.argv[4]}.npy")
        _, s2, y = read_npy(f"{sys.argv[3]}/{sys.argv[4]}.npy")
        atol, rtol = float(sys.argv[5]), float(sys.argv[6])
        if s1 != s2:
            fail(f"{sys.argv[4]}: shapes {s1} and {s2}")
        worst = 0.0
        for i, (a, b) in enumerate(zip(x, y)):
            if not abs(a - b) <= atol + rtol * abs(b):
                fail(f"{sys.argv[4]}[{i}]: {a} and {b}")
            worst = max(worst, abs(a - b))
        print(f"{sys.argv[4]}: {len(x)} elements within atol {atol} rtol {rtol} (largest difference {worst:.3g})")
    elif cmd == "apart":
        # the opposite of close: some element differs by more than the
        # tolerance (element by element in C order: the shapes may differ, a
        # lowered kernel sees a laid-out tensor flat)
        _, s1, x = read_npy(f"{sys.argv[2]}/{sys.argv[4]}.npy")
        _, s2, y = read_npy(f"{sys.argv[3]}/{sys.argv[4]}.npy")
        atol, rtol = float(sys.argv[5]), float(sys.argv[6])
        if len(x) != len(y):
            fail(f"{sys.argv[4]}: shapes {s1} and {s2}")
        far = sum(1 for a, b in zip(x, y) if not abs(a - b) <= atol + rtol * abs(b))
        if not far:
            fail(f"{sys.argv[4]}: all {len(x)} elements within atol {atol} rtol {rtol}")
        print(f"{sys.argv[4]}: {far} of {len(x)} elements apart")
    elif cmd in ("same", "differ"):
        x = open(f"{sys.argv[2]}/{sys.argv[4]}.npy", "rb").read()
        y = open(f"{sys.argv[3]}/{sys.argv[4]}.npy", "rb").read()
        if (x == y) != (cmd == "same"):
            fail(f"{sys.argv[4]}.npy is {'not ' if cmd == 'same' else ''}the same in {sys.argv[2]} and {sys.argv[3]}")
        print(f"{sys.argv[4]}.npy: {cmd}")
    else:
        fail(f"unknown check {cmd}")


if __name__ == "__main__":
    main()
