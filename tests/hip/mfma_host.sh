#!/bin/sh
# mfma_host.sh - run the MFMA gemm helper that the hip target prints on the
# CPU (tests/hip/mfma_host.cpp says how), for gemms of every shape of
# helper call: A and B in LDS, transposed operands, k_pack, both MFMA
# shapes, float32 and float8 fnuz; and the float8 fnuz conversions it prints
# against tlc-sim's rounding (tests/hip/fp8_host.cpp).  TAP output; needs
# clang++ (a skip without it).
#
# Environment (set by make check): TLC, TLC_SRCDIR, TLC_PLUGIN_PATH, TLC_CONFIG.
set -u
: "${TLC:?}" "${TLC_SRCDIR:?}"
CXX=${CLANGXX:-$(command -v clang++ || command -v clang++-15 || command -v clang++-14 || true)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mfma_host.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

# case NAME TARGET FILE ENTRY ELEM
case_() {
	n=$((n + 1))
	name=$1 target=$2 file=$3 entry=$4 elem=$5
	if [ -z "$CXX" ]; then
		echo "ok $n - $name # SKIP no clang++"
		return
	fi
	d=$tmp/$n
	mkdir -p "$d"
	if ! "$TLC" --target="$target" "$file" --entry "$entry" -o "$d/k.hip" 2>"$d/err"; then
		echo "not ok $n - $name: tlc failed"; sed 's/^/# /' "$d/err"; fail=$((fail + 1)); return
	fi
	# the structs printed before the kernel, and the first helper call
	# (their clang vector typedefs become tlc_vec: the host compiler has no
	# vectors of _Float16)
	sed -n '/^struct tlc_layout/,/^};/p;/^\/\* v_mfma/,/^};/p' "$d/k.hip" |
		sed 's/typedef \([A-Za-z_0-9]*\) __attribute__((ext_vector_type(\([0-9]*\)))) \([a-z]*\);/typedef tlc_vec<\1, \2> \3;/' \
			>"$d/structs.h"
	call=$(grep -o 'tlc::mfma_gemm_ss<[^>]*>' "$d/k.hip" | head -1)
	if [ -z "$call" ]; then
		echo "not ok $n - $name: no tlc::mfma_gemm_ss call in the source"; fail=$((fail + 1)); return
	fi
	args=$(echo "$call" | sed 's/.*<//; s/>//; s/ //g')
	set -- $(echo "$args" | tr ',' ' ')
	# M, N, K, WM, WN, P, TA, TB, VA, VB, I, LA, LB
	cat >"$d/shim.h" <<SHIM
#define __device__
#define __forceinline__ inline
#define __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, x, y, z) tlc_host_mfma(a, b, c)
#define __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, x, y, z) tlc_host_mfma(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c, x, y, z) tlc_host_mfma(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, x, y, z) tlc_host_mfma(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(a, b, c, x, y, z) tlc_host_mfma(a, b, c)
#define __host__
#include <cmath>
#include "$TLC_SRCDIR/backends/hip/device/tlc_fp8.hip.h"
#define TLC_M $1
#define TLC_N $2
#define TLC_K $3
#define TLC_WM $4
#define TLC_WN $5
#define TLC_TA $7
#define TLC_TB $8
#include "$TLC_SRCDIR/tests/hip/mfma_host_types.h"
#define ELEM $elem
template <class OP, class ACC> ACC tlc_host_mfma(OP a, OP b, ACC c);
#include "structs.h"
#define INST ${11}
#define LA ${12}
#define LB ${13}
#define TLC_GEMM $call
SHIM
	if ! "$CXX" -std=c++17 -O1 -w -I"$TLC_SRCDIR/backends/hip/device" -include "$d/shim.h" \
		"$TLC_SRCDIR/tests/hip/mfma_host.cpp" -o "$d/run" 2>"$d/err"; then
		echo "not ok $n - $name: the helper does not compile on the host"; sed 's/^/# /' "$d/err" | head -20
		fail=$((fail + 1)); return
	fi
	if "$d/run" >"$d/out"; then
		echo "ok $n - $name ($(cat "$d/out"))"
	else
		echo "not ok $n - $name"; sed 's/^/# /' "$d/out"; fail=$((fail + 1))
	fi
}

K=$TLC_SRCDIR/tests/lit/hip/k_pack.tl
G=$TLC_SRCDIR/tests/gpu/kernels/gemm_trans.tl
D=$TLC_SRCDIR/tests/lit/hip/dtypes.tl
L=$TLC_SRCDIR/tests/lit/sim/lane_semantics.tl
echo "1..10"
case_ "gemm, B transposed (16-byte reads of both)" hip-gfx90a "$K" 'gemm(1)' tlc_half
case_ "k_pack=2 (k of two MFMAs interleaved)" hip-gfx90a "$K" 'gemm(2)' tlc_half
case_ "k_pack=4" hip-gfx942 "$K" 'gemm(4, K=128)' tlc_half
case_ "A and B transposed" hip-gfx90a "$G" 'gemm(128, 128, 64, trans_A=True, trans_B=True)' tlc_half
case_ "A transposed, B not (element reads)" hip-gfx942 "$G" 'gemm(128, 128, 64, trans_A=True)' tlc_half
case_ "float32 (16x16x4f32)" hip-gfx90a "$D" 'gemm("float32", "float32")' float
case_ "float8 e4m3fnuz (16x16x32 fp8_fp8)" hip-gfx942 "$D" 'gemm("float8_e4m3fnuz", "float32")' tlc::fp8_e4m3fnuz
case_ "float8 e5m2fnuz (16x16x32 bf8_bf8)" hip-gfx942 "$D" 'gemm("float8_e5m2fnuz", "float32")' tlc::fp8_e5m2fnuz
case_ "the 32x32x8 instruction (hand-written IR)" hip-gfx90a "$L" 'mfma_ss(64, 64, 16, 2, 1, "float16", "v_mfma_f32_32x32x8f16")' tlc_half
# the float8 fnuz conversions the target prints, against tlc-sim's rounding
n=$((n + 1))
if [ -z "$CXX" ]; then
	echo "ok $n - float8 fnuz conversions # SKIP no clang++"
elif ! {
	# tlc-sim's number formats from their sources (not the build's libtlc,
	# which may be instrumented: the ASan build)
	cc -std=c11 -D_GNU_SOURCE -w -I"$TLC_SRCDIR/include" -I"$TLC_SRCDIR/core" -I"$(dirname "$TLC")" \
		-c "$TLC_SRCDIR/core/dtype.c" -o "$tmp/dtype.o" &&
		cc -std=c11 -D_GNU_SOURCE -w -I"$TLC_SRCDIR/include" -I"$TLC_SRCDIR/core" -I"$TLC_SRCDIR/core/sim" \
			-I"$(dirname "$TLC")" -c "$TLC_SRCDIR/core/sim/sim_number.c" -o "$tmp/sim_number.o" &&
		cc -std=c11 -D_GNU_SOURCE -w -I"$TLC_SRCDIR/include" -I"$TLC_SRCDIR/core" \
			-I"$(dirname "$TLC")" -c "$TLC_SRCDIR/core/arith.c" -o "$tmp/arith.o" &&
		"$CXX" -std=c++17 -O1 -w -I"$TLC_SRCDIR/include" -I"$TLC_SRCDIR/backends/hip/device" \
			"$TLC_SRCDIR/tests/hip/fp8_host.cpp" "$tmp/dtype.o" "$tmp/sim_number.o" "$tmp/arith.o" \
			-o "$tmp/fp8" -lm
} 2>"$tmp/fp8.err"; then
	echo "not ok $n - float8 fnuz conversions: the test does not build"; sed 's/^/# /' "$tmp/fp8.err" | head
	fail=$((fail + 1))
elif "$tmp/fp8" >"$tmp/fp8.out"; then
	echo "ok $n - float8 fnuz conversions agree with tlc-sim ($(tr '\n' ' ' <"$tmp/fp8.out"))"
else
	echo "not ok $n - float8 fnuz conversions"; sed 's/^/# /' "$tmp/fp8.out"; fail=$((fail + 1))
fi
[ "$fail" -eq 0 ]
