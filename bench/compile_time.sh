#!/bin/bash
# Compile time of tlc on the example kernels, as whole-process runs.
#
# For each examples/*.tl, three commands, each timed RUNS times after WARMUP
# untimed runs, reporting the median wall time:
#   parse      tlc --passes= --emit=ir FILE            (frontend + printer)
#   passes     tlc --emit=ir FILE                      (+ the default pipeline)
#   cuda       tlc --emit=cu -o TMP/k.cu FILE          (+ CUDA emission and writing the
#                                                       .cu and its launcher header)
# Output goes to the terminal and to a Markdown file (date, machine, commit).
#
# Usage: bash bench/compile_time.sh [-n RUNS] [-o OUT.md] [TLC]
#   TLC defaults to build/_inst/bin/tlc (an installed binary: the libtool
#   wrapper build/tlc would add a shell start-up to every run), else build/tlc.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=21
warmup=3
out="$top/bench/results/compile-time.md"
while getopts "n:o:" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-n RUNS] [-o OUT.md] [TLC]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

tlc=${1:-}
if [ -z "$tlc" ]; then
	if [ -x "$top/build/_inst/bin/tlc" ]; then
		tlc="$top/build/_inst/bin/tlc"
	else
		tlc="$top/build/tlc"
	fi
fi
[ -x "$tlc" ] || { echo "no tlc at $tlc: build it first (bash scripts/setup.sh)" >&2; exit 1; }

# median_ms CMD...: run CMD warmup+runs times, print the median wall time in ms
median_ms() {
	local i t0 t1
	for ((i = 0; i < warmup; i++)); do
		"$@" >/dev/null 2>&1 </dev/null || return 1
	done
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 </dev/null || return 1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f\n", m / 1000 }'
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit (with uncommitted changes)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
table="$tmp/table"
{
	echo "| example | parse (ms) | + passes (ms) | + CUDA emission (ms) |"
	echo "| --- | ---: | ---: | ---: |"
} >"$table"

for f in "$top"/examples/*.tl; do
	name=$(basename "$f")
	p=$(median_ms "$tlc" --passes= --emit=ir "$f") || p="error"
	i=$(median_ms "$tlc" --emit=ir "$f") || i="error"
	c=$(median_ms "$tlc" --emit=cu -o "$tmp/k.cu" "$f") || c="error"
	echo "| $name | $p | $i | $c |" >>"$table"
	echo "$name: parse $p ms, passes $i ms, cuda $c ms" >&2
done

mkdir -p "$(dirname "$out")"
{
	echo "# tlc compile time"
	echo
	echo "Whole-process wall time of \`tlc\` on each example with no flags (default sizes,"
	echo "default target), median of $runs runs after $warmup warm-up runs; measured with"
	echo "\`bench/compile_time.sh\` (a loop around \`date +%s%N\`)."
	echo
	echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "- machine: $(nproc) CPUs, ${cpu:-unknown CPU}, $(uname -sr)"
	echo "- commit: $commit"
	echo "- binary: ${tlc#"$top"/}"
	echo
	cat "$table"
} >"$out"
echo "wrote $out" >&2
cat "$out"
