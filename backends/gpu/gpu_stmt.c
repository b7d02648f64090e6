/* gpu_stmt.c - statements of the lowered IR printed as GPU C++.
 *
 * The printer expects thread-level IR: lower-tile-ops has turned tile ops and
 * T.Parallel nests into per-thread code, sync-insert has placed the
 * barriers (the driver checks them with tlc_verify_barriers before any
 * target prints), and each statement prints as it is. */
#include <stdio.h>
#include <string.h>

#include <tlc/access.h>

#include "gpu_printer.h"

static void line(gpu_emitter *e, int ind, const char *text)
{
	gpu_indent(e, ind);
	tlc_buf_puts(e->out, text);
	tlc_buf_putc(e->out, '\n');
}

static void emit_seq(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	for (int i = 0; i < s->u.seq.n && !gpu_failed(e); i++)
		gpu_emit_stmt(e, s->u.seq.items[i], ind);
}

static void emit_serial(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const char *ty = gpu_ctype(e, s->u.loop.var->dtype);
	const char *name = gpu_name(e, s->u.loop.var->name);
	int64_t lo, hi, elo, ehi;
	if (s->u.loop.kind == TLC_FOR_UNROLLED || s->u.loop.kind == TLC_FOR_VECTORIZED)
		line(e, ind, "#pragma unroll");
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "for (%s %s = ", ty ? ty : "int", name);
	gpu_emit_expr(e, s->u.loop.min);
	tlc_buf_printf(e->out, "; %s < ", name);
	gpu_emit_expr(e, tlc_simplify_expr(e->m, tlc_binary(e->m, TLC_EXPR_ADD, s->u.loop.min,
							    s->u.loop.extent)));
	tlc_buf_printf(e->out, "; ++%s) {\n", name);
	int saved = e->ranges.n;
	if (tlc_expr_bounds(&e->ranges, s->u.loop.min, &lo, &hi) &&
	    tlc_expr_bounds(&e->ranges, s->u.loop.extent, &elo, &ehi) && ehi >= 1)
		tlc_ranges_push(&e->ranges, s->u.loop.var, lo, hi + ehi - 1);
	gpu_emit_stmt(e, s->u.loop.body, ind + 1);
	e->ranges.n = saved;
	line(e, ind, "}");
}

static void emit_for(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	switch (s->u.loop.kind) {
	case TLC_FOR_PARALLEL:
		tlc_error(e->ctx, s->loc,
			  "T.Parallel loops must be lowered before target %s: "
			  "run layout-inference and lower-tile-ops (see the default pipeline in tlc.ini)",
			  gpu_target_name(e));
		return;
	case TLC_FOR_SERIAL:
	case TLC_FOR_UNROLLED:
	case TLC_FOR_VECTORIZED:
		emit_serial(e, s, ind);
		return;
	case TLC_FOR_PIPELINED:
		tlc_error(e->ctx, s->loc, "T.Pipelined is not supported by target %s yet",
			  gpu_target_name(e));
		return;
	case TLC_FOR_THREAD:
		tlc_error(e->ctx, s->loc,
			  "T.thread_binding loops are not supported by target %s yet",
			  gpu_target_name(e));
		return;
	}
}

