/* layout.c - swizzle modes and memory layouts (T.Layout, swizzled shared
 * tiles): construction, expansion, composition, evaluation, comparison. */
#include "layout_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- swizzle modes ---- */

static const tlc_swizzle_info swizzles[] = {
	[TLC_SWIZZLE_NONE] = {"none", 0, 0, 0, 16},
	[TLC_SWIZZLE_32B] = {"32B", 32, 1, 3, 256},
	[TLC_SWIZZLE_64B] = {"64B", 64, 2, 2, 512},
	[TLC_SWIZZLE_128B] = {"128B", 128, 3, 1, 1024},
};

const tlc_swizzle_info *tlc_swizzle_get(tlc_swizzle s)
{
	if ((unsigned)s >= TLC_ARRAY_LEN(swizzles))
		return &swizzles[TLC_SWIZZLE_NONE];
	return &swizzles[s];
}

bool tlc_swizzle_from_bytes(int bytes, tlc_swizzle *out)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(swizzles); i++)
		if (swizzles[i].bytes == bytes) {
			if (out)
				*out = (tlc_swizzle)i;
			return true;
		}
	return false;
}

tlc_swizzle tlc_swizzle_widest(int64_t row_elems, tlc_dtype t)
{
	int bits = tlc_dtype_bits(t);
	if (row_elems <= 0 || bits <= 0 || row_elems > ((int64_t)1 << 40))
		return TLC_SWIZZLE_NONE;
	int64_t row_bits = row_elems * bits;
	for (int s = TLC_SWIZZLE_128B; s > TLC_SWIZZLE_NONE; s--)
		if (row_bits % (8 * swizzles[s].bytes) == 0)
			return (tlc_swizzle)s;
	return TLC_SWIZZLE_NONE;
}

/* ---- helpers shared by the layout files ---- */

int64_t layout_prod(int n, const int64_t *v)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		if (v[i] < 0 || __builtin_mul_overflow(p, v[i], &p))
			return -1;
	return p;
}

bool layout_next_index(int n, const int64_t *shape, int64_t *idx)
{
	for (int d = n - 1; d >= 0; d--) {
		if (++idx[d] < shape[d])
			return true;
		idx[d] = 0;
	}
	return false;
}

layout_impl *layout_alloc(tlc_module *m, tlc_layout_kind kind, int ndim, const int64_t *shape)
{
	layout_impl *L = tlc_alloc(m, sizeof(*L));
	int64_t *s = tlc_alloc(m, sizeof(int64_t) * (size_t)(ndim + 1));
	for (int d = 0; d < ndim; d++)
		s[d] = shape[d];
	L->pub.kind = kind;
	L->pub.ndim = ndim;
	L->pub.shape = s;
	L->pub.thread = NULL;
	L->pub.replicate = 1;
	return L;
}

static const tlc_expr *I(tlc_module *m, int64_t v) { return tlc_i32(m, v); }

const tlc_expr *layout_flatten(tlc_module *m, int n, const int64_t *shape, const tlc_expr *const *idx)
{
	const tlc_expr *flat = I(m, 0);
	for (int d = 0; d < n; d++)
		flat = tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, flat, I(m, shape[d])), idx[d]);
	return tlc_simplify_expr(m, flat);
}

const tlc_expr *layout_digit_expr(tlc_module *m, const tlc_expr *x, int64_t w, int64_t r, int64_t extent)
{
	const tlc_expr *q = w == 1 ? x : tlc_binary(m, TLC_EXPR_FLOORDIV, x, I(m, w));
	if (w * r < extent)
		q = tlc_binary(m, TLC_EXPR_FLOORMOD, q, I(m, r));
	return q;
}

const tlc_layout *layout_finish_memory(tlc_module *m, layout_impl *L, tlc_var **vars, int nout,
                                       const tlc_expr *const *out, const int64_t *out_shape,
                                       const char **why)
{
	tlc_layout *l = &L->pub;
	const tlc_expr **o = tlc_alloc(m, sizeof(tlc_expr *) * (size_t)(nout + 1));
	int64_t *os = tlc_alloc(m, sizeof(int64_t) * (size_t)(nout + 1));
	L->prog = tlc_alloc(m, sizeof(lprog) * (size_t)(nout + 1));
	for (int k = 0; k < nout; k++) {
		o[k] = tlc_simplify_expr(m, out[k]);
		os[k] = out_shape[k];
		if (!lprog_compile(m, o[k], l->ndim, vars, &L->prog[k], why))
			return NULL;
	}
	l->vars = vars;
	l->nout = nout;
	l->out = o;
	l->out_shape = os;
	if (layout_prod(nout, os) < 0) {
		if (why)
			*why = "the physical size of the layout overflows";
		return NULL;
	}
	return l;
}

