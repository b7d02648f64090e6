/* sim_tile.c - the tile level: one block's statements as one logical
 * thread of control, tile ops by their meaning (doc/sim.md).
 *
 *  - T.copy(src, dst): element by element over the tile the two operands
 *    describe (a corner operand `A[i, j]` takes the other's tile on its
 *    trailing dimensions; extent-1 dimensions are dropped when the ranks
 *    differ); a load outside a global tensor reads zero, a store outside
 *    one is skipped; each value is converted to dst's dtype as T.cast does.
 *  - T.fill / T.clear: every element of the tile (global: inside the tensor).
 *  - T.gemm / T.wgmma_gemm: C[i, j] (+)= sum over k of op(A)[i, k] op(B)[k, j],
 *    the products summed in double and added to C once, rounded to C's dtype.
 *  - T.reduce_*(src, dst, dim, clear): over dimension dim, in double, then
 *    rounded (max/min exactly); clear=False folds dst in.
 *  - T.cumsum(src, dst, dim, reverse): a float32 running sum along dim, as
 *    the CUDA lowering computes it, stored in dst's dtype.
 *  - T.atomic_add(dst, value): element or tile, as a copy that adds.
 *  - T.Parallel, T.Pipelined, T.serial, T.unroll, T.vectorized: plain loops
 *    in order; T.sync_threads, T.fence_proxy_async and T.wait_wgmma do
 *    nothing (one thread of control); T.use_swizzle and T.annotate_layout
 *    change no values.
 *  - T.ws scopes next to each other run concurrently, one thread of control
 *    each, meeting at T.barrier_wait / T.barrier_arrive (sim_task.c).
 * Not modelled at this level (an error naming the statement): thread-level
 * intrinsics (T.mbarrier_expect_tx, ...). */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/target.h>
#include <tlc/tileops.h>

/* ---- tiles ---- */

typedef struct side {
	const tlc_buffer *buf;
	sim_array *a;
	int ndim;
	int64_t begin[TLC_SIM_MAX_DIMS], extent[TLC_SIM_MAX_DIMS];
	bool point[TLC_SIM_MAX_DIMS];
	bool corner;
} side;

static bool read_side(sim *s, const tlc_expr *x, side *out, const char *op, tlc_loc loc)
{
	tlc_tile_operand o;
	const char *why = NULL;
	if (!tlc_tile_operand_from_expr(s->m, x, &o, &why)) {
		sim_fail(s, loc, "T.%s: %s", op, why);
		return false;
	}
	out->buf = o.buf;
	out->a = sim_array_of(s, o.buf, loc);
	if (!out->a)
		return false;
	if (o.ndim > TLC_SIM_MAX_DIMS || o.ndim != out->a->ndim) {
		sim_fail(s, loc, "T.%s: '%s' has %d dimensions, the operand %d", op, o.buf->name, out->a->ndim, o.ndim);
		return false;
	}
	out->ndim = o.ndim;
	out->corner = o.corner;
	for (int d = 0; d < o.ndim; d++) {
		out->begin[d] = sim_eval_int(s, o.begin[d], loc);
		out->extent[d] = o.corner ? 1 : sim_eval_int(s, o.extent[d], loc);
		out->point[d] = o.point[d];
	}
	return !s->stop;
}

/* The iterated dimensions of a side: not single indices (and, with
 * drop_ones, not of extent 1). */
static int iterated(const side *x, bool drop_ones, int *dims)
{
	int k = 0;
	for (int d = 0; d < x->ndim; d++)
		if (!x->point[d] && !(drop_ones && x->extent[d] == 1))
			dims[k++] = d;
	return k;
}

/* A corner operand takes the other operand's tile on its trailing dimensions. */
static bool complete_corner(sim *s, side *c, const side *other, const char *op, tlc_loc loc)
{
	int64_t ext[TLC_SIM_MAX_DIMS];
	int k = 0;
	for (int d = 0; d < other->ndim; d++)
		if (!other->point[d])
			ext[k++] = other->extent[d];
	if (k > c->ndim) {
		sim_fail(s, loc, "T.%s: the element operand has fewer dimensions than the other operand's tile", op);
		return false;
	}
	int lead = c->ndim - k;
	for (int d = 0; d < c->ndim; d++) {
		c->point[d] = d < lead;
		c->extent[d] = d < lead ? 1 : ext[d - lead];
	}
	return true;
}

/* Element `idx` of a side's buffer for tile position pos; false when it
 * lies outside a global tensor (*el = -1), or (reported) outside another
 * buffer. */
