/* sim_task.c - mbarriers and warp-specialized scopes at the thread level
 * (doc/sim.md, "mbarriers and T.ws").
 *
 * An mbarrier has an arrive count, the arrivals still pending in its
 * current phase, a transaction count (bytes expected by
 * T.mbarrier_expect_tx and not yet delivered by TMA loads) and the number
 * of phases completed.  A phase completes when its last arrival has come
 * and its transaction count is zero; T.barrier_wait(bar, parity) returns
 * once the phase of that parity has completed (the current phase's parity
 * differs), as mbarrier.try_wait.parity does: on a fresh barrier a wait
 * for parity 1 returns at once (the phase "before the first" counts as
 * complete; producers wait so for buffers that start empty).  A wait that
 * returns on the very phase the same waiter's previous wait returned on
 * has not waited for anything: that is the wrong parity, an error.  (A
 * waiter is a thread, or at the tile level a T.ws scope.)  The arrivals' clocks
 * (sim_order.c) are gathered per phase and handed to the threads whose
 * wait the phase releases.
 *
 * `with T.ws(g)` scopes next to each other run concurrently
 * (tlc_ws_group_len): one task per set of warpgroups, over their threads
 * (threads in none skip the group), running the group's scopes over those
 * warpgroups one after the other, as those threads do.  Scopes over
 * overlapping but different warpgroups in one group are not modelled.  Tasks
 * take turns: each runs on a thread of its own but only one holds the
 * baton, so a run is deterministic.  A task whose wait cannot return
 * passes the baton on (round robin); when every task waits and no barrier
 * has changed since each looked, nothing can ever arrive: that deadlock is
 * reported, naming every wait, instead of hanging.  Outside T.ws scopes
 * the block is one task, and a wait that cannot return is a deadlock at
 * once.
 *
 * At the tile level a T.ws scope is one thread of control, and its
 * T.barrier_arrive counts as the arrivals of all its threads; barriers
 * start initialised with T.alloc_barrier's arrive counts.
 *
 * Thread-block clusters (thread level): the blocks of a cluster run
 * concurrently as tasks of one scheduler, each over all its threads, and
 * the T.ws tasks of a block join the same scheduler (placed after their
 * block's task, which waits until they are done); so the baton passes
 * among all tasks of the cluster, and a deadlock is every task of every
 * block waiting.  T.barrier_arrive(bar, cta_id=r) arrives on the barrier
 * at bar's place in block r, carrying the arriving thread's clock there;
 * TMA multicasts complete on the barriers of the blocks they land in
 * (sim_async.c).  Such a use of another block's barrier needs its
 * initialisation ordered before it (the T.cluster_sync after the
 * initialisation), and the use ordered before that block's end.  A
 * transaction count may go below zero (bytes landing before the
 * T.mbarrier_expect_tx for them, as a peer's multicast may), and the
 * phase completes when arrivals and bytes are all in, whichever comes
 * last.  T.cluster_sync is a barrier of every thread of the cluster: its
 * threads of the current task arrive together (all of the task's
 * threads, or barrier divergence) and wait until every thread of every
 * block has arrived; the phase joins all their clocks.  (In a kernel
 * without clusters the cluster is the block.) */
#include "sim_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/tileops.h>

typedef struct sim_mbar {
	bool init;
	int64_t count, pending, tx, phase; /* phase: phases completed */
	sim_clock *vc, *fv;                /* the current phase's arrivals */
	sim_clock *done_vc[2], *done_fv[2]; /* the last completed phase of each parity */
	int64_t *returned; /* per waiter: the phase its last wait returned on (-1: the one before the first) */
	int64_t nwaiters;
	sim_access init_at; /* its T.mbarrier_init (agent -1: none) */
	sim *owner;         /* the block whose shared memory holds it */
	const tlc_buffer *buf;
	int64_t index;
} sim_mbar;

typedef struct sim_mbars {
	int64_t n;
	sim_mbar *bars;
} sim_mbars;

/* ---- mbarriers ---- */

static void mbar_free(sim_mbars *b)
{
	if (!b)
		return;
	for (int64_t i = 0; i < b->n; i++) {
		free(b->bars[i].vc);
		free(b->bars[i].fv);
		free(b->bars[i].returned);
		for (int p = 0; p < 2; p++) {
			free(b->bars[i].done_vc[p]);
			free(b->bars[i].done_fv[p]);
		}
	}
	free(b->bars);
	free(b);
}

