#!/usr/bin/env python3
"""Speed of tlc's GEMM and flash-attention forward next to cuBLAS and torch SDPA.

Same process, same inputs, same stream: examples/gemm.tl (fp16 and bf16,
4096^3, 8192^3 and 16384^3) against torch.matmul (cuBLAS), and
examples/flash_attn_fwd.tl (fp16, batch 8, 32 heads, seq 4096, dim 128,
causal and not) against torch.nn.functional.scaled_dot_product_attention.
Every timed kernel is first checked (GEMM: against the float32 product of the
same inputs; float8: the float64 one; attention: torch's result); a failing
check is reported and its speed is not compared. Timing: CUDA events around each
launch, tlc's and torch's launches in turn, median of 30 of each after 5
warm-ups. Writes bench/results/bench-<date>.md
with date, device and commit.

Usage, from the repository root after a build:
    python3 bench/bench_tile.py --tlc build/tlc
"""
import argparse
import datetime
import itertools
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu"))
import tlc_gpu  # noqa: E402
from run_elementwise import commit  # noqa: E402

REPO = tlc_gpu.REPO
GEMM = os.path.join(REPO, "examples", "gemm.tl")
FA = os.path.join(REPO, "examples", "flash_attn_fwd.tl")
WARMUP, RUNS = 5, 30


# examples/gemm.tl configurations: its defaults (128x128x32, 3 stages, 128
# threads) and the tuned one of the Hopper GEMM issue (128x256x64, 3 stages,
# 256 threads)
GEMM_CONFIGS = [("defaults", "", ()),
                ("defaults, no clusters (warp-specialize.multicast=false)", "",
                 ("--pass-arg=warp-specialize.multicast=false",)),
                ("defaults, direct stores (stage-outputs off)", "", ("--pass-arg=stage-outputs.enable=false",)),
                ("defaults, no stmatrix (lower-tile-ops.stmatrix=false)", "",
                 ("--pass-arg=lower-tile-ops.stmatrix=false",)),
                ("128x256x64 s3 t256", ", 128, 256, 64, num_stages=3, threads=256", ()),
                ("128x256x64 s3 t256, no clusters (warp-specialize.multicast=false)",
                 ", 128, 256, 64, num_stages=3, threads=256", ("--pass-arg=warp-specialize.multicast=false",)),
                ("128x256x64 s3 t256, direct stores (stage-outputs off)", ", 128, 256, 64, num_stages=3, threads=256",
                 ("--pass-arg=stage-outputs.enable=false",)),
                ("128x256x64 s3 t256, no stmatrix (lower-tile-ops.stmatrix=false)",
                 ", 128, 256, 64, num_stages=3, threads=256", ("--pass-arg=lower-tile-ops.stmatrix=false",)),
                ("128x256x64 s3 t256, C staged by hand (stage_c=True)",
                 ", 128, 256, 64, num_stages=3, threads=256, stage_c=True", ()),
                ("128x256x64 s3 t256, cp.async (no warp specialization)",
                 ", 128, 256, 64, num_stages=3, threads=256", ("--pass-arg=warp-specialize.enable=false",))]


def gemm_rows(torch, args, workdir):
    rows = []
    runs = [(n, c, dt) for n, c, dt in itertools.product(args.sizes, GEMM_CONFIGS, ("float16", "bfloat16"))
            if dt == "float16" or not (c[2] or args.config)]
    # every kernel built before the first is timed (nvcc runs in parallel)
    tlc_gpu.prebuild([(GEMM, f'matmul({n}, {n}, {n}{c[1]}, dtype="{dt}")', c[2]) for n, c, dt in runs], tlc=args.tlc,
                     nvcc=args.nvcc, cache_dir=workdir)
    for n, (cname, cargs, targs), dt in runs:
        kern = tlc_gpu.compile(GEMM, entry=f'matmul({n}, {n}, {n}{cargs}, dtype="{dt}")', tlc=args.tlc,
                               nvcc=args.nvcc, cache_dir=workdir, verbose=False, tlc_args=targs)
        tdt = getattr(torch, dt)
        torch.manual_seed(0)
        a, b = torch.randn(n, n, device="cuda").to(tdt), torch.randn(n, n, device="cuda").to(tdt)
        c, ref = torch.empty(n, n, device="cuda", dtype=tdt), torch.empty(n, n, device="cuda", dtype=tdt)
        fn = tlc_gpu.bind(kern, a, b, c)
        fn()
        torch.cuda.synchronize()
        # the float32 product of the same inputs (TF32 off), not cuBLAS's fp16 result
        torch.backends.cuda.matmul.allow_tf32 = False
        ok, _, _ = tlc_gpu.check(c, a.float() @ b.float(), atol=0.1, rtol=1e-2)
        flops = 2 * n ** 3
        t, tt = tlc_gpu.paired_median_ms(fn, lambda: torch.matmul(a, b, out=ref), WARMUP, RUNS)
        rows.append((f"GEMM {n}^3 {dt} {cname}", ok, t, tt, flops))
    return rows


FP8 = os.path.join(REPO, "examples", "gemm_fp8.tl")
# promote=False (WGMMA's own accumulation over all of K) is faster but fails
# this check: bench/notes/hopper-gemm.md has its numbers
FP8_CONFIGS = [("192x128x128 s3 t384 (the defaults), promoted to fp32 per k-step", "matmul_fp8({n}, {n}, {n})", ()),
               ("128x128x128 s4 t256, promoted to fp32 per k-step",
                "matmul_fp8({n}, {n}, {n}, block_M=128, num_stages=4, threads=256)", ())]


