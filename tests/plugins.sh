#!/bin/sh
# plugins.sh - TAP tests of plugin loading, the INI configuration and the
# driver's options, through the real tlc binary and real dlopen.
# Run by `make check` with TLC, TLC_SRCDIR, TLC_PLUGIN_PATH and TLC_CONFIG set.
: "${TLC:?}" "${TLC_SRCDIR:?}" "${TLC_PLUGIN_PATH:?}"
builddir=$(dirname "$TLC")
bad=$builddir/tests/plugin/.libs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlc-plugins.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

# check NAME WANT_RC WANT_STDERR_FIRST_LINE -- CMD...: the exit code and the
# first line of stderr
check() {
	name=$1 want_rc=$2 want_err=$3
	shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got_err=$(head -n 1 "$tmp/err")
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ] && [ "$got_err" = "$want_err" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "#   exit code: got $rc, expected $want_rc"
		echo "#   stderr:    got '$got_err'"
		echo "#              expected '$want_err'"
		failed=$((failed + 1))
	fi
}

# ok_if NAME COMMAND-STRING: a shell condition
ok_if() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/#   /' "$tmp/out" "$tmp/err" | head -n 6
		failed=$((failed + 1))
	fi
}

# ---- broken plugins: exit 1 and one exact line ----
p=$bad/bad_abi.so
check "ABI mismatch" 1 "tlc: error: plugin '$p': ABI version 99, this tlc needs 2" -- \
	"$TLC" --load="$p" --list-passes
ok_if "ABI mismatch is one line" '[ $(wc -l <"$tmp/err") = 1 ]'
p=$bad/old_abi.so
check "a plugin built for the previous ABI" 1 \
	"tlc: error: plugin '$p': ABI version 1, this tlc needs 2 (rebuild the plugin against this tlc's headers)" -- \
	"$TLC" --load="$p" --list-passes
ok_if "old ABI is one line" '[ $(wc -l <"$tmp/err") = 1 ]'
p=$bad/no_entry.so
check "no entry symbol" 1 \
	"tlc: error: plugin '$p': no entry symbol 'tlc_plugin_entry_v1' (not a tlc plugin?)" -- \
	"$TLC" --load="$p" --list-passes
p=$bad/dup_pass.so
check "duplicate pass" 1 \
	"tlc: error: plugin '$p': pass 'simplify' is already registered by plugin 'simplify'" -- \
	"$TLC" --load="$p" --list-passes
mkdir -p "$tmp/copy"
cp "$TLC_PLUGIN_PATH/simplify.so" "$tmp/copy/simplify.so"
check "duplicate plugin name" 1 \
	"tlc: error: plugin '$tmp/copy/simplify.so': a plugin named 'simplify' is already loaded from '$TLC_PLUGIN_PATH/simplify.so'" -- \
	"$TLC" --load="$tmp/copy/simplify.so" --list-passes
check "same file twice is loaded once" 0 "" -- \
	"$TLC" --load="$TLC_PLUGIN_PATH/simplify.so" --load=simplify --list-passes
check "unloadable file" 1 "tlc: error: plugin '$tmp/none.so': cannot load: $tmp/none.so: cannot open shared object file: No such file or directory" -- \
	"$TLC" --load="$tmp/none.so" --list-passes
check "unknown plugin name" 1 \
	"tlc: error: plugin 'nosuch' not found (looked for nosuch.so in: $tmp/d1, $TLC_PLUGIN_PATH, $(
		"$TLC" --print-plugin-path | tail -n +2 | paste -sd, | sed 's/,/, /g'))" -- \
	"$TLC" --plugin-path="$tmp/d1" --load=nosuch --list-passes
check "--plugin-path is searched first" 0 "" -- \
	env TLC_PLUGIN_PATH=/nonexistent "$TLC" --config=/dev/null --plugin-path="$tmp/copy" \
	--load=simplify --list-passes
ok_if "  and the plugin came from there" 'grep -q "^simplify " "$tmp/out"'

