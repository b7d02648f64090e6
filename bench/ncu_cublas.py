#!/usr/bin/env python3
"""Launch cuBLAS's fp16 GEMM (torch.matmul) at n^3 inside an NVTX range "mm",
for profiling beside tlc's kernels (bench/ncu_one.py) under ncu:

    ncu --nvtx --nvtx-include "mm/" -c 1 --metrics ... python3 bench/ncu_cublas.py [N]
"""
import sys

import torch

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
for _ in range(2):
    torch.matmul(a, b)
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("mm")
torch.matmul(a, b)
torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
