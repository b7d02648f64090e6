/* verify.c - structural checks of the IR, run after every pass: variables
 * bound before use, buffers declared, index counts, op arities, dtypes of
 * loop bounds and conditions. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tlc/tileops.h>
#include <tlc/walk.h>

typedef struct verifier {
	tlc_context *ctx;
	const tlc_func *func; /* being checked */
	const char *after;
	tlc_loc loc; /* of the statement being checked */
	int errors;
	/* what is in scope: stacks popped at the end of each scope */
	int nvars, cap_vars;
	const tlc_var **vars;
	int nbufs, cap_bufs;
	const tlc_buffer **bufs;
	/* objects already reported, so that one mistake gives one error */
	int nrep, cap_rep;
	const void **reported;
	/* the statements being checked, outermost first (see stmt_pre) */
	int nframes, cap_frames;
	struct frame *frames;
	/* the scopes of the lambdas being checked */
	int nlambdas, cap_lambdas;
	struct mark *lambdas;
} verifier;

typedef struct mark {
	int nvars, nbufs;
} mark;

/* A statement being checked: what to restore after it. */
typedef struct frame {
	const tlc_stmt *s;
	tlc_loc loc;
	mark scope;
} frame;

static void grow(void *arr, int *cap, int n, size_t size)
{
	if (n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 32;
	*(void **)arr = tlc_xrealloc(*(void **)arr, (size_t)*cap * size);
}

static void error(verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void error(verifier *v, const char *fmt, ...)
{
	tlc_buf msg;
	tlc_buf_init(&msg);
	va_list ap;
	va_start(ap, fmt);
	tlc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	if (v->after)
		tlc_error(v->ctx, v->loc, "IR verification failed after pass '%s': %s", v->after, tlc_buf_str(&msg));
	else
		tlc_error(v->ctx, v->loc, "IR verification failed: %s", tlc_buf_str(&msg));
	tlc_buf_free(&msg);
	v->errors++;
}

/* True the first time obj is reported. */
static bool first_report(verifier *v, const void *obj)
{
	for (int i = 0; i < v->nrep; i++)
		if (v->reported[i] == obj)
			return false;
	grow(&v->reported, &v->cap_rep, v->nrep, sizeof(*v->reported));
	v->reported[v->nrep++] = obj;
	return true;
}

static mark scope_mark(const verifier *v)
{
	return (mark){v->nvars, v->nbufs};
}

static void scope_pop(verifier *v, mark mk)
{
	v->nvars = mk.nvars;
	v->nbufs = mk.nbufs;
}

static void bind_var(verifier *v, const tlc_var *var)
{
	if (!var)
		return;
	grow(&v->vars, &v->cap_vars, v->nvars, sizeof(*v->vars));
	v->vars[v->nvars++] = var;
}

static void bind_buf(verifier *v, const tlc_buffer *b)
{
	if (!b)
		return;
	grow(&v->bufs, &v->cap_bufs, v->nbufs, sizeof(*v->bufs));
	v->bufs[v->nbufs++] = b;
}

static bool var_bound(const verifier *v, const tlc_var *var)
{
	for (int i = v->nvars - 1; i >= 0; i--)
		if (v->vars[i] == var)
			return true;
	return false;
}

static bool buf_declared(const verifier *v, const tlc_buffer *b)
{
	for (int i = v->nbufs - 1; i >= 0; i--)
		if (v->bufs[i] == b)
			return true;
	return false;
}

/* ---- expressions ---- */

static void check_buf_use(verifier *v, const tlc_buffer *b, int nidx, bool indexed)
{
	if (!b) {
		error(v, "buffer reference without a buffer");
		return;
	}
	if (!buf_declared(v, b) && first_report(v, b))
		error(v, "buffer '%s' is used but not declared (no parameter or T.alloc_* in scope)", b->name);
	if (indexed && nidx != b->ndim)
		error(v, "buffer '%s' has %d dimension%s but is indexed with %d", b->name, b->ndim,
		      b->ndim == 1 ? "" : "s", nidx);
}

static bool missing_list(verifier *v, const void *items, int n)
{
	if (n > 0 && !items) {
		error(v, "missing expression list");
		return true;
	}
	return false;
}

static void check_arity(verifier *v, const tlc_expr *e)
{
	const tlc_op_info *op = tlc_op_get(v->ctx, e->u.call.op);
	if (!op) {
		error(v, "call of unknown op #%d", (int)e->u.call.op);
		return;
	}
	int n = e->u.call.nargs;
	if (n >= op->min_args && (op->max_args < 0 || n <= op->max_args))
		return;
	if (op->max_args < 0)
		error(v, "T.%s takes at least %d positional argument%s, got %d", op->name, op->min_args,
		      op->min_args == 1 ? "" : "s", n);
	else if (op->min_args == op->max_args)
		error(v, "T.%s takes %d positional argument%s, got %d", op->name, op->min_args,
		      op->min_args == 1 ? "" : "s", n);
	else
		error(v, "T.%s takes %d to %d positional arguments, got %d", op->name, op->min_args, op->max_args, n);
}

/* Operand i of e is absent from a list already reported missing, or is a
 * point dimension's extent, which nothing reads. */
static bool absence_excused(const tlc_expr *e, int i)
{
	switch (e->kind) {
	case TLC_EXPR_LOAD: return !e->u.load.idx;
	case TLC_EXPR_TUPLE: return !e->u.tuple.items;
	case TLC_EXPR_CALL: return i < e->u.call.nargs ? !e->u.call.args : !e->u.call.kw_values;
	case TLC_EXPR_REGION: return !e->u.region.dims || (i % 2 && e->u.region.dims[i / 2].is_point);
	default: return false;
	}
}

/* The typing of an operator node (tlc_operand_type; doc/language.md,
 * "Arithmetic"): both operands of one type, the result of that type (bool
 * for comparisons and logic), conditions bool.  The constructors convert
 * explicitly, so a mismatch means IR built around them. */
static void check_types(verifier *v, const tlc_expr *e)
{
	const tlc_expr *a = e->u.op.a, *b = e->u.op.b;
	if (!a || (tlc_expr_num_children(e) > 1 && !b))
		return; /* reported as missing */
	bool logic = e->kind == TLC_EXPR_AND || e->kind == TLC_EXPR_OR || e->kind == TLC_EXPR_NOT;
	bool cmp = e->kind >= TLC_EXPR_EQ && e->kind <= TLC_EXPR_GE;
	if (e->kind == TLC_EXPR_SELECT) {
		const tlc_expr *c = e->u.op.c;
		if (a->dtype != TLC_DT_BOOL)
			error(v, "T.if_then_else condition must be bool, not %s", tlc_dtype_name(a->dtype));
		if (c && (b->dtype != c->dtype || e->dtype != b->dtype))
			error(v, "T.if_then_else of %s has branches of types %s and %s (an explicit T.cast is missing)",
			      tlc_dtype_name(e->dtype), tlc_dtype_name(b->dtype), tlc_dtype_name(c->dtype));
		return;
	}
	if (logic) {
		if (a->dtype != TLC_DT_BOOL || (b && e->kind != TLC_EXPR_NOT && b->dtype != TLC_DT_BOOL) ||
		    e->dtype != TLC_DT_BOOL)
			error(v, "'%s' needs bool operands and gives bool", e->kind == TLC_EXPR_NOT ? "not"
			                                                        : e->kind == TLC_EXPR_AND ? "and" : "or");
		return;
	}
	if (e->kind == TLC_EXPR_NEG) {
		if (e->dtype != a->dtype)
			error(v, "negation of %s typed %s", tlc_dtype_name(a->dtype), tlc_dtype_name(e->dtype));
		return;
	}
	if (a->dtype != b->dtype)
		error(v, "operands of types %s and %s (an explicit T.cast is missing)", tlc_dtype_name(a->dtype),
		      tlc_dtype_name(b->dtype));
	else if (e->dtype != (cmp ? TLC_DT_BOOL : a->dtype))
		error(v, "an operation on %s typed %s", tlc_dtype_name(a->dtype), tlc_dtype_name(e->dtype));
}

/* Conversions a call implies are explicit too: an element atomic adds a
 * value of its destination's type; a math call's arguments have its type. */
static void check_call_types(verifier *v, const tlc_expr *e)
{
	const tlc_op_info *op = tlc_op_get(v->ctx, e->u.call.op);
	const tlc_expr *const *a = e->u.call.args;
	int n = e->u.call.nargs;
	if (!op || !a)
		return;
	bool atomic = e->u.call.op == TLC_OP_ATOMIC_ADD || e->u.call.op == TLC_OP_ATOMIC_MAX ||
	              e->u.call.op == TLC_OP_ATOMIC_MIN;
	if (atomic && n == 2 && a[0] && a[1] && a[0]->kind == TLC_EXPR_LOAD &&
	    a[1]->dtype != TLC_DT_VOID && a[1]->dtype != a[0]->dtype)
		error(v, "T.%s of a %s value into a %s element (an explicit T.cast is missing)",
		      op->name, tlc_dtype_name(a[1]->dtype), tlc_dtype_name(a[0]->dtype));
	/* old=: where the element's previous value goes, as it is (no conversion) */
	const tlc_expr *old = atomic ? tlc_call_kw(e, "old") : NULL;
	if (old && (n != 2 || !a[0] || a[0]->kind != TLC_EXPR_LOAD || old->kind != TLC_EXPR_LOAD ||
	            old->dtype != a[0]->dtype))
		error(v, "T.%s(old=...) keeps the previous value of one element in an element of its dtype",
		      op->name);
	if ((op->flags & TLC_OPF_PURE) && !(op->flags & TLC_OPF_LOWERED) && e->u.call.op != TLC_OP_PRINT)
		for (int i = 0; i < n; i++)
			if (a[i] && a[i]->dtype != e->dtype && a[i]->dtype != TLC_DT_VOID)
				error(v, "T.%s of %s has a %s argument (an explicit T.cast is missing)", op->name,
				      tlc_dtype_name(e->dtype), tlc_dtype_name(a[i]->dtype));
}

/* A bit cast keeps every bit, so both types have one width; bool has no
 * bit pattern of its own (TVM's is 1 bit wide, tlc stores it in a byte). */
static void check_bitcast(verifier *v, const tlc_expr *e)
{
	const tlc_expr *a = e->u.op.a;
	if (!a)
		return;
	tlc_dtype s = a->dtype, t = e->dtype;
	const char *sn = tlc_dtype_name(s), *tn = tlc_dtype_name(t);
	int sb = tlc_dtype_bits(s), tb = tlc_dtype_bits(t);
	if (s == TLC_DT_BOOL || t == TLC_DT_BOOL || s == TLC_DT_VOID || t == TLC_DT_VOID)
		error(v, "T.reinterpret from %s to %s: a bit cast is between numeric types "
		      "(bool has no bit pattern of its own); compare with 0 or use T.cast", sn, tn);
	else if (sb != tb)
		error(v, "T.reinterpret from %s (%d bits) to %s (%d bits): a bit cast keeps the "
		      "width; reinterpret as a type of %d bits and convert that with T.cast",
		      sn, sb, tn, tb, sb);
}

/* The checks of one node; its operands are walked after it. */
static tlc_walk_action expr_pre(void *p, const tlc_expr *e)
{
	verifier *v = p;
	switch (e->kind) {
	case TLC_EXPR_VAR:
		if (!e->u.var)
			error(v, "variable reference without a variable");
		else if (!var_bound(v, e->u.var) && first_report(v, e->u.var))
			error(v, "variable '%s' is used but not bound", e->u.var->name);
		break;
	case TLC_EXPR_BUF: check_buf_use(v, e->u.buf, 0, false); break;
	case TLC_EXPR_LOAD:
		check_buf_use(v, e->u.load.buf, e->u.load.n, true);
		missing_list(v, e->u.load.idx, e->u.load.n);
		break;
	case TLC_EXPR_REGION: check_buf_use(v, e->u.region.buf, e->u.region.n, true); break;
	case TLC_EXPR_TUPLE: missing_list(v, e->u.tuple.items, e->u.tuple.n); break;
	case TLC_EXPR_CALL:
		check_arity(v, e);
		missing_list(v, e->u.call.args, e->u.call.nargs);
		missing_list(v, e->u.call.kw_values, e->u.call.nkw);
		check_call_types(v, e);
		break;
	case TLC_EXPR_LAMBDA:
		/* the parameters are bound in the body only: expr_post pops them */
		grow(&v->lambdas, &v->cap_lambdas, v->nlambdas, sizeof(*v->lambdas));
		v->lambdas[v->nlambdas++] = scope_mark(v);
		for (int i = 0; i < e->u.lambda.nparams; i++)
			bind_var(v, e->u.lambda.params[i]);
		break;
	case TLC_EXPR_INT: case TLC_EXPR_FLOAT: case TLC_EXPR_STR: case TLC_EXPR_SYM: case TLC_EXPR_CAST:
		break;
	case TLC_EXPR_BITCAST: check_bitcast(v, e); break;
	case TLC_EXPR_NOT: case TLC_EXPR_NEG: case TLC_EXPR_SELECT: check_types(v, e); break;
	default:
		if (e->kind < TLC_EXPR_ADD || e->kind > TLC_EXPR_SHR) {
			error(v, "expression of unknown kind %d", (int)e->kind);
			return TLC_WALK_SKIP;
		}
		check_types(v, e);
		break;
	}
	int n = tlc_expr_num_children(e);
	for (int i = 0; i < n; i++)
		if (!tlc_expr_child(e, i) && !absence_excused(e, i))
			error(v, "missing expression");
	return TLC_WALK_CONTINUE;
}

static void expr_post(void *p, const tlc_expr *e)
{
	verifier *v = p;
	if (e->kind == TLC_EXPR_LAMBDA)
		scope_pop(v, v->lambdas[--v->nlambdas]);
}

static void check_expr(verifier *v, const tlc_expr *e)
{
	if (!e) {
		error(v, "missing expression");
		return;
	}
	tlc_visitor walk = {.ctx = v, .expr_pre = expr_pre, .expr_post = expr_post};
	tlc_walk_expr(&walk, e);
}

static void check_list(verifier *v, const tlc_expr *const *items, int n)
{
	if (missing_list(v, items, n))
		return;
	for (int i = 0; i < n; i++)
		check_expr(v, items[i]);
}

/* ---- statements ---- */

static void check_int_expr(verifier *v, const tlc_expr *e, const char *what)
{
	check_expr(v, e);
	if (e && !tlc_dtype_is_int(e->dtype))
		error(v, "%s must be an integer, not %s", what, tlc_dtype_name(e->dtype));
}

static void check_for(verifier *v, const tlc_stmt *s)
{
	check_int_expr(v, s->u.loop.min, "loop start");
	check_int_expr(v, s->u.loop.extent, "loop extent");
	if (!s->u.loop.var)
		error(v, "loop without a variable");
	const tlc_pipeline_info *pi = &s->u.loop.pipe;
	if (pi->n_order && pi->n_stage && pi->n_order != pi->n_stage)
		error(v, "T.Pipelined order has %d entries but stage has %d", pi->n_order, pi->n_stage);
	if ((s->u.loop.loop_layout || s->u.loop.coalesced_width) && s->u.loop.kind != TLC_FOR_PARALLEL)
		error(v, "loop_layout and coalesced_width belong to T.Parallel loops only");
	if (s->u.loop.coalesced_width < 0)
		error(v, "T.Parallel coalesced_width must be positive, got %lld", (long long)s->u.loop.coalesced_width);
	if (s->u.loop.loop_layout)
		check_expr(v, s->u.loop.loop_layout); /* outside the loop: it may not use the loop variable */
	bind_var(v, s->u.loop.var); /* for the body: stmt_post pops it */
}

/* Size in bits of a buffer of constant shape; false when a dimension is symbolic. */
static bool const_bits(const tlc_buffer *b, int64_t *bits)
{
	int64_t n = tlc_dtype_bits(b->dtype);
	for (int i = 0; i < b->ndim; i++) {
		int64_t x;
		if (!b->shape || !tlc_expr_as_int(b->shape[i], &x) || x < 0)
			return false;
		if (x && n > INT64_MAX / x)
			return false;
		n *= x;
	}
	*bits = n;
	return true;
}

/* A T.view shares the storage of a buffer in scope, of its scope, and fits in it. */
static void check_view(verifier *v, const tlc_buffer *b)
{
	const tlc_buffer *src = b->alias_of;
	int64_t need, have;
	if (src == b) {
		error(v, "buffer '%s' is a view of itself", b->name);
		return;
	}
	if (!buf_declared(v, src) && first_report(v, src))
		error(v, "view '%s' of buffer '%s', which is not declared", b->name, src->name);
	if (src->scope != b->scope)
		error(v, "view '%s' is %s but its buffer '%s' is %s", b->name, tlc_scope_name(b->scope), src->name,
		      tlc_scope_name(src->scope));
	if (const_bits(b, &need) && const_bits(src, &have) && need > have)
		error(v, "view '%s' needs %lld bytes but buffer '%s' has %lld", b->name, (long long)(need + 7) / 8,
		      src->name, (long long)(have + 7) / 8);
}

static void check_alloc(verifier *v, const tlc_buffer *b)
{
	if (!b) {
		error(v, "allocation without a buffer");
		return;
	}
	check_list(v, b->shape, b->ndim);
	check_list(v, b->init, b->ninit);
	if (b->alias_of)
		check_view(v, b);
	if (b->base) {
		/* T.make_tensor at a run-time address: a global tensor of its own */
		check_list(v, &b->base, 1);
		if (b->base->dtype != TLC_DT_INT64 && b->base->dtype != TLC_DT_UINT64)
			error(v, "the address of tensor '%s' is %s, not a 64-bit integer", b->name,
			      tlc_dtype_name(b->base->dtype));
		if (b->scope != TLC_SCOPE_GLOBAL || b->alias_of)
			error(v, "tensor '%s' at a run-time address must be a global buffer of its own", b->name);
	}
	bind_buf(v, b);
}

/* The nested statements s must have (an IF's else is optional). */
static void check_children_present(verifier *v, const tlc_stmt *s)
{
	if (s->kind == TLC_STMT_SEQ && s->u.seq.n > 0 && !s->u.seq.items) {
		error(v, "missing statement list");
		return;
	}
	int n = tlc_stmt_num_children(s);
	for (int i = 0; i < n; i++)
		if (!tlc_stmt_child(s, i) && !(s->kind == TLC_STMT_IF && i == 1))
			error(v, "missing statement");
}

/* The checks of statement s itself (the walk then visits its nested
 * statements).  Every statement opens a scope that its post-hook closes,
 * except that a LET or an ALLOC in a block binds for the rest of the block
 * (the block's own scope closes it). */
/* Ops whose arguments mean something beyond their arity. */
static void check_eval_op(verifier *v, const tlc_expr *c)
{
	tlc_raster r;
	const char *why = NULL;
	if (c && c->kind == TLC_EXPR_CALL && c->u.call.op == TLC_OP_USE_SWIZZLE &&
	    !tlc_raster_decode(c, v->func ? v->func->grid_ndim : 0, &r, &why))
		error(v, "%s", why);
}

static tlc_walk_action stmt_pre(void *p, const tlc_stmt *s)
{
	verifier *v = p;
	grow(&v->frames, &v->cap_frames, v->nframes, sizeof(*v->frames));
	v->frames[v->nframes++] = (frame){s, v->loc, scope_mark(v)};
	if (s->loc.line)
		v->loc = s->loc;
	switch (s->kind) {
	case TLC_STMT_SEQ: break;
	case TLC_STMT_FOR: check_for(v, s); break;
	case TLC_STMT_IF:
		check_expr(v, s->u.if_.cond);
		if (s->u.if_.cond && s->u.if_.cond->dtype != TLC_DT_BOOL)
			error(v, "if condition must be bool, not %s", tlc_dtype_name(s->u.if_.cond->dtype));
		break;
	case TLC_STMT_LET:
		check_expr(v, s->u.let.value);
		if (!s->u.let.var)
			error(v, "assignment without a variable");
		bind_var(v, s->u.let.var);
		break;
	case TLC_STMT_STORE:
		check_buf_use(v, s->u.store.buf, s->u.store.n, true);
		check_list(v, s->u.store.idx, s->u.store.n);
		check_expr(v, s->u.store.value);
		/* a store converts nothing: the value is of the buffer's type */
		if (s->u.store.buf && s->u.store.value && s->u.store.value->dtype != s->u.store.buf->dtype)
			error(v, "a %s value stored into %s buffer '%s' (an explicit T.cast is missing)",
			      tlc_dtype_name(s->u.store.value->dtype), tlc_dtype_name(s->u.store.buf->dtype),
			      s->u.store.buf->name);
		break;
	case TLC_STMT_EVAL:
		check_expr(v, s->u.eval.call);
		check_eval_op(v, s->u.eval.call);
		break;
	case TLC_STMT_ALLOC: check_alloc(v, s->u.alloc.buf); break;
	case TLC_STMT_SCOPE: {
		const tlc_expr *c = s->u.scope.call;
		check_expr(v, c);
		const tlc_op_info *op = c && c->kind == TLC_EXPR_CALL ? tlc_op_get(v->ctx, c->u.call.op) : NULL;
		if (c && (!op || !(op->flags & TLC_OPF_SCOPE)))
			error(v, "'with' statement needs a scope op such as T.ws");
		break;
	}
	case TLC_STMT_ATTR: check_expr(v, s->u.attr.value); break;
	default: error(v, "statement of unknown kind %d", (int)s->kind); return TLC_WALK_SKIP;
	}
	check_children_present(v, s);
	return TLC_WALK_CONTINUE;
}

static void stmt_post(void *p, const tlc_stmt *s)
{
	verifier *v = p;
	frame fr = v->frames[--v->nframes];
	bool in_block = v->nframes > 0 && v->frames[v->nframes - 1].s->kind == TLC_STMT_SEQ;
	if (!(in_block && (s->kind == TLC_STMT_LET || s->kind == TLC_STMT_ALLOC)))
		scope_pop(v, fr.scope);
	v->loc = fr.loc;
}

static void check_func(verifier *v, const tlc_func *f)
{
	v->func = f;
	v->loc = f->loc;
	v->nvars = v->nbufs = v->nrep = 0;
	/* parameters first: tensor shapes may name scalar parameters given later */
	for (int i = 0; i < f->nparams; i++) {
		bind_var(v, f->params[i].var);
		bind_buf(v, f->params[i].buf);
		if (f->params[i].kind == TLC_PARAM_TENSOR ? !f->params[i].buf : !f->params[i].var)
			error(v, "parameter %d of '%s' is empty", i, f->name);
	}
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].buf)
			check_list(v, f->params[i].buf->shape, f->params[i].buf->ndim);
	for (int i = 0; i < f->nattrs; i++)
		check_expr(v, f->attr_values[i]);
	if (f->grid_ndim < 1 || f->grid_ndim > 3 || f->thread_ndim < 1 || f->thread_ndim > 3)
		error(v, "kernel '%s' has a launch frame of %d grid and %d thread dimensions (1 to 3 each)",
		      f->name, f->grid_ndim, f->thread_ndim);
	for (int i = 0; i < f->grid_ndim && i < 3; i++)
		check_int_expr(v, f->grid[i], "grid extent");
	for (int i = 0; i < f->thread_ndim && i < 3; i++)
		check_int_expr(v, f->threads[i], "thread count");
	for (int i = 0; i < 3; i++) {
		bind_var(v, f->block_vars[i]);
		bind_var(v, f->thread_vars[i]);
	}
	if (!f->body) {
		error(v, "missing statement");
		return;
	}
	v->nframes = 0;
	tlc_visitor walk = {.ctx = v, .stmt_pre = stmt_pre, .stmt_post = stmt_post};
	tlc_walk_stmt(&walk, f->body);
}

