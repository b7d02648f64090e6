/* lower_buffers.c - buffers in their physical form.
 *
 * After the nests are lowered, every fragment access is already a register
 * index: a fragment becomes a per-thread local array of its layout's
 * registers.  A shared or global buffer with a memory layout is addressed
 * through it: each access becomes the flat physical offset, and the buffer
 * becomes 1-D over the physical elements.  The T.annotate_layout statement
 * that carried the layouts is consumed. */
#include <stdlib.h>

#include "lower.h"

static bool has_memory_layout(const tlc_buffer *b)
{
	return b->layout && b->layout->kind != TLC_LAYOUT_FRAGMENT && b->scope != TLC_SCOPE_FRAGMENT;
}

static const tlc_expr *map_expr(lw_state *st, const tlc_expr *e);

static const tlc_expr **map_index(lw_state *st, tlc_buffer *b, int n, const tlc_expr *const *idx, int *nout)
{
	const tlc_expr **out = tlc_alloc(st->m, sizeof(tlc_expr *) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		out[i] = map_expr(st, idx[i]);
	*nout = n;
	if (has_memory_layout(b)) {
		out[0] = tlc_layout_apply(st->m, b->layout, n, out);
		*nout = 1;
	}
	return out;
}

static const tlc_expr *map_expr(lw_state *st, const tlc_expr *e)
{
	tlc_module *m = st->m;
	if (!e)
		return NULL;
	switch (e->kind) {
	case TLC_EXPR_LOAD: {
		int n;
		const tlc_expr **idx = map_index(st, e->u.load.buf, e->u.load.n, e->u.load.idx, &n);
		return tlc_load(m, e->u.load.buf, n, idx);
	}
	case TLC_EXPR_CALL: {
		const tlc_expr **a = tlc_alloc(m, sizeof(tlc_expr *) * (size_t)(e->u.call.nargs + 1));
		for (int i = 0; i < e->u.call.nargs; i++)
			a[i] = map_expr(st, e->u.call.args[i]);
		return tlc_call(m, e->u.call.op, e->dtype, e->u.call.nargs, a, e->u.call.nkw, e->u.call.kw_names,
		                e->u.call.kw_values);
	}
	case TLC_EXPR_SELECT: return tlc_select(m, map_expr(st, e->u.op.a), map_expr(st, e->u.op.b), map_expr(st, e->u.op.c));
	case TLC_EXPR_CAST: return tlc_cast(m, e->dtype, map_expr(st, e->u.op.a));
	case TLC_EXPR_NOT:
	case TLC_EXPR_NEG: return tlc_unary(m, e->kind, map_expr(st, e->u.op.a));
	default:
		if (e->kind >= TLC_EXPR_ADD && e->kind <= TLC_EXPR_SHR)
			return tlc_binary(m, e->kind, map_expr(st, e->u.op.a), map_expr(st, e->u.op.b));
		return e;
	}
}

static bool is_annotate(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL &&
	       s->u.eval.call->u.call.op == TLC_OP_ANNOTATE_LAYOUT;
}

static void map_stmt(lw_state *st, tlc_stmt *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ: {
		int w = 0;
		for (int i = 0; i < s->u.seq.n; i++) {
			if (is_annotate(s->u.seq.items[i]))
				continue;
			map_stmt(st, s->u.seq.items[i]);
			s->u.seq.items[w++] = s->u.seq.items[i];
		}
		s->u.seq.n = w;
		return;
	}
	case TLC_STMT_FOR:
		s->u.loop.min = map_expr(st, s->u.loop.min);
		s->u.loop.extent = map_expr(st, s->u.loop.extent);
		s->u.loop.loop_layout = NULL;
		map_stmt(st, s->u.loop.body);
		return;
	case TLC_STMT_IF:
		s->u.if_.cond = map_expr(st, s->u.if_.cond);
		map_stmt(st, s->u.if_.then_s);
		map_stmt(st, s->u.if_.else_s);
		return;
	case TLC_STMT_LET: s->u.let.value = map_expr(st, s->u.let.value); return;
	case TLC_STMT_STORE: {
		int n;
		const tlc_expr **idx = map_index(st, s->u.store.buf, s->u.store.n, s->u.store.idx, &n);
		s->u.store.idx = idx;
		s->u.store.n = n;
		s->u.store.value = map_expr(st, s->u.store.value);
		return;
	}
	case TLC_STMT_EVAL: s->u.eval.call = map_expr(st, s->u.eval.call); return;
	case TLC_STMT_SCOPE: map_stmt(st, s->u.scope.body); return;
	case TLC_STMT_ATTR: map_stmt(st, s->u.attr.body); return;
	case TLC_STMT_ALLOC: return;
	}
}

/* Give a buffer its physical shape once every access is rewritten. */
static void make_physical(lw_state *st, tlc_buffer *b)
{
	if (b->scope == TLC_SCOPE_FRAGMENT) {
		if (!b->layout) {
			lw_error(st, b->loc, "fragment '%s' has no layout (run layout-inference before lower-tile-ops)", b->name);
			return;
		}
		b->scope = TLC_SCOPE_LOCAL;
		b->ndim = 1;
		b->shape = tlc_alloc(st->m, sizeof(tlc_expr *));
		b->shape[0] = tlc_i32(st->m, b->layout->out_shape[0]);
		b->layout = NULL;
		return;
	}
	if (has_memory_layout(b)) {
		b->ndim = 1;
		b->shape = tlc_alloc(st->m, sizeof(tlc_expr *));
		b->shape[0] = tlc_i32(st->m, tlc_layout_phys_size(b->layout));
		b->layout = NULL;
	}
}

static void physical_allocs(lw_state *st, tlc_stmt *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			physical_allocs(st, s->u.seq.items[i]);
		return;
	case TLC_STMT_FOR: physical_allocs(st, s->u.loop.body); return;
	case TLC_STMT_IF:
		physical_allocs(st, s->u.if_.then_s);
		physical_allocs(st, s->u.if_.else_s);
		return;
	case TLC_STMT_SCOPE: physical_allocs(st, s->u.scope.body); return;
	case TLC_STMT_ATTR: physical_allocs(st, s->u.attr.body); return;
	case TLC_STMT_ALLOC: make_physical(st, s->u.alloc.buf); return;
	default: return;
	}
}

void lw_lower_buffers(lw_state *st)
{
	map_stmt(st, st->f->body);
	physical_allocs(st, st->f->body);
	for (int i = 0; i < st->f->nparams; i++)
		if (st->f->params[i].kind == TLC_PARAM_TENSOR)
			make_physical(st, st->f->params[i].buf);
}
