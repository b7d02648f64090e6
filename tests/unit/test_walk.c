/* test_walk.c - unit tests of the IR walker and rewriter (tlc/walk.h):
 * operand numbering of every expression kind, visit order, skip and stop,
 * every expression position of every statement reached, substitution of
 * variables, buffers and statements, clones, and sharing of what did not
 * change.  Expected traces and texts were worked out by hand from
 * tlc/walk.h and doc/ir.md. */
#include "tap.h"

#include <stdlib.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/walk.h>

static tlc_context *ctx;
static tlc_module *m;
static tlc_loc noloc;

static const tlc_expr *V(tlc_var *v) { return tlc_var_ref(m, v); }
static const tlc_expr *I(int64_t v) { return tlc_i32(m, v); }
static const tlc_expr *bin(tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b) { return tlc_binary(m, k, a, b); }
static const tlc_expr *add(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_ADD, a, b); }
static const tlc_expr *mul(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_MUL, a, b); }
static tlc_var *ivar(const char *name) { return tlc_var_new(m, name, TLC_DT_INT32); }

static tlc_buffer *buffer(const char *name, tlc_scope scope, int64_t n)
{
	return tlc_buffer_new(m, name, TLC_DT_FLOAT32, scope, 1, (const tlc_expr *[]){I(n)}, noloc);
}

static const tlc_expr *call0(tlc_op_id op)
{
	return tlc_call(m, op, TLC_DT_VOID, 0, NULL, 0, NULL, NULL);
}

static const char *const kind_names[] = {
#define EXPR(e, spelling, arity) #e,
#include <tlc/exprs.def>
#undef EXPR
};

static const char *const stmt_names[] = {"SEQ", "FOR", "IF", "LET", "STORE", "EVAL", "ALLOC", "SCOPE", "ATTR"};

/* The printed form of a statement (static buffer, valid until the next call). */
static const char *PS(const tlc_stmt *s)
{
	static tlc_buf b;
	tlc_buf_free(&b);
	tlc_buf_init(&b);
	tlc_print_stmt(&b, m, s, 0);
	return tlc_buf_str(&b);
}

/* ---- a sample of every expression kind ---- */

/* An expression of kind k; for a kind with operands, `marker` is its last
 * operand (or inside it), so that reaching the marker proves the walk went
 * through all of them.  NULL for a kind this test does not know yet: add
 * it here when adding it to exprs.def. */
static const tlc_expr *sample(tlc_expr_kind k, tlc_var *marker)
{
	tlc_buffer *A = buffer("A", TLC_SCOPE_GLOBAL, 64);
	const tlc_expr *x = V(marker);
	if (k >= TLC_EXPR_ADD && k <= TLC_EXPR_SHR)
		return bin(k, I(7), x);
	switch (k) {
	case TLC_EXPR_INT: return I(3);
	case TLC_EXPR_FLOAT: return tlc_float(m, TLC_DT_FLOAT32, 1.5);
	case TLC_EXPR_STR: return tlc_str(m, "s");
	case TLC_EXPR_SYM: return tlc_sym(m, "T.GemmWarpPolicy.FullRow");
	case TLC_EXPR_VAR: return x;
	case TLC_EXPR_BUF: return tlc_buf_ref(m, A);
	case TLC_EXPR_NOT: return tlc_unary(m, TLC_EXPR_NOT, bin(TLC_EXPR_LT, x, I(0)));
	case TLC_EXPR_NEG: return tlc_unary(m, TLC_EXPR_NEG, x);
	case TLC_EXPR_SELECT: return tlc_select(m, tlc_bool(m, true), I(1), x);
	case TLC_EXPR_CAST: return tlc_cast(m, TLC_DT_INT64, x);
	case TLC_EXPR_BITCAST: return tlc_bitcast(m, TLC_DT_FLOAT32, x);
	case TLC_EXPR_LOAD: return tlc_load(m, A, 1, (const tlc_expr *[]){x});
	case TLC_EXPR_REGION: {
		tlc_range dims[2] = {{I(0), I(1), true}, {I(8), x, false}};
		return tlc_region(m, A, 2, dims);
	}
	case TLC_EXPR_TUPLE:
		return tlc_dict(m, 1, (const tlc_expr *[]){tlc_str(m, "k")},
		                (const tlc_expr *[]){tlc_tuple(m, 2, (const tlc_expr *[]){I(1), x}, true)});
	case TLC_EXPR_CALL:
		return tlc_call(m, TLC_OP_POW, TLC_DT_INT32, 1, (const tlc_expr *[]){I(1)}, 1, (const char *[]){"kw"},
		                (const tlc_expr *[]){x});
	case TLC_EXPR_LAMBDA: {
		tlc_var *p = ivar("p");
		return tlc_lambda(m, 1, &p, add(V(p), x));
	}
	default: return NULL;
	}
}

/* ---- operands ---- */

static bool children_are(const tlc_expr *e, int n, const tlc_expr *const *want)
{
	if (tlc_expr_num_children(e) != n)
		return false;
	for (int i = 0; i < n; i++)
		if (tlc_expr_child(e, i) != want[i])
			return false;
	return tlc_expr_child(e, n) == NULL && tlc_expr_child(e, -1) == NULL;
}

