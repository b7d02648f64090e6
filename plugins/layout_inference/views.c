/* views.c - views of fragments (T.view / T.reshape) in layout inference.
 *
 * A view of a fragment names the registers of its source (the root: the
 * fragment that owns them, at the end of a chain of views) under another
 * shape of as many elements, row-major: the view's element of flat index x
 * is the root's element of flat index x.  So the two cannot have layouts of
 * their own: the view's layout is the root's reshaped (tlc_fragment_reshape
 * in the layout algebra), and whatever an op proposes for a view is a
 * proposal, reshaped, for the root.  Merging then decides for roots only,
 * by the usual order-free rule, and the views follow.  A layout that cannot
 * be reshaped between the two shapes (a thread or register digit across a
 * boundary of the other shape's dimensions, off its steps) is no layout of
 * the pair: as a strict proposal, or as the root's final layout, it is an
 * error naming both buffers; a free proposal that cannot be reshaped is
 * dropped, leaving the choice to others. */
#include <stdio.h>

#include "layout_inference.h"

const tlc_layout *li_reshape_to(li_state *st, const tlc_layout *l, const tlc_buffer *to,
                                const char **why)
{
	int64_t shape[LI_MAX_DIMS];
	if (to->ndim < 1 || to->ndim > LI_MAX_DIMS) {
		*why = "a fragment view has 1 to 8 dimensions";
		return NULL;
	}
	for (int d = 0; d < to->ndim; d++)
		if (!tlc_expr_as_int(to->shape[d], &shape[d])) {
			*why = "a fragment view needs a compile-time shape";
			return NULL;
		}
	return tlc_fragment_reshape(st->m, l, to->ndim, shape, why);
}

/* A layout described for messages: its text and its thread map. */
static void describe(li_state *st, tlc_buf *d, const tlc_layout *l)
{
	tlc_buf_init(d);
	tlc_layout_describe(d, l);
	tlc_buf_puts(d, " (thread ");
	tlc_print_expr(d, st->m, l->thread);
	tlc_buf_puts(d, ")");
}

/* l, which `who` needs for view (to_root) or which root got (otherwise),
 * is no layout of the other buffer's shape. */
static void view_error(li_state *st, const li_buf *view, const char *who, const tlc_layout *l,
                       bool to_root, const char *why)
{
	tlc_buf d, vs;
	describe(st, &d, l);
	tlc_buf_init(&vs);
	tlc_print_expr(&vs, st->m, tlc_tuple(st->m, view->buf->ndim, view->buf->shape, false));
	const li_buf *root = li_root(view);
	if (to_root)
		tlc_error(st->ctx, view->buf->loc,
		          "T.view / T.reshape of fragment '%s' as '%s' %s: the layout %s needs for '%s', %s, is no "
		          "layout of '%s' (%s); copy '%s' into a fragment of the shape %s instead of viewing it",
		          root->buf->name, view->buf->name, tlc_buf_str(&vs), who, view->buf->name, tlc_buf_str(&d),
		          root->buf->name, why ? why : "?", root->buf->name, tlc_buf_str(&vs));
	else
		tlc_error(st->ctx, view->buf->loc,
		          "T.view / T.reshape of fragment '%s' as '%s' %s: the layout of '%s' (from %s), %s, cannot be "
		          "viewed with that shape (%s); copy '%s' into a fragment of the shape %s instead of viewing it",
		          root->buf->name, view->buf->name, tlc_buf_str(&vs), root->buf->name, who, tlc_buf_str(&d),
		          why ? why : "?", root->buf->name, tlc_buf_str(&vs));
	tlc_buf_free(&d);
	tlc_buf_free(&vs);
	st->errors++;
}

void li_views_to_roots(li_state *st, li_proposals *p)
{
	int w = 0;
	for (int k = 0; k < p->n; k++) {
		li_proposal q = p->items[k];
		if (q.b->root) {
			const char *why = NULL;
			const tlc_layout *l = li_reshape_to(st, q.l, q.b->root->buf, &why);
			if (!l) {
				if (q.strict)
					view_error(st, q.b, q.who, q.l, true, why);
				continue;
			}
			q.b = q.b->root;
			q.l = l;
		}
		p->items[w++] = q;
	}
	p->n = w;
}

void li_views_follow(li_state *st)
{
	for (int i = 0; i < st->nbufs && !st->errors; i++) {
		li_buf *b = st->bufs[i];
		if (!b->root || !b->root->layout || b->layout)
			continue;
		const char *why = NULL;
		const tlc_layout *l = li_reshape_to(st, b->root->layout, b->buf, &why);
		if (!l) {
			view_error(st, b, b->root->who ? b->root->who : "no op (each thread holds it all)", b->root->layout,
			           false, why);
			return;
		}
		b->layout = l;
		b->strict = b->root->strict;
		b->who = b->root->who;
	}
}
