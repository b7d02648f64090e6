/* lower_parallel.c - a T.Parallel nest through its thread mapping.
 *
 * With loop layout L (a fragment over the nest's iteration space, bound to
 * threads [lo, lo + n)), thread t = tid - lo runs
 *
 *     for r in T.unroll(registers of L):
 *         i, j, ... = the logical index L maps to (t, r)
 *         body
 *
 * A fragment P accessed in the body at (some of) the loop variables must hold
 * that element in thread t; its register index is then a function of r alone
 * (so registers stay registers after unrolling).  Both facts are read off the
 * digits of L and P: every digit of P is made of digits of L of the same
 * kind (thread or register), nested the same way; the loop's thread digits on
 * dimensions P does not have are replication digits of P.
 *
 * A fragment the nest only reads, at elements its threads do not hold (the
 * copy of an MFMA accumulator into the A operand of the next gemm, whose
 * fragment holds the transposed pattern; a loop over a tile reading values
 * of a row another thread holds), is staged through shared memory: before
 * the nest, the threads that hold P write it to a shared buffer through P's
 * own layout (one replica each), and the nest reads that buffer (sync-insert
 * puts the barrier between).  A fragment the nest writes at elements its
 * threads do not hold (a row of a 2-D fragment written from a 1-D one, as
 * T.copy into a part of a fragment does) is staged both ways: its shared
 * copy is filled first, the nest reads and writes the copy, and after it
 * every thread that holds P reloads its registers from the copy.  Anything
 * else is an error naming the fragment, never a guess. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/walk.h>

#include "lower.h"

typedef struct nest {
	int ndim;
	tlc_var *vars[LW_MAX_DIMS];
	int64_t mins[LW_MAX_DIMS];
	int64_t shape[LW_MAX_DIMS];
	tlc_stmt *body;
	const tlc_layout *loop;
	const tlc_expr *t;   /* thread id relative to the loop's range */
	const tlc_expr *r;   /* register counter */
	int max_bytes;
} nest;

static const tlc_expr *ci(lw_state *st, int64_t v) { return tlc_i32(st->m, v); }
static const tlc_expr *bin(lw_state *st, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b)
{
	return tlc_binary(st->m, k, a, b);
}

const tlc_expr *lw_digit_value(lw_state *st, const tlc_expr *x, int64_t w, int64_t radix, int64_t extent)
{
	if (w > 1)
		x = bin(st, TLC_EXPR_FLOORDIV, x, ci(st, w));
	if (w * radix < extent)
		x = bin(st, TLC_EXPR_FLOORMOD, x, ci(st, radix));
	return x;
}

const tlc_expr *lw_frag_register(lw_state *st, const tlc_layout *L, const tlc_expr *r, const tlc_layout *P,
                                 const int *keep, int nkeep, const char **why)
{
	if (P->kind != TLC_LAYOUT_FRAGMENT || P->ndim != nkeep) {
		*why = "its layout is not a fragment of that rank";
		return NULL;
	}
	if (P->thread_lo != L->thread_lo || P->threads != L->threads) {
		*why = "it is bound to other threads than the loop";
		return NULL;
	}
	int64_t nregs_L = L->out_shape[0];
	const tlc_expr *reg = ci(st, 0);
	bool used[TLC_FRAGMENT_MAX_DIGITS] = {false};
	for (int q = 0; q < P->ndigits; q++) {
		const tlc_frag_digit *pd = &P->digits[q];
		if (pd->dim < 0)
			continue; /* replication: checked below */
		int ldim = keep[pd->dim];
		int64_t lo = pd->stride, hi = pd->stride * pd->radix;
		const tlc_expr *val = ci(st, 0);
		for (int k = 0; k < L->ndigits; k++) {
			const tlc_frag_digit *ld = &L->digits[k];
			if (ld->dim != ldim || ld->stride < lo || ld->stride >= hi)
				continue;
			if (ld->stride % lo || ld->stride * ld->radix > hi || ld->is_thread != pd->is_thread) {
				*why = "its digits do not line up with the loop's";
				return NULL;
			}
			used[k] = true;
			if (pd->is_thread) {
				/* the same thread digit, at the weight P expects */
				if (ld->weight != pd->weight * (ld->stride / lo)) {
					*why = "another thread holds the element";
					return NULL;
				}
				continue;
			}
			const tlc_expr *term = lw_digit_value(st, r, ld->weight, ld->radix, nregs_L);
			if (ld->stride / lo > 1)
				term = bin(st, TLC_EXPR_MUL, term, ci(st, ld->stride / lo));
			val = bin(st, TLC_EXPR_ADD, val, term);
		}
		if (!pd->is_thread)
			reg = bin(st, TLC_EXPR_ADD, reg, pd->weight > 1 ? bin(st, TLC_EXPR_MUL, val, ci(st, pd->weight)) : val);
	}
	/* the loop's other thread digits (dimensions P lacks, or replication of
	 * the loop) must be replication in P: every such thread holds it too */
	for (int k = 0; k < L->ndigits; k++) {
		const tlc_frag_digit *ld = &L->digits[k];
		if (used[k])
			continue;
		bool kept = false;
		for (int d = 0; d < nkeep; d++)
			kept |= ld->dim == keep[d];
		if (kept) {
			*why = "its digits do not cover the loop's";
			return NULL;
		}
		if (!ld->is_thread)
			continue; /* a register digit of a dimension P lacks: P's value is reused */
		bool inside = false;
		for (int q = 0; q < P->ndigits && !inside; q++) {
			const tlc_frag_digit *pd = &P->digits[q];
			inside = pd->is_thread && pd->dim < 0 && ld->weight % pd->weight == 0 &&
			         ld->weight * ld->radix <= pd->weight * pd->radix;
		}
		if (!inside) {
			*why = "threads of the loop that do not hold it would write it";
			return NULL;
		}
	}
	return tlc_simplify_expr(st->m, reg);
}

