/* lower_gemm.c - T.gemm on the target's warp-level matrix instruction.
 *
 * A gemm becomes one T.mma_gemm call that the target turns into a call of
 * its device helper (backends/cuda/device/tlc_gemm.cuh).  Everything the
 * helper must know is decided here and written on the call: the warp grid
 * (tlc_gemm_plan_for, the plan layout-inference used for the accumulator),
 * the shared operands' layouts (the helper addresses them through these) and
 * whether ldmatrix may read them: only when every 8-element run along the
 * stored rows is contiguous and 16-byte aligned in the physical layout
 * (decided on physical addresses, as every vectorization is). */
#include <string.h>

#include <tlc/access.h>

#include "lower.h"

/* The memory layout of one 2-D tile of gemm operand b, whose first nlead
 * dimensions select the tile (the versions of a pipelined buffer share one
 * swizzle, so every tile has the same layout). */
static const tlc_layout *operand_layout(lw_state *st, const tlc_buffer *b, int nlead)
{
	int64_t shape[2];
	if (b->ndim != nlead + 2 || !tlc_expr_as_int(b->shape[nlead], &shape[0]) ||
	    !tlc_expr_as_int(b->shape[nlead + 1], &shape[1]))
		return NULL;
	const tlc_layout *l = b->layout;
	if (!l || nlead == 0)
		return l ? l : tlc_layout_row_major(st->m, 2, shape);
	if (l->kind == TLC_LAYOUT_SWIZZLED)
		return tlc_layout_swizzled(st->m, 2, shape, l->elem, l->swizzle, NULL);
	return NULL;
}

/* Whether x is a multiple of q (a compile-time fact). */
static bool multiple_of(lw_state *st, const tlc_expr *x, int64_t q)
{
	int64_t v;
	const tlc_expr *mod = tlc_binary(st->m, TLC_EXPR_FLOORMOD, x, tlc_i32(st->m, q));
	const tlc_expr *r = tlc_simplify_expr(st->m, mod);
	return tlc_expr_as_int(r, &v) && v == 0;
}

/* The layout of operand k of g as the target addresses it from its first
 * element: its 2-D tile's, or, for a part of the tile (sub), the part's
 * when the part is itself a tile of that layout: with a swizzle of blocks
 * of bw columns, all rows and whole blocks (the blocks lie one after
 * another), or the rows from a multiple of 8 of a tile one block wide (the
 * swizzle repeats every 8 rows); row-major, whole rows.  NULL and an error
 * otherwise. */
static const tlc_layout *operand_part_layout(lw_state *st, const tlc_stmt *s, const tlc_gemm_info *g,
                                             int k)
{
	const tlc_buffer *b = k ? g->B : g->A;
	const tlc_layout *l = operand_layout(st, b, g->nlead[k]);
	if (!g->sub[k] || !l)
		return l;
	bool tr = k ? g->trans_B : g->trans_A;
	int64_t rows = k ? (tr ? g->N : g->K) : (tr ? g->K : g->M);
	int64_t cols = k ? (tr ? g->K : g->N) : (tr ? g->M : g->K);
	int64_t full_r = l->shape[0], full_c = l->shape[1];
	int64_t part[2] = {rows, cols};
	const tlc_expr *r0 = g->off[k][0], *c0 = g->off[k][1];
	if (l->kind == TLC_LAYOUT_SWIZZLED) {
		int64_t bw = tlc_swizzle_get(l->swizzle)->bytes / (tlc_dtype_bits(b->dtype) / 8);
		bool col_part = rows == full_r && multiple_of(st, r0, full_r) && multiple_of(st, c0, bw) && cols % bw == 0;
		bool row_part = cols == full_c && full_c == bw && multiple_of(st, c0, full_c) && multiple_of(st, r0, 8);
		if (col_part || row_part)
			return tlc_layout_swizzled(st->m, 2, part, l->elem, l->swizzle, NULL);
	} else if (l->kind == TLC_LAYOUT_MEMORY && tlc_layout_equal(l, tlc_layout_row_major(st->m, 2, l->shape))) {
		if (cols == full_c && multiple_of(st, c0, full_c))
			return tlc_layout_row_major(st->m, 2, part);
	}
	tlc_buf d;
	tlc_buf_init(&d);
	tlc_layout_describe(&d, l);
	lw_error(st, s->loc,
	         "T.gemm: the part [%lld rows, %lld columns] of operand '%s' is not a tile its layout (%s) lets the "
	         "target %s address: a part must take all rows and whole swizzle blocks of columns, or (a tile one "
	         "swizzle block or one row wide) whole rows from a multiple of 8; give the operand a leading "
	         "dimension per part instead (%s[k, :, :])",
	         (long long)rows, (long long)cols, b->name, tlc_buf_str(&d), tlc_module_target_name(st->m), b->name);
	tlc_buf_free(&d);
	return NULL;
}

