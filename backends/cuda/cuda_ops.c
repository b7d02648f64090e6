/* cuda_ops.c - the lowered ops that only CUDA prints (cuda_vendor's emit_op).
 *
 * T.mma_gemm carries everything decided by lower-tile-ops (warp grid,
 * transposes, operand layouts, whether ldmatrix may read them); this file only
 * spells it in C++: a functor per shared operand layout at file scope, then
 * the call of tlc::gemm_ss / tlc::gemm_rs from device/tlc_gemm.cuh (mma.sync).
 * T.atomic_add_vec is CUDA's float2 / float4 atomicAdd.  The Hopper ops
 * (mbarriers, setmaxnreg, TMA loads; at the end of the file) print through
 * device/tlc_tma.cuh, and a TMA load's tensor map is a kernel argument that
 * the launcher encodes with device/tlc_tma_host.cuh (a gpu_host_arg). */
#include <stdio.h>
#include <string.h>

#include <tlc/access.h>

#include "cuda_emit.h"

static bool kw_int(const tlc_expr *call, const char *name, int64_t *v)
{
	const tlc_expr *x = tlc_call_kw(call, name);
	return x && tlc_expr_as_int(x, v);
}

static const tlc_buffer *operand_buffer(const tlc_expr *x)
{
	return x->kind == TLC_EXPR_BUF ? x->u.buf : x->u.load.buf;
}

/* The operand types whose mma.sync and WGMMA helpers are the _x ones
 * (device/tlc_gemm_i8_tf32.cuh, tlc_wgmma_i8_tf32.cuh). */
static bool x_operands(tlc_dtype t)
{
	return t == TLC_DT_INT8 || t == TLC_DT_UINT8 || t == TLC_DT_FLOAT32;
}

/* "A, B, C, (int)threadIdx.x[ - lo]);" of a helper call. */
static void emit_mma_args(gpu_emitter *e, const gpu_mma_call *g)
{
	gpu_emit_operand(e, g->A);
	tlc_buf_puts(e->out, ", ");
	gpu_emit_operand(e, g->B);
	tlc_buf_printf(e->out, ", %s, (int)threadIdx.x", gpu_name(e, g->C->u.buf->name));
	if (g->thread_lo)
		tlc_buf_printf(e->out, " - %lld", (long long)g->thread_lo);
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_mma_gemm(gpu_emitter *e, const tlc_expr *call, int ind)
{
	gpu_mma_call g;
	if (!gpu_decode_mma(e, call, &g))
		return;
	const char *T = gpu_ctype(e, g.a_buf->dtype);
	if (x_operands(g.a_buf->dtype)) {
		/* 8-bit integers (m16n8k32) and float32 as TF32 (m16n8k8):
		 * device/tlc_gemm_i8_tf32.cuh */
		e->helpers |= CUDA_HELPER_GEMM_X;
		gpu_indent(e, ind);
		if (g.a_regs)
			tlc_buf_printf(e->out, "tlc::gemm_x_rs<%lld, %lld, %lld, %lld, %lld, %s, %s, %s>(", (long long)g.M,
			               (long long)g.N, (long long)g.K, (long long)g.warp_m, (long long)g.warp_n,
			               g.trans_b ? "true" : "false", T, g.layout_b);
		else
			tlc_buf_printf(e->out, "tlc::gemm_x_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s>(",
			               (long long)g.M, (long long)g.N, (long long)g.K, (long long)g.warp_m,
			               (long long)g.warp_n, g.trans_a ? "true" : "false", g.trans_b ? "true" : "false", T,
			               g.layout_a, g.layout_b);
		emit_mma_args(e, &g);
		return;
	}
	if (g.a_buf->dtype != TLC_DT_FLOAT16 && g.a_buf->dtype != TLC_DT_BFLOAT16) {
		tlc_error(e->ctx, e->loc,
		          "T.gemm on %s operands: target %s prints %s through its mma.sync helpers, which take float16, "
		          "bfloat16, int8, uint8 and float32 (TF32) operands",
		          tlc_dtype_name(g.a_buf->dtype), gpu_target_name(e), g.inst->name);
		return;
	}
	e->helpers |= CUDA_HELPER_GEMM;
	gpu_indent(e, ind);
	if (g.a_regs)
		tlc_buf_printf(e->out, "tlc::gemm_rs<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s>(", (long long)g.M,
		               (long long)g.N, (long long)g.K, (long long)g.warp_m, (long long)g.warp_n,
		               g.trans_b ? "true" : "false", g.ldmatrix_b ? "true" : "false", T, g.layout_b);
	else
		tlc_buf_printf(e->out, "tlc::gemm_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s>(",
		               (long long)g.M, (long long)g.N, (long long)g.K, (long long)g.warp_m, (long long)g.warp_n,
		               g.trans_a ? "true" : "false", g.trans_b ? "true" : "false", g.ldmatrix_a ? "true" : "false",
		               g.ldmatrix_b ? "true" : "false", T, g.layout_a, g.layout_b);
	emit_mma_args(e, &g);
}

void cuda_emit_atomic_add_vec(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	int64_t lanes;
	const tlc_expr *dst, *src;
	if (!gpu_vector_operands(s, &dst, &src, &lanes) || (lanes != 2 && lanes != 4) ||
	    dst->u.load.buf->dtype != TLC_DT_FLOAT32 || src->u.load.buf->dtype != TLC_DT_FLOAT32) {
		tlc_error(e->ctx, s->loc,
			  "T.atomic_add_vec needs two float32 elements and 2 or 4 lanes");
		return;
	}
	if (lanes > e->target->desc->info->atomic_add_f32_vector) {
		/* lower-tile-ops vectorizes atomics only as wide as the target has */
		tlc_error(e->ctx, s->loc,
			  "T.atomic_add_vec of %lld lanes: target %s has float32 atomics of at most %d",
			  (long long)lanes, gpu_target_name(e),
			  e->target->desc->info->atomic_add_f32_vector);
		return;
	}
	gpu_indent(e, ind);
	const char *vt = lanes == 4 ? "float4" : "float2";
	tlc_buf_printf(e->out, "atomicAdd(reinterpret_cast<%s *>(&", vt);
	gpu_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_printf(e->out, "), *reinterpret_cast<const %s *>(&", vt);
	gpu_emit_access(e, s->loc, src->u.load.buf, src->u.load.n, src->u.load.idx);
	tlc_buf_puts(e->out, "));\n");
}

void cuda_emit_cp_async(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	e->helpers |= CUDA_HELPER_CP_ASYNC;
	if (c->u.call.op == TLC_OP_CP_ASYNC_COMMIT) {
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "tlc::cp_async_commit();\n");
		return;
	}
	if (c->u.call.op == TLC_OP_CP_ASYNC_WAIT) {
		int64_t n;
		if (c->u.call.nargs != 1 || !tlc_expr_as_int(c->u.call.args[0], &n) || n < 0 || n > 7) {
			tlc_error(e->ctx, s->loc, "T.cp_async_wait needs a constant count from 0 to 7");
			return;
		}
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "tlc::cp_async_wait<%lld>();\n", (long long)n);
		return;
	}
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	int64_t lanes, bytes = 0;
	if (dst->kind == TLC_EXPR_LOAD && src->kind == TLC_EXPR_LOAD && tlc_expr_as_int(c->u.call.args[2], &lanes) &&
	    dst->u.load.buf->dtype == src->u.load.buf->dtype)
		bytes = lanes * tlc_dtype_bits(dst->u.load.buf->dtype) / 8;
	if (bytes != 4 && bytes != 8 && bytes != 16) {
		tlc_error(e->ctx, s->loc,
			  "T.cp_async needs two elements of one dtype and 4, 8 or 16 bytes");
		return;
	}
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc::cp_async<%lld>(&", (long long)bytes);
	gpu_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_puts(e->out, ", &");
	gpu_emit_access(e, s->loc, src->u.load.buf, src->u.load.n, src->u.load.idx);
	if (c->u.call.nargs == 4) {
		tlc_buf_puts(e->out, ", ");
		gpu_emit_expr(e, c->u.call.args[3]);
	}
	tlc_buf_puts(e->out, ");\n");
}