static void test_children(void)
{
	tlc_var *x = ivar("x"), *y = ivar("y");
	tlc_buffer *A = buffer("A", TLC_SCOPE_GLOBAL, 64);
	const tlc_expr *sel = tlc_select(m, bin(TLC_EXPR_LT, V(x), V(y)), V(x), I(2));
	ok(children_are(sel, 3, (const tlc_expr *[]){bin(TLC_EXPR_LT, V(x), V(y)), V(x), I(2)}),
	   "SELECT: cond, then, else");
	tlc_range dims[2] = {{V(x), I(1), true}, {I(0), V(y), false}};
	const tlc_expr *reg = tlc_region(m, A, 2, dims);
	ok(children_are(reg, 4, (const tlc_expr *[]){V(x), I(1), I(0), V(y)}), "REGION: begin, extent per dimension");
	const tlc_expr *d = tlc_dict(m, 2, (const tlc_expr *[]){tlc_str(m, "a"), tlc_str(m, "b")},
	                             (const tlc_expr *[]){V(x), V(y)});
	ok(children_are(d, 4, (const tlc_expr *[]){tlc_str(m, "a"), V(x), tlc_str(m, "b"), V(y)}),
	   "dict: key, value per pair");
	const tlc_expr *c = tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2, (const tlc_expr *[]){V(x), V(y)}, 1,
	                             (const char *[]){"k"}, (const tlc_expr *[]){I(4)});
	ok(children_are(c, 3, (const tlc_expr *[]){V(x), V(y), I(4)}), "CALL: positional then keyword values");
	tlc_var *p = ivar("p");
	const tlc_expr *lam = tlc_lambda(m, 1, &p, add(V(p), V(x)));
	ok(children_are(lam, 1, (const tlc_expr *[]){add(V(p), V(x))}), "LAMBDA: the body only");
	ok(children_are(tlc_load(m, A, 1, (const tlc_expr *[]){V(y)}), 1, (const tlc_expr *[]){V(y)}), "LOAD: indices");
	ok(children_are(V(x), 0, NULL) && children_are(tlc_buf_ref(m, A), 0, NULL) && tlc_expr_num_children(NULL) == 0,
	   "VAR and BUF have no operands");

	/* rebuilding: the same operands give the node itself, others a new node */
	int unchanged = 0, known = 0;
	tlc_var *mk = ivar("mk");
	for (int k = 0; k < TLC_EXPR_COUNT; k++) {
		const tlc_expr *e = sample((tlc_expr_kind)k, mk);
		if (!e)
			continue;
		known++;
		const tlc_expr *kids[8];
		int n = tlc_expr_num_children(e);
		for (int i = 0; i < n && i < 8; i++)
			kids[i] = tlc_expr_child(e, i);
		unchanged += tlc_expr_with_children(m, e, kids) == e;
	}
	is_int(known, TLC_EXPR_COUNT, "sample() knows every expression kind");
	is_int(unchanged, TLC_EXPR_COUNT, "tlc_expr_with_children with the same operands returns the node itself");
	ok(tlc_expr_with_children(m, sel, (const tlc_expr *[]){tlc_bool(m, false), V(y), I(2)}) ==
	       tlc_select(m, tlc_bool(m, false), V(y), I(2)),
	   "SELECT rebuilt over new operands");
	ok(tlc_expr_with_children(m, reg, (const tlc_expr *[]){I(5), I(1), I(2), I(6)}) ==
	       tlc_region(m, A, 2, (tlc_range[]){{I(5), I(1), true}, {I(2), I(6), false}}),
	   "REGION rebuilt keeps its point dimensions");
	ok(tlc_expr_with_children(m, d, (const tlc_expr *[]){tlc_str(m, "a"), I(1), tlc_str(m, "c"), I(2)}) ==
	       tlc_dict(m, 2, (const tlc_expr *[]){tlc_str(m, "a"), tlc_str(m, "c")}, (const tlc_expr *[]){I(1), I(2)}),
	   "dict rebuilt from keys and values");
	ok(tlc_expr_with_children(m, c, (const tlc_expr *[]){V(y), V(x), I(8)}) ==
	       tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2, (const tlc_expr *[]){V(y), V(x)}, 1, (const char *[]){"k"},
	                (const tlc_expr *[]){I(8)}),
	   "CALL rebuilt keeps its keyword names");
	ok(tlc_expr_with_children(m, lam, (const tlc_expr *[]){V(p)}) == tlc_lambda(m, 1, &p, V(p)),
	   "LAMBDA rebuilt keeps its parameters");
}

/* ---- the visitor ---- */

typedef struct trace {
	tlc_buf out;
	const tlc_stmt *skip_stmt;  /* pre-hook answers SKIP here */
	const tlc_expr *skip_expr;
	const tlc_expr *stop_expr;  /* ... STOP here */
	int kinds[TLC_EXPR_COUNT];  /* pre-hook calls per expression kind */
	const tlc_var *markers[16]; /* visits of each marker variable */
	int marker_hits[16];
	int nmarkers;
} trace;

