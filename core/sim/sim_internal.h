/* sim_internal.h - the simulator's parts (tlc/sim.h, doc/sim.md). */
#ifndef TLC_SIM_INTERNAL_H
#define TLC_SIM_INTERNAL_H

#include "../arith.h"
#include "../internal.h"

#include <tlc/diag.h>
#include <tlc/sim.h>
#include <tlc/walk.h>

#define TLC_SIM_MAX_DIMS 8

/* ---- numbers (sim_number.c) ---- */

/* An integer value wrapped to dtype t (two's complement): tlc_arith_wrap. */
#define sim_wrap_int tlc_arith_wrap
/* A float converted to integer type t: toward zero, saturating, NaN 0. */
int64_t sim_float_to_int(tlc_dtype t, double x);
uint64_t sim_random_u64(uint64_t *state);
double sim_random_normal(uint64_t *state);

/* A value of an expression: f for float dtypes (already rounded to the
 * dtype), i for integers and bool. */
typedef tlc_scalar sim_val;

/* ---- memory (sim_memory.c) ---- */

/* Ordering (sim_order.c).  Every agent that touches shared memory has a
 * vector clock: the block's threads, then the TMA unit, then one WGMMA unit
 * per warpgroup (the asynchronous proxies read and write on their own
 * time).  An access remembers who made it at which of its clocks; another
 * agent's access is ordered after it when that agent's clock of the first
 * has reached it (a barrier, an mbarrier phase or a wait joined them). */
typedef uint32_t sim_clock;
typedef struct sim_access {
	int32_t agent; /* -1: none */
	sim_clock clock;
	tlc_loc loc;
} sim_access;
/* Readers remembered per byte: reads ordered before a newer one are
 * dropped, and past this many unordered readers the oldest is forgotten
 * (a race with it may then go unreported, never a false one). */
#define SIM_READERS 4
/* What the race check remembers of one shared-memory byte. */
typedef struct sim_shadow {
	sim_access write;
	sim_access read[SIM_READERS];
	int32_t in_flight; /* thread + 1 whose T.cp_async to this byte has not landed (0: none) */
	tlc_loc flight_loc;
} sim_shadow;

/* The storage of one buffer instance: a C-order array of its dtype's
 * storage format (what the .npy files hold). */
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
	/* per-thread buffers: per thread, a WGMMA accumulator state
	 * (SIM_REG_*; NULL: never a WGMMA accumulator) */
	unsigned char *reg_state;
	const tlc_stmt *reg_issue; /* the T.wgmma_issue that made it busy */
} sim_array;
enum {
	SIM_REG_READY = 0,
	SIM_REG_IN_FLIGHT, /* a WGMMA writing it has not been waited for */
	SIM_REG_UNFENCED,  /* waited for, but no T.warpgroup_fence_operand since */
};

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

struct sim;

/* A thread-block cluster at the thread level (every thread-level run has
 * one; a kernel without clusters, of one block).  Its blocks run
 * concurrently, each with its own state (struct sim: shared memory,
 * mbarriers, registers, WGMMA groups), sharing the global tensors and one
 * set of vector clocks over the agents of all of them (sim_order.c). */
typedef struct sim_cluster {
	int64_t dims[3], n; /* blocks along x, y, z; n their product */
	/* the whole grid of a kernel with T.sync_grid (and no clusters), run at
	 * once so that its blocks can wait for each other: no block reaches
	 * another's shared memory or barriers, and each is rank 0 of its own
	 * cluster (sim_cluster_of) */
	bool grid;
	struct sim **blocks; /* by rank in the cluster; blocks[0] is the run's own state, which owns the others */
	/* T.cluster_sync: the threads arrived in the current phase and their
	 * clocks, and the clocks of the last completed phase */
	int64_t arrived, phase;
	sim_clock *vc, *fv, *done_vc, *done_fv;
} sim_cluster;

