/* fragment_extent.c - fragments that T.Parallel loops index beyond their
 * declared shape.
 *
 * TileLang programs write `sinks = T.alloc_fragment([heads], dtype)` and then
 * `for i in T.Parallel(block_M): sinks[i] = Sinks[by]` with block_M > heads,
 * reading `sinks[i]` again in another loop over block_M.  In TileLang a
 * fragment accessed at exactly a T.Parallel nest's loop variables takes the
 * loop's layout (ParallelOp's CompleteBufferFragment: the loop's own layout
 * when the indices are the loop variables), whose shape is the loop's, not
 * the declaration's: every iteration's element has a register in the threads
 * that run it, and the program works.  tlc gives such a fragment that shape
 * here, once, before any level sees the kernel, so that the tile level
 * (tlc-sim), layout inference and the lowering all agree on one buffer of the
 * loop's extent; a warning names the buffer, the declared extent and the
 * range indexed.
 *
 * Only a fragment used element by element is widened: one a tile op takes
 * whole (T.fill, T.copy, a reduction, a gemm, a view) would see a different
 * tile once widened, and stays as declared (lower-tile-ops then refuses the
 * loop, saying to declare the fragment with the loop's extent). */
#include <stdio.h>
#include <string.h>

#include <tlc/walk.h>

#include "internal.h"

#define WIDEN_MAX_DIMS 8

typedef struct wide_frag {
	tlc_buffer *buf;
	int64_t declared[WIDEN_MAX_DIMS];
	int64_t used[WIDEN_MAX_DIMS]; /* the largest loop extent indexing each dimension */
	const tlc_var *var[WIDEN_MAX_DIMS];
	tlc_loc first; /* the first access beyond the shape */
	bool beyond, whole;
} wide_frag;

typedef struct widen_scan {
	int n, cap;
	wide_frag *f;
	int depth; /* T.Parallel loops open around the walk */
	/* the nest being scanned */
	int ndim;
	const tlc_var *vars[WIDEN_MAX_DIMS];
	int64_t extent[WIDEN_MAX_DIMS];
	tlc_loc loc;
} widen_scan;

static wide_frag *frag_of(widen_scan *w, tlc_buffer *b)
{
	for (int i = 0; i < w->n; i++)
		if (w->f[i].buf == b)
			return &w->f[i];
	if (b->ndim > WIDEN_MAX_DIMS)
		return NULL;
	wide_frag f = {.buf = b};
	for (int d = 0; d < b->ndim; d++) {
		if (!tlc_expr_as_int(b->shape[d], &f.declared[d]))
			return NULL; /* not a fragment's constant shape: left to the passes */
		f.used[d] = f.declared[d];
	}
	w->f = tlc_mem_grow(w->f, w->n, &w->cap, sizeof *w->f);
	w->f[w->n] = f;
	return &w->f[w->n++];
}

/* An element access of fragment b at idx inside the nest: at the nest's own
 * loop variables, one per dimension in the loop's order (TileLang's common
 * access), it reaches the loop's extents. */
static void note_access(widen_scan *w, tlc_buffer *b, int n, const tlc_expr *const *idx,
			tlc_loc loc)
{
	if (b->scope != TLC_SCOPE_FRAGMENT || n != w->ndim)
		return;
	for (int d = 0; d < n; d++)
		if (idx[d]->kind != TLC_EXPR_VAR || idx[d]->u.var != w->vars[d])
			return;
	wide_frag *f = frag_of(w, b);
	if (!f)
		return;
	for (int d = 0; d < n; d++) {
		if (w->extent[d] <= f->used[d])
			continue;
		if (!f->beyond)
			f->first = loc;
		f->beyond = true;
		f->used[d] = w->extent[d];
		f->var[d] = w->vars[d];
	}
}