static tlc_walk_action trace_stmt_pre(void *p, const tlc_stmt *s)
{
	trace *t = p;
	tlc_buf_printf(&t->out, "%s{ ", stmt_names[s->kind]);
	return s == t->skip_stmt ? TLC_WALK_SKIP : TLC_WALK_CONTINUE;
}

static void trace_stmt_post(void *p, const tlc_stmt *s)
{
	(void)s;
	tlc_buf_puts(&((trace *)p)->out, "} ");
}

static tlc_walk_action trace_expr_pre(void *p, const tlc_expr *e)
{
	trace *t = p;
	t->kinds[e->kind]++;
	if (e->kind == TLC_EXPR_VAR)
		for (int i = 0; i < t->nmarkers; i++)
			t->marker_hits[i] += e->u.var == t->markers[i];
	if (e->kind == TLC_EXPR_VAR)
		tlc_buf_printf(&t->out, "%s ", e->u.var->name);
	else if (e->kind == TLC_EXPR_INT)
		tlc_buf_printf(&t->out, "%lld ", (long long)e->u.ival);
	else if (tlc_expr_num_children(e) == 0)
		tlc_buf_printf(&t->out, "%s ", kind_names[e->kind]);
	else
		tlc_buf_printf(&t->out, "%s( ", kind_names[e->kind]);
	if (e == t->stop_expr)
		return TLC_WALK_STOP;
	return e == t->skip_expr ? TLC_WALK_SKIP : TLC_WALK_CONTINUE;
}

static void trace_expr_post(void *p, const tlc_expr *e)
{
	if (tlc_expr_num_children(e) > 0)
		tlc_buf_puts(&((trace *)p)->out, ") ");
}

static tlc_visitor trace_visitor(trace *t)
{
	*t = (trace){0};
	tlc_buf_init(&t->out);
	return (tlc_visitor){t, trace_stmt_pre, trace_stmt_post, trace_expr_pre, trace_expr_post};
}

/*  for i in T.serial(n):
 *      x = i * 2
 *      A[x] = B[i] + 1
 *  if n > 0:
 *      T.sync_threads()          */
typedef struct small_tree {
	tlc_var *i, *x, *n;
	tlc_buffer *A, *B;
	tlc_stmt *root, *loop, *let, *store, *ifs, *sync;
} small_tree;

static small_tree make_small_tree(void)
{
	small_tree t;
	t.i = ivar("i");
	t.x = ivar("x");
	t.n = ivar("n");
	t.A = buffer("A", TLC_SCOPE_GLOBAL, 64);
	t.B = buffer("B", TLC_SCOPE_GLOBAL, 64);
	t.root = tlc_seq_new(m, noloc);
	tlc_stmt *body = tlc_seq_new(m, noloc);
	t.let = tlc_let_new(m, noloc, t.x, mul(V(t.i), I(2)));
	t.store = tlc_store_new(m, noloc, t.A, 1, (const tlc_expr *[]){V(t.x)},
	                        add(tlc_load(m, t.B, 1, (const tlc_expr *[]){V(t.i)}), I(1)));
	tlc_seq_append(m, body, t.let);
	tlc_seq_append(m, body, t.store);
	t.loop = tlc_for_new(m, noloc, t.i, I(0), V(t.n), TLC_FOR_SERIAL, body);
	t.sync = tlc_eval_new(m, noloc, call0(TLC_OP_SYNC_THREADS));
	t.ifs = tlc_if_new(m, noloc, bin(TLC_EXPR_GT, V(t.n), I(0)), t.sync, NULL);
	tlc_seq_append(m, t.root, t.loop);
	tlc_seq_append(m, t.root, t.ifs);
	return t;
}

static void test_visit_order(void)
{
	small_tree st = make_small_tree();
	trace t;
	tlc_visitor v = trace_visitor(&t);
	ok(tlc_walk_stmt(&v, st.root), "a full walk returns true");
	is_str(tlc_buf_str(&t.out),
	       "SEQ{ FOR{ 0 n SEQ{ LET{ MUL( i 2 ) } STORE{ x ADD( LOAD( i ) FLOAT ) } } } "
	       "IF{ GT( n 0 ) EVAL{ CALL } } } ",
	       "pre/post order: statement, its expressions, its nested statements");
	tlc_buf_free(&t.out);

	v = trace_visitor(&t);
	t.skip_stmt = st.loop;
	t.skip_expr = bin(TLC_EXPR_GT, V(st.n), I(0));
	ok(tlc_walk_stmt(&v, st.root), "a walk with skips returns true");
	is_str(tlc_buf_str(&t.out), "SEQ{ FOR{ } IF{ GT( ) EVAL{ CALL } } } ",
	       "SKIP leaves out the insides, the post-hooks still run");
	tlc_buf_free(&t.out);

	v = trace_visitor(&t);
	t.stop_expr = tlc_load(m, st.B, 1, (const tlc_expr *[]){V(st.i)});
	ok(!tlc_walk_stmt(&v, st.root), "a stopped walk returns false");
	is_str(tlc_buf_str(&t.out), "SEQ{ FOR{ 0 n SEQ{ LET{ MUL( i 2 ) } STORE{ x ADD( LOAD( ",
	       "STOP ends the walk: no hook runs after it, not even post-hooks");
	tlc_buf_free(&t.out);

	/* statement hooks only: expressions are not visited at all */
	v = trace_visitor(&t);
	v.expr_pre = NULL;
	v.expr_post = NULL;
	tlc_walk_stmt(&v, st.root);
	is_str(tlc_buf_str(&t.out), "SEQ{ FOR{ SEQ{ LET{ } STORE{ } } } IF{ EVAL{ } } } ", "a statement-only walk");
	is_int(t.kinds[TLC_EXPR_VAR], 0, "... calls no expression hook");
	tlc_buf_free(&t.out);

	/* a shared sub-expression is visited at each occurrence */
	v = trace_visitor(&t);
	const tlc_expr *ii = mul(V(st.i), V(st.i));
	tlc_walk_expr(&v, add(ii, ii));
	is_str(tlc_buf_str(&t.out), "ADD( MUL( i i ) MUL( i i ) ) ", "shared operands are visited per occurrence");
	tlc_buf_free(&t.out);
}

