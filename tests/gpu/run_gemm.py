#!/usr/bin/env python3
"""GEMMs on a GPU: numerics of every case against PyTorch, then speed.

Cases: examples/gemm.tl (fp16 out) and tests/gpu/kernels/gemm_trans.tl (fp32
out) in fp16 and bf16, at tile multiples and at sizes that are not (partial
tiles), with every transpose combination, warp policies and thread counts; and
tests/gpu/kernels/two_transposes.tl (one shared buffer read plainly by one
gemm and transposed by another); tests/gpu/kernels/gemm_masked.tl (block-sparse:
a conditional pipelined loop body). Inputs torch.randn (never zeros); outputs
start as NaN so an element never written fails; the reference is the float64
product of the same (rounded) inputs.

Tolerances: a float32 accumulator of K products of fp16/bf16 values (each
exact in float32) differs from float64 by rounding in the sums, so
|err| <= 1e-3 * sqrt(K) + 1e-4 * |ref| for float32 outputs; fp16 outputs add
their own rounding (2^-11 relative): atol 2e-2, rtol 2e-3; bf16 outputs round
to 2^-8 relative: rtol 1e-2.

With --bench, also the speed of examples/gemm.tl at 4096^3 and 8192^3 next to
torch.matmul (bench/bench_tile.py is the full benchmark). Writes
bench/results/gemm-<date>.md.

Exit status: 0 all checks pass, 1 a check failed, 2 a build failed, 77 no GPU.
"""
import argparse
import datetime
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlc_gpu  # noqa: E402
from run_elementwise import commit  # noqa: E402

REPO = tlc_gpu.REPO
GEMM = os.path.join(REPO, "examples", "gemm.tl")
TRANS = os.path.join(REPO, "tests", "gpu", "kernels", "gemm_trans.tl")
WSG = os.path.join(tlc_gpu.REPO, "examples", "ws_gemm.tl")
TWO = os.path.join(REPO, "tests", "gpu", "kernels", "two_transposes.tl")

# (label, file, entry, M, N, K, dtype, trans_A, trans_B)
CASES = [
    ("example fp16 1024^3", GEMM, "matmul(1024, 1024, 1024)", 1024, 1024, 1024, "float16", False, False),
    ("example fp16 1000x1000x1000 (partial tiles)", GEMM, "matmul(1000, 1000, 1000)", 1000, 1000, 1000,
     "float16", False, False),
    ("example bf16 512x768x256", GEMM, 'matmul(512, 768, 256, dtype="bfloat16")', 512, 768, 256, "bfloat16",
     False, False),
]
for ta in (False, True):
    for tb in (False, True):
        for dt in ("float16", "bfloat16"):
            CASES.append((f"{dt} A{'T' if ta else ''} B{'T' if tb else ''} 512x384x256", TRANS,
                          f'gemm(512, 384, 256, trans_A={ta}, trans_B={tb}, dtype="{dt}")', 512, 384, 256, dt, ta,
                          tb))
# a grid 4 blocks wide: clusters of 2 along x share A's tile (TMA
# multicast), whichever way A and B are stored (the 384-wide cases above
# have an odd grid and no clusters)
for ta in (False, True):
    for tb in (False, True):
        CASES.append((f"fp16 A{'T' if ta else ''} B{'T' if tb else ''} 256x512x192, clusters of 2", TRANS,
                      f'gemm(256, 512, 192, trans_A={ta}, trans_B={tb})', 256, 512, 192, "float16", ta, tb))
