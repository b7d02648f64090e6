/* tlc/layout.h - the layout algebra.
 *
 * A layout says where the elements of a tile live.  Two families:
 *
 *  - A *memory layout* (T.Layout) maps a logical index (i0, .., in-1) of a
 *    buffer to a physical index (p0, .., pk-1) in a row-major array of shape
 *    out_shape.  Shared buffers get one from layout inference (usually a
 *    swizzle); global tensors may carry a user one (the dQ of a flash-attention
 *    backward).  The flat physical offset is row-major over out_shape.
 *
 *  - A *fragment* (T.Fragment) distributes a tile over threads: each logical
 *    element lives in the registers of one or more threads (replication) at a
 *    per-thread register index.  Fragments are bound to an absolute thread
 *    range [thread_lo, thread_lo + threads): thread ids inside a fragment are
 *    relative to thread_lo, so a fragment used inside T.ws(1) indexes its own
 *    warpgroup.
 *
 * Fragments are stored in *digit form*: every logical index i_d is a mixed-
 * radix number whose digits are either thread digits or register digits:
 *
 *     i_d = sum over digits k with dim == d of  value_k * stride_k
 *     value_k = (t / weight_k) % radix_k   (thread digit)
 *             = (r / weight_k) % radix_k   (register digit)
 *
 * A thread digit with dim == -1 is a replication digit: the threads that
 * differ only in it hold the same elements.  In digit form both directions
 * (logical -> thread, register and back) are plain floordiv/floormod/multiply
 * expressions, injectivity is structural, and projecting a dimension away
 * (the layout of a reduction's result) is dropping digits, and viewing the
 * tile with another shape of as many elements (T.reshape) is cutting the
 * digits, read as digits of the row-major flat index, where the new
 * dimensions begin.  The operand
 * layouts of matrix instructions (mma.sync, WGMMA, MFMA: tlc/target.h),
 * thread partitions of T.Parallel loops and user T.Fragment lambdas whose
 * maps are of this form are all representable;
 * a user fragment that is not is rejected with a reason.
 *
 * Shapes of layouts are compile-time constants.  All layouts live in the
 * module arena.  Expressions built here are simplified (tlc_simplify_expr). */
#ifndef TLC_LAYOUT_H
#define TLC_LAYOUT_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLC_LAYOUT_MAX_DIMS 8
#define TLC_FRAGMENT_MAX_DIGITS 32

/* ---- swizzle modes ----
 *
 * A swizzled shared tile of shape (..., R, C) with elements of b bytes and a
 * swizzle of W bytes (32, 64 or 128) is stored as C*b/W column blocks, each a
 * row-major (R, W/b) array, the blocks one after another (leading dimensions
 * row-major outside).  Inside a block, the 16-byte chunk index of a row is
 * XORed with ((row * W) >> 7) & (W/16 - 1).  This is what a TMA load with a box
 * of (R, W/b) and that swizzle writes, what a WGMMA K-major descriptor with the
 * same swizzle reads, and it makes ldmatrix of 8 rows bank-conflict free.
 * Needs C*b to be a multiple of W.  The physical index of tlc_layout_swizzled
 * is (leading..., column block, row, column inside the block). */
typedef enum tlc_swizzle {
	TLC_SWIZZLE_NONE = 0,
	TLC_SWIZZLE_32B,
	TLC_SWIZZLE_64B,
	TLC_SWIZZLE_128B,
} tlc_swizzle;

/* Everything the targets need to know about one swizzle mode, in one place. */
typedef struct tlc_swizzle_info {
	const char *name;      /* "none", "32B", "64B", "128B" */
	int bytes;             /* W: 0, 32, 64, 128 */
	int tma_swizzle;       /* CUtensorMapSwizzle value: 0, 1, 2, 3 */
	int wgmma_layout_type; /* WGMMA descriptor bits 62-63: 0 (none), 3 (32B), 2 (64B), 1 (128B) */
	int base_align;        /* required alignment of the tile's base in bytes: 16, 256, 512, 1024 */
} tlc_swizzle_info;

