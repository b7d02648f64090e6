#!/usr/bin/env python3
"""Top-k on a GPU: tests/gpu/kernels/topk.tl against torch.topk.

The kernel takes, for each row of an (M, N) logits matrix, the k largest
values (gates) and their columns (indices), in k rounds of a float
T.reduce_max, an integer T.reduce_max over the columns that hold the maximum
(its warp shuffles sit inside an integer max: the regression of commit
b3963ce, where a printed `a > b ? a : b` ran a shuffle a second time on only
some lanes and the indices came back as -1 and float bit patterns on an
H100), and masking the chosen logit.

Cases: M not a multiple of the block (the last block's rows past M are not
stored), k from 1 to 8, blk_m 32 and 64, 128 and 256 threads, float32 and
float16 logits.  Inputs have no ties: each row holds distinct multiples of
1/16 in [-64, 64), exact in float16, so the k largest and their order are
unique.  Outputs start as NaN (gates) and -2 (indices: never a column, nor
the -1 of the bug), so an element never written fails.  Both must equal
torch.topk's exactly (values and indices; the kernel only compares and
copies).  Timing: CUDA events, median of 100 launches after 10 warm-up ones,
next to torch.topk on the same tensors (none with TLC_GPU_CHECK_ONLY=1).
Writes bench/results/topk-<date>.md.

Usage, from the repository root after a build:
    python3 tests/gpu/run_topk.py --tlc build/tlc --out bench/results
Exit status: 0 all checks pass, 1 a check failed, 2 a build failed, 77 no GPU or no torch.
"""
import argparse
import datetime
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlc_gpu  # noqa: E402
from run_elementwise import commit  # noqa: E402

REPO = tlc_gpu.REPO
TOPK = os.path.join(REPO, "tests", "gpu", "kernels", "topk.tl")

# (M, N, topk, blk_m, threads, dtype); the factory is
# topk_gating(M, N, topk, blk_m, threads, dtype)
CASES = [
    (1000, 64, 8, 64, 128, "float32"),
    (777, 128, 4, 32, 128, "float32"),
    (4096, 64, 1, 64, 256, "float32"),
    (333, 256, 6, 32, 256, "float32"),
    (100, 32, 2, 32, 128, "float32"),
    (1000, 64, 8, 64, 256, "float16"),
    (515, 128, 3, 32, 128, "float16"),
    (2065, 32, 5, 64, 128, "float16"),
    (4000, 64, 7, 32, 256, "float16"),
]

WARMUP, RUNS = 10, 100


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def distinct_logits(torch, M, N, dtype, seed):
    """(M, N) logits, each row N distinct multiples of 1/16 in [-64, 64)."""
    g = torch.Generator().manual_seed(seed)
    cols = torch.argsort(torch.rand(M, 2048, generator=g), dim=1)[:, :N]
    return ((cols.float() - 1024.0) / 16.0).to(getattr(torch, dtype)).cuda()


def run_case(torch, args, workdir, M, N, k, blk_m, threads, dtype):
    label = f"{dtype} M={M} N={N} k={k} blk_m={blk_m} threads={threads}"
    kern = tlc_gpu.compile(TOPK, entry=f'topk_gating({M}, {N}, {k}, {blk_m}, {threads}, "{dtype}")',
                           tlc=args.tlc, nvcc=args.nvcc, cache_dir=workdir)
    logits = distinct_logits(torch, M, N, dtype, seed=M * 131 + N * 7 + k)
    gates = torch.full((M, k), float("nan"), device="cuda", dtype=logits.dtype)
    indices = torch.full((M, k), -2, device="cuda", dtype=torch.int32)
    call = tlc_gpu.bind(kern, logits, gates, indices)
    rc = call()
    torch.cuda.synchronize()
    if rc != 0:
        return dict(label=label, ok=False, note=f"launcher returned {rc} ({kern.error_string(rc)})")
    ref = torch.topk(logits, k, dim=1)
    bad_idx = (indices.long() != ref.indices).any(dim=1)
    bad_val = ~((gates == ref.values) | (torch.isnan(gates) & torch.isnan(ref.values))).all(dim=1)
    bad = bad_idx | bad_val
    nbad = int(bad.sum().item())
    note = ""
    if nbad:
        r = int(bad.nonzero()[0].item())
        note = (f"{nbad} of {M} rows wrong; row {r}: indices {indices[r].tolist()} gates {gates[r].tolist()}, "
                f"torch.topk {ref.indices[r].tolist()} {ref.values[r].tolist()}")
    us = 1000.0 * tlc_gpu.median_ms(call, WARMUP, RUNS)
    torch_us = 1000.0 * tlc_gpu.median_ms(lambda: torch.topk(logits, k, dim=1), WARMUP, RUNS)
    return dict(label=label, ok=nbad == 0, bad_rows=nbad, rows=M, us=us, torch_us=torch_us, note=note)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc", default=os.path.join(REPO, "build", "tlc"))
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    workdir = tempfile.mkdtemp(prefix="tlc-topk-")
    rows, failed_build = [], False
    for case in CASES:
        try:
            r = run_case(torch, args, workdir, *case)
        except tlc_gpu.BuildError as e:
            failed_build = True
            log(f"build failed: {e}")
            r = dict(label=f"{case}", ok=False, note="build failed")
        log(f"{r['label']}: {'pass' if r['ok'] else 'FAIL'} {r.get('note', '')}")
        rows.append(r)
    today = datetime.date.today().isoformat()
    lines = ["# top-k (tests/gpu/kernels/topk.tl) against torch.topk", "", f"- date: {today}",
             f"- device: {torch.cuda.get_device_name()}", f"- commit: {commit()}", f"- torch {torch.__version__}",
             "- inputs: rows of distinct multiples of 1/16 (no ties); indices and gates must equal torch.topk's",
             f"- timing: CUDA events per launch, median of {RUNS} after {WARMUP} warm-up"
             + (" (not timed: TLC_GPU_CHECK_ONLY)" if tlc_gpu.check_only() else ""), "",
             "| case | check | rows wrong | tlc us | torch.topk us | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "us" not in r:
            lines.append(f"| {r['label']} | FAIL | | | | {r['note']} |")
            continue
        lines.append(f"| {r['label']} | {'pass' if r['ok'] else 'FAIL'} | {r['bad_rows']} of {r['rows']} | "
                     f"{r['us']:.2f} | {r['torch_us']:.2f} | {r['note']} |")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"topk-{today}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(open(path).read())
    if failed_build:
        return 2
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
