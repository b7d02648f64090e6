/* sync_insert.c - the `sync-insert` pass: T.sync_threads() where shared
 * memory written by some threads is read or overwritten by others.
 *
 * Statements are walked in the order the target prints them, with the set
 * of shared buffers read and written since the last barrier.  Before each
 * statement of a block whose accesses (anywhere inside it) meet that set -
 * read after write, write after read, write after write - a barrier goes in
 * and the set empties; after it, its accesses join the set.  Compound
 * statements are then walked inside the same way, so a loop gets a barrier
 * before it when it conflicts as a whole, and barriers inside its body
 * where its own statements conflict.  At the end of a serial loop body a
 * barrier goes in when what the body left pending meets what the next
 * iteration does before its first barrier (the loop-carried hazard); a
 * T.vectorized loop is one access of its elements and carries nothing.
 * Accesses of one buffer meet only where tlc_elems_disjoint cannot prove
 * that no two threads name the same element (the sets keep each access's
 * indices beside their buffer bits: rows r and r ^ 1 of a double buffer,
 * iterations of a loop over blocks of a buffer, need nothing between them).
 * The branches of an `if` are alternatives: each is walked from what was
 * pending before the `if` (a thread takes one of them), and what either
 * leaves is pending after it.
 *
 * A barrier never goes where threads diverge: inside a lowered T.Parallel
 * nest (`with T.attr("parallel_nest", 1)`) or inside an `if` whose
 * condition depends on the thread index.  Inside T.ws it may: all threads
 * of the block's warpgroups run its body together, and the target makes
 * a barrier there one of those threads only (a named barrier).  A hazard there is an error
 * at that region, asking to split it.  T.ws scopes next to each other run
 * at the same time (tlc_ws_group_len): a block barrier between them could
 * not order them and would deadlock scopes that wait on each other's
 * mbarriers, so the group is checked as one statement against what came
 * before, and the mbarriers they wait on order scopes over different
 * warpgroups (tlc-sim checks that they do); scopes of a group over
 * different warpgroups that touch the same shared buffer while none of the
 * group waits on an mbarrier are an error.  Buffers that storage-plan placed on
 * overlapping bytes count as the same memory, so run this pass after it.
 * A barrier before a statement that reads shared memory through WGMMA
 * descriptors or a TMA store (the async proxy) comes after a
 * T.fence_proxy_async(): the writers' ordinary stores and cp.async bytes
 * become visible to that proxy.  Such a reader of a buffer written since
 * the last fence gets the fence and a barrier even where a barrier (the
 * user's) already orders the writes, since the fence must come before it.
 *
 * A write to a shared buffer that a T.wgmma_gemm issued before still reads
 * (no T.wait_wgmma in between) is an error: the tensor cores read it
 * asynchronously, and no barrier orders that.
 *
 * Asynchronous copies (T.cp_async) count as writes where they are issued
 * (a write after others' reads still needs its barrier first) and again at
 * every T.cp_async_wait that follows, where their bytes may land: a reader
 * after the wait gets a barrier after it.
 *
 * The cuda target checks the result and fails on a hazard without barrier. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/target.h>
#include <tlc/tileops.h>
#include <tlc/uniform.h>
#include <tlc/walk.h>

#include "sync_insert.h"

/* A search for a call of any of n ops anywhere inside a statement. */
typedef struct call_search {
	const tlc_op_id *ops;
	int n;
	bool found;
} call_search;

static tlc_walk_action find_call(void *p, const tlc_expr *x)
{
	call_search *c = p;
	for (int i = 0; x->kind == TLC_EXPR_CALL && i < c->n; i++)
		if (x->u.call.op == c->ops[i]) {
			c->found = true;
			return TLC_WALK_STOP;
		}
	return TLC_WALK_CONTINUE;
}

static bool calls_any(const tlc_stmt *s, const tlc_op_id *ops, int n)
{
	call_search c = {ops, n, false};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .expr_pre = find_call}, s);
	return c.found;
}

/* True when s reads shared memory through the async proxy (WGMMA
 * descriptors, TMA stores): what ordinary stores and cp.async wrote must be
 * made visible to that proxy with T.fence_proxy_async() before the
 * barrier. */
