/* hello_pass.c - an out-of-tree pass plugin, built against the installed
 * headers with `pkg-config --cflags --libs tlc` (see Makefile here and
 * doc/plugins.md).
 *
 * It registers one pass, `hello`, which renames every kernel by appending a
 * suffix ("_hello" unless [pass.hello] suffix = ... or
 * --pass-arg=hello.suffix=... says otherwise): an effect that shows in
 * `tlc --passes=hello --emit=ir`. */
#include <tlc/pass.h>
#include <tlc/plugin.h>

#include <stdio.h>
#include <string.h>

static int hello_run(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	const char *suffix = tlc_opt_str(opts, "suffix", "_hello");
	char name[256];
	if (snprintf(name, sizeof(name), "%s%s", f->name, suffix) >= (int)sizeof(name)) {
		tlc_error(tlc_module_context(m), f->loc, "hello: kernel name '%s' is too long", f->name);
		return 1;
	}
	/* IR strings live in the module's arena: never free them */
	f->name = tlc_strdup(m, name);
	return 0;
}

/* the options it reads: tlc checks --pass-arg and [pass.hello] against them */
static const tlc_pass_option hello_options[] = {
	{"suffix", TLC_OPT_STRING, "what to append (default _hello)"},
	{NULL, TLC_OPT_STRING, NULL},
};

static const tlc_pass_desc hello_pass = {
	.name = "hello",
	.summary = "append a suffix to every kernel name (an example plugin)",
	.run = hello_run,
	.options = hello_options,
};

static int hello_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &hello_pass);
}

static const tlc_plugin_desc hello_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "hello",
	.version = "1.0",
	.description = "example out-of-tree pass plugin",
	.init = hello_init,
};

TLC_DEFINE_PLUGIN(hello_plugin)
