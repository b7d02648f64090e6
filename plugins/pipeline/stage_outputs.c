/* stage_outputs.c - the `stage-outputs` pass: a gemm accumulator copied
 * into a global tensor goes through shared memory, so that it leaves by
 * TMA stores.
 *
 *   T.copy(C_local, C[by * bm, bx * bn])
 * becomes
 *   C_local_out = T.alloc_shared((bm, bn), C.dtype)     (at the kernel's top)
 *   T.copy(C_local, C_local_out)
 *   T.copy(C_local_out, C[by * bm, bx * bn])
 * which is what a kernel author writes for a staged epilogue by hand.
 * layout-inference then swizzles the staged tile (its preference for
 * output tiles), and lower-tile-ops makes the second copy a TMA store.
 *
 * Why: an accumulator's layout (an MMA's) gives each thread pairs of
 * elements on rows 8 apart, so its direct stores write 8 rows x 16 bytes
 * per warp instruction, and the warps wait for them; through shared
 * memory the tile leaves in whole 128-byte lines from one thread, and the
 * others go on (bench/notes/hopper-gemm.md has the measurements).
 *
 * Which copies: a whole 2-D fragment with the shape of a gemm accumulator
 * of the kernel (fragments of element-wise code keep their stores: their
 * free layout already writes 16-byte vectors along rows) into a 2-D tile
 * of a global tensor, at the kernel's top level or at the top level of a
 * T.ws scope there, on a target with TMA, where lower-tile-ops can make
 * the TMA store (tlc_tma_store_region, which lower-tile-ops asks too) and
 * the staged tile fits: the kernel's shared
 * buffers plus the staged tiles within the target's shared memory per
 * block, shared by the blocks per SM the kernel is launched for
 * ("tlc.min_blocks"), so that staging never costs occupancy.  Options
 * `enable` (default true) and `remarks` (a note saying why an accumulator
 * copied into a global tensor is not staged). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/bounds.h>
#include <tlc/diag.h>
#include <tlc/target.h>
#include <tlc/tileops.h>
#include <tlc/walk.h>

#include "pipeline.h"

#define SO_MAX_GEMMS 16

/* What the kernel's shared memory and gemms are. */
typedef struct so_state {
	tlc_module *m;
	tlc_func *f;
	const tlc_target_info *t;
	tlc_ranges ranges;   /* the block indices */
	int64_t smem;        /* bytes of the kernel's shared buffers, staged tiles included */
	int64_t smem_budget; /* what a block may use */
	int64_t blocks;      /* blocks per SM the kernel is launched for */
	bool remarks;        /* option remarks: say why a copy is not staged */
	int ngemm;
	int64_t acc_shape[SO_MAX_GEMMS][2];
	int nstaged;
	tlc_stmt *allocs;    /* the staged tiles' allocations */
	bool failed;
} so_state;

static tlc_walk_action survey(void *p, const tlc_stmt *s)
{
	so_state *st = p;
	int64_t bytes;
	if (s->kind == TLC_STMT_ALLOC && tlc_buffer_in_shared(s->u.alloc.buf)) {
		if (tlc_buffer_bytes(s->u.alloc.buf, &bytes))
			st->smem += bytes;
		else
			st->failed = true; /* a size not known: leave the kernel alone */
	}
	if (tlc_stmt_is_call(s, TLC_OP_GEMM) || tlc_stmt_is_call(s, TLC_OP_WGMMA_GEMM)) {
		tlc_gemm_info g;
		const char *why = NULL;
		if (st->ngemm < SO_MAX_GEMMS && tlc_gemm_decode(s->u.eval.call, &g, &why)) {
			st->acc_shape[st->ngemm][0] = g.M;
			st->acc_shape[st->ngemm][1] = g.N;
			st->ngemm++;
		}
	}
	return TLC_WALK_CONTINUE;
}

/* A copy that is not staged (NULL), with a note saying why under option
 * remarks. */
static tlc_stmt *not_staged(so_state *st, const tlc_stmt *s, const tlc_buffer *F, const tlc_buffer *G,
                            const char *why)
{
	if (st->remarks)
		tlc_note(tlc_module_context(st->m), s->loc, "stage-outputs: '%s' goes to '%s' directly, not through shared "
		                                            "memory and a TMA store: %s",
		         F->name, G->name, why);
	return NULL;
}

static bool is_accumulator_shape(const so_state *st, int64_t rows, int64_t cols)
{
	for (int i = 0; i < st->ngemm; i++)
		if (st->acc_shape[i][0] == rows && st->acc_shape[i][1] == cols)
			return true;
	return false;
}