static bool reads_async_proxy(const tlc_stmt *s)
{
	static const tlc_op_id ops[] = {TLC_OP_WGMMA_ISSUE, TLC_OP_TMA_STORE};
	return calls_any(s, ops, 2);
}

/* True when s waits on an mbarrier (what orders T.ws scopes of a group). */
static bool waits_on_mbarrier(const tlc_stmt *s)
{
	static const tlc_op_id ops[] = {TLC_OP_BARRIER_WAIT, TLC_OP_MBARRIER_WAIT_PARITY};
	return calls_any(s, ops, 2);
}

static tlc_stmt *make_fence_proxy(si_state *si, tlc_loc loc)
{
	tlc_module *m = si->m;
	return tlc_eval_new(m, loc, tlc_call(m, TLC_OP_FENCE_PROXY_ASYNC, TLC_DT_VOID, 0, NULL, 0, NULL, NULL));
}

static tlc_stmt *make_barrier(si_state *si, tlc_loc loc)
{
	tlc_module *m = si->m;
	return tlc_eval_new(m, loc, tlc_call(m, TLC_OP_SYNC_THREADS, TLC_DT_VOID, 0, NULL, 0, NULL, NULL));
}

/* T.sync_threads(id[, count]) (a named barrier): true, after checking the
 * id and the count against the target; false for the block's barrier. */
static bool check_named_barrier(si_state *si, const tlc_stmt *s)
{
	const tlc_expr *c = s->kind == TLC_STMT_EVAL ? s->u.eval.call : NULL;
	if (!c || c->kind != TLC_EXPR_CALL || c->u.call.op != TLC_OP_SYNC_THREADS || c->u.call.nargs == 0)
		return false;
	tlc_context *ctx = tlc_module_context(si->m);
	const tlc_target_info *info = tlc_module_target_info(si->m);
	const char *target = tlc_module_target_name(si->m);
	int nbar = tlc_target_named_barriers(info);
	int64_t id, count = -1;
	if (!info)
		return true;
	if (nbar <= 0) {
		tlc_error(ctx, s->loc,
		          "T.sync_threads(barrier_id, arrive_count) is a named barrier, and target %s has none: "
		          "write T.sync_threads() (the whole block's barrier)",
		          target ? target : "?");
		si->errors++;
		return true;
	}
	if (!tlc_expr_as_int(c->u.call.args[0], &id) ||
	    (c->u.call.nargs > 1 && !tlc_expr_as_int(c->u.call.args[1], &count))) {
		tlc_error(ctx, s->loc, "T.sync_threads: the barrier id and the arrive count must be "
		                       "compile-time integers");
		si->errors++;
		return true;
	}
	if (id < 0 || id >= nbar) {
		tlc_error(ctx, s->loc, "T.sync_threads: barrier id %lld is out of range: target %s has named "
		          "barriers 0 to %d", (long long)id, target, nbar - 1);
		si->errors++;
	}
	if (c->u.call.nargs > 1 && (count <= 0 || count % info->lanes != 0 || count > info->max_threads)) {
		tlc_error(ctx, s->loc, "T.sync_threads: arrive count %lld must be a positive multiple of the %d "
		          "threads of a warp of target %s, at most %d", (long long)count, info->lanes, target,
		          info->max_threads);
		si->errors++;
	}
	return true;
}

/* The shared buffers an expression reads. */
typedef struct shared_reads {
	const tlc_buffer *b[8];
	int n;
	bool overflow;
} shared_reads;

static void add_shared_read(void *p, const tlc_buffer *b, unsigned mode)
{
	shared_reads *r = p;
	if (!(mode & TLC_ACCESS_READ) || !tlc_buffer_in_shared(b))
		return;
	if (r->n < (int)(sizeof r->b / sizeof r->b[0]))
		r->b[r->n++] = b;
	else
		r->overflow = true;
}

/* True when every thread of the block gets the same value of x, which
 * decides whether the threads that reach `body` (the statements x guards:
 * an if's branches, a loop's body) are all of them or only some.  Shared
 * loads count as uniform only on the premise that barriers order them after
 * every write by other threads (tlc/uniform.h), which the barriers placed
 * before body do, but not a write inside body itself: a thread that runs it
 * could overwrite the value before a slower one has read it. */
