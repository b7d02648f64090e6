/* simplify.c - tlc_simplify_expr: constant folding and canonical integer
 * arithmetic.
 *
 * Integer +, -, * by constants and unary minus are normalised through a
 * linear form `c + sum(coef_i * atom_i)`: equal atoms merge (they are
 * hash-consed, so equal means the same pointer), zero terms vanish, and the
 * sum is rebuilt in a canonical order (atoms sorted by tlc_expr_compare,
 * positive terms first, the constant last).  So `(b*128 + 128) - b*128` is
 * `128` and `(x + 1) + 2` is `x + 3`.  The result is deterministic and a
 * fixpoint: simplify(simplify(e)) == simplify(e). */
#include "arith.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- memo: each shared subexpression is simplified once per call ---- */

typedef struct memo {
	const tlc_expr **keys, **vals;
	uint32_t cap, n;
} memo;

static uint32_t ptr_slot(const void *p, uint32_t cap)
{
	uintptr_t x = (uintptr_t)p >> 3;
	return (uint32_t)(x * 2654435761u) & (cap - 1);
}

static const tlc_expr *memo_get(const memo *mo, const tlc_expr *k)
{
	if (!mo->cap)
		return NULL;
	for (uint32_t j = ptr_slot(k, mo->cap); mo->keys[j]; j = (j + 1) & (mo->cap - 1))
		if (mo->keys[j] == k)
			return mo->vals[j];
	return NULL;
}

static void memo_put(memo *mo, const tlc_expr *k, const tlc_expr *v)
{
	if ((mo->n + 1) * 2 > mo->cap) {
		memo old = *mo;
		mo->cap = old.cap ? old.cap * 2 : 64;
		mo->keys = tlc_xcalloc(mo->cap, sizeof(*mo->keys));
		mo->vals = tlc_xcalloc(mo->cap, sizeof(*mo->vals));
		mo->n = 0;
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				memo_put(mo, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	uint32_t j = ptr_slot(k, mo->cap);
	while (mo->keys[j] && mo->keys[j] != k)
		j = (j + 1) & (mo->cap - 1);
	if (!mo->keys[j])
		mo->n++;
	mo->keys[j] = k;
	mo->vals[j] = v;
}

/* ---- constants ---- */

/* v wrapped to the width and signedness of t (two's complement). */
static int64_t wrap(int64_t v, tlc_dtype t)
{
	if (t == TLC_DT_BOOL)
		return v != 0;
	int bits = tlc_dtype_bits(t);
	if (!tlc_dtype_is_int(t) || bits <= 0 || bits >= 64)
		return v;
	uint64_t mask = (UINT64_C(1) << bits) - 1, u = (uint64_t)v & mask;
	if (!tlc_dtype_is_unsigned(t) && (u >> (bits - 1)))
		u |= ~mask;
	return (int64_t)u;
}

static const tlc_expr *mk_int(tlc_module *m, tlc_dtype t, int64_t v)
{
	return tlc_int(m, t, wrap(v, t));
}

static bool fits(int64_t v, tlc_dtype t)
{
	int64_t lo, hi;
	return !tlc_dtype_int_range(t, &lo, &hi) || (v >= lo && v <= hi);
}

static bool as_int(const tlc_expr *e, int64_t *v)
{
	return tlc_expr_as_int(e, v);
}

static bool is_const(const tlc_expr *e)
{
	return e->kind == TLC_EXPR_INT || e->kind == TLC_EXPR_FLOAT;
}

static double as_double(const tlc_expr *e)
{
	return e->kind == TLC_EXPR_FLOAT ? e->u.fval : (double)e->u.ival;
}

static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* a + b and a * b, setting *overflow when int64 cannot hold the result
 * (the wrapped value is what unsigned types mean). */
static int64_t cadd(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		*overflow = true;
	return wadd(a, b);
}

static int64_t cmul(int64_t a, int64_t b, bool *overflow)
{
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		*overflow = true;
	return wmul(a, b);
}

/* Python's // and % on integers: the quotient rounds toward -infinity and the
 * remainder has the divisor's sign.  b != 0 and not (INT64_MIN, -1). */
static int64_t py_floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b != 0 && ((a < 0) != (b < 0)))
		q--;
	return q;
}

