/* tlc/access.h - which buffers a statement reads and writes.
 *
 * One classification of every operand of every op (a gemm reads A and B and
 * accumulates into C; T.copy_vec writes its first element operand; an atomic
 * reads and writes its destination; an unknown op reads and writes all of
 * its buffer operands), shared by every pass and target that reasons about
 * memory hazards, so that they cannot disagree. */
#ifndef TLC_ACCESS_H
#define TLC_ACCESS_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	TLC_ACCESS_READ = 1,
	TLC_ACCESS_WRITE = 2,
	TLC_ACCESS_RW = 3,
	/* with WRITE: a write ordered by an mbarrier (a TMA load completes on
	 * its barrier's transaction count; the writes inside
	 * `with T.attr("completes_on", bar)` are published by bar, whose
	 * waiters read them), which block barriers neither order nor need to;
	 * liveness still counts it */
	TLC_ACCESS_MBARRIER = 4,
};

/* Called once per buffer access with TLC_ACCESS_READ and/or _WRITE. */
typedef void (*tlc_access_fn)(void *ctx, const tlc_buffer *b, unsigned mode);

/* The accesses of expression x; `mode` is how a buffer operand at the top of
 * x (a load, a whole buffer, a region) is used. */
TLC_API void tlc_expr_accesses(const tlc_expr *x, unsigned mode, tlc_access_fn fn, void *ctx);
/* The accesses of s and of every statement nested in it. */
TLC_API void tlc_stmt_accesses(const tlc_stmt *s, tlc_access_fn fn, void *ctx);
/* How s (and every statement nested in it) uses the storage of b (b, or
 * a T.view of the same storage): the TLC_ACCESS_* bits of its accesses. */
TLC_API unsigned tlc_stmt_use_of(const tlc_stmt *s, const tlc_buffer *b);
/* Whether s is a barrier of every thread of the block that orders their
 * memory accesses: T.sync_threads, T.cluster_sync or T.sync_grid (each one
 * for every block of the cluster or grid). */
TLC_API bool tlc_stmt_is_block_barrier(const tlc_stmt *s);

/* The buffers s (and every statement nested in it) writes with
 * asynchronous copies (T.cp_async): the bytes land later, at a
 * T.cp_async_wait, so other threads may read them only after that wait and
 * a barrier.  fn gets TLC_ACCESS_WRITE. */
TLC_API void tlc_stmt_async_writes(const tlc_stmt *s, tlc_access_fn fn, void *ctx);
/* True for `with T.attr("completes_on", bar): body`: the shared memory the
 * body writes (plain stores, and T.cp_async copies followed by a
 * T.cp_async_arrive(bar)) is published to other threads by the mbarrier
 * `bar` (they wait on it), not by block barriers or T.cp_async_wait: its
 * writes count as TLC_ACCESS_WRITE | TLC_ACCESS_MBARRIER and it has no
 * asynchronous writes in the sense of tlc_stmt_async_writes. */
TLC_API bool tlc_stmt_completes_on_mbarrier(const tlc_stmt *s);
/* The group count of a T.cp_async_wait(n) statement; -1 for any other statement. */
TLC_API int64_t tlc_stmt_async_wait_count(const tlc_stmt *s);

/* The alignment in bytes that the storage of b needs for the vector
 * accesses of s (and every statement nested in it): the widest access of
 * b by T.copy_vec (its destination, and its source when the types agree: a
 * converting copy reads the source lane by lane) or T.atomic_add_vec (both
 * operands), lanes times b's element size; b's element size when no
 * vector access is wider.  Per-thread arrays are declared with it. */
TLC_API int64_t tlc_stmt_vector_align(const tlc_stmt *s, const tlc_buffer *b);

/* True for the shared-memory scopes (static and dynamic). */
TLC_API bool tlc_buffer_in_shared(const tlc_buffer *b);
/* The buffer whose storage b is (b itself unless b is a T.view). */
TLC_API const tlc_buffer *tlc_buffer_storage(const tlc_buffer *b);
/* True when two shared buffers may share bytes: the same storage, or
 * overlapping ranges of the arena storage-plan gave them (a buffer of
 * unknown size overlaps everything placed). */
TLC_API bool tlc_buffers_share_memory(const tlc_buffer *a, const tlc_buffer *b);

#ifdef __cplusplus
}
#endif
#endif
