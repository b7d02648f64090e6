/* lower_tma.c - T.tma_copy, TMA stores, and the mbarriers loads complete
 * on.
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
 * With cluster_mask=M (a kernel with clusters) the tile is loaded once for
 * the blocks of M: each issues its share of the tile's rows, in rank order,
 * as multicast boxes landing in all of them (multicast_part), and each
 * still expects the whole tile's bytes on its own barrier.
 *
 * A store, T.tma_copy(S, G[..]) or a T.copy of a whole shared tile into a
 * global tensor on a target with TMA (option tma-store), is the same boxes
 * the other way (T.tma_store), issued by the same first thread, which then
 * waits until they have read shared memory (T.tma_store_wait).  The parts
 * of a box outside the tensor are not written.  A T.copy goes by TMA only
 * where that is exact and safe: a store's box must not start at a negative
 * coordinate (the TMA unit traps), the tensor's rows must be a known
 * multiple of 16 bytes, and the kernel must not read the tensor (the
 * stores complete after the kernel's own reads could look).  Otherwise it
 * stays element-wise, and option remarks says why.
 *
 * Barriers (T.alloc_barrier) are initialised once at kernel entry by thread
 * 0 with their arrive counts, then T.mbarrier_fence_init() and a block
 * barrier (a cluster barrier in a kernel with clusters: the other blocks
 * arrive and multicast on them) make them visible to every thread and to
 * the copy engine. */
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

/* The TMA boxes of a whole 2-D shared tile of rows x cols elements of
 * esize bytes: one per column block of its swizzle (a box's rows are at
 * most the swizzle's width) and per tma_box_max rows; a tile without a
 * layout gets boxes as wide as the tile.  False and *why when TMA cannot
 * move it. */
static bool tma_boxes(lw_state *st, const tlc_buffer *shared, int64_t rows, int64_t cols, int esize, int64_t *box_rows,
                      int64_t *box_cols, int *swizzle, const char **why)
{
	const tlc_layout *l = shared->layout;
	*box_cols = cols;
	*swizzle = 0;
	if (l && l->kind == TLC_LAYOUT_SWIZZLED) {
		*swizzle = tlc_swizzle_get(l->swizzle)->bytes;
		*box_cols = *swizzle / esize;
	} else if (l) {
		*why = "its layout is neither a swizzle nor none, which TMA cannot address";
		return false;
	}
	if (*box_cols > st->target->tma_box_max || (*box_cols * esize) % 16 || cols % *box_cols) {
		*why = "its rows do not make TMA boxes (at most tma_box_max elements and a multiple of 16 bytes wide)";
		return false;
	}
	*box_rows = rows < st->target->tma_box_max ? rows : st->target->tma_box_max;
	if (rows % *box_rows) {
		*why = "its rows are not a whole number of tma_box_max-row boxes";
		return false;
	}
	/* TMA swizzles by the shared address (the pattern repeats every
	 * tlc_tma_shared_align bytes), the layout by the row in the tile: they
	 * agree only where every box starts on such a boundary.  A tile of
	 * fewer rows than the pattern (4 rows of 128-byte blocks) cut into
	 * several boxes has boxes that start inside one */
	int64_t align = *swizzle ? tlc_tma_shared_align(*swizzle) : 1;
	if ((cols > *box_cols && (rows * *swizzle) % align) || (rows > *box_rows && (*box_rows * *swizzle) % align)) {
		*why = "its swizzled boxes would not start on the boundaries TMA's swizzle pattern repeats on "
		       "(too few rows)";
		return false;
	}
	return true;
}

/* Which rows of a tile one thread's boxes cover: `rows` of them from row
 * `first` (NULL: 0), and the blocks of the cluster they land in
 * (multicast, 0: the issuing block only). */
typedef struct box_rows_part {
	const tlc_expr *first;
	int64_t rows;
	int64_t multicast;
} box_rows_part;

/* The copies of the tile, one box each: op(tensor, shared[box start],
 * [bar,] coordinates..., box=, swizzle=[, multicast=]), the box landing
 * (or read) at the start of its column block and row chunk of the shared
 * tile. */
