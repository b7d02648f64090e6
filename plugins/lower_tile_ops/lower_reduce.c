/* lower_reduce.c - reductions of fragments and cumulative sums.
 *
 * T.reduce_<op>(src, dst, dim, clear=True) with src a fragment of layout S
 * and dst a fragment whose layout is S with `dim` projected away:
 *  1. each thread folds the registers of S that land in the same register of
 *     dst (the register digits of S along dim);
 *  2. threads that differ only in a thread digit of S along dim combine their
 *     partial results: inside a warp with shuffles (xor butterflies over the
 *     digit's lane bits), across warps through a shared workspace;
 *  3. the result goes to dst (folded into it when clear=False).
 * Every thread of dst's range ends with the full result, as the projection's
 * replication says it holds it.
 *
 * T.cumsum(src, dst, dim, reverse) of shared tiles: one thread per line along
 * dim, which walks it serially. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/walk.h>

#include "lower.h"

typedef enum red_kind { RED_MAX, RED_MIN, RED_SUM, RED_ABSSUM, RED_ABSMAX } red_kind;

static const tlc_expr *ci(lw_state *st, int64_t v) { return tlc_i32(st->m, v); }

static const tlc_expr *identity(lw_state *st, red_kind k, tlc_dtype t)
{
	bool f = tlc_dtype_is_float(t);
	switch (k) {
	case RED_MAX: return f ? tlc_float(st->m, t, -INFINITY) : tlc_int(st->m, t, tlc_dtype_is_unsigned(t) ? 0 : INT32_MIN);
	case RED_MIN: return f ? tlc_float(st->m, t, INFINITY) : tlc_int(st->m, t, INT32_MAX);
	default: return f ? tlc_float(st->m, t, 0.0) : tlc_int(st->m, t, 0);
	}
}

static const tlc_expr *combine(lw_state *st, red_kind k, const tlc_expr *acc, const tlc_expr *x)
{
	switch (k) {
	case RED_MAX:
	case RED_ABSMAX: return tlc_binary(st->m, TLC_EXPR_MAX, acc, x);
	case RED_MIN: return tlc_binary(st->m, TLC_EXPR_MIN, acc, x);
	default: return tlc_binary(st->m, TLC_EXPR_ADD, acc, x);
	}
}

/* The element folded in: |x| for the abs reductions, in the accumulator type. */
static const tlc_expr *element(lw_state *st, red_kind k, const tlc_expr *x, tlc_dtype acc)
{
	if (x->dtype != acc)
		x = tlc_cast(st->m, acc, x);
	if (k == RED_ABSSUM || k == RED_ABSMAX)
		x = tlc_call(st->m, TLC_OP_ABS, acc, 1, &x, 0, NULL, NULL);
	return x;
}

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* A thread digit whose threads all sit in one warp (of the target's lanes,
 * counted from a warp boundary): shuffles can combine them. */
static bool in_one_warp(const lw_state *st, const tlc_layout *S, const tlc_frag_digit *dg)
{
	int64_t lanes = st->target->lanes;
	return dg->weight * dg->radix <= lanes && is_pow2(dg->radix) && S->thread_lo % lanes == 0;
}

static tlc_stmt *store1(lw_state *st, tlc_loc loc, tlc_buffer *b, const tlc_expr *i, const tlc_expr *v)
{
	return tlc_store_new(st->m, loc, b, 1, &i, v);
}

static const tlc_expr *load1(lw_state *st, tlc_buffer *b, const tlc_expr *i) { return tlc_load(st->m, b, 1, &i); }

static tlc_stmt *unrolled(lw_state *st, tlc_loc loc, tlc_var *v, int64_t n, tlc_stmt *body)
{
	return tlc_for_new(st->m, loc, v, ci(st, 0), ci(st, n), TLC_FOR_UNROLLED, body);
}

