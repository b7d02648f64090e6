/* layout_expr.c - layouts in the IR: the printed forms of tlc/layout.h read
 * into layouts (tlc_layout_from_expr) and layouts written back in their
 * canonical form (tlc_layout_to_expr).  The canonical form uses the layout's
 * own variables, so from_expr(to_expr(l)) gives back the same expression. */
#include <stdint.h>
#include "layout_priv.h"

#include <string.h>

static void fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
}

static const tlc_expr *I(tlc_module *m, int64_t v) { return tlc_i32(m, v); }

/* A shape: a tuple of positive constants (or one constant). */
static bool shape_of(const tlc_expr *e, int *ndim, int64_t *shape, const char **why)
{
	if (e && e->kind == TLC_EXPR_INT) {
		*ndim = 1;
		shape[0] = e->u.ival;
		return shape[0] > 0;
	}
	if (!e || e->kind != TLC_EXPR_TUPLE || e->u.tuple.is_dict || e->u.tuple.n > TLC_LAYOUT_MAX_DIMS) {
		fail(why, "a layout's shape must be a tuple of at most 8 extents");
		return false;
	}
	*ndim = e->u.tuple.n;
	for (int d = 0; d < *ndim; d++)
		if (!tlc_expr_as_int(e->u.tuple.items[d], &shape[d]) || shape[d] <= 0) {
			fail(why, "a layout's shape must be positive constants");
			return false;
		}
	return true;
}

/* The outputs of a lambda body: a tuple's items or the one expression. */
static int body_items(const tlc_expr *const *bodyp, const tlc_expr *const **items)
{
	const tlc_expr *body = *bodyp;
	if (body->kind == TLC_EXPR_TUPLE && !body->u.tuple.is_dict) {
		*items = body->u.tuple.items;
		return body->u.tuple.n;
	}
	*items = bodyp;
	return 1;
}

static const tlc_layout *memory_from_expr(tlc_module *m, const tlc_expr *e, const char **why)
{
	int ndim;
	int64_t shape[TLC_LAYOUT_MAX_DIMS];
	if (e->u.call.nargs != 2 || !shape_of(e->u.call.args[0], &ndim, shape, why))
		return NULL;
	const tlc_expr *fn = e->u.call.args[1];
	if (fn->kind != TLC_EXPR_LAMBDA || fn->u.lambda.nparams != ndim) {
		fail(why, "T.Layout needs a lambda with one parameter per dimension of the shape");
		return NULL;
	}
	const tlc_expr *const *items;
	int nout = body_items(&fn->u.lambda.body, &items);
	return tlc_layout_memory(m, ndim, shape, fn->u.lambda.params, nout, items, why);
}

static const tlc_layout *swizzled_from_expr(tlc_module *m, const tlc_expr *e, const char **why)
{
	int ndim;
	int64_t shape[TLC_LAYOUT_MAX_DIMS], bytes;
	tlc_swizzle mode;
	if (e->u.call.nargs != 3 || !shape_of(e->u.call.args[0], &ndim, shape, why))
		return NULL;
	const tlc_expr *dt = e->u.call.args[1];
	tlc_dtype t = dt->kind == TLC_EXPR_STR ? tlc_dtype_from_name(dt->u.str) : TLC_DT_VOID;
	if (t == TLC_DT_VOID) {
		fail(why, "T.swizzled_layout needs a dtype name as its second argument");
		return NULL;
	}
	if (!tlc_expr_as_int(e->u.call.args[2], &bytes) || bytes < 0 || bytes > 128 ||
	    !tlc_swizzle_from_bytes((int)bytes, &mode)) {
		fail(why, "T.swizzled_layout width must be 0, 32, 64 or 128 bytes");
		return NULL;
	}
	return tlc_layout_swizzled(m, ndim, shape, t, mode, why);
}

/* lambda's body with its parameters renamed to vars (same count). */
static const tlc_expr *body_in(tlc_module *m, const tlc_expr *fn, int n, tlc_var **vars)
{
	const tlc_expr *with[TLC_LAYOUT_MAX_DIMS + 1];
	for (int k = 0; k < n; k++)
		with[k] = tlc_var_ref(m, vars[k]);
	return layout_subst(m, fn->u.lambda.body, n, fn->u.lambda.params, with);
}

