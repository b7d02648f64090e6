/* storage_plan.c - the `storage-plan` pass: one dynamic shared-memory arena
 * per kernel, with buffers whose lifetimes do not overlap sharing bytes.
 *
 * Liveness is counted over the top-level statements of the kernel body: a
 * buffer is live from the first to the last top-level statement that touches
 * it (directly or through a T.view of it).  A statement that holds a loop
 * counts as one, so a buffer used anywhere inside a loop is live for the
 * whole loop.  T.ws scopes next to each other (tlc_ws_group_len) run at
 * the same time on their warpgroups, so the group counts as one statement:
 * buffers of two such scopes never share bytes (seed 000: TileLang's
 * planner gave two consumer warpgroups' tiles the same bytes).  A buffer
 * nothing touches is live at its declaration only.
 *
 * Alignment (the layouts are flat by now, so the rule reads what is left in
 * the IR): the target's widest shared access (shared_vector_bytes, 16 on
 * CUDA) for every buffer, so any vector access of it is aligned;
 * a buffer that a T.mma_gemm or T.wgmma_issue reads through layout_A/layout_B =
 * T.swizzled_layout(shape, dtype, W) is aligned to 8 * W bytes (256, 512,
 * 1024 for 32B, 64B, 128B swizzles): the XOR pattern repeats every 8 rows
 * of W bytes, and TMA / WGMMA descriptors need the base on that boundary;
 * the destination of a TMA load without a swizzle gets 128 bytes.
 *
 * Placement is greedy first-fit in order of decreasing size (then
 * declaration order): each buffer takes the lowest aligned offset that does
 * not overlap a placed buffer whose live range meets its own.  The result is
 * written into the IR: tlc_buffer.offset (printed `offset=N`), views take
 * their source's, and the arena size is the function attribute
 * "tlc.smem_bytes", the alignment its base needs as "tlc.smem_align", and
 * the bytes of static arrays and mbarriers as "tlc.smem_static".  An arena (plus static __shared__ arrays) larger than
 * the option `max-bytes` is an error listing every buffer and the total.
 *
 * When that plan does not fit, a finer one (below: liveness inside T.ws
 * scopes and statement by statement) is tried; kernels that fit keep the
 * plain plan's bytes.
 *
 * Barriers between the last use of one buffer and the first write of another
 * that shares its bytes are the business of sync-insert, which treats
 * buffers with overlapping planned bytes as one. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <tlc/access.h>
#include <tlc/diag.h>
#include <tlc/pass.h>
#include <tlc/target.h>
#include <tlc/tileops.h>
#include <tlc/uniform.h>
#include <tlc/walk.h>

#define SP_MAX_GROUPS 8

typedef struct sp_buf {
	tlc_buffer *buf; /* a shared buffer with storage of its own (not a view) */
	int64_t bytes, align;
	int first, last; /* live range in top-level statements; first > last: untouched */
	int alloc_at;    /* the top-level statement that declares it */
	int order;       /* declaration order, for deterministic ties */
	/* the fine plan (only when the plain one does not fit): live range in
	 * the points of the body in program order, and per T.ws group it is
	 * used in, the scopes of the group that use it */
	int ffirst, flast;
	int alloc_seq; /* the fine walk's count of declarations before it (-1: not seen) */
	int ngroups;
	bool many_groups; /* in more than SP_MAX_GROUPS: conflicts with every buffer of a group */
	int group[SP_MAX_GROUPS];
	unsigned scopes[SP_MAX_GROUPS];
} sp_buf;

typedef struct sp_state {
	tlc_module *m;
	tlc_func *f;
	int n, cap;
	sp_buf *bufs;
	int nviews, cap_views;
	tlc_buffer **views;
	int64_t static_bytes; /* scope="shared": not in the arena, but in the same per-block budget */
	int64_t base_align;   /* of every buffer: the target's widest shared access */
	int errors;
	/* the fine plan: per T.ws group (from 1), the points from the block
	 * barrier before it to the one after it */
	int nhalo, cap_halo;
	int *halo_lo, *halo_hi;
} sp_state;

static sp_buf *find(sp_state *st, const tlc_buffer *b)
{
	if (!b || b->scope != TLC_SCOPE_SHARED_DYN)
		return NULL;
	b = tlc_buffer_storage(b);
	for (int i = 0; i < st->n; i++)
		if (st->bufs[i].buf == b)
			return &st->bufs[i];
	return NULL;
}

