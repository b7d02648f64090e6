#!/bin/sh
# plugin_damaged.sh - TAP: a truncated or bit-flipped plugin file is refused
# before dlopen with one line naming the file and exit status 1, never a
# signal from inside the dynamic loader (issue 12, doc/security.md).
#
# Takes a real plugin of this build (simplify.so), damages copies of it at
# offsets computed from its own headers, and runs `tlc --load=COPY
# --list-passes` on each.  Deterministic: no randomness but a fixed LCG.
# Run by `make check` with TLC and TLC_PLUGIN_PATH set.
: "${TLC:?}" "${TLC_PLUGIN_PATH:?}"
src=$TLC_PLUGIN_PATH/simplify.so
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-plugin-damaged.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# ---- reading and writing the file's fields (host byte order: a plugin of
# this build has the byte order of the host) ----

# field FILE OFFSET SIZE: the unsigned field
field() { od -An -t u"$3" -j "$2" -N "$3" "$1" | tr -d ' \n'; }

# put FILE OFFSET SIZE VALUE: write a little-endian field in place
put() {
	_v=$4 _i=0
	while [ $_i -lt "$3" ]; do
		# shellcheck disable=SC2059 # the format is the byte, in octal
		printf "$(printf '\\%03o' $((_v & 255)))" |
			dd of="$1" bs=1 seek=$(($2 + _i)) count=1 conv=notrunc 2>/dev/null
		_v=$((_v >> 8)) _i=$((_i + 1))
	done
}

size=$(wc -c <"$src" | tr -d ' ')
phoff=$(field "$src" 32 8)
shoff=$(field "$src" 40 8)
machine=$(field "$src" 18 2)
phnum=$(field "$src" 56 2)
shnum=$(field "$src" 60 2)
phdr() { echo $((phoff + $1 * 56)); } # where program header I starts
ptype() { field "$src" "$(phdr "$1")" 4; }
type_name() {
	case $1 in
	1) echo PT_LOAD ;; 2) echo PT_DYNAMIC ;; 3) echo PT_INTERP ;; 4) echo PT_NOTE ;;
	6) echo PT_PHDR ;; 7) echo PT_TLS ;; 1685382480) echo PT_GNU_EH_FRAME ;;
	1685382481) echo PT_GNU_STACK ;; 1685382482) echo PT_GNU_RELRO ;;
	1685382483) echo PT_GNU_PROPERTY ;; *) echo other ;;
	esac
}

# ---- running tlc on a damaged copy ----

# refused NAME FILE REASON: exit 1 and exactly the one line, with REASON
refused() {
	"$TLC" --config=/dev/null --load="$2" --list-passes >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want="tlc: error: plugin '$2': not a loadable shared object: $3"
	n=$((n + 1))
	if [ "$rc" = 1 ] && [ "$(cat "$tmp/err")" = "$want" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		echo "#   exit code: got $rc, expected 1"
		echo "#   stderr:    got '$(head -n 3 "$tmp/err")'"
		echo "#              expected '$want'"
		failed=$((failed + 1))
	fi
}

# survives FILE: loaded (exit 0), or refused with one line naming the file
# (exit 1): never a signal, never another status.  Prints nothing; 0 when so.
survives() {
	"$TLC" --config=/dev/null --load="$1" --list-passes >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $rc in
	0) return 0 ;;
	1) [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^tlc: error: plugin '$1': " "$tmp/err" ;;
	*) return 1 ;;
	esac
}

cut_at() { head -c "$1" "$src" >"$tmp/cut.so"; }
copy() { cp "$src" "$tmp/bad.so"; }

# ---- the undamaged file loads ----
n=$((n + 1))
if "$TLC" --config=/dev/null --load="$src" --list-passes >"$tmp/out" 2>&1 &&
	grep -q '^simplify ' "$tmp/out"; then
	echo "ok $n - the undamaged plugin loads"
else
	echo "not ok $n - the undamaged plugin loads"
	sed 's/^/#   /' "$tmp/out"
	failed=$((failed + 1))
fi

# ---- truncated ----
for at in 0 3 15; do
	cut_at $at
	refused "cut to $at bytes" "$tmp/cut.so" "the file is $at bytes, too short for an ELF header"
done
cut_at 40
refused "cut inside the ELF header" "$tmp/cut.so" \
	"the file is 40 bytes, too short for an ELF header (64)"
