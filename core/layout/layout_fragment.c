/* layout_fragment.c - fragments in digit form (see tlc/layout.h): building
 * and validating them, the standard thread mappings (partitions, matrix
 * instruction operands tiled over warps) and the operations on them
 * (project, repeat, replicate). */
#include "layout_priv.h"

#include <stdlib.h>
#include <string.h>

#define FRAG_MAX_THREADS ((int64_t)1 << 16)
#define FRAG_MAX_REGS ((int64_t)1 << 24)

static void fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
}

/* Canonical order: thread digits by weight, then register digits by weight. */
static int digit_cmp(const void *x, const void *y)
{
	const tlc_frag_digit *a = x, *b = y;
	if (a->is_thread != b->is_thread)
		return a->is_thread ? -1 : 1;
	return a->weight < b->weight ? -1 : a->weight > b->weight;
}

static int stride_cmp(const void *x, const void *y)
{
	const tlc_frag_digit *a = *(const tlc_frag_digit *const *)x, *b = *(const tlc_frag_digit *const *)y;
	return a->stride < b->stride ? -1 : a->stride > b->stride;
}

/* Weights of one class (thread or register) must be 1, r0, r0*r1, ...:
 * *total gets the product of the radices. */
static bool dense_weights(const tlc_frag_digit *d, int n, bool is_thread, int64_t limit, int64_t *total)
{
	int64_t w = 1;
	for (int k = 0; k < n; k++) {
		if (d[k].is_thread != is_thread)
			continue;
		if (d[k].weight != w || __builtin_mul_overflow(w, d[k].radix, &w) || w > limit)
			return false;
	}
	*total = w;
	return true;
}

/* The digits of each logical dimension, by stride, must be 1, r0, r0*r1, ...
 * and end at the extent. */
static bool digits_tile_shape(const tlc_frag_digit *d, int n, int ndim, const int64_t *shape)
{
	const tlc_frag_digit *of_dim[TLC_FRAGMENT_MAX_DIGITS];
	for (int dim = 0; dim < ndim; dim++) {
		int c = 0;
		for (int k = 0; k < n; k++)
			if (d[k].dim == dim)
				of_dim[c++] = &d[k];
		qsort(of_dim, (size_t)c, sizeof of_dim[0], stride_cmp);
		int64_t s = 1;
		for (int k = 0; k < c; k++)
			if (of_dim[k]->stride != s || __builtin_mul_overflow(s, of_dim[k]->radix, &s))
				return false;
		if (s != shape[dim])
			return false;
	}
	return true;
}

/* Merge neighbours (in canonical order) that are one larger digit. */
static int merge_digits(tlc_frag_digit *d, int n)
{
	int out = 0;
	for (int k = 0; k < n; k++) {
		tlc_frag_digit *p = out ? &d[out - 1] : NULL;
		if (p && p->is_thread == d[k].is_thread && p->dim == d[k].dim &&
		    d[k].weight == p->weight * p->radix && (p->dim < 0 || d[k].stride == p->stride * p->radix)) {
			p->radix *= d[k].radix;
			continue;
		}
		d[out++] = d[k];
	}
	return out;
}

static const tlc_expr *I(tlc_module *m, int64_t v) { return tlc_i32(m, v); }

static const tlc_expr *add(tlc_module *m, const tlc_expr *a, const tlc_expr *b)
{
	return a ? tlc_binary(m, TLC_EXPR_ADD, a, b) : b;
}

/* sum over the digits selected of value(digit) * weight, in idx and rep. */
static const tlc_expr *digit_sum(tlc_module *m, const tlc_layout *f, bool threads, const tlc_expr *const *idx,
                                 const tlc_expr *rep)
{
	const tlc_expr *sum = NULL;
	int64_t repw = 1;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *g = &f->digits[k];
		if (g->is_thread != threads)
			continue;
		const tlc_expr *v;
		if (g->dim < 0) {
			v = layout_digit_expr(m, rep, repw, g->radix, f->replicate);
			repw *= g->radix;
		} else {
			v = layout_digit_expr(m, idx[g->dim], g->stride, g->radix, f->shape[g->dim]);
		}
		sum = add(m, sum, tlc_binary(m, TLC_EXPR_MUL, v, I(m, g->weight)));
	}
	return tlc_simplify_expr(m, sum ? sum : I(m, 0));
}

