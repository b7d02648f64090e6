/* infer_ops.c - the ops layout inference reasons about, and what each one
 * proposes at the strict, common and free levels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/walk.h>

#include <tlc/target.h>

#include "layout_inference.h"

const char *li_where(li_state *st, const char *what, tlc_loc loc)
{
	char buf[160];
	snprintf(buf, sizeof buf, "%s at line %u", what, loc.line);
	return tlc_strdup(st->m, buf);
}

li_buf *li_buf_of(li_state *st, tlc_buffer *b)
{
	for (int i = 0; i < st->nbufs; i++)
		if (st->bufs[i]->buf == b)
			return st->bufs[i];
	st->bufs = tlc_mem_grow(st->bufs, st->nbufs, &st->cap_bufs, sizeof(li_buf *));
	li_buf *lb = tlc_alloc(st->m, sizeof *lb);
	lb->buf = b;
	st->bufs[st->nbufs++] = lb;
	if (b->scope == TLC_SCOPE_FRAGMENT && b->alias_of) {
		tlc_buffer *root = (tlc_buffer *)b->alias_of;
		while (root->alias_of)
			root = (tlc_buffer *)root->alias_of;
		lb->root = li_buf_of(st, root);
	}
	return lb;
}

static li_op *new_op(li_state *st, li_kind kind, tlc_stmt *s, const char *who)
{
	st->ops = tlc_mem_grow(st->ops, st->nops, &st->cap_ops, sizeof(li_op));
	li_op *op = &st->ops[st->nops++];
	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->s = s;
	op->who = li_where(st, who, s->loc);
	op->thread_lo = st->op_lo;
	op->threads = st->op_threads;
	return op;
}

static int op_error(li_state *st, tlc_loc loc, const char *fmt, const char *a, const char *b)
{
	tlc_error(st->ctx, loc, fmt, a, b);
	st->errors++;
	return -1;
}

/* ---- nests: T.Parallel loops and element-wise tile ops ---- */

static void add_access(li_state *st, li_op *op, tlc_buffer *b, int n, const tlc_expr *const *idx, tlc_var *const *vars,
                       bool write)
{
	if (b->scope != TLC_SCOPE_FRAGMENT || op->nacc == LI_MAX_ACCESS)
		return;
	li_access a = {.b = li_buf_of(st, b), .write = write, .regular = true};
	int last = -1;
	for (int d = 0; d < n; d++) {
		int k = -1;
		for (int j = 0; j < op->ndim; j++)
			if (idx[d]->kind == TLC_EXPR_VAR && idx[d]->u.var == vars[j])
				k = j;
		/* a loop variable over part of the dimension (fewer rows than the
		 * fragment's, or from another start) reaches only a part of it:
		 * the loop's layout cannot be the fragment's, and lower-tile-ops
		 * stages the fragment as for any other index */
		int64_t ext;
		if (k <= last || op->mins[k] != 0 || !tlc_expr_as_int(b->shape[d], &ext) ||
		    ext != op->shape[k]) {
			a.regular = false;
			break;
		}
		a.keep[a.nkeep++] = k;
		last = k;
	}
	/* the same access twice adds nothing */
	for (int i = 0; i < op->nacc; i++)
		if (op->acc[i].b == a.b && op->acc[i].nkeep == a.nkeep && op->acc[i].regular == a.regular &&
		    !memcmp(op->acc[i].keep, a.keep, sizeof a.keep)) {
			op->acc[i].write |= write;
			return;
		}
	op->acc[op->nacc++] = a;
}

static void note_width(li_op *op, tlc_dtype t)
{
	int bytes = tlc_dtype_bits(t) / 8;
	if (bytes > op->vec_bytes)
		op->vec_bytes = bytes;
}

/* What a nest's body reads and writes.  A walk over its statements picks the
 * expressions that carry data; a second walk finds the element reads in them. */
typedef struct nest_scan {
	li_state *st;
	li_op *op;
	tlc_var *const *vars;
	tlc_visitor reads; /* over one expression: its loads */
} nest_scan;

static tlc_walk_action scan_load(void *p, const tlc_expr *e)
{
	nest_scan *c = p;
	/* a region names a tile: its bounds are addresses, not element reads */
	if (e->kind == TLC_EXPR_REGION)
		return TLC_WALK_SKIP;
	if (e->kind == TLC_EXPR_LOAD) {
		note_width(c->op, e->u.load.buf->dtype);
		add_access(c->st, c->op, e->u.load.buf, e->u.load.n, e->u.load.idx, c->vars, false);
	}
	return TLC_WALK_CONTINUE; /* a load inside an index is read too */
}