static void emit_alloc(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_buffer *b = s->u.alloc.buf;
	const char *ty = gpu_ctype(e, b->dtype), *name = gpu_name(e, b->name);
	int64_t numel = 0;
	if (!ty) {
		tlc_error(e->ctx, s->loc, "dtype %s is not supported by target %s yet",
			  tlc_dtype_name(b->dtype), gpu_target_name(e));
		return;
	}
	if (b->base) {
		/* T.make_tensor over a pointer read at run time: the address, a
		 * 64-bit integer, is the tensor's first element */
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "%s *%s = reinterpret_cast<%s *>(", ty, name, ty);
		gpu_emit_expr(e, b->base);
		tlc_buf_puts(e->out, ");\n");
		return;
	}
	if (b->alias_of && b->scope != TLC_SCOPE_SHARED_DYN) {
		/* a view of a tensor (T.view, T.make_tensor(A.data, ...)) or of a
		 * static shared or local array: a pointer to the same storage, which
		 * the accesses index with the view's own shape; a dynamic-shared view
		 * is placed at its source's offset by storage-plan (below) */
		const tlc_buffer *src = b->alias_of;
		if (src->scope != TLC_SCOPE_GLOBAL && src->scope != TLC_SCOPE_SHARED && src->scope != TLC_SCOPE_LOCAL) {
			tlc_error(e->ctx, s->loc, "T.view ('%s' over '%s', a %s buffer) is not supported by target %s yet: "
			          "view tensors and shared or local buffers", b->name, src->name,
			          tlc_scope_name(src->scope), gpu_target_name(e));
			return;
		}
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "%s *%s = reinterpret_cast<%s *>(%s);\n", ty, name, ty,
		               gpu_name(e, src->name));
		return;
	}
	if (b->scope != TLC_SCOPE_VAR && !tlc_buffer_numel(b, &numel)) {
		tlc_error(e->ctx, s->loc, "the shape of '%s' must be compile-time constants",
			  b->name);
		return;
	}
	gpu_indent(e, ind);
	switch (b->scope) {
	case TLC_SCOPE_SHARED_DYN:
		if (b->offset < 0 || b->offset + 1 > e->dyn_smem) {
			tlc_buf_puts(e->out, "\n");
			tlc_error(e->ctx, s->loc,
				  "shared buffer '%s' has no place in the shared-memory arena: "
				  "run storage-plan after the last pass that makes shared buffers (see tlc.ini)",
				  b->name);
			return;
		}
		tlc_buf_printf(e->out, "%s *%s = reinterpret_cast<%s *>(tlc_smem + %lld);\n", ty, name, ty,
		               (long long)b->offset);
		return;
	case TLC_SCOPE_SHARED:
		tlc_buf_printf(e->out, "__shared__ __align__(16) %s %s[%lld];\n", ty, name, (long long)numel);
		return;
	case TLC_SCOPE_FRAGMENT:
		tlc_buf_puts(e->out, "\n");
		tlc_error(e->ctx, s->loc,
			  "fragment '%s' must be lowered to registers before target %s: "
			  "run layout-inference and lower-tile-ops",
			  b->name, gpu_target_name(e));
		return;
	case TLC_SCOPE_LOCAL: {
		/* aligned for its widest vector access (tlc_stmt_vector_align): the
		 * element type alone aligns a float array to 4 bytes */
		int64_t align = tlc_stmt_vector_align(e->f->body, b);
		if (align > tlc_dtype_bits(b->dtype) / 8)
			tlc_buf_printf(e->out, "alignas(%lld) ", (long long)align);
		tlc_buf_printf(e->out, "%s %s[%lld];\n", ty, name, (long long)(numel ? numel : 1));
		return;
	}
	case TLC_SCOPE_BARRIER:
		/* mbarriers: 8-byte words of static shared memory, outside the
		 * planned arena; the ops take their addresses (gpu_emit_barrier_addr) */
		if (b->dtype != TLC_DT_UINT64 || b->ndim != 1 || numel < 1) {
			tlc_buf_puts(e->out, "\n");
			tlc_error(e->ctx, s->loc, "barrier buffer '%s' must be T.alloc_barrier([counts...]): uint64, one dimension",
				  b->name);
			return;
		}
		tlc_buf_printf(e->out, "__shared__ __align__(8) uint64_t %s[%lld];\n", name, (long long)numel);
		return;
	case TLC_SCOPE_VAR:
		tlc_buf_printf(e->out, "%s %s", ty, name);
		if (b->ninit > 0 && b->init && b->init[0]) {
			tlc_buf_puts(e->out, " = ");
			gpu_emit_expr(e, b->init[0]->dtype == b->dtype
						 ? b->init[0]
						 : tlc_cast(e->m, b->dtype, b->init[0]));
		}
		tlc_buf_puts(e->out, ";\n");
		return;
	default:
		tlc_buf_puts(e->out, "\n");
		tlc_error(e->ctx, s->loc, "%s buffers are not supported by target %s yet",
			  tlc_scope_name(b->scope), gpu_target_name(e));
	}
}

/* T.sync_threads() inside T.ws: only the block's warpgroups run this code,
 * so they meet at a named barrier of their own (one id per thread range of
 * the kernel; T.ws blocks over the same threads share it).  The ids count
 * up from 1, past those the kernel's own named barriers use. */
