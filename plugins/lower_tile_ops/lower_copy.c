/* lower_copy.c - element-wise tile ops as T.Parallel nests.
 *
 * T.copy, T.fill, T.clear and tile T.atomic_add become a nest over their tile
 * whose body is one store (or one element atomic).  Accesses to global
 * tensors get boundary predicates unless the bounds prove the tile inside the
 * tensor: loads out of bounds read zero (as TMA and cp.async zero-fill),
 * stores out of bounds are skipped.  The op's loop_layout (from
 * layout-inference) moves onto the nest. */
#include <stdarg.h>

#include "lower.h"

static int side_from_expr(lw_state *st, tlc_loc loc, const tlc_expr *x, tlc_tile_operand *s)
{
	const char *why = NULL;
	if (!tlc_tile_operand_from_expr(st->m, x, s, &why))
		return lw_error(st, loc, "%s", why);
	return 0;
}

/* The tile extents of a side: its non-point dimensions. */
static int tile_extents(const tlc_tile_operand *s, const tlc_expr **ext)
{
	int k = 0;
	for (int d = 0; d < s->ndim; d++)
		if (!s->point[d])
			ext[k++] = s->extent[d];
	return k;
}

/* A corner operand takes the other operand's tile on its trailing dimensions;
 * its leading dimensions are single indices. */
static int complete_corner(lw_state *st, tlc_loc loc, tlc_tile_operand *s, const tlc_tile_operand *other)
{
	const tlc_expr *ext[LW_MAX_DIMS];
	int k = tile_extents(other, ext);
	if (k > s->ndim)
		return lw_error(st, loc, "%s", "T.copy: the element operand has fewer dimensions than the other operand's tile");
	int lead = s->ndim - k;
	for (int d = 0; d < s->ndim; d++) {
		s->point[d] = d < lead;
		s->extent[d] = d < lead ? tlc_i32(st->m, 1) : ext[d - lead];
	}
	s->corner = false;
	return 0;
}

static bool is_const(const tlc_expr *e, int64_t v)
{
	int64_t x;
	return tlc_expr_as_int(e, &x) && x == v;
}

/* Mark the tile dimensions that are iterated (extent != 1 when the two sides
 * disagree on rank, so that (1, 128) matches (128,)). */
static int iterated_dims(const tlc_tile_operand *s, bool drop_ones, int *dims)
{
	int k = 0;
	for (int d = 0; d < s->ndim; d++)
		if (!s->point[d] && !(drop_ones && is_const(s->extent[d], 1)))
			dims[k++] = d;
	return k;
}

/* Index list of a side for loop variables vars (one per iterated dim). */
static void side_indices(lw_state *st, const tlc_tile_operand *s, const int *dims, int k, tlc_var *const *vars,
                         const tlc_expr **idx)
{
	for (int d = 0; d < s->ndim; d++)
		idx[d] = s->begin[d];
	for (int j = 0; j < k; j++) {
		const tlc_expr *v = tlc_var_ref(st->m, vars[j]);
		int d = dims[j];
		idx[d] = is_const(tlc_simplify_expr(st->m, s->begin[d]), 0) ? v : tlc_binary(st->m, TLC_EXPR_ADD, s->begin[d], v);
	}
}

/* The guard of a side's element accesses in the nest over vars (tile[j]
 * elements along each): libtlc's one rule for a global access
 * (tlc_access_guard), with the loop variables in range; NULL when the
 * bounds prove the tile inside the tensor, or the side is not global. */
static const tlc_expr *bounds_predicate(lw_state *st, const tlc_tile_operand *s, int k, tlc_var *const *vars,
                                        const int64_t *tile, const tlc_expr *const *idx)
{
	if (s->buf->scope != TLC_SCOPE_GLOBAL)
		return NULL;
	int saved = st->ranges.n;
	for (int j = 0; j < k; j++)
		tlc_ranges_push(&st->ranges, vars[j], 0, tile[j] - 1);
	const tlc_expr *pred = tlc_access_guard(st->m, &st->ranges, s->buf, s->ndim, idx, 0, NULL);
	st->ranges.n = saved;
	return pred;
}

static const tlc_expr *zero_of(tlc_module *m, tlc_dtype t)
{
	return tlc_dtype_is_float(t) ? tlc_float(m, t, 0.0) : tlc_int(m, t, 0);
}

