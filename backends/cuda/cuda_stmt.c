/* cuda_stmt.c - statements of the lowered IR printed as CUDA C++.
 *
 * The target expects thread-level IR: lower-tile-ops has turned tile ops and
 * T.Parallel nests into per-thread code.  Each lowered nest comes wrapped in
 * `with T.attr("parallel_nest", 1):`; inside one, threads diverge, so no
 * barrier may go there (a hazard inside is an error asking to split the
 * loop), while between statements outside, barriers go where shared memory
 * written by some threads is read by others. */
#include <stdio.h>
#include <string.h>

#include "cuda_emit.h"

static void indent(cuda_emitter *e, int ind)
{
	for (int i = 0; i < ind; i++)
		tlc_buf_putc(e->out, '\t');
}

static void line(cuda_emitter *e, int ind, const char *text)
{
	indent(e, ind);
	tlc_buf_puts(e->out, text);
	tlc_buf_putc(e->out, '\n');
}

static void emit_sync(cuda_emitter *e, int ind)
{
	line(e, ind, "__syncthreads();");
	e->pend_reads = (cuda_smem_set){0};
	e->pend_writes = (cuda_smem_set){0};
}

static bool smem_hazard(const cuda_emitter *e, const cuda_smem_set *r, const cuda_smem_set *w)
{
	return cuda_smem_set_intersects(r, &e->pend_writes) || cuda_smem_set_intersects(w, &e->pend_reads) ||
	       cuda_smem_set_intersects(w, &e->pend_writes);
}

/* The sync-insert pass places the barriers; check that s does not conflict
 * with shared accesses since the last one, so that a pipeline without that
 * pass fails here instead of racing on the GPU. */
static void sync_before(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	(void)ind;
	cuda_smem_set r = {0}, w = {0};
	if (e->in_nest)
		return; /* no barrier can go there: sync-insert reports hazards inside a nest */
	cuda_collect_shared(s, &r, &w);
	if (!smem_hazard(e, &r, &w))
		return;
	cuda_error(e, s->loc,
	           "internal consistency check: this statement touches shared memory that other threads "
	           "accessed since the last barrier, and no T.sync_threads() is between them: the pipeline "
	           "must run sync-insert after the last pass that changes shared accesses (see tlc.ini)");
	/* one report per missing barrier */
	e->pend_reads = (cuda_smem_set){0};
	e->pend_writes = (cuda_smem_set){0};
}

/* The shared accesses of a loop body before its first barrier: what the
 * next iteration does before it synchronizes. */
static void body_head(const tlc_stmt *body, cuda_smem_set *r, cuda_smem_set *w)
{
	bool seq = body->kind == TLC_STMT_SEQ;
	int n = seq ? body->u.seq.n : 1;
	for (int i = 0; i < n; i++) {
		const tlc_stmt *item = seq ? body->u.seq.items[i] : body;
		if (item->kind == TLC_STMT_EVAL && item->u.eval.call->kind == TLC_EXPR_CALL &&
		    item->u.eval.call->u.call.op == TLC_OP_SYNC_THREADS)
			return;
		cuda_collect_shared(item, r, w);
	}
}

static void record_after(cuda_emitter *e, const tlc_stmt *s)
{
	cuda_smem_set r = {0}, w = {0};
	cuda_collect_shared(s, &r, &w);
	cuda_smem_set_union(&e->pend_reads, &r);
	cuda_smem_set_union(&e->pend_writes, &w);
}

static void emit_seq(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	for (int i = 0; i < s->u.seq.n && !e->errors; i++) {
		const tlc_stmt *item = s->u.seq.items[i];
		sync_before(e, item, ind);
		cuda_emit_stmt(e, item, ind);
		if (!(item->kind == TLC_STMT_EVAL && item->u.eval.call->kind == TLC_EXPR_CALL &&
		      item->u.eval.call->u.call.op == TLC_OP_SYNC_THREADS))
			record_after(e, item);
	}
}

/* Emit a body that is not itself a block: one statement, still checked
 * against pending shared accesses. */
static void emit_body(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	if (s->kind == TLC_STMT_SEQ) {
		emit_seq(e, s, ind);
		return;
	}
	sync_before(e, s, ind);
	cuda_emit_stmt(e, s, ind);
	record_after(e, s);
}

