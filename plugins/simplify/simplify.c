/* simplify.c - the `simplify` pass: canonical arithmetic and constant folding
 * over every expression of a function (tlc_simplify_expr does the algebra),
 * then dead-code removal that folding makes possible: an `if` whose condition
 * is a constant is replaced by the branch taken, and a loop that runs zero
 * times is dropped.
 *
 * Options ([pass.simplify] or --pass-arg=simplify.KEY=VALUE):
 *   fold-branches = true|false   drop constant ifs and empty loops (default true) */
#include "config.h"

#include <tlc/pass.h>
#include <tlc/plugin.h>

#include <stdbool.h>

typedef struct simplifier {
	tlc_module *m;
	bool fold_branches;
} simplifier;

static const tlc_expr *simp(const simplifier *s, const tlc_expr *e)
{
	return e ? tlc_simplify_expr(s->m, e) : NULL;
}

static void simp_array(const simplifier *s, int n, const tlc_expr **v)
{
	for (int i = 0; i < n; i++)
		v[i] = simp(s, v[i]);
}

static tlc_stmt *simp_stmt(const simplifier *s, tlc_stmt *st);

/* Append st to out; a block that replaced an `if` is spliced in, so the
 * result reads as it would after print and re-parse. */
static void append_flat(const simplifier *s, tlc_stmt *out, tlc_stmt *st)
{
	if (st->kind == TLC_STMT_SEQ) {
		for (int i = 0; i < st->u.seq.n; i++)
			tlc_seq_append(s->m, out, st->u.seq.items[i]);
	} else {
		tlc_seq_append(s->m, out, st);
	}
}

static tlc_stmt *simp_seq(const simplifier *s, tlc_stmt *st)
{
	tlc_stmt *out = tlc_seq_new(s->m, st->loc);
	for (int i = 0; i < st->u.seq.n; i++) {
		tlc_stmt *item = st->u.seq.items[i];
		bool was_if = item->kind == TLC_STMT_IF;
		tlc_stmt *r = simp_stmt(s, item);
		if (!r)
			continue;
		if (was_if && r != item)
			append_flat(s, out, r);
		else
			tlc_seq_append(s->m, out, r);
	}
	return out;
}

/* A body that must stay a statement: an empty block when everything went. */
static tlc_stmt *body_or_empty(const simplifier *s, tlc_stmt *body, tlc_loc loc)
{
	tlc_stmt *r = body ? simp_stmt(s, body) : NULL;
	return r ? r : tlc_seq_new(s->m, loc);
}

static tlc_stmt *simp_if(const simplifier *s, tlc_stmt *st)
{
	st->u.if_.cond = simp(s, st->u.if_.cond);
	int64_t v;
	if (s->fold_branches && tlc_expr_as_int(st->u.if_.cond, &v)) {
		tlc_stmt *taken = v ? st->u.if_.then_s : st->u.if_.else_s;
		return taken ? simp_stmt(s, taken) : NULL;
	}
	st->u.if_.then_s = body_or_empty(s, st->u.if_.then_s, st->loc);
	if (st->u.if_.else_s)
		st->u.if_.else_s = simp_stmt(s, st->u.if_.else_s);
	return st;
}

static tlc_stmt *simp_for(const simplifier *s, tlc_stmt *st)
{
	st->u.loop.min = simp(s, st->u.loop.min);
	st->u.loop.extent = simp(s, st->u.loop.extent);
	int64_t n;
	if (s->fold_branches && tlc_expr_as_int(st->u.loop.extent, &n) && n <= 0)
		return NULL;
	st->u.loop.body = body_or_empty(s, st->u.loop.body, st->loc);
	return st;
}

/* Simplify st in place; returns the statement to keep (st, a replacement,
 * or NULL to drop it). */
static tlc_stmt *simp_stmt(const simplifier *s, tlc_stmt *st)
{
	switch (st->kind) {
	case TLC_STMT_SEQ: return simp_seq(s, st);
	case TLC_STMT_IF: return simp_if(s, st);
	case TLC_STMT_FOR: return simp_for(s, st);
	case TLC_STMT_LET: st->u.let.value = simp(s, st->u.let.value); break;
	case TLC_STMT_STORE:
		simp_array(s, st->u.store.n, st->u.store.idx);
		st->u.store.value = simp(s, st->u.store.value);
		break;
	case TLC_STMT_EVAL: st->u.eval.call = simp(s, st->u.eval.call); break;
	case TLC_STMT_ALLOC: {
		tlc_buffer *b = st->u.alloc.buf;
		simp_array(s, b->ndim, b->shape);
		break;
	}
	case TLC_STMT_SCOPE:
		st->u.scope.call = simp(s, st->u.scope.call);
		st->u.scope.body = body_or_empty(s, st->u.scope.body, st->loc);
		break;
	case TLC_STMT_ATTR:
		st->u.attr.value = simp(s, st->u.attr.value);
		st->u.attr.body = body_or_empty(s, st->u.attr.body, st->loc);
		break;
	}
	return st;
}

static int run_simplify(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	simplifier s = {m, tlc_opt_bool(opts, "fold-branches", true)};
	for (int i = 0; i < f->grid_ndim && i < 3; i++)
		f->grid[i] = simp(&s, f->grid[i]);
	for (int i = 0; i < f->thread_ndim && i < 3; i++)
		f->threads[i] = simp(&s, f->threads[i]);
	if (f->body)
		f->body = body_or_empty(&s, f->body, f->loc);
	return 0;
}

static const tlc_pass_option simplify_options[] = {
	{"fold-branches", TLC_OPT_BOOL, "drop ifs with a constant condition and loops that run zero times"},
	{NULL, TLC_OPT_BOOL, NULL},
};

static const tlc_pass_desc simplify_pass = {
	.name = "simplify",
	.summary = "fold constants, canonicalize arithmetic, drop constant ifs and empty loops",
	.run = run_simplify,
	.options = simplify_options,
};

static int simplify_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &simplify_pass);
}

static const tlc_plugin_desc simplify_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "simplify",
	.version = PACKAGE_VERSION,
	.description = "the simplify pass",
	.init = simplify_init,
};

TLC_DEFINE_PLUGIN(simplify_plugin)
