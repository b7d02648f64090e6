#!/bin/sh
# Round-trip test (TAP): parse(print(ir)) must print the same text again.
#
# For every example kernel and every lit input that is meant to compile, print
# the IR straight after the frontend (--passes=, no pass at all) and after the
# default pipeline, feed each printed text back to tlc with no passes and
# require byte-identical output.  This is the contract of doc/ir.md: one
# textual syntax for every level, so that any pass can be tested on text.
#
# Per-file controls, as comment lines in the .tl file:
#   # ROUNDTRIP-ARGS: --entry 'matmul(256, 256, 256)' -D M=64
#       flags for the first tlc run, as shell words (the printed IR needs none: its sizes
#       are baked in).  Without this line, --entry/-D/--target flags are taken
#       from the file's first `RUN:` line that calls %tlc, if any.
#   # ROUNDTRIP-SKIP: reason
#       reported as a TAP skip.
# Left out: files whose RUN lines expect failure (`RUN: not`), lit files whose
# RUN lines never give the file itself (%s) to tlc and files under Inputs/
# (fragments that other tests feed to tlc, broken ones included).
#
# Environment (set by `make check`): TLC, TLC_SRCDIR, TLC_PLUGIN_PATH, TLC_CONFIG.

# ---- inputs whose default pipeline is EXPECTED TO FAIL ----
# One line per input: its path in the source tree, `|`, a piece of the error
# text tlc must print (a fixed string).  The frontend round trip of these
# inputs runs as usual; their default-pipeline test instead requires tlc to
# exit 1 with this text.  So the test fails loudly both when the feature lands
# (tlc succeeds: delete the line) and when the input starts failing for another
# reason.  A line naming no input is a failure too.  Never skip silently.
# (none today)
expected_failures() {
	cat <<'EOF'
EOF
}

# expected_failure REL: the error text REL must fail with (empty: none)
expected_failure() {
	expected_failures | awk -F'|' -v r="$1" '$1 == r { sub(/^[^|]*[|]/, ""); print; exit }'
}

TLC=${TLC:-tlc}
TLC_SRCDIR=${TLC_SRCDIR:-$(dirname "$0")/..}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-roundtrip.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# the inputs, in a stable order so test numbers do not move between runs
list="$tmp/list"
{
	for f in "$TLC_SRCDIR"/examples/*.tl; do
		[ -f "$f" ] && echo "$f"
	done
	if [ -d "$TLC_SRCDIR/tests/lit" ]; then
		find "$TLC_SRCDIR/tests/lit" -name '*.tl' ! -path '*/Inputs/*' ! -path '*/Output/*' | LC_ALL=C sort
	fi
} >"$list"

# is_input FILE: true when FILE is a kernel meant to compile: not an
# expected-error test, and not a lit file whose RUN lines only run tlc on
# other files (no `%tlc ... %s` before a pipe)
is_input() {
	grep -q 'RUN:[[:space:]]*not[[:space:]]' "$1" && return 1
	if grep -q 'RUN:' "$1" && ! grep -Eq 'RUN:.*%tlc[^|]*%s([^[:alnum:]_]|$)' "$1"; then
		return 1
	fi
	return 0
}

# two tests per input
count=0
while IFS= read -r f; do
	is_input "$f" || continue
	count=$((count + 2))
done <"$list"
stale=$(expected_failures | while IFS='|' read -r rel want; do
	[ -f "$TLC_SRCDIR/$rel" ] || echo "$rel"
done)
for rel in $stale; do
	count=$((count + 1))
done
echo "1..$count"

n=0

# Print "# " + up to 20 lines of a file, as TAP diagnostics.
diag_file() {
	sed -n '1,20s/^/# /p' "$1"
}

# Extract the flags tlc needs for FILE into the positional-parameter string $args.
file_args() {
	args=$(sed -n 's/^.*ROUNDTRIP-ARGS:[[:space:]]*//p' "$1" | head -n 1)
	[ -n "$args" ] && return 0
	# fall back to the first RUN line that runs tlc: keep --entry, -D and --target
	run=$(sed -n 's/^.*RUN:[[:space:]]*%tlc[[:space:]]//p' "$1" | head -n 1 | sed 's/|.*//')
	[ -z "$run" ] && return 0
	# shellcheck disable=SC2086 # the RUN line is shell words on purpose
	(eval "set -- $run") >/dev/null 2>&1 || return 0
	eval "set -- $run"
	args=
	while [ $# -gt 0 ]; do
		case $1 in
		--entry | -D | --target)
			[ $# -ge 2 ] || break
			args="$args $1 '$2'"
			shift
			;;
		--entry=* | -D?* | --target=*)
			args="$args '$1'"
			;;
		esac
		shift
	done
}

