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
 * write needs it there (else: an async-proxy race). */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t sim_agent_tma(const sim *s)
{
	return s->nthreads;
}

int64_t sim_agent_wgmma(const sim *s, int64_t warpgroup)
{
	return s->nthreads + 1 + warpgroup;
}

void sim_order_reset(sim *s)
{
	int64_t wg = s->warpgroup > 0 ? s->warpgroup : s->nthreads;
	int64_t n = s->nthreads + 1 + (s->nthreads + wg - 1) / wg;
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
	memcpy(sim_fv(s, t), sim_vc(s, t), (size_t)s->nagents * sizeof(sim_clock));
	sim_vc_tick(s, t);
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

static const char *agent_name(const sim *s, int64_t a, char *buf, size_t n)
{
	if (a < s->nthreads)
		snprintf(buf, n, "thread %lld", (long long)a);
	else if (a == sim_agent_tma(s))
		snprintf(buf, n, "the TMA unit");
	else
		snprintf(buf, n, "warpgroup %lld's WGMMA", (long long)(a - sim_agent_wgmma(s, 0)));
	return buf;
}

static void race(sim *s, int64_t agent, const tlc_buffer *b, int64_t byte, bool write, tlc_loc loc,
                 const sim_access *other, bool other_wrote)
{
	char me[48], him[48], after[160];
	sim_fail(s, loc, "race on shared memory: %s %s byte %lld of '%s', which %s %s at %u:%u with no barrier between (%s)",
	         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)byte, b->name,
	         agent_name(s, other->agent, him, sizeof him), other_wrote ? "wrote" : "read", other->loc.line,
	         other->loc.col, sim_after(s, after, sizeof after));
}

/* True when agent x's clock has reached access y (y happened before). */
static bool ordered(const sim_clock *vx, const sim_access *y)
{
	return y->agent < 0 || vx[y->agent] >= y->clock;
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
			char me[48], after[160];
			sim_fail(s, loc,
			         "%s %s byte %lld of '%s' while thread %d's T.cp_async at %u:%u may still be writing it (no "
			         "T.cp_async_wait lets it land before; %s)",
			         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)k, b->name,
			         (int)h->in_flight - 1, h->flight_loc.line, h->flight_loc.col, sim_after(s, after, sizeof after));
			return;
		}
		if (!write && h->write.agent < 0) {
			char me[48], after[160];
			sim_fail(s, loc, "%s reads byte %lld of '%s', which nothing in this block has written (%s)",
			         agent_name(s, agent, me, sizeof me), (long long)k, b->name, sim_after(s, after, sizeof after));
			return;
		}
		if (h->write.agent != agent && !ordered(vx, &h->write)) {
			race(s, agent, b, k, write, loc, &h->write, true);
			return;
		}
		if (agent >= s->nthreads && h->write.agent >= 0 && h->write.agent < s->nthreads &&
		    !ordered(sim_fv(s, agent), &h->write)) {
			char me[48], after[160];
			sim_fail(s, loc,
			         "async-proxy race on shared memory: %s %s byte %lld of '%s', which thread %d wrote at %u:%u "
			         "through the generic proxy with no T.fence_proxy_async after it (%s)",
			         agent_name(s, agent, me, sizeof me), write ? "writes" : "reads", (long long)k, b->name,
			         (int)h->write.agent, h->write.loc.line, h->write.loc.col, sim_after(s, after, sizeof after));
			return;
		}
		if (write) {
			for (int r = 0; r < SIM_READERS; r++)
				if (h->read[r].agent != agent && !ordered(vx, &h->read[r])) {
					race(s, agent, b, k, write, loc, &h->read[r], false);
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
	sim_touch_by(s, s->tid, a, b, e, n, write, loc);
}

/* T.sync_threads: a barrier of the whole block, or inside a T.ws scope of
 * the scope's threads (the CUDA target's named barrier). */
void sim_sync_threads(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	int64_t lo = 0, n = s->nthreads;
	bool scope = sim_task_range(s, &lo, &n);
	if (lo + n > s->nthreads)
		n = s->nthreads - lo;
	int64_t missing = -1;
	for (int64_t t = lo; t < lo + n && missing < 0; t++)
		if (!m->on[t])
			missing = t;
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
		sim_publish(s, t, vc, fv);
	for (int64_t t = lo; t < lo + n; t++) {
		memcpy(sim_vc(s, t), vc, (size_t)s->nagents * sizeof(sim_clock));
		memcpy(sim_fv(s, t), fv, (size_t)s->nagents * sizeof(sim_clock));
		sim_vc_tick(s, t);
	}
	free(vc);
	free(fv);
}
