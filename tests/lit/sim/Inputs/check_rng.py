#!/usr/bin/env python3
"""Check tlc-sim's T.rng_* outputs against cuRAND's Philox4x32-10 sequence,
computed here in plain Python from the published algorithm (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3", SC'11: Philox4x32 with 10
rounds, multipliers 0xD2511F53 and 0xCD9E8D57, key increments 0x9E3779B9
and 0xBB67AE85) and cuRAND's documented sequencing: curand_init(seed,
subsequence, offset) keys the generator with the seed's two words and
starts at number 2^66 * subsequence + offset of its stream; each counter
value gives four 32-bit numbers in order.

    check_rng.py kernel DIR SEED SEQ_BASE OFF_BASE K THREADS BLOCKS
        the outputs of rng.tl's kernel: thread t = bx * THREADS + tx starts
        with seq = SEQ_BASE + t (SEQ_BASE "none": TileLang's default seq, which
        is t too) and off = OFF_BASE + tx, then draws K of each: U (uint32),
        F (uniform float32), D (uniform float64), then K pairs of normals
        G (float32) and H (float64) interleaved, into [t * K + k]; U, F, D
        bit for bit, G and H within 2e-6 / 1e-12 (the GPU's sincos)
    check_rng.py catalog DIR SEED M PER
        A[i] of a kernel whose thread b starts at offset b * PER, sequence 0,
        and stores PER consecutive numbers: A[i] = number i of the stream
    check_rng.py grid DIR SEED GX GY TX TY
        A[by, bx, ty, tx] of a kernel of GX x GY blocks of TX x TY threads is
        the first number of the thread's generator, seeded SEED with
        TileLang's default seq, the thread's index in the grid with x
        fastest and the blocks outside: ((by GX + bx) TY + ty) TX + tx

Exit 0 when the check holds; 1 with the first mismatch on stderr.
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy  # noqa: E402

M32 = 0xFFFFFFFF


def philox10(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & M32, (p0 >> 32) ^ c3 ^ k1, p0 & M32
    return [c0, c1, c2, c3]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


class Curand:
    """A curandStatePhilox4_32_10_t: number n of the stream of (seed,
    subsequence) is word n % 4 of Philox(counter = n // 4 + 2^64 * subsequence)."""

    def __init__(self, seed, seq, off):
        self.key = (seed & M32, (seed >> 32) & M32)
        self.n = (seq << 66) + off  # the position in the 2^130-number stream
        self.extra_f = self.extra_d = None

    def u32(self):
        c = self.n >> 2
        words = philox10([(c >> (32 * i)) & M32 for i in range(4)], self.key)
        self.n += 1
        return words[(self.n - 1) & 3]

    def uniform_f32(self):
        return f32(f32(float(self.u32())) * 2.0**-32 + 2.0**-33)

    def uniform_f64(self):
        return self.u32() * 2.0**-32 + 2.0**-32

    def normal_f32(self):
        if self.extra_f is not None:
            x, self.extra_f = self.extra_f, None
            return x
        x, y = self.u32(), self.u32()
        c = f32(f32(2.0**-32) * f32(6.2831855))
        u = f32(f32(float(x)) * 2.0**-32 + 2.0**-33)
        a = f32(f32(float(y)) * c + f32(c / 2))  # one fused multiply-add
        m = math.sqrt(-2.0 * math.log(u))
        self.extra_f = math.cos(a) * m
        return math.sin(a) * m

    def normal_f64(self):
        if self.extra_d is not None:
            x, self.extra_d = self.extra_d, None
            return x
        w = [self.u32() for _ in range(4)]
        zx = w[0] ^ (w[1] << 21)
        zy = w[2] ^ (w[3] << 21)
        u = zx * 2.0**-53 + 2.0**-54
        a = zy * 2.0**-52 + 2.0**-53
        m = math.sqrt(-2.0 * math.log(u))
        self.extra_d = math.cos(math.pi * a) * m
        return math.sin(math.pi * a) * m


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def load(d, name):
    return read_npy(os.path.join(d, name + ".npy"))[2]


def compare(name, got, want, tol):
    for i, (g, w) in enumerate(zip(got, want)):
        if (g != w) if tol == 0 else not abs(g - w) <= tol * max(1.0, abs(w)):
            fail(f"{name}[{i}] = {g!r}, cuRAND's Philox4x32-10 gives {w!r}")
    if len(got) != len(want):
        fail(f"{name}: {len(got)} values, expected {len(want)}")


def check_kernel(d, seed, seq_base, off_base, k, threads, blocks):
    want = {n: [] for n in "UFDGH"}
    for bx in range(blocks):
        for tx in range(threads):
            t = bx * threads + tx
            g = Curand(seed, t if seq_base is None else seq_base + t, off_base + tx)
            want["U"] += [g.u32() for _ in range(k)]
            want["F"] += [g.uniform_f32() for _ in range(k)]
            want["D"] += [g.uniform_f64() for _ in range(k)]
            for _ in range(k):
                want["G"].append(g.normal_f32())
                want["H"].append(g.normal_f64())
    for name, tol in (("U", 0), ("F", 0), ("D", 0), ("G", 2e-6), ("H", 1e-12)):
        compare(name, load(d, name), want[name], tol)


def check_catalog(d, seed, m, per):
    want = []
    for b in range(m // per):
        g = Curand(seed, 0, b * per)
        want += [g.u32() for _ in range(per)]
    compare("A", load(d, "A"), want, 0)


# Random123's known-answer vectors for Philox4x32-10 (counter, key -> output)
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([M32] * 4, [M32] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


def check_grid(d, seed, gx, gy, tx_n, ty_n):
    want = []
    for by in range(gy):
        for bx in range(gx):
            for ty in range(ty_n):
                for tx in range(tx_n):
                    want.append(Curand(seed, ((by * gx + bx) * ty_n + ty) * tx_n + tx, 0).u32())
    compare("A", load(d, "A"), want, 0)


def main():
    for ctr, key, out in KAT:
        if philox10(ctr, key) != out:
            fail(f"the reference's Philox4x32-10 fails its known answer for {ctr}, {key}")
    a = sys.argv[1:]
    if a and a[0] == "kernel" and len(a) == 8:
        seq = None if a[3] == "none" else int(a[3])
        check_kernel(a[1], int(a[2]), seq, int(a[4]), int(a[5]), int(a[6]), int(a[7]))
    elif a and a[0] == "catalog" and len(a) == 5:
        check_catalog(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif a and a[0] == "grid" and len(a) == 7:
        check_grid(a[1], *map(int, a[2:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
