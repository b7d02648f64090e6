#!/bin/sh
# run.sh - run one libFuzzer harness of tests/fuzz (doc/security.md).
#
# usage: run.sh HARNESS SECONDS [persist]
# environment: FUZZ_OUT (where build.sh put the harnesses), srcdir, and TLC
#   with TLC_PLUGIN_PATH (the normal build's tlc: it prints the IR seeds)
#
# The seeds are made afresh each time: examples/ and tests/lit/ inputs (with
# the #entry= line their RUN or ROUNDTRIP-ARGS lines give), their --emit=ir
# output before and after the default pipeline (fuzz_ir), etc/tlc.ini and
# tests/fuzz/seeds/ini (fuzz_ini).  Without "persist" (make check) the run
# starts from the seeds alone with a fixed random seed and keeps no new
# inputs; with it (make fuzz) new inputs gather in FUZZ_OUT/corpus/HARNESS.
# A crash is saved as FUZZ_OUT/findings/HARNESS-crash-<sha1> (with
# "persist" the run goes on after it); the exit status is 1 when the run
# saved a new one, else libFuzzer's.
set -u
: "${FUZZ_OUT:?}" "${srcdir:?}"
harness=$1 seconds=$2 mode=${3:-check}
seeds=$FUZZ_OUT/seeds/$harness
rm -rf "$seeds"
mkdir -p "$seeds" "$FUZZ_OUT/findings"

# entry FILE: the --entry of its first RUN: %tlc line or its ROUNDTRIP-ARGS
entry() {
	sed -n "s/.*ROUNDTRIP-ARGS:.*--entry[= ]'\([^']*\)'.*/\1/p; s/.*RUN: %tlc.*--entry[= ]'\([^']*\)'.*/\1/p" "$1" |
		head -n 1
}

sources() {
	find "$srcdir/examples" "$srcdir/tests/lit" -name '*.tl' | LC_ALL=C sort
}

case $harness in
fuzz_compile)
	dict=$srcdir/tests/fuzz/tlc.dict
	for f in $(sources); do
		name=$(echo "${f#"$srcdir"/}" | tr '/' '_')
		e=$(entry "$f")
		{ [ -z "$e" ] || echo "#entry=$e"; cat "$f"; } >"$seeds/$name"
	done ;;
fuzz_ir)
	dict=$srcdir/tests/fuzz/tlc.dict
	: "${TLC:?}"
	for f in $(sources); do
		name=$(echo "${f#"$srcdir"/}" | tr '/' '_')
		e=$(entry "$f")
		set -- --config="$srcdir/etc/tlc.ini" --emit=ir
		[ -z "$e" ] || set -- "$@" --entry="$e"
		"$TLC" "$@" --passes= "$f" >"$seeds/$name.ir" 2>/dev/null || rm -f "$seeds/$name.ir"
		"$TLC" "$@" "$f" >"$seeds/$name.lowered.ir" 2>/dev/null || rm -f "$seeds/$name.lowered.ir"
	done ;;
fuzz_ini)
	dict=$srcdir/tests/fuzz/ini.dict
	cp "$srcdir/etc/tlc.ini" "$srcdir"/tests/fuzz/seeds/ini/*.ini "$seeds/" ;;
*)
	echo "run.sh: unknown harness '$harness'" >&2
	exit 2 ;;
esac

if [ "$mode" = persist ]; then
	corpus=$FUZZ_OUT/corpus/$harness
	mkdir -p "$corpus"
	# fork mode goes on after a crash, so that one known bug does not end
	# the campaign: each new crash is still saved under findings/
	set -- -seed=0 -fork="${FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
else
	corpus=$(mktemp -d "${TMPDIR:-/tmp}/tlc-fuzz.XXXXXX")
	trap 'rm -rf "$corpus"' EXIT
	set -- -seed=1
fi
before=$(ls "$FUZZ_OUT/findings" | grep -c "^$harness-")
# -close_fd_mask=1: the harnesses print nothing worth seeing on stdout
"$FUZZ_OUT/$harness" "$@" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-max_len=8192 -dict="$dict" -artifact_prefix="$FUZZ_OUT/findings/$harness-" \
	-print_final_stats=1 -close_fd_mask=1 "$corpus" "$seeds"
status=$?
after=$(ls "$FUZZ_OUT/findings" | grep -c "^$harness-")
if [ "$after" -gt "$before" ]; then
	echo "run.sh: $harness: $((after - before)) new findings in $FUZZ_OUT/findings" >&2
	exit 1
fi
exit $status
