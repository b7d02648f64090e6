/* lower_vector.c - widening element copies of a lowered nest.
 *
 * When the loop layout gives each thread `v` consecutive elements along the
 * last dimension in consecutive registers (its lowest register digit), a body
 * that only moves one element (dst[..] = src[..] or dst[..] = T.cast(src[..]),
 * possibly under a boundary predicate: a store's `if p:`, a load's
 * T.if_then_else(p, src, 0) that zero-fills outside, or both) can move the v
 * elements with one access of v * size bytes on each side (T.copy_vec; with
 * a cast it converts lane by lane, as an fp32 accumulator stored to float16
 * does), provided that on BOTH sides the v elements are contiguous and
 * aligned to v in *physical* memory:
 *   - a fragment: its register indices for the v elements are consecutive and
 *     start at a multiple of v (checked for every register group);
 *   - a buffer with a memory layout (a swizzle, the dQ layout of a flash-
 *     attention backward): the layout maps every aligned run of v logical
 *     elements along the last dimension to an aligned physical run (checked
 *     at every logical index), and the access offset along that dimension is
 *     a multiple of v;
 *   - a row-major buffer: the row length and the offset along the last
 *     dimension are provably multiples of v (dynamic sizes are not).
 * A predicate may only test the last index against a bound that is a
 * multiple of v (`<`, or `>=` as a guard's lower end), so that the v
 * elements are all in or all out.
 * Anything else stays one element at a time: never a wide access across
 * non-contiguous addresses. */
#include <string.h>

#include <tlc/access.h>
#include <tlc/bounds.h>
#include <tlc/walk.h>

#include "lower.h"