void sim_mbar_alloc(sim *s, const tlc_stmt *st)
{
	const tlc_buffer *b = st->u.alloc.buf;
	if (b->id >= s->nmbars) {
		uint32_t n = b->id + 16;
		s->mbars = tlc_xrealloc(s->mbars, n * sizeof(*s->mbars));
		for (uint32_t i = s->nmbars; i < n; i++)
			s->mbars[i] = NULL;
		s->nmbars = n;
	}
	int64_t n = b->ndim == 1 ? sim_eval_int(s, b->shape[0], st->loc) : -1;
	if (s->stop || n < 1 || n > 1024) {
		sim_fail(s, st->loc, "barrier buffer '%s' needs one dimension of 1 to 1024 barriers", b->name);
		return;
	}
	mbar_free(s->mbars[b->id]);
	sim_mbars *m = tlc_xcalloc(1, sizeof(*m));
	m->n = n;
	m->bars = tlc_xcalloc((size_t)n, sizeof(sim_mbar));
	for (int64_t i = 0; i < n; i++) {
		sim_mbar *x = &m->bars[i];
		x->buf = b;
		x->index = i;
		x->init_at.agent = -1;
		x->owner = s;
		x->vc = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
		x->fv = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
		for (int p = 0; p < 2; p++) {
			x->done_vc[p] = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
			x->done_fv[p] = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
		}
		/* the tile level: T.alloc_barrier's arrive counts initialise them
		 * (the lowered code initialises them with T.mbarrier_init) */
		if (!s->threaded && i < b->ninit && tlc_expr_as_int(b->init[b->ninit == 1 ? 0 : i], &x->count) &&
		    x->count > 0) {
			x->init = true;
			x->pending = x->count;
		}
	}
	s->mbars[b->id] = m;
}

/* The barrier at x's place (x evaluated by s's current thread) in block
 * blk; NULL after reporting.  Another block's barriers may not be
 * allocated yet: that reads as not initialised. */
static sim_mbar *mbar_in(sim *s, sim *blk, const tlc_expr *x, const char *what, tlc_loc loc)
{
	const tlc_buffer *b = x->kind == TLC_EXPR_BUF ? x->u.buf : x->kind == TLC_EXPR_LOAD ? x->u.load.buf : NULL;
	if (!b || b->scope != TLC_SCOPE_BARRIER) {
		sim_fail(s, loc, "an mbarrier operand is an element of a T.alloc_barrier buffer");
		return NULL;
	}
	sim_mbars *m = b->id < s->nmbars ? s->mbars[b->id] : NULL;
	if (!m) {
		sim_fail(s, loc, "barrier buffer '%s' is used where it is not allocated", b->name);
		return NULL;
	}
	int64_t i = 0;
	if (x->kind == TLC_EXPR_LOAD) {
		if (x->u.load.n != 1) {
			sim_fail(s, loc, "barrier buffer '%s' has one dimension", b->name);
			return NULL;
		}
		i = sim_eval_int(s, x->u.load.idx[0], loc);
	}
	if (s->stop)
		return NULL;
	if (i < 0 || i >= m->n) {
		sim_fail(s, loc, "out-of-bounds access %s[%lld] (%lld barriers)", b->name, (long long)i, (long long)m->n);
		return NULL;
	}
	if (blk == s)
		return &m->bars[i];
	sim_mbars *o = b->id < blk->nmbars ? blk->mbars[b->id] : NULL;
	if (!o || i >= o->n || !o->bars[i].init) {
		char after[160];
		sim_fail(s, loc, "%s %s[%lld] of block rank %lld, which no T.mbarrier_init has initialised yet (%s)", what,
		         b->name, (long long)i, (long long)blk->rank, sim_after(s, after, sizeof after));
		return NULL;
	}
	return &o->bars[i];
}

sim_mbar *sim_mbar_at(sim *s, const tlc_expr *x, tlc_loc loc)
{
	return mbar_in(s, s, x, NULL, loc);
}

sim_cluster *sim_cluster_of(const sim *s)
{
	return s->cluster && !s->cluster->grid ? s->cluster : NULL;
}

sim *sim_cluster_block(sim *s, int64_t r, const char *what, tlc_loc loc)
{
	sim_cluster *c = sim_cluster_of(s);
	int64_t n = c ? c->n : 1;
	if (r < 0 || r >= n) {
		sim_fail(s, loc, "%s=%lld is no block of the cluster (ranks 0 to %lld)", what, (long long)r, (long long)n - 1);
		return NULL;
	}
	return c ? c->blocks[r] : s;
}

sim_mbar *sim_mbar_for(sim *s, sim *blk, const tlc_expr *x, int64_t agent, const char *what, tlc_loc loc)
{
	sim_mbar *b = mbar_in(s, blk, x, what, loc);
	if (!b || blk == s)
		return b;
	char after[160];
	if (blk->ended) {
		sim_fail(s, loc, "%s %s[%lld] of block rank %lld, which has ended: its threads have exited (%s)", what,
		         b->buf->name, (long long)b->index, (long long)blk->rank, sim_after(s, after, sizeof after));
		return NULL;
	}
	if (!sim_knows(s, agent, &b->init_at)) {
		sim_fail(s, loc,
		         "%s %s[%lld] of block rank %lld, whose T.mbarrier_init at %u:%u is not ordered before it (a "
		         "T.cluster_sync after the initialisation orders it; %s)",
		         what, b->buf->name, (long long)b->index, (long long)blk->rank, b->init_at.loc.line,
		         b->init_at.loc.col, sim_after(s, after, sizeof after));
		return NULL;
	}
	sim_remote_note(s, blk, agent, loc);
	return b;
}