CASES += [
    ("fp16 AT BT 333x200x130 (partial tiles)", TRANS, "gemm(333, 200, 130, trans_A=True, trans_B=True)", 333, 200,
     130, "float16", True, True),
    ("fp16 64x64x32 tiles, FullRow", TRANS,
     "gemm(256, 256, 256, 64, 64, 32, policy=T.GemmWarpPolicy.FullRow)", 256, 256, 256, "float16", False, False),
    ("fp16 FullCol", TRANS, "gemm(256, 256, 256, 64, 64, 32, policy=T.GemmWarpPolicy.FullCol)", 256, 256, 256,
     "float16", False, False),
    ("fp16 256 threads 128x256x32", TRANS, "gemm(512, 512, 512, 128, 256, 32, threads=256)", 512, 512, 512,
     "float16", False, False),
    # software pipelining: 1..4 stages, K shorter than stages x block_K, a
    # partial last K tile (zero-filled by the asynchronous copies)
    ("fp16 1 stage", TRANS, "gemm(256, 256, 512, num_stages=1)", 256, 256, 512, "float16", False, False),
    ("fp16 3 stages", TRANS, "gemm(256, 256, 512, num_stages=3)", 256, 256, 512, "float16", False, False),
    ("bf16 4 stages, A^T", TRANS, 'gemm(256, 256, 512, trans_A=True, num_stages=4, dtype="bfloat16")', 256, 256,
     512, "bfloat16", True, False),
    ("fp16 4 stages, K=64 < 4x32", TRANS, "gemm(256, 256, 64, num_stages=4)", 256, 256, 64, "float16", False,
     False),
    ("fp16 3 stages, K=32 (one tile)", TRANS, "gemm(128, 128, 32, num_stages=3)", 128, 128, 32, "float16", False,
     False),
    ("fp16 3 stages, K=200 (partial K tile), B^T", TRANS, "gemm(256, 192, 200, trans_B=True, num_stages=3)", 256,
     192, 200, "float16", False, True),
    ("bf16 block_K 64, B^T", TRANS, 'gemm(384, 384, 640, 128, 128, 64, trans_B=True, dtype="bfloat16")', 384, 384,
     640, "bfloat16", False, True),
]
# the same kernels on the cp.async pipeline (no warp specialization), and the
# hand-written warp-specialized gemm (T.ws, T.tma_copy, mbarriers)
NO_WS = ("--pass-arg=warp-specialize.enable=false",)
CASES += [
    ("example fp16 1024^3, cp.async (warp-specialize off)", GEMM, "matmul(1024, 1024, 1024)", 1024, 1024, 1024,
     "float16", False, False, NO_WS),
    ("fp16 AT B 512x384x256, cp.async (warp-specialize off)", TRANS, "gemm(512, 384, 256, trans_A=True)", 512, 384,
     256, "float16", True, False, NO_WS),
    ("example fp16 1000^3 partial tiles, 256 threads 128x256x64 (2 consumer warpgroups)", GEMM,
     "matmul(1000, 1000, 1000, 128, 256, 64, num_stages=3, threads=256)", 1000, 1000, 1000, "float16", False, False),
    ("bf16 4 stages 64x64x64 tiles", TRANS, 'gemm(320, 192, 448, 64, 64, 64, num_stages=4, dtype="bfloat16")', 320,
     192, 448, "bfloat16", False, False),
    ("hand-written T.ws gemm fp16 1024x768x512 (examples/ws_gemm.tl)", WSG,
     "matmul_warp_specialize(1024, 768, 512)", 1024, 768, 512, "float16", False, False),
    # C staged through shared memory in the consumers' branch: a named
    # barrier of the 256 consumer threads between the two copies, the
    # second copy spread over those threads
    ("example fp16 1024^3 128x256x64 t256, C staged through shared", GEMM,
     "matmul(1024, 1024, 1024, 128, 256, 64, num_stages=3, threads=256, stage_c=True)", 1024, 1024, 1024,
     "float16", False, False),
    ("example bf16 1000^3 partial tiles, defaults, C staged through shared", GEMM,
     'matmul(1000, 1000, 1000, dtype="bfloat16", stage_c=True)', 1000, 1000, 1000, "bfloat16", False, False),
    # the staged C leaves by TMA stores (boxes of the 128-byte swizzle,
    # clipped at the tensor's edges); the same with element-wise stores
    ("example fp16 1000x1016x200 partial tiles, 128x256x64 t256, C staged, TMA store", GEMM,
     "matmul(1000, 1016, 200, 128, 256, 64, num_stages=3, threads=256, stage_c=True)", 1000, 1016, 200,
     "float16", False, False),
    ("example fp16 1000x1016x200 partial tiles, 128x256x64 t256, C staged, element-wise stores", GEMM,
     "matmul(1000, 1016, 200, 128, 256, 64, num_stages=3, threads=256, stage_c=True)", 1000, 1016, 200,
     "float16", False, False, ("--pass-arg=lower-tile-ops.tma-store=false",)),
    ("example fp16 520x136x64, defaults (2 stages of K), C staged, TMA store", GEMM,
     "matmul(520, 136, 64, stage_c=True)", 520, 136, 64, "float16", False, False),
    # stage-outputs stages every case above that stores an accumulator; the
    # direct stores of the accumulator layout, partial tiles
    ("example fp16 1000^3 partial tiles, direct stores (stage-outputs off)", GEMM, "matmul(1000, 1000, 1000)", 1000,
     1000, 1000, "float16", False, False, ("--pass-arg=stage-outputs.enable=false",)),
]
# float8 on WGMMA: K-major A [M][K] and B [N][K], float32 out; the reference
# is the float64 product of the same float8 values
CASES += [
    ("fp8 e4m3 A B^T 512x384x256", TRANS, 'gemm(512, 384, 256, trans_B=True, dtype="float8_e4m3fn")', 512, 384,
     256, "float8_e4m3fn", False, True),
    ("fp8 e5m2 A B^T 256x256x512, 128x128x128 tiles, 3 stages", TRANS,
     'gemm(256, 256, 512, 128, 128, 128, trans_B=True, dtype="float8_e5m2", num_stages=3)', 256, 256, 512,
     "float8_e5m2", False, True),
    ("fp8 e4m3 A B^T 1000x1000x1000 (partial tiles), 128x256x128, 256 threads", TRANS,
     'gemm(1000, 1000, 1000, 128, 256, 128, trans_B=True, dtype="float8_e4m3fn", threads=256, num_stages=3)', 1000,
     1000, 1000, "float8_e4m3fn", False, True),
]
# examples/gemm_fp8.tl promotes each k-step's block product to a float32
# accumulator: it must meet the float32 tolerance over a long K
FP8 = os.path.join(REPO, "examples", "gemm_fp8.tl")
CASES += [
    ("fp8 e4m3 promoted to fp32 per k-step 1024x768x4096 (examples/gemm_fp8.tl)", FP8,
     'matmul_fp8(1024, 768, 4096)', 1024, 768, 4096, "float8_e4m3fn", False, True),
    ("fp8 e5m2 promoted, 1000x1000x1000 (partial tiles), 2 stages (examples/gemm_fp8.tl)", FP8,
     'matmul_fp8(1000, 1000, 1000, dtype="float8_e5m2", num_stages=2)', 1000, 1000, 1000, "float8_e5m2", False,
     True),
    ("fp8 e4m3 promoted, 128x128 tiles, 4 stages, 256 threads, 1024x768x4096 (examples/gemm_fp8.tl)", FP8,
     'matmul_fp8(1024, 768, 4096, block_M=128, num_stages=4, threads=256)', 1024, 768, 4096, "float8_e4m3fn", False,
     True),
]
# warp-specialized producers that mix TMA and cp.async (seed 002, rule 2):
# A's rows of 200 bytes cannot be TMA boxes, B's can; both complete on the
# stage's one barrier
CASES += [
    ("fp16 mixed producer: A by cp.async (rows of 200 bytes), B by TMA, K=100", TRANS,
     "gemm(256, 256, 100, num_stages=3)", 256, 256, 100, "float16", False, False),
    ("bf16 mixed producer: A^T by cp.async (rows of 200 bytes, M=100), 4 stages", TRANS,
     'gemm(100, 256, 512, trans_A=True, num_stages=4, dtype="bfloat16")', 100, 256, 512, "bfloat16", True, False),
]
MASKED = os.path.join(REPO, "tests", "gpu", "kernels", "gemm_masked.tl")
BENCH = [(4096, "float16"), (4096, "bfloat16"), (8192, "float16"), (8192, "bfloat16")]
WARMUP, RUNS = 5, 30


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def tolerance(K, out_dtype):
    if out_dtype == "float32":
        return 1e-3 * math.sqrt(K), 1e-4
    if out_dtype == "bfloat16":
        return 2e-2, 1e-2  # bf16 rounds to 2^-8 relative
    return 2e-2, 2e-3


