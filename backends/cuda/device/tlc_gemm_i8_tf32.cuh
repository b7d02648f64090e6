/* tlc_gemm_i8_tf32.cuh - warp-tiled tile GEMMs on mma.sync for 8-bit
 * integer operands (m16n8k32 .s32.s8.s8.s32 / .s32.u8.u8.s32) and for
 * float32 operands on TF32 tensor cores (m16n8k8 .f32.tf32.tf32.f32),
 * sm_80 and up.
 *
 * Embedded into the cuda target plugin and pasted into the generated .cu
 * when a kernel lowers T.gemm of those types to mma.sync, after
 * tlc_mma_sync.cuh, whose mma_sync_regs issues each atom (and next to
 * tlc_gemm.cuh, whose 16-bit helpers it leaves alone).  Written from the PTX
 * ISA's "Matrix Fragments for mma.m16n8k32" (8-bit integers) and "for
 * mma.m16n8k8" (.tf32); the register orders are those of the fragments in
 * backends/cuda/cuda_info.c.
 *
 *   C[M, N] += op(A)[M, K] * op(B)[K, N]
 *   T = int8_t / uint8_t: C int (wraps, no .satfinite); T = float: C float,
 *   each float32 operand register read by the instruction as TF32.
 *
 * A as stored: TRANS_A ? [K][M] : [M][K]; B: TRANS_B ? [N][K] : [K][N];
 * LayX::off(r, c) is the element offset of the stored element (r, c).  The
 * warp grid, the C order and the A_regs order are tlc_gemm.cuh's: a warp
 * owns (M/WARP_M) x (N/WARP_N) of C in 16x8 atoms (mi, ni), register
 * (mi*NI + ni)*4 + r; A_regs holds (mi*KI + ki)*(4*E) + atom element.
 *
 * An atom's operands, with lane = 4*g + t, E elements per 32-bit register
 * (4 for 8-bit, 1 for tf32), KS the instruction's k (32 or 8), element e of
 * register j (8-bit: bits 8e..8e+7):
 *   A: row g + 8*(j%2), column E*t + e + (KS/2)*(j/2)      (j < 4)
 *   B: row (k) E*t + e + (KS/2)*j, column g                  (j < 2)
 *   C: row g + 8*(r/2), column 2*t + r%2                     (r < 4)
 * The operands are read element by element through LayX::off (no ldmatrix:
 * 8-bit MN-major and 32-bit operands do not fit its 16-bit rows). */
#ifndef TLC_GEMM_I8_TF32_CUH
#define TLC_GEMM_I8_TF32_CUH

#ifndef TLC_MMA_SYNC_CUH
#error "tlc_gemm_i8_tf32.cuh issues its atoms through tlc_mma_sync.cuh: include that first"
#endif

#include <stdint.h>

