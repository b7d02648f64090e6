/* cuda_lower.c - SIMT lowering of T.copy, T.fill and T.clear.
 *
 * Each op becomes a T.Parallel loop nest over its tile whose body is one
 * store; the thread partition of that loop is done later, with every other
 * T.Parallel loop, by cuda_stmt.c.  Accesses to global tensors get boundary
 * predicates unless cuda_bounds.c proves the tile inside the tensor: loads
 * out of bounds read zero (as TMA and cp.async zero-fill), stores out of
 * bounds are skipped.
 *
 * This is IR -> IR on purpose: it is the SIMT part of the future
 * `lower-tile-ops` pass plugin and moves there unchanged. */
#include "cuda_emit.h"

#define MAX_DIMS 8

/* One operand of a tile op, normalised: per dimension a begin, an extent and
 * whether the dimension is a single index (dropped from the tile). */
typedef struct tile_side {
	tlc_buffer *buf;
	int ndim;
	const tlc_expr *begin[MAX_DIMS];
	const tlc_expr *extent[MAX_DIMS];
	bool point[MAX_DIMS];
	bool corner; /* buf[i, j] form: extents come from the other operand */
} tile_side;

typedef struct lower_state {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	const cuda_arch *arch;
	cuda_ranges ranges;
	int errors;
} lower_state;

static int lower_error(lower_state *st, tlc_loc loc, const char *what)
{
	tlc_error(st->ctx, loc, "%s", what);
	st->errors++;
	return -1;
}

static int side_from_expr(lower_state *st, tlc_loc loc, const tlc_expr *x, tile_side *s)
{
	*s = (tile_side){0};
	switch (x->kind) {
	case TLC_EXPR_BUF:
		s->buf = x->u.buf;
		s->ndim = s->buf->ndim;
		for (int d = 0; d < s->ndim && d < MAX_DIMS; d++) {
			s->begin[d] = tlc_i32(st->m, 0);
			s->extent[d] = s->buf->shape[d];
		}
		break;
	case TLC_EXPR_REGION:
		s->buf = x->u.region.buf;
		s->ndim = x->u.region.n;
		for (int d = 0; d < s->ndim && d < MAX_DIMS; d++) {
			s->begin[d] = x->u.region.dims[d].begin;
			s->extent[d] = x->u.region.dims[d].extent;
			s->point[d] = x->u.region.dims[d].is_point;
		}
		break;
	case TLC_EXPR_LOAD:
		s->buf = x->u.load.buf;
		s->ndim = x->u.load.n;
		s->corner = true;
		for (int d = 0; d < s->ndim && d < MAX_DIMS; d++)
			s->begin[d] = x->u.load.idx[d];
		break;
	default:
		return lower_error(st, loc, "operand of a tile op must be a buffer, a region or an element");
	}
	if (s->ndim > MAX_DIMS)
		return lower_error(st, loc, "tile ops on more than 8 dimensions are not supported");
	return 0;
}

/* The tile extents of a side: its non-point dimensions. */
static int tile_extents(const tile_side *s, const tlc_expr **ext)
{
	int k = 0;
	for (int d = 0; d < s->ndim; d++)
		if (!s->point[d])
			ext[k++] = s->extent[d];
	return k;
}

/* A corner operand takes the other operand's tile on its trailing dimensions;
 * its leading dimensions are single indices. */