def run_case(torch, args, case, workdir):
    label, path, entry, M, N, K, dt, ta, tb = case[:9]
    tlc_args = case[9] if len(case) > 9 else ()
    try:
        kern = tlc_gpu.compile(path, entry=entry, tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir, tlc_args=tlc_args)
    except (tlc_gpu.BuildError, OSError) as e:
        log(f"{label}: build failed: {e}")
        return dict(label=label, ok=False, note="build failed")
    tdt = getattr(torch, dt)
    torch.manual_seed(1)
    a = torch.randn((K, M) if ta else (M, K), device="cuda").to(tdt)
    b = torch.randn((N, K) if tb else (K, N), device="cuda").to(tdt)
    if dt.startswith("float8"):
        atol_f8 = 0.05 * math.sqrt(K) / 16  # WGMMA's float8 accumulation is narrower than float32
    out_dt = dt if path in (GEMM, WSG) else "float32"
    c = torch.full((M, N), float("nan"), device="cuda", dtype=getattr(torch, out_dt))
    tlc_gpu.call(kern, a, b, c)
    torch.cuda.synchronize()
    ref = (a.double().t() if ta else a.double()) @ (b.double().t() if tb else b.double())
    atol, rtol = tolerance(K, out_dt)
    if dt.startswith("float8") and path != FP8:
        atol, rtol = atol_f8, 1e-2
    ok, err, rel = tlc_gpu.check(c, ref, atol=atol, rtol=rtol)
    nonzero = bool((c.double().abs() > 0).any().item())
    return dict(label=label, ok=ok and nonzero, err=err, rel=rel, tol=f"atol={atol:.3g} rtol={rtol:g}", note="")