const tlc_layout *frag_build(tlc_module *m, int ndim, const int64_t *shape, int ndigits,
                             const tlc_frag_digit *digits, int64_t thread_lo, tlc_var **vars, tlc_var *rep,
                             const char **why)
{
	if (ndim < 0 || ndim > TLC_LAYOUT_MAX_DIMS || ndigits < 0 || ndigits > 4 * TLC_FRAGMENT_MAX_DIGITS ||
	    (ndigits && !digits) || thread_lo < 0) {
		fail(why, "a fragment has 0 to 8 dimensions and at most 32 digits");
		return NULL;
	}
	for (int dim = 0; dim < ndim; dim++)
		if (shape[dim] <= 0) {
			fail(why, "fragment extents must be positive constants");
			return NULL;
		}
	tlc_frag_digit d[4 * TLC_FRAGMENT_MAX_DIGITS];
	int n = 0;
	for (int k = 0; k < ndigits; k++) {
		tlc_frag_digit g = digits[k];
		if (g.radix < 1 || g.weight < 1 || g.dim < -1 || g.dim >= ndim || (g.dim >= 0 && g.stride < 1) ||
		    (g.dim < 0 && !g.is_thread)) {
			fail(why, "a fragment digit needs a radix >= 1, a positive weight, a dimension of the shape "
			          "and a positive stride (replication digits: threads only)");
			return NULL;
		}
		if (g.radix == 1)
			continue;
		if (g.dim < 0)
			g.stride = 0;
		d[n++] = g;
	}
	qsort(d, (size_t)n, sizeof d[0], digit_cmp);
	int64_t threads, nregs;
	if (!dense_weights(d, n, true, FRAG_MAX_THREADS, &threads)) {
		fail(why, "the thread digits' weights do not form a mixed-radix number (1, r0, r0*r1, ...) "
		          "of at most 65536 threads");
		return NULL;
	}
	if (!dense_weights(d, n, false, FRAG_MAX_REGS, &nregs)) {
		fail(why, "the register digits' weights do not form a mixed-radix number (1, r0, r0*r1, ...)");
		return NULL;
	}
	if (!digits_tile_shape(d, n, ndim, shape)) {
		fail(why, "the digits of a dimension do not cover its extent exactly once (strides must be "
		          "1, r0, r0*r1, ... up to the extent)");
		return NULL;
	}
	n = merge_digits(d, n);
	if (n > TLC_FRAGMENT_MAX_DIGITS) {
		fail(why, "a fragment has at most 32 digits");
		return NULL;
	}
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_FRAGMENT, ndim, shape);
	tlc_layout *f = &L->pub;
	tlc_frag_digit *dd = tlc_alloc(m, sizeof(tlc_frag_digit) * (size_t)(n + 1));
	memcpy(dd, d, sizeof(tlc_frag_digit) * (size_t)n);
	f->ndigits = n;
	f->digits = dd;
	f->thread_lo = thread_lo;
	f->threads = threads;
	f->replicate = 1;
	for (int k = 0; k < n; k++)
		if (d[k].dim < 0)
			f->replicate *= d[k].radix;
	f->vars = vars ? vars : tlc_layout_new_vars(m, ndim);
	if (f->replicate > 1)
		f->rep = rep ? rep : tlc_var_new(m, "rep", TLC_DT_INT32);
	const tlc_expr *idx[TLC_LAYOUT_MAX_DIMS + 1];
	for (int dim = 0; dim < ndim; dim++)
		idx[dim] = tlc_var_ref(m, f->vars[dim]);
	const tlc_expr **out = tlc_alloc(m, sizeof(tlc_expr *));
	int64_t *os = tlc_alloc(m, sizeof(int64_t));
	out[0] = digit_sum(m, f, false, idx, NULL);
	os[0] = nregs;
	f->nout = 1;
	f->out = out;
	f->out_shape = os;
	f->thread = digit_sum(m, f, true, idx, f->rep ? tlc_var_ref(m, f->rep) : I(m, 0));
	return f;
}

const tlc_layout *tlc_fragment_from_digits(tlc_module *m, int ndim, const int64_t *shape, int ndigits,
                                           const tlc_frag_digit *digits, int64_t thread_lo, const char **why)
{
	return frag_build(m, ndim, shape, ndigits, digits, thread_lo, NULL, NULL, why);
}

