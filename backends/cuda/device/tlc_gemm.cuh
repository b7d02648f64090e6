/* tlc_gemm.cuh - warp-tiled tile GEMMs on mma.sync m16n8k16 (sm_80 and up).
 *
 * Embedded into the cuda target plugin (scripts/embed.sh) and pasted into the
 * generated .cu when a kernel lowers T.gemm to the mma.sync path, after
 * tlc_mma_sync.cuh, whose mma_sync_regs issues each atom.  Written
 * from the PTX ISA's description of the m16n8k16 .f16/.bf16 fragments and of
 * ldmatrix; the register orders below are the ones tlc_fragment_mma_c and
 * tlc_fragment_mma_a in include/tlc/layout.h describe.
 *
 *   C[M, N] += op(A)[M, K] * op(B)[K, N]     T = __half or __nv_bfloat16, C float
 *
 *   A as stored: TRANS_A ? [K][M] : [M][K];  B as stored: TRANS_B ? [N][K] : [K][N].
 *   LayX::off(r, c): the element offset of element (r, c) of X's *stored*
 *   array (r indexes the stored rows, c the stored, last dimension).
 *
 * Warps form a WARP_M x WARP_N grid (warp = thread / 32, wm = warp / WARP_N,
 * wn = warp % WARP_N); a warp owns an (M/WARP_M) x (N/WARP_N) block of C in
 * 16x8 atoms (mi, ni), MI = M/WARP_M/16, NI = N/WARP_N/8; in an atom, with
 * g = lane / 4 and q = lane % 4:
 *   C:      reg ((mi*NI + ni)*4 + h*2 + e)          = C[16mi + 8h + g][8ni + 2q + e]
 *   A_regs: reg ((mi*KI + ki)*8 + hc*4 + hr*2 + e)  = A[16mi + 8hr + g][16ki + 8hc + 2q + e]
 * (rows and columns relative to the warp's block; A_regs replicated over the
 * WARP_N warps of a row).  The mma B fragment of an 16x8 atom is
 *   b[hk*2 + e] = B[16ki + 8hk + 2q + e][8ni + g].
 *
 * LDMATRIX_X: every aligned run of 8 elements along X's stored last dimension
 * is contiguous and 16-byte aligned in shared memory, so one ldmatrix row
 * address may point at it; otherwise the fragments are loaded element by
 * element through LayX::off.  Shared-memory operands only. */
#ifndef TLC_GEMM_CUH
#define TLC_GEMM_CUH

#ifndef TLC_MMA_SYNC_CUH
#error "tlc_gemm.cuh issues its atoms through tlc_mma_sync.cuh: include that first"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tlc {
namespace gemm_detail {

/* Two 16-bit elements in one 32-bit register, the first in the low half
 * (the order mma.sync and ldmatrix use). */
__device__ __forceinline__ unsigned pack2(__half lo, __half hi)
{
	return (unsigned)__half_as_ushort(lo) | ((unsigned)__half_as_ushort(hi) << 16);
}
__device__ __forceinline__ unsigned pack2(__nv_bfloat16 lo, __nv_bfloat16 hi)
{
	return (unsigned)__bfloat16_as_ushort(lo) | ((unsigned)__bfloat16_as_ushort(hi) << 16);
}

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

/* ldmatrix: lane l gives the address of row l % 8 of matrix l / 8; register
 * j of lane l receives row l / 4, columns 2 * (l % 4) + {0, 1} of matrix j
 * (of its transpose with TRANS). */
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void *row)
{
	if (TRANS)
		asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		             : "r"(smem_addr(row)));
	else
		asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		             : "r"(smem_addr(row)));
}
/* The same for two matrices: lanes 0..15 give the row addresses. */
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], const void *row)
{
	if (TRANS)
		asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
		             : "=r"(r[0]), "=r"(r[1])
		             : "r"(smem_addr(row)));
	else
		asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
		             : "=r"(r[0]), "=r"(r[1])
		             : "r"(smem_addr(row)));
}

