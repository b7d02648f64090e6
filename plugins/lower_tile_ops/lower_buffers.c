/* lower_buffers.c - buffers in their physical form.
 *
 * After the nests are lowered, every fragment access is already a register
 * index: a fragment becomes a per-thread local array of its layout's
 * registers.  A shared or global buffer with a memory layout is addressed
 * through it: each access becomes the flat physical offset, and the buffer
 * becomes 1-D over the physical elements.  The T.annotate_layout statement
 * that carried the layouts is consumed.
 *
 * A view of a fragment (T.view / T.reshape) has its fragment's layout
 * reshaped (layout inference): the same registers of the same threads.  Its
 * accesses, register indices by now, become accesses of the fragment itself
 * and the view's declaration goes: no pointer into a thread's registers is
 * left for the device compiler to see through. */
#include <stdlib.h>

#include <tlc/walk.h>

#include "lower.h"

static bool has_memory_layout(const tlc_buffer *b)
{
	return b->layout && b->layout->kind != TLC_LAYOUT_FRAGMENT && b->scope != TLC_SCOPE_FRAGMENT;
}

/* The physical index of an access to b at idx[0 .. n): the flat offset
 * through b's memory layout; NULL when b keeps its logical indices. */
static const tlc_expr *physical_index(lw_state *st, const tlc_buffer *b, int n,
                                      const tlc_expr *const *idx)
{
	return has_memory_layout(b) ? tlc_layout_apply(st->m, b->layout, n, idx) : NULL;
}

/* A load, its indices already rewritten, addressed physically. */
static const tlc_expr *map_load(tlc_rewriter *rw, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_LOAD)
		return NULL;
	const tlc_expr *flat = physical_index(rw->ctx, e->u.load.buf, e->u.load.n, e->u.load.idx);
	return flat ? tlc_load(rw->m, e->u.load.buf, 1, &flat) : NULL;
}

static bool is_annotate(const tlc_stmt *s)
{
	return tlc_stmt_is_call(s, TLC_OP_ANNOTATE_LAYOUT);
}

/* The fragment whose registers view b names; NULL when b is no view of one. */
static tlc_buffer *fragment_root(const tlc_buffer *b)
{
	if (b->scope != TLC_SCOPE_FRAGMENT || !b->alias_of)
		return NULL;
	const tlc_buffer *r = b->alias_of;
	while (r->alias_of)
		r = r->alias_of;
	return (tlc_buffer *)r;
}

static bool is_fragment_view(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_ALLOC && fragment_root(s->u.alloc.buf);
}

/* Every view of a fragment becomes its fragment in rw; false (an error
 * given) where a view's registers are not its fragment's. */
typedef struct view_map {
	lw_state *st;
	tlc_rewriter *rw;
} view_map;

static tlc_walk_action map_view(void *p, const tlc_stmt *s)
{
	view_map *vm = p;
	if (!is_fragment_view(s))
		return TLC_WALK_CONTINUE;
	tlc_buffer *v = s->u.alloc.buf, *root = fragment_root(v);
	/* layout inference gave the view its fragment's layout reshaped: same
	 * registers (a view of another layout would read other registers) */
	if (!v->layout || !root->layout || v->layout->kind != TLC_LAYOUT_FRAGMENT ||
	    v->layout->out_shape[0] != root->layout->out_shape[0] || v->dtype != root->dtype) {
		lw_error(vm->st, s->loc, "view '%s' of fragment '%s' has no layout of '%s' reshaped (run layout-inference "
		         "before lower-tile-ops)", v->name, root->name, root->name);
		return TLC_WALK_CONTINUE;
	}
	tlc_rewriter_map_buffer(vm->rw, v, root);
	return TLC_WALK_CONTINUE;
}

/* Once the layouts are applied, the statements and loop_layout= that
 * carried them mean nothing: they go, and so do the declarations of views of
 * fragments (their accesses are their fragments'). */
static tlc_stmt *drop_layout_notes(tlc_rewriter *rw, tlc_stmt *s)
{
	(void)rw;
	if (s->kind == TLC_STMT_SEQ) {
		int w = 0;
		for (int i = 0; i < s->u.seq.n; i++)
			if (!is_annotate(s->u.seq.items[i]) && !is_fragment_view(s->u.seq.items[i]))
				s->u.seq.items[w++] = s->u.seq.items[i];
		s->u.seq.n = w;
	} else if (s->kind == TLC_STMT_FOR) {
		s->u.loop.loop_layout = NULL;
	}
	return NULL;
}

