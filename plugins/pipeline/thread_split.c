/* thread_split.c - the `thread-split` pass: an `if` on the thread index
 * that splits the block at warpgroup boundaries becomes T.ws scopes of
 * those warpgroups.
 *
 * TileLang programs specialize warps by hand:
 *
 *     tx = T.get_thread_binding()
 *     if tx < 128:            # consumer: T.gemm, T.reduce_max, T.Parallel
 *         ...
 *     elif tx >= 256:         # producer: T.copy into shared memory
 *         ...
 *
 * and TileLang plans every tile op inside a branch for the threads the
 * condition leaves (its analyzer bounds the thread variable there), binds
 * the fragments used there to those threads, and leaves the ordering
 * between branches to the program's own mbarriers.  tlc's form of "these
 * statements run on threads [lo, hi)" is the T.ws scope: layout-inference,
 * lower-tile-ops, storage-plan, sync-insert, tlc-sim and the targets all
 * read it.  So the split is made here, before any of them plans an op:
 * each branch of the chain becomes `with T.ws(...)` of the warpgroups it
 * runs on, side by side in the enclosing block (a T.ws group: they run at
 * the same time, and a barrier a branch needs among its own threads is a
 * named barrier of its warpgroups, never the block's).  Before
 * warp-specialize, which leaves a kernel that already has T.ws alone.
 *
 * A condition is a range of the thread index when it compares the thread
 * variable of a one-dimensional block with constants (<, <=, >, >=, either
 * side, joined with `and`, as `128 <= tx < 256` is); an elif chain splits
 * the rest of the range again.  Any other condition keeps its meaning (an
 * `if` whose branches some threads take).  A range that does not fall on
 * warpgroup boundaries (or a target without warpgroups) cannot be a T.ws
 * scope: such an `if` stays, and a tile op inside it is an error, since it
 * would be planned for every thread of the block and run by some. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tlc/target.h>
#include <tlc/tileops.h>

#include "pipeline.h"

#define TS_MAX_PARTS 16

typedef struct ts_part {
	int64_t lo, hi; /* the threads [lo, hi) that run body */
	tlc_stmt *body;
	tlc_loc loc;
} ts_part;

typedef struct ts_state {
	tlc_module *m;
	tlc_context *ctx;
	const tlc_target_info *info;
	const char *target;
	const tlc_var *tx;
	int64_t threads;
	int depth; /* inside a T.ws scope (the user's or made here) or a T.Parallel nest */
	tlc_stmt **made; /* the blocks of scopes made here, spliced into their parent block */
	int nmade, cap_made;
	int errors;
} ts_state;

/* The threads [*lo, *hi) of the block for which c holds, when c is a range
 * of the thread index; false otherwise. */
static bool cond_range(const ts_state *t, const tlc_expr *c, int64_t *lo, int64_t *hi)
{
	if (c->kind == TLC_EXPR_AND) {
		int64_t a, b, x, y;
		if (!cond_range(t, c->u.op.a, &a, &b) || !cond_range(t, c->u.op.b, &x, &y))
			return false;
		*lo = a > x ? a : x;
		*hi = b < y ? b : y;
		return true;
	}
	tlc_expr_kind k = c->kind;
	if (k != TLC_EXPR_LT && k != TLC_EXPR_LE && k != TLC_EXPR_GT && k != TLC_EXPR_GE)
		return false;
	const tlc_expr *a = c->u.op.a, *b = c->u.op.b;
	if (b->kind == TLC_EXPR_VAR && b->u.var == t->tx) { /* C < tx is tx > C */
		const tlc_expr *x = a;
		a = b;
		b = x;
		k = k == TLC_EXPR_LT ? TLC_EXPR_GT
		    : k == TLC_EXPR_LE ? TLC_EXPR_GE
		    : k == TLC_EXPR_GT ? TLC_EXPR_LT
		                       : TLC_EXPR_LE;
	}
	int64_t v;
	if (a->kind != TLC_EXPR_VAR || a->u.var != t->tx || !tlc_expr_as_int(b, &v))
		return false;
	if (v < -t->threads || v > 2 * t->threads)
		v = v < 0 ? -t->threads : 2 * t->threads; /* clamped below anyway; no overflow */
	*lo = 0;
	*hi = t->threads;
	switch (k) {
	case TLC_EXPR_LT: *hi = v; break;
	case TLC_EXPR_LE: *hi = v + 1; break;
	case TLC_EXPR_GT: *lo = v + 1; break;
	default: *lo = v; break;
	}
	return true;
}

/* The parts of the if chain s over threads [clo, chi): how many went to
 * parts (from *n), or false when s is no split of that range (a condition
 * that is no range of the thread index, holds for all of it or for none,
 * or leaves an else branch two pieces). */
