/* lower_outside.c - fragment accesses outside T.Parallel nests.
 *
 * A statement outside any T.Parallel nest (a let, an if's condition, a
 * store into memory, a call) runs in every thread that gets there, as in
 * TileLang; a fragment element it reads is defined where every such thread
 * holds that element:
 *  - a fragment every thread of the block (of the enclosing T.ws scope) holds
 *    whole (fully replicated: the result of a reduction over all of its
 *    threads, `m = max_local[0]`) is read from the thread's own register;
 *  - any other fragment whose holders all run the statement (a row reduced
 *    over fewer threads than the block has; the rows of a reduction over
 *    several rows, `lse_max[0]`, each row in some threads only) is read
 *    from its shared copy, which one replica of each element writes before
 *    the statement (lw_stage_copy; sync-insert puts the barrier between):
 *    every thread gets the element the program names.  TileLang reads each
 *    thread's own register at the element's register index instead, which
 *    is that element only in the threads that hold it;
 *  - a fragment held by threads that do not run the statement (outside the
 *    enclosing T.ws scope) cannot be staged there and is refused.
 * A store into a fragment outside a nest is defined when every thread that
 * runs it holds the fragment whole: each writes its own copy. */
#include <stdio.h>
#include <string.h>

#include <tlc/walk.h>

#include "lower.h"

typedef struct outside_rw {
	lw_state *st;
	const tlc_stmt *s;
	tlc_stmt *stage; /* the staging nests, before s */
	int nstaged;
	tlc_buffer *from[8], *to[8];
	const int64_t *shape[8];
} outside_rw;

/* True when every thread that runs a statement here holds all of l. */
static bool held_by_all(const lw_state *st, const tlc_layout *l)
{
	int64_t lo = st->op_threads ? st->op_lo : 0, n = st->op_threads ? st->op_threads : st->threads;
	return l && l->kind == TLC_LAYOUT_FRAGMENT && l->replicate == l->threads && l->thread_lo <= lo &&
	       lo + n <= l->thread_lo + l->threads;
}

static const tlc_expr *outside_load(tlc_rewriter *rw, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_LOAD || e->u.load.buf->scope != TLC_SCOPE_FRAGMENT)
		return NULL;
	outside_rw *w = rw->ctx;
	lw_state *st = w->st;
	tlc_buffer *b = e->u.load.buf;
	const tlc_layout *l = b->layout;
	int n = e->u.load.n;
	const tlc_expr *idx[LW_MAX_DIMS];
	for (int d = 0; d < n && d < LW_MAX_DIMS; d++)
		idx[d] = tlc_expr_rewrite(rw, e->u.load.idx[d]);
	if (n > LW_MAX_DIMS || !l || l->kind != TLC_LAYOUT_FRAGMENT || l->ndim != n) {
		lw_error(st, w->s->loc, "fragment '%s' is read outside a T.Parallel loop and has no fragment layout of its "
		         "rank", b->name);
		return e;
	}
	if (held_by_all(st, l)) {
		const tlc_expr *r = tlc_layout_apply(st->m, l, n, idx);
		return tlc_load(st->m, b, 1, &r);
	}
	/* the staging nest runs on l's threads: they must all get here */
	int64_t lo = st->op_threads ? st->op_lo : 0, nt = st->op_threads ? st->op_threads : st->threads;
	if (l->thread_lo >= lo && l->thread_lo + l->threads <= lo + nt) {
		int k = 0;
		while (k < w->nstaged && w->from[k] != b)
			k++;
		if (k == w->nstaged) {
			if (k == 8) {
				lw_error(st, w->s->loc, "a statement outside T.Parallel reads more than 8 fragments that need staging");
				return e;
			}
			w->to[k] = lw_stage_copy(st, b, w->stage, w->s->loc, &w->shape[k]);
			if (!w->to[k])
				return e;
			w->from[k] = b;
			w->nstaged++;
		}
		const tlc_expr *flat = idx[0];
		for (int d = 1; d < n; d++)
			flat = tlc_binary(st->m, TLC_EXPR_ADD, tlc_binary(st->m, TLC_EXPR_MUL, flat, tlc_i32(st->m, w->shape[k][d])),
			                  idx[d]);
		flat = tlc_simplify_expr(st->m, flat);
		return tlc_load(st->m, w->to[k], 1, &flat);
	}
	tlc_buf d;
	tlc_buf_init(&d);
	tlc_layout_describe(&d, l);
	lw_error(st, w->s->loc,
	         "fragment '%s' is read outside a T.Parallel loop by threads [%lld, %lld), but its elements live in "
	         "threads outside them (%s), which do not run this statement to write its shared copy (TileLang "
	         "would read each thread's own register at the element's register index, another element in "
	         "threads that do not hold it): read it inside a T.Parallel loop over the fragment, or copy it to "
	         "a shared buffer where its threads run",
	         b->name, (long long)lo, (long long)(lo + nt), tlc_buf_str(&d));
	tlc_buf_free(&d);
	return e;
}

const tlc_expr *lw_outside_reads(lw_state *st, const tlc_stmt *s, const tlc_expr *e, tlc_stmt *stage)
{
	outside_rw w = {.st = st, .s = s, .stage = stage};
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, st->m);
	rw.ctx = &w;
	rw.expr_pre = outside_load;
	const tlc_expr *out = tlc_expr_rewrite(&rw, e);
	tlc_rewriter_free(&rw);
	return out;
}

tlc_stmt *lw_outside_store(lw_state *st, tlc_stmt *s, tlc_stmt *stage)
{
	tlc_buffer *b = s->u.store.buf;
	s->u.store.value = lw_outside_reads(st, s, s->u.store.value, stage);
	for (int i = 0; i < s->u.store.n; i++)
		s->u.store.idx[i] = lw_outside_reads(st, s, s->u.store.idx[i], stage);
	if (b->scope != TLC_SCOPE_FRAGMENT)
		return s;
	if (!held_by_all(st, b->layout) || b->layout->ndim != s->u.store.n) {
		lw_error(st, s->loc,
		         "fragment '%s' is written outside a T.Parallel loop, but not every thread that runs the store "
		         "holds it whole; wrap the store in a T.Parallel loop over the fragment",
		         b->name);
		return s;
	}
	const tlc_expr *r = tlc_layout_apply(st->m, b->layout, s->u.store.n, s->u.store.idx);
	return tlc_store_new(st->m, s->loc, b, 1, &r, s->u.store.value);
}
