/* legalize_bounds.c - the `legalize-bounds` pass: TileLang's bounds
 * semantics made explicit in the IR.
 *
 * A kernel may index a global tensor outside it: partial tiles at every
 * edge are normal in TileLang programs, which rely on the language masking
 * them (doc/language.md, "Bounds").  Every load of a global tensor whose
 * index the compiler cannot prove inside [0, extent) in every dimension
 * reads its safe value there instead, and every such store (or element
 * T.atomic_add) is dropped.  This pass decides that once, on the tile IR,
 * and writes it down:
 *
 *   load   A[i, j]        ->  T.if_then_else(guard, A[i, j], safe)
 *   store  C[i, j] = v    ->  if guard: C[i, j] = v
 *
 * The guard is libtlc's one rule (tlc_access_guard, shared with T.copy's
 * partial tiles): `idx < extent` for every dimension whose bounds (loop
 * ranges, block and thread indices, LET values) do not prove it, and
 * `idx >= 0` only where a lower bound is not proven; full tiles get none.
 * safe is 0 of the dtype or the tensor's T.annotate_safe_value.
 *
 * Conditions already tested hold where the access is: an enclosing `if`
 * (its then-branch, for the conjuncts that read no memory the branch
 * writes), a T.if_then_else (its then-value), and a store's own guard for
 * the loads of its value.  They are facts: a conjunct they prove is not
 * repeated (also a variable they bound, `if j < 32:`, narrows its range).
 * Conjuncts of `and` do not prove each other: the simplifier may reorder
 * them.  A guard that would sit alone inside an `if` with no
 * else, or as the then-value of a T.if_then_else whose else is the safe
 * value, joins that condition instead (`if c and guard: store`), so that a
 * T.Parallel nest's body keeps the shapes lower-tile-ops vectorizes:
 * `if pred: dst = src` and `dst = T.if_then_else(pred, src, 0)`.
 *
 * Tile ops keep their own meaning: T.copy, T.fill and tile T.atomic_add
 * clip their partial tiles as they lower (lower_copy.c), so their operands
 * (regions, corner elements) are not accesses here; loads inside their
 * index expressions are.  The element operands of lowered intrinsics
 * (T.copy_vec, T.cp_async, ...) are addresses, left alone likewise.
 *
 * The function gets the attribute "tlc.bounds_legalized": from here on
 * every guard is in the IR, so tlc-sim reports an access that still falls
 * outside its tensor as the error it would be on the GPU (doc/sim.md).
 * Option `enable` (default true) turns the pass off. */
#include "config.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/bounds.h>
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/walk.h>

typedef struct lb_state {
	tlc_module *m;
	tlc_func *f;
	tlc_ranges ranges; /* loop, block, thread and LET variables in scope */
	/* conditions that hold where the rewrite is */
	int nfacts, cap_facts;
	const tlc_expr **facts;
	/* ranges.n where each open statement scope began */
	int depth, cap_depth;
	int *saved;
	/* the safe values met so far, by buffer */
	int nsafe, cap_safe;
	const tlc_buffer **safe_buf;
	const tlc_expr **safe_val;
	/* the guards this pass made, which may join an enclosing condition */
	int nguards, cap_guards;
	const void **guards;
} lb_state;

static void remember_guard(lb_state *st, const void *g)
{
	st->guards = tlc_mem_grow(st->guards, st->nguards, &st->cap_guards, sizeof(*st->guards));
	st->guards[st->nguards++] = g;
}

static bool is_guard(const lb_state *st, const void *g)
{
	for (int i = st->nguards - 1; i >= 0; i--)
		if (st->guards[i] == g)
			return true;
	return false;
}

static const tlc_expr *safe_of(lb_state *st, const tlc_buffer *b)
{
	for (int i = 0; i < st->nsafe; i++)
		if (st->safe_buf[i] == b)
			return st->safe_val[i];
	int cap = st->cap_safe; /* the two tables grow together */
	st->safe_buf = tlc_mem_grow(st->safe_buf, st->nsafe, &st->cap_safe, sizeof(*st->safe_buf));
	st->safe_val = tlc_mem_grow(st->safe_val, st->nsafe, &cap, sizeof(*st->safe_val));
	st->safe_buf[st->nsafe] = b;
	st->safe_val[st->nsafe] = tlc_safe_value(st->m, st->f, b);
	return st->safe_val[st->nsafe++];
}