void frag_eval(const tlc_layout *f, const int64_t *idx, int64_t rep, int64_t *thread, int64_t *reg)
{
	int64_t t = 0, r = 0, repw = 1;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *g = &f->digits[k];
		int64_t v;
		if (g->dim < 0) {
			v = (rep / repw) % g->radix;
			repw *= g->radix;
		} else {
			v = (idx[g->dim] / g->stride) % g->radix;
		}
		if (g->is_thread)
			t += v * g->weight;
		else
			r += v * g->weight;
	}
	*thread = t;
	*reg = r;
}

/* A digit literal. */
static tlc_frag_digit D(int64_t radix, int dim, int64_t stride, bool is_thread, int64_t weight)
{
	tlc_frag_digit d = {radix, dim, stride, is_thread, weight};
	return d;
}

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

const tlc_layout *tlc_fragment_partition(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                         int64_t vec, int64_t thread_lo, const char **why)
{
	if (ndim < 1 || ndim > TLC_LAYOUT_MAX_DIMS || threads < 1 || vec < 1) {
		fail(why, "a partition needs 1 to 8 dimensions, threads >= 1 and vec >= 1");
		return NULL;
	}
	for (int dim = 0; dim < ndim; dim++)
		if (shape[dim] <= 0) {
			fail(why, "fragment extents must be positive constants");
			return NULL;
		}
	if (shape[ndim - 1] % vec) {
		fail(why, "the vector width does not divide the last extent");
		return NULL;
	}
	tlc_frag_digit d[3 * TLC_LAYOUT_MAX_DIMS];
	int n = 0;
	int64_t tw = 1, rw = 1, trem = threads;
	d[n++] = D(vec, ndim - 1, 1, false, rw);
	rw *= vec;
	for (int dim = ndim - 1; dim >= 0; dim--) {
		int64_t below = dim == ndim - 1 ? vec : 1, ext = shape[dim] / below;
		int64_t g = gcd(ext, trem);
		d[n++] = D(g, dim, below, true, tw);
		tw *= g;
		trem /= g;
		d[n++] = D(ext / g, dim, below * g, false, rw);
		rw *= ext / g;
	}
	return tlc_fragment_from_digits(m, ndim, shape, n, d, thread_lo, why);
}

const tlc_layout *tlc_fragment_replicated(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                          int64_t thread_lo)
{
	if (ndim < 0 || ndim > TLC_LAYOUT_MAX_DIMS)
		return NULL;
	tlc_frag_digit d[TLC_LAYOUT_MAX_DIMS + 1];
	int n = 0;
	int64_t rw = 1;
	for (int dim = ndim - 1; dim >= 0; dim--) {
		d[n++] = D(shape[dim], dim, 1, false, rw);
		rw *= shape[dim] > 0 ? shape[dim] : 1;
	}
	d[n++] = D(threads, -1, 0, true, 1);
	return tlc_fragment_from_digits(m, ndim, shape, n, d, thread_lo, NULL);
}

const tlc_layout *tlc_fragment_tile(tlc_module *m, const tlc_layout *atom, int64_t M, int64_t N, int warp_m,
                                    int warp_n, bool split_m, bool split_n, int64_t thread_lo, const char **why)
{
	if (!atom || atom->kind != TLC_LAYOUT_FRAGMENT || atom->ndim != 2 || atom->replicate != 1) {
		fail(why, "a tiled fragment needs a 2-D, unreplicated atom fragment");
		return NULL;
	}
	int64_t am = atom->shape[0], an = atom->shape[1], lanes = atom->threads, regs = atom->out_shape[0];
	int64_t MW = split_m ? M / (warp_m > 0 ? warp_m : 1) : M, NW = split_n ? N / (warp_n > 0 ? warp_n : 1) : N;
	if (warp_m < 1 || warp_n < 1 || M <= 0 || N <= 0 || (split_m && M % warp_m) || (split_n && N % warp_n) ||
	    MW % am || NW % an) {
		fail(why, "the tile is not a whole number of atoms per warp (rows: atom rows x warp_m, columns: atom "
		          "columns x warp_n, for the dimensions split over warps)");
		return NULL;
	}
	if (atom->ndigits + 4 > TLC_FRAGMENT_MAX_DIGITS) {
		fail(why, "an atom fragment with too many digits to tile");
		return NULL;
	}
	/* the atom's own digits, then: atoms along n and m in registers (n
	 * fastest), and the warp grid in thread ids (wn fastest); an axis of the
	 * grid that does not split its dimension replicates */
	tlc_frag_digit d[TLC_FRAGMENT_MAX_DIGITS];
	int n = atom->ndigits;
	memcpy(d, atom->digits, (size_t)n * sizeof(*d));
	int64_t NI = NW / an, MI = MW / am;
	d[n++] = D(NI, 1, an, false, regs);
	d[n++] = split_n ? D(warp_n, 1, NW, true, lanes) : D(warp_n, -1, 0, true, lanes);
	d[n++] = D(MI, 0, am, false, regs * NI);
	d[n++] = split_m ? D(warp_m, 0, MW, true, lanes * warp_n) : D(warp_m, -1, 0, true, lanes * warp_n);
	int64_t shape[2] = {M, N};
	return tlc_fragment_from_digits(m, 2, shape, n, d, thread_lo, why);
}