/* A store, its indices already rewritten, addressed physically. */
static tlc_stmt *map_store(tlc_rewriter *rw, tlc_stmt *s)
{
	if (s->kind != TLC_STMT_STORE)
		return NULL;
	lw_state *st = rw->ctx;
	const tlc_expr *flat = physical_index(st, s->u.store.buf, s->u.store.n, s->u.store.idx);
	if (flat) {
		s->u.store.idx = tlc_alloc(st->m, sizeof(tlc_expr *));
		s->u.store.idx[0] = flat;
		s->u.store.n = 1;
	}
	return NULL;
}

/* Give a buffer its physical shape once every access is rewritten. */
static void make_physical(lw_state *st, tlc_buffer *b)
{
	if (b->scope == TLC_SCOPE_FRAGMENT) {
		if (!b->layout) {
			lw_error(st, b->loc, "fragment '%s' has no layout (run layout-inference before lower-tile-ops)", b->name);
			return;
		}
		b->scope = TLC_SCOPE_LOCAL;
		b->ndim = 1;
		b->shape = tlc_alloc(st->m, sizeof(tlc_expr *));
		b->shape[0] = tlc_i32(st->m, b->layout->out_shape[0]);
		b->layout = NULL;
		return;
	}
	if (has_memory_layout(b)) {
		b->ndim = 1;
		b->shape = tlc_alloc(st->m, sizeof(tlc_expr *));
		b->shape[0] = tlc_i32(st->m, tlc_layout_phys_size(b->layout));
		b->layout = NULL;
	}
}

static tlc_walk_action physical_alloc(void *p, const tlc_stmt *s)
{
	if (s->kind == TLC_STMT_ALLOC)
		make_physical(p, s->u.alloc.buf);
	return TLC_WALK_CONTINUE;
}

/* The per-thread arrays of a kernel (fragments as registers, T.alloc_local,
 * T.alloc_var), for the local-memory budget. */
typedef struct local_use {
	lw_state *st;
	int64_t bytes;
	tlc_buf list;
} local_use;

static tlc_walk_action count_local(void *p, const tlc_stmt *s)
{
	local_use *u = p;
	int64_t bytes;
	if (s->kind != TLC_STMT_ALLOC ||
	    (s->u.alloc.buf->scope != TLC_SCOPE_LOCAL && s->u.alloc.buf->scope != TLC_SCOPE_VAR) ||
	    !tlc_buffer_bytes(s->u.alloc.buf, &bytes))
		return TLC_WALK_CONTINUE;
	u->bytes += bytes;
	tlc_buf_printf(&u->list, "%s'%s' %lld", u->list.len ? ", " : "", s->u.alloc.buf->name, (long long)bytes);
	return TLC_WALK_CONTINUE;
}

/* A thread's arrays beyond the target's local memory would not run (or, far
 * below it, spill): an error that says what to change. */
static void check_local_budget(lw_state *st)
{
	local_use u = {.st = st};
	tlc_buf_init(&u.list);
	tlc_walk_stmt(&(tlc_visitor){.ctx = &u, .stmt_pre = count_local}, st->f->body);
	if (u.bytes > st->target->local_bytes_max)
		lw_error(st, st->f->loc,
		         "kernel '%s' keeps %lld bytes per thread in fragments and local arrays (%s), more than the %lld "
		         "bytes of local memory target %s gives a thread: use smaller tiles or more threads",
		         st->f->name, (long long)u.bytes, tlc_buf_str(&u.list), (long long)st->target->local_bytes_max,
		         tlc_module_target_name(st->m));
	tlc_buf_free(&u.list);
}

void lw_lower_buffers(lw_state *st)
{
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, st->m);
	rw.ctx = st;
	rw.expr_post = map_load;
	rw.stmt_pre = drop_layout_notes;
	rw.stmt_post = map_store;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &(view_map){st, &rw}, .stmt_pre = map_view}, st->f->body);
	st->f->body = tlc_stmt_rewrite(&rw, st->f->body);
	tlc_rewriter_free(&rw);
	/* every access is physical now: the declarations follow */
	tlc_walk_stmt(&(tlc_visitor){.ctx = st, .stmt_pre = physical_alloc}, st->f->body);
	for (int i = 0; i < st->f->nparams; i++)
		if (st->f->params[i].kind == TLC_PARAM_TENSOR)
			make_physical(st, st->f->params[i].buf);
	if (!st->errors)
		check_local_budget(st);
}
