/* sim_order.c - what orders shared-memory accesses, and the race check
 * (doc/sim.md, "Races").
 *
 * Happens-before is tracked with vector clocks, one per agent: every
 * thread of the block, the TMA unit (its bulk copies write shared memory
 * on their own time) and each warpgroup's WGMMA unit (it reads its operand
 * tiles until the group is waited for).  An agent's own clock advances
 * each time it publishes what it did (a barrier, an mbarrier arrive, the
 * issue of an asynchronous operation), and an agent learns another's
 * clock only through synchronisation: T.sync_threads joins every thread,
 * an mbarrier phase carries its arrivals' clocks to the threads that wait
 * for it, T.wait_wgmma hands the WGMMA unit's reads back to its
 * warpgroup.  So the order of the simulation (threads in lock-step, tasks
 * taking turns) never hides a race: only what the program synchronises
 * orders its accesses.
 *
 * Each shared byte remembers its last write and its recent reads, each as
 * (agent, that agent's clock, statement).  An access by agent x conflicts
 * with a remembered one by agent y != x (a write against anything, a read
 * against a write) when x's clock of y has not reached it: no chain of
 * synchronisation leads from that access to this one.
 *
 * The asynchronous proxy (TMA, WGMMA) sees a thread's ordinary writes only
 * through a T.fence_proxy_async, by the writer or by a thread that saw the
 * write before fencing.  So every agent has a second vector, what it knows
 * to be fenced: a fence sets a thread's to its clocks, synchronisation
 * joins it like the clocks, and an asynchronous agent reading a thread's
 * write needs it there (else: an async-proxy race).
 *
 * In a thread-block cluster the clocks span the agents of all its blocks
 * (block r's are r * block_agents onwards), so that an access to one
 * block's shared memory by another block's agent (a TMA multicast) is
 * checked as any other: a remote arrive carries the arriving thread's
 * clock to the other block's mbarrier, T.cluster_sync joins every thread
 * of the cluster.  An access into another block must also be ordered
 * before that block's end (some thread of it learns of it before it ends:
 * its shared memory is gone once its threads have exited). */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t sim_agent_thread(const sim *s, int64_t t)
{
	return s->agent0 + t;
}

int64_t sim_agent_tma(const sim *s)
{
	return s->agent0 + s->nthreads;
}

int64_t sim_agent_wgmma(const sim *s, int64_t warpgroup)
{
	return s->agent0 + s->nthreads + 1 + warpgroup;
}

static bool is_thread(const sim *s, int64_t agent)
{
	return agent % s->block_agents < s->nthreads;
}

/* The agents of one block: its threads, its TMA unit, its warpgroups' WGMMA units. */
static int64_t block_agents(const sim *s)
{
	int64_t wg = s->warpgroup > 0 ? s->warpgroup : s->nthreads;
	return s->nthreads + 1 + (s->nthreads + wg - 1) / wg;
}

/* Fresh clocks for n agents in s (its vc, fv), each knowing only itself. */
static void clocks_reset(sim *s, int64_t n)
{
	if (!s->vc || s->nagents != n) {
		free(s->vc);
		free(s->fv);
		s->nagents = n;
		s->vc = tlc_xcalloc((size_t)(n * n), sizeof(sim_clock));
		s->fv = tlc_xcalloc((size_t)(n * n), sizeof(sim_clock));
	}
	memset(s->vc, 0, (size_t)(n * n) * sizeof(sim_clock));
	memset(s->fv, 0, (size_t)(n * n) * sizeof(sim_clock));
	for (int64_t a = 0; a < n; a++)
		s->vc[a * n + a] = 1;
}

void sim_order_reset(sim *s)
{
	s->agent0 = 0;
	s->block_agents = block_agents(s);
	clocks_reset(s, s->block_agents);
}

void sim_order_reset_cluster(sim_cluster *c)
{
	sim *own = c->blocks[0];
	int64_t per = block_agents(own), n = per * c->n;
	clocks_reset(own, n); /* the first block holds the cluster's clocks */
	for (int64_t r = 0; r < c->n; r++) {
		sim *b = c->blocks[r];
		b->vc = own->vc;
		b->fv = own->fv;
		b->nagents = n;
		b->agent0 = r * per;
		b->block_agents = per;
		free(b->remote);
		free(b->remote_loc);
		b->remote = tlc_xcalloc((size_t)n, sizeof(sim_clock));
		b->remote_loc = tlc_xcalloc((size_t)n, sizeof(tlc_loc));
	}
	free(c->vc);
	free(c->fv);
	free(c->done_vc);
	free(c->done_fv);
	c->vc = tlc_xcalloc((size_t)n, sizeof(sim_clock));
	c->fv = tlc_xcalloc((size_t)n, sizeof(sim_clock));
	c->done_vc = tlc_xcalloc((size_t)n, sizeof(sim_clock));
	c->done_fv = tlc_xcalloc((size_t)n, sizeof(sim_clock));
	c->arrived = c->phase = 0;
}