static const tlc_layout *fragment_from_expr(tlc_module *m, const tlc_expr *e, const char **why)
{
	int ndim;
	int64_t shape[TLC_LAYOUT_MAX_DIMS], rep = 1, lo = 0, threads = 0;
	if (e->u.call.nargs < 1 || e->u.call.nargs > 2 || !shape_of(e->u.call.args[0], &ndim, shape, why))
		return NULL;
	const tlc_expr *fwd = e->u.call.nargs == 2 ? e->u.call.args[1] : tlc_call_kw(e, "forward_fn");
	const tlc_expr *tfn = tlc_call_kw(e, "forward_thread_fn"), *ifn = tlc_call_kw(e, "forward_index_fn");
	const tlc_expr *rx = tlc_call_kw(e, "replicate"), *range = tlc_call_kw(e, "thread_range");
	if (rx && (!tlc_expr_as_int(rx, &rep) || rep < 1 || rep > 65536)) {
		fail(why, "T.Fragment replicate must be a constant from 1 to 65536");
		return NULL;
	}
	if (range && (range->kind != TLC_EXPR_TUPLE || range->u.tuple.n != 2 ||
	              !tlc_expr_as_int(range->u.tuple.items[0], &lo) ||
	              !tlc_expr_as_int(range->u.tuple.items[1], &threads) || lo < 0 || threads < 1)) {
		fail(why, "T.Fragment thread_range must be [first thread, thread count]");
		return NULL;
	}
	const tlc_expr *thread_body, *index_body;
	tlc_var *vars_rep[TLC_LAYOUT_MAX_DIMS + 1];
	tlc_var **vars;
	tlc_var *repv = NULL;
	if (fwd) {
		/* forward_fn=lambda i, j[, rep]: (thread, index) */
		const tlc_expr *const *items;
		if (fwd->kind != TLC_EXPR_LAMBDA || (fwd->u.lambda.nparams != ndim && fwd->u.lambda.nparams != ndim + 1) ||
		    body_items(&fwd->u.lambda.body, &items) != 2 || fwd->u.lambda.body->kind != TLC_EXPR_TUPLE) {
			fail(why, "T.Fragment forward_fn must be a lambda of the indices returning (thread, index)");
			return NULL;
		}
		vars = fwd->u.lambda.params;
		repv = fwd->u.lambda.nparams > ndim ? vars[ndim] : NULL;
		thread_body = items[0];
		index_body = items[1];
	} else {
		/* forward_index_fn may be left out, as in TileLang: the registers
		 * are then counted per thread (frag_fit) */
		if (!tfn || tfn->kind != TLC_EXPR_LAMBDA || (ifn && ifn->kind != TLC_EXPR_LAMBDA) ||
		    (tfn->u.lambda.nparams != ndim && tfn->u.lambda.nparams != ndim + 1) ||
		    (ifn && ifn->u.lambda.nparams != ndim)) {
			fail(why, "T.Fragment needs forward_thread_fn (lambda of the indices and optionally the replica) "
			          "and optionally forward_index_fn (lambda of the indices)");
			return NULL;
		}
		vars = tfn->u.lambda.params;
		repv = tfn->u.lambda.nparams > ndim ? vars[ndim] : NULL;
		thread_body = tfn->u.lambda.body;
		index_body = ifn ? body_in(m, ifn, ndim, vars) : NULL;
	}
	const tlc_expr *const *ritems = NULL;
	if (index_body && body_items(&index_body, &ritems) != 1) {
		fail(why, "T.Fragment's index function must give one register index");
		return NULL;
	}
	if (rep > 1 && !repv)
		repv = tlc_var_new(m, "rep", TLC_DT_INT32); /* replicas not named: none differ in the thread */
	for (int d = 0; d < ndim; d++)
		vars_rep[d] = vars[d];
	vars_rep[ndim] = repv;
	lprog tp, ip;
	if (!lprog_compile(m, tlc_simplify_expr(m, thread_body), repv ? ndim + 1 : ndim, vars_rep, &tp, why) ||
	    (ritems && !lprog_compile(m, tlc_simplify_expr(m, ritems[0]), ndim, vars_rep, &ip, why)))
		return NULL;
	tlc_var **own = tlc_alloc(m, sizeof(tlc_var *) * (size_t)(ndim + 1));
	memcpy(own, vars, sizeof(tlc_var *) * (size_t)ndim);
	return frag_fit(m, ndim, shape, own, repv, &tp, ritems ? &ip : NULL, rep, threads, lo, why);
}

/* ---- a per-module cache: layout expression -> layout ----
 * Expressions are hash-consed, so the pointer is the key.  Reading a fragment
 * back from its lambdas enumerates and fits the whole tile; passes convert
 * the same expressions many times (every lowered nest, every gemm), and
 * to_expr records what it built, so that work is done once. */
typedef struct layout_cache {
	size_t cap, n;
	const tlc_expr **keys;
	const tlc_layout **vals;
} layout_cache;

