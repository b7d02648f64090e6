/* sim_thread.c - the thread level: the IR after lower-tile-ops, run by
 * every thread of a block (doc/sim.md).
 *
 * Threads run in lock-step over the statements, as a block's warps do when
 * nothing diverges: a statement runs for each active thread in turn
 * (thread 0 first) before the next statement starts.  An `if` splits the
 * active threads into those that take it and those that do not (each part
 * runs its branch, the first branch first); a loop runs iteration i for
 * the threads whose trip count exceeds i.  T.sync_threads needs every
 * thread of the block (of its T.ws scope) active, else: barrier
 * divergence, an error.
 *
 * Shared memory is one arena per block (storage-plan's offsets; buffers
 * placed on the same bytes share them, as on the GPU), every byte checked
 * for races (sim_order.c).  Per-thread buffers (T.alloc_local, lowered
 * fragments) have one copy per thread.
 *
 * The blocks of a thread-block cluster run concurrently (sim_task.c),
 * each with its own shared memory, mbarriers and registers.
 *
 * Modelled intrinsics: T.thread_idx, T.block_rank_in_cluster, T.copy_vec,
 * T.stmatrix, T.mma_sync, the shuffles (T.shfl_xor/down/up/idx), T.sync_threads,
 * T.cluster_sync, T.atomic_add on elements,
 * T.fence_proxy_async, the asynchronous copies (sim_async.c), mbarriers
 * and T.ws scopes (sim_task.c) and the matrix instructions
 * (sim_matrix.c); what orders shared accesses and the race check are in
 * sim_order.c.  Anything else is an error naming it. */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/tileops.h>
#include <tlc/walk.h>

sim_mask sim_mask_new(const sim *s)
{
	sim_mask m = {0, tlc_xcalloc((size_t)s->nthreads, sizeof(bool))};
	return m;
}

/* ---- buffers ---- */

static bool per_thread(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR || b->scope == TLC_SCOPE_FRAGMENT;
}

static sim_shadow *new_shadow(int64_t nbytes)
{
	sim_shadow *h = tlc_xcalloc((size_t)(nbytes ? nbytes : 1), sizeof(*h));
	sim_shadow_clear(h, nbytes);
	return h;
}

/* The block's shared arena: as large as storage-plan's placements need. */
static bool make_arena(sim *s)
{
	int64_t need = 0;
	for (int i = 0; i < s->f->nattrs; i++)
		if (!strcmp(s->f->attr_keys[i], "tlc.smem_bytes"))
			tlc_expr_as_int(s->f->attr_values[i], &need);
	s->arena = tlc_xcalloc(1, sizeof(*s->arena));
	int64_t shape[1] = {need};
	if (!sim_array_init(s->arena, TLC_DT_UINT8, 1, shape))
		return false;
	s->arena->shadow = new_shadow(need);
	return true;
}

static void thread_alloc(sim *s, const tlc_stmt *st)
{
	const tlc_buffer *b = st->u.alloc.buf;
	if (b->scope == TLC_SCOPE_BARRIER) {
		sim_mbar_alloc(s, st);
		return;
	}
	if (tlc_buffer_in_shared(b) && !b->alias_of && b->offset >= 0) {
		/* storage-plan placed it in the arena */
		int64_t shape[TLC_SIM_MAX_DIMS], bytes;
		for (int d = 0; d < b->ndim && d < TLC_SIM_MAX_DIMS; d++)
			shape[d] = sim_eval_int(s, b->shape[d], st->loc);
		sim_array *a = tlc_xmalloc(sizeof(*a));
		if (s->stop || b->ndim > TLC_SIM_MAX_DIMS || !sim_array_init(a, b->dtype, b->ndim, shape)) {
			free(a);
			sim_fail(s, st->loc, "cannot allocate '%s'", b->name);
			return;
		}
		bytes = a->nbytes;
		if (b->offset + bytes > s->arena->nbytes) {
			sim_array_free(a);
			free(a);
			sim_fail(s, st->loc, "'%s' (%lld bytes at offset %lld) lies outside the kernel's %lld bytes of shared memory",
			         b->name, (long long)bytes, (long long)b->offset, (long long)s->arena->nbytes);
			return;
		}
		free(a->data);
		a->data = s->arena->data + b->offset;
		a->shadow = s->arena->shadow + b->offset;
		a->view = true;
		sim_set_array(s, b, a);
		return;
	}
	sim_alloc(s, st); /* one copy for the block */
	if (s->stop)
		return;
	sim_array *a = s->arrays[b->id];
	if (tlc_buffer_in_shared(b) && !b->alias_of) {
		a->shadow = new_shadow(a->nbytes);
	} else if (per_thread(b)) {
		/* one copy per thread: the block's copy, repeated */
		unsigned char *all = tlc_xmalloc((size_t)(a->nbytes * s->nthreads) + 1);
		for (int64_t t = 0; t < s->nthreads; t++)
			memcpy(all + t * a->nbytes, a->data, (size_t)a->nbytes);
		free(a->data);
		a->data = all;
		a->thread_stride = a->numel;
	}
}