static bool chain(const ts_state *t, tlc_stmt *s, int64_t clo, int64_t chi, ts_part *parts, int *n)
{
	int64_t lo, hi;
	if (s->kind != TLC_STMT_IF || !cond_range(t, s->u.if_.cond, &lo, &hi))
		return false;
	lo = lo > clo ? lo : clo;
	hi = hi < chi ? hi : chi;
	if (lo >= hi || (lo == clo && hi == chi) || *n + 2 > TS_MAX_PARTS)
		return false;
	int start = *n;
	parts[(*n)++] = (ts_part){lo, hi, s->u.if_.then_s, s->loc};
	tlc_stmt *e = s->u.if_.else_s;
	if (!e)
		return true;
	if (lo != clo && hi != chi) {
		*n = start;
		return false;
	}
	int64_t elo = lo == clo ? hi : clo, ehi = lo == clo ? chi : lo;
	tlc_stmt *inner = e->kind == TLC_STMT_SEQ && e->u.seq.n == 1 ? e->u.seq.items[0] : e;
	if (chain(t, inner, elo, ehi, parts, n)) /* elif */
		return true;
	int64_t ilo, ihi;
	if (inner->kind == TLC_STMT_IF && !inner->u.if_.else_s && cond_range(t, inner->u.if_.cond, &ilo, &ihi) &&
	    ilo <= elo && ihi >= ehi) {
		/* `elif tx >= 256:` ending the chain: the rest of the threads */
		parts[(*n)++] = (ts_part){elo, ehi, inner->u.if_.then_s, inner->loc};
		return true;
	}
	parts[(*n)++] = (ts_part){elo, ehi, e, e->loc};
	return true;
}

/* The first tile op inside s (a T.Parallel nest counts): what would be
 * planned for the threads of the block. */
typedef struct tile_find {
	const tlc_stmt *found;
} tile_find;

static tlc_walk_action find_tile(void *p, const tlc_stmt *s)
{
	tile_find *f = p;
	bool tile = false;
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL)
		tile = true;
	if (s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL) {
		const tlc_expr *c = s->u.eval.call;
		tile = c->u.call.op == TLC_OP_GEMM || c->u.call.op == TLC_OP_WGMMA_GEMM || c->u.call.op == TLC_OP_COPY ||
		       c->u.call.op == TLC_OP_TMA_COPY || c->u.call.op == TLC_OP_FILL || c->u.call.op == TLC_OP_CLEAR ||
		       c->u.call.op == TLC_OP_REDUCE_MAX || c->u.call.op == TLC_OP_REDUCE_MIN ||
		       c->u.call.op == TLC_OP_REDUCE_SUM || c->u.call.op == TLC_OP_REDUCE_ABSSUM ||
		       c->u.call.op == TLC_OP_REDUCE_ABSMAX || c->u.call.op == TLC_OP_CUMSUM ||
		       (c->u.call.op == TLC_OP_ATOMIC_ADD && c->u.call.nargs > 0 &&
		        c->u.call.args[0]->kind != TLC_EXPR_LOAD);
	}
	if (!tile)
		return TLC_WALK_CONTINUE;
	f->found = s;
	return TLC_WALK_STOP;
}

static const tlc_stmt *first_tile_op(const tlc_stmt *s)
{
	tile_find f = {NULL};
	if (s)
		tlc_walk_stmt(&(tlc_visitor){.ctx = &f, .stmt_pre = find_tile}, s);
	return f.found;
}

static const char *tile_op_name(ts_state *t, const tlc_stmt *op)
{
	if (op->kind == TLC_STMT_FOR)
		return "Parallel";
	const tlc_op_info *info = tlc_op_get(t->ctx, op->u.eval.call->u.call.op);
	return info ? info->name : "?";
}

/* An if on the thread index that stays an if: refused when a branch holds
 * a tile op, which could not be planned for the threads that run it. */
static void check_kept(ts_state *t, const tlc_stmt *s, const ts_part *parts, int n, const char *why)
{
	const char *hint = t->info && t->info->warpgroup > 0 && !t->depth
	                           ? "split the block at multiples of the warpgroup (tx < 128, 128 <= tx < 256, ...), "
	                             "or move the tile op out of the 'if'"
	                           : "move the tile op out of the 'if'";
	for (int i = 0; i < n; i++) {
		const tlc_stmt *op = first_tile_op(parts[i].body);
		if (!op)
			continue;
		tlc_error(t->ctx, s->loc,
		          "T.%s at %u:%u runs on threads [%lld, %lld) of this 'if' on the thread index, %s: its work "
		          "cannot be planned for those threads; %s",
		          tile_op_name(t, op), op->loc.line, op->loc.col, (long long)parts[i].lo, (long long)parts[i].hi,
		          why, hint);
		t->errors++;
		return;
	}
}

