/* cuda_stmt.c - statements of the IR printed as CUDA C++.
 *
 * T.Parallel loops get the simple thread partition: the iteration with flat
 * (row-major) index f runs in thread f % T at step f / T, and a fragment of
 * the same shape keeps element f in that thread's register slot f / T.  This
 * stands in for layout inference until the `layout-inference` and
 * `lower-tile-ops` pass plugins exist (next issue). */
#include <stdio.h>

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

/* Insert a barrier before s when s conflicts with shared accesses since the
 * last one; then record s's accesses. */
static void sync_before(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	cuda_smem_set r = {0}, w = {0};
	cuda_collect_shared(s, &r, &w);
	bool hazard = cuda_smem_set_intersects(&r, &e->pend_writes) || cuda_smem_set_intersects(&w, &e->pend_reads) ||
	              cuda_smem_set_intersects(&w, &e->pend_writes);
	if (hazard) {
		if (e->par)
			cuda_error(e, s->loc,
			           "this T.Parallel loop reads back shared memory it wrote (or overwrites what it "
			           "read): split it into two loops so that a barrier can go between them");
		else
			emit_sync(e, ind);
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

/* The loop directly nested in s's body, if the body is exactly one
 * T.Parallel loop. */
static const tlc_stmt *inner_parallel(const tlc_stmt *s)
{
	const tlc_stmt *b = s->u.loop.body;
	if (b && b->kind == TLC_STMT_SEQ && b->u.seq.n == 1)
		b = b->u.seq.items[0];
	return b && b->kind == TLC_STMT_FOR && b->u.loop.kind == TLC_FOR_PARALLEL ? b : NULL;
}

static void emit_parallel(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	cuda_par_frame frame = {0};
	int64_t mins[8];
	const tlc_stmt *loop = s, *body = NULL;
	if (e->par) {
		cuda_error(e, s->loc, "a T.Parallel loop inside another one must be directly nested (for i, j in T.Parallel(a, b))");
		return;
	}
	for (; loop; loop = inner_parallel(loop)) {
		if (frame.n == 8) {
			cuda_error(e, s->loc, "T.Parallel nests deeper than 8 loops are not supported");
			return;
		}
		if (!tlc_expr_as_int(loop->u.loop.min, &mins[frame.n]) ||
		    !tlc_expr_as_int(loop->u.loop.extent, &frame.extents[frame.n]) || frame.extents[frame.n] <= 0) {
			cuda_error(e, loop->loc, "the extents of a T.Parallel loop must be positive compile-time constants");
			return;
		}
		frame.vars[frame.n++] = loop->u.loop.var;
		body = loop->u.loop.body;
	}
	int64_t total = 1, T = e->threads;
	for (int d = 0; d < frame.n; d++)
		total *= frame.extents[d];
	int id = e->counter++;
	int64_t steps = (total + T - 1) / T;
	char slot[32];
	snprintf(slot, sizeof slot, "tlc_r%d", id);
	frame.slot = tlc_strdup(e->m, slot);
	e->used_frame |= 1u << 6;

	indent(e, ind);
	tlc_buf_printf(e->out, "#pragma unroll\n");
	indent(e, ind);
	tlc_buf_printf(e->out, "for (int %s = 0; %s < %lld; ++%s) {\n", slot, slot, (long long)steps, slot);
	indent(e, ind + 1);
	tlc_buf_printf(e->out, "const int tlc_f%d = tlc_tid + %lld * %s;\n", id, (long long)T, slot);
	int in = ind + 1;
	if (total % T != 0) {
		indent(e, in);
		tlc_buf_printf(e->out, "if (tlc_f%d < %lld) {\n", id, (long long)total);
		in++;
	}
	int saved = e->ranges.n;
	int64_t stride = total;
	for (int d = 0; d < frame.n; d++) {
		stride /= frame.extents[d];
		indent(e, in);
		tlc_buf_printf(e->out, "const int %s = ", cuda_name(e, frame.vars[d]->name));
		if (d == 0)
			tlc_buf_printf(e->out, stride == 1 ? "tlc_f%d" : "tlc_f%d / %lld", id, (long long)stride);
		else if (stride == 1)
			tlc_buf_printf(e->out, "tlc_f%d %% %lld", id, (long long)frame.extents[d]);
		else
			tlc_buf_printf(e->out, "tlc_f%d / %lld %% %lld", id, (long long)stride, (long long)frame.extents[d]);
		if (mins[d])
			tlc_buf_printf(e->out, " + %lld", (long long)mins[d]);
		tlc_buf_puts(e->out, ";\n");
		cuda_ranges_push(&e->ranges, frame.vars[d], mins[d], mins[d] + frame.extents[d] - 1);
	}
	e->par = &frame;
	emit_body(e, body, in);
	e->par = NULL;
	e->ranges.n = saved;
	if (total % T != 0)
		line(e, ind + 1, "}");
	line(e, ind, "}");
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
	if (cuda_expr_bounds(&e->ranges, s->u.loop.min, &lo, &hi) &&
	    cuda_expr_bounds(&e->ranges, s->u.loop.extent, &elo, &ehi) && ehi >= 1)
		cuda_ranges_push(&e->ranges, s->u.loop.var, lo, hi + ehi - 1);
	/* a barrier at the end of the body when one iteration's shared writes
	 * may meet the next iteration's accesses in other threads */
	cuda_smem_set r = {0}, w = {0};
	cuda_collect_shared(s->u.loop.body, &r, &w);
	emit_body(e, s->u.loop.body, ind + 1);
	if (!e->par && (cuda_smem_set_intersects(&w, &r) || cuda_smem_set_intersects(&w, &w)))
		emit_sync(e, ind + 1);
	e->ranges.n = saved;
	line(e, ind, "}");
}

static void emit_for(cuda_emitter *e, const tlc_stmt *s, int ind)
{
	switch (s->u.loop.kind) {
	case TLC_FOR_PARALLEL:
		emit_parallel(e, s, ind);
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
	if (b->scope != TLC_SCOPE_VAR && !cuda_buffer_numel(b, &numel)) {
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
		if (numel % e->threads != 0) {
			cuda_error(e, s->loc,
			           "fragment '%s' has %lld elements, not a multiple of the %lld threads of the block; "
			           "the simple thread partition needs a multiple",
			           b->name, (long long)numel, (long long)e->threads);
			return;
		}
		tlc_buf_printf(e->out, "%s %s[%lld];\n", ty, name, (long long)(numel / e->threads));
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
	case TLC_OP_USE_SWIZZLE:
		/* block rasterization only changes the order of blocks, never results */
		line(e, ind, "/* T.use_swizzle: block rasterization not applied yet */");
		return;
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
	if (cuda_expr_bounds(&e->ranges, s->u.let.value, &lo, &hi))
		cuda_ranges_push(&e->ranges, s->u.let.var, lo, hi);
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
	case TLC_STMT_ATTR:
		line(e, ind, "{");
		emit_body(e, s->u.attr.body, ind + 1);
		line(e, ind, "}");
		return;
	}
}