/* Logical A[m][k] / B[k][n] through the stored orientation. */
template <bool TRANS_A, typename T, class LayA>
__device__ __forceinline__ T load_a(const T *A, int m, int k)
{
	return TRANS_A ? A[LayA::off(k, m)] : A[LayA::off(m, k)];
}
template <bool TRANS_B, typename T, class LayB>
__device__ __forceinline__ T load_b(const T *B, int k, int n)
{
	return TRANS_B ? B[LayB::off(n, k)] : B[LayB::off(k, n)];
}

/* The A fragment of the 16x16 atom at rows m0.., columns k0.. (a0..a7). */
template <bool TRANS_A, bool LDMATRIX_A, typename T, class LayA>
__device__ __forceinline__ void load_a_frag(unsigned (&a)[4], const T *A, int m0, int k0, int lane)
{
	if (LDMATRIX_A) {
		/* matrix j = lane / 8 covers rows m0 + 8 * (j % 2), columns k0 + 8 * (j / 2) */
		int j = lane >> 3, i = lane & 7;
		if (TRANS_A) /* stored [K][M]: rows of the stored 8x8 blocks run along k */
			ldmatrix_x4<true>(a, A + LayA::off(k0 + (j >> 1) * 8 + i, m0 + (j & 1) * 8));
		else
			ldmatrix_x4<false>(a, A + LayA::off(m0 + (j & 1) * 8 + i, k0 + (j >> 1) * 8));
	} else {
		int g = lane >> 2, q = lane & 3;
#pragma unroll
		for (int reg = 0; reg < 4; reg++) {
			int m = m0 + g + (reg & 1) * 8, k = k0 + 2 * q + (reg >> 1) * 8;
			a[reg] = pack2(load_a<TRANS_A, T, LayA>(A, m, k), load_a<TRANS_A, T, LayA>(A, m, k + 1));
		}
	}
}

/* The B fragments of two 16x8 atoms at k0.., columns n0.. and n0 + 8..
 * (b[0..1] and b[2..3]); with PAIR false only the first. */
template <bool PAIR, bool TRANS_B, bool LDMATRIX_B, typename T, class LayB>
__device__ __forceinline__ void load_b_frags(unsigned (&b)[4], const T *B, int k0, int n0, int lane)
{
	if (LDMATRIX_B) {
		/* matrix j covers k0 + 8 * (j % 2), n0 + 8 * (j / 2); for x2 lanes
		 * 16..31 are ignored but still given an in-bounds address */
		int j = (PAIR ? lane : lane & 15) >> 3, i = lane & 7;
		const T *row;
		if (TRANS_B) /* stored [N][K]: an mma B register is a stored row pair */
			row = B + LayB::off(n0 + (j >> 1) * 8 + i, k0 + (j & 1) * 8);
		else
			row = B + LayB::off(k0 + (j & 1) * 8 + i, n0 + (j >> 1) * 8);
		if (PAIR) {
			ldmatrix_x4<!TRANS_B>(b, row);
		} else {
			unsigned r[2];
			ldmatrix_x2<!TRANS_B>(r, row);
			b[0] = r[0];
			b[1] = r[1];
		}
	} else {
		int g = lane >> 2, q = lane & 3;
#pragma unroll
		for (int reg = 0; reg < (PAIR ? 4 : 2); reg++) {
			int k = k0 + 2 * q + (reg & 1) * 8, n = n0 + g + (reg >> 1) * 8;
			b[reg] = pack2(load_b<TRANS_B, T, LayB>(B, k, n), load_b<TRANS_B, T, LayB>(B, k + 1, n));
		}
	}
}

/* One k step of 16: a[mi] holds the warp's A fragments; B pairs of atoms are
 * loaded one pair at a time so that only 4 B registers are live. */