static tlc_walk_action nest_expr(void *p, const tlc_expr *e)
{
	widen_scan *w = p;
	if (e->kind == TLC_EXPR_LOAD)
		note_access(w, e->u.load.buf, e->u.load.n, e->u.load.idx, w->loc);
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action nest_stmt(void *p, const tlc_stmt *s)
{
	widen_scan *w = p;
	w->loc = s->loc;
	if (s->kind == TLC_STMT_STORE)
		note_access(w, s->u.store.buf, s->u.store.n,
			    (const tlc_expr *const *)s->u.store.idx, s->loc);
	return TLC_WALK_CONTINUE;
}

/* The nest of directly nested T.Parallel loops starting at s, with constant
 * extents from 0; its accesses are noted.  (Other nests index no fragment
 * at a loop's full extent from 0: left to the passes.) */
static void scan_nest(widen_scan *w, const tlc_stmt *s)
{
	w->ndim = 0;
	for (;;) {
		int64_t lo, ext;
		if (w->ndim == WIDEN_MAX_DIMS || !tlc_expr_as_int(s->u.loop.min, &lo) || lo != 0 ||
		    !tlc_expr_as_int(s->u.loop.extent, &ext))
			return;
		w->vars[w->ndim] = s->u.loop.var;
		w->extent[w->ndim++] = ext;
		const tlc_stmt *b = s->u.loop.body;
		if (b && b->kind == TLC_STMT_SEQ && b->u.seq.n == 1)
			b = b->u.seq.items[0];
		if (!(b && b->kind == TLC_STMT_FOR && b->u.loop.kind == TLC_FOR_PARALLEL))
			break;
		s = b;
	}
	w->loc = s->loc;
	tlc_walk_stmt(&(tlc_visitor){.ctx = w, .stmt_pre = nest_stmt, .expr_pre = nest_expr},
		      s->u.loop.body);
}

static tlc_walk_action scan_stmt(void *p, const tlc_stmt *s)
{
	widen_scan *w = p;
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL) {
		if (!w->depth++)
			scan_nest(w, s);
	} else if (s->kind == TLC_STMT_ALLOC && s->u.alloc.buf->alias_of) {
		/* a view shares the fragment's elements under another shape */
		wide_frag *f = frag_of(w, (tlc_buffer *)s->u.alloc.buf->alias_of);
		if (f)
			f->whole = true;
	}
	return TLC_WALK_CONTINUE;
}

static void scan_stmt_post(void *p, const tlc_stmt *s)
{
	widen_scan *w = p;
	if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL)
		w->depth--;
}

/* A buffer named whole, or a region of it: a tile op's operand. */
static tlc_walk_action scan_expr(void *p, const tlc_expr *e)
{
	widen_scan *w = p;
	tlc_buffer *b = e->kind == TLC_EXPR_BUF      ? e->u.buf
			: e->kind == TLC_EXPR_REGION ? e->u.region.buf
						     : NULL;
	if (b && b->scope == TLC_SCOPE_FRAGMENT) {
		wide_frag *f = frag_of(w, b);
		if (f)
			f->whole = true;
	}
	return TLC_WALK_CONTINUE;
}

static void print_shape(tlc_buf *o, int n, const int64_t *shape)
{
	tlc_buf_putc(o, '(');
	for (int d = 0; d < n; d++)
		tlc_buf_printf(o, d ? ", %lld" : "%lld", (long long)shape[d]);
	tlc_buf_puts(o, n == 1 ? ",)" : ")");
}

static void widen(tlc_context *ctx, tlc_module *m, wide_frag *f)
{
	tlc_buffer *b = f->buf;
	tlc_buf o;
	tlc_buf_init(&o);
	tlc_buf_printf(&o, "fragment '%s' is declared with shape ", b->name);
	print_shape(&o, b->ndim, f->declared);
	tlc_buf_puts(&o, " but T.Parallel loops index it ");
	bool first = true;
	for (int d = 0; d < b->ndim; d++)
		if (f->used[d] > f->declared[d]) {
			tlc_buf_printf(&o, "%swith %s in [0, %lld) along dimension %d",
				       first ? "" : ", ", f->var[d]->name, (long long)f->used[d],
				       d);
			first = false;
		}
	tlc_buf_puts(
		&o,
		", beyond that shape; as TileLang does (the fragment takes the loop's layout), it "
		"gets the shape ");
	print_shape(&o, b->ndim, f->used);
	tlc_buf_puts(&o, ", each thread keeping the elements of the iterations it runs: declare it "
			 "with that "
			 "shape");
	tlc_warning(ctx, f->first, "%s", tlc_buf_str(&o));
	tlc_buf_free(&o);
	const tlc_expr **shape = tlc_alloc(m, sizeof *shape * (size_t)b->ndim);
	for (int d = 0; d < b->ndim; d++)
		shape[d] = f->used[d] > f->declared[d] ? tlc_i32(m, f->used[d]) : b->shape[d];
	b->shape = shape;
}

void tlc_widen_parallel_fragments(tlc_context *ctx, tlc_module *m)
{
	for (int i = 0; i < tlc_module_func_count(m); i++) {
		tlc_func *fn = tlc_module_func(m, i);
		widen_scan w = {0};
		if (fn->body)
			tlc_walk_stmt(&(tlc_visitor){.ctx = &w,
						     .stmt_pre = scan_stmt,
						     .stmt_post = scan_stmt_post,
						     .expr_pre = scan_expr},
				      fn->body);
		for (int k = 0; k < w.n; k++)
			if (w.f[k].beyond && !w.f[k].whole && !w.f[k].buf->alias_of)
				widen(ctx, m, &w.f[k]);
		tlc_mem_free(w.f);
	}
}