static size_t slot_of(const layout_cache *c, const tlc_expr *e)
{
	size_t i = ((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull & (c->cap - 1);
	while (c->keys[i] && c->keys[i] != e)
		i = (i + 1) & (c->cap - 1);
	return i;
}

static const tlc_layout *cache_get(tlc_module *m, const tlc_expr *e)
{
	layout_cache *c = m->layout_cache;
	if (!c || !c->n)
		return NULL;
	size_t i = slot_of(c, e);
	return c->keys[i] ? c->vals[i] : NULL;
}

static void cache_put(tlc_module *m, const tlc_expr *e, const tlc_layout *l)
{
	layout_cache *c = m->layout_cache;
	if (!c)
		c = m->layout_cache = tlc_alloc(m, sizeof(*c));
	if (2 * (c->n + 1) > c->cap) {
		/* grow in the arena: the old arrays stay until the module is freed */
		layout_cache old = *c;
		c->cap = old.cap ? 2 * old.cap : 64;
		c->keys = tlc_alloc(m, sizeof(*c->keys) * c->cap);
		c->vals = tlc_alloc(m, sizeof(*c->vals) * c->cap);
		c->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i]) {
				size_t j = slot_of(c, old.keys[i]);
				c->keys[j] = old.keys[i];
				c->vals[j] = old.vals[i];
				c->n++;
			}
	}
	size_t i = slot_of(c, e);
	if (!c->keys[i]) {
		c->keys[i] = e;
		c->vals[i] = l;
		c->n++;
	}
}

static const tlc_layout *layout_from_expr_uncached(tlc_module *m, const tlc_expr *e, const char **why);

const tlc_layout *tlc_layout_from_expr(tlc_module *m, const tlc_expr *e, const char **why)
{
	const tlc_layout *l = e ? cache_get(m, e) : NULL;
	if (l)
		return l;
	l = layout_from_expr_uncached(m, e, why);
	if (l)
		cache_put(m, e, l);
	return l;
}

static const tlc_layout *layout_from_expr_uncached(tlc_module *m, const tlc_expr *e, const char **why)
{
	if (!e || e->kind != TLC_EXPR_CALL) {
		fail(why, "not a layout (T.Layout, T.swizzled_layout or T.Fragment)");
		return NULL;
	}
	switch (e->u.call.op) {
	case TLC_OP_LAYOUT: return memory_from_expr(m, e, why);
	case TLC_OP_SWIZZLED_LAYOUT: return swizzled_from_expr(m, e, why);
	case TLC_OP_FRAGMENT: return fragment_from_expr(m, e, why);
	default: fail(why, "not a layout (T.Layout, T.swizzled_layout or T.Fragment)"); return NULL;
	}
}

static const tlc_expr *shape_expr(tlc_module *m, const tlc_layout *l)
{
	const tlc_expr *s[TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < l->ndim; d++)
		s[d] = I(m, l->shape[d]);
	return tlc_tuple(m, l->ndim, s, false);
}

static const tlc_expr *layout_to_expr_uncached(tlc_module *m, const tlc_layout *l);

const tlc_expr *tlc_layout_to_expr(tlc_module *m, const tlc_layout *l)
{
	const tlc_expr *e = layout_to_expr_uncached(m, l);
	if (e && !cache_get(m, e))
		cache_put(m, e, l);
	return e;
}

static const tlc_expr *layout_to_expr_uncached(tlc_module *m, const tlc_layout *l)
{
	if (!l)
		return NULL;
	const tlc_expr *args[2] = {shape_expr(m, l), NULL};
	if (l->kind == TLC_LAYOUT_SWIZZLED) {
		const tlc_expr *x[3] = {args[0], tlc_str(m, tlc_dtype_name(l->elem)),
		                        I(m, tlc_swizzle_get(l->swizzle)->bytes)};
		return tlc_call(m, TLC_OP_SWIZZLED_LAYOUT, TLC_DT_VOID, 3, x, 0, NULL, NULL);
	}
	if (l->kind == TLC_LAYOUT_MEMORY) {
		args[1] = tlc_lambda(m, l->ndim, l->vars, tlc_tuple(m, l->nout, l->out, true));
		return tlc_call(m, TLC_OP_LAYOUT, TLC_DT_VOID, 2, args, 0, NULL, NULL);
	}
	tlc_var *tv[TLC_LAYOUT_MAX_DIMS + 1];
	memcpy(tv, l->vars, sizeof(tlc_var *) * (size_t)l->ndim);
	tv[l->ndim] = l->rep;
	tlc_var **params = tlc_alloc(m, sizeof(tlc_var *) * (size_t)(l->ndim + 1));
	memcpy(params, tv, sizeof(tlc_var *) * (size_t)(l->ndim + 1));
	const char *kn[4] = {"forward_thread_fn", "forward_index_fn", "replicate", "thread_range"};
	const tlc_expr *kx[4];
	int nk = 0;
	kx[nk++] = tlc_lambda(m, l->rep ? l->ndim + 1 : l->ndim, params, l->thread);
	kx[nk++] = tlc_lambda(m, l->ndim, params, tlc_tuple(m, 1, l->out, true));
	if (l->replicate != 1)
		kx[nk++] = I(m, l->replicate);
	else
		kn[2] = kn[3];
	const tlc_expr *range[2] = {I(m, l->thread_lo), I(m, l->threads)};
	kx[nk++] = tlc_tuple(m, 2, range, true);
	return tlc_call(m, TLC_OP_FRAGMENT, TLC_DT_VOID, 1, args, nk, kn, kx);
}
