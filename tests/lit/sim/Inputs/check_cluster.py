#!/usr/bin/env python3
"""Check tlc-sim's .npy outputs of the thread-block cluster tests
(cluster*.tl) against references computed here from the inputs the
simulator wrote beside them (plain Python; check_npy.py reads the files).

    check_cluster.py copies DIR [R0 R1]
                                       B[x] == A bit for bit for every x (each block
                                       of a cluster wrote the whole tile, half of which
                                       the other block's TMA multicast brought); with
                                       R0 R1 only in rows [R0, R1) of the last two
                                       dimensions, and no row of B[x] outside them is A's
                                       (those blocks did not run: B keeps its random values)
    check_cluster.py ranks DIR CX CY [C0,C1,...]
                                       R[y, x] == 10 + the rank of block (x, y) in
                                       clusters of CX x CY blocks, x % CX + (y % CY) CX;
                                       with a list of clusters (their linear index, x
                                       fastest), only in those, and below 10 (the random
                                       initial values, 0 to 3) everywhere else

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import fail, read_npy  # noqa: E402


def check_copies(d, rows):
    _, shape, a = read_npy(f"{d}/A.npy")
    _, bshape, b = read_npy(f"{d}/B.npy")
    if list(bshape[1:]) != list(shape):
        fail(f"B has shape {bshape}, A {shape}")
    n, cols = len(a), shape[-1]
    lo, hi = rows if rows else (0, shape[0])
    for x in range(bshape[0]):
        for r in range(shape[0]):
            row_b = [struct.pack("<d", v) for v in b[x * n + r * cols:x * n + (r + 1) * cols]]
            row_a = [struct.pack("<d", v) for v in a[r * cols:(r + 1) * cols]]
            if lo <= r < hi and row_b != row_a:
                c = next(i for i in range(cols) if row_b[i] != row_a[i])
                fail(f"B[{x}, {r}, {c}] = {b[x * n + r * cols + c]}, A holds {a[r * cols + c]}")
            if not lo <= r < hi and row_b == row_a:
                fail(f"B[{x}, {r}] is A's row {r}, outside the rows of the blocks that ran")
    print(f"copies: {bshape[0]} copies of rows [{lo}, {hi}) equal bit for bit")


def check_ranks(d, cx, cy, clusters):
    _, shape, r = read_npy(f"{d}/R.npy")
    rows, cols = shape
    ran = 0
    for y in range(rows):
        for x in range(cols):
            c = x // cx + (y // cy) * (cols // cx)
            got = r[y * cols + x]
            if clusters is None or c in clusters:
                want = 10 + x % cx + (y % cy) * cx
                if got != want:
                    fail(f"R[{y}, {x}] = {got}, the block of rank {want - 10} in its cluster writes {want}")
                ran += 1
            elif got >= 10:
                fail(f"R[{y}, {x}] = {got}: block ({x}, {y}) of cluster {c} ran, outside the sample")
    print(f"ranks: {ran} blocks wrote their rank")


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "copies":
        check_copies(d, (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else None)
    elif cmd == "ranks":
        clusters = {int(c) for c in sys.argv[5].split(",")} if len(sys.argv) > 5 else None
        check_ranks(d, int(sys.argv[3]), int(sys.argv[4]), clusters)
    else:
        fail(f"unknown check {cmd}")


if __name__ == "__main__":
    main()
