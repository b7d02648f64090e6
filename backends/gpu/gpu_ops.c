/* gpu_ops.c - lowered op statements that every GPU vendor prints alike, and
 * the layout functors that vendors' device helpers take.
 *
 * lower-tile-ops chose the element, the vector width and the alignment of
 * each of these ops; here they only get their C++ spelling. */
#include <stdio.h>
#include <string.h>

#include <tlc/layout.h>

#include "gpu_printer.h"

/* `old = ` before an element atomic whose keyword old= keeps the element's
 * previous value (return_prev=True): the value the atomic returns. */
static void emit_keep_old(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *c)
{
	const tlc_expr *old = tlc_call_kw(c, "old");
	if (!old || old->kind != TLC_EXPR_LOAD)
		return;
	gpu_emit_access(e, s->loc, old->u.load.buf, old->u.load.n, old->u.load.idx);
	tlc_buf_puts(e->out, " = ");
}

void gpu_emit_atomic_add(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	const tlc_expr *dst = c->u.call.nargs == 2 ? c->u.call.args[0] : NULL;
	if (!dst || dst->kind != TLC_EXPR_LOAD) {
		tlc_error(
			e->ctx, s->loc,
			"T.atomic_add of tiles must be lowered by lower-tile-ops before target %s",
			gpu_target_name(e));
		return;
	}
	const tlc_buffer *b = dst->u.load.buf;
	if (b->dtype != TLC_DT_FLOAT32 && b->dtype != TLC_DT_FLOAT64 && b->dtype != TLC_DT_INT32 &&
	    b->dtype != TLC_DT_UINT32 && b->dtype != TLC_DT_FLOAT16 && b->dtype != TLC_DT_BFLOAT16) {
		tlc_error(e->ctx, s->loc, "T.atomic_add on %s is not supported by target %s",
			  tlc_dtype_name(b->dtype), gpu_target_name(e));
		return;
	}
	gpu_indent(e, ind);
	emit_keep_old(e, s, c);
	tlc_buf_puts(e->out, "atomicAdd(&");
	gpu_emit_access(e, s->loc, b, dst->u.load.n, dst->u.load.idx);
	tlc_buf_puts(e->out, ", ");
	gpu_emit_expr(e, c->u.call.args[1]); /* of b's type: the IR converts explicitly (verify.c) */
	tlc_buf_puts(e->out, ");\n");
}

/* atomicMax / atomicMin of the integers the targets have them for (64-bit
 * ones through their long long overloads); floats by a compare-and-swap
 * loop (GPU_HELPER_ATOMIC_MINMAX).  16- and 8-bit elements have neither. */
void gpu_emit_atomic_minmax(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	const tlc_expr *c = s->u.eval.call;
	bool max = c->u.call.op == TLC_OP_ATOMIC_MAX;
	const char *name = max ? "atomic_max" : "atomic_min";
	const tlc_expr *dst = c->u.call.nargs == 2 ? c->u.call.args[0] : NULL;
	if (!dst || dst->kind != TLC_EXPR_LOAD) {
		tlc_error(e->ctx, s->loc, "T.%s takes one element: T.%s(C[i], v)", name, name);
		return;
	}
	const tlc_buffer *b = dst->u.load.buf;
	const char *cast = NULL;
	switch (b->dtype) {
	case TLC_DT_INT32:
	case TLC_DT_UINT32: cast = ""; break;
	case TLC_DT_INT64: cast = "(long long"; break;
	case TLC_DT_UINT64: cast = "(unsigned long long"; break;
	case TLC_DT_FLOAT32:
	case TLC_DT_FLOAT64: e->helpers |= GPU_HELPER_ATOMIC_MINMAX; break;
	default:
		tlc_error(e->ctx, s->loc,
			  "T.%s on %s is not supported by target %s: use a 32- or 64-bit "
			  "integer or float element",
			  name, tlc_dtype_name(b->dtype), gpu_target_name(e));
		return;
	}
	gpu_indent(e, ind);
	emit_keep_old(e, s, c);
	if (!cast)
		tlc_buf_printf(e->out, "tlc_atomic_minmax<%s>(&", max ? "true" : "false");
	else
		tlc_buf_printf(e->out, "%s(%s%s&", max ? "atomicMax" : "atomicMin", cast,
			       *cast ? " *)" : "");
	gpu_emit_access(e, s->loc, b, dst->u.load.n, dst->u.load.idx);
	tlc_buf_printf(e->out, ", %s%s", cast ? cast : "", cast && *cast ? ")(" : "");
	gpu_emit_expr(e, c->u.call.args[1]); /* of b's type (verify.c) */
	tlc_buf_puts(e->out, cast && *cast ? "));\n" : ");\n");
}

