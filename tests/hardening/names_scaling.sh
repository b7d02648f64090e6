#!/bin/sh
# names_scaling.sh - TAP: the printer's fresh names (v, v_1, v_2, ...) are
# the ones the rule gives, and finding them takes time about linear in the
# number of names (issue 12: 10,000 rebinds of one variable took over 120 s,
# probing v_1, v_2, ... over all names for each new one: cubic).
#
# The scaling case prints kernels of n and 8n rebinds (the fastest of 3 runs
# of each) and fails when the time grows faster than about n log n: more than
# 24 times for 8 times the rebinds, and only when the large run takes over
# 0.4 s, so that the noise of short runs cannot fail it.
# Run by `make check` with TLC and TLC_SRCDIR set.
: "${TLC:?}" "${TLC_SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-names-scaling.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$TLC_SRCDIR/tests/hardening/scaling_lib.sh"

# same NAME FILE: FILE (the expected text) equals $tmp/out
same() {
	n=$((n + 1))
	if cmp -s "$2" "$tmp/out"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		diff "$2" "$tmp/out" | sed 's/^/#   /' | head -n 12
		failed=$((failed + 1))
	fi
}

header() {
	cat <<'EOF'
import tilelang.language as T


@T.prim_func
def k(A: T.Tensor((128,), "int32")):
    with T.Kernel(1, threads=128) as bx:
EOF
}

# ---- the rule: a taken name gets the smallest free suffix, v_1, v_2, ...,
# skipping suffixes another variable already has ----
{
	header
	echo "        v_2 = A[2]"
	echo "        v = A[0]"
	echo "        v = v + 1"
	echo "        v = v + 1"
	echo "        v = v + 1"
	echo "        T = A[3]"
	echo "        A[1] = v + v_2 + T"
} >"$tmp/mix.tl"
{
	printf '# tlc IR\n'
	header
	echo "        v_2 = A[2]"
	echo "        v = A[0]"
	echo "        v_1 = v + 1"
	echo "        v_3 = v_1 + 1"
	echo "        v_4 = v_3 + 1"
	echo "        T_1 = A[3]"
	echo "        A[1] = v_4 + v_2 + T_1"
} >"$tmp/mix.want"
"$TLC" --config=/dev/null --passes= --emit=ir "$tmp/mix.tl" >"$tmp/out" 2>&1
same "fresh names skip taken suffixes and reserved names" "$tmp/mix.want"

# rebinds FILE COUNT: a kernel that rebinds v COUNT times
rebinds() {
	{
		header
		echo "        v = A[0]"
		awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print "        v = v * 3 + 1" }'
		echo "        A[1] = v"
	} >"$1"
}

count=2500
rebinds "$tmp/small.tl" $count
rebinds "$tmp/large.tl" $((count * 8))
"$TLC" --config=/dev/null --passes= --emit=ir "$tmp/small.tl" 2>&1 | tail -n 2 >"$tmp/out"
printf '        v_%d = v_%d * 3 + 1\n        A[1] = v_%d\n' $count $((count - 1)) $count >"$tmp/tail.want"
same "the last of $count rebinds is v_$count" "$tmp/tail.want"
ms "$TLC" --config=/dev/null --passes= --emit=ir "$tmp/small.tl"
small=$best
ms "$TLC" --config=/dev/null --passes= --emit=ir "$tmp/large.tl"
grows "$small" "$best" "$count and $((count * 8)) rebinds of one variable"

echo "1..$n"
[ "$failed" = 0 ]
