# Times the variants of bench/notes/multicast_variants.py next to cuBLAS, in one process:
#   N=4096 python3 time_multicast.py base mc2   (loads mcrun/libNAME.so: nvcc -O3
#   -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC NAME.cu -o mcrun/libNAME.so)
# Each kernel is checked against the float32 product (NaN-poisoned output) before it is timed.
import ctypes, sys, statistics
import torch
import os
n = int(os.environ.get("N", "4096"))
torch.manual_seed(0)
a = torch.randn(n, n, device="cuda").half()
b = torch.randn(n, n, device="cuda").half()
ref = a.float() @ b.float()
libs = {name: ctypes.CDLL(f"mcrun/lib{name}.so") for name in sys.argv[1:]}
def timeit(fn, warm=5, runs=30):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e))
    return statistics.median(ts)
out = torch.empty(n, n, device="cuda").half()
for rnd in range(3):
    for name, lib in libs.items():
        c = torch.full((n, n), float("nan"), device="cuda").half()
        f = lambda: lib.matmul(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()), ctypes.c_void_p(c.data_ptr()), None)
        rc = f(); torch.cuda.synchronize()
        err = (c.float() - ref).abs().max().item()
        ok = rc == 0 and torch.isfinite(c.float()).all().item() and err <= 0.1 + 1e-2 * ref.abs().max().item()
        t = timeit(f)
        tt = timeit(lambda: torch.matmul(a, b, out=out))
        print(f"round {rnd} {name}: rc={rc} maxerr={err:.4f} {'pass' if ok else 'FAIL'} {t:.4f} ms; cuBLAS {tt:.4f} ms; ratio {tt / t:.3f}")
