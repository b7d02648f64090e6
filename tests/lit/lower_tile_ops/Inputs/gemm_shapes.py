"""Sweep T.gemm over tile shapes and types on every target (gemm_shapes*.test).

Each case is a target, an entry of gemm_shapes.tl and what must happen,
reasoned from the target's matrix instructions (tlc --print-target-info):
"ok INST" (INST, the first instruction of the table that takes the tile:
M and N split over the thread groups into whole atoms, K a multiple of its
k, its operand rules kept), or a piece of the error tlc must give at the
T.gemm (file:line:col, exit 1).  Never code that
the device compiler rejects or that computes a different sum.

  gemm_shapes.py TLC KERNEL FAMILY sim          accepted shapes agree with their
                                                tile-level meaning in tlc-sim
  gemm_shapes.py TLC KERNEL FAMILY compile CC.. accepted shapes assemble: CC is
                                                the compiler command; the arch
                                                flags per target are added here
Both modes check every expected error.  FAMILY: cuda or hip.
"""
import os
import re
import subprocess
import sys
import tempfile

F16 = '"float16"'
BF16 = '"bfloat16"'
F32 = '"float32"'
I8 = '"int8", "int32"'
FP8 = '"float8_e4m3"'
FNUZ = '"float8_e4m3fnuz"'
BF8NUZ = '"float8_e5m2fnuz"'
KMSG = "K (the reduction extent of the gemm's tiles: block_K) must be a multiple of "

