#!/bin/sh
# installcheck.sh SRC BUILD - build the example plugin (SRC/hello_pass.c) in
# BUILD against the installed headers through pkg-config, load it into the
# installed tlc ($TLC) and check that its pass ran.
# Run by `make installcheck` with PKG_CONFIG_PATH and TLC pointing into the
# (possibly DESTDIR-staged) install.
set -eu
src=$1
build=$2
: "${TLC:?TLC must name the installed tlc}"
fail() { echo "installcheck: FAIL: $*" >&2; exit 1; }

# the installed tree alone: no build-tree config or plugins
unset TLC_CONFIG TLC_PLUGIN_PATH || true
pc="${PKG_CONFIG:-pkg-config} --define-prefix"
$pc --exists tlc || fail "pkg-config cannot find tlc.pc (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-})"
libdir=$($pc --variable=libdir tlc)
plugindir=$($pc --variable=plugindir tlc)
test "$($pc --variable=pluginabi tlc)" = 1 || fail "pluginabi is not 1"
test -f "$plugindir/simplify.so" || fail "no simplify.so in $plugindir"

mkdir -p "$build"
make -s -C "$src" OUT="$build" "$build/hello_pass.so" || fail "building hello_pass.so"

# a staged install is not where its rpath says: find libtlc by path
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

cat > "$build/k.tl" <<'KERNEL'
import tilelang.language as T


@T.prim_func
def scale(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = A[i] * 2.0
KERNEL

"$TLC" -v --version >/dev/null || fail "the installed tlc does not run"
"$TLC" -v --print-plugin-path | grep -qx "$plugindir" || fail "plugin dir not in the search path"
"$TLC" --load="$build/hello_pass.so" --list-passes > "$build/passes.txt" ||
	fail "--list-passes with the plugin"
grep -q '^hello ' "$build/passes.txt" || fail "hello is not listed"
grep -q '^simplify ' "$build/passes.txt" || fail "simplify (from the installed tlc.ini) is not listed"
"$TLC" --load="$build/hello_pass.so" --passes=simplify,hello --emit=ir "$build/k.tl" \
	> "$build/out.ir" || fail "running the hello pass"
grep -q 'def scale_hello(' "$build/out.ir" || fail "the hello pass did not rename the kernel"
"$TLC" --load="$build/hello_pass.so" --passes=hello --pass-arg=hello.suffix=_x --emit=ir \
	"$build/k.tl" | grep -q 'def scale_x(' || fail "--pass-arg did not reach the plugin"
echo "installcheck: PASS"
