/* lower.c - the `lower-tile-ops` pass: entry point and the walk over the
 * body (see lower.h for the steps). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include <tlc/plugin.h>
#include <tlc/access.h>
#include <tlc/walk.h>

#include <string.h>

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

/* Statement s (outside T.Parallel) reads fragments staged by the nests of
 * `stage`: they go before it (lower_post). */
static void note_staging(lw_state *st, const tlc_stmt *s, tlc_stmt *stage)
{
	if (!stage->u.seq.n)
		return;
	/* inside a divergent if, the staging goes before the if (the same if
	 * may collect the staging of several statements) */
	if (st->divergent_if)
		s = st->divergent_if;
	for (int i = 0; i < st->npending; i++)
		if (st->pending[i].at == s) {
			for (int k = 0; k < stage->u.seq.n; k++)
				tlc_seq_append(st->m, st->pending[i].stage, stage->u.seq.items[k]);
			return;
		}
	st->pending = tlc_mem_grow(st->pending, st->npending, &st->cap_pending, sizeof(*st->pending));
	st->pending[st->npending++] = (struct lw_pending){s, stage};
}

static tlc_stmt *staging_of(const lw_state *st, const tlc_stmt *s)
{
	for (int i = 0; i < st->npending; i++)
		if (st->pending[i].at == s)
			return st->pending[i].stage;
	return NULL;
}

/* The fragment reads of expression e of statement s, outside any
 * T.Parallel loop or tile op (lower_outside.c). */
static const tlc_expr *outside(lw_state *st, const tlc_stmt *s, const tlc_expr *e)
{
	tlc_stmt *stage = tlc_seq_new(st->m, s->loc);
	const tlc_expr *r = lw_outside_reads(st, s, e, stage);
	note_staging(st, s, stage);
	return r;
}

/* The walk over the body (a tlc_stmt_rewrite in place): tile ops and
 * T.Parallel nests are replaced by their lowering, and the ranges of the
 * loop and let variables in scope are kept for the lowerings' bounds. */
typedef struct lower_walk {
	lw_state *st;
	int depth, cap;
	int *saved; /* st->ranges.n where each open scope began */
} lower_walk;

/* Blocks, loops and scope/attr bodies end the ranges pushed inside them; a
 * let's range stays for the rest of its block (an if's branches are blocks). */
static bool opens_scope(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_SEQ || s->kind == TLC_STMT_FOR || s->kind == TLC_STMT_SCOPE ||
	       s->kind == TLC_STMT_ATTR;
}

/* T.copy: a whole shared tile into a global tensor goes by TMA where the
 * target and the copy allow it (with the option remarks, a note says why
 * not); every other copy becomes an element-wise nest. */
static tlc_stmt *lower_copy(lw_state *st, const tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	tlc_tile_operand src, dst;
	const char *why = NULL;
	if (st->tma_store && c->u.call.nargs == 2 && (st->target->async_copy & TLC_ASYNC_TMA) &&
	    tlc_tile_operand_from_expr(st->m, c->u.call.args[0], &src, &why) &&
	    tlc_tile_operand_from_expr(st->m, c->u.call.args[1], &dst, &why) && tlc_buffer_in_shared(src.buf) &&
	    dst.buf->scope == TLC_SCOPE_GLOBAL) {
		tlc_stmt *t = lw_lower_tma_store(st, s, c->u.call.args[0], c->u.call.args[1], &why);
		if (t)
			return t;
		if (st->remarks)
			tlc_note(st->ctx, s->loc, "lower-tile-ops: T.copy of '%s' into '%s' is not a TMA store: %s",
			         src.buf->name, dst.buf->name, why);
	}
	return lw_expand_copy(st, s);
}

/* A tile op's lowering (itself lowered in turn), or s as it is. */
static tlc_stmt *lower_eval(tlc_rewriter *rw, tlc_stmt *s)
{
	lw_state *st = ((lower_walk *)rw->ctx)->st;
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL)
		return s;
	tlc_stmt *low = NULL;
	switch (c->u.call.op) {
	case TLC_OP_COPY: low = lower_copy(st, s); break;
	case TLC_OP_FILL: low = lw_expand_fill(st, s, false); break;
	case TLC_OP_CLEAR: low = lw_expand_fill(st, s, true); break;
	case TLC_OP_ATOMIC_ADD:
		if (c->u.call.args[0]->kind == TLC_EXPR_LOAD) {
			s->u.eval.call = outside(st, s, c);
			return s; /* one element: the target emits it */
		}
		low = lw_expand_atomic(st, s);
		break;
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN:
		s->u.eval.call = outside(st, s, c);
		return s; /* element forms only: the target emits them */
	case TLC_OP_CP_ASYNC_COMMIT:
	case TLC_OP_CP_ASYNC_WAIT:
		/* the program's own groups (T.ptx_commit_group, prefer_async): on a
		 * target without cp.async its copies were ordinary, done already */
		if (st->target->async_copy & TLC_ASYNC_CP_ASYNC)
			return s;
		return tlc_seq_new(st->m, s->loc);
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: {
		tlc_stmt *g = lw_lower_gemm(st, s);
		return g ? g : s;
	}
	case TLC_OP_TMA_COPY: {
		tlc_stmt *t = lw_lower_tma_copy(st, s);
		return t ? t : s;
	}
	case TLC_OP_WAIT_WGMMA: {
		tlc_stmt *w = lw_lower_wait_wgmma(st, s);
		return w ? w : s;
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
		s->u.eval.call = outside(st, s, c);
		return s;
	}
	if (!low)
		return s;
	return tlc_stmt_rewrite(rw, low); /* the op's T.Parallel nest */
}

