/* pipeline_planning.c - the `pipeline-planning` pass: a stage and an order
 * for every statement of a T.Pipelined loop that has num_stages and no
 * order/stage of the user's.
 *
 * A statement is a *producer* when it is a T.copy from a global tensor into
 * a shared buffer that the rest of the body reads, that no other statement
 * writes, and whose source no statement of the body writes: its iteration
 * i + S - 1 may then run while the rest works on iteration i.  Producers get
 * stage 0 and come first, in their order; every other statement gets stage
 * S - 1 (S = num_stages) and follows, in its order.  That is the usual
 * prefetch schedule: S - 1 tiles in flight, S versions of each producer's
 * buffer (inject-pipeline makes them).  A loop with no producer, or with
 * num_stages <= 1, gets stage 0 everywhere: it runs as a plain loop.
 *
 * Scalar bindings at the top of the body (`k0 = k * 32`) are substituted
 * into the statements that use them first, so that every statement can be
 * moved on its own.  The result is written on the loop (order=, stage=) and
 * printed, so `--passes=pipeline-planning --emit=ir` shows the plan. */
#include "config.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/walk.h>

#include "pipeline.h"

/* Replace the body's leading lets by their values in what follows. */
static void inline_lets(tlc_module *m, tlc_stmt *body)
{
	int n = body->u.seq.n, kept = 0;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	for (int i = 0; i < n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (s->kind == TLC_STMT_LET) {
			const tlc_expr *v = tlc_expr_rewrite(&rw, s->u.let.value);
			tlc_rewriter_map_var(&rw, s->u.let.var, v);
			continue;
		}
		body->u.seq.items[kept++] = tlc_stmt_rewrite(&rw, s);
	}
	body->u.seq.n = kept;
	tlc_rewriter_free(&rw);
}


bool pl_copy_sides(const tlc_stmt *s, const tlc_buffer **src, const tlc_buffer **dst)
{
	if (!tlc_stmt_is_call(s, TLC_OP_COPY))
		return false;
	const tlc_expr *call = s->u.eval.call;
	const tlc_buffer *b[2] = {NULL, NULL};
	for (int k = 0; k < 2; k++) {
		const tlc_expr *a = call->u.call.args[k];
		b[k] = a->kind == TLC_EXPR_BUF      ? a->u.buf
		       : a->kind == TLC_EXPR_REGION ? a->u.region.buf
		       : a->kind == TLC_EXPR_LOAD   ? a->u.load.buf
		                                    : NULL;
		if (!b[k])
			return false;
	}
	*src = b[0];
	*dst = b[1];
	return true;
}

/* Statement j of the body is a producer (see the header comment). */
static bool is_producer(const tlc_stmt *body, int j)
{
	const tlc_buffer *src, *dst;
	if (!pl_copy_sides(body->u.seq.items[j], &src, &dst) || src->scope != TLC_SCOPE_GLOBAL ||
	    !tlc_buffer_in_shared(dst))
		return false;
	bool read_later = false;
	for (int i = 0; i < body->u.seq.n; i++) {
		if (i == j)
			continue;
		const tlc_stmt *s = body->u.seq.items[i];
		unsigned d = tlc_stmt_use_of(s, dst);
		if ((d & TLC_ACCESS_WRITE) || (tlc_stmt_use_of(s, src) & TLC_ACCESS_WRITE))
			return false;
		read_later |= (d & TLC_ACCESS_READ) != 0;
	}
	return read_later;
}

static void plan_loop(tlc_module *m, tlc_stmt *loop)
{
	tlc_pipeline_info *pi = &loop->u.loop.pipe;
	tlc_stmt *body = pl_body_seq(m, loop);
	inline_lets(m, body);
	int n = body->u.seq.n;
	if (n == 0)
		return;
	int *order = tlc_alloc(m, (size_t)n * sizeof(int));
	int *stage = tlc_alloc(m, (size_t)n * sizeof(int));
	int last = pi->num_stages > 1 ? pi->num_stages - 1 : 0, nprod = 0;
	for (int j = 0; j < n; j++)
		if (last && is_producer(body, j))
			nprod++;
	/* producers first (stage 0), then the rest (stage S - 1) */
	int next_prod = 0, next_rest = nprod;
	for (int j = 0; j < n; j++) {
		bool prod = nprod && is_producer(body, j);
		stage[j] = prod || !nprod ? 0 : last;
		order[j] = prod ? next_prod++ : next_rest++;
	}
	pi->n_order = pi->n_stage = n;
	pi->order = order;
	pi->stage = stage;
}

/* ---- the user's plan: groups and -1 entries ----
 *
 * TileLang's order=/stage= have one entry per statement of the loop body as
 * it is built (a T.macro call contributes the statements of its body), or,
 * with group=, one entry per group: group[g] lists the statements (indices
 * into the body) that run together with order[g] and stage[g].  An entry of
 * -1 in both marks a statement that TileLang gives to the producer of a
 * warp-specialized loop (a copy into shared memory), outside the consumers'
 * schedule.  Here such a statement runs at stage 0, before every scheduled
 * statement, which is when a producer fills the buffer for the consumers'
 * stage 0.  The result is the per-statement plan inject-pipeline reads. */

