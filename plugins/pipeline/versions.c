/* versions.c - multi-versioned shared buffers, shared by inject-pipeline
 * and warp-specialize.
 *
 * A shared buffer that holds several iterations of a loop at once gets a
 * leading dimension of `versions` and iteration i uses version i % versions:
 * its declaration is replaced, and a rewriter turns every access of the
 * loop body into an access of the current iteration's version (an element
 * gets the version as its first index, a whole buffer or region becomes the
 * region `buf[v, ...]`).  The versions keep the buffer's layout, expanded
 * over the new dimension (tlc_layout_expand), so a user's layout is lifted
 * over the stages. */
#include "config.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/layout.h>
#include <tlc/walk.h>

#include "pipeline.h"

pl_versioned *pl_version_of(pl_versions *v, const tlc_buffer *b)
{
	for (int i = 0; i < v->n; i++)
		if (v->ver[i].from == b)
			return &v->ver[i];
	return NULL;
}

bool pl_add_version(pl_versions *v, const tlc_buffer *b, int64_t versions)
{
	pl_versioned *x = pl_version_of(v, b);
	if (x) {
		if (versions > x->versions)
			x->versions = versions;
		return true;
	}
	if (v->n == PL_MAX_VERSIONED)
		return false;
	v->ver[v->n++] = (pl_versioned){b, NULL, versions};
	return true;
}

typedef struct outside_use {
	const tlc_stmt *loop;
	const tlc_buffer *buf;
	bool found;
} outside_use;