/* ---- statements ---- */

/* T.copy_vec(dst, src, lanes) (add: false) and T.atomic_add_vec(dst, src,
 * lanes) (add: true): `lanes` consecutive elements at once, each converted
 * to dst's dtype; the atomic adds to dst (atomics do not race with each
 * other, so only its reads are checked). */
static void vector_op(sim *s, const tlc_stmt *st, bool add)
{
	const tlc_expr *c = st->u.eval.call;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	int64_t lanes = sim_eval_int(s, c->u.call.args[2], st->loc);
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || lanes < 1) {
		sim_fail(s, st->loc, "T.%s takes two elements and a positive lane count", add ? "atomic_add_vec" : "copy_vec");
		return;
	}
	sim_array *da, *sa;
	int64_t de = sim_vector_at(s, dst, &da, lanes, st->loc);
	int64_t se = de < 0 ? -1 : sim_vector_at(s, src, &sa, lanes, st->loc);
	if (se < 0)
		return;
	if (sa->shadow)
		sim_touch(s, sa, src->u.load.buf, se, lanes, false, st->loc);
	if (da->shadow && !add)
		sim_touch(s, da, dst->u.load.buf, de, lanes, true, st->loc);
	for (int64_t l = 0; l < lanes && !s->stop; l++) {
		sim_val v = sim_convert(sim_array_get(sa, se + l), sa->dtype, da->dtype);
		sim_array_set(da, de + l, add ? sim_add(da->dtype, sim_array_get(da, de + l), v) : v);
	}
}

int sim_warp_runs(sim *s, const sim_mask *m, int64_t w0, tlc_loc loc, const char *op,
                  const char *what)
{
	int64_t on = 0, off = -1;
	for (int64_t l = 0; l < s->warp_size; l++) {
		if (w0 + l < s->nthreads && m->on[w0 + l])
			on++;
		else if (off < 0)
			off = l;
	}
	if (!on || off < 0)
		return on ? 1 : 0;
	sim_fail(s, loc, "%s: lane %lld of warp %lld does not run it (a divergent %s)", op,
	         (long long)off, (long long)(w0 / s->warp_size), what);
	return -1;
}

/* T.stmatrix(dst, src_0, .., src_X-1): the 32 lanes of each warp that runs
 * it store X tiles of 8x8 elements together (tlc/ops.def): lane l's two
 * elements at src_k go to row l / 4 of tile k, at columns 2 (l % 4) and
 * +1 of the 8 elements that lane 8k + l / 4's dst names.  Every lane of
 * such a warp must run it, and each row must start 16-byte aligned. */