static void append_boxes(lw_state *st, tlc_stmt *out, tlc_loc loc, tlc_op_id op, const tlc_tile_operand *g, int row_dim,
                         const tlc_tile_operand *sh, const tlc_expr *bar, box_rows_part part, int64_t cols,
                         int64_t box_rows, int64_t box_cols, int swizzle)
{
	tlc_module *m = st->m;
	const tlc_expr *box_items[TLC_TILE_MAX_DIMS];
	for (int k = 0; k < g->ndim; k++)
		box_items[k] = tlc_i32(m, k == g->ndim - 1 ? box_cols : k == row_dim ? box_rows : 1);
	const tlc_expr *box = tlc_tuple(m, g->ndim, box_items, false);
	const char *kwn[3] = {tlc_intern(m, "box"), tlc_intern(m, "swizzle"), tlc_intern(m, "multicast")};
	const tlc_expr *kwv[3] = {box, tlc_i32(m, swizzle), tlc_i32(m, part.multicast)};
	const tlc_expr *first = part.first ? part.first : tlc_i32(m, 0);
	for (int64_t p = 0; p < cols / box_cols; p++)
		for (int64_t q = 0; q < part.rows / box_rows; q++) {
			const tlc_expr *row = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_ADD, first, tlc_i32(m, q * box_rows)));
			const tlc_expr *args[3 + TLC_TILE_MAX_DIMS];
			int n = 0;
			args[n++] = tlc_buf_ref(m, g->buf);
			const tlc_expr *sidx[TLC_TILE_MAX_DIMS];
			for (int k = 0; k < sh->ndim; k++)
				sidx[k] = k < sh->ndim - 2    ? sh->begin[k]
				          : k == sh->ndim - 2 ? row
				                              : tlc_i32(m, p * box_cols);
			args[n++] = tlc_load(m, sh->buf, sh->ndim, sidx);
			if (bar)
				args[n++] = bar;
			for (int k = 0; k < g->ndim; k++) {
				const tlc_expr *c = g->begin[k];
				if (k == g->ndim - 1 && p)
					c = tlc_binary(m, TLC_EXPR_ADD, c, tlc_i32(m, p * box_cols));
				if (k == row_dim)
					c = tlc_binary(m, TLC_EXPR_ADD, c, row);
				args[n++] = tlc_simplify_expr(m, c);
			}
			tlc_seq_append(m, out,
			               tlc_eval_new(m, loc, tlc_call(m, op, TLC_DT_VOID, n, args, part.multicast ? 3 : 2, kwn, kwv)));
		}
}

/* The first thread of the op's threads runs body. */
static tlc_stmt *by_leader(lw_state *st, tlc_loc loc, tlc_stmt *body)
{
	const tlc_expr *leader = tlc_binary(st->m, TLC_EXPR_EQ, st->tid, tlc_i32(st->m, st->op_lo));
	return tlc_if_new(st->m, loc, tlc_simplify_expr(st->m, leader), body, NULL);
}

/* ---- TMA stores ---- */

/* A store of the whole 2-D shared tile src_x into the global region dst_x
 * with TMA: the first thread of the op issues one store per box and waits
 * until they have read shared memory.  sync-insert puts the fence and the
 * barrier that publish the tile to the async proxy before it.  NULL and
 * *why (nothing reported) when the copy cannot go by TMA. */
