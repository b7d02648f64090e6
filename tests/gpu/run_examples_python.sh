#!/bin/bash
# run_examples_python.sh - programs' own main(), unchanged, through the
# tilelang shim: python -m tlc run PROGRAM.  Each main() checks its kernel
# against torch (a program that exits 0 passed).  On a machine with an
# NVIDIA GPU, nvcc and PyTorch.
#
# Usage (from the repository root):
#   bash tests/gpu/run_examples_python.sh TLC OUTDIR [PROGRAM...]
# The programs default to the bundled examples (examples/*.tl); each runs in
# turn (its folder on sys.path) with a limit of TLC_PROGRAM_TIMEOUT seconds
# (default 300).  Writes OUTDIR/examples-python-<date>.md (TLC_REPORT_NAME
# overrides "examples-python"); exit status 0 when every program passed.
set -u
tlc=${1:?usage: run_examples_python.sh TLC OUTDIR}
out=${2:?usage: run_examples_python.sh TLC OUTDIR}
mkdir -p "$out"
export TLC="$tlc" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" PATH="/usr/local/cuda/bin:$PATH"
export TLC_CACHE_DIR="${TLC_CACHE_DIR:-$(mktemp -d)}"
report="$out/${TLC_REPORT_NAME:-examples-python}-$(date +%F).md"
shift 2
[ $# -gt 0 ] || set -- examples/*.tl
{
	echo "# Programs' own main(), through \`python -m tlc run\`"
	echo
	echo "- date: $(date +%F)"
	echo "- device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
	echo "- commit: ${TLC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
	echo "- torch: $(python3 -c 'import torch; print(torch.__version__)')"
	echo
	echo "| program | exit | last lines of its output |"
	echo "|---|---|---|"
} >"$report"
status=0
for f in "$@"; do
	name=$(echo "${f%.*}" | sed 's,^examples/,,; s,[/ ],_,g')
	timeout "${TLC_PROGRAM_TIMEOUT:-300}" python3 -m tlc run "$f" >"$out/$name.python.log" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || status=1
	echo "| $name | $rc | $(tail -n 3 "$out/$name.python.log" | tr '\n|' '; ' | cut -c1-300) |" >>"$report"
	echo "==> $name: exit $rc"
	tail -n 5 "$out/$name.python.log"
done
exit $status