static bool shape_ok(int ndim, const int64_t *shape, const char **why)
{
	if (ndim < 0 || ndim > TLC_LAYOUT_MAX_DIMS || (ndim > 0 && !shape)) {
		if (why)
			*why = "a layout has 0 to 8 dimensions";
		return false;
	}
	for (int d = 0; d < ndim; d++)
		if (shape[d] <= 0) {
			if (why)
				*why = "layout extents must be positive constants";
			return false;
		}
	if (layout_prod(ndim, shape) < 0) {
		if (why)
			*why = "the size of the layout overflows";
		return false;
	}
	return true;
}

/* ---- memory layouts ---- */

tlc_var **tlc_layout_new_vars(tlc_module *m, int ndim)
{
	tlc_var **v = tlc_alloc(m, sizeof(tlc_var *) * (size_t)(ndim + 1));
	for (int d = 0; d < ndim; d++) {
		char name[16];
		snprintf(name, sizeof name, "i%d", d);
		v[d] = tlc_var_new(m, name, TLC_DT_INT32);
	}
	return v;
}

const tlc_layout *tlc_layout_memory(tlc_module *m, int ndim, const int64_t *shape, tlc_var *const *vars,
                                    int nout, const tlc_expr *const *out, const char **why)
{
	if (!shape_ok(ndim, shape, why))
		return NULL;
	if (nout < 1 || nout > TLC_LAYOUT_MAX_DIMS || !out || (ndim > 0 && !vars)) {
		if (why)
			*why = "a layout maps to 1 to 8 physical dimensions";
		return NULL;
	}
	int64_t lo[TLC_LAYOUT_MAX_DIMS] = {0}, hi[TLC_LAYOUT_MAX_DIMS], os[TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < ndim; d++)
		hi[d] = shape[d] - 1;
	tlc_var **v = tlc_alloc(m, sizeof(tlc_var *) * (size_t)(ndim + 1));
	for (int d = 0; d < ndim; d++)
		v[d] = vars[d];
	for (int k = 0; k < nout; k++) {
		int64_t mn, mx;
		if (!out[k] || !layout_bounds(tlc_simplify_expr(m, out[k]), ndim, v, lo, hi, &mn, &mx)) {
			if (why)
				*why = "cannot bound a physical index of the layout (use +, -, *, //, % by constants "
				       "of the lambda's parameters)";
			return NULL;
		}
		if (mn < 0) {
			if (why)
				*why = "a physical index of the layout can be negative";
			return NULL;
		}
		os[k] = mx + 1;
	}
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, ndim, shape);
	return layout_finish_memory(m, L, v, nout, out, os, why);
}

const tlc_layout *tlc_layout_row_major(tlc_module *m, int ndim, const int64_t *shape)
{
	if (!shape_ok(ndim, shape, NULL))
		return NULL;
	tlc_var **v = tlc_layout_new_vars(m, ndim);
	const tlc_expr *out[TLC_LAYOUT_MAX_DIMS + 1];
	int64_t one = 1;
	for (int d = 0; d < ndim; d++)
		out[d] = tlc_var_ref(m, v[d]);
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, ndim, shape);
	if (ndim == 0) { /* a scalar: one physical element */
		out[0] = I(m, 0);
		return layout_finish_memory(m, L, v, 1, out, &one, NULL);
	}
	return layout_finish_memory(m, L, v, ndim, out, shape, NULL);
}

