/* disjoint.c - when two element accesses of threads cannot name the same
 * element (tlc/access.h): the one rule sync-insert and the barrier check
 * use to let accesses of one shared buffer go without a barrier between
 * them.  Every rule must be sound: "unknown" means "may meet". */
#include <stdlib.h>

#include <tlc/access.h>
#include <tlc/bounds.h>
#include <tlc/uniform.h>
#include <tlc/walk.h>

#include "internal.h"

#define LIN_MAX 24
#define LIMIT ((int64_t)1 << 40) /* keep sums and products far from overflow */

struct tlc_disjoint {
	const tlc_uniformity *u;
	tlc_ranges ranges; /* every loop, block and thread variable of the kernel */
};

/* Loop variables in walk order, outer loops first, so that an inner
 * loop's bounds may use an outer one's range.  A variable is bound once. */
static tlc_walk_action push_loop(void *p, const tlc_stmt *s)
{
	tlc_ranges *r = p;
	if (s->kind == TLC_STMT_FOR)
		tlc_ranges_push_loop(r, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
	return TLC_WALK_CONTINUE;
}

tlc_disjoint *tlc_disjoint_new(const tlc_func *f, const tlc_uniformity *u)
{
	tlc_disjoint *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	d->u = u;
	tlc_ranges_push_frame(&d->ranges, f);
	if (f->body)
		tlc_walk_stmt(&(tlc_visitor){.ctx = &d->ranges, .stmt_pre = push_loop}, f->body);
	return d;
}

void tlc_disjoint_free(tlc_disjoint *d)
{
	if (!d)
		return;
	tlc_ranges_free(&d->ranges);
	free(d);
}

/* ---- which variables have one value at both accesses ---- */

typedef struct binder_search {
	const tlc_var *v;
	bool found;
} binder_search;

static tlc_walk_action find_binder(void *p, const tlc_stmt *s)
{
	binder_search *b = p;
	if ((s->kind == TLC_STMT_FOR && s->u.loop.var == b->v) ||
	    (s->kind == TLC_STMT_LET && s->u.let.var == b->v))
		b->found = true;
	return b->found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

/* True when v is bound by loop s or inside it (it takes a new value in each
 * iteration). */
static bool bound_in(const tlc_stmt *s, const tlc_var *v)
{
	if (!s)
		return false;
	binder_search b = {v, s->u.loop.var == v};
	if (!b.found)
		tlc_walk_stmt(&(tlc_visitor){.ctx = &b, .stmt_pre = find_binder}, s->u.loop.body);
	return b.found;
}

typedef struct stable_scan {
	const tlc_disjoint *d;
	const tlc_stmt *carried;
	bool ok;
} stable_scan;

static tlc_walk_action stable_expr(void *p, const tlc_expr *x)
{
	stable_scan *s = p;
	if (x->kind == TLC_EXPR_LOAD || x->kind == TLC_EXPR_CALL ||
	    (x->kind == TLC_EXPR_VAR && bound_in(s->carried, x->u.var)))
		s->ok = false;
	return s->ok ? TLC_WALK_CONTINUE : TLC_WALK_STOP;
}

/* True when x has the same value at both accesses, in any two threads: it
 * is uniform, reads no memory and calls nothing, and no variable in it is
 * bound by the carried loop. */
static bool stable(const tlc_disjoint *d, const tlc_expr *x, const tlc_stmt *carried)
{
	if (!tlc_expr_block_uniform(d->u, x))
		return false;
	stable_scan s = {d, carried, true};
	tlc_walk_expr(&(tlc_visitor){.ctx = &s, .expr_pre = stable_expr}, x);
	return s.ok;
}

/* ---- bounds of a term ---- */

static bool in_limit(int64_t v)
{
	return v > -LIMIT && v < LIMIT;
}

/* Bounds of x, as tlc_expr_bounds gives them, and also of the bitwise
 * operators on non-negative operands (a swizzle's XOR). */
static bool term_bounds(const tlc_disjoint *d, const tlc_expr *x, int64_t *lo, int64_t *hi)
{
	int64_t al, ah, bl, bh;
	switch (x->kind) {
	case TLC_EXPR_BITXOR:
	case TLC_EXPR_BITOR:
	case TLC_EXPR_BITAND:
		if (!term_bounds(d, x->u.op.a, &al, &ah) || !term_bounds(d, x->u.op.b, &bl, &bh) ||
		    al < 0 || bl < 0)
			return false;
		if (x->kind == TLC_EXPR_BITAND) {
			*lo = 0, *hi = ah < bh ? ah : bh;
			return true;
		}
		int64_t top = 1;
		while (top <= ah || top <= bh)
			top <<= 1;
		*lo = 0, *hi = top - 1;
		return in_limit(*hi);
	case TLC_EXPR_ADD:
	case TLC_EXPR_SUB:
		if (!term_bounds(d, x->u.op.a, &al, &ah) || !term_bounds(d, x->u.op.b, &bl, &bh))
			return false;
		*lo = x->kind == TLC_EXPR_ADD ? al + bl : al - bh;
		*hi = x->kind == TLC_EXPR_ADD ? ah + bh : ah - bl;
		return in_limit(*lo) && in_limit(*hi);
	case TLC_EXPR_MUL: {
		int64_t k;
		const tlc_expr *o = x->u.op.b;
		if (!tlc_expr_as_int(x->u.op.a, &k) && !tlc_expr_as_int(x->u.op.b, &k))
			break;
		if (tlc_expr_as_int(x->u.op.b, &k))
			o = x->u.op.a;
		if (!in_limit(k) || !term_bounds(d, o, &al, &ah) ||
		    llabs(k) > LIMIT / (llabs(al) + llabs(ah) + 1))
			return false;
		*lo = k >= 0 ? k * al : k * ah;
		*hi = k >= 0 ? k * ah : k * al;
		return true;
	}
	default:
		break;
	}
	return tlc_expr_bounds(&d->ranges, x, lo, hi);
}

/* ---- an index as a sum of variables with coefficients and other terms ---- */

typedef struct lin {
	int nv, nr;
	const tlc_expr *var[LIN_MAX]; /* VAR nodes (hash-consed: one per variable) */
	int64_t vc[LIN_MAX];
	const tlc_expr *res[LIN_MAX]; /* other terms */
	int64_t rc[LIN_MAX];
	int64_t k;
	bool ok;
} lin;

static void lin_add(const tlc_expr **items, int64_t *coefs, int *n, lin *l, const tlc_expr *x,
		    int64_t coef)
{
	for (int i = 0; i < *n; i++)
		if (items[i] == x) {
			coefs[i] += coef;
			l->ok = l->ok && in_limit(coefs[i]);
			return;
		}
	if (*n == LIN_MAX) {
		l->ok = false;
		return;
	}
	items[*n] = x;
	coefs[(*n)++] = coef;
}

static void decompose(lin *l, const tlc_expr *x, int64_t coef)
{
	int64_t v;
	if (!l->ok || !tlc_dtype_is_int(x->dtype) || !in_limit(coef)) {
		l->ok = false;
		return;
	}
	if (tlc_expr_as_int(x, &v)) {
		if (!in_limit(v) || llabs(coef) > LIMIT / (llabs(v) + 1))
			l->ok = false;
		else
			l->k += coef * v;
		return;
	}
	switch (x->kind) {
	case TLC_EXPR_VAR:
		lin_add(l->var, l->vc, &l->nv, l, x, coef);
		return;
	case TLC_EXPR_ADD:
		decompose(l, x->u.op.a, coef);
		decompose(l, x->u.op.b, coef);
		return;
	case TLC_EXPR_SUB:
		decompose(l, x->u.op.a, coef);
		decompose(l, x->u.op.b, -coef);
		return;
	case TLC_EXPR_NEG:
		decompose(l, x->u.op.a, -coef);
		return;
	case TLC_EXPR_MUL:
		if (tlc_expr_as_int(x->u.op.a, &v) && in_limit(v)) {
			decompose(l, x->u.op.b, coef * v);
			return;
		}
		if (tlc_expr_as_int(x->u.op.b, &v) && in_limit(v)) {
			decompose(l, x->u.op.a, coef * v);
			return;
		}
		break;
	default:
		break;
	}
	lin_add(l->res, l->rc, &l->nr, l, x, coef);
}

/* [lo, hi] += coef * [vlo, vhi] */
static bool add_scaled(int64_t *lo, int64_t *hi, int64_t coef, int64_t vlo, int64_t vhi)
{
	if (llabs(coef) > LIMIT / (llabs(vlo) + llabs(vhi) + 1))
		return false;
	*lo += coef >= 0 ? coef * vlo : coef * vhi;
	*hi += coef >= 0 ? coef * vhi : coef * vlo;
	return in_limit(*lo) && in_limit(*hi);
}

static int64_t coef_of(const tlc_expr *const *items, const int64_t *coefs, int n, const tlc_expr *x)
{
	for (int i = 0; i < n; i++)
		if (items[i] == x)
			return coefs[i];
	return 0;
}

/* The bounds of p - c (P's index minus C's), false when unknown. */
static bool diff_bounds(const tlc_disjoint *d, const lin *p, const lin *c, const tlc_stmt *carried,
			int64_t *lo, int64_t *hi)
{
	*lo = *hi = p->k - c->k;
	const tlc_var *loopvar = carried ? carried->u.loop.var : NULL;
	for (int side = 0; side < 2; side++) {
		const lin *l = side ? c : p;
		for (int i = 0; i < l->nv; i++) {
			const tlc_expr *x = l->var[i];
			int64_t a = coef_of(p->var, p->vc, p->nv, x),
				b = coef_of(c->var, c->vc, c->nv, x);
			int64_t vlo, vhi;
			bool ranged = tlc_expr_bounds(&d->ranges, x, &vlo, &vhi);
			if (side == 1 && a != 0)
				continue; /* done with P's */
			if (x->u.var == loopvar && a == b) {
				/* v in P, v + d in C (d >= 1): a v - a (v + d) = -a d */
				if (!ranged || vhi <= vlo || !add_scaled(lo, hi, -b, 1, vhi - vlo))
					return false;
			} else if (x->u.var != loopvar && stable(d, x, carried)) {
				if (a != b && (!ranged || !add_scaled(lo, hi, a - b, vlo, vhi)))
					return false;
			} else {
				/* a value of each thread (or iteration) alone */
				if (!ranged || !add_scaled(lo, hi, a, vlo, vhi) ||
				    !add_scaled(lo, hi, -b, vlo, vhi))
					return false;
			}
		}
	}
	for (int side = 0; side < 2; side++) {
		const lin *l = side ? c : p;
		for (int i = 0; i < l->nr; i++) {
			const tlc_expr *x = l->res[i];
			int64_t a = coef_of(p->res, p->rc, p->nr, x),
				b = coef_of(c->res, c->rc, c->nr, x);
			int64_t tlo, thi;
			if (side == 1 && a != 0)
				continue;
			if (a == b && stable(d, x, carried))
				continue; /* the same value on both sides */
			if (!term_bounds(d, x, &tlo, &thi) ||
			    !add_scaled(lo, hi, side ? -l->rc[i] : l->rc[i], tlo, thi))
				return false;
			if (side == 0 && b != 0 && !add_scaled(lo, hi, -b, tlo, thi))
				return false;
		}
	}
	return true;
}

/* x as base ^ k (or base + k, with *add set), k a constant; base x and
 * k 0 otherwise. */
static const tlc_expr *split_const(const tlc_expr *x, int64_t *k, bool *add)
{
	*k = 0;
	*add = false;
	if ((x->kind == TLC_EXPR_BITXOR || x->kind == TLC_EXPR_ADD) &&
	    tlc_expr_as_int(x->u.op.b, k)) {
		*add = x->kind == TLC_EXPR_ADD;
		return x->u.op.a;
	}
	if ((x->kind == TLC_EXPR_BITXOR || x->kind == TLC_EXPR_ADD) &&
	    tlc_expr_as_int(x->u.op.a, k)) {
		*add = x->kind == TLC_EXPR_ADD;
		return x->u.op.b;
	}
	return x;
}

static bool dim_disjoint(const tlc_disjoint *d, const tlc_expr *p, const tlc_expr *c,
			 const tlc_stmt *carried)
{
	int64_t kp, kc, lo, hi;
	bool addp, addc;
	const tlc_expr *bp = split_const(p, &kp, &addp), *bc = split_const(c, &kc, &addc);
	/* e ^ k1 against e ^ k2 (a plain e being e ^ 0) */
	if (bp == bc && kp != kc && !addp && !addc && stable(d, bp, carried))
		return true;
	lin lp = {.ok = true}, lc = {.ok = true};
	decompose(&lp, p, 1);
	decompose(&lc, c, 1);
	if (!lp.ok || !lc.ok || !diff_bounds(d, &lp, &lc, carried, &lo, &hi))
		return false;
	return lo > 0 || hi < 0;
}

bool tlc_elems_disjoint(const tlc_disjoint *d, int n, const tlc_expr *const *p,
			const tlc_expr *const *c, const tlc_stmt *carried)
{
	if (!d || !p || !c || n <= 0)
		return false;
	for (int i = 0; i < n; i++)
		if (dim_disjoint(d, p[i], c[i], carried))
			return true;
	return false;
}
