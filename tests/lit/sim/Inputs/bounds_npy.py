#!/usr/bin/env python3
"""Inputs and checks of tests/lit/sim/bounds.tl (plain Python, no NumPy).

    bounds_npy.py make DIR            write the inputs of shift() and grouped() to DIR
                                      (random values from a fixed seed; outputs
                                      pre-filled with a sentinel)
    bounds_npy.py shift DIR           B[k] = A[k + 1], the last one A's safe value -1.5;
                                      C[k] = 2 D[k - 1], the first 2 * 0; H = H0 + 1
                                      (bit for bit)
    bounds_npy.py grouped DIR ATOL RTOL
                                      rows [start, start + count) of Y inside it are
                                      X[r] @ W[g] (float64 reference), the rows of no
                                      group keep the sentinel

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy, round_to  # noqa: E402

N = 100                       # shift(): its tensors' length
ROWS, K, COLS = 72, 64, 96    # grouped(): X is ROWS x K, W is G x K x COLS
STARTS = [0, 40, 64]
COUNTS = [36, 24, 16]         # rows 36..39 belong to no group; the last group overhangs by 8
SENTINEL = 7.0


def write_npy(path, descr, shape, values):
    code = {"<f2": "e", "<f4": "f", "<i4": "i"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(f"<{len(values)}{code}", *values))


def make(d):
    rng = random.Random(1)
    os.makedirs(d, exist_ok=True)

    def normal(n, descr):
        return [round_to(descr, rng.gauss(0.0, 1.0)) for _ in range(n)]

    write_npy(f"{d}/A.npy", "<f4", (N,), normal(N, "<f4"))
    write_npy(f"{d}/D.npy", "<f4", (N,), normal(N, "<f4"))
    write_npy(f"{d}/B.npy", "<f4", (N,), [SENTINEL] * N)
    write_npy(f"{d}/C.npy", "<f4", (N,), [SENTINEL] * N)
    write_npy(f"{d}/H.npy", "<f4", (4,), [0.5, 1.5, 2.5, 3.5])
    write_npy(f"{d}/X.npy", "<f2", (ROWS, K), normal(ROWS * K, "<f2"))
    write_npy(f"{d}/W.npy", "<f2", (len(STARTS), K, COLS), normal(len(STARTS) * K * COLS, "<f2"))
    write_npy(f"{d}/Y.npy", "<f2", (ROWS, COLS), [SENTINEL] * (ROWS * COLS))
    write_npy(f"{d}/starts.npy", "<i4", (len(STARTS),), STARTS)
    write_npy(f"{d}/counts.npy", "<i4", (len(COUNTS),), COUNTS)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def same(x, y):
    return struct.pack("<d", x) == struct.pack("<d", y)


def check_shift(d):
    _, _, a = read_npy(f"{d}/A.npy")
    _, _, dd = read_npy(f"{d}/D.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    _, _, c = read_npy(f"{d}/C.npy")
    _, _, h = read_npy(f"{d}/H.npy")
    for k in range(N):
        want = a[k + 1] if k + 1 < N else -1.5
        if not same(b[k], want):
            fail(f"B[{k}] = {b[k]}, want {want}")
        want = round_to("<f4", 2.0 * (dd[k - 1] if k >= 1 else 0.0))
        if not same(c[k], want):
            fail(f"C[{k}] = {c[k]}, want {want}")
    for k, h0 in enumerate([0.5, 1.5, 2.5, 3.5]):
        if not same(h[k], h0 + 1.0):
            fail(f"H[{k}] = {h[k]}, want {h0 + 1.0}")
    print(f"shift: {2 * N + 4} elements equal bit for bit")


def check_grouped(d, atol, rtol):
    _, _, x = read_npy(f"{d}/X.npy")
    _, _, w = read_npy(f"{d}/W.npy")
    _, _, y = read_npy(f"{d}/Y.npy")
    owner = [None] * ROWS
    for g, (s, n) in enumerate(zip(STARTS, COUNTS)):
        for r in range(s, min(s + n, ROWS)):
            owner[r] = g
    worst = 0.0
    for r in range(ROWS):
        for j in range(COLS):
            got = y[r * COLS + j]
            g = owner[r]
            if g is None:
                if got != SENTINEL:
                    fail(f"Y[{r}, {j}] = {got}: row {r} belongs to no group and must keep {SENTINEL}")
                continue
            ref = math.fsum(x[r * K + k] * w[(g * K + k) * COLS + j] for k in range(K))
            err = abs(got - ref)
            worst = max(worst, err)
            if not err <= atol + rtol * abs(ref):
                fail(f"Y[{r}, {j}] = {got}, reference {ref} (group {g})")
    print(f"grouped: every row inside a group within tolerance (largest error {worst:.3g}), the others untouched")


if __name__ == "__main__":
    what, d = sys.argv[1], sys.argv[2]
    if what == "make":
        make(d)
    elif what == "shift":
        check_shift(d)
    elif what == "grouped":
        check_grouped(d, float(sys.argv[3]), float(sys.argv[4]))
    else:
        fail(f"unknown check '{what}'")
