/* frontend_layout.c - layout values of the tile language: T.Layout,
 * T.Fragment, T.make_swizzled_layout / T.swizzled_layout, the dict of
 * T.annotate_layout and the loop_layout of T.Parallel.
 *
 * A layout value is a CALL expression in the printed form of tlc/layout.h, so
 * that what the frontend builds prints and parses back unchanged.  Where a
 * layout is attached to something (a buffer, a loop) it is converted with
 * tlc_layout_from_expr and its shape checked here, so that a bad layout is
 * reported at the user's line instead of inside a pass. */
#include "frontend.h"

#include <tlc/layout.h>

#include <stdio.h>
#include <string.h>

const tlc_expr *fe_layout_fn(fe *F, fe_val *fn, int nparams_hint, tlc_loc loc)
{
	(void)nparams_hint;
	if (fn->kind != FV_FUNC) {
		tlc_error(F->ctx, loc, "a layout function must be a lambda or a function, got %s",
		          fe_kind_name(fn));
		return NULL;
	}
	py_node *def = fn->u.fn.def;
	int n = def->nparams;
	tlc_var **vars = fe_alloc(F, sizeof(tlc_var *) * (size_t)(n + 1));
	fe_val **args = fe_alloc(F, sizeof(fe_val *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		if (def->params[i].star) {
			tlc_error(F->ctx, loc, "a layout function cannot take *args");
			return NULL;
		}
		vars[i] = tlc_var_new(F->m, def->params[i].name, TLC_DT_INT32);
		args[i] = fe_expr(F, tlc_var_ref(F->m, vars[i]));
	}
	fe_val *r = fe_call_function(F, fn, n, args, 0, NULL, NULL, loc);
	if (!r)
		return NULL;
	const tlc_expr *body;
	if (r->kind == FV_TUPLE || r->kind == FV_LIST) {
		const tlc_expr **items = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(r->u.seq.n + 1));
		for (int i = 0; i < r->u.seq.n; i++)
			if (!(items[i] = fe_to_scalar(F, r->u.seq.items[i], loc)))
				return NULL;
		/* a list stays a list: `lambda i, j: [j, i]` prints as written */
		body = tlc_tuple(F->m, r->u.seq.n, items, r->kind == FV_LIST);
	} else if (!(body = fe_to_scalar(F, r, loc))) {
		return NULL;
	}
	return tlc_lambda(F->m, n, vars, body);
}

/* An index function (T.Layout's forward_fn, T.Fragment's forward_index_fn):
 * a scalar result is a one-element list, the canonical printed form. */
static const tlc_expr *index_fn(fe *F, fe_val *fn, tlc_loc loc)
{
	const tlc_expr *l = fe_layout_fn(F, fn, -1, loc);
	if (!l || l->u.lambda.body->kind == TLC_EXPR_TUPLE)
		return l;
	return tlc_lambda(F->m, l->u.lambda.nparams, l->u.lambda.params,
	                  tlc_tuple(F->m, 1, &l->u.lambda.body, true));
}

/* A layout shape: a tuple of extents (a single extent becomes a 1-tuple). */
static const tlc_expr *layout_shape(fe *F, fe_val *v, tlc_loc loc)
{
	if (v->kind == FV_TUPLE || v->kind == FV_LIST) {
		fe_val *t = fe_new(F, FV_TUPLE);
		*t = *v;
		t->kind = FV_TUPLE;
		return fe_to_expr(F, t, loc);
	}
	const tlc_expr *e = fe_to_scalar(F, v, loc);
	return e ? tlc_tuple(F->m, 1, &e, false) : NULL;
}

static fe_val *expr_val(fe *F, const tlc_expr *e)
{
	fe_val *v = fe_new(F, FV_EXPR);
	v->u.e = e;
	return v;
}

static bool given(const fe_val *v)
{
	return v && v->kind != FV_NONE;
}

/* ---- T.Layout and T.Fragment ---- */