static void scan_reads(nest_scan *c, const tlc_expr *e)
{
	tlc_walk_expr(&c->reads, e);
}

/* Which expressions of a statement hold the nest's data: conditions, let
 * values, stored values and call arguments.  Loop bounds are not data, and a
 * store's indices are its access pattern (add_access), not reads. */
static tlc_walk_action scan_stmt(void *p, const tlc_stmt *s)
{
	nest_scan *c = p;
	switch (s->kind) {
	case TLC_STMT_IF: scan_reads(c, s->u.if_.cond); break;
	case TLC_STMT_LET: scan_reads(c, s->u.let.value); break;
	case TLC_STMT_STORE:
		note_width(c->op, s->u.store.buf->dtype);
		add_access(c->st, c->op, s->u.store.buf, s->u.store.n, s->u.store.idx, c->vars,
		           true);
		scan_reads(c, s->u.store.value);
		break;
	case TLC_STMT_EVAL: {
		const tlc_expr *call = s->u.eval.call;
		/* an element atomic inside a nest writes its destination */
		if (call->kind == TLC_EXPR_CALL &&
		    (call->u.call.op == TLC_OP_ATOMIC_ADD || call->u.call.op == TLC_OP_ATOMIC_MAX ||
		     call->u.call.op == TLC_OP_ATOMIC_MIN) &&
		    call->u.call.nargs == 2) {
			const tlc_expr *d = call->u.call.args[0];
			if (d->kind == TLC_EXPR_LOAD)
				note_width(c->op, d->u.load.buf->dtype);
			scan_reads(c, call->u.call.args[1]);
		} else {
			scan_reads(c, call);
		}
		break;
	}
	default: break;
	}
	return TLC_WALK_CONTINUE;
}

static int collect_nest(li_state *st, tlc_stmt *s)
{
	li_op *op = new_op(st, LI_NEST, s, "T.Parallel loop");
	tlc_var *vars[LI_MAX_DIMS];
	const tlc_stmt *loop = s, *body = NULL;
	for (;;) {
		int64_t lo, n;
		if (op->ndim == LI_MAX_DIMS)
			return op_error(st, s->loc, "%s%sT.Parallel nests deeper than 8 loops are not supported", "", "");
		if (!tlc_expr_as_int(loop->u.loop.min, &lo) || !tlc_expr_as_int(loop->u.loop.extent, &n) || n <= 0)
			return op_error(st, loop->loc, "%s%sthe extents of a T.Parallel loop must be positive compile-time constants",
			                "", "");
		vars[op->ndim] = loop->u.loop.var;
		op->mins[op->ndim] = lo;
		op->shape[op->ndim++] = n;
		body = loop->u.loop.body;
		const tlc_stmt *b = body;
		if (b && b->kind == TLC_STMT_SEQ && b->u.seq.n == 1)
			b = b->u.seq.items[0];
		if (!(b && b->kind == TLC_STMT_FOR && b->u.loop.kind == TLC_FOR_PARALLEL))
			break;
		loop = b;
	}
	nest_scan scan = {.st = st, .op = op, .vars = vars};
	scan.reads = (tlc_visitor){.ctx = &scan, .expr_pre = scan_load};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &scan, .stmt_pre = scan_stmt}, body);
	if (s->u.loop.loop_layout) {
		const char *why = NULL;
		op->loop = tlc_layout_from_expr(st->m, s->u.loop.loop_layout, &why);
		if (!op->loop)
			return op_error(st, s->loc, "loop_layout of this T.Parallel loop is not a fragment: %s%s", why ? why : "",
			                "");
		op->loop_given = true;
	}
	if (!op->vec_bytes)
		op->vec_bytes = 4;
	return 0;
}

/* The non-point extents of a tile operand, constant; -1 when one is not. */
static int tile_shape(li_state *st, const tlc_tile_operand *o, int64_t *shape)
{
	int k = 0;
	for (int d = 0; d < o->ndim && k < LI_MAX_DIMS; d++)
		if (!o->point[d] && !tlc_expr_as_int(tlc_simplify_expr(st->m, o->extent[d]), &shape[k++]))
			return -1;
	return k;
}

/* The nest a tile copy is (lower-tile-ops builds it the same way): over the
 * non-point extents of the destination, or of the source where the
 * destination is a corner element; where the two sides' ranks differ, the
 * extent-1 dimensions are dropped.  False when it is not constant. */
