#!/bin/sh
# gemm_compile.sh - TAP: the mma.sync GEMM helpers (backends/cuda/device/
# tlc_gemm.cuh) compile with nvcc for sm_90a and sm_80, their PTX holds the
# m16n8k16 mma of both element types and all four ldmatrix forms, ptxas
# accepts it, and a bad tile shape fails with the helper's own message.
# Run by `make check` with NVCC (configure's; empty: skipped) and TLC_SRCDIR.
: "${TLC_SRCDIR:?}"
if [ -z "${NVCC:-}" ]; then
	echo "1..0 # SKIP nvcc not found by configure"
	exit 0
fi
src=$TLC_SRCDIR/tests/compile
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-gemm-compile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

report() { # report PASSED NAME [LOGFILE]
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/#   /' "$3" | head -n 20
		failed=$((failed + 1))
	fi
}

for arch in 90a 80; do
	ptx=$tmp/sm_$arch.ptx
	"$NVCC" -std=c++17 -ptx -arch=compute_$arch "$src/gemm_instances.cu" -o "$ptx" >"$tmp/log" 2>&1
	report $(($? == 0)) "sm_$arch: nvcc -ptx of gemm_instances.cu" "$tmp/log"
	for want in \
		'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32' \
		'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32' \
		'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' \
		'ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16' \
		'ldmatrix\.sync\.aligned\.m8n8\.x2\.shared\.b16' \
		'ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16'; do
		grep -q "$want" "$ptx" 2>/dev/null
		report $(($? == 0)) "sm_$arch: PTX has $(echo "$want" | sed 's/\\//g')"
	done
	"$NVCC" -std=c++17 -c -gencode=arch=compute_$arch,code=sm_$arch "$src/gemm_instances.cu" \
		-o "$tmp/sm_$arch.o" >"$tmp/log" 2>&1
	report $(($? == 0)) "sm_$arch: nvcc -gencode=arch=compute_$arch,code=sm_$arch (ptxas)" "$tmp/log"
done

# a tile shape the helpers cannot do is a compile error that says why
"$NVCC" -std=c++17 -ptx -arch=compute_80 "$src/gemm_bad_shape.cu" -o "$tmp/bad.ptx" >"$tmp/log" 2>&1
report $(($? != 0)) "bad shape: nvcc fails"
grep -q 'M must be a multiple of 16 \* WARP_M' "$tmp/log"
report $(($? == 0)) "bad shape: the static_assert message names the rule" "$tmp/log"

echo "1..$n"
[ "$failed" = 0 ]