static void emit_serial(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const char *ty = cuda_ctype(s->u.loop.var->dtype);
	const char *name = cuda_name(e, s->u.loop.var->name);
	int64_t lo, hi, elo, ehi;
	if (s->u.loop.kind == TLC_FOR_UNROLLED || s->u.loop.kind == TLC_FOR_VECTORIZED)
		line(e, ind, "#pragma unroll");
	indent(e, ind);
	tlc_buf_printf(e->out, "for (%s %s = ", ty ? ty : "int", name);
	cuda_emit_expr(e, s->u.loop.min);
	tlc_buf_printf(e->out, "; %s < ", name);
	cuda_emit_expr(e, tlc_simplify_expr(e->m, tlc_binary(e->m, TLC_EXPR_ADD, s->u.loop.min, s->u.loop.extent)));
	tlc_buf_printf(e->out, "; ++%s) {\n", name);
	int saved = e->ranges.n;
	if (tlc_expr_bounds(&e->ranges, s->u.loop.min, &lo, &hi) &&
	    tlc_expr_bounds(&e->ranges, s->u.loop.extent, &elo, &ehi) && ehi >= 1)
		tlc_ranges_push(&e->ranges, s->u.loop.var, lo, hi + ehi - 1);
	emit_body(e, s->u.loop.body, ind + 1);
	/* what the body left pending must not meet what the next iteration does
	 * before its first barrier (sync-insert ends such a body with one) */
	cuda_smem_set r = {0}, w = {0};
	if (s->u.loop.body)
		body_head(s->u.loop.body, &r, &w);
	if (!e->in_nest && !e->errors && smem_hazard(e, &r, &w))
		cuda_error(e, s->loc,
		           "internal consistency check: one iteration of this loop leaves shared memory that the next "
		           "one touches before any barrier, and the body does not end with T.sync_threads(): the "
		           "pipeline must run sync-insert (see tlc.ini)");
	e->ranges.n = saved;
	line(e, ind, "}");
}

static void emit_for(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	switch (s->u.loop.kind) {
	case TLC_FOR_PARALLEL:
		cuda_error(e, s->loc,
		           "T.Parallel loops must be lowered before target %s: run layout-inference and lower-tile-ops "
		           "(see the default pipeline in tlc.ini)",
		           e->arch->target);
		return;
	case TLC_FOR_SERIAL:
	case TLC_FOR_UNROLLED:
	case TLC_FOR_VECTORIZED:
		emit_serial(e, s, ind);
		return;
	case TLC_FOR_PIPELINED:
		cuda_error(e, s->loc, "T.Pipelined is not supported by target %s yet", e->arch->target);
		return;
	case TLC_FOR_THREAD:
		cuda_error(e, s->loc, "T.thread_binding loops are not supported by target %s yet", e->arch->target);
		return;
	}
}

static void emit_alloc(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_buffer *b = s->u.alloc.buf;
	const char *ty = cuda_ctype(b->dtype), *name = cuda_name(e, b->name);
	int64_t numel = 0;
	if (!ty) {
		cuda_error(e, s->loc, "dtype %s is not supported by target %s yet", tlc_dtype_name(b->dtype), e->arch->target);
		return;
	}
	if (b->alias_of) {
		cuda_error(e, s->loc, "T.view ('%s' over '%s') is not supported by target %s yet", b->name, b->alias_of->name,
		           e->arch->target);
		return;
	}
	if (b->scope != TLC_SCOPE_VAR && !tlc_buffer_numel(b, &numel)) {
		cuda_error(e, s->loc, "the shape of '%s' must be compile-time constants", b->name);
		return;
	}
	indent(e, ind);
	switch (b->scope) {
	case TLC_SCOPE_SHARED_DYN:
		for (int i = 0; i < e->nsmem; i++)
			if (e->smem_bufs[i] == b)
				tlc_buf_printf(e->out, "%s *%s = reinterpret_cast<%s *>(tlc_smem + %lld);\n", ty, name, ty,
				               (long long)e->smem_offsets[i]);
		return;
	case TLC_SCOPE_SHARED:
		tlc_buf_printf(e->out, "__shared__ __align__(16) %s %s[%lld];\n", ty, name, (long long)numel);
		return;
	case TLC_SCOPE_FRAGMENT:
		tlc_buf_puts(e->out, "\n");
		cuda_error(e, s->loc, "fragment '%s' must be lowered to registers before target %s: run layout-inference "
		           "and lower-tile-ops", b->name, e->arch->target);
		return;
	case TLC_SCOPE_LOCAL:
		tlc_buf_printf(e->out, "%s %s[%lld];\n", ty, name, (long long)(numel ? numel : 1));
		return;
	case TLC_SCOPE_VAR:
		tlc_buf_printf(e->out, "%s %s", ty, name);
		if (b->ninit > 0 && b->init && b->init[0]) {
			tlc_buf_puts(e->out, " = ");
			cuda_emit_expr(e, b->init[0]->dtype == b->dtype ? b->init[0] : tlc_cast(e->m, b->dtype, b->init[0]));
		}
		tlc_buf_puts(e->out, ";\n");
		return;
	default:
		tlc_buf_puts(e->out, "\n");
		cuda_error(e, s->loc, "%s buffers are not supported by target %s yet", tlc_scope_name(b->scope),
		           e->arch->target);
	}
}