tlc_stmt *lw_lower_tma_store(lw_state *st, const tlc_stmt *s, const tlc_expr *src_x, const tlc_expr *dst_x,
                             const char **why)
{
	tlc_module *m = st->m;
	tlc_tile_operand src, dst;
	if (!(st->target->async_copy & TLC_ASYNC_TMA)) {
		*why = "the target has no bulk tensor copy engine (TMA)";
		return NULL;
	}
	if (!tlc_tile_operand_from_expr(m, src_x, &src, why) || !tlc_tile_operand_from_expr(m, dst_x, &dst, why))
		return NULL;
	if (tlc_buffer_storage(dst.buf)->base) {
		*why = "the tensor is at an address read at run time (T.make_tensor of a pointer), and the launcher "
		       "builds TMA tensor maps only for tensor parameters";
		return NULL;
	}
	int64_t rows = 0, cols = 0;
	int row_dim = -1;
	if (!tlc_buffer_in_shared(src.buf) || src.buf->scope == TLC_SCOPE_SHARED || !dst_tile(&src, &rows, &cols)) {
		*why = "the source is not a whole 2-D tile of planned shared memory (T.alloc_shared)";
		return NULL;
	}
	if (!tlc_tma_store_region(m, st->f, &st->ranges, &dst, rows, cols, &row_dim, why))
		return NULL;
	int esize = tlc_dtype_bits(src.buf->dtype) / 8;
	if (src.buf->dtype != dst.buf->dtype) {
		*why = "the tile changes type on the way (TMA copies bytes)";
		return NULL;
	}
	int64_t box_rows, box_cols;
	int swizzle;
	if (!tma_boxes(st, src.buf, rows, cols, esize, &box_rows, &box_cols, &swizzle, why))
		return NULL;
	tlc_stmt *issue = tlc_seq_new(m, s->loc);
	append_boxes(st, issue, s->loc, TLC_OP_TMA_STORE, &dst, row_dim, &src, NULL, (box_rows_part){NULL, rows, 0}, cols,
	             box_rows, box_cols, swizzle);
	tlc_seq_append(m, issue, tlc_eval_new(m, s->loc, call_stmt_expr(m, TLC_OP_TMA_STORE_WAIT, 0, NULL)));
	return by_leader(st, s->loc, issue);
}

/* ---- TMA loads ---- */

/* T.tma_copy(..., cluster_mask=M): the blocks of the cluster whose ranks
 * are the bits of M (a constant run of bits) load the tile together, each
 * an equal share of its rows in rank order (tlc_tma_multicast_split), and
 * multicast their share to all of them. */