static void test_every_kind_reached(void)
{
	trace t;
	tlc_visitor v = trace_visitor(&t);
	tlc_var *marker = ivar("mk");
	const tlc_expr *args[TLC_EXPR_COUNT];
	int n = 0;
	for (int k = 0; k < TLC_EXPR_COUNT; k++)
		if ((args[n] = sample((tlc_expr_kind)k, marker)))
			n++;
	tlc_stmt *s = tlc_eval_new(m, noloc, tlc_tuple(m, n, args, false));
	t.markers[0] = marker;
	t.nmarkers = 1;
	tlc_walk_stmt(&v, s);
	int missing = 0;
	for (int k = 0; k < TLC_EXPR_COUNT; k++)
		if (!t.kinds[k]) {
			diag("kind %s not reached", kind_names[k]);
			missing++;
		}
	is_int(missing, 0, "the walk reaches every expression kind");
	/* every sample but the leaves INT, FLOAT, STR, SYM, BUF holds the marker as its last operand */
	is_int(t.marker_hits[0], TLC_EXPR_COUNT - 5, "the walk reaches the last operand of every kind");
	tlc_buf_free(&t.out);
}

/* Each expression position of each statement kind holds its own marker. */
static void test_every_position_reached(void)
{
	tlc_var *mk[13];
	static const char *const names[13] = {"for_min", "for_extent", "for_layout", "if_cond", "let_value",
	                                      "store_i0", "store_i1", "store_value", "eval_call", "scope_call",
	                                      "attr_value", "alloc_shape", "alloc_init"};
	for (int i = 0; i < 13; i++)
		mk[i] = ivar(names[i]);
	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_FLOAT32, TLC_SCOPE_GLOBAL, 2, (const tlc_expr *[]){I(8), I(8)}, noloc);
	tlc_buffer *acc = tlc_buffer_new(m, "acc", TLC_DT_INT32, TLC_SCOPE_VAR, 1, (const tlc_expr *[]){V(mk[11])}, noloc);
	acc->ninit = 1;
	acc->init = tlc_alloc(m, sizeof(*acc->init));
	acc->init[0] = V(mk[12]);
	tlc_stmt *root = tlc_seq_new(m, noloc);
	tlc_stmt *loop = tlc_for_new(m, noloc, ivar("i"), V(mk[0]), V(mk[1]), TLC_FOR_PARALLEL, NULL);
	loop->u.loop.loop_layout = tlc_call(m, TLC_OP_FRAGMENT, TLC_DT_VOID, 1, (const tlc_expr *[]){V(mk[2])}, 0, NULL, NULL);
	tlc_seq_append(m, root, loop);
	tlc_seq_append(m, root, tlc_if_new(m, noloc, bin(TLC_EXPR_LT, V(mk[3]), I(1)), NULL, tlc_seq_new(m, noloc)));
	tlc_seq_append(m, root, tlc_let_new(m, noloc, ivar("y"), V(mk[4])));
	tlc_seq_append(m, root, tlc_store_new(m, noloc, A, 2, (const tlc_expr *[]){V(mk[5]), V(mk[6])}, V(mk[7])));
	tlc_seq_append(m, root, tlc_eval_new(m, noloc, tlc_call(m, TLC_OP_SYNC_THREADS, TLC_DT_VOID, 1,
	                                                         (const tlc_expr *[]){V(mk[8])}, 0, NULL, NULL)));
	tlc_seq_append(m, root, tlc_scope_new(m, noloc, tlc_call(m, TLC_OP_WS, TLC_DT_VOID, 1,
	                                                         (const tlc_expr *[]){V(mk[9])}, 0, NULL, NULL), NULL));
	tlc_seq_append(m, root, tlc_attr_new(m, noloc, "key", V(mk[10]), NULL));
	tlc_seq_append(m, root, tlc_alloc_new(m, noloc, acc));
	trace t;
	tlc_visitor v = trace_visitor(&t);
	for (int i = 0; i < 13; i++)
		t.markers[i] = mk[i];
	t.nmarkers = 13;
	tlc_walk_stmt(&v, root);
	for (int i = 0; i < 13; i++)
		is_int(t.marker_hits[i], 1, names[i]);
	is_str(tlc_buf_str(&t.out),
	       "SEQ{ FOR{ for_min for_extent CALL( for_layout ) SEQ{ } } IF{ LT( if_cond 1 ) SEQ{ } SEQ{ } } "
	       "LET{ let_value } STORE{ store_i0 store_i1 store_value } EVAL{ CALL( eval_call ) } "
	       "SCOPE{ CALL( scope_call ) SEQ{ } } ATTR{ attr_value SEQ{ } } ALLOC{ alloc_shape alloc_init } } ",
	       "every statement position, in printed order");
	tlc_buf_free(&t.out);

	/* the parts of a statement, numbered */
	ok(tlc_stmt_num_exprs(loop) == 3 && tlc_stmt_expr(loop, 1) == V(mk[1]) && tlc_stmt_expr(loop, 3) == NULL,
	   "tlc_stmt_expr numbers a loop's min, extent, loop_layout");
	tlc_stmt *ifs = root->u.seq.items[1];
	ok(tlc_stmt_num_children(ifs) == 2 && tlc_stmt_child(ifs, 0) == ifs->u.if_.then_s &&
	       tlc_stmt_child_slot(ifs, 1) == &ifs->u.if_.else_s && tlc_stmt_child(ifs, 2) == NULL,
	   "tlc_stmt_child numbers then and else");
	is_int(tlc_stmt_num_children(root), 8, "a block's items are its children");
}

