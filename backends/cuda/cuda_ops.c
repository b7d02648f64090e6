/* cuda_ops.c - lowered intrinsics that print as calls of device helpers.
 *
 * T.mma_gemm carries everything decided by lower-tile-ops (warp grid,
 * transposes, operand layouts, whether ldmatrix may read them); this file only
 * spells it in C++: a functor per shared operand layout at file scope, then
 * the call of tlc::gemm_ss / tlc::gemm_rs from device/tlc_gemm.cuh. */
#include <stdio.h>
#include <string.h>

#include <tlc/layout.h>

#include "cuda_emit.h"

static void indent(cuda_emitter *e, int ind)
{
	for (int i = 0; i < ind; i++)
		tlc_buf_putc(e->out, '\t');
}

static bool kw_int(const tlc_expr *call, const char *name, int64_t *v)
{
	const tlc_expr *x = tlc_call_kw(call, name);
	return x && tlc_expr_as_int(x, v);
}

/* struct NAME { off(r, c) }: the element offset of (r, c) in the layout. */
static const char *emit_functor(cuda_emitter *e, const tlc_expr *layout_expr, const char *what)
{
	const char *why = NULL;
	const tlc_layout *l = tlc_layout_from_expr(e->m, layout_expr, &why);
	if (!l || l->ndim != 2 || l->kind == TLC_LAYOUT_FRAGMENT) {
		cuda_error(e, e->loc, "T.mma_gemm: the layout of %s is not a 2-D memory layout%s%s", what, why ? ": " : "",
		           why ? why : "");
		return NULL;
	}
	char name[64];
	snprintf(name, sizeof name, "tlc_layout_%s_%d", e->f->name, e->counter++);
	tlc_var *r = tlc_var_new(e->m, "r", TLC_DT_INT32), *c = tlc_var_new(e->m, "c", TLC_DT_INT32);
	const tlc_expr *idx[2] = {tlc_var_ref(e->m, r), tlc_var_ref(e->m, c)};
	const tlc_expr *off = tlc_layout_apply(e->m, l, 2, idx);
	tlc_buf *saved = e->out;
	int nr = e->ranges.n;
	e->out = e->decls;
	tlc_ranges_push(&e->ranges, r, 0, l->shape[0] - 1);
	tlc_ranges_push(&e->ranges, c, 0, l->shape[1] - 1);
	tlc_buf_printf(e->out, "struct %s {\n\tstatic __device__ __forceinline__ int off(int r, int c)\n\t{\n\t\treturn ",
	               name);
	cuda_emit_expr(e, off);
	tlc_buf_puts(e->out, ";\n\t}\n};\n\n");
	e->ranges.n = nr;
	e->out = saved;
	return tlc_strdup(e->m, name);
}