CASES = {
    "cuda-sm90": [
        ("gemm(64, 64, 16)", "ok wgmma.m64nNk16"),
        ("gemm(128, 128, 32, threads=256)", "ok wgmma.m64nNk16"),
        ("gemm(64, 64, 32, trans_B=True, a_frag=True)", "ok wgmma.m64nNk16"),  # A from registers
        ("gemm(64, 128, 48, %s)" % BF16, "ok wgmma.m64nNk16"),
        ("gemm(64, 128, 64, %s, trans_B=True)" % FP8, "ok wgmma.m64nNk32"),
        ("gemm(16, 16, 16, threads=32)", "ok mma.sync.m16n8k16"),  # one warp
        ("gemm(48, 64, 32)", "ok mma.sync.m16n8k16"),  # 48 rows: no warpgroup atom, mma.sync on a 1x4 grid
        ("gemm(64, 64, 8)", KMSG + "16 for float16 mma.sync.m16n8k16 (the instruction's k); got 8"),
        ("gemm(128, 128, 12, %s)" % BF16, KMSG + "16 for bfloat16 mma.sync.m16n8k16 (the instruction's k); got 12"),
        # A in registers, B [K][N]: only K keeps WGMMA and mma.sync out
        ("gemm(64, 64, 24, a_frag=True)",
         KMSG + "16 for float16 wgmma.m64nNk16 and mma.sync.m16n8k16 (each instruction's k); got 24"),
        ("gemm(64, 64, 7)", KMSG + "16 for float16 mma.sync.m16n8k16 (the instruction's k); got 7"),
        ("gemm(64, 128, 48, %s, trans_B=True)" % FP8,
         KMSG + "32 for float8_e4m3fn mma.sync.m16n8k32 (the instruction's k); got 48"),
        ("gemm(64, 20, 32)", "(mma.sync.m16n8k16): M and N must be multiples of 16 and 32 (1x4 groups) or 32 and 16 "
                             "(2x2 groups) or 64 and 8 (4x1 groups)"),
        ("gemm(40, 64, 32)", "(mma.sync.m16n8k16): M and N must be multiples of"),
        # int8 and float32 (TF32): WGMMA reads them K-major only (B [N][K]);
        # B [K][N] falls back to mma.sync; integer WGMMA N in steps of 16
        ("gemm(64, 64, 32, %s)" % I8, "ok mma.sync.m16n8k32"),
        ("gemm(64, 64, 32, %s, trans_B=True)" % I8, "ok wgmma.m64nNk32"),
        ("gemm(64, 64, 32, %s, trans_B=True, a_frag=True)" % I8, "ok wgmma.m64nNk32"),
        ("gemm(64, 24, 32, %s, trans_B=True)" % I8, "ok mma.sync.m16n8k32"),
        ("gemm(64, 64, 16, %s, trans_B=True)" % F32, "ok wgmma.m64nNk8"),
        ("gemm(64, 64, 16, %s)" % F32, "ok mma.sync.m16n8k8"),
        # 16-byte rows take no swizzle, which keeps WGMMA out: mma.sync names its k
        ("gemm(64, 64, 4, %s, trans_B=True)" % F32,
         KMSG + "8 for float32 mma.sync.m16n8k8 (the instruction's k); got 4"),
    ],
    "cuda-sm80": [
        ("gemm(64, 64, 16)", "ok mma.sync.m16n8k16"),
        ("gemm(128, 128, 32, %s, threads=256)" % BF16, "ok mma.sync.m16n8k16"),
        ("gemm(64, 64, 32, trans_B=True, a_frag=True)", "ok mma.sync.m16n8k16"),
        ("gemm(64, 64, 8)", KMSG + "16 for float16 mma.sync.m16n8k16 (the instruction's k); got 8"),
        ("gemm(64, 64, 12, %s)" % BF16, KMSG + "16 for bfloat16 mma.sync.m16n8k16 (the instruction's k); got 12"),
        ("gemm(64, 64, 24, a_frag=True)", KMSG + "16 for float16 mma.sync.m16n8k16 (the instruction's k); got 24"),
        ("gemm(64, 20, 32)", "(mma.sync.m16n8k16): M and N must be multiples of"),
        ("gemm(64, 64, 32, %s, trans_B=True)" % FP8,
         "target cuda-sm80 has no matrix instruction for float8_e4m3fn x float8_e4m3fn -> float32"),
        ("gemm(64, 64, 32, %s, a_frag=True)" % I8, "ok mma.sync.m16n8k32"),
        ("gemm(64, 64, 16, %s, trans_B=True)" % F32, "ok mma.sync.m16n8k8"),
    ],
    "hip-gfx90a": [
        ("gemm(64, 64, 16)", "ok v_mfma_f32_16x16x16f16"),
        ("gemm(128, 128, 8)", "ok v_mfma_f32_32x32x8f16"),  # only v_mfma_f32_32x32x8f16 takes K = 8
        ("gemm(64, 64, 24)", "ok v_mfma_f32_32x32x8f16"),  # three k steps
        ("gemm(64, 64, 16, %s, threads=256)" % BF16, "ok v_mfma_f32_16x16x16bf16_1k"),
        ("gemm(64, 64, 8, %s)" % F32, "ok v_mfma_f32_16x16x4f32"),
        ("gemm(64, 64, 16, %s)" % I8, "ok v_mfma_i32_16x16x16i8"),
        ("gemm(64, 64, 32, a_frag=True, trans_B=True)", "ok v_mfma_f32_16x16x16f16"),
        ("gemm(64, 64, 12)", KMSG + "16 for float16 v_mfma_f32_16x16x16f16 or of 8 for float16 "
                                    "v_mfma_f32_32x32x8f16 (each instruction's k); got 12"),
        # 16x16 tile: the 32x32 instruction does not fit it, so only 16x16x16's k counts
        ("gemm(16, 16, 8, threads=64)", KMSG + "16 for float16 v_mfma_f32_16x16x16f16 (the instruction's k); got 8"),
        ("gemm(64, 64, 2, %s)" % F32, KMSG + "4 for float32 v_mfma_f32_16x16x4f32 (the instruction's k); got 2"),
        ("gemm(64, 64, 8, %s)" % I8, KMSG + "16 for int8 v_mfma_i32_16x16x16i8 (the instruction's k); got 8"),
        ("gemm(64, 24, 16)", "(v_mfma_f32_16x16x16f16): M and N must be multiples of 16 and 32 (1x2 groups) or "
                             "32 and 16 (2x1 groups)"),
        ("gemm(64, 64, 32, %s)" % FNUZ, "target hip-gfx90a has no matrix instruction for float8_e4m3fnuz"),
    ],
    "hip-gfx942": [
        ("gemm(64, 64, 32, %s)" % I8, "ok v_mfma_i32_16x16x32_i8"),
        ("gemm(64, 64, 32, %s)" % FNUZ, "ok v_mfma_f32_16x16x32_fp8_fp8"),
        ("gemm(64, 64, 64, %s, trans_B=True)" % BF8NUZ, "ok v_mfma_f32_16x16x32_bf8_bf8"),
        ("gemm(128, 128, 8, %s)" % BF16, "ok v_mfma_f32_32x32x8bf16_1k"),
        ("gemm(64, 64, 16, %s)" % I8, KMSG + "32 for int8 v_mfma_i32_16x16x32_i8 (the instruction's k); got 16"),
        ("gemm(64, 64, 16, %s)" % FNUZ,
         KMSG + "32 for float8_e4m3fnuz v_mfma_f32_16x16x32_fp8_fp8 (the instruction's k); got 16"),
        ("gemm(64, 64, 48, %s)" % FNUZ,
         KMSG + "32 for float8_e4m3fnuz v_mfma_f32_16x16x32_fp8_fp8 (the instruction's k); got 48"),
        ("gemm(32, 32, 4, %s, threads=64)" % BF16,
         KMSG + "16 for bfloat16 v_mfma_f32_16x16x16bf16_1k or of 8 for bfloat16 v_mfma_f32_32x32x8bf16_1k "
                "(each instruction's k); got 4"),
    ],
}

