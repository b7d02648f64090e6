/* sync_access.c - which shared buffers a statement reads and writes, and
 * when two sets of accesses need a barrier between them.
 *
 * Two shared buffers are the same memory when tlc_buffers_share_memory says
 * so (a T.view and its source, or overlapping bytes of the arena): a write
 * to one after a read of the other by another thread is a hazard like any
 * other.  libtlc's tlc_verify_barriers checks the result with the same
 * rules. */
#include <tlc/access.h>
#include <tlc/walk.h>
#include <string.h>

#include "sync_insert.h"

/* The index of b in si's table, adding it (and its conflict row) if new;
 * -1 past SI_MAX_BUFS (reported once). */
static int buf_index(si_state *si, const tlc_buffer *b)
{
	for (int i = 0; i < si->nbufs; i++)
		if (si->bufs[i] == b)
			return i;
	if (si->nbufs == SI_MAX_BUFS) {
		if (!si->too_many++)
			tlc_error(tlc_module_context(si->m), si->f->loc,
			          "kernel '%s' uses more than %d shared buffers: sync-insert "
			          "cannot track them", si->f->name, SI_MAX_BUFS);
		return -1;
	}
	int k = si->nbufs++;
	si->bufs[k] = b;
	si->rows[k] = (si_set){{0}};
	for (int i = 0; i <= k; i++)
		if (tlc_buffers_share_memory(si->bufs[i], b)) {
			si->rows[k].w[i / 64] |= 1ull << (i % 64);
			si->rows[i].w[k / 64] |= 1ull << (k % 64);
		}
	return k;
}

void si_set_add(si_state *si, si_set *s, const tlc_buffer *b)
{
	if (!tlc_buffer_in_shared(b))
		return;
	int i = buf_index(si, b);
	if (i >= 0)
		s->w[i / 64] |= 1ull << (i % 64);
}

void si_set_union(si_set *s, const si_set *t)
{
	for (int i = 0; i < SI_WORDS; i++)
		s->w[i] |= t->w[i];
}

static void *elems_alloc(si_state *si, size_t n)
{
	void *p = tlc_mem_alloc(n);
	si->allocs = tlc_mem_grow(si->allocs, si->nallocs, &si->cap_allocs, sizeof(*si->allocs));
	si->allocs[si->nallocs++] = p;
	return p;
}

void si_elems_free(si_state *si)
{
	for (int i = 0; i < si->nallocs; i++)
		tlc_mem_free(si->allocs[i]);
	tlc_mem_free(si->allocs);
	si->allocs = NULL;
	si->nallocs = si->cap_allocs = 0;
}

static const si_elems *join(si_state *si, const si_elems *a, const si_elems *b)
{
	if (!a || !b)
		return a ? a : b;
	si_elems *e = elems_alloc(si, sizeof(*e));
	e->a = a;
	e->b = b;
	return e;
}

static void add_elem(si_state *si, si_access *acc, int buf, bool write, int n,
                     const tlc_expr *const *idx)
{
	si_elems *e = elems_alloc(si, sizeof(*e));
	*e = (si_elems){NULL, NULL, buf, write, n, idx};
	acc->e = join(si, acc->e, e);
}

void si_access_union(si_state *si, si_access *acc, const si_access *more)
{
	si_set_union(&acc->r, &more->r);
	si_set_union(&acc->w, &more->w);
	acc->e = join(si, acc->e, more->e);
}

void si_access_add_writes(si_state *si, si_access *acc, const si_set *set)
{
	si_set_union(&acc->w, set);
	for (int i = 0; i < si->nbufs; i++)
		if (set->w[i / 64] >> (i % 64) & 1)
			add_elem(si, acc, i, true, 0, NULL);
}

/* True when fn holds for some leaf of e that is an access of buffer buf (a
 * write, when write_only). */
typedef bool (*leaf_fn)(const si_state *si, const si_elems *leaf, const void *ctx);

static bool any_leaf(const si_state *si, const si_elems *e, int buf, bool write_only, leaf_fn fn,
                     const void *ctx)
{
	while (e) {
		if (!e->a && !e->b)
			return e->buf == buf && (e->write || !write_only) && fn(si, e, ctx);
		if (any_leaf(si, e->a, buf, write_only, fn, ctx))
			return true;
		e = e->b;
	}
	return false;
}

typedef struct pair_ctx {
	const si_elems *with; /* an access of `next` */
	const si_elems *pending;
	int buf;
	bool need_write; /* the pending access must write (with is a read) */
	const tlc_stmt *carried;
} pair_ctx;

static bool meets_leaf(const si_state *si, const si_elems *p, const void *ctx)
{
	const pair_ctx *c = ctx;
	if (!p->write && !c->with->write)
		return false;
	return !(p->idx && c->with->idx && p->n == c->with->n &&
	         tlc_elems_disjoint(si->dis, p->n, p->idx, c->with->idx, c->carried));
}

static bool next_leaf(const si_state *si, const si_elems *x, const void *ctx)
{
	const pair_ctx *c = ctx;
	pair_ctx inner = *c;
	inner.with = x;
	return any_leaf(si, c->pending, c->buf, !x->write, meets_leaf, &inner);
}