static void progress(sim *s);

static bool need_init(sim *s, sim_mbar *b, const char *what, tlc_loc loc)
{
	if (!b->init)
		sim_fail(s, loc, "%s %s[%lld], which no T.mbarrier_init has initialised", what, b->buf->name,
		         (long long)b->index);
	return b->init;
}

/* The phase completes when its arrivals and its bytes are all in. */
static void maybe_complete(sim *s, sim_mbar *b)
{
	if (b->pending || b->tx)
		return;
	int p = (int)(b->phase & 1);
	size_t bytes = (size_t)s->nagents * sizeof(sim_clock);
	memcpy(b->done_vc[p], b->vc, bytes);
	memcpy(b->done_fv[p], b->fv, bytes);
	memset(b->vc, 0, bytes);
	memset(b->fv, 0, bytes);
	b->phase++;
	b->pending = b->count;
}

static void arrive(sim *s, sim_mbar *b, int64_t agent, tlc_loc loc)
{
	if (!need_init(s, b, "an arrive on", loc))
		return;
	if (b->pending == 0) {
		char in[48];
		sim_fail(s, loc,
		         "more arrivals on %s[%lld]%s than its count of %lld in one phase (its transaction bytes are still "
		         "outstanding)",
		         b->buf->name, (long long)b->index, b->owner != s ? sim_in_block(b->owner, in, sizeof in) : "",
		         (long long)b->count);
		return;
	}
	if (agent >= 0) {
		sim_publish(s, agent, b->vc, b->fv);
		sim_vc_tick(s, agent);
	}
	b->pending--;
	maybe_complete(s, b);
	progress(s);
}

void sim_mbar_complete_tx(sim *s, sim_mbar *b, int64_t bytes, int64_t agent)
{
	if (!need_init(s, b, "a TMA load completing on", (tlc_loc){0}))
		return;
	sim_publish(s, agent, b->vc, b->fv);
	b->tx -= bytes;
	maybe_complete(s, b);
	progress(s);
}

/* Waiter w's wait for parity on b returns now, on phase b->phase - 1: an
 * error when its previous wait returned on that phase too. */
static bool wait_returns(sim *s, sim_mbar *b, int64_t w, int64_t parity, const char *who, tlc_loc loc)
{
	if (!b->returned) {
		b->nwaiters = s->nthreads > s->block_threads ? s->nthreads : s->block_threads;
		b->returned = tlc_xmalloc((size_t)b->nwaiters * sizeof(int64_t));
		for (int64_t i = 0; i < b->nwaiters; i++)
			b->returned[i] = INT64_MIN;
	}
	int64_t phase = b->phase - 1;
	if (w < 0 || w >= b->nwaiters)
		return true;
	if (b->returned[w] == phase) {
		char after[160];
		sim_fail(s, loc,
		         "wrong parity: %s waits on %s[%lld] for parity %lld, which returns at once on phase %lld, the phase "
		         "its previous wait on it returned on (%lld phases completed): this wait waits for nothing (%s)",
		         who, b->buf->name, (long long)b->index, (long long)parity, (long long)phase, (long long)b->phase,
		         sim_after(s, after, sizeof after));
		return false;
	}
	b->returned[w] = phase;
	return true;
}

static void describe(const sim_mbar *b, int64_t parity, char *buf, size_t n)
{
	snprintf(buf, n, "%s[%lld] for the phase of parity %lld (phase %lld: %lld of %lld arrivals in, %lld transaction "
	                 "bytes outstanding)",
	         b->buf->name, (long long)b->index, (long long)parity, (long long)b->phase,
	         (long long)(b->count - b->pending), (long long)b->count, (long long)b->tx);
}

static bool task_block(sim *s, const tlc_stmt *st, const char *what);

