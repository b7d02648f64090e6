/* tlc/sim.h - running a kernel on the CPU: tlc's simulator (doc/sim.md).
 *
 * The simulator executes the IR itself.  At the tile level (the IR as the
 * frontend leaves it, `tlc --run --passes=`) each block is one logical
 * thread of control and tile ops have their mathematical meaning: T.copy
 * moves a tile element by element (a load outside a global tensor reads
 * zero, a store outside it is skipped), an element load outside a global
 * tensor reads its safe value and such a store is dropped (the bounds
 * semantics, until legalize-bounds has made every guard explicit), T.gemm
 * sums its products in float64
 * and adds them to the accumulator once, T.Parallel and T.Pipelined are
 * plain loops.  Every value is rounded to its dtype exactly as the CUDA
 * target computes it (float16, bfloat16 and float8 included), so two runs
 * whose roundings agree agree bit for bit.
 *
 * At the thread level (IR with lowered intrinsics: after lower-tile-ops)
 * every thread of a block runs, in lock-step over the statements; shared
 * memory is storage-plan's arena, and a race (two threads, one writing, the
 * same byte, no barrier between) or a barrier not every thread reaches is
 * an error.  tlc_sim_compare holds a lowered module to its tile-level
 * meaning.
 *
 * Inputs are the kernel's tensor and scalar parameters: random tensors from
 * a seed, or .npy files; scalars from their values.  Outputs are written as
 * .npy files, one per tensor parameter.  What is not modelled is an error
 * naming the statement, never skipped. */
#ifndef TLC_SIM_H
#define TLC_SIM_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tlc_sim_options {
	uint64_t seed; /* random inputs: float tensors N(0, 1), integer ones uniform in [0, 4) */
	/* NAME=VALUE pairs: a tensor parameter's .npy file, or a scalar
	 * parameter's value */
	int ninputs;
	const char *const *input_names;
	const char *const *input_values;
	/* where NAME.npy goes for every tensor parameter (NULL: nowhere) */
	const char *out_dir;
	/* run only this many blocks of the grid, spread evenly over the linear
	 * block index from the first to the last (0: all) */
	int64_t blocks;
	/* the last pass that ran, named by the race and barrier checks (NULL: none) */
	const char *after_pass;
	/* report a global access outside its tensor that the bounds semantics
	 * would mask (the tile level before legalize-bounds) as an error,
	 * instead of masking it (--strict-bounds) */
	bool strict_bounds;
} tlc_sim_options;

/* Run every kernel of m on the CPU with o's inputs; problems are reported
 * on m's context (errors with locations).  Returns 0 when the run was
 * clean and every output was written, nonzero otherwise. */
TLC_API int tlc_sim_run(tlc_module *m, const tlc_sim_options *o);

/* The differential check: every kernel of `lowered` (the IR after a
 * pipeline) and of `tile` (the same source before it) run on the same
 * inputs, and every tensor parameter must agree element by element:
 * |lowered - tile| <= atol + rtol |tile| (integers exactly, NaN only with
 * NaN).  A difference is an error naming the first element, the two
 * values and how many differ.  The lowered run's tensors are written to
 * o->out_dir.  Returns 0 when they agree. */
typedef struct tlc_sim_compare_options {
	double atol, rtol;
} tlc_sim_compare_options;
TLC_API int tlc_sim_compare(tlc_module *lowered, tlc_module *tile, const tlc_sim_options *o,
                            const tlc_sim_compare_options *c);

/* The float formats the simulator rounds to (exposed for tests): `bits`
 * holds the value in dtype t's storage format (float16 and bfloat16: 16
 * bits, float8: 8 bits, float32: 32, float64: 64). */
TLC_API double tlc_sim_round(tlc_dtype t, double x);
TLC_API uint64_t tlc_sim_encode(tlc_dtype t, double x);
TLC_API double tlc_sim_decode(tlc_dtype t, uint64_t bits);

#ifdef __cplusplus
}
#endif
#endif
