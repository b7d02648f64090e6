/* tlc/uniform.h - which values are the same in every thread of a block.
 *
 * A barrier of the whole block may go inside an `if` or a loop only when
 * every thread of the block takes the same branch or runs the same trip
 * count, i.e. when the condition (the bounds) is *block-uniform*.  This is
 * the one analysis every pass that asks uses, so that they cannot disagree.
 *
 * Uniform: constants, block indices (T.block_idx, the kernel's block
 * variables, T.block_rank_in_cluster), scalar parameters, variables of loops
 * whose bounds are uniform (serial, unrolled, vectorized), lets of uniform
 * values, side-effect-free math (built-in T.* math, operators, casts,
 * T.if_then_else) of uniform operands, and loads at uniform indices from:
 *  - a global tensor that no thread of the kernel writes;
 *  - shared memory, on the premise that the block's shared accesses are
 *    race-free (every write by another thread is ordered before the read by
 *    a barrier: sync-insert makes it so, and refuses what it cannot order);
 *  - a per-thread buffer (T.alloc_local, T.alloc_var) whose every store
 *    writes a uniform value at uniform indices, where every thread of the
 *    block runs it (not inside a thread-dependent `if` or loop, a T.Parallel
 *    nest or a T.ws scope), and that nothing else writes (a tile op or an
 *    intrinsic).  An element read before any store is uninitialised memory
 *    (an error of the program, which tlc-sim reports).
 * A serial loop with a break or continue of its own under a varying
 * condition lets only some threads run the rest of its body.
 * Varying: thread indices (T.thread_idx, T.get_thread_binding's variables,
 * T.Parallel and thread-bound loop variables), warp shuffles, any other
 * call, fragments, and everything computed from a varying value.
 * Per-thread buffers and lets depend on each other, so the analysis is a
 * fixpoint over the whole kernel, computed once by tlc_uniformity_new. */
#ifndef TLC_UNIFORM_H
#define TLC_UNIFORM_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlc_uniformity tlc_uniformity;

/* The uniformity facts of kernel f of module m (f is not changed). */
TLC_API tlc_uniformity *tlc_uniformity_new(tlc_module *m, const tlc_func *f);
/* Free what tlc_uniformity_new made. */
TLC_API void tlc_uniformity_free(tlc_uniformity *u);
/* True when x, evaluated by the threads of the block at the same point of
 * the kernel, has one value in all of them (see the header comment). */
TLC_API bool tlc_expr_block_uniform(const tlc_uniformity *u, const tlc_expr *x);

#ifdef __cplusplus
}
#endif
#endif
