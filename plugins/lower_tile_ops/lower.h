/* lower.h - private declarations of the lower-tile-ops pass.
 *
 * The pass turns tile IR (after layout-inference) into thread-level IR:
 *  1. lower_copy.c: T.copy / T.fill / T.clear / tile T.atomic_add become
 *     T.Parallel nests over their tile (boundary predicates for partial tiles
 *     of global tensors), keeping the op's loop_layout;
 *  2. lower_gemm.c: T.gemm becomes one T.mma_gemm call of the target's
 *     device helper, with the operands' layouts attached;
 *  3. lower_parallel.c: every T.Parallel nest becomes a per-thread loop over
 *     its registers, the logical indices recovered from the nest's layout,
 *     fragment accesses turned into register indices, copies of contiguous
 *     physical runs widened to vectors;
 *  4. lower_buffers.c: fragments become per-thread local arrays, and buffers
 *     with memory layouts are addressed through them (flat physical index).
 * Lane and thread ids always come from the layouts' thread ranges. */
#ifndef TLC_LOWER_H
#define TLC_LOWER_H

#include <tlc/bounds.h>
#include <tlc/diag.h>
#include <tlc/layout.h>
#include <tlc/pass.h>
#include <tlc/target.h>
#include <tlc/tileops.h>
#include <tlc/uniform.h>

#define LW_MAX_DIMS 8

#define LW_RUNS_CACHE 64

/* A remembered answer about a layout (lower_vector.c): v > 0, whether its
 * runs of v are contiguous (lw_layout_runs); v == 0, whether stmatrix may
 * store its 8x8 blocks. */
typedef struct lw_run_result {
	const tlc_layout *l;
	int64_t v;
	bool ok;
} lw_run_result;

#define LW_MAX_WGMMA_ACC 16

#define LW_MAX_STAGED 16

typedef struct lw_state {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	const tlc_target_info *target; /* the machine (lanes, vector widths, ...) */
	int64_t threads;     /* per block */
	const tlc_expr *tid; /* the flat thread index of the block */
	tlc_ranges ranges;   /* variables in scope with known ranges */
	int counter;         /* fresh names */
	int nruns;
	lw_run_result runs[LW_RUNS_CACHE];
	int errors;
	bool async_copy;     /* inside inject-pipeline's `with T.attr("async_copy", 1)` */
	int64_t op_lo;       /* the first thread of the enclosing T.ws scope (0: the block) */
	int64_t op_threads;  /* its thread count (0: outside T.ws, the block's) */
	bool tma_store;      /* option tma-store: shared -> global T.copy by TMA where it can */
	bool stmatrix;       /* option stmatrix: accumulators into 16-bit shared tiles by T.stmatrix */
	bool remarks;        /* option remarks: say why one is not */
	/* fragments staged through shared memory (lower_parallel.c): one shared
	 * copy per fragment, allocated at the top of the kernel */
	int nstaged;
	tlc_buffer *staged_from[LW_MAX_STAGED], *staged_to[LW_MAX_STAGED];
	/* statements outside T.Parallel that read fragments staged through
	 * shared memory, and the staging nests that go before each */
	int npending, cap_pending;
	struct lw_pending {
		const tlc_stmt *at;
		tlc_stmt *stage;
	} *pending;
	/* the outermost `if` around the statement being lowered whose condition
	 * differs between threads: a fragment staged for a read inside it is
	 * staged before it, where every holder runs the staging and its barrier */
	const tlc_uniformity *uniform;
	const tlc_stmt *divergent_if;
	int nwgmma_acc;      /* accumulators of the T.wgmma_gemm calls lowered so far */
	tlc_buffer *wgmma_acc[LW_MAX_WGMMA_ACC];
} lw_state;

