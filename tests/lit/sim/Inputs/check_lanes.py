#!/usr/bin/env python3
"""Check the raw registers a lane-semantics kernel stored (lane_semantics.tl)
against the PTX ISA's fragment tables, written here in the ISA's own terms:
groupID g = lane / 4, threadID_in_group t = lane % 4.

    check_lanes.py mma DIR M N WM WN           mma.sync m16n8k16 accumulator
    check_lanes.py mma-rs DIR M N K WM WN      ... with A read from registers (Asrc)
    check_lanes.py wgmma DIR M N WGM [--fp8-e4m3]  wgmma m64nNk16/k32 accumulator
    check_lanes.py wgmma-rs DIR M N K          ... with A read from registers (Asrc)
    check_lanes.py mfma16 DIR M N WM WN        MFMA 16x16 accumulator (wave64)
    check_lanes.py mfma32 DIR M N WM WN        MFMA 32x32 accumulator (wave64)
    check_lanes.py shfl-xor DIR MASK...        Out[i, l] = In[l ^ MASK_i] within each warp
    check_lanes.py mma-sync DIR BITS [--fp8-e4m3]  one T.mma_sync (m16n8k16 for 16-bit
                                      operands, m16n8k32 for 8-bit): lane l's raw A, B
                                      registers from Asrc[l * RA + r], Bsrc[l * RB + r]

Out[thread * R + r] is register r of the thread.  A thread group (a warp, a
warpgroup) holding an MI x NI block of instruction tiles keeps tile
(mi, ni)'s registers at (mi * NI + ni) * R_atom + r, and group
wm * WN + wn owns rows [wm * M / WM, ...) and columns [wn * N / WN, ...)
(tlc/layout.h, tlc_fragment_tile).  Values: A @ B in float64, compared
within 1e-6 relative (a wrong lane or register gives an unrelated product).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy  # noqa: E402


def c_16x8(lane, r):
    """mma.sync m16n8 (and each warp of wgmma m64nN) accumulator: c0,c1 in row g, c2,c3 in row g + 8."""
    return lane // 4 + 8 * (r >= 2), 2 * (lane % 4) + (r & 1)


def a_16x16(lane, r):
    """mma.sync m16n8k16 A (16-bit): a0,a1 (g, 2t..), a2,a3 (g+8, 2t..), a4,a5 (g, 2t+8..), a6,a7 (g+8, 2t+8..)."""
    return lane // 4 + 8 * ((r >> 1) & 1), 2 * (lane % 4) + (r & 1) + 8 * (r >= 4)


def b_16x8(lane, r):
    """mma.sync m16n8k16 B (16-bit, 16 x 8): b0,b1 rows 2t, 2t+1; b2,b3 rows 2t+8, 2t+9; column g."""
    return 2 * (lane % 4) + (r & 1) + 8 * (r >= 2), lane // 4


def a_16x32(lane, r):
    """mma.sync m16n8k32 A (8-bit): a0-a3 and a8-a11 in row g, the others in g + 8; columns
    4t + (r & 3), 16 more for a8..a15."""
    return lane // 4 + 8 * (r in (4, 5, 6, 7, 12, 13, 14, 15)), 4 * (lane % 4) + (r & 3) + 16 * (r >= 8)


def b_32x8(lane, r):
    """mma.sync m16n8k32 B (8-bit, 32 x 8): b0-b3 rows 4t..4t+3, b4-b7 rows 4t+16..; column g."""
    return 4 * (lane % 4) + (r & 3) + 16 * (r >= 4), lane // 4


def check_mma_sync(d, bits):
    K = 16 if bits == 16 else 32
    a_at, b_at = (a_16x16, b_16x8) if bits == 16 else (a_16x32, b_32x8)
    _, av = load(d, "Asrc")
    _, bv = load(d, "Bsrc")
    RA, RB = len(av) // 32, len(bv) // 32
    Am = [[None] * K for _ in range(16)]
    Bm = [[None] * 8 for _ in range(K)]
    for lane in range(32):
        for r in range(RA):
            i, k = a_at(lane, r)
            Am[i][k] = av[lane * RA + r]
        for r in range(RB):
            k, j = b_at(lane, r)
            Bm[k][j] = bv[lane * RB + r]
    if any(x is None for row in Am + Bm for x in row):
        sys.exit("some element of A or B is in no register")
    C = matmul(Am, Bm, 16, 8, K)
    _, out = load(d, "Out")
    for lane in range(32):
        for r in range(4):
            i, j = c_16x8(lane, r)
            got, want = out[lane * 4 + r], C[i][j]
            if abs(got - want) > 1e-6 * abs(want) + 1e-6:
                sys.exit(f"lane {lane} register {r}: {got}, but the ISA table puts C[{i}][{j}] = {want} there")


def d_16x16(lane, j):
    """MFMA 16x16 accumulator (AMD ISA): lane l, register j holds D[4 (l / 16) + j][l % 16]."""
    return 4 * (lane // 16) + j, lane % 16


def d_32x32(lane, j):
    """MFMA 32x32 accumulator: D[8 (j / 4) + 4 (l / 32) + j % 4][l % 32]."""
    return 8 * (j // 4) + 4 * (lane // 32) + j % 4, lane % 32


def matmul(A, B, M, N, K):
    return [[sum(A[i][k] * B[k][j] for k in range(K)) for j in range(N)] for i in range(M)]


def grid(shape):
    rows, cols = shape
    return lambda v: [v[i * cols:(i + 1) * cols] for i in range(rows)]


def load(d, name):
    _, shape, values = read_npy(os.path.join(d, name + ".npy"))
    return shape, values


def accumulator_slot(kind, M, N, GM, GN, thread, r):
    """(row, col) of register r of `thread` in the M x N accumulator."""
    if kind == "mma":
        group_threads, am, an, ratom = 32, 16, 8, 4
    elif kind == "mfma16":
        group_threads, am, an, ratom = 64, 16, 16, 4
    elif kind == "mfma32":
        group_threads, am, an, ratom = 64, 32, 32, 16
    else:
        group_threads, am, an, ratom = 128, 64, 8, 4
    group, lane = divmod(thread, group_threads)
    wm, wn = divmod(group, GN)
    NI = N // GN // an
    tile, ra = divmod(r, ratom)
    mi, ni = divmod(tile, NI)
    if kind == "mma":
        row, col = c_16x8(lane, ra)
    elif kind == "mfma16":
        row, col = d_16x16(lane, ra)
    elif kind == "mfma32":
        row, col = d_32x32(lane, ra)
    else:  # the warpgroup's warp w holds rows 16w .. 16w + 15 of the 64
        row, col = c_16x8(lane % 32, ra)
        row += 16 * (lane // 32)
    return wm * (M // GM) + mi * am + row, wn * (N // GN) + ni * an + col


def a_register_slot(kind, M, K, GM, GN, thread, r):
    """(row, k) of A register r of `thread` (A splits M only: every wn holds the same rows)."""
    group_threads, am = (32, 16) if kind == "mma" else (128, 64)
    group, lane = divmod(thread, group_threads)
    wm = group // GN
    KI = K // 16
    tile, ra = divmod(r, 8)
    mi, ki = divmod(tile, KI)
    row, col = a_16x16(lane % 32, ra)
    row += 16 * (lane // 32) if kind == "wgmma" else 0
    return wm * (M // GM) + mi * am + row, ki * 16 + col


def check_accumulator(d, kind, M, N, GM, GN, a_from_registers=None):
    (kb, nb), bv = load(d, "B")
    K = kb
    Bm = grid((K, N))(bv)
    threads = GM * GN * {"mma": 32, "mfma16": 64, "mfma32": 64}.get(kind, 128)
    if a_from_registers:
        K = a_from_registers
        _, av = load(d, "Asrc")
        RA = len(av) // threads
        Am = [[None] * K for _ in range(M)]
        for t in range(threads):
            for r in range(RA):
                i, k = a_register_slot(kind, M, K, GM, GN, t, r)
                if Am[i][k] is not None and Am[i][k] != av[t * RA + r]:
                    sys.exit(f"A[{i}][{k}] is in two registers with different values")
                Am[i][k] = av[t * RA + r]
        if any(x is None for row in Am for x in row):
            sys.exit("some element of A is in no register")
    else:
        (am_, K), avals = load(d, "A")
        Am = grid((M, K))(avals)
    C = matmul(Am, Bm, M, N, K)
    _, out = load(d, "Out")
    R = len(out) // threads
    seen = set()
    for t in range(threads):
        for r in range(R):
            i, j = accumulator_slot(kind, M, N, GM, GN, t, r)
            seen.add((i, j))
            got, want = out[t * R + r], C[i][j]
            if abs(got - want) > 1e-6 * abs(want) + 1e-6:
                sys.exit(f"thread {t} register {r}: {got}, but the ISA table puts C[{i}][{j}] = {want} there")
    if len(seen) != M * N:
        sys.exit(f"the registers hold {len(seen)} of the {M * N} accumulator elements")


def main():
    kind, d, rest = sys.argv[1], sys.argv[2], [a for a in sys.argv[3:] if not a.startswith("--")]
    n = [int(x) for x in rest]
    if kind == "mma":
        check_accumulator(d, "mma", n[0], n[1], n[2], n[3])
    elif kind == "mma-rs":
        check_accumulator(d, "mma", n[0], n[1], n[3], n[4], a_from_registers=n[2])
    elif kind == "wgmma":
        check_accumulator(d, "wgmma", n[0], n[1], n[2], 1)
    elif kind in ("mfma16", "mfma32"):
        check_accumulator(d, kind, n[0], n[1], n[2], n[3])
    elif kind == "wgmma-rs":
        check_accumulator(d, "wgmma", n[0], n[1], 1, 1, a_from_registers=n[2])
    elif kind == "mma-sync":
        check_mma_sync(d, n[0])
    elif kind == "shfl-xor":
        (lanes,), inv = load(d, "In")
        _, out = load(d, "Out")
        for i, mask in enumerate(n):
            for l in range(lanes):
                src = (l // 32) * 32 + ((l % 32) ^ mask)
                if out[i * lanes + l] != inv[src]:
                    sys.exit(f"shfl_xor mask {mask}: thread {l} got {out[i * lanes + l]}, lane {src} holds {inv[src]}")
    else:
        sys.exit(f"unknown check {kind}")


if __name__ == "__main__":
    main()
