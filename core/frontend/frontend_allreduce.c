/* frontend_allreduce.c - TVM's cross-thread reduction as TileLang programs
 * write it (the gemv examples):
 *
 *   with T.attr(T.comm_reducer(lambda x, y: x + y, [T.Cast(dtype, 0)]),
 *               "reduce_scope", T.reinterpret(T.uint64(0), dtype="handle")):
 *       T.evaluate(T.tvm_thread_allreduce(T.uint32(1), value, cond, result[0], tk,
 *                                         dtype="handle"))
 *
 * Every thread's `result` element becomes the reducer's fold of `value`
 * (the identity where `cond` is false) over the threads of the block that
 * differ from it only in the listed thread indices (T.get_thread_binding
 * variables).  The reducer must be associative and commutative (TVM's
 * rule): the order of the fold is not defined.
 *
 * tlc lowers it through shared memory: each thread stores its value at its
 * place in a block-wide buffer, then folds the values of its group in a
 * serial loop (sync-insert puts the barrier between the two).  One value
 * per reduction (size 1) is supported; more are refused. */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

/* The reducer value T.comm_reducer makes: a tuple that no program can
 * write, (marker, combiner, identities). */
static const char reducer_marker[] = "tlc.comm_reducer";

static bool is_reducer(const fe_val *v)
{
	return v && v->kind == FV_TUPLE && v->u.seq.n == 3 && v->u.seq.items[0]->kind == FV_STR &&
	       strcmp(v->u.seq.items[0]->u.s, reducer_marker) == 0;
}

/* T.reinterpret(x, dtype="handle"): the null handle of TVM's reduce_scope
 * attribute, which only that attribute may take. */
static bool handle_reinterpret(int nkw, const char **kwn, fe_val **kwv)
{
	for (int k = 0; k < nkw; k++)
		if (!strcmp(kwn[k], "dtype") && kwv[k]->kind == FV_STR && !strcmp(kwv[k]->u.s, "handle"))
			return true;
	return false;
}

bool fe_allreduce_has(const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
		      fe_val **kwv)
{
	if (!strcmp(n, "comm_reducer") || !strcmp(n, "tvm_thread_allreduce") || !strcmp(n, "evaluate"))
		return true;
	if (!strcmp(n, "attr"))
		return nargs == 3 && is_reducer(args[0]);
	if (!strcmp(n, "reinterpret"))
		return handle_reinterpret(nkw, kwn, kwv);
	return false;
}

