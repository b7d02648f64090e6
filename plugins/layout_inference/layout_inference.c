/* layout_inference.c - the `layout-inference` pass: a layout for every fragment
 * (and for every shared operand of a gemm) and a thread mapping for every
 * T.Parallel nest and element-wise tile op.
 *
 * Levels, in order:
 *   strict  layouts an instruction needs to be correct (the mma.sync
 *           accumulator and register A operand) and the user's fragments;
 *   common  what follows from them: a nest takes the layout of a fragment it
 *           accesses whole, and gives its projections to fragments it
 *           accesses in fewer dimensions; a reduction's result is the
 *           projection of its source;
 *   free    fragments nobody constrains get a partition of their own shape
 *           (vectors of 16 bytes, consecutive threads along the last
 *           dimension); common runs again after each free step.
 * Every round computes all proposals from the state at its start, then merges
 * them with a rule that ignores the order they came in: a strict layout beats
 * any other, two different strict layouts for one buffer are an error naming
 * both ops, and among free choices the least replicated, then the smallest
 * in a fixed total order, wins.  So permuting independent ops never changes
 * the result.
 *
 * Shared operands of gemms and shared tiles copied into global tensors
 * (outputs staged through shared memory) without a user layout get the
 * widest swizzle their rows allow: a bank-conflict preference, so a user
 * layout (and later the strict layouts of TMA and WGMMA) always wins.
 *
 * Output: one T.annotate_layout({...}) statement after the kernel's
 * allocations listing every layout, loop_layout= on each T.Parallel nest and
 * on each element-wise tile op that touches a fragment. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/plugin.h>
#include <tlc/walk.h>

#include "layout_inference.h"

static void merge_error(li_state *st, const li_buf *b, const char *who1, const tlc_layout *l1, const char *who2,
                        const tlc_layout *l2)
{
	tlc_buf d1, d2;
	tlc_buf_init(&d1);
	tlc_buf_init(&d2);
	tlc_layout_describe(&d1, l1);
	tlc_layout_describe(&d2, l2);
	/* the thread maps tell two fragments of one shape apart */
	if (l1->kind == TLC_LAYOUT_FRAGMENT && l2->kind == TLC_LAYOUT_FRAGMENT) {
		tlc_buf_puts(&d1, " (thread ");
		tlc_print_expr(&d1, st->m, l1->thread);
		tlc_buf_puts(&d1, ")");
		tlc_buf_puts(&d2, " (thread ");
		tlc_print_expr(&d2, st->m, l2->thread);
		tlc_buf_puts(&d2, ")");
	}
	tlc_error(st->ctx, b->buf->loc,
	          "conflicting layouts for '%s': %s needs %s, but %s needs %s; use two buffers and copy between them",
	          b->buf->name, who1, tlc_buf_str(&d1), who2, tlc_buf_str(&d2));
	tlc_buf_free(&d1);
	tlc_buf_free(&d2);
	st->errors++;
}

/* Apply one round of proposals; true if some buffer got a layout. */
static bool merge(li_state *st, li_proposals *p)
{
	bool changed = false;
	li_views_to_roots(st, p);
	for (int i = 0; i < st->nbufs; i++) {
		li_buf *b = st->bufs[i];
		const li_proposal *pick = NULL;
		for (int k = 0; k < p->n; k++) {
			const li_proposal *q = &p->items[k];
			if (q->b != b)
				continue;
			if (b->layout) {
				if (q->strict && b->strict && !tlc_layout_equal(q->l, b->layout)) {
					merge_error(st, b, b->who, b->layout, q->who, q->l);
					return false;
				}
				continue;
			}
			if (!pick) {
				pick = q;
				continue;
			}
			if (q->strict && pick->strict) {
				if (!tlc_layout_equal(q->l, pick->l)) {
					/* name the two ops in a fixed order */
					bool first = strcmp(pick->who, q->who) < 0;
					merge_error(st, b, first ? pick->who : q->who, first ? pick->l : q->l,
					            first ? q->who : pick->who, first ? q->l : pick->l);
					return false;
				}
				continue;
			}
			if (q->strict != pick->strict) {
				if (q->strict)
					pick = q;
				continue;
			}
			if (q->l->replicate < pick->l->replicate ||
			    (q->l->replicate == pick->l->replicate && li_layout_cmp(q->l, pick->l) < 0))
				pick = q;
		}
		if (pick && !b->layout) {
			b->layout = pick->l;
			b->strict = pick->strict;
			b->who = pick->who;
			changed = true;
		}
	}
	p->n = 0;
	li_views_follow(st);
	return changed;
}