/* The swizzle width in bytes of a T.swizzled_layout(shape, dtype, W)
 * keyword; -1 when it is missing or another layout. */
static int64_t swizzle_bytes(gpu_emitter *e, const tlc_expr *call, const char *kw)
{
	const char *why = NULL;
	const tlc_expr *x = tlc_call_kw(call, kw);
	const tlc_layout *l = x ? tlc_layout_from_expr(e->m, x, &why) : NULL;
	return l && l->kind == TLC_LAYOUT_SWIZZLED ? tlc_swizzle_get(l->swizzle)->bytes : -1;
}

void cuda_emit_wgmma(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	e->helpers |= CUDA_HELPER_WGMMA;
	if (call->u.call.op == TLC_OP_WAIT_WGMMA) {
		int64_t n;
		if (call->u.call.nargs != 1 || !tlc_expr_as_int(call->u.call.args[0], &n) || n < 0 || n > 7) {
			tlc_error(e->ctx, s->loc, "T.wait_wgmma needs a constant count from 0 to 7");
			return;
		}
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "tlc::wgmma_wait<%lld>();\n", (long long)n);
		return;
	}
	if (call->u.call.op == TLC_OP_WARPGROUP_FENCE_OPERAND) {
		const tlc_expr *C = call->u.call.args[0];
		if (C->kind != TLC_EXPR_BUF || C->u.buf->scope != TLC_SCOPE_LOCAL) {
			tlc_error(e->ctx, s->loc, "T.warpgroup_fence_operand needs a register array");
			return;
		}
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "tlc::wgmma_fence_operand(%s);\n", gpu_name(e, C->u.buf->name));
		return;
	}
	int64_t M, N, K, wm, wn, ta = 0, tb = 0, lo = 0, acc = 1;
	const tlc_expr *A = call->u.call.args[0], *B = call->u.call.args[1], *C = call->u.call.args[2];
	if (call->u.call.nargs != 3 || !kw_int(call, "M", &M) || !kw_int(call, "N", &N) || !kw_int(call, "K", &K) ||
	    !kw_int(call, "wg_m", &wm) || !kw_int(call, "wg_n", &wn) || C->kind != TLC_EXPR_BUF ||
	    (A->kind != TLC_EXPR_BUF && A->kind != TLC_EXPR_LOAD) || (B->kind != TLC_EXPR_BUF && B->kind != TLC_EXPR_LOAD)) {
		tlc_error(e->ctx, s->loc, "T.wgmma_issue needs A, B, C and constant M, N, K, wg_m, wg_n");
		return;
	}
	kw_int(call, "transpose_A", &ta);
	kw_int(call, "transpose_B", &tb);
	kw_int(call, "thread_lo", &lo);
	kw_int(call, "accumulate", &acc);
	const tlc_buffer *Ab = operand_buffer(A), *Bb = operand_buffer(B);
	bool a_regs = Ab->scope == TLC_SCOPE_LOCAL;
	int64_t swa = a_regs ? 0 : swizzle_bytes(e, call, "layout_A"), swb = swizzle_bytes(e, call, "layout_B");
	if (swa < 0 || swb < 0) {
		tlc_error(e->ctx, s->loc, "T.wgmma_issue needs swizzled layout_A (for a shared A) and layout_B");
		return;
	}
	if (e->f->thread_ndim > 1) {
		tlc_error(e->ctx, s->loc, "T.gemm needs a one-dimensional thread block (threads=N) on target %s",
		          gpu_target_name(e));
		return;
	}
	const char *ta_t = gpu_ctype(e, Ab->dtype), *tb_t = gpu_ctype(e, Bb->dtype);
	gpu_indent(e, ind);
	if (x_operands(Ab->dtype)) {
		/* int8 / uint8 / float32 as TF32: device/tlc_wgmma_i8_tf32.cuh,
		 * which builds on tlc_wgmma.cuh */
		e->helpers |= CUDA_HELPER_WGMMA_X;
		if (a_regs)
			tlc_buf_printf(e->out, "tlc::wgmma_gemm_x_rs<%lld, %lld, %lld, %lld, %lld, %s, %lld, %s>(",
			               (long long)M, (long long)N, (long long)K, (long long)wm, (long long)wn,
			               tb ? "true" : "false", (long long)swb, tb_t);
		else
			tlc_buf_printf(e->out, "tlc::wgmma_gemm_x_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %lld, %lld, %s>(",
			               (long long)M, (long long)N, (long long)K, (long long)wm, (long long)wn,
			               ta ? "true" : "false", tb ? "true" : "false", (long long)swa, (long long)swb, tb_t);
	} else if (a_regs)
		tlc_buf_printf(e->out, "tlc::wgmma_gemm_rs<%lld, %lld, %lld, %lld, %lld, %s, %lld, %s, %s>(",
		               (long long)M, (long long)N, (long long)K, (long long)wm, (long long)wn, tb ? "true" : "false",
		               (long long)swb, ta_t, tb_t);
	else
		tlc_buf_printf(e->out, "tlc::wgmma_gemm_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %lld, %lld, %s, %s>(",
		               (long long)M, (long long)N, (long long)K, (long long)wm, (long long)wn, ta ? "true" : "false",
		               tb ? "true" : "false", (long long)swa, (long long)swb, ta_t, tb_t);
	if (a_regs)
		tlc_buf_printf(e->out, "reinterpret_cast<const uint32_t *>(%s)", gpu_name(e, Ab->name));
	else
		gpu_emit_operand(e, A);
	tlc_buf_puts(e->out, ", ");
	gpu_emit_operand(e, B);
	tlc_buf_printf(e->out, ", %s, (int)threadIdx.x", gpu_name(e, C->u.buf->name));
	if (lo)
		tlc_buf_printf(e->out, " - %lld", (long long)lo);
	tlc_buf_printf(e->out, ", %s);\n", acc ? "true" : "false");
}