def run_two_transposes(torch, args, workdir):
    label = "one shared buffer, two transposes (fp16 256x64)"
    try:
        kern = tlc_gpu.compile(TWO, entry="two_transposes(256, 64)", tlc=args.tlc, nvcc=args.nvcc,
                               cache_dir=workdir)
    except (tlc_gpu.BuildError, OSError) as e:
        log(f"{label}: build failed: {e}")
        return dict(label=label, ok=False, note="build failed")
    torch.manual_seed(2)
    a = torch.randn(256, 64, device="cuda").half()
    b = torch.randn(256, 64, device="cuda").half()
    c1 = torch.full((256, 64), float("nan"), device="cuda")
    c2 = torch.full((256, 64), float("nan"), device="cuda")
    tlc_gpu.call(kern, a, b, c1, c2)
    torch.cuda.synchronize()
    ref1 = torch.cat([a[i:i + 64].double() @ b[i:i + 64].double() for i in range(0, 256, 64)])
    ref2 = torch.cat([a[i:i + 64].double().t() @ b[i:i + 64].double() for i in range(0, 256, 64)])
    atol, rtol = tolerance(64, "float32")
    ok1, e1, _ = tlc_gpu.check(c1, ref1, atol=atol, rtol=rtol)
    ok2, e2, _ = tlc_gpu.check(c2, ref2, atol=atol, rtol=rtol)
    return dict(label=label, ok=ok1 and ok2, err=max(e1, e2), rel=0.0, tol=f"atol={atol:.3g} rtol={rtol:g}",
                note="" if ok1 and ok2 else f"plain ok={ok1} transposed ok={ok2}")


