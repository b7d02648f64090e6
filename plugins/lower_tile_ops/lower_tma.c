/* lower_tma.c - T.tma_copy and the mbarriers it completes on.
 *
 * T.tma_copy(src, dst, barrier=bar) copies a tile of a global tensor into
 * a shared buffer with the bulk tensor copy engine (TMA).  The first thread
 * of the op's threads (the block, or the warpgroups of its T.ws scope)
 * adds the tile's bytes to the barrier's transaction count
 * (T.mbarrier_expect_tx) and issues the copies; the threads that read the
 * tile wait on the barrier.  The tile is one box per column block of dst's
 * swizzle (a box's rows are at most the swizzle's width, which is how
 * tlc_layout_swizzled stores them: tlc/layout.h) and per tma_box_max rows
 * (the target's largest box extent): each box lands row-major at its block's start.
 * A dst without a layout gets one box per tma_box_max rows, as wide as the
 * tile (at most tma_box_max elements).  Out-of-range elements of the box read as zero,
 * so partial tiles need no predicates.
 *
 * Barriers (T.alloc_barrier) are initialised once at kernel entry by thread
 * 0 with their arrive counts, then T.mbarrier_fence_init() and a block
 * barrier make them visible to every thread and to the copy engine. */
#include <string.h>

#include <tlc/access.h>
#include <tlc/layout.h>

#include "lower.h"


static const tlc_expr *call_stmt_expr(tlc_module *m, tlc_op_id op, int n, const tlc_expr *const *args)
{
	return tlc_call(m, op, TLC_DT_VOID, n, args, 0, NULL, NULL);
}

/* The shared tile of dst: its buffer's last two dimensions, whole, after
 * single indices (the versions of a pipelined buffer). */
static bool dst_tile(const tlc_tile_operand *d, int64_t *rows, int64_t *cols)
{
	int nd = d->ndim;
	if (nd < 2 || d->corner)
		return false;
	for (int k = 0; k < nd - 2; k++)
		if (!d->point[k])
			return false;
	for (int k = nd - 2; k < nd; k++) {
		int64_t b, e, full;
		if (d->point[k] || !tlc_expr_as_int(d->begin[k], &b) || b != 0 || !tlc_expr_as_int(d->extent[k], &e) ||
		    !tlc_expr_as_int(d->buf->shape[k], &full) || e != full)
			return false;
	}
	tlc_expr_as_int(d->extent[nd - 2], rows);
	tlc_expr_as_int(d->extent[nd - 1], cols);
	return true;
}

/* The source: a global tensor whose last dimension is iterated, with one
 * other iterated dimension (the tile's rows); *row_dim gets that one.  A
 * corner operand A[i, j] takes the tile's extents on its last two
 * dimensions. */
static bool src_tile(lw_state *st, tlc_tile_operand *s, int64_t rows, int64_t cols, int *row_dim)
{
	int nd = s->ndim;
	if (nd < 2)
		return false;
	if (s->corner) {
		for (int k = 0; k < nd; k++) {
			s->point[k] = k < nd - 2;
			s->extent[k] = tlc_i32(st->m, k < nd - 2 ? 1 : k == nd - 2 ? rows : cols);
		}
		s->corner = false;
	}
	int iterated = 0, last = -1;
	for (int k = 0; k < nd; k++)
		if (!s->point[k]) {
			int64_t e;
			if (!tlc_expr_as_int(s->extent[k], &e))
				return false;
			if (e == 1 && k != nd - 1)
				continue; /* a slice of one row: as a single index */
			iterated++;
			if (k != nd - 1)
				last = k;
		}
	int64_t r, c;
	if (s->point[nd - 1] || last < 0 || iterated != 2 || !tlc_expr_as_int(s->extent[last], &r) ||
	    !tlc_expr_as_int(s->extent[nd - 1], &c) || r != rows || c != cols)
		return false;
	*row_dim = last;
	return true;
}

/* The barrier operand: a barrier buffer (its first barrier) or one of its
 * elements. */