/* Register digits renumbered densely (1, r0, r0*r1, ...) in their current
 * weight order: what is left after dropping some. */
static void compact_registers(tlc_frag_digit *d, int n)
{
	int order[TLC_FRAGMENT_MAX_DIGITS], c = 0;
	for (int k = 0; k < n; k++) {
		if (d[k].is_thread)
			continue;
		int j = c++;
		while (j > 0 && d[order[j - 1]].weight > d[k].weight) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	int64_t w = 1;
	for (int j = 0; j < c; j++) {
		d[order[j]].weight = w;
		w *= d[order[j]].radix;
	}
}

const tlc_layout *tlc_fragment_project(tlc_module *m, const tlc_layout *f, int dim)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || dim < 0 || dim >= f->ndim)
		return NULL;
	tlc_frag_digit d[TLC_FRAGMENT_MAX_DIGITS];
	int n = 0;
	for (int k = 0; k < f->ndigits; k++) {
		tlc_frag_digit g = f->digits[k];
		if (g.dim == dim) {
			if (!g.is_thread)
				continue;
			g.dim = -1;
			g.stride = 0;
		} else if (g.dim > dim) {
			g.dim--;
		}
		d[n++] = g;
	}
	compact_registers(d, n);
	int64_t shape[TLC_LAYOUT_MAX_DIMS];
	int nd = 0;
	for (int k = 0; k < f->ndim; k++)
		if (k != dim)
			shape[nd++] = f->shape[k];
	if (nd == 0)
		shape[nd++] = 1;
	return tlc_fragment_from_digits(m, nd, shape, n, d, f->thread_lo, NULL);
}

const tlc_layout *tlc_fragment_repeat(tlc_module *m, const tlc_layout *f, int dim, int64_t times)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || dim < 0 || dim >= f->ndim || times < 1 ||
	    f->ndigits >= TLC_FRAGMENT_MAX_DIGITS || times > FRAG_MAX_REGS)
		return NULL;
	tlc_frag_digit d[TLC_FRAGMENT_MAX_DIGITS];
	memcpy(d, f->digits, sizeof(tlc_frag_digit) * (size_t)f->ndigits);
	d[f->ndigits] = D(times, dim, f->shape[dim], false, f->out_shape[0]);
	int64_t shape[TLC_LAYOUT_MAX_DIMS];
	memcpy(shape, f->shape, sizeof(int64_t) * (size_t)f->ndim);
	shape[dim] *= times;
	return tlc_fragment_from_digits(m, f->ndim, shape, f->ndigits + 1, d, f->thread_lo, NULL);
}

const tlc_layout *tlc_fragment_replicate(tlc_module *m, const tlc_layout *f, int64_t times)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || times < 1 || f->ndigits >= TLC_FRAGMENT_MAX_DIGITS ||
	    times > FRAG_MAX_THREADS)
		return NULL;
	tlc_frag_digit d[TLC_FRAGMENT_MAX_DIGITS];
	memcpy(d, f->digits, sizeof(tlc_frag_digit) * (size_t)f->ndigits);
	d[f->ndigits] = D(times, -1, 0, true, f->threads);
	return tlc_fragment_from_digits(m, f->ndim, f->shape, f->ndigits + 1, d, f->thread_lo, NULL);
}