/* ---- rewriting the body ----
 *
 * A tlc_rewriter over the body, in place: fragment accesses become register
 * indices, and loop variables whose value is a constant (extent-1
 * dimensions) are substituted (tlc_rewriter_map_var), since a constant
 * `x = 0` reads back as a compile-time Python binding, not as IR. */

typedef struct body_rewrite {
	lw_state *st;
	const nest *n;
	const tlc_expr *first_replica; /* the condition atomics run under, or NULL */
	tlc_loc loc;                   /* of the statement rewritten, for messages */
	bool failed;
} body_rewrite;

/* True when every thread of the nest holds every element of fragment
 * layout P: P replicates each element over all its threads, and the loop's
 * threads are among them.  (A row total reduced on 4 threads is replicated
 * over those 4; a nest over 256 threads must not read it from registers the
 * other 252 never wrote.) */
static bool holds_everything(const nest *n, const tlc_layout *P)
{
	return P->replicate == P->threads && n->loop->thread_lo >= P->thread_lo &&
	       n->loop->thread_lo + n->loop->threads <= P->thread_lo + P->threads;
}

/* True when fragment b is indexed by the nest's own loop variables, one per
 * dimension, in the loop's order; keep[d] is then the loop dimension of b's
 * dimension d. */
static bool loop_dims(const nest *n, const tlc_buffer *b, int ni, const tlc_expr *const *idx, int *keep)
{
	if (ni != b->ndim)
		return false;
	for (int d = 0; d < ni; d++) {
		keep[d] = -1;
		for (int j = 0; j < n->ndim; j++)
			if (idx[d]->kind == TLC_EXPR_VAR && idx[d]->u.var == n->vars[j])
				keep[d] = j;
		if (keep[d] <= (d ? keep[d - 1] : -1))
			return false;
	}
	return true;
}

/* The register of fragment buffer b at idx inside the nest. */
static const tlc_expr *frag_index(tlc_rewriter *rw, tlc_buffer *b, int ni,
                                  const tlc_expr *const *idx)
{
	body_rewrite *w = rw->ctx;
	lw_state *st = w->st;
	const char *why = "it has no layout";
	int keep[LW_MAX_DIMS];
	if (loop_dims(w->n, b, ni, idx, keep)) {
		/* the loop indexes it beyond its shape: the frontend gives such a
		 * fragment the loop's extent (core/fragment_extent.c) unless a tile
		 * op or a view uses it whole, as here */
		for (int d = 0; d < ni; d++) {
			int64_t ext;
			const nest *n = w->n;
			if (!tlc_expr_as_int(b->shape[d], &ext) || n->mins[keep[d]] + n->shape[keep[d]] <= ext)
				continue;
			if (!w->failed)
				lw_error(st, w->loc,
				         "fragment '%s' of extent %lld along dimension %d is indexed with %s in [%lld, %lld) by "
				         "this T.Parallel loop, beyond its shape; tlc gives such a fragment the loop's extent "
				         "only when it is used element by element, and a tile op or a view uses it whole: "
				         "declare it with the loop's extent (%lld along dimension %d)",
				         b->name, (long long)ext, d, n->vars[keep[d]]->name, (long long)n->mins[keep[d]],
				         (long long)(n->mins[keep[d]] + n->shape[keep[d]]),
				         (long long)(n->mins[keep[d]] + n->shape[keep[d]]), d);
			w->failed = true;
			return ci(st, 0);
		}
	}
	if (b->layout) {
		if (loop_dims(w->n, b, ni, idx, keep)) {
			const tlc_expr *r = lw_frag_register(st, w->n->loop, w->n->r, b->layout, keep, ni, &why);
			if (r)
				return r;
		} else if (holds_everything(w->n, b->layout)) {
			/* every thread holds every element: any index works */
			const tlc_expr *v[LW_MAX_DIMS];
			for (int d = 0; d < ni && d < LW_MAX_DIMS; d++)
				v[d] = tlc_expr_rewrite(rw, idx[d]);
			return tlc_layout_apply(st->m, b->layout, ni, v);
		} else {
			why = "it is indexed by something other than the loop variables, in order";
		}
	}
	if (!w->failed)
		lw_error(st, w->loc, "fragment '%s' cannot be accessed in this T.Parallel loop: %s", b->name, why);
	w->failed = true;
	return ci(st, 0);
}