static bool side_element(sim *s, const side *x, const int *dims, int k, const int64_t *pos, int64_t *el,
                         tlc_loc loc)
{
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < x->ndim; d++)
		idx[d] = x->begin[d];
	for (int j = 0; j < k; j++)
		idx[dims[j]] += pos[j];
	*el = -1;
	if (x->buf->scope == TLC_SCOPE_GLOBAL)
		for (int d = 0; d < x->ndim; d++)
			if (idx[d] < 0 || idx[d] >= x->a->shape[d])
				return false;
	*el = sim_element(s, x->a, x->buf, idx, loc);
	return *el >= 0;
}

/* Advance a tile position (last dimension fastest); false at the end. */
static bool next_pos(int64_t *pos, const int64_t *ext, int k)
{
	for (int j = k - 1; j >= 0; j--) {
		if (++pos[j] < ext[j])
			return true;
		pos[j] = 0;
	}
	return false;
}

static bool tile_empty(const int64_t *ext, int k)
{
	for (int j = 0; j < k; j++)
		if (ext[j] <= 0)
			return true;
	return false;
}

/* dst = src (or dst += src when add) over the tile the two operands describe. */
static void copy_tiles(sim *s, const tlc_expr *src_x, const tlc_expr *dst_x, bool add, const char *op, tlc_loc loc)
{
	side src, dst;
	if (!read_side(s, src_x, &src, op, loc) || !read_side(s, dst_x, &dst, op, loc))
		return;
	if (src.corner && dst.corner) {
		sim_fail(s, loc, "T.%s: at least one operand must be a whole buffer or a region", op);
		return;
	}
	if ((src.corner && !complete_corner(s, &src, &dst, op, loc)) ||
	    (dst.corner && !complete_corner(s, &dst, &src, op, loc)))
		return;
	int sd[TLC_SIM_MAX_DIMS], dd[TLC_SIM_MAX_DIMS];
	int ks = iterated(&src, false, sd), kd = iterated(&dst, false, dd);
	if (ks != kd) {
		ks = iterated(&src, true, sd);
		kd = iterated(&dst, true, dd);
	}
	bool same = ks == kd;
	for (int j = 0; same && j < ks; j++)
		same = src.extent[sd[j]] == dst.extent[dd[j]];
	if (!same) {
		sim_fail(s, loc, "T.%s: the source and destination tiles have different shapes", op);
		return;
	}
	int64_t ext[TLC_SIM_MAX_DIMS], pos[TLC_SIM_MAX_DIMS] = {0};
	for (int j = 0; j < kd; j++)
		ext[j] = dst.extent[dd[j]];
	if (tile_empty(ext, kd))
		return;
	do {
		int64_t se, de;
		bool s_in = side_element(s, &src, sd, ks, pos, &se, loc);
		if (s->stop)
			return;
		bool d_in = side_element(s, &dst, dd, kd, pos, &de, loc);
		if (s->stop)
			return;
		if (!d_in)
			continue; /* a store outside a global tensor is skipped */
		sim_val v = {0, 0};
		if (s_in)
			v = sim_convert(sim_array_get(src.a, se), src.a->dtype, dst.a->dtype);
		else if (add)
			continue;
		sim_array_set(dst.a, de, add ? sim_add(dst.a->dtype, sim_array_get(dst.a, de), v) : v);
	} while (next_pos(pos, ext, kd));
}

static void fill_tile(sim *s, const tlc_expr *dst_x, const tlc_expr *value, const char *op, tlc_loc loc)
{
	side dst;
	if (!read_side(s, dst_x, &dst, op, loc))
		return;
	if (dst.corner) {
		sim_fail(s, loc, "T.%s needs a buffer or a region", op);
		return;
	}
	sim_val v = {0, 0};
	if (value)
		v = sim_convert(sim_eval(s, value, loc), value->dtype, dst.a->dtype);
	int dd[TLC_SIM_MAX_DIMS];
	int kd = iterated(&dst, false, dd);
	int64_t ext[TLC_SIM_MAX_DIMS], pos[TLC_SIM_MAX_DIMS] = {0};
	for (int j = 0; j < kd; j++)
		ext[j] = dst.extent[dd[j]];
	if (s->stop || tile_empty(ext, kd))
		return;
	do {
		int64_t de;
		if (side_element(s, &dst, dd, kd, pos, &de, loc))
			sim_array_set(dst.a, de, v);
		if (s->stop)
			return;
	} while (next_pos(pos, ext, kd));
}

/* ---- gemm ---- */

/* Element (r, c) of a gemm operand's 2-D tile (after its leading indices;
 * lead[nlead], lead[nlead + 1]: the first row and column of its part). */
