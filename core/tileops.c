/* tileops.c - decoding the operands of tile ops (tlc/tileops.h). */
#include <stdint.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/bounds.h>
#include <tlc/pass.h>
#include <tlc/tileops.h>
#include <tlc/layout.h>

bool tlc_tile_operand_from_expr(tlc_module *m, const tlc_expr *x, tlc_tile_operand *s, const char **why)
{
	*s = (tlc_tile_operand){0};
	switch (x->kind) {
	case TLC_EXPR_BUF:
		s->buf = x->u.buf;
		s->ndim = s->buf->ndim;
		for (int d = 0; d < s->ndim && d < TLC_TILE_MAX_DIMS; d++) {
			s->begin[d] = tlc_i32(m, 0);
			s->extent[d] = s->buf->shape[d];
		}
		break;
	case TLC_EXPR_REGION:
		s->buf = x->u.region.buf;
		s->ndim = x->u.region.n;
		for (int d = 0; d < s->ndim && d < TLC_TILE_MAX_DIMS; d++) {
			s->begin[d] = x->u.region.dims[d].begin;
			s->extent[d] = x->u.region.dims[d].extent;
			s->point[d] = x->u.region.dims[d].is_point;
		}
		break;
	case TLC_EXPR_LOAD:
		s->buf = x->u.load.buf;
		s->ndim = x->u.load.n;
		s->corner = true;
		for (int d = 0; d < s->ndim && d < TLC_TILE_MAX_DIMS; d++)
			s->begin[d] = x->u.load.idx[d];
		break;
	default:
		*why = "operand of a tile op must be a buffer, a region or an element";
		return false;
	}
	if (s->ndim > TLC_TILE_MAX_DIMS) {
		*why = "tile ops on more than 8 dimensions are not supported";
		return false;
	}
	return true;
}

static bool same_value(tlc_module *m, const tlc_expr *a, const tlc_expr *b)
{
	int64_t x, y;
	a = tlc_simplify_expr(m, a);
	b = tlc_simplify_expr(m, b);
	return a == b || (tlc_expr_as_int(a, &x) && tlc_expr_as_int(b, &y) && x == y);
}

bool tlc_tile_operand_is_whole(tlc_module *m, const tlc_tile_operand *o)
{
	if (o->corner || o->ndim != o->buf->ndim)
		return false;
	for (int d = 0; d < o->ndim; d++)
		if (o->point[d] || !same_value(m, o->begin[d], tlc_i32(m, 0)) || !same_value(m, o->extent[d], o->buf->shape[d]))
			return false;
	return true;
}

static bool flag(const tlc_expr *call, const char *name)
{
	const tlc_expr *v = tlc_call_kw(call, name);
	int64_t x;
	return v && tlc_expr_as_int(v, &x) && x != 0;
}

/* The last two extents of b (its tile: leading dimensions are slice indices). */
static bool shape2(const tlc_buffer *b, int nlead, int64_t *r, int64_t *c)
{
	return b->ndim == nlead + 2 && tlc_expr_as_int(b->shape[nlead], r) && tlc_expr_as_int(b->shape[nlead + 1], c);
}

/* A region that is a 2-D tile of its buffer, or a part of one: points,
 * then two slices of constant extent; *nlead and *lead give the points,
 * *sub whether the slices are less than the whole tile, off[] their starts
 * and ext[] their extents. */
static bool gemm_slice(const tlc_expr *a, int *nlead, const tlc_range **lead, bool *sub,
                       const tlc_expr **off, int64_t *ext)
{
	const tlc_buffer *b = a->u.region.buf;
	int n = a->u.region.n;
	if (n != b->ndim || n < 2)
		return false;
	*sub = false;
	for (int d = 0; d < n; d++) {
		const tlc_range *r = &a->u.region.dims[d];
		int64_t e, full, b0;
		if (d < n - 2) {
			if (!r->is_point)
				return false;
			continue;
		}
		if (r->is_point || !tlc_expr_as_int(r->extent, &e) || !tlc_expr_as_int(b->shape[d], &full) ||
		    e <= 0 || e > full)
			return false;
		off[d - (n - 2)] = r->begin;
		ext[d - (n - 2)] = e;
		if (e != full || !tlc_expr_as_int(r->begin, &b0) || b0 != 0)
			*sub = true;
	}
	*nlead = n - 2;
	*lead = a->u.region.dims;
	return true;
}