def fp8_rows(torch, args, workdir):
    """float8 e4m3 8192^3 (A [M][K], B [N][K], float32 out) against torch._scaled_mm.

    Both are checked against the float64 product of the same float8 values
    with a float32 tolerance (atol 1e-3 sqrt(K), rtol 1e-4); the largest
    error of each is in the row's name."""
    rows = []
    n = 8192
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    ref64 = a.double() @ b.double().t()
    one = torch.ones((), device="cuda")
    out_dtype = torch.float32
    try:
        ref = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=out_dtype)
    except RuntimeError:
        out_dtype = torch.bfloat16
        ref = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=out_dtype)
    atol, rtol = 1e-3 * n ** 0.5, 1e-4
    _, terr, _ = tlc_gpu.check(ref, ref64, atol=atol, rtol=rtol)
    for cname, entry, targs in FP8_CONFIGS:
        kern = tlc_gpu.compile(FP8, entry=entry.format(n=n), tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir,
                               verbose=False, tlc_args=targs)
        c = torch.empty(n, n, device="cuda", dtype=torch.float32)
        fn = tlc_gpu.bind(kern, a, b, c)
        fn()
        torch.cuda.synchronize()
        ok, err, _ = tlc_gpu.check(c, ref64, atol=atol, rtol=rtol)
        t, tt = tlc_gpu.paired_median_ms(
            fn, lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=out_dtype), WARMUP, RUNS)
        rows.append((f"GEMM {n}^3 float8_e4m3 {cname} (torch: _scaled_mm, {str(out_dtype)[6:]} out; max error vs "
                     f"float64: tlc {err:.3g}, torch {terr:.3g})", ok, t, tt, 2 * n ** 3))
    return rows


def fa_rows(torch, args, workdir):
    import torch.nn.functional as F
    rows = []
    B, H, S, D = 8, 32, 4096, 128
    for causal in (False, True):
        kern = tlc_gpu.compile(FA, entry=f"flashattn({B}, {H}, {S}, {D}, is_causal={causal})", tlc=args.tlc,
                               nvcc=args.nvcc, cache_dir=workdir, verbose=False)
        torch.manual_seed(1)
        q, k, v = (torch.randn(B, S, H, D, device="cuda").half() for _ in range(3))
        o = torch.empty_like(q)
        qt, kt, vt = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        fn = tlc_gpu.bind(kern, q, k, v, o)
        fn()
        ref = F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        torch.cuda.synchronize()
        ok, _, _ = tlc_gpu.check(o, ref.transpose(1, 2).float(), atol=1e-2, rtol=1e-2)
        flops = 4 * B * H * S * S * D // (2 if causal else 1)
        t, tt = tlc_gpu.paired_median_ms(fn, lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal),
                                         WARMUP, RUNS)
        rows.append((f"flash-attn fwd B{B} H{H} S{S} D{D} {'causal' if causal else 'non-causal'}", ok, t, tt, flops))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc", default=os.path.join(REPO, "build", "tlc"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--sections", default="gemm,fp8,attention",
                    help="comma-separated: gemm (fp16/bf16), fp8, attention (default: all)")
    ap.add_argument("--sizes", default="4096,8192,16384", help="the GEMM sizes n (n^3), comma-separated")
    ap.add_argument("--config", action="append", default=[], metavar="ARGS",
                    help="time examples/gemm.tl with matmul(n, n, n, ARGS) instead of the usual configurations "
                         "(repeatable; fp16 only)")
    ap.add_argument("--fp8-config", action="append", default=[], metavar="ARGS",
                    help="time examples/gemm_fp8.tl with matmul_fp8(n, n, n, ARGS) instead of its usual "
                         "configurations (repeatable)")
    args = ap.parse_args()
    if args.config:
        GEMM_CONFIGS[:] = [(c, ", " + c, ()) for c in args.config]
    if args.fp8_config:
        FP8_CONFIGS[:] = [(c, "matmul_fp8({n}, {n}, {n}, " + c + ")", ()) for c in args.fp8_config]
    args.sizes = [int(x) for x in args.sizes.split(",")]
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    workdir = tempfile.mkdtemp(prefix="tlc-bench-")
    sections = {"gemm": gemm_rows, "fp8": fp8_rows, "attention": fa_rows}
    rows = []
    for name in args.sections.split(","):
        if name not in sections:
            ap.error(f"unknown section '{name}' (gemm, fp8, attention)")
        rows += sections[name](torch, args, workdir)
    today = datetime.date.today().isoformat()
    lines = ["# tlc vs cuBLAS / torch SDPA", "", f"- date: {today}", f"- device: {torch.cuda.get_device_name()}",
             f"- commit: {commit()}", f"- torch {torch.__version__}; tlc target cuda-sm90 (WGMMA, TMA and warp specialization where they apply)",
             f"- timing: CUDA events per launch, tlc and torch in turn, median of {RUNS} of each after {WARMUP} warm-up",
             "", "| kernel | check | tlc ms | tlc TFLOP/s | torch ms | torch TFLOP/s | tlc / torch |",
             "|---|---|---|---|---|---|---|"]
    for name, ok, t, tt, flops in rows:
        tf, ttf = flops / t / 1e9, flops / tt / 1e9
        lines.append(f"| {name} | {'pass' if ok else 'FAIL'} | {t:.3f} | {tf:.1f} | {tt:.3f} | {ttf:.1f} | "
                     f"{tf / ttf:.2f} |")
    if not all(r[1] for r in rows):
        lines += ["", "**A numeric check failed: those timings are not a valid comparison.**"]
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"bench-{today}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(open(path).read())
    return 0 if all(r[1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
