#!/bin/bash
# run_all.sh - every GPU check and the benchmark, in one go, on a machine
# with an NVIDIA GPU, nvcc and PyTorch (a lent GPU: see README.md here).
#
# Usage (from the repository root):
#   bash tests/gpu/run_all.sh TLC OUTDIR
# TLC is the tlc driver to test (an installed one: its plugins and tlc.ini
# are found beside its libtlc); OUTDIR gets the reports
# (<name>-<date>.md) and a log per script.  Set TLC_COMMIT to the commit
# measured when the tree has no .git.
#
# Then every GPU test runs once more under compute-sanitizer, with each of
# its tools memcheck, racecheck and initcheck: the Python scripts with
# TLC_GPU_CHECK_ONLY=1 (each check once, nothing timed: tlc_gpu.check_only)
# and only tlc's kernels instrumented (extern "C" names NAME_kernel: the
# --kernel-name filter TLC_SANITIZER_KERNELS, default
# 'regex=^[A-Za-z0-9_]+_kernel$'; empty instruments every kernel, torch's
# too; initcheck always instruments every kernel, since it sees initialization
# only by instrumented ones), the helper tests whole.  First, each tool must
# find the fault of its probe (sanitizer_probe.cu, named as tlc names its kernels): a tool or
# filter that instruments nothing fails the run rather than passing it.
# The sanitizer's summary lines go to OUTDIR/sanitizer-<date>.md, its
# messages to OUTDIR/sanitizer/TOOL-TEST.log.  TLC_GPU_SANITIZE=0 skips this
# part; TLC_SANITIZER_TIMEOUT (seconds, default 3600) bounds each run;
# TLC_SANITIZER_ARGS adds options to every run; TLC_SANITIZER_TOOLS picks
# the tools (default "memcheck racecheck initcheck") and TLC_SANITIZER_TESTS
# the tests.  TLC_GPU_RUNS=0 skips the numeric runs and the benchmark (a
# lease too short for everything at once: the sanitizer part alone).
#
# Exit status: 0 when every numeric check passed and the sanitizer reported
# no error, 1 otherwise.
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
if [ "${TLC_GPU_RUNS:-1}" != 0 ]; then
run elementwise python3 tests/gpu/run_elementwise.py --tlc "$tlc" --out "$out"
run gemm timeout 900 python3 tests/gpu/run_gemm.py --tlc "$tlc" --out "$out"
run attention python3 tests/gpu/run_attention.py --tlc "$tlc" --out "$out"
run topk python3 tests/gpu/run_topk.py --tlc "$tlc" --out "$out"
run dtype_matrix python3 tests/gpu/run_dtype_matrix.py --tlc "$tlc" --out "$out"
run bounds python3 tests/gpu/run_bounds.py --tlc "$tlc" --out "$out"
run arith_values python3 tests/gpu/run_arith_values.py --tlc "$tlc" --out "$out"
run sim_agreement python3 tests/gpu/run_sim_agreement.py --tlc "$tlc" --out "$out"
run gemm_helper bash -c "nvcc -std=c++17 -O2 -arch=sm_90a tests/gpu/gemm_helper_test.cu -o /tmp/tlc_gemm_helper_test && /tmp/tlc_gemm_helper_test"
run wgmma_helper bash -c "nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/wgmma_helper_test.cu -o /tmp/tlc_wgmma_helper_test && /tmp/tlc_wgmma_helper_test"
run tma_helper bash -c "nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/tma_helper_test.cu -o /tmp/tlc_tma_helper_test -lcudart && timeout 300 /tmp/tlc_tma_helper_test"
run bench python3 bench/bench_tile.py --tlc "$tlc" --out "$out"
fi

# ---- compute-sanitizer: every test once per tool ----
[ "${TLC_GPU_SANITIZE:-1}" = 0 ] && exit $status
sdir="$out/sanitizer"
mkdir -p "$sdir"
report="$out/sanitizer-$(date +%F).md"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
filter=${TLC_SANITIZER_KERNELS-'regex=^[A-Za-z0-9_]+_kernel$'}
{
	echo "# GPU tests under compute-sanitizer"
	echo
	echo "- date: $(date +%F)"
	echo "- device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
	echo "- commit: ${TLC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
	echo "- compute-sanitizer: $("$cs" --version 2>/dev/null | tail -1)"
	echo "- Python scripts: TLC_GPU_CHECK_ONLY=1 (each check once, no timing), kernels instrumented: \`${filter:-all}\`"
	echo "- probe: each tool must report the fault of tests/gpu/sanitizer_probe.cu under the same filter"
	echo
	echo "| test | tool | result | exit | summary |"
	echo "|---|---|---|---|---|"
} >"$report"