static bool multicast_part(lw_state *st, tlc_loc loc, const tlc_expr *mask_x, const tlc_tile_operand *dst,
                           int64_t rows, int64_t cols, int esize, box_rows_part *part)
{
	tlc_module *m = st->m;
	int64_t dims[3], mask;
	int64_t blocks = tlc_func_cluster_dims(st->f, dims);
	if (!(st->target->async_copy & TLC_ASYNC_TMA_MULTICAST)) {
		lw_error(st, loc, "T.tma_copy: target %s has no TMA multicast; drop cluster_mask=", tlc_module_target_name(m));
		return false;
	}
	if (blocks < 2) {
		lw_error(st, loc, "T.tma_copy: cluster_mask= needs a kernel that runs in clusters (\"tlc.cluster_dims\")");
		return false;
	}
	if (!tlc_expr_as_int(mask_x, &mask) || mask <= 0 || mask >= (int64_t)1 << blocks) {
		lw_error(st, loc,
		         "T.tma_copy: cluster_mask must be a constant naming blocks of the kernel's cluster (%lld blocks: "
		         "bits 0..%lld)",
		         (long long)blocks, (long long)blocks - 1);
		return false;
	}
	int lo = __builtin_ctzll((unsigned long long)mask);
	int64_t shares = __builtin_popcountll((unsigned long long)mask);
	if ((mask >> lo) != ((int64_t)1 << shares) - 1) {
		lw_error(st, loc, "T.tma_copy: cluster_mask %lld is not one run of neighbouring ranks", (long long)mask);
		return false;
	}
	const tlc_layout *l = dst->buf->layout;
	int swizzle = l && l->kind == TLC_LAYOUT_SWIZZLED ? tlc_swizzle_get(l->swizzle)->bytes : 0;
	if (!tlc_tma_multicast_split(rows, swizzle ? swizzle : cols * esize, swizzle, shares)) {
		lw_error(st, loc,
		         "T.tma_copy: the %lld rows of '%s' do not split into %lld parts (one per block of cluster_mask) "
		         "that each start where TMA may write and its swizzle starts over",
		         (long long)rows, dst->buf->name, (long long)shares);
		return false;
	}
	part->rows = rows / shares;
	part->multicast = mask;
	const tlc_expr *rank = tlc_call(m, TLC_OP_BLOCK_RANK_IN_CLUSTER, TLC_DT_INT32, 0, NULL, 0, NULL, NULL);
	part->first = tlc_simplify_expr(
	    m, tlc_binary(m, TLC_EXPR_MUL, tlc_binary(m, TLC_EXPR_SUB, rank, tlc_i32(m, lo)), tlc_i32(m, part->rows)));
	return true;
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
	const tlc_expr *bar_kw = tlc_call_kw(call, "barrier");
	if (tlc_buffer_in_shared(src.buf) && dst.buf->scope == TLC_SCOPE_GLOBAL) {
		/* a store: it completes on the issuing thread's bulk group */
		if (bar_kw) {
			lw_error(st, s->loc,
			         "T.tma_copy from shared to global memory is a TMA store, which completes on no barrier: drop "
			         "barrier=");
			return NULL;
		}
		tlc_stmt *t = lw_lower_tma_store(st, s, call->u.call.args[0], call->u.call.args[1], &why);
		if (!t)
			lw_error(st, s->loc, "T.tma_copy cannot store '%s' into '%s' with TMA: %s; use T.copy", src.buf->name,
			         dst.buf->name, why);
		return t;
	}
	const tlc_expr *bar = barrier_operand(st, bar_kw);
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
	if (src.buf->scope == TLC_SCOPE_GLOBAL && tlc_buffer_storage(src.buf)->base) {
		lw_error(st, s->loc,
		         "T.tma_copy of '%s': the tensor is at an address read at run time (T.make_tensor of a "
		         "pointer), and the launcher builds TMA tensor maps only for tensor parameters; use T.copy",
		         src.buf->name);
		return NULL;
	}
	if (src.buf->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst.buf) || !dst_tile(&dst, &rows, &cols) ||
	    !tlc_tile_region_2d(m, &src, rows, cols, &row_dim)) {
		lw_error(st, s->loc,
		         "T.tma_copy copies a 2-D tile of a global tensor (rows along one dimension, columns along its "
		         "last) into a whole 2-D shared tile, or a whole 2-D shared tile into such a tile (a store)");
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
	box_rows_part part = {NULL, rows, 0};
	const tlc_expr *mask = tlc_call_kw(call, "cluster_mask");
	if (mask && !multicast_part(st, s->loc, mask, &dst, rows, cols, esize, &part))
		return NULL;
	int64_t box_rows, box_cols;
	int swizzle;
	if (!tma_boxes(st, dst.buf, part.rows, cols, esize, &box_rows, &box_cols, &swizzle, &why)) {
		lw_error(st, s->loc, "T.tma_copy cannot fill '%s' with TMA (tma_box_max is %d): %s", dst.buf->name,
		         st->target->tma_box_max, why);
		return NULL;
	}
	tlc_stmt *issue = tlc_seq_new(m, s->loc);
	/* the whole tile arrives, each block of a multicast sending its part */
	const tlc_expr *tx[2] = {bar, tlc_i32(m, rows * cols * esize)};
	tlc_seq_append(m, issue, tlc_eval_new(m, s->loc, call_stmt_expr(m, TLC_OP_MBARRIER_EXPECT_TX, 2, tx)));
	append_boxes(st, issue, s->loc, TLC_OP_TMA_LOAD, &src, row_dim, &dst, bar, part, cols, box_rows, box_cols, swizzle);
	return by_leader(st, s->loc, issue);
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
	/* in a kernel with clusters the other blocks arrive on these barriers
	 * and TMA multicasts complete on them: the whole cluster waits for
	 * every block's initialisation */
	int64_t dims[3];
	tlc_op_id sync = tlc_func_cluster_dims(st->f, dims) > 1 ? TLC_OP_CLUSTER_SYNC : TLC_OP_SYNC_THREADS;
	tlc_seq_append(m, out, tlc_eval_new(m, loc, call_stmt_expr(m, sync, 0, NULL)));
	return out;
}
