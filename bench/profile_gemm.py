#!/usr/bin/env python3
"""One launch of examples/gemm.tl per configuration, for a profiler (ncu) to look at.

Usage (on the GPU machine, after a build):
    ncu --kernel-name regex:matmul_kernel --section SpeedOfLight --section WarpStateStats \
        python3 bench/profile_gemm.py --tlc build/_inst/bin/tlc
Each configuration is launched twice (the first launch is a warm-up, so
profile with --launch-skip 1 --launch-count 1 per configuration, or all)."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gpu"))
import tlc_gpu  # noqa: E402

CONFIGS = [("defaults", "", ()), ("128x256x64 s3 t256", ", 128, 256, 64, num_stages=3, threads=256", ())]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tlc")
    ap.add_argument("--n", type=int, default=8192)
    args = ap.parse_args()
    import torch
    n = args.n
    gemm = os.path.join(tlc_gpu.REPO, "examples", "gemm.tl")
    a = torch.randn(n, n, device="cuda").half()
    b = torch.randn(n, n, device="cuda").half()
    c = torch.empty(n, n, device="cuda").half()
    for name, cargs, targs in CONFIGS:
        kern = tlc_gpu.compile(gemm, entry=f"matmul({n}, {n}, {n}{cargs})", tlc=args.tlc, verbose=False,
                               tlc_args=targs)
        for _ in range(2):
            tlc_gpu.call(kern, a, b, c)
        torch.cuda.synchronize()
        print(name, "launched", flush=True)


if __name__ == "__main__":
    main()