static bool uniform_guard(const si_state *si, const tlc_expr *x, const tlc_stmt *body)
{
	if (!tlc_expr_block_uniform(si->uniform, x))
		return false;
	shared_reads r = {0};
	tlc_expr_accesses(x, TLC_ACCESS_READ, add_shared_read, &r);
	if (r.overflow)
		return false;
	for (int i = 0; i < r.n; i++)
		if (body && (tlc_stmt_use_of(body, r.b[i]) & TLC_ACCESS_WRITE))
			return false;
	return true;
}

/* A hazard at `at` (a statement inside `region`) where no barrier may go. */
static void report(si_state *si, si_where where, const tlc_stmt *region, const tlc_stmt *at, const tlc_buffer *b)
{
	if (si->reported == region)
		return; /* one error per region */
	si->reported = region;
	si->errors++;
	tlc_loc loc = region && region->loc.line ? region->loc : at->loc;
	switch (where) {
	case SI_NEST:
		tlc_error(tlc_module_context(si->m), loc,
		          "this T.Parallel loop reads back shared memory it wrote (or overwrites what it read): '%s' is "
		          "used by other threads inside the loop; split it into two loops so that a barrier can go "
		          "between them",
		          b->name);
		return;
	case SI_THREAD_IF:
	case SI_ANYWHERE:
		tlc_error(tlc_module_context(si->m), loc,
		          "shared buffer '%s' needs a barrier inside this %s, whose %s depends on the thread: move the "
		          "conflicting accesses out of it",
		          b->name, region && region->kind == TLC_STMT_FOR ? "loop" : "'if'",
		          region && region->kind == TLC_STMT_FOR ? "trip count" : "condition");
		return;
	}
}

typedef struct si_region {
	si_where where;
	const tlc_stmt *stmt; /* the nest, T.ws or if that sets `where` */
	/* in a nest: the shared buffers each thread reads back only where it
	 * wrote (lower-tile-ops lists them: `T.attr("parallel_nest", [X])`) */
	si_set priv;
	/* in an `if` (or loop) of some threads: what was pending when they
	 * entered it.  A named barrier there (T.sync_threads(id, count)) meets
	 * only those threads: it orders their accesses inside, not what the
	 * other threads did before (the caller checked the region as a whole
	 * against it), which stays pending after it */
	si_access entry;
} si_region;

static void visit_body(si_state *si, tlc_stmt **slot, si_region rg);
static void visit_loop_end(si_state *si, tlc_stmt *s, si_region inner, bool has_continue);

/* Ops that all threads of the block (or of a warp) must reach together. */
static bool collective_op(tlc_op_id op)
{
	switch (op) {
	case TLC_OP_SYNC_THREADS:
	case TLC_OP_SYNC_WARP:
	case TLC_OP_CLUSTER_SYNC:
	case TLC_OP_SYNC_GRID:
	case TLC_OP_SHFL_XOR:
	case TLC_OP_SHFL_DOWN:
	case TLC_OP_SHFL_UP:
	case TLC_OP_MMA_GEMM:
	case TLC_OP_MMA_SYNC:
	case TLC_OP_WGMMA_ISSUE:
	case TLC_OP_STMATRIX: return true;
	default: return false;
	}
}