static int64_t py_floormod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	if (r != 0 && ((r < 0) != (b < 0)))
		r += b;
	return r;
}

static bool is_cmp(tlc_expr_kind k)
{
	return k >= TLC_EXPR_EQ && k <= TLC_EXPR_GE;
}

static bool cmp_result(tlc_expr_kind k, int c) /* c: <0, 0, >0 */
{
	switch (k) {
	case TLC_EXPR_EQ: return c == 0;
	case TLC_EXPR_NE: return c != 0;
	case TLC_EXPR_LT: return c < 0;
	case TLC_EXPR_LE: return c <= 0;
	case TLC_EXPR_GT: return c > 0;
	default: return c >= 0;
	}
}

/* Two integer constants of type t (the language's arithmetic, arith.c).
 * A result the language calls an error (an int32 or int64 overflow, a zero
 * divisor) stays unfolded: never a wrapped index, and never a wider type
 * (no pass changes a type), so tlc-sim reports it where it runs. */
static const tlc_expr *fold_int(tlc_module *m, tlc_expr_kind k, tlc_dtype t, int64_t a, int64_t b)
{
	tlc_scalar x = {0, a}, y = {0, b}, r;
	if (is_cmp(k))
		return tlc_bool(m, tlc_arith_compare(k, t, x, y));
	if (k == TLC_EXPR_AND || k == TLC_EXPR_OR)
		return tlc_bool(m, k == TLC_EXPR_AND ? (a && b) : (a || b));
	return tlc_arith_binary(k, t, x, y, &r) ? NULL : tlc_int(m, t, r.i);
}

/* Two float constants of type t (the language's arithmetic, arith.c:
 * rounded to t after every step). */
static const tlc_expr *fold_float(tlc_module *m, tlc_expr_kind k, tlc_dtype t, double a, double b)
{
	tlc_scalar x = {a, 0}, y = {b, 0}, r;
	if (is_cmp(k))
		return tlc_bool(m, tlc_arith_compare(k, t, x, y));
	if (!tlc_dtype_is_float(t) || tlc_arith_binary(k, t, x, y, &r))
		return NULL;
	return tlc_float(m, t, r.f);
}

/* Fold a binary operator on two constants (of one type: the IR's
 * invariant); NULL when it cannot (division by zero, an operator that has
 * no meaning on the operands). */
static const tlc_expr *fold_binary(tlc_module *m, tlc_expr_kind k, tlc_dtype t, const tlc_expr *a,
                                   const tlc_expr *b)
{
	if (a->kind == TLC_EXPR_INT && b->kind == TLC_EXPR_INT)
		return fold_int(m, k, is_cmp(k) ? a->dtype : t, a->u.ival, b->u.ival);
	if (a->kind == TLC_EXPR_FLOAT && b->kind == TLC_EXPR_FLOAT)
		return fold_float(m, k, is_cmp(k) ? a->dtype : t, a->u.fval, b->u.fval);
	return NULL;
}

static const tlc_expr *fold_cast(tlc_module *m, tlc_dtype t, const tlc_expr *a)
{
	return tlc_cast(m, t, a); /* a constant's conversion (arith.c) */
}

/* T.reinterpret of a constant, where a constant holds the result exactly:
 * not a NaN (a constant does not carry its payload) nor a negative zero
 * (kept as the bits the GPU computes).  NULL: leave the node. */
static const tlc_expr *fold_bitcast(tlc_module *m, tlc_dtype t, const tlc_expr *a)
{
	tlc_scalar v = {a->kind == TLC_EXPR_FLOAT ? a->u.fval : 0,
	                a->kind == TLC_EXPR_INT ? a->u.ival : 0};
	if (!tlc_arith_bitcast_exact(v, a->dtype, t))
		return NULL;
	tlc_scalar r = tlc_arith_bitcast(v, a->dtype, t);
	if (tlc_dtype_is_float(t) && r.f == 0.0 && signbit(r.f))
		return NULL;
	return tlc_dtype_is_float(t) ? tlc_float(m, t, r.f) : tlc_int(m, t, r.i);
}