/* A tile op or a nest is replaced by its lowering, which the rewrite then
 * leaves alone; any other statement may open a scope, bind a range or
 * access a fragment where no thread holds it. */
static tlc_stmt *lower_pre(tlc_rewriter *rw, tlc_stmt *s)
{
	lower_walk *w = rw->ctx;
	lw_state *st = w->st;
	if (s->kind == TLC_STMT_EVAL)
		return lower_eval(rw, s);
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL)
		return lw_lower_nest(st, s);
	if (s->kind == TLC_STMT_ATTR && strcmp(s->u.attr.key, "async_copy") == 0) {
		/* inject-pipeline's asynchronous copies (and the program's own:
		 * prefer_async, async_scope): their element copies become
		 * T.cp_async (lower_vector.c) where the target has it, ordinary
		 * ones otherwise; the marker has done its work */
		bool saved = st->async_copy;
		st->async_copy = (st->target->async_copy & TLC_ASYNC_CP_ASYNC) != 0;
		tlc_stmt *body = tlc_stmt_rewrite(rw, s->u.attr.body);
		st->async_copy = saved;
		return body;
	}
	if (tlc_stmt_completes_on_mbarrier(s)) {
		/* warp-specialize's producer copies that TMA cannot do: cp.async
		 * where the element copies allow, published by the mbarrier the
		 * attribute names (which the sync checks read: it stays) */
		bool saved = st->async_copy;
		st->async_copy = true;
		tlc_stmt *body = tlc_stmt_rewrite(rw, s->u.attr.body);
		st->async_copy = saved;
		return tlc_attr_new(st->m, s->loc, s->u.attr.key, s->u.attr.value, body);
	}
	if (s->kind == TLC_STMT_SCOPE && s->u.scope.call->u.call.op == TLC_OP_WS) {
		/* ops inside run on the scope's warpgroups (layout-inference bound
		 * their fragments to them; single-thread work goes to the first) */
		int64_t lo, n;
		const char *why = NULL;
		if (tlc_ws_range(s->u.scope.call, st->target->warpgroup, &lo, &n, &why)) {
			st->op_lo = lo;
			st->op_threads = n;
		}
	}
	if (opens_scope(s)) {
		w->saved = tlc_mem_grow(w->saved, w->depth, &w->cap, sizeof(*w->saved));
		w->saved[w->depth++] = st->ranges.n;
	}
	switch (s->kind) {
	case TLC_STMT_FOR:
		/* no pipelining pass has run: the loop runs unpipelined, which
		 * computes the same result (the barriers between iterations come
		 * from the target) */
		if (s->u.loop.kind == TLC_FOR_PIPELINED)
			s->u.loop.kind = TLC_FOR_SERIAL;
		tlc_ranges_push_loop(&st->ranges, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
		break;
	case TLC_STMT_IF:
		s->u.if_.cond = outside(st, s, s->u.if_.cond);
		if (!st->divergent_if && !tlc_expr_block_uniform(st->uniform, s->u.if_.cond))
			st->divergent_if = s;
		break;
	case TLC_STMT_LET: {
		int64_t lo, hi;
		s->u.let.value = outside(st, s, s->u.let.value);
		if (tlc_expr_bounds(&st->ranges, s->u.let.value, &lo, &hi))
			tlc_ranges_push(&st->ranges, s->u.let.var, lo, hi);
		break;
	}
	case TLC_STMT_STORE: {
		tlc_stmt *stage = tlc_seq_new(st->m, s->loc);
		tlc_stmt *out = lw_outside_store(st, s, stage);
		if (!stage->u.seq.n)
			return out; /* nothing inside a store to lower */
		if (st->divergent_if) {
			note_staging(st, s, stage);
			return out;
		}
		tlc_seq_append(st->m, stage, out);
		return stage;
	}
	default: break;
	}
	return NULL;
}

