#!/bin/sh
# frontend_limits.sh - TAP tests of the frontend's limits (hardening issue): inputs
# built by frontend_gen.sh or written here, each aimed at a crash or a blow-up that
# the frontend had, must end with exit status 1 and the pinned first
# diagnostic "file:line:col: error: ...": never a signal, never exit 0.
#
#   1. compile-time values over their size budget ([0] * k with n * k
#      overflowing, range() lengths that overflow, string doubling, ...)
#   2. deep recursion: 100,000-branch elif chains (walked in a loop: the
#      error of their last branch proves it), 100,000 nested brackets and
#      unary operators, 100,000-term sums and attribute/call chains
#   4. messages: integer overflow says so (abs(-2**63))
# (class 3, memory and time that grow with the input: frontend_scaling.sh)
#
# Run by `make check` with TLC, TLC_SRCDIR and TLC_PLUGIN_PATH set.
: "${TLC:?}" "${TLC_SRCDIR:?}"
gen="$TLC_SRCDIR/tests/hardening/frontend_gen.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-limits.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
n=0
failed=0

# expect NAME FILE PATTERN: `tlc FILE` exits 1 and its first line of stderr
# matches the extended regular expression PATTERN (anchored at both ends)
expect() {
	name=$1 file=$2 want=$3
	"$TLC" --passes= --emit=ir "$file" >out.txt 2>err.txt
	rc=$?
	got=$(head -n 1 err.txt)
	n=$((n + 1))
	if [ "$rc" = 1 ] && printf '%s\n' "$got" | grep -Eq "^$want\$"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "#   exit status: got $rc, expected 1 (over 128: a signal)"
		echo "#   stderr:      got '$got'"
		echo "#                expected /^$want\$/"
		failed=$((failed + 1))
	fi
}

# gen KIND N: frontend_gen.sh output in gen.tl
gen() {
	sh "$gen" "$1" "$2" >gen.tl || exit 1
}

limit="--limit items=N raises it"

# ---- 1. compile-time values have a size budget, checked before allocating ----
printf 'x = [0, 0, 0] * 3074457345618258603\n' >t.tl
expect "[0, 0, 0] * k with n * k over 2^63" t.tl \
	"t\.tl:1:5: error: list of more than 2\^63 - 1 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'x = (0,) * 1000001\n' >t.tl
expect "a tuple one item over the budget" t.tl \
	"t\.tl:1:5: error: tuple of 1000001 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'm = -2**62 - 2**62\nx = list(range(m, 2**62 + (2**62 - 1)))\n' >t.tl
expect "range() whose length overflows int64" t.tl \
	"t\.tl:2:5: error: range of more than 2\^63 - 1 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'x = [i for i in range(0, 2**62 + (2**62 - 1), 3)]\n' >t.tl
expect "a comprehension over a range too long" t.tl \
	"t\.tl:1:17: error: range of 3074457345618258603 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'm = -2**62 - 2**62\nn = len(range(m, 2**62 + (2**62 - 1), 3))\nassert n == 6148914691236517205, n\nx = [0] * (n // 3)\n' >t.tl
expect "len() of a range whose stop - start overflows is exact, and counted, not built" t.tl \
	"t\.tl:4:5: error: list of 2049638230412172401 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'm = -2**62 - 2**62\nn = len(range(m, 2**62 + (2**62 - 1)))\n' >t.tl
expect "len() of a range of 2^64 - 1 items overflows" t.tl \
	"t\.tl:2:5: error: integer overflow in compile-time arithmetic \(integers are 64-bit\)"
printf 's = "ab"\nfor i in range(60):\n    s = s + s\n' >t.tl
expect "string + doubling 60 times" t.tl \
	"t\.tl:3:9: error: string of 33554432 bytes is too long for compile-time evaluation \(the limit is 16777216 bytes: --limit string-bytes=N raises it\)"
printf 'a = [1]\nfor i in range(40):\n    a.extend(a)\n' >t.tl
expect "list.extend of itself, doubling" t.tl \
	"t\.tl:3:5: error: list of 1048576 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'a = [1]\nfor i in range(40):\n    a += a\n' >t.tl