static void mbar_wait(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	const tlc_expr *c = st->u.eval.call;
	for (;;) {
		s->active = m->on;
		sim_mbar *first = NULL;
		int64_t first_parity = 0, first_thread = 0;
		for (int64_t t = 0; t < s->nthreads && !s->stop && !first; t++) {
			if (!m->on[t])
				continue;
			s->tid = t;
			sim_mbar *b = sim_mbar_at(s, c->u.call.args[0], st->loc);
			int64_t parity = sim_eval_int(s, c->u.call.args[1], st->loc);
			if (s->stop || !b || !need_init(s, b, "a wait on", st->loc))
				return;
			if (parity != 0 && parity != 1) {
				sim_fail(s, st->loc, "a wait on %s[%lld] for parity %lld: the parity is 0 or 1", b->buf->name,
				         (long long)b->index, (long long)parity);
				return;
			}
			if ((b->phase & 1) == parity) {
				first = b;
				first_parity = parity;
				first_thread = t;
			}
		}
		if (s->stop)
			return;
		if (!first) {
			/* every thread's phase has completed: they see its arrivals */
			for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
				if (!m->on[t])
					continue;
				s->tid = t;
				sim_mbar *b = sim_mbar_at(s, c->u.call.args[0], st->loc);
				int64_t parity = sim_eval_int(s, c->u.call.args[1], st->loc);
				char who[48];
				snprintf(who, sizeof who, "thread %lld", (long long)t);
				if (b && wait_returns(s, b, t, parity, who, st->loc))
					sim_learn(s, sim_agent_thread(s, t), b->done_vc[parity], b->done_fv[parity]);
			}
			return;
		}
		char what[320], on[256];
		describe(first, first_parity, on, sizeof on);
		snprintf(what, sizeof what, "thread %lld waits at %u:%u on %s", (long long)first_thread, st->loc.line,
		         st->loc.col, on);
		if (!task_block(s, st, what))
			return;
	}
}

void sim_mbarrier_stmt(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	const tlc_expr *c = st->u.eval.call;
	tlc_op_id op = c->u.call.op;
	if (op == TLC_OP_BARRIER_WAIT || op == TLC_OP_MBARRIER_WAIT_PARITY) {
		mbar_wait(s, st, m);
		return;
	}
	if (op == TLC_OP_MBARRIER_FENCE_INIT)
		return; /* makes the initialisation visible to the async proxy: nothing to model */
	/* cta_id=r: the arrival is on the barrier at the same place in block r */
	const tlc_expr *cta = op == TLC_OP_BARRIER_ARRIVE || op == TLC_OP_MBARRIER_ARRIVE ? tlc_call_kw(c, "cta_id") : NULL;
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		int64_t agent = sim_agent_thread(s, t);
		sim *blk = s;
		if (cta && !(blk = sim_cluster_block(s, sim_eval_int(s, cta, st->loc), "cta_id", st->loc)))
			return;
		sim_mbar *b = sim_mbar_for(s, blk, c->u.call.args[0], agent, "an arrive on", st->loc);
		if (!b)
			return;
		switch (op) {
		case TLC_OP_MBARRIER_INIT: {
			int64_t n = sim_eval_int(s, c->u.call.args[1], st->loc);
			if (!s->stop && (n < 1 || n > (1 << 20))) {
				sim_fail(s, st->loc, "T.mbarrier_init(%s[%lld], %lld): the arrive count is 1 to 2^20", b->buf->name,
				         (long long)b->index, (long long)n);
				return;
			}
			b->init = true;
			b->count = b->pending = n;
			b->tx = b->phase = 0;
			free(b->returned);
			b->returned = NULL;
			/* other blocks' uses must be ordered after this */
			b->init_at = (sim_access){(int32_t)agent, sim_vc(s, agent)[agent], st->loc};
			progress(s);
			break;
		}
		case TLC_OP_BARRIER_ARRIVE:
		case TLC_OP_MBARRIER_ARRIVE: arrive(s, b, agent, st->loc); break;
		case TLC_OP_MBARRIER_EXPECT_TX:
		case TLC_OP_MBARRIER_ARRIVE_EXPECT_TX: {
			int64_t bytes = sim_eval_int(s, c->u.call.args[1], st->loc);
			if (s->stop || !need_init(s, b, "expecting bytes on", st->loc))
				return;
			b->tx += bytes;
			if (op == TLC_OP_MBARRIER_ARRIVE_EXPECT_TX) {
				progress(s);
				arrive(s, b, agent, st->loc);
			} else {
				/* bytes that landed before their expect_tx (a peer's
				 * multicast) may complete the phase now */
				maybe_complete(s, b);
				progress(s);
			}
			break;
		}
		case TLC_OP_CP_ASYNC_ARRIVE:
			if (need_init(s, b, "T.cp_async_arrive on", st->loc))
				sim_cp_async_land_all(s, st->loc);
			break;
		case TLC_OP_CP_ASYNC_ARRIVE_NOINC:
			/* the arrival comes when the thread's copies land: land
			 * them, then arrive (one of the expected arrivals) */
			if (need_init(s, b, "T.cp_async_arrive_noinc on", st->loc)) {
				sim_cp_async_land_all(s, st->loc);
				if (!s->stop)
					arrive(s, b, agent, st->loc);
			}
			break;
		default:
			sim_fail(s, st->loc, "T.%s is not an mbarrier operation", tlc_op_get(s->ctx, op)->name);
			return;
		}
	}
}