static void emit_eval(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL) {
		cuda_error(e, s->loc, "an expression statement must be a call");
		return;
	}
	switch (c->u.call.op) {
	case TLC_OP_SYNC_THREADS:
		emit_sync(e, ind);
		return;
	case TLC_OP_SYNC_WARP:
		line(e, ind, "__syncwarp();");
		return;
	case TLC_OP_MMA_GEMM:
		cuda_emit_mma_gemm(e, c, ind);
		return;
	case TLC_OP_ATOMIC_ADD:
		cuda_emit_atomic_add(e, s, ind);
		return;
	case TLC_OP_COPY_VEC:
		cuda_emit_copy_vec(e, s, ind);
		return;
	case TLC_OP_ATOMIC_ADD_VEC:
		cuda_emit_atomic_add_vec(e, s, ind);
		return;
	case TLC_OP_USE_SWIZZLE: {
		/* a permutation of the blocks for L2 locality; the block variables are
		 * defined from it at kernel entry (cuda_emit.c) */
		int64_t panel = 0, enable = 1;
		const tlc_expr *order = c->u.call.nargs > 1 ? c->u.call.args[1] : tlc_call_kw(c, "order");
		const tlc_expr *en = tlc_call_kw(c, "enable");
		if (!tlc_expr_as_int(c->u.call.args[0], &panel) || panel <= 0 || (en && !tlc_expr_as_int(en, &enable))) {
			cuda_error(e, s->loc, "T.use_swizzle needs a positive compile-time panel size");
			return;
		}
		if (order && (order->kind != TLC_EXPR_STR || (strcmp(order->u.str, "row") && strcmp(order->u.str, "column")))) {
			cuda_error(e, s->loc, "T.use_swizzle: order must be \"row\" or \"column\"");
			return;
		}
		if (!enable)
			return;
		if (e->f->grid_ndim < 2) {
			cuda_error(e, s->loc, "T.use_swizzle needs a 2-D grid (T.Kernel(nx, ny, ...))");
			return;
		}
		e->raster_panel = panel;
		e->raster_column = order && !strcmp(order->u.str, "column");
		e->helpers |= CUDA_HELPER_RASTER;
		line(e, ind, "/* T.use_swizzle: block indices come from tlc::rasterization2D* at kernel entry */");
		return;
	}
	default:
		cuda_error(e, s->loc, "T.%s is not supported by target %s yet", cuda_op_name(e, c), e->arch->target);
	}
}

static void emit_store(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_buffer *b = s->u.store.buf;
	const tlc_expr *v = s->u.store.value;
	indent(e, ind);
	cuda_emit_access(e, s->loc, b, s->u.store.n, s->u.store.idx);
	tlc_buf_puts(e->out, " = ");
	cuda_emit_expr(e, v->dtype == b->dtype ? v : tlc_cast(e->m, b->dtype, v));
	tlc_buf_puts(e->out, ";\n");
}

static void emit_let(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	const char *ty = cuda_ctype(s->u.let.var->dtype);
	int64_t lo, hi;
	if (!ty) {
		cuda_error(e, s->loc, "dtype %s is not supported by target %s yet", tlc_dtype_name(s->u.let.var->dtype),
		           e->arch->target);
		return;
	}
	indent(e, ind);
	tlc_buf_printf(e->out, "const %s %s = ", ty, cuda_name(e, s->u.let.var->name));
	cuda_emit_expr(e, s->u.let.value);
	tlc_buf_puts(e->out, ";\n");
	/* visible to the rest of the enclosing block: the caller restores n */
	if (tlc_expr_bounds(&e->ranges, s->u.let.value, &lo, &hi))
		tlc_ranges_push(&e->ranges, s->u.let.var, lo, hi);
}

void cuda_emit_stmt(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	if (!s || e->errors)
		return;
	e->loc = s->loc;
	switch (s->kind) {
	case TLC_STMT_SEQ: {
		int saved = e->ranges.n;
		emit_seq(e, s, ind);
		e->ranges.n = saved;
		return;
	}
	case TLC_STMT_FOR:
		emit_for(e, s, ind);
		return;
	case TLC_STMT_IF:
		indent(e, ind);
		tlc_buf_puts(e->out, "if (");
		cuda_emit_expr(e, s->u.if_.cond);
		tlc_buf_puts(e->out, ") {\n");
		emit_body(e, s->u.if_.then_s, ind + 1);
		if (s->u.if_.else_s) {
			line(e, ind, "} else {");
			emit_body(e, s->u.if_.else_s, ind + 1);
		}
		line(e, ind, "}");
		return;
	case TLC_STMT_LET:
		emit_let(e, s, ind);
		return;
	case TLC_STMT_STORE:
		emit_store(e, s, ind);
		return;
	case TLC_STMT_EVAL:
		emit_eval(e, s, ind);
		return;
	case TLC_STMT_ALLOC:
		emit_alloc(e, s, ind);
		return;
	case TLC_STMT_SCOPE:
		cuda_error(e, s->loc, "T.%s is not supported by target %s yet", cuda_op_name(e, s->u.scope.call),
		           e->arch->target);
		return;
	case TLC_STMT_ATTR: {
		bool nest = s->u.attr.key &&
		            (!strcmp(s->u.attr.key, "parallel_nest") || !strcmp(s->u.attr.key, "thread_private"));
		bool saved = e->in_nest;
		e->in_nest |= nest;
		line(e, ind, "{");
		emit_body(e, s->u.attr.body, ind + 1);
		line(e, ind, "}");
		e->in_nest = saved;
		return;
	}
	}
}