/* ---- Hopper synchronization and TMA (device/tlc_tma.cuh) ----
 *
 * Barriers are T.alloc_barrier buffers, declared as __shared__ uint64_t
 * arrays by the shared printer; an op names one by its element (or the
 * whole buffer for its barrier 0) and gets its address.  TileLang's integer
 * barrier ids have no storage the printer could name: they are an error. */

/* An operand that prints as an integer value (a count, a parity, bytes). */
static bool int_operand(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *call, const tlc_expr *x, const char *what)
{
	if (x && x->kind != TLC_EXPR_BUF && x->kind != TLC_EXPR_REGION && x->kind != TLC_EXPR_TUPLE &&
	    x->kind != TLC_EXPR_STR && x->kind != TLC_EXPR_SYM && x->kind != TLC_EXPR_LAMBDA &&
	    (tlc_dtype_is_int(x->dtype) || x->dtype == TLC_DT_BOOL))
		return true;
	tlc_error(e->ctx, s->loc, "T.%s: %s must be an integer expression", gpu_op_name(e, call), what);
	return false;
}

/* An integer operand that, when constant, lies in [lo, hi]. */
static bool int_operand_in(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *call, const tlc_expr *x,
                           const char *what, int64_t lo, int64_t hi)
{
	int64_t v;
	if (!int_operand(e, s, call, x, what))
		return false;
	if (tlc_expr_as_int(x, &v) && (v < lo || v > hi)) {
		tlc_error(e->ctx, s->loc, "T.%s: %s %lld is not in [%lld, %lld]", gpu_op_name(e, call), what, (long long)v,
		          (long long)lo, (long long)hi);
		return false;
	}
	return true;
}

/* The sm_90 mbarrier instructions of tlc_tma.cuh (try_wait, expect_tx,
 * fence.mbarrier_init) are what the target's description calls mbarriers
 * with transaction counts. */
static bool has_hopper_mbarriers(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *call)
{
	if (e->target->desc->info->barriers & TLC_BARRIER_MBARRIER_TX)
		return true;
	tlc_error(e->ctx, s->loc, "T.%s: target %s has no mbarriers with transaction counts (sm_90 and up)",
	          gpu_op_name(e, call), gpu_target_name(e));
	return false;
}

static bool no_keywords(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *call)
{
	if (call->u.call.nkw == 0)
		return true;
	tlc_error(e->ctx, s->loc, "T.%s takes no keyword arguments", gpu_op_name(e, call));
	return false;
}