/* The operand the lowered call takes: the buffer, or the first element of
 * the selected tile (the target takes its address), or of its part. */
static const tlc_expr *operand_base(lw_state *st, const tlc_gemm_info *g, int k)
{
	tlc_module *m = st->m;
	tlc_buffer *b = k ? g->B : g->A;
	int nlead = g->nlead[k];
	if (nlead == 0 && !g->sub[k])
		return tlc_buf_ref(m, b);
	const tlc_expr *idx[TLC_TILE_MAX_DIMS];
	for (int d = 0; d < b->ndim; d++)
		idx[d] = d < nlead ? g->lead[k][d].begin : g->sub[k] ? g->off[k][d - nlead] : tlc_i32(m, 0);
	return tlc_load(m, b, b->ndim, idx);
}

/* T.Parallel over C with C's layout, storing zero. */
static tlc_stmt *clear_nest(lw_state *st, tlc_loc loc, tlc_buffer *C)
{
	tlc_var *i = lw_fresh(st, "i"), *j = lw_fresh(st, "j");
	const tlc_expr *idx[2] = {tlc_var_ref(st->m, i), tlc_var_ref(st->m, j)};
	tlc_stmt *body = tlc_store_new(st->m, loc, C, 2, idx, tlc_float(st->m, C->dtype, 0.0));
	tlc_stmt *inner = tlc_for_new(st->m, loc, j, tlc_i32(st->m, 0), C->shape[1], TLC_FOR_PARALLEL, body);
	tlc_stmt *outer = tlc_for_new(st->m, loc, i, tlc_i32(st->m, 0), C->shape[0], TLC_FOR_PARALLEL, inner);
	outer->u.loop.loop_layout = tlc_layout_to_expr(st->m, C->layout);
	return outer;
}

/* The accumulators of asynchronous gemms issued so far (T.wait_wgmma pins
 * them after it waits). */
static void remember_accumulator(lw_state *st, tlc_buffer *C)
{
	for (int i = 0; i < st->nwgmma_acc; i++)
		if (st->wgmma_acc[i] == C)
			return;
	if (st->nwgmma_acc < LW_MAX_WGMMA_ACC)
		st->wgmma_acc[st->nwgmma_acc++] = C;
}

static tlc_stmt *fence_operand(lw_state *st, tlc_loc loc, tlc_buffer *C)
{
	const tlc_expr *arg = tlc_buf_ref(st->m, C);
	return tlc_eval_new(st->m, loc,
	                    tlc_call(st->m, TLC_OP_WARPGROUP_FENCE_OPERAND, TLC_DT_VOID, 1, &arg, 0, NULL, NULL));
}

static tlc_stmt *wait_wgmma(lw_state *st, tlc_loc loc, int64_t n)
{
	const tlc_expr *arg = tlc_i32(st->m, n);
	return tlc_eval_new(st->m, loc, tlc_call(st->m, TLC_OP_WAIT_WGMMA, TLC_DT_VOID, 1, &arg, 0, NULL, NULL));
}

/* A gemm on warpgroup matrix instructions (WGMMA): one T.wgmma_issue that
 * issues and commits the group; T.gemm then waits for it at once, and the
 * fence on C comes after the wait (seed 000b: a fence before the wait lets
 * the compiler read C while the tensor cores still write it).  T.wgmma_gemm
 * leaves the wait to the user's T.wait_wgmma(n). */
