#!/usr/bin/env python3
"""The bounds semantics on a GPU: partial tiles that only the guards of the
legalize-bounds pass keep inside their tensors (doc/language.md, "Bounds").

Kernels (tests/gpu/kernels/bounds.tl), each checked against PyTorch on
random inputs (torch.randn, never zeros):
  - grouped_gemm: a grouped GEMM, N = 96 with 64-column tiles, the groups'
    first rows and sizes in int32 tensors (so no bound is known when
    compiling): groups 40/24/8 filling the 72 rows exactly, and 40/24/16
    whose last group claims 8 rows past the end of X and Y (its loads there
    must read 0, its stores there must be dropped); cuda-sm90 (TMA,
    warp-specialized) and the same source without warp specialization;
  - edge_scale: C = 2 A + 1 over M x N passed at run time, partial tiles on
    both edges;
  - shifted: B[i] = A[i + 5] with A's T.annotate_safe_value -7.5: the last 5
    elements of B read it.
Every output lives inside a larger buffer filled with NaN: the tensor the
kernel gets is its middle, and the guard regions before and after it must
still be NaN afterwards (a store past the tensor lands there; before the
guards, the grouped GEMM's stores past column 96 went into the next rows:
2197 of 6912 elements of Y wrong on an H100).  The output's own elements
start as NaN too, so an element never written fails its check.

Usage, from the repository root after a build:
    python3 tests/gpu/run_bounds.py --tlc build/tlc --out bench/results
Writes <out>/bounds-<date>.md.
Exit status: 0 all checks pass, 1 a check failed, 2 a build failed, 77 no GPU
or no torch.
"""
import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlc_gpu  # noqa: E402
from run_elementwise import commit  # noqa: E402

REPO = tlc_gpu.REPO
KERNELS = os.path.join(REPO, "tests", "gpu", "kernels", "bounds.tl")
GUARD = 1024  # elements of NaN before and after each output (a multiple of every vector's and TMA's alignment)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def guarded_output(torch, shape, dtype):
    """(buffer, tensor): a NaN buffer with GUARD elements on each side of the
    contiguous output tensor in its middle."""
    n = 1
    for d in shape:
        n *= d
    buf = torch.full((GUARD + n + GUARD,), float("nan"), device="cuda", dtype=dtype)
    return buf, buf[GUARD:GUARD + n].view(*shape)


def guards_untouched(torch, buf):
    """True when both guard regions of buf are still all NaN."""
    return bool(torch.isnan(buf[:GUARD]).all().item()) and bool(torch.isnan(buf[-GUARD:]).all().item())


def launch(kernel, **values):
    call = tlc_gpu.bind(kernel, **{p.name: values[p.name] for p in kernel.params})
    rc = call()
    import torch
    torch.cuda.synchronize()
    return rc


def result(label, ok, err, tol, guards, note=""):
    return dict(label=label, ok=ok and guards, err=err, tol=tol, guards=guards, note=note)


def grouped_case(torch, args, workdir, label, sizes, K, N, tlc_args):
    rows = 72  # X and Y; the groups' sizes may claim more (the last one's rows past 72 are masked)
    kernel = tlc_gpu.compile(KERNELS, entry=f"grouped_gemm(rows={rows}, G={len(sizes)}, K={K}, N={N})",
                             tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir, tlc_args=tlc_args)
    G = len(sizes)
    torch.manual_seed(1)
    x = torch.randn(rows, K, device="cuda", dtype=torch.float32).half()
    w = torch.randn(G, K, N, device="cuda", dtype=torch.float32).half()
    starts = [sum(sizes[:g]) for g in range(G)]
    st = torch.tensor(starts, device="cuda", dtype=torch.int32)
    ct = torch.tensor(list(sizes), device="cuda", dtype=torch.int32)
    buf, y = guarded_output(torch, (rows, N), torch.float16)
    rc = launch(kernel, X=x, W=w, Y=y, starts=st, counts=ct)
    if rc != 0:
        return result(label, False, float("nan"), "", True, f"launcher returned {rc} ({kernel.error_string(rc)})")
    ref = torch.full((rows, N), float("nan"), device="cuda", dtype=torch.float64)
    for g in range(G):
        lo, hi = starts[g], min(starts[g] + sizes[g], rows)
        ref[lo:hi] = x[lo:hi].double() @ w[g].double()
    # a float32 accumulator of K fp16 products, rounded to fp16
    ok, err, _ = tlc_gpu.check(y, ref, atol=2e-2, rtol=2e-3)
    return result(label, ok, err, "atol 2e-2, rtol 2e-3", guards_untouched(torch, buf))


