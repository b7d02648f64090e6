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
#include <tlc/walk.h>

#include <stdio.h>
#include <string.h>

const tlc_expr *fe_layout_fn(fe *F, fe_val *fn, int nparams_hint, tlc_loc loc)
{
	if (fn->kind != FV_FUNC) {
		tlc_error(F->ctx, loc, "a layout function must be a lambda or a function, got %s",
		          fe_kind_name(fn));
		return NULL;
	}
	py_node *def = fn->u.fn.def;
	/* the parameters before `*args` take one index each and `*args` the
	 * rest of the layout's rank (lambda *idx: ...); those after it are
	 * keyword-only, and `**kw` takes none */
	int plain = 0, star = -1;
	for (int i = 0; i < def->nparams && star < 0; i++) {
		if (def->params[i].star == 1)
			star = i;
		else if (!def->params[i].star)
			plain++;
	}
	int n = plain;
	if (star >= 0) {
		if (nparams_hint < 0) {
			tlc_error(F->ctx, loc, "a layout function taking *%s needs a known rank: give it one parameter "
			          "per index", def->params[star].name);
			return NULL;
		}
		if (nparams_hint < plain) {
			tlc_error(F->ctx, loc, "a layout function of %d indices cannot take %d parameters before *%s",
			          nparams_hint, plain, def->params[star].name);
			return NULL;
		}
		n = nparams_hint;
	}
	tlc_var **vars = fe_alloc(F, sizeof(tlc_var *) * (size_t)(n + 1));
	fe_val **args = fe_alloc(F, sizeof(fe_val *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		char name[64];
		if (i < plain)
			snprintf(name, sizeof name, "%s", def->params[i].name);
		else /* idx_0, idx_1, ... */
			snprintf(name, sizeof name, "%s_%d", def->params[star].name, i - plain);
		vars[i] = tlc_var_new(F->m, tlc_intern(F->m, name), TLC_DT_INT32);
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
static const tlc_expr *index_fn(fe *F, fe_val *fn, int rank, tlc_loc loc)
{
	const tlc_expr *l = fe_layout_fn(F, fn, rank, loc);
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
	if (!x[0] || !(x[1] = index_fn(F, a[1], x[0]->u.tuple.n, loc)))
		return NULL;
	return expr_val(F, tlc_call(F->m, TLC_OP_LAYOUT, TLC_DT_VOID, 2, x, 0, NULL, NULL));
}

/* ---- the register index TileLang infers from forward_thread_fn alone ----
 *
 * TileLang splits each index i_d of the shape into mixed-radix digits
 * (i_d // w) % r and calls those the thread expression does not use the
 * unused ones; the register index is those digits flattened: dimensions in
 * order, inside one the higher digits first, the last digit of the last
 * dimension varying fastest.  The thread function is run here on numbers:
 * along each dimension from the origin, a digit of w is the run of values
 * v * w on which the thread moves by v * (its move at w), as long as that
 * run divides what is left of the extent; a digit with no move is unused.
 * The fragment made of both functions is checked like any other. */

#define INFER_MAX_DIGITS 64

typedef struct infer_digit {
	int dim;
	int64_t w, r;
} infer_digit;

/* The thread of the element with index x_d = v, the others 0. */
static bool thread_at(fe *F, fe_val *fn, int n, int nargs, int d, int64_t v, tlc_loc loc,
		      int64_t *out)
{
	fe_val *args[TLC_LAYOUT_MAX_DIMS + 1];
	for (int k = 0; k < nargs; k++)
		args[k] = fe_int(F, k == d && k < n ? v : 0);
	fe_val *r = fe_call_function(F, fn, nargs, args, 0, NULL, NULL, loc);
	if (!r)
		return false;
	if (!fe_as_int(r, out)) {
		tlc_error(F->ctx, loc,
			  "T.Fragment: forward_thread_fn gives '%s' for constant indices, "
			  "not an integer: give forward_index_fn too",
			  fe_show(F, r));
		return false;
	}
	return true;
}

static bool digits_of_dim(fe *F, fe_val *fn, int n, int nargs, int d, int64_t E, int64_t base,
			  tlc_loc loc, infer_digit *dg, int *ndg)
{
	int64_t w = 1;
	while (w < E) {
		int64_t delta, t;
		if (!thread_at(F, fn, n, nargs, d, w, loc, &t))
			return false;
		delta = t - base;
		int64_t v = 2;
		for (; v * w < E; v++) {
			if (!thread_at(F, fn, n, nargs, d, v * w, loc, &t))
				return false;
			if (t - base != v * delta)
				break;
		}
		int64_t r = v;
		while (r > 1 && (E / w) % r)
			r--;
		if (r < 2 || *ndg >= INFER_MAX_DIGITS) {
			tlc_error(F->ctx, loc,
				  "T.Fragment: the register index cannot be inferred: "
				  "forward_thread_fn is not made of digits (i // a) %% b of the "
				  "indices "
				  "(dimension %d); give forward_index_fn too",
				  d);
			return false;
		}
		/* an unused digit; one next to it joins it */
		bool joins =
			*ndg > 0 && dg[*ndg - 1].dim == d && dg[*ndg - 1].w * dg[*ndg - 1].r == w;
		if (delta == 0 && joins)
			dg[*ndg - 1].r *= r;
		else if (delta == 0)
			dg[(*ndg)++] = (infer_digit){d, w, r};
		w *= r;
	}
	return true;
}

static const tlc_expr *infer_index_fn(fe *F, const tlc_expr *shape_e, fe_val *fn, int64_t rep,
				      tlc_loc loc)
{
	int n = shape_e->u.tuple.n;
	int64_t ext[TLC_LAYOUT_MAX_DIMS];
	if (n > TLC_LAYOUT_MAX_DIMS) {
		tlc_error(F->ctx, loc, "T.Fragment: at most %d dimensions", TLC_LAYOUT_MAX_DIMS);
		return NULL;
	}
	for (int d = 0; d < n; d++)
		if (!tlc_expr_as_int(shape_e->u.tuple.items[d], &ext[d]) || ext[d] < 1) {
			tlc_error(F->ctx, loc,
				  "T.Fragment: a shape of positive constants is needed to infer "
				  "the register index from forward_thread_fn, got '%s'",
				  fe_show_expr(F, shape_e));
			return NULL;
		}
	int nargs = rep > 1 ? n + 1 : n, ndg = 0;
	int64_t base;
	infer_digit dg[INFER_MAX_DIGITS];
	if (!thread_at(F, fn, n, nargs, -1, 0, loc, &base))
		return NULL;
	for (int d = 0; d < n; d++) {
		int first = ndg;
		if (!digits_of_dim(F, fn, n, nargs, d, ext[d], base, loc, dg, &ndg))
			return NULL;
		for (int a = first, b = ndg - 1; a < b; a++, b--) { /* higher digits first */
			infer_digit x = dg[a];
			dg[a] = dg[b];
			dg[b] = x;
		}
	}
	tlc_var **vars = fe_alloc(F, sizeof(tlc_var *) * (size_t)(n + 1));
	char name[16];
	for (int d = 0; d < n; d++) {
		snprintf(name, sizeof name, "i%d", d);
		vars[d] = tlc_var_new(F->m, tlc_intern(F->m, name), TLC_DT_INT32);
	}
	const tlc_expr *idx = tlc_i32(F->m, 0);
	int64_t scale = 1;
	for (int k = ndg - 1; k >= 0; k--) {
		const tlc_expr *x = tlc_var_ref(F->m, vars[dg[k].dim]);
		if (dg[k].w > 1)
			x = tlc_binary(F->m, TLC_EXPR_FLOORDIV, x, tlc_i32(F->m, dg[k].w));
		if (dg[k].w * dg[k].r < ext[dg[k].dim])
			x = tlc_binary(F->m, TLC_EXPR_FLOORMOD, x, tlc_i32(F->m, dg[k].r));
		if (scale > 1)
			x = tlc_binary(F->m, TLC_EXPR_MUL, x, tlc_i32(F->m, scale));
		idx = k == ndg - 1 ? x : tlc_binary(F->m, TLC_EXPR_ADD, x, idx);
		scale *= dg[k].r;
	}
	return tlc_lambda(F->m, n, vars, tlc_tuple(F->m, 1, &idx, true));
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
	if (!given(a[FWD]) && !given(a[THREAD])) {
		tlc_error(F->ctx, loc,
			  "T.Fragment needs forward_thread_fn when it has forward_index_fn");
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
	/* the thread map takes the replica number after the indices */
	int rank = pos[0]->u.tuple.n, thread_rank = rank + (rep > 1);
	if (given(a[FWD])) {
		if (!(pos[npos++] = fe_layout_fn(F, a[FWD], thread_rank, loc)))
			return NULL;
	} else {
		kn[nk] = "forward_thread_fn";
		if (!(kx[nk++] = fe_layout_fn(F, a[THREAD], thread_rank, loc)))
			return NULL;
		kn[nk] = "forward_index_fn";
		if (given(a[INDEX]) ? !(kx[nk++] = index_fn(F, a[INDEX], rank, loc))
				    : !(kx[nk++] = infer_index_fn(F, pos[0], a[THREAD], rep, loc)))
			return NULL;
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

/* Whether fragment l's register index of every element is its row-major
 * index (a thread's registers are then the local buffer as it is). */
static bool local_identity(const tlc_layout *l)
{
	int64_t n = tlc_layout_size(l), idx[TLC_LAYOUT_MAX_DIMS] = {0}, flat;
	if (n <= 0 || n > 4096 || tlc_layout_phys_size(l) != n)
		return false;
	for (int64_t i = 0; i < n; i++) {
		if (!tlc_layout_eval(l, idx, &flat) || flat != i)
			return false;
		for (int d = l->ndim - 1; d >= 0; d--) { /* the next index, row-major */
			if (++idx[d] < l->shape[d])
				break;
			idx[d] = 0;
		}
	}
	return true;
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
	if (is_frag && b->scope == TLC_SCOPE_LOCAL && local_identity(l)) {
		/* TileLang indexes a local buffer through its annotated
		 * fragment's register index: the same elements when that is
		 * the buffer's own row-major index, so nothing to attach */
		return true;
	}
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
			const tlc_expr *args[2] = {tlc_tuple(F->m, b->ndim, b->shape, false), index_fn(F, l, b->ndim, loc)};
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

/* A T.annotate_layout names the memory layout of a buffer for the kernel
 * (T.Kernel frame) it is written in: TileLang attaches it to that kernel's
 * block, so a global tensor annotated in one frame of a prim_func keeps its
 * row-major layout in the others.  Each kernel of a launch group therefore
 * gets tensor parameters of its own, and their layouts come from its own
 * annotations only (attach_layout put every frame's on the shared ones). */
typedef struct own_params {
	tlc_module *m;
	int n;
	tlc_buffer **from, **to;
} own_params;

static tlc_buffer *own_param(const own_params *o, const tlc_buffer *b, bool copy)
{
	for (int i = 0; i < o->n; i++)
		if ((copy ? o->to[i] : o->from[i]) == b)
			return o->to[i];
	return NULL;
}

static tlc_walk_action own_param_layouts(void *p, const tlc_stmt *s)
{
	const own_params *o = p;
	if (s->kind == TLC_STMT_ALLOC && s->u.alloc.buf->alias_of) {
		/* a T.view of a parameter reinterprets this kernel's copy */
		tlc_buffer *to = own_param(o, s->u.alloc.buf->alias_of, false);
		if (to)
			s->u.alloc.buf->alias_of = to;
	}
	if (!tlc_stmt_is_call(s, TLC_OP_ANNOTATE_LAYOUT))
		return TLC_WALK_CONTINUE;
	const tlc_expr *map = s->u.eval.call->u.call.args[0];
	for (int i = 0; map->kind == TLC_EXPR_TUPLE && i < map->u.tuple.n; i++) {
		const tlc_expr *const *kv = map->u.tuple.items[i]->u.tuple.items;
		tlc_buffer *b = kv[0]->kind == TLC_EXPR_BUF ? own_param(o, kv[0]->u.buf, true) : NULL;
		if (b) /* attach_layout checked it against the buffer already */
			b->layout = tlc_layout_from_expr(o->m, kv[1], NULL);
	}
	return TLC_WALK_CONTINUE;
}

void fe_own_param_buffers(fe *F, tlc_func *f)
{
	own_params o = {.m = F->m};
	o.from = fe_alloc(F, sizeof(tlc_buffer *) * (size_t)(f->nparams + 1));
	o.to = fe_alloc(F, sizeof(tlc_buffer *) * (size_t)(f->nparams + 1));
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, F->m);
	for (int i = 0; i < f->nparams; i++) {
		tlc_buffer *b = f->params[i].buf;
		if (f->params[i].kind != TLC_PARAM_TENSOR || !b)
			continue;
		tlc_buffer *c = tlc_buffer_new(F->m, b->name, b->dtype, b->scope, b->ndim, b->shape, b->loc);
		c->alias_of = b->alias_of;
		o.from[o.n] = b;
		o.to[o.n++] = c;
		f->params[i].buf = c;
		tlc_rewriter_map_buffer(&rw, b, c);
	}
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	tlc_walk_stmt(&(tlc_visitor){.ctx = &o, .stmt_pre = own_param_layouts}, f->body);
}
