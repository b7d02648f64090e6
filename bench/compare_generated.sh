#!/bin/bash
# Is the CUDA that two builds of tlc generate for the benchmarked kernels the
# same, byte for byte?  Then a GPU measurement of one build holds for the other.
#
# Usage: bash bench/compare_generated.sh 'TLC_A' 'TLC_B'
#   each a command that runs one build, e.g. for an uninstalled build tree B
#   of a checkout S: 'env TLC_PLUGIN_PATH=B/.libs TLC_CONFIG=S/etc/tlc.ini B/tlc'
# The configurations are those of bench/bench_tile.py: examples/gemm.tl at
# 4096^3, 8192^3 and 16384^3 in float16 and bfloat16, the defaults and the
# 128x256x64 tiles (also with stage_c), each alone and with every pass option the
# bench toggles; examples/gemm_fp8.tl's two tiles; examples/flash_attn_fwd.tl
# causal and not.  Prints each configuration that differs (or fails to build
# in either) and a count; exits 1 when any differs.
set -u
a=${1:?usage: compare_generated.sh TLC_A TLC_B}
b=${2:?usage: compare_generated.sh TLC_A TLC_B}
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

configs() {
	local n dt c opt
	for n in 4096 8192 16384; do
		for dt in float16 bfloat16; do
			for c in "" ", 128, 256, 64, num_stages=3, threads=256" \
				", 128, 256, 64, num_stages=3, threads=256, stage_c=True"; do
				for opt in "" --pass-arg=warp-specialize.multicast=false --pass-arg=stage-outputs.enable=false \
					--pass-arg=lower-tile-ops.stmatrix=false --pass-arg=warp-specialize.enable=false; do
					echo "examples/gemm.tl|matmul($n, $n, $n$c, dtype=\"$dt\")|$opt"
				done
			done
		done
	done
	echo "examples/gemm_fp8.tl|matmul_fp8(8192, 8192, 8192)|"
	echo "examples/gemm_fp8.tl|matmul_fp8(8192, 8192, 8192, block_M=128, num_stages=4, threads=256)|"
	echo "examples/flash_attn_fwd.tl|flashattn(8, 32, 4096, 128, is_causal=False)|"
	echo "examples/flash_attn_fwd.tl|flashattn(8, 32, 4096, 128, is_causal=True)|"
}

n=0
d=0
while IFS='|' read -r file entry opt; do
	n=$((n + 1))
	# $a, $b and $opt are word-split on purpose: commands with their arguments
	$a "$file" --entry "$entry" $opt -o "$tmp/a.cu" 2>"$tmp/a.err"
	ra=$?
	$b "$file" --entry "$entry" $opt -o "$tmp/b.cu" 2>"$tmp/b.err"
	rb=$?
	if [ "$ra" -ne 0 ] || [ "$rb" -ne 0 ] || ! cmp -s "$tmp/a.cu" "$tmp/b.cu"; then
		d=$((d + 1))
		echo "differs: $file $entry $opt (exit $ra, $rb)"
	fi
done < <(configs)
echo "$n configurations, $d differ"
[ "$d" -eq 0 ]