at=$((phoff + 56))
cut_at $at
refused "cut inside the program headers" "$tmp/cut.so" \
	"the program header table ($phnum entries at offset $(printf 0x%x "$phoff")) extends past the end of the file ($at bytes)"

# the first program header whose file bytes pass the cut is named
first_past() {
	i=0
	while [ $i -lt "$phnum" ]; do
		o=$(field "$src" $(($(phdr $i) + 8)) 8)
		s=$(field "$src" $(($(phdr $i) + 32)) 8)
		if [ $((o + s)) -gt "$1" ]; then
			echo "segment $i ($(type_name "$(ptype $i)")) holds $s bytes at offset $(printf 0x%x "$o"), past the end of the file ($1 bytes)"
			return
		fi
		i=$((i + 1))
	done
}
# the end of the last PT_LOAD: where the loader's mappings end
load_end=0
i=0
while [ $i -lt "$phnum" ]; do
	if [ "$(ptype $i)" = 1 ]; then
		load_end=$(($(field "$src" $(($(phdr $i) + 8)) 8) + $(field "$src" $(($(phdr $i) + 32)) 8)))
	fi
	i=$((i + 1))
done
for at in $((phoff + phnum * 56)) $((load_end / 2)) $((load_end - 1)); do
	cut_at $at
	refused "cut at $at, inside a segment" "$tmp/cut.so" "$(first_past $at)"
done
if [ "$shoff" -ge "$load_end" ]; then
	cut_at "$load_end"
	refused "cut after the segments, before the section headers" "$tmp/cut.so" \
		"the section header table at offset $(printf 0x%x "$shoff") is past the end of the file ($load_end bytes)"
fi
cut_at $((size - 1))
refused "cut by one byte" "$tmp/cut.so" \
	"the section header table ($shnum entries at offset $(printf 0x%x "$shoff")) extends past the end of the file ($((size - 1)) bytes)"

# ---- flipped header fields ----
copy; put "$tmp/bad.so" 0 1 $((0x7f ^ 0xff))
refused "ELF magic" "$tmp/bad.so" "no ELF magic number at the start (not an ELF file)"
copy; put "$tmp/bad.so" 4 1 1
refused "ELF class 32-bit" "$tmp/bad.so" "ELF class 1 (32-bit), this tlc is 64-bit"
copy; put "$tmp/bad.so" 4 1 3
refused "ELF class invalid" "$tmp/bad.so" "ELF class 3 (invalid), this tlc is 64-bit"
copy; put "$tmp/bad.so" 5 1 $(($(field "$src" 5 1) ^ 3))
refused "byte order" "$tmp/bad.so" \
	"ELF byte order $(($(field "$src" 5 1) ^ 3)) ($([ "$(field "$src" 5 1)" = 1 ] && echo big || echo little)-endian), this tlc is $([ "$(field "$src" 5 1)" = 1 ] && echo little || echo big)-endian"
copy; put "$tmp/bad.so" 6 1 0
refused "identification version" "$tmp/bad.so" "ELF identification version 0 (expected 1)"
copy; put "$tmp/bad.so" 16 2 2
refused "an executable, not a shared object" "$tmp/bad.so" "ELF type 2 is not a shared object (ET_DYN)"
copy; put "$tmp/bad.so" 18 2 $((machine ^ 0x100))
refused "another machine" "$tmp/bad.so" "ELF machine $((machine ^ 0x100)), this tlc runs on machine $machine"
copy; put "$tmp/bad.so" 20 4 2
refused "ELF version" "$tmp/bad.so" "ELF version 2 (expected 1)"
copy; put "$tmp/bad.so" 54 2 57
refused "program header size" "$tmp/bad.so" "program header size 57 (expected 56)"
copy; put "$tmp/bad.so" 56 2 0
refused "no program headers" "$tmp/bad.so" "no program headers"
copy; put "$tmp/bad.so" 56 2 65535
refused "PN_XNUM program headers" "$tmp/bad.so" "too many program headers"
copy; put "$tmp/bad.so" 56 2 $((phnum | 0x4000))
refused "program header count" "$tmp/bad.so" \
	"the program header table ($((phnum | 0x4000)) entries at offset $(printf 0x%x "$phoff")) extends past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" 32 8 $((phoff | 0x10000000000))
refused "program header offset" "$tmp/bad.so" \
	"the program header table ($phnum entries at offset $(printf 0x%x $((phoff | 0x10000000000)))) extends past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" 40 8 "$size"