static fe_val *layout_value(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                            tlc_loc loc)
{
	static const char *const names[] = {"shape", "forward_fn"};
	fe_val *a[2];
	if (!fe_bind_args(F, "T.Layout", names, 2, 2, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	const tlc_expr *x[2] = {layout_shape(F, a[0], loc), NULL};
	if (!x[0] || !(x[1] = index_fn(F, a[1], loc)))
		return NULL;
	return expr_val(F, tlc_call(F->m, TLC_OP_LAYOUT, TLC_DT_VOID, 2, x, 0, NULL, NULL));
}

/* T.Fragment(shape, forward_fn=None, forward_thread_fn=None, replicate=1,
 * forward_index_fn=None, thread_range=None).  Canonical form: the shape, then
 * forward_fn positionally or forward_thread_fn= and forward_index_fn=, then
 * replicate= (when not 1) and thread_range=. */
static fe_val *fragment_value(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                              tlc_loc loc)
{
	static const char *const names[] = {"shape",           "forward_fn", "forward_thread_fn",
	                                    "replicate",       "forward_index_fn", "thread_range"};
	enum { SHAPE, FWD, THREAD, REP, INDEX, RANGE };
	fe_val *a[6];
	if (!fe_bind_args(F, "T.Fragment", names, 6, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (given(a[FWD]) == (given(a[THREAD]) || given(a[INDEX]))) {
		tlc_error(F->ctx, loc, given(a[FWD]) ? "T.Fragment takes either forward_fn or "
		                                       "forward_thread_fn/forward_index_fn, not both"
		                                     : "T.Fragment needs forward_fn or forward_thread_fn");
		return NULL;
	}
	/* forward_index_fn alone is not enough; forward_thread_fn alone is
	 * TileLang's: the layout algebra counts the registers per thread */
	if (!given(a[FWD]) && !given(a[THREAD])) {
		tlc_error(F->ctx, loc, "T.Fragment needs forward_thread_fn with forward_index_fn");
		return NULL;
	}
	int64_t rep = 1;
	if (given(a[REP]) && !fe_const_int(F, a[REP], "replicate", loc, &rep))
		return NULL;
	if (rep < 1) {
		tlc_error(F->ctx, loc, "T.Fragment replicate must be at least 1, got %lld", (long long)rep);
		return NULL;
	}
	const tlc_expr *pos[2] = {layout_shape(F, a[SHAPE], loc), NULL};
	if (!pos[0])
		return NULL;
	int npos = 1, nk = 0;
	const char *kn[4];
	const tlc_expr *kx[4];
	if (given(a[FWD])) {
		if (!(pos[npos++] = fe_layout_fn(F, a[FWD], -1, loc)))
			return NULL;
	} else {
		kn[nk] = "forward_thread_fn";
		if (!(kx[nk++] = fe_layout_fn(F, a[THREAD], -1, loc)))
			return NULL;
		if (given(a[INDEX])) {
			kn[nk] = "forward_index_fn";
			if (!(kx[nk++] = index_fn(F, a[INDEX], loc)))
				return NULL;
		}
	}
	if (rep != 1) {
		kn[nk] = "replicate";
		kx[nk++] = tlc_i32(F->m, rep);
	}
	if (given(a[RANGE])) {
		fe_val *r = a[RANGE];
		int64_t lo, n;
		if ((r->kind != FV_LIST && r->kind != FV_TUPLE) || r->u.seq.n != 2 ||
		    !fe_as_int(r->u.seq.items[0], &lo) || !fe_as_int(r->u.seq.items[1], &n) || lo < 0 || n < 1) {
			tlc_error(F->ctx, loc, "T.Fragment thread_range must be [first thread, thread count], got '%s'",
			          fe_show(F, r));
			return NULL;
		}
		const tlc_expr *lr[2] = {tlc_i32(F->m, lo), tlc_i32(F->m, n)};
		kn[nk] = "thread_range";
		kx[nk++] = tlc_tuple(F->m, 2, lr, true);
	}
	for (int k = 0; k < nk; k++)
		kn[k] = tlc_intern(F->m, kn[k]);
	return expr_val(F, tlc_call(F->m, TLC_OP_FRAGMENT, TLC_DT_VOID, npos, pos, nk, kn, kx));
}

/* ---- swizzled layouts ---- */

static const tlc_expr *swizzled_call(fe *F, const tlc_expr *shape, tlc_dtype t, int bytes)
{
	const tlc_expr *x[3] = {shape, tlc_str(F->m, tlc_dtype_name(t)), tlc_i32(F->m, bytes)};
	return tlc_call(F->m, TLC_OP_SWIZZLED_LAYOUT, TLC_DT_VOID, 3, x, 0, NULL, NULL);
}

/* T.make_swizzled_layout(buf): the widest swizzle a row of buf allows, in
 * the canonical form T.swizzled_layout(shape, "dtype", W). */
static fe_val *make_swizzled(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                             tlc_loc loc)
{
	static const char *const names[] = {"buffer"};
	fe_val *a[1];
	if (!fe_bind_args(F, "T.make_swizzled_layout", names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[0]->kind != FV_BUF) {
		tlc_error(F->ctx, loc, "T.make_swizzled_layout expects a buffer, got %s", fe_kind_name(a[0]));
		return NULL;
	}
	const tlc_buffer *b = a[0]->u.buf;
	if (b->ndim < 2) {
		tlc_error(F->ctx, loc, "T.make_swizzled_layout needs a buffer of at least 2 dimensions, "
		                       "'%s' has %d", b->name, b->ndim);
		return NULL;
	}
	int64_t x = 0;
	for (int i = 0; i < b->ndim; i++)
		if (!tlc_expr_as_int(b->shape[i], &x)) {
			tlc_error(F->ctx, loc, "T.make_swizzled_layout needs a buffer of constant shape, "
			                       "'%s' has extent '%s'", b->name, fe_show_expr(F, b->shape[i]));
			return NULL;
		}
	const tlc_swizzle_info *sw = tlc_swizzle_get(tlc_swizzle_widest(x, b->dtype));
	const tlc_expr *shape = tlc_tuple(F->m, b->ndim, b->shape, false);
	return expr_val(F, swizzled_call(F, shape, b->dtype, sw ? sw->bytes : 0));
}

/* T.swizzled_layout(shape, "dtype", W): the printed form, read back. */
static fe_val *swizzled_value(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                              tlc_loc loc)
{
	static const char *const names[] = {"shape", "dtype", "swizzle_bytes"};
	fe_val *a[3];
	tlc_dtype t;
	int64_t w;
	tlc_swizzle mode;
	if (!fe_bind_args(F, "T.swizzled_layout", names, 3, 3, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_to_dtype(F, a[1], loc, &t) || !fe_const_int(F, a[2], "swizzle width", loc, &w))
		return NULL;
	if (w < 0 || w > 128 || !tlc_swizzle_from_bytes((int)w, &mode)) {
		tlc_error(F->ctx, loc, "T.swizzled_layout width must be 0, 32, 64 or 128 bytes, got %lld",
		          (long long)w);
		return NULL;
	}
	const tlc_expr *shape = layout_shape(F, a[0], loc);
	return shape ? expr_val(F, swizzled_call(F, shape, t, (int)w)) : NULL;
}

fe_val *fe_layout_value(fe *F, tlc_op_id op, int nargs, fe_val **args, int nkw, const char **kwn,
                        fe_val **kwv, tlc_loc loc)
{
	switch (op) {
	case TLC_OP_LAYOUT: return layout_value(F, nargs, args, nkw, kwn, kwv, loc);
	case TLC_OP_FRAGMENT: return fragment_value(F, nargs, args, nkw, kwn, kwv, loc);
	case TLC_OP_MAKE_SWIZZLED_LAYOUT: return make_swizzled(F, nargs, args, nkw, kwn, kwv, loc);
	case TLC_OP_SWIZZLED_LAYOUT: return swizzled_value(F, nargs, args, nkw, kwn, kwv, loc);
	default: return NULL;
	}
}

bool fe_is_layout_op(tlc_op_id op)
{
	return op == TLC_OP_LAYOUT || op == TLC_OP_FRAGMENT || op == TLC_OP_MAKE_SWIZZLED_LAYOUT ||
	       op == TLC_OP_SWIZZLED_LAYOUT;
}

/* ---- attaching layouts ---- */

static const char *int_shape_text(fe *F, int n, const int64_t *d)
{
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_buf_putc(&b, '(');
	for (int i = 0; i < n; i++)
		tlc_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)d[i]);
	tlc_buf_puts(&b, n == 1 ? ",)" : ")");
	const char *s = fe_strdup(F, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return s;
}

static const char *expr_shape_text(fe *F, int n, const tlc_expr *const *d)
{
	return fe_show_expr(F, tlc_tuple(F->m, n, d, false));
}

/* True when the constant extents of shape equal the layout's shape. */
static bool same_shape(const tlc_layout *l, int n, const tlc_expr *const *shape)
{
	if (l->ndim != n)
		return false;
	for (int i = 0; i < n; i++) {
		int64_t x;
		if (!tlc_expr_as_int(shape[i], &x) || x != l->shape[i])
			return false;
	}
	return true;
}

const tlc_layout *fe_loop_layout(fe *F, fe_val *v, int n, const tlc_expr *const *extents, tlc_loc loc)
{
	if (v->kind != FV_EXPR || v->u.e->kind != TLC_EXPR_CALL || v->u.e->u.call.op != TLC_OP_FRAGMENT) {
		tlc_error(F->ctx, loc, "loop_layout of T.Parallel must be a T.Fragment, got '%s'", fe_show(F, v));
		return NULL;
	}
	const char *why = NULL;
	const tlc_layout *l = tlc_layout_from_expr(F->m, v->u.e, &why);
	if (!l) {
		tlc_error(F->ctx, loc, "loop_layout of T.Parallel is not a valid fragment: %s",
		          why ? why : "unknown reason");
		return NULL;
	}
	if (!same_shape(l, n, extents)) {
		tlc_error(F->ctx, loc, "loop_layout shape %s does not match the T.Parallel extents %s",
		          int_shape_text(F, l->ndim, l->shape), expr_shape_text(F, n, extents));
		return NULL;
	}
	return l;
}

/* Convert the layout of one annotate_layout entry, check it against the
 * buffer and attach it. */
static bool attach_layout(fe *F, tlc_buffer *b, const tlc_expr *e, tlc_loc loc)
{
	const char *why = NULL;
	const tlc_layout *l = tlc_layout_from_expr(F->m, e, &why);
	if (!l) {
		tlc_error(F->ctx, loc, "invalid layout for buffer '%s': %s", b->name, why ? why : "unknown reason");
		return false;
	}
	if (!same_shape(l, b->ndim, b->shape)) {
		tlc_error(F->ctx, loc, "layout shape %s does not match the shape %s of buffer '%s'",
		          int_shape_text(F, l->ndim, l->shape), expr_shape_text(F, b->ndim, b->shape), b->name);
		return false;
	}
	bool is_frag = l->kind == TLC_LAYOUT_FRAGMENT;
	if (is_frag != (b->scope == TLC_SCOPE_FRAGMENT)) {
		tlc_error(F->ctx, loc, is_frag ? "buffer '%s' is %s, not a fragment: it needs a T.Layout, not a T.Fragment"
		                               : "fragment buffer '%s' (%s) needs a T.Fragment layout",
		          b->name, tlc_scope_name(b->scope));
		return false;
	}
	b->layout = l;
	return true;
}

const tlc_expr *fe_layout_map(fe *F, fe_val *v, tlc_loc loc)
{
	if (v->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "T.annotate_layout expects a dict {buffer: layout}, got %s",
		          fe_kind_name(v));
		return NULL;
	}
	int n = v->u.dict.n;
	const tlc_expr **keys = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	const tlc_expr **layouts = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		fe_val *k = v->u.dict.keys[i], *l = v->u.dict.vals[i];
		if (k->kind != FV_BUF) {
			tlc_error(F->ctx, loc, "T.annotate_layout keys must be buffers, got %s", fe_kind_name(k));
			return NULL;
		}
		tlc_buffer *b = k->u.buf;
		const tlc_expr *lx;
		if (l->kind == FV_FUNC) {
			/* a bare function: the layout of the buffer's shape */
			const tlc_expr *args[2] = {tlc_tuple(F->m, b->ndim, b->shape, false), index_fn(F, l, loc)};
			if (!args[1])
				return NULL;
			lx = tlc_call(F->m, TLC_OP_LAYOUT, TLC_DT_VOID, 2, args, 0, NULL, NULL);
		} else {
			lx = l->kind == FV_EXPR ? l->u.e : NULL;
			if (!lx || lx->kind != TLC_EXPR_CALL || !fe_is_layout_op(lx->u.call.op) ||
			    lx->u.call.op == TLC_OP_MAKE_SWIZZLED_LAYOUT) {
				tlc_error(F->ctx, loc, "layout for '%s' must be a T.Layout, T.Fragment, "
				                       "T.make_swizzled_layout or function, got '%s'",
				          b->name, fe_show(F, l));
				return NULL;
			}
		}
		if (!attach_layout(F, b, lx, loc))
			return NULL;
		keys[i] = tlc_buf_ref(F->m, b);
		layouts[i] = lx;
	}
	return tlc_dict(F->m, n, keys, layouts);
}
