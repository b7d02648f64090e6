#!/usr/bin/env python3
"""Inputs and references for tests/lit/sim/sync_rows.tl (plain Python, no NumPy).

    sync_rows_check.py write PATH N SEED      an int32 .npy of N values in [0, 64)
    sync_rows_check.py pingpong DIR L ROUNDS  B (2 x N) holds both rows of the ping-pong:
                                              rows start as A; round i (row r = i % 2)
                                              sets row r ^ 1 at t < L to row r at t plus
                                              row r at (t + 1) % N
    sync_rows_check.py halving DIR ROUNDS     Cnt[0] and the first Cnt[0] elements of B are
                                              the multiset of what ROUNDS rounds of "keep
                                              the even values, halved" leave of A
    sync_rows_check.py blocks DIR NBLK        B is -1 but where thread t with M[t] odd stored
                                              A[u * 2048 + 8 t + v] at u * 2048 + 64 (t // 8)
                                              + 8 (t % 8) + (v ^ (t // 8) % 8)
Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy, write_npy  # noqa: E402


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def wrap32(v):
    return (v + 2**31) % 2**32 - 2**31


def pingpong(d, lim, rounds):
    _, (n,), a = read_npy(f"{d}/A.npy")
    _, bshape, b = read_npy(f"{d}/B.npy")
    rows = [list(a), list(a)]
    for i in range(rounds):
        r = i % 2
        for t in range(min(lim, n)):
            rows[r ^ 1][t] = wrap32(rows[r][t] + rows[r][(t + 1) % n])
    want = rows[0] + rows[1]
    for k, (x, y) in enumerate(zip(b, want)):
        if x != y:
            fail(f"B[{k // n}, {k % n}] = {x}, expected {y}")
    print(f"pingpong: {len(want)} values as expected")


def halving(d, rounds):
    _, (n,), a = read_npy(f"{d}/A.npy")
    _, _, cnt = read_npy(f"{d}/Cnt.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    vals = list(a)
    for _ in range(rounds):
        vals = [v // 2 for v in vals if v % 2 == 0]
    if cnt[0] != len(vals):
        fail(f"Cnt[0] = {cnt[0]}, expected {len(vals)}")
    got = sorted(b[: len(vals)])
    if got != sorted(vals):
        fail(f"the values kept {got} are not {sorted(vals)}")
    print(f"halving: {len(vals)} values as expected")


def blocks(d, nblk):
    _, _, a = read_npy(f"{d}/A.npy")
    _, _, m = read_npy(f"{d}/M.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    want = [-1] * (nblk * 2048)
    for t in range(256):
        if m[t] % 2 != 0:
            for u in range(nblk):
                for v in range(8):
                    want[u * 2048 + t // 8 * 64 + t % 8 * 8 + (v ^ t // 8 % 8)] = a[u * 2048 + t * 8 + v]
    for k, (x, y) in enumerate(zip(b, want)):
        if x != y:
            fail(f"B[{k}] = {x}, expected {y}")
    print(f"blocks: {len(want)} values as expected")


def main():
    if sys.argv[1] == "write":
        n, rng = int(sys.argv[3]), random.Random(int(sys.argv[4]))
        write_npy(sys.argv[2], "int32", [rng.randrange(64) for _ in range(n)])
    elif sys.argv[1] == "pingpong":
        pingpong(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "blocks":
        blocks(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "halving":
        halving(sys.argv[2], int(sys.argv[3]))
    else:
        fail(f"unknown command {sys.argv[1]}")


if __name__ == "__main__":
    main()