/* The tile level: one thread of control per T.ws scope (or per block),
 * whose arrive counts as all of its threads'. */
void sim_mbarrier_tile(sim *s, const tlc_stmt *st)
{
	const tlc_expr *c = st->u.eval.call;
	tlc_op_id op = c->u.call.op;
	sim_mbar *b = sim_mbar_at(s, c->u.call.args[0], st->loc);
	if (!b)
		return;
	if (op == TLC_OP_BARRIER_ARRIVE || op == TLC_OP_MBARRIER_ARRIVE ||
	    op == TLC_OP_CP_ASYNC_ARRIVE_NOINC) {
		/* (the tile level copies synchronously: a noinc arrival is an arrival) */
		if (tlc_call_kw(c, "cta_id")) {
			sim_fail(s, st->loc, "T.%s(..., cta_id=) (another block's barrier) is not modelled by the tile-level "
			                     "simulator",
			         tlc_op_get(s->ctx, op)->name);
			return;
		}
		int64_t lo = 0, n = s->block_threads;
		sim_task_range(s, &lo, &n);
		for (int64_t i = 0; i < n && !s->stop; i++)
			arrive(s, b, -1, st->loc);
		return;
	}
	if (op != TLC_OP_BARRIER_WAIT && op != TLC_OP_MBARRIER_WAIT_PARITY) {
		sim_fail(s, st->loc, "T.%s is thread-level IR, not modelled by the tile-level simulator",
		         tlc_op_get(s->ctx, op)->name);
		return;
	}
	for (;;) {
		int64_t parity = sim_eval_int(s, c->u.call.args[1], st->loc);
		if (s->stop || !need_init(s, b, "a wait on", st->loc))
			return;
		if (parity != 0 && parity != 1) {
			sim_fail(s, st->loc, "a wait on %s[%lld] for parity %lld: the parity is 0 or 1", b->buf->name,
			         (long long)b->index, (long long)parity);
			return;
		}
		if ((b->phase & 1) != parity) {
			int64_t lo = 0, n = 0;
			bool in_ws = sim_task_range(s, &lo, &n);
			char who[96];
			if (in_ws)
				snprintf(who, sizeof who, "the T.ws scope of threads [%lld, %lld)", (long long)lo, (long long)(lo + n));
			else
				snprintf(who, sizeof who, "the block");
			wait_returns(s, b, lo, parity, who, st->loc);
			return;
		}
		char what[320], on[256];
		describe(b, parity, on, sizeof on);
		snprintf(what, sizeof what, "it waits at %u:%u on %s", st->loc.line, st->loc.col, on);
		if (!task_block(s, st, what))
			return;
	}
}

/* ---- tasks ---- */

enum { TASK_READY, TASK_BLOCKED, TASK_JOINING, TASK_DONE };

typedef struct sim_task {
	struct sim_sched *sched;
	sim *s; /* the block whose threads it runs */
	pthread_t th;
	bool ws;                 /* a T.ws task; else a cluster's block (its whole body) */
	struct sim_task *parent; /* a T.ws task in a cluster: its block's task, waiting for it */
	int children;            /* a block's task: its T.ws tasks not yet done */
	int nbodies;
	const tlc_stmt **bodies; /* the bodies of its scopes, in order */
	sim_mask mask;
	int64_t lo, n; /* its threads */
	int state;
	uint64_t seen;  /* the progress count when its wait last failed */
	char what[320]; /* what it waits for */
} sim_task;

typedef struct sim_sched {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ntasks, cap;
	sim_task **tasks;   /* in the order they take turns */
	sim_task *running;  /* the task holding the baton; NULL: the thread that started them */
	uint64_t progress;
	bool cluster; /* the tasks of a cluster's blocks (else of one group of T.ws scopes) */
} sim_sched;

static void progress(sim *s)
{
	if (s->sched)
		s->sched->progress++;
}

/* The next task after `from` (NULL: before the first) that may make
 * progress (ready, or waiting on something that changed since it looked);
 * with `any`, any unfinished one.  NULL when there is none. */
static sim_task *next_task(sim_sched *k, const sim_task *from, bool any)
{
	int at = -1;
	for (int i = 0; i < k->ntasks && from; i++)
		if (k->tasks[i] == from)
			at = i;
	for (int d = 1; d <= k->ntasks; d++) {
		sim_task *t = k->tasks[(at + d + k->ntasks) % k->ntasks];
		if (t->state == TASK_READY || (t->state == TASK_BLOCKED && (any || t->seen != k->progress)))
			return t;
	}
	return NULL;
}

