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
/* What the race check remembers of one shared-memory byte: its last
 * writer and its reader(s) since the last barrier (SIM_MANY: several). */
typedef struct sim_shadow {
	int32_t writer, reader;
	uint32_t write_epoch, read_epoch;
	tlc_loc write_loc, read_loc;
	int32_t in_flight; /* thread + 1 whose T.cp_async to this byte has not landed (0: none) */
	tlc_loc flight_loc;
} sim_shadow;
#define SIM_NOBODY (-1)
#define SIM_MANY (-2)

typedef struct sim_array {
	tlc_dtype dtype;
	int ndim;
	int64_t shape[TLC_SIM_MAX_DIMS];
	int64_t numel;
	unsigned char *data; /* owned unless `view` */
	bool view;           /* a T.view of another array's bytes (or of the shared arena) */
	int64_t nbytes;
	/* thread level: a per-thread buffer holds one copy per thread, thread
	 * t's at element t * thread_stride (0: one copy for the block) */
	int64_t thread_stride;
	sim_shadow *shadow; /* shared memory at the thread level: one per byte (NULL: unchecked) */
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
	/* the thread level: every thread of the block (nthreads of them; tid
	 * the one evaluating); the tile level: one thread of control */
	bool threaded;
	int64_t nthreads, tid;
	int64_t warp_size; /* the target's lanes per warp */
	int64_t block[3]; /* blockIdx */
	const bool *active; /* the threads running the current statement (thread level) */
	const char *after_pass; /* for the checks' messages */
	/* asynchronous copies (T.cp_async) issued and not yet landed */
	struct sim_copy *copies;
	int ncopies, cap_copies;
	int64_t *commits; /* per thread: groups committed so far */
	uint32_t epoch; /* block barriers so far: accesses in one epoch are unordered */
	sim_array *arena; /* the block's shared-memory arena (storage-plan's offsets) */
	/* values of the variables in scope, by tlc_var id (times nthreads) */
	sim_val *vals;
	bool *bound;
	uint32_t nvars;
	/* the instance of each buffer, by tlc_buffer id (NULL: not allocated) */
	sim_array **arrays;
	uint32_t nbufs;
	int errors;
	bool stop; /* an error ended the run */
} sim;

/* Bind v for the current thread (sim_bind) or for all (sim_bind_all). */
void sim_bind(sim *s, const tlc_var *v, sim_val x);
void sim_bind_all(sim *s, const tlc_var *v, sim_val x);
void sim_unbind(sim *s, const tlc_var *v);
/* The array of buffer b (a T.view: its own shape over its source's bytes). */
sim_array *sim_array_of(sim *s, const tlc_buffer *b, tlc_loc loc);
bool sim_set_array(sim *s, const tlc_buffer *b, sim_array *a);

/* Report an error at loc and stop the run. */
void sim_fail(sim *s, tlc_loc loc, const char *fmt, ...);

/* Thread t's index along dimension d of the block (x fastest). */
int64_t sim_thread_coord(const sim *s, int64_t t, int d);
sim_val sim_eval(sim *s, const tlc_expr *e, tlc_loc loc);
int64_t sim_eval_int(sim *s, const tlc_expr *e, tlc_loc loc);
/* x converted from dtype `from` to dtype `to`, as T.cast converts. */
sim_val sim_convert(sim_val x, tlc_dtype from, tlc_dtype to);
/* The flat element of buffer b at indices idx (each checked against its
 * extent); -1 after reporting an out-of-bounds access. */
int64_t sim_element(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, tlc_loc loc);

/* The race check of an access of n elements from element e of a by the
 * current thread (thread level, shared memory). */
void sim_touch(sim *s, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write, tlc_loc loc);

/* Run a statement of one block at the tile level. */
void sim_exec(sim *s, const tlc_stmt *st);
/* sim_tile.c's statements of one thread, for the thread level. */
void sim_alloc(sim *s, const tlc_stmt *st);
void sim_store(sim *s, const tlc_stmt *st);

/* ---- the thread level (sim_thread.c) ---- */

/* Run one block's body with every thread; false after an error. */
bool sim_run_block_threads(sim *s, const tlc_stmt *body);

/* ---- runs (sim_run.c) ---- */

/* True when the kernel's body is thread-level IR (lower-tile-ops ran). */
bool sim_is_thread_level(const tlc_func *f, const tlc_context *ctx);

#endif