bool tlc_gemm_decode(const tlc_expr *call, tlc_gemm_info *g, const char **why)
{
	*g = (tlc_gemm_info){0};
	if (call->kind != TLC_EXPR_CALL || call->u.call.nargs != 3) {
		*why = "a gemm takes three operands A, B, C";
		return false;
	}
	tlc_buffer *ops[3];
	int64_t sub_ext[2][2] = {{0, 0}, {0, 0}};
	for (int i = 0; i < 3; i++) {
		const tlc_expr *a = call->u.call.args[i];
		if (a->kind == TLC_EXPR_REGION && i < 2 &&
		    !gemm_slice(a, &g->nlead[i], &g->lead[i], &g->sub[i], g->off[i], sub_ext[i])) {
			*why = "a gemm operand region must select a 2-D tile or a part of one: single "
			       "indices on the leading dimensions and slices of compile-time extent of "
			       "the last two (A_shared[s, :, :], A_shared[:, k * 64:(k + 1) * 64])";
			return false;
		}
		if (a->kind != TLC_EXPR_BUF && a->kind != TLC_EXPR_REGION) {
			*why = "gemm operands must be buffers or whole 2-D slices of them";
			return false;
		}
		if (a->kind == TLC_EXPR_REGION && i == 2) {
			*why = "the gemm accumulator must be a whole buffer";
			return false;
		}
		ops[i] = a->kind == TLC_EXPR_BUF ? a->u.buf : a->u.region.buf;
	}
	g->A = ops[0];
	g->B = ops[1];
	g->C = ops[2];
	g->trans_A = flag(call, "transpose_A");
	g->trans_B = flag(call, "transpose_B");
	g->clear_accum = flag(call, "clear_accum");
	const tlc_expr *kp = tlc_call_kw(call, "k_pack");
	int64_t kpv = 1;
	if (kp && (!tlc_expr_as_int(kp, &kpv) || (kpv != 1 && kpv != 2 && kpv != 4))) {
		*why = "k_pack takes 1, 2 or 4";
		return false;
	}
	g->k_pack = (int)kpv;
	const tlc_expr *p = tlc_call_kw(call, "policy");
	g->policy = TLC_WARP_POLICY_SQUARE;
	if (p && p->kind == TLC_EXPR_SYM) {
		if (strstr(p->u.str, "FullRow"))
			g->policy = TLC_WARP_POLICY_FULL_ROW;
		else if (strstr(p->u.str, "FullCol"))
			g->policy = TLC_WARP_POLICY_FULL_COL;
	}
	int64_t ar, ac, br, bc, cr, cc;
	if (!shape2(g->A, g->nlead[0], &ar, &ac) || !shape2(g->B, g->nlead[1], &br, &bc) || !shape2(g->C, 0, &cr, &cc)) {
		*why = "gemm operands must be 2-D with compile-time shapes";
		return false;
	}
	if (g->sub[0]) {
		ar = sub_ext[0][0];
		ac = sub_ext[0][1];
	}
	if (g->sub[1]) {
		br = sub_ext[1][0];
		bc = sub_ext[1][1];
	}
	g->M = g->trans_A ? ac : ar;
	g->K = g->trans_A ? ar : ac;
	g->N = g->trans_B ? br : bc;
	int64_t kb = g->trans_B ? bc : br;
	if (g->K != kb || g->M != cr || g->N != cc) {
		*why = "gemm operand shapes do not match";
		return false;
	}
	return true;
}

bool tlc_gemm_part_unswizzled(const tlc_gemm_info *g, int k)
{
	const tlc_buffer *b = k ? g->B : g->A;
	int64_t fr, fc;
	if (!g->sub[k] || !tlc_buffer_in_shared(b) || !shape2(b, g->nlead[k], &fr, &fc))
		return false;
	bool tr = k ? g->trans_B : g->trans_A;
	int64_t cols = k ? (tr ? g->K : g->N) : (tr ? g->M : g->K);
	if (cols != fc)
		return false; /* a part of whole swizzle blocks of columns */
	tlc_swizzle sw = tlc_swizzle_widest(fc, b->dtype);
	if (b->layout && b->layout->kind == TLC_LAYOUT_SWIZZLED)
		sw = b->layout->swizzle;
	if (sw == TLC_SWIZZLE_NONE)
		return false;
	return fc != tlc_swizzle_get(sw)->bytes / (tlc_dtype_bits(b->dtype) / 8);
}

