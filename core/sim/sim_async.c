/* sim_async.c - asynchronous copies at the thread level: T.cp_async with
 * its commit groups and waits, and TMA loads and stores (doc/sim.md).
 *
 * A cp.async reads its source when issued and its bytes land when a later
 * T.cp_async_wait of the same thread lets its committed group go (or a
 * T.cp_async_arrive lands them all); until then the destination bytes are
 * in flight, and touching them is an error.
 *
 * A TMA load (T.tma_load) is made by the TMA unit, an agent of its own
 * (sim_order.c): it learns what the issuing thread knew, writes the box
 * into shared memory at once, swizzled by the shared address bits as the
 * hardware swizzles, and completes its bytes on the mbarrier, whose phase
 * then carries the writes to the threads that wait for it.  A thread that
 * reads the box without waiting is racing with the TMA unit.  A TMA store
 * (T.tma_store) is read by the same agent at once; its issuing thread
 * learns of the reads at T.tma_store_wait.
 *
 * A multicast load (multicast=M, in a cluster) is made by the issuing
 * block's TMA unit too: the box lands at the destination's place in the
 * shared memory of every block of the cluster whose rank is a bit of M
 * and completes its bytes on the mbarrier at the barrier operand's place
 * in each of them, so each receiving block's waiters are ordered after
 * the writes into their own memory, and the writes are checked against
 * what each receiving block's agents did there. */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first of `lanes` consecutive elements from element x (a load) of its
 * buffer, after checking that the last one is inside too; -1 (reported)
 * otherwise. */
int64_t sim_vector_at(sim *s, const tlc_expr *x, sim_array **a, int64_t lanes, tlc_loc loc)
{
	*a = sim_array_of(s, x->u.load.buf, loc);
	if (!*a)
		return -1;
	if (x->u.load.n != (*a)->ndim) {
		sim_fail(s, loc, "'%s' has %d dimensions but is indexed with %d", x->u.load.buf->name, (*a)->ndim,
		         x->u.load.n);
		return -1;
	}
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < (*a)->ndim; d++)
		idx[d] = sim_eval_int(s, x->u.load.idx[d], loc);
	/* the last index runs over the lanes */
	idx[(*a)->ndim - 1] += lanes - 1;
	if (s->stop || sim_element(s, *a, x->u.load.buf, idx, loc) < 0)
		return -1;
	idx[(*a)->ndim - 1] -= lanes - 1;
	return sim_element(s, *a, x->u.load.buf, idx, loc);
}

#define SIM_COPY_MAX_LANES 16

typedef struct sim_copy {
	int64_t thread, group; /* group -1: issued since the last commit */
	sim_array *dst;
	const tlc_buffer *buf;
	int64_t e, lanes;
	sim_val vals[SIM_COPY_MAX_LANES];
} sim_copy;

void sim_cp_async(sim *s, const tlc_stmt *st)
{
	const tlc_expr *c = st->u.eval.call;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	int64_t lanes = sim_eval_int(s, c->u.call.args[2], st->loc);
	bool in_bounds = c->u.call.nargs < 4 || sim_eval_int(s, c->u.call.args[3], st->loc) != 0;
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || lanes < 1 || lanes > SIM_COPY_MAX_LANES) {
		sim_fail(s, st->loc, "T.cp_async takes two elements and 1 to %d lanes", SIM_COPY_MAX_LANES);
		return;
	}
	sim_array *da, *sa;
	int64_t de = sim_vector_at(s, dst, &da, lanes, st->loc);
	if (de < 0)
		return;
	sim_copy cp = {s->tid, -1, da, dst->u.load.buf, de, lanes, {{0, 0}}};
	if (in_bounds) {
		/* the source is read now (zero-fill reads nothing) */
		int64_t se = sim_vector_at(s, src, &sa, lanes, st->loc);
		if (se < 0)
			return;
		for (int64_t l = 0; l < lanes; l++)
			cp.vals[l] = sim_convert(sim_array_get(sa, se + l), sa->dtype, da->dtype);
	}
	if (da->shadow) {
		sim_touch(s, da, dst->u.load.buf, cp.e, lanes, true, st->loc);
		int bytes = tlc_dtype_bits(da->dtype) / 8;
		for (int64_t k = cp.e * bytes; k < (cp.e + lanes) * bytes; k++) {
			da->shadow[k].in_flight = (int32_t)s->tid + 1;
			da->shadow[k].flight_loc = st->loc;
		}
	}
	s->copies = tlc_mem_grow(s->copies, s->ncopies, &s->cap_copies, sizeof(*s->copies));
	s->copies[s->ncopies++] = cp;
}

