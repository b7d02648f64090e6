#!/usr/bin/env python3
"""Check tlc-sim's outputs for TIR's loops, bit operations, warp shuffles
and T.c2d_im2col against references computed here in plain Python from
the inputs the simulator wrote beside them (the definitions in
doc/language.md; CUDA's __shfl*_sync for the shuffles).

    check_ops.py loops DIR LO         S, P and V of tests/lit/sim/tir_loops.tl
    check_ops.py bits DIR             the shifts and bitwise functions of bit_functions.tl
    check_ops.py shuffle DIR WIDTH LANE DELTA MASK LANES
                                      X/I/U/D/Y: shfl_xor, shfl_sync (idx), shfl_up, shfl_down, and
                                      tvm_warp_shuffle of lane (tx ^ 1)
                                      of A in segments of WIDTH lanes of a warp of LANES
    check_ops.py im2col DIR N H W C KH KW STRIDE DILATION PAD
                                      Col: the im2col matrix of Img (N, H, W, C), zero padded

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy  # noqa: E402  (the same directory)


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def same(name, got, want):
    if len(got) != len(want):
        fail(f"{name} has {len(got)} elements, the reference {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if w is not None and g != w:
            fail(f"{name}[{i}]: tlc-sim wrote {g}, the reference is {w}")
    print(f"{name}: {sum(w is not None for w in want)} values as defined")


def wrap32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def check_loops(d, lo):
    _, _, a = read_npy(f"{d}/A.npy")
    n = len(a)
    s = [sum(a[i] for i in range(3, n, 5)),
         sum(2 * a[i] for i in range(n - 1, 0, -7)),
         sum(a[i] for i in range(lo, n, 4)),
         sum(a[i] for i in range(n - 2, lo, -3))]
    _, _, got = read_npy(f"{d}/S.npy")
    same("S", got, [wrap32(x) for x in s])
    _, _, p = read_npy(f"{d}/P.npy")
    same("P", p, [a[i] + 1 if 8 <= i < 40 else -1 for i in range(n)])
    _, _, v = read_npy(f"{d}/V.npy")
    same("V", v, [3 * a[i] if 2 <= i < 6 else 0 for i in range(n)])


def check_bits(d):
    _, _, a = read_npy(f"{d}/A.npy")
    _, _, b = read_npy(f"{d}/B.npy")
    want = {
        "L": [wrap32(x << 3) for x in a],
        "R": [x >> 2 for x in a],  # Python's >> of a negative int is arithmetic
        "N": [x & y for x, y in zip(a, b)],
        "O": [x | y for x, y in zip(a, b)],
        "X": [x ^ y for x, y in zip(a, b)],
        "Z": [~x for x in a],
        "V": [wrap32(x << (y & 31)) for x, y in zip(a, b)],
        "U": [(x & 0xFF) >> 1 for x in a],
    }
    for name, w in want.items():
        _, _, got = read_npy(f"{d}/{name}.npy")
        same(name, got, w)


def check_shuffle(d, width, lane, delta, mask, lanes):
    """CUDA's definitions: lane i of segment [s, s + WIDTH) reads
    shfl_sync: s + LANE % WIDTH; shfl_up: i - DELTA unless that is below s
    (its own); shfl_down: i + DELTA unless that is past the segment (its
    own); shfl_xor: i ^ MASK unless that is past the segment (its own)."""
    _, _, a = read_npy(f"{d}/A.npy")
    n = len(a)
    want = {"X": [], "I": [], "U": [], "D": [], "Y": []}
    for t in range(n):
        warp, i = t - t % lanes, t % lanes
        s = i - i % width
        x = i ^ mask
        want["X"].append(a[warp + (x if x < s + width else i)])
        want["I"].append(a[warp + s + lane % width])
        want["U"].append(a[warp + (i - delta if i - delta >= s else i)])
        want["D"].append(a[warp + (i + delta if i + delta < s + width else i)])
        want["Y"].append(a[warp + s + ((t ^ 1) & (width - 1))])
    for name, w in want.items():
        _, _, got = read_npy(f"{d}/{name}.npy")
        same(name, got, w)


def check_im2col(d, n, h, w, c, kh, kw, stride, dilation, pad):
    _, _, img = read_npy(f"{d}/Img.npy")
    _, shape, col = read_npy(f"{d}/Col.npy")
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    rows, cols = n * oh * ow, kh * kw * c
    if tuple(shape) != (rows, cols):
        fail(f"Col has shape {tuple(shape)}, the im2col matrix ({rows}, {cols})")
    want = []
    for r in range(rows):
        b, rest = divmod(r, oh * ow)
        y, x = divmod(rest, ow)
        for k in range(cols):
            ky, rest = divmod(k, kw * c)
            kx, ch = divmod(rest, c)
            iy, ix = y * stride + ky * dilation - pad, x * stride + kx * dilation - pad
            inside = 0 <= iy < h and 0 <= ix < w
            want.append(img[((b * h + iy) * w + ix) * c + ch] if inside else 0.0)
    same("Col", col, want)


def main():
    cmd, d, rest = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
    if cmd == "loops":
        check_loops(d, *rest)
    elif cmd == "bits":
        check_bits(d)
    elif cmd == "shuffle":
        check_shuffle(d, *rest)
    elif cmd == "im2col":
        check_im2col(d, *rest)
    else:
        fail(f"unknown check '{cmd}'")


if __name__ == "__main__":
    main()