static void emit_ws_barrier(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const gpu_vendor *v = e->target->vendor;
	int i = 0;
	while (i < e->nnamed_bars && (e->named_bar[i][0] != e->ws_lo || e->named_bar[i][1] != e->ws_n))
		i++;
	if (!v->named_barrier) {
		tlc_error(e->ctx, s->loc, "target %s has no barriers for part of a block: T.ws blocks cannot "
			  "synchronize shared memory", gpu_target_name(e));
		return;
	}
	int id = i > 0 ? e->named_bar_id[i - 1] + 1 : 1;
	if (i < e->nnamed_bars)
		id = e->named_bar_id[i];
	while (id < v->named_barriers && id < 32 && (e->user_bars >> id & 1))
		id++;
	if (id >= v->named_barriers || i >= (int)(sizeof e->named_bar / sizeof e->named_bar[0])) {
		tlc_error(e->ctx, s->loc, "barriers inside T.ws need one named barrier per thread range, and target %s "
			  "has %d (less those T.sync_threads(id, count) uses): use fewer distinct T.ws ranges with "
			  "barriers", gpu_target_name(e), v->named_barriers - 1);
		return;
	}
	if (i == e->nnamed_bars) {
		e->named_bar[i][0] = e->ws_lo;
		e->named_bar[i][1] = e->ws_n;
		e->named_bar_id[i] = id;
		e->nnamed_bars++;
	}
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, v->named_barrier, id, (long long)e->ws_n);
	tlc_buf_puts(e->out, ";\n");
}

/* T.sync_threads(id[, count]): the kernel's own named barrier (sync-insert
 * checked the id and the count against the target); count defaults to the
 * block's threads. */
static void emit_named_barrier(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	int64_t id, count = e->threads;
	if (!e->target->vendor->named_barrier || !tlc_expr_as_int(c->u.call.args[0], &id) ||
	    (c->u.call.nargs > 1 && !tlc_expr_as_int(c->u.call.args[1], &count))) {
		tlc_error(e->ctx, s->loc, "T.sync_threads(barrier_id, arrive_count) needs compile-time integers "
			  "and a target with named barriers (%s)", gpu_target_name(e));
		return;
	}
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, e->target->vendor->named_barrier, (int)id, (long long)count);
	tlc_buf_puts(e->out, ";\n");
}

/* T.print(x, msg=): printf of the block, the thread and the value, compiled
 * only with TLC_DEBUG_PRINT defined (printf is slow and changes register
 * allocation: off unless asked). */
static void emit_print(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call, *x = c->u.call.args[0];
	const char *msg = "";
	for (int k = 0; k < c->u.call.nkw; k++)
		if (strcmp(c->u.call.kw_names[k], "msg") == 0 && c->u.call.kw_values[k]->kind == TLC_EXPR_STR)
			msg = c->u.call.kw_values[k]->u.str;
	bool is_float = tlc_dtype_is_float(x->dtype);
	e->helpers |= GPU_HELPER_PRINTF;
	tlc_buf_puts(e->out, "#ifdef TLC_DEBUG_PRINT\n");
	gpu_indent(e, ind);
	tlc_buf_puts(e->out, "printf(\"");
	for (const char *p = msg; *p; p++) { /* the message as a C string, % doubled */
		if (*p == '%' || *p == '\\' || *p == '"')
			tlc_buf_putc(e->out, *p == '%' ? '%' : '\\');
		tlc_buf_putc(e->out, *p);
	}
	tlc_buf_printf(e->out, "%sblock (%%d, %%d, %%d) thread (%%d, %%d, %%d): %s\\n\", (int)blockIdx.x, "
	                       "(int)blockIdx.y, (int)blockIdx.z, (int)threadIdx.x, (int)threadIdx.y, (int)threadIdx.z, %s(",
	               *msg ? " " : "", is_float ? "%g" : "%lld", is_float ? "(double)(float)" : "(long long)");
	gpu_emit_expr(e, x);
	tlc_buf_puts(e->out, "));\n#endif\n");
}

/* T.sync_grid: tlc_sync_grid on the kernel's own arrival counter, a
 * __device__ variable that starts at zero and that every barrier leaves
 * as it found it (below 2^31); the launch is cooperative
 * (gpu_launcher.c).  Its __syncthreads need every thread of the block. */
