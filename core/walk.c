/* walk.c - the walker and the rewriter of the IR (tlc/walk.h).
 *
 * The kinds of expressions and statements are spelled out in four switches
 * below, once each: how many operands a node has, which one is operand i,
 * how a node is rebuilt over new operands, and which fields of a statement
 * are expressions or nested statements.  Everything else - the visitor, the
 * rewriter, and every pass built on them - loops over those numbers, so a
 * new kind added to exprs.def or ir.h is handled here or nowhere. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <tlc/walk.h>

/* ---- operands of expressions ---- */

static bool is_binary(tlc_expr_kind k)
{
	return k >= TLC_EXPR_ADD && k <= TLC_EXPR_SHR;
}

int tlc_expr_num_children(const tlc_expr *e)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT:
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM:
	case TLC_EXPR_VAR:
	case TLC_EXPR_BUF: return 0;
	case TLC_EXPR_NOT:
	case TLC_EXPR_NEG:
	case TLC_EXPR_CAST:
	case TLC_EXPR_BITCAST: return 1;
	case TLC_EXPR_SELECT: return 3;
	case TLC_EXPR_LOAD: return e->u.load.n > 0 ? e->u.load.n : 0;
	case TLC_EXPR_REGION: return e->u.region.n > 0 ? 2 * e->u.region.n : 0;
	case TLC_EXPR_TUPLE:
		if (e->u.tuple.n <= 0)
			return 0;
		return e->u.tuple.is_dict ? 2 * e->u.tuple.n : e->u.tuple.n;
	case TLC_EXPR_CALL:
		return (e->u.call.nargs > 0 ? e->u.call.nargs : 0) + (e->u.call.nkw > 0 ? e->u.call.nkw : 0);
	case TLC_EXPR_LAMBDA: return 1;
	default: return is_binary(e->kind) ? 2 : 0;
	}
}

/* Item i of an array that malformed IR may lack. */
static const tlc_expr *item(const tlc_expr *const *items, int i)
{
	return items ? items[i] : NULL;
}

/* Key (half 0) or value (half 1) of pair i of a dict. */
static const tlc_expr *dict_half(const tlc_expr *e, int i, int half)
{
	const tlc_expr *pair = item(e->u.tuple.items, i);
	if (!pair || pair->kind != TLC_EXPR_TUPLE || pair->u.tuple.n != 2)
		return NULL;
	return item(pair->u.tuple.items, half);
}

const tlc_expr *tlc_expr_child(const tlc_expr *e, int i)
{
	if (i < 0 || i >= tlc_expr_num_children(e))
		return NULL;
	switch (e->kind) {
	case TLC_EXPR_LOAD: return item(e->u.load.idx, i);
	case TLC_EXPR_REGION:
		if (!e->u.region.dims)
			return NULL;
		return i % 2 ? e->u.region.dims[i / 2].extent : e->u.region.dims[i / 2].begin;
	case TLC_EXPR_TUPLE:
		return e->u.tuple.is_dict ? dict_half(e, i / 2, i % 2) : item(e->u.tuple.items, i);
	case TLC_EXPR_CALL:
		if (i < e->u.call.nargs)
			return item(e->u.call.args, i);
		return item(e->u.call.kw_values, i - e->u.call.nargs);
	case TLC_EXPR_LAMBDA: return e->u.lambda.body;
	default: return i == 0 ? e->u.op.a : i == 1 ? e->u.op.b : e->u.op.c;
	}
}

/* The buffer a BUF, LOAD or REGION names; NULL for other kinds. */
static tlc_buffer *expr_buffer(const tlc_expr *e)
{
	switch (e->kind) {
	case TLC_EXPR_BUF: return e->u.buf;
	case TLC_EXPR_LOAD: return e->u.load.buf;
	case TLC_EXPR_REGION: return e->u.region.buf;
	default: return NULL;
	}
}

static const tlc_expr *rebuild_region(tlc_module *m, const tlc_expr *e, tlc_buffer *buf, const tlc_expr *const *k)
{
	int n = e->u.region.n;
	tlc_range *dims = tlc_xcalloc((size_t)n, sizeof(*dims));
	for (int d = 0; d < n; d++) {
		dims[d].begin = k[2 * d];
		dims[d].extent = k[2 * d + 1];
		dims[d].is_point = e->u.region.dims ? e->u.region.dims[d].is_point : false;
	}
	const tlc_expr *r = tlc_region(m, buf, n, dims); /* copies dims into the arena */
	free(dims);
	return r;
}