/* ---- linear forms of integer expressions ---- */

typedef struct term {
	const tlc_expr *atom;
	int64_t coef;
} term;

typedef struct linear {
	tlc_dtype dt;
	int64_t c;
	int n, cap;
	term *t;
	bool overflow; /* a coefficient or the constant left int64 */
} linear;

static void lin_add(linear *l, const tlc_expr *atom, int64_t coef)
{
	for (int i = 0; i < l->n; i++)
		if (l->t[i].atom == atom) {
			l->t[i].coef = cadd(l->t[i].coef, coef, &l->overflow);
			return;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->t = tlc_xrealloc(l->t, (size_t)l->cap * sizeof(*l->t));
	}
	l->t[l->n].atom = atom;
	l->t[l->n].coef = coef;
	l->n++;
}

/* Add scale * e to l, looking through +, -, unary minus and products with
 * a constant of l's type. */
static void to_linear(const tlc_expr *e, int64_t scale, linear *l)
{
	int64_t v;
	if (as_int(e, &v)) {
		l->c = cadd(l->c, cmul(scale, v, &l->overflow), &l->overflow);
		return;
	}
	if (e->dtype == l->dt) {
		switch (e->kind) {
		case TLC_EXPR_ADD:
			to_linear(e->u.op.a, scale, l);
			to_linear(e->u.op.b, scale, l);
			return;
		case TLC_EXPR_SUB:
			to_linear(e->u.op.a, scale, l);
			to_linear(e->u.op.b, cmul(scale, -1, &l->overflow), l);
			return;
		case TLC_EXPR_NEG:
			to_linear(e->u.op.a, cmul(scale, -1, &l->overflow), l);
			return;
		case TLC_EXPR_MUL:
			if (as_int(e->u.op.b, &v)) {
				to_linear(e->u.op.a, cmul(scale, v, &l->overflow), l);
				return;
			}
			if (as_int(e->u.op.a, &v)) {
				to_linear(e->u.op.b, cmul(scale, v, &l->overflow), l);
				return;
			}
			break;
		default:
			break;
		}
	}
	lin_add(l, e, scale);
}

static int term_cmp(const void *x, const void *y)
{
	return tlc_expr_compare(((const term *)x)->atom, ((const term *)y)->atom);
}

/* Drop zero terms and sort the rest into the canonical order. */
static void lin_normalize(linear *l)
{
	int k = 0;
	for (int i = 0; i < l->n; i++)
		if (l->t[i].coef != 0)
			l->t[k++] = l->t[i];
	l->n = k;
	if (k > 1)
		qsort(l->t, (size_t)k, sizeof(*l->t), term_cmp);
}

/* A signed linear form whose coefficients or constant leave its type (or
 * would negate the smallest value) cannot be rebuilt in that type: the
 * expression keeps its own form and type, and an overflow it holds is the
 * program's, reported by tlc-sim where it runs. */
static bool lin_exact(const linear *l)
{
	if (l->dt != TLC_DT_INT32 && l->dt != TLC_DT_INT64)
		return true;
	int64_t lo, hi;
	tlc_dtype_int_range(l->dt, &lo, &hi);
	bool bad = l->overflow || l->c == INT64_MIN || l->c < lo || l->c > hi;
	for (int i = 0; i < l->n; i++)
		bad |= l->t[i].coef == INT64_MIN || l->t[i].coef < -hi || l->t[i].coef > hi;
	return !bad;
}

/* |coef| * atom. */
static const tlc_expr *scaled(tlc_module *m, const term *t, tlc_dtype dt)
{
	int64_t c = t->coef < 0 ? wmul(t->coef, -1) : t->coef;
	return c == 1 ? t->atom : tlc_binary(m, TLC_EXPR_MUL, t->atom, mk_int(m, dt, c));
}

/* The canonical expression of a normalised linear form: positive terms in
 * order, then negative terms subtracted, then the constant. */