static void test_walk_func(void)
{
	tlc_var *n = ivar("n"), *bx = ivar("bx");
	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_FLOAT32, TLC_SCOPE_GLOBAL, 1, (const tlc_expr *[]){V(n)}, noloc);
	tlc_func *f = tlc_func_new(m, "k", noloc);
	f->nparams = 2;
	f->params = tlc_alloc(m, 2 * sizeof(tlc_param));
	f->params[0] = (tlc_param){TLC_PARAM_TENSOR, A, NULL, false};
	f->params[1] = (tlc_param){TLC_PARAM_SCALAR, NULL, n, false};
	f->nattrs = 1;
	f->attr_keys = tlc_alloc(m, sizeof(char *));
	f->attr_values = tlc_alloc(m, sizeof(tlc_expr *));
	f->attr_keys[0] = "k";
	f->attr_values[0] = I(5);
	f->grid[0] = tlc_binary(m, TLC_EXPR_FLOORDIV, V(n), I(128));
	f->block_vars[0] = bx;
	f->threads[0] = I(128);
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, A, 1, (const tlc_expr *[]){V(bx)}, tlc_float(m, TLC_DT_FLOAT32, 0)));
	trace t;
	tlc_visitor v = trace_visitor(&t);
	tlc_walk_func(&v, f);
	is_str(tlc_buf_str(&t.out), "n 5 FLOORDIV( n 128 ) 128 SEQ{ STORE{ bx FLOAT } } ",
	       "a kernel: parameter shapes, attributes, grid, threads, body");
	tlc_buf_free(&t.out);
}

/* ---- the rewriter ---- */

static void test_subst_expr(void)
{
	tlc_var *x = ivar("x"), *y = ivar("y"), *i = ivar("i"), *p = ivar("p");
	tlc_buffer *A = buffer("A", TLC_SCOPE_GLOBAL, 64), *A2 = buffer("A2", TLC_SCOPE_GLOBAL, 64);
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	tlc_rewriter_map_var(&rw, x, add(V(i), I(2)));
	const tlc_expr *e = mul(add(V(x), I(1)), V(y));
	ok(tlc_expr_rewrite(&rw, e) == mul(add(add(V(i), I(2)), I(1)), V(y)), "x -> i + 2 inside (x + 1) * y");
	const tlc_expr *untouched = mul(add(V(y), I(1)), tlc_load(m, A, 1, (const tlc_expr *[]){V(y)}));
	ok(tlc_expr_rewrite(&rw, untouched) == untouched, "an expression without x comes back as the same node");
	ok(tlc_expr_rewrite(&rw, tlc_lambda(m, 1, &p, add(V(p), V(x)))) ==
	       tlc_lambda(m, 1, &p, add(V(p), add(V(i), I(2)))),
	   "substitution inside a lambda body, parameters kept");
	ok(tlc_expr_rewrite(&rw, tlc_dict(m, 1, (const tlc_expr *[]){tlc_str(m, "k")}, (const tlc_expr *[]){V(x)})) ==
	       tlc_dict(m, 1, (const tlc_expr *[]){tlc_str(m, "k")}, (const tlc_expr *[]){add(V(i), I(2))}),
	   "substitution inside a dict value");
	tlc_rewriter_map_var(&rw, x, I(9));
	ok(tlc_expr_rewrite(&rw, V(x)) == I(9), "mapping a variable again overrides");
	tlc_rewriter_map_var(&rw, x, NULL);
	ok(tlc_expr_rewrite(&rw, e) == e && tlc_rewriter_var_value(&rw, x) == NULL, "a NULL value unmaps");

	/* buffers: loads, regions and whole-buffer operands */
	tlc_rewriter_map_buffer(&rw, A, A2);
	ok(tlc_rewriter_buffer_value(&rw, A) == A2 && tlc_rewriter_buffer_value(&rw, A2) == NULL, "buffer map lookup");
	const tlc_expr *cp = tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2,
	                              (const tlc_expr *[]){tlc_region(m, A, 1, (tlc_range[]){{V(y), I(8), false}}),
	                                                   tlc_buf_ref(m, A)},
	                              0, NULL, NULL);
	ok(tlc_expr_rewrite(&rw, cp) ==
	       tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2,
	                (const tlc_expr *[]){tlc_region(m, A2, 1, (tlc_range[]){{V(y), I(8), false}}), tlc_buf_ref(m, A2)},
	                0, NULL, NULL),
	   "A -> A2 in a region and a whole-buffer operand");
	ok(tlc_expr_rewrite(&rw, tlc_load(m, A, 1, (const tlc_expr *[]){V(y)})) ==
	       tlc_load(m, A2, 1, (const tlc_expr *[]){V(y)}),
	   "A -> A2 in a load");
	tlc_rewriter_free(&rw);

	ok(tlc_expr_subst_vars(m, add(V(x), V(y)), 2, (const tlc_var *[]){x, y}, (const tlc_expr *[]){I(1), V(i)}) ==
	       add(I(1), V(i)),
	   "tlc_expr_subst_vars: a one-shot substitution");
}