refused "section header offset" "$tmp/bad.so" \
	"the section header table at offset $(printf 0x%x "$size") is past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" 58 2 65
refused "section header size" "$tmp/bad.so" "section header size 65 (expected 64)"
copy; put "$tmp/bad.so" 60 2 $((shnum + 256))
refused "section header count" "$tmp/bad.so" \
	"the section header table ($((shnum + 256)) entries at offset $(printf 0x%x "$shoff")) extends past the end of the file ($size bytes)"

# ---- flipped program header fields ----
i=0 first_load='' dynamic=''
while [ $i -lt "$phnum" ]; do
	t=$(ptype $i)
	[ "$t" = 1 ] && [ -z "$first_load" ] && first_load=$i
	[ "$t" = 2 ] && dynamic=$i
	i=$((i + 1))
done
at=$(phdr "$first_load")
o=$(field "$src" $((at + 8)) 8)
s=$(field "$src" $((at + 32)) 8)
m=$(field "$src" $((at + 40)) 8)
copy; put "$tmp/bad.so" $((at + 8)) 8 $((o ^ 0x10000000000))
refused "a PT_LOAD's file offset" "$tmp/bad.so" \
	"segment $first_load (PT_LOAD) holds $s bytes at offset $(printf 0x%x $((o ^ 0x10000000000))), past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" $((at + 32)) 8 $((s + size))
put "$tmp/bad.so" $((at + 40)) 8 $((m + size))
refused "a PT_LOAD's file size" "$tmp/bad.so" \
	"segment $first_load (PT_LOAD) holds $((s + size)) bytes at offset $(printf 0x%x "$o"), past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" $((at + 40)) 8 $((m + 65536))
refused "a read-only PT_LOAD grown over the next one" "$tmp/bad.so" \
	"segment $first_load (PT_LOAD) is read-only but has $((m + 65536 - s)) bytes of zero fill"
at=$(phdr "$dynamic")
o=$(field "$src" $((at + 8)) 8)
s=$(field "$src" $((at + 32)) 8)
copy; put "$tmp/bad.so" $((at + 32)) 8 $((s | 0x1000000))
refused "PT_DYNAMIC's file size" "$tmp/bad.so" \
	"segment $dynamic (PT_DYNAMIC) holds $((s | 0x1000000)) bytes at offset $(printf 0x%x "$o"), past the end of the file ($size bytes)"
copy; put "$tmp/bad.so" "$at" 4 6
refused "no PT_DYNAMIC left" "$tmp/bad.so" "no dynamic segment (PT_DYNAMIC)"

# ---- every byte of the ELF header and the program headers, flipped: loaded or
# refused in one line, never a crash ----
# sweep NAME OFFSET...: each byte XOR $flip, one at a time
sweep() {
	name=$1 bad=
	shift
	for at in "$@"; do
		copy
		put "$tmp/bad.so" "$at" 1 $(($(field "$src" "$at" 1) ^ flip))
		survives "$tmp/bad.so" || bad="$bad $at(rc $rc)"
	done
	n=$((n + 1))
	if [ -z "$bad" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "#   crashed or misreported at byte offsets:$bad"
		failed=$((failed + 1))
	fi
}
# shellcheck disable=SC2046 # word splitting of the offset lists is meant
set -- $(i=0; while [ $i -lt 64 ]; do echo $i; i=$((i + 1)); done)
flip=255
sweep "ELF header bytes inverted" "$@"
# each field of each program header: type, flags, a low and a high byte of
# the offset, the address, a low and a high byte of the file size, the memory
# size and the alignment
# shellcheck disable=SC2046
set -- $(i=0; while [ $i -lt "$phnum" ]; do
	for f in 0 4 8 13 16 33 37 41 48; do echo $(($(phdr $i) + f)); done
	i=$((i + 1))
done)
flip=255
sweep "program header bytes inverted" "$@"
# single bits of the headers, at offsets from a fixed LCG
span=$((phoff + phnum * 56))
# shellcheck disable=SC2046
set -- $(x=12345; i=0; while [ $i -lt 64 ]; do
	x=$(((x * 1103515245 + 12345) % 2147483648)); echo $((x % span)); i=$((i + 1))
done)
flip=16
sweep "single bits of the headers (fixed seed)" "$@"

echo "1..$n"
[ "$failed" = 0 ]