sim_clock *sim_vc(sim *s, int64_t agent)
{
	return s->vc + agent * s->nagents;
}

sim_clock *sim_fv(sim *s, int64_t agent)
{
	return s->fv + agent * s->nagents;
}

static void join(sim_clock *to, const sim_clock *from, int64_t n)
{
	for (int64_t a = 0; a < n; a++)
		if (from[a] > to[a])
			to[a] = from[a];
}

void sim_learn(sim *s, int64_t to, const sim_clock *vc, const sim_clock *fv)
{
	join(sim_vc(s, to), vc, s->nagents);
	join(sim_fv(s, to), fv, s->nagents);
}

void sim_learn_from(sim *s, int64_t to, int64_t from)
{
	sim_learn(s, to, sim_vc(s, from), sim_fv(s, from));
}

void sim_publish(sim *s, int64_t from, sim_clock *vc, sim_clock *fv)
{
	join(vc, sim_vc(s, from), s->nagents);
	join(fv, sim_fv(s, from), s->nagents);
}

void sim_fence_proxy(sim *s, int64_t t)
{
	int64_t a = sim_agent_thread(s, t);
	memcpy(sim_fv(s, a), sim_vc(s, a), (size_t)s->nagents * sizeof(sim_clock));
	sim_vc_tick(s, a);
}

void sim_vc_tick(sim *s, int64_t agent)
{
	sim_vc(s, agent)[agent]++;
}

void sim_shadow_clear(sim_shadow *h, int64_t nbytes)
{
	memset(h, 0, (size_t)nbytes * sizeof(*h));
	for (int64_t i = 0; i < nbytes; i++) {
		h[i].write.agent = -1;
		for (int r = 0; r < SIM_READERS; r++)
			h[i].read[r].agent = -1;
	}
}

const char *sim_after(const sim *s, char *buf, size_t n)
{
	if (s->after_pass)
		snprintf(buf, n, "the IR after pass '%s'", s->after_pass);
	else
		snprintf(buf, n, "the IR after no pass");
	return buf;
}

static bool several(const sim *s)
{
	return s->cluster && s->cluster->n > 1;
}

const char *sim_in_block(const sim *s, char *buf, size_t n)
{
	if (several(s))
		snprintf(buf, n, " in block rank %lld", (long long)s->rank);
	else if (n)
		buf[0] = '\0';
	return buf;
}

/* "thread 3", "the TMA unit", "warpgroup 1's WGMMA"; in a cluster of
 * several blocks with " of block rank r". */
static const char *agent_name(const sim *s, int64_t a, char *buf, size_t n)
{
	int64_t local = a % s->block_agents, rank = a / s->block_agents;
	char of[48] = "";
	if (several(s))
		snprintf(of, sizeof of, " of block rank %lld", (long long)rank);
	if (local < s->nthreads)
		snprintf(buf, n, "thread %lld%s", (long long)local, of);
	else if (local == s->nthreads)
		snprintf(buf, n, "the TMA unit%s", of);
	else
		snprintf(buf, n, "warpgroup %lld's WGMMA%s", (long long)(local - s->nthreads - 1), of);
	return buf;
}

/* "'S'", in a cluster of several blocks "'S' in block rank r" (the block
 * whose shared memory a is). */
static const char *mem_name(const sim *s, const sim_array *a, const tlc_buffer *b, char *buf, size_t n)
{
	int64_t owner = -1;
	for (int64_t r = 0; several(s) && r < s->cluster->n && owner < 0; r++) {
		const sim *x = s->cluster->blocks[r];
		if (b->id < x->nbufs && x->arrays[b->id] == a)
			owner = r;
	}
	if (owner >= 0)
		snprintf(buf, n, "'%s' in block rank %lld", b->name, (long long)owner);
	else
		snprintf(buf, n, "'%s'", b->name);
	return buf;
}

