/* layout_fit.c - what is found by enumeration: injectivity, the inverse of
 * a memory layout and the digit form of a fragment given by lambdas.
 *
 * Fitting: a map F from an input box (extents ext[0..nin)) to logical
 * indices is of digit form when every input coordinate x_j splits into
 * mixed-radix digits (x_j // w) % r that each add value * stride to one
 * logical dimension (or nothing: replication).  The digits are read off F
 * along each input axis from the origin and then checked at every point. */
#include "layout_priv.h"

#include <stdlib.h>
#include <string.h>

static void fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
}

bool tlc_layout_is_injective(const tlc_layout *l, const char **why)
{
	if (!l)
		return false;
	if (l->kind == TLC_LAYOUT_FRAGMENT)
		return true; /* digit form: (thread, register) determines the logical index */
	int64_t n = tlc_layout_size(l), phys = tlc_layout_phys_size(l);
	if (n <= 0 || n > LAYOUT_ENUM_CAP || phys <= 0 || phys > 4 * LAYOUT_ENUM_CAP) {
		fail(why, "the layout is too large to check by enumeration (more than 4M elements)");
		return false;
	}
	uint8_t *seen = tlc_xcalloc((size_t)phys, 1);
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0}, flat;
	bool good = true;
	for (int64_t i = 0; i < n && good; i++, layout_next_index(l->ndim, l->shape, idx)) {
		if (!tlc_layout_eval(l, idx, &flat)) {
			fail(why, "the layout cannot be evaluated at some index (division by zero or out of range)");
			good = false;
		} else if (seen[flat]++) {
			fail(why, "two logical elements map to the same physical element");
			good = false;
		}
	}
	free(seen);
	return good;
}

/* ---- fitting ---- */

typedef struct fit_problem {
	int nin;
	const int64_t *ext;   /* input extents */
	int nout;             /* logical rank */
	const int64_t *table; /* per input point (row-major), nout logical values */
	bool allow_rep;       /* a digit may change nothing (replication) */
} fit_problem;

typedef struct fit_digit {
	int in;     /* input coordinate */
	int64_t w, r;
	int dim;    /* -1: replication */
	int64_t stride;
} fit_digit;

/* Row-major position of the point with x_j = v, other coordinates 0. */
static int64_t axis_point(const fit_problem *p, int j, int64_t v)
{
	int64_t below = 1;
	for (int k = p->nin - 1; k > j; k--)
		below *= p->ext[k];
	return v * below;
}

/* Is F(x_j = v*w) == v * delta (delta: nout values)? */
static bool on_line(const fit_problem *p, int j, int64_t v, int64_t w, const int64_t *delta)
{
	const int64_t *f = &p->table[axis_point(p, j, v * w) * p->nout];
	for (int d = 0; d < p->nout; d++)
		if (f[d] != v * delta[d])
			return false;
	return true;
}

static int fit_axis(const fit_problem *p, int j, fit_digit *out, int n, const char **why)
{
	int64_t w = 1, E = p->ext[j];
	while (w < E) {
		if (n >= 4 * TLC_FRAGMENT_MAX_DIGITS) {
			fail(why, "the map needs too many digits");
			return -1;
		}
		const int64_t *delta = &p->table[axis_point(p, j, w) * p->nout];
		int dim = -1, nz = 0;
		for (int d = 0; d < p->nout; d++)
			if (delta[d]) {
				nz++;
				dim = d;
			}
		if (nz > 1 || (nz == 1 && delta[dim] < 0) || (nz == 0 && !p->allow_rep)) {
			fail(why, "the map is not of digit form: a step of one input coordinate moves more than one "
			          "logical dimension, or backwards");
			return -1;
		}
		int64_t v = 2;
		while (v * w < E && on_line(p, j, v, w, delta))
			v++;
		int64_t r = v; /* values 0..v-1 lie on the line: the largest radix dividing E/w up to v */
		while (r > 1 && (E / w) % r)
			r--;
		if (r < 2) {
			fail(why, "the map is not of digit form: a coordinate's digits are not a mixed-radix number");
			return -1;
		}
		out[n].in = j;
		out[n].w = w;
		out[n].r = r;
		out[n].dim = dim;
		out[n].stride = nz ? delta[dim] : 0;
		n++;
		w *= r;
	}
	return n;
}

