/* verify_sync.c - the barrier check of thread-level IR: every shared-memory
 * hazard has a T.sync_threads() between its two statements.
 *
 * sync-insert places the barriers; this check, in libtlc, holds any pipeline
 * to them, whoever emits the code: the driver runs it before a target prints
 * the module, and --verify-each after every pass that follows sync-insert.
 * The rules are sync-insert's (tlc/access.h classifies the accesses):
 *  - statements of a block run in order; a statement that reads a shared
 *    buffer written since the last barrier (RAW), or writes one read or
 *    written since then (WAR, WAW), needs a barrier before it, since other
 *    threads ran the earlier one;
 *  - a block item is checked as a whole (all accesses nested in it);
 *  - inside `T.attr("parallel_nest")` / `"thread_private"` threads diverge
 *    and no barrier can go, so nothing inside is checked (sync-insert
 *    reports hazards there), but all of it counts as accessed;
 *  - a loop body runs again: what one iteration leaves pending must not meet
 *    what the next does before its first barrier;
 *  - the branches of an `if` are alternatives: each is checked against
 *    what was pending before the `if`, and both are pending after it (with
 *    a uniform condition every thread takes the same branch; with a
 *    condition that depends on the thread, the threads that take one
 *    branch run at the same time as those that take the other, and no
 *    barrier could order them);
 *  - two accesses of one buffer that tlc_elems_disjoint proves never name
 *    the same element in two threads need no barrier;
 *  - a T.vectorized loop is one access of several elements: nothing is
 *    carried between its iterations;
 *  - a barrier inside T.ws is a barrier of its warpgroups only: it orders
 *    the block's own accesses, not those other threads made before it;
 *  - T.ws scopes next to each other run at the same time
 *    (tlc_ws_group_len): the group is checked as one item, and its scopes
 *    are not checked against each other (their mbarriers order them, and
 *    tlc-sim checks that they do);
 *  - a TMA load (T.tma_load) writes shared memory in the async proxy and
 *    completes on an mbarrier that its readers wait on: block barriers do
 *    not order it, and it is not checked here;
 *  - an asynchronous copy (T.cp_async) writes where it is issued and again
 *    at each later T.cp_async_wait, where its bytes may land (until a
 *    T.cp_async_wait(0)): its readers need a barrier after the wait.
 * Two buffers are the same memory when tlc_buffers_share_memory says so. */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <tlc/access.h>
#include <tlc/tileops.h>
#include <tlc/uniform.h>
#include <tlc/walk.h>

/* One pending access since the last barrier. */
typedef struct pending {
	const tlc_buffer *buf;
	tlc_loc loc; /* of the block item that made it */
	bool write;
	int n;                    /* the element's indices, or NULL */
	const tlc_expr *const *idx;
} pending;

typedef struct checker {
	tlc_context *ctx;
	const char *after;
	int errors;
	int n, cap;
	pending *items;
	int base; /* inside T.ws: items[0, base) were made by other threads before it */
	int nflight, cap_flight;
	pending *flight; /* T.cp_async writes no T.cp_async_wait(0) completed */
	const tlc_disjoint *dis; /* element facts of the kernel being checked */
	/* false: a first, quiet pass over whole buffers (cheap: most kernels
	 * need nothing finer); true: accesses by element, with reports */
	bool elements;
} checker;

typedef struct accesses {
	int n, cap;
	pending *items;
	tlc_loc loc;
} accesses;

static void add_access(void *p, const tlc_buffer *b, unsigned mode, int n,
                       const tlc_expr *const *idx)
{
	accesses *a = p;
	if (!tlc_buffer_in_shared(b) || (mode & TLC_ACCESS_MBARRIER))
		return; /* a TMA load is ordered by its mbarrier */
	for (int k = 0; k < 2; k++) {
		bool write = k == 1;
		if (!(mode & (write ? TLC_ACCESS_WRITE : TLC_ACCESS_READ)))
			continue;
		a->items = tlc_mem_grow(a->items, a->n, &a->cap, sizeof(*a->items));
		a->items[a->n++] = (pending){b, a->loc, write, n, idx};
	}
}

