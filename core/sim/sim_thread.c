/* sim_thread.c - the thread level: the IR after lower-tile-ops, run by
 * every thread of a block (doc/sim.md).
 *
 * Threads run in lock-step over the statements, as a block's warps do when
 * nothing diverges: a statement runs for each active thread in turn
 * (thread 0 first) before the next statement starts.  An `if` splits the
 * active threads into those that take it and those that do not (each part
 * runs its branch, the first branch first); a loop runs iteration i for
 * the threads whose trip count exceeds i.  T.sync_threads needs every
 * thread of the block active (else: barrier divergence, an error) and
 * starts a new epoch.
 *
 * Shared memory is one arena per block (storage-plan's offsets; buffers
 * placed on the same bytes share them, as on the GPU), and each byte
 * remembers its last writer and its readers in the current epoch: a thread
 * that reads a byte another thread wrote, or writes a byte another thread
 * read or wrote, in the same epoch (no barrier between) is a race, reported
 * with both statements.  Per-thread buffers (T.alloc_local, lowered
 * fragments) have one copy per thread.
 *
 * Modelled intrinsics: T.thread_idx, T.copy_vec, T.shfl_xor,
 * T.sync_threads, T.atomic_add on elements, T.fence_proxy_async (nothing
 * to do), and T.cp_async with its commit and wait: a copy reads its source
 * when issued and its bytes land when the thread's T.cp_async_wait lets its
 * group go (a write there, for the race check; also one at the issue, as a
 * write after other threads' reads needs a barrier first).  Anything else
 * (matrix instructions, TMA, mbarriers, T.ws) is an error naming it: those
 * come next. */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>

typedef struct mask {
	int64_t n;   /* active threads */
	bool *on;    /* per thread of the block */
} mask;

static mask mask_new(sim *s)
{
	mask m = {0, tlc_xcalloc((size_t)s->nthreads, sizeof(bool))};
	return m;
}

static void exec_threads(sim *s, const tlc_stmt *st, const mask *m);

/* ---- the race check ---- */

static const char *who(int32_t t, char *buf, size_t n)
{
	if (t == SIM_MANY)
		snprintf(buf, n, "other threads");
	else
		snprintf(buf, n, "thread %d", (int)t);
	return buf;
}

static void race(sim *s, const tlc_buffer *b, int64_t byte, bool write, tlc_loc loc, bool other_wrote, int32_t other,
                 tlc_loc other_loc)
{
	char w[32];
	sim_fail(s, loc,
	         "race on shared memory: thread %lld %s byte %lld of '%s', which %s %s at %u:%u with no barrier between "
	         "(the IR after %s%s%s)",
	         (long long)s->tid, write ? "writes" : "reads", (long long)byte, b->name, who(other, w, sizeof w),
	         other_wrote ? "wrote" : "read", other_loc.line, other_loc.col, s->after_pass ? "pass '" : "no pass",
	         s->after_pass ? s->after_pass : "", s->after_pass ? "'" : "");
}

void sim_touch(sim *s, sim_array *a, const tlc_buffer *b, int64_t e, int64_t n, bool write, tlc_loc loc)
{
	int bytes = tlc_dtype_bits(a->dtype) / 8;
	int32_t t = (int32_t)s->tid;
	for (int64_t k = e * bytes; k < (e + n) * bytes && !s->stop; k++) {
		sim_shadow *h = &a->shadow[k];
		if (h->in_flight) {
			sim_fail(s, loc,
			         "thread %lld %s byte %lld of '%s' while thread %d's T.cp_async at %u:%u may still be "
			         "writing it (no T.cp_async_wait lets it land before; the IR after %s%s%s)",
			         (long long)s->tid, write ? "writes" : "reads", (long long)k, b->name, (int)h->in_flight - 1,
			         h->flight_loc.line, h->flight_loc.col, s->after_pass ? "pass '" : "no pass",
			         s->after_pass ? s->after_pass : "", s->after_pass ? "'" : "");
			return;
		}
		bool wrote_now = h->write_epoch == s->epoch && h->writer != SIM_NOBODY;
		bool read_now = h->read_epoch == s->epoch && h->reader != SIM_NOBODY;
		if (wrote_now && h->writer != t) {
			race(s, b, k, write, loc, true, h->writer, h->write_loc);
			return;
		}
		if (write && read_now && h->reader != t) {
			race(s, b, k, write, loc, false, h->reader, h->read_loc);
			return;
		}
		if (write) {
			h->writer = t;
			h->write_epoch = s->epoch;
			h->write_loc = loc;
		} else {
			h->reader = read_now && h->reader != t ? SIM_MANY : t;
			h->read_epoch = s->epoch;
			h->read_loc = loc;
		}
	}
}

/* ---- buffers ---- */