static const tlc_expr *rebuild_dict(tlc_module *m, const tlc_expr *e, const tlc_expr *const *k)
{
	int n = e->u.tuple.n;
	const tlc_expr **keys = tlc_xcalloc((size_t)n, sizeof(*keys));
	const tlc_expr **values = tlc_xcalloc((size_t)n, sizeof(*values));
	for (int i = 0; i < n; i++) {
		keys[i] = k[2 * i];
		values[i] = k[2 * i + 1];
	}
	const tlc_expr *r = tlc_dict(m, n, keys, values);
	free(keys);
	free(values);
	return r;
}

/* e over buffer buf and operands k, through the constructors; e itself when
 * nothing differs.  NULL only when a constructor rejects the operands
 * (malformed IR). */
static const tlc_expr *rebuild(tlc_module *m, const tlc_expr *e, tlc_buffer *buf, const tlc_expr *const *k)
{
	int n = tlc_expr_num_children(e);
	bool same = buf == expr_buffer(e);
	for (int i = 0; i < n && same; i++)
		same = k[i] == tlc_expr_child(e, i);
	if (same)
		return e;
	switch (e->kind) {
	case TLC_EXPR_BUF: return tlc_buf_ref(m, buf);
	case TLC_EXPR_NOT:
	case TLC_EXPR_NEG: return tlc_unary(m, e->kind, k[0]);
	case TLC_EXPR_CAST: return tlc_cast(m, e->dtype, k[0]);
	case TLC_EXPR_BITCAST: return tlc_bitcast(m, e->dtype, k[0]);
	case TLC_EXPR_SELECT: return tlc_select(m, k[0], k[1], k[2]);
	case TLC_EXPR_LOAD: return tlc_load(m, buf, n, k);
	case TLC_EXPR_REGION: return rebuild_region(m, e, buf, k);
	case TLC_EXPR_TUPLE:
		if (e->u.tuple.is_dict)
			return rebuild_dict(m, e, k);
		return tlc_tuple(m, n, k, e->u.tuple.is_list);
	case TLC_EXPR_CALL:
		return tlc_call(m, e->u.call.op, e->dtype, e->u.call.nargs, k, e->u.call.nkw, e->u.call.kw_names,
		                k + e->u.call.nargs);
	case TLC_EXPR_LAMBDA: return tlc_lambda(m, e->u.lambda.nparams, e->u.lambda.params, k[0]);
	default: return is_binary(e->kind) ? tlc_binary(m, e->kind, k[0], k[1]) : e;
	}
}

const tlc_expr *tlc_expr_with_children(tlc_module *m, const tlc_expr *e, const tlc_expr *const *children)
{
	if (!e)
		return NULL;
	return rebuild(m, e, expr_buffer(e), children);
}

/* ---- parts of statements ---- */

int tlc_stmt_num_exprs(const tlc_stmt *s)
{
	if (!s)
		return 0;
	switch (s->kind) {
	case TLC_STMT_FOR: return 3;
	case TLC_STMT_STORE: return (s->u.store.n > 0 ? s->u.store.n : 0) + 1;
	case TLC_STMT_ALLOC: {
		const tlc_buffer *b = s->u.alloc.buf;
		return b ? (b->ndim > 0 ? b->ndim : 0) + (b->ninit > 0 ? b->ninit : 0) + (b->base ? 1 : 0) : 0;
	}
	case TLC_STMT_IF:
	case TLC_STMT_LET:
	case TLC_STMT_EVAL:
	case TLC_STMT_SCOPE:
	case TLC_STMT_ATTR: return 1;
	default: return 0;
	}
}