void sim_cp_async_commit(sim *s)
{
	for (int i = 0; i < s->ncopies; i++)
		if (s->copies[i].thread == s->tid && s->copies[i].group < 0)
			s->copies[i].group = s->commits[s->tid];
	s->commits[s->tid]++;
}

/* Copy cp lands: its bytes are written now (a write of its thread, for
 * the race check). */
static void land(sim *s, sim_copy *cp, tlc_loc loc)
{
	if (cp->dst->shadow && !s->stop) {
		int bytes = tlc_dtype_bits(cp->dst->dtype) / 8;
		for (int64_t b = cp->e * bytes; b < (cp->e + cp->lanes) * bytes; b++)
			cp->dst->shadow[b].in_flight = 0;
		sim_touch(s, cp->dst, cp->buf, cp->e, cp->lanes, true, loc);
	}
	for (int64_t l = 0; l < cp->lanes && !s->stop; l++)
		sim_array_set(cp->dst, cp->e + l, cp->vals[l]);
}

/* The thread's copies for which `lands` holds land here, the others stay. */
static void land_where(sim *s, int64_t keep_newest, bool all, tlc_loc loc)
{
	int k = 0;
	for (int i = 0; i < s->ncopies; i++) {
		sim_copy *cp = &s->copies[i];
		bool lands = cp->thread == s->tid && (all || (cp->group >= 0 && cp->group < s->commits[s->tid] - keep_newest));
		if (lands)
			land(s, cp, loc);
		else
			s->copies[k++] = *cp;
	}
	s->ncopies = k;
}

/* The thread's committed groups older than its newest n land here. */
void sim_cp_async_wait(sim *s, const tlc_stmt *st)
{
	int64_t n = sim_eval_int(s, st->u.eval.call->u.call.args[0], st->loc);
	land_where(s, n, false, st->loc);
}

/* T.cp_async_arrive(bar): the barrier's phase cannot complete before the
 * thread's copies have landed (cp.async.mbarrier.arrive counts one pending
 * arrival and makes it when they land, so the thread's own arrive still
 * counts).  They land now: whoever waits for the phase sees them. */
void sim_cp_async_land_all(sim *s, tlc_loc loc)
{
	land_where(s, 0, true, loc);
}

/* ---- TMA ---- */

#define SIM_TMA_MAX_RANK 5
/* blocks a multicast may reach (the largest clusters have 16) */
#define SIM_TMA_MAX_DEST 16

/* A TMA load (store false) or store of one box: the TMA unit learns what
 * the issuing thread knew and moves the box element by element between
 * the tensor (row-major over the box from the coordinates; outside the
 * tensor a load reads zero and a store writes nothing) and shared memory
 * (row-major from the shared element, swizzled by the shared address
 * bits as the hardware swizzles).  A load then completes its bytes on its
 * mbarrier; a store's reads are handed back to the thread at its
 * T.tma_store_wait.  A multicast load does so in every block it names. */