static const tlc_expr *cast_to(tlc_module *m, tlc_dtype t, const tlc_expr *x)
{
	int64_t v;
	if (x->dtype == t)
		return x;
	/* T.fill(buf, 0): a constant of the buffer's type reads better than a cast */
	if (tlc_expr_as_int(x, &v) && tlc_dtype_is_float(t))
		return tlc_float(m, t, (double)v);
	if (x->kind == TLC_EXPR_FLOAT && tlc_dtype_is_float(t))
		return tlc_float(m, t, x->u.fval);
	return tlc_cast(m, t, x);
}

/* Wrap body in a T.Parallel nest over the k constant extents. */
static tlc_stmt *parallel_nest(lw_state *st, tlc_loc loc, int k, tlc_var *const *vars, const int64_t *tile,
                               tlc_stmt *body)
{
	for (int j = k - 1; j >= 0; j--)
		body = tlc_for_new(st->m, loc, vars[j], tlc_i32(st->m, 0), tlc_i32(st->m, tile[j]), TLC_FOR_PARALLEL,
		                   body);
	return body;
}

static int make_loop_vars(lw_state *st, tlc_loc loc, const tlc_tile_operand *s, const int *dims, int k, int64_t *tile,
                          tlc_var **vars)
{
	static const char *const names[LW_MAX_DIMS] = {"i", "j", "k", "l", "i4", "i5", "i6", "i7"};
	for (int j = 0; j < k; j++) {
		if (!tlc_expr_as_int(tlc_simplify_expr(st->m, s->extent[dims[j]]), &tile[j]) || tile[j] <= 0)
			return lw_error(st, loc, "%s", "the tile extents of this op must be positive compile-time constants");
		vars[j] = tlc_var_new(st->m, names[j], TLC_DT_INT32);
	}
	return 0;
}

static bool same_extent(tlc_module *m, const tlc_expr *a, const tlc_expr *b)
{
	int64_t x, y;
	a = tlc_simplify_expr(m, a);
	b = tlc_simplify_expr(m, b);
	if (a == b)
		return true;
	return tlc_expr_as_int(a, &x) && tlc_expr_as_int(b, &y) && x == y;
}

/* The op's loop_layout (set by layout-inference) goes on the nest. */
static tlc_stmt *with_layout(const tlc_expr *call, tlc_stmt *nest)
{
	const tlc_expr *l = tlc_call_kw(call, "loop_layout");
	if (nest && l)
		nest->u.loop.loop_layout = l;
	return nest;
}

/* dst = src element-wise, or atomic_add(dst, src) when atomic. */
static tlc_stmt *expand_pair(lw_state *st, const tlc_stmt *s, const tlc_expr *src_x, const tlc_expr *dst_x, bool atomic)
{
	const tlc_expr *call = s->u.eval.call;
	tlc_tile_operand src, dst;
	if (side_from_expr(st, s->loc, src_x, &src) || side_from_expr(st, s->loc, dst_x, &dst))
		return NULL;
	if (src.corner && dst.corner) {
		lw_error(st, s->loc, "%s", "T.copy: at least one operand must be a whole buffer or a region");
		return NULL;
	}
	if ((src.corner && complete_corner(st, s->loc, &src, &dst)) ||
	    (dst.corner && complete_corner(st, s->loc, &dst, &src)))
		return NULL;
	int sd[LW_MAX_DIMS], dd[LW_MAX_DIMS];
	int ks = iterated_dims(&src, false, sd), kd = iterated_dims(&dst, false, dd);
	if (ks != kd) {
		ks = iterated_dims(&src, true, sd);
		kd = iterated_dims(&dst, true, dd);
	}
	bool ok = ks == kd;
	for (int j = 0; ok && j < ks; j++)
		ok = same_extent(st->m, src.extent[sd[j]], dst.extent[dd[j]]);
	if (!ok) {
		lw_error(st, s->loc, "%s", "T.copy: the source and destination tiles have different shapes");
		return NULL;
	}
	int64_t tile[LW_MAX_DIMS];
	tlc_var *vars[LW_MAX_DIMS];
	if (make_loop_vars(st, s->loc, &dst, dd, kd, tile, vars))
		return NULL;
	const tlc_expr *si[LW_MAX_DIMS], *di[LW_MAX_DIMS];
	side_indices(st, &src, sd, ks, vars, si);
	side_indices(st, &dst, dd, kd, vars, di);
	const tlc_expr *sp = bounds_predicate(st, &src, ks, vars, tile, si);
	const tlc_expr *dp = bounds_predicate(st, &dst, kd, vars, tile, di);
	const tlc_expr *value = cast_to(st->m, dst.buf->dtype, tlc_load(st->m, src.buf, src.ndim, si));
	tlc_stmt *body;
	if (atomic) {
		const tlc_expr *p = sp && dp ? tlc_binary(st->m, TLC_EXPR_AND, sp, dp) : sp ? sp : dp;
		const tlc_expr *args[2] = {tlc_load(st->m, dst.buf, dst.ndim, di), value};
		body = tlc_eval_new(st->m, s->loc, tlc_call(st->m, TLC_OP_ATOMIC_ADD, TLC_DT_VOID, 2, args, 0, NULL, NULL));
		if (p)
			body = tlc_if_new(st->m, s->loc, p, body, NULL);
	} else if (dst.buf->scope == TLC_SCOPE_GLOBAL) {
		const tlc_expr *p = sp && dp ? tlc_binary(st->m, TLC_EXPR_AND, sp, dp) : sp ? sp : dp;
		body = tlc_store_new(st->m, s->loc, dst.buf, dst.ndim, di, value);
		if (p)
			body = tlc_if_new(st->m, s->loc, p, body, NULL);
	} else {
		/* a load from outside the tensor reads zero, as TMA and cp.async do */
		if (sp)
			value = tlc_select(st->m, sp, value, zero_of(st->m, dst.buf->dtype));
		body = tlc_store_new(st->m, s->loc, dst.buf, dst.ndim, di, value);
	}
	return with_layout(call, parallel_nest(st, s->loc, kd, vars, tile, body));
}