static int64_t gcd64(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

#define HUGE_MULTIPLE ((int64_t)1 << 40)

/* A number that provably divides e (1 when nothing better is known). */
static int64_t known_multiple(const tlc_expr *e)
{
	int64_t v;
	if (tlc_expr_as_int(e, &v))
		return v == 0 ? HUGE_MULTIPLE : (v < 0 ? -v : v);
	switch (e->kind) {
	case TLC_EXPR_ADD:
	case TLC_EXPR_SUB: return gcd64(known_multiple(e->u.op.a), known_multiple(e->u.op.b));
	case TLC_EXPR_MUL: {
		int64_t a = known_multiple(e->u.op.a), b = known_multiple(e->u.op.b);
		return a > HUGE_MULTIPLE / (b ? b : 1) ? HUGE_MULTIPLE : a * b;
	}
	case TLC_EXPR_FLOORMOD:
		if (tlc_expr_as_int(e->u.op.b, &v) && v > 0)
			return gcd64(known_multiple(e->u.op.a), v);
		return 1;
	default: return 1;
	}
}

static tlc_walk_action find_var(void *p, const tlc_expr *e)
{
	const tlc_var *const *v = p;
	return e->kind == TLC_EXPR_VAR && e->u.var == *v ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

bool lw_expr_uses_var(const tlc_expr *e, const tlc_var *v)
{
	return !tlc_walk_expr(&(tlc_visitor){.ctx = &v, .expr_pre = find_var}, e);
}

bool lw_stmt_uses_var(const tlc_stmt *s, const tlc_var *v)
{
	return !tlc_walk_stmt(&(tlc_visitor){.ctx = &v, .expr_pre = find_var}, s);
}

/* e = j + c with c free of j: *c set (0 when e is j). */
static bool is_var_plus(const tlc_expr *e, const tlc_var *j, int64_t *c_multiple)
{
	if (e->kind == TLC_EXPR_VAR && e->u.var == j) {
		*c_multiple = HUGE_MULTIPLE;
		return true;
	}
	if (e->kind != TLC_EXPR_ADD)
		return false;
	const tlc_expr *a = e->u.op.a, *b = e->u.op.b;
	if (b->kind == TLC_EXPR_VAR && b->u.var == j && !lw_expr_uses_var(a, j)) {
		*c_multiple = known_multiple(a);
		return true;
	}
	if (a->kind == TLC_EXPR_VAR && a->u.var == j && !lw_expr_uses_var(b, j)) {
		*c_multiple = known_multiple(b);
		return true;
	}
	return false;
}

/* ---- substitution ---- */

/* e with variable v replaced by `by`. */
static const tlc_expr *subst(lw_state *st, const tlc_expr *e, const tlc_var *v, const tlc_expr *by)
{
	return tlc_expr_subst_vars(st->m, e, 1, &v, &by);
}

static const tlc_expr **subst_list(lw_state *st, int n, const tlc_expr *const *l, const tlc_var *v, const tlc_expr *by)
{
	const tlc_expr **out = tlc_alloc(st->m, sizeof(tlc_expr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		out[i] = tlc_simplify_expr(st->m, subst(st, l[i], v, by));
	return out;
}

/* A copy of the lets of a nest with v replaced by `by`. */
static tlc_stmt *subst_lets(lw_state *st, const tlc_stmt *seq, int nlets, const tlc_var *v, const tlc_expr *by)
{
	tlc_stmt *out = tlc_seq_new(st->m, seq->loc);
	for (int i = 0; i < nlets; i++) {
		const tlc_stmt *l = seq->u.seq.items[i];
		tlc_seq_append(st->m, out,
		               tlc_let_new(st->m, l->loc, l->u.let.var, tlc_simplify_expr(st->m, subst(st, l->u.let.value, v, by))));
	}
	return out;
}

/* ---- the checks ---- */

/* Does the memory layout map every aligned run of v along its last
 * dimension to an aligned physical run?  Enumerates the logical tile. */
static bool layout_runs(const tlc_layout *l, int64_t v)
{
	int nd = l->ndim;
	if (nd < 1 || l->shape[nd - 1] % v)
		return false;
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0}, total = tlc_layout_size(l);
	/* too large to check at compile-time speed (a global tensor with a
	 * layout): stay scalar, which is always correct */
	if (total > (1 << 17))
		return false;
	for (int64_t n = 0; n < total; n += v) {
		int64_t flat = n;
		for (int d = nd - 1; d >= 0; d--) {
			idx[d] = flat % l->shape[d];
			flat /= l->shape[d];
		}
		int64_t o0, o;
		if (!tlc_layout_eval(l, idx, &o0) || o0 % v)
			return false;
		for (int64_t u = 1; u < v; u++) {
			idx[nd - 1]++;
			if (!tlc_layout_eval(l, idx, &o) || o != o0 + u)
				return false;
		}
	}
	return true;
}

/* Answers about layouts are remembered (lw_run_result): enumerating a
 * tile costs far more than the rest of the pass. */
static const bool *remembered(const lw_state *st, const tlc_layout *l, int64_t v)
{
	for (int i = 0; i < st->nruns; i++)
		if (st->runs[i].l == l && st->runs[i].v == v)
			return &st->runs[i].ok;
	return NULL;
}

static bool remember(lw_state *st, const tlc_layout *l, int64_t v, bool ok)
{
	if (st->nruns < LW_RUNS_CACHE)
		st->runs[st->nruns++] = (lw_run_result){l, v, ok};
	return ok;
}

bool lw_layout_runs(lw_state *st, const tlc_layout *l, int64_t v)
{
	/* a swizzle permutes whole 16-byte chunks (tlc/layout.h): runs that fit
	 * in one chunk stay contiguous and aligned */
	if (l->kind == TLC_LAYOUT_SWIZZLED && l->shape[l->ndim - 1] % v == 0)
		return 16 % (v * (tlc_dtype_bits(l->elem) / 8)) == 0;
	const bool *known = remembered(st, l, v);
	return known ? *known : remember(st, l, v, layout_runs(l, v));
}

typedef struct vec_ctx {
	lw_state *st;
	const tlc_var *r, *j;
	int64_t v, nregs;
} vec_ctx;

static bool side_ok(const vec_ctx *c, const tlc_buffer *b, int n, const tlc_expr *const *idx)
{
	int64_t mult, x;
	if (b->scope == TLC_SCOPE_FRAGMENT) {
		/* registers: consecutive within each group, groups aligned.  The
		 * register index at each r is the bounds of r's one point (nothing
		 * built: substituting and folding every register cost a gemm's
		 * epilogue 2M instructions), else substituted and folded */
		tlc_ranges at = {0};
		tlc_ranges_push(&at, c->r, 0, 0);
		bool ok = true;
		for (int64_t r0 = 0; ok && r0 < c->nregs; r0 += c->v) {
			int64_t base = 0;
			for (int64_t u = 0; ok && u < c->v; u++) {
				int64_t hi;
				at.items[0].lo = at.items[0].hi = r0 + u;
				if (!tlc_expr_bounds(&at, idx[0], &x, &hi) || x != hi) {
					tlc_module *m = c->st->m;
					const tlc_expr *at_r =
					    subst(c->st, idx[0], c->r, tlc_i32(m, r0 + u));
					ok = tlc_expr_as_int(tlc_simplify_expr(m, at_r), &x);
				}
				if (u == 0)
					base = x;
				ok = ok && x == base + u && base % c->v == 0;
			}
		}
		tlc_ranges_free(&at);
		return ok;
	}
	if (b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR || n < 1)
		return false;
	for (int d = 0; d < n - 1; d++)
		if (lw_expr_uses_var(idx[d], c->j))
			return false;
	if (!is_var_plus(idx[n - 1], c->j, &mult) || mult % c->v)
		return false;
	if (b->layout && b->layout->kind != TLC_LAYOUT_FRAGMENT)
		return lw_layout_runs(c->st, b->layout, c->v);
	/* row-major: rows are multiples of v elements */
	return b->ndim == n && known_multiple(b->shape[n - 1]) % c->v == 0;
}

/* x is `j + c` and bound is free of j, c and bound multiples of v: then
 * the v elements of an aligned run are all below the bound or none is. */
static bool aligned_against(const vec_ctx *c, const tlc_expr *x, const tlc_expr *bound)
{
	int64_t mult;
	return is_var_plus(x, c->j, &mult) && mult % c->v == 0 && !lw_expr_uses_var(bound, c->j) &&
	       known_multiple(bound) % c->v == 0;
}

/* Every comparison that looks at j is `j + c < bound` or `j + c >= bound`
 * (a guard's lower end) with c and bound multiples of v. */
static bool predicate_ok(const vec_ctx *c, const tlc_expr *p)
{
	if (!lw_expr_uses_var(p, c->j))
		return true;
	switch (p->kind) {
	case TLC_EXPR_AND: return predicate_ok(c, p->u.op.a) && predicate_ok(c, p->u.op.b);
	case TLC_EXPR_LT:
	case TLC_EXPR_GE: return aligned_against(c, p->u.op.a, p->u.op.b);
	case TLC_EXPR_LE: return aligned_against(c, p->u.op.b, p->u.op.a);
	default: return false;
	}
}

static bool is_zero(const tlc_expr *e)
{
	int64_t v;
	return (e->kind == TLC_EXPR_FLOAT && e->u.fval == 0.0) || (tlc_expr_as_int(e, &v) && v == 0);
}

/* The vector width the layout offers: its lowest register digit, if it runs
 * along the last dimension with stride 1. */
static int64_t offered_width(const tlc_layout *L)
{
	for (int k = 0; k < L->ndigits; k++) {
		const tlc_frag_digit *d = &L->digits[k];
		if (!d->is_thread && d->weight == 1)
			return d->dim == L->ndim - 1 && d->stride == 1 ? d->radix : 1;
	}
	return 1;
}

/* atomic_add(dst[..], src[..]) of float32: T.atomic_add_vec of 2 or 4 lanes
 * when both runs are contiguous and aligned in physical memory and dst is a
 * global tensor (the target splits it where the GPU has no vector atomics). */
static tlc_stmt *vectorize_atomic(lw_state *st, const tlc_layout *L, tlc_var *r, tlc_var *j, tlc_stmt *inner, int nlets,
                                  const tlc_expr *pred, const tlc_stmt *body, int64_t v)
{
	tlc_module *m = st->m;
	const tlc_expr *c = body->u.eval.call;
	/* old= (return_prev=True): each element's previous value, one atomic each */
	if (c->kind != TLC_EXPR_CALL || c->u.call.op != TLC_OP_ATOMIC_ADD || c->u.call.nargs != 2 ||
	    tlc_call_kw(c, "old"))
		return NULL;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || dst->u.load.buf->scope != TLC_SCOPE_GLOBAL ||
	    dst->u.load.buf->dtype != TLC_DT_FLOAT32 || src->u.load.buf->dtype != TLC_DT_FLOAT32)
		return NULL;
	if (v > st->target->atomic_add_f32_vector)
		v = st->target->atomic_add_f32_vector; /* 1: the target has scalar atomics only */
	if (v < 2)
		return NULL;
	vec_ctx cx = {st, r, j, v, L->out_shape[0]};
	if (!side_ok(&cx, dst->u.load.buf, dst->u.load.n, dst->u.load.idx) ||
	    !side_ok(&cx, src->u.load.buf, src->u.load.n, src->u.load.idx) || (pred && !predicate_ok(&cx, pred)))
		return NULL;
	tlc_var *q = lw_fresh(st, "q");
	const tlc_expr *r0 = tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, q), tlc_i32(m, v));
	tlc_stmt *out = subst_lets(st, inner, nlets, r, r0);
	const tlc_expr *args[3] = {
	    tlc_load(m, dst->u.load.buf, dst->u.load.n, subst_list(st, dst->u.load.n, dst->u.load.idx, r, r0)),
	    tlc_load(m, src->u.load.buf, src->u.load.n, subst_list(st, src->u.load.n, src->u.load.idx, r, r0)),
	    tlc_i32(m, v)};
	tlc_stmt *op = tlc_eval_new(m, body->loc, tlc_call(m, TLC_OP_ATOMIC_ADD_VEC, TLC_DT_VOID, 3, args, 0, NULL, NULL));
	if (pred)
		op = tlc_if_new(m, body->loc, tlc_simplify_expr(m, subst(st, pred, r, r0)), op, NULL);
	tlc_seq_append(m, out, op);
	return tlc_for_new(m, body->loc, q, tlc_i32(m, 0), tlc_i32(m, L->out_shape[0] / v), TLC_FOR_UNROLLED, out);
}

