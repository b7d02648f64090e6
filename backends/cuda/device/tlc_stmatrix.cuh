/* tlc_stmatrix.cuh - a warp's store of 8x8 tiles of 16-bit elements into
 * shared memory (stmatrix, sm_90 and up).
 *
 * Embedded into the cuda target plugin (scripts/embed.sh) and pasted into the
 * generated .cu when a kernel stores with T.stmatrix.  Written from the PTX
 * ISA's description of stmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16.
 *
 * Lane l holds, of each tile, row l / 4 at columns 2 (l % 4) and 2 (l % 4)
 * + 1 as one 32-bit register (the lower column in the lower half): the
 * layout of an mma.sync or WGMMA accumulator's 8-column blocks.  Lanes
 * 8k .. 8k + 7 give the addresses of tile k's rows (16 bytes each, 16-byte
 * aligned).  Every lane of the warp must execute the same instruction. */
#ifndef TLC_STMATRIX_CUH
#define TLC_STMATRIX_CUH

namespace tlc {

/* Two 16-bit values (half, __nv_bfloat16) as one register, lo in bits 0-15. */
template <typename T>
__device__ __forceinline__ unsigned pack_b16(T lo, T hi)
{
	static_assert(sizeof(T) == 2, "stmatrix stores 16-bit elements");
	unsigned short l = *reinterpret_cast<const unsigned short *>(&lo);
	unsigned short h = *reinterpret_cast<const unsigned short *>(&hi);
	return (unsigned)l | ((unsigned)h << 16);
}

__device__ __forceinline__ void stmatrix_x1(void *row, unsigned a)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(
	                 (unsigned)__cvta_generic_to_shared(row)),
	             "r"(a)
	             : "memory");
}

__device__ __forceinline__ void stmatrix_x2(void *row, unsigned a, unsigned b)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};\n" ::"r"(
	                 (unsigned)__cvta_generic_to_shared(row)),
	             "r"(a), "r"(b)
	             : "memory");
}

__device__ __forceinline__ void stmatrix_x4(void *row, unsigned a, unsigned b, unsigned c, unsigned d)
{
	asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(
	                 (unsigned)__cvta_generic_to_shared(row)),
	             "r"(a), "r"(b), "r"(c), "r"(d)
	             : "memory");
}

} // namespace tlc

#endif
