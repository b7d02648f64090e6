/* inject_pipeline.c - the `inject-pipeline` pass: a T.Pipelined loop whose
 * statements have stages (pipeline-planning, or the user's order=/stage=)
 * becomes a prologue, a steady-state loop and an epilogue.
 *
 * With D the largest stage and n the trip count, pipeline step t (0 <= t <
 * n + D) runs, in the planned order, every statement j for iteration
 * i = t - stage[j] when 0 <= i < n.  Steps 0 .. D-1 are the prologue
 * (unrolled; a statement whose iteration may be past the end is guarded by
 * `if i < n`), steps D .. n-1 the loop, steps n .. n+D-1 the epilogue
 * (unrolled; when n may be smaller than D, each step is guarded by
 * `n + e >= D` so that no step runs twice).  Guards on constants fold away.
 *
 * Versions.  A shared buffer written at stage sw and read at stage sr > sw
 * holds sr - sw + 1 iterations at once: it gets a leading dimension of that
 * many versions and iteration i uses version i % V.  This runs before layout
 * inference, so the versioned buffers get their layouts there (a swizzle
 * over the two trailing dimensions, the same for every version) and the
 * tile ops see regions `buf[v, :, :]`.
 *
 * Asynchronous copies.  On a target with cp.async (tlc_target_info
 * async_copy), a producer T.copy from global into shared whose readers all
 * run at later stages is issued asynchronously: it is wrapped in
 * `with T.attr("async_copy", 1):` (lower-tile-ops turns its accesses into
 * T.cp_async), every step commits one group right after its last such
 * copy (an empty group when the copies are guarded away, so the count
 * stays one per step), and before the first statement that reads a copied
 * buffer, T.cp_async_wait(N) lets only the N groups that are newer than the
 * one it needs stay in flight.  The barrier between the copy and its
 * readers is sync-insert's (it sees the copies as writes).
 *
 * A loop whose stages are all 0 becomes a serial loop in the planned order. */
#include "config.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/layout.h>
#include <tlc/target.h>
#include <tlc/walk.h>

#include "pipeline.h"

typedef struct inject {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	bool cp_async; /* the target has cp.async */
	int errors;
	bool unpipelined; /* the loop cannot be pipelined: it runs as written */
	/* the loop being injected */
	tlc_stmt *loop;
	tlc_stmt *body;
	int n;                  /* statements */
	const int *stage;
	int *by_order;          /* statement index at each position */
	bool *async;            /* per statement */
	int D;
	pl_versions vers;       /* the loop's versioned buffers */
	tlc_rewriter rw;        /* clones statements for one iteration */
	const tlc_expr *iter;   /* the iteration being cloned */
} inject;

tlc_stmt *pl_body_seq(tlc_module *m, tlc_stmt *loop)
{
	tlc_stmt *b = loop->u.loop.body;
	if (b && b->kind == TLC_STMT_SEQ)
		return b;
	tlc_stmt *seq = tlc_seq_new(m, loop->loc);
	if (b)
		tlc_seq_append(m, seq, b);
	loop->u.loop.body = seq;
	return seq;
}

/* ---- which statements use which buffers ---- */


/* ---- versions ---- */

static void add_version(inject *in, const tlc_buffer *b, int64_t versions)
{
	if (!pl_add_version(&in->vers, b, versions)) {
		tlc_error(in->ctx, in->loop->loc, "T.Pipelined: more than %d buffers need versions", PL_MAX_VERSIONED);
		in->errors++;
	}
}

typedef struct buf_list {
	int n;
	const tlc_buffer *b[PL_MAX_VERSIONED * 4];
} buf_list;

static void collect_written(void *p, const tlc_buffer *b, unsigned mode)
{
	buf_list *l = p;
	if (!(mode & TLC_ACCESS_WRITE) || !tlc_buffer_in_shared(b) || b->alias_of)
		return;
	for (int i = 0; i < l->n; i++)
		if (l->b[i] == b)
			return;
	if (l->n < (int)(sizeof l->b / sizeof l->b[0]))
		l->b[l->n++] = b;
}

/* Shared buffers written at one stage and read at a later one. */
static void find_versions(inject *in)
{
	for (int w = 0; w < in->n; w++) {
		buf_list written = {0};
		tlc_stmt_accesses(in->body->u.seq.items[w], collect_written, &written);
		for (int k = 0; k < written.n; k++)
			for (int r = 0; r < in->n; r++)
				if (in->stage[r] > in->stage[w] &&
				    (tlc_stmt_use_of(in->body->u.seq.items[r], written.b[k]) & TLC_ACCESS_READ))
					add_version(in, written.b[k], in->stage[r] - in->stage[w] + 1);
	}
}

/* Make the versioned buffers; a buffer also used outside the loop cannot
 * have versions, and the loop then runs as written. */
static void make_versions(inject *in)
{
	const tlc_buffer *outside = NULL;
	if (pl_make_versions(&in->vers, in->f, in->loop, &outside))
		return;
	const pl_versioned *v = pl_version_of(&in->vers, outside);
	tlc_warning(in->ctx, in->loop->loc,
	            "this T.Pipelined loop runs unpipelined: buffer '%s' would need %lld versions (it is written and "
	            "read at different stages) but is also used outside the loop",
	            outside->name, (long long)(v ? v->versions : 0));
	in->unpipelined = true;
}