/* ---- facts ---- */

/* A variable compared with a constant narrows its range: v < k, v <= k,
 * k < v, k <= v (any spelling), conjunct by conjunct. */
static void narrow_var(lb_state *st, const tlc_expr *c)
{
	if (c->kind == TLC_EXPR_AND) {
		narrow_var(st, c->u.op.a);
		narrow_var(st, c->u.op.b);
		return;
	}
	const tlc_expr *lhs, *rhs;
	bool strict;
	switch (c->kind) {
	case TLC_EXPR_LT: lhs = c->u.op.a, rhs = c->u.op.b, strict = true; break;
	case TLC_EXPR_LE: lhs = c->u.op.a, rhs = c->u.op.b, strict = false; break;
	case TLC_EXPR_GT: lhs = c->u.op.b, rhs = c->u.op.a, strict = true; break;
	case TLC_EXPR_GE: lhs = c->u.op.b, rhs = c->u.op.a, strict = false; break;
	default: return;
	}
	int64_t k, lo, hi;
	const tlc_expr *v = lhs->kind == TLC_EXPR_VAR ? lhs : rhs->kind == TLC_EXPR_VAR ? rhs : NULL;
	if (!v || !tlc_dtype_is_int(v->dtype) || !tlc_expr_as_int(v == lhs ? rhs : lhs, &k) || k <= INT32_MIN ||
	    k >= INT32_MAX)
		return;
	if (!tlc_expr_bounds(&st->ranges, v, &lo, &hi)) {
		if (v->dtype != TLC_DT_INT32)
			return;
		lo = INT32_MIN, hi = INT32_MAX;
	}
	if (v == lhs && (strict ? k - 1 : k) < hi)
		hi = strict ? k - 1 : k; /* v < k, v <= k */
	if (v == rhs && (strict ? k + 1 : k) > lo)
		lo = strict ? k + 1 : k; /* k < v, k <= v */
	if (lo <= hi)
		tlc_ranges_push(&st->ranges, v->u.var, lo, hi);
}

/* Condition c holds from here until pop_facts. */
static void push_fact(lb_state *st, const tlc_expr *c)
{
	st->facts = tlc_mem_grow(st->facts, st->nfacts, &st->cap_facts, sizeof(*st->facts));
	st->facts[st->nfacts++] = c;
	narrow_var(st, c);
}

/* Does x read memory that s writes?  (Its value inside s may then not be
 * the one tested before s.) */
static tlc_walk_action load_written(void *p, const tlc_expr *e)
{
	const tlc_stmt *s = p;
	return e->kind == TLC_EXPR_LOAD && (tlc_stmt_use_of(s, e->u.load.buf) & TLC_ACCESS_WRITE) ? TLC_WALK_STOP
	                                                                                          : TLC_WALK_CONTINUE;
}

/* An `if`'s condition holds in its then-branch s: each conjunct that reads
 * nothing s writes (`if p[0] < n: p[0] = m; A[p[0]]` proves nothing). */
static void push_branch_facts(lb_state *st, const tlc_expr *c, const tlc_stmt *s)
{
	if (c->kind == TLC_EXPR_AND) {
		push_branch_facts(st, c->u.op.a, s);
		push_branch_facts(st, c->u.op.b, s);
		return;
	}
	if (tlc_walk_expr(&(tlc_visitor){.ctx = (void *)s, .expr_pre = load_written}, c))
		push_fact(st, c);
}

typedef struct fact_mark {
	int nfacts, nranges;
} fact_mark;

static fact_mark mark_facts(const lb_state *st)
{
	return (fact_mark){st->nfacts, st->ranges.n};
}

static void pop_facts(lb_state *st, fact_mark k)
{
	st->nfacts = k.nfacts;
	st->ranges.n = k.nranges;
}

static const tlc_expr *guard_of(lb_state *st, const tlc_expr *access)
{
	const tlc_buffer *b = access->u.load.buf;
	if (b->scope != TLC_SCOPE_GLOBAL)
		return NULL;
	return tlc_access_guard(st->m, &st->ranges, b, access->u.load.n, access->u.load.idx, st->nfacts, st->facts);
}

/* ---- expressions ---- */