static void seed_user_layouts(li_state *st)
{
	li_proposals p = {0};
	for (int i = 0; i < st->nbufs; i++) {
		li_buf *b = st->bufs[i];
		if (b->buf->layout && b->buf->layout->kind == TLC_LAYOUT_FRAGMENT)
			li_propose(&p, b, b->buf->layout, true,
			           li_where(st, "T.annotate_layout of its declaration", b->buf->loc));
	}
	/* a user layout of a view is one of its fragment */
	li_views_to_roots(st, &p);
	for (int k = 0; k < p.n && !st->errors; k++) {
		li_buf *b = p.items[k].b;
		if (b->layout && !tlc_layout_equal(b->layout, p.items[k].l)) {
			merge_error(st, b, b->who, b->layout, p.items[k].who, p.items[k].l);
			break;
		}
		b->layout = p.items[k].l;
		b->strict = true;
		b->who = p.items[k].who;
	}
	tlc_mem_free(p.items);
	li_views_follow(st);
}

static int infer(li_state *st)
{
	li_proposals p = {0};
	seed_user_layouts(st);
	for (int i = 0; i < st->nops; i++)
		li_strict(st, &st->ops[i], &p);
	merge(st, &p);
	for (int guard = 0; !st->errors && guard < 256; guard++) {
		bool changed = false;
		for (int i = 0; i < st->nops; i++)
			changed |= li_common(st, &st->ops[i], &p, false);
		changed |= merge(st, &p);
		if (changed)
			continue;
		/* then what readers alone can say */
		for (int i = 0; i < st->nops; i++)
			changed |= li_common(st, &st->ops[i], &p, true);
		changed |= merge(st, &p);
		if (changed)
			continue;
		/* free choices of the highest rank first: a tile's partition
		 * decides the rows and columns of the vectors broadcast into it,
		 * not the other way round (a 1-D loop over a reduction's rows
		 * waits for the 2-D tile it was reduced from) */
		bool freed = false;
		for (int rank = LI_MAX_DIMS; rank > 0 && !freed; rank--) {
			for (int i = 0; i < st->nops; i++)
				if (li_free_rank(st, &st->ops[i]) == rank)
					freed |= li_free(st, &st->ops[i], &p);
			freed |= merge(st, &p);
		}
		if (!freed)
			break;
	}
	tlc_mem_free(p.items);
	return st->errors;
}

/* ---- results into the IR ---- */

static void add_pair(tlc_module *m, int *n, const tlc_expr **keys, const tlc_expr **vals, tlc_buffer *b,
                     const tlc_layout *l)
{
	keys[*n] = tlc_buf_ref(m, b);
	vals[*n] = tlc_layout_to_expr(m, l);
	(*n)++;
}

static bool is_annotate(const tlc_stmt *s)
{
	return tlc_stmt_is_call(s, TLC_OP_ANNOTATE_LAYOUT);
}

/* Shared buffer b gets the widest swizzle its rows allow, unless it has a
 * layout (the user's, or an earlier preference's). */
static void swizzle_shared_within(li_state *st, tlc_buffer *b, int64_t part_cols)
{
	if (!tlc_buffer_in_shared(b) || b->layout || b->ndim > TLC_LAYOUT_MAX_DIMS || b->ndim < 2)
		return;
	/* the versions of a pipelined buffer (leading dimensions) share the
	 * swizzle of the 2-D tile */
	int64_t shape[TLC_LAYOUT_MAX_DIMS];
	for (int d = 0; d < b->ndim; d++)
		if (!tlc_expr_as_int(b->shape[d], &shape[d]))
			return;
	/* a gemm reading parts of part_cols columns needs them in whole
	 * swizzle blocks: the widest swizzle such a part's rows allow */
	tlc_swizzle mode = tlc_swizzle_widest(part_cols ? part_cols : shape[b->ndim - 1], b->dtype);
	const char *why = NULL;
	if (mode != TLC_SWIZZLE_NONE)
		b->layout = tlc_layout_swizzled(st->m, b->ndim, shape, b->dtype, mode, &why);
}

