#!/usr/bin/env python3
"""Check tlc-sim's outputs of loop_exit.tl and atomic_prev.tl against values
computed here in plain Python from the inputs the simulator wrote.

    loop_exit_check.py scan DIR     Out[b, t] = 1000 * p + s for A (int32, B x N): p is
                                    the first i with A[b, i] + t % 4 >= 3 (-1: none), s
                                    the sum of the A[b, i] != 1 before it (or all of them)
    loop_exit_check.py nested DIR   Out[b, t]: rows r = 0, 1, ... of A (B x R x C); a row
                                    whose first element is 3 ends the scan; in a row, the
                                    elements up to the first 0 (excluded) are summed, each
                                    plus 127 - t (thread 127 - t's sum, through shared memory)
    loop_exit_check.py slots DIR    every A[i] (int32, N) > 1 was written once to Out
                                    at a slot of its own, Count[0] = how many, the
                                    slots 0 .. Count - 1 (a permutation of those
                                    elements), Prev[i] = the slot i took (or -1)
    loop_exit_check.py maxprev DIR  Prev[i] (int32) is M's value before thread i's
                                    atomic_max: one of -1 and the A[j]; M[0] = max(-1, A)
    loop_exit_check.py perm DIR     B (int32, n) is a permutation of 0 .. n - 1, A[0] = n
Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy  # noqa: E402


def load(d, name):
    _, shape, values = read_npy(os.path.join(d, name + ".npy"))
    return shape, values


def fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def scan(d):
    (b, n), a = load(d, "A")
    (_, t), out = load(d, "Out")
    for bi in range(b):
        for ti in range(t):
            pos, total = -1, 0
            for i in range(n):
                x = a[bi * n + i]
                if x + ti % 4 >= 3:
                    pos = i
                    break
                if x == 1:
                    continue
                total += x
            want = pos * 1000 + total
            got = out[bi * t + ti]
            if got != want:
                fail(f"Out[{bi}, {ti}] = {got}, expected {want}")


def nested(d):
    (b, r, c), a = load(d, "A")
    (_, t), out = load(d, "Out")
    row_breaks = inner_breaks = 0
    for bi in range(b):
        for ti in range(t):
            total = 0
            for ri in range(r):
                row = [a[(bi * r + ri) * c + j] for j in range(c)]
                if row[0] == 3:
                    row_breaks += 1
                    break
                for j in range(c):
                    if row[j] == 0:
                        inner_breaks += 1
                        break
                    total += row[j] + (t - 1 - ti)  # the partner thread's part
            if out[bi * t + ti] != total:
                fail(f"Out[{bi}, {ti}] = {out[bi * t + ti]}, expected {total}")
    if not row_breaks or not inner_breaks:
        fail("the inputs take no break of the row loop or of the inner loop: the test shows nothing")


def slots(d):
    (n,), a = load(d, "A")
    _, out = load(d, "Out")
    _, count = load(d, "Count")
    _, prev = load(d, "Prev")
    taken = [i for i in range(n) if a[i] > 1]
    if count[0] != len(taken):
        fail(f"Count = {count[0]}, expected {len(taken)}")
    seen = set()
    for i in range(n):
        if a[i] <= 1:
            if prev[i] != -1:
                fail(f"Prev[{i}] = {prev[i]} for an element not taken")
            continue
        s = prev[i]
        if not 0 <= s < len(taken) or s in seen:
            fail(f"Prev[{i}] = {s}: not a slot of its own in [0, {len(taken)})")
        seen.add(s)
        if out[s] != i:
            fail(f"Out[{s}] = {out[s]}, expected {i}")


def maxprev(d):
    (n,), a = load(d, "A")
    _, m = load(d, "M")
    _, prev = load(d, "Prev")
    if m[0] != max([-1] + a):
        fail(f"M = {m[0]}, expected {max([-1] + a)}")
    allowed = set([-1] + a)
    for i in range(n):
        if prev[i] not in allowed or prev[i] > m[0]:
            fail(f"Prev[{i}] = {prev[i]} is no value M held")
    # the first thread to run saw the initial value
    if -1 not in prev:
        fail("no thread saw M's initial value -1")


def perm(d):
    (n,), b = load(d, "B")
    _, a = load(d, "A")
    if sorted(b) != list(range(n)):
        fail(f"B is not a permutation of 0 .. {n - 1}: {sorted(b)[:8]}...")
    if a[0] != n:
        fail(f"A = {a[0]}, expected {n}")


def main():
    what, d = sys.argv[1], sys.argv[2]
    {"scan": scan, "nested": nested, "slots": slots, "maxprev": maxprev, "perm": perm}[what](d)


if __name__ == "__main__":
    main()