static void give_baton(sim_sched *k, sim_task *to)
{
	k->running = to;
	pthread_cond_broadcast(&k->cv);
}

static void await_baton(sim_sched *k, const sim_task *me)
{
	while (k->running != me)
		pthread_cond_wait(&k->cv, &k->mu);
}

static void deadlock(sim *s, const tlc_stmt *st)
{
	char msg[4096], after[160];
	size_t len = 0;
	sim_sched *k = s->sched;
	for (int i = 0; k && i < k->ntasks; i++) {
		const sim_task *t = k->tasks[i];
		char blk[48] = "";
		if (k->cluster)
			snprintf(blk, sizeof blk, "block rank %lld, ", (long long)t->s->rank);
		if (t->state == TASK_BLOCKED && len < sizeof msg)
			len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %sthreads [%lld, %lld): %s", len ? ";" : "", blk,
			                        (long long)t->lo, (long long)(t->lo + t->n), t->what);
	}
	sim_fail(s, st->loc, "deadlock: every thread waits and no arrival can come:%s (%s)", msg,
	         sim_after(s, after, sizeof after));
}

/* The current task waits for `what`: let the others run until something
 * changes.  False when the run stops (a deadlock, reported, or an error). */
static bool task_block(sim *s, const tlc_stmt *st, const char *what)
{
	sim_sched *k = s->sched;
	if (!k) {
		char after[160];
		sim_fail(s, st->loc,
		         "deadlock: %s, and no other thread can arrive (the IR outside T.ws scopes runs as one task, the two "
		         "sides of an if one after the other; %s)",
		         what, sim_after(s, after, sizeof after));
		return false;
	}
	int64_t tid = s->tid;
	const bool *active = s->active;
	pthread_mutex_lock(&k->mu);
	sim_task *t = k->running;
	t->state = TASK_BLOCKED;
	t->seen = k->progress;
	snprintf(t->what, sizeof t->what, "%s", what);
	sim_task *next = next_task(k, t, false);
	if (!next) {
		deadlock(s, st);
		pthread_mutex_unlock(&k->mu);
		return false;
	}
	if (next != t) {
		give_baton(k, next);
		await_baton(k, t);
	}
	t->state = TASK_READY;
	pthread_mutex_unlock(&k->mu);
	s->tid = tid;
	s->active = active;
	return !s->stop;
}

static void *task_main(void *p)
{
	sim_task *t = p;
	sim_sched *k = t->sched;
	sim *s = t->s;
	pthread_mutex_lock(&k->mu);
	await_baton(k, t);
	pthread_mutex_unlock(&k->mu);
	for (int i = 0; i < t->nbodies && !s->stop; i++) {
		if (s->threaded)
			sim_exec_threads(s, t->bodies[i], &t->mask);
		else
			sim_exec(s, t->bodies[i]);
	}
	/* a cluster's block ends: what reached into it must be ordered first */
	if (!t->ws && !s->stop)
		sim_remote_check_end(s);
	pthread_mutex_lock(&k->mu);
	t->state = TASK_DONE;
	if (!t->ws)
		s->ended = true;
	if (t->parent && --t->parent->children == 0)
		t->parent->state = TASK_READY;
	give_baton(k, next_task(k, t, true));
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

static void task_free(sim_task *t)
{
	free(t->mask.on);
	free(t->bodies);
	free(t);
}

/* Start tasks[from, from + n) of k, each on a thread of its own, waiting
 * for the baton; those that cannot start are done.  How many started. */
static int start_tasks(sim_sched *k, int from, int n, tlc_loc loc)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 20);
	int started = 0;
	for (; started < n; started++) {
		sim_task *t = k->tasks[from + started];
		if (pthread_create(&t->th, &attr, task_main, t) != 0) {
			sim_fail(t->s, loc, "cannot start a task for %s", t->ws ? "these T.ws scopes" : "a block of the cluster");
			break;
		}
	}
	for (int i = started; i < n; i++)
		k->tasks[from + i]->state = TASK_DONE;
	pthread_attr_destroy(&attr);
	return started;
}

static void sched_init(sim_sched *k)
{
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
}

static void sched_destroy(sim_sched *k)
{
	pthread_mutex_destroy(&k->mu);
	pthread_cond_destroy(&k->cv);
	free(k->tasks);
}

/* Insert task t into k's turn order at position at. */
static void sched_insert(sim_sched *k, int at, sim_task *t)
{
	k->tasks = tlc_mem_grow(k->tasks, k->ntasks, &k->cap, sizeof(*k->tasks));
	memmove(&k->tasks[at + 1], &k->tasks[at], (size_t)(k->ntasks - at) * sizeof(*k->tasks));
	k->tasks[at] = t;
	k->ntasks++;
}