static void stmatrix(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	enum { LANES = TLC_STMATRIX_LANES, DIM = TLC_STMATRIX_DIM, PAIR = TLC_STMATRIX_PAIR };
	const tlc_expr *c = st->u.eval.call;
	int x = c->u.call.nargs - 1;
	const tlc_expr *dst = c->u.call.args[0];
	bool ok = (x == 1 || x == 2 || x == TLC_STMATRIX_MAX_TILES) && s->warp_size == LANES && dst->kind == TLC_EXPR_LOAD;
	for (int k = 1; ok && k <= x; k++)
		ok = c->u.call.args[k]->kind == TLC_EXPR_LOAD;
	if (!ok) {
		sim_fail(s, st->loc, "T.stmatrix takes an element to store to and 1, 2 or 4 elements, on warps of %d lanes",
		         LANES);
		return;
	}
	for (int64_t w0 = 0; w0 < s->nthreads && !s->stop; w0 += s->warp_size) {
		int runs = sim_warp_runs(s, m, w0, st->loc, "T.stmatrix", "stmatrix");
		if (runs < 0)
			return;
		if (!runs)
			continue;
		sim_array *da = NULL, *sa;
		int64_t row[LANES];
		sim_val vals[LANES][TLC_STMATRIX_MAX_TILES][PAIR];
		for (int64_t l = 0; l < LANES && !s->stop; l++) {
			s->tid = w0 + l;
			if (l < DIM * x) {
				row[l] = sim_vector_at(s, dst, &da, DIM, st->loc);
				if (row[l] < 0)
					return;
				if (row[l] % DIM) {
					sim_fail(s, st->loc, "T.stmatrix: lane %lld's row of '%s' starts at element %lld, not 16-byte aligned",
					         (long long)l, dst->u.load.buf->name, (long long)row[l]);
					return;
				}
			}
			for (int k = 0; k < x; k++) {
				int64_t se = sim_vector_at(s, c->u.call.args[1 + k], &sa, PAIR, st->loc);
				if (se < 0)
					return;
				if (sa->shadow)
					sim_touch(s, sa, c->u.call.args[1 + k]->u.load.buf, se, PAIR, false, st->loc);
				for (int u = 0; u < PAIR; u++)
					vals[l][k][u] = sim_convert(sim_array_get(sa, se + u), sa->dtype, da->dtype);
			}
		}
		/* lane l's pair of tile k: row l / 4 of it, columns 2 (l % 4) and on */
		for (int64_t l = 0; l < LANES && !s->stop; l++) {
			s->tid = w0 + l;
			for (int k = 0; k < x && !s->stop; k++) {
				int64_t e = row[DIM * k + l / (DIM / PAIR)] + PAIR * (l % (DIM / PAIR));
				if (da->shadow)
					sim_touch(s, da, dst->u.load.buf, e, PAIR, true, st->loc);
				for (int u = 0; u < PAIR; u++)
					sim_array_set(da, e + u, vals[l][k][u]);
			}
		}
	}
}

/* LET and STORE: every active thread evaluates its value (and indices)
 * before any writes, as the lanes of a warp do (a shuffle reads its
 * partner's registers as they were before the statement). */
static void assign(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	bool let = st->kind == TLC_STMT_LET;
	const tlc_expr *value = let ? st->u.let.value : st->u.store.value;
	const tlc_buffer *b = let ? NULL : st->u.store.buf;
	sim_array *a = b ? sim_array_of(s, b, st->loc) : NULL;
	if (b && (!a || st->u.store.n != a->ndim)) {
		if (a)
			sim_fail(s, st->loc, "'%s' has %d dimensions but is indexed with %d", b->name, a->ndim, st->u.store.n);
		return;
	}
	tlc_dtype to = let ? st->u.let.var->dtype : b->dtype;
	int nd = a ? a->ndim : 0;
	sim_val *vals = tlc_xcalloc((size_t)s->nthreads, sizeof(*vals));
	int64_t *idx = tlc_xcalloc((size_t)(s->nthreads * (nd ? nd : 1)), sizeof(*idx));
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		for (int d = 0; d < nd; d++)
			idx[t * nd + d] = sim_eval_int(s, st->u.store.idx[d], st->loc);
		vals[t] = sim_convert(sim_eval(s, value, st->loc), value->dtype, to);
	}
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		if (let) {
			sim_bind(s, st->u.let.var, vals[t]);
			continue;
		}
		int64_t e = sim_element(s, a, b, &idx[t * nd], st->loc);
		if (e >= 0 && a->shadow)
			sim_touch(s, a, b, e, 1, true, st->loc);
		if (e >= 0 && !s->stop)
			sim_array_set(a, e, vals[t]);
	}
	free(vals);
	free(idx);
}

