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

/* Called once per buffer access, as tlc_access_fn, with the indices when
 * the access is of the one element buf[idx[0], ..., idx[n-1]] (a load used
 * as a value, a store, a scalar atomic's destination); idx is NULL for an
 * access of more than one element or of unknown extent (a tile op's
 * operand, a region, a vector copy). */
typedef void (*tlc_elem_access_fn)(void *ctx, const tlc_buffer *b, unsigned mode, int n,
                                   const tlc_expr *const *idx);

/* The accesses of expression x; `mode` is how a buffer operand at the top of
 * x (a load, a whole buffer, a region) is used. */
TLC_API void tlc_expr_accesses(const tlc_expr *x, unsigned mode, tlc_access_fn fn, void *ctx);
/* The accesses of s and of every statement nested in it. */
TLC_API void tlc_stmt_accesses(const tlc_stmt *s, tlc_access_fn fn, void *ctx);
/* The accesses of s as tlc_stmt_accesses gives them, with their indices. */
TLC_API void tlc_stmt_elem_accesses(const tlc_stmt *s, tlc_elem_access_fn fn, void *ctx);

/* ---- when two element accesses of threads cannot meet ----
 *
 * sync-insert and the barrier check (tlc_verify_barriers) ask it of a
 * hazard between two accesses of one buffer: an access P made since the
 * last barrier and a later one C, by any two threads of the block.  They
 * need no barrier when no thread's P can name the element another thread's
 * C names.  The proof (the one rule both use) looks at each dimension:
 *  - the difference of the two indices, as a sum of variables with
 *    coefficients and of other terms, has bounds that exclude 0: a
 *    variable that has one value in every thread (tlc/uniform.h) and
 *    between the two accesses (bound outside the loop whose next iteration
 *    C belongs to) cancels; any other variable (the thread index, one bound
 *    inside that loop) and any other term is bounded on each side alone;
 *    the variable of that loop is v in P and v + d in C, d >= 1;
 *  - or the indices are e ^ k1 and e ^ k2 (or e + k1 and e + k2) of one
 *    such same-valued e and constants k1 != k2.
 * Everything else (an index read from memory, a variable of unknown range
 * that does not cancel) may meet. */
typedef struct tlc_disjoint tlc_disjoint;

struct tlc_uniformity;
/* The facts about kernel f: the ranges of its loop, block and thread
 * variables, and which values are uniform (u, owned by the caller). */
TLC_API tlc_disjoint *tlc_disjoint_new(const tlc_func *f, const struct tlc_uniformity *u);
TLC_API void tlc_disjoint_free(tlc_disjoint *d);
/* True when the element accesses p[0..n-1] and c[0..n-1] of one buffer
 * never name the same element in two threads.  carried: NULL, or the loop
 * (a TLC_STMT_FOR) whose later iteration C belongs to, P belonging to an
 * earlier one. */
TLC_API bool tlc_elems_disjoint(const tlc_disjoint *d, int n, const tlc_expr *const *p,
                                const tlc_expr *const *c, const tlc_stmt *carried);

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