/* The widest single access of the target to b's memory. */
static int64_t access_bytes(const lw_state *st, const tlc_buffer *b)
{
	const tlc_target_info *t = st->target;
	if (b->scope == TLC_SCOPE_GLOBAL)
		return t->global_vector_bytes;
	if (tlc_buffer_in_shared(b))
		return t->shared_vector_bytes;
	return t->global_vector_bytes > t->shared_vector_bytes ? t->global_vector_bytes : t->shared_vector_bytes;
}

tlc_stmt *lw_vectorize(lw_state *st, const tlc_layout *L, tlc_var *r, tlc_var *j, tlc_stmt *inner, int nlets)
{
	tlc_module *m = st->m;
	int64_t nregs = L->out_shape[0], v = offered_width(L);
	if (!r || v < 2 || nregs % v || inner->kind != TLC_STMT_SEQ || inner->u.seq.n != nlets + 1)
		return NULL;
	/* the body: one store of one load, maybe under a predicate */
	const tlc_stmt *body = inner->u.seq.items[nlets];
	if (body->kind == TLC_STMT_SEQ && body->u.seq.n == 1)
		body = body->u.seq.items[0];
	const tlc_expr *pred = NULL, *zero_pred = NULL;
	if (body->kind == TLC_STMT_IF && !body->u.if_.else_s) {
		pred = body->u.if_.cond;
		body = body->u.if_.then_s;
		if (body->kind == TLC_STMT_SEQ && body->u.seq.n == 1)
			body = body->u.seq.items[0];
	}
	if (body->kind == TLC_STMT_EVAL)
		return vectorize_atomic(st, L, r, j, inner, nlets, pred, body, v);
	if (body->kind != TLC_STMT_STORE)
		return NULL;
	const tlc_expr *val = body->u.store.value;
	if (val->kind == TLC_EXPR_SELECT && is_zero(val->u.op.c)) {
		zero_pred = val->u.op.a;
		val = val->u.op.b;
	}
	/* a conversion (an accumulator stored as float16) converts lane by lane */
	bool convert = val->kind == TLC_EXPR_CAST && val->dtype == body->u.store.buf->dtype && !zero_pred;
	if (convert)
		val = val->u.op.a;
	if (val->kind != TLC_EXPR_LOAD || (!convert && val->u.load.buf->dtype != body->u.store.buf->dtype))
		return NULL;
	int64_t bytes = v * tlc_dtype_bits(body->u.store.buf->dtype) / 8;
	int64_t src_bytes = v * tlc_dtype_bits(val->dtype) / 8;
	while (bytes > access_bytes(st, body->u.store.buf) || src_bytes > access_bytes(st, val->u.load.buf)) {
		v /= 2;
		bytes /= 2;
		src_bytes /= 2;
	}
	/* the widest vector both sides allow (rows of 200 bytes take 8-byte
	 * vectors); 4 bytes and up: narrower ones gain nothing over scalar
	 * accesses */
	vec_ctx c;
	for (;; v /= 2, bytes /= 2, src_bytes /= 2) {
		if (bytes < 4 || (bytes & (bytes - 1)) || (src_bytes & (src_bytes - 1)))
			return NULL;
		c = (vec_ctx){st, r, j, v, nregs};
		if (side_ok(&c, body->u.store.buf, body->u.store.n, body->u.store.idx) &&
		    side_ok(&c, val->u.load.buf, val->u.load.n, val->u.load.idx) && (!pred || predicate_ok(&c, pred)) &&
		    (!zero_pred || predicate_ok(&c, zero_pred)))
			break;
	}

	/* for q: the lets at r = q*v (u = 0), then one wide copy */
	tlc_var *q = lw_fresh(st, "q");
	const tlc_expr *r0 = tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, q), tlc_i32(m, v));
	tlc_stmt *out = subst_lets(st, inner, nlets, r, r0);
	tlc_loc loc = body->loc;
	const tlc_expr *dst = tlc_load(m, body->u.store.buf, body->u.store.n,
	                               subst_list(st, body->u.store.n, body->u.store.idx, r, r0));
	const tlc_expr *src = tlc_load(m, val->u.load.buf, val->u.load.n, subst_list(st, val->u.load.n, val->u.load.idx, r, r0));
	const tlc_expr *args[4] = {dst, src, tlc_i32(m, v), NULL};
	tlc_stmt *copy;
	if (st->async_copy && !convert && val->u.load.buf->scope == TLC_SCOPE_GLOBAL && tlc_buffer_in_shared(body->u.store.buf) &&
	    (bytes == 4 || bytes == 8 || bytes == 16)) {
		/* asynchronous: out of bounds, the engine writes the zeros itself */
		int nargs = 3;
		if (zero_pred)
			args[nargs++] = tlc_simplify_expr(m, subst(st, zero_pred, r, r0));
		copy = tlc_eval_new(m, loc, tlc_call(m, TLC_OP_CP_ASYNC, TLC_DT_VOID, nargs, args, 0, NULL, NULL));
		zero_pred = NULL;
	} else {
		copy = tlc_eval_new(m, loc, tlc_call(m, TLC_OP_COPY_VEC, TLC_DT_VOID, 3, args, 0, NULL, NULL));
	}
	if (zero_pred) {
		/* out of bounds: the v elements read as zero, one by one */
		tlc_var *u = lw_fresh(st, "u");
		const tlc_expr *ru = tlc_binary(m, TLC_EXPR_ADD, r0, tlc_var_ref(m, u));
		const tlc_expr *ju = tlc_binary(m, TLC_EXPR_ADD, tlc_var_ref(m, j), tlc_var_ref(m, u));
		const tlc_expr **didx = subst_list(st, body->u.store.n, body->u.store.idx, r, ru);
		didx = subst_list(st, body->u.store.n, didx, j, ju);
		tlc_stmt *z = tlc_store_new(m, loc, body->u.store.buf, body->u.store.n, didx, body->u.store.value->u.op.c);
		tlc_stmt *zeros = tlc_for_new(m, loc, u, tlc_i32(m, 0), tlc_i32(m, v), TLC_FOR_UNROLLED, z);
		copy = tlc_if_new(m, loc, tlc_simplify_expr(m, subst(st, zero_pred, r, r0)), copy, zeros);
	}
	/* a store's guard around it all (a load's guard inside: legalize-bounds) */
	if (pred)
		copy = tlc_if_new(m, loc, tlc_simplify_expr(m, subst(st, pred, r, r0)), copy, NULL);
	tlc_seq_append(m, out, copy);
	return tlc_for_new(m, loc, q, tlc_i32(m, 0), tlc_i32(m, nregs / v), TLC_FOR_UNROLLED, out);
}

