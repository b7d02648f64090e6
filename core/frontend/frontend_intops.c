/* frontend_intops.c - integer helpers of TileLang's surface.
 *
 * TVM's named integer divisions, as TileLang re-exports them: T.floordiv / T.floormod (and their aliases T.indexdiv /
 * T.indexmod) are Python's // and % (the quotient rounded down, the
 * remainder with the divisor's sign; on floats TileLang's floor of the
 * quotient), and T.truncdiv / T.truncmod are C's integer / and % (the
 * quotient rounded toward zero, the remainder with the dividend's sign).
 *
 * T.dp4a(a, b, c): the 4-way int8 dot product that accumulates (CUDA's
 * __dp4a): the element c (int32) gains the sum of the products of the four
 * consecutive int8 elements from a and from b, each widened to int32 (the
 * sum wraps around as an int32 addition does). */
#include "frontend.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {"floordiv", "floormod", "indexdiv", "indexmod", "truncdiv",
				    "truncmod", "dp4a"};

bool fe_intops_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(names); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* a truncdiv/truncmod b from the floor forms: they differ only where the
 * remainder is not 0 and the operands' signs differ, where the quotient is
 * one more and the remainder one divisor less. */
static fe_val *trunc_op(fe *F, const char *fname, bool mod, fe_val *a, fe_val *b, tlc_loc loc)
{
	int64_t x, y;
	if ((a->kind == FV_INT || a->kind == FV_BOOL) && (b->kind == FV_INT || b->kind == FV_BOOL) &&
	    fe_as_int(a, &x) && fe_as_int(b, &y)) {
		if (y == 0) {
			tlc_error(F->ctx, loc, "%s by zero", fname);
			return NULL;
		}
		if (x == INT64_MIN && y == -1)
			return mod ? fe_int(F, 0) : fe_overflow(F, loc);
		return fe_int(F, mod ? x % y : x / y);
	}
	fe_val *q = fe_binop(F, PY_OP_FLOORDIV, a, b, loc);
	fe_val *r = q ? fe_binop(F, PY_OP_MOD, a, b, loc) : NULL;
	const tlc_expr *qe = r ? fe_to_scalar(F, q, loc) : NULL;
	const tlc_expr *re = qe ? fe_to_scalar(F, r, loc) : NULL;
	if (!re)
		return NULL;
	if (!tlc_dtype_is_int(qe->dtype)) {
		tlc_error(F->ctx, loc, "%s needs integer operands, got %s (for floats write a / b, or T.floordiv)",
			  fname, tlc_dtype_name(qe->dtype));
		return NULL;
	}
	tlc_dtype t = qe->dtype;
	const tlc_expr *xe = fe_scalar_as(F, a, t, loc), *ye = fe_scalar_as(F, b, t, loc);
	if (!xe || !ye)
		return NULL;
	tlc_module *m = F->m;
	const tlc_expr *zero = tlc_int(m, t, 0);
	const tlc_expr *adjust = tlc_binary(m, TLC_EXPR_NE, re, zero);
	if (!tlc_dtype_is_unsigned(t))
		adjust = tlc_binary(m, TLC_EXPR_AND, adjust,
				    tlc_binary(m, TLC_EXPR_NE, tlc_binary(m, TLC_EXPR_LT, xe, zero),
					       tlc_binary(m, TLC_EXPR_LT, ye, zero)));
	else
		return mod ? r : q; /* unsigned: floor and truncation agree */
	const tlc_expr *fixed = mod ? tlc_binary(m, TLC_EXPR_SUB, re, ye)
				    : tlc_binary(m, TLC_EXPR_ADD, qe, tlc_int(m, t, 1));
	return fe_expr(F, tlc_select(m, adjust, fixed, mod ? re : qe));
}

/* One operand of T.dp4a: an element (TileLang passes its address), or a
 * whole buffer (its first element), of dtype t. */