static sim_val operand_at(const sim_array *a, const int64_t *lead, int nlead, int64_t r, int64_t c)
{
	int64_t e = 0;
	for (int d = 0; d < nlead; d++)
		e = e * a->shape[d] + lead[d];
	e = (e * a->shape[nlead] + r + lead[nlead]) * a->shape[nlead + 1] + c + lead[nlead + 1];
	return sim_array_get(a, e);
}

static bool operand_lead(sim *s, const tlc_gemm_info *g, int k, const sim_array *a, int64_t *lead, tlc_loc loc)
{
	if (a->ndim != g->nlead[k] + 2) {
		sim_fail(s, loc, "T.gemm: operand %c is not a 2-D tile", "AB"[k]);
		return false;
	}
	for (int d = 0; d < g->nlead[k]; d++) {
		lead[d] = sim_eval_int(s, g->lead[k][d].begin, loc);
		if (lead[d] < 0 || lead[d] >= a->shape[d]) {
			sim_fail(s, loc, "T.gemm: operand %c's index %lld is outside dimension %d of '%s'", "AB"[k],
			         (long long)lead[d], d, (k ? g->B : g->A)->name);
			return false;
		}
	}
	/* the part of the tile it takes: starts, then its extent inside */
	int64_t ext[2] = {k ? (g->trans_B ? g->N : g->K) : (g->trans_A ? g->K : g->M),
	                  k ? (g->trans_B ? g->K : g->N) : (g->trans_A ? g->M : g->K)};
	for (int d = 0; d < 2; d++) {
		int n = g->nlead[k] + d;
		lead[n] = g->sub[k] ? sim_eval_int(s, g->off[k][d], loc) : 0;
		if (!s->stop && (lead[n] < 0 || lead[n] + ext[d] > a->shape[n])) {
			sim_fail(s, loc, "T.gemm: operand %c's part [%lld, %lld) is outside dimension %d of '%s'",
			         "AB"[k], (long long)lead[n], (long long)(lead[n] + ext[d]), n,
			         (k ? g->B : g->A)->name);
			return false;
		}
	}
	return !s->stop;
}

static void gemm(sim *s, const tlc_expr *call, tlc_loc loc)
{
	tlc_gemm_info g;
	const char *why = NULL;
	if (!tlc_gemm_decode(call, &g, &why)) {
		sim_fail(s, loc, "T.gemm: %s", why);
		return;
	}
	sim_array *A = sim_array_of(s, g.A, loc), *B = sim_array_of(s, g.B, loc), *C = sim_array_of(s, g.C, loc);
	int64_t la[TLC_SIM_MAX_DIMS], lb[TLC_SIM_MAX_DIMS];
	if (!A || !B || !C || !operand_lead(s, &g, 0, A, la, loc) || !operand_lead(s, &g, 1, B, lb, loc))
		return;
	bool ints = !tlc_dtype_is_float(A->dtype) && !tlc_dtype_is_float(B->dtype) && !tlc_dtype_is_float(C->dtype);
	if (!ints && (!tlc_dtype_is_float(A->dtype) || !tlc_dtype_is_float(B->dtype) || !tlc_dtype_is_float(C->dtype))) {
		sim_fail(s, loc, "T.gemm mixing integer and float operands is not modelled by the simulator");
		return;
	}
	if (C->ndim != 2 || C->shape[0] != g.M || C->shape[1] != g.N) {
		sim_fail(s, loc, "T.gemm: the accumulator '%s' is not %lldx%lld", g.C->name, (long long)g.M, (long long)g.N);
		return;
	}
	/* float32 operands on a target whose matrix instruction for them reads
	 * TF32 (NVIDIA tensor cores): what the instruction multiplies */
	const tlc_matrix_inst *x =
	    tlc_target_find_matrix(tlc_module_target_info(s->m), g.A->dtype, g.B->dtype, g.C->dtype, 0);
	bool tf32_a = x && (x->a_from & TLC_MMA_READS_TF32), tf32_b = x && (x->b_from & TLC_MMA_READS_TF32);
	/* floats: the products summed in float64, rounded once; integers:
	 * exactly, wrapping to the accumulator's type as the hardware does */
	for (int64_t i = 0; i < g.M; i++)
		for (int64_t j = 0; j < g.N; j++) {
			double acc = 0.0;
			int64_t iacc = 0;
			for (int64_t k = 0; k < g.K; k++) {
				sim_val a = g.trans_A ? operand_at(A, la, g.nlead[0], k, i) : operand_at(A, la, g.nlead[0], i, k);
				sim_val b = g.trans_B ? operand_at(B, lb, g.nlead[1], j, k) : operand_at(B, lb, g.nlead[1], k, j);
				if (tf32_a)
					a.f = tlc_tf32_truncate((float)a.f);
				if (tf32_b)
					b.f = tlc_tf32_truncate((float)b.f);
				acc += a.f * b.f;
				iacc += a.i * b.i;
			}
			sim_val c = sim_array_get(C, i * g.N + j);
			if (ints)
				c.i = sim_wrap_int(C->dtype, g.clear_accum ? iacc : c.i + iacc);
			else
				c.f = tlc_sim_round(C->dtype, g.clear_accum ? acc : c.f + acc);
			sim_array_set(C, i * g.N + j, c);
		}
}