static const tlc_expr *loads_to_zero(tlc_rewriter *rw, const tlc_expr *e)
{
	(void)rw;
	return e->kind == TLC_EXPR_LOAD ? tlc_float(m, TLC_DT_FLOAT32, 0) : NULL;
}

static const tlc_expr *fold_add(tlc_rewriter *rw, const tlc_expr *e)
{
	int64_t a, b;
	(void)rw;
	if (e->kind == TLC_EXPR_ADD && tlc_expr_as_int(e->u.op.a, &a) && tlc_expr_as_int(e->u.op.b, &b))
		return I(a + b);
	return NULL;
}

static void test_expr_hooks(void)
{
	tlc_var *x = ivar("x");
	tlc_buffer *A = buffer("A", TLC_SCOPE_GLOBAL, 64);
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	tlc_rewriter_map_var(&rw, x, I(2));
	rw.expr_post = fold_add;
	ok(tlc_expr_rewrite(&rw, mul(add(V(x), I(1)), V(x))) == mul(I(3), I(2)),
	   "expr_post sees the rebuilt node: x + 1 with x -> 2 folds to 3");
	rw.expr_post = NULL;
	rw.expr_pre = loads_to_zero;
	const tlc_expr *ld = tlc_load(m, A, 1, (const tlc_expr *[]){V(x)});
	ok(tlc_expr_rewrite(&rw, add(ld, V(x))) == add(tlc_float(m, TLC_DT_FLOAT32, 0), I(2)),
	   "expr_pre replaces a node as it is; the rest is still substituted");
	tlc_rewriter_free(&rw);
}

static void test_rewrite_in_place(void)
{
	small_tree st = make_small_tree();
	tlc_var *j = ivar("j");
	tlc_buffer *B2 = buffer("B2", TLC_SCOPE_GLOBAL, 64);
	const tlc_expr *let_value = st.let->u.let.value, *cond = st.ifs->u.if_.cond;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	tlc_rewriter_map_var(&rw, ivar("unrelated"), I(0));
	ok(tlc_stmt_rewrite(&rw, st.root) == st.root && st.root->u.seq.items[0] == st.loop &&
	       st.loop->u.loop.body->u.seq.items[0] == st.let && st.let->u.let.value == let_value &&
	       st.ifs->u.if_.cond == cond && st.ifs->u.if_.then_s == st.sync,
	   "nothing to change: every statement and expression pointer stays");
	tlc_rewriter_map_var(&rw, st.i, V(j));
	tlc_rewriter_map_buffer(&rw, st.B, B2);
	tlc_stmt *r = tlc_stmt_rewrite(&rw, st.root);
	ok(r == st.root && st.loop->u.loop.body->u.seq.items[1] == st.store, "in place: the same statements");
	ok(st.let->u.let.value == mul(V(j), I(2)), "in place: i -> j in a let");
	ok(st.store->u.store.value == add(tlc_load(m, B2, 1, (const tlc_expr *[]){V(j)}), I(1)),
	   "in place: i -> j and B -> B2 in a store");
	ok(st.loop->u.loop.var == st.i, "the binder itself is not renamed without fresh_binders");
	tlc_rewriter_free(&rw);
}

static tlc_stmt *sync_to_warp(tlc_rewriter *rw, tlc_stmt *s)
{
	(void)rw;
	if (s->kind == TLC_STMT_EVAL && s->u.eval.call->u.call.op == TLC_OP_SYNC_THREADS)
		return tlc_eval_new(m, s->loc, call0(TLC_OP_SYNC_WARP));
	return NULL;
}

