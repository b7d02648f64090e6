#!/bin/sh
# fuzz_check.sh - TAP, run by `make check` when configure found a compiler
# with libFuzzer: each harness of tests/fuzz replays the inputs that once
# crashed it (tests/fuzz/regressions/HARNESS/), then fuzzes for a bounded
# time from the seeds with a fixed random seed (FUZZ_CHECK_SECONDS each, 18 by
# default: about a minute for the three).  `make fuzz` runs them longer.
: "${TLC:?}" "${TLC_SRCDIR:?}"
FUZZ_OUT=$(dirname "$TLC")/tests/fuzz/build
srcdir=$TLC_SRCDIR
export FUZZ_OUT srcdir
seconds=${FUZZ_CHECK_SECONDS:-18}
log=$FUZZ_OUT/check.log
n=0
failed=0
: >"$log"
for h in fuzz_compile fuzz_ini fuzz_ir; do
	regressions=$srcdir/tests/fuzz/regressions/$h
	if [ -d "$regressions" ] && [ -n "$(ls "$regressions")" ]; then
		n=$((n + 1))
		if "$FUZZ_OUT/$h" "$regressions"/* >>"$log" 2>&1; then
			echo "ok $n - $h replays the inputs that once crashed it ($(ls "$regressions" | wc -l | tr -d ' '))"
		else
			echo "not ok $n - $h crashes on an input of $regressions (log: $log)"
			failed=$((failed + 1))
		fi
	fi
	n=$((n + 1))
	if sh "$srcdir/tests/fuzz/run.sh" "$h" "$seconds" >"$FUZZ_OUT/$h.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$FUZZ_OUT/$h.log")
		echo "ok $n - $h: ${runs:-?} inputs in ${seconds} s, no finding"
	else
		echo "not ok $n - $h found a bug (log: $FUZZ_OUT/$h.log)"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz:|artifact_prefix|Test unit written)' "$FUZZ_OUT/$h.log" |
			head -n 8 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" = 0 ]
