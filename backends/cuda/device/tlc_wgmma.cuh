/* tlc_wgmma.cuh - warpgroup tile GEMMs on Hopper wgmma.mma_async (sm_90a).
 *
 * Embedded into the cuda target plugin and pasted into the generated .cu when
 * a kernel lowers T.gemm / T.wgmma_gemm to WGMMA, possibly next to
 * tlc_gemm.cuh and tlc_tma.cuh: the public names are tlc::wgmma_*, everything
 * else lives in tlc::wgmma_detail, and the macros are TLC_WGMMA_* (#undef'd
 * at the end, but for the register lists TLC_WGMMA_R<N> / TLC_WGMMA_D<N>,
 * which tlc_wgmma_i8_tf32.cuh spells its instructions with too).  Written from the PTX ISA's description of wgmma.mma_async,
 * wgmma.fence, wgmma.commit_group, wgmma.wait_group, the m64nNk16 / m64nNk32
 * register fragments, the shared memory matrix descriptor and the canonical
 * (swizzled) shared memory layouts.
 *
 *   C[M, N] (float, registers) += op(A)[M, K] * op(B)[K, N]
 *   TA x TB: __half x __half or __nv_bfloat16 x __nv_bfloat16 (m64nNk16, a
 *   k step of 16), or any pair of __nv_fp8_e4m3 / __nv_fp8_e5m2 (m64nNk32, a
 *   k step of 32; K-major A and B only: wgmma transposes 16-bit types only).
 *   Either way a k step is 32 bytes of K.
 *
 * Sequencing.  wgmma_gemm_ss / wgmma_gemm_rs pin C (fence_operand), execute
 * wgmma_arrive() (wgmma.fence: orders this thread's earlier register and
 * shared-memory accesses before the asynchronous wgmma), issue every
 * wgmma.mma_async of the thread's warpgroup, wgmma_commit() them as one
 * group and pin C again.  They do not wait: the caller emits
 * wgmma_wait<n>() (at most n groups left in flight), then
 * wgmma_fence_operand(C), and only then reads or writes C (or, for _rs,
 * overwrites the A registers).  wgmma_fence_operand is an empty asm that
 * "modifies" each register: the compiler can move no access of C across it,
 * so C is neither read early nor written late around the asynchronous
 * instructions, which the compiler does not know are asynchronous.  Shared
 * operands must be complete before the call (TMA + mbarrier wait, or
 * st.shared + fence.proxy.async + a barrier).  Every thread of each
 * warpgroup taking part must call, converged (.sync.aligned).
 *
 * Warpgroups.  `thread` is the thread id relative to the first thread of the
 * gemm's group (which starts on a multiple of 128); warpgroup g = thread/128,
 * wm = g / WG_N, wn = g % WG_N.  Warpgroup (wm, wn) owns C rows [wm*MW,
 * (wm+1)*MW) and columns [wn*NW, (wn+1)*NW), MW = M/WG_M (a multiple of 64),
 * NW = N/WG_N (a multiple of 8, at most 256): MI = MW/64 m atoms, and one
 * wgmma m64nNWk16 (k32) covers an m atom's whole width per k step.
 *
 * Accumulator.  With t = thread % 128, w = t / 32, l = t % 32, thread t holds
 *   C[mi*(NW/2) + r] = C(64*mi + 16*w + l/4 + 8*((r/2)%2),  8*(r/4) + 2*(l%4) + r%2)
 * for mi < MI, r < NW/2 (rows, columns relative to the warpgroup's block):
 * the native D fragment of m64nNk16 (warp w owns rows 16w..16w+15, each 8
 * columns the m16n8 order of mma.sync), so one wgmma updates C[mi*(NW/2) ..]
 * in place and no register moves between the instruction and the layout
 * algebra's order (include/tlc/layout.h derives the same).
 *
 * A in registers (_rs).  E = 4 / sizeof(TA) elements per register (2 for
 * 16-bit, 4 for fp8), KS = k step (16 or 32), KI = K / KS.  Register
 *   A_regs[(mi*KI + ki)*4 + j],  mi < MI, ki < KI, j < 4,
 * holds E consecutive elements along K, the first in the lowest bits:
 * element e (bits 16e.. or 8e..) is
 *   A(64*mi + 16*w + l/4 + 8*(j%2),  ki*KS + (KS/2)*(j/2) + E*(l%4) + e)
 * (rows relative to the warpgroup's block: wm*MW + ..., columns absolute),
 * the native A fragment of m64nNk16 / m64nNk32 (per warp the A fragment of
 * mma.sync m16n8k16 / m16n8k32; warp w takes rows 16w..16w+15).  A_regs is
 * replicated over the WG_N warpgroups of a row.
 *
 * Stored operands.  A is stored TRANS_A ? [K][M] : [M][K], B TRANS_B ? [N][K]
 * : [K][N]; (R, CC) below is the stored shape (CC contiguous), b the element
 * size, W = SWZ_A / SWZ_B the swizzle in bytes.  So A not transposed and B
 * transposed are K-major (imm-trans 0), the other two MN-major (imm-trans 1).
 *   W = 32, 64, 128: CC*b/W column blocks, one after another, each a
 *     row-major (R, W/b) array; element (r, c) of a block lies at byte
 *     r*W + (((c*b)/16) ^ (((r*W) >> 7) & (W/16 - 1)))*16 + (c*b)%16.
 *     (What TMA writes with that swizzle.)  CC*b must be a multiple of W.
 *   W = 0: plain row-major (R, CC).
 * The array base must be 1024-byte aligned (512 for 64B, 256 for 32B would
 * do); it is then also where the swizzle pattern starts, and as every block
 * starts on a multiple of 8*W bytes (R is a multiple of 8), the XOR above
 * is the hardware's swizzle of the absolute address: address bits 4.. (the
 * 16-byte chunk) XOR bits 7.. (the 128-byte line), log2(W/16) bits each.
 * A descriptor therefore only has to describe the *unswizzled* address of
 * each element, its base offset field stays 0, and its start may lie
 * anywhere a 16-byte chunk of the unswizzled array begins.
 *
 * Descriptors (PTX ISA "matrix descriptor format"): bits 0-13 start >> 4,
 * 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 base offset (0), 62-63 swizzle mode
 * (0 none, 1 128B, 2 64B, 3 32B).  The hardware reads an operand as "core
 * matrices" of 8 rows x 16 bytes in the canonical layout of its major-ness
 * and swizzle; for one instruction, start = the unswizzled address of
 * element (mn0, k0) (mn0 = first row of the m atom / first column of the
 * warpgroup's N block, k0 = ki * KS):
 *
 *   K-major (A [M][K], B [N][K]; 8 MN rows x 16 bytes of K per core matrix,
 *   the two 16-byte K chunks of a k step side by side in a W-byte row):
 *     W > 0: start = (k0*b / W) * R*W + mn0*W + (k0*b) % W   (block, row, chunk)
 *            SBO = 8*W  (the next 8 MN rows), LBO = 16 (unused with a swizzle:
 *            a k step never leaves its W-byte row, as W >= 32 and k0*b is a
 *            multiple of 32).
 *     W = 0: not describable.  Without a swizzle the 8 rows of a core matrix
 *            must be 16 bytes apart, while rows of a plain [MN][K] array are
 *            K*b >= 32 bytes apart: static_assert (use a swizzle).
 *   MN-major (A [K][M], B [K][N], 16-bit only; a W-byte row holds S = W/b
 *   MN elements, 8 k rows W bytes apart make a swizzle atom):
 *     W > 0: start = (mn0 / S) * R*W + k0*W + (mn0 % S)*b
 *            LBO = R*W = K*W (from one atom to the next along MN: the next
 *            column block; unused when the instruction's MN extent is <= S),
 *            SBO = 8*W (from k rows 0-7 to 8-15).
 *     W = 0: a core matrix is 8 k rows of 16 bytes (8 MN elements) 16 bytes
 *            apart, so a plain [K][CC] array qualifies only when CC*b == 16:
 *            B not transposed with N == 8 (16-bit).  start = k0*16; the next
 *            8 k rows are 128 bytes on.  For this layout the PTX ISA calls
 *            the K distance LBO and the 16-byte MN step SBO (the roles swap
 *            against the swizzled MN-major case); as there is a single MN
 *            step, both are set to 128, which reads the same either way.
 *            Every other MN-major operand needs a swizzle (static_assert).
 *
 * All starts are multiples of 16 bytes; those of one warpgroup differ by
 * compile-time constants, so each descriptor is a per-call base plus a
 * constant added to its start field.  An MN-major swizzled B with WG_N > 1
 * and NW not a multiple of S starts (mn0 % S)*b bytes into a swizzled row,
 * relying on the absolute-address swizzle like the K-major k steps at
 * 32/64/96 bytes into a 128-byte row do; the hardware steps to the next
 * atom (LBO) after S elements counted from the start, so such a block must
 * stay inside one atom: NW must divide S (static_assert). */