/* ---- reductions and scans ---- */

static const tlc_buffer *whole_buffer(sim *s, const tlc_expr *x, const char *op, tlc_loc loc)
{
	if (x->kind == TLC_EXPR_BUF)
		return x->u.buf;
	sim_fail(s, loc, "T.%s: operands are whole buffers", op);
	return NULL;
}

static bool int_arg(sim *s, const tlc_expr *call, int pos, const char *kw, int64_t dflt, int64_t *out, tlc_loc loc)
{
	const tlc_expr *x = pos < call->u.call.nargs ? call->u.call.args[pos] : kw ? tlc_call_kw(call, kw) : NULL;
	*out = x ? sim_eval_int(s, x, loc) : dflt;
	return !s->stop;
}

/* An integer reduction: exact, each sum wrapping to the result's type as
 * the threads' additions do (an absolute value wraps as the source's
 * type's negation does); max and min pick an element. */
static void reduce_ints(sim *s, tlc_op_id op, sim_array *S, sim_array *D, int64_t len, int64_t inner, bool clear)
{
	(void)s;
	bool is_sum = op == TLC_OP_REDUCE_SUM || op == TLC_OP_REDUCE_ABSSUM;
	for (int64_t o = 0; o < D->numel; o++) {
		int64_t base = o / inner * len * inner + o % inner;
		int64_t acc = 0;
		for (int64_t k = 0; k < len; k++) {
			int64_t x = sim_array_get(S, base + k * inner).i;
			if (op == TLC_OP_REDUCE_ABSSUM || op == TLC_OP_REDUCE_ABSMAX)
				x = sim_wrap_int(S->dtype, x < 0 ? (int64_t)(0 - (uint64_t)x) : x);
			if (k == 0 && !is_sum)
				acc = x;
			else if (op == TLC_OP_REDUCE_MAX || op == TLC_OP_REDUCE_ABSMAX)
				acc = x > acc ? x : acc;
			else if (op == TLC_OP_REDUCE_MIN)
				acc = x < acc ? x : acc;
			else
				acc = sim_wrap_int(D->dtype, (int64_t)((uint64_t)acc + (uint64_t)x));
		}
		if (!clear) {
			int64_t old = sim_array_get(D, o).i;
			if (op == TLC_OP_REDUCE_MAX || op == TLC_OP_REDUCE_ABSMAX)
				acc = old > acc ? old : acc;
			else if (op == TLC_OP_REDUCE_MIN)
				acc = old < acc ? old : acc;
			else
				acc = (int64_t)((uint64_t)acc + (uint64_t)old);
		}
		sim_val v = {0, sim_wrap_int(D->dtype, acc)};
		sim_array_set(D, o, v);
	}
}