TLC_API const tlc_swizzle_info *tlc_swizzle_get(tlc_swizzle s);
/* The mode whose width in bytes is `bytes` (0, 32, 64, 128); false if none. */
TLC_API bool tlc_swizzle_from_bytes(int bytes, tlc_swizzle *out);
/* The widest mode that a row of row_elems elements of dtype t allows (NONE
 * when a row is not a multiple of 32 bytes). */
TLC_API tlc_swizzle tlc_swizzle_widest(int64_t row_elems, tlc_dtype t);

/* ---- layouts ---- */

typedef enum tlc_layout_kind {
	TLC_LAYOUT_MEMORY,   /* T.Layout: logical -> physical index expressions */
	TLC_LAYOUT_SWIZZLED, /* a memory layout built by tlc_layout_swizzled (knows its mode) */
	TLC_LAYOUT_FRAGMENT, /* T.Fragment: logical -> (thread, register) in digit form */
} tlc_layout_kind;

typedef struct tlc_frag_digit {
	int64_t radix;  /* number of values, > 1 */
	int dim;        /* logical dimension it indexes; -1: replication (thread digits only) */
	int64_t stride; /* its weight in logical index i_dim (0 for replication) */
	bool is_thread; /* a digit of the thread id (else of the register index) */
	int64_t weight; /* its weight in the thread id or in the register index */
} tlc_frag_digit;

struct tlc_layout {
	tlc_layout_kind kind;
	int ndim;              /* logical rank */
	const int64_t *shape;  /* logical extents */
	tlc_var **vars;        /* ndim variables the expressions below are written in */

	/* MEMORY and SWIZZLED: physical index; FRAGMENT: out[0] is the register
	 * index, out_shape[0] the number of registers per thread. */
	int nout;
	const tlc_expr **out;
	const int64_t *out_shape;

	/* SWIZZLED */
	tlc_swizzle swizzle;
	tlc_dtype elem; /* element type the swizzle was built for */

	/* FRAGMENT */
	int ndigits;
	const tlc_frag_digit *digits;
	int64_t thread_lo;   /* absolute first thread */
	int64_t threads;     /* number of threads (product of the thread digit radices) */
	int64_t replicate;   /* product of the replication digit radices */
	tlc_var *rep;        /* replication variable of `thread`; NULL when replicate == 1 */
	const tlc_expr *thread; /* thread id relative to thread_lo, in vars (and rep) */
};

/* Memory layout from index expressions: out[k] in vars.  out_shape is derived
 * from the expressions' bounds (each must be >= 0).  NULL (and *why set) if a
 * bound cannot be found. */
TLC_API const tlc_layout *tlc_layout_memory(tlc_module *m, int ndim, const int64_t *shape, tlc_var *const *vars,
                                            int nout, const tlc_expr *const *out, const char **why);
/* Fresh index variables i0.. for building a layout of rank ndim. */
TLC_API tlc_var **tlc_layout_new_vars(tlc_module *m, int ndim);
/* The identity (row-major) layout of a shape. */
TLC_API const tlc_layout *tlc_layout_row_major(tlc_module *m, int ndim, const int64_t *shape);
/* The swizzled layout described above over the last two dimensions; NULL
 * and *why set when the shape does not allow the mode. */
TLC_API const tlc_layout *tlc_layout_swizzled(tlc_module *m, int ndim, const int64_t *shape, tlc_dtype elem,
                                              tlc_swizzle mode, const char **why);
/* Prepend leading dimensions (e.g. the stage dimension of a pipelined
 * buffer): physical = (lead index, row-major) * size(l) + l's flat offset.
 * A swizzled layout stays swizzled; for a fragment the new dimensions are
 * outer register digits (every thread holds all stages). */
TLC_API const tlc_layout *tlc_layout_expand(tlc_module *m, const tlc_layout *l, int nlead, const int64_t *lead_shape);
/* outer after inner: logical --inner--> inner's flat physical offset, read as
 * a logical index of outer (outer must be 1-D of inner's size, or have the
 * same number of elements: its logical index is unflattened row-major). */
TLC_API const tlc_layout *tlc_layout_compose(tlc_module *m, const tlc_layout *outer, const tlc_layout *inner,
                                             const char **why);