static const tlc_expr *lin_build(tlc_module *m, const linear *l)
{
	const tlc_expr *acc = NULL;
	for (int i = 0; i < l->n; i++)
		if (l->t[i].coef > 0)
			acc = acc ? tlc_binary(m, TLC_EXPR_ADD, acc, scaled(m, &l->t[i], l->dt)) : scaled(m, &l->t[i], l->dt);
	bool const_done = false;
	for (int i = 0; i < l->n; i++) {
		const term *t = &l->t[i];
		if (t->coef > 0)
			continue;
		if (!acc && l->c > 0) {
			acc = mk_int(m, l->dt, l->c); /* `c - x` reads better than `-x + c` */
			const_done = true;
		}
		if (acc)
			acc = tlc_binary(m, TLC_EXPR_SUB, acc, scaled(m, t, l->dt));
		else if (t->coef == -1)
			acc = tlc_unary(m, TLC_EXPR_NEG, t->atom);
		else
			acc = tlc_binary(m, TLC_EXPR_MUL, t->atom, mk_int(m, l->dt, t->coef));
	}
	if (!acc)
		return mk_int(m, l->dt, l->c);
	if (const_done || l->c == 0)
		return acc;
	if (l->c > 0)
		return tlc_binary(m, TLC_EXPR_ADD, acc, mk_int(m, l->dt, l->c));
	return tlc_binary(m, TLC_EXPR_SUB, acc, mk_int(m, l->dt, wmul(l->c, -1)));
}

static const tlc_expr *canonical_sum(tlc_module *m, const tlc_expr *e)
{
	linear l = {.dt = e->dtype};
	to_linear(e, 1, &l);
	lin_normalize(&l);
	const tlc_expr *r = lin_exact(&l) ? lin_build(m, &l) : e;
	free(l.t);
	return r;
}

static bool int_typed(const tlc_expr *e)
{
	return tlc_dtype_is_int(e->dtype);
}

/* x // c and x % c for a constant c > 0: terms of x whose coefficient is a
 * multiple of c leave the division exactly ((c*i + r) // c == i + r // c and
 * (c*i + r) % c == r % c hold for floor division). */
static const tlc_expr *div_mod_const(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, int64_t c,
                                     tlc_dtype dt)
{
	int64_t inner;
	if (c == 1)
		return k == TLC_EXPR_FLOORDIV ? a : mk_int(m, dt, 0);
	/* (x // a) // c == x // (a * c) for positive a, c */
	if (k == TLC_EXPR_FLOORDIV && a->kind == TLC_EXPR_FLOORDIV && as_int(a->u.op.b, &inner) &&
	    inner > 0 && inner <= INT32_MAX && c <= INT32_MAX && fits(inner * c, a->dtype))
		return tlc_binary(m, k, a->u.op.a, mk_int(m, a->dtype, inner * c));
	/* (x % c) % c == x % c */
	if (k == TLC_EXPR_FLOORMOD && a->kind == TLC_EXPR_FLOORMOD && as_int(a->u.op.b, &inner) && inner == c)
		return a;
	linear l = {.dt = dt}, rest = {.dt = dt};
	to_linear(a, 1, &l);
	lin_normalize(&l);
	if (!lin_exact(&l)) {
		free(l.t);
		return tlc_binary(m, k, a, mk_int(m, dt, c));
	}
	linear quot = {.dt = l.dt};
	for (int i = 0; i < l.n; i++) {
		if (l.t[i].coef % c == 0)
			lin_add(&quot, l.t[i].atom, l.t[i].coef / c);
		else
			lin_add(&rest, l.t[i].atom, l.t[i].coef);
	}
	rest.c = l.c;
	const tlc_expr *r;
	if (quot.n == 0) {
		r = tlc_binary(m, k, a, mk_int(m, dt, c));
	} else {
		lin_normalize(&rest);
		const tlc_expr *rest_e = rest.n ? tlc_binary(m, k, lin_build(m, &rest), mk_int(m, dt, c))
		                                : (k == TLC_EXPR_FLOORDIV ? mk_int(m, dt, py_floordiv(rest.c, c))
		                                                          : mk_int(m, dt, py_floormod(rest.c, c)));
		if (k == TLC_EXPR_FLOORMOD) {
			r = rest_e;
		} else {
			to_linear(rest_e, 1, &quot);
			lin_normalize(&quot);
			r = lin_build(m, &quot);
		}
	}
	free(l.t);
	free(rest.t);
	free(quot.t);
	return r;
}