/* A fragment load reads a register; it is read off the nest's own loop
 * variables, so before they are substituted. */
static const tlc_expr *rewrite_load(tlc_rewriter *rw, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_LOAD || e->u.load.buf->scope != TLC_SCOPE_FRAGMENT)
		return NULL;
	const tlc_expr *r = frag_index(rw, e->u.load.buf, e->u.load.n, e->u.load.idx);
	return tlc_load(rw->m, e->u.load.buf, 1, &r);
}

/* A store into memory (not registers): replicas of the loop would repeat it. */
static bool stores_memory(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_STORE && s->u.store.buf->scope != TLC_SCOPE_FRAGMENT &&
	       s->u.store.buf->scope != TLC_SCOPE_LOCAL && s->u.store.buf->scope != TLC_SCOPE_VAR;
}

/* True for T.fill / T.clear of a whole per-thread buffer (T.alloc_local,
 * T.alloc_var), which needs no threads of its own. */
static bool is_local_fill(const tlc_stmt *s)
{
	const tlc_expr *dst = s->u.eval.call->u.call.nargs ? s->u.eval.call->u.call.args[0] : NULL;
	const tlc_buffer *b = !dst                              ? NULL
	                      : dst->kind == TLC_EXPR_BUF    ? dst->u.buf
	                      : dst->kind == TLC_EXPR_REGION ? dst->u.region.buf
	                                                     : NULL;
	return b && (b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR);
}

static tlc_stmt *rewrite_pre(tlc_rewriter *rw, tlc_stmt *s)
{
	body_rewrite *w = rw->ctx;
	lw_state *st = w->st;
	w->loc = s->loc;
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL) {
		lw_error(st, s->loc, "a T.Parallel loop inside another one must be directly nested (for i, j in T.Parallel(a, b))");
		return s;
	}
	if ((tlc_stmt_is_call(s, TLC_OP_FILL) || tlc_stmt_is_call(s, TLC_OP_CLEAR)) && is_local_fill(s)) {
		/* T.clear / T.fill of the thread's own T.alloc_local buffer in the
		 * body: every element, by the thread running the iteration */
		tlc_stmt *low = lw_expand_fill(st, s, tlc_stmt_is_call(s, TLC_OP_CLEAR));
		return low ? tlc_stmt_rewrite(rw, low) : s;
	}
	if (s->kind != TLC_STMT_STORE)
		return NULL;
	/* the stored value before the destination: of two bad fragment
	 * accesses in one store, the message names the one read */
	tlc_buffer *b = s->u.store.buf;
	const tlc_expr *v = tlc_expr_rewrite(rw, s->u.store.value);
	if (b->scope == TLC_SCOPE_FRAGMENT) {
		const tlc_expr *r = frag_index(rw, b, s->u.store.n, s->u.store.idx);
		return tlc_store_new(st->m, s->loc, b, 1, &r, v);
	}
	for (int i = 0; i < s->u.store.n; i++)
		s->u.store.idx[i] = tlc_expr_rewrite(rw, s->u.store.idx[i]);
	s->u.store.value = v;
	/* the statement returned here is not passed to rewrite_post: a store
	 * to memory is made by the first replica of a replicated loop only
	 * (T.copy of a reduced row into shared memory, a staged fragment's
	 * copy), or every replica writes the element, a race (the same value,
	 * but two unordered writes) */
	if (w->first_replica && stores_memory(s))
		return tlc_if_new(st->m, s->loc, w->first_replica, s, NULL);
	return s;
}

/* True for an atomic (a write other replicas of the loop must not repeat). */
static bool is_atomic(const tlc_stmt *s)
{
	return tlc_stmt_is_call(s, TLC_OP_ATOMIC_ADD) || tlc_stmt_is_call(s, TLC_OP_ATOMIC_MAX) ||
	       tlc_stmt_is_call(s, TLC_OP_ATOMIC_MIN);
}

static tlc_stmt *rewrite_post(tlc_rewriter *rw, tlc_stmt *s)
{
	body_rewrite *w = rw->ctx;
	if (w->first_replica && is_atomic(s) && tlc_call_kw(s->u.eval.call, "old") && !w->failed) {
		/* the other replicas would read a previous value they never got */
		lw_error(w->st, s->loc, "T.%s(return_prev=True) in a T.Parallel loop whose iterations are "
		         "replicated over threads: only one replica runs the atomic, the others would not "
		         "have its value; use a loop whose layout runs each iteration on one thread, or "
		         "T.serial", tlc_op_get(tlc_module_context(w->st->m), s->u.eval.call->u.call.op)->name);
		w->failed = true;
	}
	if (w->first_replica && (is_atomic(s) || stores_memory(s)))
		return tlc_if_new(w->st->m, s->loc, w->first_replica, s, NULL);
	return NULL;
}