/* ---- declarations ---- */

static void add_alloc(sp_state *st, tlc_buffer *b, int top)
{
	int64_t bytes;
	if ((b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_BARRIER) && !b->alias_of &&
	    tlc_buffer_bytes(b, &bytes)) {
		/* static __shared__ arrays and mbarriers share the block's budget */
		st->static_bytes += (bytes + st->base_align - 1) / st->base_align * st->base_align;
		return;
	}
	if (b->scope != TLC_SCOPE_SHARED_DYN)
		return;
	if (b->alias_of) {
		st->views = tlc_mem_grow(st->views, st->nviews, &st->cap_views, sizeof(*st->views));
		st->views[st->nviews++] = b;
		return;
	}
	if (!tlc_buffer_bytes(b, &bytes)) {
		tlc_error(tlc_module_context(st->m), b->loc,
		          "shared buffer '%s' needs a compile-time size to be placed in shared memory",
		          b->name);
		st->errors++;
		return;
	}
	st->bufs = tlc_mem_grow(st->bufs, st->n, &st->cap, sizeof(*st->bufs));
	st->bufs[st->n] = (sp_buf){.buf = b, .bytes = bytes, .align = st->base_align, .first = 1, .last = 0,
	                           .alloc_at = top, .order = st->n};
	st->n++;
}

/* A walk over top-level statement `top` of the body. */
typedef struct top_walk {
	sp_state *st;
	int top;
} top_walk;

static tlc_walk_action collect_alloc(void *p, const tlc_stmt *s)
{
	top_walk *w = p;
	if (s->kind == TLC_STMT_ALLOC)
		add_alloc(w->st, s->u.alloc.buf, w->top);
	return TLC_WALK_CONTINUE;
}

static void collect_allocs(sp_state *st, const tlc_stmt *s, int top)
{
	top_walk w = {st, top};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &w, .stmt_pre = collect_alloc}, s);
}

/* ---- liveness and alignment ---- */

static void touch(sp_state *st, const tlc_buffer *b, int top)
{
	sp_buf *p = find(st, b);
	if (!p)
		return;
	if (p->first > p->last)
		p->first = p->last = top;
	if (top < p->first)
		p->first = top;
	if (top > p->last)
		p->last = top;
}

/* 8 * W for layout = T.swizzled_layout(shape, dtype, W); 0 otherwise. */
static int64_t swizzle_align(const tlc_expr *layout)
{
	int64_t w;
	if (!layout || layout->kind != TLC_EXPR_CALL || layout->u.call.op != TLC_OP_SWIZZLED_LAYOUT ||
	    layout->u.call.nargs != 3 || !tlc_expr_as_int(layout->u.call.args[2], &w) || w <= 0 || w > 1024)
		return 0;
	return 8 * w;
}

static void gemm_operand_align(sp_state *st, const tlc_expr *call)
{
	static const char *const kws[2] = {"layout_A", "layout_B"};
	for (int i = 0; i < 2 && i < call->u.call.nargs; i++) {
		/* a whole buffer, or the first element of one of its tiles (the
		 * versions of a pipelined buffer: every tile is a multiple of 8 * W
		 * bytes, so aligning the buffer aligns them all) */
		const tlc_expr *a = call->u.call.args[i];
		sp_buf *p = a->kind == TLC_EXPR_BUF ? find(st, a->u.buf) : a->kind == TLC_EXPR_LOAD ? find(st, a->u.load.buf)
		                                                                                     : NULL;
		int64_t al = swizzle_align(tlc_call_kw(call, kws[i]));
		if (p && al > p->align)
			p->align = al;
	}
}

static void touch_access(void *p, const tlc_buffer *b, unsigned mode)
{
	(void)mode; /* liveness: any access counts */
	top_walk *w = p;
	touch(w->st, b, w->top);
}

/* A TMA load's destination, a TMA store's source: 128 bytes, or 8 * W
 * with a W-byte swizzle (the box lies at its start and the swizzle pattern
 * repeats every 8 W). */