/* Digits of F, checked at every input point; count or -1. */
static int fit(const fit_problem *p, fit_digit *digits, const char **why)
{
	int n = 0;
	for (int d = 0; d < p->nout; d++)
		if (p->table[d] != 0) {
			fail(why, "the map is not of digit form: the origin does not map to the origin");
			return -1;
		}
	for (int j = 0; j < p->nin; j++)
		if ((n = fit_axis(p, j, digits, n, why)) < 0)
			return -1;
	int64_t total = layout_prod(p->nin, p->ext), x[TLC_LAYOUT_MAX_DIMS] = {0}, got[TLC_LAYOUT_MAX_DIMS];
	for (int64_t i = 0; i < total; i++, layout_next_index(p->nin, p->ext, x)) {
		memset(got, 0, sizeof got);
		for (int k = 0; k < n; k++)
			if (digits[k].dim >= 0)
				got[digits[k].dim] += (x[digits[k].in] / digits[k].w) % digits[k].r * digits[k].stride;
		if (memcmp(got, &p->table[i * p->nout], sizeof(int64_t) * (size_t)p->nout) != 0) {
			fail(why, "the map is not of digit form (floordiv/floormod digits of the coordinates)");
			return -1;
		}
	}
	return n;
}

/* ---- inverse of memory layouts ---- */

static const tlc_expr *I(tlc_module *m, int64_t v) { return tlc_i32(m, v); }

/* The swizzle is its own inverse on the chunk bits. */
static const tlc_layout *swizzled_inverse(tlc_module *m, const tlc_layout *l, const char **why)
{
	int nd = l->ndim, np = l->nout;
	int64_t W = tlc_swizzle_get(l->swizzle)->bytes, b = tlc_dtype_bits(l->elem) / 8;
	int64_t Wb = W / b, e = 16 / b;
	tlc_var **v = tlc_layout_new_vars(m, np);
	const tlc_expr *out[TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < nd - 2; d++)
		out[d] = tlc_var_ref(m, v[d]);
	const tlc_expr *blk = tlc_var_ref(m, v[np - 3]), *r = tlc_var_ref(m, v[np - 2]), *c = tlc_var_ref(m, v[np - 1]);
	const tlc_expr *x = tlc_binary(m, TLC_EXPR_FLOORMOD, tlc_binary(m, TLC_EXPR_FLOORDIV, r, I(m, 128 / W)),
	                               I(m, W / 16));
	const tlc_expr *chunk = tlc_binary(m, TLC_EXPR_BITXOR, tlc_binary(m, TLC_EXPR_FLOORDIV, c, I(m, e)), x);
	out[nd - 2] = r;
	out[nd - 1] = tlc_binary(
		m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, blk, I(m, Wb)),
		tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, chunk, I(m, e)),
		           tlc_binary(m, TLC_EXPR_FLOORMOD, c, I(m, e))));
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, np, l->out_shape);
	return layout_finish_memory(m, L, v, nd, out, l->shape, why);
}

const tlc_layout *tlc_layout_inverse(tlc_module *m, const tlc_layout *l, const char **why)
{
	if (!l || l->kind == TLC_LAYOUT_FRAGMENT) {
		fail(why, "only memory layouts have an inverse");
		return NULL;
	}
	if (l->kind == TLC_LAYOUT_SWIZZLED)
		return swizzled_inverse(m, l, why);
	int64_t n = tlc_layout_size(l), phys = tlc_layout_phys_size(l);
	if (n != phys) {
		fail(why, "the layout is not a bijection: its physical size differs from its size");
		return NULL;
	}
	if (n <= 0 || n > LAYOUT_ENUM_CAP) {
		fail(why, "the layout is too large to invert by enumeration (more than 4M elements)");
		return NULL;
	}
	int nd = l->ndim > 0 ? l->ndim : 1;
	int64_t *table = tlc_xmalloc(sizeof(int64_t) * (size_t)(n * nd));
	uint8_t *seen = tlc_xcalloc((size_t)n, 1);
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0}, flat;
	const tlc_layout *inv = NULL;
	fit_digit digits[4 * TLC_FRAGMENT_MAX_DIGITS];
	int nds = -1;
	for (int64_t i = 0; i < n; i++, layout_next_index(l->ndim, l->shape, idx)) {
		if (!tlc_layout_eval(l, idx, &flat) || seen[flat]++) {
			fail(why, "the layout is not a bijection: two logical elements share a physical element");
			goto out;
		}
		for (int d = 0; d < nd; d++)
			table[flat * nd + d] = d < l->ndim ? idx[d] : 0;
	}
	fit_problem p = {l->nout, l->out_shape, nd, table, false};
	if ((nds = fit(&p, digits, why)) < 0)
		goto out;
	tlc_var **v = tlc_layout_new_vars(m, l->nout);
	const tlc_expr *out[TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < nd; d++) {
		const tlc_expr *sum = I(m, 0);
		for (int k = 0; k < nds; k++)
			if (digits[k].dim == d)
				sum = tlc_binary(m, TLC_EXPR_ADD, sum,
				                 tlc_binary(m, TLC_EXPR_MUL,
				                            layout_digit_expr(m, tlc_var_ref(m, v[digits[k].in]), digits[k].w,
				                                              digits[k].r, l->out_shape[digits[k].in]),
				                            I(m, digits[k].stride)));
		out[d] = sum;
	}
	int64_t one = 1;
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, l->nout, l->out_shape);
	inv = layout_finish_memory(m, L, v, nd, out, l->ndim ? l->shape : &one, why);