# sanitize NAME TOOL FILTER COMMAND...: COMMAND under TOOL (FILTER: a
# --kernel-name value, or empty); EXPECT=errors for a probe
sanitize() {
	local name=$1 tool=$2 kfilter=$3
	shift 3
	local log="$sdir/$tool-$name.log" result
	# --check-exit-code no: the test's own exit status (1: a numeric check
	# failed, 77: skipped) stays its own, not a sanitizer error
	# --target-processes application-only: the test's own process, not the
	# tlc and nvcc it starts (racecheck and initcheck crashed with SIGSEGV,
	# no output, following them into run_gemm.py's builds)
	local -a opts=(--tool "$tool" --error-exitcode 99 --check-exit-code no --target-processes application-only
		--log-file "$log")
	[ -n "$kfilter" ] && opts+=(--kernel-name "$kfilter")
	# more options for every run, e.g. memcheck's --check-bulk-copy yes where the version has it
	[ -n "${TLC_SANITIZER_ARGS:-}" ] && read -r -a extra <<<"$TLC_SANITIZER_ARGS" && opts+=("${extra[@]}")
	echo "==> $tool: $name"
	rm -f "$log"
	timeout "${TLC_SANITIZER_TIMEOUT:-3600}" "$cs" "${opts[@]}" "$@" >"$sdir/$tool-$name.out" 2>&1
	local rc=$?
	local summary
	summary=$(grep -h "SUMMARY" "$log" 2>/dev/null | sed 's/^=* *//' | tr '\n' ' ')
	if [ "${EXPECT:-}" = errors ]; then
		if [ "$rc" -eq 99 ]; then result="probe caught"; else result="FAIL: probe not caught"; status=1; fi
	elif [ "$rc" -eq 0 ] && [ -n "$summary" ]; then
		result=pass
	elif [ "$rc" -eq 77 ]; then
		result="skipped (no GPU or torch)"
	elif [ "$rc" -eq 99 ]; then
		result="FAIL: sanitizer errors"; status=1
	elif [ "$rc" -eq 124 ]; then
		result="FAIL: timed out"; status=1
	elif [ -z "$summary" ]; then
		result="FAIL: no sanitizer summary"; status=1
	else
		result="FAIL: the test failed under the sanitizer"; status=1
	fi
	echo "==> $tool: $name: $result (exit $rc) $summary"
	echo "| $name | $tool | $result | $rc | $summary |" >>"$report"
}

if [ ! -x "$cs" ]; then
	echo "compute-sanitizer not found (set TLC_GPU_SANITIZE=0 to skip)" | tee -a "$report"
	exit 1
fi
nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/sanitizer_probe.cu -o /tmp/tlc_sanitizer_probe ||
	{ echo "cannot build tests/gpu/sanitizer_probe.cu" | tee -a "$report"; exit 1; }
for tool in ${TLC_SANITIZER_TOOLS:-memcheck racecheck initcheck}; do
	# initcheck follows initialization through instrumented kernels only: with
	# torch's kernels filtered out, every input torch wrote (torch.randn, a
	# .half()) reads as uninitialized to tlc's kernels (a million false
	# errors on the grouped GEMM of run_bounds.py): it instruments them all
	tfilter=$filter
	[ "$tool" = initcheck ] && tfilter=""
	EXPECT=errors sanitize probe "$tool" "$tfilter" /tmp/tlc_sanitizer_probe "$tool"
	for t in ${TLC_SANITIZER_TESTS:-elementwise gemm attention topk dtype_matrix bounds arith_values}; do
		TLC_GPU_CHECK_ONLY=1 sanitize "$t" "$tool" "$tfilter" python3 "tests/gpu/run_$t.py" --tlc "$tlc" --out "$sdir/$tool"
	done
	for h in gemm_helper wgmma_helper tma_helper; do
		if [ -x "/tmp/tlc_${h}_test" ]; then
			sanitize "$h" "$tool" "" "/tmp/tlc_${h}_test"
		else
			echo "| $h | $tool | not built in this run (TLC_GPU_RUNS=0) | | |" >>"$report"
		fi
	done
done
cat "$report"
exit $status