static bool copy_nest_shape(li_state *st, const tlc_tile_operand *src, const tlc_tile_operand *dst,
                            li_op *op)
{
	int64_t ss[LI_MAX_DIMS], ds[LI_MAX_DIMS];
	int ks = tile_shape(st, src, ss), kd = tile_shape(st, dst, ds);
	const int64_t *shape = dst->corner ? ss : ds;
	int k = dst->corner ? ks : kd;
	if (k < 0)
		return false;
	bool drop = !src->corner && !dst->corner && ks != kd;
	op->ndim = 0;
	for (int j = 0; j < k; j++)
		if (!(drop && shape[j] == 1))
			op->shape[op->ndim++] = shape[j];
	return op->ndim > 0;
}

/* T.copy / T.atomic_add of tiles: a nest over the tile (TileLang lowers a
 * copy that is not a bulk one to a T.Parallel loop over its region).  A
 * whole fragment operand of the tile's shape is accessed at the loop's
 * indices and gives or takes the loop's layout; a part of a fragment (a
 * row of it, a block of rows) is accessed elsewhere than the loop's
 * indices, which lower-tile-ops handles as in a hand-written loop: the
 * fragment is staged through shared memory (both ways when written). */
static int collect_tile_nest(li_state *st, tlc_stmt *s, const char *name)
{
	const tlc_expr *c = s->u.eval.call;
	tlc_tile_operand side[2];
	const char *why = NULL;
	for (int i = 0; i < 2; i++)
		if (!tlc_tile_operand_from_expr(st->m, c->u.call.args[i], &side[i], &why))
			return 0; /* lower-tile-ops reports it */
	bool frag0 = side[0].buf->scope == TLC_SCOPE_FRAGMENT, frag1 = side[1].buf->scope == TLC_SCOPE_FRAGMENT;
	if (!frag0 && !frag1)
		return 0; /* no thread mapping to agree on: lower-tile-ops partitions it freely */
	int dst = c->u.call.op == TLC_OP_COPY ? 1 : 0;
	li_op *op = new_op(st, LI_NEST, s, name);
	if (!copy_nest_shape(st, &side[1 - dst], &side[dst], op))
		return op_error(st, s->loc, "%s: the tile of a copy with a fragment needs compile-time extents%s",
		                name, "");
	for (int i = 0; i < 2; i++) {
		note_width(op, side[i].buf->dtype);
		if (side[i].buf->scope != TLC_SCOPE_FRAGMENT)
			continue;
		li_access a = {.b = li_buf_of(st, side[i].buf), .write = i == dst, .regular = true,
		               .nkeep = op->ndim};
		bool whole = !side[i].corner && tlc_tile_operand_is_whole(st->m, &side[i]) &&
		             side[i].buf->ndim == op->ndim;
		for (int d = 0; whole && d < op->ndim; d++) {
			int64_t e;
			whole = tlc_expr_as_int(side[i].buf->shape[d], &e) && e == op->shape[d];
			a.keep[d] = d;
		}
		if (!whole) {
			a.regular = false;
			a.nkeep = 0;
		}
		op->acc[op->nacc++] = a;
	}
	const tlc_expr *given = tlc_call_kw(c, "loop_layout");
	if (given) {
		op->loop = tlc_layout_from_expr(st->m, given, &why);
		if (!op->loop)
			return op_error(st, s->loc, "%s: loop_layout is not a fragment: %s", name, why ? why : "");
		op->loop_given = true;
	}
	return 0;
}

static int collect_gemm(li_state *st, tlc_stmt *s)
{
	li_op *op = new_op(st, LI_GEMM, s, "T.gemm");
	const char *why = NULL;
	if (!tlc_gemm_decode(s->u.eval.call, &op->g, &why))
		return op_error(st, s->loc, "T.gemm: %s%s", why, "");
	if (op->g.C->scope != TLC_SCOPE_FRAGMENT)
		return op_error(st, s->loc, "T.gemm: the accumulator '%s' must be a fragment%s", op->g.C->name, "");
	/* a fragment operand's registers follow the instruction's layout of
	 * the whole fragment: a part of it would need another one */
	for (int k = 0; k < 2; k++)
		if (op->g.sub[k] && (k ? op->g.B : op->g.A)->scope == TLC_SCOPE_FRAGMENT)
			return op_error(st, s->loc,
			                "T.gemm: operand '%s' is a part of a fragment; a fragment operand must "
			                "be the whole fragment (copy the part into a fragment of its own first)%s",
			                (k ? op->g.B : op->g.A)->name, "");
	if (!tlc_gemm_plan_for(st->m, &op->g, op->threads, op->thread_lo, &op->plan, &why))
		return op_error(st, s->loc, "T.gemm: %s%s", why, "");
	return 0;
}