static void reduce(sim *s, const tlc_expr *call, tlc_loc loc)
{
	tlc_op_id op = call->u.call.op;
	const char *name = tlc_op_get(s->ctx, op)->name;
	const tlc_buffer *sb = whole_buffer(s, call->u.call.args[0], name, loc);
	const tlc_buffer *db = sb ? whole_buffer(s, call->u.call.args[1], name, loc) : NULL;
	int64_t dim, clear;
	if (!db || !int_arg(s, call, 2, "dim", -1, &dim, loc) || !int_arg(s, call, 3, "clear", 1, &clear, loc))
		return;
	sim_array *S = sim_array_of(s, sb, loc), *D = sim_array_of(s, db, loc);
	if (!S || !D)
		return;
	bool ints = tlc_dtype_is_int(S->dtype) && tlc_dtype_is_int(D->dtype);
	if (!ints && (!tlc_dtype_is_float(S->dtype) || !tlc_dtype_is_float(D->dtype))) {
		sim_fail(s, loc, "T.%s mixing integers and floats (or of booleans) is not modelled by the simulator", name);
		return;
	}
	if (dim < 0)
		dim += S->ndim;
	/* a 1-D source reduces into a (1,) result */
	bool scalar = S->ndim == 1 && D->ndim == 1 && D->shape[0] == 1 && dim == 0;
	bool fits = dim >= 0 && dim < S->ndim && D->ndim == S->ndim - 1;
	for (int d = 0, e = 0; fits && !scalar && d < S->ndim; d++)
		if (d != dim)
			fits = D->shape[e++] == S->shape[d];
	if (!fits && !scalar) {
		sim_fail(s, loc, "T.%s: '%s' must have the shape of '%s' without dimension %lld", name, db->name, sb->name,
		         (long long)dim);
		return;
	}
	int64_t len = S->shape[dim], inner = 1;
	for (int d = (int)dim + 1; d < S->ndim; d++)
		inner *= S->shape[d];
	if (ints) {
		reduce_ints(s, op, S, D, len, inner, clear != 0);
		return;
	}
	for (int64_t o = 0; o < D->numel; o++) {
		int64_t base = o / inner * len * inner + o % inner;
		double acc = 0.0;
		for (int64_t k = 0; k < len; k++) {
			double x = sim_array_get(S, base + k * inner).f;
			if (op == TLC_OP_REDUCE_ABSSUM || op == TLC_OP_REDUCE_ABSMAX)
				x = fabs(x);
			if (k == 0 && op != TLC_OP_REDUCE_SUM && op != TLC_OP_REDUCE_ABSSUM)
				acc = x;
			else if (op == TLC_OP_REDUCE_MAX || op == TLC_OP_REDUCE_ABSMAX)
				acc = fmax(acc, x);
			else if (op == TLC_OP_REDUCE_MIN)
				acc = fmin(acc, x);
			else
				acc += x;
		}
		if (!clear) {
			double old = sim_array_get(D, o).f;
			if (op == TLC_OP_REDUCE_MAX || op == TLC_OP_REDUCE_ABSMAX)
				acc = fmax(acc, old);
			else if (op == TLC_OP_REDUCE_MIN)
				acc = fmin(acc, old);
			else
				acc += old;
		}
		sim_val v = {tlc_sim_round(D->dtype, acc), 0};
		sim_array_set(D, o, v);
	}
}

static void cumsum(sim *s, const tlc_expr *call, tlc_loc loc)
{
	const tlc_buffer *sb = whole_buffer(s, call->u.call.args[0], "cumsum", loc);
	const tlc_buffer *db = sb && call->u.call.nargs > 1 ? whole_buffer(s, call->u.call.args[1], "cumsum", loc) : sb;
	int64_t dim, reverse;
	if (!db || !int_arg(s, call, 2, "dim", 0, &dim, loc) || !int_arg(s, call, 3, "reverse", 0, &reverse, loc))
		return;
	sim_array *S = sim_array_of(s, sb, loc), *D = sim_array_of(s, db, loc);
	if (!S || !D)
		return;
	if (!tlc_dtype_is_float(S->dtype) || !tlc_dtype_is_float(D->dtype)) {
		sim_fail(s, loc, "T.cumsum on integers is not modelled by the simulator");
		return;
	}
	if (dim < 0)
		dim += S->ndim;
	bool fits = dim >= 0 && dim < S->ndim && D->ndim == S->ndim;
	for (int d = 0; fits && d < S->ndim; d++)
		fits = D->shape[d] == S->shape[d];
	if (!fits) {
		sim_fail(s, loc, "T.cumsum: '%s' and '%s' need one shape and dim inside it", sb->name, db->name);
		return;
	}
	int64_t len = S->shape[dim], inner = 1;
	for (int d = (int)dim + 1; d < S->ndim; d++)
		inner *= S->shape[d];
	for (int64_t o = 0; o < S->numel / (len ? len : 1); o++) {
		int64_t base = o / inner * len * inner + o % inner;
		double run = 0.0;
		for (int64_t k = 0; k < len; k++) {
			int64_t e = base + (reverse ? len - 1 - k : k) * inner;
			run = tlc_sim_round(TLC_DT_FLOAT32, run + sim_array_get(S, e).f);
			sim_val v = {tlc_sim_round(D->dtype, run), 0};
			sim_array_set(D, e, v);
		}
	}
}

/* The element an atomic of one element updates (its array in *a), or -1
 * when there is none: a masked destination drops the atomic, as a store. */
static int64_t atomic_element(sim *s, const tlc_expr *dst, const char *name, tlc_loc loc, sim_array **a)
{
	*a = sim_array_of(s, dst->u.load.buf, loc);
	if (!*a || dst->u.load.n != (*a)->ndim)
		return -1;
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < (*a)->ndim; d++)
		idx[d] = sim_eval_int(s, dst->u.load.idx[d], loc);
	if (s->stop || sim_bounds_masked(s, *a, dst->u.load.buf, idx, name, loc))
		return -1;
	return sim_element(s, *a, dst->u.load.buf, idx, loc);
}