/* ---- the rules ---- */

static bool commutative(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: case TLC_EXPR_MUL: case TLC_EXPR_MIN: case TLC_EXPR_MAX:
	case TLC_EXPR_EQ: case TLC_EXPR_NE: case TLC_EXPR_AND: case TLC_EXPR_OR:
	case TLC_EXPR_BITAND: case TLC_EXPR_BITOR: case TLC_EXPR_BITXOR:
		return true;
	default:
		return false;
	}
}

/* Operands of a commutative operator in canonical order: a constant goes to
 * the right, otherwise by tlc_expr_compare. */
static void order_operands(tlc_expr_kind k, const tlc_expr **a, const tlc_expr **b)
{
	if (!commutative(k))
		return;
	bool swap = is_const(*a) ? !is_const(*b) : (!is_const(*b) && tlc_expr_compare(*a, *b) > 0);
	if (swap) {
		const tlc_expr *t = *a;
		*a = *b;
		*b = t;
	}
}

static const tlc_expr *simplify_logic(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b)
{
	int64_t v;
	if (a == b)
		return a;
	if (as_int(b, &v)) { /* constants are on the right */
		bool absorbing = (k == TLC_EXPR_AND) ? v == 0 : v != 0;
		if (absorbing)
			return tlc_bool(m, k == TLC_EXPR_OR);
		if (a->dtype == TLC_DT_BOOL)
			return a;
	}
	return tlc_binary(m, k, a, b);
}

/* min/max: chains of constants fold, min(min(x, 3), 5) == min(x, 3). */
static const tlc_expr *simplify_minmax(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b)
{
	if (a == b)
		return a;
	if (is_const(b) && a->kind == k && is_const(a->u.op.b)) {
		const tlc_expr *c = fold_binary(m, k, a->dtype, a->u.op.b, b);
		if (c)
			return tlc_binary(m, k, a->u.op.a, c);
	}
	return tlc_binary(m, k, a, b);
}

static const tlc_expr *simplify_cmp(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b)
{
	if (int_typed(a) && int_typed(b)) {
		if (a == b)
			return tlc_bool(m, cmp_result(k, 0));
		/* a - b constant: (i + 4 < i + 8) */
		linear l = {.dt = a->dtype};
		to_linear(a, 1, &l);
		to_linear(b, -1, &l);
		lin_normalize(&l);
		bool constant = l.n == 0 && lin_exact(&l);
		int64_t c = l.c;
		free(l.t);
		if (constant)
			return tlc_bool(m, cmp_result(k, c < 0 ? -1 : c > 0));
	}
	return tlc_binary(m, k, a, b);
}

static const tlc_expr *simplify_float_arith(tlc_module *m, tlc_expr_kind k, tlc_dtype t,
                                            const tlc_expr *a, const tlc_expr *b)
{
	/* only exact identities: reassociating floats would change results */
	if (b->kind == TLC_EXPR_FLOAT || b->kind == TLC_EXPR_INT) {
		double v = as_double(b);
		if ((k == TLC_EXPR_MUL || k == TLC_EXPR_DIV) && v == 1.0 && a->dtype == t)
			return a;
		if (k == TLC_EXPR_SUB && v == 0.0 && a->dtype == t)
			return a;
	}
	return tlc_binary(m, k, a, b);
}

