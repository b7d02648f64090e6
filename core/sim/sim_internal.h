/* sim_internal.h - the simulator's parts (tlc/sim.h, doc/sim.md). */
#ifndef TLC_SIM_INTERNAL_H
#define TLC_SIM_INTERNAL_H

#include "../internal.h"

#include <tlc/diag.h>
#include <tlc/sim.h>
#include <tlc/walk.h>

#define TLC_SIM_MAX_DIMS 8

/* ---- numbers (sim_number.c) ---- */

/* An integer value wrapped to dtype t (two's complement), as the GPU's
 * integer arithmetic wraps. */
int64_t sim_wrap_int(tlc_dtype t, int64_t v);
/* A float converted to integer type t: toward zero, saturating, NaN 0. */
int64_t sim_float_to_int(tlc_dtype t, double x);
uint64_t sim_random_u64(uint64_t *state);
double sim_random_normal(uint64_t *state);

/* A value of an expression: f for float dtypes (already rounded to the
 * dtype), i for integers and bool. */
typedef struct sim_val {
	double f;
	int64_t i;
} sim_val;

/* ---- memory (sim_memory.c) ---- */

/* The storage of one buffer instance: a C-order array of its dtype's
 * storage format (what the .npy files hold). */
typedef struct sim_array {
	tlc_dtype dtype;
	int ndim;
	int64_t shape[TLC_SIM_MAX_DIMS];
	int64_t numel;
	unsigned char *data; /* owned unless `view` */
	bool view;           /* a T.view of another array's bytes */
	int64_t nbytes;
} sim_array;

bool sim_array_init(sim_array *a, tlc_dtype t, int ndim, const int64_t *shape);
void sim_array_free(sim_array *a);
/* Element e (flat, C order) of a, as a value of its dtype. */
sim_val sim_array_get(const sim_array *a, int64_t e);
void sim_array_set(sim_array *a, int64_t e, sim_val v);

/* ---- .npy files (sim_npy.c) ---- */

/* Read a .npy file into a (shape and dtype must match what a already
 * has); false and *why otherwise. */
bool sim_npy_read(const char *path, sim_array *a, char *why, size_t nwhy);
/* Write a as a .npy file; false and *why on failure. */
bool sim_npy_write(const char *path, const sim_array *a, char *why, size_t nwhy);

/* ---- the interpreter (sim_eval.c, sim_tile.c) ---- */

typedef struct sim {
	tlc_module *m;
	tlc_context *ctx;
	const tlc_func *f;
	/* values of the variables in scope, by tlc_var id */
	sim_val *vals;
	bool *bound;
	uint32_t nvars;
	/* the instance of each buffer, by tlc_buffer id (NULL: not allocated) */
	sim_array **arrays;
	uint32_t nbufs;
	int errors;
	bool stop; /* an error ended the run */
} sim;

void sim_bind(sim *s, const tlc_var *v, sim_val x);
void sim_unbind(sim *s, const tlc_var *v);
/* The array of buffer b (a T.view: its own shape over its source's bytes). */
sim_array *sim_array_of(sim *s, const tlc_buffer *b, tlc_loc loc);
bool sim_set_array(sim *s, const tlc_buffer *b, sim_array *a);

/* Report an error at loc and stop the run. */
void sim_fail(sim *s, tlc_loc loc, const char *fmt, ...);

sim_val sim_eval(sim *s, const tlc_expr *e, tlc_loc loc);
int64_t sim_eval_int(sim *s, const tlc_expr *e, tlc_loc loc);
/* x converted from dtype `from` to dtype `to`, as T.cast converts. */
sim_val sim_convert(sim_val x, tlc_dtype from, tlc_dtype to);
/* The flat element of buffer b at indices idx (each checked against its
 * extent); -1 after reporting an out-of-bounds access. */
int64_t sim_element(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, tlc_loc loc);

/* Run a statement of one block at the tile level. */
void sim_exec(sim *s, const tlc_stmt *st);

#endif