#ifndef TLC_WGMMA_CUH
#define TLC_WGMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

namespace tlc {

/* ---- sequencing primitives ---- */

__device__ __forceinline__ void wgmma_arrive()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Wait until at most N committed groups of this warpgroup are pending. */
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
	static_assert(N >= 0, "tlc::wgmma_wait: N must be >= 0");
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

template <int R>
__device__ __forceinline__ void wgmma_fence_operand(float (&r)[R])
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+f"(r[i])::"memory");
}

template <int R>
__device__ __forceinline__ void wgmma_fence_operand(uint32_t (&r)[R])
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+r"(r[i])::"memory");
}

namespace wgmma_detail {

template <int R>
__device__ __forceinline__ void fence_regs(float *r)
{
#pragma unroll
	for (int i = 0; i < R; i++)
		asm volatile("" : "+f"(r[i])::"memory");
}

/* ---- element types ---- */

enum { K_F16, K_BF16, K_E4M3, K_E5M2, K_NONE };

template <typename T>
struct type_info {
	static constexpr int kind = K_NONE, bytes = 0;
};
template <>
struct type_info<__half> {
	static constexpr int kind = K_F16, bytes = 2;
};
template <>
struct type_info<__nv_bfloat16> {
	static constexpr int kind = K_BF16, bytes = 2;
};
template <>
struct type_info<__nv_fp8_e4m3> {
	static constexpr int kind = K_E4M3, bytes = 1;
};
template <>
struct type_info<__nv_fp8_e5m2> {
	static constexpr int kind = K_E5M2, bytes = 1;
};

template <typename TA, typename TB>
__device__ __forceinline__ void check_types()
{
	constexpr int ka = type_info<TA>::kind, kb = type_info<TB>::kind;
	static_assert(ka != K_NONE && kb != K_NONE, "tlc::wgmma_gemm: element types must be __half, "
	                                            "__nv_bfloat16, __nv_fp8_e4m3 or __nv_fp8_e5m2");
	static_assert(ka == kb || (type_info<TA>::bytes == 1 && type_info<TB>::bytes == 1),
	              "tlc::wgmma_gemm: A and B must both be __half, both __nv_bfloat16, or both fp8 "
	              "(e4m3/e5m2)");
}

/* ---- descriptors ---- */

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* One shared operand: stored (R, CC) of EB-byte elements, K-major or
 * MN-major, swizzle W bytes.  offset(mn, k): byte offset of the unswizzled
 * address of element (mn, k) (operand coordinates) from the array base, for
 * mn a multiple of 8 and k a multiple of the k step. */
template <bool K_MAJOR, int W, int EB, int R, int CC>
struct operand {
	static constexpr int S = W ? W / EB : 0; /* elements per swizzled row */
	static constexpr int W1 = W ? W : 16;    /* W, but never 0 (no division by 0 in the checks) */
	static constexpr int lbo = K_MAJOR ? 16 : W ? R * W : 128;
	static constexpr int sbo = W ? 8 * W : K_MAJOR ? 0 : 128;
	static constexpr uint64_t mode = W == 128 ? 1 : W == 64 ? 2 : W == 32 ? 3 : 0;
	static constexpr uint64_t fields = ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
	                                   ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | (mode << 62);

