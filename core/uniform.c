/* uniform.c - block-uniform values (tlc/uniform.h).
 *
 * The facts are the sets of varying variables and varying per-thread
 * buffers, and the global tensors the kernel writes.  Everything starts
 * uniform except the thread variables; walks over the kernel mark what a
 * varying value reaches (a let, a loop variable, a store into a per-thread
 * buffer, or a store where only some threads run it) until a walk marks
 * nothing new.  The sets only grow, so that ends after at most one walk per
 * variable and buffer. */
#include "internal.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/uniform.h>
#include <tlc/walk.h>

#include "hash_table.h"

struct tlc_uniformity {
	tlc_context *ctx;
	const tlc_func *f;
	tlc_hash_table varying_vars;
	tlc_hash_table varying_bufs; /* per-thread buffers */
	tlc_hash_table written;      /* global tensors (their storage) the kernel writes */
	bool changed;
	/* the walk: whether each enclosing statement lets only some threads in */
	int depth, divergent, cap;
	bool *stack;
};

static bool var_varying(const tlc_uniformity *u, const tlc_var *v)
{
	for (int d = 0; d < 3; d++)
		if (u->f->thread_vars[d] == v)
			return true;
	return tlc_hash_find_addr(&u->varying_vars, v) >= 0;
}

static void mark(tlc_uniformity *u, tlc_hash_table *t, const void *key)
{
	if (tlc_hash_find_addr(t, key) >= 0)
		return;
	tlc_hash_put_addr(t, key, 1);
	u->changed = true;
}

static bool per_thread(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR;
}

typedef struct expr_check {
	const tlc_uniformity *u;
	bool varying;
} expr_check;

/* A switch over kinds: each kind of value has its own rule. */
static tlc_walk_action check_expr(void *p, const tlc_expr *x)
{
	expr_check *c = p;
	const tlc_uniformity *u = c->u;
	switch (x->kind) {
	case TLC_EXPR_VAR: c->varying = var_varying(u, x->u.var); break;
	case TLC_EXPR_LOAD: {
		const tlc_buffer *b = x->u.load.buf;
		if (b->scope == TLC_SCOPE_GLOBAL)
			c->varying = tlc_hash_find_addr(&u->written, tlc_buffer_storage(b)) >= 0;
		else if (per_thread(b))
			c->varying = tlc_hash_find_addr(&u->varying_bufs, tlc_buffer_storage(b)) >= 0;
		else
			c->varying = !tlc_buffer_in_shared(b); /* fragments, barriers */
		break; /* then its indices */
	}
	case TLC_EXPR_CALL: {
		tlc_op_id op = x->u.call.op;
		if (op == TLC_OP_BLOCK_IDX || op == TLC_OP_BLOCK_RANK_IN_CLUSTER)
			return TLC_WALK_SKIP;
		const tlc_op_info *oi = tlc_op_get(u->ctx, op);
		/* built-in math: a function of its operands; anything else (thread
		 * indices, shuffles, a plugin's op) may differ between threads */
		if (op >= TLC_OP_BUILTIN_COUNT || !oi || !(oi->flags & TLC_OPF_PURE) || (oi->flags & TLC_OPF_LOWERED)) {
			c->varying = true;
			break;
		}
		for (int i = 0; i < x->u.call.nargs && !c->varying; i++)
			tlc_walk_expr(&(tlc_visitor){.ctx = c, .expr_pre = check_expr}, x->u.call.args[i]);
		return c->varying ? TLC_WALK_STOP : TLC_WALK_SKIP;
	}
	case TLC_EXPR_BUF:
	case TLC_EXPR_REGION:
	case TLC_EXPR_TUPLE:
	case TLC_EXPR_LAMBDA: c->varying = true; break; /* not scalar values */
	default: break;
	}
	return c->varying ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

bool tlc_expr_block_uniform(const tlc_uniformity *u, const tlc_expr *x)
{
	if (!x)
		return true;
	expr_check c = {u, false};
	tlc_walk_expr(&(tlc_visitor){.ctx = &c, .expr_pre = check_expr}, x);
	return !c.varying;
}

/* ---- the walk ---- */

static void note_write(void *p, const tlc_buffer *b, unsigned mode)
{
	tlc_uniformity *u = p;
	if (!(mode & TLC_ACCESS_WRITE))
		return;
	if (b->scope == TLC_SCOPE_GLOBAL)
		mark(u, &u->written, tlc_buffer_storage(b));
	else if (per_thread(b))
		mark(u, &u->varying_bufs, tlc_buffer_storage(b)); /* by an op: not tracked */
}

static void note_global_write(void *p, const tlc_buffer *b, unsigned mode)
{
	tlc_uniformity *u = p;
	if ((mode & TLC_ACCESS_WRITE) && b->scope == TLC_SCOPE_GLOBAL)
		mark(u, &u->written, tlc_buffer_storage(b));
}

static bool is_attr(const tlc_stmt *s, const char *key)
{
	return s->u.attr.key && !strcmp(s->u.attr.key, key);
}

static bool lets_some_threads_in(tlc_uniformity *u, const tlc_stmt *s);

/* A walk over a loop's body for a break or continue of that loop taken by
 * only some threads (under an `if` of a varying condition, say). */
typedef struct exit_walk {
	tlc_uniformity *u;
	const tlc_stmt *loop;
	int depth, divergent, cap;
	bool *stack;
	bool found;
} exit_walk;

static tlc_walk_action exit_pre(void *p, const tlc_stmt *s)
{
	exit_walk *w = p;
	bool some = false;
	if (s != w->loop) {
		if (s->kind == TLC_STMT_FOR)
			some = true; /* an exit in there leaves that loop: skipped below */
		else
			some = lets_some_threads_in(w->u, s);
	}
	if (s->kind == TLC_STMT_EVAL && w->divergent > 0 &&
	    (tlc_stmt_is_call(s, TLC_OP_LOOP_BREAK) || tlc_stmt_is_call(s, TLC_OP_LOOP_CONTINUE)))
		w->found = true;
	w->stack = tlc_mem_grow(w->stack, w->depth, &w->cap, sizeof(*w->stack));
	w->stack[w->depth++] = some;
	w->divergent += some;
	if (w->found)
		return TLC_WALK_STOP;
	return s != w->loop && s->kind == TLC_STMT_FOR ? TLC_WALK_SKIP : TLC_WALK_CONTINUE;
}

static void exit_post(void *p, const tlc_stmt *s)
{
	exit_walk *w = p;
	(void)s;
	w->divergent -= w->stack[--w->depth];
}

static bool exit_diverges(tlc_uniformity *u, const tlc_stmt *loop)
{
	exit_walk w = {.u = u, .loop = loop};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &w, .stmt_pre = exit_pre, .stmt_post = exit_post}, loop);
	tlc_mem_free(w.stack);
	return w.found;
}