/* ---- the nest ---- */

/* The widest element a nest moves: what it stores, and what its stored
 * values and calls load (indices are addresses: their loads do not count). */
static tlc_walk_action widest_load(void *p, const tlc_expr *e)
{
	int *bytes = p;
	if (e->kind == TLC_EXPR_REGION)
		return TLC_WALK_SKIP; /* a tile, not an element */
	if (e->kind != TLC_EXPR_LOAD)
		return TLC_WALK_CONTINUE;
	int b = tlc_dtype_bits(e->u.load.buf->dtype) / 8;
	if (b > *bytes)
		*bytes = b;
	return TLC_WALK_SKIP;
}

static tlc_walk_action widest_access(void *p, const tlc_stmt *s)
{
	int *bytes = p;
	const tlc_visitor loads = {.ctx = bytes, .expr_pre = widest_load};
	if (s->kind == TLC_STMT_STORE) {
		int b = tlc_dtype_bits(s->u.store.buf->dtype) / 8;
		if (b > *bytes)
			*bytes = b;
		tlc_walk_expr(&loads, s->u.store.value);
	} else if (s->kind == TLC_STMT_EVAL) {
		tlc_walk_expr(&loads, s->u.eval.call);
	}
	return TLC_WALK_CONTINUE;
}

static bool read_nest(lw_state *st, tlc_stmt *s, nest *n)
{
	const tlc_stmt *loop = s;
	for (;;) {
		if (n->ndim == LW_MAX_DIMS) {
			lw_error(st, s->loc, "T.Parallel nests deeper than 8 loops are not supported");
			return false;
		}
		if (!tlc_expr_as_int(loop->u.loop.min, &n->mins[n->ndim]) ||
		    !tlc_expr_as_int(loop->u.loop.extent, &n->shape[n->ndim]) || n->shape[n->ndim] <= 0) {
			lw_error(st, loop->loc, "the extents of a T.Parallel loop must be positive compile-time constants");
			return false;
		}
		n->vars[n->ndim++] = loop->u.loop.var;
		n->body = loop->u.loop.body;
		const tlc_stmt *b = n->body;
		if (b && b->kind == TLC_STMT_SEQ && b->u.seq.n == 1)
			b = b->u.seq.items[0];
		if (!(b && b->kind == TLC_STMT_FOR && b->u.loop.kind == TLC_FOR_PARALLEL))
			return true;
		loop = b;
	}
}

/* A partition for a nest layout-inference left alone (no fragments): the
 * target's vectors of its widest element (tlc_target_partition). */
/* A loop that layout inference left free (a copy without fragments) is
 * spread over the threads that run it: the block's, or inside T.ws those
 * of its warpgroups (the others never get there). */
static const tlc_layout *own_partition(lw_state *st, const nest *n)
{
	const char *why = NULL;
	int64_t threads = st->op_threads ? st->op_threads : st->threads;
	const tlc_layout *l = tlc_target_partition(st->m, n->ndim, n->shape, threads, n->max_bytes, &why);
	if (!l)
		lw_error(st, n->body ? n->body->loc : st->f->loc, "no thread partition for this T.Parallel loop: %s", why);
	else if (st->op_lo)
		l = tlc_fragment_rebind(st->m, l, st->op_lo);
	return l;
}

/* ---- fragments staged through shared memory ---- */

typedef struct frag_uses {
	int n;
	tlc_buffer *bufs[16];
	bool written[16];
} frag_uses;

static void note_fragment(frag_uses *u, tlc_buffer *b, bool write)
{
	for (int i = 0; i < u->n; i++)
		if (u->bufs[i] == b) {
			u->written[i] |= write;
			return;
		}
	if (u->n < 16) {
		u->bufs[u->n] = b;
		u->written[u->n++] = write;
	}
}

