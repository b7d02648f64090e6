/* tlc_tma.cuh - Hopper TMA (bulk tensor copies) and mbarriers (sm_90 and up).
 *
 * Embedded into the cuda target plugin and pasted into the generated .cu when
 * a kernel moves tiles with TMA.  Written from the PTX ISA's description of
 * mbarrier.*, cp.async.bulk.tensor, cp.async.bulk.commit_group / wait_group,
 * cp.async.mbarrier.arrive, fence.proxy.async, fence.mbarrier_init,
 * elect.sync and prefetch.tensormap.  The host side (the CUtensorMap every
 * copy names) is tlc_tma_host.cuh.
 *
 * mbarriers.  A barrier is a uint64_t in shared memory (8-byte aligned),
 * passed as a generic pointer.  One thread initialises it with the number of
 * arrivals a phase needs (mbar_init), then calls mbar_fence_init() and the
 * block synchronises (__syncthreads) before anyone arrives, waits or names it
 * in a copy.  A phase completes when all its arrivals have happened and its
 * transaction count (bytes announced by expect_tx minus bytes the copies
 * reported with complete_tx) is back to zero; the barrier then moves to the
 * next phase by itself.  Phases are numbered 0, 1, 2, ... from the init;
 * waits name a phase by its parity (phase & 1):
 *
 *   mbar_wait(bar, p) returns once the most recent phase of parity p has
 *   completed.  Right after mbar_init, phase 0 is the current one: waiting
 *   for parity 0 blocks until it completes, waiting for parity 1 returns at
 *   once (the "phase before 0" counts as completed).
 *
 * So a consumer of a ring of S stages waits full[s] with parity (k / S) & 1
 * at its k-th use of stage s = k % S, and the producer waits empty[s] with
 * parity ((k / S) & 1) ^ 1: its first round passes without waiting, as the
 * buffers start empty.  A waiter must never fall two phases behind (the
 * parity cannot tell phase n from phase n + 2); a full/empty pair ensures it.
 * A completed wait has acquire semantics at CTA scope: the data the copies
 * wrote and what arriving threads stored before mbar_arrive (release) are
 * visible after it.
 *
 * expect_tx byte counts: the full box, out-of-bounds elements included (the
 * hardware fills them with zeros and counts them).  A phase's pending
 * transaction count must stay below 2^20 bytes.
 *
 * TMA.  The tensor map must live in kernel-parameter, constant or global
 * memory: the generated kernels take it as a `const __grid_constant__
 * CUtensorMap` parameter and pass its address.  (Without __grid_constant__
 * the address of a parameter is that of a local copy, which TMA cannot
 * read.)  Coordinates are element indices, innermost (contiguous) dimension
 * first, signed 32-bit.  Shared addresses must be 128-byte aligned; with a
 * swizzle of W bytes the tile base must be aligned to 8 * W (256, 512,
 * 1024) for the swizzled layout of include/tlc/layout.h to hold relative to
 * the tile base: for a box of
 * (R, W/b) elements of b bytes, element (r, c) lies at byte
 *   r*W + (((c*b)/16) ^ (((r*W) >> 7) & (W/16 - 1)))*16 + (c*b)%16
 * (a box of more than two dimensions is a stack of rows, r running over all
 * of its outer indices row-major).
 *
 * Box origins and the tensor's edges.  Rules the compiler must keep (the
 * helpers do not check them; breaking one is undefined behaviour, and on
 * an H100 the ones marked "trap" end the kernel with "an illegal
 * instruction was encountered"):
 *
 *   1. The origin's inner coordinate times the element size is a multiple
 *      of 16 bytes (loads and stores, negative origins of loads included).
 *      PTX ISA 5.5.3.1 (tiled mode, Bounding Box): "Size of each bounding
 *      Box must be a multiple of 16 bytes.  The address of the bounding Box
 *      must also be aligned to 16 bytes."  With the base address and the
 *      outer strides 16-byte aligned (tlc_tma_encode checks both), that is
 *      c0 * element size % 16 == 0.  Tile origins (tile index times a box
 *      whose inner extent is a 16-byte multiple) always are; an origin moved
 *      by an odd element count (a halo, an unaligned slice start) is not.
 *
 *   2. Loads: any origin (negative, or partly or wholly past the end).  The
 *      elements of the box outside the tensor arrive as zeros, element by
 *      element (PTX ISA 5.5.3.3, zero fill mode), and still count in the
 *      box's complete_tx bytes.
 *
 *   3. Stores: every origin coordinate >= 0 (trap).  CUDA C++ Programming
 *      Guide, TMA, "Negative indices and out of bounds": "When writing from
 *      shared to global memory, parts of the tile may be out of bounds, but
 *      the top left corner cannot have any negative indices."  The compiler
 *      also never issues a store whose origin is at or past the end of a
 *      dimension (nothing of it is in the tensor; not tested).
 *
 *   4. Stores write whole 16-byte chunks of global memory along dimension 0.
 *      The parts of the box past the end of an outer dimension are not
 *      written, and neither are the parts past dims[0] beyond the 16-byte
 *      chunk that holds the tensor's last element; but in every in-range row
 *      the bytes from dims[0] * element size up to the next multiple of 16
 *      ARE written, with the box's values for those (out-of-range) columns.
 *      Exact only when dims[0] * element size % 16 == 0.  (Seen on H100:
 *      the row padding past a 196-element fp16 row took the box's values;
 *      Triton issue #11583 reports the same of H100 TMA stores.  The PTX
 *      ISA defines out-of-bound handling only as the fill of loads.)  Those
 *      bytes lie inside the row pitch (strides are 16-byte multiples), so
 *      they are the tensor's own padding, unless the tensor is a view
 *      into a wider one (a column slice), where they are someone else's
 *      data; for a rank-1 tensor they follow its last element.
 *      tlc_tma_store_overhang_bytes() (tlc_tma_host.cuh) gives the
 *      count; the compiler may use TMA stores only where it is 0 or the
 *      padding is known to be dead, and stores the last partial 16-byte
 *      column chunk of the other tensors with ordinary stores instead.
 *
 * Who issues.  The copies and the expect_tx are issued by one thread: the
 * compiler guards them with `threadIdx.x == <first thread of the producer
 * group>`, or with elect_one() when a whole producer warp runs the code
 * (elect.sync needs the full warp converged).  Every thread may wait.
 *
 * PTX forms.  Loads use the `.shared::cluster` destination form of
 * cp.async.bulk.tensor (PTX ISA 8.0, sm_90): a CTA's own shared address is a
 * valid .shared::cluster address naming its own memory, so it works with or
 * without clusters, and it assembles with every toolkit that knows TMA
 * (12.0 on).  The `.shared::cta` destination form needs PTX ISA 8.6, which
 * toolkits up to 12.6 (PTX ISA 8.5) reject; CUDA 13.0 accepts both for
 * sm_90a, and for a CTA's own memory they mean the same copy.  Stores use
 * the .global.shared::cta bulk_group form (PTX ISA 8.0).
 *
 * Generic-proxy stores (st.shared) and TMA / WGMMA (the async proxy) see
 * shared memory through different proxies: after threads write a tile that
 * a TMA store or a WGMMA will read, each writer calls fence_proxy_async_shared()
 * before the barrier that publishes it.  The same fence orders generic
 * accesses before a TMA load that overwrites the same bytes. */
