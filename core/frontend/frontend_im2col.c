/* frontend_im2col.c - T.c2d_im2col(img, col, nhw_step, c_step, kernel,
 * stride, dilation, pad[, eviction_policy]): one tile of the im2col matrix
 * of a 2-D convolution, copied into shared memory.
 *
 * img is an NHWC tensor (N, H, W, C) in global memory; col a (P, Q) shared
 * tile.  The im2col matrix has a row per output pixel, (n, oh, ow) in
 * row-major order over (N, OH, OW) with OH = (H + 2 pad - dilation (kernel
 * - 1) - 1) // stride + 1 (OW likewise), and a column per (ky, kx, c) in
 * row-major order over (kernel, kernel, C).  col receives rows
 * [nhw_step P, nhw_step P + P) and columns [c_step Q, c_step Q + Q):
 *
 *     col[i, j] = img[n, oh stride - pad + ky dilation, ow stride - pad + kx dilation, c]
 *
 * and 0 where that pixel lies outside the image (the padding) or n >= N.
 * This is what TileLang's TMA im2col load (Conv2DIm2ColOp, Hopper only)
 * puts in the tile; TileLang needs C to be a multiple of Q, tlc takes any C.
 * tlc writes it as a T.Parallel loop of guarded loads, which the pipeline
 * maps onto the threads like any other, on every target. */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

static bool const_arg(fe *F, fe_val *v, const char *what, int64_t lo, tlc_loc loc, int64_t *out)
{
	if (!fe_const_int(F, v, what, loc, out))
		return false;
	if (*out < lo) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: %s must be at least %lld, got %lld", what,
			  (long long)lo, (long long)*out);
		return false;
	}
	return true;
}

static const tlc_expr *index_arg(fe *F, fe_val *v, const char *what, tlc_loc loc)
{
	const tlc_expr *e = fe_to_scalar(F, v, loc);
	if (!e)
		return NULL;
	if (!tlc_dtype_is_int(e->dtype)) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: %s must be an integer, got %s", what,
			  tlc_dtype_name(e->dtype));
		return NULL;
	}
	return e->dtype == TLC_DT_INT32 ? e : tlc_cast(F->m, TLC_DT_INT32, e);
}

fe_val *fe_call_im2col(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
		       tlc_loc loc)
{
	static const char *const names[] = {"img",    "col",      "nhw_step", "c_step",
					    "kernel", "stride",   "dilation", "pad",
					    "eviction_policy"};
	fe_val *a[9];
	if (!fe_bind_args(F, "T.c2d_im2col", names, 9, 8, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (!fe_need_kernel(F, "T.c2d_im2col", true, loc))
		return NULL;
	if (a[0]->kind != FV_BUF || a[1]->kind != FV_BUF) {
		tlc_error(F->ctx, loc, "T.c2d_im2col needs the image tensor and the column tile as "
			  "whole buffers, got %s and %s", fe_kind_name(a[0]), fe_kind_name(a[1]));
		return NULL;
	}
	tlc_buffer *img = a[0]->u.buf, *col = a[1]->u.buf;
	if (img->scope != TLC_SCOPE_GLOBAL || img->ndim != 4) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: the image '%s' must be a 4-D (N, H, W, C) tensor in "
			  "global memory", img->name);
		return NULL;
	}
	if ((col->scope != TLC_SCOPE_SHARED && col->scope != TLC_SCOPE_SHARED_DYN) || col->ndim != 2) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: the columns '%s' must be a 2-D (pixels, channels) "
			  "T.alloc_shared tile", col->name);
		return NULL;
	}
	if (img->dtype != col->dtype) {
		tlc_error(F->ctx, loc, "T.c2d_im2col copies without converting: '%s' is %s but '%s' is %s",
			  img->name, tlc_dtype_name(img->dtype), col->name, tlc_dtype_name(col->dtype));
		return NULL;
	}
	if (a[8] && a[8]->kind != FV_NONE &&
	    (a[8]->kind != FV_STR || (strcmp(a[8]->u.s, "evict_normal") && strcmp(a[8]->u.s, "evict_first") &&
				     strcmp(a[8]->u.s, "evict_last")))) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: eviction_policy must be \"evict_normal\", "
			  "\"evict_first\" or \"evict_last\" (a cache hint), got '%s'", fe_show(F, a[8]));
		return NULL;
	}
	int64_t kernel, stride, dilation, pad, P, Q;
	if (!const_arg(F, a[4], "kernel", 1, loc, &kernel) || !const_arg(F, a[5], "stride", 1, loc, &stride) ||
	    !const_arg(F, a[6], "dilation", 1, loc, &dilation) || !const_arg(F, a[7], "pad", 0, loc, &pad))
		return NULL;
	if (!tlc_expr_as_int(col->shape[0], &P) || !tlc_expr_as_int(col->shape[1], &Q)) {
		tlc_error(F->ctx, loc, "T.c2d_im2col: the shape of '%s' must be known at compile time",
			  col->name);
		return NULL;
	}
	const tlc_expr *nhw = index_arg(F, a[2], "nhw_step", loc);
	const tlc_expr *cs = nhw ? index_arg(F, a[3], "c_step", loc) : NULL;
	if (!cs)
		return NULL;
	tlc_module *m = F->m;