/* Post-hook: wrap each store in `with T.attr("stored", <its value>)`. */
static tlc_stmt *wrap_stores(tlc_rewriter *rw, tlc_stmt *s)
{
	(void)rw;
	if (s->kind != TLC_STMT_STORE)
		return NULL;
	tlc_stmt *body = tlc_seq_new(m, s->loc);
	tlc_seq_append(m, body, s);
	return tlc_attr_new(m, s->loc, "stored", s->u.store.value, body);
}

static void test_stmt_hooks(void)
{
	small_tree st = make_small_tree();
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.stmt_pre = sync_to_warp;
	rw.stmt_post = wrap_stores;
	tlc_rewriter_map_var(&rw, st.n, I(16));
	tlc_stmt *r = tlc_stmt_rewrite(&rw, st.root);
	is_str(PS(r),
	       "for i in T.serial(16):\n"
	       "    x = i * 2\n"
	       "    with T.attr(\"stored\", B[i] + 1.0):\n"
	       "        A[x] = B[i] + 1.0\n"
	       "if 16 > 0:\n"
	       "    T.sync_warp()\n",
	       "stmt_pre replaces the barrier, stmt_post wraps the rewritten store");
	ok(st.ifs->u.if_.then_s != st.sync && st.sync->u.eval.call->u.call.op == TLC_OP_SYNC_THREADS,
	   "the replaced statement is put in its slot, the old one left alone");
	tlc_rewriter_free(&rw);
}

static void test_clone(void)
{
	small_tree st = make_small_tree();
	tlc_buffer *S = buffer("S", TLC_SCOPE_SHARED_DYN, 4);
	tlc_stmt *body = st.loop->u.loop.body;
	/* body: x = i * 2; S = alloc; S[x] = B[i]; A[x] = B[i] + 1 */
	tlc_stmt *alloc = tlc_alloc_new(m, noloc, S);
	tlc_stmt *sstore = tlc_store_new(m, noloc, S, 1, (const tlc_expr *[]){V(st.x)},
	                                 tlc_load(m, st.B, 1, (const tlc_expr *[]){V(st.i)}));
	body->u.seq.n = 1;
	tlc_seq_append(m, body, alloc);
	tlc_seq_append(m, body, sstore);
	tlc_seq_append(m, body, st.store);
	const char *orig_text =
		"x = i * 2\n"
		"S = T.alloc_shared((4,), \"float32\")\n"
		"S[x] = B[i]\n"
		"A[x] = B[i] + 1.0\n";
	is_str(PS(body), orig_text, "the loop body before cloning");

	/* unroll by hand: two copies with i -> 0 and i -> 1 */
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	rw.fresh_binders = true;
	tlc_stmt *unrolled = tlc_seq_new(m, noloc);
	for (int k = 0; k < 2; k++) {
		tlc_rewriter_map_var(&rw, st.i, I(k));
		tlc_seq_append(m, unrolled, tlc_stmt_clone(&rw, body));
	}
	is_str(PS(unrolled),
	       "x = 0 * 2\n"
	       "S = T.alloc_shared((4,), \"float32\")\n"
	       "S[x] = B[0]\n"
	       "A[x] = B[0] + 1.0\n"
	       "x_1 = 1 * 2\n"
	       "S_1 = T.alloc_shared((4,), \"float32\")\n"
	       "S_1[x_1] = B[1]\n"
	       "A[x_1] = B[1] + 1.0\n",
	       "two clones with fresh binders declare different objects (the printer tells them apart)");
	is_str(PS(body), orig_text, "the original is untouched");
	tlc_stmt *c0 = unrolled->u.seq.items[0], *c1 = unrolled->u.seq.items[1];
	ok(c0 != body && c0->u.seq.items != body->u.seq.items && c0->u.seq.items[1]->u.alloc.buf != S &&
	       c0->u.seq.items[2]->u.store.buf == c0->u.seq.items[1]->u.alloc.buf &&
	       c1->u.seq.items[2]->u.store.buf != c0->u.seq.items[2]->u.store.buf,
	   "each clone stores to the buffer it allocates");
	ok(c0->u.seq.items[0]->u.let.var != st.x && c0->u.seq.items[0]->u.let.var->dtype == TLC_DT_INT32,
	   "a fresh let variable: same name and dtype, new object");
	tlc_rewriter_free(&rw);

	/* without fresh binders, and nothing to substitute: new statements, same expressions */
	tlc_rewriter_init(&rw, m);
	tlc_stmt *same = tlc_stmt_clone(&rw, st.root);
	tlc_stmt *loop2 = same->u.seq.items[0];
	ok(same != st.root && loop2 != st.loop && loop2->u.loop.body != body && loop2->u.loop.var == st.i &&
	       loop2->u.loop.extent == st.loop->u.loop.extent && loop2->u.loop.body->u.seq.items[0]->u.let.value ==
	       st.let->u.let.value && loop2->u.loop.body->u.seq.items[3]->u.store.idx != st.store->u.store.idx,
	   "a plain clone: every statement (and store index array) new, expressions shared");
	char *orig_root = strdup(PS(st.root));
	is_str(PS(same), orig_root, "a plain clone prints like the original");
	free(orig_root);
	/* the copy is independent: appending to it leaves the original alone */
	tlc_seq_append(m, loop2->u.loop.body, tlc_eval_new(m, noloc, call0(TLC_OP_SYNC_THREADS)));
	is_int(body->u.seq.n, 4, "appending to a cloned block leaves the original's items");
	tlc_rewriter_free(&rw);
}