/* A statement every active thread runs for itself. */
static void per_thread_stmt(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		tlc_op_id op = st->kind == TLC_STMT_EVAL ? st->u.eval.call->u.call.op : -1;
		if (op == TLC_OP_COPY_VEC || op == TLC_OP_ATOMIC_ADD_VEC)
			vector_op(s, st, op == TLC_OP_ATOMIC_ADD_VEC);
		else if (op == TLC_OP_CP_ASYNC)
			sim_cp_async(s, st);
		else if (op == TLC_OP_CP_ASYNC_COMMIT)
			sim_cp_async_commit(s);
		else if (op == TLC_OP_CP_ASYNC_WAIT)
			sim_cp_async_wait(s, st);
		else if (op == TLC_OP_TMA_LOAD)
			sim_tma_load(s, st);
		else if (op == TLC_OP_TMA_STORE)
			sim_tma_store(s, st);
		else if (op == TLC_OP_TMA_STORE_WAIT)
			sim_tma_store_wait(s);
		else if (op == TLC_OP_FENCE_PROXY_ASYNC)
			sim_fence_proxy(s, t);
		else
			sim_exec(s, st); /* LET, STORE, element atomics */
	}
}

/* break / continue by the threads of m: they leave the innermost loop (its
 * iteration), the others go on (the blocks around them narrow their masks). */
static void loop_exit(sim *s, const tlc_stmt *st, const sim_mask *m, bool is_break)
{
	bool *off = is_break ? s->loop_broke : s->loop_continued;
	if (!off) {
		sim_fail(s, st->loc, "T.%s outside a loop", is_break ? "loop_break" : "loop_continue");
		return;
	}
	for (int64_t t = 0; t < s->nthreads; t++)
		off[t] = off[t] || m->on[t];
	s->loop_exits++;
}

static void eval_stmt(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	const tlc_expr *c = st->u.eval.call;
	switch (c->u.call.op) {
	case TLC_OP_LOOP_BREAK:
	case TLC_OP_LOOP_CONTINUE: loop_exit(s, st, m, c->u.call.op == TLC_OP_LOOP_BREAK); return;
	case TLC_OP_SYNC_THREADS: sim_sync_threads(s, st, m); return;
	case TLC_OP_CLUSTER_SYNC: sim_cluster_sync(s, st, m); return;
	case TLC_OP_SYNC_GRID: sim_grid_sync(s, st, m); return;
	case TLC_OP_STMATRIX: stmatrix(s, st, m); return;
	case TLC_OP_USE_SWIZZLE: /* the order blocks run in: all of them run, so no value changes */
	case TLC_OP_ANNOTATE_LAYOUT:
	case TLC_OP_ANNOTATE_SAFE_VALUE: /* legalize-bounds made its guards: nothing is masked here */
	case TLC_OP_PRINT: /* a debug print: no value changes */
	case TLC_OP_SET_MAX_NREG: /* registers traded between warpgroups: no value changes */
		return;
	case TLC_OP_FENCE_PROXY_ASYNC:
	case TLC_OP_COPY_VEC:
	case TLC_OP_CP_ASYNC:
	case TLC_OP_CP_ASYNC_COMMIT:
	case TLC_OP_CP_ASYNC_WAIT:
	case TLC_OP_TMA_LOAD:
	case TLC_OP_TMA_STORE:
	case TLC_OP_TMA_STORE_WAIT:
	case TLC_OP_ATOMIC_ADD_VEC: per_thread_stmt(s, st, m); return;
	case TLC_OP_MBARRIER_INIT:
	case TLC_OP_MBARRIER_FENCE_INIT:
	case TLC_OP_BARRIER_ARRIVE:
	case TLC_OP_BARRIER_WAIT:
	case TLC_OP_MBARRIER_ARRIVE:
	case TLC_OP_MBARRIER_WAIT_PARITY:
	case TLC_OP_MBARRIER_EXPECT_TX:
	case TLC_OP_MBARRIER_ARRIVE_EXPECT_TX:
	case TLC_OP_CP_ASYNC_ARRIVE:
	case TLC_OP_CP_ASYNC_ARRIVE_NOINC: sim_mbarrier_stmt(s, st, m); return;
	case TLC_OP_MMA_GEMM: sim_mma_gemm(s, st, m); return;
	case TLC_OP_MMA_SYNC: sim_mma_sync(s, st, m); return;
	case TLC_OP_WGMMA_ISSUE: sim_wgmma_issue(s, st, m); return;
	case TLC_OP_WAIT_WGMMA: sim_wgmma_wait(s, st, m); return;
	case TLC_OP_WARPGROUP_FENCE_OPERAND: sim_wgmma_fence(s, st, m); return;
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN:
	case TLC_OP_RNG_INIT: per_thread_stmt(s, st, m); return;
	case TLC_OP_ATOMIC_ADD:
		if (c->u.call.args[0]->kind == TLC_EXPR_LOAD) {
			per_thread_stmt(s, st, m);
			return;
		}
		break;
	default: break;
	}
	sim_fail(s, st->loc, "T.%s is not modelled by the thread-level simulator yet",
	         tlc_op_get(s->ctx, c->u.call.op)->name);
}