static void swizzle_shared(li_state *st, tlc_buffer *b)
{
	swizzle_shared_within(st, b, 0);
}

/* The columns of the part of its 2-D tile that gemm operand k is, when it
 * takes fewer than all of them (0 otherwise). */
static int64_t part_cols(const tlc_gemm_info *g, int k)
{
	const tlc_buffer *b = k ? g->B : g->A;
	int64_t full;
	bool tr = k ? g->trans_B : g->trans_A;
	int64_t cols = k ? (tr ? g->K : g->N) : (tr ? g->M : g->K);
	if (!g->sub[k] || !tlc_expr_as_int(b->shape[b->ndim - 1], &full) || cols == full)
		return 0;
	return cols;
}

/* Output tiles staged through shared memory: the shared source of each
 * T.copy or T.tma_copy into a global tensor gets a swizzle. */
static tlc_walk_action swizzle_staged_output(void *p, const tlc_stmt *s)
{
	li_state *st = p;
	if ((!tlc_stmt_is_call(s, TLC_OP_COPY) && !tlc_stmt_is_call(s, TLC_OP_TMA_COPY)) ||
	    s->u.eval.call->u.call.nargs != 2)
		return TLC_WALK_CONTINUE;
	const tlc_expr *const *args = s->u.eval.call->u.call.args;
	tlc_tile_operand src, dst;
	const char *why = NULL;
	if (!tlc_tile_operand_from_expr(st->m, args[0], &src, &why) ||
	    !tlc_tile_operand_from_expr(st->m, args[1], &dst, &why))
		return TLC_WALK_CONTINUE;
	if (dst.buf->scope == TLC_SCOPE_GLOBAL)
		swizzle_shared(st, src.buf);
	/* the tiles warp-specialize's TMA producers fill: it cut their boxes
	 * for the widest swizzle (a box is at most tma_box_max elements wide,
	 * so a wide unswizzled tile could not be filled) */
	if (tlc_stmt_is_call(s, TLC_OP_TMA_COPY) && src.buf->scope == TLC_SCOPE_GLOBAL)
		swizzle_shared(st, dst.buf);
	return TLC_WALK_CONTINUE;
}

/* Bank-conflict preferences, which a user layout (and the strict layouts
 * of TMA and WGMMA) always beat: shared operands of gemms, and output
 * tiles staged through shared memory on their way to a global tensor (the
 * accumulator's fragment writes rows 8 apart, which a plain row-major tile
 * puts in the same banks; TMA stores read the swizzle as they are).  Gemm
 * operands first: their swizzle stands if a buffer is both. */
static void prefer_swizzles(li_state *st)
{
	for (int i = 0; i < st->nops; i++) {
		li_op *op = &st->ops[i];
		/* a part of whole rows of a tile wider than a swizzle block is
		 * a tile only of a row-major buffer: that one stays unswizzled */
		if (op->kind == LI_GEMM) {
			if (!tlc_gemm_part_unswizzled(&op->g, 0))
				swizzle_shared_within(st, op->g.A, part_cols(&op->g, 0));
			if (!tlc_gemm_part_unswizzled(&op->g, 1))
				swizzle_shared_within(st, op->g.B, part_cols(&op->g, 1));
		}
	}
	tlc_walk_stmt(&(tlc_visitor){.ctx = st, .stmt_pre = swizzle_staged_output}, st->f->body);
}

/* Every view of a fragment, wherever declared, follows its fragment, even
 * one no op touches (lower-tile-ops maps each onto its fragment's registers). */
static tlc_walk_action collect_view(void *p, const tlc_stmt *s)
{
	if (s->kind == TLC_STMT_ALLOC && s->u.alloc.buf->scope == TLC_SCOPE_FRAGMENT &&
	    s->u.alloc.buf->alias_of)
		li_buf_of(p, s->u.alloc.buf);
	return TLC_WALK_CONTINUE;
}