/* ---- stmatrix ----
 *
 * A fragment stored into a 16-bit shared tile, when the fragment holds the
 * tile as an mma accumulator does: every aligned 8x8 block of it belongs
 * to one warp, lane l holding row l / 4 at columns 2 (l % 4) and +1 in two
 * consecutive registers that are the same for every lane of the block.
 * Then the warp stores four blocks (two, one) with one T.stmatrix, lane
 * 8k + i naming where row i of the k-th starts, instead of one 4-byte
 * store per register pair.  Checked by enumerating the fragment's digits:
 * any layout of that shape qualifies, whatever instruction made it. */

/* The part of a 2-D fragment's logical index that its thread digits (or
 * its register digits) give for thread (register) x: in digit form the
 * index is the sum of the two parts. */
static void digits_part(const tlc_layout *L, bool thread, int64_t x, int64_t idx[2])
{
	idx[0] = idx[1] = 0;
	for (int k = 0; k < L->ndigits; k++) {
		const tlc_frag_digit *d = &L->digits[k];
		if (d->is_thread == thread && d->dim >= 0)
			idx[d->dim] += (x / d->weight) % d->radix * d->stride;
	}
}

enum {
	DIM = TLC_STMATRIX_DIM,
	PAIR = TLC_STMATRIX_PAIR,
	ROW_LANES = TLC_STMATRIX_DIM / TLC_STMATRIX_PAIR, /* the lanes of one row of a block */
};