const tlc_expr *tlc_stmt_expr(const tlc_stmt *s, int i)
{
	if (i < 0 || i >= tlc_stmt_num_exprs(s))
		return NULL;
	switch (s->kind) {
	case TLC_STMT_FOR: return i == 0 ? s->u.loop.min : i == 1 ? s->u.loop.extent : s->u.loop.loop_layout;
	case TLC_STMT_IF: return s->u.if_.cond;
	case TLC_STMT_LET: return s->u.let.value;
	case TLC_STMT_STORE: return i < s->u.store.n ? item(s->u.store.idx, i) : s->u.store.value;
	case TLC_STMT_EVAL: return s->u.eval.call;
	case TLC_STMT_SCOPE: return s->u.scope.call;
	case TLC_STMT_ATTR: return s->u.attr.value;
	case TLC_STMT_ALLOC: {
		const tlc_buffer *b = s->u.alloc.buf;
		int nshape = b->ndim > 0 ? b->ndim : 0, ninit = b->ninit > 0 ? b->ninit : 0;
		if (i >= nshape + ninit)
			return b->base; /* T.make_tensor's run-time address, last */
		return i < nshape ? item(b->shape, i) : item(b->init, i - nshape);
	}
	default: return NULL;
	}
}

int tlc_stmt_num_children(const tlc_stmt *s)
{
	if (!s)
		return 0;
	switch (s->kind) {
	case TLC_STMT_SEQ: return s->u.seq.items && s->u.seq.n > 0 ? s->u.seq.n : 0;
	case TLC_STMT_IF: return 2;
	case TLC_STMT_FOR:
	case TLC_STMT_SCOPE:
	case TLC_STMT_ATTR: return 1;
	default: return 0;
	}
}

tlc_stmt **tlc_stmt_child_slot(tlc_stmt *s, int i)
{
	if (i < 0 || i >= tlc_stmt_num_children(s))
		return NULL;
	switch (s->kind) {
	case TLC_STMT_SEQ: return &s->u.seq.items[i];
	case TLC_STMT_IF: return i == 0 ? &s->u.if_.then_s : &s->u.if_.else_s;
	case TLC_STMT_FOR: return &s->u.loop.body;
	case TLC_STMT_SCOPE: return &s->u.scope.body;
	case TLC_STMT_ATTR: return &s->u.attr.body;
	default: return NULL;
	}
}

tlc_stmt *tlc_stmt_child(const tlc_stmt *s, int i)
{
	/* the slot is only read */
	tlc_stmt **slot = tlc_stmt_child_slot((tlc_stmt *)s, i);
	return slot ? *slot : NULL;
}

/* ---- the visitor ---- */

bool tlc_walk_expr(const tlc_visitor *v, const tlc_expr *e)
{
	if (!e)
		return true;
	tlc_walk_action act = v->expr_pre ? v->expr_pre(v->ctx, e) : TLC_WALK_CONTINUE;
	if (act == TLC_WALK_STOP)
		return false;
	if (act == TLC_WALK_CONTINUE) {
		int n = tlc_expr_num_children(e);
		for (int i = 0; i < n; i++)
			if (!tlc_walk_expr(v, tlc_expr_child(e, i)))
				return false;
	}
	if (v->expr_post)
		v->expr_post(v->ctx, e);
	return true;
}

/* A visitor without expression hooks never descends into expressions:
 * statement-only walks (declarations, block structure) stay cheap. */
static bool wants_exprs(const tlc_visitor *v)
{
	return v->expr_pre || v->expr_post;
}

bool tlc_walk_stmt(const tlc_visitor *v, const tlc_stmt *s)
{
	if (!s)
		return true;
	tlc_walk_action act = v->stmt_pre ? v->stmt_pre(v->ctx, s) : TLC_WALK_CONTINUE;
	if (act == TLC_WALK_STOP)
		return false;
	if (act == TLC_WALK_CONTINUE) {
		int ne = wants_exprs(v) ? tlc_stmt_num_exprs(s) : 0;
		for (int i = 0; i < ne; i++)
			if (!tlc_walk_expr(v, tlc_stmt_expr(s, i)))
				return false;
		int nc = tlc_stmt_num_children(s);
		for (int i = 0; i < nc; i++)
			if (!tlc_walk_stmt(v, tlc_stmt_child(s, i)))
				return false;
	}
	if (v->stmt_post)
		v->stmt_post(v->ctx, s);
	return true;
}

static bool walk_list(const tlc_visitor *v, const tlc_expr *const *items, int n)
{
	for (int i = 0; items && i < n; i++)
		if (!tlc_walk_expr(v, items[i]))
			return false;
	return true;
}