static void tma_box(sim *s, const tlc_stmt *st, bool store)
{
	const char *op = store ? "T.tma_store" : "T.tma_load";
	const tlc_expr *c = st->u.eval.call;
	int coords = store ? 2 : 3;
	const tlc_expr *tensor = c->u.call.args[0], *sh = c->u.call.args[1];
	const tlc_expr *box = tlc_call_kw(c, "box"), *swz = tlc_call_kw(c, "swizzle");
	int rank = c->u.call.nargs - coords;
	if (tensor->kind != TLC_EXPR_BUF || sh->kind != TLC_EXPR_LOAD || !box || box->kind != TLC_EXPR_TUPLE ||
	    box->u.tuple.n != rank || rank < 1 || rank > SIM_TMA_MAX_RANK) {
		sim_fail(s, st->loc, "%s(tensor, %s[...], %scoordinates..., box=(...), swizzle=W) with 1 to %d coordinates, "
		                     "one per box dimension",
		         op, store ? "src" : "dst", store ? "" : "bar[...], ", SIM_TMA_MAX_RANK);
		return;
	}
	sim_array *ta = sim_array_of(s, tensor->u.buf, st->loc);
	if (!ta)
		return;
	/* the blocks the box lands in: the issuer's, or those multicast= names */
	const tlc_expr *mc = store ? NULL : tlc_call_kw(c, "multicast");
	sim_cluster *cl = sim_cluster_of(s);
	int64_t blocks = cl ? cl->n : 1, mask = (int64_t)1 << (cl ? s->rank : 0);
	if (blocks > SIM_TMA_MAX_DEST) {
		sim_fail(s, st->loc, "%s in clusters of more than %d blocks is not modelled", op, SIM_TMA_MAX_DEST);
		return;
	}
	if (mc) {
		mask = sim_eval_int(s, mc, st->loc);
		if (s->stop)
			return;
		if (mask < 1 || (mask >> blocks) != 0) {
			sim_fail(s, st->loc, "T.tma_load: multicast=%lld names %s (the cluster's %lld blocks are bits 0 to %lld)",
			         (long long)mask, mask < 1 ? "no block" : "blocks outside the cluster", (long long)blocks,
			         (long long)blocks - 1);
			return;
		}
	}
	int64_t agent = sim_agent_tma(s);
	sim_learn_from(s, agent, sim_agent_thread(s, s->tid));
	sim *dest[SIM_TMA_MAX_DEST];
	struct sim_mbar *bars[SIM_TMA_MAX_DEST];
	int ndest = 0;
	for (int64_t r = 0; r < blocks; r++) {
		if (!((mask >> r) & 1))
			continue;
		sim *blk = cl ? cl->blocks[r] : s;
		bars[ndest] = NULL;
		if (!store && !(bars[ndest] = sim_mbar_for(s, blk, c->u.call.args[2], agent,
		                                           "a T.tma_load multicast completing on", st->loc)))
			return;
		dest[ndest++] = blk;
	}
	if (ta->ndim != rank) {
		sim_fail(s, st->loc, "%s: '%s' has %d dimensions and the box %d", op, tensor->u.buf->name, ta->ndim, rank);
		return;
	}
	int64_t coord[SIM_TMA_MAX_RANK], ext[SIM_TMA_MAX_RANK], total = 1;
	for (int d = 0; d < rank; d++) {
		coord[d] = sim_eval_int(s, c->u.call.args[coords + d], st->loc);
		ext[d] = sim_eval_int(s, box->u.tuple.items[d], st->loc);
		total *= ext[d] > 0 ? ext[d] : 0;
		if (store && coord[d] < 0 && !s->stop) {
			sim_fail(s, st->loc, "T.tma_store: coordinate %d is %lld; a store's box may not start before the "
			                     "tensor (the TMA unit traps)",
			         d, (long long)coord[d]);
			return;
		}
	}
	int64_t width = swz ? sim_eval_int(s, swz, st->loc) : 0;
	if (s->stop)
		return;
	if (width != 0 && width != 32 && width != 64 && width != 128) {
		sim_fail(s, st->loc, "%s: swizzle= is 0, 32, 64 or 128 bytes, not %lld", op, (long long)width);
		return;
	}
	sim_array *sa;
	int64_t se = sim_vector_at(s, sh, &sa, 1, st->loc);
	if (se < 0)
		return;
	/* the destination in each block: the same buffer, the same element */
	sim_array *arrs[SIM_TMA_MAX_DEST];
	for (int i = 0; i < ndest; i++) {
		const tlc_buffer *b = sh->u.load.buf;
		arrs[i] = dest[i] == s ? sa : b->id < dest[i]->nbufs ? dest[i]->arrays[b->id] : NULL;
		if (!arrs[i] || arrs[i]->nbytes != sa->nbytes) {
			sim_fail(s, st->loc, "T.tma_load: '%s' is not allocated in block rank %lld of the cluster", b->name,
			         (long long)dest[i]->rank);
			return;
		}
	}
	int esize = tlc_dtype_bits(sa->dtype) / 8;
	if (sa->dtype != ta->dtype || esize < 1) {
		sim_fail(s, st->loc, "%s copies bytes: '%s' and '%s' need one byte-sized type", op, tensor->u.buf->name,
		         sh->u.load.buf->name);
		return;
	}
	/* the swizzle acts on shared-memory address bits: the arena's offsets */
	int64_t base = s->arena && sa->data >= s->arena->data && sa->data < s->arena->data + s->arena->nbytes
	                   ? (int64_t)(sa->data - s->arena->data)
	                   : 0;
	int64_t box_idx[SIM_TMA_MAX_RANK] = {0};
	for (int64_t f = 0; f < total && !s->stop; f++) {
		/* element f of the box, row-major */
		int64_t rem = f, g_at = 0;
		bool inside = true;
		for (int d = rank - 1; d >= 0; d--) {
			box_idx[d] = rem % ext[d];
			rem /= ext[d];
		}
		for (int d = 0; d < rank; d++) {
			int64_t g = coord[d] + box_idx[d];
			inside = inside && g >= 0 && g < ta->shape[d];
			g_at = g_at * ta->shape[d] + g;
		}
		int64_t at = base + (se + f) * esize;
		if (width)
			at ^= ((at >> 7) & (width / 16 - 1)) << 4;
		int64_t e = (at - base) / esize;
		if (e < 0 || e >= sa->numel) {
			sim_fail(s, st->loc, "%s: element %lld of the box lies outside '%s' (%lld elements)", op, (long long)f,
			         sh->u.load.buf->name, (long long)sa->numel);
			return;
		}
		if (store) {
			if (sa->shadow)
				sim_touch_by(s, agent, sa, sh->u.load.buf, e, 1, false, st->loc);
			if (inside && !s->stop)
				sim_array_set(ta, g_at, sim_array_get(sa, e));
			continue;
		}
		sim_val v = {0, 0};
		if (inside)
			v = sim_array_get(ta, g_at);
		for (int i = 0; i < ndest && !s->stop; i++) {
			if (arrs[i]->shadow)
				sim_touch_by(s, agent, arrs[i], sh->u.load.buf, e, 1, true, st->loc);
			if (!s->stop)
				sim_array_set(arrs[i], e, v);
		}
	}
	if (s->stop)
		return;
	for (int i = 0; i < ndest && !s->stop; i++)
		if (bars[i])
			sim_mbar_complete_tx(s, bars[i], total * esize, agent);
	sim_vc_tick(s, agent);
	sim_vc_tick(s, sim_agent_thread(s, s->tid));
}

void sim_tma_load(sim *s, const tlc_stmt *st)
{
	tma_box(s, st, false);
}

void sim_tma_store(sim *s, const tlc_stmt *st)
{
	tma_box(s, st, true);
}

/* T.tma_store_wait(): the thread's stores have read their shared sources;
 * the thread learns those reads, so what it orders after the wait (a
 * barrier, then others' writes) comes after them. */
void sim_tma_store_wait(sim *s)
{
	sim_learn_from(s, sim_agent_thread(s, s->tid), sim_agent_tma(s));
}