static void add_plain(void *p, const tlc_buffer *b, unsigned mode)
{
	add_access(p, b, mode, 0, NULL);
}

static void add_accesses(const checker *c, const tlc_stmt *s, accesses *a)
{
	if (c->elements)
		tlc_stmt_elem_accesses(s, add_access, a);
	else
		tlc_stmt_accesses(s, add_plain, a);
}

static accesses collect(const checker *c, const tlc_stmt *s)
{
	accesses a = {.loc = s->loc};
	add_accesses(c, s, &a);
	return a;
}

static bool is_barrier(const tlc_stmt *s)
{
	return tlc_stmt_is_block_barrier(s);
}

static bool is_nest(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_ATTR && s->u.attr.key &&
	       (!strcmp(s->u.attr.key, "parallel_nest") || !strcmp(s->u.attr.key, "thread_private"));
}

/* True when p and q are elements of one buffer that no two threads share. */
static bool apart(const checker *c, const pending *p, const pending *q, const tlc_stmt *carried)
{
	return p->buf == q->buf && p->idx && q->idx && p->n == q->n &&
	       tlc_elems_disjoint(c->dis, p->n, p->idx, q->idx, carried);
}

/* The first pending access that conflicts with a (NULL when none), and the
 * access of a it conflicts with; carried: the loop whose next iteration a
 * belongs to, or NULL. */
static const pending *conflict(const checker *c, const accesses *a, const pending **with,
                               const tlc_stmt *carried)
{
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < c->n; j++) {
			const pending *p = &c->items[j];
			if ((p->write || a->items[i].write) &&
			    tlc_buffers_share_memory(p->buf, a->items[i].buf) &&
			    !apart(c, p, &a->items[i], carried)) {
				*with = &a->items[i];
				return p;
			}
		}
	return NULL;
}

static void remember(checker *c, const accesses *a)
{
	for (int i = 0; i < a->n; i++) {
		c->items = tlc_mem_grow(c->items, c->n, &c->cap, sizeof(*c->items));
		c->items[c->n++] = a->items[i];
	}
}

/* "after pass 'x'" or "with no pass run", for the messages */
static const char *when(const checker *c, char *buf, size_t n)
{
	if (!c->after)
		return "with no pass run";
	snprintf(buf, n, "after pass '%s'", c->after);
	return buf;
}

static void report(checker *c, tlc_loc loc, const pending *earlier, const pending *now, bool loop)
{
	const char *what_now = now->write ? "writes" : "reads", *what_then = earlier->write ? "written" : "read";
	char buf[160];
	if (!c->elements)
		; /* the quiet pass: the element pass says it, if it still holds */
	else if (loop)
		tlc_error(c->ctx, loc,
		          "missing barrier: one iteration of this loop leaves shared buffer '%s' %s at %u:%u, and the "
		          "next %s '%s' at %u:%u before any T.sync_threads() (%s): run sync-insert after the last pass "
		          "that changes shared accesses (see tlc.ini)",
		          earlier->buf->name, what_then, earlier->loc.line, earlier->loc.col, what_now, now->buf->name,
		          now->loc.line, now->loc.col, when(c, buf, sizeof(buf)));
	else
		tlc_error(c->ctx, loc,
		          "missing barrier: this statement %s shared buffer '%s', %s by other threads at %u:%u (as '%s') "
		          "with no T.sync_threads() between (%s): run sync-insert after the last pass that changes shared "
		          "accesses (see tlc.ini)",
		          what_now, now->buf->name, what_then, earlier->loc.line, earlier->loc.col, earlier->buf->name,
		          when(c, buf, sizeof(buf)));
	c->errors++;
	c->n = 0; /* one report per missing barrier */
}

static void check_body(checker *c, const tlc_stmt *s, bool in_nest);

/* The shared accesses a loop body makes before its first barrier: what the
 * next iteration does before it synchronizes. */