/* An element atomic's keyword old=: where the element's value before the
 * update goes (return_prev=True); a dropped atomic leaves it as it is. */
static void keep_old(sim *s, const tlc_expr *call, sim_val cur, tlc_dtype t, tlc_loc loc)
{
	const tlc_expr *old = tlc_call_kw(call, "old");
	if (!old || old->kind != TLC_EXPR_LOAD)
		return;
	sim_array *a = sim_array_of(s, old->u.load.buf, loc);
	if (!a || old->u.load.n != a->ndim)
		return;
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < a->ndim; d++)
		idx[d] = sim_eval_int(s, old->u.load.idx[d], loc);
	int64_t e = s->stop ? -1 : sim_element(s, a, old->u.load.buf, idx, loc);
	if (e >= 0 && !s->stop)
		sim_array_set(a, e, sim_convert(cur, t, a->dtype));
}

static void atomic_add(sim *s, const tlc_expr *call, tlc_loc loc)
{
	const tlc_expr *dst = call->u.call.args[0], *val = call->u.call.args[1];
	if (dst->kind != TLC_EXPR_LOAD) {
		copy_tiles(s, val, dst, true, "atomic_add", loc);
		return;
	}
	sim_array *a;
	int64_t e = atomic_element(s, dst, "atomic_add", loc, &a);
	if (e < 0)
		return;
	sim_val v = sim_convert(sim_eval(s, val, loc), val->dtype, a->dtype);
	sim_val cur = sim_array_get(a, e);
	sim_array_set(a, e, sim_add(a->dtype, cur, v));
	keep_old(s, call, cur, a->dtype, loc);
}

/* T.atomic_max / T.atomic_min of one element: the value replaces the
 * element when it beats it (never when either is a NaN, as the targets'
 * compare-and-swap loop); a masked destination drops it, as a store. */
static void atomic_minmax(sim *s, const tlc_expr *call, tlc_loc loc)
{
	const tlc_expr *dst = call->u.call.args[0], *val = call->u.call.args[1];
	bool max = call->u.call.op == TLC_OP_ATOMIC_MAX;
	const char *name = max ? "atomic_max" : "atomic_min";
	if (dst->kind != TLC_EXPR_LOAD) {
		sim_fail(s, loc, "T.%s takes one element", name);
		return;
	}
	sim_array *a;
	int64_t e = atomic_element(s, dst, name, loc, &a);
	if (e < 0)
		return;
	sim_val v = sim_convert(sim_eval(s, val, loc), val->dtype, a->dtype);
	sim_val cur = sim_array_get(a, e);
	bool beats;
	if (tlc_dtype_is_float(a->dtype))
		beats = max ? v.f > cur.f : v.f < cur.f;
	else if (a->dtype == TLC_DT_UINT64)
		beats = max ? (uint64_t)v.i > (uint64_t)cur.i : (uint64_t)v.i < (uint64_t)cur.i;
	else
		beats = max ? v.i > cur.i : v.i < cur.i;
	if (beats)
		sim_array_set(a, e, v);
	keep_old(s, call, cur, a->dtype, loc);
}

/* ---- statements ---- */

static void call_stmt(sim *s, const tlc_stmt *st)
{
	const tlc_expr *c = st->u.eval.call;
	const char *name = tlc_op_get(s->ctx, c->u.call.op)->name;
	switch (c->u.call.op) {
	case TLC_OP_COPY:
	case TLC_OP_TMA_COPY: copy_tiles(s, c->u.call.args[0], c->u.call.args[1], false, name, st->loc); return;
	case TLC_OP_FILL: fill_tile(s, c->u.call.args[0], c->u.call.args[1], name, st->loc); return;
	case TLC_OP_CLEAR: fill_tile(s, c->u.call.args[0], NULL, name, st->loc); return;
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: gemm(s, c, st->loc); return;
	case TLC_OP_REDUCE_MAX:
	case TLC_OP_REDUCE_MIN:
	case TLC_OP_REDUCE_SUM:
	case TLC_OP_REDUCE_ABSSUM:
	case TLC_OP_REDUCE_ABSMAX: reduce(s, c, st->loc); return;
	case TLC_OP_CUMSUM: cumsum(s, c, st->loc); return;
	case TLC_OP_LOOP_BREAK: s->loop_flow = SIM_FLOW_BREAK; return;
	case TLC_OP_LOOP_CONTINUE: s->loop_flow = SIM_FLOW_CONTINUE; return;
	case TLC_OP_ATOMIC_ADD: atomic_add(s, c, st->loc); return;
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN: atomic_minmax(s, c, st->loc); return;
	case TLC_OP_RNG_INIT: sim_rng_init(s, c, st->loc); return;
	case TLC_OP_ANNOTATE_LAYOUT:
	case TLC_OP_ANNOTATE_SAFE_VALUE: /* read once before the run (sim_run.c) */
	case TLC_OP_USE_SWIZZLE:
	case TLC_OP_PRINT:
	case TLC_OP_SYNC_THREADS:
	case TLC_OP_FENCE_PROXY_ASYNC:
	case TLC_OP_WAIT_WGMMA: return; /* no values change for one thread of control */
	case TLC_OP_BARRIER_ARRIVE:
	case TLC_OP_BARRIER_WAIT:
	case TLC_OP_MBARRIER_ARRIVE:
	case TLC_OP_MBARRIER_WAIT_PARITY:
	case TLC_OP_CP_ASYNC_ARRIVE_NOINC: sim_mbarrier_tile(s, st); return;
	case TLC_OP_CP_ASYNC_COMMIT:
	case TLC_OP_CP_ASYNC_WAIT: return; /* the tile level copies synchronously: done already */
	default:
		sim_fail(s, st->loc, "T.%s is not modelled by the tile-level simulator", name);
		return;
	}
}