expect "list += itself, doubling" t.tl \
	"t\.tl:3:5: error: list of 1048576 items is too long for compile-time evaluation \(the limit is 1000000 items: $limit\)"
printf 'x = [0] * 1000000\nfor i in range(1000000):\n    y = 5 in x\n' >t.tl
expect "work over big lists is counted: 'in' a million times" t.tl \
	"t\.tl:3:9: error: compile-time evaluation takes too many steps \(operations went through more than 100000000 items: --limit work=N raises it\)"
printf 'a = []\na.append(a)\nb = []\nb.append(b)\nc = a == b\n' >t.tl
expect "lists that hold themselves compared" t.tl \
	"t\.tl:5:10: error: values nest too deeply to compare \(more than 200 levels of lists and tuples; a list that holds itself\?\)"

# ---- 2. recursion: iterative elif chains, nesting limits ----
gen elif-host 100000
expect "100,000-branch elif chain at module level: walked to its end" gen.tl \
	"gen\.tl:200001:9: error: undefined name 'not_defined'"
gen elif-kernel 100000
expect "100,000-branch elif chain in a kernel, compile-time conditions" gen.tl \
	"gen\.tl:200007:[0-9]+: error: undefined name 'not_defined'"
gen elif-runtime 100000
expect "100,000-branch elif chain on a run-time condition: IR nesting limit" gen.tl \
	"gen\.tl:199:9: error: kernel statements nest too deeply: more than 96 levels of if, for and with \(each elif of a condition known only at run time nests one more\)"
gen parens 100000
expect "100,000 nested parentheses" gen.tl "gen\.tl:1:205: error: too deeply nested"
gen unary 100000
expect "100,000 unary minuses" gen.tl "gen\.tl:1:205: error: too deeply nested"
gen lists 100000
expect "100,000 nested lists" gen.tl "gen\.tl:1:205: error: too deeply nested"
gen comp 1000
expect "a comprehension of 1,000 for clauses" gen.tl "gen\.tl:1:[0-9]+: error: too deeply nested"
gen sum 100000
expect "1 + 1 + ... of 100,000 terms is evaluated (and is 100000)" gen.tl \
	"gen\.tl:2:1: error: assertion failed: 100000"
gen attrs 100000
expect "an attribute chain of 100,000" gen.tl "gen\.tl:3:5: error: undefined name 'not_defined'"
gen calls 100000
expect "a call chain f()()()... of 100,000" gen.tl "gen\.tl:6:5: error: undefined name 'not_defined'"
gen ksum 100000
expect "a kernel expression of 100,000 terms" gen.tl \
	"gen\.tl:7:[0-9]+: error: kernel expression nests too deeply: more than 1000 operators inside each other \(split it with intermediate variables\)"
printf 'def f(n):\n    return [f(n + 1)]\n\n\nx = f(0)\n' >t.tl
expect "unbounded recursion" t.tl "t\.tl:2:13: error: compile-time evaluation nests too deeply \(recursion\?\)"

# ---- 4. messages ----
cat >t.tl <<'EOF'
m = -2**62 - 2**62
assert abs(-5) == 5 and min(3, 1, 2) == 1 and max([4, 9]) == 9 and sorted([3, 1, 2]) == [1, 2, 3]
assert (-1) ** (2**40 + 1) == -1 and 5 >> 100 == 0 and -5 >> 100 == -1 and m % -1 == 0
x = abs(m)
EOF
expect "abs(-2**63) overflows (min, max, sorted, abs compare ints)" t.tl \
	"t\.tl:4:5: error: integer overflow in compile-time arithmetic \(integers are 64-bit\)"
printf 'import math\nx = math.gcd(-2**62 - 2**62, 0)\n' >t.tl
expect "math.gcd(-2**63, 0) overflows" t.tl \
	"t\.tl:2:5: error: integer overflow in compile-time arithmetic \(integers are 64-bit\)"
printf 'x = 3 << 62\n' >t.tl
expect "3 << 62 overflows" t.tl "t\.tl:1:5: error: integer overflow in compile-time arithmetic \(integers are 64-bit\)"

echo "1..$n"
[ "$failed" = 0 ]
