/* flatten_params.c - a test pass, "flatten-params", that breaks the IR on
 * purpose: every tensor parameter becomes 1-D while its accesses keep their
 * indices (what lowering a launch group's shared tensor once did), so that
 * the IR no longer verifies.  Run before other passes, it checks that the
 * internal error names this pass, not the pipeline's last one. */
#include <tlc/pass.h>
#include <tlc/plugin.h>

static int run_flatten_params(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)m;
	(void)opts;
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].kind == TLC_PARAM_TENSOR && f->params[i].buf->ndim > 1)
			f->params[i].buf->ndim = 1;
	return 0;
}

static const tlc_pass_desc flatten_params_pass = {
	.name = "flatten-params",
	.summary = "make every tensor parameter 1-D, its accesses unchanged (a deliberately wrong pass, for tests)",
	.run = run_flatten_params,
};

static int flatten_params_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &flatten_params_pass);
}

static const tlc_plugin_desc flatten_params_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "flatten_params",
	.version = "0",
	.description = "test pass that breaks the IR",
	.init = flatten_params_init,
};

TLC_DEFINE_PLUGIN(flatten_params_plugin)
