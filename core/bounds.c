/* bounds.c - integer interval bounds of index expressions.
 *
 * Used to prove that a tile stays inside a global tensor (so the boundary
 * predicate can be dropped) and that floordiv/floormod operands are
 * non-negative (so they print as plain C / and %).  Unknown means "emit the
 * safe form", so every rule here must be sound, never merely plausible. */
#include <stdlib.h>

#include <tlc/bounds.h>

#define BOUND_LIMIT ((int64_t)1 << 40) /* keep products far from overflow */

void tlc_ranges_push(tlc_ranges *r, const tlc_var *v, int64_t lo, int64_t hi)
{
	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 16;
		tlc_var_range *items = realloc(r->items, (size_t)cap * sizeof(*items));
		if (!items)
			abort();
		r->items = items;
		r->cap = cap;
	}
	r->items[r->n++] = (tlc_var_range){v, lo, hi};
}

void tlc_ranges_free(tlc_ranges *r)
{
	free(r->items);
	r->items = NULL;
	r->n = r->cap = 0;
}

static bool in_limit(int64_t v) { return v > -BOUND_LIMIT && v < BOUND_LIMIT; }

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t m = a < b ? a : b;
	m = m < c ? m : c;
	return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t m = a > b ? a : b;
	m = m > c ? m : c;
	return m > d ? m : d;
}

/* Python floor division for b > 0. */
static int64_t floordiv_pos(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static bool var_bounds(const tlc_ranges *r, const tlc_var *v, int64_t *lo, int64_t *hi)
{
	for (int i = r->n - 1; i >= 0; i--) /* innermost binding wins */
		if (r->items[i].var == v) {
			*lo = r->items[i].lo;
			*hi = r->items[i].hi;
			return true;
		}
	return false;
}

static bool binary_bounds(const tlc_ranges *r, const tlc_expr *e, int64_t *lo, int64_t *hi)
{
	int64_t al, ah, bl, bh;
	if (!tlc_expr_bounds(r, e->u.op.a, &al, &ah) || !tlc_expr_bounds(r, e->u.op.b, &bl, &bh))
		return false;
	switch (e->kind) {
	case TLC_EXPR_ADD:
		*lo = al + bl, *hi = ah + bh;
		return true;
	case TLC_EXPR_SUB:
		*lo = al - bh, *hi = ah - bl;
		return true;
	case TLC_EXPR_MUL:
		*lo = min4(al * bl, al * bh, ah * bl, ah * bh);
		*hi = max4(al * bl, al * bh, ah * bl, ah * bh);
		return true;
	case TLC_EXPR_FLOORDIV:
		if (bl <= 0)
			return false;
		/* floor(a/b) is monotonic in a and, for b > 0, bounded by the corners */
		*lo = min4(floordiv_pos(al, bl), floordiv_pos(al, bh), floordiv_pos(ah, bl), floordiv_pos(ah, bh));
		*hi = max4(floordiv_pos(al, bl), floordiv_pos(al, bh), floordiv_pos(ah, bl), floordiv_pos(ah, bh));
		return true;
	case TLC_EXPR_FLOORMOD:
		if (bl <= 0)
			return false;
		if (al >= 0 && ah < bl) { /* a already inside [0, b) */
			*lo = al, *hi = ah;
			return true;
		}
		*lo = 0, *hi = bh - 1;
		return true;
	case TLC_EXPR_MIN:
		*lo = al < bl ? al : bl, *hi = ah < bh ? ah : bh;
		return true;
	case TLC_EXPR_MAX:
		*lo = al > bl ? al : bl, *hi = ah > bh ? ah : bh;
		return true;
	default:
		return false;
	}
}

bool tlc_expr_bounds(const tlc_ranges *r, const tlc_expr *e, int64_t *lo, int64_t *hi)
{
	int64_t v;
	bool ok;
	if (!e || !tlc_dtype_is_int(e->dtype))
		return false;
	if (tlc_expr_as_int(e, &v)) {
		*lo = *hi = v;
		return in_limit(v);
	}
	switch (e->kind) {
	case TLC_EXPR_VAR:
		ok = var_bounds(r, e->u.var, lo, hi);
		break;
	case TLC_EXPR_CALL:
		/* CUDA's limits: 1024 threads per block, grids below 2^31 */
		if (e->u.call.op == TLC_OP_THREAD_IDX) {
			*lo = 0;
			*hi = 1023;
			return true;
		}
		if (e->u.call.op == TLC_OP_BLOCK_IDX) {
			*lo = 0;
			*hi = ((int64_t)1 << 31) - 1;
			return true;
		}
		return false;
	case TLC_EXPR_ADD:
	case TLC_EXPR_SUB:
	case TLC_EXPR_MUL:
	case TLC_EXPR_FLOORDIV:
	case TLC_EXPR_FLOORMOD:
	case TLC_EXPR_MIN:
	case TLC_EXPR_MAX:
		ok = binary_bounds(r, e, lo, hi);
		break;
	case TLC_EXPR_SELECT: {
		int64_t bl, bh, cl, ch;
		ok = tlc_expr_bounds(r, e->u.op.b, &bl, &bh) && tlc_expr_bounds(r, e->u.op.c, &cl, &ch);
		if (ok)
			*lo = bl < cl ? bl : cl, *hi = bh > ch ? bh : ch;
		break;
	}
	case TLC_EXPR_CAST:
		/* a widening or same-width integer cast keeps the value */
		ok = tlc_dtype_is_int(e->u.op.a->dtype) &&
		     tlc_dtype_bits(e->dtype) >= tlc_dtype_bits(e->u.op.a->dtype) &&
		     tlc_dtype_is_unsigned(e->dtype) == tlc_dtype_is_unsigned(e->u.op.a->dtype) &&
		     tlc_expr_bounds(r, e->u.op.a, lo, hi);
		break;
	default:
		ok = false;
	}
	return ok && in_limit(*lo) && in_limit(*hi);
}