/* Whether kernels a and b take the same parameters: the kernels of a
 * launch group are called with one argument list.  A tensor's rank may
 * differ: a kernel that addresses it through its own T.annotate_layout
 * takes it flat (the same pointer). */
static bool same_params(const tlc_func *a, const tlc_func *b)
{
	if (a->nparams != b->nparams)
		return false;
	for (int i = 0; i < a->nparams; i++) {
		const tlc_param *p = &a->params[i], *q = &b->params[i];
		if (p->kind != q->kind || (p->buf && q->buf && p->buf->dtype != q->buf->dtype) ||
		    (p->var && q->var && p->var->dtype != q->var->dtype))
			return false;
	}
	return true;
}

/* The kernels of a launch group (tlc_func_launch_group) follow each other
 * in the module, complete and in order, with the same parameters. */
static void check_launch_groups(verifier *v, const tlc_module *m)
{
	for (int i = 0; i < m->nfuncs; i++) {
		const tlc_func *f = m->funcs[i], *prev = i ? m->funcs[i - 1] : NULL;
		const char *name, *pname = NULL;
		int n, pn = 1, k = f ? tlc_func_launch_group(f, &name, &n) : -1;
		int pk = prev ? tlc_func_launch_group(prev, &pname, &pn) : -1;
		v->loc = f ? f->loc : v->loc;
		/* a group left unfinished by the kernel before this one */
		if (pk >= 0 && pk < pn - 1 && (k != pk + 1 || strcmp(name, pname) != 0))
			error(v, "kernel '%s' is kernel %d of the %d of launch group '%s', but the next kernel is not the "
			      "group's kernel %d", prev->name, pk, pn, pname, pk + 1);
		if (k < 0)
			continue;
		if (k > 0 && (pk != k - 1 || strcmp(name, pname) != 0 || pn != n))
			error(v, "kernel '%s' is kernel %d of launch group '%s', but the kernel before it is not the group's "
			      "kernel %d", f->name, k, name, k - 1);
		else if (k > 0 && !same_params(prev, f))
			error(v, "the kernels '%s' and '%s' of launch group '%s' take different parameters", prev->name,
			      f->name, name);
		if (k < n - 1 && i == m->nfuncs - 1)
			error(v, "launch group '%s' ends after its kernel %d of %d ('%s')", name, k, n, f->name);
	}
}

bool tlc_verify_module(tlc_context *ctx, const tlc_module *m, const char *after)
{
	verifier v = {.ctx = ctx, .after = after};
	for (int i = 0; i < m->nfuncs; i++)
		if (m->funcs[i])
			check_func(&v, m->funcs[i]);
	check_launch_groups(&v, m);
	free(v.vars);
	free(v.bufs);
	free(v.reported);
	free(v.frames);
	free(v.lambdas);
	return v.errors == 0;
}
