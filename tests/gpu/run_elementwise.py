#!/usr/bin/env python3
"""Run examples/elementwise_add.tl on a GPU: numerics against PyTorch, then speed.

For every case: tlc --emit=so (through tlc_gpu) -> ctypes; random inputs
(torch.randn, never zeros); the output buffer starts as NaN so that an element
the kernel never writes fails the check; reference = a + b computed in
float32. Timing: CUDA events around each launch, median of 100 runs after 10
warm-up runs, next to torch's own a + b (out= preallocated) on the same
tensors and stream. Writes bench/results/elementwise-<date>.md.

Usage, from the repository root after a build:
    python3 tests/gpu/run_elementwise.py --tlc build/tlc --out bench/results
Exit status: 0 all checks pass, 1 a check failed, 2 a build failed, 77 no GPU.
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

REPO = tlc_gpu.REPO
EXAMPLE = os.path.join(REPO, "examples", "elementwise_add.tl")

# (label, --entry call, M, N, dtype name). The factory's signature is
# elementwise_add(M, N, block_M, block_N, threads, dtype).
CASES = [
    ("fp16 1024x1024", "elementwise_add(1024, 1024)", 1024, 1024, "float16"),
    ("fp16 1000x1000 (tail tiles)", "elementwise_add(1000, 1000)", 1000, 1000, "float16"),
    ("fp16 1000x1000, 64x64 tiles", "elementwise_add(1000, 1000, 64, 64, 128)", 1000, 1000, "float16"),
    ("fp32 1024x1024", 'elementwise_add(1024, 1024, 128, 128, 128, "float32")', 1024, 1024, "float32"),
    ("bf16 1024x1024", 'elementwise_add(1024, 1024, 128, 128, 128, "bfloat16")', 1024, 1024, "bfloat16"),
    ("fp16 8192x8192", "elementwise_add(8192, 8192)", 8192, 8192, "float16"),
]

WARMUP, RUNS = 10, 100


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build(args, entry, workdir):
    """The case's Kernel: tlc --emit=so into workdir (a cache keyed by the generated source)."""
    return tlc_gpu.compile(EXAMPLE, entry=entry, target="cuda-sm90", tlc=args.tlc, nvcc=args.nvcc,
                           cache_dir=workdir)


def check_case(torch, label, kernel, M, N, dtype_name):
    dt = getattr(torch, dtype_name)
    torch.manual_seed(0)
    a = torch.randn(M, N, device="cuda", dtype=torch.float32).to(dt)
    b = torch.randn(M, N, device="cuda", dtype=torch.float32).to(dt)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
    # arguments by name: the tensors, and the sizes if the kernel left them open
    values = {"A": a, "B": b, "C": c, "M": M, "N": N}
    try:
        call = tlc_gpu.bind(kernel, **{p.name: values[p.name] for p in kernel.params if p.name in values})
    except TypeError as e:
        return dict(label=label, ok=False, note=f"cannot bind the launcher: {e}")
    rc = call()
    torch.cuda.synchronize()
    if rc != 0:
        return dict(label=label, ok=False, note=f"launcher returned {rc} ({kernel.error_string(rc)})")
    ref = a.float() + b.float()
    if dtype_name == "float32":
        t, tol = 0.0, "exact"
    else:
        # half: atol/rtol 1e-3 (fp16 rounding of a sum is <= 2^-11 relative);
        # bfloat16 has 8 mantissa bits, so its rounding needs 1e-2
        t = 1e-3 if dtype_name == "float16" else 1e-2
        tol = f"atol=rtol={t:g}"
    ok, err, _ = tlc_gpu.check(c, ref, atol=t, rtol=t)
    same_as_torch = torch.equal(c, a + b)
    us = 1000.0 * tlc_gpu.median_ms(call, WARMUP, RUNS)
    out = torch.empty_like(c)
    torch_us = 1000.0 * tlc_gpu.median_ms(lambda: torch.add(a, b, out=out), WARMUP, RUNS)
    gbs = lambda t: 3 * M * N * a.element_size() / (t * 1e-6) / 1e9
    return dict(label=label, ok=ok, err=err, tol=tol, bitwise=same_as_torch, us=us, torch_us=torch_us,
                gbs=gbs(us), torch_gbs=gbs(torch_us), note="")


def commit():
    """The commit measured: $TLC_COMMIT when set (a copy of the tree without .git), else git's HEAD."""
    if os.environ.get("TLC_COMMIT"):
        return os.environ["TLC_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_report(args, torch, rows):
    today = datetime.date.today().isoformat()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"elementwise-{today}.md")
    nvcc_ver = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    lines = [
        "# elementwise_add: tlc vs torch",
        "",
        f"- date: {today}",
        f"- device: {torch.cuda.get_device_name()}",
        f"- commit: {commit()}",
        f"- nvcc: {nvcc_ver[-1] if nvcc_ver else 'unknown'}; torch {torch.__version__}",
        f"- timing: CUDA events per launch, median of {RUNS} after {WARMUP} warm-up; "
        "GB/s counts 2 reads + 1 write",
        "- reference: a + b in float32; inputs torch.randn",
        "",
        "| case | check | max abs err | tolerance | bitwise = torch a+b | tlc us | torch us | tlc GB/s | torch GB/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "us" not in r:
            lines.append(f"| {r['label']} | FAIL: {r['note']} | | | | | | | |")
            continue
        lines.append(f"| {r['label']} | {'pass' if r['ok'] else 'FAIL'} | {r['err']:.3g} | {r['tol']} | "
                     f"{'yes' if r['bitwise'] else 'no'} | {r['us']:.2f} | {r['torch_us']:.2f} | "
                     f"{r['gbs']:.0f} | {r['torch_gbs']:.0f} |")
    if not all(r["ok"] for r in rows):
        lines += ["", "**A numeric check failed: the timings above are not a valid comparison.**"]
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
    workdir = args.keep or tempfile.mkdtemp(prefix="tlc-elementwise-")
    os.makedirs(workdir, exist_ok=True)
    rows = []
    for label, entry, M, N, dt in CASES:
        try:
            kernel = build(args, entry, workdir)
        except (tlc_gpu.BuildError, OSError) as e:
            log(f"{label}: build failed: {e}")
            rows.append(dict(label=label, ok=False, note="build failed"))
            continue
        r = check_case(torch, label, kernel, M, N, dt)
        log(f"{label}: {'pass' if r['ok'] else 'FAIL'} {r}")
        rows.append(r)
    path = write_report(args, torch, rows)
    print(open(path).read())
    log(f"wrote {path}")
    if any(r.get("note") == "build failed" for r in rows):
        return 2
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