bool tlc_walk_func(const tlc_visitor *v, const tlc_func *f)
{
	if (!f)
		return true;
	if (wants_exprs(v)) {
		for (int i = 0; i < f->nparams; i++) {
			const tlc_buffer *b = f->params[i].buf;
			if (b && !walk_list(v, b->shape, b->ndim))
				return false;
		}
		int ngrid = f->grid_ndim < 3 ? f->grid_ndim : 3, nthreads = f->thread_ndim < 3 ? f->thread_ndim : 3;
		if (!walk_list(v, f->attr_values, f->nattrs) || !walk_list(v, f->grid, ngrid) ||
		    !walk_list(v, f->threads, nthreads))
			return false;
	}
	return tlc_walk_stmt(v, f->body);
}

/* ---- the rewriter: maps ---- */

void tlc_rewriter_init(tlc_rewriter *rw, tlc_module *m)
{
	memset(rw, 0, sizeof(*rw));
	rw->m = m;
}

void tlc_rewriter_free(tlc_rewriter *rw)
{
	free(rw->var_keys);
	free(rw->var_values);
	free(rw->buf_keys);
	free(rw->buf_values);
	rw->var_keys = NULL;
	rw->var_values = NULL;
	rw->buf_keys = NULL;
	rw->buf_values = NULL;
	rw->nvars = rw->cap_vars = rw->nbufs = rw->cap_bufs = 0;
}

/* The maps are small (the variables of a few loops, the buffers of a
 * pipeline) and looked up by pointer: linear search beats hashing them. */
static int find_key(const void *const *keys, int n, const void *key)
{
	for (int i = 0; i < n; i++)
		if (keys[i] == key)
			return i;
	return -1;
}

void tlc_rewriter_map_var(tlc_rewriter *rw, const tlc_var *v, const tlc_expr *value)
{
	int i = find_key((const void *const *)rw->var_keys, rw->nvars, v);
	if (!value) {
		if (i >= 0) { /* the last entry takes the removed one's place */
			rw->nvars--;
			rw->var_keys[i] = rw->var_keys[rw->nvars];
			rw->var_values[i] = rw->var_values[rw->nvars];
		}
		return;
	}
	if (i < 0) {
		if (rw->nvars == rw->cap_vars) {
			rw->cap_vars = rw->cap_vars ? 2 * rw->cap_vars : 8;
			size_t cap = (size_t)rw->cap_vars;
			rw->var_keys = tlc_xrealloc(rw->var_keys, cap * sizeof(*rw->var_keys));
			rw->var_values = tlc_xrealloc(rw->var_values, cap * sizeof(*rw->var_values));
		}
		i = rw->nvars++;
		rw->var_keys[i] = v;
	}
	rw->var_values[i] = value;
}

void tlc_rewriter_map_buffer(tlc_rewriter *rw, const tlc_buffer *from, tlc_buffer *to)
{
	int i = find_key((const void *const *)rw->buf_keys, rw->nbufs, from);
	if (!to) {
		if (i >= 0) {
			rw->nbufs--;
			rw->buf_keys[i] = rw->buf_keys[rw->nbufs];
			rw->buf_values[i] = rw->buf_values[rw->nbufs];
		}
		return;
	}
	if (i < 0) {
		if (rw->nbufs == rw->cap_bufs) {
			rw->cap_bufs = rw->cap_bufs ? 2 * rw->cap_bufs : 8;
			size_t cap = (size_t)rw->cap_bufs;
			rw->buf_keys = tlc_xrealloc(rw->buf_keys, cap * sizeof(*rw->buf_keys));
			rw->buf_values = tlc_xrealloc(rw->buf_values, cap * sizeof(*rw->buf_values));
		}
		i = rw->nbufs++;
		rw->buf_keys[i] = from;
	}
	rw->buf_values[i] = to;
}

const tlc_expr *tlc_rewriter_var_value(const tlc_rewriter *rw, const tlc_var *v)
{
	int i = find_key((const void *const *)rw->var_keys, rw->nvars, v);
	return i >= 0 ? rw->var_values[i] : NULL;
}

tlc_buffer *tlc_rewriter_buffer_value(const tlc_rewriter *rw, const tlc_buffer *b)
{
	int i = find_key((const void *const *)rw->buf_keys, rw->nbufs, b);
	return i >= 0 ? rw->buf_values[i] : NULL;
}

/* b as the rewrite sees it: its mapping, or b itself. */
static tlc_buffer *map_buffer(const tlc_rewriter *rw, tlc_buffer *b)
{
	tlc_buffer *to = b && rw->nbufs ? tlc_rewriter_buffer_value(rw, b) : NULL;
	return to ? to : b;
}