ARCH = {
    "cuda-sm90": ["-gencode=arch=compute_90a,code=sm_90a", "-c"],
    "cuda-sm80": ["-gencode=arch=compute_80,code=sm_80", "-c"],
    "hip-gfx90a": ["--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-O3", "-c"],
    "hip-gfx942": ["--offload-arch=%s" % os.environ.get("GFX942_ARCH", "gfx942"), "--cuda-device-only",
                   "--no-gpu-bundle-output", "-O3", "-c"],
}


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def gemm_columns(kernel):
    """(line, column) of every T.gemm call of the kernel file."""
    out = set()
    with open(kernel) as f:
        for n, line in enumerate(f, 1):
            c = line.find("T.gemm(")
            if c >= 0 and not line.lstrip().startswith("#"):
                out.add((n, c + 1))
    return out


def main():
    tlc, kernel, family, mode = sys.argv[1:5]
    cc = sys.argv[5:]
    at_gemm = gemm_columns(kernel)
    base = os.path.basename(kernel)
    failures = 0
    tmp = tempfile.mkdtemp(prefix="gemm_shapes.")
    n = 0
    for target, cases in CASES.items():
        if not target.startswith(family):
            continue
        for entry, expect in cases:
            n += 1
            what = "%s %s" % (target, entry)
            out = os.path.join(tmp, "k%d.%s" % (n, "cu" if family == "cuda" else "hip"))
            rc, msg = run([tlc, "--target=" + target, "--entry", entry, kernel, "-o", out])
            if not expect.startswith("ok "):
                m = re.search(re.escape(base) + r":(\d+):(\d+): error: (.*)", msg)
                if rc != 1 or not m or (int(m.group(1)), int(m.group(2))) not in at_gemm or expect not in m.group(3):
                    print("FAIL %s: expected an error at T.gemm containing %r, got exit %d:\n%s" % (what, expect, rc, msg))
                    failures += 1
                else:
                    print("ok   %s: refused" % what)
                continue
            if rc != 0:
                print("FAIL %s: expected it to compile, got exit %d:\n%s" % (what, rc, msg))
                failures += 1
                continue
            if mode == "sim":
                inst = expect[3:]
                rc, ir = run([tlc, "--target=" + target, "--entry", entry, kernel, "--emit=ir"])
                if 'inst="%s"' % inst not in ir:
                    print("FAIL %s: expected the gemm on %s:\n%s" % (what, inst, "\n".join(
                        l for l in ir.splitlines() if "inst=" in l)))
                    failures += 1
                    continue
                rc, msg = run([tlc, "--target=" + target, "--entry", entry, kernel, "--run", "--compare=1e-3,1e-3"])
                step = "tlc-sim (thread level vs tile level)"
            else:
                rc, msg = run(cc + ARCH[target] + [out, "-o", out + ".o"])
                step = "the device compiler"
            if rc != 0:
                print("FAIL %s: %s failed:\n%s" % (what, step, msg[-3000:]))
                failures += 1
            else:
                print("ok   %s: %s" % (what, "agrees in tlc-sim" if mode == "sim" else "assembles"))
    print("%d cases, %d failed" % (n, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
