/* wrong_exp.c - a test pass, "wrong-exp", that miscompiles on purpose:
 * every T.exp(x) becomes T.exp2(x), the kind of silent wrong-intrinsic bug
 * the simulator's differential check (tlc --run --compare) must catch. */
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/walk.h>

static const tlc_expr *to_exp2(tlc_rewriter *rw, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_CALL || e->u.call.op != TLC_OP_EXP)
		return NULL;
	return tlc_call(rw->m, TLC_OP_EXP2, e->dtype, e->u.call.nargs, e->u.call.args, 0, NULL, NULL);
}

static int run_wrong_exp(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.expr_post = to_exp2;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	return 0;
}

static const tlc_pass_desc wrong_exp_pass = {
	.name = "wrong-exp",
	.summary = "turn every T.exp into T.exp2 (a deliberately wrong pass, for tests)",
	.run = run_wrong_exp,
};

static int wrong_exp_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &wrong_exp_pass);
}

static const tlc_plugin_desc wrong_exp_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "wrong_exp",
	.version = "0",
	.description = "test pass that miscompiles T.exp",
	.init = wrong_exp_init,
};

TLC_DEFINE_PLUGIN(wrong_exp_plugin)