static const tlc_expr *barrier_operand(lw_state *st, const tlc_expr *x)
{
	if (!x)
		return NULL;
	if (x->kind == TLC_EXPR_BUF && x->u.buf->scope == TLC_SCOPE_BARRIER)
		return tlc_load(st->m, x->u.buf, 1, (const tlc_expr *[]){tlc_i32(st->m, 0)});
	if (x->kind == TLC_EXPR_LOAD && x->u.load.buf->scope == TLC_SCOPE_BARRIER)
		return x;
	return NULL;
}

tlc_stmt *lw_lower_tma_copy(lw_state *st, const tlc_stmt *s)
{
	tlc_module *m = st->m;
	const tlc_expr *call = s->u.eval.call;
	tlc_tile_operand src, dst;
	const char *why = NULL;
	if (!tlc_tile_operand_from_expr(m, call->u.call.args[0], &src, &why) ||
	    !tlc_tile_operand_from_expr(m, call->u.call.args[1], &dst, &why)) {
		lw_error(st, s->loc, "T.tma_copy: %s", why);
		return NULL;
	}
	const tlc_expr *bar = barrier_operand(st, tlc_call_kw(call, "barrier"));
	if (!bar) {
		lw_error(st, s->loc, "T.tma_copy needs barrier= a T.alloc_barrier buffer (or one of its barriers): the copy "
		                     "completes on it");
		return NULL;
	}
	if (!(st->target->async_copy & TLC_ASYNC_TMA)) {
		lw_error(st, s->loc, "T.tma_copy: target %s has no bulk tensor copy engine (TMA); use T.copy",
		         tlc_module_target_name(m));
		return NULL;
	}
	int64_t rows = 0, cols = 0;
	int row_dim = -1;
	if (src.buf->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst.buf) || !dst_tile(&dst, &rows, &cols) ||
	    !src_tile(st, &src, rows, cols, &row_dim)) {
		lw_error(st, s->loc,
		         "T.tma_copy copies a 2-D tile of a global tensor (rows along one dimension, columns along its "
		         "last) into a whole 2-D shared tile");
		return NULL;
	}
	int esize = tlc_dtype_bits(dst.buf->dtype) / 8;
	if (esize < 1 || src.buf->dtype != dst.buf->dtype) {
		lw_error(st, s->loc, "T.tma_copy copies bytes: the source and destination need one byte-sized type");
		return NULL;
	}
	/* the tensor's rows must start 16-byte aligned (a TMA stride rule); a
	 * runtime extent is checked by the launcher */
	int64_t row_elems;
	if (tlc_expr_as_int(src.buf->shape[src.ndim - 1], &row_elems) && (row_elems * esize) % 16 && src.ndim > 1) {
		lw_error(st, s->loc,
		         "T.tma_copy: the rows of '%s' are %lld bytes, not a multiple of 16, which TMA needs; use T.copy",
		         src.buf->name, (long long)(row_elems * esize));
		return NULL;
	}
	const tlc_layout *l = dst.buf->layout;
	int64_t box_cols = cols;
	int swizzle = 0;
	if (l && l->kind == TLC_LAYOUT_SWIZZLED) {
		swizzle = tlc_swizzle_get(l->swizzle)->bytes;
		box_cols = swizzle / esize;
	} else if (l) {
		lw_error(st, s->loc, "T.tma_copy: '%s' has a layout that TMA cannot write (only swizzles or none)",
		         dst.buf->name);
		return NULL;
	}
	if (box_cols > st->target->tma_box_max || (box_cols * esize) % 16 || cols % box_cols) {
		lw_error(st, s->loc,
		         "T.tma_copy: rows of %lld bytes in '%s' do not make TMA boxes (at most %d elements and a multiple "
		         "of 16 bytes wide)",
		         (long long)(cols * esize), dst.buf->name, st->target->tma_box_max);
		return NULL;
	}
	int64_t box_rows = rows < st->target->tma_box_max ? rows : st->target->tma_box_max;
	if (rows % box_rows) {
		lw_error(st, s->loc, "T.tma_copy: %lld rows are not a whole number of %d-row boxes", (long long)rows,
		         st->target->tma_box_max);
		return NULL;
	}

	tlc_stmt *issue = tlc_seq_new(m, s->loc);
	const tlc_expr *tx[2] = {bar, tlc_i32(m, rows * cols * esize)};
	tlc_seq_append(m, issue, tlc_eval_new(m, s->loc, call_stmt_expr(m, TLC_OP_MBARRIER_EXPECT_TX, 2, tx)));
	const tlc_expr *box_items[TLC_TILE_MAX_DIMS];
	for (int k = 0; k < src.ndim; k++)
		box_items[k] = tlc_i32(m, k == src.ndim - 1 ? box_cols : k == row_dim ? box_rows : 1);
	const tlc_expr *box = tlc_tuple(m, src.ndim, box_items, false);
	const char *kwn[2] = {tlc_intern(m, "box"), tlc_intern(m, "swizzle")};
	const tlc_expr *kwv[2] = {box, tlc_i32(m, swizzle)};
	for (int64_t p = 0; p < cols / box_cols; p++)
		for (int64_t q = 0; q < rows / box_rows; q++) {
			const tlc_expr *args[3 + TLC_TILE_MAX_DIMS];
			args[0] = tlc_buf_ref(m, src.buf);
			/* the box lands at the start of its column block and row chunk */
			const tlc_expr *didx[TLC_TILE_MAX_DIMS];
			for (int k = 0; k < dst.ndim; k++)
				didx[k] = k < dst.ndim - 2    ? dst.begin[k]
				          : k == dst.ndim - 2 ? tlc_i32(m, q * box_rows)
				                              : tlc_i32(m, p * box_cols);
			args[1] = tlc_load(m, dst.buf, dst.ndim, didx);
			args[2] = bar;
			for (int k = 0; k < src.ndim; k++) {
				const tlc_expr *c = src.begin[k];
				if (k == src.ndim - 1 && p)
					c = tlc_binary(m, TLC_EXPR_ADD, c, tlc_i32(m, p * box_cols));
				if (k == row_dim && q)
					c = tlc_binary(m, TLC_EXPR_ADD, c, tlc_i32(m, q * box_rows));
				args[3 + k] = tlc_simplify_expr(m, c);
			}
			tlc_seq_append(m, issue,
			               tlc_eval_new(m, s->loc,
			                            tlc_call(m, TLC_OP_TMA_LOAD, TLC_DT_VOID, 3 + src.ndim, args, 2, kwn, kwv)));
		}
	const tlc_expr *leader = tlc_binary(m, TLC_EXPR_EQ, st->tid, tlc_i32(m, st->op_lo));
	return tlc_if_new(m, s->loc, tlc_simplify_expr(m, leader), issue, NULL);
}