const tlc_layout *tlc_layout_swizzled(tlc_module *m, int ndim, const int64_t *shape, tlc_dtype elem,
                                      tlc_swizzle mode, const char **why)
{
	if (!shape_ok(ndim, shape, why))
		return NULL;
	int bits = tlc_dtype_bits(elem);
	if (mode == TLC_SWIZZLE_NONE)
		return tlc_layout_row_major(m, ndim, shape);
	if ((unsigned)mode >= TLC_ARRAY_LEN(swizzles) || ndim < 2 || bits < 8 || bits % 8 || bits > 128) {
		if (why)
			*why = "a swizzled layout needs at least 2 dimensions of a byte-sized element type";
		return NULL;
	}
	int64_t W = swizzles[mode].bytes, b = bits / 8, R = shape[ndim - 2], C = shape[ndim - 1];
	if ((C * b) % W) {
		if (why)
			*why = "a swizzled layout needs rows of a multiple of the swizzle width in bytes";
		return NULL;
	}
	int64_t Wb = W / b, e = 16 / b, nblk = C / Wb;
	tlc_var **v = tlc_layout_new_vars(m, ndim);
	const tlc_expr *out[TLC_LAYOUT_MAX_DIMS + 1];
	int64_t os[TLC_LAYOUT_MAX_DIMS + 1];
	for (int d = 0; d < ndim - 2; d++) {
		out[d] = tlc_var_ref(m, v[d]);
		os[d] = shape[d];
	}
	const tlc_expr *r = tlc_var_ref(m, v[ndim - 2]), *c = tlc_var_ref(m, v[ndim - 1]);
	const tlc_expr *cc = tlc_binary(m, TLC_EXPR_FLOORMOD, c, I(m, Wb));
	const tlc_expr *chunk = tlc_binary(m, TLC_EXPR_FLOORDIV, cc, I(m, e));
	const tlc_expr *x = tlc_binary(m, TLC_EXPR_FLOORMOD, tlc_binary(m, TLC_EXPR_FLOORDIV, r, I(m, 128 / W)),
	                               I(m, W / 16));
	const tlc_expr *col = tlc_binary(m, TLC_EXPR_ADD,
	                                 tlc_binary(m, TLC_EXPR_MUL, tlc_binary(m, TLC_EXPR_BITXOR, chunk, x), I(m, e)),
	                                 tlc_binary(m, TLC_EXPR_FLOORMOD, cc, I(m, e)));
	out[ndim - 2] = tlc_binary(m, TLC_EXPR_FLOORDIV, c, I(m, Wb));
	os[ndim - 2] = nblk;
	out[ndim - 1] = r;
	os[ndim - 1] = R;
	out[ndim] = col;
	os[ndim] = Wb;
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_SWIZZLED, ndim, shape);
	L->pub.swizzle = mode;
	L->pub.elem = elem;
	return layout_finish_memory(m, L, v, ndim + 1, out, os, why);
}

const tlc_layout *tlc_layout_expand(tlc_module *m, const tlc_layout *l, int nlead, const int64_t *lead_shape)
{
	if (!l || nlead < 0 || l->ndim + nlead > TLC_LAYOUT_MAX_DIMS || !shape_ok(nlead, lead_shape, NULL))
		return NULL;
	if (nlead == 0)
		return l;
	int64_t shape[2 * TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < nlead; d++)
		shape[d] = lead_shape[d];
	for (int d = 0; d < l->ndim; d++)
		shape[nlead + d] = l->shape[d];
	if (l->kind == TLC_LAYOUT_SWIZZLED)
		return tlc_layout_swizzled(m, nlead + l->ndim, shape, l->elem, l->swizzle, NULL);
	if (l->kind == TLC_LAYOUT_FRAGMENT) {
		const tlc_layout *f = l;
		for (int d = nlead - 1; d >= 0; d--) {
			f = tlc_fragment_repeat(m, frag_add_leading_dim(m, f), 0, lead_shape[d]);
			if (!f)
				return NULL;
		}
		return f;
	}
	if (l->nout + nlead > TLC_LAYOUT_MAX_DIMS)
		return NULL;
	tlc_var **lead = tlc_layout_new_vars(m, nlead);
	tlc_var **v = tlc_alloc(m, sizeof(tlc_var *) * (size_t)(nlead + l->ndim + 1));
	const tlc_expr *out[2 * TLC_LAYOUT_MAX_DIMS];
	int64_t os[2 * TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < nlead; d++) {
		v[d] = lead[d];
		out[d] = tlc_var_ref(m, lead[d]);
		os[d] = lead_shape[d];
	}
	for (int d = 0; d < l->ndim; d++)
		v[nlead + d] = l->vars[d];
	for (int k = 0; k < l->nout; k++) {
		out[nlead + k] = l->out[k];
		os[nlead + k] = l->out_shape[k];
	}
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, nlead + l->ndim, shape);
	return layout_finish_memory(m, L, v, nlead + l->nout, out, os, NULL);
}

