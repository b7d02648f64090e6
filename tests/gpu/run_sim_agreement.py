#!/usr/bin/env python3
"""Does tlc-sim compute what the GPU computes?  For each GPU test kernel and
example, on the same random inputs (written as .npy and given to both): the
simulator's thread-level run of the lowered kernel (`tlc --run`, on the CPU)
against the kernel built with `tlc --emit=so` and run on the GPU.

Reports per output: elements bit-identical, largest absolute and relative
difference, and PASS when |gpu - sim| <= atol + rtol |sim| everywhere (the
stated tolerance: exact for elementwise and copies; float16/float32 rounding
of sums in another order for reductions and gemms).

Usage: run_sim_agreement.py --tlc TLC [--target cuda-sm90] [--report FILE]
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlc_gpu  # noqa: E402

REPO = tlc_gpu.REPO
K = os.path.join(REPO, "tests", "gpu", "kernels")
E = os.path.join(REPO, "examples")

# (label, file, entry, atol, rtol)
CASES = [
    ("elementwise add fp16 256x200", f"{E}/elementwise_add.tl", "elementwise_add(256, 200)", 0, 0),
    ("softmax fp16 64x256", f"{K}/softmax.tl", "softmax(64, 256, 32, 128)", 1e-3, 1e-3),
    ("cumsum fp32 256x128", f"{K}/cumsum.tl", "row_cumsum()", 1e-5, 1e-5),
    ("gemm fp16 256^3 (examples/gemm.tl)", f"{E}/gemm.tl", "matmul(256, 256, 256)", 1e-2, 1e-2),
    ("gemm fp16 200x136x96, partial tiles stored by TMA from a staged tile (examples/gemm.tl)", f"{E}/gemm.tl",
     "matmul(200, 136, 96)", 1e-2, 1e-2),
    ("gemm A^T B^T -> fp32 256x256x128", f"{K}/gemm_trans.tl", "gemm(256, 256, 128, trans_A=True, trans_B=True)",
     1e-3, 1e-3),
    ("two transposes 256x64", f"{K}/two_transposes.tl", "two_transposes(256, 64)", 1e-3, 1e-3),
    ("block-sparse gemm 256x256x512, 3 stages", f"{K}/gemm_masked.tl",
     "gemm_masked(256, 256, 512, num_stages=3, threads=128)", 1e-3, 1e-3),
    ("block-sparse gemm 200x136x100 (mixed producers)", f"{K}/gemm_masked.tl",
     "gemm_masked(200, 136, 100, num_stages=2, threads=256)", 1e-3, 1e-3),
    ("warp-specialized gemm 256^3 (examples/ws_gemm.tl)", f"{E}/ws_gemm.tl", "matmul_warp_specialize(256, 256, 256)",
     1e-2, 1e-2),
    ("flash attention fwd 1x2x256x64 causal", f"{E}/flash_attn_fwd.tl", "flashattn(1, 2, 256, 64, True)", 2e-3, 1e-2),
    # issue 24's patterns: an argmax through an integer reduction, guarded partial tiles
    ("top-k fp32 200x64, k=4", f"{K}/topk.tl", "topk_gating(200, 64, 4)", 0, 0),
    ("top-k fp16 130x32, k=3, blk_m 32", f"{K}/topk.tl", 'topk_gating(130, 32, 3, blk_m=32, dtype="float16")', 0, 0),
    ("grouped gemm N=96 (guarded stores), groups 40/24/8", f"{K}/bounds.tl", "grouped_gemm()", 1e-2, 1e-2,
     {"starts": [0, 40, 64], "counts": [40, 24, 8]}),
    ("shifted load reading the safe value", f"{K}/bounds.tl", "shifted()", 0, 0),
]


def run_case(torch, np, args, label, path, entry, atol, rtol, tmp, ints=None):
    kern = tlc_gpu.compile(path, entry=entry, target=args.target, tlc=args.tlc, verbose=False)
    gen = np.random.default_rng(0)
    npdt = {"float16": np.float16, "float32": np.float32, "int32": np.int32}
    hdr = open(os.path.splitext(kern.so_path)[0] + ".h").read()
    # tensor shapes: from the sim's own outputs of a first run (it knows them)
    first = os.path.join(tmp, "shape")
    subprocess.run([args.tlc, "--run", f"--target={args.target}", path, f"--entry={entry}", "-o", first], check=True,
                   capture_output=True)
    inputs, dev, host = [], [], []
    for p in kern.params:
        if not p.tensor:
            raise RuntimeError(f"{label}: scalar parameter {p.name} not supported here")
        shape = np.load(os.path.join(first, f"{p.name}.npy")).shape
        if ints and p.name in ints:
            a = np.array(ints[p.name], dtype=npdt[p.dtype]).reshape(shape)
        elif p.dtype == "int32":
            a = gen.integers(0, 2, size=shape).astype(np.int32)  # masks: 0 or 1
        else:
            a = gen.standard_normal(size=shape).astype(npdt[p.dtype])
        f = os.path.join(tmp, f"in_{p.name}.npy")
        np.save(f, a)
        inputs.append(f"--input={p.name}={f}")
        dev.append(torch.from_numpy(a.copy()).cuda())
        host.append(a)
    simdir = os.path.join(tmp, "sim")
    r = subprocess.run([args.tlc, "--run", f"--target={args.target}", path, f"--entry={entry}", "-o", simdir] + inputs,
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{label}: tlc --run failed: {r.stderr.strip()}")
    tlc_gpu.call(kern, *dev)
    torch.cuda.synchronize()
    rows, ok = [], True
    for p, t, a in zip(kern.params, dev, host):
        sim = np.load(os.path.join(simdir, f"{p.name}.npy"))
        gpu = t.cpu().numpy()
        if np.array_equal(sim.view(np.uint8), a.view(np.uint8)) and np.array_equal(gpu.view(np.uint8), a.view(np.uint8)):
            continue  # an input: neither run wrote it
        s64, g64 = sim.astype(np.float64), gpu.astype(np.float64)
        same = int((sim.view(np.uint8).reshape(sim.size, -1) == gpu.view(np.uint8).reshape(gpu.size, -1)).all(1).sum())
        diff = np.abs(g64 - s64)
        rel = float((diff / np.maximum(np.abs(s64), 1e-30)).max()) if diff.size else 0.0
        good = bool((diff <= atol + rtol * np.abs(s64)).all()) and bool(np.isfinite(g64).all())
        ok = ok and good
        rows.append((p.name, sim.size, same, float(diff.max()), rel, good))
    return ok, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlc", default=tlc_gpu.default_tlc())
    ap.add_argument("--target", default="cuda-sm90")
    ap.add_argument("--report")
    ap.add_argument("--out", help="a folder: the report goes to OUT/sim-vs-gpu-<date>.md")
    args = ap.parse_args()
    import numpy as np
    torch = tlc_gpu.gpu_torch()
    dev = torch.cuda.get_device_name()
    commit = os.environ.get("TLC_COMMIT") or subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                                            capture_output=True, text=True).stdout.strip()
    out = [f"# tlc-sim vs the GPU, {datetime.date.today()}", "",
           f"Device: {dev}; CPU for the simulator: {platform.processor() or platform.machine()}; target {args.target}; "
           f"commit {commit}.", "",
           "Same random inputs (.npy) to `tlc --run` (thread level, lowered kernel) and to the `.so` on the GPU; "
           "PASS when |gpu - sim| <= atol + rtol |sim| everywhere.", "",
           "| kernel | output | elements | bit-identical | max abs diff | max rel diff | atol, rtol | result |",
           "|---|---|---|---|---|---|---|---|"]
    all_ok = True
    for label, path, entry, atol, rtol, *ints in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                ok, rows = run_case(torch, np, args, label, path, entry, atol, rtol, tmp, ints[0] if ints else None)
            except Exception as e:  # a failed case is reported, the others still run
                ok, rows = False, [("-", 0, 0, float("nan"), float("nan"), False)]
                print(f"{label}: {e}", file=sys.stderr)
        all_ok = all_ok and ok
        for name, n, same, d, r, good in rows:
            line = (f"| {label} | {name} | {n} | {same} | {d:.3g} | {r:.3g} | {atol:g}, {rtol:g} | "
                    f"{'PASS' if good else 'FAIL'} |")
            out.append(line)
            print(line, flush=True)
    text = "\n".join(out) + "\n"
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        args.report = args.report or os.path.join(args.out, f"sim-vs-gpu-{datetime.date.today()}.md")
    if args.report:
        open(args.report, "w").write(text)
    print(text)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
