#!/bin/bash
# Build tlc and run every test that needs no GPU, twice: a normal -Werror build
# (make check, make install, make installcheck) and an AddressSanitizer +
# UndefinedBehaviorSanitizer build (make check), then make distcheck.
# Ends with one line "N passed, N failed" and a non-zero exit status when
# anything failed.
#
# Usage: bash scripts/test.sh        (from anywhere; needs scripts/setup.sh's packages)
# Environment:
#   JOBS=N                 parallel make jobs (default 2)
#   TLC_LOGDIR=DIR         where the logs go (default build/logs)
#   TLC_SKIP_DISTCHECK=1   leave out make distcheck (the slowest step)
#   TLC_NO_SUMMARY=1       do not print the summary line (.ci/run prints its own)
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
jobs=${JOBS:-2}
logs=${TLC_LOGDIR:-$top/build/logs}
rm -rf "$logs"
mkdir -p "$logs"
: >"$logs/steps"

# nvcc is not on PATH on a stock image; configure also looks in /usr/local/cuda/bin
if [ -d /usr/local/cuda/bin ]; then
	export PATH="/usr/local/cuda/bin:$PATH"
fi

# step NAME LOG CMD...: run CMD, show its output and append it to LOG; record
# "ok|FAIL NAME LOG" in $logs/steps (scripts/test-summary.sh reads both).
step() {
	local name=$1 log=$2
	shift 2
	echo "==> $name: $*"
	if "$@" 2>&1 | tee -a "$logs/$log"; then
		echo "ok $name $log" >>"$logs/steps"
		return 0
	fi
	echo "FAIL $name $log" >>"$logs/steps"
	echo "==> FAILED: $name (log: $logs/$log)"
	return 1
}

# show_failures DIR: the logs of the tests that failed, on the terminal only
# (test-suite.log repeats the summary block, which must not reach the counted logs)
show_failures() {
	if [ -f "$1/test-suite.log" ]; then
		echo "==> $1/test-suite.log"
		cat "$1/test-suite.log"
	fi
	return 0
}

summary() {
	if [ "${TLC_NO_SUMMARY:-0}" = 1 ]; then
		bash "$top/scripts/test-summary.sh" "$logs" >/dev/null
	else
		bash "$top/scripts/test-summary.sh" "$logs"
	fi
}

step autogen autogen.log ./autogen.sh || { summary; exit 1; }

# ---- normal build: warnings are errors ----
normal_ok=0
mkdir -p build
if (cd build && step configure build.log ../configure --enable-werror --prefix="$top/build/_inst" &&
	step make build.log make -j"$jobs"); then
	normal_ok=1
	(cd build && step check check.log make -k -j"$jobs" check) || show_failures build
	(cd build && step install install.log make install &&
		step installcheck install.log make installcheck)
fi

# ---- sanitizer build: memory errors, leaks and undefined behaviour abort the test ----
san_cflags="-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
mkdir -p build-asan
(
	cd build-asan || exit 1
	export ASAN_OPTIONS=detect_leaks=1
	export UBSAN_OPTIONS=print_stacktrace=1
	# the dtype matrix's nvcc and hipcc compile what the normal build's did
	# (tlc's output is the same): here only tlc and tlc-sim run it
	export TLC_MATRIX_DEVCC=0
	step configure-asan build-asan.log ../configure CFLAGS="$san_cflags" \
		LDFLAGS="-fsanitize=address,undefined" &&
		step make-asan build-asan.log make -j"$jobs" &&
		step check-asan check-asan.log make -k -j"$jobs" check
) || show_failures build-asan

# ---- the release tarball builds and passes its own tests ----
if [ "${TLC_SKIP_DISTCHECK:-0}" = 1 ]; then
	echo "==> distcheck skipped (TLC_SKIP_DISTCHECK=1)"
elif [ "$normal_ok" = 1 ]; then
	(cd build && step distcheck distcheck.log make -j"$jobs" distcheck)
else
	echo "==> distcheck skipped: the normal build failed"
fi

summary
