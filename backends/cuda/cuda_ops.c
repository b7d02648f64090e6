/* cuda_ops.c - the lowered ops that only CUDA prints (cuda_vendor's emit_op).
 *
 * T.mma_gemm carries everything decided by lower-tile-ops (warp grid,
 * transposes, operand layouts, whether ldmatrix may read them); this file only
 * spells it in C++: a functor per shared operand layout at file scope, then
 * the call of tlc::gemm_ss / tlc::gemm_rs from device/tlc_gemm.cuh (mma.sync).
 * T.atomic_add_vec is CUDA's float2 / float4 atomicAdd. */
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

/* A whole buffer by name, the first element of a tile by its address. */
static void emit_operand(gpu_emitter *e, const tlc_expr *x)
{
	if (x->kind == TLC_EXPR_BUF) {
		tlc_buf_puts(e->out, gpu_name(e, x->u.buf->name));
		return;
	}
	tlc_buf_puts(e->out, "&");
	gpu_emit_access(e, e->loc, x->u.load.buf, x->u.load.n, x->u.load.idx);
}

void cuda_emit_mma_gemm(gpu_emitter *e, const tlc_expr *call, int ind)
{
	int64_t M, N, K, wm, wn, ta = 0, tb = 0, la = 0, lb = 0, lo = 0;
	if (call->u.call.nargs != 3 || !kw_int(call, "M", &M) || !kw_int(call, "N", &N) || !kw_int(call, "K", &K) ||
	    !kw_int(call, "warp_m", &wm) || !kw_int(call, "warp_n", &wn)) {
		tlc_error(e->ctx, e->loc,
			  "T.mma_gemm needs A, B, C and constant M, N, K, warp_m, warp_n");
		return;
	}
	kw_int(call, "transpose_A", &ta);
	kw_int(call, "transpose_B", &tb);
	kw_int(call, "ldmatrix_A", &la);
	kw_int(call, "ldmatrix_B", &lb);
	kw_int(call, "thread_lo", &lo);
	const tlc_expr *A = call->u.call.args[0], *B = call->u.call.args[1], *C = call->u.call.args[2];
	if ((A->kind != TLC_EXPR_BUF && A->kind != TLC_EXPR_LOAD) || (B->kind != TLC_EXPR_BUF && B->kind != TLC_EXPR_LOAD) ||
	    C->kind != TLC_EXPR_BUF) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm operands must be buffers (or, for A and B, the first element of a tile)");
		return;
	}
	const tlc_buffer *Ab = operand_buffer(A);
	const char *T = gpu_ctype(e, Ab->dtype);
	bool a_regs = Ab->scope == TLC_SCOPE_LOCAL;
	const tlc_expr *lay_a = tlc_call_kw(call, "layout_A"), *lay_b = tlc_call_kw(call, "layout_B");
	if (!lay_b || (!a_regs && !lay_a)) {
		tlc_error(e->ctx, e->loc,
			  "T.mma_gemm needs layout_B (and layout_A for a shared A)");
		return;
	}
	const char *fa = a_regs ? NULL : gpu_emit_layout_functor(e, call, lay_a, "A");
	const char *fb = gpu_emit_layout_functor(e, call, lay_b, "B");
	if ((!a_regs && !fa) || !fb)
		return;
	e->helpers |= CUDA_HELPER_GEMM;
	gpu_indent(e, ind);
	if (a_regs)
		tlc_buf_printf(e->out, "tlc::gemm_rs<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s>(", (long long)M,
		               (long long)N, (long long)K, (long long)wm, (long long)wn, tb ? "true" : "false",
		               lb ? "true" : "false", T, fb);
	else
		tlc_buf_printf(e->out, "tlc::gemm_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s>(", (long long)M,
		               (long long)N, (long long)K, (long long)wm, (long long)wn, ta ? "true" : "false",
		               tb ? "true" : "false", la ? "true" : "false", lb ? "true" : "false", T, fa, fb);
	if (e->f->thread_ndim > 1) {
		tlc_error(e->ctx, e->loc,
			  "T.gemm needs a one-dimensional thread block (threads=N) on target %s",
			  gpu_target_name(e));
		return;
	}
	const char *tid = "(int)threadIdx.x";
	emit_operand(e, A);
	tlc_buf_puts(e->out, ", ");
	emit_operand(e, B);
	tlc_buf_printf(e->out, ", %s, %s", gpu_name(e, C->u.buf->name), tid);
	if (lo)
		tlc_buf_printf(e->out, " - %lld", (long long)lo);
	tlc_buf_puts(e->out, ");\n");
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

const char cuda_cp_async_text[] =
	"/* cp.async (sm_80 and up): BYTES (4, 8 or 16) from global to shared memory, in the\n"
	" * background; with in_bounds false nothing is read and the BYTES are zeros.  A thread's\n"
	" * copies are complete once a cp.async.wait_group lets none of their groups pending. */\n"
	"template <int BYTES>\n"
	"static __device__ __forceinline__ void tlc_cp_async(void *dst, const void *src, bool in_bounds = true)\n"
	"{\n"
	"\tunsigned d = (unsigned)__cvta_generic_to_shared(dst);\n"
	"\tsize_t g = __cvta_generic_to_global(src);\n"
	"\tint n = in_bounds ? BYTES : 0;\n"
	"\tif (BYTES == 16)\n"
	"\t\tasm volatile(\"cp.async.cg.shared.global [%0], [%1], 16, %2;\\n\" ::\"r\"(d), \"l\"(g), \"r\"(n) : \"memory\");\n"
	"\telse\n"
	"\t\tasm volatile(\"cp.async.ca.shared.global [%0], [%1], %2, %3;\\n\" ::\"r\"(d), \"l\"(g), \"n\"(BYTES), \"r\"(n)\n"
	"\t\t             : \"memory\");\n"
	"}\n"
	"static __device__ __forceinline__ void tlc_cp_async_commit()\n"
	"{\n\tasm volatile(\"cp.async.commit_group;\\n\" ::: \"memory\");\n}\n"
	"template <int N>\n"
	"static __device__ __forceinline__ void tlc_cp_async_wait()\n"
	"{\n\tasm volatile(\"cp.async.wait_group %0;\\n\" ::\"n\"(N) : \"memory\");\n}\n\n";

void cuda_emit_cp_async(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	e->helpers |= CUDA_HELPER_CP_ASYNC;
	if (c->u.call.op == TLC_OP_CP_ASYNC_COMMIT) {
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "tlc_cp_async_commit();\n");
		return;
	}
	if (c->u.call.op == TLC_OP_CP_ASYNC_WAIT) {
		int64_t n;
		if (c->u.call.nargs != 1 || !tlc_expr_as_int(c->u.call.args[0], &n) || n < 0 || n > 7) {
			tlc_error(e->ctx, s->loc, "T.cp_async_wait needs a constant count from 0 to 7");
			return;
		}
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "tlc_cp_async_wait<%lld>();\n", (long long)n);
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
	tlc_buf_printf(e->out, "tlc_cp_async<%lld>(&", (long long)bytes);
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
	if (a_regs)
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
		emit_operand(e, A);
	tlc_buf_puts(e->out, ", ");
	emit_operand(e, B);
	tlc_buf_printf(e->out, ", %s, (int)threadIdx.x", gpu_name(e, C->u.buf->name));
	if (lo)
		tlc_buf_printf(e->out, " - %lld", (long long)lo);
	tlc_buf_printf(e->out, ", %s);\n", acc ? "true" : "false");
}