bool tlc_gemm_warp_grid(int64_t M, int64_t N, int64_t atom_m, int64_t atom_n, int warps, tlc_warp_policy policy,
                        int *warp_m, int *warp_n, const char **why)
{
	int best_m = 0, most_m = 0, most_n = 0;
	double best_cost = 0;
	for (int wm = 1; wm <= warps; wm++) {
		if (warps % wm)
			continue;
		int wn = warps / wm;
		if (M % (atom_m * wm) || N % (atom_n * wn))
			continue;
		/* the fallbacks of FullRow and FullCol (TileLang's
		 * compute_warp_partition): when the tile is too small to put every
		 * group along M (N), as many as divide it, the rest along the other */
		if (wm > most_m)
			most_m = wm;
		if (wn > most_n)
			most_n = wn;
		if (policy == TLC_WARP_POLICY_FULL_ROW && wn != 1)
			continue;
		if (policy == TLC_WARP_POLICY_FULL_COL && wm != 1)
			continue;
		/* Square: warp tiles as close to square as possible, ties to more
		 * warps along M (rows share the A fragment loads) */
		double r = (double)(M / wm) / (double)(N / wn);
		double cost = r >= 1 ? r : 1 / r;
		if (!best_m || cost < best_cost || (cost == best_cost && wm > best_m)) {
			best_m = wm;
			best_cost = cost;
		}
	}
	if (!best_m && policy == TLC_WARP_POLICY_FULL_ROW)
		best_m = most_m;
	if (!best_m && policy == TLC_WARP_POLICY_FULL_COL && most_n)
		best_m = warps / most_n;
	if (!best_m) {
		*why = "no split of the warps into a grid divides the tile into atoms";
		return false;
	}
	*warp_m = best_m;
	*warp_n = warps / best_m;
	return true;
}

bool tlc_raster_decode(const tlc_expr *call, int grid_ndim, tlc_raster *r, const char **why)
{
	int64_t panel = 0, enable = 1;
	const tlc_expr *order = call->u.call.nargs > 1 ? call->u.call.args[1] : tlc_call_kw(call, "order");
	const tlc_expr *en = tlc_call_kw(call, "enable");
	if (call->u.call.nargs < 1 || !tlc_expr_as_int(call->u.call.args[0], &panel) || panel <= 0 ||
	    (en && !tlc_expr_as_int(en, &enable))) {
		*why = "T.use_swizzle needs a positive compile-time panel size";
		return false;
	}
	if (order && (order->kind != TLC_EXPR_STR || (strcmp(order->u.str, "row") && strcmp(order->u.str, "column")))) {
		*why = "T.use_swizzle: order must be \"row\" or \"column\"";
		return false;
	}
	/* on a 1-D grid both of TileLang's rasterizations give every block its
	 * own index (one row of panels: the panel offset is the block index,
	 * the row 0), so the call changes nothing: it is kept, disabled */
	bool one_dim = grid_ndim == 1;
	*r = (tlc_raster){panel, order && !strcmp(order->u.str, "column"), enable != 0 && !one_dim};
	return true;
}

bool tlc_stmt_is_ws(const tlc_stmt *s)
{
	return s && s->kind == TLC_STMT_SCOPE && s->u.scope.call && s->u.scope.call->kind == TLC_EXPR_CALL &&
	       s->u.scope.call->u.call.op == TLC_OP_WS;
}

int tlc_ws_group_len(tlc_stmt *const *items, int n, int i)
{
	int j = i;
	while (j < n && tlc_stmt_is_ws(items[j]))
		j++;
	return j - i;
}

bool tlc_ws_same_warpgroups(const tlc_stmt *a, const tlc_stmt *b)
{
	if (!tlc_stmt_is_ws(a) || !tlc_stmt_is_ws(b))
		return false;
	const tlc_expr *x = a->u.scope.call, *y = b->u.scope.call;
	if (x->u.call.nargs != y->u.call.nargs)
		return false;
	for (int i = 0; i < x->u.call.nargs; i++) {
		int64_t g, h;
		if (!tlc_expr_as_int(x->u.call.args[i], &g) || !tlc_expr_as_int(y->u.call.args[i], &h) || g != h)
			return false;
	}
	return true;
}