# ---- the INI file ----
cat >"$tmp/unknown-pass.ini" <<'EOF'
[plugins]
load = simplify

[pipeline.x]
pass = nope
EOF
check "unknown pass in the INI names file:line:col" 1 \
	"$tmp/unknown-pass.ini:5:8: error: unknown pass 'nope' in [pipeline.x]" -- \
	"$TLC" --config="$tmp/unknown-pass.ini" -fno-caret-diagnostics --list-passes
printf '[plugins]\nload = simplify\n[plugin]\n' >"$tmp/bad-section.ini"
check "unknown section" 1 \
	"$tmp/bad-section.ini:3:2: error: unknown section [plugin] (expected [tlc], [plugins], [pipeline.TARGET], [pass.NAME] or [target.NAME])" -- \
	"$TLC" --config="$tmp/bad-section.ini" --list-passes
ok_if "  with the source line and a caret" \
	'[ "$(sed -n 2,3p "$tmp/err")" = "$(printf "[plugin]\n ^")" ]'
printf '[plugins]\nloads = simplify\n' >"$tmp/bad-key.ini"
check "unknown key" 1 "$tmp/bad-key.ini:2:1: error: unknown key 'loads' in [plugins] (expected 'load')" -- \
	"$TLC" --config="$tmp/bad-key.ini" --list-passes
check "missing config file" 1 \
	"tlc: error: cannot read config file '$tmp/none.ini': No such file or directory" -- \
	"$TLC" --config="$tmp/none.ini" --list-passes
check "TLC_CONFIG names the default config" 1 \
	"$tmp/bad-key.ini:2:1: error: unknown key 'loads' in [plugins] (expected 'load')" -- \
	env TLC_CONFIG="$tmp/bad-key.ini" "$TLC" --list-passes
printf '[plugins]\nload = simplify\n' >"$tmp/no-pipe.ini"
check "the target's plugin is not loaded" 1 \
	"tlc: error: no targets registered: the configuration '$tmp/no-pipe.ini' loads no plugin that registers one (its [plugins] section; see tlc -v)" -- \
	"$TLC" --config="$tmp/no-pipe.ini" "$TLC_SRCDIR/examples/elementwise_add.tl"
printf '[plugins]\nload = simplify\nload = cuda\n' >"$tmp/no-pipe.ini"
check "no pipeline for the target" 1 \
	"tlc: error: no [pipeline.cuda-sm90] section in '$tmp/no-pipe.ini' (or give --passes=)" -- \
	"$TLC" --config="$tmp/no-pipe.ini" "$TLC_SRCDIR/examples/elementwise_add.tl"

# ---- listing ----
check "--list-passes" 0 "" -- "$TLC" --list-passes
ok_if "  lists simplify with its plugin" 'grep -q "^simplify .*\[simplify\]$" "$tmp/out"'
check "--list-targets" 0 "" -- "$TLC" --list-targets
ok_if "  lists cuda-sm90" 'grep -q "^cuda-sm90 " "$tmp/out"'
check "--print-plugin-path" 0 "" -- \
	env TLC_PLUGIN_PATH=/e/1:/e/2 "$TLC" --plugin-path=/c/1 --plugin-path=/c/2/ --print-plugin-path
ok_if "  --plugin-path first, then TLC_PLUGIN_PATH, in order" \
	'[ "$(head -n 4 "$tmp/out" | paste -sd" ")" = "/c/1 /c/2 /e/1 /e/2" ]'
ok_if "  then the dir beside libtlc" 'sed -n 5p "$tmp/out" | grep -q "/tlc/plugins$"'
check "-v" 0 "$("$TLC" --version)" -- "$TLC" -v
# the pipeline line lists the `pass =` lines of [pipeline.cuda-sm90], in order
want_pipe=$(awk '/^\[/ { in_sec = ($0 == "[pipeline.cuda-sm90]") } in_sec && /^pass *=/ { sub(/^pass *= */, ""); print }' \
	"$TLC_CONFIG" | paste -sd, | sed 's/,/, /g')