def run_masked(torch, args, workdir, M, N, K, stages, threads):
    """Block-sparse GEMM (seed 002, rule 1): each output block skips its own K
    steps, some blocks all of them, some none."""
    label = f"block-sparse fp16 {M}x{N}x{K}, {stages} stages, {threads} threads (tests/gpu/kernels/gemm_masked.tl)"
    bm, bn, bk = 128, 128, 32
    try:
        kern = tlc_gpu.compile(MASKED, entry=f"gemm_masked({M}, {N}, {K}, num_stages={stages}, threads={threads})",
                               tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)
    except (tlc_gpu.BuildError, OSError) as e:
        log(f"{label}: build failed: {e}")
        return dict(label=label, ok=False, note="build failed")
    torch.manual_seed(3)
    gm, gn, gk = -(-M // bm), -(-N // bn), -(-K // bk)
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    mask = (torch.rand(gm, gn, gk, device="cuda") < 0.5).int()
    mask[0, 0, :] = 0  # a block with no K step at all: zeros
    mask[gm - 1, gn - 1, :] = 1  # and one with every step
    c = torch.full((M, N), float("nan"), device="cuda")
    tlc_gpu.call(kern, a, b, mask, c)
    torch.cuda.synchronize()
    ref = torch.zeros(M, N, dtype=torch.float64, device="cuda")
    cols = mask.repeat_interleave(bk, dim=2)[:, :, :K].double()  # (gm, gn, K): 1 where the step counts
    for i in range(gm):
        for j in range(gn):
            rs, cs = slice(i * bm, min(M, (i + 1) * bm)), slice(j * bn, min(N, (j + 1) * bn))
            ref[rs, cs] = (a[rs].double() * cols[i, j]) @ b[:, cs].double()
    atol, rtol = tolerance(K, "float32")
    ok, err, rel = tlc_gpu.check(c, ref, atol=atol, rtol=rtol)
    zero_block = bool((c[:bm, :bn] == 0).all().item())
    return dict(label=label, ok=ok and zero_block, err=err, rel=rel, tol=f"atol={atol:.3g} rtol={rtol:g}",
                note="" if zero_block else "the block with no K step is not zero")


def bench(torch, args, workdir):
    rows = []
    for n, dt in BENCH:
        entry = f'matmul({n}, {n}, {n}, dtype="{dt}")'
        try:
            kern = tlc_gpu.compile(GEMM, entry=entry, tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)
        except (tlc_gpu.BuildError, OSError) as e:
            rows.append(dict(n=n, dt=dt, note=f"build failed: {e}"))
            continue
        tdt = getattr(torch, dt)
        torch.manual_seed(3)
        a = torch.randn(n, n, device="cuda").to(tdt)
        b = torch.randn(n, n, device="cuda").to(tdt)
        c = torch.empty(n, n, device="cuda", dtype=tdt)
        fn = tlc_gpu.bind(kern, a, b, c)
        fn()
        torch.cuda.synchronize()
        ok, err, _ = tlc_gpu.check(c, a.float() @ b.float(), atol=0.5, rtol=2e-2)
        ms = tlc_gpu.median_ms(fn, WARMUP, RUNS)
        out = torch.empty_like(c)
        tms = tlc_gpu.median_ms(lambda: torch.matmul(a, b, out=out), WARMUP, RUNS)
        tf = lambda t: 2 * n ** 3 / (t * 1e-3) / 1e12
        rows.append(dict(n=n, dt=dt, ok=ok, ms=ms, tms=tms, tf=tf(ms), ttf=tf(tms), note=""))
        log(f"bench {n} {dt}: tlc {ms:.3f} ms ({tf(ms):.1f} TFLOP/s) torch {tms:.3f} ms ({tf(tms):.1f}) ok={ok}")
    return rows


def write_report(args, torch, rows, brows):
    today = datetime.date.today().isoformat()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"gemm-{today}.md")
    lines = [
        "# GEMM: numerics and speed",
        "",
        f"- date: {today}",
        f"- device: {torch.cuda.get_device_name()}",
        f"- commit: {commit()}",
        f"- torch {torch.__version__}; target cuda-sm90 (WGMMA with TMA and warp specialization where they apply, else mma.sync; see each case)",
        "- reference: float64 product of the same inputs (torch.randn rounded to the input dtype)",
        "",
        "| case | check | max abs err | max rel err | tolerance | note |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "err" not in r:
            lines.append(f"| {r['label']} | FAIL | | | | {r['note']} |")
            continue
        lines.append(f"| {r['label']} | {'pass' if r['ok'] else 'FAIL'} | {r['err']:.3g} | {r['rel']:.3g} | "
                     f"{r['tol']} | {r['note']} |")
    lines += ["", f"## Speed: examples/gemm.tl vs torch.matmul (cuBLAS), median of {RUNS} after {WARMUP} warm-up",
              "", "| size | dtype | check | tlc ms | tlc TFLOP/s | torch ms | torch TFLOP/s | tlc / torch |",
              "|---|---|---|---|---|---|---|---|"]
    for r in brows:
        if "ms" not in r:
            lines.append(f"| {r['n']}^3 | {r['dt']} | FAIL: {r['note']} | | | | | |")
            continue
        lines.append(f"| {r['n']}^3 | {r['dt']} | {'pass' if r['ok'] else 'FAIL'} | {r['ms']:.3f} | {r['tf']:.1f} | "
                     f"{r['tms']:.3f} | {r['ttf']:.1f} | {r['ttf'] and r['tf'] / r['ttf']:.2f} |")
    if not all(r["ok"] for r in rows) or not all(r.get("ok") for r in brows):
        lines += ["", "**A numeric check failed: the timings above are not a valid comparison.**"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc", default=os.path.join(REPO, "build", "tlc"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--bench", action="store_true", help="also time examples/gemm.tl next to cuBLAS")
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    workdir = tempfile.mkdtemp(prefix="tlc-gemm-")
    tlc_gpu.prebuild([(c[1], c[2], c[9] if len(c) > 9 else ()) for c in CASES], tlc=args.tlc, nvcc=args.nvcc,
                     cache_dir=workdir)
    rows = []
    for case in CASES:
        r = run_case(torch, args, case, workdir)
        log(f"{r['label']}: {'pass' if r['ok'] else 'FAIL'} {r}")
        rows.append(r)
    r = run_two_transposes(torch, args, workdir)
    log(f"{r['label']}: {'pass' if r['ok'] else 'FAIL'} {r}")
    rows.append(r)
    for M, N, K, stages, threads in ((512, 384, 1024, 3, 128), (1000, 1000, 1000, 2, 256), (256, 256, 4096, 4, 128)):
        r = run_masked(torch, args, workdir, M, N, K, stages, threads)
        log(f"{r['label']}: {'pass' if r['ok'] else 'FAIL'} {r}")
        rows.append(r)
    brows = bench(torch, args, workdir) if args.bench else []
    path = write_report(args, torch, rows, brows)
    print(open(path).read())
    if any(r.get("note") == "build failed" for r in rows):
        return 2
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