static tlc_stmt *clone_for(inject *in, int j, const tlc_expr *i)
{
	tlc_module *m = in->m;
	in->iter = in->vers.iter = tlc_simplify_expr(m, i);
	const tlc_expr *k = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_ADD, in->loop->u.loop.min, in->iter));
	tlc_rewriter_map_var(&in->rw, in->loop->u.loop.var, k);
	tlc_stmt *c = tlc_stmt_clone(&in->rw, in->body->u.seq.items[j]);
	if (in->async[j])
		c = tlc_attr_new(m, c->loc, "async_copy", tlc_i32(m, 1), c);
	return c;
}

/* ---- asynchronous copies: commits and waits ---- */

static tlc_stmt *call_stmt(inject *in, tlc_op_id op, const tlc_expr *arg)
{
	return tlc_eval_new(in->m, in->loop->loc, tlc_call(in->m, op, TLC_DT_VOID, arg ? 1 : 0, &arg, 0, NULL, NULL));
}

/* The position after which each step commits its group (-1: no async copy). */
static int commit_position(const inject *in)
{
	int pos = -1;
	for (int p = 0; p < in->n; p++)
		if (in->async[in->by_order[p]])
			pos = p;
	return pos;
}

/* How many newer groups may stay in flight before the statement at
 * position p runs; -1 when it reads no asynchronously copied buffer. */
static int wait_count(inject *in, int p)
{
	int j = in->by_order[p], commit = commit_position(in), best = -1;
	for (int q = 0; q < in->n; q++) {
		int w = in->by_order[q];
		const tlc_buffer *src, *dst;
		if (!in->async[w] || !pl_copy_sides(in->body->u.seq.items[w], &src, &dst) ||
		    !(tlc_stmt_use_of(in->body->u.seq.items[j], dst) & TLC_ACCESS_READ))
			continue;
		int c = in->stage[j] - in->stage[w] - (commit < p ? 0 : 1);
		if (best < 0 || c < best)
			best = c;
	}
	return best;
}

/* ---- the schedule ---- */

typedef enum step_kind { STEP_PROLOGUE, STEP_STEADY, STEP_EPILOGUE } step_kind;

/* Append pipeline step t to out.  Prologue: t is the constant `e`;
 * steady: t is the loop variable; epilogue: t = n + e. */
static void emit_step(inject *in, tlc_stmt *out, step_kind kind, const tlc_expr *t, int e)
{
	tlc_module *m = in->m;
	const tlc_expr *n = in->loop->u.loop.extent;
	int commit = commit_position(in), waited = -1;
	for (int p = 0; p < in->n; p++) {
		int j = in->by_order[p];
		bool runs = kind == STEP_STEADY || (kind == STEP_PROLOGUE ? e >= in->stage[j] : in->stage[j] > e);
		if (runs) {
			int need = wait_count(in, p);
			if (need >= 0 && (waited < 0 || need < waited)) {
				tlc_seq_append(m, out, call_stmt(in, TLC_OP_CP_ASYNC_WAIT, tlc_i32(m, need)));
				waited = need;
			}
			const tlc_expr *i = tlc_binary(m, TLC_EXPR_SUB, t, tlc_i32(m, in->stage[j]));
			tlc_stmt *c = clone_for(in, j, i);
			if (kind == STEP_PROLOGUE) {
				const tlc_expr *g = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_LT, in->iter, n));
				int64_t gv;
				if (!tlc_expr_as_int(g, &gv))
					c = tlc_if_new(m, c->loc, g, c, NULL);
				else if (!gv)
					c = NULL;
			}
			if (c)
				tlc_seq_append(m, out, c);
		}
		if (p == commit)
			tlc_seq_append(m, out, call_stmt(in, TLC_OP_CP_ASYNC_COMMIT, NULL));
	}
}

static tlc_stmt *schedule(inject *in)
{
	tlc_module *m = in->m;
	tlc_stmt *loop = in->loop;
	tlc_loc loc = loop->loc;
	const tlc_expr *n = loop->u.loop.extent;
	tlc_stmt *out = tlc_seq_new(m, loc);
	for (int e = 0; e < in->D; e++)
		emit_step(in, out, STEP_PROLOGUE, tlc_i32(m, e), e);

	tlc_var *t = tlc_var_new(m, loop->u.loop.var->name, loop->u.loop.var->dtype);
	tlc_stmt *steady = tlc_seq_new(m, loc);
	emit_step(in, steady, STEP_STEADY, tlc_var_ref(m, t), 0);
	const tlc_expr *extent = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_SUB, n, tlc_i32(m, in->D)));
	tlc_seq_append(m, out, tlc_for_new(m, loc, t, tlc_i32(m, in->D), extent, TLC_FOR_SERIAL, steady));

	for (int e = 0; e < in->D; e++) {
		tlc_stmt *step = tlc_seq_new(m, loc);
		const tlc_expr *te = tlc_binary(m, TLC_EXPR_ADD, n, tlc_i32(m, e));
		emit_step(in, step, STEP_EPILOGUE, te, e);
		/* when n < D the prologue already ran the steps below D */
		const tlc_expr *g = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_GE, te, tlc_i32(m, in->D)));
		int64_t gv;
		if (!tlc_expr_as_int(g, &gv))
			tlc_seq_append(m, out, tlc_if_new(m, loc, g, step, NULL));
		else if (gv)
			for (int i = 0; i < step->u.seq.n; i++)
				tlc_seq_append(m, out, step->u.seq.items[i]);
	}
	return out;
}