static bool per_thread(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR || b->scope == TLC_SCOPE_FRAGMENT;
}

static sim_shadow *new_shadow(int64_t nbytes)
{
	sim_shadow *h = tlc_xcalloc((size_t)(nbytes ? nbytes : 1), sizeof(*h));
	for (int64_t i = 0; i < nbytes; i++)
		h[i].writer = h[i].reader = SIM_NOBODY;
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
		sim_fail(s, st->loc, "mbarriers are not modelled by the thread-level simulator yet");
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

static void barrier(sim *s, const tlc_stmt *st, const mask *m)
{
	if (m->n != s->nthreads) {
		int64_t missing = 0;
		while (missing < s->nthreads && m->on[missing])
			missing++;
		sim_fail(s, st->loc,
		         "barrier divergence: %lld of the block's %lld threads reach this T.sync_threads, thread %lld "
		         "does not (the IR after %s%s%s)",
		         (long long)m->n, (long long)s->nthreads, (long long)missing, s->after_pass ? "pass '" : "no pass",
		         s->after_pass ? s->after_pass : "", s->after_pass ? "'" : "");
		return;
	}
	s->epoch++;
}

/* The first of `lanes` consecutive elements from element x (a load) of its
 * buffer, after checking that the last one is inside too; -1 (reported)
 * otherwise. */
static int64_t vector_at(sim *s, const tlc_expr *x, sim_array **a, int64_t lanes, tlc_loc loc)
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

static void copy_vec(sim *s, const tlc_stmt *st)
{
	const tlc_expr *c = st->u.eval.call;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	int64_t lanes = sim_eval_int(s, c->u.call.args[2], st->loc);
	if (dst->kind != TLC_EXPR_LOAD || src->kind != TLC_EXPR_LOAD || lanes < 1) {
		sim_fail(s, st->loc, "T.copy_vec takes two elements and a positive lane count");
		return;
	}
	sim_array *da, *sa;
	int64_t de = vector_at(s, dst, &da, lanes, st->loc);
	int64_t se = de < 0 ? -1 : vector_at(s, src, &sa, lanes, st->loc);
	if (se < 0)
		return;
	if (sa->shadow)
		sim_touch(s, sa, src->u.load.buf, se, lanes, false, st->loc);
	if (da->shadow)
		sim_touch(s, da, dst->u.load.buf, de, lanes, true, st->loc);
	for (int64_t l = 0; l < lanes && !s->stop; l++)
		sim_array_set(da, de + l, sim_convert(sim_array_get(sa, se + l), sa->dtype, da->dtype));
}

/* LET and STORE: every active thread evaluates its value (and indices)
 * before any writes, as the lanes of a warp do (a shuffle reads its
 * partner's registers as they were before the statement). */
static void assign(sim *s, const tlc_stmt *st, const mask *m)
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

/* ---- asynchronous copies ---- */

#define SIM_COPY_MAX_LANES 16

typedef struct sim_copy {
	int64_t thread, group; /* group -1: issued since the last commit */
	sim_array *dst;
	const tlc_buffer *buf;
	int64_t e, lanes;
	sim_val vals[SIM_COPY_MAX_LANES];
} sim_copy;

static void cp_async(sim *s, const tlc_stmt *st)
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
	int64_t de = vector_at(s, dst, &da, lanes, st->loc);
	if (de < 0)
		return;
	sim_copy cp = {s->tid, -1, da, dst->u.load.buf, de, lanes, {{0, 0}}};
	if (in_bounds) {
		/* the source is read now (zero-fill reads nothing) */
		int64_t se = vector_at(s, src, &sa, lanes, st->loc);
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

static void cp_async_commit(sim *s)
{
	for (int i = 0; i < s->ncopies; i++)
		if (s->copies[i].thread == s->tid && s->copies[i].group < 0)
			s->copies[i].group = s->commits[s->tid];
	s->commits[s->tid]++;
}

/* The thread's committed groups older than its newest n land here. */
static void cp_async_wait(sim *s, const tlc_stmt *st)
{
	int64_t n = sim_eval_int(s, st->u.eval.call->u.call.args[0], st->loc);
	int k = 0;
	for (int i = 0; i < s->ncopies; i++) {
		sim_copy *cp = &s->copies[i];
		if (cp->thread != s->tid || cp->group < 0 || cp->group >= s->commits[s->tid] - n) {
			s->copies[k++] = *cp;
			continue;
		}
		if (cp->dst->shadow && !s->stop) {
			int bytes = tlc_dtype_bits(cp->dst->dtype) / 8;
			for (int64_t b = cp->e * bytes; b < (cp->e + cp->lanes) * bytes; b++)
				cp->dst->shadow[b].in_flight = 0;
			sim_touch(s, cp->dst, cp->buf, cp->e, cp->lanes, true, st->loc);
		}
		for (int64_t l = 0; l < cp->lanes && !s->stop; l++)
			sim_array_set(cp->dst, cp->e + l, cp->vals[l]);
	}
	s->ncopies = k;
}

/* A statement every active thread runs for itself. */
static void per_thread_stmt(sim *s, const tlc_stmt *st, const mask *m)
{
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		tlc_op_id op = st->kind == TLC_STMT_EVAL ? st->u.eval.call->u.call.op : -1;
		if (op == TLC_OP_COPY_VEC)
			copy_vec(s, st);
		else if (op == TLC_OP_CP_ASYNC)
			cp_async(s, st);
		else if (op == TLC_OP_CP_ASYNC_COMMIT)
			cp_async_commit(s);
		else if (op == TLC_OP_CP_ASYNC_WAIT)
			cp_async_wait(s, st);
		else
			sim_exec(s, st); /* LET, STORE, element atomics */
	}
}

static void eval_stmt(sim *s, const tlc_stmt *st, const mask *m)
{
	const tlc_expr *c = st->u.eval.call;
	switch (c->u.call.op) {
	case TLC_OP_SYNC_THREADS: barrier(s, st, m); return;
	case TLC_OP_FENCE_PROXY_ASYNC:
	case TLC_OP_USE_SWIZZLE: /* the order blocks run in: all of them run, so no value changes */
	case TLC_OP_ANNOTATE_LAYOUT: return;
	case TLC_OP_COPY_VEC:
	case TLC_OP_CP_ASYNC:
	case TLC_OP_CP_ASYNC_COMMIT:
	case TLC_OP_CP_ASYNC_WAIT: per_thread_stmt(s, st, m); return;
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

static void if_threads(sim *s, const tlc_stmt *st, const mask *m)
{
	mask yes = mask_new(s), no = mask_new(s);
	for (int64_t t = 0; t < s->nthreads && !s->stop; t++) {
		if (!m->on[t])
			continue;
		s->tid = t;
		sim_val c = sim_eval(s, st->u.if_.cond, st->loc);
		bool take = tlc_dtype_is_float(st->u.if_.cond->dtype) ? c.f != 0.0 : c.i != 0;
		mask *to = take ? &yes : &no;
		to->on[t] = true;
		to->n++;
	}
	if (yes.n && !s->stop)
		exec_threads(s, st->u.if_.then_s, &yes);
	if (no.n && st->u.if_.else_s && !s->stop)
		exec_threads(s, st->u.if_.else_s, &no);
	free(yes.on);
	free(no.on);
}

static void for_threads(sim *s, const tlc_stmt *st, const mask *m)
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
	mask it = mask_new(s);
	for (int64_t i = 0; i < most && !s->stop; i++) {
		it.n = 0;
		for (int64_t t = 0; t < s->nthreads; t++) {
			it.on[t] = m->on[t] && i < n[t];
			if (!it.on[t])
				continue;
			it.n++;
			s->tid = t;
			sim_val v = {0, sim_wrap_int(st->u.loop.var->dtype, lo[t] + i)};
			sim_bind(s, st->u.loop.var, v);
		}
		exec_threads(s, st->u.loop.body, &it);
	}
	free(it.on);
	free(lo);
	free(n);
}

static void exec_threads(sim *s, const tlc_stmt *st, const mask *m)
{
	if (!st || s->stop)
		return;
	s->active = m->on;
	switch (st->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < st->u.seq.n && !s->stop; i++)
			exec_threads(s, st->u.seq.items[i], m);
		return;
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
	case TLC_STMT_ATTR: exec_threads(s, st->u.attr.body, m); return;
	case TLC_STMT_SCOPE:
		sim_fail(s, st->loc, "T.%s is not modelled by the thread-level simulator yet",
		         tlc_op_get(s->ctx, st->u.scope.call->u.call.op)->name);
		return;
	}
}

bool sim_run_block_threads(sim *s, const tlc_stmt *body)
{
	if (!s->arena && !make_arena(s)) {
		sim_fail(s, s->f->loc, "cannot allocate the block's shared memory");
		return false;
	}
	/* every block starts with no shared accesses remembered */
	memset(s->arena->data, 0, (size_t)s->arena->nbytes);
	for (int64_t i = 0; i < s->arena->nbytes; i++) {
		s->arena->shadow[i].writer = s->arena->shadow[i].reader = SIM_NOBODY;
		s->arena->shadow[i].in_flight = 0;
	}
	s->epoch++;
	/* copies a block left in flight do not reach the next one */
	s->ncopies = 0;
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
	mask all = mask_new(s);
	for (int64_t t = 0; t < s->nthreads; t++)
		all.on[t] = true;
	all.n = s->nthreads;
	exec_threads(s, body, &all);
	free(all.on);
	return !s->stop;
}