static void race(sim *s, int64_t agent, const sim_array *a, const tlc_buffer *b, int64_t byte, bool write,
                 tlc_loc loc, const sim_access *other, bool other_wrote)
{
	char me[64], him[64], mem[160], after[160];
	sim_fail(s, loc, "race on shared memory: %s %s byte %lld of %s, which %s %s at %u:%u with no barrier between (%s)",
	         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)byte,
	         mem_name(s, a, b, mem, sizeof mem), agent_name(s, other->agent, him, sizeof him),
	         other_wrote ? "wrote" : "read", other->loc.line, other->loc.col, sim_after(s, after, sizeof after));
}

/* True when agent x's clock has reached access y (y happened before). */
static bool ordered(const sim_clock *vx, const sim_access *y)
{
	return y->agent < 0 || vx[y->agent] >= y->clock;
}

bool sim_knows(sim *s, int64_t agent, const sim_access *x)
{
	return ordered(sim_vc(s, agent), x);
}

void sim_remote_note(sim *s, sim *to, int64_t agent, tlc_loc loc)
{
	if (!to->remote)
		return;
	to->remote[agent] = sim_vc(s, agent)[agent];
	to->remote_loc[agent] = loc;
}

void sim_remote_check_end(sim *s)
{
	for (int64_t a = 0; s->remote && a < s->nagents && !s->stop; a++) {
		if (!s->remote[a])
			continue;
		sim_access x = {(int32_t)a, s->remote[a], s->remote_loc[a]};
		bool known = false;
		for (int64_t t = 0; t < s->nthreads && !known; t++)
			known = sim_knows(s, sim_agent_thread(s, t), &x);
		if (!known) {
			char who[64], after[160];
			sim_fail(s, x.loc,
			         "%s reaches into block rank %lld here, but nothing orders this before the end of any of that "
			         "block's threads: it may have exited, its shared memory and mbarriers gone (a T.cluster_sync "
			         "before the end of the kernel keeps the cluster's blocks; %s)",
			         agent_name(s, a, who, sizeof who), (long long)s->rank, sim_after(s, after, sizeof after));
		}
	}
}

void sim_touch_by(sim *s, int64_t agent, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write,
                  tlc_loc loc)
{
	int bytes = tlc_dtype_bits(a->dtype) / 8;
	const sim_clock *vx = sim_vc(s, agent);
	sim_access now = {(int32_t)agent, vx[agent], loc};
	for (int64_t k = e * bytes; k < (e + n) * bytes && !s->stop; k++) {
		sim_shadow *h = &a->shadow[k];
		if (h->in_flight) {
			char me[64], mem[160], after[160];
			sim_fail(s, loc,
			         "%s %s byte %lld of %s while thread %d's T.cp_async at %u:%u may still be writing it (no "
			         "T.cp_async_wait lets it land before; %s)",
			         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)k,
			         mem_name(s, a, b, mem, sizeof mem), (int)h->in_flight - 1, h->flight_loc.line,
			         h->flight_loc.col, sim_after(s, after, sizeof after));
			return;
		}
		if (!write && h->write.agent < 0) {
			char me[64], mem[160], after[160];
			sim_fail(s, loc, "%s reads byte %lld of %s, which nothing in this block has written (%s)",
			         agent_name(s, agent, me, sizeof me), (long long)k, mem_name(s, a, b, mem, sizeof mem),
			         sim_after(s, after, sizeof after));
			return;
		}
		if (h->write.agent != agent && !ordered(vx, &h->write)) {
			race(s, agent, a, b, k, write, loc, &h->write, true);
			return;
		}
		if (!is_thread(s, agent) && h->write.agent >= 0 && is_thread(s, h->write.agent) &&
		    !ordered(sim_fv(s, agent), &h->write)) {
			char me[64], him[64], mem[160], after[160];
			sim_fail(s, loc,
			         "async-proxy race on shared memory: %s %s byte %lld of %s, which %s wrote at %u:%u "
			         "through the generic proxy with no T.fence_proxy_async after it (%s)",
			         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)k,
			         mem_name(s, a, b, mem, sizeof mem), agent_name(s, h->write.agent, him, sizeof him),
			         h->write.loc.line, h->write.loc.col, sim_after(s, after, sizeof after));
			return;
		}
		if (write) {
			for (int r = 0; r < SIM_READERS; r++)
				if (h->read[r].agent != agent && !ordered(vx, &h->read[r])) {
					race(s, agent, a, b, k, write, loc, &h->read[r], false);
					return;
				}
			h->write = now;
			for (int r = 0; r < SIM_READERS; r++)
				h->read[r].agent = -1;
			continue;
		}
		/* a read: replace this agent's earlier read or one ordered before
		 * this one (a later write ordered after this read is ordered after
		 * that one too); else the oldest goes */
		int slot = -1;
		for (int r = 0; r < SIM_READERS && slot < 0; r++)
			if (h->read[r].agent == agent)
				slot = r;
		for (int r = 0; r < SIM_READERS && slot < 0; r++)
			if (h->read[r].agent < 0 || ordered(vx, &h->read[r]))
				slot = r;
		if (slot < 0) {
			memmove(&h->read[0], &h->read[1], (SIM_READERS - 1) * sizeof(h->read[0]));
			slot = SIM_READERS - 1;
		}
		h->read[slot] = now;
	}
}