static tlc_walk_action fragment_load(void *p, const tlc_expr *e)
{
	if (e->kind == TLC_EXPR_LOAD && e->u.load.buf->scope == TLC_SCOPE_FRAGMENT)
		note_fragment(p, e->u.load.buf, false);
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action fragment_store(void *p, const tlc_stmt *s)
{
	if (s->kind == TLC_STMT_STORE && s->u.store.buf->scope == TLC_SCOPE_FRAGMENT)
		note_fragment(p, s->u.store.buf, true);
	return TLC_WALK_CONTINUE;
}

/* True when every load of P in the body is at the nest's own variables, in
 * order, at elements the loop's threads hold. */
typedef struct held_check {
	lw_state *st;
	const nest *n;
	const tlc_buffer *P;
	bool held;
} held_check;

static bool held_at(held_check *h, int ni, const tlc_expr *const *idx)
{
	int keep[LW_MAX_DIMS];
	const char *why = NULL;
	return loop_dims(h->n, h->P, ni, idx, keep) &&
	       lw_frag_register(h->st, h->n->loop, ci(h->st, 0), h->P->layout, keep, ni, &why);
}

static tlc_walk_action check_held(void *p, const tlc_expr *e)
{
	held_check *h = p;
	if (e->kind == TLC_EXPR_LOAD && e->u.load.buf == h->P && h->held)
		h->held = held_at(h, e->u.load.n, e->u.load.idx);
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action check_held_store(void *p, const tlc_stmt *s)
{
	held_check *h = p;
	if (s->kind == TLC_STMT_STORE && s->u.store.buf == h->P && h->held)
		h->held = held_at(h, s->u.store.n, s->u.store.idx);
	return TLC_WALK_CONTINUE;
}

typedef struct stage_map {
	const tlc_buffer *P;
	tlc_buffer *S;
	const int64_t *shape;
} stage_map;

/* The row-major offset of idx in a buffer of `shape`. */
static const tlc_expr *flat_index(tlc_module *m, int nd, const int64_t *shape, const tlc_expr *const *idx)
{
	const tlc_expr *flat = idx[0];
	for (int d = 1; d < nd; d++)
		flat = tlc_binary(m, TLC_EXPR_ADD, tlc_binary(m, TLC_EXPR_MUL, flat, tlc_i32(m, shape[d])), idx[d]);
	return flat;
}

/* A store into P becomes a store into its shared copy. */
static tlc_stmt *write_staged(tlc_rewriter *rw, tlc_stmt *s)
{
	stage_map *sm = rw->ctx;
	if (s->kind != TLC_STMT_STORE || s->u.store.buf != sm->P)
		return NULL;
	const tlc_expr *flat = tlc_simplify_expr(rw->m, flat_index(rw->m, s->u.store.n, sm->shape, s->u.store.idx));
	return tlc_store_new(rw->m, s->loc, sm->S, 1, &flat, s->u.store.value);
}

static const tlc_expr *read_staged(tlc_rewriter *rw, const tlc_expr *e)
{
	stage_map *sm = rw->ctx;
	if (e->kind != TLC_EXPR_LOAD || e->u.load.buf != sm->P)
		return NULL;
	const tlc_expr *idx[LW_MAX_DIMS];
	for (int d = 0; d < e->u.load.n; d++)
		idx[d] = tlc_expr_rewrite(rw, e->u.load.idx[d]);
	const tlc_expr *flat = tlc_simplify_expr(rw->m, flat_index(rw->m, e->u.load.n, sm->shape, idx));
	return tlc_load(rw->m, sm->S, 1, &flat);
}

tlc_buffer *lw_stage_copy(lw_state *st, tlc_buffer *P, tlc_stmt *out, tlc_loc loc, const int64_t **shape_out)
{
	int64_t *shape = tlc_alloc(st->m, sizeof(int64_t) * LW_MAX_DIMS), numel = 1;
	for (int d = 0; d < P->ndim; d++) {
		if (d >= LW_MAX_DIMS || !tlc_expr_as_int(P->shape[d], &shape[d]))
			return NULL; /* fragments have constant shapes: frag_index reports it */
		numel *= shape[d];
	}
	/* one shared copy per fragment, whichever nests stage it */
	tlc_buffer *S = NULL;
	for (int i = 0; i < st->nstaged && !S; i++)
		if (st->staged_from[i] == P)
			S = st->staged_to[i];
	if (!S) {
		if (st->nstaged == LW_MAX_STAGED) {
			lw_error(st, loc, "fragment '%s' needs staging through shared memory, and %d fragments of this kernel "
			         "already are", P->name, LW_MAX_STAGED);
			return NULL;
		}
		char name[64];
		snprintf(name, sizeof name, "%s_staged", P->name);
		const tlc_expr *size = ci(st, numel);
		S = tlc_buffer_new(st->m, name, P->dtype, TLC_SCOPE_SHARED_DYN, 1, &size, loc);
		st->staged_from[st->nstaged] = P;
		st->staged_to[st->nstaged++] = S;
	}
	/* for v.. in T.Parallel(P's shape, loop_layout = P's layout): S[flat(v)] = P[v] */
	tlc_var *v[LW_MAX_DIMS];
	const tlc_expr *vr[LW_MAX_DIMS];
	for (int d = 0; d < P->ndim; d++) {
		v[d] = lw_fresh(st, "s");
		vr[d] = tlc_var_ref(st->m, v[d]);
	}
	const tlc_expr *flat = flat_index(st->m, P->ndim, shape, vr);
	tlc_stmt *body = tlc_store_new(st->m, loc, S, 1, &flat, tlc_load(st->m, P, P->ndim, vr));
	for (int d = P->ndim - 1; d >= 0; d--)
		body = tlc_for_new(st->m, loc, v[d], ci(st, 0), ci(st, shape[d]), TLC_FOR_PARALLEL, body);
	body->u.loop.loop_layout = tlc_layout_to_expr(st->m, P->layout);
	tlc_seq_append(st->m, out, lw_lower_nest(st, body));
	*shape_out = shape;
	return S;
}

/* Stage fragment P: append the nest that fills its shared copy to out (the
 * copy's allocation goes to the top of the kernel: lw_alloc_staged), and
 * make the body read the copy.  When the body writes P too, it writes the
 * copy, and the nest that reloads P from it goes to post. */
static void stage_fragment(lw_state *st, nest *n, tlc_buffer *P, bool written, tlc_stmt *out, tlc_stmt *post,
                           tlc_loc loc)
{
	const int64_t *shape = NULL;
	tlc_buffer *S = lw_stage_copy(st, P, out, loc, &shape);
	if (!S)
		return;
	stage_map sm = {P, S, shape};
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, st->m);
	rw.ctx = &sm;
	rw.expr_pre = read_staged;
	if (written)
		rw.stmt_post = write_staged;
	n->body = tlc_stmt_rewrite(&rw, n->body);
	tlc_rewriter_free(&rw);
	if (!written)
		return;
	/* for v.. in T.Parallel(P's shape, loop_layout = P's layout): P[v] = S[flat(v)] */
	tlc_var *v[LW_MAX_DIMS];
	const tlc_expr *vr[LW_MAX_DIMS];
	for (int d = 0; d < P->ndim; d++) {
		v[d] = lw_fresh(st, "s");
		vr[d] = tlc_var_ref(st->m, v[d]);
	}
	const tlc_expr *flat = flat_index(st->m, P->ndim, shape, vr);
	tlc_stmt *body = tlc_store_new(st->m, loc, P, P->ndim, vr, tlc_load(st->m, S, 1, &flat));
	for (int d = P->ndim - 1; d >= 0; d--)
		body = tlc_for_new(st->m, loc, v[d], ci(st, 0), ci(st, shape[d]), TLC_FOR_PARALLEL, body);
	body->u.loop.loop_layout = tlc_layout_to_expr(st->m, P->layout);
	tlc_seq_append(st->m, post, lw_lower_nest(st, body));
}

/* Stage every fragment the nest reads or writes at elements its threads do
 * not hold; the staging statements go to out, the reloads of fragments
 * written through their copies to post.  The nest's own loops keep pointing
 * at the rewritten body (n->body).  True when some fragment is written
 * through its copy (the nest then stores shared memory). */
static bool stage_foreign_fragments(lw_state *st, nest *n, tlc_stmt *out, tlc_stmt *post, tlc_loc loc)
{
	frag_uses u = {0};
	bool through = false;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &u, .expr_pre = fragment_load, .stmt_pre = fragment_store}, n->body);
	for (int i = 0; i < u.n; i++) {
		tlc_buffer *P = u.bufs[i];
		if (!P->layout || P->layout->kind != TLC_LAYOUT_FRAGMENT || holds_everything(n, P->layout))
			continue;
		held_check h = {st, n, P, true};
		tlc_walk_stmt(&(tlc_visitor){.ctx = &h, .expr_pre = check_held,
		                             .stmt_pre = u.written[i] ? check_held_store : NULL},
		              n->body);
		if (!h.held)
			stage_fragment(st, n, P, u.written[i], out, post, loc);
		through |= !h.held && u.written[i];
	}
	return through;
}