const tlc_layout *tlc_fragment_rebind(tlc_module *m, const tlc_layout *f, int64_t thread_lo)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || thread_lo < 0)
		return NULL;
	if (f->thread_lo == thread_lo)
		return f;
	return frag_build(m, f->ndim, f->shape, f->ndigits, f->digits, thread_lo, f->vars, f->rep, NULL);
}

/* A digit of the flat (row-major) index of a fragment's tile: the weight of
 * its values in that index and where they go (thread or register). */
typedef struct flat_digit {
	int64_t fw, radix, weight;
	bool is_thread;
} flat_digit;

static int flat_cmp(const void *x, const void *y)
{
	const flat_digit *a = x, *b = y;
	return a->fw < b->fw ? -1 : a->fw > b->fw;
}

const tlc_layout *tlc_fragment_reshape(tlc_module *m, const tlc_layout *f, int ndim,
                                       const int64_t *shape, const char **why)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || ndim < 1 || ndim > TLC_LAYOUT_MAX_DIMS) {
		fail(why, "a fragment is reshaped to 1 to 8 dimensions");
		return NULL;
	}
	int64_t n = layout_prod(ndim, shape);
	if (n <= 0 || n != tlc_layout_size(f)) {
		fail(why, "the new shape does not have the fragment's number of elements");
		return NULL;
	}
	if (ndim == f->ndim && !memcmp(shape, f->shape, sizeof(int64_t) * (size_t)ndim))
		return f;
	/* 1. the digits as digits of the flat index: in the old shape, digit
	 * k of dimension d weighs stride_k * (extents after d); sorted by that
	 * weight they are one mixed-radix number 1, r0, r0*r1, ... of the
	 * flat index, and neighbours that step on together are merged */
	flat_digit fd[TLC_FRAGMENT_MAX_DIGITS];
	tlc_frag_digit out[2 * TLC_FRAGMENT_MAX_DIGITS + TLC_LAYOUT_MAX_DIMS];
	int nf = 0, no = 0;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *g = &f->digits[k];
		if (g->dim < 0) {
			out[no++] = *g; /* replication: no logical index */
			continue;
		}
		int64_t after = layout_prod(f->ndim - g->dim - 1, f->shape + g->dim + 1);
		fd[nf++] = (flat_digit){g->stride * after, g->radix, g->weight, g->is_thread};
	}
	qsort(fd, (size_t)nf, sizeof fd[0], flat_cmp);
	int merged = 0;
	for (int k = 0; k < nf; k++) {
		flat_digit *p = merged ? &fd[merged - 1] : NULL;
		if (p && p->is_thread == fd[k].is_thread && fd[k].fw == p->fw * p->radix &&
		    fd[k].weight == p->weight * p->radix) {
			p->radix *= fd[k].radix;
			continue;
		}
		fd[merged++] = fd[k];
	}
	/* 2. each flat digit cut where the new shape's dimensions begin: a
	 * part [fw, fw * radix) of the flat index inside one dimension is a
	 * digit of it; a dimension boundary that falls inside a digit but not
	 * on one of its steps cannot be expressed (the elements of one
	 * dimension would not be a sum of digits) */
	int64_t after[TLC_LAYOUT_MAX_DIMS + 1]; /* after[d]: product of the extents from d on */
	after[ndim] = 1;
	for (int d = ndim - 1; d >= 0; d--)
		after[d] = after[d + 1] * shape[d];
	for (int k = 0; k < merged; k++) {
		int64_t fw = fd[k].fw, radix = fd[k].radix, weight = fd[k].weight;
		while (radix > 1) {
			int d = ndim - 1;
			while (d > 0 && fw >= after[d])
				d--;
			/* the dimension d holds flat weights [after[d + 1], after[d]) */
			int64_t end = after[d];
			int64_t take = radix;
			if (fw * radix > end) {
				if (end % fw || radix % (end / fw)) {
					fail(why, fd[k].is_thread
					             ? "the threads of the fragment's layout run across a "
					               "boundary between dimensions of the new shape that "
					               "their step does not divide"
					             : "the registers of the fragment's layout run across a "
					               "boundary between dimensions of the new shape that "
					               "their step does not divide");
					return NULL;
				}
				take = end / fw;
			}
			if (fw % after[d + 1] || no == (int)(sizeof out / sizeof out[0])) {
				fail(why, "the fragment's layout does not split along the new shape's dimensions");
				return NULL;
			}
			out[no++] = (tlc_frag_digit){take, d, fw / after[d + 1], fd[k].is_thread, weight};
			fw *= take;
			weight *= take;
			radix /= take;
		}
	}
	return tlc_fragment_from_digits(m, ndim, shape, no, out, f->thread_lo, why);
}