const tlc_layout *tlc_layout_compose(tlc_module *m, const tlc_layout *outer, const tlc_layout *inner,
                                     const char **why)
{
	if (!outer || !inner || outer->kind == TLC_LAYOUT_FRAGMENT || inner->kind == TLC_LAYOUT_FRAGMENT) {
		if (why)
			*why = "only memory layouts compose";
		return NULL;
	}
	if (tlc_layout_size(outer) != tlc_layout_phys_size(inner)) {
		if (why)
			*why = "the outer layout's size is not the inner layout's physical size";
		return NULL;
	}
	const tlc_expr *phys[TLC_LAYOUT_MAX_DIMS], *idx[TLC_LAYOUT_MAX_DIMS];
	for (int k = 0; k < inner->nout; k++)
		phys[k] = inner->out[k];
	const tlc_expr *flat = layout_flatten(m, inner->nout, inner->out_shape, phys);
	int64_t below = 1;
	for (int d = outer->ndim - 1; d >= 0; d--) {
		idx[d] = tlc_simplify_expr(m, layout_digit_expr(m, flat, below, outer->shape[d],
		                                                d == 0 ? below * outer->shape[d] : INT64_MAX));
		below *= outer->shape[d];
	}
	const tlc_expr *out[TLC_LAYOUT_MAX_DIMS];
	for (int k = 0; k < outer->nout; k++)
		out[k] = layout_subst(m, outer->out[k], outer->ndim, outer->vars, idx);
	layout_impl *L = layout_alloc(m, TLC_LAYOUT_MEMORY, inner->ndim, inner->shape);
	return layout_finish_memory(m, L, inner->vars, outer->nout, out, outer->out_shape, why);
}

/* ---- queries ---- */

int64_t tlc_layout_size(const tlc_layout *l) { return l ? layout_prod(l->ndim, l->shape) : 0; }

int64_t tlc_layout_phys_size(const tlc_layout *l) { return l ? layout_prod(l->nout, l->out_shape) : 0; }

bool layout_eval_phys(const tlc_layout *l, const int64_t *idx, int64_t *phys)
{
	const layout_impl *L = impl_of(l);
	for (int k = 0; k < l->nout; k++)
		if (!lprog_eval(&L->prog[k], idx, &phys[k]) || phys[k] < 0 || phys[k] >= l->out_shape[k])
			return false;
	return true;
}

bool tlc_layout_eval(const tlc_layout *l, const int64_t *idx, int64_t *flat)
{
	if (!l || !idx || !flat)
		return false;
	for (int d = 0; d < l->ndim; d++)
		if (idx[d] < 0 || idx[d] >= l->shape[d])
			return false;
	if (l->kind == TLC_LAYOUT_FRAGMENT) {
		int64_t t;
		frag_eval(l, idx, 0, &t, flat);
		return true;
	}
	int64_t phys[TLC_LAYOUT_MAX_DIMS];
	if (!layout_eval_phys(l, idx, phys))
		return false;
	int64_t f = 0;
	for (int k = 0; k < l->nout; k++)
		f = f * l->out_shape[k] + phys[k];
	*flat = f;
	return true;
}

const tlc_expr *tlc_layout_apply(tlc_module *m, const tlc_layout *l, int n, const tlc_expr *const *idx)
{
	if (!l || n != l->ndim || (n > 0 && !idx))
		return NULL;
	const tlc_expr *phys[TLC_LAYOUT_MAX_DIMS];
	for (int k = 0; k < l->nout; k++)
		phys[k] = layout_subst(m, l->out[k], l->ndim, l->vars, idx);
	if (l->kind == TLC_LAYOUT_FRAGMENT)
		return tlc_simplify_expr(m, phys[0]);
	return layout_flatten(m, l->nout, l->out_shape, phys);
}

/* Flat offsets of every logical index (row-major order), malloc'd; NULL when
 * there are too many or one fails to evaluate. */
static int64_t *all_offsets(const tlc_layout *l, int64_t *n_out)
{
	int64_t n = tlc_layout_size(l);
	if (n <= 0 || n > LAYOUT_ENUM_CAP)
		return NULL;
	int64_t *flat = tlc_xmalloc(sizeof(int64_t) * (size_t)n);
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0};
	for (int64_t i = 0; i < n; i++, layout_next_index(l->ndim, l->shape, idx))
		if (!tlc_layout_eval(l, idx, &flat[i])) {
			free(flat);
			return NULL;
		}
	*n_out = n;
	return flat;
}