static tlc_walk_action find_collective_expr(void *p, const tlc_expr *x)
{
	bool *found = p;
	if (x->kind == TLC_EXPR_CALL && collective_op(x->u.call.op)) {
		*found = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action find_collective_stmt(void *p, const tlc_stmt *s)
{
	bool *found = p;
	/* a tile op not lowered yet may need every thread too */
	if (s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL &&
	    s->u.eval.call->u.call.op < TLC_OP_BUILTIN_COUNT) {
		const tlc_op_id op = s->u.eval.call->u.call.op;
		if (op == TLC_OP_COPY || op == TLC_OP_FILL || op == TLC_OP_CLEAR || op == TLC_OP_GEMM ||
		    op == TLC_OP_REDUCE_MAX || op == TLC_OP_REDUCE_MIN || op == TLC_OP_REDUCE_SUM ||
		    op == TLC_OP_REDUCE_ABSSUM || op == TLC_OP_REDUCE_ABSMAX || op == TLC_OP_CUMSUM)
			*found = true;
	}
	return *found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

static bool holds_collective(const si_state *si, const tlc_stmt *body)
{
	(void)si;
	bool found = false;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &found, .stmt_pre = find_collective_stmt,
	                             .expr_pre = find_collective_expr}, body);
	return found;
}

/* The body of a T.Parallel nest.  The caller checked the nest as a whole
 * against what was pending (and put a barrier before it where they meet),
 * so inside only the nest's own accesses can meet: those with no element
 * proof (si->coarse), its threads running their loops at their own pace. */
static void visit_nest(si_state *si, tlc_stmt **slot, si_region inner)
{
	si_access outer = si->pending;
	si->pending = (si_access){0};
	visit_body(si, slot, inner);
	si->pending = outer;
}

static void visit_loop(si_state *si, tlc_stmt *s, si_region rg)
{
	si_region inner = rg;
	if (s->u.loop.kind == TLC_FOR_PARALLEL || s->u.loop.kind == TLC_FOR_THREAD) {
		/* not lowered: every iteration is another thread */
		if (rg.where != SI_ANYWHERE) {
			visit_body(si, &s->u.loop.body, inner);
			return;
		}
		inner = (si_region){SI_NEST, s, {{0}}, {{{0}}, {{0}}, NULL}};
		visit_nest(si, &s->u.loop.body, inner);
		return;
	}
	if (rg.where == SI_ANYWHERE &&
	    (!uniform_guard(si, s->u.loop.min, s->u.loop.body) || !uniform_guard(si, s->u.loop.extent, s->u.loop.body)))
		inner = (si_region){SI_THREAD_IF, s, {{0}}, si->pending}; /* threads run different trip counts */
	/* this loop's breaks and continues (those of loops inside are theirs) */
	si_access outer_break = si->at_break, outer_continue = si->at_continue;
	bool outer_has_continue = si->has_continue, outer_diverges = si->exit_diverges;
	si->at_break = si->at_continue = (si_access){0};
	si->has_continue = si->exit_diverges = false;
	visit_body(si, &s->u.loop.body, inner);
	si_access at_break = si->at_break;
	bool has_continue = si->has_continue;
	if (si->exit_diverges && inner.where == SI_ANYWHERE && holds_collective(si, s->u.loop.body)) {
		/* the threads still in the loop would wait at its barrier (or
		 * warp-wide op) for those that left it */
		tlc_error(tlc_module_context(si->m), s->loc,
		          "this loop holds a barrier (T.sync_threads, or one a tile op needs) or a warp-wide "
		          "operation, and a break or continue in it is taken by only some threads of the block "
		          "(its condition depends on the thread): the others would wait for them forever; make "
		          "the condition the same in every thread (a value of shared memory read after a "
		          "barrier, say) or move the barrier out of the loop");
		si->errors++;
	}
	si_access_union(si, &si->pending, &si->at_continue);
	si->at_break = outer_break;
	si->at_continue = outer_continue;
	si->has_continue = outer_has_continue;
	si->exit_diverges = outer_diverges;
	visit_loop_end(si, s, inner, has_continue);
	si_access_union(si, &si->pending, &at_break);
}

/* The barrier a serial loop s needs between an iteration and the next,
 * if any.  It goes at the end of the body, or at its start when the body
 * has a continue (which would skip one at the end). */
static void visit_loop_end(si_state *si, tlc_stmt *s, si_region inner, bool has_continue)
{
	if (inner.where == SI_NEST)
		return; /* one thread's iterations of a nest: nothing carried between threads */
	if (s->u.loop.kind == TLC_FOR_VECTORIZED)
		return; /* one access of several elements: no iteration follows another */
	si_access head = {0};
	si_body_head(si, s->u.loop.body, &head);
	si->coarse = false;
	const tlc_buffer *b = si_hazard(si, &si->pending, &head, s);
	if (!b)
		return;
	if (inner.where != SI_ANYWHERE) {
		report(si, inner.where, inner.stmt, s, b);
		return;
	}
	tlc_stmt *body = s->u.loop.body;
	if (!body || body->kind != TLC_STMT_SEQ) {
		tlc_stmt *seq = tlc_seq_new(si->m, body ? body->loc : s->loc);
		if (body)
			tlc_seq_append(si->m, seq, body);
		s->u.loop.body = body = seq;
	}
	bool fence = reads_async_proxy(body);
	if (has_continue) {
		tlc_stmt *seq = tlc_seq_new(si->m, body->loc);
		if (fence)
			tlc_seq_append(si->m, seq, make_fence_proxy(si, s->loc));
		tlc_seq_append(si->m, seq, make_barrier(si, s->loc));
		for (int i = 0; i < body->u.seq.n; i++)
			tlc_seq_append(si->m, seq, body->u.seq.items[i]);
		s->u.loop.body = seq;
		return; /* what the body does after its barrier stays pending after the loop */
	}
	if (fence)
		tlc_seq_append(si->m, body, make_fence_proxy(si, s->loc));
	tlc_seq_append(si->m, body, make_barrier(si, s->loc));
	si->pending = (si_access){0};
}

/* Walk inside s (its own check against pending is done by the caller). */
static void visit_inner(si_state *si, tlc_stmt *s, si_region rg)
{
	switch (s->kind) {
	case TLC_STMT_SEQ: visit_body(si, &s, rg); return;
	case TLC_STMT_FOR: visit_loop(si, s, rg); return;
	case TLC_STMT_IF: {
		si_region inner = rg;
		if (rg.where == SI_ANYWHERE && (!uniform_guard(si, s->u.if_.cond, s->u.if_.then_s) ||
		                                !uniform_guard(si, s->u.if_.cond, s->u.if_.else_s)))
			inner = (si_region){SI_THREAD_IF, s, {{0}}, si->pending};
		si_access before = si->pending;
		si_set unfenced = si->unfenced, in_flight = si->in_flight;
		si_set wgmma_reads = si->wgmma_reads;
		visit_body(si, &s->u.if_.then_s, inner);
		if (!s->u.if_.else_s) {
			/* the branch may not be taken */
			si_set_union(&si->unfenced, &unfenced);
			si_set_union(&si->in_flight, &in_flight);
			si_set_union(&si->wgmma_reads, &wgmma_reads);
			return;
		}
		/* each thread takes one branch: neither follows the other.  With a
		 * uniform condition all take the same one; with one that depends
		 * on the thread, those that take the other run at the same time,
		 * and no barrier could order the two (the target checks the same) */
		si_access after_then = si->pending;
		si->pending = before;
		/* what is unfenced, in flight or read by WGMMA: what either
		 * path left so, from the else branch's start on */
		si_set_union(&si->unfenced, &unfenced);
		si_set_union(&si->in_flight, &in_flight);
		si_set_union(&si->wgmma_reads, &wgmma_reads);
		si_set then_unfenced = si->unfenced, then_flight = si->in_flight;
		si_set then_wgmma = si->wgmma_reads;
		visit_body(si, &s->u.if_.else_s, inner);
		si_access_union(si, &si->pending, &after_then);
		si_set_union(&si->unfenced, &then_unfenced);
		si_set_union(&si->in_flight, &then_flight);
		si_set_union(&si->wgmma_reads, &then_wgmma);
		return;
	}
	case TLC_STMT_ATTR: {
		si_region inner = rg;
		/* lower-tile-ops' promise: each thread touches only elements no other
		 * thread touches in there (T.cumsum's lines), so nothing inside needs
		 * ordering; its accesses count as one statement's */
		if (s->u.attr.key && strcmp(s->u.attr.key, "thread_private") == 0)
			return;
		if (rg.where == SI_ANYWHERE && s->u.attr.key && strcmp(s->u.attr.key, "parallel_nest") == 0) {
			inner = (si_region){SI_NEST, s, {{0}}, {{{0}}, {{0}}, NULL}};
			const tlc_expr *v = s->u.attr.value;
			for (int i = 0; v && v->kind == TLC_EXPR_TUPLE && i < v->u.tuple.n; i++)
				if (v->u.tuple.items[i]->kind == TLC_EXPR_BUF)
					si_set_add(si, &inner.priv, v->u.tuple.items[i]->u.buf);
			visit_nest(si, &s->u.attr.body, inner);
			return;
		}
		visit_body(si, &s->u.attr.body, inner);
		return;
	}
	case TLC_STMT_SCOPE: {
		/* T.ws: all threads of its warpgroups run the body together, and a
		 * barrier there is theirs alone (the target prints a named barrier
		 * of those threads).  So it orders nothing that other threads did
		 * before: that stays pending after the block (the caller checked the
		 * block as a whole against it, and adds the block's accesses). */
		si_access outer = si->pending;
		si->pending = (si_access){0};
		visit_body(si, &s->u.scope.body, rg);
		si->pending = outer;
		return;
	}
	default: return;
	}
}

typedef struct store_ctx {
	si_state *si;
	si_set *set;
} store_ctx;

static tlc_walk_action add_store(void *p, const tlc_stmt *s)
{
	store_ctx *c = p;
	if (tlc_stmt_completes_on_mbarrier(s))
		return TLC_WALK_SKIP; /* the reader fences after its wait */
	if (s->kind == TLC_STMT_STORE)
		si_set_add(c->si, c->set, s->u.store.buf);
	if (tlc_stmt_is_call(s, TLC_OP_COPY_VEC)) {
		const tlc_expr *d = s->u.eval.call->u.call.args[0];
		if (d->kind == TLC_EXPR_LOAD)
			si_set_add(c->si, c->set, d->u.load.buf);
	}
	return TLC_WALK_CONTINUE;
}

/* Add the shared buffers s writes with ordinary stores (not TMA, not
 * cp.async: their bytes come through other paths) to *set. */
static void group_stores(si_state *si, const tlc_stmt *s, si_set *set)
{
	store_ctx c = {si, set};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = add_store}, s);
}

