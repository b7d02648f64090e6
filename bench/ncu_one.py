#!/usr/bin/env python3
"""Launch one examples/gemm.tl configuration three times at 4096^3 fp16, for
profiling under ncu (bench/results/ncu-gemm-*.txt say which metrics):

    ncu -k regex:matmul -c 1 -s 2 --metrics ... python3 bench/ncu_one.py TLC 'matmul(4096, 4096, 4096)' [TLC_ARG...]

TLC_ARGs go to tlc (e.g. --pass-arg=stage-outputs.enable=false).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "gpu"))
import tlc_gpu  # noqa: E402

tlc, entry = sys.argv[1], sys.argv[2]
torch = tlc_gpu.gpu_torch()
tlc_gpu.setup_env(tlc)
kern = tlc_gpu.compile(os.path.join(tlc_gpu.REPO, "examples", "gemm.tl"), entry=entry, tlc=tlc, cache_dir="/tmp/ncu-c",
                       verbose=False, tlc_args=tuple(sys.argv[3:]))
n = 4096
a = torch.randn(n, n, device="cuda").half()
b = torch.randn(n, n, device="cuda").half()
c = torch.empty(n, n, device="cuda").half()
fn = tlc_gpu.bind(kern, a, b, c)
for _ in range(3):
    fn()
torch.cuda.synchronize()
