/* cuda_vendor.c - how CUDA spells what the shared GPU C++ printer prints,
 * and the ops and device helpers that only CUDA has. */
#include <stdio.h>

#include "cuda_emit.h"

/* T.mma_gemm, T.atomic_add_vec, cp.async, WGMMA, mbarriers, setmaxnreg and
 * TMA: the rest is the shared printer's. */
static bool cuda_emit_op(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	switch (call->u.call.op) {
	case TLC_OP_MMA_GEMM:
		cuda_emit_mma_gemm(e, call, ind);
		return true;
	case TLC_OP_ATOMIC_ADD_VEC:
		cuda_emit_atomic_add_vec(e, s, ind);
		return true;
	case TLC_OP_FENCE_PROXY_ASYNC:
		/* the thread's generic-proxy writes to shared memory become visible to
		 * the async proxy (WGMMA descriptors, TMA stores) */
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "asm volatile(\"fence.proxy.async.shared::cta;\\n\" ::: \"memory\");\n");
		return true;
	case TLC_OP_WGMMA_ISSUE:
	case TLC_OP_WAIT_WGMMA:
	case TLC_OP_WARPGROUP_FENCE_OPERAND:
		cuda_emit_wgmma(e, s, ind);
		return true;
	case TLC_OP_CP_ASYNC:
	case TLC_OP_CP_ASYNC_COMMIT:
	case TLC_OP_CP_ASYNC_WAIT:
		cuda_emit_cp_async(e, s, ind);
		return true;
	case TLC_OP_MBARRIER_INIT:
	case TLC_OP_MBARRIER_FENCE_INIT:
	case TLC_OP_MBARRIER_ARRIVE:
	case TLC_OP_BARRIER_ARRIVE:
	case TLC_OP_CP_ASYNC_ARRIVE:
	case TLC_OP_CP_ASYNC_ARRIVE_NOINC:
	case TLC_OP_MBARRIER_WAIT_PARITY:
	case TLC_OP_BARRIER_WAIT:
	case TLC_OP_MBARRIER_EXPECT_TX:
	case TLC_OP_MBARRIER_ARRIVE_EXPECT_TX:
		cuda_emit_mbarrier(e, s, ind);
		return true;
	case TLC_OP_SET_MAX_NREG:
		cuda_emit_set_max_nreg(e, s, ind);
		return true;
	case TLC_OP_TMA_LOAD:
		cuda_emit_tma_load(e, s, ind);
		return true;
	case TLC_OP_TMA_STORE:
	case TLC_OP_TMA_STORE_WAIT:
		cuda_emit_tma_store(e, s, ind);
		return true;
	case TLC_OP_CLUSTER_SYNC:
		cuda_emit_cluster_sync(e, s, ind);
		return true;
	case TLC_OP_STMATRIX:
		cuda_emit_stmatrix(e, s, ind);
		return true;
	case TLC_OP_MMA_SYNC:
		cuda_emit_mma_sync(e, s, ind);
		return true;
	default:
		return false;
	}
}

/* The text of device/NAME.cuh and a blank line. */
static void paste_device_text(tlc_buf *out, const char *name)
{
	char file[64];
	snprintf(file, sizeof file, "%s.cuh", name);
	gpu_paste_device_text(out, cuda_device_text(name), file);
}

static void cuda_emit_helpers(tlc_buf *out, unsigned helpers)
{
	/* the one spelling of mma.sync, which the gemm helpers issue too */
	if (helpers & (CUDA_HELPER_MMA_SYNC | CUDA_HELPER_GEMM | CUDA_HELPER_GEMM_X))
		paste_device_text(out, "tlc_mma_sync");
	if (helpers & CUDA_HELPER_GEMM)
		paste_device_text(out, "tlc_gemm");
	if (helpers & CUDA_HELPER_GEMM_X)
		paste_device_text(out, "tlc_gemm_i8_tf32");
	if (helpers & CUDA_HELPER_WGMMA)
		paste_device_text(out, "tlc_wgmma");
	if (helpers & CUDA_HELPER_WGMMA_X)
		paste_device_text(out, "tlc_wgmma_i8_tf32");
	if (helpers & CUDA_HELPER_CP_ASYNC)
		paste_device_text(out, "tlc_cp_async");
	if (helpers & CUDA_HELPER_TMA)
		paste_device_text(out, "tlc_tma");
	if (helpers & CUDA_HELPER_TMA_HOST)
		paste_device_text(out, "tlc_tma_host");
	if (helpers & CUDA_HELPER_STMATRIX)
		paste_device_text(out, "tlc_stmatrix");
}

const gpu_vendor cuda_vendor = {
	.language = "CUDA",
	.includes = "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_fp8.h>\n",
	.float16_type = "half",
	.bfloat16_type = "__nv_bfloat16",
	.float8_e4m3_type = "__nv_fp8_e4m3",
	.float8_e5m2_type = "__nv_fp8_e5m2",
	.float16_to_float = "__half2float",
	.float_to_float16 = "__float2half_rn",
	.bfloat16_to_float = "__bfloat162float",
	.float_to_bfloat16 = "__float2bfloat16_rn",
	/* the full mask: lower-tile-ops emits shuffles in thread-uniform code
	 * only, so every lane of the warp takes part */
	.shfl_xor = "__shfl_xor_sync(0xffffffffu, ",
	.shfl_down = "__shfl_down_sync(0xffffffffu, ",
	.shfl_up = "__shfl_up_sync(0xffffffffu, ",
	.shfl_idx = "__shfl_sync(0xffffffffu, ",
	.sync_warp = "__syncwarp()",
	/* PTX bar.sync a, b: the warps of b threads meet at barrier a (16 per
	 * block; 0 is __syncthreads's) */
	.named_barrier = "asm volatile(\"bar.sync %d, %lld;\\n\" ::: \"memory\")",
	.named_barriers = 16,
	.runtime = "cuda",
	.kernel_handle_cast = "",
	.attr_sm_count = "cudaDevAttrMultiProcessorCount",
	.attr_cooperative = "cudaDevAttrCooperativeLaunch",
	/* the CUDA programming guide's maximum grid dimensions (compute
	 * capability 3.0 and later) */
	.max_grid = {2147483647, 65535, 65535},
	.emit_op = cuda_emit_op,
	.emit_helpers = cuda_emit_helpers,
	.cluster_dims_attr = "__cluster_dims__(%lld, %lld, %lld) ",
	.cluster_rank = "tlc::block_rank_in_cluster()",
	.cluster_helper = CUDA_HELPER_TMA,
};