/* ---- the verifier's scopes, now a walk (core/verify.c) ---- */

/* The diagnostics of verifying a kernel whose body is `body`, with one
 * tensor parameter A. */
static const char *verify_body(tlc_buffer *A, tlc_stmt *body)
{
	static tlc_buf sink;
	tlc_buf_free(&sink);
	tlc_buf_init(&sink);
	tlc_module *saved = m;
	m = tlc_module_new(ctx);
	tlc_func *f = tlc_func_new(m, "k", noloc);
	f->nparams = 1;
	f->params = tlc_alloc(m, sizeof(tlc_param));
	f->params[0] = (tlc_param){TLC_PARAM_TENSOR, A, NULL, false};
	f->grid[0] = I(1);
	f->threads[0] = I(32);
	f->body = body;
	tlc_module_add_func(m, f);
	tlc_diag_capture(ctx, &sink);
	bool ok_ = tlc_verify_module(ctx, m, NULL);
	tlc_diag_capture(ctx, NULL);
	tlc_module_free(m);
	m = saved;
	if (ok_ && !*tlc_buf_str(&sink))
		tlc_buf_puts(&sink, "ok");
	return tlc_buf_str(&sink);
}

static void test_verify_scopes(void)
{
	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_INT32, TLC_SCOPE_GLOBAL, 1, (const tlc_expr *[]){I(8)}, noloc);
	tlc_var *x = ivar("x"), *p = ivar("p");
	const tlc_expr *cond = bin(TLC_EXPR_LT, I(0), I(1));

	/* x = 1; A[x] = 0: a let binds for the rest of its block */
	tlc_stmt *body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, body, tlc_let_new(m, noloc, x, I(1)));
	tlc_seq_append(m, body, tlc_store_new(m, noloc, A, 1, (const tlc_expr *[]){V(x)}, I(0)));
	is_str(verify_body(A, body), "ok", "a let is visible to the rest of its block");

	/* if c: x = 1 (the let is the whole then-branch, no block); A[x] = 0 */
	body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, body, tlc_if_new(m, noloc, cond, tlc_let_new(m, noloc, x, I(1)), NULL));
	tlc_seq_append(m, body, tlc_store_new(m, noloc, A, 1, (const tlc_expr *[]){V(x)}, I(0)));
	is_str(verify_body(A, body), "tlc: error: IR verification failed: variable 'x' is used but not bound\n",
	       "a let that is a whole branch does not outlive the if");

	/* a nested block closes its own scope */
	tlc_stmt *inner = tlc_seq_new(m, noloc);
	tlc_seq_append(m, inner, tlc_let_new(m, noloc, x, I(1)));
	body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, body, inner);
	tlc_seq_append(m, body, tlc_store_new(m, noloc, A, 1, (const tlc_expr *[]){V(x)}, I(0)));
	is_str(verify_body(A, body), "tlc: error: IR verification failed: variable 'x' is used but not bound\n",
	       "a let in a nested block does not outlive it");

	/* lambda p: p + 1 binds p in its body only */
	const tlc_expr *lam = tlc_lambda(m, 1, &p, add(V(p), I(1)));
	body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, body, tlc_eval_new(m, noloc, tlc_call(m, TLC_OP_FRAGMENT, TLC_DT_VOID, 1, &lam, 0, NULL, NULL)));
	is_str(verify_body(A, body), "ok", "a lambda parameter is bound in the body");
	tlc_seq_append(m, body, tlc_store_new(m, noloc, A, 1, (const tlc_expr *[]){V(p)}, I(0)));
	is_str(verify_body(A, body), "tlc: error: IR verification failed: variable 'p' is used but not bound\n",
	       "... and not after the lambda");

	/* malformed IR: a missing operand and a missing branch */
	body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, body, tlc_eval_new(m, noloc, tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2,
	                                                         (const tlc_expr *[]){tlc_buf_ref(m, A), NULL}, 0, NULL,
	                                                         NULL)));
	tlc_stmt *ifs = tlc_if_new(m, noloc, cond, NULL, NULL);
	ifs->u.if_.then_s = NULL;
	tlc_seq_append(m, body, ifs);
	is_str(verify_body(A, body),
	       "tlc: error: IR verification failed: missing expression\n"
	       "tlc: error: IR verification failed: missing statement\n",
	       "a missing operand and a missing then-branch are reported, not crashed on");
}

int main(void)
{
	ctx = tlc_context_new();
	m = tlc_module_new(ctx);
	test_children();
	test_visit_order();
	test_every_kind_reached();
	test_every_position_reached();
	test_walk_func();
	test_subst_expr();
	test_expr_hooks();
	test_rewrite_in_place();
	test_stmt_hooks();
	test_clone();
	test_verify_scopes();
	tlc_module_free(m);
	tlc_context_free(ctx);
	return done_testing();
}
