#!/bin/sh
# build.sh - build the libFuzzer harnesses with an instrumented copy of libtlc
# and of the plugins (doc/security.md, "Fuzzing").  Run by `make fuzz-build`
# from the build directory, which passes the source lists of Makefile.am.
#
# usage: build.sh OUTDIR MODULE 'SOURCES' 'FLAGS' [MODULE 'SOURCES' 'FLAGS']...
#   MODULE libtlc     linked into every harness (exported: the plugins bind to it)
#   MODULE fuzz_NAME  a harness: OUTDIR/fuzz_NAME
#   any other MODULE  a plugin: OUTDIR/plugins/MODULE.so
#   FLAGS        the module's own compiler flags (include folders)
# environment: FUZZ_CC (a compiler that takes -fsanitize=fuzzer), srcdir,
#   CFLAGS_COMMON (warnings, visibility), LIBS, JOBS (parallel compiles, 2)
#
# The normal build's compiler may not be clang, so the objects are compiled
# here, not by automake.  A source is recompiled when it is newer than its
# object or when any header changed since the last build.
set -u
: "${FUZZ_CC:?}" "${srcdir:?}"
out=$1
shift
jobs=${JOBS:-2}
abs_out=$(mkdir -p "$out" && cd "$out" && pwd)
abs_srcdir=$(cd "$srcdir" && pwd)
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-g -O1 -fno-omit-frame-pointer -fPIC $sanitize"
# the normal build's warnings, without -Werror: another compiler's warnings
# must not stop a test tool
common=$(printf '%s\n' "${CFLAGS_COMMON:-}" | sed 's/-Werror//g')
# what AM_CPPFLAGS gives every file, with the installed plugin directory and
# configuration replaced by the instrumented ones: nothing outside the build
# is ever loaded
includes="-DHAVE_CONFIG_H -I. -I$abs_srcdir -I$abs_srcdir/include -I$abs_srcdir/core"
plugin_dir=$abs_out/plugins
config=$abs_srcdir/etc/tlc.ini
mkdir -p "$abs_out/obj" "$abs_out/plugins"
stamp=$abs_out/.headers-stamp
failed=$abs_out/.failed
rm -f "$failed"

# headers newer than the last build: then every object is stale
headers_changed=yes
if [ -f "$stamp" ] && [ -z "$(find "$srcdir/include" "$srcdir/core" "$srcdir/plugins" \
	"$srcdir/backends" "$srcdir/tests/fuzz" backends config.h -name '*.h' -newer "$stamp" \
	2>/dev/null | head -n 1)" ]; then
	headers_changed=no
fi

# compile MODULE SOURCE CPPFLAGS: in the background, JOBS at a time
running=0
compile() {
	obj=$abs_out/obj/$1/$(echo "$2" | sed 's|/|_|g; s|\.c$|.o|')
	mkdir -p "$abs_out/obj/$1"
	echo "$obj" >>"$abs_out/obj/$1.list"
	src=$srcdir/$2
	[ -f "$src" ] || src=$2 # a generated source, in the build directory
	if [ "$headers_changed" = no ] && [ -f "$obj" ] && [ ! "$src" -nt "$obj" ]; then
		return
	fi
	echo "  FUZZCC   $2"
	# coverage guides the search, except in the check of the plugin files:
	# the harnesses load the same plugins for every input, and its counters
	# would only slow each one down
	case $2 in
	core/pass/elf_check*) coverage= ;;
	*) coverage=-fsanitize=fuzzer-no-link ;;
	esac
	# shellcheck disable=SC2086 # flag lists split into words
	{ $FUZZ_CC $cflags $coverage $common $includes $3 -DTLC_PLUGINDIR="\"$plugin_dir\"" \
		-DTLC_SYSCONFDIR="\"${config%/*}\"" -DTLC_FUZZ_PLUGIN_DIR="\"$plugin_dir\"" \
		-DTLC_FUZZ_CONFIG="\"$config\"" -c "$src" -o "$obj" || touch "$failed"; } &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then
		wait
		running=0
	fi
}

# ---- compile every module ----
modules=
while [ $# -ge 3 ]; do
	module=$1 sources=$2 flags=$3
	shift 3
	modules="$modules $module"
	: >"$abs_out/obj/$module.list"
	for s in $sources; do
		case $s in *.c) compile "$module" "$s" "$flags" ;; esac
	done
done
wait
if [ -f "$failed" ]; then
	echo "build.sh: compiling failed" >&2
	exit 1
fi

# ---- link: relink when an object is newer than the output ----
# link OUTPUT FLAGS LIST...
link() {
	output=$1 flags=$2
	shift 2
	objs=$(cat "$@")
	stale=no
	[ -f "$output" ] || stale=yes
	for o in $objs; do [ "$o" -nt "$output" ] && stale=yes; done
	[ $stale = no ] && return 0
	echo "  FUZZLD   ${output#"$abs_out"/}"
	# shellcheck disable=SC2086
	$FUZZ_CC $flags $objs -o "$output" ${LIBS:-}
}
for module in $modules; do
	case $module in
	libtlc) ;;
	fuzz_*)
		# plugins resolve tlc_* in the harness: export libtlc's symbols
		link "$abs_out/$module" "-fsanitize=fuzzer $sanitize -Wl,--export-dynamic" \
			"$abs_out/obj/$module.list" "$abs_out/obj/libtlc.list" || exit 1 ;;
	*)
		link "$abs_out/plugins/$module.so" "-shared $sanitize" "$abs_out/obj/$module.list" ||
			exit 1 ;;
	esac
done
touch "$stamp"