static int collect_reduce(li_state *st, tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->u.call.args[0]->kind != TLC_EXPR_BUF || c->u.call.args[1]->kind != TLC_EXPR_BUF)
		return 0;
	tlc_buffer *src = c->u.call.args[0]->u.buf, *dst = c->u.call.args[1]->u.buf;
	if (src->scope != TLC_SCOPE_FRAGMENT || dst->scope != TLC_SCOPE_FRAGMENT)
		return 0; /* lower-tile-ops reports what it cannot do */
	li_op *op = new_op(st, LI_REDUCE, s, tlc_op_get(st->ctx, c->u.call.op)->name);
	op->src = li_buf_of(st, src);
	op->dst = li_buf_of(st, dst);
	int64_t dim = -1;
	if (c->u.call.nargs > 2 && !tlc_expr_as_int(c->u.call.args[2], &dim))
		return op_error(st, s->loc, "T.%s: dim must be a compile-time integer%s", op->who, "");
	if (dim < 0)
		dim += src->ndim;
	if (dim < 0 || dim >= src->ndim)
		return op_error(st, s->loc, "%s: dim is out of range%s", op->who, "");
	op->dim = (int)dim;
	/* a 1-D source reduces into a (1,) fragment, as in TileLang */
	int64_t one = 0;
	bool scalar = src->ndim == 1 && dst->ndim == 1 && tlc_expr_as_int(dst->shape[0], &one) &&
	              one == 1;
	if (dst->ndim != src->ndim - 1 && !scalar)
		return op_error(st, s->loc,
		                "%s: the result '%s' must have one dimension less than the source (or "
		                "shape (1,) for a 1-D source)",
		                op->who, dst->name);
	return 0;
}

/* The op a tile-op statement is, if layout inference reasons about it. */
static int collect_tile_op(li_state *st, tlc_stmt *s)
{
	const tlc_expr *c = s->u.eval.call;
	if (c->kind != TLC_EXPR_CALL)
		return 0;
	switch (c->u.call.op) {
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: return collect_gemm(st, s);
	case TLC_OP_COPY: return collect_tile_nest(st, s, "T.copy");
	case TLC_OP_ATOMIC_ADD:
		if (c->u.call.args[0]->kind == TLC_EXPR_LOAD)
			return 0; /* an element atomic outside a nest */
		return collect_tile_nest(st, s, "T.atomic_add");
	case TLC_OP_REDUCE_MAX:
	case TLC_OP_REDUCE_MIN:
	case TLC_OP_REDUCE_SUM:
	case TLC_OP_REDUCE_ABSSUM:
	case TLC_OP_REDUCE_ABSMAX: return collect_reduce(st, s);
	default: return 0;
	}
}

static tlc_walk_action collect_op(void *p, const tlc_stmt *cs)
{
	li_state *st = p;
	/* the walk only reads; an op keeps its statement, which write_loops
	 * annotates once the layouts are known */
	tlc_stmt *s = (tlc_stmt *)cs;
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL) {
		collect_nest(st, s);
		return TLC_WALK_SKIP; /* the nest is one op: its body is scanned as part of it */
	}
	if (s->kind == TLC_STMT_EVAL)
		collect_tile_op(st, s);
	if (s->kind == TLC_STMT_SCOPE && s->u.scope.call->u.call.op == TLC_OP_WS) {
		/* the ops inside run on the scope's warpgroups: their fragments
		 * are bound to those threads (T.ws scopes do not nest) */
		const tlc_target_info *t = tlc_module_target_info(st->m);
		int64_t lo, n;
		const char *why = NULL;
		if (!tlc_ws_range(s->u.scope.call, t ? t->warpgroup : 0, &lo, &n, &why)) {
			tlc_error(st->ctx, s->loc, "%s", why);
			st->errors++;
			return TLC_WALK_SKIP;
		}
		if (lo + n > st->threads) {
			tlc_error(st->ctx, s->loc, "T.ws selects threads [%lld, %lld) but the block has %lld", (long long)lo,
			          (long long)(lo + n), (long long)st->threads);
			st->errors++;
			return TLC_WALK_SKIP;
		}
		st->op_lo = lo;
		st->op_threads = n;
	}
	return TLC_WALK_CONTINUE;
}