typedef struct plan_ctx {
	tlc_module *m;
	int errors;
} plan_ctx;

static bool user_plan_error(plan_ctx *c, const tlc_stmt *loop, const char *msg, int a, int b)
{
	tlc_error(tlc_module_context(c->m), loop->loc, msg, a, b);
	c->errors++;
	return false;
}

static bool expand_user_plan(plan_ctx *c, tlc_stmt *loop)
{
	tlc_module *m = c->m;
	tlc_pipeline_info *pi = &loop->u.loop.pipe;
	tlc_stmt *body = pl_body_seq(m, loop);
	int n = body->u.seq.n;
	int ng = pi->n_group > 0 ? pi->n_group : n; /* without groups: one a statement */
	if (pi->n_order != ng || pi->n_stage != ng) {
		if (pi->n_group > 0)
			return user_plan_error(c, loop,
			                       "T.Pipelined: group= has %d groups but order=/stage= have %d entries: give "
			                       "one entry per group",
			                       ng, pi->n_order != ng ? pi->n_order : pi->n_stage);
		return true; /* inject-pipeline says what is wrong */
	}
	int *group_of = tlc_alloc(m, sizeof(int) * (size_t)(n + 1));
	for (int j = 0; j < n; j++)
		group_of[j] = pi->n_group > 0 ? -1 : j;
	for (int g = 0; g < pi->n_group; g++)
		for (int k = 0; k < pi->group_len[g]; k++) {
			int j = pi->group[g][k];
			if (j < 0 || j >= n || group_of[j] >= 0)
				return user_plan_error(c, loop,
				                       "T.Pipelined: group= must list each of the loop body's %d statements "
				                       "once (statement %d is out of range or listed twice)",
				                       n, j);
			group_of[j] = g;
		}
	for (int j = 0; j < n; j++)
		if (group_of[j] < 0)
			return user_plan_error(c, loop, "T.Pipelined: group= must list each of the loop body's %d statements "
			                       "once (statement %d is missing)", n, j);
	/* groups by order: the -1 ones first, in body order, then 0, 1, ... */
	int *group_at = tlc_alloc(m, sizeof(int) * (size_t)(ng + 1));
	int nfirst = 0;
	for (int g = 0; g < ng; g++) {
		if ((pi->order[g] < 0) != (pi->stage[g] < 0) || pi->order[g] < -1 || pi->stage[g] < -1)
			return user_plan_error(c, loop, "T.Pipelined: entry %d has order %d: only -1 in both order= and "
			                       "stage= leaves a statement to the producer", g, pi->order[g]);
		if (pi->order[g] < 0)
			group_at[nfirst++] = g;
	}
	int nsched = ng - nfirst;
	bool *taken = tlc_alloc(m, sizeof(bool) * (size_t)(ng + 1));
	for (int g = 0; g < ng; g++) {
		if (pi->order[g] < 0)
			continue;
		if (pi->order[g] >= nsched || taken[pi->order[g]])
			return user_plan_error(c, loop, "T.Pipelined: order must be a permutation of 0..%d (the -1 "
			                       "entries aside), got %d", nsched - 1, pi->order[g]);
		taken[pi->order[g]] = true;
		group_at[nfirst + pi->order[g]] = g;
	}
	int *order = tlc_alloc(m, sizeof(int) * (size_t)(n + 1));
	int *stage = tlc_alloc(m, sizeof(int) * (size_t)(n + 1));
	int next = 0;
	for (int p = 0; p < ng; p++) {
		int g = group_at[p];
		/* a group keeps the body order of its statements */
		for (int j = 0; j < n; j++)
			if (group_of[j] == g) {
				order[j] = next++;
				stage[j] = pi->stage[g] < 0 ? 0 : pi->stage[g];
			}
	}
	pi->order = order;
	pi->stage = stage;
	pi->n_order = pi->n_stage = n;
	pi->n_group = 0;
	return true;
}

static bool has_negative(const int *v, int n)
{
	for (int i = 0; i < n; i++)
		if (v[i] < 0)
			return true;
	return false;
}

static tlc_walk_action plan_pre(void *ctx, const tlc_stmt *cs)
{
	plan_ctx *c = ctx;
	tlc_stmt *s = (tlc_stmt *)cs; /* the pass owns the function it plans */
	if (s->kind != TLC_STMT_FOR || s->u.loop.kind != TLC_FOR_PIPELINED)
		return TLC_WALK_CONTINUE;
	const tlc_pipeline_info *pi = &s->u.loop.pipe;
	if (pi->n_stage == 0 && pi->n_order == 0)
		plan_loop(c->m, s);
	else if (pi->n_group > 0 || has_negative(pi->order, pi->n_order) || has_negative(pi->stage, pi->n_stage))
		expand_user_plan(c, s);
	return TLC_WALK_CONTINUE;
}

int pl_run_planning(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	plan_ctx c = {m, 0};
	if (f->body)
		tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = plan_pre}, f->body);
	return c.errors ? 1 : 0;
}
