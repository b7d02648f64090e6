#!/bin/sh
# configure_clean.sh - configure ends clean in a build tree that already has
# a core/ folder (libtlc's objects: any re-run of configure there): no
# "rm: cannot remove 'core': Is a directory" from autoconf's clean-ups after
# each test and at exit, and no confdefs.h left behind.  TAP output.
# Environment (set by make check): TLC_SRCDIR.
set -u
: "${TLC_SRCDIR:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/configure_clean.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/core"
echo "1..3"
if (cd "$tmp" && "$TLC_SRCDIR/configure" -q --without-cuda --without-hip --disable-fuzzers >out 2>&1); then
	echo "ok 1 - configure succeeds"
else
	echo "not ok 1 - configure succeeds"; sed 's/^/# /' "$tmp/out" | tail -20
fi
if grep -q "cannot remove" "$tmp/out"; then
	echo "not ok 2 - nothing about removing core"; grep "cannot remove" "$tmp/out" | head -3 | sed 's/^/# /'
else
	echo "ok 2 - nothing about removing core"
fi
if [ -e "$tmp/confdefs.h" ]; then
	echo "not ok 3 - no confdefs.h left behind"
else
	echo "ok 3 - no confdefs.h left behind"
fi