static accesses body_head(const checker *c, const tlc_stmt *body)
{
	accesses head = {0};
	bool seq = body->kind == TLC_STMT_SEQ;
	for (int i = 0; i < (seq ? body->u.seq.n : 1); i++) {
		const tlc_stmt *item = seq ? body->u.seq.items[i] : body;
		if (is_barrier(item))
			break;
		accesses a = collect(c, item);
		for (int k = 0; k < a.n; k++) {
			head.items = tlc_mem_grow(head.items, head.n, &head.cap, sizeof(*head.items));
			head.items[head.n++] = a.items[k];
		}
		tlc_mem_free(a.items);
	}
	return head;
}

/* A T.cp_async_wait: the copies in flight may land here, so they count as
 * writes made now (their readers need a barrier after the wait). */
static void land_copies(checker *c, const tlc_stmt *s, int64_t count)
{
	for (int i = 0; i < c->nflight; i++) {
		c->items = tlc_mem_grow(c->items, c->n, &c->cap, sizeof(*c->items));
		c->items[c->n] = c->flight[i];
		c->items[c->n++].loc = s->loc;
	}
	if (count == 0)
		c->nflight = 0;
}

/* Inside a T.ws scope: a barrier there is one of its warpgroups only (a
 * named barrier), so it clears nothing that other threads did before:
 * those stay below `base`, and the scope's own accesses join them after it
 * (the caller remembers them). */
static void check_ws_inside(checker *c, const tlc_stmt *s, bool in_nest)
{
	int saved_base = c->base;
	c->base = c->n;
	check_body(c, s->u.scope.body, in_nest);
	c->n = c->n < c->base ? c->n : c->base;
	c->base = saved_base;
}

/* A group of n T.ws scopes, checked as one item.  A scope over the same
 * warpgroups as earlier ones of the group runs after them on the same
 * threads: their accesses are pending inside it, and its own barriers
 * clear them. */
static void check_ws_group(checker *c, tlc_stmt *const *items, int n, bool in_nest)
{
	accesses all = {.loc = items[0]->loc};
	for (int k = 0; k < n; k++)
		add_accesses(c, items[k], &all);
	const pending *with = NULL, *earlier = in_nest ? NULL : conflict(c, &all, &with, NULL);
	if (earlier)
		report(c, items[0]->loc, earlier, with, false);
	for (int k = 0; k < n && !c->errors; k++) {
		int saved_base = c->base;
		c->base = c->n;
		for (int e = 0; e < k; e++)
			if (tlc_ws_same_warpgroups(items[e], items[k])) {
				accesses a = collect(c, items[e]);
				remember(c, &a);
				tlc_mem_free(a.items);
			}
		check_body(c, items[k]->u.scope.body, in_nest);
		c->n = c->n < c->base ? c->n : c->base;
		c->base = saved_base;
	}
	remember(c, &all);
	tlc_mem_free(all.items);
}