void cuda_emit_mma_gemm(cuda_emitter *e, const tlc_expr *call, int ind)
{
	int64_t M, N, K, wm, wn, ta = 0, tb = 0, la = 0, lb = 0, lo = 0;
	if (call->u.call.nargs != 3 || !kw_int(call, "M", &M) || !kw_int(call, "N", &N) || !kw_int(call, "K", &K) ||
	    !kw_int(call, "warp_m", &wm) || !kw_int(call, "warp_n", &wn)) {
		cuda_error(e, e->loc, "T.mma_gemm needs A, B, C and constant M, N, K, warp_m, warp_n");
		return;
	}
	kw_int(call, "transpose_A", &ta);
	kw_int(call, "transpose_B", &tb);
	kw_int(call, "ldmatrix_A", &la);
	kw_int(call, "ldmatrix_B", &lb);
	kw_int(call, "thread_lo", &lo);
	const tlc_expr *A = call->u.call.args[0], *B = call->u.call.args[1], *C = call->u.call.args[2];
	if (A->kind != TLC_EXPR_BUF || B->kind != TLC_EXPR_BUF || C->kind != TLC_EXPR_BUF) {
		cuda_error(e, e->loc, "T.mma_gemm operands must be whole buffers");
		return;
	}
	const char *T = cuda_ctype(A->u.buf->dtype);
	bool a_regs = A->u.buf->scope == TLC_SCOPE_LOCAL;
	const tlc_expr *lay_a = tlc_call_kw(call, "layout_A"), *lay_b = tlc_call_kw(call, "layout_B");
	if (!lay_b || (!a_regs && !lay_a)) {
		cuda_error(e, e->loc, "T.mma_gemm needs layout_B (and layout_A for a shared A)");
		return;
	}
	const char *fa = a_regs ? NULL : emit_functor(e, lay_a, "A");
	const char *fb = emit_functor(e, lay_b, "B");
	if ((!a_regs && !fa) || !fb)
		return;
	e->helpers |= CUDA_HELPER_GEMM;
	indent(e, ind);
	if (a_regs)
		tlc_buf_printf(e->out, "tlc::gemm_rs<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s>(", (long long)M,
		               (long long)N, (long long)K, (long long)wm, (long long)wn, tb ? "true" : "false",
		               lb ? "true" : "false", T, fb);
	else
		tlc_buf_printf(e->out, "tlc::gemm_ss<%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s>(", (long long)M,
		               (long long)N, (long long)K, (long long)wm, (long long)wn, ta ? "true" : "false",
		               tb ? "true" : "false", la ? "true" : "false", lb ? "true" : "false", T, fa, fb);
	if (e->f->thread_ndim > 1) {
		cuda_error(e, e->loc, "T.gemm needs a one-dimensional thread block (threads=N) on target %s", e->arch->target);
		return;
	}
	const char *tid = "(int)threadIdx.x";
	tlc_buf_printf(e->out, "%s, %s, %s, %s", cuda_name(e, A->u.buf->name), cuda_name(e, B->u.buf->name),
	               cuda_name(e, C->u.buf->name), tid);
	if (lo)
		tlc_buf_printf(e->out, " - %lld", (long long)lo);
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_atomic_add(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	const tlc_expr *dst = c->u.call.nargs == 2 ? c->u.call.args[0] : NULL;
	if (!dst || dst->kind != TLC_EXPR_LOAD) {
		cuda_error(e, s->loc, "T.atomic_add of tiles must be lowered by lower-tile-ops before target %s",
		           e->arch->target);
		return;
	}
	const tlc_buffer *b = dst->u.load.buf;
	if (b->dtype != TLC_DT_FLOAT32 && b->dtype != TLC_DT_FLOAT64 && b->dtype != TLC_DT_INT32 &&
	    b->dtype != TLC_DT_UINT32 && b->dtype != TLC_DT_FLOAT16 && b->dtype != TLC_DT_BFLOAT16) {
		cuda_error(e, s->loc, "T.atomic_add on %s is not supported by target %s", tlc_dtype_name(b->dtype),
		           e->arch->target);
		return;
	}
	indent(e, ind);
	tlc_buf_puts(e->out, "atomicAdd(&");
	cuda_emit_access(e, s->loc, b, dst->u.load.n, dst->u.load.idx);
	tlc_buf_puts(e->out, ", ");
	const tlc_expr *v = c->u.call.args[1];
	cuda_emit_expr(e, v->dtype == b->dtype ? v : tlc_cast(e->m, b->dtype, v));
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_copy_vec(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	int64_t lanes;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || !tlc_expr_as_int(c->u.call.args[2], &lanes) ||
	    dst->u.load.buf->dtype != src->u.load.buf->dtype) {
		cuda_error(e, s->loc, "T.copy_vec needs two elements of one dtype and a constant lane count");
		return;
	}
	int64_t bytes = lanes * tlc_dtype_bits(dst->u.load.buf->dtype) / 8;
	if (bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) {
		cuda_error(e, s->loc, "T.copy_vec of %lld bytes: only 2, 4, 8 and 16 are supported", (long long)bytes);
		return;
	}
	e->helpers |= CUDA_HELPER_COPY_VEC;
	indent(e, ind);
	tlc_buf_printf(e->out, "tlc_copy_vec<%lld>(&", (long long)bytes);
	cuda_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_puts(e->out, ", &");
	cuda_emit_access(e, s->loc, src->u.load.buf, src->u.load.n, src->u.load.idx);
	tlc_buf_puts(e->out, ");\n");
}

void cuda_emit_atomic_add_vec(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	int64_t lanes;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || !tlc_expr_as_int(c->u.call.args[2], &lanes) ||
	    (lanes != 2 && lanes != 4) || dst->u.load.buf->dtype != TLC_DT_FLOAT32 ||
	    src->u.load.buf->dtype != TLC_DT_FLOAT32) {
		cuda_error(e, s->loc, "T.atomic_add_vec needs two float32 elements and 2 or 4 lanes");
		return;
	}
	if (lanes > e->arch->info->atomic_add_f32_vector) {
		/* lower-tile-ops vectorizes atomics only as wide as the target has */
		cuda_error(e, s->loc, "T.atomic_add_vec of %lld lanes: target %s has float32 atomics of at most %d",
		           (long long)lanes, e->arch->target, e->arch->info->atomic_add_f32_vector);
		return;
	}
	indent(e, ind);
	const char *vt = lanes == 4 ? "float4" : "float2";
	tlc_buf_printf(e->out, "atomicAdd(reinterpret_cast<%s *>(&", vt);
	cuda_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_printf(e->out, "), *reinterpret_cast<const %s *>(&", vt);
	cuda_emit_access(e, s->loc, src->u.load.buf, src->u.load.n, src->u.load.idx);
	tlc_buf_puts(e->out, "));\n");
}