static tlc_buffer *new_buffer(lw_state *st, const char *name, tlc_dtype t, tlc_scope scope, int64_t n, tlc_loc loc)
{
	const tlc_expr *shape = ci(st, n);
	char buf[64];
	snprintf(buf, sizeof buf, "%s_%d", name, st->counter++);
	return tlc_buffer_new(st->m, buf, t, scope, 1, &shape, loc);
}

/* body for the threads of the source's range: no guard when that is the
 * whole block (a guard would hide from sync-insert that every thread runs it) */
static tlc_stmt *in_range(lw_state *st, tlc_loc loc, const tlc_expr *t, int64_t T, tlc_stmt *body)
{
	if (T >= st->threads && t == st->tid)
		return body;
	return tlc_if_new(st->m, loc, tlc_binary(st->m, TLC_EXPR_LT, t, ci(st, T)), body, NULL);
}

/* Whether the kernel writes `dst` before statement `at` in program order, and
 * whether `at` sits in a loop.  A reduce with clear=False into a fragment
 * nothing wrote before reads registers that hold no value: the printed CUDA
 * would read an uninitialised variable (undefined: nvcc may fold it away or
 * keep whatever the register held, and tlc-sim reads NaN).  TileLang
 * programs do this (a combine step's running max reduced once with
 * clear=False); where no loop repeats it, the only definition that matches
 * what such programs expect is clear=True. */
typedef struct first_write {
	const tlc_stmt *at;
	const tlc_buffer *dst;
	int loops;       /* loops around the statement being visited */
	bool written;    /* a write of dst came first */
	bool in_loop;    /* `at` is inside a loop */
} first_write;