/* The staged copies of s, or NULL when s is not a copy to stage. */
static tlc_stmt *stage(so_state *st, tlc_stmt *s)
{
	tlc_module *m = st->m;
	if (!tlc_stmt_is_call(s, TLC_OP_COPY) || s->u.eval.call->u.call.nargs != 2)
		return NULL;
	const tlc_expr *const *args = s->u.eval.call->u.call.args;
	tlc_tile_operand src, dst;
	const char *why = NULL;
	if (!tlc_tile_operand_from_expr(m, args[0], &src, &why) || !tlc_tile_operand_from_expr(m, args[1], &dst, &why))
		return NULL;
	tlc_buffer *F = src.buf, *G = dst.buf;
	int64_t rows, cols;
	int row_dim;
	if (F->scope != TLC_SCOPE_FRAGMENT || F->ndim != 2 || !tlc_tile_operand_is_whole(m, &src) ||
	    !tlc_expr_as_int(F->shape[0], &rows) || !tlc_expr_as_int(F->shape[1], &cols) ||
	    !is_accumulator_shape(st, rows, cols) || G->scope != TLC_SCOPE_GLOBAL)
		return NULL;
	/* staged for a TMA store, which a tensor at a run-time address cannot take */
	if (tlc_buffer_storage(G)->base)
		return NULL;
	/* an accumulator on its way to a global tensor: from here on, say why
	 * it stays as it is */
	int esize = tlc_dtype_bits(G->dtype) / 8;
	int64_t bytes = rows * cols * esize;
	if (!tlc_tma_store_region(m, st->f, &st->ranges, &dst, rows, cols, &row_dim, &why))
		return not_staged(st, s, F, G, why);
	if ((cols * esize) % 16)
		return not_staged(st, s, F, G, "the tile's rows are not a multiple of 16 bytes (TMA boxes)");
	if (st->smem + bytes > st->smem_budget) {
		char b[160];
		snprintf(b, sizeof b,
		         "a %lld-byte tile would not fit beside the kernel's %lld bytes of shared memory at %lld block(s) "
		         "per SM",
		         (long long)bytes, (long long)st->smem, (long long)st->blocks);
		return not_staged(st, s, F, G, tlc_intern(m, b));
	}

	char name[256];
	snprintf(name, sizeof name, "%s_out", F->name);
	const tlc_expr *shape[2] = {F->shape[0], F->shape[1]};
	tlc_buffer *S = tlc_buffer_new(m, tlc_intern(m, name), G->dtype, TLC_SCOPE_SHARED_DYN, 2, shape, s->loc);
	tlc_seq_append(m, st->allocs, tlc_alloc_new(m, s->loc, S));
	st->smem += bytes;
	st->nstaged++;
	tlc_stmt *out = tlc_seq_new(m, s->loc);
	const tlc_expr *to_shared[2] = {args[0], tlc_buf_ref(m, S)};
	const tlc_expr *to_global[2] = {tlc_buf_ref(m, S), args[1]};
	tlc_seq_append(m, out, tlc_eval_new(m, s->loc, tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2, to_shared, 0, NULL, NULL)));
	tlc_seq_append(m, out, tlc_eval_new(m, s->loc, tlc_call(m, TLC_OP_COPY, TLC_DT_VOID, 2, to_global, 0, NULL, NULL)));
	return out;
}

/* Stage the copies among the items of block b (in place). */
static void stage_block(so_state *st, tlc_stmt *b)
{
	if (!b || b->kind != TLC_STMT_SEQ)
		return;
	tlc_stmt *out = tlc_seq_new(st->m, b->loc);
	bool changed = false;
	for (int i = 0; i < b->u.seq.n; i++) {
		tlc_stmt *s = b->u.seq.items[i];
		if (s->kind == TLC_STMT_SCOPE)
			stage_block(st, s->u.scope.body);
		tlc_stmt *staged = stage(st, s);
		if (!staged) {
			tlc_seq_append(st->m, out, s);
			continue;
		}
		changed = true;
		for (int k = 0; k < staged->u.seq.n; k++)
			tlc_seq_append(st->m, out, staged->u.seq.items[k]);
	}
	if (changed)
		*b = *out;
}

int pl_run_stage_outputs(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	const tlc_target_info *t = tlc_module_target_info(m);
	if (!tlc_opt_bool(opts, "enable", true) || !t || !(t->async_copy & TLC_ASYNC_TMA) || !f->body ||
	    f->body->kind != TLC_STMT_SEQ)
		return 0;
	so_state st = {.m = m,
	               .f = f,
	               .t = t,
	               .allocs = tlc_seq_new(m, f->body->loc),
	               .remarks = tlc_opt_bool(opts, "remarks", false)};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &st, .stmt_pre = survey}, f->body);
	if (st.failed || !st.ngemm)
		return 0;
	/* the blocks an SM holds at once share its shared memory */
	int64_t blocks = 1;
	for (int i = 0; i < f->nattrs; i++)
		if (strcmp(f->attr_keys[i], "tlc.min_blocks") == 0 &&
		    (!tlc_expr_as_int(f->attr_values[i], &blocks) || blocks < 1))
			blocks = 1;
	st.blocks = blocks;
	st.smem_budget = tlc_target_smem_per_block(t, blocks);
	/* block indices run from 0 below the grid's extent (as lower-tile-ops
	 * bounds them) */
	for (int d = 0; d < f->grid_ndim && d < 3; d++) {
		int64_t lo, hi;
		if (!f->block_vars[d])
			continue;
		if (tlc_expr_bounds(&st.ranges, f->grid[d], &lo, &hi) && hi >= 1)
			tlc_ranges_push(&st.ranges, f->block_vars[d], 0, hi - 1);
		else
			tlc_ranges_push(&st.ranges, f->block_vars[d], 0, INT32_MAX); /* never negative */
	}
	stage_block(&st, f->body);
	if (st.nstaged) {
		/* the staged tiles are declared first, with the kernel's other buffers */
		for (int i = 0; i < f->body->u.seq.n; i++)
			tlc_seq_append(m, st.allocs, f->body->u.seq.items[i]);
		f->body->u.seq.n = st.allocs->u.seq.n;
		f->body->u.seq.cap = st.allocs->u.seq.cap;
		f->body->u.seq.items = st.allocs->u.seq.items;
	}
	tlc_ranges_free(&st.ranges);
	return 0;
}