/* ---- shared buffers each thread reads back only where it wrote ----
 *
 * `X[i, j] = X[i, j] * c; Y[i, j] = X[i, j] + ...` in one T.Parallel nest
 * (TileLang accepts it), or a row per iteration written and read at columns
 * the data chooses (`X[i, cnt[0]] = v` inside the body's own loops and ifs):
 * every access of X has, in the same dimensions, the same index naming the
 * iteration (each a distinct loop variable plus a constant, every variable
 * with more than one value among them), whatever its other indices are, and
 * every iteration runs on one thread (a loop layout without replication), so
 * no thread reads or overwrites an element another thread touches in the
 * nest.  Such buffers are listed in the nest's attribute
 * (`T.attr("parallel_nest", [X])`) so that sync-insert does not ask for a
 * barrier between their accesses inside it. */

typedef struct private_scan {
	const nest *n;
	const tlc_buffer *b;
	const tlc_expr *const *idx; /* the first access's index */
	bool key[LW_MAX_DIMS];      /* its dimensions that name the iteration */
	bool ok, read, write;
} private_scan;

static bool same_index(private_scan *c, int k, const tlc_expr *const *idx)
{
	if (k != c->b->ndim || k > LW_MAX_DIMS)
		return false;
	if (!c->idx) {
		/* the first access: which of its dimensions name the iteration? */
		bool used[LW_MAX_DIMS] = {false};
		for (int d = 0; d < k; d++) {
			const tlc_expr *x = idx[d];
			if (x->kind == TLC_EXPR_ADD && x->u.op.b->kind == TLC_EXPR_INT)
				x = x->u.op.a;
			int v = -1;
			for (int q = 0; x->kind == TLC_EXPR_VAR && q < c->n->ndim; q++)
				if (c->n->vars[q] == x->u.var)
					v = q;
			if (v >= 0 && !used[v])
				used[v] = c->key[d] = true;
		}
		for (int q = 0; q < c->n->ndim; q++)
			if (!used[q] && c->n->shape[q] > 1)
				return false;
		c->idx = idx;
		return true;
	}
	for (int d = 0; d < k; d++)
		if (c->key[d] && idx[d] != c->idx[d])
			return false;
	return true;
}

