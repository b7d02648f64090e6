/* dup_pass.c - a plugin that registers a pass named "simplify": loaded after
 * the simplify plugin, registration must fail naming both plugins. */
#include <tlc/pass.h>
#include <tlc/plugin.h>

static int dup_run(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)m, (void)f, (void)opts;
	return 0;
}

static const tlc_pass_desc dup_pass = {
	.name = "simplify",
	.summary = "a second pass named simplify",
	.run = dup_run,
};

static int dup_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &dup_pass);
}

static const tlc_plugin_desc dup_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "dup_pass",
	.version = "0",
	.description = "test plugin registering a duplicate pass",
	.init = dup_init,
};

TLC_DEFINE_PLUGIN(dup_plugin)