void sim_run_ws(sim *s, const tlc_stmt *const *items, int n, const sim_mask *m)
{
	/* in a cluster the block's own task starts them in the cluster's
	 * scheduler; else they get a scheduler of their own */
	sim_sched *outer = s->sched;
	sim_task *parent = outer ? outer->running : NULL;
	if (outer && (!parent || parent->ws)) {
		sim_fail(s, items[0]->loc, "T.ws scopes inside T.ws scopes are not modelled");
		return;
	}
	const tlc_target_info *info = tlc_module_target_info(s->m);
	sim_task **tasks = tlc_xcalloc((size_t)n, sizeof(*tasks));
	int ntasks = 0;
	for (int i = 0; i < n && !s->stop; i++) {
		const char *why = NULL;
		int64_t lo, cnt;
		if (!tlc_ws_range(items[i]->u.scope.call, info ? info->warpgroup : 0, &lo, &cnt, &why)) {
			sim_fail(s, items[i]->loc, "T.ws: %s", why);
			break;
		}
		sim_task *t = NULL;
		for (int j = 0; j < ntasks && !t; j++) {
			sim_task *o = tasks[j];
			if (o->lo == lo && o->n == cnt)
				t = o;
			else if (o->lo < lo + cnt && lo < o->lo + o->n)
				sim_fail(s, items[i]->loc,
				         "T.ws scopes next to each other over overlapping but different warpgroups (threads [%lld, "
				         "%lld) here, [%lld, %lld) before) are not modelled",
				         (long long)lo, (long long)(lo + cnt), (long long)o->lo, (long long)(o->lo + o->n));
		}
		if (s->stop)
			break;
		if (!t) {
			t = tlc_xcalloc(1, sizeof(*t));
			tasks[ntasks++] = t;
			t->s = s;
			t->ws = true;
			t->parent = parent;
			t->lo = lo;
			t->n = cnt;
			t->bodies = tlc_xcalloc((size_t)n, sizeof(*t->bodies));
			if (m) { /* else the tile level: one thread of control each */
				t->mask = sim_mask_new(s);
				for (int64_t x = lo; x < lo + cnt && x < s->nthreads; x++)
					if (m->on[x]) {
						t->mask.on[x] = true;
						t->mask.n++;
					}
			}
		}
		t->bodies[t->nbodies++] = items[i]->u.scope.body;
	}
	if (!s->stop && !outer) {
		sim_sched k = {.running = NULL};
		sched_init(&k);
		for (int i = 0; i < ntasks; i++) {
			tasks[i]->sched = &k;
			sched_insert(&k, i, tasks[i]);
		}
		s->sched = &k;
		int started = start_tasks(&k, 0, ntasks, items[0]->loc);
		pthread_mutex_lock(&k.mu);
		give_baton(&k, next_task(&k, NULL, true));
		await_baton(&k, NULL);
		pthread_mutex_unlock(&k.mu);
		for (int i = 0; i < started; i++)
			pthread_join(tasks[i]->th, NULL);
		sched_destroy(&k);
		s->sched = NULL;
	} else if (!s->stop) {
		/* right after the block's task, which waits for them */
		pthread_mutex_lock(&outer->mu);
		int at = 0;
		while (outer->tasks[at] != parent)
			at++;
		for (int i = 0; i < ntasks; i++) {
			tasks[i]->sched = outer;
			sched_insert(outer, at + 1 + i, tasks[i]);
		}
		pthread_mutex_unlock(&outer->mu);
		int started = start_tasks(outer, at + 1, ntasks, items[0]->loc);
		pthread_mutex_lock(&outer->mu);
		parent->children = started;
		if (started) {
			parent->state = TASK_JOINING;
			give_baton(outer, next_task(outer, parent, true));
			await_baton(outer, parent);
		}
		/* they are done: out of the turn order */
		int k = 0;
		for (int i = 0; i < outer->ntasks; i++)
			if (outer->tasks[i]->parent != parent)
				outer->tasks[k++] = outer->tasks[i];
		outer->ntasks = k;
		pthread_mutex_unlock(&outer->mu);
		for (int i = 0; i < started; i++)
			pthread_join(tasks[i]->th, NULL);
	}
	for (int i = 0; i < ntasks; i++)
		task_free(tasks[i]);
	free(tasks);
	s->active = m ? m->on : NULL;
}

