/* bounds.c - integer interval bounds of index expressions, and the guard of
 * a global access.
 *
 * Used to prove that an access stays inside a global tensor (so its
 * boundary predicate can be dropped: T.copy's partial tiles, the
 * legalize-bounds pass) and that floordiv/floormod operands are
 * non-negative (so they print as plain C / and %).  Unknown means "emit the
 * safe form", so every rule here must be sound, never merely plausible.
 * tlc_access_guard is the one rule of what a global access needs to stay
 * inside its tensor (doc/language.md, "Bounds"). */
#include <stdint.h>
#include <stdlib.h>

#include <tlc/bounds.h>
#include <tlc/pass.h>
#include <tlc/walk.h>

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
		if (al == ah && bl == bh) { /* one value (a register index at one r) */
			*lo = *hi = al - floordiv_pos(al, bl) * bl;
			return true;
		}
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

void tlc_ranges_push_loop(tlc_ranges *r, const tlc_var *v, const tlc_expr *min, const tlc_expr *extent)
{
	int64_t lo, hi, elo, ehi;
	if (!tlc_expr_bounds(r, min, &lo, &hi))
		return;
	if (tlc_expr_bounds(r, extent, &elo, &ehi)) {
		if (ehi >= 1)
			tlc_ranges_push(r, v, lo, hi + ehi - 1);
		return;
	}
	/* a run-time trip count: the variable still starts at min and, being
	 * an int32, never passes INT32_MAX */
	if (v->dtype == TLC_DT_INT32)
		tlc_ranges_push(r, v, lo, INT32_MAX);
}

void tlc_ranges_push_frame(tlc_ranges *r, const tlc_func *f)
{
	/* CUDA's and HIP's limits where the extent is known only at run time:
	 * grids below 2^31 blocks, at most 1024 threads per block */
	for (int d = 0; d < f->grid_ndim && d < 3; d++) {
		int64_t lo, hi;
		if (!f->block_vars[d])
			continue;
		if (tlc_expr_bounds(r, f->grid[d], &lo, &hi) && hi >= 1)
			tlc_ranges_push(r, f->block_vars[d], 0, hi - 1);
		else
			tlc_ranges_push(r, f->block_vars[d], 0, INT32_MAX);
	}
	for (int d = 0; d < f->thread_ndim && d < 3; d++) {
		int64_t lo, hi;
		if (!f->thread_vars[d])
			continue;
		if (tlc_expr_bounds(r, f->threads[d], &lo, &hi) && hi >= 1)
			tlc_ranges_push(r, f->thread_vars[d], 0, hi - 1);
		else
			tlc_ranges_push(r, f->thread_vars[d], 0, 1023);
	}
}

/* ---- the guard of a global access ---- */

/* A comparison read as lhs < rhs (strict) or lhs <= rhs. */
typedef struct cmp_fact {
	const tlc_expr *lhs, *rhs;
	bool strict;
} cmp_fact;

static bool as_cmp(const tlc_expr *e, cmp_fact *c)
{
	switch (e->kind) {
	case TLC_EXPR_LT: *c = (cmp_fact){e->u.op.a, e->u.op.b, true}; return true;
	case TLC_EXPR_LE: *c = (cmp_fact){e->u.op.a, e->u.op.b, false}; return true;
	case TLC_EXPR_GT: *c = (cmp_fact){e->u.op.b, e->u.op.a, true}; return true;
	case TLC_EXPR_GE: *c = (cmp_fact){e->u.op.b, e->u.op.a, false}; return true;
	default: return false;
	}
}

/* Does condition f (known to hold) prove idx < ext (upper) or idx >= 0?
 * Looks through its conjuncts; everything compared simplified, so that a
 * test the program already makes is recognised whatever its spelling. */
