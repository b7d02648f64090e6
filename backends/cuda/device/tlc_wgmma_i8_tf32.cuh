/* tlc_wgmma_i8_tf32.cuh - warpgroup tile GEMMs on Hopper wgmma.mma_async
 * for 8-bit integer operands (m64nNk32 .s32.s8.s8 / .s32.u8.u8, int
 * accumulator) and float32 operands on TF32 tensor cores (m64nNk8
 * .f32.tf32.tf32), sm_90a.
 *
 * Pasted into the generated .cu after tlc_wgmma.cuh, whose descriptors
 * (wgmma_detail::operand), sequencing (wgmma_arrive, wgmma_commit,
 * wgmma_wait), accumulator register lists (TLC_WGMMA_R<N>, TLC_WGMMA_D<N>)
 * and conventions it uses unchanged: the warpgroup grid, the
 * accumulator order (C[mi*(NW/2) + r], the m64nNk16 D fragment, which the
 * PTX ISA gives the .s32 and the k8 .f32 D fragments too), the A_regs order
 * (4 registers per m atom and k step, the per-warp mma.sync A fragment of
 * m16n8k32 / m16n8k8 .tf32) and the swizzled stored layouts.
 *
 * The PTX ISA lets wgmma transpose (imm-trans-a/b) .f16 and .bf16 operands
 * only: these read K-major operands, A stored [M][K] (TRANS_A false) and B
 * stored [N][K] (TRANS_B true); lower-tile-ops plans any other layout on
 * mma.sync (tlc_gemm_i8_tf32.cuh).  A k step is 32 bytes of K (32 8-bit or
 * 8 float32 elements), as for the 16-bit and fp8 types.
 *
 * Integer wgmma takes N = 8, 16, 24 and the multiples of 16 up to 256
 * (ptxas refuses m64n40k32 .s8), so the target description plans int8
 * WGMMA on N / WG_N a multiple of 16; float32 is read as TF32 (the low 13
 * mantissa bits of each operand are not part of the value) and takes any
 * multiple of 8. */
#ifndef TLC_WGMMA_I8_TF32_CUH
#define TLC_WGMMA_I8_TF32_CUH

#include <stdint.h>

namespace tlc {

/* An int accumulator pinned like a float one (tlc_wgmma.cuh). */
template <int R>
__device__ __forceinline__ void wgmma_fence_operand(int (&r)[R])
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+r"(r[i])::"memory");
}

namespace wgmma_x_detail {

template <typename T>
struct kind;
template <>
struct kind<int8_t> {
	static constexpr int KS = 32, EB = 1;
	typedef int acc;
};
template <>
struct kind<uint8_t> {
	static constexpr int KS = 32, EB = 1;
	typedef int acc;
};
template <>
struct kind<float> {
	static constexpr int KS = 8, EB = 4;
	typedef float acc;
};

template <int R>
__device__ __forceinline__ void fence_regs(int *r)
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+r"(r[i])::"memory");
}
template <int R>
__device__ __forceinline__ void fence_regs(float *r)
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+f"(r[i])::"memory");
}

/* scale-d is a predicate operand: set it from the integer inside the asm */
#define TLC_WGX_ASM(N, TYPES, C, A, PB, PS, SCALE, IN)                                                        \
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                                          \
	             "wgmma.mma_async.sync.aligned.m64n" #N TYPES " {" TLC_WGMMA_R##N "}, " A ", %" #PB ", p"     \
	             SCALE ";\n}\n"                                                                             \
	             : TLC_WGMMA_D##N(C)                                                                        \
	             : IN)
#define TLC_WGX_SS_IN "l"(desc_a), "l"(desc_b), "r"(scale_d)
#define TLC_WGX_RS_IN "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d)

/* mma_n<N>: one wgmma.mma_async on d[0 .. N/2); scale_d == 0: D = A*B.
 * Operands after the accumulators: ss P0 desc_a, P1 desc_b, P2 scale_d;
 * rs P0..P3 the A registers, P4 desc_b, P5 scale_d. */