#ifndef TLC_TMA_CUH
#define TLC_TMA_CUH

#include <cuda.h> /* CUtensorMap (the type only: nothing links against libcuda) */
#include <stdint.h>

namespace tlc {
namespace tma_detail {

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ uint64_t map_addr(const CUtensorMap *map)
{
	return reinterpret_cast<uint64_t>(map);
}

/* cp.async.bulk.tensor loads, one per rank (the coordinate list is part of
 * the instruction).  "memory": the copy writes shared memory behind the
 * compiler's back. */
__device__ __forceinline__ void load(const CUtensorMap *map, uint32_t bar, uint32_t dst, int c0)
{
	asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3}], [%2];\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "r"(c0)
	             : "memory");
}
__device__ __forceinline__ void load(const CUtensorMap *map, uint32_t bar, uint32_t dst, int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4}], [%2];\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "r"(c0), "r"(c1)
	             : "memory");
}
__device__ __forceinline__ void load(const CUtensorMap *map, uint32_t bar, uint32_t dst, int c0, int c1, int c2)
{
	asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4, %5}], [%2];\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
	             : "memory");
}
__device__ __forceinline__ void load(const CUtensorMap *map, uint32_t bar, uint32_t dst, int c0, int c1, int c2,
                                     int c3)
{
	asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4, %5, %6}], [%2];\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
	             : "memory");
}
__device__ __forceinline__ void load(const CUtensorMap *map, uint32_t bar, uint32_t dst, int c0, int c1, int c2,
                                     int c3, int c4)
{
	asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
	             : "memory");
}