	static __host__ __device__ __forceinline__ constexpr uint32_t offset(uint32_t mn, uint32_t k)
	{
		if constexpr (W == 0)
			return k * 16 + mn * EB; /* MN-major, 16-byte rows (K-major: refused by check) */
		else if constexpr (K_MAJOR)
			return (k * EB / W) * (R * W) + mn * W + (k * EB) % W;
		else
			return (mn / S) * (R * W) + k * W + (mn % S) * EB;
	}

	/* A warpgroup's MN block of NW elements at a multiple of NW (see above). */
	static __host__ __device__ constexpr bool block_ok(int NW, int WG)
	{
		return K_MAJOR || W == 0 || WG == 1 || NW % (W1 / EB) == 0 || (W1 / EB) % NW == 0;
	}

	static __device__ __forceinline__ void check()
	{
		static_assert(W == 0 || W == 32 || W == 64 || W == 128,
		              "tlc::wgmma_gemm: swizzle must be 0, 32, 64 or 128 bytes");
		static_assert(W == 0 || (CC * EB) % W1 == 0,
		              "tlc::wgmma_gemm: a stored row (the contiguous dimension) must be a multiple of "
		              "the swizzle width");
		static_assert(W != 0 || !K_MAJOR,
		              "tlc::wgmma_gemm: a K-major operand (A not transposed, B transposed) needs a "
		              "swizzle: without one the rows of a core matrix must be 16 bytes apart, a plain "
		              "[MN][K] array has them K*b >= 32 apart");
		static_assert(W != 0 || K_MAJOR || CC * EB == 16,
		              "tlc::wgmma_gemm: an MN-major operand without a swizzle must have 16-byte stored "
		              "rows (B not transposed with N == 8, 16-bit); use a swizzle otherwise");
		static_assert(K_MAJOR || R * W < (1 << 18),
		              "tlc::wgmma_gemm: LBO (K * swizzle) too large for a descriptor");
	}
};

/* ---- one instruction per N ----
 *
 * mma_n<N>::ss / ::rs issue one wgmma.mma_async m64nNk16 (k32 for fp8) on
 * d[0 .. N/2).  scale_d == 0: D = A*B, else D += A*B.  The operands after
 * the N/2 accumulators are numbered P0.. (generated by TLC_WGMMA_DEFINE):
 *   ss: P0 desc_a, P1 desc_b, P2 scale_d, P3 imm-trans-a, P4 imm-trans-b
 *   rs: P0..P3 the A registers, P4 desc_b, P5 scale_d, P6 imm-trans-b
 * (8-bit types take no transpose immediates; the operands stay unused). */
template <int N>
struct mma_n;

/* TLC_WGMMA_R<N>: "%0, .., %(N/2-1)"; TLC_WGMMA_D<N>(c): their operands with
 * constraint c ("+f" here, "+r" for tlc_wgmma_i8_tf32.cuh's int accumulators). */
#define TLC_WGMMA_R8 "%0, %1, %2, %3"
#define TLC_WGMMA_R16 TLC_WGMMA_R8 ", %4, %5, %6, %7"
#define TLC_WGMMA_R24 TLC_WGMMA_R16 ", %8, %9, %10, %11"
#define TLC_WGMMA_R32 TLC_WGMMA_R24 ", %12, %13, %14, %15"
#define TLC_WGMMA_R40 TLC_WGMMA_R32 ", %16, %17, %18, %19"
#define TLC_WGMMA_R48 TLC_WGMMA_R40 ", %20, %21, %22, %23"
#define TLC_WGMMA_R56 TLC_WGMMA_R48 ", %24, %25, %26, %27"
#define TLC_WGMMA_R64 TLC_WGMMA_R56 ", %28, %29, %30, %31"
#define TLC_WGMMA_R72 TLC_WGMMA_R64 ", %32, %33, %34, %35"
#define TLC_WGMMA_R80 TLC_WGMMA_R72 ", %36, %37, %38, %39"
#define TLC_WGMMA_R88 TLC_WGMMA_R80 ", %40, %41, %42, %43"
#define TLC_WGMMA_R96 TLC_WGMMA_R88 ", %44, %45, %46, %47"
#define TLC_WGMMA_R104 TLC_WGMMA_R96 ", %48, %49, %50, %51"
#define TLC_WGMMA_R112 TLC_WGMMA_R104 ", %52, %53, %54, %55"
#define TLC_WGMMA_R120 TLC_WGMMA_R112 ", %56, %57, %58, %59"
#define TLC_WGMMA_R128 TLC_WGMMA_R120 ", %60, %61, %62, %63"
#define TLC_WGMMA_R136 TLC_WGMMA_R128 ", %64, %65, %66, %67"
#define TLC_WGMMA_R144 TLC_WGMMA_R136 ", %68, %69, %70, %71"
#define TLC_WGMMA_R152 TLC_WGMMA_R144 ", %72, %73, %74, %75"
#define TLC_WGMMA_R160 TLC_WGMMA_R152 ", %76, %77, %78, %79"
#define TLC_WGMMA_R168 TLC_WGMMA_R160 ", %80, %81, %82, %83"
#define TLC_WGMMA_R176 TLC_WGMMA_R168 ", %84, %85, %86, %87"
#define TLC_WGMMA_R184 TLC_WGMMA_R176 ", %88, %89, %90, %91"
#define TLC_WGMMA_R192 TLC_WGMMA_R184 ", %92, %93, %94, %95"
#define TLC_WGMMA_R200 TLC_WGMMA_R192 ", %96, %97, %98, %99"
#define TLC_WGMMA_R208 TLC_WGMMA_R200 ", %100, %101, %102, %103"
#define TLC_WGMMA_R216 TLC_WGMMA_R208 ", %104, %105, %106, %107"
#define TLC_WGMMA_R224 TLC_WGMMA_R216 ", %108, %109, %110, %111"
#define TLC_WGMMA_R232 TLC_WGMMA_R224 ", %112, %113, %114, %115"
#define TLC_WGMMA_R240 TLC_WGMMA_R232 ", %116, %117, %118, %119"
#define TLC_WGMMA_R248 TLC_WGMMA_R240 ", %120, %121, %122, %123"
#define TLC_WGMMA_R256 TLC_WGMMA_R248 ", %124, %125, %126, %127"
#define TLC_WGMMA_D8(c) c(d[0]), c(d[1]), c(d[2]), c(d[3])
#define TLC_WGMMA_D16(c) TLC_WGMMA_D8(c), c(d[4]), c(d[5]), c(d[6]), c(d[7])
#define TLC_WGMMA_D24(c) TLC_WGMMA_D16(c), c(d[8]), c(d[9]), c(d[10]), c(d[11])
#define TLC_WGMMA_D32(c) TLC_WGMMA_D24(c), c(d[12]), c(d[13]), c(d[14]), c(d[15])
#define TLC_WGMMA_D40(c) TLC_WGMMA_D32(c), c(d[16]), c(d[17]), c(d[18]), c(d[19])
#define TLC_WGMMA_D48(c) TLC_WGMMA_D40(c), c(d[20]), c(d[21]), c(d[22]), c(d[23])
#define TLC_WGMMA_D56(c) TLC_WGMMA_D48(c), c(d[24]), c(d[25]), c(d[26]), c(d[27])
#define TLC_WGMMA_D64(c) TLC_WGMMA_D56(c), c(d[28]), c(d[29]), c(d[30]), c(d[31])
#define TLC_WGMMA_D72(c) TLC_WGMMA_D64(c), c(d[32]), c(d[33]), c(d[34]), c(d[35])
#define TLC_WGMMA_D80(c) TLC_WGMMA_D72(c), c(d[36]), c(d[37]), c(d[38]), c(d[39])
#define TLC_WGMMA_D88(c) TLC_WGMMA_D80(c), c(d[40]), c(d[41]), c(d[42]), c(d[43])
#define TLC_WGMMA_D96(c) TLC_WGMMA_D88(c), c(d[44]), c(d[45]), c(d[46]), c(d[47])
#define TLC_WGMMA_D104(c) TLC_WGMMA_D96(c), c(d[48]), c(d[49]), c(d[50]), c(d[51])
#define TLC_WGMMA_D112(c) TLC_WGMMA_D104(c), c(d[52]), c(d[53]), c(d[54]), c(d[55])
#define TLC_WGMMA_D120(c) TLC_WGMMA_D112(c), c(d[56]), c(d[57]), c(d[58]), c(d[59])
#define TLC_WGMMA_D128(c) TLC_WGMMA_D120(c), c(d[60]), c(d[61]), c(d[62]), c(d[63])
#define TLC_WGMMA_D136(c) TLC_WGMMA_D128(c), c(d[64]), c(d[65]), c(d[66]), c(d[67])
#define TLC_WGMMA_D144(c) TLC_WGMMA_D136(c), c(d[68]), c(d[69]), c(d[70]), c(d[71])
#define TLC_WGMMA_D152(c) TLC_WGMMA_D144(c), c(d[72]), c(d[73]), c(d[74]), c(d[75])
#define TLC_WGMMA_D160(c) TLC_WGMMA_D152(c), c(d[76]), c(d[77]), c(d[78]), c(d[79])
#define TLC_WGMMA_D168(c) TLC_WGMMA_D160(c), c(d[80]), c(d[81]), c(d[82]), c(d[83])
#define TLC_WGMMA_D176(c) TLC_WGMMA_D168(c), c(d[84]), c(d[85]), c(d[86]), c(d[87])
#define TLC_WGMMA_D184(c) TLC_WGMMA_D176(c), c(d[88]), c(d[89]), c(d[90]), c(d[91])
#define TLC_WGMMA_D192(c) TLC_WGMMA_D184(c), c(d[92]), c(d[93]), c(d[94]), c(d[95])
#define TLC_WGMMA_D200(c) TLC_WGMMA_D192(c), c(d[96]), c(d[97]), c(d[98]), c(d[99])
#define TLC_WGMMA_D208(c) TLC_WGMMA_D200(c), c(d[100]), c(d[101]), c(d[102]), c(d[103])
#define TLC_WGMMA_D216(c) TLC_WGMMA_D208(c), c(d[104]), c(d[105]), c(d[106]), c(d[107])
#define TLC_WGMMA_D224(c) TLC_WGMMA_D216(c), c(d[108]), c(d[109]), c(d[110]), c(d[111])
#define TLC_WGMMA_D232(c) TLC_WGMMA_D224(c), c(d[112]), c(d[113]), c(d[114]), c(d[115])
#define TLC_WGMMA_D240(c) TLC_WGMMA_D232(c), c(d[116]), c(d[117]), c(d[118]), c(d[119])
#define TLC_WGMMA_D248(c) TLC_WGMMA_D240(c), c(d[120]), c(d[121]), c(d[122]), c(d[123])
#define TLC_WGMMA_D256(c) TLC_WGMMA_D248(c), c(d[124]), c(d[125]), c(d[126]), c(d[127])

/* scale-d is a predicate operand: set it from the integer inside the asm. */
#define TLC_WGMMA_SS_ASM(N, TYPES, TRANS, PA, PB, PS)                                                           \
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                                          \
	             "wgmma.mma_async.sync.aligned.m64n" #N TYPES " {" TLC_WGMMA_R##N "}, %" #PA ", %" #PB      \
	             ", p, 1, 1" TRANS ";\n}\n"                                                                 \
	             : TLC_WGMMA_D##N("+f")                                                                     \
	             : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B))