const tlc_layout *frag_add_leading_dim(tlc_module *m, const tlc_layout *f)
{
	if (!f || f->ndim >= TLC_LAYOUT_MAX_DIMS)
		return NULL;
	tlc_frag_digit d[TLC_FRAGMENT_MAX_DIGITS];
	int64_t shape[TLC_LAYOUT_MAX_DIMS];
	for (int k = 0; k < f->ndigits; k++) {
		d[k] = f->digits[k];
		if (d[k].dim >= 0)
			d[k].dim++;
	}
	shape[0] = 1;
	memcpy(shape + 1, f->shape, sizeof(int64_t) * (size_t)f->ndim);
	return tlc_fragment_from_digits(m, f->ndim + 1, shape, f->ndigits, d, f->thread_lo, NULL);
}

const tlc_expr *tlc_fragment_thread_of(tlc_module *m, const tlc_layout *f, int n, const tlc_expr *const *idx,
                                       const tlc_expr *rep)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || n != f->ndim || (n && !idx))
		return NULL;
	return digit_sum(m, f, true, idx, rep ? rep : I(m, 0));
}

void tlc_fragment_logical_of(tlc_module *m, const tlc_layout *f, const tlc_expr *thread, const tlc_expr *reg,
                             const tlc_expr **idx_out)
{
	if (!f || f->kind != TLC_LAYOUT_FRAGMENT || !idx_out)
		return;
	for (int dim = 0; dim < f->ndim; dim++) {
		const tlc_expr *sum = NULL;
		for (int k = 0; k < f->ndigits; k++) {
			const tlc_frag_digit *g = &f->digits[k];
			if (g->dim != dim)
				continue;
			const tlc_expr *v = g->is_thread ? layout_digit_expr(m, thread, g->weight, g->radix, f->threads)
			                                 : layout_digit_expr(m, reg, g->weight, g->radix, f->out_shape[0]);
			sum = add(m, sum, tlc_binary(m, TLC_EXPR_MUL, v, I(m, g->stride)));
		}
		idx_out[dim] = tlc_simplify_expr(m, sum ? sum : I(m, 0));
	}
}

/* Is absolute thread t one of the threads of b holding logical idx? */
static bool holds(const tlc_layout *b, const int64_t *idx, int64_t t)
{
	t -= b->thread_lo;
	if (t < 0 || t >= b->threads)
		return false;
	for (int k = 0; k < b->ndigits; k++) {
		const tlc_frag_digit *g = &b->digits[k];
		if (g->is_thread && g->dim >= 0 && (t / g->weight) % g->radix != (idx[g->dim] / g->stride) % g->radix)
			return false;
	}
	return true;
}

bool tlc_fragment_contains(const tlc_layout *b, const tlc_layout *a)
{
	if (!a || !b || a->kind != TLC_LAYOUT_FRAGMENT || b->kind != TLC_LAYOUT_FRAGMENT || a->ndim != b->ndim ||
	    a->out_shape[0] != b->out_shape[0])
		return false;
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	int64_t n = tlc_layout_size(a);
	if (n <= 0 || n > LAYOUT_ENUM_CAP || a->replicate > LAYOUT_ENUM_CAP / n)
		return a == b;
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0};
	for (int64_t i = 0; i < n; i++, layout_next_index(a->ndim, a->shape, idx)) {
		int64_t ta, ra, tb, rb;
		frag_eval(b, idx, 0, &tb, &rb);
		for (int64_t rep = 0; rep < a->replicate; rep++) {
			frag_eval(a, idx, rep, &ta, &ra);
			if (ra != rb || !holds(b, idx, ta + a->thread_lo))
				return false;
		}
	}
	return true;
}