static void tma_dst_align(sp_state *st, const tlc_expr *call)
{
	int64_t w = 0;
	const tlc_expr *sw = tlc_call_kw(call, "swizzle");
	if (call->u.call.nargs < 2 || call->u.call.args[1]->kind != TLC_EXPR_LOAD || (sw && !tlc_expr_as_int(sw, &w)))
		return;
	sp_buf *p = find(st, call->u.call.args[1]->u.load.buf);
	int64_t al = tlc_tma_shared_align(w);
	if (p && al > p->align)
		p->align = al;
}

/* A gemm asks for the alignment of its swizzled operands, a TMA copy for
 * that of its shared tile. */
static tlc_walk_action align_gemm_operands(void *p, const tlc_stmt *s)
{
	top_walk *w = p;
	if (tlc_stmt_is_call(s, TLC_OP_MMA_GEMM) || tlc_stmt_is_call(s, TLC_OP_WGMMA_ISSUE))
		gemm_operand_align(w->st, s->u.eval.call);
	if (tlc_stmt_is_call(s, TLC_OP_TMA_LOAD) || tlc_stmt_is_call(s, TLC_OP_TMA_STORE))
		tma_dst_align(w->st, s->u.eval.call);
	return TLC_WALK_CONTINUE;
}

/* Top-level statement `top` touches every buffer s accesses (tlc/access.h). */
static void touch_stmt(sp_state *st, const tlc_stmt *s, int top)
{
	top_walk w = {st, top};
	tlc_stmt_accesses(s, touch_access, &w);
	tlc_walk_stmt(&(tlc_visitor){.ctx = &w, .stmt_pre = align_gemm_operands}, s);
}

/* ---- placement ---- */

static int by_size_then_order(const void *pa, const void *pb)
{
	const sp_buf *a = *(const sp_buf *const *)pa, *b = *(const sp_buf *const *)pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->order - b->order;
}

static int by_offset(const void *pa, const void *pb)
{
	const sp_buf *a = *(const sp_buf *const *)pa, *b = *(const sp_buf *const *)pb;
	if (a->buf->offset != b->buf->offset)
		return a->buf->offset < b->buf->offset ? -1 : 1;
	return a->order - b->order;
}

static int64_t align_up(int64_t x, int64_t a)
{
	return (x + a - 1) / a * a;
}

/* Whether a and b are live at the same time: in the plain plan, their
 * ranges of top-level statements meet; in the fine plan, their ranges of
 * points meet, or different scopes of one T.ws group use them (those run
 * at the same time on their warpgroups, whatever the points say). */
static bool in_group(const sp_buf *a, int g, unsigned *scopes)
{
	for (int i = 0; i < a->ngroups; i++)
		if (a->group[i] == g) {
			*scopes = a->scopes[i];
			return true;
		}
	return false;
}

/* a is in group g, b is not: b meets the group's halo */
static bool meets_halo(const sp_state *st, const sp_buf *a, const sp_buf *b)
{
	for (int i = 0; i < a->ngroups; i++) {
		unsigned sb;
		int g = a->group[i];
		if (!in_group(b, g, &sb) && b->ffirst <= st->halo_hi[g] && st->halo_lo[g] <= b->flast)
			return true;
	}
	return false;
}

static bool live_together(const sp_state *st, const sp_buf *a, const sp_buf *b, bool fine)
{
	if (!fine)
		return a->first <= b->last && b->first <= a->last;
	if (a->ffirst <= b->flast && b->ffirst <= a->flast)
		return true;
	if (a->many_groups || b->many_groups)
		return true; /* too many to tell */
	for (int i = 0; i < a->ngroups; i++) {
		unsigned sb;
		if (in_group(b, a->group[i], &sb) && (a->scopes[i] != sb || (sb & (sb - 1))))
			return true;
	}
	return meets_halo(st, a, b) || meets_halo(st, b, a);
}

/* The lowest offset aligned for p that overlaps no placed buffer live at
 * the same time; `busy` is scratch space for n pointers. */
static int64_t first_fit(const sp_state *st, sp_buf *const *placed, int nplaced, const sp_buf *p,
                         const sp_buf **busy, bool fine)
{
	int nbusy = 0;
	for (int i = 0; i < nplaced; i++)
		if (live_together(st, placed[i], p, fine))
			busy[nbusy++] = placed[i];
	qsort(busy, (size_t)nbusy, sizeof(*busy), by_offset);
	int64_t at = 0;
	for (int i = 0; i < nbusy; i++) {
		int64_t lo = busy[i]->buf->offset, hi = lo + busy[i]->bytes;
		if (at + p->bytes <= lo)
			break;
		if (hi > at)
			at = align_up(hi, p->align);
	}
	return at;
}

