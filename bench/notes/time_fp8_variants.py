# Times hand-made variants of tlc's float8 GEMM (bench/notes/fp8_overlap_variant.py)
# next to torch._scaled_mm in one process, 8192^3 e4m3, A [M][K], B [N][K], float32 out:
#   python3 time_fp8_variants.py DIR NAME...   (loads DIR/libNAME.so, built with nvcc -O3
#   -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC NAME.cu -o DIR/libNAME.so)
# Each kernel is checked against the float64 product (NaN-poisoned output, atol 1e-3 sqrt(K),
# rtol 1e-4: the bench's float8 check) before it is timed; three rounds, median of 30 each,
# the kernel and _scaled_mm launched in turn (tlc_gpu.paired_median_ms; the 2026-11-27 run
# used a private copy of that loop, the same steps).
import ctypes, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "gpu"))
from tlc_gpu import paired_median_ms  # noqa: E402
n = 8192
torch.manual_seed(0)
a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
ref = a.double() @ b.double().t()
one = torch.ones((), device="cuda")
atol, rtol = 1e-3 * n ** 0.5, 1e-4
def ok_err(c):
    err = (c.double() - ref).abs()
    return bool(torch.isfinite(c).all()) and bool((err <= atol + rtol * ref.abs()).all()), err.max().item()
sm = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.float32)
print(f"device {torch.cuda.get_device_name()}; _scaled_mm check: {ok_err(sm())}")
libs = {name: ctypes.CDLL(f"{sys.argv[1]}/lib{name}.so") for name in sys.argv[2:]}
for rnd in range(3):
    for name, lib in libs.items():
        c = torch.full((n, n), float("nan"), device="cuda")
        f = lambda: lib.matmul_fp8(ctypes.c_void_p(a.data_ptr()), ctypes.c_void_p(b.data_ptr()), ctypes.c_void_p(c.data_ptr()), None)
        rc = f(); torch.cuda.synchronize()
        ok, err = ok_err(c)
        t, tt = paired_median_ms(f, sm)
        print(f"round {rnd} {name:14s}: rc={rc} maxerr={err:.4f} {'pass' if ok and rc == 0 else 'FAIL'} {t:.4f} ms; _scaled_mm {tt:.4f} ms; ratio {tt / t:.3f}", flush=True)