/* x with its indices rewritten, x itself not guarded: the element
 * operand of a tile op or an intrinsic, which names a place. */
static const tlc_expr *rewrite_indices(tlc_rewriter *rw, const tlc_expr *x)
{
	int n = tlc_expr_num_children(x);
	if (n == 0)
		return x;
	const tlc_expr **k = tlc_mem_alloc(sizeof(*k) * (size_t)n);
	for (int i = 0; i < n; i++)
		k[i] = tlc_expr_rewrite(rw, tlc_expr_child(x, i));
	const tlc_expr *out = tlc_expr_with_children(rw->m, x, k);
	tlc_mem_free(k);
	return out;
}

/* Are a and b the same value (a constant and its converted spelling)? */
static bool same_value(const tlc_expr *a, const tlc_expr *b)
{
	if (a == b)
		return true;
	if ((a->kind != TLC_EXPR_INT && a->kind != TLC_EXPR_FLOAT) || (b->kind != TLC_EXPR_INT && b->kind != TLC_EXPR_FLOAT))
		return false;
	double x = a->kind == TLC_EXPR_INT ? (double)a->u.ival : a->u.fval;
	double y = b->kind == TLC_EXPR_INT ? (double)b->u.ival : b->u.fval;
	return x == y;
}

/* T.if_then_else: its condition holds in its then-value. */
static const tlc_expr *rewrite_select(tlc_rewriter *rw, const tlc_expr *e)
{
	lb_state *st = rw->ctx;
	const tlc_expr *c = tlc_expr_rewrite(rw, e->u.op.a);
	fact_mark k = mark_facts(st);
	push_fact(st, c);
	const tlc_expr *t = tlc_expr_rewrite(rw, e->u.op.b);
	pop_facts(st, k);
	const tlc_expr *f = tlc_expr_rewrite(rw, e->u.op.c);
	/* if_then_else(c, if_then_else(g, x, s), s) is if_then_else(c and g, x, s) */
	if (t->kind == TLC_EXPR_SELECT && is_guard(st, t) && same_value(t->u.op.c, f) && t->dtype == e->dtype) {
		const tlc_expr *j = tlc_select(rw->m, tlc_binary(rw->m, TLC_EXPR_AND, c, t->u.op.a), t->u.op.b, f);
		remember_guard(st, j);
		return j;
	}
	if (c == e->u.op.a && t == e->u.op.b && f == e->u.op.c)
		return e;
	return tlc_select(rw->m, c, t, f);
}

static const tlc_expr *lb_expr_pre(tlc_rewriter *rw, const tlc_expr *e)
{
	if (e->kind == TLC_EXPR_SELECT)
		return rewrite_select(rw, e);
	if (e->kind == TLC_EXPR_LAMBDA)
		return e; /* a layout function: index arithmetic, no memory */
	if (e->kind == TLC_EXPR_CALL && e->u.call.op == TLC_OP_ADDRESS_OF && e->u.call.nargs == 1) {
		/* T.address_of(A[i]) names a place for T.call_extern and reads
		 * nothing: its indices are rewritten, the element is not guarded */
		const tlc_expr *at = rewrite_indices(rw, e->u.call.args[0]);
		return tlc_call(rw->m, TLC_OP_ADDRESS_OF, e->dtype, 1, &at, 0, NULL, NULL);
	}
	return NULL;
}

/* A load of a global tensor (its indices rewritten already). */
static const tlc_expr *lb_expr_post(tlc_rewriter *rw, const tlc_expr *e)
{
	lb_state *st = rw->ctx;
	if (e->kind != TLC_EXPR_LOAD)
		return NULL;
	const tlc_expr *g = guard_of(st, e);
	if (!g)
		return NULL;
	const tlc_expr *safe = safe_of(st, e->u.load.buf);
	const tlc_expr *x = tlc_select(rw->m, g, e, safe);
	remember_guard(st, x);
	return x;
}

/* ---- statements ---- */

static tlc_stmt *guarded(lb_state *st, const tlc_expr *g, tlc_stmt *s)
{
	if (!g)
		return s;
	tlc_stmt *i = tlc_if_new(st->m, s->loc, g, s, NULL);
	remember_guard(st, i);
	return i;
}