tlc_stmt *lw_expand_copy(lw_state *st, const tlc_stmt *s)
{
	const tlc_expr *call = s->u.eval.call;
	if (call->u.call.nargs != 2) {
		lw_error(st, s->loc, "T.copy takes a source and a destination");
		return NULL;
	}
	return expand_pair(st, s, call->u.call.args[0], call->u.call.args[1], false);
}

tlc_stmt *lw_expand_atomic(lw_state *st, const tlc_stmt *s)
{
	const tlc_expr *call = s->u.eval.call;
	return expand_pair(st, s, call->u.call.args[1], call->u.call.args[0], true);
}

tlc_stmt *lw_expand_fill(lw_state *st, const tlc_stmt *s, bool clear)
{
	const tlc_expr *call = s->u.eval.call;
	tlc_tile_operand dst;
	if (side_from_expr(st, s->loc, call->u.call.args[0], &dst))
		return NULL;
	if (dst.corner) {
		/* one element (`T.fill(counts[0], 0)`): TileLang takes it as the
		 * region of that element, one long along the last dimension */
		for (int d = 0; d < dst.ndim; d++) {
			dst.point[d] = d < dst.ndim - 1;
			dst.extent[d] = tlc_i32(st->m, 1);
		}
		dst.corner = false;
	}
	int dd[LW_MAX_DIMS];
	int kd = iterated_dims(&dst, false, dd);
	int64_t tile[LW_MAX_DIMS];
	tlc_var *vars[LW_MAX_DIMS];
	if (make_loop_vars(st, s->loc, &dst, dd, kd, tile, vars))
		return NULL;
	const tlc_expr *di[LW_MAX_DIMS];
	side_indices(st, &dst, dd, kd, vars, di);
	const tlc_expr *value = clear ? zero_of(st->m, dst.buf->dtype) : cast_to(st->m, dst.buf->dtype, call->u.call.args[1]);
	tlc_stmt *body = tlc_store_new(st->m, s->loc, dst.buf, dst.ndim, di, value);
	const tlc_expr *p = bounds_predicate(st, &dst, kd, vars, tile, di);
	if (p)
		body = tlc_if_new(st->m, s->loc, p, body, NULL);
	if (dst.buf->scope == TLC_SCOPE_LOCAL || dst.buf->scope == TLC_SCOPE_VAR) {
		/* every thread has its own copy of a T.alloc_local buffer: each
		 * fills all of it (TileLang's Fill of a local buffer) */
		for (int j = kd - 1; j >= 0; j--)
			body = tlc_for_new(st->m, s->loc, vars[j], tlc_i32(st->m, 0), tlc_i32(st->m, tile[j]),
			                   TLC_FOR_SERIAL, body);
		return body;
	}
	tlc_stmt *nest = with_layout(call, parallel_nest(st, s->loc, kd, vars, tile, body));
	/* a whole fragment is filled through its own layout: no data moves */
	if (nest && !nest->u.loop.loop_layout && dst.buf->scope == TLC_SCOPE_FRAGMENT && dst.buf->layout &&
	    tlc_tile_operand_is_whole(st->m, &dst) && kd == dst.buf->ndim)
		nest->u.loop.loop_layout = tlc_layout_to_expr(st->m, dst.buf->layout);
	return nest;
}

