#!/bin/bash
# Print one line "N passed, N failed" for a scripts/test.sh run and exit non-zero
# when anything failed.  Usage: test-summary.sh LOGDIR
#
# Tests are counted from the automake test-suite summaries ("# PASS:" ...) and
# lit's closing summary ("  Passed: N" ...) of every check*.log; a build step
# that failed (configure, make, install, installcheck, distcheck) counts as one
# failure, and so does a check step that failed without any failing test in
# its log (a test program that did not compile, lit that did not start).
set -uo pipefail
logs=${1:?usage: test-summary.sh LOGDIR}

passed=0
failed=0

# count_log LOG: prints "PASSED FAILED" for one make-check log
count_log() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | awk '
		/^# (PASS|XFAIL): *[0-9]+$/ { p += $NF }
		/^# (FAIL|ERROR|XPASS): *[0-9]+$/ { f += $NF }
		/^  (Passed|Passed With Retry|Expectedly Failed) *: *[0-9]+$/ { p += $NF }
		/^  (Failed|Unresolved|Timed Out|Unexpectedly Passed) *: *[0-9]+$/ { f += $NF }
		END { printf "%d %d\n", p, f }'
}

for log in "$logs"/check*.log; do
	[ -f "$log" ] || continue
	read -r p f < <(count_log "$log")
	passed=$((passed + p))
	failed=$((failed + f))
done

if [ -f "$logs/steps" ]; then
	while read -r result name log; do
		[ "$result" = FAIL ] || continue
		case $name in
		check*)
			read -r _ f < <(count_log "$logs/$log")
			[ "$f" -gt 0 ] || failed=$((failed + 1))
			;;
		*) failed=$((failed + 1)) ;;
		esac
	done <"$logs/steps"
else
	# no step was recorded at all: the run never started
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