/* The same loads multicast: the box lands at the same shared offset in every
 * block of the cluster whose rank is a bit of `mask`, and completes its
 * bytes on the barrier at the same offset in each. */
__device__ __forceinline__ void load_multicast(const CUtensorMap *map, uint32_t bar, uint32_t dst, uint16_t mask,
                                               int c0)
{
	asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%4}], [%2], %3;\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "h"(mask), "r"(c0)
	             : "memory");
}
__device__ __forceinline__ void load_multicast(const CUtensorMap *map, uint32_t bar, uint32_t dst, uint16_t mask,
                                               int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%4, %5}], [%2], %3;\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1)
	             : "memory");
}
__device__ __forceinline__ void load_multicast(const CUtensorMap *map, uint32_t bar, uint32_t dst, uint16_t mask,
                                               int c0, int c1, int c2)
{
	asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%4, %5, %6}], [%2], %3;\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2)
	             : "memory");
}
__device__ __forceinline__ void load_multicast(const CUtensorMap *map, uint32_t bar, uint32_t dst, uint16_t mask,
                                               int c0, int c1, int c2, int c3)
{
	asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%4, %5, %6, %7}], [%2], %3;\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
	             : "memory");
}
__device__ __forceinline__ void load_multicast(const CUtensorMap *map, uint32_t bar, uint32_t dst, uint16_t mask,
                                               int c0, int c1, int c2, int c3, int c4)
{
	asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%4, %5, %6, %7, %8}], [%2], %3;\n"
	             :
	             : "r"(dst), "l"(map_addr(map)), "r"(bar), "h"(mask), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
	             : "memory");
}

/* cp.async.bulk.tensor stores into the thread's current bulk group. */
__device__ __forceinline__ void store(const CUtensorMap *map, uint32_t src, int c0)
{
	asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];\n"
	             :
	             : "l"(map_addr(map)), "r"(src), "r"(c0)
	             : "memory");
}
__device__ __forceinline__ void store(const CUtensorMap *map, uint32_t src, int c0, int c1)
{
	asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n"
	             :
	             : "l"(map_addr(map)), "r"(src), "r"(c0), "r"(c1)
	             : "memory");
}
__device__ __forceinline__ void store(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2)
{
	asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n"
	             :
	             : "l"(map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2)
	             : "memory");
}
__device__ __forceinline__ void store(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2, int c3)
{
	asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n"
	             :
	             : "l"(map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
	             : "memory");
}
__device__ __forceinline__ void store(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2, int c3, int c4)
{
	asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n"
	             :
	             : "l"(map_addr(map)), "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
	             : "memory");
}

template <int RANK, int NCOORDS>
__device__ __forceinline__ void check_rank()
{
	static_assert(RANK >= 1 && RANK <= 5, "tlc::tma: RANK must be 1..5");
	static_assert(NCOORDS == RANK, "tlc::tma: give exactly RANK coordinates, innermost first");
}

} /* namespace tma_detail */

/* ---- mbarriers ---- */

/* Set up a barrier whose phases each need `count` arrivals (1 .. 2^20 - 1).
 * One thread; then mbar_fence_init() and a block barrier. */
__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(tma_detail::smem_addr(bar)), "r"(count)
	             : "memory");
}