bool gpu_vector_operands(const tlc_stmt *s, const tlc_expr **dst, const tlc_expr **src,
			 int64_t *lanes)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->u.call.nargs != 3)
		return false;
	*dst = c->u.call.args[0];
	*src = c->u.call.args[1];
	return (*dst)->kind == TLC_EXPR_LOAD && (*src)->kind == TLC_EXPR_LOAD &&
	       tlc_expr_as_int(c->u.call.args[2], lanes);
}

/* copy_vec between dtypes: one wide store of the lanes, each converted as
 * T.cast converts it (lane u is the source element whose last index is u
 * further on: lower-tile-ops proved those are consecutive in memory). */
static void emit_convert_vec(gpu_emitter *e, const tlc_stmt *s, const tlc_expr *dst, const tlc_expr *src,
			     int64_t lanes, int ind)
{
	const char *ty = gpu_ctype(e, dst->u.load.buf->dtype);
	e->helpers |= GPU_HELPER_LANES;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "*reinterpret_cast<tlc_lanes<%s, %lld> *>(&", ty, (long long)lanes);
	gpu_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_printf(e->out, ") = tlc_lanes<%s, %lld>{{", ty, (long long)lanes);
	gpu_emit_converted_lanes(e, src, lanes, dst->u.load.buf->dtype);
	tlc_buf_puts(e->out, "}};\n");
}

void gpu_emit_converted_lanes(gpu_emitter *e, const tlc_expr *src, int64_t lanes, tlc_dtype to)
{
	int n = src->u.load.n;
	const tlc_expr **idx = tlc_alloc(e->m, sizeof *idx * (size_t)n);
	for (int64_t u = 0; u < lanes; u++) {
		for (int d = 0; d < n; d++)
			idx[d] = src->u.load.idx[d];
		const tlc_expr *last = idx[n - 1];
		idx[n - 1] = tlc_simplify_expr(e->m, tlc_binary(e->m, TLC_EXPR_ADD, last, tlc_int(e->m, last->dtype, u)));
		if (u)
			tlc_buf_puts(e->out, ", ");
		gpu_emit_expr(e, tlc_cast(e->m, to, tlc_load(e->m, src->u.load.buf, n, idx)));
	}
}

void gpu_emit_copy_vec(gpu_emitter *e, const tlc_stmt *s, int ind)
{
	int64_t lanes;
	const tlc_expr *dst, *src;
	if (!gpu_vector_operands(s, &dst, &src, &lanes)) {
		tlc_error(e->ctx, s->loc, "T.copy_vec needs two elements and a constant lane count");
		return;
	}
	int64_t bytes = lanes * tlc_dtype_bits(dst->u.load.buf->dtype) / 8;
	if (bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16) {
		tlc_error(e->ctx, s->loc,
			  "T.copy_vec of %lld bytes: only 2, 4, 8 and 16 are supported",
			  (long long)bytes);
		return;
	}
	if (dst->u.load.buf->dtype != src->u.load.buf->dtype) {
		emit_convert_vec(e, s, dst, src, lanes, ind);
		return;
	}
	e->helpers |= GPU_HELPER_COPY_VEC | GPU_HELPER_LANES;
	gpu_indent(e, ind);
	tlc_buf_printf(e->out, "tlc_copy_vec<%lld>(&", (long long)bytes);
	gpu_emit_access(e, s->loc, dst->u.load.buf, dst->u.load.n, dst->u.load.idx);
	tlc_buf_puts(e->out, ", &");
	gpu_emit_access(e, s->loc, src->u.load.buf, src->u.load.n, src->u.load.idx);
	tlc_buf_puts(e->out, ");\n");
}