/* ---- the rewriter: expressions ---- */

const tlc_expr *tlc_expr_rewrite(tlc_rewriter *rw, const tlc_expr *e)
{
	if (!e)
		return NULL;
	if (rw->expr_pre) {
		const tlc_expr *r = rw->expr_pre(rw, e);
		if (r)
			return r;
	}
	if (e->kind == TLC_EXPR_VAR && rw->nvars) {
		const tlc_expr *value = tlc_rewriter_var_value(rw, e->u.var);
		if (value)
			return value;
	}
	const tlc_expr *out = e;
	int n = tlc_expr_num_children(e);
	tlc_buffer *buf = expr_buffer(e);
	if (n > 0 || buf) {
		const tlc_expr *small[8];
		const tlc_expr **k = n <= 8 ? small : tlc_xcalloc((size_t)n, sizeof(*k));
		for (int i = 0; i < n; i++)
			k[i] = tlc_expr_rewrite(rw, tlc_expr_child(e, i));
		out = rebuild(rw->m, e, map_buffer(rw, buf), k);
		if (k != small)
			free(k);
	}
	if (rw->expr_post && out) {
		const tlc_expr *r = rw->expr_post(rw, out);
		if (r)
			out = r;
	}
	return out;
}

const tlc_expr *tlc_expr_subst_vars(tlc_module *m, const tlc_expr *e, int n, const tlc_var *const *vars,
                                    const tlc_expr *const *values)
{
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	for (int i = 0; i < n; i++)
		tlc_rewriter_map_var(&rw, vars[i], values[i]);
	const tlc_expr *r = tlc_expr_rewrite(&rw, e);
	tlc_rewriter_free(&rw);
	return r;
}

/* ---- the rewriter: statements ---- */

/* A new variable standing for v from here on (fresh_binders). */
static tlc_var *fresh_var(tlc_rewriter *rw, tlc_var *v)
{
	if (!v)
		return NULL;
	tlc_var *nv = tlc_var_new(rw->m, v->name, v->dtype);
	tlc_rewriter_map_var(rw, v, tlc_var_ref(rw->m, nv));
	return nv;
}

static const tlc_expr **rewrite_list(tlc_rewriter *rw, const tlc_expr *const *items, int n)
{
	if (n <= 0 || !items)
		return NULL;
	const tlc_expr **out = tlc_alloc(rw->m, (size_t)n * sizeof(*out));
	for (int i = 0; i < n; i++)
		out[i] = tlc_expr_rewrite(rw, items[i]);
	return out;
}

/* A new buffer declared like b, its shape and init rewritten (fresh_binders). */
static tlc_buffer *fresh_buffer(tlc_rewriter *rw, tlc_buffer *b)
{
	tlc_buffer *nb = tlc_buffer_new(rw->m, b->name, b->dtype, b->scope, b->ndim, NULL, b->loc);
	for (int d = 0; d < nb->ndim && b->shape; d++)
		nb->shape[d] = tlc_expr_rewrite(rw, b->shape[d]);
	nb->init = rewrite_list(rw, b->init, b->ninit);
	nb->ninit = nb->init ? b->ninit : 0;
	nb->layout = b->layout;
	nb->alias_of = map_buffer(rw, (tlc_buffer *)b->alias_of);
	nb->base = b->base ? tlc_expr_rewrite(rw, b->base) : NULL;
	nb->offset = b->offset;
	tlc_rewriter_map_buffer(rw, b, nb);
	return nb;
}

/* A copy of s's node whose arrays (block items, store indices) are its own. */
static tlc_stmt *copy_node(tlc_module *m, const tlc_stmt *s)
{
	tlc_stmt *c = tlc_alloc(m, sizeof(*c));
	*c = *s;
	if (s->kind == TLC_STMT_SEQ) {
		c->u.seq.cap = c->u.seq.n > 0 ? c->u.seq.n : 0;
		c->u.seq.items = NULL;
		if (c->u.seq.cap) {
			c->u.seq.items = tlc_alloc(m, (size_t)c->u.seq.cap * sizeof(*c->u.seq.items));
			memcpy(c->u.seq.items, s->u.seq.items, (size_t)c->u.seq.n * sizeof(*c->u.seq.items));
		}
	} else if (s->kind == TLC_STMT_STORE && s->u.store.n > 0 && s->u.store.idx) {
		c->u.store.idx = tlc_alloc(m, (size_t)s->u.store.n * sizeof(*c->u.store.idx));
		memcpy(c->u.store.idx, s->u.store.idx, (size_t)s->u.store.n * sizeof(*c->u.store.idx));
	}
	return c;
}

