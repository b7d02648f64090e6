#!/bin/sh
# readme_sample.sh - the IR sample in README.md is what the command next to
# it prints today.  TAP output.  Environment (make check): TLC, TLC_SRCDIR.
set -u
: "${TLC:?}" "${TLC_SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme_sample.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "1..1"
# the first ```python block after the line that introduces it
awk '/--passes= --emit=ir` prints, for the element-wise example/ { want = 1 }
     want && /^```python$/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$TLC_SRCDIR/README.md" >"$tmp/want"
"$TLC" "$TLC_SRCDIR/examples/elementwise_add.tl" --passes= --emit=ir >"$tmp/got" 2>&1
if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
	echo "ok 1 - README's --passes= --emit=ir sample is what tlc prints"
else
	echo "not ok 1 - README's --passes= --emit=ir sample is what tlc prints"
	diff "$tmp/want" "$tmp/got" | head -20 | sed 's/^/# /'
fi