static void if_threads(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	sim_mask yes = sim_mask_new(s), no = sim_mask_new(s);
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		sim_val c = sim_eval(s, st->u.if_.cond, st->loc);
		bool take = tlc_dtype_is_float(st->u.if_.cond->dtype) ? c.f != 0.0 : c.i != 0;
		sim_mask *to = take ? &yes : &no;
		to->on[t] = true;
		to->n++;
	}
	if (yes.n && !s->stop)
		sim_exec_threads(s, st->u.if_.then_s, &yes);
	if (no.n && st->u.if_.else_s && !s->stop)
		sim_exec_threads(s, st->u.if_.else_s, &no);
	free(yes.on);
	free(no.on);
}

static tlc_walk_action find_exit(void *p, const tlc_stmt *st)
{
	bool *found = p;
	if (st->kind == TLC_STMT_FOR)
		return TLC_WALK_SKIP; /* its exits are its own */
	if (tlc_stmt_is_call(st, TLC_OP_LOOP_BREAK) || tlc_stmt_is_call(st, TLC_OP_LOOP_CONTINUE))
		*found = true;
	return *found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

/* Whether a loop's body has a break or continue of its own.  Only such a
 * loop sets up the exits' masks: the state is the block's, and concurrent
 * T.ws tasks must not see each other's loops. */
static bool has_exit(const tlc_stmt *body)
{
	bool found = false;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &found, .stmt_pre = find_exit}, body);
	return found;
}

static void for_threads(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	int64_t *lo = tlc_xcalloc((size_t)s->nthreads, sizeof(int64_t)), *n = tlc_xcalloc((size_t)s->nthreads, sizeof(int64_t));
	int64_t most = 0;
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		lo[t] = sim_eval_int(s, st->u.loop.min, st->loc);
		n[t] = sim_eval_int(s, st->u.loop.extent, st->loc);
		most = n[t] > most ? n[t] : most;
	}
	sim_mask it = sim_mask_new(s);
	bool exits = has_exit(st->u.loop.body);
	bool *outer_broke = s->loop_broke, *outer_continued = s->loop_continued;
	if (exits) {
		s->loop_broke = tlc_xcalloc((size_t)s->nthreads, sizeof(bool));
		s->loop_continued = tlc_xcalloc((size_t)s->nthreads, sizeof(bool));
	}
	for (int64_t i = 0; i < most && !s->stop; i++) {
		it.n = 0;
		if (exits)
			memset(s->loop_continued, 0, (size_t)s->nthreads * sizeof(bool));
		for (int64_t t = 0; t < s->nthreads; t++) {
			it.on[t] = m->on[t] && i < n[t] && !(exits && s->loop_broke[t]);
			if (!it.on[t])
				continue;
			it.n++;
			s->tid = t;
			sim_val v = {0, sim_wrap_int(st->u.loop.var->dtype, lo[t] + i)};
			sim_bind(s, st->u.loop.var, v);
		}
		if (it.n)
			sim_exec_threads(s, st->u.loop.body, &it);
	}
	if (exits) {
		free(s->loop_broke);
		free(s->loop_continued);
		s->loop_broke = outer_broke;
		s->loop_continued = outer_continued;
	}
	free(it.on);
	free(lo);
	free(n);
}