static fe_val *comm_reducer(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
			    tlc_loc loc)
{
	static const char *const names[] = {"combiner", "identity_element", "span"};
	fe_val *a[3];
	if (!fe_bind_args(F, "T.comm_reducer", names, 3, 2, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[0]->kind != FV_FUNC) {
		tlc_error(F->ctx, loc, "T.comm_reducer: the combiner must be a function of two values, got %s",
			  fe_kind_name(a[0]));
		return NULL;
	}
	fe_val *ids = a[1];
	if (ids->kind != FV_LIST && ids->kind != FV_TUPLE) {
		fe_val *one = fe_seq(F, FV_LIST, 1);
		one->u.seq.items[0] = ids;
		ids = one;
	}
	fe_val *r = fe_seq(F, FV_TUPLE, 3);
	r->u.seq.items[0] = fe_str(F, reducer_marker);
	r->u.seq.items[1] = a[0];
	r->u.seq.items[2] = ids;
	return r;
}

/* T.attr(reducer, "reduce_scope", handle): the reducer of the allreduce in
 * its body.  The body is plain code (a host value as the 'with' item). */
static fe_val *reduce_scope(fe *F, fe_val **args, tlc_loc loc)
{
	if (args[1]->kind != FV_STR || strcmp(args[1]->u.s, "reduce_scope") != 0) {
		tlc_error(F->ctx, loc, "T.attr of a T.comm_reducer takes the key \"reduce_scope\"");
		return NULL;
	}
	if (!fe_need_kernel(F, "T.attr(T.comm_reducer(...), \"reduce_scope\", ...)", true, loc))
		return NULL;
	F->kernel->reduce_scope = args[0];
	fe_val *v = fe_new(F, FV_HOST);
	v->u.s = "T.attr(reduce_scope)";
	return v;
}

/* The thread dimension whose variable x is, or -1. */
static int thread_dim_of(fe *F, fe_val *x)
{
	tlc_func *f = F->kernel->func;
	if (x->kind != FV_EXPR || x->u.e->kind != TLC_EXPR_VAR)
		return -1;
	for (int d = 0; d < f->thread_ndim && d < 3; d++)
		if (f->thread_vars[d] && x->u.e->u.var == f->thread_vars[d])
			return d;
	return -1;
}

static const tlc_expr *thread_var(fe *F, int d)
{
	tlc_func *f = F->kernel->func;
	if (!f->thread_vars[d])
		f->thread_vars[d] = tlc_var_new(F->m, fe_hint(F, "tx"), TLC_DT_INT32);
	return tlc_var_ref(F->m, f->thread_vars[d]);
}

static fe_val *allreduce(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
			 tlc_loc loc)
{
	const char *fname = "T.tvm_thread_allreduce";
	for (int k = 0; k < nkw; k++)
		if (strcmp(kwn[k], "dtype") != 0) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for %s", kwn[k], fname);
			return NULL;
		}
	if (!fe_need_kernel(F, fname, true, loc))
		return NULL;
	fe_val *red = F->kernel->reduce_scope;
	F->kernel->reduce_scope = NULL;
	if (!is_reducer(red)) {
		tlc_error(F->ctx, loc, "%s must be inside 'with T.attr(T.comm_reducer(combiner, [identity]), "
			  "\"reduce_scope\", ...)', which gives its reducer", fname);
		return NULL;
	}
	int64_t size;
	if (nargs < 1 || !fe_as_int(args[0], &size)) {
		tlc_error(F->ctx, loc, "%s: the first argument must be the number of values reduced", fname);
		return NULL;
	}
	if (size != 1) {
		tlc_error(F->ctx, loc, "%s of %lld values at once is not supported: reduce one value per call "
			  "(T.uint32(1))", fname, (long long)size);
		return NULL;
	}
	if (nargs < 5) {
		tlc_error(F->ctx, loc, "%s(1, value, cond, result, thread_index...) expects at least 5 "
			  "arguments, got %d", fname, nargs);
		return NULL;
	}
	fe_val *ids = red->u.seq.items[2];
	if (ids->u.seq.n != 1) {
		tlc_error(F->ctx, loc, "%s: the reducer has %d identities for 1 value", fname, ids->u.seq.n);
		return NULL;
	}
	fe_val *res = args[3];
	if (res->kind != FV_EXPR || res->u.e->kind != TLC_EXPR_LOAD ||
	    (res->u.e->u.load.buf->scope != TLC_SCOPE_LOCAL && res->u.e->u.load.buf->scope != TLC_SCOPE_VAR)) {
		tlc_error(F->ctx, loc, "%s: the result must be an element of a T.alloc_local buffer "
			  "(C_reduced[0])", fname);
		return NULL;
	}
	tlc_func *f = F->kernel->func;
	int64_t ext[3] = {1, 1, 1};
	for (int d = 0; d < f->thread_ndim && d < 3; d++)
		if (!tlc_expr_as_int(f->threads[d], &ext[d])) {
			tlc_error(F->ctx, loc, "%s needs the kernel's thread counts as constants", fname);
			return NULL;
		}
	bool reduced[3] = {false, false, false};
	for (int i = 4; i < nargs; i++) {
		int d = thread_dim_of(F, args[i]);
		if (d < 0) {
			tlc_error(F->ctx, loc, "%s: argument %d must be a thread index of the kernel "
				  "(T.get_thread_binding(dim)), got %s", fname, i + 1, fe_show(F, args[i]));
			return NULL;
		}
		reduced[d] = true;
	}
	tlc_module *m = F->m;
	const tlc_expr *value = fe_to_scalar(F, args[1], loc);
	if (!value)
		return NULL;
	tlc_dtype t = value->dtype;
	const tlc_expr *identity = fe_scalar_as(F, ids->u.seq.items[0], t, loc);
	const tlc_expr *cond = identity ? fe_scalar_as(F, args[2], TLC_DT_BOOL, loc) : NULL;
	if (!cond)
		return NULL;
	int64_t x;
	if (!tlc_expr_as_int(cond, &x) || !x)
		value = tlc_select(m, cond, value, identity);
	/* the block-wide buffer: thread (t0, t1, t2) at t0 + t1 * e0 + t2 * e0 * e1 */
	const tlc_expr *dims = tlc_i32(m, ext[0] * ext[1] * ext[2]);
	tlc_buffer *ws = tlc_buffer_new(m, fe_hint(F, "red_buf"), t, TLC_SCOPE_SHARED_DYN, 1, &dims, loc);
	fe_emit(F, tlc_alloc_new(m, loc, ws));
	const tlc_expr *own = NULL;
	int64_t group = 1, st = 1;
	tlc_var *k = tlc_var_new(m, fe_hint(F, "k"), TLC_DT_INT32);
	const tlc_expr *kv = tlc_var_ref(m, k), *other = NULL;
	int64_t below = 1; /* the extents of the reduced dimensions before d */
	for (int d = 0; d < f->thread_ndim && d < 3; d++) {
		const tlc_expr *tv = thread_var(F, d);
		const tlc_expr *term = st == 1 ? tv : tlc_binary(m, TLC_EXPR_MUL, tv, tlc_i32(m, st));
		own = own ? tlc_binary(m, TLC_EXPR_ADD, own, term) : term;
		/* the fold's index: the reduced dimensions from k, the others the thread's own */
		const tlc_expr *c = tv;
		if (reduced[d]) {
			c = below == 1 ? kv : tlc_binary(m, TLC_EXPR_FLOORDIV, kv, tlc_i32(m, below));
			c = tlc_binary(m, TLC_EXPR_FLOORMOD, c, tlc_i32(m, ext[d]));
			below *= ext[d];
			group *= ext[d];
		}
		const tlc_expr *cterm = st == 1 ? c : tlc_binary(m, TLC_EXPR_MUL, c, tlc_i32(m, st));
		other = other ? tlc_binary(m, TLC_EXPR_ADD, other, cterm) : cterm;
		st *= ext[d];
	}
	fe_emit(F, tlc_store_new(m, loc, ws, 1, &own, value));
	/* result = identity; for k in range(group): result = combiner(result, ws[...]) */
	tlc_buffer *rb = res->u.e->u.load.buf;
	int rn = res->u.e->u.load.n;
	const tlc_expr *const *ri = res->u.e->u.load.idx;
	const tlc_expr *r0 = fe_scalar_as(F, fe_expr(F, identity), rb->dtype, loc);
	if (!r0)
		return NULL;
	fe_emit(F, tlc_store_new(m, loc, rb, rn, ri, r0));
	fe_val *ca[2] = {fe_expr(F, tlc_load(m, rb, rn, ri)), fe_expr(F, tlc_load(m, ws, 1, &other))};
	fe_val *comb = fe_call(F, red->u.seq.items[1], 2, ca, 0, NULL, NULL, loc);
	const tlc_expr *ce = comb ? fe_scalar_as(F, comb, rb->dtype, loc) : NULL;
	if (!ce)
		return NULL;
	tlc_stmt *body = tlc_seq_new(m, loc);
	tlc_seq_append(m, body, tlc_store_new(m, loc, rb, rn, ri, ce));
	fe_emit(F, tlc_for_new(m, loc, k, tlc_i32(m, 0), tlc_i32(m, group), TLC_FOR_SERIAL, body));
	return F->none;
}