/* A group of n >= 2 T.ws scopes (tlc_ws_group_len), appended to out: one
 * barrier before the group when it meets what is pending, none between its
 * scopes.  Scopes over the same warpgroups run one after the other on the
 * same threads: inside the later one, what the earlier ones did is pending,
 * and a barrier there (theirs alone) orders it. */
static void visit_ws_group(si_state *si, tlc_stmt **items, int n, si_region rg, tlc_stmt *out, bool *inserted)
{
	si_access all = {0};
	bool async_reader = false, ordered = false;
	for (int k = 0; k < n; k++) {
		si_stmt_access(si, items[k], &all);
		async_reader = async_reader || reads_async_proxy(items[k]);
		ordered = ordered || waits_on_mbarrier(items[k]);
	}
	si->coarse = rg.where == SI_NEST;
	const tlc_buffer *b = si_hazard(si, &si->pending, &all, NULL);
	if (!b && async_reader)
		b = si_common(si, &all.r, &si->unfenced);
	if (b && rg.where == SI_ANYWHERE) {
		if (async_reader) {
			tlc_seq_append(si->m, out, make_fence_proxy(si, items[0]->loc));
			si->unfenced = (si_set){{0}};
		}
		tlc_seq_append(si->m, out, make_barrier(si, items[0]->loc));
		*inserted = true;
		si->pending = (si_access){0};
	} else if (b) {
		report(si, rg.where, rg.stmt, items[0], b);
		si->pending = (si_access){0};
	}
	bool reported = false;
	for (int k = 1; k < n && !ordered && !reported; k++)
		for (int e = 0; e < k && !reported; e++) {
			if (tlc_ws_same_warpgroups(items[e], items[k]))
				continue;
			si_access earlier = {0}, later = {0};
			si_stmt_access(si, items[e], &earlier);
			si_stmt_access(si, items[k], &later);
			si->coarse = rg.where == SI_NEST;
			const tlc_buffer *shared = si_hazard(si, &earlier, &later, NULL);
			if (!shared)
				continue;
			tlc_error(tlc_module_context(si->m), items[k]->loc,
			          "shared buffer '%s' is used by this T.ws scope and by the one at %u:%u, which runs at the "
			          "same time on other warpgroups, and no scope of the two waits on an mbarrier: order them "
			          "with T.barrier_arrive / T.barrier_wait, or put T.sync_threads() between the scopes to run "
			          "one after the other",
			          shared->name, items[e]->loc.line, items[e]->loc.col);
			si->errors++;
			reported = true;
		}
	si_access outer = si->pending;
	si_set outer_async = si->group_async, outer_stores = si->group_stores;
	for (int k = 0; k < n; k++) {
		si_wgmma_reads(si, items[k], &si->group_async);
		group_stores(si, items[k], &si->group_stores);
	}
	for (int k = 0; k < n; k++) {
		si->pending = (si_access){0};
		for (int e = 0; e < k; e++)
			if (tlc_ws_same_warpgroups(items[e], items[k]))
				si_stmt_access(si, items[e], &si->pending);
		visit_body(si, &items[k]->u.scope.body, rg);
		si_async_writes(si, items[k], &si->in_flight);
		tlc_seq_append(si->m, out, items[k]);
	}
	si->pending = outer;
	si->group_async = outer_async;
	si->group_stores = outer_stores;
	si_access_union(si, &si->pending, &all);
}