/* The inverse of a bijective memory layout: physical index -> logical index
 * (a layout of shape out_shape).  NULL and *why set if l is not bijective or
 * its inverse is not of digit form (see above). */
TLC_API const tlc_layout *tlc_layout_inverse(tlc_module *m, const tlc_layout *l, const char **why);
/* True if no two logical elements share a physical element (memory layouts)
 * or a (thread, register) slot (fragments).  Checked by enumeration. */
TLC_API bool tlc_layout_is_injective(const tlc_layout *l, const char **why);
/* Number of logical elements (product of shape). */
TLC_API int64_t tlc_layout_size(const tlc_layout *l);
/* Number of physical elements (product of out_shape; for fragments the
 * registers per thread). */
TLC_API int64_t tlc_layout_phys_size(const tlc_layout *l);
/* Evaluate the flat physical offset of a constant logical index (memory
 * layouts) or the register index (fragments).  False on overflow / bad index. */
TLC_API bool tlc_layout_eval(const tlc_layout *l, const int64_t *idx, int64_t *flat);
/* The flat physical offset (memory) or register index (fragment) of a
 * symbolic logical index, simplified. */
TLC_API const tlc_expr *tlc_layout_apply(tlc_module *m, const tlc_layout *l, int n, const tlc_expr *const *idx);
/* Same mapping: equal shapes and equal values at every logical index (and, for
 * fragments, the same thread ids and replication). */
TLC_API bool tlc_layout_equal(const tlc_layout *a, const tlc_layout *b);
/* Longest run of logical elements along the last dimension, starting at a
 * multiple of the run, that is contiguous in physical memory everywhere in the
 * layout (1 when nothing is).  Vectorization and ldmatrix use it. */
TLC_API int64_t tlc_layout_contiguous_run(const tlc_layout *l);

/* ---- fragments ---- */

/* A fragment from digits (copied and canonicalised: adjacent digits that form
 * one larger digit are merged).  NULL and *why set when the digits do not
 * cover the shape exactly once or thread / register weights overlap. */
TLC_API const tlc_layout *tlc_fragment_from_digits(tlc_module *m, int ndim, const int64_t *shape, int ndigits,
                                                   const tlc_frag_digit *digits, int64_t thread_lo,
                                                   const char **why);
/* The thread partition of a T.Parallel nest or a tile copy.  Digits are
 * handed out from the last dimension outwards: in the last dimension first
 * `vec` consecutive elements in registers (vec must divide that extent);
 * then, per dimension, a thread digit of radix gcd(remaining extent,
 * remaining threads) and the rest of the extent as a register digit above it.
 * So consecutive threads own consecutive vectors along the last dimension
 * (coalesced), and when the extents do not divide the thread count fewer
 * threads are used (f->threads says how many).  Register digits are weighted
 * in the same order (vec lowest, then the last dimension's register digit,
 * then the outer dimensions'): a thread's registers run row-major over its
 * elements. */
TLC_API const tlc_layout *tlc_fragment_partition(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                                 int64_t vec, int64_t thread_lo, const char **why);
/* Every thread of [thread_lo, thread_lo+threads) holds the whole tile. */
TLC_API const tlc_layout *tlc_fragment_replicated(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                                  int64_t thread_lo);
/* A matrix-instruction operand tiled over warps: `atom` is the fragment of
 * one instruction's am x an operand tile over its `lanes` threads (see
 * tlc_matrix_inst in tlc/target.h) with R registers; the M x N tile is held
 * by a warp_m x warp_n grid of such thread groups (group = wm * warp_n + wn,
 * threads group * lanes + atom thread).  When split_m, group row wm owns rows
 * [wm * M/warp_m, (wm+1) * M/warp_m), else every group row holds all rows
 * (the grid axis replicates); the same for split_n and columns.  A group holds
 * its block as MI x NI atoms in registers: register (mi * NI + ni) * R + the
 * atom's register.  An mma.sync accumulator splits both dimensions; its A
 * operand splits only M (every wn holds the same rows). */