void sim_run_cluster(sim_cluster *c, const tlc_stmt *body)
{
	sim_sched k = {.running = NULL, .cluster = true};
	sched_init(&k);
	for (int64_t r = 0; r < c->n; r++) {
		sim *s = c->blocks[r];
		sim_task *t = tlc_xcalloc(1, sizeof(*t));
		t->sched = &k;
		t->s = s;
		t->n = s->nthreads;
		t->mask = sim_mask_new(s);
		for (int64_t x = 0; x < s->nthreads; x++)
			t->mask.on[x] = true;
		t->mask.n = s->nthreads;
		t->bodies = tlc_xcalloc(1, sizeof(*t->bodies));
		t->bodies[t->nbodies++] = body;
		sched_insert(&k, k.ntasks, t);
		s->sched = &k;
	}
	int n = k.ntasks, started = start_tasks(&k, 0, n, body->loc);
	pthread_mutex_lock(&k.mu);
	give_baton(&k, next_task(&k, NULL, true));
	await_baton(&k, NULL);
	pthread_mutex_unlock(&k.mu);
	for (int i = 0; i < started; i++)
		pthread_join(k.tasks[i]->th, NULL);
	for (int i = 0; i < k.ntasks; i++)
		task_free(k.tasks[i]);
	sched_destroy(&k);
	for (int64_t r = 0; r < c->n; r++)
		c->blocks[r]->sched = NULL;
}

bool sim_task_range(const sim *s, int64_t *lo, int64_t *n)
{
	const sim_sched *k = s->sched;
	if (!k || !k->running || !k->running->ws)
		return false;
	*lo = k->running->lo;
	*n = k->running->n;
	return true;
}

/* ---- T.cluster_sync and T.sync_grid ---- */

/* A barrier of every thread of s's cluster (T.cluster_sync, `op`), or of
 * the grid run at once (T.sync_grid). */
static void all_blocks_sync(sim *s, const tlc_stmt *st, const sim_mask *m, const char *op, const char *of)
{
	sim_cluster *c = s->cluster;
	int64_t lo, n;
	bool scope;
	int64_t missing = sim_barrier_missing(s, m, &lo, &n, &scope);
	if (missing >= 0) {
		char who[64], after[160];
		if (c && c->n > 1)
			snprintf(who, sizeof who, "%sblock rank %lld", scope ? "the T.ws scope of " : "", (long long)s->rank);
		else
			snprintf(who, sizeof who, "%s", scope ? "the T.ws scope" : "the block");
		sim_fail(s, st->loc,
		         "barrier divergence: %lld of the %lld threads of %s reach this %s, thread %lld does not (%s)",
		         (long long)m->n, (long long)n, who, op, (long long)missing, sim_after(s, after, sizeof after));
		return;
	}
	if (!c) {
		sim_fail(s, st->loc, "%s needs the thread level", op);
		return;
	}
	/* the threads arrive, their clocks gathered for the phase */
	int64_t first = -1;
	for (int64_t t = 0; t < s->nthreads; t++) {
		if (!m->on[t])
			continue;
		first = first < 0 ? t : first;
		int64_t a = sim_agent_thread(s, t);
		sim_publish(s, a, c->vc, c->fv);
		sim_vc_tick(s, a);
	}
	c->arrived += m->n;
	int64_t phase = c->phase, all = c->n * s->nthreads;
	if (c->arrived >= all) {
		size_t bytes = (size_t)s->nagents * sizeof(sim_clock);
		memcpy(c->done_vc, c->vc, bytes);
		memcpy(c->done_fv, c->fv, bytes);
		memset(c->vc, 0, bytes);
		memset(c->fv, 0, bytes);
		c->arrived = 0;
		c->phase++;
		progress(s);
	}
	while (c->phase == phase) {
		char what[320];
		snprintf(what, sizeof what, "thread %lld waits at %u:%u on %s (%lld of the %s's %lld threads arrived)",
		         (long long)first, st->loc.line, st->loc.col, op, (long long)c->arrived, of, (long long)all);
		if (!task_block(s, st, what))
			return;
	}
	/* every thread of the cluster arrived: each learns what all knew */
	for (int64_t t = 0; t < s->nthreads; t++)
		if (m->on[t])
			sim_learn(s, sim_agent_thread(s, t), c->done_vc, c->done_fv);
}

void sim_cluster_sync(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	if (s->cluster && s->cluster->grid) {
		/* each block is a cluster of its own there, but its state is the grid's */
		sim_fail(s, st->loc, "T.cluster_sync in a kernel with T.sync_grid (whose blocks tlc-sim runs at once) "
		         "is not modelled");
		return;
	}
	all_blocks_sync(s, st, m, "T.cluster_sync", "cluster");
}

void sim_grid_sync(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	if (!s->cluster || !s->cluster->grid) {
		sim_fail(s, st->loc, "T.sync_grid: the grid's blocks are not running at once (an internal error of tlc-sim)");
		return;
	}
	all_blocks_sync(s, st, m, "T.sync_grid", "grid");
}

void sim_tasks_free(sim *s)
{
	for (uint32_t i = 0; i < s->nmbars; i++)
		mbar_free(s->mbars[i]);
	free(s->mbars);
	s->mbars = NULL;
	s->nmbars = 0;
}