/* A store: its indices, then its guard, which holds for its value. */
static tlc_stmt *rewrite_store(tlc_rewriter *rw, tlc_stmt *s)
{
	lb_state *st = rw->ctx;
	for (int i = 0; i < s->u.store.n; i++)
		s->u.store.idx[i] = tlc_expr_rewrite(rw, s->u.store.idx[i]);
	const tlc_expr *g = NULL;
	if (s->u.store.buf->scope == TLC_SCOPE_GLOBAL)
		g = tlc_access_guard(st->m, &st->ranges, s->u.store.buf, s->u.store.n, s->u.store.idx, st->nfacts, st->facts);
	fact_mark k = mark_facts(st);
	if (g)
		push_fact(st, g);
	s->u.store.value = tlc_expr_rewrite(rw, s->u.store.value);
	pop_facts(st, k);
	return guarded(st, g, s);
}

/* Does operand i of a statement call name a place rather than give a
 * value?  Tile ops' operands are tiles (a corner element too), except
 * T.fill's value and an element T.atomic_add's value; lowered intrinsics
 * and synchronisation take element addresses. */
static bool names_a_place(const tlc_module *m, const tlc_expr *c, bool element_atomic, int i)
{
	unsigned flags = tlc_op_get(tlc_module_context(m), c->u.call.op)->flags;
	if (c->u.call.op == TLC_OP_FILL || element_atomic)
		return i == 0;
	return flags & (TLC_OPF_TILE | TLC_OPF_LOWERED | TLC_OPF_SYNC);
}

static tlc_stmt *rewrite_call(tlc_rewriter *rw, tlc_stmt *s)
{
	lb_state *st = rw->ctx;
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL)
		return NULL;
	if (c->u.call.op == TLC_OP_ANNOTATE_LAYOUT || c->u.call.op == TLC_OP_ANNOTATE_SAFE_VALUE ||
	    c->u.call.op == TLC_OP_USE_SWIZZLE)
		return s; /* declarations: no memory */
	int n = tlc_expr_num_children(c);
	const tlc_expr **k = tlc_mem_alloc(sizeof(*k) * (size_t)(n + 1));
	const tlc_expr *g = NULL;
	/* an element T.atomic_add / atomic_max / atomic_min: a store of its destination */
	tlc_op_id op = c->u.call.op;
	bool element_atomic = (op == TLC_OP_ATOMIC_ADD || op == TLC_OP_ATOMIC_MAX ||
	                       op == TLC_OP_ATOMIC_MIN) &&
	                      c->u.call.nargs == 2 &&
	                      c->u.call.args[0]->kind == TLC_EXPR_LOAD;
	for (int i = 0; i < n; i++) {
		const tlc_expr *x = tlc_expr_child(c, i);
		bool place = i < c->u.call.nargs && names_a_place(rw->m, c, element_atomic, i) && x->kind == TLC_EXPR_LOAD;
		k[i] = place ? rewrite_indices(rw, x) : NULL;
		if (place && element_atomic && i == 0)
			g = guard_of(st, k[0]);
	}
	fact_mark mk = mark_facts(st);
	if (g)
		push_fact(st, g);
	for (int i = 0; i < n; i++)
		if (!k[i])
			k[i] = tlc_expr_rewrite(rw, tlc_expr_child(c, i));
	pop_facts(st, mk);
	s->u.eval.call = tlc_expr_with_children(rw->m, c, k);
	tlc_mem_free(k);
	return guarded(st, g, s);
}

/* The only statement of a block, looking through blocks of one. */
static tlc_stmt **only_stmt(tlc_stmt **slot)
{
	while (*slot && (*slot)->kind == TLC_STMT_SEQ && (*slot)->u.seq.n == 1)
		slot = &(*slot)->u.seq.items[0];
	return slot;
}

/* An `if`: its condition holds in its then-branch.  A guard that is all
 * of a then-branch without else joins the condition. */