ok_if "  shows the config, the plugins and the pipeline" \
	'grep -q "^config: $TLC_CONFIG$" "$tmp/err" && grep -q "^  simplify " "$tmp/err" &&
	 grep -q "^  layout_inference " "$tmp/err" && grep -q "^  lower_tile_ops " "$tmp/err" &&
	 grep -qx "pipeline: $want_pipe" "$tmp/err"'
ok_if "  the default pipeline splits threads at thread-index ifs, pipelines loops, stages outputs, guards global accesses, then lowers through layout-inference and lower-tile-ops" \
	'case "$want_pipe" in "simplify, thread-split, pipeline-planning, warp-specialize, inject-pipeline, stage-outputs, simplify, legalize-bounds, layout-inference, lower-tile-ops, simplify"*) true ;; *) false ;; esac'

# ---- pipeline options ----
f=$TLC_SRCDIR/examples/elementwise_add.tl
check "--passes with an unknown pass" 1 \
	"tlc: error: unknown pass 'bogus' in the pipeline (see tlc --list-passes)" -- \
	"$TLC" --passes=simplify,bogus "$f"
check "--print-after with an unknown pass" 1 \
	"tlc: error: unknown pass 'bogus' in the --print-after (see tlc --list-passes)" -- \
	"$TLC" --print-after=bogus "$f"
check "--pass-arg for an unknown pass" 1 "tlc: error: --pass-arg: no pass or target named 'bogus'" -- \
	"$TLC" --pass-arg=bogus.k=1 "$f"

# ---- usage errors: exit 2 ----
check "unknown option" 2 "tlc: error: unknown option '--bogus'" -- "$TLC" --bogus "$f"
ok_if "  suggests --help" 'grep -q "^try .tlc --help." "$tmp/err"'
check "missing option argument" 2 "tlc: error: option '-o' needs an argument" -- "$TLC" "$f" -o
check "no input file" 2 "tlc: error: no input file" -- "$TLC"
check "two input files" 2 "tlc: error: more than one input file ('b.tl')" -- "$TLC" a.tl b.tl
check "bad -D" 2 "tlc: error: -D expects NAME=VALUE, not '1M=4'" -- "$TLC" -D 1M=4 "$f"
check "bad --pass-arg" 2 "tlc: error: --pass-arg expects PASS.KEY=VALUE, not 'simplify'" -- \
	"$TLC" --pass-arg=simplify "$f"
check "unknown --emit" 2 "tlc: error: unknown --emit kind 'asm' (expected ir, cu, hip, ptx, cubin, hsaco or so)" -- \
	"$TLC" --emit=asm "$f"
check "--emit=hsaco on a CUDA target" 2 "tlc: error: --emit=hsaco is not available for target 'cuda-sm90', which compiles with nvcc (it makes ptx, cubin, so)" -- \
	"$TLC" --emit=hsaco -o x.hsaco "$f"
check "missing input file" 1 "tlc: error: cannot open '$tmp/none.tl': No such file or directory" -- \
	"$TLC" "$tmp/none.tl"

# ---- --help tells about every option, and so does the man page ----
check "--help" 0 "" -- "$TLC" --help
for opt in -o --target --entry -D --config --passes --pass-arg --load --plugin-path \
	--list-passes --list-targets --print-plugin-path --emit --print-before --print-after \
	--print-before-all --print-after-all --verify-each --time-passes -v --version --help \
	-fno-caret-diagnostics TLC_CONFIG TLC_PLUGIN_PATH; do
	ok_if "--help mentions $opt" "grep -q -e '^ *$opt[ =,]' -e ' $opt[ .(]' \"\$tmp/out\""
	ok_if "tlc.1 mentions $opt" \
		"sed 's/\\\\-/-/g; s/\\\\f[BIR]//g' \"\$TLC_SRCDIR/doc/tlc.1\" | grep -q -e '$opt'"
done
check "--version" 0 "" -- "$TLC" --version
ok_if "  prints the version on stdout" 'grep -q "^tlc [0-9]" "$tmp/out"'

echo "1..$n"
[ "$failed" = 0 ]