static tlc_stmt *ws_scope(ts_state *t, const ts_part *p)
{
	const tlc_expr *g[TS_MAX_PARTS];
	int wg = t->info->warpgroup, n = 0;
	for (int64_t w = p->lo / wg; w < p->hi / wg && n < TS_MAX_PARTS; w++)
		g[n++] = tlc_i32(t->m, w);
	tlc_stmt *body = p->body ? p->body : tlc_seq_new(t->m, p->loc);
	return tlc_scope_new(t->m, p->loc, tlc_call(t->m, TLC_OP_WS, TLC_DT_VOID, n, g, 0, NULL, NULL), body);
}

static tlc_stmt *split_pre(tlc_rewriter *rw, tlc_stmt *s)
{
	ts_state *t = rw->ctx;
	if (tlc_stmt_is_ws(s) || (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL))
		t->depth++;
	if (s->kind != TLC_STMT_IF)
		return NULL;
	ts_part parts[TS_MAX_PARTS];
	int n = 0;
	if (!chain(t, s, 0, t->threads, parts, &n))
		return NULL;
	int wg = t->info ? t->info->warpgroup : 0;
	char why[160];
	why[0] = 0;
	if (t->depth)
		snprintf(why, sizeof why, "inside a T.ws scope or another such 'if', where it cannot split the "
		                          "threads again");
	else if (wg <= 0)
		snprintf(why, sizeof why, "and target %s has no warpgroups to run it on", t->target);
	for (int i = 0; i < n && !why[0]; i++)
		if (parts[i].lo % wg || parts[i].hi % wg)
			snprintf(why, sizeof why, "not whole warpgroups of %d threads of target %s", wg, t->target);
	if (why[0]) {
		check_kept(t, s, parts, n, why);
		return NULL;
	}
	/* each branch runs on its warpgroups; what is inside is walked for
	 * ifs that would split them again (which cannot be) */
	tlc_stmt *out = tlc_seq_new(t->m, s->loc);
	t->depth++;
	for (int i = 0; i < n; i++) {
		ts_part p = parts[i];
		if (p.body)
			p.body = tlc_stmt_rewrite(rw, p.body);
		tlc_seq_append(t->m, out, ws_scope(t, &p));
	}
	t->depth--;
	t->made = tlc_mem_grow(t->made, t->nmade, &t->cap_made, sizeof(*t->made));
	t->made[t->nmade++] = out;
	return out;
}

static bool made_here(const ts_state *t, const tlc_stmt *s)
{
	for (int i = 0; i < t->nmade; i++)
		if (t->made[i] == s)
			return true;
	return false;
}

static tlc_stmt *split_post(tlc_rewriter *rw, tlc_stmt *s)
{
	ts_state *t = rw->ctx;
	if (tlc_stmt_is_ws(s) || (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL))
		t->depth--;
	if (s->kind != TLC_STMT_SEQ)
		return NULL;
	/* the scopes of a split go into the block of the if they replace: T.ws
	 * scopes side by side in one block are one group */
	bool any = false;
	for (int i = 0; i < s->u.seq.n && !any; i++)
		any = made_here(t, s->u.seq.items[i]);
	if (!any)
		return NULL;
	tlc_stmt *out = tlc_seq_new(t->m, s->loc);
	for (int i = 0; i < s->u.seq.n; i++) {
		tlc_stmt *it = s->u.seq.items[i];
		if (!made_here(t, it)) {
			tlc_seq_append(t->m, out, it);
			continue;
		}
		for (int k = 0; k < it->u.seq.n; k++)
			tlc_seq_append(t->m, out, it->u.seq.items[k]);
	}
	return out;
}

int pl_run_thread_split(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	int64_t x;
	if (!f->body || !f->thread_vars[0] || !tlc_expr_as_int(f->threads[0], &x))
		return 0;
	ts_state t = {.m = m, .ctx = tlc_module_context(m), .info = tlc_module_target_info(m), .tx = f->thread_vars[0],
	              .threads = x};
	t.target = tlc_module_target_name(m);
	if (!t.target)
		t.target = "?";
	for (int d = 1; d < f->thread_ndim; d++)
		if (!tlc_expr_as_int(f->threads[d], &x) || x != 1)
			return 0; /* the thread index alone is no position in a 2-D or 3-D block */
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.ctx = &t;
	rw.stmt_pre = split_pre;
	rw.stmt_post = split_post;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	tlc_mem_free(t.made);
	return t.errors ? -1 : 0;
}
