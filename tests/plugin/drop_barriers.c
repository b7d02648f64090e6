/* drop_barriers.c - a test pass, "drop-barriers", that deletes every
 * T.sync_threads(): a broken pass after sync-insert, so that the tests can
 * show --verify-each and the check before emission name it. */
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/walk.h>

static tlc_stmt *drop(tlc_rewriter *rw, tlc_stmt *s)
{
	if (tlc_stmt_is_call(s, TLC_OP_SYNC_THREADS))
		return tlc_seq_new(rw->m, s->loc);
	return NULL;
}

static int run_drop_barriers(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.stmt_post = drop;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	return 0;
}

static const tlc_pass_desc drop_barriers_pass = {
	.name = "drop-barriers",
	.summary = "delete every T.sync_threads() (a deliberately broken pass, for tests)",
	.run = run_drop_barriers,
};

static int drop_barriers_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &drop_barriers_pass);
}

static const tlc_plugin_desc drop_barriers_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "drop_barriers",
	.version = "0",
	.description = "test pass that deletes barriers",
	.init = drop_barriers_init,
};

TLC_DEFINE_PLUGIN(drop_barriers_plugin)