# roundtrip NAME FILE FIRST_FLAGS...: print FILE with FIRST_FLAGS, reparse the
# printed text with no passes, compare.  One TAP line.
roundtrip() {
	name=$1
	file=$2
	shift 2
	n=$((n + 1))
	out1="$tmp/$n.first.tl"
	out2="$tmp/$n.second.tl"
	if ! "$TLC" "$@" --emit=ir "$file" </dev/null >"$out1" 2>"$tmp/err"; then
		echo "not ok $n - $name: tlc $* failed on the source"
		diag_file "$tmp/err"
		return
	fi
	if [ ! -s "$out1" ]; then
		echo "not ok $n - $name: tlc printed no IR"
		return
	fi
	if ! "$TLC" --passes= --emit=ir "$out1" </dev/null >"$out2" 2>"$tmp/err"; then
		echo "not ok $n - $name: tlc could not parse its own output"
		diag_file "$tmp/err"
		return
	fi
	if cmp -s "$out1" "$out2"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name: printed IR changes when parsed again"
		diff -u "$out1" "$out2" >"$tmp/diff"
		diag_file "$tmp/diff"
	fi
}

# expect_failure NAME FILE WANT FLAGS...: `tlc FLAGS --emit=ir FILE` must exit
# 1 and print WANT on stderr.  One TAP line.
expect_failure() {
	name=$1
	file=$2
	want=$3
	shift 3
	n=$((n + 1))
	"$TLC" "$@" --emit=ir "$file" </dev/null >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "not ok $n - $name: expected to fail with '$want' but it compiles now: remove it from expected_failures in tests/roundtrip.sh"
	elif [ "$rc" != 1 ] || ! grep -qF -- "$want" "$tmp/err"; then
		echo "not ok $n - $name: expected exit 1 and '$want', got exit $rc and:"
		diag_file "$tmp/err"
	else
		echo "ok $n - $name: fails as expected ($want)"
	fi
}

for rel in $stale; do
	n=$((n + 1))
	echo "not ok $n - expected_failures names '$rel', which is not an input"
done

while IFS= read -r f; do
	is_input "$f" || continue
	rel=${f#"$TLC_SRCDIR"/}
	skip=$(sed -n 's/^.*ROUNDTRIP-SKIP:[[:space:]]*//p' "$f" | head -n 1)
	if [ -n "$skip" ]; then
		n=$((n + 1))
		echo "ok $n - $rel (frontend) # SKIP $skip"
		n=$((n + 1))
		echo "ok $n - $rel (default pipeline) # SKIP $skip"
		continue
	fi
	file_args "$f"
	if ! (eval "set -- $args") >/dev/null 2>&1; then
		for what in frontend "default pipeline"; do
			n=$((n + 1))
			echo "not ok $n - $rel ($what): ROUNDTRIP-ARGS are not valid shell words (quote them)"
		done
		continue
	fi
	eval "roundtrip \"\$rel (frontend)\" \"\$f\" --passes= $args"
	want=$(expected_failure "$rel")
	if [ -n "$want" ]; then
		eval "expect_failure \"\$rel (default pipeline)\" \"\$f\" \"\$want\" $args"
	else
		eval "roundtrip \"\$rel (default pipeline)\" \"\$f\" $args"
	fi
done <"$list"
