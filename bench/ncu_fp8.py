#!/usr/bin/env python3
"""Launch one float8 e4m3 GEMM at n^3 (A [M][K], B [N][K], float32 out) for
profiling under ncu: tlc's examples/gemm_fp8.tl with a matmul_fp8 entry, or
torch._scaled_mm (cuBLAS) inside an NVTX range "mm":

    ncu -k regex:matmul_fp8 -c 1 -s 2 --section ... python3 bench/ncu_fp8.py TLC 'matmul_fp8(8192, 8192, 8192)'
    ncu --nvtx --nvtx-include "mm/" -c 1 --section ... python3 bench/ncu_fp8.py torch 8192
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "gpu"))
import tlc_gpu  # noqa: E402

torch = tlc_gpu.gpu_torch()
if sys.argv[1] == "torch":
    n = int(sys.argv[2])
else:
    n = int(sys.argv[2].split("(")[1].split(",")[0])
a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
if sys.argv[1] == "torch":
    one = torch.ones((), device="cuda")
    for _ in range(2):
        torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.float32)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("mm")
    torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.float32)
    torch.cuda.nvtx.range_pop()
else:
    tlc_gpu.setup_env(sys.argv[1])
    kern = tlc_gpu.compile(os.path.join(tlc_gpu.REPO, "examples", "gemm_fp8.tl"), entry=sys.argv[2], tlc=sys.argv[1],
                           cache_dir="/tmp/ncu-c", verbose=False, tlc_args=tuple(sys.argv[3:]))
    c = torch.empty(n, n, device="cuda")
    fn = tlc_gpu.bind(kern, a, b, c)
    for _ in range(3):
        fn()
torch.cuda.synchronize()
