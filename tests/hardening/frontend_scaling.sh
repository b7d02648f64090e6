#!/bin/sh
# frontend_scaling.sh - TAP tests that the frontend's time and memory grow linearly
# with its input (hardening issue, class 3): each input of frontend_gen.sh is run at
# size n and 8n, the fastest of 3 runs each, and
#
#   time:    t(8n) < 20 * t(n) + 0.25 s  (n log n passes, n^2 does not:
#            the constants are generous so that a loaded machine passes)
#   memory:  peak RSS(8n) - RSS(n) < K bytes per input byte between them
#            (K = 24 for host code, 32 for a kernel body, 64 for an elif
#            chain, where the frontend took 75, 120 and 90 before the fix,
#            and 200 for dense host code under __main__); only where
#            /usr/bin/time measures it and tlc is not built with ASan, whose
#            shadow memory and quarantine would be measured instead
#
# Inputs: elif chains of compile-time conditions (module level and kernel),
# a file of host functions under a long `if __name__ == "__main__":` block,
# and a long kernel body.
#
# Run by `make check` with TLC and TLC_SRCDIR set.
: "${TLC:?}" "${TLC_SRCDIR:?}"
gen="$TLC_SRCDIR/tests/hardening/frontend_gen.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
n=0
failed=0

now() { date +%s.%N; }
case $(now) in
*N | *.) echo "1..0 # SKIP date +%N is not supported here"; exit 0 ;;
esac

measure_rss=yes
[ -x /usr/bin/time ] || measure_rss="no /usr/bin/time"
for lib in "$(dirname "$TLC")"/.libs/libtlc.so*; do
	[ -f "$lib" ] && grep -q __asan_init "$lib" 2>/dev/null && measure_rss="an ASan build"
done

# run FILE: the fastest of 3 runs into $best (seconds) and the peak RSS of
# the runs into $rss (KiB; 0 when not measured).  Any exit status but 1
# (these inputs end with an error on purpose, or 0) fails the test.
run() {
	best= rss=0
	for i in 1 2 3; do
		t0=$(now)
		if [ "$measure_rss" = yes ]; then
			/usr/bin/time -f %M -o rss.txt "$TLC" --passes= --emit=ir "$1" >/dev/null 2>err.txt
		else
			"$TLC" --passes= --emit=ir "$1" >/dev/null 2>err.txt
		fi
		rc=$?
		t1=$(now)
		if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
			echo "#   $1: exit status $rc: $(head -n 1 err.txt)"
			best=999
			return
		fi
		best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN { t = b - a; print (m == "" || t < m) ? t : m }')
		[ "$measure_rss" = yes ] && rss=$(awk -v r="$(tail -n 1 rss.txt)" -v m="$rss" 'BEGIN { print (r > m ? r : m) }')
	done
}

# scales NAME KIND N K: KIND of frontend_gen.sh at N and 8N
scales() {
	name=$1 kind=$2 size=$3 per_byte=$4
	sh "$gen" "$kind" "$size" >small.tl && sh "$gen" "$kind" $((8 * size)) >big.tl || exit 1
	run small.tl
	t_small=$best rss_small=$rss
	run big.tl
	t_big=$best rss_big=$rss
	n=$((n + 1))
	if awk -v s="$t_small" -v b="$t_big" 'BEGIN { exit !(b < 20 * s + 0.25) }'; then
		echo "ok $n - time of $name: ${t_small}s, 8x: ${t_big}s"
	else
		echo "not ok $n - time of $name: ${t_small}s, 8x: ${t_big}s (more than 20x + 0.25s)"
		failed=$((failed + 1))
	fi
	n=$((n + 1))
	if [ "$measure_rss" != yes ]; then
		echo "ok $n # SKIP memory of $name: $measure_rss"
		return
	fi
	bytes=$(($(wc -c <big.tl) - $(wc -c <small.tl)))
	if awk -v s="$rss_small" -v b="$rss_big" -v d="$bytes" -v k="$per_byte" 'BEGIN { exit !((b - s) * 1024 < k * d) }'; then
		echo "ok $n - memory of $name: ${rss_small} KiB, 8x: ${rss_big} KiB (< $per_byte bytes per input byte)"
	else
		echo "not ok $n - memory of $name: ${rss_small} KiB, 8x: ${rss_big} KiB for $bytes more bytes of input (over $per_byte per byte)"
		failed=$((failed + 1))
	fi
}

scales "a module-level elif chain" elif-host 6000 64
scales "an elif chain in a kernel" elif-kernel 6000 64
scales "host code (defs, __main__)" host 300 24
scales "a kernel body" kernel 2000 32

echo "1..$n"
[ "$failed" = 0 ]
