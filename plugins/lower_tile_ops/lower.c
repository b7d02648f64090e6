/* lower.c - the `lower-tile-ops` pass: entry point and the walk over the
 * body (see lower.h for the steps). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include <tlc/plugin.h>

#include "lower.h"

int lw_error(lw_state *st, tlc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tlc_vdiag(st->ctx, TLC_ERROR, loc, fmt, ap);
	va_end(ap);
	st->errors++;
	return -1;
}

tlc_var *lw_fresh(lw_state *st, const char *base)
{
	char name[64];
	snprintf(name, sizeof name, "%s_%d", base, st->counter++);
	return tlc_var_new(st->m, name, TLC_DT_INT32);
}

void lw_push_loop_range(lw_state *st, const tlc_var *v, const tlc_expr *min, const tlc_expr *extent)
{
	int64_t lo, hi, elo, ehi;
	if (tlc_expr_bounds(&st->ranges, min, &lo, &hi) && tlc_expr_bounds(&st->ranges, extent, &elo, &ehi) && ehi >= 1)
		tlc_ranges_push(&st->ranges, v, lo, hi + ehi - 1);
}

/* A fragment read or written outside any T.Parallel loop or tile op has no
 * thread to live in: say so. */
static bool touches_fragment(const tlc_expr *e, const tlc_buffer **b)
{
	if (!e)
		return false;
	switch (e->kind) {
	case TLC_EXPR_LOAD:
		if (e->u.load.buf->scope == TLC_SCOPE_FRAGMENT) {
			*b = e->u.load.buf;
			return true;
		}
		for (int i = 0; i < e->u.load.n; i++)
			if (touches_fragment(e->u.load.idx[i], b))
				return true;
		return false;
	case TLC_EXPR_CALL:
		for (int i = 0; i < e->u.call.nargs; i++)
			if (touches_fragment(e->u.call.args[i], b))
				return true;
		return false;
	default:
		if (e->kind >= TLC_EXPR_ADD && e->kind <= TLC_EXPR_CAST)
			return touches_fragment(e->u.op.a, b) ||
			       (e->kind != TLC_EXPR_CAST && e->kind != TLC_EXPR_NOT && e->kind != TLC_EXPR_NEG &&
			        (touches_fragment(e->u.op.b, b) || (e->kind == TLC_EXPR_SELECT && touches_fragment(e->u.op.c, b))));
		return false;
	}
}

static void check_outside(lw_state *st, const tlc_stmt *s, const tlc_expr *e)
{
	const tlc_buffer *b = NULL;
	if (touches_fragment(e, &b))
		lw_error(st, s->loc,
		         "fragment '%s' is accessed outside a T.Parallel loop; its elements live in many threads, so "
		         "wrap the access in a T.Parallel loop over the fragment",
		         b->name);
}

static void lower_slot(lw_state *st, tlc_stmt **slot);

static tlc_stmt *lower_eval(lw_state *st, tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL)
		return s;
	tlc_stmt *low = NULL;
	switch (c->u.call.op) {
	case TLC_OP_COPY: low = lw_expand_copy(st, s); break;
	case TLC_OP_FILL: low = lw_expand_fill(st, s, false); break;
	case TLC_OP_CLEAR: low = lw_expand_fill(st, s, true); break;
	case TLC_OP_ATOMIC_ADD:
		if (c->u.call.args[0]->kind == TLC_EXPR_LOAD) {
			check_outside(st, s, c);
			return s; /* one element: the target emits it */
		}
		low = lw_expand_atomic(st, s);
		break;
	case TLC_OP_GEMM: {
		tlc_stmt *g = lw_lower_gemm(st, s);
		return g ? g : s;
	}
	case TLC_OP_REDUCE_MAX:
	case TLC_OP_REDUCE_MIN:
	case TLC_OP_REDUCE_SUM:
	case TLC_OP_REDUCE_ABSSUM:
	case TLC_OP_REDUCE_ABSMAX: {
		tlc_stmt *r = lw_lower_reduce(st, s);
		return r ? r : s;
	}
	case TLC_OP_CUMSUM: {
		tlc_stmt *r = lw_lower_cumsum(st, s);
		return r ? r : s;
	}
	case TLC_OP_ANNOTATE_LAYOUT: return s; /* consumed by lower_buffers.c */
	case TLC_OP_USE_SWIZZLE: return s;
	default:
		if (tlc_op_get(st->ctx, c->u.call.op)->flags & TLC_OPF_TILE) {
			lw_error(st, s->loc, "T.%s is not supported by lower-tile-ops yet", tlc_op_get(st->ctx, c->u.call.op)->name);
			return s;
		}
		check_outside(st, s, c);
		return s;
	}
	if (!low)
		return s;
	lower_slot(st, &low);
	return low;
}