template <int MI, int NI, bool TRANS_B, bool LDMATRIX_B, typename T, class LayB>
__device__ __forceinline__ void mma_k_step(const unsigned (&a)[MI][4], const T *B, float *C, int k0, int n_base,
                                           int lane)
{
#pragma unroll
	for (int ni = 0; ni < NI; ni += 2) {
		unsigned b[4];
		if (ni + 1 < NI)
			load_b_frags<true, TRANS_B, LDMATRIX_B, T, LayB>(b, B, k0, n_base + ni * 8, lane);
		else
			load_b_frags<false, TRANS_B, LDMATRIX_B, T, LayB>(b, B, k0, n_base + ni * 8, lane);
#pragma unroll
		for (int mi = 0; mi < MI; mi++) {
			mma_sync_regs<T, T>(C + (mi * NI + ni) * 4, a[mi], b);
			if (ni + 1 < NI)
				mma_sync_regs<T, T>(C + (mi * NI + ni + 1) * 4, a[mi], b + 2);
		}
	}
}

template <int M, int N, int K, int WARP_M, int WARP_N>
__device__ __forceinline__ void check_shape()
{
	static_assert(WARP_M > 0 && WARP_N > 0, "tlc::gemm: WARP_M and WARP_N must be positive");
	static_assert(M % (16 * WARP_M) == 0, "tlc::gemm: M must be a multiple of 16 * WARP_M");
	static_assert(N % (8 * WARP_N) == 0, "tlc::gemm: N must be a multiple of 8 * WARP_N");
	static_assert(K % 16 == 0, "tlc::gemm: K must be a multiple of 16");
}

} /* namespace gemm_detail */

/* C += op(A) * op(B) with both operands in shared memory. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_A, bool TRANS_B, bool LDMATRIX_A,
          bool LDMATRIX_B, typename T, class LayA, class LayB>
__device__ __forceinline__ void gemm_ss(const T *A, const T *B, float *C, int thread)
{
	gemm_detail::check_shape<M, N, K, WARP_M, WARP_N>();
	constexpr int MI = M / WARP_M / 16, NI = N / WARP_N / 8;
	const int warp = thread >> 5, lane = thread & 31;
	const int m_base = (warp / WARP_N) * (M / WARP_M), n_base = (warp % WARP_N) * (N / WARP_N);
	for (int k0 = 0; k0 < K; k0 += 16) {
		unsigned a[MI][4];
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
			gemm_detail::load_a_frag<TRANS_A, LDMATRIX_A, T, LayA>(a[mi], A, m_base + mi * 16, k0, lane);
		gemm_detail::mma_k_step<MI, NI, TRANS_B, LDMATRIX_B, T, LayB>(a, B, C, k0, n_base, lane);
	}
}

/* C += A * op(B) with A in registers (the A_regs order above) and B in
 * shared memory. */
template <int M, int N, int K, int WARP_M, int WARP_N, bool TRANS_B, bool LDMATRIX_B, typename T, class LayB>
__device__ __forceinline__ void gemm_rs(const T *A_regs, const T *B, float *C, int thread)
{
	gemm_detail::check_shape<M, N, K, WARP_M, WARP_N>();
	constexpr int MI = M / WARP_M / 16, NI = N / WARP_N / 8, KI = K / 16;
	const int warp = thread >> 5, lane = thread & 31;
	const int n_base = (warp % WARP_N) * (N / WARP_N);
	/* unrolled so that every A_regs index is a constant: the caller's
	 * register array stays in registers */
#pragma unroll
	for (int ki = 0; ki < KI; ki++) {
		unsigned a[MI][4];
#pragma unroll
		for (int mi = 0; mi < MI; mi++) {
			const T *f = A_regs + (mi * KI + ki) * 8;
#pragma unroll
			for (int reg = 0; reg < 4; reg++)
				a[mi][reg] = gemm_detail::pack2(f[reg * 2], f[reg * 2 + 1]);
		}
		gemm_detail::mma_k_step<MI, NI, TRANS_B, LDMATRIX_B, T, LayB>(a, B, C, ki * 16, n_base, lane);
	}
}

} /* namespace tlc */

#endif