static tlc_walk_action private_expr(void *p, const tlc_expr *x)
{
	private_scan *c = p;
	const tlc_buffer *b = x->kind == TLC_EXPR_LOAD     ? x->u.load.buf
	                      : x->kind == TLC_EXPR_BUF    ? x->u.buf
	                      : x->kind == TLC_EXPR_REGION ? x->u.region.buf
	                                                   : NULL;
	if (!b || !tlc_buffers_share_memory(b, c->b))
		return TLC_WALK_CONTINUE;
	c->read = true;
	c->ok = c->ok && b == c->b && x->kind == TLC_EXPR_LOAD && same_index(c, x->u.load.n, x->u.load.idx);
	return c->ok ? TLC_WALK_CONTINUE : TLC_WALK_STOP;
}

static tlc_walk_action private_stmt(void *p, const tlc_stmt *s)
{
	private_scan *c = p;
	if (s->kind == TLC_STMT_STORE && tlc_buffers_share_memory(s->u.store.buf, c->b)) {
		c->write = true;
		c->ok = c->ok && s->u.store.buf == c->b && same_index(c, s->u.store.n, s->u.store.idx);
	} else if (s->kind == TLC_STMT_EVAL && (tlc_stmt_use_of(s, c->b) & TLC_ACCESS_WRITE)) {
		c->ok = false; /* written by an op: not element by element */
	}
	return c->ok ? TLC_WALK_CONTINUE : TLC_WALK_STOP;
}

typedef struct shared_stores {
	const tlc_buffer *b[16];
	int n;
} shared_stores;

static tlc_walk_action collect_shared_store(void *p, const tlc_stmt *s)
{
	shared_stores *c = p;
	if (s->kind != TLC_STMT_STORE || !tlc_buffer_in_shared(s->u.store.buf))
		return TLC_WALK_CONTINUE;
	for (int q = 0; q < c->n; q++)
		if (c->b[q] == s->u.store.buf)
			return TLC_WALK_CONTINUE;
	if (c->n < (int)(sizeof c->b / sizeof c->b[0]))
		c->b[c->n++] = s->u.store.buf;
	return TLC_WALK_CONTINUE;
}

/* The attribute value of the lowered nest: 1, or the list of its shared
 * buffers read back element by element (see above). */
static const tlc_expr *nest_private_buffers(lw_state *st, const nest *n)
{
	for (int k = 0; k < n->loop->ndigits; k++)
		if (n->loop->digits[k].dim < 0)
			return ci(st, 1); /* replicated: several threads run one iteration */
	/* candidates: the shared buffers the body stores into, at any depth */
	shared_stores cs = {.n = 0};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &cs, .stmt_pre = collect_shared_store}, n->body);
	const tlc_stmt *body = n->body;
	const tlc_buffer *const *cand = cs.b;
	int ncand = cs.n;
	const tlc_expr *items[16];
	int count = 0;
	for (int q = 0; q < ncand; q++) {
		private_scan c = {.n = n, .b = cand[q], .ok = true};
		tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = private_stmt, .expr_pre = private_expr}, body);
		if (c.ok && c.read && c.write)
			items[count++] = tlc_buf_ref(st->m, (tlc_buffer *)cand[q]);
	}
	return count ? tlc_tuple(st->m, count, items, true) : ci(st, 1);
}