/* Whether only some threads of the block run the statements inside s. */
static bool lets_some_threads_in(tlc_uniformity *u, const tlc_stmt *s)
{
	switch (s->kind) {
	case TLC_STMT_IF: return !tlc_expr_block_uniform(u, s->u.if_.cond);
	case TLC_STMT_FOR:
		if (s->u.loop.kind == TLC_FOR_PARALLEL)
			return true; /* each iteration is another thread */
		/* after a break or continue of only some threads, the others run
		 * the rest of the body alone */
		return !tlc_expr_block_uniform(u, s->u.loop.min) || !tlc_expr_block_uniform(u, s->u.loop.extent) ||
		       exit_diverges(u, s);
	case TLC_STMT_ATTR: return is_attr(s, "parallel_nest") || is_attr(s, "thread_private");
	case TLC_STMT_SCOPE: return true; /* T.ws: some warpgroups */
	default: return false;
	}
}

static tlc_walk_action walk_pre(void *p, const tlc_stmt *s)
{
	tlc_uniformity *u = p;
	switch (s->kind) {
	case TLC_STMT_FOR:
		if (s->u.loop.kind == TLC_FOR_PARALLEL || s->u.loop.kind == TLC_FOR_THREAD ||
		    !tlc_expr_block_uniform(u, s->u.loop.min) || !tlc_expr_block_uniform(u, s->u.loop.extent))
			mark(u, &u->varying_vars, s->u.loop.var);
		break;
	case TLC_STMT_LET:
		if (!tlc_expr_block_uniform(u, s->u.let.value))
			mark(u, &u->varying_vars, s->u.let.var);
		break;
	case TLC_STMT_STORE: {
		const tlc_buffer *b = s->u.store.buf;
		if (!per_thread(b))
			break;
		bool varying = u->divergent > 0 || !tlc_expr_block_uniform(u, s->u.store.value);
		for (int i = 0; i < s->u.store.n && !varying; i++)
			varying = !tlc_expr_block_uniform(u, s->u.store.idx[i]);
		if (varying)
			mark(u, &u->varying_bufs, tlc_buffer_storage(b));
		break;
	}
	case TLC_STMT_ALLOC: {
		const tlc_buffer *b = s->u.alloc.buf;
		for (int i = 0; per_thread(b) && i < b->ninit; i++)
			if (!tlc_expr_block_uniform(u, b->init[i]))
				mark(u, &u->varying_bufs, tlc_buffer_storage(b));
		break;
	}
	case TLC_STMT_EVAL: tlc_stmt_accesses(s, note_write, u); break;
	default: break;
	}
	bool some = lets_some_threads_in(u, s);
	u->stack = tlc_mem_grow(u->stack, u->depth, &u->cap, sizeof(*u->stack));
	u->stack[u->depth++] = some;
	u->divergent += some;
	return TLC_WALK_CONTINUE;
}

static void walk_post(void *p, const tlc_stmt *s)
{
	tlc_uniformity *u = p;
	(void)s;
	u->divergent -= u->stack[--u->depth];
}

tlc_uniformity *tlc_uniformity_new(tlc_module *m, const tlc_func *f)
{
	tlc_uniformity *u = tlc_mem_alloc(sizeof(*u));
	u->ctx = tlc_module_context(m);
	u->f = f;
	if (!f->body)
		return u;
	/* every global write, wherever it is, before any load is judged */
	tlc_stmt_accesses(f->body, note_global_write, u);
	do {
		u->changed = false;
		u->depth = u->divergent = 0;
		tlc_walk_stmt(&(tlc_visitor){.ctx = u, .stmt_pre = walk_pre, .stmt_post = walk_post}, f->body);
	} while (u->changed);
	return u;
}

void tlc_uniformity_free(tlc_uniformity *u)
{
	if (!u)
		return;
	tlc_hash_free(&u->varying_vars);
	tlc_hash_free(&u->varying_bufs);
	tlc_hash_free(&u->written);
	tlc_mem_free(u->stack);
	tlc_mem_free(u);
}
