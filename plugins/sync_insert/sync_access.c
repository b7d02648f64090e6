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

/* The first buffer of a that shares memory with one of b; NULL if none. */
static const tlc_buffer *meets(const si_state *si, const si_set *a, const si_set *b)
{
	for (int i = 0; i < si->nbufs; i++) {
		if (!(a->w[i / 64] >> (i % 64) & 1))
			continue;
		for (int j = 0; j < SI_WORDS; j++)
			if (si->rows[i].w[j] & b->w[j])
				return si->bufs[i];
	}
	return NULL;
}

const tlc_buffer *si_hazard(const si_state *si, const si_access *pending, const si_access *next)
{
	const tlc_buffer *b = meets(si, &next->r, &pending->w);
	if (!b)
		b = meets(si, &next->w, &pending->r);
	if (!b)
		b = meets(si, &next->w, &pending->w);
	return b;
}

/* ---- collecting accesses (the classification is tlc/access.h's) ---- */

typedef struct access_ctx {
	si_state *si;
	si_access *acc;
} access_ctx;

static void add_access(void *p, const tlc_buffer *b, unsigned mode)
{
	access_ctx *c = p;
	if (mode & TLC_ACCESS_MBARRIER)
		return; /* a TMA load: its mbarrier orders it, not a block barrier */
	if (mode & TLC_ACCESS_READ)
		si_set_add(c->si, &c->acc->r, b);
	if (mode & TLC_ACCESS_WRITE)
		si_set_add(c->si, &c->acc->w, b);
}

void si_stmt_access(si_state *si, const tlc_stmt *s, si_access *acc)
{
	access_ctx c = {si, acc};
	tlc_stmt_accesses(s, add_access, &c);
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
