/* access.c - the buffer accesses of statements (tlc/access.h). */
#include <tlc/access.h>

/* How a call uses its buffer-valued argument i. */
static unsigned arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_MMA_GEMM: /* A, B read; C accumulates */
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: return i < 2 ? TLC_ACCESS_READ : TLC_ACCESS_RW;
	case TLC_OP_COPY_VEC: return i == 0 ? TLC_ACCESS_WRITE : TLC_ACCESS_READ;
	case TLC_OP_COPY:
	case TLC_OP_TMA_COPY: return i == 0 ? TLC_ACCESS_READ : TLC_ACCESS_WRITE;
	case TLC_OP_FILL:
	case TLC_OP_CLEAR: return TLC_ACCESS_WRITE;
	case TLC_OP_ATOMIC_ADD: return i == 0 ? TLC_ACCESS_RW : TLC_ACCESS_READ;
	default: return TLC_ACCESS_RW; /* unknown: as conservative as can be */
	}
}

/* How a call uses its element argument i (a load: copy_vec and atomics take
 * the address of their first one). */
static unsigned load_arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_COPY_VEC: return i == 0 ? TLC_ACCESS_WRITE : TLC_ACCESS_READ;
	case TLC_OP_ATOMIC_ADD:
	case TLC_OP_ATOMIC_ADD_VEC: return i == 0 ? TLC_ACCESS_RW : TLC_ACCESS_READ;
	default: return TLC_ACCESS_READ;
	}
}

void tlc_expr_accesses(const tlc_expr *x, unsigned mode, tlc_access_fn fn, void *ctx)
{
	if (!x)
		return;
	switch (x->kind) {
	case TLC_EXPR_LOAD:
		fn(ctx, x->u.load.buf, mode);
		for (int i = 0; i < x->u.load.n; i++)
			tlc_expr_accesses(x->u.load.idx[i], TLC_ACCESS_READ, fn, ctx);
		return;
	case TLC_EXPR_BUF: fn(ctx, x->u.buf, mode); return;
	case TLC_EXPR_REGION:
		fn(ctx, x->u.region.buf, mode);
		for (int i = 0; i < x->u.region.n; i++) {
			tlc_expr_accesses(x->u.region.dims[i].begin, TLC_ACCESS_READ, fn, ctx);
			tlc_expr_accesses(x->u.region.dims[i].extent, TLC_ACCESS_READ, fn, ctx);
		}
		return;
	case TLC_EXPR_CALL:
		for (int i = 0; i < x->u.call.nargs; i++) {
			const tlc_expr *a = x->u.call.args[i];
			unsigned m = a->kind == TLC_EXPR_LOAD ? load_arg_mode(x->u.call.op, i) : arg_mode(x->u.call.op, i);
			tlc_expr_accesses(a, m, fn, ctx);
		}
		for (int i = 0; i < x->u.call.nkw; i++)
			tlc_expr_accesses(x->u.call.kw_values[i], TLC_ACCESS_RW, fn, ctx);
		return;
	case TLC_EXPR_TUPLE:
		for (int i = 0; i < x->u.tuple.n; i++)
			tlc_expr_accesses(x->u.tuple.items[i], mode, fn, ctx);
		return;
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT:
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM:
	case TLC_EXPR_VAR:
	case TLC_EXPR_LAMBDA: return;
	default:
		tlc_expr_accesses(x->u.op.a, TLC_ACCESS_READ, fn, ctx);
		tlc_expr_accesses(x->u.op.b, TLC_ACCESS_READ, fn, ctx);
		tlc_expr_accesses(x->u.op.c, TLC_ACCESS_READ, fn, ctx);
	}
}

void tlc_stmt_accesses(const tlc_stmt *s, tlc_access_fn fn, void *ctx)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			tlc_stmt_accesses(s->u.seq.items[i], fn, ctx);
		return;
	case TLC_STMT_FOR:
		tlc_expr_accesses(s->u.loop.min, TLC_ACCESS_READ, fn, ctx);
		tlc_expr_accesses(s->u.loop.extent, TLC_ACCESS_READ, fn, ctx);
		tlc_stmt_accesses(s->u.loop.body, fn, ctx);
		return;
	case TLC_STMT_IF:
		tlc_expr_accesses(s->u.if_.cond, TLC_ACCESS_READ, fn, ctx);
		tlc_stmt_accesses(s->u.if_.then_s, fn, ctx);
		tlc_stmt_accesses(s->u.if_.else_s, fn, ctx);
		return;
	case TLC_STMT_LET: tlc_expr_accesses(s->u.let.value, TLC_ACCESS_READ, fn, ctx); return;
	case TLC_STMT_STORE:
		fn(ctx, s->u.store.buf, TLC_ACCESS_WRITE);
		for (int i = 0; i < s->u.store.n; i++)
			tlc_expr_accesses(s->u.store.idx[i], TLC_ACCESS_READ, fn, ctx);
		tlc_expr_accesses(s->u.store.value, TLC_ACCESS_READ, fn, ctx);
		return;
	case TLC_STMT_EVAL: tlc_expr_accesses(s->u.eval.call, TLC_ACCESS_READ, fn, ctx); return;
	case TLC_STMT_SCOPE: tlc_stmt_accesses(s->u.scope.body, fn, ctx); return;
	case TLC_STMT_ATTR: tlc_stmt_accesses(s->u.attr.body, fn, ctx); return;
	case TLC_STMT_ALLOC: return;
	}
}