namespace tlc {
namespace gemm_x_detail {

template <typename T>
struct kind;
template <>
struct kind<int8_t> {
	static constexpr int KS = 32, E = 4;
	typedef int acc;
};
template <>
struct kind<uint8_t> {
	static constexpr int KS = 32, E = 4;
	typedef int acc;
};
template <>
struct kind<float> {
	static constexpr int KS = 8, E = 1;
	typedef float acc;
};

/* E elements in one register, the first in the lowest bits. */
__device__ __forceinline__ unsigned bits(int8_t v)
{
	return (unsigned)(uint8_t)v;
}
__device__ __forceinline__ unsigned bits(uint8_t v)
{
	return (unsigned)v;
}
/* the float32 bits unchanged: the instruction reads them as TF32 (the low
 * 13 mantissa bits are not part of a TF32 value) */
__device__ __forceinline__ unsigned bits(float v)
{
	return __float_as_uint(v);
}

/* The A fragment of the atom at rows m0.., columns k0.. */
template <bool TRANS_A, typename T, class LayA>
__device__ __forceinline__ void load_a(unsigned (&a)[4], const T *A, int m0, int k0, int lane)
{
	constexpr int E = kind<T>::E, KS = kind<T>::KS;
	const int g = lane >> 2, t = lane & 3;
#pragma unroll
	for (int j = 0; j < 4; j++) {
		unsigned r = 0;
#pragma unroll
		for (int e = 0; e < E; e++) {
			int m = m0 + g + 8 * (j & 1), k = k0 + E * t + e + (KS / 2) * (j >> 1);
			r |= bits(TRANS_A ? A[LayA::off(k, m)] : A[LayA::off(m, k)]) << (8 * e);
		}
		a[j] = r;
	}
}

/* The B fragment of the atom at k0.., column n0.. */
template <bool TRANS_B, typename T, class LayB>
__device__ __forceinline__ void load_b(unsigned (&b)[2], const T *B, int k0, int n0, int lane)
{
	constexpr int E = kind<T>::E, KS = kind<T>::KS;
	const int g = lane >> 2, t = lane & 3;
#pragma unroll
	for (int j = 0; j < 2; j++) {
		unsigned r = 0;
#pragma unroll
		for (int e = 0; e < E; e++) {
			int k = k0 + E * t + e + (KS / 2) * j, n = n0 + g;
			r |= bits(TRANS_B ? B[LayB::off(n, k)] : B[LayB::off(k, n)]) << (8 * e);
		}
		b[j] = r;
	}
}

/* One k step: a[mi] holds the warp's A fragments, B is loaded an atom at a
 * time. */
template <int MI, int NI, bool TRANS_B, typename T, class LayB>
__device__ __forceinline__ void k_step(const unsigned (&a)[MI][4], const T *B, typename kind<T>::acc *C, int k0,
                                       int n_base, int lane)
{
#pragma unroll
	for (int ni = 0; ni < NI; ni++) {
		unsigned b[2];
		load_b<TRANS_B, T, LayB>(b, B, k0, n_base + ni * 8, lane);
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
			mma_sync_regs<T, T>(C + (mi * NI + ni) * 4, a[mi], b);
	}
}

template <int M, int N, int K, int WARP_M, int WARP_N, typename T>
__device__ __forceinline__ void check_shape()
{
	static_assert(WARP_M > 0 && WARP_N > 0, "tlc::gemm: WARP_M and WARP_N must be positive");
	static_assert(M % (16 * WARP_M) == 0, "tlc::gemm: M must be a multiple of 16 * WARP_M");
	static_assert(N % (8 * WARP_N) == 0, "tlc::gemm: N must be a multiple of 8 * WARP_N");
	static_assert(K % kind<T>::KS == 0, "tlc::gemm: K must be a multiple of 32 (8-bit) or 8 (tf32)");
}

} /* namespace gemm_x_detail */

/* C += op(A) * op(B) with both operands in shared memory. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, typename T, class LayA,
          class LayB>
__device__ __forceinline__ void gemm_x_ss(const T *A, const T *B, typename gemm_x_detail::kind<T>::acc *C,
                                          int thread)
{
	using namespace gemm_x_detail;
	check_shape<M, N, K, WARP_M, WARP_N, T>();
	constexpr int MI = M / WARP_M / 16, NI = N / WARP_N / 8, KS = kind<T>::KS;
	const int warp = thread >> 5, lane = thread & 31;
	const int m_base = (warp / WARP_N) * (M / WARP_M), n_base = (warp % WARP_N) * (N / WARP_N);
	for (int k0 = 0; k0 < K; k0 += KS) {
		unsigned a[MI][4];
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
			load_a<TRANS_A, T, LayA>(a[mi], A, m_base + mi * 16, k0, lane);
		k_step<MI, NI, TRANS_B, T, LayB>(a, B, C, k0, n_base, lane);
	}
}

/* C += A * op(B) with A in registers (the A_regs order above) and B in
 * shared memory. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, typename T, class LayB>
__device__ __forceinline__ void gemm_x_rs(const T *A_regs, const T *B, typename gemm_x_detail::kind<T>::acc *C,
                                          int thread)
{
	using namespace gemm_x_detail;
	check_shape<M, N, K, WARP_M, WARP_N, T>();
	constexpr int MI = M / WARP_M / 16, NI = N / WARP_N / 8, KS = kind<T>::KS, E = kind<T>::E, KI = K / KS;
	const int warp = thread >> 5, lane = thread & 31;
	const int n_base = (warp % WARP_N) * (N / WARP_N);
	/* unrolled so that every A_regs index is a constant */
#pragma unroll
	for (int ki = 0; ki < KI; ki++) {
		unsigned a[MI][4];
#pragma unroll
		for (int mi = 0; mi < MI; mi++) {
			const T *f = A_regs + (mi * KI + ki) * 4 * E;
#pragma unroll
			for (int j = 0; j < 4; j++) {
				unsigned r = 0;
#pragma unroll
				for (int e = 0; e < E; e++)
					r |= bits(f[j * E + e]) << (8 * e);
				a[mi][j] = r;
			}
		}
		k_step<MI, NI, TRANS_B, T, LayB>(a, B, C, ki * KS, n_base, lane);
	}
}

} /* namespace tlc */

#endif