static tlc_walk_action first_write_pre(void *ctx, const tlc_stmt *s)
{
	first_write *w = ctx;
	if (s == w->at) {
		w->in_loop = w->loops > 0;
		return TLC_WALK_STOP;
	}
	if (s->kind == TLC_STMT_FOR)
		w->loops++;
	/* only statements without nested ones: a loop or an if around `at`
	 * holds `at`'s own write */
	if (tlc_stmt_num_children(s) == 0 && (tlc_stmt_use_of(s, w->dst) & TLC_ACCESS_WRITE)) {
		w->written = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

static void first_write_post(void *ctx, const tlc_stmt *s)
{
	first_write *w = ctx;
	if (s->kind == TLC_STMT_FOR)
		w->loops--;
}

tlc_stmt *lw_lower_reduce(lw_state *st, tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	const char *name = tlc_op_get(st->ctx, c->u.call.op)->name;
	red_kind kind = c->u.call.op == TLC_OP_REDUCE_MAX      ? RED_MAX
	                : c->u.call.op == TLC_OP_REDUCE_MIN    ? RED_MIN
	                : c->u.call.op == TLC_OP_REDUCE_SUM    ? RED_SUM
	                : c->u.call.op == TLC_OP_REDUCE_ABSSUM ? RED_ABSSUM
	                                                       : RED_ABSMAX;
	if (c->u.call.args[0]->kind != TLC_EXPR_BUF || c->u.call.args[1]->kind != TLC_EXPR_BUF) {
		lw_error(st, s->loc, "T.%s: source and result must be whole buffers", name);
		return NULL;
	}
	tlc_buffer *src = c->u.call.args[0]->u.buf, *dst = c->u.call.args[1]->u.buf;
	if (src->scope != TLC_SCOPE_FRAGMENT || dst->scope != TLC_SCOPE_FRAGMENT) {
		lw_error(st, s->loc, "T.%s: source and result must be fragments (reductions of shared memory are not supported yet)",
		         name);
		return NULL;
	}
	const tlc_layout *S = src->layout, *D = dst->layout;
	if (!S || !D || S->kind != TLC_LAYOUT_FRAGMENT || D->kind != TLC_LAYOUT_FRAGMENT) {
		lw_error(st, s->loc, "T.%s: the fragments have no layouts (run layout-inference first)", name);
		return NULL;
	}
	int64_t dim = -1, clear = 1;
	if (c->u.call.nargs > 2 && !tlc_expr_as_int(c->u.call.args[2], &dim)) {
		lw_error(st, s->loc, "T.%s: dim must be a compile-time integer", name);
		return NULL;
	}
	if (dim < 0)
		dim += S->ndim;
	const tlc_expr *ck = tlc_call_kw(c, "clear");
	if (ck && !tlc_expr_as_int(ck, &clear)) {
		lw_error(st, s->loc, "T.%s: clear must be True or False", name);
		return NULL;
	}
	if (!clear) {
		first_write w = {.at = s, .dst = dst};
		tlc_visitor v = {.ctx = &w, .stmt_pre = first_write_pre, .stmt_post = first_write_post};
		tlc_walk_stmt(&v, st->f->body);
		if (!w.written && !w.in_loop) {
			tlc_warning(st->ctx, s->loc,
			            "T.%s(clear=False) folds into '%s', which nothing wrote before: its "
			            "registers hold no value, so it is reduced as with clear=True; T.fill "
			            "'%s' first to start from other values",
			            name, dst->name, dst->name);
			clear = 1;
		} else if (!w.written) {
			tlc_warning(st->ctx, s->loc,
			            "T.%s(clear=False) folds into '%s', which nothing wrote before this "
			            "loop: its first iteration reads registers that hold no value; T.fill "
			            "'%s' before the loop",
			            name, dst->name, dst->name);
		}
	}
	/* a 1-D source reduces into a (1,) fragment (tlc_fragment_project) */
	bool scalar = S->ndim == 1 && D->ndim == 1 && D->shape[0] == 1;
	if (dim < 0 || dim >= S->ndim || (D->ndim != S->ndim - 1 && !scalar)) {
		lw_error(st, s->loc, "T.%s: '%s' must have the dimensions of '%s' without dim %lld", name, dst->name,
		         src->name, (long long)dim);
		return NULL;
	}
	int keep[LW_MAX_DIMS], nk = 0;
	for (int d = 0; d < S->ndim; d++)
		if (d != dim)
			keep[nk++] = d;
	if (scalar)
		keep[nk++] = -2; /* D's one dimension has extent 1: no digit of S is on it */
	tlc_loc loc = s->loc;
	tlc_module *m = st->m;
	tlc_dtype acc = dst->dtype;
	tlc_stmt *out = tlc_seq_new(m, loc);
	int64_t nS = S->out_shape[0], nD = D->out_shape[0];

	/* 1. fold this thread's registers */
	tlc_buffer *tmp = new_buffer(st, "red", acc, TLC_SCOPE_LOCAL, nD, loc);
	tlc_seq_append(m, out, tlc_alloc_new(m, loc, tmp));
	tlc_var *rd = lw_fresh(st, "rd");
	tlc_seq_append(m, out, unrolled(st, loc, rd, nD, store1(st, loc, tmp, tlc_var_ref(m, rd), identity(st, kind, acc))));
	tlc_var *rs = lw_fresh(st, "rs");
	const char *why = NULL;
	const tlc_expr *to = lw_frag_register(st, S, tlc_var_ref(m, rs), D, keep, nk, &why);
	if (!to) {
		lw_error(st, loc, "T.%s: '%s' does not have the layout of '%s' reduced over dim %lld: %s", name, dst->name,
		         src->name, (long long)dim, why);
		return NULL;
	}
	const tlc_expr *x = element(st, kind, load1(st, src, tlc_var_ref(m, rs)), acc);
	tlc_seq_append(m, out, unrolled(st, loc, rs, nS, store1(st, loc, tmp, to, combine(st, kind, load1(st, tmp, to), x))));

	/* 2. combine across the threads of dim: shuffles inside a warp (of the
	 * target's lanes), a shared workspace across warps */
	const tlc_expr *t = S->thread_lo ? tlc_binary(m, TLC_EXPR_SUB, st->tid, ci(st, S->thread_lo)) : st->tid;
	bool need_ws = false;
	for (int k = 0; k < S->ndigits; k++) {
		const tlc_frag_digit *dg = &S->digits[k];
		if (!dg->is_thread || dg->dim != dim)
			continue;
		if (in_one_warp(st, S, dg)) {
			for (int64_t mask = dg->weight; mask < dg->weight * dg->radix; mask *= 2) {
				tlc_var *r = lw_fresh(st, "rd");
				const tlc_expr *v = load1(st, tmp, tlc_var_ref(m, r));
				const tlc_expr *args[2] = {v, ci(st, mask)};
				const tlc_expr *other = tlc_call(m, TLC_OP_SHFL_XOR, acc, 2, args, 0, NULL, NULL);
				tlc_seq_append(m, out, unrolled(st, loc, r, nD,
				                                store1(st, loc, tmp, tlc_var_ref(m, r), combine(st, kind, v, other))));
			}
		} else {
			need_ws = true;
		}
	}
	if (need_ws) {
		/* every thread publishes its partials; each then folds those of the
		 * threads that differ from it only in the remaining digits of dim */
		int64_t T = S->threads;
		tlc_buffer *ws = new_buffer(st, "red_ws", acc, TLC_SCOPE_SHARED_DYN, nD * T, loc);
		tlc_seq_append(m, out, tlc_alloc_new(m, loc, ws));
		tlc_stmt *pub = tlc_seq_new(m, loc);
		tlc_var *r = lw_fresh(st, "rd");
		/* slot (r, t): r * T + t; when the fragment has fewer threads than
		 * the block, t * nD + r, which distinct threads never share whatever
		 * t's range (sync-insert then sees no hazard between the stores of
		 * different threads inside the `t < T` guard) */
		bool by_thread = T < st->threads;
		const tlc_expr *slot =
		    by_thread ? tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, t, ci(st, nD)), tlc_var_ref(m, r))
		              : tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, r), ci(st, T)), t);
		if (by_thread) {
			/* stores spelled out, no loop: inside the `t < T` guard no
			 * barrier may go, and sync-insert would want one between the
			 * iterations of a loop that stores the same buffer */
			for (int64_t k = 0; k < nD; k++) {
				const tlc_expr *sk = tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, t, ci(st, nD)), ci(st, k));
				tlc_seq_append(m, pub, store1(st, loc, ws, tlc_simplify_expr(m, sk), load1(st, tmp, ci(st, k))));
			}
		} else {
			tlc_seq_append(m, pub,
			               unrolled(st, loc, r, nD, store1(st, loc, ws, slot, load1(st, tmp, tlc_var_ref(m, r)))));
		}
		tlc_seq_append(m, out, tlc_eval_new(m, loc, tlc_call(m, TLC_OP_SYNC_THREADS, TLC_DT_VOID, 0, NULL, 0, NULL, NULL)));
		tlc_seq_append(m, out, in_range(st, loc, t, T, pub));
		tlc_seq_append(m, out, tlc_eval_new(m, loc, tlc_call(m, TLC_OP_SYNC_THREADS, TLC_DT_VOID, 0, NULL, 0, NULL, NULL)));
		/* base: t with the workspace digits cleared; partner c adds them back */
		const tlc_expr *base = t;
		int64_t count = 1;
		const tlc_expr *partner_of_c = NULL;
		tlc_var *cv = lw_fresh(st, "c");
		for (int k = 0; k < S->ndigits; k++) {
			const tlc_frag_digit *dg = &S->digits[k];
			if (!dg->is_thread || dg->dim != dim ||
			    (in_one_warp(st, S, dg)))
				continue;
			base = tlc_binary(m, TLC_EXPR_SUB, base,
			                  tlc_binary(m, TLC_EXPR_MUL, lw_digit_value(st, t, dg->weight, dg->radix, T),
			                             ci(st, dg->weight)));
			const tlc_expr *cd = tlc_binary(m, TLC_EXPR_MUL,
			                                lw_digit_value(st, tlc_var_ref(m, cv), count, dg->radix, INT64_MAX),
			                                ci(st, dg->weight));
			partner_of_c = partner_of_c ? tlc_binary(m, TLC_EXPR_ADD, partner_of_c, cd) : cd;
			count *= dg->radix;
		}
		tlc_var *r2 = lw_fresh(st, "rd");
		const tlc_expr *partner = tlc_binary(m, TLC_EXPR_ADD, base, partner_of_c);
		const tlc_expr *wslot =
		    by_thread
		        ? tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, partner, ci(st, nD)), tlc_var_ref(m, r2))
		        : tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, r2), ci(st, T)), partner);
		tlc_stmt *fold = unrolled(st, loc, r2, nD,
		                          store1(st, loc, tmp, tlc_var_ref(m, r2),
		                                 combine(st, kind, load1(st, tmp, tlc_var_ref(m, r2)), load1(st, ws, wslot))));
		/* start from the identity: the thread's own partial is one of the c */
		tlc_var *r3 = lw_fresh(st, "rd");
		tlc_stmt *gather = tlc_seq_new(m, loc);
		tlc_seq_append(m, gather,
		               unrolled(st, loc, r3, nD, store1(st, loc, tmp, tlc_var_ref(m, r3), identity(st, kind, acc))));
		tlc_seq_append(m, gather, tlc_for_new(m, loc, cv, ci(st, 0), ci(st, count), TLC_FOR_UNROLLED, fold));
		tlc_seq_append(m, out, in_range(st, loc, t, T, gather));
		/* the workspace may be reused by the next reduction */
		tlc_seq_append(m, out, tlc_eval_new(m, loc, tlc_call(m, TLC_OP_SYNC_THREADS, TLC_DT_VOID, 0, NULL, 0, NULL, NULL)));
	}

	/* 3. into dst */
	tlc_var *r = lw_fresh(st, "rd");
	const tlc_expr *v = load1(st, tmp, tlc_var_ref(m, r));
	if (!clear)
		v = combine(st, kind, load1(st, dst, tlc_var_ref(m, r)), v);
	if (v->dtype != dst->dtype)
		v = tlc_cast(m, dst->dtype, v);
	tlc_seq_append(m, out, unrolled(st, loc, r, nD, store1(st, loc, dst, tlc_var_ref(m, r), v)));
	return out;
}

