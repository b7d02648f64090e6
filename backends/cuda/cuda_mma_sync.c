/* cuda_mma_sync.c - T.mma_sync on CUDA: one mma.sync.aligned.m16n8kK of a
 * warp on registers the kernel laid out itself (TileLang's
 * TensorCoreIntrinEmitter.mma), printed as a call of tlc::mma_sync from
 * device/tlc_mma_sync.cuh. */
#include <string.h>

#include <tlc/access.h>
#include <tlc/target.h>

#include "cuda_emit.h"

/* The target's warp instruction for these operands: a row of its matrix
 * table of TLC_MMA_SYNC_M x TLC_MMA_SYNC_N taking the operands from
 * registers (float8 rows exist only from sm_89 on). */
static const tlc_matrix_inst *warp_inst(const tlc_target_info *info, tlc_dtype a, tlc_dtype b)
{
	for (int i = 0; i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		bool same_size = tlc_dtype_bits(x->a) == tlc_dtype_bits(a) &&
		                 tlc_dtype_is_float(x->a) == tlc_dtype_is_float(a);
		/* PTX mixes s8/u8 and e4m3/e5m2 operands within one row's size */
		bool mixable = tlc_dtype_bits(a) == 8 && same_size && tlc_dtype_bits(b) == 8 &&
		               tlc_dtype_is_float(b) == tlc_dtype_is_float(a);
		if (x->m == TLC_MMA_SYNC_M && x->n == TLC_MMA_SYNC_N && x->threads == info->lanes &&
		    (x->a_from & TLC_MMA_FROM_REGS) && ((x->a == a && x->b == b) || mixable) &&
		    x->k == TLC_MMA_SYNC_K_BITS / tlc_dtype_bits(a))
			return x;
	}
	return NULL;
}

void cuda_emit_mma_sync(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	bool ok = call->u.call.nargs == 3;
	for (int i = 0; ok && i < 3; i++)
		ok = call->u.call.args[i]->kind == TLC_EXPR_LOAD &&
		     !tlc_buffer_in_shared(call->u.call.args[i]->u.load.buf);
	if (!ok) {
		tlc_error(e->ctx, s->loc, "T.mma_sync takes elements of three per-thread buffers (C, A, B)");
		return;
	}
	const tlc_buffer *c = call->u.call.args[0]->u.load.buf, *a = call->u.call.args[1]->u.load.buf,
	                 *b = call->u.call.args[2]->u.load.buf;
	const tlc_matrix_inst *x = warp_inst(e->target->desc->info, a->dtype, b->dtype);
	bool acc_ok = x && (c->dtype == x->acc || (c->dtype == TLC_DT_FLOAT16 && a->dtype == TLC_DT_FLOAT16 &&
	                                           b->dtype == TLC_DT_FLOAT16));
	if (!acc_ok) {
		tlc_error(e->ctx, s->loc,
		          "T.mma_sync on %s x %s operands with a %s accumulator: target %s has no mma.sync for them "
		          "(float16/bfloat16 with float32, float16 with float16, int8/uint8 with int32; float8 from sm_89)",
		          tlc_dtype_name(a->dtype), tlc_dtype_name(b->dtype), tlc_dtype_name(c->dtype), gpu_target_name(e));
		return;
	}
	e->helpers |= CUDA_HELPER_MMA_SYNC;
	gpu_indent(e, ind);
	const char *sep = "tlc::mma_sync(&";
	for (int i = 0; i < 3; i++) {
		const tlc_expr *arg = call->u.call.args[i];
		tlc_buf_puts(e->out, sep);
		gpu_emit_access(e, s->loc, arg->u.load.buf, arg->u.load.n, arg->u.load.idx);
		sep = ", &";
	}
	tlc_buf_puts(e->out, ");\n");
}