static tlc_walk_action outside_stmt(void *p, const tlc_stmt *s)
{
	outside_use *u = p;
	if (s == u->loop)
		return TLC_WALK_SKIP;
	if (s->kind != TLC_STMT_ALLOC && s->kind != TLC_STMT_SEQ && s->kind != TLC_STMT_FOR && s->kind != TLC_STMT_IF &&
	    s->kind != TLC_STMT_ATTR && s->kind != TLC_STMT_SCOPE && tlc_stmt_use_of(s, u->buf)) {
		u->found = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

/* A T.annotate_layout entry of a versioned buffer names its versions, with
 * the layout they were given (the user's, lifted over the new dimension). */
static const tlc_expr *annotation_of_versions(pl_versions *v, const tlc_expr *dict)
{
	int n = dict->u.tuple.n;
	const tlc_expr **keys = tlc_alloc(v->m, sizeof(tlc_expr *) * (size_t)(n + 1));
	const tlc_expr **vals = tlc_alloc(v->m, sizeof(tlc_expr *) * (size_t)(n + 1));
	bool changed = false;
	for (int i = 0; i < n; i++) {
		const tlc_expr *pair = dict->u.tuple.items[i];
		keys[i] = pair->u.tuple.items[0];
		vals[i] = pair->u.tuple.items[1];
		pl_versioned *x = keys[i]->kind == TLC_EXPR_BUF ? pl_version_of(v, keys[i]->u.buf) : NULL;
		if (x && x->to && x->to->layout) {
			keys[i] = tlc_buf_ref(v->m, x->to);
			vals[i] = tlc_layout_to_expr(v->m, x->to->layout);
			changed = true;
		}
	}
	return changed ? tlc_dict(v->m, n, keys, vals) : NULL;
}

static tlc_walk_action swap_alloc(void *p, const tlc_stmt *cs)
{
	pl_versions *v = p;
	tlc_stmt *s = (tlc_stmt *)cs; /* the pass owns the function */
	if (cs->kind == TLC_STMT_ALLOC) {
		pl_versioned *x = pl_version_of(v, cs->u.alloc.buf);
		if (x && x->to)
			s->u.alloc.buf = x->to;
	} else if (tlc_stmt_is_call(cs, TLC_OP_ANNOTATE_LAYOUT) && cs->u.eval.call->u.call.nargs == 1 &&
	           cs->u.eval.call->u.call.args[0]->kind == TLC_EXPR_TUPLE &&
	           cs->u.eval.call->u.call.args[0]->u.tuple.is_dict) {
		const tlc_expr *dict = annotation_of_versions(v, cs->u.eval.call->u.call.args[0]);
		if (dict)
			s->u.eval.call = tlc_call(v->m, TLC_OP_ANNOTATE_LAYOUT, TLC_DT_VOID, 1,
			                          (const tlc_expr *[]){dict}, 0, NULL, NULL);
	}
	return TLC_WALK_CONTINUE;
}

bool pl_make_versions(pl_versions *v, tlc_func *f, const tlc_stmt *loop, const tlc_buffer **outside)
{
	for (int i = 0; i < v->n; i++) {
		outside_use u = {loop, v->ver[i].from, false};
		tlc_walk_stmt(&(tlc_visitor){.ctx = &u, .stmt_pre = outside_stmt}, f->body);
		if (u.found || v->ver[i].from->ndim + 1 > TLC_LAYOUT_MAX_DIMS) {
			*outside = v->ver[i].from;
			return false;
		}
	}
	for (int i = 0; i < v->n; i++) {
		pl_versioned *x = &v->ver[i];
		const tlc_expr *shape[TLC_LAYOUT_MAX_DIMS];
		shape[0] = tlc_i32(v->m, x->versions);
		for (int d = 0; d < x->from->ndim; d++)
			shape[d + 1] = x->from->shape[d];
		x->to = tlc_buffer_new(v->m, x->from->name, x->from->dtype, x->from->scope, x->from->ndim + 1, shape,
		                       x->from->loc);
		if (x->from->layout) {
			int64_t lead = x->versions;
			x->to->layout = tlc_layout_expand(v->m, x->from->layout, 1, &lead);
		}
	}
	tlc_walk_stmt(&(tlc_visitor){.ctx = v, .stmt_pre = swap_alloc}, f->body);
	return true;
}

/* ---- the accesses of one iteration ---- */

static const tlc_expr *version_index(pl_versions *v, const pl_versioned *x)
{
	return tlc_simplify_expr(v->m, tlc_binary(v->m, TLC_EXPR_FLOORMOD, v->iter, tlc_i32(v->m, x->versions)));
}

static const tlc_expr *versioned_access(tlc_rewriter *rw, const tlc_expr *e)
{
	pl_versions *v = rw->ctx;
	tlc_module *m = v->m;
	tlc_buffer *b = e->kind == TLC_EXPR_LOAD     ? e->u.load.buf
	                : e->kind == TLC_EXPR_REGION ? e->u.region.buf
	                : e->kind == TLC_EXPR_BUF    ? e->u.buf
	                                             : NULL;
	pl_versioned *x = b ? pl_version_of(v, b) : NULL;
	if (!x || !x->to)
		return NULL;
	const tlc_expr *ver = version_index(v, x);
	if (e->kind == TLC_EXPR_LOAD) {
		const tlc_expr *idx[TLC_LAYOUT_MAX_DIMS];
		idx[0] = ver;
		for (int d = 0; d < e->u.load.n; d++)
			idx[d + 1] = tlc_expr_rewrite(rw, e->u.load.idx[d]);
		return tlc_load(m, x->to, e->u.load.n + 1, idx);
	}
	tlc_range dims[TLC_LAYOUT_MAX_DIMS];
	dims[0] = (tlc_range){ver, tlc_i32(m, 1), true};
	int n;
	if (e->kind == TLC_EXPR_REGION) {
		n = e->u.region.n;
		for (int d = 0; d < n; d++) {
			tlc_range r = e->u.region.dims[d];
			r.begin = tlc_expr_rewrite(rw, r.begin);
			r.extent = tlc_expr_rewrite(rw, r.extent);
			dims[d + 1] = r;
		}
	} else {
		n = b->ndim;
		for (int d = 0; d < n; d++)
			dims[d + 1] = (tlc_range){tlc_i32(m, 0), b->shape[d], false};
	}
	return tlc_region(m, x->to, n + 1, dims);
}

static tlc_stmt *versioned_store(tlc_rewriter *rw, tlc_stmt *s)
{
	pl_versions *v = rw->ctx;
	if (s->kind != TLC_STMT_STORE)
		return NULL;
	pl_versioned *x = pl_version_of(v, s->u.store.buf);
	if (!x || !x->to)
		return NULL;
	const tlc_expr **idx = tlc_alloc(v->m, (size_t)(s->u.store.n + 1) * sizeof(*idx));
	idx[0] = version_index(v, x);
	memcpy(idx + 1, s->u.store.idx, (size_t)s->u.store.n * sizeof(*idx));
	s->u.store.buf = x->to;
	s->u.store.idx = idx;
	s->u.store.n++;
	return s;
}

void pl_version_rewriter(tlc_rewriter *rw, pl_versions *v)
{
	rw->ctx = v;
	rw->expr_pre = versioned_access;
	rw->stmt_post = versioned_store;
}