static void lower_children(lw_state *st, tlc_stmt *s)
{
	int saved = st->ranges.n;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			lower_slot(st, &s->u.seq.items[i]);
		break;
	case TLC_STMT_FOR:
		/* no pipelining pass has run: the loop runs unpipelined, which
		 * computes the same result (the barriers between iterations come
		 * from the target) */
		if (s->u.loop.kind == TLC_FOR_PIPELINED)
			s->u.loop.kind = TLC_FOR_SERIAL;
		lw_push_loop_range(st, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
		lower_slot(st, &s->u.loop.body);
		break;
	case TLC_STMT_IF:
		check_outside(st, s, s->u.if_.cond);
		lower_slot(st, &s->u.if_.then_s);
		if (s->u.if_.else_s)
			lower_slot(st, &s->u.if_.else_s);
		return;
	case TLC_STMT_LET: {
		int64_t lo, hi;
		check_outside(st, s, s->u.let.value);
		/* a let is visible to the rest of the enclosing block: keep the range */
		if (tlc_expr_bounds(&st->ranges, s->u.let.value, &lo, &hi))
			tlc_ranges_push(&st->ranges, s->u.let.var, lo, hi);
		return;
	}
	case TLC_STMT_STORE:
		if (s->u.store.buf->scope == TLC_SCOPE_FRAGMENT)
			lw_error(st, s->loc,
			         "fragment '%s' is written outside a T.Parallel loop; its elements live in many threads, so "
			         "wrap the store in a T.Parallel loop over the fragment",
			         s->u.store.buf->name);
		else
			check_outside(st, s, s->u.store.value);
		return;
	case TLC_STMT_SCOPE: lower_slot(st, &s->u.scope.body); break;
	case TLC_STMT_ATTR: lower_slot(st, &s->u.attr.body); break;
	default: return;
	}
	st->ranges.n = saved;
}

static void lower_slot(lw_state *st, tlc_stmt **slot)
{
	tlc_stmt *s = *slot;
	if (!s)
		return;
	if (s->kind == TLC_STMT_EVAL) {
		*slot = lower_eval(st, s);
		return;
	}
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL) {
		*slot = lw_lower_nest(st, s);
		return;
	}
	lower_children(st, s);
}

/* The flat thread index: x + X * (y + Y * z). */
static const tlc_expr *flat_tid(tlc_module *m, const tlc_func *f)
{
	const tlc_expr *t = NULL;
	for (int d = f->thread_ndim - 1; d >= 0; d--) {
		const tlc_expr *x = tlc_call(m, TLC_OP_THREAD_IDX, TLC_DT_INT32, 1, (const tlc_expr *[]){tlc_i32(m, d)}, 0,
		                             NULL, NULL);
		t = t ? tlc_binary(m, TLC_EXPR_ADD, x, tlc_binary(m, TLC_EXPR_MUL, f->threads[d], t)) : x;
	}
	return tlc_simplify_expr(m, t);
}

static int run_lower_tile_ops(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	tlc_context *ctx = tlc_module_context(m);
	lw_state st = {.m = m, .ctx = ctx, .f = f, .target = tlc_module_target_info(m), .threads = 1};
	if (!st.target) {
		tlc_error(ctx, f->loc, "lower-tile-ops needs the description of a target (--target)");
		return 1;
	}
	for (int d = 0; d < f->thread_ndim && d < 3; d++) {
		int64_t t;
		if (!tlc_expr_as_int(f->threads[d], &t) || t <= 0) {
			tlc_error(ctx, f->loc, "lower-tile-ops needs compile-time thread counts in T.Kernel");
			return 1;
		}
		st.threads *= t;
	}
	st.tid = flat_tid(m, f);
	for (int d = 0; d < f->grid_ndim && d < 3; d++)
		if (f->block_vars[d])
			lw_push_loop_range(&st, f->block_vars[d], tlc_i32(m, 0), f->grid[d]);
	for (int d = 0; d < f->thread_ndim && d < 3; d++)
		if (f->thread_vars[d])
			lw_push_loop_range(&st, f->thread_vars[d], tlc_i32(m, 0), f->threads[d]);
	lower_slot(&st, &f->body);
	if (!st.errors)
		lw_lower_buffers(&st);
	tlc_ranges_free(&st.ranges);
	return st.errors ? 1 : 0;
}

static const tlc_pass_desc lower_tile_ops_pass = {
	.name = "lower-tile-ops",
	.summary = "lower tile ops and T.Parallel nests to per-thread code through their layouts",
	.run = run_lower_tile_ops,
};

static int lower_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &lower_tile_ops_pass);
}

static const tlc_plugin_desc lower_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "lower_tile_ops",
	.version = "0.1.0",
	.description = "the lower-tile-ops pass (mma.sync path)",
	.init = lower_init,
};

TLC_DEFINE_PLUGIN(lower_plugin)