void cuda_emit_mbarrier(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	tlc_op_id op = call->u.call.op;
	int nargs = call->u.call.nargs;
	const char *fn = NULL, *what = NULL;
	int want = 2;
	int64_t lo = 0, hi = 0;
	switch (op) {
	case TLC_OP_MBARRIER_FENCE_INIT: fn = "mbar_fence_init", want = 0; break;
	case TLC_OP_MBARRIER_INIT: fn = "mbar_init", what = "the arrive count", lo = 1, hi = (1 << 20) - 1; break;
	case TLC_OP_MBARRIER_ARRIVE:
	case TLC_OP_BARRIER_ARRIVE: fn = "mbar_arrive", want = 1; break;
	case TLC_OP_CP_ASYNC_ARRIVE: fn = "cp_async_mbar_arrive", want = 1; break;
	case TLC_OP_CP_ASYNC_ARRIVE_NOINC: fn = "cp_async_mbar_arrive_noinc", want = 1; break;
	case TLC_OP_MBARRIER_WAIT_PARITY:
	case TLC_OP_BARRIER_WAIT: fn = "mbar_wait", what = "the parity", lo = INT64_MIN, hi = INT64_MAX; break;
	case TLC_OP_MBARRIER_EXPECT_TX: fn = "mbar_expect_tx", what = "the byte count", hi = (1 << 20) - 1; break;
	case TLC_OP_MBARRIER_ARRIVE_EXPECT_TX:
		fn = "mbar_arrive_expect_tx", what = "the byte count", hi = (1 << 20) - 1;
		break;
	default: return;
	}
	const tlc_expr *cta = tlc_call_kw(call, "cta_id");
	bool remote = cta && (op == TLC_OP_BARRIER_ARRIVE || op == TLC_OP_MBARRIER_ARRIVE);
	if (!has_hopper_mbarriers(e, s, call) || (!remote && !no_keywords(e, s, call)))
		return;
	if (remote && (call->u.call.nkw != 1 || e->cluster_blocks < 2)) {
		tlc_error(e->ctx, s->loc,
		          "T.%s(bar, cta_id=r) arrives on block r of the kernel's cluster; it takes no other keyword and "
		          "needs a kernel with clusters (\"tlc.cluster_dims\")",
		          gpu_op_name(e, call));
		return;
	}
	if (remote) {
		int64_t r;
		if (!tlc_dtype_is_int(cta->dtype)) {
			tlc_error(e->ctx, s->loc, "T.%s: cta_id= is a block's rank in the cluster, an integer",
			          gpu_op_name(e, call));
			return;
		}
		if (tlc_expr_as_int(cta, &r) && (r < 0 || r >= e->cluster_blocks)) {
			tlc_error(e->ctx, s->loc, "T.%s: cta_id=%lld is not a block of the kernel's clusters of %lld",
			          gpu_op_name(e, call), (long long)r, (long long)e->cluster_blocks);
			return;
		}
		fn = "mbar_arrive_cluster";
	}
	if (nargs != want) {
		tlc_error(e->ctx, s->loc, "T.%s takes %d argument%s, got %d", gpu_op_name(e, call), want,
		          want == 1 ? "" : "s", nargs);
		return;
	}
	if (what && !int_operand_in(e, s, call, call->u.call.args[1], what, lo, hi))
		return;
	e->helpers |= CUDA_HELPER_TMA;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc::%s(", fn);
	if (want > 0 && !gpu_emit_barrier_addr(e, s->loc, call, call->u.call.args[0]))
		return;
	if (what) {
		tlc_buf_puts(e->out, ", ");
		gpu_emit_expr(e, call->u.call.args[1]);
	}
	if (remote) {
		tlc_buf_puts(e->out, ", (uint32_t)(");
		gpu_emit_expr(e, cta);
		tlc_buf_puts(e->out, ")");
	}
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_cluster_sync(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	if (!no_keywords(e, s, s->u.eval.call))
		return;
	e->helpers |= CUDA_HELPER_TMA;
	gpu_indent(e, ind);
	/* without clusters every block is its own cluster: a block barrier */
	tlc_buf_puts(e->out, e->cluster_blocks > 1 ? "tlc::cluster_sync();\n" : "__syncthreads();\n");
}

void cuda_emit_set_max_nreg(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	int64_t n, inc;
	if (!no_keywords(e, s, call))
		return;
	if (!e->target->desc->info->setmaxnreg) {
		tlc_error(e->ctx, s->loc, "T.set_max_nreg: target %s cannot move registers between warpgroups (setmaxnreg)",
		          gpu_target_name(e));
		return;
	}
	if (call->u.call.nargs != 2 || !tlc_expr_as_int(call->u.call.args[0], &n) ||
	    !tlc_expr_as_int(call->u.call.args[1], &inc) || (inc != 0 && inc != 1)) {
		tlc_error(e->ctx, s->loc,
		          "T.set_max_nreg(n, inc) needs a constant register count n and inc = 1 (raise) or 0 (lower)");
		return;
	}
	if (n < 24 || n > 256 || n % 8) {
		/* the range and granule of setmaxnreg (PTX ISA) */
		tlc_error(e->ctx, s->loc, "T.set_max_nreg: %lld registers; setmaxnreg takes a multiple of 8 in [24, 256]",
		          (long long)n);
		return;
	}
	/* ptxas applies setmaxnreg only when the registers at entry are fixed:
	 * __launch_bounds__(threads, blocks) fixes them (1 unless the kernel
	 * says how many blocks it was sized for) */
	if (e->min_blocks < 1)
		e->min_blocks = 1;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "asm volatile(\"setmaxnreg.%s.sync.aligned.u32 %%0;\\n\" ::\"n\"(%lld));\n",
	               inc ? "inc" : "dec", (long long)n);
}

/* ---- TMA loads ---- */

#define TMA_RANK_MAX 5   /* cp.async.bulk.tensor: 1d .. 5d */
#define TMA_BOX_MAX 256  /* elements per box dimension (cuTensorMapEncodeTiled) */

/* The tlc_tma_dtype of tlc_tma_host.cuh for a tensor of dtype t (by size:
 * TMA moves bits, and zero bits are zero in every type); NULL when none. */
static const char *tma_dtype_code(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_FLOAT16: return "TLC_TMA_F16";
	case TLC_DT_BFLOAT16: return "TLC_TMA_BF16";
	case TLC_DT_FLOAT32: return "TLC_TMA_F32";
	case TLC_DT_INT32:
	case TLC_DT_UINT32: return "TLC_TMA_I32";
	case TLC_DT_INT16:
	case TLC_DT_UINT16: return "TLC_TMA_U16";
	case TLC_DT_INT64:
	case TLC_DT_UINT64:
	case TLC_DT_FLOAT64: return "TLC_TMA_B64";
	default: return tlc_dtype_bits(t) == 8 ? "TLC_TMA_U8" : NULL;
	}
}