static bool same_digits(const tlc_layout *a, const tlc_layout *b)
{
	if (a->ndigits != b->ndigits)
		return false;
	for (int k = 0; k < a->ndigits; k++) {
		const tlc_frag_digit *x = &a->digits[k], *y = &b->digits[k];
		if (x->radix != y->radix || x->dim != y->dim || x->stride != y->stride || x->is_thread != y->is_thread ||
		    x->weight != y->weight)
			return false;
	}
	return true;
}

bool tlc_layout_equal(const tlc_layout *a, const tlc_layout *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->ndim != b->ndim || (a->kind == TLC_LAYOUT_FRAGMENT) != (b->kind == TLC_LAYOUT_FRAGMENT))
		return false;
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	if (tlc_layout_phys_size(a) != tlc_layout_phys_size(b))
		return false;
	if (a->kind == TLC_LAYOUT_FRAGMENT) {
		if (a->thread_lo != b->thread_lo || a->threads != b->threads || a->replicate != b->replicate)
			return false;
		/* canonical digits: the same digits are the same map */
		if (same_digits(a, b))
			return true;
		return tlc_fragment_contains(a, b) && tlc_fragment_contains(b, a);
	}
	int64_t n, n2;
	int64_t *fa = all_offsets(a, &n), *fb = all_offsets(b, &n2);
	bool eq = fa && fb && memcmp(fa, fb, sizeof(int64_t) * (size_t)n) == 0;
	free(fa);
	free(fb);
	return eq;
}

/* Does every run of `run` elements along the last dimension, starting at a
 * multiple of run, map to consecutive slots?  flat[i] of logical i. */
static bool runs_contiguous(const int64_t *flat, const int64_t *thr, int64_t n, int64_t last, int64_t run)
{
	for (int64_t i = 0; i < n; i += run)
		for (int64_t k = 1; k < run; k++)
			if (flat[i + k] != flat[i] + k || (thr && thr[i + k] != thr[i]))
				return false;
	(void)last;
	return true;
}

int64_t tlc_layout_contiguous_run(const tlc_layout *l)
{
	if (!l || l->ndim == 0)
		return 1;
	int64_t n, last = l->shape[l->ndim - 1];
	int64_t *flat = all_offsets(l, &n), *thr = NULL;
	if (!flat)
		return 1;
	if (l->kind == TLC_LAYOUT_FRAGMENT) {
		thr = tlc_xmalloc(sizeof(int64_t) * (size_t)n);
		int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0}, reg;
		for (int64_t i = 0; i < n; i++, layout_next_index(l->ndim, l->shape, idx))
			frag_eval(l, idx, 0, &thr[i], &reg);
	}
	int64_t best = 1;
	for (int64_t run = last; run > 1; run--)
		if (last % run == 0 && runs_contiguous(flat, thr, n, last, run)) {
			best = run;
			break;
		}
	free(flat);
	free(thr);
	return best;
}

static void describe_shape(tlc_buf *out, int n, const int64_t *s)
{
	for (int d = 0; d < n; d++)
		tlc_buf_printf(out, "%s%lld", d ? "x" : "", (long long)s[d]);
	if (n == 0)
		tlc_buf_puts(out, "scalar");
}

void tlc_layout_describe(tlc_buf *out, const tlc_layout *l)
{
	if (!l) {
		tlc_buf_puts(out, "(no layout)");
		return;
	}
	switch (l->kind) {
	case TLC_LAYOUT_SWIZZLED:
		tlc_buf_printf(out, "swizzled(%s) ", tlc_swizzle_get(l->swizzle)->name);
		describe_shape(out, l->ndim, l->shape);
		tlc_buf_printf(out, " %s", tlc_dtype_name(l->elem));
		break;
	case TLC_LAYOUT_MEMORY:
		tlc_buf_puts(out, "layout ");
		describe_shape(out, l->ndim, l->shape);
		tlc_buf_puts(out, " -> ");
		describe_shape(out, l->nout, l->out_shape);
		break;
	case TLC_LAYOUT_FRAGMENT:
		tlc_buf_puts(out, "fragment ");
		describe_shape(out, l->ndim, l->shape);
		tlc_buf_printf(out, " over threads [%lld, %lld), %lld register%s", (long long)l->thread_lo,
		               (long long)(l->thread_lo + l->threads), (long long)l->out_shape[0],
		               l->out_shape[0] == 1 ? "" : "s");
		if (l->replicate > 1)
			tlc_buf_printf(out, ", replicated x%lld", (long long)l->replicate);
		break;
	}
}