static void collect_top_buffers(li_state *st, const tlc_stmt *body)
{
	for (int i = 0; i < st->f->nparams; i++)
		if (st->f->params[i].kind == TLC_PARAM_TENSOR)
			li_buf_of(st, st->f->params[i].buf);
	for (int i = 0; body && body->kind == TLC_STMT_SEQ && i < body->u.seq.n; i++)
		if (body->u.seq.items[i]->kind == TLC_STMT_ALLOC)
			li_buf_of(st, body->u.seq.items[i]->u.alloc.buf);
	tlc_walk_stmt(&(tlc_visitor){.ctx = st, .stmt_pre = collect_view}, body);
}

static void write_annotation(li_state *st)
{
	tlc_stmt *body = st->f->body;
	int n = 0, last_alloc = -1;
	const tlc_expr **keys = tlc_alloc(st->m, sizeof(tlc_expr *) * (size_t)(st->nbufs + 1));
	const tlc_expr **vals = tlc_alloc(st->m, sizeof(tlc_expr *) * (size_t)(st->nbufs + 1));
	for (int i = 0; i < st->nbufs; i++) {
		li_buf *b = st->bufs[i];
		if (b->layout && b->buf->scope == TLC_SCOPE_FRAGMENT)
			b->buf->layout = b->layout;
		if (b->buf->layout)
			add_pair(st->m, &n, keys, vals, b->buf, b->buf->layout);
	}
	/* drop the user's annotations (their layouts are in the new one) */
	int w = 0;
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (is_annotate(s))
			continue;
		if (s->kind == TLC_STMT_ALLOC)
			last_alloc = w;
		body->u.seq.items[w++] = s;
	}
	body->u.seq.n = w;
	if (!n)
		return;
	tlc_stmt *ann = tlc_eval_new(st->m, body->loc,
	                             tlc_call(st->m, TLC_OP_ANNOTATE_LAYOUT, TLC_DT_VOID, 1,
	                                      (const tlc_expr *[]){tlc_dict(st->m, n, keys, vals)}, 0, NULL, NULL));
	tlc_seq_append(st->m, body, ann); /* grows the array; then move into place */
	for (int i = body->u.seq.n - 1; i > last_alloc + 1; i--)
		body->u.seq.items[i] = body->u.seq.items[i - 1];
	body->u.seq.items[last_alloc + 1] = ann;
}

static const tlc_expr *with_loop_layout(tlc_module *m, const tlc_expr *c, const tlc_expr *l)
{
	int nkw = c->u.call.nkw, k = 0;
	const char **names = tlc_alloc(m, sizeof(char *) * (size_t)(nkw + 1));
	const tlc_expr **vals = tlc_alloc(m, sizeof(tlc_expr *) * (size_t)(nkw + 1));
	for (int i = 0; i < nkw; i++)
		if (strcmp(c->u.call.kw_names[i], "loop_layout") != 0) {
			names[k] = c->u.call.kw_names[i];
			vals[k++] = c->u.call.kw_values[i];
		}
	names[k] = tlc_intern(m, "loop_layout");
	vals[k++] = l;
	return tlc_call(m, c->u.call.op, c->dtype, c->u.call.nargs, c->u.call.args, k, names, vals);
}

static void write_loops(li_state *st)
{
	for (int i = 0; i < st->nops; i++) {
		li_op *op = &st->ops[i];
		if (op->kind != LI_NEST || !op->loop)
			continue;
		const tlc_expr *l = tlc_layout_to_expr(st->m, op->loop);
		if (op->s->kind == TLC_STMT_FOR)
			op->s->u.loop.loop_layout = l;
		else
			op->s->u.eval.call = with_loop_layout(st->m, op->s->u.eval.call, l);
	}
}

/* A fragment lives on the threads of its layout; an op that runs on other
 * threads (a T.ws scope, a branch of an `if` on the thread index that
 * thread-split made one) would find none of its elements there: fragments
 * are not shared between branches. */