/* What one T.tma_load or T.tma_store names: a tensor parameter, its box
 * and swizzle. */
typedef struct tma_desc {
	/* the tensor the map describes: a parameter, or a view of one
	 * (T.make_tensor / T.Tensor(shape, dtype, A.data)) with its own shape
	 * and dtype over the parameter's address, `param` */
	const tlc_buffer *tensor, *param;
	int rank;
	int64_t box[TMA_RANK_MAX]; /* outermost first, as in the IR */
	int64_t swizzle;
	int esize;
	bool store;      /* T.tma_store (shared -> global), else T.tma_load */
	const char *op;  /* "T.tma_load" or "T.tma_store", for messages */
	int coords;      /* the argument index of the first coordinate */
	int64_t multicast; /* a load's blocks of the cluster (multicast=); 0: the issuing block */
} tma_desc;

/* Read and check the tensor, box= and swizzle= of call (d->op and
 * d->coords set). */
static bool tma_read_desc(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *call, tma_desc *d)
{
	const tlc_expr *A = call->u.call.args[0];
	const tlc_buffer *root = A->kind == TLC_EXPR_BUF ? tlc_buffer_storage(A->u.buf) : NULL;
	bool param = false;
	for (int i = 0; root && i < e->f->nparams; i++)
		param |= e->f->params[i].kind == TLC_PARAM_TENSOR && e->f->params[i].buf == root;
	if (!param) {
		tlc_error(e->ctx, s->loc,
		          "%s %s a tensor parameter of the kernel or a view of one "
		          "(T.make_tensor(A.data, ...)), named whole (%s(A, ...)): the launcher builds its "
		          "tensor map",
		          d->op, d->store ? "writes" : "reads", d->op);
		return false;
	}
	/* a view's map: its shape and dtype over the parameter's address (a
	 * view starts at its storage and holds no more bytes than it) */
	d->tensor = A->u.buf;
	d->param = root;
	d->rank = d->tensor->ndim;
	d->esize = tlc_dtype_bits(d->tensor->dtype) / 8;
	if (d->rank < 1 || d->rank > TMA_RANK_MAX) {
		tlc_error(e->ctx, s->loc, "%s: '%s' has %d dimensions; TMA copies tensors of 1 to %d", d->op, d->tensor->name,
		          d->rank, TMA_RANK_MAX);
		return false;
	}
	if (!tma_dtype_code(d->tensor->dtype) || d->esize < 1) {
		tlc_error(e->ctx, s->loc, "%s: TMA cannot copy %s tensors ('%s')", d->op, tlc_dtype_name(d->tensor->dtype),
		          d->tensor->name);
		return false;
	}
	if (call->u.call.nargs != d->coords + d->rank) {
		tlc_error(e->ctx, s->loc, "%s of the %d-D tensor '%s' takes %d coordinates, got %d", d->op, d->rank,
		          d->tensor->name, d->rank, call->u.call.nargs - d->coords);
		return false;
	}
	for (int k = 0; k < call->u.call.nkw; k++)
		if (strcmp(call->u.call.kw_names[k], "box") != 0 && strcmp(call->u.call.kw_names[k], "swizzle") != 0 &&
		    (d->store || strcmp(call->u.call.kw_names[k], "multicast") != 0)) {
			tlc_error(e->ctx, s->loc, "%s has no keyword argument '%s' (box=, swizzle=%s)", d->op,
			          call->u.call.kw_names[k], d->store ? "" : ", multicast=");
			return false;
		}
	const tlc_expr *mc = tlc_call_kw(call, "multicast");
	d->multicast = 0;
	if (mc && (!tlc_expr_as_int(mc, &d->multicast) || d->multicast < 0 ||
	           d->multicast >= ((int64_t)1 << e->cluster_blocks) || (d->multicast && e->cluster_blocks < 2) ||
	           (d->multicast && !(e->target->desc->info->async_copy & TLC_ASYNC_TMA_MULTICAST)))) {
		tlc_error(e->ctx, s->loc,
		          "%s: multicast= is a constant mask of blocks of the kernel's cluster (%lld blocks), on a target "
		          "with TMA multicast",
		          d->op, (long long)e->cluster_blocks);
		return false;
	}
	const tlc_expr *box = tlc_call_kw(call, "box"), *swz = tlc_call_kw(call, "swizzle");
	bool ok = box && box->kind == TLC_EXPR_TUPLE && !box->u.tuple.is_dict && box->u.tuple.n == d->rank;
	for (int k = 0; ok && k < d->rank; k++)
		ok = tlc_expr_as_int(box->u.tuple.items[k], &d->box[k]) && d->box[k] >= 1 && d->box[k] <= TMA_BOX_MAX;
	if (!ok) {
		tlc_error(e->ctx, s->loc,
		          "%s needs box=(b0, ..., b%d): %d constant extents from 1 to %d, in the dimension order of '%s'",
		          d->op, d->rank - 1, d->rank, TMA_BOX_MAX, d->tensor->name);
		return false;
	}
	d->swizzle = 0;
	if (swz && (!tlc_expr_as_int(swz, &d->swizzle) ||
	            (d->swizzle != 0 && d->swizzle != 32 && d->swizzle != 64 && d->swizzle != 128))) {
		tlc_error(e->ctx, s->loc, "%s: swizzle= is the swizzle width in bytes: 0, 32, 64 or 128", d->op);
		return false;
	}
	int64_t inner = d->box[d->rank - 1] * d->esize;
	if (inner % 16 || (d->swizzle && inner > d->swizzle)) {
		tlc_error(e->ctx, s->loc,
		          "%s: the box's rows are %lld bytes; TMA needs a multiple of 16%s", d->op, (long long)inner, d->swizzle ? " no wider than the swizzle" : "");
		return false;
	}
	/* what the launcher would refuse for every call: constant sizes and pitches */
	int64_t pitch = d->esize;
	for (int k = d->rank - 1; k >= 0; k--) {
		int64_t ext;
		if (k < d->rank - 1 && pitch > 0 && (pitch % 16 || pitch >= ((int64_t)1 << 40))) {
			tlc_error(e->ctx, s->loc,
			          "%s: dimension %d of '%s' has a pitch of %lld bytes; TMA needs a multiple of 16 below 2^40",
			          d->op, k, d->tensor->name, (long long)pitch);
			return false;
		}
		if (!tlc_expr_as_int(d->tensor->shape[k], &ext)) {
			pitch = 0; /* a runtime size: the launcher checks */
			continue;
		}
		if (ext < 1 || ext > ((int64_t)1 << 32)) {
			tlc_error(e->ctx, s->loc, "%s: dimension %d of '%s' has %lld elements; TMA needs 1 to 2^32", d->op, k,
			          d->tensor->name, (long long)ext);
			return false;
		}
		if (pitch > 0)
			pitch = pitch > (((int64_t)1 << 40) / ext) ? ((int64_t)1 << 40) : pitch * ext;
	}
	return true;
}