tlc_stmt *lw_lower_cumsum(lw_state *st, tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	tlc_module *m = st->m;
	const tlc_expr *sx = c->u.call.args[0];
	const tlc_expr *dx = c->u.call.nargs > 1 ? c->u.call.args[1] : sx;
	if (sx->kind != TLC_EXPR_BUF || dx->kind != TLC_EXPR_BUF) {
		lw_error(st, s->loc, "T.cumsum: source and destination must be whole buffers");
		return NULL;
	}
	tlc_buffer *src = sx->u.buf, *dst = dx->u.buf;
	if (src->scope == TLC_SCOPE_FRAGMENT || dst->scope == TLC_SCOPE_FRAGMENT) {
		/* TileLang 0.1 does not lower it either */
		lw_error(st, s->loc,
		         "T.cumsum of fragment '%s' is not supported: T.copy it into a shared "
		         "buffer of the same shape, T.cumsum there and T.copy the result back",
		         src->scope == TLC_SCOPE_FRAGMENT ? src->name : dst->name);
		return NULL;
	}
	if (!tlc_buffer_in_shared(src) || !tlc_buffer_in_shared(dst) || src->ndim != dst->ndim ||
	    src->ndim < 1 || src->ndim > 2) {
		lw_error(st, s->loc, "T.cumsum supports 1-D and 2-D shared buffers of one shape");
		return NULL;
	}
	int64_t shape[2] = {1, 1}, dim = -1, reverse = 0, x;
	for (int d = 0; d < src->ndim; d++)
		if (!tlc_expr_as_int(src->shape[d], &shape[d]) || !tlc_expr_as_int(dst->shape[d], &x) || x != shape[d]) {
			lw_error(st, s->loc, "T.cumsum: source and destination need the same compile-time shape");
			return NULL;
		}
	if (c->u.call.nargs > 2 && !tlc_expr_as_int(c->u.call.args[2], &dim)) {
		lw_error(st, s->loc, "T.cumsum: dim must be a compile-time integer");
		return NULL;
	}
	const tlc_expr *rk = tlc_call_kw(c, "reverse");
	if (rk && !tlc_expr_as_int(rk, &reverse)) {
		lw_error(st, s->loc, "T.cumsum: reverse must be True or False");
		return NULL;
	}
	if (dim < 0)
		dim += src->ndim;
	if (dim < 0 || dim >= src->ndim) {
		lw_error(st, s->loc, "T.cumsum: dim is out of range");
		return NULL;
	}
	/* lines: every index of the other dimension (one line for 1-D) */
	int64_t lines = src->ndim == 2 ? shape[1 - dim] : 1, len = shape[src->ndim == 2 ? dim : 0];
	tlc_loc loc = s->loc;
	tlc_stmt *out = tlc_seq_new(m, loc);
	tlc_buffer *run = new_buffer(st, "cumsum", TLC_DT_FLOAT32, TLC_SCOPE_LOCAL, 1, loc);
	tlc_var *line = lw_fresh(st, "line"), *k = lw_fresh(st, "k");
	tlc_stmt *per_line = tlc_seq_new(m, loc);
	tlc_seq_append(m, per_line, tlc_alloc_new(m, loc, run));
	tlc_seq_append(m, per_line, store1(st, loc, run, ci(st, 0), tlc_float(m, TLC_DT_FLOAT32, 0.0)));
	const tlc_expr *pos = reverse ? tlc_binary(m, TLC_EXPR_SUB, ci(st, len - 1), tlc_var_ref(m, k)) : tlc_var_ref(m, k);
	const tlc_expr *idx[2];
	if (src->ndim == 1)
		idx[0] = pos;
	else {
		idx[dim] = pos;
		idx[1 - dim] = tlc_var_ref(m, line);
	}
	tlc_stmt *step = tlc_seq_new(m, loc);
	const tlc_expr *sum = tlc_binary(m, TLC_EXPR_ADD, load1(st, run, ci(st, 0)),
	                                 tlc_cast(m, TLC_DT_FLOAT32, tlc_load(m, src, src->ndim, idx)));
	tlc_seq_append(m, step, store1(st, loc, run, ci(st, 0), sum));
	tlc_seq_append(m, step, tlc_store_new(m, loc, dst, dst->ndim, idx, tlc_cast(m, dst->dtype, load1(st, run, ci(st, 0)))));
	tlc_seq_append(m, per_line, tlc_for_new(m, loc, k, ci(st, 0), ci(st, len), TLC_FOR_SERIAL, step));
	/* thread `line` owns a line; more lines than threads take turns */
	tlc_var *turn = lw_fresh(st, "turn");
	int64_t turns = (lines + st->threads - 1) / st->threads;
	tlc_stmt *body = tlc_seq_new(m, loc);
	tlc_seq_append(m, body, tlc_let_new(m, loc, line,
	                                    tlc_binary(m, TLC_EXPR_ADD, st->tid,
	                                               tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, turn), ci(st, st->threads)))));
	tlc_seq_append(m, body, tlc_if_new(m, loc, tlc_binary(m, TLC_EXPR_LT, tlc_var_ref(m, line), ci(st, lines)), per_line, NULL));
	tlc_stmt *loop = tlc_for_new(m, loc, turn, ci(st, 0), ci(st, turns), TLC_FOR_SERIAL, body);
	/* each thread reads and writes only its own lines */
	tlc_seq_append(m, out, tlc_attr_new(m, loc, tlc_intern(m, "thread_private"), ci(st, 1), loop));
	return out;
}