static void check_frag_threads(li_state *st, const li_op *op, const li_buf *b)
{
	const tlc_layout *l = b ? li_root(b)->layout : NULL;
	if (!l || l->kind != TLC_LAYOUT_FRAGMENT || b->buf->scope != TLC_SCOPE_FRAGMENT)
		return;
	if (l->thread_lo >= op->thread_lo && l->thread_lo + l->threads <= op->thread_lo + op->threads)
		return;
	tlc_error(st->ctx, op->s->loc,
	          "fragment '%s' lives on threads [%lld, %lld) (its layout from %s), but %s runs on threads [%lld, "
	          "%lld) (a T.ws scope or a branch of an 'if' on the thread index): give each branch its own "
	          "fragment",
	          b->buf->name, (long long)l->thread_lo, (long long)(l->thread_lo + l->threads),
	          li_root(b)->who ? li_root(b)->who : "another op", op->who, (long long)op->thread_lo,
	          (long long)(op->thread_lo + op->threads));
	st->errors++;
}

static void check_threads(li_state *st)
{
	for (int i = 0; i < st->nops && !st->errors; i++) {
		li_op *op = &st->ops[i];
		if (op->thread_lo == 0 && op->threads == st->threads)
			continue; /* the whole block holds every fragment's threads */
		switch (op->kind) {
		case LI_NEST:
			for (int k = 0; k < op->nacc; k++)
				check_frag_threads(st, op, op->acc[k].b);
			break;
		case LI_GEMM:
			check_frag_threads(st, op, li_buf_of(st, op->g.C));
			if (op->g.A->scope == TLC_SCOPE_FRAGMENT)
				check_frag_threads(st, op, li_buf_of(st, op->g.A));
			break;
		case LI_REDUCE:
			check_frag_threads(st, op, op->src);
			check_frag_threads(st, op, op->dst);
			break;
		}
	}
}

static int run_layout_inference(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	(void)opts;
	tlc_context *ctx = tlc_module_context(m);
	li_state st = {.m = m, .ctx = ctx, .f = f, .threads = 1};
	for (int d = 0; d < f->thread_ndim && d < 3; d++) {
		int64_t t;
		if (!tlc_expr_as_int(f->threads[d], &t) || t <= 0) {
			tlc_error(ctx, f->loc, "layout inference needs compile-time thread counts in T.Kernel");
			return 1;
		}
		st.threads *= t;
	}
	if (!f->body || f->body->kind != TLC_STMT_SEQ)
		return 0;
	collect_top_buffers(&st, f->body);
	li_collect(&st, f->body);
	if (!st.errors)
		infer(&st);
	if (!st.errors)
		check_threads(&st);
	if (!st.errors) {
		for (int i = 0; i < st.nbufs; i++)
			if (st.bufs[i]->buf->scope == TLC_SCOPE_FRAGMENT && !st.bufs[i]->layout &&
			    !st.bufs[i]->root) {
				/* touched by nothing that maps threads: each thread keeps a copy */
				int64_t shape[LI_MAX_DIMS];
				const tlc_buffer *b = st.bufs[i]->buf;
				bool ok = b->ndim <= LI_MAX_DIMS;
				for (int d = 0; ok && d < b->ndim; d++)
					ok = tlc_expr_as_int(b->shape[d], &shape[d]);
				if (ok)
					st.bufs[i]->layout = tlc_fragment_replicated(m, b->ndim, shape, st.threads, 0);
			}
		li_views_follow(&st);
	}
	if (!st.errors) {
		prefer_swizzles(&st);
		write_annotation(&st);
		write_loops(&st);
	}
	tlc_mem_free(st.bufs);
	tlc_mem_free(st.ops);
	return st.errors ? 1 : 0;
}

static const tlc_pass_option no_options[] = {{NULL, TLC_OPT_BOOL, NULL}};

static const tlc_pass_desc layout_inference_pass = {
	.name = "layout-inference",
	.summary = "choose layouts for fragments and shared gemm operands and thread mappings for T.Parallel nests",
	.run = run_layout_inference,
	.options = no_options,
};

static int layout_inference_init(tlc_registry *reg)
{
	return tlc_register_pass(reg, &layout_inference_pass);
}

static const tlc_plugin_desc layout_inference_plugin = {
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
	.name = "layout_inference",
	.version = "0.1.0",
	.description = "the layout-inference pass",
	.init = layout_inference_init,
};

TLC_DEFINE_PLUGIN(layout_inference_plugin)