out:
	free(table);
	free(seen);
	return inv;
}

/* ---- fragments given by lambdas ---- */

const tlc_layout *frag_fit(tlc_module *m, int ndim, const int64_t *shape, tlc_var **vars, tlc_var *rep,
                           const lprog *thread_fn, const lprog *index_fn, int64_t replicate, int64_t threads,
                           int64_t thread_lo, const char **why)
{
	int64_t n = layout_prod(ndim, shape);
	if (n <= 0 || replicate < 1 || n > LAYOUT_ENUM_CAP / replicate) {
		fail(why, "the fragment is too large to check by enumeration (more than 4M elements)");
		return NULL;
	}
	/* pass 1: every element's register and threads; the counts */
	int64_t vals[TLC_LAYOUT_MAX_DIMS + 1] = {0}, nregs = 0, maxt = 0, t, r;
	int64_t *rs = tlc_xmalloc(sizeof(int64_t) * (size_t)n), *ts = tlc_xmalloc(sizeof(int64_t) * (size_t)(n * replicate));
	int64_t *table = NULL;
	uint8_t *seen = NULL;
	const tlc_layout *f = NULL;
	for (int64_t i = 0; i < n; i++, layout_next_index(ndim, shape, vals)) {
		if (index_fn && (!lprog_eval(index_fn, vals, &r) || r < 0 || r >= ((int64_t)1 << 24))) {
			fail(why, "the fragment's register index is negative or too large");
			goto out;
		}
		rs[i] = index_fn ? r : 0;
		nregs = rs[i] + 1 > nregs ? rs[i] + 1 : nregs;
		for (int64_t p = 0; p < replicate; p++) {
			vals[ndim] = p;
			if (!lprog_eval(thread_fn, vals, &t) || t < 0 || t >= ((int64_t)1 << 16) ||
			    (threads > 0 && t >= threads)) {
				fail(why, "the fragment's thread index is negative or outside its thread range");
				goto out;
			}
			ts[i * replicate + p] = t;
			maxt = t + 1 > maxt ? t + 1 : maxt;
		}
		vals[ndim] = 0;
	}
	if (threads <= 0)
		threads = maxt;
	if (!index_fn) {
		/* no index function (TileLang's T.Fragment with forward_thread_fn
		 * only): each thread's elements take its registers in row-major
		 * order of their logical index, counted on the first replica's
		 * thread, so the register is a function of the index alone */
		int64_t *next = tlc_xcalloc((size_t)maxt + 1, sizeof(int64_t));
		nregs = 0;
		for (int64_t i = 0; i < n; i++) {
			rs[i] = next[ts[i * replicate]]++;
			nregs = rs[i] + 1 > nregs ? rs[i] + 1 : nregs;
		}
		free(next);
	}
	if (threads * nregs != n * replicate) {
		fail(why, "the fragment does not use every (thread, register) slot exactly once");
		goto out;
	}
	int nd = ndim > 0 ? ndim : 1;
	int64_t slots = threads * nregs;
	table = tlc_xmalloc(sizeof(int64_t) * (size_t)(slots * nd));
	seen = tlc_xcalloc((size_t)slots, 1);
	memset(vals, 0, sizeof vals);
	for (int64_t i = 0; i < n; i++, layout_next_index(ndim, shape, vals)) {
		r = rs[i];
		for (int64_t p = 0; p < replicate; p++) {
			t = ts[i * replicate + p];
			if (seen[t * nregs + r]++) {
				fail(why, "two logical elements (or replicas) of the fragment share a (thread, register) slot");
				goto out;
			}
			for (int d = 0; d < nd; d++)
				table[(t * nregs + r) * nd + d] = d < ndim ? vals[d] : 0;
		}
		vals[ndim] = 0;
	}
	int64_t ext[2] = {threads, nregs};
	fit_problem pr = {2, ext, nd, table, true};
	fit_digit fd[4 * TLC_FRAGMENT_MAX_DIGITS];
	int nds = fit(&pr, fd, why);
	if (nds < 0)
		goto out;
	tlc_frag_digit digits[4 * TLC_FRAGMENT_MAX_DIGITS];
	int k2 = 0;
	for (int k = 0; k < nds; k++) {
		if (fd[k].in == 1 && fd[k].dim < 0) {
			fail(why, "the fragment repeats an element in the registers of one thread");
			goto out;
		}
		tlc_frag_digit g = {fd[k].r, ndim > 0 ? fd[k].dim : -1, fd[k].stride, fd[k].in == 0, fd[k].w};
		digits[k2++] = g;
	}
	f = frag_build(m, ndim, shape, k2, digits, thread_lo, vars, rep, why);
out:
	free(rs);
	free(ts);
	free(table);
	free(seen);
	return f;
}