TLC_API const tlc_layout *tlc_fragment_tile(tlc_module *m, const tlc_layout *atom, int64_t M, int64_t N, int warp_m,
                                            int warp_n, bool split_m, bool split_n, int64_t thread_lo,
                                            const char **why);
/* The fragment of a reduction of f over dimension dim: thread digits of dim
 * become replication, register digits of dim are dropped (the remaining
 * register digits keep their order, renumbered densely).  The result has
 * dimension dim removed; projecting a 1-D fragment gives shape (1,). */
TLC_API const tlc_layout *tlc_fragment_project(tlc_module *m, const tlc_layout *f, int dim);
/* Repeat f `times` along dimension dim (shape[dim] *= times) with the new
 * outer digit in registers. */
TLC_API const tlc_layout *tlc_fragment_repeat(tlc_module *m, const tlc_layout *f, int dim, int64_t times);
/* Replicate f over `times` more threads (a new outermost replication digit). */
TLC_API const tlc_layout *tlc_fragment_replicate(tlc_module *m, const tlc_layout *f, int64_t times);
/* The fragment of a view of f's tile with another shape of as many elements
 * (T.view / T.reshape): the view's element whose row-major flat index is x
 * is f's element of flat index x, in the same thread and register.  Each
 * digit of f, read as a digit of the flat index, is cut where the new
 * shape's dimensions begin; NULL and *why set when a boundary falls inside
 * a digit off its steps (no digit form holds that view). */
TLC_API const tlc_layout *tlc_fragment_reshape(tlc_module *m, const tlc_layout *f, int ndim,
                                               const int64_t *shape, const char **why);
/* The same fragment bound to another thread range start. */
TLC_API const tlc_layout *tlc_fragment_rebind(tlc_module *m, const tlc_layout *f, int64_t thread_lo);
/* The thread id (relative to thread_lo) of a symbolic logical index; rep (may
 * be NULL when replicate == 1) selects the replica. */
TLC_API const tlc_expr *tlc_fragment_thread_of(tlc_module *m, const tlc_layout *f, int n, const tlc_expr *const *idx,
                                               const tlc_expr *rep);
/* Inverse: the logical index (ndim expressions into idx_out) held by thread
 * `thread` (relative to thread_lo) at register `reg`. */
TLC_API void tlc_fragment_logical_of(tlc_module *m, const tlc_layout *f, const tlc_expr *thread,
                                     const tlc_expr *reg, const tlc_expr **idx_out);
/* True if every (thread, register) slot of b's logical elements is the same
 * as a's, except that b may replicate more (b "contains" a). */
TLC_API bool tlc_fragment_contains(const tlc_layout *b, const tlc_layout *a);

/* ---- layouts in the IR ----
 *
 * Printed forms (all parse back to the same layout):
 *   T.Layout(shape, lambda i, j: [p0, p1])                    memory layouts
 *   T.swizzled_layout(shape, "float16", 128)                  swizzled layouts
 *   T.Fragment(shape, forward_thread_fn=lambda i, j[, rep]: t,
 *              forward_index_fn=lambda i, j: [r], replicate=R,
 *              thread_range=[lo, n])                          fragments
 * A T.Fragment whose map is not of digit form is rejected.  Without
 * thread_range a fragment spans the threads its lambdas use, from 0; a
 * forward_fn=lambda i, j[, rep]: (thread, index) is read like the pair of
 * lambdas.  Fragments given by lambdas are fitted to digit form by
 * enumerating every element (tiles up to 4M elements). */

/* The layout an IR expression denotes; NULL and *why set if it is not one. */
TLC_API const tlc_layout *tlc_layout_from_expr(tlc_module *m, const tlc_expr *e, const char **why);
/* The canonical IR expression of a layout (printed as above). */
TLC_API const tlc_expr *tlc_layout_to_expr(tlc_module *m, const tlc_layout *l);
/* Short human text, e.g. "swizzled(128B) 64x64" or "fragment 128x128 over
 * threads [0, 128), 64 registers"; for diagnostics. */
TLC_API void tlc_layout_describe(tlc_buf *out, const tlc_layout *l);

#ifdef __cplusplus
}
#endif
#endif
