#!/bin/bash
# run_all.sh - every GPU check and the benchmark, in one go, on a machine
# with an NVIDIA GPU, nvcc and PyTorch (a lent GPU: see README.md here).
#
# Usage (from the repository root):
#   bash tests/gpu/run_all.sh TLC OUTDIR
# TLC is the tlc driver to test (an installed one: its plugins and tlc.ini
# are found beside its libtlc); OUTDIR gets the reports
# (<name>-<date>.md) and a log per script.  Set TLC_COMMIT to the commit
# measured when the tree has no .git.  Exit status: 0 when every numeric
# check passed, 1 otherwise.
set -u
tlc=${1:?usage: run_all.sh TLC OUTDIR}
out=${2:?usage: run_all.sh TLC OUTDIR}
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
status=0

run() {
	local name=$1
	shift
	echo "==> $name"
	"$@" >"$out/$name.log" 2>&1
	local rc=$?
	tail -n 30 "$out/$name.log"
	echo "==> $name: exit $rc"
	[ "$rc" -eq 0 ] || status=1
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$tlc" --version
run elementwise python3 tests/gpu/run_elementwise.py --tlc "$tlc" --out "$out"
run gemm timeout 900 python3 tests/gpu/run_gemm.py --tlc "$tlc" --out "$out"
run attention python3 tests/gpu/run_attention.py --tlc "$tlc" --out "$out"
run dtype_matrix python3 tests/gpu/run_dtype_matrix.py --tlc "$tlc" --out "$out"
run bounds python3 tests/gpu/run_bounds.py --tlc "$tlc" --out "$out"
run gemm_helper bash -c "nvcc -std=c++17 -O2 -arch=sm_90a tests/gpu/gemm_helper_test.cu -o /tmp/tlc_gemm_helper_test && /tmp/tlc_gemm_helper_test"
run wgmma_helper bash -c "nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/wgmma_helper_test.cu -o /tmp/tlc_wgmma_helper_test && /tmp/tlc_wgmma_helper_test"
run tma_helper bash -c "nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/tma_helper_test.cu -o /tmp/tlc_tma_helper_test -lcudart && timeout 300 /tmp/tlc_tma_helper_test"
run bench python3 bench/bench_tile.py --tlc "$tlc" --out "$out"
exit $status