#define TLC_WGMMA_RS_ASM(N, TYPES, TRANS, PA0, PA1, PA2, PA3, PB, PS)                                       \
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #PS ", 0;\n"                                          \
	             "wgmma.mma_async.sync.aligned.m64n" #N TYPES " {" TLC_WGMMA_R##N "}, {%" #PA0 ", %" #PA1   \
	             ", %" #PA2 ", %" #PA3 "}, %" #PB ", p, 1, 1" TRANS ";\n}\n"                                \
	             : TLC_WGMMA_D##N("+f")                                                                     \
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d), "n"(TRANS_B))

#define TLC_WGMMA_DEFINE(N, P0, P1, P2, P3, P4, P5, P6)                                                      \
	template <>                                                                                             \
	struct mma_n<N> {                                                                                       \
		template <typename TA, typename TB, int TRANS_A, int TRANS_B>                                   \
		static __device__ __forceinline__ void ss(float *d, uint64_t desc_a, uint64_t desc_b,           \
		                                          int scale_d)                                          \
		{                                                                                               \
			constexpr int ka = type_info<TA>::kind, kb = type_info<TB>::kind;                       \
			if constexpr (ka == K_F16)                                                              \
				TLC_WGMMA_SS_ASM(N, "k16.f32.f16.f16", ", %" #P3 ", %" #P4, P0, P1, P2);        \
			else if constexpr (ka == K_BF16)                                                        \
				TLC_WGMMA_SS_ASM(N, "k16.f32.bf16.bf16", ", %" #P3 ", %" #P4, P0, P1, P2);      \
			else if constexpr (ka == K_E4M3 && kb == K_E4M3)                                        \
				TLC_WGMMA_SS_ASM(N, "k32.f32.e4m3.e4m3", "", P0, P1, P2);                       \
			else if constexpr (ka == K_E4M3)                                                        \
				TLC_WGMMA_SS_ASM(N, "k32.f32.e4m3.e5m2", "", P0, P1, P2);                       \
			else if constexpr (kb == K_E4M3)                                                        \
				TLC_WGMMA_SS_ASM(N, "k32.f32.e5m2.e4m3", "", P0, P1, P2);                       \
			else                                                                                    \
				TLC_WGMMA_SS_ASM(N, "k32.f32.e5m2.e5m2", "", P0, P1, P2);                       \
		}                                                                                               \
		template <typename TA, typename TB, int TRANS_B>                                                \
		static __device__ __forceinline__ void rs(float *d, const uint32_t (&a)[4], uint64_t desc_b,    \
		                                          int scale_d)                                          \
		{                                                                                               \
			constexpr int ka = type_info<TA>::kind, kb = type_info<TB>::kind;                       \
			if constexpr (ka == K_F16)                                                              \
				TLC_WGMMA_RS_ASM(N, "k16.f32.f16.f16", ", %" #P6, P0, P1, P2, P3, P4, P5);      \
			else if constexpr (ka == K_BF16)                                                        \
				TLC_WGMMA_RS_ASM(N, "k16.f32.bf16.bf16", ", %" #P6, P0, P1, P2, P3, P4, P5);    \
			else if constexpr (ka == K_E4M3 && kb == K_E4M3)                                        \
				TLC_WGMMA_RS_ASM(N, "k32.f32.e4m3.e4m3", "", P0, P1, P2, P3, P4, P5);           \
			else if constexpr (ka == K_E4M3)                                                        \
				TLC_WGMMA_RS_ASM(N, "k32.f32.e4m3.e5m2", "", P0, P1, P2, P3, P4, P5);           \
			else if constexpr (kb == K_E4M3)                                                        \
				TLC_WGMMA_RS_ASM(N, "k32.f32.e5m2.e4m3", "", P0, P1, P2, P3, P4, P5);           \
			else                                                                                    \
				TLC_WGMMA_RS_ASM(N, "k32.f32.e5m2.e5m2", "", P0, P1, P2, P3, P4, P5);           \
		}                                                                                               \
	};

TLC_WGMMA_DEFINE(8, 4, 5, 6, 7, 8, 9, 10)
TLC_WGMMA_DEFINE(16, 8, 9, 10, 11, 12, 13, 14)
TLC_WGMMA_DEFINE(24, 12, 13, 14, 15, 16, 17, 18)
TLC_WGMMA_DEFINE(32, 16, 17, 18, 19, 20, 21, 22)
TLC_WGMMA_DEFINE(40, 20, 21, 22, 23, 24, 25, 26)
TLC_WGMMA_DEFINE(48, 24, 25, 26, 27, 28, 29, 30)
TLC_WGMMA_DEFINE(56, 28, 29, 30, 31, 32, 33, 34)
TLC_WGMMA_DEFINE(64, 32, 33, 34, 35, 36, 37, 38)
TLC_WGMMA_DEFINE(72, 36, 37, 38, 39, 40, 41, 42)
TLC_WGMMA_DEFINE(80, 40, 41, 42, 43, 44, 45, 46)
TLC_WGMMA_DEFINE(88, 44, 45, 46, 47, 48, 49, 50)
TLC_WGMMA_DEFINE(96, 48, 49, 50, 51, 52, 53, 54)
TLC_WGMMA_DEFINE(104, 52, 53, 54, 55, 56, 57, 58)
TLC_WGMMA_DEFINE(112, 56, 57, 58, 59, 60, 61, 62)
TLC_WGMMA_DEFINE(120, 60, 61, 62, 63, 64, 65, 66)
TLC_WGMMA_DEFINE(128, 64, 65, 66, 67, 68, 69, 70)
TLC_WGMMA_DEFINE(136, 68, 69, 70, 71, 72, 73, 74)
TLC_WGMMA_DEFINE(144, 72, 73, 74, 75, 76, 77, 78)
TLC_WGMMA_DEFINE(152, 76, 77, 78, 79, 80, 81, 82)
TLC_WGMMA_DEFINE(160, 80, 81, 82, 83, 84, 85, 86)
TLC_WGMMA_DEFINE(168, 84, 85, 86, 87, 88, 89, 90)
TLC_WGMMA_DEFINE(176, 88, 89, 90, 91, 92, 93, 94)
TLC_WGMMA_DEFINE(184, 92, 93, 94, 95, 96, 97, 98)
TLC_WGMMA_DEFINE(192, 96, 97, 98, 99, 100, 101, 102)
TLC_WGMMA_DEFINE(200, 100, 101, 102, 103, 104, 105, 106)
TLC_WGMMA_DEFINE(208, 104, 105, 106, 107, 108, 109, 110)
TLC_WGMMA_DEFINE(216, 108, 109, 110, 111, 112, 113, 114)
TLC_WGMMA_DEFINE(224, 112, 113, 114, 115, 116, 117, 118)
TLC_WGMMA_DEFINE(232, 116, 117, 118, 119, 120, 121, 122)
TLC_WGMMA_DEFINE(240, 120, 121, 122, 123, 124, 125, 126)
TLC_WGMMA_DEFINE(248, 124, 125, 126, 127, 128, 129, 130)
TLC_WGMMA_DEFINE(256, 128, 129, 130, 131, 132, 133, 134)

/* The per-instruction wrappers, N a multiple of 8 in 8..256 (TRANS_A,
 * TRANS_B: the imm-trans operands, 1 = MN-major). */
template <int N, typename TA, typename TB, int TRANS_A, int TRANS_B>
__device__ __forceinline__ void mma(uint64_t desc_a, uint64_t desc_b, float *d, int scale_d)
{
	static_assert(N % 8 == 0 && N >= 8 && N <= 256, "tlc::wgmma: N must be a multiple of 8 in 8..256");
	mma_n<N>::template ss<TA, TB, TRANS_A, TRANS_B>(d, desc_a, desc_b, scale_d);
}

template <int N, typename TA, typename TB, int TRANS_B>
__device__ __forceinline__ void mma_rs(const uint32_t (&a)[4], uint64_t desc_b, float *d, int scale_d)
{
	static_assert(N % 8 == 0 && N >= 8 && N <= 256, "tlc::wgmma: N must be a multiple of 8 in 8..256");
	mma_n<N>::template rs<TA, TB, TRANS_B>(d, a, desc_b, scale_d);
}

#undef TLC_WGMMA_DEFINE
#undef TLC_WGMMA_RS_ASM
#undef TLC_WGMMA_SS_ASM

/* ---- tile shape ---- */

template <int M, int N, int K, int WG_M, int WG_N, typename TA, typename TB>
struct shape {
	static constexpr int MW = M / WG_M, NW = N / WG_N, MI = MW / 64;
	/* the k step: 32 bytes of K (2: no division by 0 before check_types fails) */
	static constexpr int KS = 32 / (type_info<TA>::bytes ? type_info<TA>::bytes : 2);
	static constexpr int KI = K / KS;

	static __device__ __forceinline__ void check()
	{
		check_types<TA, TB>();
		static_assert(WG_M > 0 && WG_N > 0, "tlc::wgmma_gemm: WG_M and WG_N must be positive");
		static_assert(M % (64 * WG_M) == 0, "tlc::wgmma_gemm: M must be a multiple of 64 * WG_M");
		static_assert(N % (8 * WG_N) == 0, "tlc::wgmma_gemm: N must be a multiple of 8 * WG_N");
		static_assert(N / WG_N <= 256, "tlc::wgmma_gemm: N / WG_N must be at most 256");
		static_assert(K % KS == 0, "tlc::wgmma_gemm: K must be a multiple of 16 (16-bit) or 32 (fp8)");
	}
};

} /* namespace wgmma_detail */

/* ---- tile-level issue functions ---- */

/* C += op(A) * op(B) (C = op(A) * op(B) when !accumulate), A and B in shared
 * memory in the stored layouts above.  Issues and commits one wgmma group;
 * the caller waits (wgmma_wait<n>) and then fences C (wgmma_fence_operand). */
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_A, bool TRANS_B, int SWZ_A, int SWZ_B, typename TA,
          typename TB>
__device__ __forceinline__ void wgmma_gemm_ss(const TA *A, const TB *B, float *C, int thread, bool accumulate = true)
{
	using namespace wgmma_detail;
	using S = shape<M, N, K, WG_M, WG_N, TA, TB>;
	S::check();
	static_assert(type_info<TA>::bytes == 2 || (!TRANS_A && TRANS_B),
	              "tlc::wgmma_gemm: fp8 operands must be K-major: TRANS_A == false and TRANS_B == true");
	constexpr int EA = type_info<TA>::bytes, EB = type_info<TB>::bytes;
	using OpA = operand<!TRANS_A, SWZ_A, EA, TRANS_A ? K : M, TRANS_A ? M : K>;
	using OpB = operand<TRANS_B, SWZ_B, EB, TRANS_B ? N : K, TRANS_B ? K : N>;
	OpA::check();
	OpB::check();
	static_assert(OpB::block_ok(N / WG_N, WG_N), "tlc::wgmma_gemm: an N-major swizzled B split over WG_N > 1 "
	                                             "warpgroups needs N / WG_N to be a multiple or a divisor of "
	                                             "SWZ_B / sizeof(TB)");
	constexpr int MI = S::MI, NW = S::NW, KI = S::KI, KS = S::KS;

	const int wg = thread >> 7, wm = wg / WG_N, wn = wg % WG_N;
	const uint64_t da = OpA::fields | ((smem_addr(A) + OpA::offset(wm * S::MW, 0)) & 0x3FFFF) >> 4;
	const uint64_t db = OpB::fields | ((smem_addr(B) + OpB::offset(wn * NW, 0)) & 0x3FFFF) >> 4;

	fence_regs<MI * NW / 2>(C);
	wgmma_arrive();
#pragma unroll
	for (int mi = 0; mi < MI; mi++) {
#pragma unroll
		for (int ki = 0; ki < KI; ki++) {
			/* constant start offsets (multiples of 16 bytes) added to the start field */
			const uint64_t desc_a = da + (OpA::offset(mi * 64, ki * KS) >> 4);
			const uint64_t desc_b = db + (OpB::offset(0, ki * KS) >> 4);
			mma<NW, TA, TB, TRANS_A ? 1 : 0, TRANS_B ? 0 : 1>(desc_a, desc_b, C + mi * (NW / 2),
			                                                  (accumulate || ki > 0) ? 1 : 0);
		}
	}
	wgmma_commit();
	fence_regs<MI * NW / 2>(C);
}

/* The same with A in registers (A_regs in the order above, 4 registers per
 * m atom and k step) and B in shared memory.  A_regs must stay unchanged
 * until the wait. */
template <int M, int N, int K, int WG_M, int WG_N, bool TRANS_B, int SWZ_B, typename TA, typename TB>
__device__ __forceinline__ void wgmma_gemm_rs(const uint32_t *A_regs, const TB *B, float *C, int thread,
                                              bool accumulate = true)
{
	using namespace wgmma_detail;
	using S = shape<M, N, K, WG_M, WG_N, TA, TB>;
	S::check();
	static_assert(type_info<TB>::bytes == 2 || TRANS_B,
	              "tlc::wgmma_gemm: an fp8 B must be K-major: TRANS_B == true");
	constexpr int EB = type_info<TB>::bytes;
	using OpB = operand<TRANS_B, SWZ_B, EB, TRANS_B ? N : K, TRANS_B ? K : N>;
	OpB::check();
	static_assert(OpB::block_ok(N / WG_N, WG_N), "tlc::wgmma_gemm: an N-major swizzled B split over WG_N > 1 "
	                                             "warpgroups needs N / WG_N to be a multiple or a divisor of "
	                                             "SWZ_B / sizeof(TB)");
	constexpr int MI = S::MI, NW = S::NW, KI = S::KI, KS = S::KS;

	const int wn = (thread >> 7) % WG_N;
	const uint64_t db = OpB::fields | ((smem_addr(B) + OpB::offset(wn * NW, 0)) & 0x3FFFF) >> 4;

	/* every A register the group reads, pinned like C: materialised before
	 * the fence, left alone until after the commit */
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
		for (int ki = 0; ki < KI; ki++) {
			const uint64_t desc_b = db + (OpB::offset(0, ki * KS) >> 4);
			mma_rs<NW, TA, TB, TRANS_B ? 0 : 1>(a[mi * KI + ki], desc_b, C + mi * (NW / 2),
			                                    (accumulate || ki > 0) ? 1 : 0);
		}
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