/* Rewrite the expressions and binders of s (a node of its own: the
 * original in place, or a copy), in printed order, so that a binder is
 * renamed after the expressions that cannot see it and before those that do. */
static void rewrite_fields(tlc_rewriter *rw, tlc_stmt *s)
{
	switch (s->kind) {
	case TLC_STMT_FOR:
		s->u.loop.min = tlc_expr_rewrite(rw, s->u.loop.min);
		s->u.loop.extent = tlc_expr_rewrite(rw, s->u.loop.extent);
		s->u.loop.loop_layout = tlc_expr_rewrite(rw, s->u.loop.loop_layout);
		if (rw->fresh_binders)
			s->u.loop.var = fresh_var(rw, s->u.loop.var);
		return;
	case TLC_STMT_IF: s->u.if_.cond = tlc_expr_rewrite(rw, s->u.if_.cond); return;
	case TLC_STMT_LET:
		s->u.let.value = tlc_expr_rewrite(rw, s->u.let.value);
		if (rw->fresh_binders)
			s->u.let.var = fresh_var(rw, s->u.let.var);
		return;
	case TLC_STMT_STORE:
		s->u.store.buf = map_buffer(rw, s->u.store.buf);
		for (int i = 0; i < s->u.store.n && s->u.store.idx; i++)
			s->u.store.idx[i] = tlc_expr_rewrite(rw, s->u.store.idx[i]);
		s->u.store.value = tlc_expr_rewrite(rw, s->u.store.value);
		return;
	case TLC_STMT_EVAL: s->u.eval.call = tlc_expr_rewrite(rw, s->u.eval.call); return;
	case TLC_STMT_ALLOC: {
		/* a fresh binder wins over an older mapping: the previous clone's */
		tlc_buffer *b = s->u.alloc.buf;
		/* a run-time address that the rewrite changes (its pointer table's
		 * index renamed) declares a new buffer, whose accesses follow it */
		if (b && (rw->fresh_binders || (b->base && tlc_expr_rewrite(rw, b->base) != b->base)))
			s->u.alloc.buf = fresh_buffer(rw, b);
		else
			s->u.alloc.buf = map_buffer(rw, b);
		return;
	}
	case TLC_STMT_SCOPE: s->u.scope.call = tlc_expr_rewrite(rw, s->u.scope.call); return;
	case TLC_STMT_ATTR: s->u.attr.value = tlc_expr_rewrite(rw, s->u.attr.value); return;
	default: return;
	}
}

static tlc_stmt *rewrite_stmt(tlc_rewriter *rw, tlc_stmt *s)
{
	if (!s)
		return NULL;
	if (rw->stmt_pre) {
		tlc_stmt *r = rw->stmt_pre(rw, s);
		if (r)
			return r;
	}
	if (rw->cloning)
		s = copy_node(rw->m, s);
	rewrite_fields(rw, s);
	int n = tlc_stmt_num_children(s);
	for (int i = 0; i < n; i++) {
		tlc_stmt **slot = tlc_stmt_child_slot(s, i);
		*slot = rewrite_stmt(rw, *slot);
	}
	if (rw->stmt_post) {
		tlc_stmt *r = rw->stmt_post(rw, s);
		if (r)
			s = r;
	}
	return s;
}

tlc_stmt *tlc_stmt_rewrite(tlc_rewriter *rw, tlc_stmt *s)
{
	bool saved = rw->cloning; /* a clone's hook may rewrite its own copy in place */
	rw->cloning = false;
	tlc_stmt *r = rewrite_stmt(rw, s);
	rw->cloning = saved;
	return r;
}

tlc_stmt *tlc_stmt_clone(tlc_rewriter *rw, const tlc_stmt *s)
{
	bool saved = rw->cloning;
	rw->cloning = true;
	/* never written through: cloning copies each node before editing it */
	tlc_stmt *r = rewrite_stmt(rw, (tlc_stmt *)s);
	rw->cloning = saved;
	return r;
}