static void emit_sync_grid(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	if (e->ws_n > 0 && e->ws_n < e->threads) {
		tlc_error(e->ctx, s->loc, "T.sync_grid inside a T.ws scope: every thread of the block takes part in "
			  "the grid barrier; call it outside the scope, where all of them reach it");
		return;
	}
	if (e->cluster_blocks > 1) {
		tlc_error(e->ctx, s->loc, "T.sync_grid in kernel '%s' with thread-block clusters (\"tlc.cluster_dims\") "
			  "is not supported on target %s: a cooperative launch takes no clusters; drop the clusters",
			  e->f->name, gpu_target_name(e));
		return;
	}
	if (!e->sync_grid)
		tlc_buf_printf(e->decls, "/* the arrivals at T.sync_grid of kernel %s (tlc_sync_grid) */\n"
			       "static __device__ unsigned int tlc_grid_arrived_%s;\n\n", e->f->name, e->f->name);
	e->sync_grid = true;
	e->helpers |= GPU_HELPER_SYNC_GRID;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc_sync_grid(&tlc_grid_arrived_%s);\n", e->f->name);
}

static void emit_eval(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL) {
		tlc_error(e->ctx, s->loc, "an expression statement must be a call");
		return;
	}
	switch (c->u.call.op) {
	case TLC_OP_SYNC_THREADS:
		if (c->u.call.nargs > 0) {
			emit_named_barrier(e, s, ind);
			return;
		}
		if (e->ws_n > 0 && e->ws_n < e->threads) {
			emit_ws_barrier(e, s, ind);
			return;
		}
		line(e, ind, "__syncthreads();");
		return;
	case TLC_OP_SYNC_GRID:
		emit_sync_grid(e, s, ind);
		return;
	case TLC_OP_PRINT:
		emit_print(e, s, ind);
		return;
	case TLC_OP_SYNC_WARP:
		gpu_indent(e, ind);
		tlc_buf_printf(e->out, "%s;\n", e->target->vendor->sync_warp);
		return;
	case TLC_OP_LOOP_BREAK:
		line(e, ind, "break;"); /* every kernel loop prints as a C for loop */
		return;
	case TLC_OP_LOOP_CONTINUE:
		line(e, ind, "continue;");
		return;
	case TLC_OP_ATOMIC_ADD:
		gpu_emit_atomic_add(e, s, ind);
		return;
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN:
		gpu_emit_atomic_minmax(e, s, ind);
		return;
	case TLC_OP_COPY_VEC:
		gpu_emit_copy_vec(e, s, ind);
		return;
	case TLC_OP_RNG_INIT:
		gpu_emit_rng_init(e, c, ind);
		return;
	case TLC_OP_ANNOTATE_SAFE_VALUE:
		/* no code: legalize-bounds put the safe values into the guards */
		return;
	case TLC_OP_CALL_EXTERN:
		/* a call of the user's device code for its effect (T.call_extern) */
		gpu_indent(e, ind);
		gpu_emit_expr(e, c);
		tlc_buf_puts(e->out, ";\n");
		return;
	case TLC_OP_USE_SWIZZLE: {
		/* a permutation of the blocks for L2 locality; the block variables are
		 * defined from it at kernel entry (gpu_module.c) */
		/* the frontend and the verifier checked the call */
		tlc_raster r;
		const char *why = NULL;
		if (!tlc_raster_decode(c, e->f->grid_ndim, &r, &why)) {
			tlc_error(e->ctx, s->loc, "%s", why);
			return;
		}
		if (!r.enabled)
			return;
		e->raster_panel = r.panel;
		e->raster_column = r.column;
		e->helpers |= GPU_HELPER_RASTER;
		line(e, ind, "/* T.use_swizzle: block indices come from tlc::rasterization2D* at kernel entry */");
		return;
	}
	default:
		/* the vendor's own ops: its matrix instructions, its vector atomics */
		if (!e->target->vendor->emit_op || !e->target->vendor->emit_op(e, s, ind))
			tlc_error(e->ctx, s->loc, "T.%s is not supported by target %s yet",
				  gpu_op_name(e, c), gpu_target_name(e));
	}
}