/* True when s is an arrive on an mbarrier that other scopes wait on: a
 * plain arrive, or T.cp_async_arrive(_noinc), which arrives once this
 * thread's copies have landed (its ordinary stores went before it). */
static bool publishes(const tlc_stmt *s)
{
	return tlc_stmt_is_call(s, TLC_OP_BARRIER_ARRIVE) || tlc_stmt_is_call(s, TLC_OP_MBARRIER_ARRIVE) ||
	       tlc_stmt_is_call(s, TLC_OP_CP_ASYNC_ARRIVE) || tlc_stmt_is_call(s, TLC_OP_CP_ASYNC_ARRIVE_NOINC);
}

/* True when this thread's ordinary stores since the last fence include a
 * buffer that a WGMMA of the T.ws group reads. */
static bool published_to_async(const si_state *si)
{
	si_set stored = si->unfenced;
	for (int w = 0; w < SI_WORDS; w++)
		stored.w[w] &= si->group_stores.w[w];
	return si_common(si, &stored, &si->group_async) != NULL;
}

/* Walk a block (or a single statement standing for one), inserting
 * barriers; *slot becomes a block when a barrier goes before a lone
 * statement. */
static void visit_body(si_state *si, tlc_stmt **slot, si_region rg)
{
	tlc_stmt *s = *slot;
	if (!s)
		return;
	bool seq = s->kind == TLC_STMT_SEQ;
	int n = seq ? s->u.seq.n : 1;
	tlc_stmt **items = seq ? s->u.seq.items : slot;
	tlc_stmt *out = tlc_seq_new(si->m, s->loc);
	bool inserted = false;
	for (int i = 0; i < n; i++) {
		tlc_stmt *item = items[i];
		int group = tlc_ws_group_len(items, n, i);
		if (group >= 2) {
			visit_ws_group(si, &items[i], group, rg, out, &inserted);
			i += group - 1;
			continue;
		}
		if (publishes(item) && published_to_async(si)) {
			/* a scope of a T.ws group hands shared memory it wrote to a
			 * WGMMA of another scope: its own stores reach the async proxy
			 * through a fence before the arrive that publishes them */
			tlc_seq_append(si->m, out, make_fence_proxy(si, item->loc));
			si->unfenced = (si_set){{0}};
			inserted = true;
		}
		if (si_is_barrier(item)) {
			bool partial = check_named_barrier(si, item);
			si->pending = partial && rg.where == SI_THREAD_IF ? rg.entry : (si_access){0};
			tlc_seq_append(si->m, out, item);
			continue;
		}
		if (tlc_stmt_is_call(item, TLC_OP_LOOP_BREAK) || tlc_stmt_is_call(item, TLC_OP_LOOP_CONTINUE)) {
			/* what is pending here reaches the code after the loop (the
			 * next iteration) by a path that skips the rest of the body */
			bool brk = tlc_stmt_is_call(item, TLC_OP_LOOP_BREAK);
			si_access *to = brk ? &si->at_break : &si->at_continue;
			si_access_union(si, to, &si->pending);
			si->has_continue = si->has_continue || !brk;
			si->exit_diverges = si->exit_diverges || rg.where != SI_ANYWHERE;
			tlc_seq_append(si->m, out, item);
			continue;
		}
		if (tlc_stmt_is_call(item, TLC_OP_FENCE_PROXY_ASYNC)) {
			si->unfenced = (si_set){{0}};
			tlc_seq_append(si->m, out, item);
			continue;
		}
		if (tlc_stmt_is_call(item, TLC_OP_WAIT_WGMMA)) {
			/* the groups it waits for no longer read their operands (a
			 * wait(n > 0) counts too: which groups remain is not tracked) */
			si->wgmma_reads = (si_set){{0}};
			tlc_seq_append(si->m, out, item);
			continue;
		}
		int64_t wait = tlc_stmt_async_wait_count(item);
		if (wait >= 0) {
			/* the copies in flight land here: their readers need a barrier
			 * after this wait, not after the copies were issued */
			si_access_add_writes(si, &si->pending, &si->in_flight);
			if (wait == 0)
				si->in_flight = (si_set){{0}};
			tlc_seq_append(si->m, out, item);
			continue;
		}
		si_access acc = {0};
		si_stmt_access(si, item, &acc);
		for (int w = 0; rg.where == SI_NEST && w < SI_WORDS; w++) {
			/* each thread's own elements: nothing to order between threads */
			acc.r.w[w] &= ~rg.priv.w[w];
			acc.w.w[w] &= ~rg.priv.w[w];
		}
		const tlc_buffer *busy = si_common(si, &acc.w, &si->wgmma_reads);
		if (busy) {
			/* a barrier cannot help: the tensor cores read it asynchronously */
			tlc_error(tlc_module_context(si->m), item->loc,
			          "shared buffer '%s' is written while a T.wgmma_gemm issued before still reads it: put "
			          "T.wait_wgmma(n) between the gemm and this write",
			          busy->name);
			si->errors++;
			si->wgmma_reads = (si_set){{0}};
		}
		si->coarse = rg.where == SI_NEST;
		const tlc_buffer *b = si_hazard(si, &si->pending, &acc, NULL);
		bool async_reader = reads_async_proxy(item);
		if (!b && async_reader)
			b = si_common(si, &acc.r, &si->unfenced);
		if (b && rg.where == SI_ANYWHERE) {
			if (async_reader) {
				tlc_seq_append(si->m, out, make_fence_proxy(si, item->loc));
				si->unfenced = (si_set){{0}};
			}
			tlc_seq_append(si->m, out, make_barrier(si, item->loc));
			inserted = true;
			si->pending = (si_access){0};
		} else if (b) {
			report(si, rg.where, rg.stmt, item, b);
			si->pending = (si_access){0}; /* one error, not a cascade */
		}
		/* an issue statement itself; compound statements are walked item
		 * by item inside, where their waits end what they issued */
		if (item->kind == TLC_STMT_EVAL)
			si_wgmma_reads(si, item, &si->wgmma_reads);
		visit_inner(si, item, rg);
		si_access_union(si, &si->pending, &acc);
		si_set_union(&si->unfenced, &acc.w);
		si_async_writes(si, item, &si->in_flight);
		tlc_seq_append(si->m, out, item);
	}
	if (!inserted)
		return;
	if (seq) {
		s->u.seq.n = out->u.seq.n;
		s->u.seq.cap = out->u.seq.cap;
		s->u.seq.items = out->u.seq.items;
	} else {
		*slot = out;
	}
}

