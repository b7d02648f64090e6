#!/usr/bin/env python3
"""Inputs and an independent reference for tests/gpu/kernels/topk.tl in tlc-sim
(plain Python, no NumPy).

    topk_check.py write PATH DTYPE ROWS COLS V...   a .npy of the values given, row by row
    topk_check.py random PATH DTYPE ROWS COLS SEED  a .npy whose rows hold distinct values (no
                                                    ties): multiples of 1/16 in [-8, 8), exact
                                                    in float16
    topk_check.py check DIR K                       gates / indices hold, per row of logits, the K
                                                    largest values and their columns in decreasing
                                                    order: Python's sorted() of the row
Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy, write_npy  # noqa: E402  (the .npy reader and writer of the sim tests)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def check(d, k):
    _, (m, n), logits = read_npy(f"{d}/logits.npy")
    _, gshape, gates = read_npy(f"{d}/gates.npy")
    _, ishape, indices = read_npy(f"{d}/indices.npy")
    if gshape != (m, k) or ishape != (m, k):
        fail(f"gates {gshape} and indices {ishape}, expected ({m}, {k}) each")
    for i in range(m):
        row = logits[i * n:(i + 1) * n]
        if len(set(row)) != n:
            fail(f"row {i} of the input has ties")
        order = sorted(range(n), key=lambda j: row[j], reverse=True)[:k]
        got_i, got_g = indices[i * k:(i + 1) * k], gates[i * k:(i + 1) * k]
        if got_i != order or got_g != [row[j] for j in order]:
            fail(f"row {i}: indices {got_i} gates {got_g}, expected {order} {[row[j] for j in order]}")
    print(f"topk: {m} rows of {n}, the {k} largest of each in order")


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        path, dtype, rows, cols = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        values = [float(v) for v in sys.argv[6:]]
        if len(values) != rows * cols:
            fail(f"{len(values)} values for {rows}x{cols}")
        write_npy(path, dtype, values, (rows, cols))
    elif cmd == "random":
        path, dtype, rows, cols, seed = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        rng = random.Random(seed)
        values = []
        for _ in range(rows):
            values += [(v - 128) / 16 for v in rng.sample(range(256), cols)]
        write_npy(path, dtype, values, (rows, cols))
    elif cmd == "check":
        check(sys.argv[2], int(sys.argv[3]))
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