fe_val *fe_call_allreduce(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
			  fe_val **kwv, tlc_loc loc)
{
	if (!strcmp(n, "comm_reducer"))
		return comm_reducer(F, nargs, args, nkw, kwn, kwv, loc);
	if (!strcmp(n, "attr"))
		return reduce_scope(F, args, loc);
	if (!strcmp(n, "reinterpret")) {
		fe_val *v = fe_new(F, FV_HOST);
		v->u.s = FE_NULL_HANDLE;
		return v;
	}
	if (!strcmp(n, "evaluate")) {
		/* T.evaluate(call): the call as a statement (tlc's statement calls
		 * have already been made, and give None); a constant does nothing */
		int64_t c;
		if (nargs != 1 || nkw) {
			tlc_error(F->ctx, loc, "T.evaluate expects 1 argument");
			return NULL;
		}
		if (args[0]->kind == FV_NONE || fe_as_int(args[0], &c))
			return F->none;
		if (args[0]->kind == FV_EXPR && args[0]->u.e->kind == TLC_EXPR_CALL) {
			if (!fe_need_kernel(F, "T.evaluate", false, loc))
				return NULL;
			fe_emit(F, tlc_eval_new(F->m, loc, args[0]->u.e));
			return F->none;
		}
		tlc_error(F->ctx, loc, "T.evaluate takes a call, got %s", fe_kind_name(args[0]));
		return NULL;
	}
	return allreduce(F, nargs, args, nkw, kwn, kwv, loc);
}
