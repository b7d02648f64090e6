#!/bin/sh
# dtype_matrix.sh - TAP: the dtype/operator matrix (tests/dtype_matrix/README.md).
# Every operation of doc/language.md "Arithmetic" on every pair of dtypes:
# compiled for cuda-sm90 by nvcc and for hip-gfx90a by hipcc, and run by
# tlc-sim at both levels against model.py, a plain-Python model of the
# definition.  Run by `make check` with TLC, TLC_SRCDIR, NVCC and
# TLC_TEST_HIPCC (configure's; empty: that compiler's part is skipped).
# TLC_MATRIX_DEVCC=0 skips nvcc and hipcc (the sanitizer build: their input
# is the same); TLC_MATRIX_JOBS=N compiles N files at a time.  The kernels,
# inputs and outputs stay in tests/dtype_matrix/work of the build tree.
: "${TLC:?}" "${TLC_SRCDIR:?}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 not found"
	exit 0
fi
work=tests/dtype_matrix/work
rm -rf "$work"
mkdir -p "$work"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
exec python3 "$TLC_SRCDIR/tests/dtype_matrix/check_matrix.py" --tlc "$TLC" --nvcc "${NVCC:-}" \
	--hipcc "${TLC_TEST_HIPCC:-}" --workdir "$work"