static int run_sync_insert(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	si_state *si = tlc_mem_alloc(sizeof(*si));
	si->m = m;
	si->f = f;
	si->uniform = tlc_uniformity_new(m, f);
	si->dis = tlc_disjoint_new(f, si->uniform);
	visit_body(si, &f->body, (si_region){SI_ANYWHERE, NULL, {{0}}, {{{0}}, {{0}}, NULL}});
	int errors = si->errors + si->too_many;
	si_elems_free(si);
	tlc_disjoint_free(si->dis);
	tlc_uniformity_free(si->uniform);
	tlc_mem_free(si);
	return errors;
}

static const tlc_pass_option no_options[] = {{NULL, TLC_OPT_BOOL, NULL}};

static const tlc_pass_desc sync_insert_pass = {
	.name = "sync-insert",
	.summary = "insert T.sync_threads() between shared-memory writes and reads by other threads",
	.run = run_sync_insert,
	.flags = TLC_PASS_PLACES_BARRIERS,
	.options = no_options,
};

static int sync_insert_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &sync_insert_pass);
}

static const tlc_plugin_desc sync_insert_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "sync_insert",
	.version = PACKAGE_VERSION,
	.description = "the sync-insert pass: barriers for shared memory",
	.init = sync_insert_init,
};

TLC_DEFINE_PLUGIN(sync_insert_plugin)
