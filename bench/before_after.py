#!/usr/bin/env python3
"""Two builds of tlc timed in turn, in one process: is a change any slower?

Each kernel is built by both drivers (--tlc-a, the build before the change;
--tlc-b, the one after), both results are checked against torch on the same
random inputs, and the two launches are timed in turn with CUDA events
(median of 30 of each after 5 warm-ups: tlc.profiler.medians_in_turn_ms), so
that a drift of clocks moves both alike. Prints and writes
bench/results/before-after-<date>.md with date, device and both commits.

    python3 bench/before_after.py --tlc-a OLD/bin/tlc --tlc-b NEW/bin/tlc \
        --label-a b3963ce --label-b 463adc9
"""
import argparse
import datetime
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu"))
import tlc_gpu  # noqa: E402
from tlc import profiler  # noqa: E402

REPO = tlc_gpu.REPO
EX = os.path.join(REPO, "examples")
WARMUP, RUNS = 5, 30


def cases(torch):
    """(label, file, entry, make_args(), check(args)) for each kernel timed."""
    import torch.nn.functional as F

    def gemm(n, dt):
        def make():
            a = torch.randn(n, n, device="cuda", dtype=dt)
            b = torch.randn(n, n, device="cuda", dtype=dt)
            return [a, b, torch.empty(n, n, device="cuda", dtype=dt)]
        return make, lambda t: tlc_gpu.check(t[2], t[0].float() @ t[1].float(), atol=0.5, rtol=2e-2)[0]

    def fp8(n):
        def make():
            a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            return [a, b, torch.empty(n, n, device="cuda", dtype=torch.float32)]
        return make, lambda t: tlc_gpu.check(t[2], t[0].float() @ t[1].float().T, atol=1e-1, rtol=1e-3)[0]

    def attention(causal):
        B, H, S, D = 8, 32, 4096, 128

        def make():
            return [torch.randn(B, S, H, D, device="cuda").half() for _ in range(3)] + \
                [torch.empty(B, S, H, D, device="cuda", dtype=torch.half)]

        def check(t):
            q, k, v = (x.transpose(1, 2) for x in t[:3])
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal).transpose(1, 2)
            return tlc_gpu.check(t[3], ref.float(), atol=1e-2, rtol=1e-2)[0]
        return make, check

    def add(n):
        def make():
            return [torch.randn(n, n, device="cuda").half(), torch.randn(n, n, device="cuda").half(),
                    torch.empty(n, n, device="cuda", dtype=torch.half)]
        return make, lambda t: tlc_gpu.check(t[2], t[0].float() + t[1].float())[0]

    return [
        ("gemm.tl defaults fp16 8192^3", "gemm.tl", "matmul(8192, 8192, 8192)") + gemm(8192, torch.half),
        ("gemm.tl 128x256x64 s3 t256 bf16 8192^3", "gemm.tl",
         'matmul(8192, 8192, 8192, 128, 256, 64, num_stages=3, threads=256, dtype="bfloat16")') +
        gemm(8192, torch.bfloat16),
        ("gemm_fp8.tl defaults 8192^3", "gemm_fp8.tl", "matmul_fp8(8192, 8192, 8192)") + fp8(8192),
        ("flash_attn_fwd.tl B8 H32 S4096 D128 non-causal", "flash_attn_fwd.tl",
         "flashattn(8, 32, 4096, 128, is_causal=False)") + attention(False),
        ("flash_attn_fwd.tl B8 H32 S4096 D128 causal", "flash_attn_fwd.tl",
         "flashattn(8, 32, 4096, 128, is_causal=True)") + attention(True),
        ("elementwise_add.tl fp16 8192^2", "elementwise_add.tl", "elementwise_add(8192, 8192)") + add(8192),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc-a", required=True)
    ap.add_argument("--tlc-b", required=True)
    ap.add_argument("--label-a", default="a")
    ap.add_argument("--label-b", default="b")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    all_cases = cases(torch)
    # each build with its own pipeline (its installed tlc.ini: the passes it has)
    conf = {t: ("--config=" + os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(t))), "share", "tlc",
                                          "tlc.ini"),) for t in (args.tlc_a, args.tlc_b)}
    for tlc in (args.tlc_a, args.tlc_b):
        tlc_gpu.prebuild([(os.path.join(EX, f), e, conf[tlc]) for _, f, e, _, _ in all_cases], tlc=tlc)
    rows, bad = [], 0
    for label, f, entry, make, check in all_cases:
        ka = tlc_gpu.compile(os.path.join(EX, f), entry=entry, tlc=args.tlc_a, verbose=False, tlc_args=conf[args.tlc_a])
        kb = tlc_gpu.compile(os.path.join(EX, f), entry=entry, tlc=args.tlc_b, verbose=False, tlc_args=conf[args.tlc_b])
        torch.manual_seed(0)
        ta, tb = make(), make()
        for i in range(len(ta) - 1):  # the same inputs for both builds
            tb[i].copy_(ta[i])
        fa, fb = tlc_gpu.bind(ka, *ta), tlc_gpu.bind(kb, *tb)
        fa()
        fb()
        torch.cuda.synchronize()
        oka, okb = check(ta), check(tb)
        bad += not (oka and okb)
        same_source = os.path.dirname(ka.so_path) == os.path.dirname(kb.so_path)  # the cache keys the .cu
        ms_a, ms_b = profiler.medians_in_turn_ms([fa, fb], WARMUP, RUNS)
        rows.append((label, oka, okb, ms_a, ms_b, same_source))
    device = torch.cuda.get_device_name()
    lines = [f"# Before and after, {datetime.date.today()}", "",
             f"Device: {device}; before: {args.label_a}, after: {args.label_b}; both builds' kernels checked "
             f"against torch, then timed in turn in one process (median of {RUNS} after {WARMUP} warm-ups, CUDA "
             "events). `same .cu`: both builds generated byte-identical CUDA (one cached library).", "",
             f"| kernel | check {args.label_a} | check {args.label_b} | {args.label_a} ms | {args.label_b} ms | "
             "after / before | same .cu |", "|---|---|---|---|---|---|---|"]
    for label, oka, okb, a, b, same in rows:
        lines.append(f"| {label} | {'pass' if oka else 'FAIL'} | {'pass' if okb else 'FAIL'} | {a:.4f} | {b:.4f} | "
                     f"{b / a:.3f} | {'yes' if same else 'no'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"before-after-{datetime.date.today()}.md"), "w") as f:
        f.write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