static int64_t place_all(sp_state *st, bool fine)
{
	sp_buf **order = tlc_mem_alloc(((size_t)st->n + 1) * sizeof(*order));
	const sp_buf **busy = tlc_mem_alloc(((size_t)st->n + 1) * sizeof(*busy));
	for (int i = 0; i < st->n; i++)
		order[i] = &st->bufs[i];
	qsort(order, (size_t)st->n, sizeof(*order), by_size_then_order);
	int64_t arena = 0;
	for (int i = 0; i < st->n; i++) {
		sp_buf *p = order[i];
		p->buf->offset = first_fit(st, order, i, p, busy, fine);
		if (p->buf->offset + p->bytes > arena)
			arena = p->buf->offset + p->bytes;
	}
	tlc_mem_free(order);
	tlc_mem_free(busy);
	return arena;
}


/* ---- the fine plan ----
 *
 * Only when the plain plan does not fit (so that kernels that fit keep their
 * bytes): liveness over the points of the body in program order, every
 * statement that holds no loop or if one point, and an if one point as a
 * whole (its branches may run at once in different threads) unless its
 * condition is block-uniform (then its branches one after the other).  A loop whose
 * iterations follow one another is walked inside (fine_loop): buffers
 * declared outside it and used in it are live for the whole loop, those
 * declared in its body only where the body uses them.  Inside a T.ws group each scope's statements are
 * points from the group's start, and different scopes of the group count as
 * live together whatever their points (live_together), so buffers of two
 * warpgroups that run concurrently never share bytes, by construction (seed
 * 000).  A buffer that a scope only fills by copies completing on an
 * mbarrier (warp-specialize's TMA producer) counts as used by the scopes
 * that read it, from the group's start (the copies may land any time before
 * the readers' waits): the consumer's epilogue tile may take the bytes of
 * the stages once its loop is done.  The threads of a group's scopes reach
 * the statements before and after it at different times: buffers of the
 * group are live from the last block barrier before it to the first one
 * after it (in its block; the kernel's start and end when there is none). */

typedef struct fine_walk {
	sp_state *st;
	int clock;
	int group, scope, group_start; /* the T.ws scope being walked (group 0: none) */
	int ngroups;
	int allocs; /* declarations seen so far */
	tlc_uniformity *uni; /* which conditions every thread of the block agrees on */
} fine_walk;

static void fine_note_group(sp_buf *p, int group, unsigned bits)
{
	for (int i = 0; i < p->ngroups; i++)
		if (p->group[i] == group) {
			p->scopes[i] |= bits;
			return;
		}
	if (p->ngroups == SP_MAX_GROUPS) {
		p->many_groups = true;
		return;
	}
	p->group[p->ngroups] = group;
	p->scopes[p->ngroups++] = bits;
}

static void fine_access(void *ctx, const tlc_buffer *b, unsigned mode)
{
	fine_walk *w = ctx;
	sp_buf *p = find(w->st, b);
	if (!p)
		return;
	bool feed = w->group && (mode & TLC_ACCESS_MBARRIER) && !(mode & TLC_ACCESS_READ);
	int lo = feed ? w->group_start : w->clock;
	if (p->ffirst > p->flast)
		p->ffirst = p->flast = lo;
	if (lo < p->ffirst)
		p->ffirst = lo;
	if (w->clock > p->flast)
		p->flast = w->clock;
	if (w->group)
		fine_note_group(p, w->group, feed ? 0u : 1u << (w->scope & 31));
}

/* One point: s and everything inside it. */
static void fine_point(fine_walk *w, const tlc_stmt *s)
{
	tlc_stmt_accesses(s, fine_access, w);
	w->clock++;
}

