# scaling_lib.sh - sourced by the scaling tests of tests/hardening: TAP
# counters and the timing helpers.  The caller sets $tmp (a scratch folder).
n=0
failed=0

# ms CMD...: the wall time of the fastest of 3 runs in milliseconds, or
# "timeout" when one run takes over 20 s
ms() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		timeout 20 "$@" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc != 0 ]; then
			[ $rc = 124 ] && best=timeout || best="exit $rc: $(head -n 1 "$tmp/err")"
			return
		fi
		t=$((($(date +%s%N) - t0) / 1000000))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
	done
}

# grows NAME SMALL LARGE: the times of a size n and of 8n
grows() {
	n=$((n + 1))
	case "$1$2" in
	*[!0-9]*)
		echo "not ok $n - $3 (n: $1 ms, 8n: $2)"
		failed=$((failed + 1))
		return ;;
	esac
	if [ "$2" -gt 400 ] && [ "$2" -gt $(($1 * 24)) ]; then
		echo "not ok $n - $3 (n: $1 ms, 8n: $2 ms: more than n log n)"
		failed=$((failed + 1))
	else
		echo "ok $n - $3 (n: $1 ms, 8n: $2 ms)"
	fi
}

