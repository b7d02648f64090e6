#!/bin/sh
# frontend_gen.sh KIND N - write a generated TileLang source of size N to stdout: the
# inputs of frontend_limits.sh and frontend_scaling.sh, which are too big to
# keep in the tree.  POSIX sh and awk only.
#
#   elif-host N    module-level if/elif chain of N branches, compile-time
#                  conditions; the last branch (the one taken) reads an
#                  undefined name, so a run that walks the whole chain ends
#                  with an error on line 2*N + 1
#   elif-kernel N  the same chain inside a kernel (compile-time conditions):
#                  the error is on line 2*N + 7
#   elif-runtime N a chain of N branches on a block index (run-time conditions)
#   host N         a kernel and N host functions (~370 bytes each) under a
#                  big `if __name__ == "__main__":` block
#   kernel N       a kernel whose body is N stores (~57 bytes each)
#   parens N       N nested parentheses;  unary N: N unary minuses
#   lists N        N nested list displays
#   sum N          1 + 1 + ... (N terms), then an assert that the sum is N + 1
#   attrs N        torch.a.a.a... (N attributes), then an undefined name
#   calls N        f()()()... (N calls), then an undefined name
#   ksum N         bx + bx + ... (N terms) stored in a kernel
#   comp N         a list comprehension with N for clauses
set -e
kind=$1
n=$2

kernel_head() {
	cat <<'EOF'
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), B: T.Tensor((1024,), "float32")):
    with T.Kernel(8, threads=128) as bx:
EOF
}

case $kind in
elif-host)
	echo "k = $((n - 1))"
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "%s k == %d:\n    x = %s\n", i ? "elif" : "if", i, i == n - 1 ? "not_defined" : i
		print "else:\n    x = -1"
	}'
	;;
elif-kernel)
	kernel_head
	echo "        k = $((n - 1))"
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "        %s k == %d:\n            A[%d] = %s\n", i ? "elif" : "if", i, i % 128,
			       i == n - 1 ? "not_defined" : "B[0]"
		print "        else:\n            A[1] = B[2]"
	}'
	;;
elif-runtime)
	kernel_head
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "        %s bx == %d:\n            A[%d] = B[0]\n", i ? "elif" : "if", i, i % 128
		print "        else:\n            A[1] = B[2]"
	}'
	;;
host)
	echo "import torch"
	kernel_head
	echo "        A[bx] = B[bx] + 1.0"
	awk -v n="$n" 'BEGIN {
		print ""
		for (i = 0; i < n; i++) {
			printf "\n\ndef host_%d(a, b=%d):\n", i, i
			printf "    x = torch.randn(a, b, device=\"cuda\", dtype=torch.float16)\n"
			printf "    y = (x @ x.T).float() * %d + b // 3\n", i
			printf "    for k in range(10):\n"
			printf "        if k %% 2 == 0:\n"
			printf "            y = y + k * 2\n"
			printf "        else:\n"
			printf "            y = y - [1, 2, 3][k %% 3]\n"
			printf "    return {\"sum\": y.sum().item(), \"name\": \"host_%d\"}\n", i
		}
		print "\n\nif __name__ == \"__main__\":"
		for (i = 0; i < n; i++)
			printf "    r%d = host_%d(%d, b=%d)\n    print(r%d[\"sum\"], flush=True)\n", i, i, i, i + 1, i
	}'
	;;
kernel)
	kernel_head
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "        B[bx * 128 + %d] = A[bx * 128 + %d] * 2.0 + B[%d]\n", i % 128, (i * 7) % 128, i % 1000
	}'
	;;
parens | unary | lists)
	awk -v n="$n" -v kind="$kind" 'BEGIN {
		left = kind == "parens" ? "(" : kind == "unary" ? "-" : "["
		right = kind == "parens" ? ")" : kind == "unary" ? "" : "]"
		printf "x = "
		for (i = 0; i < n; i++)
			printf "%s", left
		printf "1"
		for (i = 0; i < n; i++)
			printf "%s", right
		printf "\n"
	}'
	;;
sum)
	awk -v n="$n" 'BEGIN {
		printf "x = 1"
		for (i = 1; i < n; i++)
			printf " + 1"
		printf "\nassert x == %d, x\n", n + 1
	}'
	;;
attrs | calls)
	[ "$kind" = calls ] && printf 'def f():\n    return f\n\n\n'
	awk -v n="$n" -v kind="$kind" 'BEGIN {
		printf "%s", kind == "attrs" ? "import torch\nx = torch" : "x = f"
		for (i = 0; i < n; i++)
			printf "%s", kind == "attrs" ? ".a" : "()"
		printf "\ny = not_defined\n"
	}'
	;;
ksum)
	kernel_head
	awk -v n="$n" 'BEGIN {
		printf "        A[0] = bx"
		for (i = 1; i < n; i++)
			printf " + bx"
		printf "\n"
	}'
	;;
comp)
	awk -v n="$n" 'BEGIN {
		printf "x = [1"
		for (i = 0; i < n; i++)
			printf " for a%d in [1]", i
		printf "]\n"
	}'
	;;
*)
	echo "frontend_gen.sh: unknown kind '$kind'" >&2
	exit 2
	;;
esac