const char *gpu_emit_layout_functor(gpu_emitter *e, const tlc_expr *call,
				    const tlc_expr *layout_expr, const char *what)
{
	const char *why = NULL;
	const tlc_layout *l = tlc_layout_from_expr(e->m, layout_expr, &why);
	if (!l || l->ndim != 2 || l->kind == TLC_LAYOUT_FRAGMENT) {
		tlc_error(e->ctx, e->loc, "T.%s: the layout of %s is not a 2-D memory layout%s%s",
			  gpu_op_name(e, call), what, why ? ": " : "", why ? why : "");
		return NULL;
	}
	char name[64];
	snprintf(name, sizeof name, "tlc_layout_%s_%d", e->f->name, e->counter++);
	tlc_var *r = tlc_var_new(e->m, "r", TLC_DT_INT32), *c = tlc_var_new(e->m, "c", TLC_DT_INT32);
	const tlc_expr *idx[2] = {tlc_var_ref(e->m, r), tlc_var_ref(e->m, c)};
	const tlc_expr *off = tlc_layout_apply(e->m, l, 2, idx);
	/* printed at file scope, with r and c in their ranges so that the
	 * printer may use native / and % on them */
	tlc_buf *saved = e->out;
	int nr = e->ranges.n;
	e->out = e->decls;
	tlc_ranges_push(&e->ranges, r, 0, l->shape[0] - 1);
	tlc_ranges_push(&e->ranges, c, 0, l->shape[1] - 1);
	tlc_buf_printf(e->out, "struct %s {\n\tstatic __device__ __forceinline__ int off(int r, int c)\n\t{\n\t\treturn ",
	               name);
	gpu_emit_expr(e, off);
	tlc_buf_puts(e->out, ";\n\t}\n};\n\n");
	e->ranges.n = nr;
	e->out = saved;
	return tlc_strdup(e->m, name);
}

static bool kw_int(const tlc_expr *call, const char *name, int64_t *v)
{
	const tlc_expr *x = tlc_call_kw(call, name);
	return x && tlc_expr_as_int(x, v);
}

bool gpu_decode_mma(gpu_emitter *e, const tlc_expr *call, gpu_mma_call *g)
{
	memset(g, 0, sizeof(*g));
	int64_t ta = 0, tb = 0, la = 0, lb = 0;
	if (call->u.call.nargs != 3 || !kw_int(call, "M", &g->M) || !kw_int(call, "N", &g->N) ||
	    !kw_int(call, "K", &g->K) || !kw_int(call, "warp_m", &g->warp_m) || !kw_int(call, "warp_n", &g->warp_n)) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm needs A, B, C and constant M, N, K, warp_m, warp_n");
		return false;
	}
	kw_int(call, "transpose_A", &ta);
	kw_int(call, "transpose_B", &tb);
	kw_int(call, "ldmatrix_A", &la);
	kw_int(call, "ldmatrix_B", &lb);
	kw_int(call, "thread_lo", &g->thread_lo);
	g->trans_a = ta, g->trans_b = tb, g->ldmatrix_a = la, g->ldmatrix_b = lb;
	g->A = call->u.call.args[0], g->B = call->u.call.args[1], g->C = call->u.call.args[2];
	if ((g->A->kind != TLC_EXPR_BUF && g->A->kind != TLC_EXPR_LOAD) ||
	    (g->B->kind != TLC_EXPR_BUF && g->B->kind != TLC_EXPR_LOAD) || g->C->kind != TLC_EXPR_BUF) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm operands must be buffers (or, for A and B, the first element of a tile)");
		return false;
	}
	g->a_buf = g->A->kind == TLC_EXPR_BUF ? g->A->u.buf : g->A->u.load.buf;
	g->a_regs = g->a_buf->scope == TLC_SCOPE_LOCAL;
	const tlc_target_info *info = e->target->desc->info;
	const tlc_expr *named = tlc_call_kw(call, "inst");
	g->inst = tlc_target_matrix_of_call(info, call, info->lanes);
	if (!g->inst || g->inst->threads != info->lanes) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm: target %s has no instruction of %d threads for these operands%s%s",
		          gpu_target_name(e), info->lanes, named && named->kind == TLC_EXPR_STR ? " named " : "",
		          named && named->kind == TLC_EXPR_STR ? named->u.str : "");
		return false;
	}
	const tlc_expr *lay_a = tlc_call_kw(call, "layout_A"), *lay_b = tlc_call_kw(call, "layout_B");
	if (!lay_b || (!g->a_regs && !lay_a)) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm needs layout_B (and layout_A for a shared A)");
		return false;
	}
	if (e->f->thread_ndim > 1) {
		tlc_error(e->ctx, e->loc, "T.gemm needs a one-dimensional thread block (threads=N) on target %s",
		          gpu_target_name(e));
		return false;
	}
	g->layout_a = g->a_regs ? NULL : gpu_emit_layout_functor(e, call, lay_a, "A");
	g->layout_b = gpu_emit_layout_functor(e, call, lay_b, "B");
	return (g->a_regs || g->layout_a) && g->layout_b;
}