static void emit_store(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_buffer *b = s->u.store.buf;
	const tlc_expr *v = s->u.store.value;
	gpu_indent(e, ind);
	gpu_emit_access(e, s->loc, b, s->u.store.n, s->u.store.idx);
	tlc_buf_puts(e->out, " = ");
	gpu_emit_expr(e, v->dtype == b->dtype ? v : tlc_cast(e->m, b->dtype, v));
	tlc_buf_puts(e->out, ";\n");
}

static void emit_let(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const char *ty = gpu_ctype(e, s->u.let.var->dtype);
	int64_t lo, hi;
	if (!ty) {
		tlc_error(e->ctx, s->loc, "dtype %s is not supported by target %s yet",
			  tlc_dtype_name(s->u.let.var->dtype), gpu_target_name(e));
		return;
	}
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "const %s %s = ", ty, gpu_name(e, s->u.let.var->name));
	gpu_emit_expr(e, s->u.let.value);
	tlc_buf_puts(e->out, ";\n");
	/* visible to the rest of the enclosing block: the caller restores n */
	if (tlc_expr_bounds(&e->ranges, s->u.let.value, &lo, &hi))
		tlc_ranges_push(&e->ranges, s->u.let.var, lo, hi);
}

/* with T.ws(i, j, ...): the body runs on warpgroups i, j, ... (consecutive),
 * the threads [lo, hi) of a one-dimensional block. */
static void emit_ws(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_target_info *info = tlc_module_target_info(e->m);
	int warpgroup = info ? info->warpgroup : e->target->desc->info->warpgroup;
	int64_t lo = 0, n = 0, x = 1;
	const char *why = NULL;
	if (warpgroup <= 0) {
		tlc_error(e->ctx, s->loc, "T.ws needs warpgroups (target %s has none)", gpu_target_name(e));
		return;
	}
	if (!tlc_ws_range(s->u.scope.call, warpgroup, &lo, &n, &why)) {
		tlc_error(e->ctx, s->loc, "%s", why);
		return;
	}
	for (int d = 1; d < e->f->thread_ndim; d++)
		if (!tlc_expr_as_int(e->f->threads[d], &x) || x != 1) {
			tlc_error(e->ctx, s->loc, "T.ws needs a one-dimensional thread block (threads=N) on target %s",
				  gpu_target_name(e));
			return;
		}
	if (lo + n > e->threads) {
		tlc_error(e->ctx, s->loc,
			  "T.ws selects threads [%lld, %lld) (warpgroups of %d), but T.Kernel has %lld threads",
			  (long long)lo, (long long)(lo + n), warpgroup, (long long)e->threads);
		return;
	}
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "if ((int)threadIdx.x >= %lld && (int)threadIdx.x < %lld) {\n", (long long)lo,
		       (long long)(lo + n));
	/* inside, the thread variable is known to lie in [lo, lo + n) */
	int saved = e->ranges.n;
	int64_t saved_lo = e->ws_lo, saved_n = e->ws_n;
	if (e->f->thread_vars[0])
		tlc_ranges_push(&e->ranges, e->f->thread_vars[0], lo, lo + n - 1);
	e->ws_lo = lo;
	e->ws_n = n;
	gpu_emit_stmt(e, s->u.scope.body, ind + 1);
	e->ranges.n = saved;
	e->ws_lo = saved_lo;
	e->ws_n = saved_n;
	line(e, ind, "}");
}

void gpu_emit_stmt(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	if (!s || gpu_failed(e))
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
		gpu_indent(e, ind);
		tlc_buf_puts(e->out, "if (");
		gpu_emit_expr(e, s->u.if_.cond);
		tlc_buf_puts(e->out, ") {\n");
		gpu_emit_stmt(e, s->u.if_.then_s, ind + 1);
		if (s->u.if_.else_s) {
			line(e, ind, "} else {");
			gpu_emit_stmt(e, s->u.if_.else_s, ind + 1);
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
		if (s->u.scope.call->kind == TLC_EXPR_CALL && s->u.scope.call->u.call.op == TLC_OP_WS) {
			emit_ws(e, s, ind);
			return;
		}
		tlc_error(e->ctx, s->loc, "T.%s is not supported by target %s yet",
			  gpu_op_name(e, s->u.scope.call), gpu_target_name(e));
		return;
	case TLC_STMT_ATTR:
		line(e, ind, "{");
		gpu_emit_stmt(e, s->u.attr.body, ind + 1);
		line(e, ind, "}");
		return;
	}
}