static void collect_post(void *p, const tlc_stmt *s)
{
	li_state *st = p;
	if (s->kind == TLC_STMT_SCOPE && s->u.scope.call->u.call.op == TLC_OP_WS) {
		st->op_lo = 0;
		st->op_threads = st->threads;
	}
}

int li_collect(li_state *st, tlc_stmt *s)
{
	st->op_lo = 0;
	st->op_threads = st->threads;
	tlc_walk_stmt(&(tlc_visitor){.ctx = st, .stmt_pre = collect_op, .stmt_post = collect_post}, s);
	return st->errors ? -1 : 0;
}

/* ---- proposals ---- */

void li_propose(li_proposals *p, li_buf *b, const tlc_layout *l, bool strict, const char *who)
{
	if (!l)
		return;
	p->items = tlc_mem_grow(p->items, p->n, &p->cap, sizeof(li_proposal));
	p->items[p->n++] = (li_proposal){b, l, strict, who};
}

void li_strict(li_state *st, li_op *op, li_proposals *out)
{
	if (op->kind == LI_GEMM) {
		li_propose(out, li_buf_of(st, op->g.C), op->plan.c_frag, true, op->who);
		if (op->g.A->scope == TLC_SCOPE_FRAGMENT) {
			if (op->g.trans_A) {
				tlc_error(st->ctx, op->s->loc, "T.gemm: a fragment A operand cannot be transposed (transpose_A)");
				st->errors++;
				return;
			}
			if (!op->plan.a_frag) {
				tlc_error(st->ctx, op->s->loc, "T.gemm: no layout for fragment A: %s",
				          op->plan.a_why ? op->plan.a_why : "?");
				st->errors++;
				return;
			}
			li_propose(out, li_buf_of(st, op->g.A), op->plan.a_frag, true, op->who);
		}
	}
	if (op->kind == LI_NEST && op->loop_given)
		for (int i = 0; i < op->nacc; i++)
			if (op->acc[i].regular && op->acc[i].nkeep == op->ndim)
				li_propose(out, op->acc[i].b, op->loop, false, op->who);
}

/* The layout of an access that keeps loop dimensions keep[]: the loop
 * layout with every other dimension projected away (highest first). */
static const tlc_layout *projected(li_state *st, const tlc_layout *loop, const li_access *a, int ndim)
{
	const tlc_layout *l = loop;
	for (int d = ndim - 1; d >= 0; d--) {
		bool kept = false;
		for (int k = 0; k < a->nkeep; k++)
			kept |= a->keep[k] == d;
		if (!kept)
			l = tlc_fragment_project(st->m, l, d);
	}
	return l;
}

/* Whether b is the result of a reduction: its layout is the projection of
 * the reduction's source (lower-tile-ops can lower nothing else), which the
 * reduction proposes; a nest that reads it elsewhere has it staged.  A view
 * and its fragment are one storage: either being the result counts. */
static bool reduction_result(const li_state *st, const li_buf *b)
{
	for (int i = 0; i < st->nops; i++)
		if (st->ops[i].kind == LI_REDUCE && li_root(st->ops[i].dst) == li_root(b))
			return true;
	return false;
}

/* Whether an op other than `self` writes b: a nest or tile copy storing
 * into it (or into a view of the same fragment), or a reduction into it. */
static bool written_elsewhere(const li_state *st, const li_op *self, const li_buf *b)
{
	for (int i = 0; i < st->nops; i++) {
		const li_op *op = &st->ops[i];
		if (op == self)
			continue;
		if (op->kind == LI_REDUCE && li_root(op->dst) == li_root(b))
			return true;
		for (int k = 0; op->kind == LI_NEST && k < op->nacc; k++)
			if (li_root(op->acc[k].b) == li_root(b) && op->acc[k].write)
				return true;
	}
	return false;
}