static tlc_stmt *lower_wgmma(lw_state *st, const tlc_stmt *s, const tlc_gemm_info *g, const tlc_gemm_plan *plan)
{
	tlc_module *m = st->m;
	const tlc_expr *call = s->u.eval.call;
	const char *names[16];
	const tlc_expr *vals[16];
	int nk = 0;
#define KW(name, value) (names[nk] = tlc_intern(m, name), vals[nk++] = (value))
	KW("M", tlc_i32(m, g->M));
	KW("N", tlc_i32(m, g->N));
	KW("K", tlc_i32(m, g->K));
	KW("wg_m", tlc_i32(m, plan->warp_m));
	KW("wg_n", tlc_i32(m, plan->warp_n));
	KW("transpose_A", tlc_bool(m, g->trans_A));
	KW("transpose_B", tlc_bool(m, g->trans_B));
	const tlc_buffer *ops[2] = {g->A, g->B};
	for (int k = 0; k < 2; k++) {
		if (!tlc_buffer_in_shared(ops[k]))
			continue;
		const tlc_layout *l = operand_part_layout(st, s, g, k);
		if (st->errors)
			return NULL;
		if (!l || l->kind != TLC_LAYOUT_SWIZZLED) {
			lw_error(st, s->loc, "T.gemm: %s reads '%s' through a descriptor, which needs a swizzled layout",
			         plan->inst->name, ops[k]->name);
			return NULL;
		}
		KW(k ? "layout_B" : "layout_A", tlc_layout_to_expr(m, l));
	}
	KW("thread_lo", tlc_i32(m, g->C->layout->thread_lo));
	KW("accumulate", tlc_bool(m, !g->clear_accum));
	KW("inst", tlc_str(m, plan->inst->name));
#undef KW
	const tlc_expr *args[3] = {operand_base(st, g, 0), operand_base(st, g, 1), call->u.call.args[2]};
	tlc_stmt *out = tlc_seq_new(m, s->loc);
	tlc_seq_append(m, out,
	               tlc_eval_new(m, s->loc, tlc_call(m, TLC_OP_WGMMA_ISSUE, TLC_DT_VOID, 3, args, nk, names, vals)));
	if (call->u.call.op == TLC_OP_WGMMA_GEMM) {
		remember_accumulator(st, g->C);
		return out;
	}
	tlc_seq_append(m, out, wait_wgmma(st, s->loc, 0));
	tlc_seq_append(m, out, fence_operand(st, s->loc, g->C));
	return out;
}

tlc_stmt *lw_lower_wait_wgmma(lw_state *st, const tlc_stmt *s)
{
	int64_t n;
	const tlc_expr *call = s->u.eval.call;
	if (call->u.call.nargs != 1 || !tlc_expr_as_int(call->u.call.args[0], &n) || n < 0 || n > 7) {
		lw_error(st, s->loc, "T.wait_wgmma(n) needs a constant n from 0 to 7");
		return NULL;
	}
	tlc_stmt *out = tlc_seq_new(st->m, s->loc);
	tlc_seq_append(st->m, out, wait_wgmma(st, s->loc, n));
	for (int i = 0; i < st->nwgmma_acc; i++)
		tlc_seq_append(st->m, out, fence_operand(st, s->loc, st->wgmma_acc[i]));
	return out;
}