/* The halo of group g reaches point t. */
static void fine_halo(sp_state *st, int g, int t)
{
	while (st->nhalo <= g) {
		int cap = st->cap_halo;
		st->halo_lo = tlc_mem_grow(st->halo_lo, st->nhalo, &cap, sizeof(int));
		st->halo_hi = tlc_mem_grow(st->halo_hi, st->nhalo, &st->cap_halo, sizeof(int));
		st->halo_lo[st->nhalo] = INT32_MAX / 2;
		st->halo_hi[st->nhalo++] = 0;
	}
	if (t < st->halo_lo[g])
		st->halo_lo[g] = t;
	if (t > st->halo_hi[g])
		st->halo_hi[g] = t;
}

static void fine_stmt(fine_walk *w, const tlc_stmt *s);

/* A T.ws group: its scopes from one start, side by side. */
static void fine_group(fine_walk *w, tlc_stmt *const *items, int n)
{
	fine_walk saved = *w;
	int g = ++w->ngroups, start = w->clock, end = w->clock;
	for (int k = 0; k < n; k++) {
		w->clock = start;
		w->group = g;
		w->scope = k;
		w->group_start = start;
		fine_stmt(w, items[k]->u.scope.body);
		if (w->clock > end)
			end = w->clock;
	}
	int ngroups = w->ngroups;
	*w = saved;
	w->ngroups = ngroups;
	w->clock = end;
}

static void fine_seq(fine_walk *w, tlc_stmt *const *items, int n)
{
	int barrier = 0; /* the point of the last block barrier (0: the kernel's start) */
	int open[SP_MAX_GROUPS * 4], nopen = 0;
	for (int i = 0; i < n;) {
		if (tlc_stmt_is_block_barrier(items[i])) {
			for (int k = 0; k < nopen; k++)
				fine_halo(w->st, open[k], w->clock);
			nopen = 0;
			barrier = w->clock;
		}
		int len = tlc_ws_group_len((tlc_stmt **)items, n, i);
		if (len > 0) {
			int start = w->clock;
			fine_group(w, items + i, len);
			fine_halo(w->st, w->ngroups, barrier);
			fine_halo(w->st, w->ngroups, start);
			fine_halo(w->st, w->ngroups, w->clock);
			if (nopen < SP_MAX_GROUPS * 4)
				open[nopen++] = w->ngroups;
			else
				fine_halo(w->st, w->ngroups, INT32_MAX / 2);
			i += len;
			continue;
		}
		fine_stmt(w, items[i]);
		i++;
	}
	/* no barrier after them in their block: to the end */
	for (int k = 0; k < nopen; k++)
		fine_halo(w->st, open[k], INT32_MAX / 2);
}

static tlc_walk_action find_ws(void *p, const tlc_stmt *s)
{
	if (s->kind == TLC_STMT_SCOPE && tlc_stmt_is_ws(s)) {
		*(bool *)p = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

/* A loop whose iterations follow one another in each thread: its body
 * statement by statement.  A buffer declared inside the body is new in
 * every iteration (what it held in the last one is gone), so it is live
 * from its first to its last use inside the body: the workspaces of two
 * reductions in one iteration take the same bytes (TileLang's MLA decode:
 * 2 KiB over the limit).  Every other buffer used inside the loop may carry
 * values from one iteration to the next, so it is live for the whole loop,
 * as before.  A body with T.ws scopes stays one point (their halos do not
 * repeat). */
static void fine_loop(fine_walk *w, const tlc_stmt *s)
{
	bool ws = false;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &ws, .stmt_pre = find_ws}, s->u.loop.body);
	if (ws) {
		fine_point(w, s);
		return;
	}
	int start = w->clock, seq0 = w->allocs;
	fine_stmt(w, s->u.loop.body);
	int end = w->clock - 1;
	for (int i = 0; i < w->st->n; i++) {
		sp_buf *p = &w->st->bufs[i];
		bool inner = p->alloc_seq >= seq0 && p->alloc_seq < w->allocs;
		if (inner || p->ffirst > p->flast || p->flast < start || p->ffirst > end)
			continue;
		if (start < p->ffirst)
			p->ffirst = start;
		if (end > p->flast)
			p->flast = end;
	}
}