bool tlc_ws_range(const tlc_expr *call, int warpgroup, int64_t *lo, int64_t *n, const char **why)
{
	if (!call || call->kind != TLC_EXPR_CALL || call->u.call.op != TLC_OP_WS || call->u.call.nargs < 1) {
		*why = "T.ws takes the warpgroups it selects, T.ws(i, j, ...)";
		return false;
	}
	if (warpgroup <= 0) {
		*why = "T.ws needs a target with warpgroups";
		return false;
	}
	int64_t first = 0, prev = 0;
	for (int i = 0; i < call->u.call.nargs; i++) {
		int64_t g;
		if (!tlc_expr_as_int(call->u.call.args[i], &g) || g < 0 || g > 1024) {
			*why = "T.ws takes constant warpgroup numbers";
			return false;
		}
		if (i == 0)
			first = g;
		else if (g != prev + 1) {
			*why = "T.ws takes consecutive warpgroups (T.ws(1, 2), not T.ws(2, 1) or T.ws(0, 2))";
			return false;
		}
		prev = g;
	}
	*lo = first * warpgroup;
	*n = (prev - first + 1) * warpgroup;
	return true;
}

/* ---- TMA tiles ---- */

bool tlc_tile_region_2d(tlc_module *m, tlc_tile_operand *d, int64_t rows, int64_t cols, int *row_dim)
{
	int nd = d->ndim;
	if (nd < 2)
		return false;
	if (d->corner) {
		for (int k = 0; k < nd; k++) {
			d->point[k] = k < nd - 2;
			d->extent[k] = tlc_i32(m, k < nd - 2 ? 1 : k == nd - 2 ? rows : cols);
		}
		d->corner = false;
	}
	/* the tile's dimensions: the last one, and one other (a slice of one
	 * row counts as a single index) */
	int iterated = 0, last = -1;
	for (int k = 0; k < nd; k++) {
		int64_t e;
		if (d->point[k])
			continue;
		if (!tlc_expr_as_int(d->extent[k], &e))
			return false;
		if (e == 1 && k != nd - 1)
			continue;
		iterated++;
		if (k != nd - 1)
			last = k;
	}
	int64_t r, c;
	if (d->point[nd - 1] || last < 0 || iterated != 2 || !tlc_expr_as_int(d->extent[last], &r) ||
	    !tlc_expr_as_int(d->extent[nd - 1], &c) || r != rows || c != cols)
		return false;
	*row_dim = last;
	return true;
}

bool tlc_tma_store_region(tlc_module *m, const tlc_func *f, const tlc_ranges *r, tlc_tile_operand *d, int64_t rows,
                          int64_t cols, int *row_dim, const char **why)
{
	int nd = d->ndim;
	int esize = tlc_dtype_bits(d->buf->dtype) / 8;
	int64_t row_elems;
	if (d->buf->scope != TLC_SCOPE_GLOBAL || nd < 2 || esize < 1) {
		*why = "the destination is not a global tensor of two or more dimensions of a byte-sized type";
		return false;
	}
	if (!tlc_expr_as_int(d->buf->shape[nd - 1], &row_elems) || (row_elems * esize) % 16) {
		*why = "the rows of the global tensor are not a known multiple of 16 bytes";
		return false;
	}
	if (!tlc_tile_region_2d(m, d, rows, cols, row_dim)) {
		*why = "the region is not the tile along one dimension and the tensor's last";
		return false;
	}
	for (int k = 0; k < nd; k++) {
		int64_t lo, hi;
		if (!tlc_expr_bounds(r, d->begin[k], &lo, &hi) || lo < 0) {
			*why = "the tile's origin is not provably non-negative";
			return false;
		}
		if (hi > INT32_MAX) {
			*why = "the tile's origin may not fit the 32 bits of a TMA coordinate";
			return false;
		}
	}
	if (tlc_stmt_use_of(f->body, d->buf) & TLC_ACCESS_READ) {
		*why = "the kernel also reads the tensor, and TMA stores become visible to it only after the kernel";
		return false;
	}
	return true;
}

int64_t tlc_tma_shared_align(int64_t swizzle_bytes)
{
	return 8 * swizzle_bytes > 128 ? 8 * swizzle_bytes : 128;
}

bool tlc_tma_multicast_split(int64_t rows, int64_t row_bytes, int swizzle_bytes, int64_t shares)
{
	return shares >= 1 && rows % shares == 0 && (rows / shares * row_bytes) % tlc_tma_shared_align(swizzle_bytes) == 0;
}