typedef struct sim {
	tlc_module *m;
	tlc_context *ctx;
	const tlc_func *f;
	/* the thread level: every thread of the block (nthreads of them; tid
	 * the one evaluating); the tile level: one thread of control */
	bool threaded;
	int64_t nthreads, tid;
	int64_t block_threads; /* threads of a block (T.Kernel's threads=), at every level */
	int64_t warp_size; /* the target's lanes per warp */
	int64_t block[3]; /* blockIdx */
	/* the thread level: the block's cluster and its rank there (0 without
	 * clusters); the block's agents are agent0 .. agent0 + block_agents - 1
	 * of the cluster's (sim_order.c) */
	sim_cluster *cluster;
	int64_t rank, agent0, block_agents;
	bool ended; /* a cluster's block: every thread of it has finished */
	/* per agent of the cluster: the newest clock at which it reached into
	 * this block (another block's remote arrive or multicast), and where;
	 * the block's end must be ordered after it */
	sim_clock *remote;
	tlc_loc *remote_loc;
	const bool *active; /* the threads running the current statement (thread level) */
	/* break and continue.  The thread level: the threads that left the
	 * innermost loop (loop_broke) or its iteration (loop_continued), and a
	 * count of such exits by which a block notices that its threads
	 * changed.  The tile level: SIM_FLOW_* of the one thread of control. */
	bool *loop_broke, *loop_continued;
	int64_t loop_exits;
	int loop_flow;
	const char *after_pass; /* for the checks' messages */
	/* asynchronous copies (T.cp_async) issued and not yet landed */
	struct sim_copy *copies;
	int ncopies, cap_copies;
	int64_t *commits; /* per thread: groups committed so far */
	/* vector clocks: agent a's clock of agent b at vc[a * nagents + b]
	 * (in a cluster of several blocks, the blocks share them) */
	int64_t nagents, warpgroup;
	sim_clock *vc, *fv;
	/* WGMMA groups issued and not yet waited for (sim_matrix.c) */
	struct sim_wgmma *wgmmas;
	int nwgmmas, cap_wgmmas;
	/* mbarriers of the block (by buffer id) and the T.ws tasks (sim_task.c) */
	struct sim_mbars **mbars;
	uint32_t nmbars;
	/* the tile level: global tensors' T.annotate_layout (by buffer id) */
	const tlc_layout **layouts;
	uint32_t nlayouts;
	/* the bounds semantics: at the tile level of a kernel legalize-bounds
	 * has not guarded, a global access outside its tensor is masked (a
	 * load reads the tensor's safe value, by buffer id; a store is
	 * dropped), or with strict_bounds reported; elsewhere it is an error */
	bool masked, strict_bounds;
	sim_val *safe;
	uint32_t nsafe;
	struct sim_gemm *gemms; /* matrix instruction call sites seen (their maps) */
	struct sim_sched *sched;
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
	struct sim_rng *rng; /* per thread: its T.rng_init generator (sim_rng.c) */
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
/* a + b in dtype t (both already of it): rounded, or wrapped (atomics). */
sim_val sim_add(tlc_dtype t, sim_val a, sim_val b);
/* x converted from dtype `from` to dtype `to`, as T.cast converts. */
sim_val sim_convert(sim_val x, tlc_dtype from, tlc_dtype to);
/* The flat element of buffer b at indices idx (each checked against its
 * extent); -1 after reporting an out-of-bounds access. */
int64_t sim_element(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, tlc_loc loc);
/* Is the access (`what`: "load", "store") of b at idx outside the global
 * tensor b and masked there by the bounds semantics (s->masked)?  With
 * s->strict_bounds it is reported instead (and true: the caller stops). */
bool sim_bounds_masked(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, const char *what,
                       tlc_loc loc);
/* What a masked load of global tensor b reads. */
sim_val sim_safe_value(const sim *s, const tlc_buffer *b);

/* ---- random numbers (sim_rng.c) ---- */

/* T.rng_init(seed, seq, off) in the current thread. */
void sim_rng_init(sim *s, const tlc_expr *call, tlc_loc loc);
/* The value of T.rng_rand() / T.rng_rand_float(...) in the current thread. */
sim_val sim_rng_draw(sim *s, const tlc_expr *call, tlc_loc loc);

/* ---- ordering and races (sim_order.c) ---- */

/* The block's agents: thread t, the TMA unit and warpgroup g's WGMMA
 * unit (numbered over the whole cluster). */
int64_t sim_agent_thread(const sim *s, int64_t t);
int64_t sim_agent_tma(const sim *s);
int64_t sim_agent_wgmma(const sim *s, int64_t warpgroup);
/* (Re)start the clocks for a block, or for all blocks of a cluster: every
 * agent unordered with the others. */
void sim_order_reset(sim *s);
void sim_order_reset_cluster(sim_cluster *c);
/* True when agent's clock has reached access x (x happened before). */
bool sim_knows(sim *s, int64_t agent, const sim_access *x);
/* agent (of block s) reaches into block `to` now, at loc: remembered for
 * the check at to's end. */
void sim_remote_note(sim *s, sim *to, int64_t agent, tlc_loc loc);
/* Block s ends: every remote access into it must be ordered before the end
 * of one of its threads. */
void sim_remote_check_end(sim *s);
/* " in block rank r" in a cluster of several blocks, else "". */
const char *sim_in_block(const sim *s, char *buf, size_t n);
/* An agent's clocks of every agent, and what it knows to be fenced for the
 * asynchronous proxy. */
sim_clock *sim_vc(sim *s, int64_t agent);
sim_clock *sim_fv(sim *s, int64_t agent);
/* `to` learns what (vc, fv) hold / what agent `from` knows. */
void sim_learn(sim *s, int64_t to, const sim_clock *vc, const sim_clock *fv);
void sim_learn_from(sim *s, int64_t to, int64_t from);
/* What agent `from` knows is joined into (vc, fv) (an mbarrier's arrivals). */
void sim_publish(sim *s, int64_t from, sim_clock *vc, sim_clock *fv);
/* agent's later accesses are new events (after it published its clock). */
void sim_vc_tick(sim *s, int64_t agent);
/* T.fence_proxy_async by thread t (of the block): what it knows now is fenced. */
void sim_fence_proxy(sim *s, int64_t t);
/* Threads [lo, lo + n) of the block learn what each of them knows (a
 * barrier among them; each then ticks). */
void sim_join_threads(sim *s, int64_t lo, int64_t n);
/* The race check of an access of n elements from element e of a by the
 * current thread (thread level, shared memory); sim_touch_by for another
 * agent. */
void sim_touch(sim *s, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write, tlc_loc loc);
void sim_touch_by(sim *s, int64_t agent, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write,
                  tlc_loc loc);
/* Forget every access to the bytes of a (a new block). */
void sim_shadow_clear(sim_shadow *h, int64_t nbytes);
/* " (the IR after pass 'x')" for messages. */
const char *sim_after(const sim *s, char *buf, size_t n);

/* Run a statement of one block at the tile level. */
void sim_exec(sim *s, const tlc_stmt *st);
/* sim_tile.c's statements of one thread, for the thread level. */
void sim_alloc(sim *s, const tlc_stmt *st);
void sim_store(sim *s, const tlc_stmt *st);

/* ---- the thread level (sim_thread.c) ---- */

enum { SIM_FLOW_NORMAL, SIM_FLOW_BREAK, SIM_FLOW_CONTINUE };

/* The threads running a statement. */
typedef struct sim_mask {
	int64_t n; /* active threads */
	bool *on;  /* per thread of the block */
} sim_mask;
sim_mask sim_mask_new(const sim *s);
void sim_exec_threads(sim *s, const tlc_stmt *st, const sim_mask *m);
/* Whether the warp of s->warp_size lanes from thread w0 runs a warp-collective
 * instruction (T.mma_sync, T.stmatrix) under m: 1 when all its lanes do, 0
 * when none does, -1 after failing "OP: lane L of warp W does not run it (a
 * divergent WHAT)" when only some do. */
int sim_warp_runs(sim *s, const sim_mask *m, int64_t w0, tlc_loc loc, const char *op,
                  const char *what);
/* Run one block's body with every thread; false after an error. */
bool sim_run_block_threads(sim *s, const tlc_stmt *body);
/* Run the blocks of cluster c (their blockIdx set) concurrently, each with
 * every thread; false after an error. */
bool sim_run_cluster_threads(sim_cluster *c, const tlc_stmt *body);

/* T.sync_threads (sim_order.c): every thread of the block, or divergence. */
void sim_sync_threads(sim *s, const tlc_stmt *st, const sim_mask *m);
/* The threads a barrier of the current statement waits for: the block's,
 * or the current T.ws scope's (*scope), from *lo, *n of them; returns the
 * first of them that m leaves out, -1 when all take part. */
int64_t sim_barrier_missing(sim *s, const sim_mask *m, int64_t *lo, int64_t *n, bool *scope);

/* ---- asynchronous copies (sim_async.c) ---- */
void sim_cp_async(sim *s, const tlc_stmt *st);
void sim_cp_async_commit(sim *s);
void sim_cp_async_wait(sim *s, const tlc_stmt *st);
/* Land every copy of the current thread now (T.cp_async_arrive). */
void sim_cp_async_land_all(sim *s, tlc_loc loc);
void sim_tma_load(sim *s, const tlc_stmt *st);
void sim_tma_store(sim *s, const tlc_stmt *st);
void sim_tma_store_wait(sim *s);
/* The first of `lanes` consecutive elements from element x (a load) of its
 * buffer, after checking that the last one is inside too; -1 (reported)
 * otherwise. */
int64_t sim_vector_at(sim *s, const tlc_expr *x, sim_array **a, int64_t lanes, tlc_loc loc);

/* ---- mbarriers and T.ws (sim_task.c) ---- */
/* mbarrier statements (init, arrive, expect_tx, wait) of the active threads */
void sim_mbarrier_stmt(sim *s, const tlc_stmt *st, const sim_mask *m);
/* ... and at the tile level. */
void sim_mbarrier_tile(sim *s, const tlc_stmt *st);
/* The barrier buffers of a block: fresh, uninitialised. */
void sim_mbar_alloc(sim *s, const tlc_stmt *st);
/* The mbarrier element x (a load of a barrier buffer) denotes; NULL after
 * reporting. */
struct sim_mbar *sim_mbar_at(sim *s, const tlc_expr *x, tlc_loc loc);
/* The block of rank r of s's cluster (`what` names the operand for the
 * message); NULL after reporting one outside it. */
sim *sim_cluster_block(sim *s, int64_t r, const char *what, tlc_loc loc);
/* The mbarrier at x's place in block blk of the cluster (x evaluated by
 * the current thread of s), for a use by `agent` of s described by `what`
 * ("an arrive on"): another block's must be initialised, its
 * initialisation ordered before the use, and the block still running.
 * NULL after reporting. */
struct sim_mbar *sim_mbar_for(sim *s, sim *blk, const tlc_expr *x, int64_t agent, const char *what, tlc_loc loc);
/* Complete tx bytes of a transaction on b (a TMA load landed). */
void sim_mbar_complete_tx(sim *s, struct sim_mbar *b, int64_t bytes, int64_t agent);
/* Run n statements, all T.ws scopes, as concurrent tasks (m: the threads
 * running them; NULL at the tile level). */
void sim_run_ws(sim *s, const tlc_stmt *const *items, int n, const sim_mask *m);
/* Run the blocks of cluster c, each a task over all its threads running
 * body, concurrently (their states ready). */
void sim_run_cluster(sim_cluster *c, const tlc_stmt *body);
/* T.cluster_sync of the active threads. */
void sim_cluster_sync(sim *s, const tlc_stmt *st, const sim_mask *m);
/* T.sync_grid at the thread level: a barrier of every thread of the grid,
 * whose blocks run at once (sim_cluster.grid). */
void sim_grid_sync(sim *s, const tlc_stmt *st, const sim_mask *m);
/* s's cluster as the program sees it: NULL for none, or the whole grid run
 * at once for T.sync_grid (each block is then its own cluster). */
sim_cluster *sim_cluster_of(const sim *s);
void sim_tasks_free(sim *s);
/* The threads of the T.ws task running now; false outside T.ws scopes. */
bool sim_task_range(const sim *s, int64_t *lo, int64_t *n);

/* ---- matrix instructions (sim_matrix.c) ---- */
void sim_mma_gemm(sim *s, const tlc_stmt *st, const sim_mask *m);
/* T.mma_sync: one warp matrix instruction on each warp's registers. */
void sim_mma_sync(sim *s, const tlc_stmt *st, const sim_mask *m);
void sim_wgmma_issue(sim *s, const tlc_stmt *st, const sim_mask *m);
void sim_wgmma_wait(sim *s, const tlc_stmt *st, const sim_mask *m);
void sim_wgmma_fence(sim *s, const tlc_stmt *st, const sim_mask *m);
/* Forget WGMMA groups a block left in flight. */
void sim_wgmma_reset(sim *s);
void sim_matrix_free(sim *s);

/* ---- runs (sim_run.c) ---- */

/* True when the kernel's body is thread-level IR (lower-tile-ops ran). */
bool sim_is_thread_level(const tlc_func *f, const tlc_context *ctx);

#endif
