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
#include <tlc/tileops.h>

#define LW_MAX_DIMS 8

typedef struct lw_state {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	int64_t threads;     /* per block */
	const tlc_expr *tid; /* the flat thread index of the block */
	tlc_ranges ranges;   /* variables in scope with known ranges */
	int counter;         /* fresh names */
	int errors;
} lw_state;

int lw_error(lw_state *st, tlc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A fresh int32 variable named base_N. */
tlc_var *lw_fresh(lw_state *st, const char *base);
/* Push the range of a loop variable. */
void lw_push_loop_range(lw_state *st, const tlc_var *v, const tlc_expr *min, const tlc_expr *extent);

/* lower_copy.c: the nest of an element-wise tile op, or NULL after an error. */
tlc_stmt *lw_expand_copy(lw_state *st, const tlc_stmt *s);
tlc_stmt *lw_expand_fill(lw_state *st, const tlc_stmt *s, bool clear);
tlc_stmt *lw_expand_atomic(lw_state *st, const tlc_stmt *s);

/* lower_gemm.c: the T.mma_gemm call (with a clear of C first when
 * clear_accum), or NULL after an error. */
tlc_stmt *lw_lower_gemm(lw_state *st, const tlc_stmt *s);

/* lower_parallel.c: the thread-level form of a T.Parallel nest. */
tlc_stmt *lw_lower_nest(lw_state *st, tlc_stmt *s);

/* lower_buffers.c: fragments -> local arrays, memory layouts applied. */
void lw_lower_buffers(lw_state *st);

#endif
