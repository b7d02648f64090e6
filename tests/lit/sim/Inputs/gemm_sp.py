#!/usr/bin/env python3
"""Inputs and the check of T.gemm_sp runs in tlc-sim, in plain Python.

    gemm_sp.py gen DIR M N K EDTYPE LAYOUT BK [--trans-b] [--trans-a]
        writes DIR/A_dense.npy (float32, M x K: of every 4 consecutive elements
        of a row at most 2 non-zero, groups with 0, 1 and 2 of them),
        DIR/A_sparse.npy (float16, M x K/2: the 2 kept values of each group),
        DIR/E.npy (the metadata: a 4-bit field per group, bits 4g..4g+3 of an
        element covering BITS columns, the kept columns in its low and high 2
        bits) stored in LAYOUT: "plain" (row-major), "sm80" (column-major,
        column pairs interleaved) or "sm90" (the 64-row atoms of BK / 8 bytes
        of 16-bit operands), and DIR/B.npy (float16, K x N or N x K); with
        --trans-a A_sparse is stored transposed (K/2 x M)
    gemm_sp.py check DIR RUN ATOL RTOL [--trans-b]
        |C - A_dense @ B| <= ATOL + RTOL |A_dense @ B| (C and B from the run's
        RUN directory, the float64 product of the dense matrix)
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy, write_npy, fail  # noqa: E402

BITS = {"int8": 8, "uint8": 8, "int16": 16, "int32": 32}


def sm80_offset(i, j, rows, cols, bk):
    return j // 2 * 2 * rows + 2 * i + j % 2


def sm90_offset(i, j, rows, cols, bk):
    nk = min(bk, 128) // 32
    i0, i1, i2, ia = i % 8, i // 8 % 2, i // 16 % 4, i // 64
    k0, k1, k2, ka = j % 2, j // 2 % 2, j // 4 % nk, j // (4 * nk)
    atom = 256 * nk
    row_atoms = (rows + 63) // 64
    return (k0 + 2 * i1 + 4 * k2 + 4 * nk * i0 + 32 * nk * k1 + 64 * nk * i2 + atom * ia +
            atom * row_atoms * ka)


def plain_offset(i, j, rows, cols, bk):
    return i * cols + j


def gen(d, M, N, K, edtype, layout, bk, trans_b, trans_a):
    rng = random.Random(M * 131 + N * 7 + K)
    bits = BITS[edtype]
    per = bits  # columns of A one metadata element covers: bits / 4 groups of 4
    dense = [[0.0] * K for _ in range(M)]
    kept = [[0.0] * (K // 2) for _ in range(M)]
    meta = [[0] * (K // per) for _ in range(M)]
    for i in range(M):
        for g in range(K // 4):
            nz = rng.choice([2, 2, 2, 1, 0])
            cols = sorted(rng.sample(range(4), nz))
            for c in cols:
                dense[i][4 * g + c] = rng.randint(-16, 16) / 8 or 0.5
            # pad with zero columns to two, in order
            pos = sorted(cols + [c for c in range(4) if c not in cols][:2 - nz])
            for t in range(2):
                kept[i][2 * g + t] = dense[i][4 * g + pos[t]]
            field = pos[0] | pos[1] << 2
            meta[i][4 * g // per] |= field << (4 * (g % (per // 4)))
    rows, cols = M, K // per
    offset = {"plain": plain_offset, "sm80": sm80_offset, "sm90": sm90_offset}[layout]
    phys = [0] * (rows * cols)
    for i in range(rows):
        for j in range(cols):
            v = meta[i][j]
            if edtype.startswith("int") and v >= 1 << (bits - 1):
                v -= 1 << bits
            phys[offset(i, j, rows, cols, bk)] = v
    b = [rng.randint(-16, 16) / 8 for _ in range(K * N)]
    write_npy(f"{d}/A_dense.npy", "float32", [x for r in dense for x in r], (M, K))
    if trans_a:
        write_npy(f"{d}/A_sparse.npy", "float16", [kept[i][k] for k in range(K // 2) for i in range(M)],
                  (K // 2, M))
    else:
        write_npy(f"{d}/A_sparse.npy", "float16", [x for r in kept for x in r], (M, K // 2))
    # a tensor with a layout is a flat array to tlc-sim
    write_npy(f"{d}/E.npy", edtype, phys, (rows, cols) if layout == "plain" else (rows * cols,))
    write_npy(f"{d}/B.npy", "float16", b, (N, K) if trans_b else (K, N))


def check(d, run, atol, rtol, trans_b):
    _, (M, K), a = read_npy(f"{d}/A_dense.npy")
    _, bshape, b = read_npy(f"{run}/B.npy")
    _, (cm, N), c = read_npy(f"{run}/C.npy")
    if cm != M:
        fail(f"C has {cm} rows, A {M}")
    worst = 0.0
    for i in range(M):
        for j in range(N):
            ref = math.fsum(a[i * K + k] * (b[j * K + k] if trans_b else b[k * N + j]) for k in range(K))
            err = abs(c[i * N + j] - ref)
            if not err <= atol + rtol * abs(ref):
                fail(f"C[{i}, {j}] = {c[i * N + j]}, the dense product {ref} (error {err})")
            worst = max(worst, err)
    print(f"gemm_sp: {M}x{N}x{K} equals the dense product, largest error {worst:.3g}")


def main():
    if sys.argv[1] == "gen":
        a = sys.argv[2:]
        gen(a[0], int(a[1]), int(a[2]), int(a[3]), a[4], a[5], int(a[6]), "--trans-b" in a,
            "--trans-a" in a)
    elif sys.argv[1] == "check":
        a = sys.argv[2:]
        check(a[0], a[1], float(a[2]), float(a[3]), "--trans-b" in a)
    else:
        sys.exit(f"unknown command {sys.argv[1]}")


if __name__ == "__main__":
    main()