static tlc_stmt *rewrite_if(tlc_rewriter *rw, tlc_stmt *s)
{
	lb_state *st = rw->ctx;
	s->u.if_.cond = tlc_expr_rewrite(rw, s->u.if_.cond);
	fact_mark k = mark_facts(st);
	push_branch_facts(st, s->u.if_.cond, s->u.if_.then_s);
	s->u.if_.then_s = tlc_stmt_rewrite(rw, s->u.if_.then_s);
	pop_facts(st, k);
	if (s->u.if_.else_s)
		s->u.if_.else_s = tlc_stmt_rewrite(rw, s->u.if_.else_s);
	tlc_stmt **inner = only_stmt(&s->u.if_.then_s);
	if (!s->u.if_.else_s && *inner && (*inner)->kind == TLC_STMT_IF && is_guard(st, *inner)) {
		tlc_stmt *g = *inner;
		s->u.if_.cond = tlc_binary(st->m, TLC_EXPR_AND, s->u.if_.cond, g->u.if_.cond);
		*inner = g->u.if_.then_s;
	}
	return s;
}

static bool opens_scope(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_SEQ || s->kind == TLC_STMT_FOR || s->kind == TLC_STMT_SCOPE ||
	       s->kind == TLC_STMT_ATTR;
}

static tlc_stmt *lb_stmt_pre(tlc_rewriter *rw, tlc_stmt *s)
{
	lb_state *st = rw->ctx;
	switch (s->kind) {
	case TLC_STMT_STORE: return rewrite_store(rw, s);
	case TLC_STMT_EVAL: return rewrite_call(rw, s);
	case TLC_STMT_IF: return rewrite_if(rw, s);
	case TLC_STMT_ALLOC: {
		/* an initial value is read where the buffer is declared (the
		 * rewriter leaves declarations alone: this pass owns the edit) */
		tlc_buffer *b = s->u.alloc.buf;
		for (int i = 0; i < b->ninit; i++)
			b->init[i] = tlc_expr_rewrite(rw, b->init[i]);
		return s;
	}
	case TLC_STMT_LET: {
		int64_t lo, hi;
		if (tlc_expr_bounds(&st->ranges, s->u.let.value, &lo, &hi))
			tlc_ranges_push(&st->ranges, s->u.let.var, lo, hi);
		return NULL;
	}
	default: break;
	}
	if (opens_scope(s)) {
		st->saved = tlc_mem_grow(st->saved, st->depth, &st->cap_depth, sizeof(*st->saved));
		st->saved[st->depth++] = st->ranges.n;
	}
	if (s->kind == TLC_STMT_FOR)
		tlc_ranges_push_loop(&st->ranges, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
	return NULL;
}

static tlc_stmt *lb_stmt_post(tlc_rewriter *rw, tlc_stmt *s)
{
	lb_state *st = rw->ctx;
	if (opens_scope(s))
		st->ranges.n = st->saved[--st->depth];
	return NULL;
}

static int run_legalize_bounds(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	if (!tlc_opt_bool(opts, "enable", true))
		return 0;
	lb_state st = {.m = m, .f = f};
	tlc_ranges_push_frame(&st.ranges, f);
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.ctx = &st;
	rw.stmt_pre = lb_stmt_pre;
	rw.stmt_post = lb_stmt_post;
	rw.expr_pre = lb_expr_pre;
	rw.expr_post = lb_expr_post;
	f->body = tlc_stmt_rewrite(&rw, f->body);
	tlc_rewriter_free(&rw);
	tlc_func_set_attr(m, f, "tlc.bounds_legalized", tlc_bool(m, true));
	tlc_ranges_free(&st.ranges);
	tlc_mem_free(st.facts);
	tlc_mem_free(st.saved);
	tlc_mem_free(st.safe_buf);
	tlc_mem_free(st.safe_val);
	tlc_mem_free(st.guards);
	return 0;
}

static const tlc_pass_option legalize_bounds_options[] = {
	{"enable", TLC_OPT_BOOL, "guard the global accesses not provably inside their tensors (default true)"},
	{NULL, TLC_OPT_BOOL, NULL},
};

static const tlc_pass_desc legalize_bounds_pass = {
	.name = "legalize-bounds",
	.summary = "mask global loads and stores not provably inside their tensors (TileLang's bounds semantics)",
	.run = run_legalize_bounds,
	.options = legalize_bounds_options,
};

static int legalize_bounds_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &legalize_bounds_pass);
}

static const tlc_plugin_desc legalize_bounds_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "legalize_bounds",
	.version = "0.1.0",
	.description = "the legalize-bounds pass",
	.init = legalize_bounds_init,
};

TLC_DEFINE_PLUGIN(legalize_bounds_plugin)
