/* sync_insert.h - private declarations of the sync-insert pass. */
#ifndef TLC_SYNC_INSERT_H
#define TLC_SYNC_INSERT_H

#include <stdbool.h>
#include <stdint.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>

/* Shared buffers of one kernel are numbered; sets of them are bitsets. */
#define SI_MAX_BUFS 256
#define SI_WORDS (SI_MAX_BUFS / 64)

typedef struct si_set {
	uint64_t w[SI_WORDS];
} si_set;

/* The accesses behind the bits of a set, for the element-level proof
 * (tlc_elems_disjoint): a persistent tree whose leaves are accesses of one
 * buffer (idx NULL: not of one known element) and whose inner nodes join
 * two sets, so that a set is copied and joined in constant time. */
typedef struct si_elems si_elems;
struct si_elems {
	const si_elems *a, *b; /* an inner node; NULL for a leaf */
	int buf;               /* a leaf: the buffer's number */
	bool write;
	int n;
	const tlc_expr *const *idx;
};

/* Shared buffers read and written (by some threads) since some point. */
typedef struct si_access {
	si_set r, w;
	const si_elems *e; /* every access behind r and w */
} si_access;

/* Where the statements being visited sit: where a barrier may not go. */
typedef enum si_where {
	SI_ANYWHERE,   /* all threads of the block get here together */
	SI_NEST,       /* inside a lowered T.Parallel nest: threads diverge */
	SI_THREAD_IF,  /* inside an `if` whose condition depends on the thread */
} si_where;

typedef struct si_state {
	tlc_module *m;
	tlc_func *f;
	int nbufs;
	const tlc_buffer *bufs[SI_MAX_BUFS];
	si_set rows[SI_MAX_BUFS]; /* rows[i]: the buffers that share memory with bufs[i] */
	int too_many;
	si_access pending; /* shared accesses since the last barrier */
	/* buffers that T.cp_async writes and no T.cp_async_wait(0) has
	 * completed: each wait lands them again (as writes pending a barrier),
	 * since it may be the one that completes the group a reader needs */
	si_set in_flight;
	/* shared buffers that an issued WGMMA group (T.wgmma_issue) still reads:
	 * no T.wait_wgmma since it was issued */
	si_set wgmma_reads;
	/* shared buffers written through the generic proxy (ordinary stores,
	 * cp.async) since the last T.fence_proxy_async: an async-proxy reader
	 * of one (WGMMA, a TMA store) needs a fence and a barrier first, even
	 * where a barrier already orders the threads */
	si_set unfenced;
	/* in a T.ws group: the shared buffers its scopes read through the
	 * async proxy (WGMMA).  Another scope's threads publish what they wrote
	 * to those readers with an mbarrier arrive, which no block barrier
	 * precedes: the fence goes before the arrive */
	si_set group_async;
	/* ... and the buffers it writes with ordinary stores (the fence
	 * concerns those: TMA writes through the async proxy, and the bytes of
	 * cp.async land after the arrive, so the reader fences after its wait
	 * instead, as warp-specialize's mixed producers do) */
	si_set group_stores;
	const tlc_stmt *reported; /* the last region an error was reported for */
	/* which values are the same in every thread (the conditions a barrier
	 * may go under) */
	struct tlc_uniformity *uniform;
	/* the innermost serial loop being visited: what was pending at its
	 * breaks (after the loop) and continues (at its next iteration), and
	 * whether some break or continue is taken by only some threads */
	si_access at_break, at_continue;
	bool has_continue, exit_diverges;
	int errors;
	struct tlc_disjoint *dis; /* the element facts of the kernel */
	/* inside a T.Parallel nest: its threads run their serial loops at
	 * their own pace, so two accesses there are not of one iteration, and
	 * every access of a buffer meets every other (no element proof) */
	bool coarse;
	void **allocs;            /* what the si_elems nodes were allocated in */
	int nallocs, cap_allocs;
} si_state;

/* Add the shared buffers s reads / writes (anywhere inside it) to acc. */
void si_stmt_access(si_state *si, const tlc_stmt *s, si_access *acc);
/* The accesses of a loop body before its first top-level barrier. */
void si_body_head(si_state *si, const tlc_stmt *body, si_access *acc);
/* A buffer of `next` that must wait for `pending` (RAW, WAR, WAW), or NULL:
 * accesses of one buffer that tlc_elems_disjoint proves apart wait for
 * nothing.  carried: the loop whose next iteration `next` belongs to (the
 * accesses of `pending` made in an earlier one), or NULL. */
const tlc_buffer *si_hazard(const si_state *si, const si_access *pending, const si_access *next,
                            const tlc_stmt *carried);
void si_set_union(si_set *s, const si_set *t);
/* *acc gets the accesses of *more too. */
void si_access_union(si_state *si, si_access *acc, const si_access *more);
/* Add the buffers of *set to acc's writes, as accesses of unknown elements. */
void si_access_add_writes(si_state *si, si_access *acc, const si_set *set);
/* Free the si_elems nodes. */
void si_elems_free(si_state *si);
/* Add shared buffer b to *s (other scopes are ignored). */
void si_set_add(si_state *si, si_set *s, const tlc_buffer *b);
/* Add the buffers s writes with T.cp_async to *set. */
void si_async_writes(si_state *si, const tlc_stmt *s, si_set *set);
/* Add the shared operands that s's T.wgmma_issue calls read to *set. */
void si_wgmma_reads(si_state *si, const tlc_stmt *s, si_set *set);
/* A buffer in both sets, or NULL. */
const tlc_buffer *si_common(const si_state *si, const si_set *a, const si_set *b);
/* True for a T.sync_threads() statement. */
bool si_is_barrier(const tlc_stmt *s);

#endif