static tlc_stmt *lower_post(tlc_rewriter *rw, tlc_stmt *s)
{
	lower_walk *w = rw->ctx;
	lw_state *st = w->st;
	if (st->npending && s->kind == TLC_STMT_SEQ) {
		/* a let reading staged fragments: its staging goes before it in
		 * its block, where the binding stays in scope */
		tlc_stmt *out = NULL;
		for (int i = 0; i < s->u.seq.n; i++) {
			tlc_stmt *it = s->u.seq.items[i];
			tlc_stmt *stage = it->kind == TLC_STMT_LET ? staging_of(st, it) : NULL;
			if (stage && !out) {
				out = tlc_seq_new(st->m, s->loc);
				for (int k = 0; k < i; k++)
					tlc_seq_append(st->m, out, s->u.seq.items[k]);
			}
			if (stage)
				for (int k = 0; k < stage->u.seq.n; k++)
					tlc_seq_append(st->m, out, stage->u.seq.items[k]);
			if (out)
				tlc_seq_append(st->m, out, it);
		}
		if (out) {
			s->u.seq.n = 0;
			for (int i = 0; i < out->u.seq.n; i++)
				tlc_seq_append(st->m, s, out->u.seq.items[i]);
		}
	}
	if (s->kind == TLC_STMT_SCOPE && s->u.scope.call->u.call.op == TLC_OP_WS) {
		w->st->op_lo = 0;
		w->st->op_threads = 0;
	}
	if (opens_scope(s))
		w->st->ranges.n = w->saved[--w->depth];
	if (s == st->divergent_if)
		st->divergent_if = NULL;
	tlc_stmt *stage = st->npending && s->kind != TLC_STMT_LET ? staging_of(st, s) : NULL;
	if (stage) {
		tlc_seq_append(st->m, stage, s);
		return stage;
	}
	return NULL;
}

/* The kernel's mbarriers (T.alloc_barrier at its top level) are
 * initialised after its allocations, before anything uses them. */
static void init_barriers(lw_state *st)
{
	tlc_stmt *body = st->f->body;
	if (!body || body->kind != TLC_STMT_SEQ)
		return;
	tlc_buffer *bars[64];
	int n = 0, after = -1;
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (s->kind != TLC_STMT_ALLOC)
			continue;
		after = i;
		if (s->u.alloc.buf->scope == TLC_SCOPE_BARRIER && n < 64)
			bars[n++] = s->u.alloc.buf;
	}
	if (!n)
		return;
	tlc_stmt *init = lw_barrier_init(st, n, bars);
	tlc_stmt *out = tlc_seq_new(st->m, body->loc);
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_seq_append(st->m, out, body->u.seq.items[i]);
		if (i == after)
			for (int k = 0; k < init->u.seq.n; k++)
				tlc_seq_append(st->m, out, init->u.seq.items[k]);
	}
	st->f->body = out;
}

/* The shared copies of staged fragments, allocated first in the kernel (a
 * copy serves every nest that stages its fragment, wherever they are). */
static void alloc_staged(lw_state *st)
{
	if (!st->nstaged)
		return;
	tlc_stmt *body = st->f->body;
	tlc_stmt *out = tlc_seq_new(st->m, body ? body->loc : st->f->loc);
	for (int i = 0; i < st->nstaged; i++)
		tlc_seq_append(st->m, out, tlc_alloc_new(st->m, st->staged_to[i]->loc, st->staged_to[i]));
	if (body && body->kind == TLC_STMT_SEQ)
		for (int i = 0; i < body->u.seq.n; i++)
			tlc_seq_append(st->m, out, body->u.seq.items[i]);
	else if (body)
		tlc_seq_append(st->m, out, body);
	st->f->body = out;
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
	tlc_context *ctx = tlc_module_context(m);
	lw_state st = {.m = m,
	               .ctx = ctx,
	               .f = f,
	               .target = tlc_module_target_info(m),
	               .threads = 1,
	               .tma_store = tlc_opt_bool(opts, "tma-store", true),
	               .stmatrix = tlc_opt_bool(opts, "stmatrix", true),
	               .remarks = tlc_opt_bool(opts, "remarks", false)};
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
	tlc_ranges_push_frame(&st.ranges, f);
	st.uniform = tlc_uniformity_new(m, f);
	lower_walk walk = {.st = &st};
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.ctx = &walk;
	rw.stmt_pre = lower_pre;
	rw.stmt_post = lower_post;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	tlc_uniformity_free((tlc_uniformity *)st.uniform);
	if (!st.errors)
		alloc_staged(&st);
	if (!st.errors)
		init_barriers(&st);
	tlc_mem_free(walk.saved);
	tlc_mem_free(st.pending);
	if (!st.errors)
		lw_lower_buffers(&st);
	tlc_ranges_free(&st.ranges);
	return st.errors ? 1 : 0;
}

static const tlc_pass_option lower_options[] = {
	{"tma-store", TLC_OPT_BOOL, "store whole shared tiles to global tensors with TMA where the target has it"},
	{"stmatrix", TLC_OPT_BOOL, "store accumulator fragments into 16-bit shared tiles with stmatrix where the target has it"},
	{"remarks", TLC_OPT_BOOL, "say on stderr why a shared-to-global T.copy is not a TMA store"},
	{NULL, TLC_OPT_BOOL, NULL},
};

static const tlc_pass_desc lower_tile_ops_pass = {
	.name = "lower-tile-ops",
	.summary = "lower tile ops and T.Parallel nests to per-thread code through their layouts",
	.run = run_lower_tile_ops,
	.options = lower_options,
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