static bool fact_proves(tlc_module *m, const tlc_expr *f, const tlc_expr *idx, const tlc_expr *ext, bool upper)
{
	if (!f)
		return false;
	if (f->kind == TLC_EXPR_AND)
		return fact_proves(m, f->u.op.a, idx, ext, upper) || fact_proves(m, f->u.op.b, idx, ext, upper);
	cmp_fact c;
	if (!as_cmp(tlc_simplify_expr(m, f), &c))
		return false;
	const tlc_expr *lhs = tlc_simplify_expr(m, c.lhs), *rhs = tlc_simplify_expr(m, c.rhs);
	int64_t k, n;
	if (upper) {
		/* idx < k with k <= ext, or idx <= k with k < ext */
		if (lhs != idx)
			return false;
		if (c.strict && rhs == ext)
			return true;
		return tlc_expr_as_int(rhs, &k) && tlc_expr_as_int(ext, &n) && (c.strict ? k <= n : k < n);
	}
	/* k < idx with k >= -1, or k <= idx with k >= 0 */
	return rhs == idx && tlc_expr_as_int(lhs, &k) && (c.strict ? k >= -1 : k >= 0);
}

static bool facts_prove(tlc_module *m, int nfacts, const tlc_expr *const *facts, const tlc_expr *idx,
                        const tlc_expr *ext, bool upper)
{
	const tlc_expr *si = tlc_simplify_expr(m, idx), *se = tlc_simplify_expr(m, ext);
	for (int i = 0; i < nfacts; i++)
		if (fact_proves(m, facts[i], si, se, upper))
			return true;
	return false;
}

static const tlc_expr *and_also(tlc_module *m, const tlc_expr *pred, const tlc_expr *c)
{
	return pred ? tlc_binary(m, TLC_EXPR_AND, pred, c) : c;
}

const tlc_expr *tlc_access_guard(tlc_module *m, const tlc_ranges *r, const tlc_buffer *b, int n,
                                 const tlc_expr *const *idx, int nfacts, const tlc_expr *const *facts)
{
	const tlc_expr *pred = NULL;
	for (int d = 0; d < n && d < b->ndim; d++) {
		int64_t lo, hi, ext;
		bool known = tlc_expr_bounds(r, idx[d], &lo, &hi);
		bool below = known && tlc_expr_as_int(b->shape[d], &ext) && hi < ext;
		bool above = known && lo >= 0;
		if (!below && !facts_prove(m, nfacts, facts, idx[d], b->shape[d], true))
			pred = and_also(m, pred, tlc_binary(m, TLC_EXPR_LT, idx[d], b->shape[d]));
		if (!above && !facts_prove(m, nfacts, facts, idx[d], b->shape[d], false))
			pred = and_also(m, pred, tlc_binary(m, TLC_EXPR_GE, idx[d], tlc_i32(m, 0)));
	}
	return pred;
}

/* ---- safe values ---- */

typedef struct safe_scan {
	const tlc_buffer *b;
	const tlc_expr *value;
} safe_scan;

static tlc_walk_action find_safe_value(void *p, const tlc_stmt *s)
{
	safe_scan *c = p;
	if (!tlc_stmt_is_call(s, TLC_OP_ANNOTATE_SAFE_VALUE))
		return TLC_WALK_CONTINUE;
	const tlc_expr *d = s->u.eval.call->u.call.args[0];
	for (int i = 0; d->kind == TLC_EXPR_TUPLE && d->u.tuple.is_dict && i < d->u.tuple.n; i++) {
		const tlc_expr *pair = d->u.tuple.items[i];
		if (pair->u.tuple.items[0]->kind == TLC_EXPR_BUF && pair->u.tuple.items[0]->u.buf == c->b) {
			c->value = pair->u.tuple.items[1];
			return TLC_WALK_STOP;
		}
	}
	return TLC_WALK_SKIP;
}

const tlc_expr *tlc_safe_value(tlc_module *m, const tlc_func *f, const tlc_buffer *b)
{
	safe_scan c = {b, NULL};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = find_safe_value}, f->body);
	if (c.value)
		return c.value;
	if (b->dtype == TLC_DT_BOOL)
		return tlc_bool(m, false);
	return tlc_dtype_is_float(b->dtype) ? tlc_float(m, b->dtype, 0.0) : tlc_int(m, b->dtype, 0);
}
