#!/usr/bin/env python3
"""Run examples/elementwise_add.tl on a GPU: numerics against PyTorch, then speed.

For every case: tlc --emit=cu -> nvcc -shared -> ctypes; random inputs
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
import ctypes
import datetime
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


def run(cmd, **kw):
    log("+ " + " ".join(cmd))
    return subprocess.run(cmd, check=True, **kw)


def setup_env(tlc):
    """TLC_PLUGIN_PATH / TLC_CONFIG for an uninstalled build, unless already set."""
    build = os.path.dirname(os.path.abspath(tlc))
    os.environ.setdefault("TLC_PLUGIN_PATH", os.path.join(build, ".libs"))
    os.environ.setdefault("TLC_CONFIG", os.path.join(REPO, "etc", "tlc.ini"))


def parse_header(path):
    """The launcher's name and C parameter list from the generated header."""
    text = open(path).read()
    m = re.search(r"^int\s+(\w+)\(([^)]*)\);", text, re.M)
    if not m:
        raise RuntimeError(f"no launcher declaration in {path}")
    params = []
    for p in (x.strip() for x in m.group(2).split(",")):
        pm = re.match(r"(.*?)\s*(\*?)\s*(\w+)$", p)
        params.append((pm.group(1) + pm.group(2), pm.group(3)))
    return m.group(1), params


def build(args, case_id, entry, workdir):
    cu = os.path.join(workdir, f"{case_id}.cu")
    so = os.path.join(workdir, f"lib{case_id}.so")
    run([args.tlc, EXAMPLE, "--target=cuda-sm90", "--emit=cu", "--entry", entry, "-o", cu])
    run([args.nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-Xcompiler", "-fPIC", "-shared",
         "-o", so, cu])
    header = os.path.splitext(cu)[0] + ".h"
    name, params = parse_header(header)
    lib = ctypes.CDLL(so)
    fn = getattr(lib, name)
    fn.restype = ctypes.c_int
    return fn, params


CTYPES = {"int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64, "float": ctypes.c_float,
          "double": ctypes.c_double}


def make_call(fn, params, tensors, sizes, stream):
    """Bind the launcher's arguments: tensors by name, scalars from sizes."""
    argtypes, values = [], []
    for ctype, name in params:
        if ctype.endswith("*"):
            argtypes.append(ctypes.c_void_p)
            values.append(ctypes.c_void_p(stream if name == "stream" else tensors[name].data_ptr()))
        else:
            argtypes.append(CTYPES[ctype])
            values.append(CTYPES[ctype](sizes[name]))
    fn.argtypes = argtypes
    return lambda: fn(*values)


def median_us(torch, fn):
    for _ in range(WARMUP):
        fn()
    times = []
    for _ in range(RUNS):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def check_case(torch, label, fn, params, M, N, dtype_name):
    dt = getattr(torch, dtype_name)
    torch.manual_seed(0)
    a = torch.randn(M, N, device="cuda", dtype=torch.float32).to(dt)
    b = torch.randn(M, N, device="cuda", dtype=torch.float32).to(dt)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
    stream = torch.cuda.current_stream().cuda_stream
    call = make_call(fn, params, {"A": a, "B": b, "C": c}, {"M": M, "N": N}, stream)
    rc = call()
    torch.cuda.synchronize()
    if rc != 0:
        return dict(label=label, ok=False, note=f"launcher returned {rc}")
    ref = a.float() + b.float()
    got = c.float()
    err = (got - ref).abs().max().item()
    if dtype_name == "float32":
        ok = torch.equal(got, ref)
        tol = "exact"
    else:
        # half: atol/rtol 1e-3 (fp16 rounding of a sum is <= 2^-11 relative);
        # bfloat16 has 8 mantissa bits, so its rounding needs 1e-2
        t = 1e-3 if dtype_name == "float16" else 1e-2
        ok = bool(torch.allclose(got, ref, atol=t, rtol=t)) and not torch.isnan(got).any().item()
        tol = f"atol=rtol={t:g}"
    same_as_torch = torch.equal(c, a + b)
    us = median_us(torch, call)
    out = torch.empty_like(c)
    torch_us = median_us(torch, lambda: torch.add(a, b, out=out))
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
    try:
        import torch
    except ImportError:
        log("torch is not installed: skipping")
        return 77
    if not torch.cuda.is_available():
        log("no CUDA device: skipping")
        return 77
    setup_env(args.tlc)
    workdir = args.keep or tempfile.mkdtemp(prefix="tlc-elementwise-")
    os.makedirs(workdir, exist_ok=True)
    rows = []
    for i, (label, entry, M, N, dt) in enumerate(CASES):
        try:
            fn, params = build(args, f"case{i}", entry, workdir)
        except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
            log(f"{label}: build failed: {e}")
            rows.append(dict(label=label, ok=False, note="build failed"))
            continue
        r = check_case(torch, label, fn, params, M, N, dt)
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