void sim_exec_threads(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	if (!st || s->stop)
		return;
	s->active = m->on;
	switch (st->kind) {
	case TLC_STMT_SEQ: {
		/* the threads that break or continue skip the rest of the block */
		sim_mask cur = *m;
		bool own = false;
		int64_t exits = s->loop_exits;
		for (int i = 0; i < st->u.seq.n && !s->stop && cur.n;) {
			/* T.ws scopes next to each other run concurrently */
			int group = tlc_ws_group_len(st->u.seq.items, st->u.seq.n, i);
			if (group) {
				sim_run_ws(s, (const tlc_stmt *const *)&st->u.seq.items[i], group, &cur);
				i += group;
			} else {
				sim_exec_threads(s, st->u.seq.items[i], &cur);
				i++;
			}
			if (s->loop_exits != exits && s->loop_broke) {
				exits = s->loop_exits;
				if (!own) {
					cur.on = tlc_xcalloc((size_t)s->nthreads, sizeof(bool));
					memcpy(cur.on, m->on, (size_t)s->nthreads * sizeof(bool));
					own = true;
				}
				for (int64_t t = 0; t < s->nthreads; t++)
					if (cur.on[t] && (s->loop_broke[t] || s->loop_continued[t])) {
						cur.on[t] = false;
						cur.n--;
					}
			}
			s->active = cur.on;
		}
		if (own)
			free(cur.on);
		s->active = m->on;
		return;
	}
	case TLC_STMT_FOR:
		if (st->u.loop.kind == TLC_FOR_THREAD) {
			sim_fail(s, st->loc, "loops bound to thread indices are not modelled by the thread-level simulator yet");
			return;
		}
		for_threads(s, st, m);
		return;
	case TLC_STMT_IF: if_threads(s, st, m); return;
	case TLC_STMT_LET:
	case TLC_STMT_STORE: assign(s, st, m); return;
	case TLC_STMT_EVAL: eval_stmt(s, st, m); return;
	case TLC_STMT_ALLOC: thread_alloc(s, st); return;
	case TLC_STMT_ATTR: sim_exec_threads(s, st->u.attr.body, m); return;
	case TLC_STMT_SCOPE:
		if (tlc_stmt_is_ws(st)) {
			sim_run_ws(s, &st, 1, m);
			return;
		}
		sim_fail(s, st->loc, "T.%s is not modelled by the thread-level simulator yet",
		         tlc_op_get(s->ctx, st->u.scope.call->u.call.op)->name);
		return;
	}
}

/* A block's state at its start (its clocks apart). */
static bool block_start(sim *s)
{
	if (!s->arena && !make_arena(s)) {
		sim_fail(s, s->f->loc, "cannot allocate the block's shared memory");
		return false;
	}
	/* every block starts with no shared accesses remembered */
	memset(s->arena->data, 0, (size_t)s->arena->nbytes);
	sim_shadow_clear(s->arena->shadow, s->arena->nbytes);
	/* nor barriers: the other blocks of a cluster see its barriers as
	 * uninitialised until it initialises them */
	sim_tasks_free(s);
	s->ended = false;
	/* copies and WGMMA groups a block left in flight do not reach the next one */
	s->ncopies = 0;
	sim_wgmma_reset(s);
	if (!s->commits)
		s->commits = tlc_xcalloc((size_t)s->nthreads, sizeof(*s->commits));
	memset(s->commits, 0, (size_t)s->nthreads * sizeof(*s->commits));
	/* T.get_thread_binding variables: the thread's index per dimension */
	for (int64_t t = 0; t < s->nthreads; t++) {
		s->tid = t;
		for (int d = 0; d < s->f->thread_ndim; d++)
			if (s->f->thread_vars[d]) {
				sim_val v = {0, sim_thread_coord(s, t, d)};
				sim_bind(s, s->f->thread_vars[d], v);
			}
	}
	return true;
}

bool sim_run_cluster_threads(sim_cluster *c, const tlc_stmt *body)
{
	for (int64_t r = 0; r < c->n; r++)
		if (!block_start(c->blocks[r]))
			return false;
	sim_order_reset_cluster(c);
	sim_run_cluster(c, body);
	return !c->blocks[0]->stop;
}

bool sim_run_block_threads(sim *s, const tlc_stmt *body)
{
	if (!block_start(s))
		return false;
	sim_order_reset(s);
	sim_mask all = sim_mask_new(s);
	for (int64_t t = 0; t < s->nthreads; t++)
		all.on[t] = true;
	all.n = s->nthreads;
	sim_exec_threads(s, body, &all);
	free(all.on);
	return !s->stop;
}