/* Does every register pair (2q, 2q + 1) of every warp form the lanes' part
 * of one aligned 8x8 block, as stmatrix reads them? */
static bool enumerate_8x8_blocks(tlc_module *m, const tlc_layout *L)
{
	int64_t nregs = L->out_shape[0], pairs = nregs / PAIR;
	if (L->ndim != 2 || L->replicate != 1 || nregs % PAIR || L->thread_lo % TLC_STMATRIX_LANES ||
	    L->threads % TLC_STMATRIX_LANES || L->shape[0] % DIM || L->shape[1] % DIM)
		return false;
	/* the registers' parts once; then each thread's part and sums */
	int64_t *reg = tlc_alloc(m, (size_t)nregs * 2 * sizeof(int64_t));
	int64_t *origin = tlc_alloc(m, (size_t)pairs * 2 * sizeof(int64_t));
	for (int64_t r = 0; r < nregs; r++)
		digits_part(L, false, r, &reg[2 * r]);
	bool ok = true;
	for (int64_t t = 0; ok && t < L->threads; t++) {
		int64_t lane = t % TLC_STMATRIX_LANES, th[2];
		digits_part(L, true, t, th);
		for (int64_t q = 0; ok && q < pairs; q++) {
			const int64_t *a = &reg[2 * PAIR * q], *b = a + 2;
			int64_t i0 = th[0] + a[0] - lane / ROW_LANES, j0 = th[1] + a[1] - PAIR * (lane % ROW_LANES);
			ok = b[0] == a[0] && b[1] == a[1] + 1 && i0 % DIM == 0 && j0 % DIM == 0;
			if (lane == 0)
				origin[2 * q] = i0, origin[2 * q + 1] = j0;
			else
				ok = ok && origin[2 * q] == i0 && origin[2 * q + 1] == j0;
		}
	}
	return ok;
}