static bool dp4a_operand(fe *F, const char *what, fe_val *v, tlc_dtype t, int width, tlc_buffer **buf,
			 const tlc_expr **idx, tlc_loc loc)
{
	tlc_module *m = F->m;
	if (v->kind == FV_BUF) {
		*buf = v->u.buf;
		for (int d = 0; d < (*buf)->ndim && d < 8; d++)
			idx[d] = tlc_i32(m, 0);
	} else if (v->kind == FV_EXPR && v->u.e->kind == TLC_EXPR_LOAD) {
		*buf = v->u.e->u.load.buf;
		for (int d = 0; d < v->u.e->u.load.n && d < 8; d++)
			idx[d] = v->u.e->u.load.idx[d];
	} else {
		tlc_error(F->ctx, loc, "T.dp4a: %s must be a buffer element (A_local[i]) or a buffer, got %s",
			  what, fe_kind_name(v));
		return false;
	}
	tlc_buffer *b = *buf;
	if (b->dtype != t || b->ndim < 1 || b->ndim > 8) {
		tlc_error(F->ctx, loc, "T.dp4a: %s '%s' must be an %s buffer, got %s", what, b->name,
			  tlc_dtype_name(t), tlc_dtype_name(b->dtype));
		return false;
	}
	/* the four elements are consecutive in memory: along the last dimension */
	int64_t ext, first;
	if (width > 1 && tlc_expr_as_int(b->shape[b->ndim - 1], &ext) &&
	    (ext < width || (tlc_expr_as_int(idx[b->ndim - 1], &first) && first + width > ext))) {
		tlc_error(F->ctx, loc, "T.dp4a: the %d elements of %s from '%s' must lie in its last "
			  "dimension (of %lld)", width, what, b->name, (long long)ext);
		return false;
	}
	return true;
}

/* i + k, folded when i is a constant */
static const tlc_expr *plus(tlc_module *m, const tlc_expr *i, int k)
{
	int64_t c;
	if (k == 0)
		return i;
	if (tlc_expr_as_int(i, &c))
		return tlc_int(m, i->dtype, c + k);
	return tlc_binary(m, TLC_EXPR_ADD, i, tlc_int(m, i->dtype, k));
}

static fe_val *dp4a(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const params[] = {"A", "B", "C"};
	fe_val *a[3];
	if (!fe_bind_args(F, "T.dp4a", params, 3, 3, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.dp4a", false, loc))
		return NULL;
	tlc_module *m = F->m;
	tlc_buffer *ab, *bb, *cb;
	const tlc_expr *ai[8], *bi[8], *ci[8];
	if (!dp4a_operand(F, "A", a[0], TLC_DT_INT8, 4, &ab, ai, loc) ||
	    !dp4a_operand(F, "B", a[1], TLC_DT_INT8, 4, &bb, bi, loc) ||
	    !dp4a_operand(F, "C", a[2], TLC_DT_INT32, 1, &cb, ci, loc))
		return NULL;
	const tlc_expr *sum = NULL;
	const tlc_expr *a_last = ai[ab->ndim - 1], *b_last = bi[bb->ndim - 1];
	for (int k = 0; k < 4; k++) {
		ai[ab->ndim - 1] = plus(m, a_last, k);
		bi[bb->ndim - 1] = plus(m, b_last, k);
		const tlc_expr *p = tlc_binary(m, TLC_EXPR_MUL, tlc_cast(m, TLC_DT_INT32, tlc_load(m, ab, ab->ndim, ai)),
					       tlc_cast(m, TLC_DT_INT32, tlc_load(m, bb, bb->ndim, bi)));
		sum = sum ? tlc_binary(m, TLC_EXPR_ADD, sum, p) : p;
	}
	const tlc_expr *acc = tlc_binary(m, TLC_EXPR_ADD, tlc_load(m, cb, cb->ndim, ci), sum);
	fe_emit(F, tlc_store_new(m, loc, cb, cb->ndim, ci, acc));
	return F->none;
}

fe_val *fe_call_intops(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
		       fe_val **kwv, tlc_loc loc)
{
	char fname[64];
	snprintf(fname, sizeof fname, "T.%s", n);
	if (!strcmp(n, "dp4a"))
		return dp4a(F, nargs, args, nkw, kwn, kwv, loc);
	static const char *const params[] = {"a", "b", "span"};
	fe_val *a[3];
	if (!fe_bind_args(F, fname, params, 3, 2, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	bool mod = strcmp(n + strlen(n) - 3, "mod") == 0;
	if (strncmp(n, "trunc", 5) == 0)
		return trunc_op(F, fname, mod, a[0], a[1], loc);
	return fe_binop(F, mod ? PY_OP_MOD : PY_OP_FLOORDIV, a[0], a[1], loc);
}