tlc_stmt *lw_lower_nest(lw_state *st, tlc_stmt *s)
{
	nest n = {0};
	if (!read_nest(st, s, &n))
		return s;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &n.max_bytes, .stmt_pre = widest_access}, n.body);
	const char *why = NULL;
	if (s->u.loop.loop_layout) {
		n.loop = tlc_layout_from_expr(st->m, s->u.loop.loop_layout, &why);
		if (!n.loop) {
			lw_error(st, s->loc, "the loop_layout of this T.Parallel loop is not usable: %s", why);
			return s;
		}
	} else {
		n.loop = own_partition(st, &n);
		if (!n.loop)
			return s;
	}
	const tlc_layout *L = n.loop;
	bool same = L->kind == TLC_LAYOUT_FRAGMENT && L->ndim == n.ndim;
	for (int d = 0; same && d < n.ndim; d++)
		same = L->shape[d] == n.shape[d];
	if (!same) {
		lw_error(st, s->loc, "the loop_layout of this T.Parallel loop does not have the loop's shape");
		return s;
	}
	if (L->thread_lo < 0 || L->thread_lo + L->threads > st->threads) {
		lw_error(st, s->loc, "the loop_layout of this T.Parallel loop uses threads outside the block");
		return s;
	}
	tlc_loc loc = s->loc;
	const tlc_expr *private_bufs = nest_private_buffers(st, &n); /* before the body is rewritten */
	tlc_stmt *staged = tlc_seq_new(st->m, loc), *post = tlc_seq_new(st->m, loc);
	stage_foreign_fragments(st, &n, staged, post, loc);
	int64_t nregs = L->out_shape[0];
	/* one register: no loop, r is 0 */
	tlc_var *r = nregs > 1 ? lw_fresh(st, "r") : NULL;
	n.r = r ? tlc_var_ref(st->m, r) : ci(st, 0);
	n.t = L->thread_lo ? tlc_simplify_expr(st->m, bin(st, TLC_EXPR_SUB, st->tid, ci(st, L->thread_lo))) : st->tid;

	/* the logical index of (t, r) */
	const tlc_expr *idx[LW_MAX_DIMS];
	tlc_fragment_logical_of(st->m, L, n.t, n.r, idx);
	tlc_stmt *inner = tlc_seq_new(st->m, loc);
	int saved = st->ranges.n;
	body_rewrite w = {.st = st, .n = &n, .loc = loc};
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, st->m);
	rw.ctx = &w;
	rw.expr_pre = rewrite_load;
	rw.stmt_pre = rewrite_pre;
	rw.stmt_post = rewrite_post;
	for (int d = 0; d < n.ndim; d++) {
		const tlc_expr *v = n.mins[d] ? bin(st, TLC_EXPR_ADD, idx[d], ci(st, n.mins[d])) : idx[d];
		v = tlc_simplify_expr(st->m, v);
		/* a constant, or the register index itself (a let `j = r` would not
		 * print back as one: the frontend reads `j = r` as a new name) */
		if (v->kind == TLC_EXPR_INT || v->kind == TLC_EXPR_VAR) {
			tlc_rewriter_map_var(&rw, n.vars[d], v);
			continue;
		}
		tlc_seq_append(st->m, inner, tlc_let_new(st->m, loc, n.vars[d], v));
		tlc_ranges_push(&st->ranges, n.vars[d], n.mins[d], n.mins[d] + n.shape[d] - 1);
	}
	/* replicas of a replicated loop repeat the body; only the first does atomics */
	const tlc_expr *first = NULL;
	for (int k = 0; k < L->ndigits; k++) {
		const tlc_frag_digit *dg = &L->digits[k];
		if (!dg->is_thread || dg->dim >= 0)
			continue;
		const tlc_expr *c = bin(st, TLC_EXPR_EQ, lw_digit_value(st, n.t, dg->weight, dg->radix, L->threads), ci(st, 0));
		first = first ? bin(st, TLC_EXPR_AND, first, c) : c;
	}
	w.first_replica = first;
	tlc_stmt *body = tlc_stmt_rewrite(&rw, n.body);
	tlc_rewriter_free(&rw);
	st->ranges.n = saved;
	/* keep only the loop variables the body uses (a fill of a fragment
	 * needs none: its registers come from r) */
	int kept = 0;
	for (int i = 0; i < inner->u.seq.n; i++)
		if (lw_stmt_uses_var(body, inner->u.seq.items[i]->u.let.var))
			inner->u.seq.items[kept++] = inner->u.seq.items[i];
	int nlets = inner->u.seq.n = kept;
	tlc_seq_append(st->m, inner, body);

	bool j_is_let = false;
	for (int i = 0; i < nlets; i++)
		j_is_let |= inner->u.seq.items[i]->u.let.var == n.vars[n.ndim - 1];
	tlc_stmt *out = NULL;
	if (j_is_let && !w.failed && !first) {
		lw_nest_view view = {L, n.t, r, n.ndim, n.vars, n.mins};
		out = lw_stmatrix(st, &view, inner, nlets);
		if (!out)
			out = lw_vectorize(st, L, r, n.vars[n.ndim - 1], inner, nlets);
	}
	if (!out)
		out = r ? tlc_for_new(st->m, loc, r, ci(st, 0), ci(st, nregs), TLC_FOR_UNROLLED, inner) : inner;
	if (L->thread_lo > 0 || L->threads < st->threads) {
		const tlc_expr *c = bin(st, TLC_EXPR_LT, n.t, ci(st, L->threads));
		if (L->thread_lo > 0)
			c = bin(st, TLC_EXPR_AND, bin(st, TLC_EXPR_GE, st->tid, ci(st, L->thread_lo)), c);
		out = tlc_if_new(st->m, loc, c, out, NULL);
	}
	/* tells the target that threads diverge inside: no barrier may go there */
	out = tlc_attr_new(st->m, loc, tlc_intern(st->m, "parallel_nest"), private_bufs, out);
	if (!staged->u.seq.n)
		return out;
	tlc_seq_append(st->m, staged, out);
	for (int i = 0; i < post->u.seq.n; i++)
		tlc_seq_append(st->m, staged, post->u.seq.items[i]);
	return staged;
}