static void fine_stmt(fine_walk *w, const tlc_stmt *s)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ: fine_seq(w, s->u.seq.items, s->u.seq.n); break;
	case TLC_STMT_ATTR: fine_stmt(w, s->u.attr.body); break;
	case TLC_STMT_SCOPE:
		if (tlc_stmt_is_ws(s))
			fine_group(w, (tlc_stmt *const[]){(tlc_stmt *)s}, 1);
		else
			fine_point(w, s);
		break;
	case TLC_STMT_ALLOC: {
		sp_buf *p = find(w->st, s->u.alloc.buf);
		if (p) {
			p->alloc_at = w->clock;
			p->alloc_seq = w->allocs;
		}
		w->allocs++;
		break;
	}
	case TLC_STMT_IF:
		/* the whole block takes one branch of an if on a block-uniform
		 * condition: they are walked one after the other (what only one
		 * branch uses may share bytes with what only the other uses) */
		if (w->uni && tlc_expr_block_uniform(w->uni, s->u.if_.cond)) {
			tlc_expr_accesses(s->u.if_.cond, TLC_ACCESS_READ, fine_access, w);
			w->clock++;
			fine_stmt(w, s->u.if_.then_s);
			fine_stmt(w, s->u.if_.else_s);
		} else {
			fine_point(w, s);
		}
		break;
	case TLC_STMT_FOR:
		/* T.Parallel and thread loops run their iterations at once */
		if (s->u.loop.kind == TLC_FOR_SERIAL || s->u.loop.kind == TLC_FOR_UNROLLED ||
		    s->u.loop.kind == TLC_FOR_PIPELINED)
			fine_loop(w, s);
		else
			fine_point(w, s);
		break;
	default: fine_point(w, s); break;
	}
}

static void fine_liveness(sp_state *st)
{
	for (int i = 0; i < st->n; i++) {
		sp_buf *p = &st->bufs[i];
		p->ffirst = 1;
		p->flast = 0;
		p->ngroups = 0;
		p->many_groups = false;
		p->alloc_seq = -1;
	}
	fine_walk w = {.st = st, .clock = 1, .uni = tlc_uniformity_new(st->m, st->f)};
	fine_stmt(&w, st->f->body);
	tlc_uniformity_free(w.uni);
	for (int i = 0; i < st->n; i++) {
		sp_buf *p = &st->bufs[i];
		if (p->ffirst > p->flast)
			p->ffirst = p->flast = p->alloc_at;
		/* filled by copies in a group no scope of which reads it: every
		 * scope's */
		for (int k = 0; k < p->ngroups; k++)
			if (!p->scopes[k])
				p->scopes[k] = ~0u;
	}
}

/* ---- results ---- */

static void report_over_limit(sp_state *st, int64_t arena, int64_t limit)
{
	tlc_buf list;
	tlc_buf_init(&list);
	for (int i = 0; i < st->n; i++)
		tlc_buf_printf(&list, "%s'%s' %lld bytes at offset %lld", i ? ", " : "", st->bufs[i].buf->name,
		               (long long)st->bufs[i].bytes, (long long)st->bufs[i].buf->offset);
	if (st->static_bytes)
		tlc_buf_printf(&list, "%sstatic __shared__ arrays %lld bytes", st->n ? ", " : "",
		               (long long)st->static_bytes);
	tlc_error(tlc_module_context(st->m), st->f->loc,
	          "kernel '%s' needs %lld bytes of shared memory, more than the %lld target %s allows a block%s: %s; "
	          "total %lld bytes: use smaller tiles, fewer stages or a narrower dtype",
	          st->f->name, (long long)(arena + st->static_bytes), (long long)limit, tlc_module_target_name(st->m),
	          limit < tlc_module_target_info(st->m)->smem_max ? " (lowered by storage-plan max-bytes)" : "",
	          tlc_buf_str(&list), (long long)(arena + st->static_bytes));
	tlc_buf_free(&list);
	st->errors++;
}

