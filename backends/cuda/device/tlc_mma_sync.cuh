/* tlc_mma_sync.cuh - one warp matrix instruction, mma.sync.aligned.m16n8kK
 * .row.col: the one place its PTX is spelled, for T.mma_sync (TileLang's
 * TensorCoreIntrinEmitter.mma) and for the warp-tiled T.gemm helpers
 * (tlc_gemm.cuh, tlc_gemm_i8_tf32.cuh, pasted after this file).
 *
 * Embedded into the cuda target plugin (scripts/embed.sh) and pasted into the
 * generated .cu when a kernel uses one of them.  Written from the PTX ISA's
 * description of mma.sync.aligned.m16n8k16 / m16n8k32 / m16n8k8 (.tf32).
 *
 * mma_sync_regs<A, B>(d, ra, rb): D += A B on the registers of one lane, ra
 * the four 32-bit A registers and rb the two B registers in the PTX ISA's
 * fragment order, d four float or int accumulators (two registers of half
 * pairs for a float16 one); K = 256 / the operands' bits (float: TF32, K 8).
 * Not volatile: it touches only its operands, so the compiler may schedule
 * it between the loads of the next ones.
 *
 * mma_sync(d, a, b): the same from a lane's consecutive elements of the A,
 * B and C/D fragments (tlc/target.h repeats the tables); the registers are
 * copied out of the element arrays with memcpy (no aliasing through another
 * type) and the compiler keeps them in registers once the indices are
 * constant.  Every lane of the warp must execute the same instruction. */
#ifndef TLC_MMA_SYNC_CUH
#define TLC_MMA_SYNC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string.h>

namespace tlc {

template <typename X, typename Y> struct mma_same { static constexpr bool value = false; };
template <typename X> struct mma_same<X, X> { static constexpr bool value = true; };

#define TLC_MMA_SYNC_4(ptx, c)                                                                          \
	asm(ptx " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"                    \
	    : c(d[0]), c(d[1]), c(d[2]), c(d[3])                                                        \
	    : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]))

template <typename A, typename B, typename D>
__device__ __forceinline__ void mma_sync_regs(D *d, const unsigned (&ra)[4], const unsigned *rb)
{
	if constexpr (mma_same<D, half>::value) {
		static_assert(mma_same<A, half>::value && mma_same<B, half>::value, "a float16 accumulator needs float16 operands");
		unsigned rc[2];
		memcpy(rc, d, sizeof rc);
		asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
		    : "+r"(rc[0]), "+r"(rc[1])
		    : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
		memcpy(d, rc, sizeof rc);
	} else if constexpr (mma_same<A, half>::value && mma_same<B, half>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "+f");
	} else if constexpr (mma_same<A, __nv_bfloat16>::value && mma_same<B, __nv_bfloat16>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "+f");
	} else if constexpr (mma_same<A, float>::value && mma_same<B, float>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "+f");
	} else if constexpr (mma_same<A, signed char>::value && mma_same<B, signed char>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "+r");
	} else if constexpr (mma_same<A, signed char>::value && mma_same<B, unsigned char>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", "+r");
	} else if constexpr (mma_same<A, unsigned char>::value && mma_same<B, signed char>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", "+r");
	} else if constexpr (mma_same<A, unsigned char>::value && mma_same<B, unsigned char>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", "+r");
	} else if constexpr (mma_same<A, __nv_fp8_e4m3>::value && mma_same<B, __nv_fp8_e4m3>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "+f");
	} else if constexpr (mma_same<A, __nv_fp8_e4m3>::value && mma_same<B, __nv_fp8_e5m2>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", "+f");
	} else if constexpr (mma_same<A, __nv_fp8_e5m2>::value && mma_same<B, __nv_fp8_e4m3>::value) {
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", "+f");
	} else {
		static_assert(mma_same<A, __nv_fp8_e5m2>::value && mma_same<B, __nv_fp8_e5m2>::value,
		              "no mma.sync for these operand types");
		TLC_MMA_SYNC_4("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", "+f");
	}
}

template <typename D, typename A, typename B>
__device__ __forceinline__ void mma_sync(D *d, const A *a, const B *b)
{
	static_assert(sizeof(A) == sizeof(B), "mma.sync operands have one size");
	/* T.mma_sync takes 16- and 8-bit operands (tlc/ops.def); TF32 is T.gemm's */
	static_assert(sizeof(A) < 4, "T.mma_sync takes no float32 (TF32) operands");
	unsigned ra[4], rb[2];
	memcpy(ra, a, sizeof ra);
	memcpy(rb, b, sizeof rb);
	mma_sync_regs<A, B>(d, ra, rb);
}

#undef TLC_MMA_SYNC_4

} // namespace tlc

#endif