tlc_stmt *lw_barrier_init(lw_state *st, int n, tlc_buffer *const *bars)
{
	tlc_module *m = st->m;
	tlc_loc loc = bars[0]->loc;
	tlc_stmt *init = tlc_seq_new(m, loc);
	for (int b = 0; b < n; b++)
		for (int i = 0; i < bars[b]->ninit; i++) {
			const tlc_expr *args[2] = {tlc_load(m, bars[b], 1, (const tlc_expr *[]){tlc_i32(m, i)}),
			                           bars[b]->init[i]};
			tlc_seq_append(m, init, tlc_eval_new(m, loc, call_stmt_expr(m, TLC_OP_MBARRIER_INIT, 2, args)));
		}
	tlc_seq_append(m, init, tlc_eval_new(m, loc, call_stmt_expr(m, TLC_OP_MBARRIER_FENCE_INIT, 0, NULL)));
	tlc_stmt *out = tlc_seq_new(m, loc);
	tlc_seq_append(m, out,
	               tlc_if_new(m, loc, tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_EQ, st->tid, tlc_i32(m, 0))), init,
	                          NULL));
	tlc_seq_append(m, out, tlc_eval_new(m, loc, call_stmt_expr(m, TLC_OP_SYNC_THREADS, 0, NULL)));
	return out;
}