/* T.make_tensor at a run-time address: tlc-sim's memory is its arrays, not
 * one address space, so an address names one by identity (doc/sim.md):
 * tensor parameter k of the kernel (counting from 0, scalars included)
 * starts at address (k + 1) << SIM_ADDR_SHIFT, and a pointer table or a
 * T.ptr parameter holds such addresses.  a becomes a view of the bytes at
 * addr; false (reported) when addr is no tensor's or a does not fit. */
#define SIM_ADDR_SHIFT 40
static bool place_at_address(sim *s, sim_array *a, int64_t addr, const tlc_buffer *b, tlc_loc loc)
{
	int64_t k = (int64_t)((uint64_t)addr >> SIM_ADDR_SHIFT) - 1;
	int64_t off = (int64_t)((uint64_t)addr & ((UINT64_C(1) << SIM_ADDR_SHIFT) - 1));
	const sim_array *src = NULL;
	if (k >= 0 && k < s->f->nparams && s->f->params[k].kind == TLC_PARAM_TENSOR)
		src = s->arrays[s->f->params[k].buf->id];
	int64_t esize = tlc_dtype_bits(b->dtype) / 8;
	if (!src) {
		sim_fail(s, loc, "T.make_tensor '%s' at address %lld (0x%llx): no tensor of the run is there (in "
		         "tlc-sim, tensor parameter k starts at (k + 1) << %d: doc/sim.md)", b->name, (long long)addr,
		         (unsigned long long)addr, SIM_ADDR_SHIFT);
		return false;
	}
	if ((esize > 0 && off % esize) || off + a->nbytes > src->nbytes) {
		sim_fail(s, loc, "T.make_tensor '%s' (%lld bytes at byte %lld of '%s') does not fit in '%s' (%lld bytes) "
		         "or is misaligned", b->name, (long long)a->nbytes, (long long)off,
		         s->f->params[k].buf->name, s->f->params[k].buf->name, (long long)src->nbytes);
		return false;
	}
	free(a->data);
	a->data = src->data + off;
	a->view = true;
	return true;
}

void sim_alloc(sim *s, const tlc_stmt *st)
{
	const tlc_buffer *b = st->u.alloc.buf;
	if (b->scope == TLC_SCOPE_BARRIER) {
		sim_mbar_alloc(s, st);
		return;
	}
	if (b->ndim > TLC_SIM_MAX_DIMS) {
		sim_fail(s, st->loc, "'%s' has more than %d dimensions", b->name, TLC_SIM_MAX_DIMS);
		return;
	}
	int64_t shape[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < b->ndim; d++)
		shape[d] = sim_eval_int(s, b->shape[d], st->loc);
	sim_array *a = tlc_xmalloc(sizeof(*a));
	if (s->stop || !sim_array_init(a, b->dtype, b->ndim, shape)) {
		free(a);
		if (!s->stop)
			sim_fail(s, st->loc, "cannot allocate '%s'", b->name);
		return;
	}
	if (b->base) {
		int64_t addr = sim_eval_int(s, b->base, st->loc);
		if (s->stop || !place_at_address(s, a, addr, b, st->loc)) {
			sim_array_free(a);
			free(a);
			return;
		}
	} else if (b->alias_of) {
		sim_array *src = sim_array_of(s, b->alias_of, st->loc);
		if (!src || a->nbytes > src->nbytes) {
			sim_array_free(a);
			free(a);
			if (src)
				sim_fail(s, st->loc, "T.view '%s' is larger than '%s'", b->name, b->alias_of->name);
			return;
		}
		free(a->data);
		a->data = src->data;
		a->view = true;
	} else if (tlc_dtype_is_float(b->dtype) && b->scope != TLC_SCOPE_VAR) {
		/* memory never written reads as NaN, so that reading it shows */
		sim_val nan = {NAN, 0};
		for (int64_t e = 0; e < a->numel; e++)
			sim_array_set(a, e, nan);
	}
	if (b->scope == TLC_SCOPE_VAR && b->ninit > 0)
		sim_array_set(a, 0, sim_convert(sim_eval(s, b->init[0], st->loc), b->init[0]->dtype, b->dtype));
	sim_set_array(s, b, a);
}