/* The shared end of a copy (a load's destination, a store's source): an
 * element of a planned shared buffer of the tensor's dtype, as aligned as
 * TMA needs (128 bytes; 8 times the swizzle for the swizzled layout to
 * start at the buffer).  Checked where the offsets are known. */
static bool tma_check_shared(gpu_emitter *e, const tlc_stmt *s, const tma_desc *d, const tlc_expr *dst)
{
	if (dst->kind != TLC_EXPR_LOAD ||
	    (dst->u.load.buf->scope != TLC_SCOPE_SHARED_DYN && dst->u.load.buf->scope != TLC_SCOPE_SHARED)) {
		tlc_error(e->ctx, s->loc, "%s %s an element of a shared buffer, S[i] (where the box starts)", d->op,
		          d->store ? "reads" : "writes");
		return false;
	}
	const tlc_buffer *b = dst->u.load.buf;
	if (b->dtype != d->tensor->dtype) {
		tlc_error(e->ctx, s->loc, "%s: the %s '%s' is %s, the tensor '%s' %s", d->op, d->store ? "source" : "destination", b->name,
		          tlc_dtype_name(b->dtype), d->tensor->name, tlc_dtype_name(d->tensor->dtype));
		return false;
	}
	int64_t need = tlc_tma_shared_align(d->swizzle);
	if (b->scope == TLC_SCOPE_SHARED) {
		tlc_error(e->ctx, s->loc,
		          "%s: the %s '%s' is static shared memory (scope=\"shared\"), which has no planned alignment; TMA "
		          "needs %lld-byte aligned boxes: allocate it with T.alloc_shared(shape, dtype)",
		          d->op, d->store ? "source" : "destination", b->name, (long long)need);
		return false;
	}
	if (b->offset < 0)
		return true; /* the allocation reports it */
	int64_t arena = gpu_arena_align(e);
	if (arena % need || b->offset % need) {
		tlc_error(e->ctx, s->loc,
		          "%s: the %s '%s' must be %lld-byte aligned for TMA%s, but it is at byte %lld of a shared arena "
		          "aligned to %lld (storage-plan places it)",
		          d->op, d->store ? "source" : "destination", b->name, (long long)need, d->swizzle ? " with this swizzle" : "", (long long)b->offset,
		          (long long)arena);
		return false;
	}
	/* a constant element offset: the box itself starts 128-byte aligned */
	int64_t flat = 0;
	bool known = dst->u.load.n == b->ndim;
	for (int k = 0; known && k < b->ndim; k++) {
		int64_t v = 0, ext = 0;
		/* hand-written indices may be anything: no overflow */
		known = tlc_expr_as_int(dst->u.load.idx[k], &v) && tlc_expr_as_int(b->shape[k], &ext) &&
		        !__builtin_mul_overflow(flat, ext, &flat) && !__builtin_add_overflow(flat, v, &flat);
	}
	if (!known || __builtin_mul_overflow(flat, (int64_t)d->esize, &flat))
		return true;
	if (flat % 128) {
		tlc_error(e->ctx, s->loc,
		          "%s: the box would start at byte %lld of '%s', which is not 128-byte aligned as TMA needs", d->op,
		          (long long)flat, b->name);
		return false;
	}
	/* and it lies inside the buffer */
	int64_t box = d->esize, bytes;
	for (int k = 0; k < d->rank; k++)
		box *= d->box[k];
	if (tlc_buffer_bytes(b, &bytes) && (flat < 0 || flat > bytes || box > bytes - flat)) {
		tlc_error(e->ctx, s->loc, "%s: the box of %lld bytes at byte %lld of '%s' does not fit in its %lld bytes",
		          d->op, (long long)box, (long long)flat, b->name, (long long)bytes);
		return false;
	}
	return true;
}