/* ---- one loop ---- */

static bool check_plan(inject *in)
{
	const tlc_pipeline_info *pi = &in->loop->u.loop.pipe;
	if (pi->n_stage != in->n || pi->n_order != in->n) {
		tlc_error(in->ctx, in->loop->loc,
		          "T.Pipelined: the loop body has %d statements but order/stage have %d/%d entries "
		          "(run pipeline-planning first, or give one entry per statement)",
		          in->n, pi->n_order, pi->n_stage);
		return false;
	}
	in->D = 0;
	for (int j = 0; j < in->n; j++) {
		if (pi->stage[j] < 0) {
			tlc_error(in->ctx, in->loop->loc, "T.Pipelined: stage %d of statement %d is negative", pi->stage[j], j);
			return false;
		}
		if (pi->stage[j] > in->D)
			in->D = pi->stage[j];
		if (pi->order[j] < 0 || pi->order[j] >= in->n || in->by_order[pi->order[j]] >= 0) {
			tlc_error(in->ctx, in->loop->loc, "T.Pipelined: order must be a permutation of 0..%d", in->n - 1);
			return false;
		}
		in->by_order[pi->order[j]] = j;
	}
	return true;
}

/* Producers whose readers all run at later stages go asynchronous. */
static void mark_async(inject *in)
{
	for (int w = 0; w < in->n; w++) {
		const tlc_buffer *src, *dst;
		in->async[w] = false;
		if (!in->cp_async || !pl_copy_sides(in->body->u.seq.items[w], &src, &dst) ||
		    src->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst))
			continue;
		bool later = true, read = false;
		for (int r = 0; r < in->n; r++)
			if (r != w && (tlc_stmt_use_of(in->body->u.seq.items[r], dst) & TLC_ACCESS_READ)) {
				read = true;
				later &= in->stage[r] > in->stage[w];
			}
		in->async[w] = read && later;
	}
}

static tlc_stmt *inject_loop(inject *in, tlc_stmt *loop)
{
	tlc_module *m = in->m;
	in->loop = loop;
	in->body = pl_body_seq(m, loop);
	in->n = in->body->u.seq.n;
	in->stage = loop->u.loop.pipe.stage;
	in->vers = (pl_versions){.m = m};
	int by_order[in->n > 0 ? in->n : 1];
	bool async[in->n > 0 ? in->n : 1];
	for (int j = 0; j < in->n; j++)
		by_order[j] = -1;
	in->by_order = by_order;
	in->async = async;
	if (in->n == 0 || loop->u.loop.pipe.n_stage == 0 || !check_plan(in)) {
		if (in->n && loop->u.loop.pipe.n_stage)
			in->errors++;
		loop->u.loop.kind = TLC_FOR_SERIAL;
		return loop;
	}
	if (in->D == 0) {
		/* nothing overlaps: the statements in their planned order */
		tlc_stmt *seq = tlc_seq_new(m, in->body->loc);
		for (int p = 0; p < in->n; p++)
			tlc_seq_append(m, seq, in->body->u.seq.items[by_order[p]]);
		loop->u.loop.body = seq;
		loop->u.loop.kind = TLC_FOR_SERIAL;
		return loop;
	}
	find_versions(in);
	in->unpipelined = false;
	make_versions(in);
	if (in->errors || in->unpipelined) {
		loop->u.loop.kind = TLC_FOR_SERIAL;
		return loop;
	}
	mark_async(in);
	tlc_rewriter_init(&in->rw, m);
	pl_version_rewriter(&in->rw, &in->vers);
	in->rw.fresh_binders = true;
	tlc_stmt *out = schedule(in);
	tlc_rewriter_free(&in->rw);
	return out;
}

static tlc_stmt *inject_post(tlc_rewriter *rw, tlc_stmt *s)
{
	if (s->kind != TLC_STMT_FOR || s->u.loop.kind != TLC_FOR_PIPELINED)
		return NULL;
	return inject_loop(rw->ctx, s);
}

int pl_run_inject(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	const tlc_target_info *t = tlc_module_target_info(m);
	inject in = {.m = m, .ctx = tlc_module_context(m), .f = f};
	in.cp_async = t && (t->async_copy & TLC_ASYNC_CP_ASYNC) && tlc_opt_bool(opts, "async-copy", true);
	if (!f->body)
		return 0;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.ctx = &in;
	rw.stmt_post = inject_post;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	return in.errors ? 1 : 0;
}