void sim_store(sim *s, const tlc_stmt *st)
{
	const tlc_buffer *b = st->u.store.buf;
	sim_array *a = sim_array_of(s, b, st->loc);
	if (!a)
		return;
	if (st->u.store.n != a->ndim) {
		sim_fail(s, st->loc, "'%s' has %d dimensions but is indexed with %d", b->name, a->ndim, st->u.store.n);
		return;
	}
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < a->ndim; d++)
		idx[d] = sim_eval_int(s, st->u.store.idx[d], st->loc);
	if (!s->stop && sim_bounds_masked(s, a, b, idx, "store", st->loc))
		return; /* dropped, its value never computed (as under a guard) */
	sim_val v = sim_convert(sim_eval(s, st->u.store.value, st->loc), st->u.store.value->dtype, b->dtype);
	int64_t e = s->stop ? -1 : sim_element(s, a, b, idx, st->loc);
	if (e >= 0 && a->shadow)
		sim_touch(s, a, b, e, 1, true, st->loc);
	if (e >= 0 && !s->stop)
		sim_array_set(a, e, v);
}

static void loop(sim *s, const tlc_stmt *st)
{
	if (st->u.loop.kind == TLC_FOR_THREAD) {
		sim_fail(s, st->loc, "a loop bound to a thread index is thread-level IR, not modelled by the tile-level simulator");
		return;
	}
	int64_t lo = sim_eval_int(s, st->u.loop.min, st->loc), n = sim_eval_int(s, st->u.loop.extent, st->loc);
	for (int64_t i = 0; i < n && !s->stop; i++) {
		sim_val v = {0, sim_wrap_int(st->u.loop.var->dtype, lo + i)};
		sim_bind(s, st->u.loop.var, v);
		sim_exec(s, st->u.loop.body);
		int flow = s->loop_flow;
		s->loop_flow = SIM_FLOW_NORMAL; /* this loop's break or continue is done */
		if (flow == SIM_FLOW_BREAK)
			break;
	}
	sim_unbind(s, st->u.loop.var);
}

void sim_exec(sim *s, const tlc_stmt *st)
{
	if (!st || s->stop)
		return;
	switch (st->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < st->u.seq.n && !s->stop;) {
			/* T.ws scopes next to each other run concurrently */
			int group = tlc_ws_group_len(st->u.seq.items, st->u.seq.n, i);
			if (group) {
				sim_run_ws(s, (const tlc_stmt *const *)&st->u.seq.items[i], group, NULL);
				i += group;
			} else {
				sim_exec(s, st->u.seq.items[i++]);
			}
			if (s->loop_flow != SIM_FLOW_NORMAL)
				return; /* the rest of the iteration is skipped */
		}
		return;
	case TLC_STMT_FOR: loop(s, st); return;
	case TLC_STMT_IF: {
		sim_val c = sim_eval(s, st->u.if_.cond, st->loc);
		bool take = tlc_dtype_is_float(st->u.if_.cond->dtype) ? c.f != 0.0 : c.i != 0;
		if (!s->stop)
			sim_exec(s, take ? st->u.if_.then_s : st->u.if_.else_s);
		return;
	}
	case TLC_STMT_LET: {
		sim_val v = sim_convert(sim_eval(s, st->u.let.value, st->loc), st->u.let.value->dtype, st->u.let.var->dtype);
		sim_bind(s, st->u.let.var, v);
		return;
	}
	case TLC_STMT_STORE: sim_store(s, st); return;
	case TLC_STMT_EVAL: call_stmt(s, st); return;
	case TLC_STMT_ALLOC: sim_alloc(s, st); return;
	case TLC_STMT_SCOPE:
		if (tlc_stmt_is_ws(st)) {
			sim_run_ws(s, &st, 1, NULL);
			return;
		}
		sim_fail(s, st->loc, "T.%s is not modelled by the tile-level simulator",
		         tlc_op_get(s->ctx, st->u.scope.call->u.call.op)->name);
		return;
	case TLC_STMT_ATTR: sim_exec(s, st->u.attr.body); return;
	}
}
