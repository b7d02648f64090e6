#!/usr/bin/env python3
"""Inputs and checks of tests/lit/sim/ptr_table.tl (plain Python, no NumPy).

    ptr_table.py make DIR    the inputs of grouped(): random As, Bs; Cs filled with a
                             sentinel; pointer tables A_ptrs, B_ptrs, C_ptrs (int64) holding
                             tlc-sim's addresses of group g's tile in As, Bs and Cs
                             (doc/sim.md: tensor parameter k starts at (k + 1) << 40)
    ptr_table.py check DIR ATOL RTOL
                             Cs[g] = As[g] @ Bs[g] for every group (float64 reference)

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy, round_to, write_npy  # noqa: E402

G, M, K, N = 3, 64, 32, 48   # grouped(3, 64, 32, 48)
SENTINEL = 7.0


def address(k, byte):
    """tlc-sim's address of byte `byte` of the kernel's parameter k."""
    return ((k + 1) << 40) + byte


def make(d):
    rng = random.Random(7)
    os.makedirs(d, exist_ok=True)

    def normal(n):
        return [round_to("<f2", rng.gauss(0.0, 1.0)) for _ in range(n)]

    # parameters: 0 A_ptrs, 1 B_ptrs, 2 C_ptrs, 3 As, 4 Bs, 5 Cs (float16: 2 bytes)
    write_npy(f"{d}/A_ptrs.npy", "int64", [address(3, 2 * g * M * K) for g in range(G)], (G,))
    write_npy(f"{d}/B_ptrs.npy", "int64", [address(4, 2 * g * K * N) for g in range(G)], (G,))
    write_npy(f"{d}/C_ptrs.npy", "int64", [address(5, 2 * g * M * N) for g in range(G)], (G,))
    write_npy(f"{d}/As.npy", "float16", normal(G * M * K), (G, M, K))
    write_npy(f"{d}/Bs.npy", "float16", normal(G * K * N), (G, K, N))
    write_npy(f"{d}/Cs.npy", "float16", [SENTINEL] * (G * M * N), (G, M, N))


def check(d, atol, rtol):
    A, B, C = (read_npy(f"{d}/{n}.npy")[2] for n in ("As", "Bs", "Cs"))
    for g in range(G):
        for i in range(M):
            for j in range(N):
                ref = sum(A[(g * M + i) * K + k] * B[(g * K + k) * N + j] for k in range(K))
                got = C[(g * M + i) * N + j]
                if not abs(got - ref) <= atol + rtol * abs(ref):
                    sys.stderr.write(f"Cs[{g}, {i}, {j}] = {got}, want {ref}\n")
                    return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
        sys.exit(0)
    sys.exit(check(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