void gpu_emit_operand(gpu_emitter *e, const tlc_expr *x)
{
	if (x->kind == TLC_EXPR_BUF) {
		tlc_buf_puts(e->out, gpu_name(e, x->u.buf->name));
		return;
	}
	tlc_buf_puts(e->out, "&");
	gpu_emit_access(e, e->loc, x->u.load.buf, x->u.load.n, x->u.load.idx);
}

bool gpu_emit_barrier_addr(gpu_emitter *e, tlc_loc loc, const tlc_expr *call, const tlc_expr *x)
{
	const tlc_buffer *b = x && x->kind == TLC_EXPR_BUF    ? x->u.buf
	                      : x && x->kind == TLC_EXPR_LOAD ? x->u.load.buf
	                                                      : NULL;
	if (!b || b->scope != TLC_SCOPE_BARRIER) {
		/* TileLang names barriers by integer ids; tlc by their buffers, so
		 * that the printer knows where they live and how many there are */
		tlc_error(e->ctx, loc, "T.%s: barrier operands are T.alloc_barrier buffers (or their elements) in tlc",
		          gpu_op_name(e, call));
		return false;
	}
	int64_t count = 0, i = 0;
	const tlc_expr *idx = x->kind == TLC_EXPR_LOAD && x->u.load.n == 1 ? x->u.load.idx[0] : NULL;
	if ((x->kind == TLC_EXPR_LOAD && (!idx || !tlc_dtype_is_int(idx->dtype))) || b->ndim != 1 ||
	    !tlc_buffer_numel(b, &count)) {
		tlc_error(e->ctx, loc, "T.%s: barrier '%s' takes one integer index, %s[i]", gpu_op_name(e, call), b->name,
		          b->name);
		return false;
	}
	if (idx && tlc_expr_as_int(idx, &i) && (i < 0 || i >= count)) {
		tlc_error(e->ctx, loc, "T.%s: barrier %s[%lld] does not exist ('%s' holds %lld barrier%s)",
		          gpu_op_name(e, call), b->name, (long long)i, b->name, (long long)count, count == 1 ? "" : "s");
		return false;
	}
	tlc_buf_printf(e->out, "&%s[", gpu_name(e, b->name));
	if (idx)
		gpu_emit_expr(e, idx);
	else
		tlc_buf_puts(e->out, "0");
	tlc_buf_puts(e->out, "]");
	return !gpu_failed(e);
}

const char *gpu_device_text(const struct tlc_device_source *table, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].text;
	return NULL;
}

void gpu_paste_device_text(tlc_buf *out, const char *text, const char *file)
{
	if (text)
		tlc_buf_puts(out, text);
	else
		tlc_buf_printf(out, "#error tlc: device helper %s missing from the target plugin\n", file);
	tlc_buf_puts(out, "\n");
}