/* The same, remembered per layout (as width 0). */
static bool holds_8x8_blocks(lw_state *st, const tlc_layout *L)
{
	const bool *known = remembered(st, L, 0);
	return known ? *known : remember(st, L, 0, enumerate_8x8_blocks(st->m, L));
}

tlc_stmt *lw_stmatrix(lw_state *st, const lw_nest_view *n, tlc_stmt *inner, int nlets)
{
	tlc_module *m = st->m;
	const tlc_layout *L = n->L;
	if (!st->stmatrix || !tlc_target_has_stmatrix(st->target) || !n->r || n->ndim != 2 || inner->kind != TLC_STMT_SEQ ||
	    inner->u.seq.n != nlets + 1)
		return NULL;
	const tlc_stmt *body = inner->u.seq.items[nlets];
	if (body->kind == TLC_STMT_SEQ && body->u.seq.n == 1)
		body = body->u.seq.items[0];
	if (body->kind != TLC_STMT_STORE)
		return NULL;
	const tlc_buffer *dst = body->u.store.buf;
	const tlc_expr *val = body->u.store.value;
	bool convert = val->kind == TLC_EXPR_CAST && val->dtype == dst->dtype;
	if (convert)
		val = val->u.op.a;
	if (!tlc_buffer_in_shared(dst) || tlc_dtype_bits(dst->dtype) != TLC_STMATRIX_ELEM_BITS ||
	    val->kind != TLC_EXPR_LOAD || val->u.load.buf->scope != TLC_SCOPE_FRAGMENT || val->u.load.n != 1 ||
	    (!convert && val->u.load.buf->dtype != dst->dtype) || n->mins[1] % DIM)
		return NULL;
	/* the source: registers only (no loop variable), in aligned pairs; the
	 * destination: found through the loop variables alone, rows of 8
	 * contiguous, aligned elements */
	int64_t nregs = L->out_shape[0];
	for (int d = 0; d < n->ndim; d++)
		if (lw_expr_uses_var(val->u.load.idx[0], n->vars[d]))
			return NULL;
	for (int i = 0; i < body->u.store.n; i++)
		if (lw_expr_uses_var(body->u.store.idx[i], n->r))
			return NULL;
	vec_ctx pairs_cx = {st, n->r, n->vars[1], PAIR, nregs}, rows_cx = {st, n->r, n->vars[1], DIM, nregs};
	if (!holds_8x8_blocks(st, L) || !side_ok(&rows_cx, dst, body->u.store.n, body->u.store.idx) ||
	    !side_ok(&pairs_cx, val->u.load.buf, 1, val->u.load.idx))
		return NULL;

	/* x blocks a call: as many as divide the warp's blocks, up to the most */
	int64_t pairs = nregs / PAIR, x = TLC_STMATRIX_MAX_TILES;
	while (pairs % x)
		x /= 2;
	tlc_loc loc = body->loc;
	tlc_var *g = lw_fresh(st, "g");
	const tlc_expr *gx = tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, g), tlc_i32(m, x));
	/* lane 8k + i names row i of block g x + k: the element that lane 4i
	 * of the warp holds in its first register of that block */
	const tlc_expr *lane = tlc_binary(m, TLC_EXPR_FLOORMOD, n->t, tlc_i32(m, TLC_STMATRIX_LANES));
	const tlc_expr *row_lane = tlc_binary(m, TLC_EXPR_MUL, tlc_binary(m, TLC_EXPR_FLOORMOD, lane, tlc_i32(m, DIM)),
	                                      tlc_i32(m, ROW_LANES));
	const tlc_expr *t_row = tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_SUB, n->t, lane), row_lane);
	const tlc_expr *k = tlc_binary(m, TLC_EXPR_FLOORMOD, tlc_binary(m, TLC_EXPR_FLOORDIV, lane, tlc_i32(m, DIM)),
	                               tlc_i32(m, x));
	const tlc_expr *r_row = tlc_binary(m, TLC_EXPR_MUL, tlc_binary(m, TLC_EXPR_ADD, gx, k), tlc_i32(m, PAIR));
	const tlc_expr *idx[2];
	tlc_fragment_logical_of(m, L, t_row, r_row, idx);
	tlc_stmt *out = tlc_seq_new(m, loc);
	for (int d = 0; d < 2; d++) {
		const tlc_expr *v = n->mins[d] ? tlc_binary(m, TLC_EXPR_ADD, idx[d], tlc_i32(m, n->mins[d])) : idx[d];
		bool used = false;
		for (int i = 0; i < body->u.store.n; i++)
			used |= lw_expr_uses_var(body->u.store.idx[i], n->vars[d]);
		if (used)
			tlc_seq_append(m, out, tlc_let_new(m, loc, n->vars[d], tlc_simplify_expr(m, v)));
	}
	const tlc_expr *args[1 + TLC_STMATRIX_MAX_TILES];
	args[0] = tlc_load(m, (tlc_buffer *)dst, body->u.store.n, body->u.store.idx);
	for (int64_t b = 0; b < x; b++) {
		const tlc_expr *r0 =
		    tlc_binary(m, TLC_EXPR_MUL, tlc_binary(m, TLC_EXPR_ADD, gx, tlc_i32(m, b)), tlc_i32(m, PAIR));
		args[1 + b] = tlc_load(m, val->u.load.buf, 1, subst_list(st, 1, val->u.load.idx, n->r, r0));
	}
	tlc_seq_append(m, out, tlc_eval_new(m, loc, tlc_call(m, TLC_OP_STMATRIX, TLC_DT_VOID, (int)(1 + x), args, 0, NULL, NULL)));
	return tlc_for_new(m, loc, g, tlc_i32(m, 0), tlc_i32(m, pairs / x), TLC_FOR_UNROLLED, out);
}
