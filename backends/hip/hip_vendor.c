/* hip_vendor.c - how HIP (hipcc, clang) spells what the shared GPU C++
 * printer prints, and the op only HIP prints: T.mma_gemm on MFMA.
 *
 * The targets have no asynchronous copy engine, mbarriers, named barriers
 * or warpgroups (their descriptions say so), so lowering emits none of the
 * CUDA-only ops; one that reaches this printer anyway is reported by the
 * shared printer as an op the target does not know. */
#include "hip_emit.h"

static bool hip_emit_op(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *call = s->u.eval.call;
	if (call->u.call.op != TLC_OP_MMA_GEMM)
		return false;
	hip_emit_mma_gemm(e, call, ind);
	return true;
}

static void hip_emit_helpers(tlc_buf *out, unsigned helpers)
{
	if (helpers & HIP_HELPER_FP8)
		gpu_paste_device_text(out, hip_device_text("tlc_fp8"), "tlc_fp8.hip.h");
	if (helpers & HIP_HELPER_MFMA)
		gpu_paste_device_text(out, hip_device_text("tlc_mfma"), "tlc_mfma.hip.h");
}

const gpu_vendor hip_vendor = {
	.language = "HIP",
	/* hip_bfloat16 (HIP 5.x and later): a 16-bit struct whose float
	 * constructor rounds to nearest even */
	.includes = "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <hip/hip_bfloat16.h>\n",
	.float16_type = "__half",
	.bfloat16_type = "hip_bfloat16",
	/* OCP float8 (e4m3fn, e5m2) has no CDNA instruction; CDNA3's are fnuz */
	.float8_e4m3_type = NULL,
	.float8_e5m2_type = NULL,
	.float8_e4m3fnuz_type = "tlc::fp8_e4m3fnuz",
	.float8_e5m2fnuz_type = "tlc::fp8_e5m2fnuz",
	.fnuz_helper = HIP_HELPER_FP8,
	.float16_to_float = "__half2float",
	.float_to_float16 = "__float2half_rn",
	.bfloat16_to_float = "static_cast<float>",
	.float_to_bfloat16 = "hip_bfloat16",
	/* __shfl_xor(var, lane_mask, width = warpSize): the whole wavefront */
	.shfl_xor = "__shfl_xor(",
	.shfl_down = "__shfl_down(",
	.shfl_up = "__shfl_up(",
	.shfl_idx = "__shfl(",
	/* a wavefront runs in lock-step; this keeps the compiler from moving
	 * memory accesses across the point */
	.sync_warp = "__builtin_amdgcn_wave_barrier()",
	.named_barrier = NULL,
	.named_barriers = 0,
	.runtime = "hip",
	.kernel_handle_cast = "(const void *)",
	.attr_sm_count = "hipDeviceAttributeMultiprocessorCount",
	.attr_cooperative = "hipDeviceAttributeCooperativeLaunch",
	/* HIP's hipDeviceProp_t maxGridSize on CDNA is 2^31 - 1 in every
	 * dimension; y and z are kept to CUDA's limits so that the launcher's
	 * checks do not depend on the vendor */
	.max_grid = {2147483647, 65535, 65535},
	.launch_macro = "hipLaunchKernelGGL",
	.emit_op = hip_emit_op,
	.emit_helpers = hip_emit_helpers,
	/* clang keeps a per-thread array of chars in registers when it is
	 * copied as a vector of chars, not as an aggregate of 16 chars (which
	 * sends it to scratch memory); a vector access may alias its element
	 * type (clang gives vector types the TBAA of char) */
	.vec_of = "/* what tlc_copy_vec copies N elements of T as: a clang vector of T for arithmetic T (a\n"
	          " * vector access may alias its elements; an aggregate of 16 chars would send a per-thread\n"
	          " * array to scratch memory), their aggregate otherwise */\n"
	          "template <typename T, int N, bool = __is_arithmetic(T) && !__is_same(T, bool)>\n"
	          "struct tlc_vec_of { typedef tlc_lanes<T, N> type; };\n"
	          "template <typename T, int N> struct tlc_vec_of<T, N, true>\n"
	          "{\n\ttypedef T type __attribute__((ext_vector_type(N)));\n};\n\n",
};
