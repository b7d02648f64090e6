#!/usr/bin/env python3
"""Check tlc-sim's outputs of the kernels that use views and parts of fragments
and per-thread arrays (tests/lit/layout_inference/fragment_view.tl,
tests/lit/lower_tile_ops/fragment_parts.tl, tests/lit/frontend/alloc_scope.tl)
against references computed here in plain Python, in float64, from the inputs
the simulator wrote beside them (no NumPy, as check_npy.py).

    check_frag.py heads DIR Q H [--rows]
        A (M, K), B (K, Q*H), W (Q, H):
        Out[i, q] == sum_h max((A @ B)[i, q*H + h], 0) * W[q, h]
        with --rows also Rows[i, q*H + h] == max((A @ B)[i, q*H + h], 0) * W[q, h]
    check_frag.py rows DIR
        X (R, C): Out[k, :] == X[k, :] * (k + 1) + X[R - 1 - k, :], and Sum[k] ==
        sum_c X[k, c] for every row k (a row of a fragment copied out and back)
    check_frag.py scopes DIR
        A (n, K): B[t] == sum_k A[t, k] * (k + 1) + A[t, 0] (per-thread arrays)

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import fail, read_npy  # noqa: E402  (the .npy reader beside this file)

TOL = 1e-5  # float32 sums of a few dozen float16 products: relative, and absolute near 0


def close(got, want):
    return abs(got - want) <= TOL * (1 + abs(want))


def heads(d, Q, H, with_rows):
    _, (M, K), a = read_npy(f"{d}/A.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    _, _, w = read_npy(f"{d}/W.npy")
    _, oshape, out = read_npy(f"{d}/Out.npy")
    N = Q * H
    if oshape != (M, Q):
        fail(f"Out has shape {oshape}, not {(M, Q)}")
    rows = None
    if with_rows:
        _, _, rows = read_npy(f"{d}/Rows.npy")
    for i in range(M):
        s = [math.fsum(a[i * K + k] * b[k * N + j] for k in range(K)) for j in range(N)]
        for q in range(Q):
            terms = [max(s[q * H + h], 0.0) * w[q * H + h] for h in range(H)]
            want = math.fsum(terms)
            if not close(out[i * Q + q], want):
                fail(f"Out[{i}, {q}] = {out[i * Q + q]}, the float64 reference {want}")
            for h in range(H) if rows is not None else ():
                if not close(rows[i * N + q * H + h], terms[h]):
                    fail(f"Rows[{i}, {q * H + h}] = {rows[i * N + q * H + h]}, the float64 reference {terms[h]}")
    print(f"heads: {M} rows, {Q} groups of {H} summed as defined (tolerance {TOL})")


def rows(d):
    _, (R, C), x = read_npy(f"{d}/X.npy")
    _, _, out = read_npy(f"{d}/Out.npy")
    _, _, total = read_npy(f"{d}/Sum.npy")
    for k in range(R):
        for c in range(C):
            want = x[k * C + c] * (k + 1) + x[(R - 1 - k) * C + c]
            if not close(out[k * C + c], want):
                fail(f"Out[{k}, {c}] = {out[k * C + c]}, want X[{k}, {c}] * {k + 1} + X[{R - 1 - k}, {c}] = {want}")
        want = math.fsum(x[k * C:(k + 1) * C])
        if not close(total[k], want):
            fail(f"Sum[{k}] = {total[k]}, the float64 sum of row {k} is {want}")
    print(f"rows: {R} rows of {C} as defined (tolerance {TOL})")


def scopes(d):
    _, (n, K), a = read_npy(f"{d}/A.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    for t in range(n):
        want = math.fsum(a[t * K + k] * (k + 1) for k in range(K)) + a[t * K]
        if not close(b[t], want):
            fail(f"B[{t}] = {b[t]}, want {want}")
    print(f"scopes: {n} threads as defined (tolerance {TOL})")


def main():
    cmd = sys.argv[1]
    if cmd == "heads":
        heads(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), "--rows" in sys.argv)
    elif cmd == "rows":
        rows(sys.argv[2])
    elif cmd == "scopes":
        scopes(sys.argv[2])
    else:
        fail(f"unknown check {cmd}")


if __name__ == "__main__":
    main()