int lw_error(lw_state *st, tlc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fresh int32 variable named base_N. */
tlc_var *lw_fresh(lw_state *st, const char *base);

/* lower_copy.c: the nest of an element-wise tile op, or NULL after an error. */
tlc_stmt *lw_expand_copy(lw_state *st, const tlc_stmt *s);
tlc_stmt *lw_expand_fill(lw_state *st, const tlc_stmt *s, bool clear);
tlc_stmt *lw_expand_atomic(lw_state *st, const tlc_stmt *s);

/* lower_gemm.c: the T.mma_gemm call (with a clear of C first when
 * clear_accum), or NULL after an error. */
tlc_stmt *lw_lower_gemm(lw_state *st, const tlc_stmt *s);
/* lower_tma.c: T.tma_copy (expect_tx + T.tma_load boxes by one thread),
 * and the initialisation of the kernel's n mbarrier buffers. */
tlc_stmt *lw_lower_tma_copy(lw_state *st, const tlc_stmt *s);
/* A whole shared tile stored into a global region with TMA (fence, then
 * one thread's boxes and its wait), or NULL and *why (nothing reported)
 * when the copy cannot go by TMA. */
tlc_stmt *lw_lower_tma_store(lw_state *st, const tlc_stmt *s, const tlc_expr *src_x, const tlc_expr *dst_x,
                             const char **why);
tlc_stmt *lw_barrier_init(lw_state *st, int n, tlc_buffer *const *bars);

/* T.wait_wgmma(n): the wait, then a fence on every accumulator of the
 * T.wgmma_gemm calls before it. */
tlc_stmt *lw_lower_wait_wgmma(lw_state *st, const tlc_stmt *s);

/* lower_parallel.c: the thread-level form of a T.Parallel nest. */
tlc_stmt *lw_lower_nest(lw_state *st, tlc_stmt *s);
/* Append to out the nest that copies fragment P (one replica of each
 * element) into its shared copy, which it returns (allocated at the top of
 * the kernel, one per fragment), with P's shape in *shape; NULL after an
 * error.  The readers need a barrier after it (sync-insert puts it). */
tlc_buffer *lw_stage_copy(lw_state *st, tlc_buffer *P, tlc_stmt *out, tlc_loc loc,
                          const int64_t **shape);
/* lower_outside.c: fragment accesses outside T.Parallel nests: e (of
 * statement s) with its fragment reads rewritten, staging nests appended to
 * stage; a store outside a nest, rewritten. */
const tlc_expr *lw_outside_reads(lw_state *st, const tlc_stmt *s, const tlc_expr *e,
                                 tlc_stmt *stage);
tlc_stmt *lw_outside_store(lw_state *st, tlc_stmt *s, tlc_stmt *stage);
/* The register index of fragment P at the element that fragment L holds in
 * register r of this thread, P's dimension d being L's dimension keep[d];
 * NULL and *why when P does not hold that element in this thread (or would
 * need the thread id to say where). */
const tlc_expr *lw_frag_register(lw_state *st, const tlc_layout *L, const tlc_expr *r, const tlc_layout *P,
                                 const int *keep, int nkeep, const char **why);
/* ((x / w) % radix), leaving out the modulo when w * radix >= extent. */
const tlc_expr *lw_digit_value(lw_state *st, const tlc_expr *x, int64_t w, int64_t radix, int64_t extent);

/* lower_vector.c: the nest with its element copy widened to T.copy_vec, or
 * NULL when the physical addresses do not allow it (see the file). inner
 * holds nlets lets of the loop variables, then the body. */
/* Whether an expression / a statement mentions variable v. */
bool lw_expr_uses_var(const tlc_expr *e, const tlc_var *v);
bool lw_stmt_uses_var(const tlc_stmt *s, const tlc_var *v);
/* Does memory layout l map every aligned run of v logical elements along its
 * last dimension to an aligned, contiguous physical run?  (Cached.) */
bool lw_layout_runs(lw_state *st, const tlc_layout *l, int64_t v);
tlc_stmt *lw_vectorize(lw_state *st, const tlc_layout *L, tlc_var *r, tlc_var *j, tlc_stmt *inner, int nlets);
/* What lw_stmatrix needs of a lowered nest (lower_parallel.c). */
typedef struct lw_nest_view {
	const tlc_layout *L;  /* the loop's fragment */
	const tlc_expr *t;    /* thread id relative to L's range */
	tlc_var *r;           /* register counter (NULL: one register) */
	int ndim;
	tlc_var *const *vars; /* the loop variables */
	const int64_t *mins;  /* their lower bounds */
} lw_nest_view;
/* The nest's copy of a fragment into a 16-bit shared tile as T.stmatrix
 * calls of whole warps, on a target that has them, or NULL when the
 * fragment or the tile does not allow it (see the file). */
tlc_stmt *lw_stmatrix(lw_state *st, const lw_nest_view *n, tlc_stmt *inner, int nlets);

/* lower_reduce.c: T.reduce_* over a fragment dimension; T.cumsum of shared tiles. */
tlc_stmt *lw_lower_reduce(lw_state *st, tlc_stmt *s);
tlc_stmt *lw_lower_cumsum(lw_state *st, tlc_stmt *s);

/* lower_buffers.c: fragments -> local arrays, memory layouts applied. */
void lw_lower_buffers(lw_state *st);

#endif