static int complete_corner(lower_state *st, tlc_loc loc, tile_side *s, const tile_side *other)
{
	const tlc_expr *ext[MAX_DIMS];
	int k = tile_extents(other, ext);
	if (k > s->ndim)
		return lower_error(st, loc, "T.copy: the element operand has fewer dimensions than the other operand's tile");
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
static int iterated_dims(const tile_side *s, bool drop_ones, int *dims)
{
	int k = 0;
	for (int d = 0; d < s->ndim; d++)
		if (!s->point[d] && !(drop_ones && is_const(s->extent[d], 1)))
			dims[k++] = d;
	return k;
}

/* Index list of a side for loop variables vars (one per iterated dim). */
static void side_indices(lower_state *st, const tile_side *s, const int *dims, int k, tlc_var *const *vars,
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

/* Conjunction of `index < extent` for the iterated dims of a global side
 * that cuda_bounds.c cannot prove in range; NULL when none is needed. */
static const tlc_expr *bounds_predicate(lower_state *st, const tile_side *s, const int *dims, int k,
                                        const int64_t *tile, const tlc_expr *const *idx)
{
	const tlc_expr *pred = NULL;
	if (s->buf->scope != TLC_SCOPE_GLOBAL)
		return NULL;
	for (int j = 0; j < k; j++) {
		int d = dims[j];
		int64_t lo, hi, n;
		if (cuda_expr_bounds(&st->ranges, s->begin[d], &lo, &hi) && tlc_expr_as_int(s->buf->shape[d], &n) &&
		    lo >= 0 && hi + tile[j] <= n)
			continue;
		const tlc_expr *c = tlc_binary(st->m, TLC_EXPR_LT, idx[d], s->buf->shape[d]);
		pred = pred ? tlc_binary(st->m, TLC_EXPR_AND, pred, c) : c;
	}
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
static tlc_stmt *parallel_nest(lower_state *st, tlc_loc loc, int k, tlc_var *const *vars, const int64_t *tile,
                               tlc_stmt *body)
{
	for (int j = k - 1; j >= 0; j--)
		body = tlc_for_new(st->m, loc, vars[j], tlc_i32(st->m, 0), tlc_i32(st->m, tile[j]), TLC_FOR_PARALLEL,
		                   body);
	return body;
}

static int make_loop_vars(lower_state *st, tlc_loc loc, const tile_side *s, const int *dims, int k, int64_t *tile,
                          tlc_var **vars)
{
	static const char *const names[MAX_DIMS] = {"i", "j", "k", "l", "i4", "i5", "i6", "i7"};
	for (int j = 0; j < k; j++) {
		if (!tlc_expr_as_int(tlc_simplify_expr(st->m, s->extent[dims[j]]), &tile[j]) || tile[j] <= 0)
			return lower_error(st, loc, "the tile extents of this op must be positive compile-time constants");
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

static tlc_stmt *lower_copy(lower_state *st, const tlc_stmt *s)
{
	const tlc_expr *call = s->u.eval.call;
	tile_side src, dst;
	if (call->u.call.nargs != 2 || side_from_expr(st, s->loc, call->u.call.args[0], &src) ||
	    side_from_expr(st, s->loc, call->u.call.args[1], &dst))
		return NULL;
	if (src.corner && dst.corner) {
		lower_error(st, s->loc, "T.copy: at least one operand must be a whole buffer or a region");
		return NULL;
	}
	if ((src.corner && complete_corner(st, s->loc, &src, &dst)) ||
	    (dst.corner && complete_corner(st, s->loc, &dst, &src)))
		return NULL;
	int sd[MAX_DIMS], dd[MAX_DIMS];
	int ks = iterated_dims(&src, false, sd), kd = iterated_dims(&dst, false, dd);
	if (ks != kd) {
		ks = iterated_dims(&src, true, sd);
		kd = iterated_dims(&dst, true, dd);
	}
	bool ok = ks == kd;
	for (int j = 0; ok && j < ks; j++)
		ok = same_extent(st->m, src.extent[sd[j]], dst.extent[dd[j]]);
	if (!ok) {
		lower_error(st, s->loc, "T.copy: the source and destination tiles have different shapes");
		return NULL;
	}
	int64_t tile[MAX_DIMS];
	tlc_var *vars[MAX_DIMS];
	if (make_loop_vars(st, s->loc, &dst, dd, kd, tile, vars))
		return NULL;
	const tlc_expr *si[MAX_DIMS], *di[MAX_DIMS];
	side_indices(st, &src, sd, ks, vars, si);
	side_indices(st, &dst, dd, kd, vars, di);
	const tlc_expr *sp = bounds_predicate(st, &src, sd, ks, tile, si);
	const tlc_expr *dp = bounds_predicate(st, &dst, dd, kd, tile, di);
	const tlc_expr *value = cast_to(st->m, dst.buf->dtype, tlc_load(st->m, src.buf, src.ndim, si));
	tlc_stmt *body;
	if (dst.buf->scope == TLC_SCOPE_GLOBAL) {
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
	return parallel_nest(st, s->loc, kd, vars, tile, body);
}

static tlc_stmt *lower_fill(lower_state *st, const tlc_stmt *s, bool clear)
{
	const tlc_expr *call = s->u.eval.call;
	tile_side dst;
	if (side_from_expr(st, s->loc, call->u.call.args[0], &dst))
		return NULL;
	if (dst.corner) {
		lower_error(st, s->loc, clear ? "T.clear needs a buffer or a region" : "T.fill needs a buffer or a region");
		return NULL;
	}
	int dd[MAX_DIMS];
	int kd = iterated_dims(&dst, false, dd);
	int64_t tile[MAX_DIMS];
	tlc_var *vars[MAX_DIMS];
	if (make_loop_vars(st, s->loc, &dst, dd, kd, tile, vars))
		return NULL;
	const tlc_expr *di[MAX_DIMS];
	side_indices(st, &dst, dd, kd, vars, di);
	const tlc_expr *value = clear ? zero_of(st->m, dst.buf->dtype) : cast_to(st->m, dst.buf->dtype, call->u.call.args[1]);
	tlc_stmt *body = tlc_store_new(st->m, s->loc, dst.buf, dst.ndim, di, value);
	const tlc_expr *p = bounds_predicate(st, &dst, dd, kd, tile, di);
	if (p)
		body = tlc_if_new(st->m, s->loc, p, body, NULL);
	return parallel_nest(st, s->loc, kd, vars, tile, body);
}

static void push_range(lower_state *st, const tlc_var *v, const tlc_expr *min, const tlc_expr *extent)
{
	int64_t lo, hi, elo, ehi;
	if (cuda_expr_bounds(&st->ranges, min, &lo, &hi) && cuda_expr_bounds(&st->ranges, extent, &elo, &ehi) &&
	    ehi >= 1)
		cuda_ranges_push(&st->ranges, v, lo, hi + ehi - 1);
}

static void lower_slot(lower_state *st, tlc_stmt **slot);

static void lower_children(lower_state *st, tlc_stmt *s)
{
	int saved = st->ranges.n;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			lower_slot(st, &s->u.seq.items[i]);
		break;
	case TLC_STMT_FOR:
		push_range(st, s->u.loop.var, s->u.loop.min, s->u.loop.extent);
		lower_slot(st, &s->u.loop.body);
		break;
	case TLC_STMT_IF:
		lower_slot(st, &s->u.if_.then_s);
		if (s->u.if_.else_s)
			lower_slot(st, &s->u.if_.else_s);
		return;
	case TLC_STMT_LET: {
		int64_t lo, hi;
		/* a let is visible to the rest of the enclosing block: keep the range */
		if (cuda_expr_bounds(&st->ranges, s->u.let.value, &lo, &hi))
			cuda_ranges_push(&st->ranges, s->u.let.var, lo, hi);
		return;
	}
	case TLC_STMT_SCOPE:
		lower_slot(st, &s->u.scope.body);
		break;
	case TLC_STMT_ATTR:
		lower_slot(st, &s->u.attr.body);
		break;
	default:
		return;
	}
	st->ranges.n = saved;
}

static void lower_slot(lower_state *st, tlc_stmt **slot)
{
	tlc_stmt *s = *slot;
	if (!s)
		return;
	if (s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL) {
		tlc_op_id op = s->u.eval.call->u.call.op;
		tlc_stmt *low = NULL;
		if (op == TLC_OP_COPY)
			low = lower_copy(st, s);
		else if (op == TLC_OP_FILL)
			low = lower_fill(st, s, false);
		else if (op == TLC_OP_CLEAR)
			low = lower_fill(st, s, true);
		else
			return;
		if (low)
			*slot = low;
		return;
	}
	lower_children(st, s);
}

int cuda_lower_tile_ops(tlc_module *m, tlc_func *f, const cuda_arch *arch)
{
	lower_state st = {.m = m, .ctx = m->ctx, .f = f, .arch = arch};
	for (int d = 0; d < f->grid_ndim && d < 3; d++)
		if (f->block_vars[d])
			push_range(&st, f->block_vars[d], tlc_i32(m, 0), f->grid[d]);
	for (int d = 0; d < f->thread_ndim && d < 3; d++)
		if (f->thread_vars[d])
			push_range(&st, f->thread_vars[d], tlc_i32(m, 0), f->threads[d]);
	lower_slot(&st, &f->body);
	cuda_ranges_free(&st.ranges);
	return st.errors;
}