#define I(v) tlc_i32(m, (v))
#define B(k, x, y) tlc_binary(m, TLC_EXPR_##k, (x), (y))
	const tlc_expr *const *sh = img->shape; /* N, H, W, C */
	const tlc_expr *span = I(2 * pad - dilation * (kernel - 1) - 1);
	const tlc_expr *oh = tlc_simplify_expr(m, B(ADD, B(FLOORDIV, B(ADD, sh[1], span), I(stride)), I(1)));
	const tlc_expr *ow = tlc_simplify_expr(m, B(ADD, B(FLOORDIV, B(ADD, sh[2], span), I(stride)), I(1)));
	tlc_var *vi = tlc_var_new(m, fe_hint(F, "i"), TLC_DT_INT32);
	tlc_var *vj = tlc_var_new(m, fe_hint(F, "j"), TLC_DT_INT32);
	const tlc_expr *p = B(ADD, B(MUL, nhw, I(P)), tlc_var_ref(m, vi));
	const tlc_expr *k = B(ADD, B(MUL, cs, I(Q)), tlc_var_ref(m, vj));
	const tlc_expr *n = B(FLOORDIV, p, B(MUL, oh, ow));
	const tlc_expr *y = B(FLOORMOD, B(FLOORDIV, p, ow), oh), *x = B(FLOORMOD, p, ow);
	const tlc_expr *kidx = B(FLOORDIV, k, sh[3]), *c = B(FLOORMOD, k, sh[3]);
	const tlc_expr *h = B(ADD, B(SUB, B(MUL, y, I(stride)), I(pad)),
			      B(MUL, B(FLOORDIV, kidx, I(kernel)), I(dilation)));
	const tlc_expr *w = B(ADD, B(SUB, B(MUL, x, I(stride)), I(pad)),
			      B(MUL, B(FLOORMOD, kidx, I(kernel)), I(dilation)));
	const tlc_expr *idx[4] = {tlc_simplify_expr(m, n), tlc_simplify_expr(m, h), tlc_simplify_expr(m, w),
				  tlc_simplify_expr(m, c)};
	const tlc_expr *inside = B(LT, idx[0], sh[0]);
	inside = B(AND, inside, B(AND, B(GE, idx[1], I(0)), B(LT, idx[1], sh[1])));
	inside = B(AND, inside, B(AND, B(GE, idx[2], I(0)), B(LT, idx[2], sh[2])));
	const tlc_expr *zero = tlc_dtype_is_float(img->dtype) ? tlc_float(m, img->dtype, 0.0)
							      : tlc_int(m, img->dtype, 0);
	const tlc_expr *value = tlc_select(m, inside, tlc_load(m, img, 4, idx), zero);
	const tlc_expr *cidx[2] = {tlc_var_ref(m, vi), tlc_var_ref(m, vj)};
#undef I
#undef B
	tlc_stmt *store = tlc_store_new(m, loc, col, 2, cidx, value);
	tlc_stmt *inner = tlc_for_new(m, loc, vj, tlc_i32(m, 0), tlc_i32(m, Q), TLC_FOR_PARALLEL, store);
	tlc_stmt *body = tlc_seq_new(m, loc);
	tlc_seq_append(m, body, inner);
	fe_emit(F, tlc_for_new(m, loc, vi, tlc_i32(m, 0), tlc_i32(m, P), TLC_FOR_PARALLEL, body));
	return F->none;
}