/* One block item (or a body that is a single statement). */
static void check_item(checker *c, const tlc_stmt *s, bool in_nest)
{
	if (!s)
		return;
	if (is_barrier(s)) {
		c->n = c->base;
		return;
	}
	int64_t wait = tlc_stmt_async_wait_count(s);
	if (wait >= 0) {
		land_copies(c, s, wait);
		return;
	}
	accesses a = collect(c, s);
	const pending *with = NULL, *earlier = in_nest ? NULL : conflict(c, &a, &with, NULL);
	if (earlier)
		report(c, s->loc, earlier, with, false);
	/* its parts, for the barriers and loops inside */
	switch (s->kind) {
	case TLC_STMT_SCOPE: check_ws_inside(c, s, in_nest); break;
	case TLC_STMT_IF: {
		/* the branches are alternatives: each after what came before, and
		 * what either leaves pending is pending after the `if` */
		if (!s->u.if_.else_s) {
			check_body(c, s->u.if_.then_s, in_nest);
			break;
		}
		int before = c->n;
		pending *saved = tlc_mem_alloc((size_t)(before + 1) * sizeof(*saved));
		for (int i = 0; i < before; i++)
			saved[i] = c->items[i];
		check_body(c, s->u.if_.then_s, in_nest);
		int nthen = c->n;
		pending *then_items = tlc_mem_alloc((size_t)(nthen + 1) * sizeof(*then_items));
		for (int i = 0; i < nthen; i++)
			then_items[i] = c->items[i];
		c->n = 0;
		for (int i = 0; i < before; i++) {
			c->items = tlc_mem_grow(c->items, c->n, &c->cap, sizeof(*c->items));
			c->items[c->n++] = saved[i];
		}
		if (!c->errors)
			check_body(c, s->u.if_.else_s, in_nest);
		for (int i = 0; i < nthen; i++) {
			c->items = tlc_mem_grow(c->items, c->n, &c->cap, sizeof(*c->items));
			c->items[c->n++] = then_items[i];
		}
		tlc_mem_free(saved);
		tlc_mem_free(then_items);
		break;
	}
	case TLC_STMT_SEQ:
	case TLC_STMT_ATTR:
		for (int i = 0; i < tlc_stmt_num_children(s); i++)
			check_body(c, tlc_stmt_child(s, i), in_nest || is_nest(s));
		break;
	case TLC_STMT_FOR: {
		check_body(c, s->u.loop.body, in_nest);
		/* a T.vectorized loop is one access of its elements */
		bool carries = s->u.loop.body && s->u.loop.kind != TLC_FOR_VECTORIZED;
		accesses head = carries ? body_head(c, s->u.loop.body) : (accesses){0};
		const pending *w = NULL;
		const pending *e = in_nest || c->errors ? NULL : conflict(c, &head, &w, s);
		if (e)
			report(c, s->loc, e, w, true);
		tlc_mem_free(head.items);
		break;
	}
	default:
		break;
	}
	remember(c, &a);
	tlc_mem_free(a.items);
	if (!in_nest) {
		accesses f = {.loc = s->loc};
		tlc_stmt_async_writes(s, add_plain, &f);
		for (int i = 0; i < f.n; i++) {
			c->flight = tlc_mem_grow(c->flight, c->nflight, &c->cap_flight, sizeof(*c->flight));
			c->flight[c->nflight++] = f.items[i];
		}
		tlc_mem_free(f.items);
	}
}

static void check_body(checker *c, const tlc_stmt *s, bool in_nest)
{
	if (!s)
		return;
	if (s->kind != TLC_STMT_SEQ) {
		check_item(c, s, in_nest);
		return;
	}
	for (int i = 0; i < s->u.seq.n && !c->errors; i++) {
		int group = tlc_ws_group_len(s->u.seq.items, s->u.seq.n, i);
		if (group >= 2) {
			check_ws_group(c, &s->u.seq.items[i], group, in_nest);
			i += group - 1;
			continue;
		}
		check_item(c, s->u.seq.items[i], in_nest);
	}
}

bool tlc_verify_barriers(tlc_context *ctx, const tlc_module *m, const char *after)
{
	checker c = {.ctx = ctx, .after = after};
	for (int i = 0; i < m->nfuncs; i++) {
		c.n = 0;
		c.nflight = 0;
		c.errors = 0;
		if (m->funcs[i] && m->funcs[i]->body) {
			/* whole buffers first: an access by element conflicts only
			 * where its buffer does, so a clean first pass is the answer */
			c.elements = false;
			check_body(&c, m->funcs[i]->body, false);
		}
		if (c.errors) {
			c.n = 0;
			c.nflight = 0;
			c.errors = 0;
			c.elements = true;
			/* the analysis reads the module; it builds no IR in it */
			tlc_uniformity *u = tlc_uniformity_new((tlc_module *)m, m->funcs[i]);
			tlc_disjoint *dis = tlc_disjoint_new(m->funcs[i], u);
			c.dis = dis;
			check_body(&c, m->funcs[i]->body, false);
			c.dis = NULL;
			tlc_disjoint_free(dis);
			tlc_uniformity_free(u);
		}
		if (c.errors)
			break;
	}
	tlc_mem_free(c.items);
	tlc_mem_free(c.flight);
	return c.errors == 0;
}
