// gemm_bad_shape.cu - must NOT compile: M = 24 is not a multiple of
// 16 * WARP_M.  gemm_compile.sh checks that nvcc fails with the helper's
// static_assert message rather than some later, unrelated error.
#include "../../backends/cuda/device/tlc_mma_sync.cuh"
#include "../../backends/cuda/device/tlc_gemm.cuh"

struct Lay {
	static __device__ __forceinline__ int off(int r, int c) { return r * 64 + c; }
};

__global__ void bad(const __half *s, float *out)
{
	float acc[8] = {};
	tlc::gemm_ss<24, 16, 16, 1, 1, false, false, false, false, __half, Lay, Lay>(s, s, acc, threadIdx.x);
	out[threadIdx.x] = acc[0];
}