tlc_stmt *lw_lower_gemm(lw_state *st, const tlc_stmt *s)
{
	const tlc_expr *call = s->u.eval.call;
	tlc_gemm_info g;
	const char *why = NULL;
	if (!tlc_gemm_decode(call, &g, &why)) {
		lw_error(st, s->loc, "T.gemm: %s", why);
		return NULL;
	}
	if (!tlc_buffer_in_shared(g.B) ||
	    (!tlc_buffer_in_shared(g.A) && g.A->scope != TLC_SCOPE_FRAGMENT) ||
	    g.C->scope != TLC_SCOPE_FRAGMENT) {
		lw_error(st, s->loc, "T.gemm: A must be in shared memory or a fragment, B in shared memory and C a fragment");
		return NULL;
	}
	if (!g.C->layout || g.C->layout->kind != TLC_LAYOUT_FRAGMENT) {
		lw_error(st, s->loc, "T.gemm: the accumulator '%s' has no layout (run layout-inference first)", g.C->name);
		return NULL;
	}
	const tlc_layout *CL = g.C->layout;
	tlc_gemm_plan plan;
	if (!tlc_gemm_plan_for(st->m, &g, CL->threads, CL->thread_lo, &plan, &why)) {
		lw_error(st, s->loc, "T.gemm: %s", why);
		return NULL;
	}
	if (!tlc_layout_equal(plan.c_frag, CL)) {
		lw_error(st, s->loc, "T.gemm: the accumulator '%s' does not have the %s accumulator layout", g.C->name,
		         plan.inst->name);
		return NULL;
	}
	/* the accumulator lives in registers for the whole loop: beyond the
	 * thread's register file nvcc keeps part of it in local memory (spills,
	 * much slower, as TileLang's code does), which still computes the same.
	 * Only the operands of one instruction must be registers at once. */
	int64_t bits = tlc_dtype_bits(g.C->dtype), words = CL->out_shape[0] * bits / 32;
	int64_t cols = g.N / (plan.warp_n > 0 ? plan.warp_n : 1);
	cols = cols < plan.inst->n_max ? cols : plan.inst->n_max;
	int64_t inst_threads = plan.inst->threads > 0 ? plan.inst->threads : 1;
	int64_t inst_words = (int64_t)plan.inst->m * cols * bits / 32 / inst_threads;
	if (inst_words > st->target->max_regs) {
		lw_error(st, s->loc,
		         "T.gemm: one %s instruction of the accumulator '%s' needs %lld registers per thread, more than "
		         "the %d registers a thread of target %s has; use more threads or a smaller tile",
		         plan.inst->name, g.C->name, (long long)inst_words, st->target->max_regs,
		         tlc_module_target_name(st->m));
		return NULL;
	}
	if (words > st->target->max_regs)
		tlc_warning(tlc_module_context(st->m), s->loc,
		            "T.gemm: the accumulator '%s' needs %lld registers per thread (a %lldx%lld %s tile over %lld "
		            "threads), more than the %d registers a thread of target %s has: nvcc spills the rest to "
		            "local memory (correct, but slow); use more threads (each warpgroup or warp then holds a "
		            "smaller part) or a smaller tile",
		            g.C->name, (long long)words, (long long)g.M, (long long)g.N, tlc_dtype_name(g.C->dtype),
		            (long long)CL->threads, st->target->max_regs, tlc_module_target_name(st->m));
	if (tlc_matrix_inst_is_async(plan.inst))
		return lower_wgmma(st, s, &g, &plan);
	/* Hopper's float8 runs on WGMMA (the plan fell back to mma.sync: say why) */
	if ((g.A->dtype == TLC_DT_FLOAT8_E4M3 || g.A->dtype == TLC_DT_FLOAT8_E5M2) && st->target->warpgroup) {
		lw_error(st, s->loc,
		         "T.gemm on %s runs on WGMMA only, which reads K-major shared operands: store A as [M][K] and B "
		         "as [N][K] (transpose_B=True), run it on warpgroups of %d threads (target %s)",
		         tlc_dtype_name(g.A->dtype), st->target->warpgroup, tlc_module_target_name(st->m));
		return NULL;
	}
	int warp_m = plan.warp_m, warp_n = plan.warp_n;

	tlc_module *m = st->m;
	const char *names[16];
	const tlc_expr *vals[16];
	int nk = 0;
#define KW(name, value) (names[nk] = tlc_intern(m, name), vals[nk++] = (value))
	KW("M", tlc_i32(m, g.M));
	KW("N", tlc_i32(m, g.N));
	KW("K", tlc_i32(m, g.K));
	KW("warp_m", tlc_i32(m, warp_m));
	KW("warp_n", tlc_i32(m, warp_n));
	KW("transpose_A", tlc_bool(m, g.trans_A));
	KW("transpose_B", tlc_bool(m, g.trans_B));
	const tlc_buffer *ops[2] = {g.A, g.B};
	for (int k = 0; k < 2; k++) {
		if (!tlc_buffer_in_shared(ops[k]))
			continue;
		const tlc_layout *l = operand_part_layout(st, s, &g, k);
		if (st->errors)
			return NULL;
		if (!l || l->kind == TLC_LAYOUT_FRAGMENT) {
			lw_error(st, s->loc,
			         "T.gemm: operand '%s' needs a 2-D memory layout (a swizzle when it has versions)",
			         ops[k]->name);
			return NULL;
		}
		KW(k ? "layout_B" : "layout_A", tlc_layout_to_expr(m, l));
		/* ldmatrix reads each row of an 8x8 tile with one shared access of the
		 * target's width: the stored rows must keep such runs contiguous */
		int64_t run = st->target->shared_vector_bytes / (tlc_dtype_bits(ops[k]->dtype) / 8);
		KW(k ? "ldmatrix_B" : "ldmatrix_A", tlc_bool(m, l->ndim == 2 && lw_layout_runs(st, l, run)));
	}
	KW("thread_lo", tlc_i32(m, CL->thread_lo));
	/* the plan's instruction: the simulator and the target follow it */
	KW("inst", tlc_str(m, plan.inst->name));
	if (g.k_pack > 1)
		KW("k_pack", tlc_i32(m, g.k_pack));
#undef KW
	const tlc_expr *args[3] = {operand_base(st, &g, 0), operand_base(st, &g, 1), call->u.call.args[2]};
	const tlc_expr *mma = tlc_call(m, TLC_OP_MMA_GEMM, TLC_DT_VOID, 3, args, nk, names, vals);
	tlc_stmt *out = tlc_seq_new(m, s->loc);
	if (g.clear_accum)
		tlc_seq_append(m, out, lw_lower_nest(st, clear_nest(st, s->loc, g.C)));
	tlc_seq_append(m, out, tlc_eval_new(m, s->loc, mma));
	return out;
}