/* The launcher's code that encodes d's tensor map into `name`; `tensor`
 * names it in messages, `address` is the launcher's pointer to it. */
static const char *tma_setup(gpu_emitter *e, const tma_desc *d, const char *name,
                             const char *tensor, const char *address)
{
	tlc_buf b;
	tlc_buf_init(&b);
	int R = d->rank;
	tlc_buf_printf(&b, "\t/* the TMA tensor map of %s: box (", tensor);
	for (int k = 0; k < R; k++)
		tlc_buf_printf(&b, "%s%lld", k ? ", " : "", (long long)d->box[k]);
	tlc_buf_printf(&b, "%s), ", R == 1 ? "," : "");
	if (d->swizzle)
		tlc_buf_printf(&b, "%lld-byte swizzle */\n", (long long)d->swizzle);
	else
		tlc_buf_puts(&b, "no swizzle */\n");
	tlc_buf_printf(&b, "\tCUtensorMap %s;\n\t{\n\t\tconst uint64_t tlc_dims[%d] = {", name, R);
	/* sizes and pitches innermost first, in 64 bits */
	for (int i = 0; i < R; i++) {
		tlc_buf_puts(&b, i ? ", (uint64_t)(" : "(uint64_t)(");
		gpu_emit_host_expr(e, &b, d->tensor->shape[R - 1 - i]);
		tlc_buf_puts(&b, ")");
	}
	tlc_buf_puts(&b, "};\n");
	if (R > 1) {
		tlc_buf_printf(&b, "\t\tconst uint64_t tlc_strides[%d] = {", R - 1);
		for (int i = 1; i < R; i++) {
			tlc_buf_printf(&b, "%s%dull", i > 1 ? ", " : "", d->esize);
			for (int j = 0; j < i; j++) {
				tlc_buf_puts(&b, " * (uint64_t)(");
				gpu_emit_host_expr(e, &b, d->tensor->shape[R - 1 - j]);
				tlc_buf_puts(&b, ")");
			}
		}
		tlc_buf_puts(&b, "};\n");
	}
	tlc_buf_printf(&b, "\t\tconst uint32_t tlc_box[%d] = {", R);
	for (int i = 0; i < R; i++)
		tlc_buf_printf(&b, "%s%lldu", i ? ", " : "", (long long)d->box[R - 1 - i]);
	tlc_buf_puts(&b, "};\n");
	if (d->store && R == 1)
		/* rank 1 has no row pitch to keep the tensor a 16-byte multiple: a
		 * store crossing its end would write past it (tlc_tma.cuh, rule 4) */
		tlc_buf_printf(&b,
		               "\t\tif (tlc_tma_store_overhang_bytes(%s, tlc_dims[0]) != 0)\n"
		               "\t\t\treturn tlc::tma_detail::fail((int)cudaErrorInvalidValue, \"%s\", \"%%llu elements are not a "
		               "multiple of 16 bytes, so a TMA store would write past the last one\", "
		               "(unsigned long long)tlc_dims[0]);\n",
		               tma_dtype_code(d->tensor->dtype), tensor);
	tlc_buf_printf(&b,
	               "\t\tconst int tlc_tma_err = tlc_tma_encode(\"%s\", &%s, %s, %d, (const void *)%s, tlc_dims, %s, "
	               "tlc_box, %lld);\n"
	               "\t\tif (tlc_tma_err != 0)\n\t\t\treturn tlc_tma_err;\n\t}\n",
	               tensor, name, tma_dtype_code(d->tensor->dtype), R, address,
	               R > 1 ? "tlc_strides" : "nullptr",
	               (long long)d->swizzle);
	const char *text = tlc_strdup(e->m, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return text;
}

/* The index of the tensor-map argument for d, added on first use. */
static int tma_map(gpu_emitter *e, const tma_desc *d)
{
	const char *tensor = gpu_name(e, d->tensor->name);
	const char *address = tlc_strdup(e->m, gpu_name(e, d->param->name));
	bool view = d->param != d->tensor;
	tlc_buf key;
	tlc_buf_init(&key);
	tlc_buf_printf(&key, "tma:%u:", (unsigned)d->tensor->id);
	for (int k = 0; k < d->rank; k++)
		tlc_buf_printf(&key, "%lld,", (long long)d->box[k]);
	tlc_buf_printf(&key, ":%lld%s", (long long)d->swizzle, d->store ? ":store" : "");
	int i = gpu_find_host_arg(e, tlc_buf_str(&key));
	if (i < 0) {
		char name[256], param[320], doc[512], what[300];
		snprintf(name, sizeof name, "tlc_tma_%s_%d", tensor, e->nhost_args);
		snprintf(param, sizeof param, "const __grid_constant__ CUtensorMap %s", name);
		if (view)
			snprintf(what, sizeof what, "%s (through its view %s)", address, tensor);
		else
			snprintf(what, sizeof what, "%s", tensor);
		snprintf(doc, sizeof doc,
		         "%s is %s with TMA: its address and its rows must start at multiples of 16 bytes "
		         "(cudaErrorMisalignedAddress otherwise).",
		         what, d->store ? "written" : "read");
		gpu_host_arg arg = {
			.key = tlc_strdup(e->m, tlc_buf_str(&key)),
			.name = tlc_strdup(e->m, name),
			.param = tlc_strdup(e->m, param),
			.setup = tma_setup(e, d, name, tensor, address),
			.error_message = "tlc_tma_last_error()",
			.doc = tlc_strdup(e->m, doc),
		};
		i = gpu_add_host_arg(e, &arg);
	}
	tlc_buf_free(&key);
	return i;
}

/* The tensor-map argument of one T.tma_load / T.tma_store call, after its
 * checks; -1 after an error. */
static bool has_tma(gpu_emitter *e, const tlc_stmt *s, const tma_desc *d)
{
	if (e->target->desc->info->async_copy & TLC_ASYNC_TMA)
		return true;
	tlc_error(e->ctx, s->loc, "%s: target %s has no bulk tensor copy engine (TMA)", d->op, gpu_target_name(e));
	return false;
}

static int tma_call_map(gpu_emitter *e, const tlc_stmt *s, tma_desc *d)
{
	const tlc_expr *call = s->u.eval.call;
	if (!has_tma(e, s, d))
		return -1;
	if (call->u.call.nargs < d->coords) {
		tlc_error(e->ctx, s->loc, "%s", d->store ? "T.tma_store(A, src[...], coordinates..., box=(...), swizzle=W)"
		                                         : "T.tma_load(A, dst[...], bar[...], coordinates..., box=(...), swizzle=W)");
		return -1;
	}
	if (!tma_read_desc(e, s, call, d) || !tma_check_shared(e, s, d, call->u.call.args[1]))
		return -1;
	for (int k = 0; k < d->rank; k++)
		if (!int_operand(e, s, call, call->u.call.args[d->coords + k], "a coordinate"))
			return -1;
	int map = tma_map(e, d);
	if (gpu_failed(e))
		return -1;
	e->helpers |= CUDA_HELPER_TMA | CUDA_HELPER_TMA_HOST;
	return map;
}

/* The shared element (&S[..]) and the coordinates, innermost first, as int. */
static void tma_emit_operands(gpu_emitter *e, const tlc_stmt *s, const tma_desc *d)
{
	const tlc_expr *call = s->u.eval.call;
	const tlc_expr *sh = call->u.call.args[1];
	tlc_buf_puts(e->out, ", &");
	gpu_emit_access(e, s->loc, sh->u.load.buf, sh->u.load.n, sh->u.load.idx);
	for (int k = d->rank - 1; k >= 0; k--) {
		const tlc_expr *c = call->u.call.args[d->coords + k];
		tlc_buf_puts(e->out, ", ");
		gpu_emit_expr(e, c->dtype == TLC_DT_INT32 ? c : tlc_cast(e->m, TLC_DT_INT32, c));
	}
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_tma_load(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	tma_desc d = {.op = "T.tma_load", .coords = 3};
	if (!has_tma(e, s, &d) || !has_hopper_mbarriers(e, s, call))
		return;
	int map = tma_call_map(e, s, &d);
	if (map < 0)
		return;
	gpu_indent(e, ind);
	if (d.multicast)
		tlc_buf_printf(e->out, "tlc::tma_load_multicast<%d>(&%s, (uint16_t)%lld, ", d.rank, e->host_args[map].name,
		               (long long)d.multicast);
	else
		tlc_buf_printf(e->out, "tlc::tma_load<%d>(&%s, ", d.rank, e->host_args[map].name);
	if (!gpu_emit_barrier_addr(e, s->loc, call, call->u.call.args[2]))
		return;
	tma_emit_operands(e, s, &d);
}

void cuda_emit_tma_store(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	if (call->u.call.op == TLC_OP_TMA_STORE_WAIT) {
		/* close the thread's bulk group; its stores' shared reads are done */
		e->helpers |= CUDA_HELPER_TMA;
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "tlc::tma_store_commit();\n");
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "tlc::tma_store_wait<0>();\n");
		return;
	}
	tma_desc d = {.store = true, .op = "T.tma_store", .coords = 2};
	int map = tma_call_map(e, s, &d);
	if (map < 0)
		return;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc::tma_store<%d>(&%s", d.rank, e->host_args[map].name);
	tma_emit_operands(e, s, &d);
}

/* T.stmatrix(dst, src_0, .., src_X-1): one stmatrix of X 8x8 tiles; each
 * lane's register of tile k packs src_k and the element after it, both
 * converted to dst's 16-bit dtype. */
void cuda_emit_stmatrix(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	int x = call->u.call.nargs - 1;
	const tlc_expr *dst = call->u.call.args[0];
	bool ok = (x == 1 || x == 2 || x == TLC_STMATRIX_MAX_TILES) && dst->kind == TLC_EXPR_LOAD &&
	          tlc_buffer_in_shared(dst->u.load.buf) && tlc_dtype_bits(dst->u.load.buf->dtype) == TLC_STMATRIX_ELEM_BITS;
	for (int k = 1; ok && k <= x; k++)
		ok = call->u.call.args[k]->kind == TLC_EXPR_LOAD && call->u.call.args[k]->u.load.n >= 1;
	if (!ok) {
		tlc_error(e->ctx, s->loc,
		          "T.stmatrix takes an element of a 16-bit shared buffer and 1, 2 or 4 elements to store");
		return;
	}
	if (!tlc_target_has_stmatrix(e->target->desc->info)) {
		tlc_error(e->ctx, s->loc, "T.stmatrix is not supported by target %s (it needs sm_90)", gpu_target_name(e));
		return;
	}
	e->helpers |= CUDA_HELPER_STMATRIX;
	tlc_dtype dt = dst->u.load.buf->dtype;
	const char *ty = gpu_ctype(e, dt);
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc::stmatrix_x%d(&", x);
	gpu_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	for (int k = 1; k <= x; k++) {
		tlc_buf_printf(e->out, ", tlc::pack_b16<%s>(", ty);
		gpu_emit_converted_lanes(e, call->u.call.args[k], TLC_STMATRIX_PAIR, dt);
		tlc_buf_puts(e->out, ")");
	}
	tlc_buf_puts(e->out, ");\n");
}