/* Make the initialising thread's mbar_init()s visible to the other threads
 * of the cluster and to the async proxy (the copies that complete_tx on
 * them) once the following __syncthreads / cluster barrier is passed.
 * fence.mbarrier_init.release.cluster is the fence the PTX ISA provides for
 * this; fence.proxy.async.shared::cta in addition orders the init, a
 * generic-proxy write, before the async-proxy accesses of the TMA unit. */
__device__ __forceinline__ void mbar_fence_init()
{
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Invalidate a barrier before its 8 bytes are reused for anything else. */
__device__ __forceinline__ void mbar_inval(uint64_t *bar)
{
	asm volatile("mbarrier.inval.shared::cta.b64 [%0];\n" ::"r"(tma_detail::smem_addr(bar)) : "memory");
}

/* One arrival (release semantics at CTA scope). */
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(tma_detail::smem_addr(bar)) : "memory");
}

/* One arrival on the barrier at bar's place in block `cta` of the cluster
 * (mapa turns the address into that block's).  Release semantics at CTA
 * scope, as the PTX ISA's default: what this thread must have finished
 * before the arrival is the reads of the stage being freed (its WGMMA
 * reads, complete after their wait), and the other block's producer,
 * which waits for the arrival, only then issues the copy that overwrites
 * them. */
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, uint32_t cta)
{
	asm volatile("{\n\t"
	             ".reg .b32 remote;\n\t"
	             "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
	             "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t"
	             "}\n" ::"r"(tma_detail::smem_addr(bar)),
	             "r"(cta)
	             : "memory");
}

/* Announce `bytes` more bytes of copies completing on the current phase, then
 * arrive: what the producer does right before issuing the phase's loads. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(tma_detail::smem_addr(bar)),
	             "r"(bytes)
	             : "memory");
}

/* Announce `bytes` without arriving (the arrival comes from elsewhere). */
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
	asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(tma_detail::smem_addr(bar)),
	             "r"(bytes)
	             : "memory");
}

/* True once the most recent phase of parity `parity` (0 or 1) has completed
 * (see the header comment); may suspend the thread for a while before
 * answering false.  Acquire semantics at CTA scope when true. */
__device__ __forceinline__ bool mbar_try_wait(uint64_t *bar, uint32_t parity)
{
	uint32_t done;
	asm volatile("{\n\t"
	             ".reg .pred p;\n\t"
	             "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
	             "selp.u32 %0, 1, 0, p;\n\t"
	             "}\n"
	             : "=r"(done)
	             : "r"(tma_detail::smem_addr(bar)), "r"(parity & 1u)
	             : "memory");
	return done != 0;
}

/* Block until the most recent phase of parity `parity` has completed. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
	while (!mbar_try_wait(bar, parity)) {
	}
}

/* Make the barrier track this thread's cp.async (non-bulk) copies issued so
 * far: when they complete, the barrier receives one arrival from this
 * thread.  .noinc: that arrival is one of the `count` the barrier was
 * initialised with (count it in mbar_init), not an extra one.  For a
 * producer that fills one stage with both cp.async and TMA. */
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(uint64_t *bar)
{
	asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(tma_detail::smem_addr(bar))
	             : "memory");
}

/* Make the barrier's current phase also wait for this thread's cp.async
 * copies issued so far: its pending arrivals go up by one now and come down
 * when they complete, so the count the barrier was initialised with does not
 * change.  The thread still arrives itself (mbar_arrive), which releases its
 * ordinary stores too.  For a producer whose stage mixes cp.async and TMA. */
__device__ __forceinline__ void cp_async_mbar_arrive(uint64_t *bar)
{
	asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];\n" ::"r"(tma_detail::smem_addr(bar)) : "memory");
}

/* ---- TMA ---- */

/* Load the box at element coordinates (c0 innermost, ...; c0 times the
 * element size a multiple of 16 bytes, rule 1 of the header comment) of the
 * tensor `map` describes into shared memory at smem_dst; completes
 * box-bytes transactions on `bar` (announce them with
 * mbar_arrive_expect_tx). */