bool li_common(li_state *st, li_op *op, li_proposals *out, bool readers)
{
	bool changed = false;
	if (op->kind == LI_REDUCE) {
		if (op->src->layout)
			li_propose(out, op->dst, tlc_fragment_project(st->m, op->src->layout, op->dim), false, op->who);
		return false;
	}
	if (op->kind != LI_NEST)
		return false;
	if (!op->loop) {
		/* the loop follows a fragment it accesses whole: a written one
		 * first, then the least replicated, then the smallest in the total
		 * order, so that the choice does not depend on access order */
		const tlc_layout *best = NULL;
		bool best_w = false;
		for (int i = 0; i < op->nacc; i++) {
			const li_access *a = &op->acc[i];
			const tlc_layout *l = a->b->layout;
			if (!a->regular || a->nkeep != op->ndim || !l)
				continue;
			bool better = !best || (a->write && !best_w) ||
			              (a->write == best_w && (l->replicate < best->replicate ||
			                                      (l->replicate == best->replicate && li_layout_cmp(l, best) < 0)));
			if (better) {
				best = l;
				best_w = a->write;
			}
		}
		if (!best)
			return false;
		op->loop = best;
		changed = true;
	}
	for (int i = 0; i < op->nacc; i++) {
		const li_access *a = &op->acc[i];
		if (!a->regular || a->b->layout || reduction_result(st, a->b))
			continue;
		/* a fragment another op writes takes its layout from that writer
		 * (whose loop must hold what it stores; a reader can stage), once
		 * the writer knows its loop: readers propose only when no writer
		 * can (the per-row scale a 1-D loop computes from a reduction's
		 * result, read by the 2-D loop that applies it) */
		if (!a->write && !readers && written_elsewhere(st, op, a->b))
			continue;
		li_propose(out, a->b, projected(st, op->loop, a, op->ndim), false, op->who);
	}
	return changed;
}

/* The free partition of a shape over the op's threads: the target's
 * vectors (tlc_target_partition), bound to the op's first thread. */
static const tlc_layout *free_partition(li_state *st, int ndim, const int64_t *shape, int elem_bytes, const li_op *op)
{
	const tlc_layout *l = tlc_target_partition(st->m, ndim, shape, op->threads, elem_bytes, NULL);
	return l && op->thread_lo ? tlc_fragment_rebind(st->m, l, op->thread_lo) : l;
}

int li_free_rank(const li_state *st, const li_op *op)
{
	(void)st;
	if (op->kind == LI_REDUCE && !op->src->layout)
		return op->src->buf->ndim;
	if (op->kind == LI_NEST && !op->loop)
		return op->ndim;
	return 0;
}

bool li_free(li_state *st, li_op *op, li_proposals *out)
{
	if (op->kind == LI_REDUCE && !op->src->layout) {
		const tlc_buffer *b = op->src->buf;
		int64_t shape[LI_MAX_DIMS];
		for (int d = 0; d < b->ndim && d < LI_MAX_DIMS; d++)
			if (!tlc_expr_as_int(b->shape[d], &shape[d]))
				return false;
		li_propose(out, op->src, free_partition(st, b->ndim, shape, tlc_dtype_bits(b->dtype) / 8, op), false,
		           op->who);
		return false;
	}
	if (op->kind != LI_NEST || op->loop)
		return false;
	bool whole = false;
	for (int i = 0; i < op->nacc; i++)
		if (op->acc[i].regular && op->acc[i].nkeep == op->ndim) {
			whole = true;
			/* the result of a reduction gets the projection of its source,
			 * not a layout of its own */
			if (reduction_result(st, op->acc[i].b))
				continue;
			/* depends on the fragment alone, so two nests propose the same */
			const tlc_buffer *b = op->acc[i].b->buf;
			li_propose(out, op->acc[i].b,
			           free_partition(st, op->ndim, op->shape, tlc_dtype_bits(b->dtype) / 8, op), false,
			           op->who);
		}
	if (whole)
		return false;
	op->loop = free_partition(st, op->ndim, op->shape, op->vec_bytes, op);
	return op->loop != NULL;
}

static int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

int li_layout_cmp(const tlc_layout *a, const tlc_layout *b)
{
	int c;
	if ((c = cmp_i64(a->thread_lo, b->thread_lo)) || (c = cmp_i64(a->threads, b->threads)) ||
	    (c = cmp_i64(a->ndigits, b->ndigits)))
		return c;
	for (int i = 0; i < a->ndigits; i++) {
		const tlc_frag_digit *x = &a->digits[i], *y = &b->digits[i];
		if ((c = cmp_i64(x->radix, y->radix)) || (c = cmp_i64(x->dim, y->dim)) || (c = cmp_i64(x->stride, y->stride)) ||
		    (c = cmp_i64(x->is_thread, y->is_thread)) || (c = cmp_i64(x->weight, y->weight)))
			return c;
	}
	return 0;
}