static const tlc_expr *simplify_binary(tlc_module *m, tlc_expr_kind k, tlc_dtype t, const tlc_expr *a,
                                       const tlc_expr *b)
{
	if (is_const(a) && is_const(b)) {
		const tlc_expr *c = fold_binary(m, k, t, a, b);
		if (c)
			return c;
	}
	order_operands(k, &a, &b);
	int64_t v;
	bool ints = tlc_dtype_is_int(t) && int_typed(a) && int_typed(b);
	switch (k) {
	case TLC_EXPR_ADD:
	case TLC_EXPR_SUB:
	case TLC_EXPR_MUL:
		if (ints)
			return canonical_sum(m, tlc_binary(m, k, a, b));
		if (tlc_dtype_is_float(t))
			return simplify_float_arith(m, k, t, a, b);
		break;
	case TLC_EXPR_DIV:
		if (ints && as_int(b, &v) && v == 1)
			return a;
		if (tlc_dtype_is_float(t))
			return simplify_float_arith(m, k, t, a, b);
		break;
	case TLC_EXPR_FLOORDIV:
	case TLC_EXPR_FLOORMOD:
		if (ints && as_int(b, &v) && v > 0)
			return div_mod_const(m, k, a, v, t);
		break;
	case TLC_EXPR_MIN:
	case TLC_EXPR_MAX: return simplify_minmax(m, k, a, b);
	case TLC_EXPR_AND:
	case TLC_EXPR_OR: return simplify_logic(m, k, a, b);
	default:
		if (is_cmp(k))
			return simplify_cmp(m, k, a, b);
		break;
	}
	return tlc_binary(m, k, a, b);
}

static const tlc_expr *simplify_unary(tlc_module *m, const tlc_expr *e, const tlc_expr *a)
{
	if (e->kind == TLC_EXPR_NOT) {
		if (a->kind == TLC_EXPR_INT)
			return tlc_bool(m, a->u.ival == 0);
		if (a->kind == TLC_EXPR_NOT && a->u.op.a->dtype == TLC_DT_BOOL)
			return a->u.op.a;
		return tlc_unary(m, TLC_EXPR_NOT, a);
	}
	if (a->kind == TLC_EXPR_INT) {
		tlc_scalar x = {0, a->u.ival}, r;
		/* -INT32_MIN overflows: an error of the program, left to run */
		return tlc_arith_neg(a->dtype, x, &r) ? tlc_unary(m, TLC_EXPR_NEG, a) : tlc_int(m, a->dtype, r.i);
	}
	if (a->kind == TLC_EXPR_FLOAT)
		return tlc_float(m, a->dtype, -a->u.fval);
	if (int_typed(a))
		return canonical_sum(m, tlc_unary(m, TLC_EXPR_NEG, a));
	if (a->kind == TLC_EXPR_NEG)
		return a->u.op.a;
	return tlc_unary(m, TLC_EXPR_NEG, a);
}

static const tlc_expr *simplify_rec(tlc_module *m, const tlc_expr *e, memo *mo);

static const tlc_expr *simplify_children(tlc_module *m, const tlc_expr *e, memo *mo)
{
	switch (e->kind) {
	case TLC_EXPR_LOAD: {
		int n = e->u.load.n;
		const tlc_expr **idx = tlc_xcalloc((size_t)n + 1, sizeof(*idx));
		for (int i = 0; i < n; i++)
			idx[i] = simplify_rec(m, e->u.load.idx[i], mo);
		const tlc_expr *r = tlc_load(m, e->u.load.buf, n, idx);
		free(idx);
		return r;
	}
	case TLC_EXPR_REGION: {
		int n = e->u.region.n;
		tlc_range *dims = tlc_xcalloc((size_t)n + 1, sizeof(*dims));
		for (int i = 0; i < n; i++) {
			dims[i] = e->u.region.dims[i];
			dims[i].begin = simplify_rec(m, dims[i].begin, mo);
			dims[i].extent = simplify_rec(m, dims[i].extent, mo);
		}
		const tlc_expr *r = tlc_region(m, e->u.region.buf, n, dims);
		free(dims);
		return r;
	}
	case TLC_EXPR_TUPLE: {
		int n = e->u.tuple.n;
		const tlc_expr **items = tlc_xcalloc((size_t)n + 1, sizeof(*items));
		for (int i = 0; i < n; i++)
			items[i] = simplify_rec(m, e->u.tuple.items[i], mo);
		const tlc_expr *r;
		if (e->u.tuple.is_dict) {
			/* items are the (key, value) pairs, simplified above as tuples */
			const tlc_expr **keys = tlc_xcalloc((size_t)n + 1, sizeof(*keys));
			const tlc_expr **values = tlc_xcalloc((size_t)n + 1, sizeof(*values));
			for (int i = 0; i < n; i++) {
				keys[i] = items[i]->u.tuple.items[0];
				values[i] = items[i]->u.tuple.items[1];
			}
			r = tlc_dict(m, n, keys, values);
			free(keys);
			free(values);
		} else {
			r = tlc_tuple(m, n, items, e->u.tuple.is_list);
		}
		free(items);
		return r;
	}
	case TLC_EXPR_CALL: {
		int n = e->u.call.nargs, nk = e->u.call.nkw;
		const tlc_expr **args = tlc_xcalloc((size_t)n + (size_t)nk + 1, sizeof(*args));
		for (int i = 0; i < n; i++)
			args[i] = simplify_rec(m, e->u.call.args[i], mo);
		for (int i = 0; i < nk; i++)
			args[n + i] = simplify_rec(m, e->u.call.kw_values[i], mo);
		const tlc_expr *r = tlc_call(m, e->u.call.op, e->dtype, n, args, nk, e->u.call.kw_names, args + n);
		free(args);
		return r;
	}
	case TLC_EXPR_LAMBDA:
		return tlc_lambda(m, e->u.lambda.nparams, e->u.lambda.params,
		                  simplify_rec(m, e->u.lambda.body, mo));
	default:
		return e;
	}
}