template <int RANK, typename... Coords>
__device__ __forceinline__ void tma_load(const CUtensorMap *map, uint64_t *bar, void *smem_dst, Coords... coords)
{
	tma_detail::check_rank<RANK, (int)sizeof...(Coords)>();
	tma_detail::load(map, tma_detail::smem_addr(bar), tma_detail::smem_addr(smem_dst), (int)coords...);
}

/* tma_load for every block of the cluster in `mask` (bit r: rank r): the
 * box lands at smem_dst's offset in each and completes on bar's offset in
 * each, so every receiving block expects its bytes on its own barrier. */
template <int RANK, typename... Coords>
__device__ __forceinline__ void tma_load_multicast(const CUtensorMap *map, uint16_t mask, uint64_t *bar, void *smem_dst,
                                                   Coords... coords)
{
	tma_detail::check_rank<RANK, (int)sizeof...(Coords)>();
	tma_detail::load_multicast(map, tma_detail::smem_addr(bar), tma_detail::smem_addr(smem_dst), mask, (int)coords...);
}

/* ---- clusters ---- */

/* The block's rank in its cluster (x fastest). */
__device__ __forceinline__ int block_rank_in_cluster()
{
	uint32_t r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
	return (int)r;
}

/* Every thread of every block of the cluster arrives, then waits for the
 * others: writes before it, to any block's shared memory, are visible to
 * all after it (release / acquire at cluster scope).  Every thread of the
 * block must call it (.aligned). */
__device__ __forceinline__ void cluster_sync()
{
	asm volatile("barrier.cluster.arrive.release.aligned;\n"
	             "barrier.cluster.wait.acquire.aligned;\n" ::
	                 : "memory");
}

/* Store the box at smem_src to the tensor at the given coordinates (all
 * >= 0, the inner one 16-byte aligned); parts of the box outside the tensor
 * are not written, except the bytes up to the next 16-byte boundary past
 * each row's end (rules 3 and 4 of the header comment).  Adds to the
 * thread's current bulk group: tma_store_commit() closes it. */
template <int RANK, typename... Coords>
__device__ __forceinline__ void tma_store(const CUtensorMap *map, const void *smem_src, Coords... coords)
{
	tma_detail::check_rank<RANK, (int)sizeof...(Coords)>();
	tma_detail::store(map, tma_detail::smem_addr(smem_src), (int)coords...);
}

/* Close the issuing thread's current bulk group. */
__device__ __forceinline__ void tma_store_commit()
{
	asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Wait until at most N of the thread's committed bulk groups are still
 * reading their shared source: the shared memory of the others may be
 * overwritten.  Their global writes may still be in flight. */
template <int N = 0>
__device__ __forceinline__ void tma_store_wait()
{
	static_assert(N >= 0, "tlc::tma_store_wait: N >= 0");
	asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* Wait until at most N of the thread's committed bulk groups are pending at
 * all: the others' writes to global memory are complete (and visible to the
 * issuing thread; the end of the kernel publishes them to later work). */
template <int N = 0>
__device__ __forceinline__ void tma_store_wait_all()
{
	static_assert(N >= 0, "tlc::tma_store_wait_all: N >= 0");
	asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* Order this thread's earlier generic-proxy accesses to shared memory before
 * later async-proxy ones (TMA stores and loads, WGMMA operand reads), and
 * the reverse. */
__device__ __forceinline__ void fence_proxy_async_shared()
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Bring the tensor map into the TMA unit's descriptor cache ahead of the
 * first copy (a hint; any thread, any time). */
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap *map)
{
	asm volatile("prefetch.tensormap [%0];\n" ::"l"(tma_detail::map_addr(map)) : "memory");
}

/* True in exactly one lane of the warp (the same lane every time).  The
 * whole warp must call it, converged. */
__device__ __forceinline__ bool elect_one()
{
	uint32_t leader;
	asm volatile("{\n\t"
	             ".reg .pred p;\n\t"
	             "elect.sync _|p, 0xffffffff;\n\t"
	             "selp.u32 %0, 1, 0, p;\n\t"
	             "}\n"
	             : "=r"(leader));
	return leader != 0;
}

} /* namespace tlc */

#endif