template <int N>
struct mma_n;

#define TLC_WGX_DEFINE(N, P0, P1, P2, P3, P4, P5, P6, P7)                                                    \
	template <>                                                                                             \
	struct mma_n<N> {                                                                                       \
		static __device__ __forceinline__ void ss(int *d, uint64_t desc_a, uint64_t desc_b, int scale_d, \
		                                          int8_t)                                               \
		{                                                                                               \
			TLC_WGX_ASM(N, "k32.s32.s8.s8", "+r", "%" #P0, P1, P2, "", TLC_WGX_SS_IN);              \
		}                                                                                               \
		static __device__ __forceinline__ void ss(int *d, uint64_t desc_a, uint64_t desc_b, int scale_d, \
		                                          uint8_t)                                              \
		{                                                                                               \
			TLC_WGX_ASM(N, "k32.s32.u8.u8", "+r", "%" #P0, P1, P2, "", TLC_WGX_SS_IN);              \
		}                                                                                               \
		static __device__ __forceinline__ void ss(float *d, uint64_t desc_a, uint64_t desc_b,           \
		                                          int scale_d, float)                                   \
		{                                                                                               \
			TLC_WGX_ASM(N, "k8.f32.tf32.tf32", "+f", "%" #P0, P1, P2, ", 1, 1", TLC_WGX_SS_IN);     \
		}                                                                                               \
		static __device__ __forceinline__ void rs(int *d, const uint32_t (&a)[4], uint64_t desc_b,      \
		                                          int scale_d, int8_t)                                  \
		{                                                                                               \
			TLC_WGX_ASM(N, "k32.s32.s8.s8", "+r", "{%" #P0 ", %" #P1 ", %" #P2 ", %" #P3 "}", P4, P5, \
			            "", TLC_WGX_RS_IN);                                                         \
		}                                                                                               \
		static __device__ __forceinline__ void rs(int *d, const uint32_t (&a)[4], uint64_t desc_b,      \
		                                          int scale_d, uint8_t)                                 \
		{                                                                                               \
			TLC_WGX_ASM(N, "k32.s32.u8.u8", "+r", "{%" #P0 ", %" #P1 ", %" #P2 ", %" #P3 "}", P4, P5, \
			            "", TLC_WGX_RS_IN);                                                         \
		}                                                                                               \
		static __device__ __forceinline__ void rs(float *d, const uint32_t (&a)[4], uint64_t desc_b,    \
		                                          int scale_d, float)                                   \
		{                                                                                               \
			TLC_WGX_ASM(N, "k8.f32.tf32.tf32", "+f", "{%" #P0 ", %" #P1 ", %" #P2 ", %" #P3 "}", P4, \
			            P5, ", 1, 1", TLC_WGX_RS_IN);                                               \
		}                                                                                               \
	};

TLC_WGX_DEFINE(8, 4, 5, 6, 7, 8, 9, 10, 11)
TLC_WGX_DEFINE(16, 8, 9, 10, 11, 12, 13, 14, 15)
TLC_WGX_DEFINE(24, 12, 13, 14, 15, 16, 17, 18, 19)
TLC_WGX_DEFINE(32, 16, 17, 18, 19, 20, 21, 22, 23)
TLC_WGX_DEFINE(40, 20, 21, 22, 23, 24, 25, 26, 27)
TLC_WGX_DEFINE(48, 24, 25, 26, 27, 28, 29, 30, 31)
TLC_WGX_DEFINE(56, 28, 29, 30, 31, 32, 33, 34, 35)
TLC_WGX_DEFINE(64, 32, 33, 34, 35, 36, 37, 38, 39)
TLC_WGX_DEFINE(72, 36, 37, 38, 39, 40, 41, 42, 43)
TLC_WGX_DEFINE(80, 40, 41, 42, 43, 44, 45, 46, 47)
TLC_WGX_DEFINE(88, 44, 45, 46, 47, 48, 49, 50, 51)
TLC_WGX_DEFINE(96, 48, 49, 50, 51, 52, 53, 54, 55)
TLC_WGX_DEFINE(104, 52, 53, 54, 55, 56, 57, 58, 59)
TLC_WGX_DEFINE(112, 56, 57, 58, 59, 60, 61, 62, 63)
TLC_WGX_DEFINE(120, 60, 61, 62, 63, 64, 65, 66, 67)
TLC_WGX_DEFINE(128, 64, 65, 66, 67, 68, 69, 70, 71)
TLC_WGX_DEFINE(136, 68, 69, 70, 71, 72, 73, 74, 75)
TLC_WGX_DEFINE(144, 72, 73, 74, 75, 76, 77, 78, 79)
TLC_WGX_DEFINE(152, 76, 77, 78, 79, 80, 81, 82, 83)
TLC_WGX_DEFINE(160, 80, 81, 82, 83, 84, 85, 86, 87)
TLC_WGX_DEFINE(168, 84, 85, 86, 87, 88, 89, 90, 91)
TLC_WGX_DEFINE(176, 88, 89, 90, 91, 92, 93, 94, 95)
TLC_WGX_DEFINE(184, 92, 93, 94, 95, 96, 97, 98, 99)
TLC_WGX_DEFINE(192, 96, 97, 98, 99, 100, 101, 102, 103)
TLC_WGX_DEFINE(200, 100, 101, 102, 103, 104, 105, 106, 107)
TLC_WGX_DEFINE(208, 104, 105, 106, 107, 108, 109, 110, 111)
TLC_WGX_DEFINE(216, 108, 109, 110, 111, 112, 113, 114, 115)
TLC_WGX_DEFINE(224, 112, 113, 114, 115, 116, 117, 118, 119)
TLC_WGX_DEFINE(232, 116, 117, 118, 119, 120, 121, 122, 123)
TLC_WGX_DEFINE(240, 120, 121, 122, 123, 124, 125, 126, 127)
TLC_WGX_DEFINE(248, 124, 125, 126, 127, 128, 129, 130, 131)
TLC_WGX_DEFINE(256, 128, 129, 130, 131, 132, 133, 134, 135)

#undef TLC_WGX_DEFINE
#undef TLC_WGX_ASM
#undef TLC_WGX_SS_IN
#undef TLC_WGX_RS_IN

template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, typename T>
__device__ __forceinline__ void check()
{
	constexpr int NW = N / WG_N;
	static_assert(!TRANS_A && TRANS_B, "tlc::wgmma_gemm: int8, uint8 and tf32 operands must be K-major: "
	                                   "TRANS_A == false and TRANS_B == true");
	static_assert(WG_M > 0 && WG_N > 0, "tlc::wgmma_gemm: WG_M and WG_N must be positive");
	static_assert(M % (64 * WG_M) == 0, "tlc::wgmma_gemm: M must be a multiple of 64 * WG_M");
	static_assert(N % (8 * WG_N) == 0 && NW <= 256, "tlc::wgmma_gemm: N / WG_N must be a multiple of 8, at most 256");
	static_assert(kind<T>::EB == 4 || NW <= 24 || NW % 16 == 0,
	              "tlc::wgmma_gemm: integer wgmma takes N = 8, 16, 24 or a multiple of 16 per warpgroup");
	static_assert(K % kind<T>::KS == 0, "tlc::wgmma_gemm: K must be a multiple of 32 (8-bit) or 8 (tf32)");
}

} /* namespace wgmma_x_detail */

/* C += A * B^T (C = A * B^T when !accumulate), A [M][K] and B [N][K] in
 * shared memory with swizzles SWZ_A / SWZ_B; issues and commits one group,
 * the caller waits and fences C (tlc_wgmma.cuh). */
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, int SWZ_A, int SWZ_B, typename T>
__device__ __forceinline__ void wgmma_gemm_x_ss(const T *A, const T *B, typename wgmma_x_detail::kind<T>::acc *C,
                                                int thread, bool accumulate = true)
{
	using namespace wgmma_x_detail;
	check<M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, T>();
	constexpr int EB = kind<T>::EB, KS = kind<T>::KS, MW = M / WG_M, NW = N / WG_N, MI = MW / 64, KI = K / KS;
	using OpA = wgmma_detail::operand<true, SWZ_A, EB, M, K>;
	using OpB = wgmma_detail::operand<true, SWZ_B, EB, N, K>;
	OpA::check();
	OpB::check();
	const int wg = thread >> 7, wm = wg / WG_N, wn = wg % WG_N;
	const uint64_t da = OpA::fields | ((wgmma_detail::smem_addr(A) + OpA::offset(wm * MW, 0)) & 0x3FFFF) >> 4;
	const uint64_t db = OpB::fields | ((wgmma_detail::smem_addr(B) + OpB::offset(wn * NW, 0)) & 0x3FFFF) >> 4;
	fence_regs<MI * NW / 2>(C);
	wgmma_arrive();
#pragma unroll
	for (int mi = 0; mi < MI; mi++) {
#pragma unroll
		for (int ki = 0; ki < KI; ki++)
			mma_n<NW>::ss(C + mi * (NW / 2), da + (OpA::offset(mi * 64, ki * KS) >> 4),
			              db + (OpB::offset(0, ki * KS) >> 4), (accumulate || ki > 0) ? 1 : 0, T());
	}
	wgmma_commit();
	fence_regs<MI * NW / 2>(C);
}

/* The same with A in registers (A_regs: 4 registers per m atom and k step,
 * unchanged until the wait) and B [N][K] in shared memory. */
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_B, int SWZ_B, typename T>
__device__ __forceinline__ void wgmma_gemm_x_rs(const uint32_t *A_regs, const T *B,
                                                typename wgmma_x_detail::kind<T>::acc *C, int thread,
                                                bool accumulate = true)
{
	using namespace wgmma_x_detail;
	check<M, N, K, WG_M, WG_N, false, TRANS_B, T>();
	constexpr int EB = kind<T>::EB, KS = kind<T>::KS, MW = M / WG_M, NW = N / WG_N, MI = MW / 64, KI = K / KS;
	using OpB = wgmma_detail::operand<true, SWZ_B, EB, N, K>;
	OpB::check();
	const int wn = (thread >> 7) % WG_N;
	const uint64_t db = OpB::fields | ((wgmma_detail::smem_addr(B) + OpB::offset(wn * NW, 0)) & 0x3FFFF) >> 4;
	/* every A register the group reads, pinned like C */
	uint32_t a[MI * KI][4];
#pragma unroll
	for (int i = 0; i < MI * KI; i++) {
#pragma unroll
		for (int j = 0; j < 4; j++) {
			a[i][j] = A_regs[i * 4 + j];
			asm volatile("" : "+r"(a[i][j])::"memory");
		}
	}
	fence_regs<MI * NW / 2>(C);
	wgmma_arrive();
#pragma unroll
	for (int mi = 0; mi < MI; mi++) {
#pragma unroll
		for (int ki = 0; ki < KI; ki++)
			mma_n<NW>::rs(C + mi * (NW / 2), a[mi * KI + ki], db + (OpB::offset(0, ki * KS) >> 4),
			              (accumulate || ki > 0) ? 1 : 0, T());
	}
	wgmma_commit();
	fence_regs<MI * NW / 2>(C);
#pragma unroll
	for (int i = 0; i < MI * KI; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
			asm volatile("" : "+r"(a[i][j])::"memory");
}

} /* namespace tlc */

#endif