void sim_touch(sim *s, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write, tlc_loc loc)
{
	sim_touch_by(s, sim_agent_thread(s, s->tid), a, b, e, n, write, loc);
}

int64_t sim_barrier_missing(sim *s, const sim_mask *m, int64_t *lo, int64_t *n, bool *scope)
{
	*lo = 0;
	*n = s->nthreads;
	*scope = sim_task_range(s, lo, n);
	if (*lo + *n > s->nthreads)
		*n = s->nthreads - *lo;
	for (int64_t t = *lo; t < *lo + *n; t++)
		if (!m->on[t])
			return t;
	return -1;
}

/* T.sync_threads(id, count): named barrier id, where `count` threads (the
 * block's when omitted) meet.  The threads that reach it together are the
 * ones that meet: there must be exactly `count` of them (fewer would wait
 * for ever, more would pass in groups the program did not mean); it orders
 * what they did, not what the other threads did. */
static void sync_named(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	const tlc_expr *c = st->u.eval.call;
	int64_t id = 0, count = s->nthreads;
	if (!tlc_expr_as_int(c->u.call.args[0], &id) ||
	    (c->u.call.nargs > 1 && !tlc_expr_as_int(c->u.call.args[1], &count))) {
		sim_fail(s, st->loc, "T.sync_threads: the barrier id and the arrive count must be constants");
		return;
	}
	if (m->n != count) {
		char after[160];
		sim_fail(s, st->loc,
		         "barrier divergence: named barrier %lld expects %lld threads, %lld of the block's %lld reach "
		         "it here (%s)",
		         (long long)id, (long long)count, (long long)m->n, (long long)s->nthreads,
		         sim_after(s, after, sizeof after));
		return;
	}
	sim_clock *vc = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
	sim_clock *fv = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
	for (int64_t t = 0; t < s->nthreads; t++)
		if (m->on[t])
			sim_publish(s, sim_agent_thread(s, t), vc, fv);
	for (int64_t t = 0; t < s->nthreads; t++) {
		if (!m->on[t])
			continue;
		int64_t a = sim_agent_thread(s, t);
		memcpy(sim_vc(s, a), vc, (size_t)s->nagents * sizeof(sim_clock));
		memcpy(sim_fv(s, a), fv, (size_t)s->nagents * sizeof(sim_clock));
		sim_vc_tick(s, a);
	}
	free(vc);
	free(fv);
}

/* T.sync_threads: a barrier of the whole block, or inside a T.ws scope of
 * the scope's threads (the CUDA target's named barrier). */
void sim_sync_threads(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	if (st->kind == TLC_STMT_EVAL && st->u.eval.call->u.call.nargs > 0) {
		sync_named(s, st, m);
		return;
	}
	int64_t lo, n;
	bool scope;
	int64_t missing = sim_barrier_missing(s, m, &lo, &n, &scope);
	if (missing >= 0) {
		char after[160];
		sim_fail(s, st->loc,
		         "barrier divergence: %lld of the %lld threads of %s reach this T.sync_threads, thread %lld does not "
		         "(%s)",
		         (long long)m->n, (long long)n, scope ? "the T.ws scope" : "the block", (long long)missing,
		         sim_after(s, after, sizeof after));
		return;
	}
	sim_join_threads(s, lo, n);
}

void sim_join_threads(sim *s, int64_t lo, int64_t n)
{
	/* every thread learns what every thread knew, then starts anew */
	sim_clock *vc = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
	sim_clock *fv = tlc_xcalloc((size_t)s->nagents, sizeof(sim_clock));
	for (int64_t t = lo; t < lo + n; t++)
		sim_publish(s, sim_agent_thread(s, t), vc, fv);
	for (int64_t t = lo; t < lo + n; t++) {
		int64_t a = sim_agent_thread(s, t);
		memcpy(sim_vc(s, a), vc, (size_t)s->nagents * sizeof(sim_clock));
		memcpy(sim_fv(s, a), fv, (size_t)s->nagents * sizeof(sim_clock));
		sim_vc_tick(s, a);
	}
	free(vc);
	free(fv);
}