def edge_case(torch, args, workdir, label, M, N):
    kernel = tlc_gpu.compile(KERNELS, entry="edge_scale()", tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)
    torch.manual_seed(2)
    a = torch.randn(M, N, device="cuda", dtype=torch.float32).half()
    buf, c = guarded_output(torch, (M, N), torch.float16)
    rc = launch(kernel, A=a, C=c, M=M, N=N)
    if rc != 0:
        return result(label, False, float("nan"), "", True, f"launcher returned {rc} ({kernel.error_string(rc)})")
    # the kernel rounds 2a to fp16, then 2a + 1: the same roundings here
    ref = ((a.float() * 2).half().float() + 1).half()
    ok, err, _ = tlc_gpu.check(c, ref, atol=0, rtol=0)
    return result(label, ok, err, "exact", guards_untouched(torch, buf))


def shifted_case(torch, args, workdir, label, n, s):
    kernel = tlc_gpu.compile(KERNELS, entry=f"shifted({n}, {s})", tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)
    torch.manual_seed(3)
    # A sits in a larger buffer of 1e6s: a load past A that is not masked
    # reads them instead of the safe value
    abuf = torch.full((n + GUARD,), 1e6, device="cuda", dtype=torch.float32)
    a = abuf[:n]
    a.copy_(torch.randn(n, device="cuda", dtype=torch.float32))
    buf, b = guarded_output(torch, (n,), torch.float32)
    rc = launch(kernel, A=a, B=b)
    if rc != 0:
        return result(label, False, float("nan"), "", True, f"launcher returned {rc} ({kernel.error_string(rc)})")
    ref = torch.cat([a[s:], torch.full((s,), -7.5, device="cuda", dtype=torch.float32)])
    ok, err, _ = tlc_gpu.check(b, ref, atol=0, rtol=0)
    return result(label, ok, err, "exact", guards_untouched(torch, buf))


CASES = [
    ("grouped GEMM 40/24/8, N=96, sm90", lambda t, a, w: grouped_case(t, a, w, CASES[0][0], (40, 24, 8), 128, 96, ())),
    ("grouped GEMM 40/24/16 (8 rows past Y), N=96, sm90",
     lambda t, a, w: grouped_case(t, a, w, CASES[1][0], (40, 24, 16), 128, 96, ())),
    ("grouped GEMM 40/24/8, N=96, no warp specialization",
     lambda t, a, w: grouped_case(t, a, w, CASES[2][0], (40, 24, 8), 128, 96,
                                  ("--pass-arg=warp-specialize.enable=false",))),
    ("edge_scale 1000 x 1000 (run-time sizes)", lambda t, a, w: edge_case(t, a, w, CASES[3][0], 1000, 1000)),
    ("edge_scale 77 x 200 (run-time sizes)", lambda t, a, w: edge_case(t, a, w, CASES[4][0], 77, 200)),
    ("shifted 1000, s=5, safe value -7.5", lambda t, a, w: shifted_case(t, a, w, CASES[5][0], 1000, 5)),
]


def write_report(args, torch, rows):
    today = datetime.date.today().isoformat()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"bounds-{today}.md")
    nvcc_ver = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    lines = [
        "# bounds semantics: partial tiles against torch",
        "",
        f"- date: {today}",
        f"- device: {torch.cuda.get_device_name()}",
        f"- commit: {commit()}",
        f"- nvcc: {nvcc_ver[-1] if nvcc_ver else 'unknown'}; torch {torch.__version__}",
        "- kernels: tests/gpu/kernels/bounds.tl; inputs torch.randn; outputs start as NaN inside a NaN "
        f"buffer with {GUARD} guard elements on each side",
        "",
        "| case | check | max abs err | tolerance | guard regions untouched | note |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['label']} | {'pass' if r['ok'] else 'FAIL'} | {r.get('err', float('nan')):.3g} | "
                     f"{r.get('tol', '')} | {'yes' if r.get('guards') else 'NO'} | {r.get('note', '')} |")
    if not all(r["ok"] for r in rows):
        lines += ["", "**A check failed.**"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc", default=os.path.join(REPO, "build", "tlc"), help="the tlc driver")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"), help="results directory")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--keep", help="keep the generated files in this directory")
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    workdir = args.keep or tempfile.mkdtemp(prefix="tlc-bounds-")
    os.makedirs(workdir, exist_ok=True)
    rows, build_failed = [], False
    for label, run in CASES:
        try:
            r = run(torch, args, workdir)
        except (tlc_gpu.BuildError, OSError) as e:
            log(f"{label}: build failed: {e}")
            r = dict(label=label, ok=False, note="build failed")
            build_failed = True
        log(f"{label}: {'pass' if r['ok'] else 'FAIL'} {r}")
        rows.append(r)
    path = write_report(args, torch, rows)
    print(open(path).read())
    log(f"wrote {path}")
    if build_failed:
        return 2
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