static const tlc_expr *simplify_node(tlc_module *m, const tlc_expr *e, memo *mo)
{
	switch (e->kind) {
	case TLC_EXPR_NOT:
	case TLC_EXPR_NEG: return simplify_unary(m, e, simplify_rec(m, e->u.op.a, mo));
	case TLC_EXPR_SELECT: {
		const tlc_expr *c = simplify_rec(m, e->u.op.a, mo);
		const tlc_expr *t = simplify_rec(m, e->u.op.b, mo);
		const tlc_expr *f = simplify_rec(m, e->u.op.c, mo);
		if (c->kind == TLC_EXPR_INT)
			return c->u.ival ? t : f;
		return t == f ? t : tlc_select(m, c, t, f);
	}
	case TLC_EXPR_CAST: {
		const tlc_expr *a = simplify_rec(m, e->u.op.a, mo);
		if (a->dtype == e->dtype)
			return a;
		const tlc_expr *c = is_const(a) ? fold_cast(m, e->dtype, a) : NULL;
		return c ? c : tlc_cast(m, e->dtype, a);
	}
	case TLC_EXPR_BITCAST: {
		const tlc_expr *a = simplify_rec(m, e->u.op.a, mo);
		if (a->kind == TLC_EXPR_BITCAST && a->u.op.a->dtype == e->dtype)
			return a->u.op.a; /* the same bits, read back as their own type */
		bool same_width = tlc_dtype_bits(a->dtype) == tlc_dtype_bits(e->dtype);
		const tlc_expr *c = is_const(a) && same_width ? fold_bitcast(m, e->dtype, a) : NULL;
		return c ? c : tlc_bitcast(m, e->dtype, a);
	}
	default:
		if (e->kind >= TLC_EXPR_ADD && e->kind <= TLC_EXPR_SHR)
			return simplify_binary(m, e->kind, e->dtype, simplify_rec(m, e->u.op.a, mo),
			                       simplify_rec(m, e->u.op.b, mo));
		return simplify_children(m, e, mo);
	}
}

static const tlc_expr *simplify_rec(tlc_module *m, const tlc_expr *e, memo *mo)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case TLC_EXPR_INT: case TLC_EXPR_FLOAT: case TLC_EXPR_STR: case TLC_EXPR_SYM:
	case TLC_EXPR_VAR: case TLC_EXPR_BUF:
		return e;
	default:
		break;
	}
	const tlc_expr *r = memo_get(mo, e);
	if (r)
		return r;
	r = simplify_node(m, e, mo);
	if (!r) /* a constructor refused (malformed input): keep the original */
		r = e;
	memo_put(mo, e, r);
	return r;
}

const tlc_expr *tlc_simplify_expr(tlc_module *m, const tlc_expr *e)
{
	memo mo = {0};
	const tlc_expr *r = simplify_rec(m, e, &mo);
	free(mo.keys);
	free(mo.vals);
	return r;
}
