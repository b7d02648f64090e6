#!/usr/bin/env python3
"""Check tlc-sim's outputs of the kernels of tests/lit/sim/fragment_outside_read.tl
and tests/lit/sim/fragment_wide_index.tl against references computed here in plain
Python, in float64, from the inputs the simulator wrote beside them (no NumPy, as
check_npy.py).

    check_frag2.py colmax DIR FIRST
        L, X (S, W): m[j] = max_k L[k, j], acc = sum_k (2^(L[k, 3] - m[3]) + m[W - 1]);
        Out[k, j] == X[k, j] acc + m[0], and First[t] == m[5] + m[t] for t < FIRST
    check_frag2.py combine DIR
        Part (B, S, D), Lse (B, S): t[b] = log2(sum_s 2^(Lse[b, s] - m[b])) + m[b] with
        m[b] = max_s Lse[b, s]; Out[b, d] == sum_s Part[b, s, d] 2^(Lse[b, s] - t[b])
    check_frag2.py sinkrows DIR BM
        X (M, N), Bias (H,): Out[h, r] == max_c X[r, c] + 2 Bias[h] + (r % BM)

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import fail, read_npy  # noqa: E402  (the .npy reader beside this file)

TOL = 1e-5  # float32 sums of a few terms, against float64: relative, and absolute near 0


def check(name, got, want):
    if abs(got - want) > TOL * (1 + abs(want)):
        fail(f"{name}: got {got}, want {want}")


def colmax(d, first):
    _, (S, W), lv = read_npy(f"{d}/L.npy")
    _, _, xv = read_npy(f"{d}/X.npy")
    _, _, out = read_npy(f"{d}/Out.npy")
    _, _, fst = read_npy(f"{d}/First.npy")
    m = [max(lv[k * W + j] for k in range(S)) for j in range(W)]
    acc = sum(2.0 ** (lv[k * W + 3] - m[3]) + m[W - 1] for k in range(S))
    for k in range(S):
        for j in range(W):
            check(f"Out[{k}, {j}]", out[k * W + j], xv[k * W + j] * acc + m[0])
    for t in range(first):
        check(f"First[{t}]", fst[t], m[5] + m[t])


def combine(d):
    _, (B, S, D), part = read_npy(f"{d}/Part.npy")
    _, _, lse = read_npy(f"{d}/Lse.npy")
    _, _, out = read_npy(f"{d}/Out.npy")
    for b in range(B):
        row = lse[b * S:(b + 1) * S]
        m = max(row)
        t = math.log2(sum(2.0 ** (x - m) for x in row)) + m
        for k in range(D):
            want = sum(part[(b * S + s) * D + k] * 2.0 ** (row[s] - t) for s in range(S))
            check(f"Out[{b}, {k}]", out[b * D + k], want)


def sinkrows(d, bm):
    _, (M, N), xv = read_npy(f"{d}/X.npy")
    _, (H,), bias = read_npy(f"{d}/Bias.npy")
    _, _, out = read_npy(f"{d}/Out.npy")
    for h in range(H):
        for r in range(M):
            want = max(xv[r * N + c] for c in range(N)) + 2.0 * bias[h] + (r % bm)
            check(f"Out[{h}, {r}]", out[h * M + r], want)


if __name__ == "__main__":
    if sys.argv[1] == "colmax":
        colmax(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "combine":
        combine(sys.argv[2])
    elif sys.argv[1] == "sinkrows":
        sinkrows(sys.argv[2], int(sys.argv[3]))
    else:
        fail(f"unknown check {sys.argv[1]}")
