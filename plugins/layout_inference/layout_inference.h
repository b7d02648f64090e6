/* layout_inference.h - private declarations of the layout-inference pass.
 *
 * The pass sees a function as a set of *ops* (gemms, T.Parallel nests, tile
 * copies, reductions) over *buffers*.  Each op proposes layouts for the
 * fragments it touches from what is known so far; proposals of one round are
 * all computed from the state at the start of the round and then merged with
 * an order-free rule, so the result does not depend on the order in which
 * ops are visited (the seed bug this pass is built against). */
#ifndef TLC_LAYOUT_INFER_H
#define TLC_LAYOUT_INFER_H

#include <tlc/diag.h>
#include <tlc/layout.h>
#include <tlc/pass.h>
#include <tlc/target.h>
#include <tlc/tileops.h>

#define LI_MAX_DIMS 8
#define LI_MAX_ACCESS 32

typedef struct li_buf {
	tlc_buffer *buf;
	const tlc_layout *layout;
	bool strict;       /* needed for correctness (an instruction's operand, a user layout) */
	const char *who;   /* the op that set it, for messages ("T.gemm at 12:9") */
	/* a view (T.view / T.reshape) of a fragment: the fragment that owns
	 * the registers.  A view never takes a layout of its own: what is
	 * proposed for it is proposed, reshaped, for root, and its layout is
	 * root's reshaped to its shape (tlc_fragment_reshape) */
	struct li_buf *root;
} li_buf;

/* The buffer that owns b's storage: b itself unless b is a view. */
static inline const li_buf *li_root(const li_buf *b) { return b->root ? b->root : b; }

typedef enum li_kind {
	LI_GEMM,
	LI_NEST,   /* a T.Parallel nest, or a tile copy / atomic_add seen as one */
	LI_REDUCE,
} li_kind;

/* A fragment access inside a nest: the buffer's dimensions are indexed by
 * loop dimensions keep[0..nkeep) (increasing); irregular accesses (constants,
 * arithmetic) have `regular` false. */
typedef struct li_access {
	li_buf *b;
	bool write;
	bool regular;
	int nkeep;
	int keep[LI_MAX_DIMS];
} li_access;

typedef struct li_op {
	li_kind kind;
	tlc_stmt *s;       /* the FOR of a nest, or the EVAL of a tile op */
	const char *who;   /* "T.gemm at 12:9" */
	int64_t thread_lo, threads;

	/* LI_NEST */
	int ndim;
	int64_t shape[LI_MAX_DIMS];
	int64_t mins[LI_MAX_DIMS]; /* a T.Parallel loop's starts (0 for tile copies) */
	int nacc;
	li_access acc[LI_MAX_ACCESS];
	int vec_bytes;     /* widest element accessed: the free partition's vector is 16 bytes of it */
	const tlc_layout *loop;
	bool loop_given;   /* loop_layout= from the user */

	/* LI_GEMM */
	tlc_gemm_info g;
	tlc_gemm_plan plan; /* the target's instruction, warp grid and fragments */

	/* LI_REDUCE */
	li_buf *src, *dst;
	int dim;
} li_op;

typedef struct li_state {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	int64_t threads; /* of the block */
	/* the threads that run the ops being collected: the block, or the
	 * warpgroups of the enclosing T.ws scope */
	int64_t op_lo, op_threads;
	int nbufs, cap_bufs;
	li_buf **bufs;
	int nops, cap_ops;
	li_op *ops;
	int errors;
} li_state;

/* infer_ops.c: collecting ops and their proposals */
li_buf *li_buf_of(li_state *st, tlc_buffer *b);
int li_collect(li_state *st, tlc_stmt *s);
const char *li_where(li_state *st, const char *what, tlc_loc loc);

/* A proposal: layout l for buffer b (strict or not) from op `who`. */
typedef struct li_proposal {
	li_buf *b;
	const tlc_layout *l;
	bool strict;
	const char *who;
} li_proposal;

typedef struct li_proposals {
	int n, cap;
	li_proposal *items;
} li_proposals;

void li_propose(li_proposals *p, li_buf *b, const tlc_layout *l, bool strict, const char *who);
/* Strict proposals of op (gemm operands). */
void li_strict(li_state *st, li_op *op, li_proposals *out);
/* Proposals that follow from what is known; also derives loop layouts from
 * the state (returns true if it set one).  Without `readers`, a nest
 * proposes nothing for a fragment it only reads that another op writes. */
bool li_common(li_state *st, li_op *op, li_proposals *out, bool readers);
/* The rank of the tile op's free choice (its nest, or the source it
 * reduces), 0 when it has none left: free rounds go from the highest. */
int li_free_rank(const li_state *st, const li_op *op);
/* Free choices: layouts for fragments nobody constrains. */
bool li_free(li_state *st, li_op *op, li_proposals *out); /* true if it fixed a loop */
/* A total order on fragments, used to break ties independently of op order. */
int li_layout_cmp(const tlc_layout *a, const tlc_layout *b);

/* views.c: views of fragments */
/* b's layout reshaped to buffer `to` (constant shape); NULL and *why set
 * when that is no fragment. */
const tlc_layout *li_reshape_to(li_state *st, const tlc_layout *l, const tlc_buffer *to,
                                const char **why);
/* Proposals for views become proposals for their roots (dropped, or an
 * error when strict, where a view's layout is no layout of the root). */
void li_views_to_roots(li_state *st, li_proposals *p);
/* Every view takes its root's layout, reshaped; an error where it cannot. */
void li_views_follow(li_state *st);

#endif
