#!/bin/sh
# python_examples.sh - every bundled example's kernels built through the
# tilelang shim, without a GPU: tests/python/test_examples.py.  TAP output.
# Environment (make check): TLC, TLC_SRCDIR, NVCC.
set -u
: "${TLC:?}" "${TLC_SRCDIR:?}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - python3 is needed to test python/"
	exit 0
fi
exec python3 "$TLC_SRCDIR/tests/python/test_examples.py"