static int run_storage_plan(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	tlc_context *ctx = tlc_module_context(m);
	sp_state st = {.m = m, .f = f};
	/* the target's opt-in limit; the INI's max-bytes may only lower it */
	const tlc_target_info *target = tlc_module_target_info(m);
	if (!target) {
		tlc_error(ctx, f->loc, "storage-plan needs the description of a target (--target)");
		return 1;
	}
	st.base_align = target->shared_vector_bytes;
	long limit = tlc_opt_int(opts, "max-bytes", (long)target->smem_max);
	if (limit <= 0 || limit > target->smem_max) {
		tlc_error(ctx, f->loc, "[pass.storage-plan] max-bytes = %ld: it may only lower the %lld bytes of "
		          "shared memory target %s allows a block", limit, (long long)target->smem_max,
		          tlc_module_target_name(m));
		return 1;
	}
	tlc_stmt *body = f->body;
	bool seq = body && body->kind == TLC_STMT_SEQ;
	int ntop = !body ? 0 : seq ? body->u.seq.n : 1;
	/* the time of each top-level statement: a T.ws group's is its first's */
	int *time = tlc_mem_alloc(((size_t)ntop + 1) * sizeof(*time));
	for (int i = 0; i < ntop;) {
		int group = seq ? tlc_ws_group_len(body->u.seq.items, ntop, i) : 0;
		int n = group > 1 ? group : 1;
		for (int k = 0; k < n; k++)
			time[i + k] = i;
		i += n;
	}
	for (int i = 0; i < ntop; i++)
		collect_allocs(&st, seq ? body->u.seq.items[i] : body, time[i]);
	for (int i = 0; i < ntop; i++)
		touch_stmt(&st, seq ? body->u.seq.items[i] : body, time[i]);
	tlc_mem_free(time);
	for (int i = 0; i < st.n; i++)
		if (st.bufs[i].first > st.bufs[i].last)
			st.bufs[i].first = st.bufs[i].last = st.bufs[i].alloc_at;
	if (!st.errors) {
		int64_t arena = place_all(&st, false);
		if (arena + st.static_bytes > limit && st.n) {
			/* the plain plan does not fit: liveness inside T.ws scopes and
			 * compound statements (kernels that fit keep their bytes) */
			fine_liveness(&st);
			arena = place_all(&st, true);
		}
		for (int i = 0; i < st.nviews; i++)
			st.views[i]->offset = tlc_buffer_storage(st.views[i])->offset;
		if (st.n) { /* kernels without a dynamic arena keep their attributes as they are */
			tlc_func_set_attr(m, f, "tlc.smem_bytes", tlc_i32(m, arena));
			/* the arena's base must be as aligned as its most aligned
			 * buffer (a 128-byte swizzle: 1024) */
			int64_t align = st.base_align;
			for (int i = 0; i < st.n; i++)
				if (st.bufs[i].align > align)
					align = st.bufs[i].align;
			tlc_func_set_attr(m, f, "tlc.smem_align", tlc_i32(m, align));
		}
		/* what static arrays and mbarriers add to the block's shared memory:
		 * the launcher opts in to more than the default when the sum needs it */
		if (st.static_bytes)
			tlc_func_set_attr(m, f, "tlc.smem_static", tlc_i32(m, st.static_bytes));
		if (st.static_bytes > target->smem_default) {
			/* static __shared__ arrays cannot opt in to more */
			tlc_error(ctx, f->loc,
			          "kernel '%s' uses %lld bytes of static shared memory (scope=\"shared\"); target %s allows "
			          "%lld without opting in: use the default dynamic shared memory instead",
			          f->name, (long long)st.static_bytes, tlc_module_target_name(m),
			          (long long)target->smem_default);
			st.errors++;
		} else if (arena + st.static_bytes > limit) {
			report_over_limit(&st, arena, limit);
		}
	}
	tlc_mem_free(st.bufs);
	tlc_mem_free(st.views);
	tlc_mem_free(st.halo_lo);
	tlc_mem_free(st.halo_hi);
	return st.errors;
}

static const tlc_pass_option storage_plan_options[] = {
	{"max-bytes", TLC_OPT_INT, "shared memory a block may use, at most the target's smem_max"},
	{NULL, TLC_OPT_BOOL, NULL},
};

static const tlc_pass_desc storage_plan_pass = {
	.name = "storage-plan",
	.summary = "place shared buffers in one arena, reusing bytes of buffers whose lifetimes do not overlap",
	.run = run_storage_plan,
	.options = storage_plan_options,
};

static int storage_plan_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &storage_plan_pass);
}

static const tlc_plugin_desc storage_plan_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "storage_plan",
	.version = PACKAGE_VERSION,
	.description = "the storage-plan pass: the dynamic shared-memory arena",
	.init = storage_plan_init,
};

TLC_DEFINE_PLUGIN(storage_plan_plugin)
