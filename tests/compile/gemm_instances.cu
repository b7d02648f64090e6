// gemm_instances.cu - instantiates the mma.sync GEMM helpers
// (backends/cuda/device/tlc_gemm.cuh) over both element types, all four
// transpose combinations, several warp tilings, ldmatrix on and off, with
// row-major and swizzled operand layouts.  Compiled (not run) by
// gemm_compile.sh for sm_90a and sm_80; its PTX is checked for mma.sync and
// every ldmatrix form.  Numerics: tests/gpu/gemm_helper_test.cu.
#include "../../backends/cuda/device/tlc_mma_sync.cuh"
#include "../../backends/cuda/device/tlc_gemm.cuh"

template <int R, int C>
struct RowMajor {
	static constexpr int size = R * C;
	static __device__ __forceinline__ int off(int r, int c) { return r * C + c; }
};

// the swizzled layout of include/tlc/layout.h for 2-byte elements
template <int R, int C, int W>
struct Swizzled {
	static_assert((C * 2) % W == 0, "row must be a multiple of the swizzle width");
	static constexpr int size = R * C;
	static __device__ __forceinline__ int off(int r, int c)
	{
		const int E = W / 2, V = 8;
		int cb = c / E, cc = c % E;
		int chunk = (cc / V) ^ (((r * W) >> 7) & (W / 16 - 1));
		return cb * (R * E) + r * E + chunk * V + cc % V;
	}
};

template <int M, int N, int K, int WM, int WN, bool TA, bool TB, bool LA, bool LB, typename T, class LayA,
          class LayB>
__global__ void ss_kernel(float *out)
{
	extern __shared__ __align__(1024) unsigned char smem[];
	const T *sA = reinterpret_cast<const T *>(smem);
	const T *sB = sA + LayA::size;
	constexpr int NREG = (M / WM / 16) * (N / WN / 8) * 4;
	float acc[NREG];
	for (int i = 0; i < NREG; i++)
		acc[i] = 0.0f;
	tlc::gemm_ss<M, N, K, WM, WN, TA, TB, LA, LB, T, LayA, LayB>(sA, sB, acc, threadIdx.x);
	for (int i = 0; i < NREG; i++)
		out[threadIdx.x * NREG + i] = acc[i];
}

template <int M, int N, int K, int WM, int WN, bool TB, bool LB, typename T, class LayB>
__global__ void rs_kernel(const T *a_in, float *out)
{
	extern __shared__ __align__(1024) unsigned char smem[];
	const T *sB = reinterpret_cast<const T *>(smem);
	constexpr int NREG = (M / WM / 16) * (N / WN / 8) * 4, NA = (M / WM / 16) * (K / 16) * 8;
	T a[NA];
	for (int i = 0; i < NA; i++)
		a[i] = a_in[threadIdx.x * NA + i];
	float acc[NREG];
	for (int i = 0; i < NREG; i++)
		acc[i] = 0.0f;
	tlc::gemm_rs<M, N, K, WM, WN, TB, LB, T, LayB>(a, sB, acc, threadIdx.x);
	for (int i = 0; i < NREG; i++)
		out[threadIdx.x * NREG + i] = acc[i];
}

// stored shapes: A is [K][M] when transposed, B is [N][K] when transposed
#define LAY_A(L, M, K, TA) L<(TA) ? (K) : (M), (TA) ? (M) : (K)>
#define LAY_B(L, N, K, TB) L<(TB) ? (N) : (K), (TB) ? (K) : (N)>
template <int R, int C>
using Swz128 = Swizzled<R, C, 128>;
template <int R, int C>
using Swz32 = Swizzled<R, C, 32>;

#define SS(T, M, N, K, WM, WN, TA, TB, LD, L)                                                                \
	template __global__ void ss_kernel<M, N, K, WM, WN, TA, TB, LD, LD, T, LAY_A(L, M, K, TA),            \
	                                   LAY_B(L, N, K, TB)>(float *);
#define SS_TRANS(T, M, N, K, WM, WN, LD, L)                                                                  \
	SS(T, M, N, K, WM, WN, false, false, LD, L)                                                          \
	SS(T, M, N, K, WM, WN, false, true, LD, L)                                                           \
	SS(T, M, N, K, WM, WN, true, false, LD, L)                                                           \
	SS(T, M, N, K, WM, WN, true, true, LD, L)
#define RS(T, M, N, K, WM, WN, TB, LD, L)                                                                    \
	template __global__ void rs_kernel<M, N, K, WM, WN, TB, LD, T, LAY_B(L, N, K, TB)>(const T *, float *);
#define RS_TRANS(T, M, N, K, WM, WN, LD, L)                                                                  \
	RS(T, M, N, K, WM, WN, false, LD, L)                                                                 \
	RS(T, M, N, K, WM, WN, true, LD, L)

// 64x64x64 on 2x2 warps: x4 loads, 128B swizzles; 16x8x16 on one warp and
// 32x16x32 on 1x2 warps (32B swizzles): the x2 B load; 32x48x32 on 1x2 warps:
// a B pair and a single
#define ALL(T)                                                                                               \
	SS_TRANS(T, 64, 64, 64, 2, 2, true, Swz128)                                                          \
	SS_TRANS(T, 64, 64, 64, 2, 2, true, RowMajor)                                                        \
	SS_TRANS(T, 64, 64, 64, 2, 2, false, Swz128)                                                         \
	SS_TRANS(T, 16, 8, 16, 1, 1, true, RowMajor)                                                        \
	SS_TRANS(T, 32, 16, 32, 1, 2, true, Swz32)                                                            \
	SS_TRANS(T, 16, 8, 16, 1, 1, false, RowMajor)                                                        \
	SS_TRANS(T, 32, 48, 32, 1, 2, true, RowMajor)                                                        \
	RS_TRANS(T, 64, 64, 64, 2, 2, true, Swz128)                                                          \
	RS_TRANS(T, 64, 64, 64, 2, 2, false, RowMajor)                                                       \
	RS_TRANS(T, 32, 16, 32, 1, 2, true, Swz32)                                                            \
	RS_TRANS(T, 32, 48, 32, 1, 2, true, RowMajor)

ALL(__half)
ALL(__nv_bfloat16)
