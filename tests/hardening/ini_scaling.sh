#!/bin/sh
# ini_scaling.sh - TAP: reading an INI file takes time about linear in its
# size (issue 12: 100,000 keys in one section took 11 s, 100,000 pipeline
# sections 35 s: a linear search per key and per section; 50,000 lines in
# error 8 s: every error scans the file for its line, so only the first 100
# are shown).
#
# Each case runs tlc on a generated file of n and of 8n entries (the fastest
# of 3 runs of each) and fails when the time grows faster than about n log n:
# more than 24 times for 8 times the entries (n log n gives about 10, a
# quadratic search 64), and only when the large run takes over 0.4 s, so
# that the noise of short runs cannot fail it.
# Run by `make check` with TLC, TLC_SRCDIR and TLC_PLUGIN_PATH set.
: "${TLC:?}" "${TLC_SRCDIR:?}" "${TLC_PLUGIN_PATH:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-ini-scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$TLC_SRCDIR/tests/hardening/scaling_lib.sh"

# keys FILE COUNT: the default configuration plus COUNT keys of a target
keys() {
	{
		cat "$TLC_SRCDIR/etc/tlc.ini"
		# a target's section: its keys are kept but not checked (a pass's
		# keys must be options it declares)
		echo "[target.cuda-sm90]"
		awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "key%d = %d\n", i, i }'
	} >"$1"
}

# pipelines FILE COUNT: the default configuration plus COUNT pipeline sections
pipelines() {
	{
		cat "$TLC_SRCDIR/etc/tlc.ini"
		awk -v n="$2" 'BEGIN {
			for (i = 0; i < n; i++) printf "[pipeline.target%d]\npass = simplify\npass = simplify\n", i
		}'
	} >"$1"
}

count=20000
keys "$tmp/small.ini" $count
keys "$tmp/large.ini" $((count * 8))
ms "$TLC" --config="$tmp/small.ini" --list-passes
small=$best
ms "$TLC" --config="$tmp/large.ini" --list-passes
grows "$small" "$best" "$count and $((count * 8)) keys in one section"

count=10000
pipelines "$tmp/small.ini" $count
pipelines "$tmp/large.ini" $((count * 8))
ms "$TLC" --config="$tmp/small.ini" --list-passes
small=$best
ms "$TLC" --config="$tmp/large.ini" --list-passes
grows "$small" "$best" "$count and $((count * 8)) pipeline sections"

# bad FILE COUNT: COUNT lines that are not `key = value`: each is an error,
# and each error shows its line (found by a scan from the start of the file)
bad() {
	awk -v n="$2" 'BEGIN { print "[tlc]"; for (i = 0; i < n; i++) printf "not a key %d\n", i }' >"$1"
}

count=5000
bad "$tmp/small.ini" $count
bad "$tmp/large.ini" $((count * 8))
# ms wants success: the status of a configuration with errors is 1
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
ms sh -c '"$0" --config="$1" --list-passes; [ $? = 1 ]' "$TLC" "$tmp/small.ini"
small=$best
# shellcheck disable=SC2016
ms sh -c '"$0" --config="$1" --list-passes; [ $? = 1 ]' "$TLC" "$tmp/large.ini"
grows "$small" "$best" "$count and $((count * 8)) lines in error"
"$TLC" --config="$tmp/large.ini" --list-passes >/dev/null 2>"$tmp/err"
n=$((n + 1))
errors=$(grep -c ': error: ' "$tmp/err")
last=$(tail -n 1 "$tmp/err")
if [ "$errors" = 100 ] && [ "$last" = "$tmp/large.ini: note: $((count * 8 - 100)) more errors not shown" ]; then
	echo "ok $n - the first 100 errors are shown, the others counted"
else
	echo "not ok $n - the first 100 errors are shown, the others counted"
	echo "#   $errors errors shown, last line '$last'"
	failed=$((failed + 1))
fi

echo "1..$n"
[ "$failed" = 0 ]
