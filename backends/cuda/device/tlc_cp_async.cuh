/* tlc_cp_async.cuh - asynchronous global -> shared copies (cp.async, sm_80 and up).
 *
 * Embedded into the cuda target plugin (scripts/embed.sh) and pasted into the
 * generated .cu when a kernel copies with T.cp_async.  Written from the PTX
 * ISA's description of cp.async, cp.async.commit_group and
 * cp.async.wait_group.
 *
 * A thread's copies run in the background.  They are complete for the thread
 * once cp_async_wait<N>() leaves at most N of its committed groups pending
 * (each cp_async_commit() closes a group of the copies issued since the last
 * one), or once an mbarrier they were attached to (tlc_tma.cuh:
 * cp_async_mbar_arrive) completes its phase.  Other threads see the bytes
 * after a barrier that follows that point. */
#ifndef TLC_CP_ASYNC_CUH
#define TLC_CP_ASYNC_CUH

namespace tlc {

/* Copy BYTES (4, 8 or 16) from global src to shared dst; with in_bounds
 * false nothing is read and dst gets BYTES zeros.  16-byte copies bypass L1
 * (.cg); smaller ones may only use .ca. */
template <int BYTES>
__device__ __forceinline__ void cp_async(void *dst, const void *src, bool in_bounds = true)
{
	static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
	unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	size_t g = __cvta_generic_to_global(src);
	int n = in_bounds ? BYTES : 0;
	if (BYTES == 16)
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(g), "r"(n) : "memory");
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(g), "n"(BYTES), "r"(n)
		             : "memory");
}

/* Close the group of this thread's copies issued since the last commit. */
__device__ __forceinline__ void cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Wait until at most N of this thread's committed groups are pending. */
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

} /* namespace tlc */

#endif