/* True when some access of buffer i in next meets one in pending that
 * cannot be proved apart (an access of unknown elements meets all). */
static bool elems_meet(const si_state *si, int i, const si_access *pending, const si_access *next,
                       const tlc_stmt *carried)
{
	if (si->coarse)
		return true;
	pair_ctx c = {NULL, pending->e, i, false, carried};
	return any_leaf(si, next->e, i, false, next_leaf, &c);
}

static bool bit(const si_set *s, int i)
{
	return s->w[i / 64] >> (i % 64) & 1;
}

const tlc_buffer *si_hazard(const si_state *si, const si_access *pending, const si_access *next,
                            const tlc_stmt *carried)
{
	for (int i = 0; i < si->nbufs; i++) {
		if (!bit(&next->r, i) && !bit(&next->w, i))
			continue;
		for (int j = 0; j < si->nbufs; j++) {
			if (!bit(&si->rows[i], j))
				continue;
			bool raw = bit(&next->r, i) && bit(&pending->w, j);
			bool war = bit(&next->w, i) && (bit(&pending->r, j) || bit(&pending->w, j));
			if (!raw && !war)
				continue;
			/* another buffer on the same bytes (a view, a reused range):
			 * its indices name other elements */
			if (i != j || elems_meet(si, i, pending, next, carried))
				return si->bufs[i];
		}
	}
	return NULL;
}

/* ---- collecting accesses (the classification is tlc/access.h's) ---- */

typedef struct access_ctx {
	si_state *si;
	si_access *acc;
} access_ctx;

static void add_access(void *p, const tlc_buffer *b, unsigned mode, int n,
                       const tlc_expr *const *idx)
{
	access_ctx *c = p;
	if (mode & TLC_ACCESS_MBARRIER)
		return; /* a TMA load: its mbarrier orders it, not a block barrier */
	if (!tlc_buffer_in_shared(b))
		return;
	int i = buf_index(c->si, b);
	if (i < 0)
		return;
	if (mode & TLC_ACCESS_READ) {
		si_set_add(c->si, &c->acc->r, b);
		add_elem(c->si, c->acc, i, false, n, idx);
	}
	if (mode & TLC_ACCESS_WRITE) {
		si_set_add(c->si, &c->acc->w, b);
		add_elem(c->si, c->acc, i, true, n, idx);
	}
}

void si_stmt_access(si_state *si, const tlc_stmt *s, si_access *acc)
{
	access_ctx c = {si, acc};
	tlc_stmt_elem_accesses(s, add_access, &c);
}

bool si_is_barrier(const tlc_stmt *s)
{
	return tlc_stmt_is_block_barrier(s);
}

void si_body_head(si_state *si, const tlc_stmt *body, si_access *acc)
{
	if (!body || si_is_barrier(body))
		return;
	if (body->kind != TLC_STMT_SEQ) {
		si_stmt_access(si, body, acc);
		return;
	}
	for (int i = 0; i < body->u.seq.n && !si_is_barrier(body->u.seq.items[i]); i++)
		si_stmt_access(si, body->u.seq.items[i], acc);
}

typedef struct async_ctx {
	si_state *si;
	si_set *set;
} async_ctx;

static void add_async(void *p, const tlc_buffer *b, unsigned mode)
{
	async_ctx *a = p;
	(void)mode;
	if (tlc_buffer_in_shared(b))
		si_set_add(a->si, a->set, b);
}

void si_async_writes(si_state *si, const tlc_stmt *s, si_set *set)
{
	async_ctx a = {si, set};
	tlc_stmt_async_writes(s, add_async, &a);
}

typedef struct wgmma_ctx {
	si_state *si;
	si_set *set;
} wgmma_ctx;

static tlc_walk_action wgmma_operands(void *p, const tlc_expr *x)
{
	wgmma_ctx *c = p;
	if (x->kind != TLC_EXPR_CALL || x->u.call.op != TLC_OP_WGMMA_ISSUE)
		return TLC_WALK_CONTINUE;
	for (int i = 0; i < 2 && i < x->u.call.nargs; i++) {
		const tlc_expr *a = x->u.call.args[i];
		const tlc_buffer *b = a->kind == TLC_EXPR_BUF ? a->u.buf : a->kind == TLC_EXPR_LOAD ? a->u.load.buf : NULL;
		if (b && tlc_buffer_in_shared(b))
			si_set_add(c->si, c->set, b);
	}
	return TLC_WALK_SKIP;
}

void si_wgmma_reads(si_state *si, const tlc_stmt *s, si_set *set)
{
	wgmma_ctx c = {si, set};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .expr_pre = wgmma_operands}, s);
}

const tlc_buffer *si_common(const si_state *si, const si_set *a, const si_set *b)
{
	for (int i = 0; i < si->nbufs; i++)
		if ((a->w[i / 64] >> (i % 64) & 1) && (b->w[i / 64] >> (i % 64) & 1))
			return si->bufs[i];
	return NULL;
}
