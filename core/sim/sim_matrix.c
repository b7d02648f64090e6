/* sim_matrix.c - matrix instructions at the thread level: T.mma_gemm
 * (mma.sync, synchronous) and T.wgmma_issue / T.wait_wgmma /
 * T.warpgroup_fence_operand (WGMMA, asynchronous) (doc/sim.md).
 *
 * Which register of which thread holds which accumulator element is not
 * written here: it is the layout algebra's fragment of the target's matrix
 * instruction tiled over the call's grid of thread groups
 * (tlc_fragment_tile of the instruction's C atom, as tlc_gemm_plan_for
 * builds it for lowering), and an A operand in registers is read through
 * the instruction's A fragment the same way.  Shared operands are read
 * through the call's layout_A / layout_B (logical element -> offset from
 * the operand's first element).  So the simulator computes what the
 * lowered code's registers must hold if lowering, the layout algebra and
 * the target's device helpers agree; a disagreement shows as a mismatch
 * against the tile level.
 *
 * Each call's products are summed in float64 and added to the accumulator
 * once, rounded to its type.  Every thread of the instruction's groups
 * must run the call (they are collective instructions).  A WGMMA group's
 * operand reads belong to its warpgroup's WGMMA unit (sim_order.c) until
 * T.wait_wgmma lets the group go; its results land in the accumulator
 * then.  Touching the accumulator while a group writing it is in flight,
 * or after the wait but before T.warpgroup_fence_operand (the compiler may
 * then move the access above the wait: seed 000), is an error. */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlc/access.h>
#include <tlc/layout.h>
#include <tlc/target.h>

/* One call site's shapes and maps, computed once. */
typedef struct sim_gemm {
	struct sim_gemm *next;
	const tlc_stmt *st;
	int64_t M, N, K, lo, nthreads, group_threads, regs;
	int gm, gn;
	bool ta, tb;
	bool tf32_a, tf32_b; /* the instruction reads that float32 operand as TF32 */
	int32_t *c_at;   /* (thread - lo) * regs + reg -> i * N + j; -1: none */
	int64_t *a_off;  /* i * K + k -> offset from A's first element (A in shared) */
	int64_t *b_off;  /* k * N + j -> offset from B's first element */
	int64_t *a_slot; /* A in registers: (group * M + i) * K + k -> thread * a_regs + reg */
	int64_t a_regs;
} sim_gemm;

typedef struct sim_wgmma {
	int64_t wg, lo, n, regs; /* the warpgroup, its threads, registers each */
	sim_array *c;
	double *delta; /* per (thread - lo, reg); NaN where the group writes nothing */
	bool accumulate;
	sim_clock clock; /* the WGMMA unit's clock of its operand reads */
	const tlc_stmt *st;
} sim_wgmma;

/* (thread, register) of a fragment's logical element idx, replica rep
 * (digit form, tlc/layout.h); the thread relative to f->thread_lo. */
static void frag_slot(const tlc_layout *f, const int64_t *idx, int64_t rep, int64_t *thread, int64_t *reg)
{
	int64_t t = 0, r = 0;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *d = &f->digits[k];
		int64_t v;
		if (d->dim < 0) {
			v = rep % d->radix;
			rep /= d->radix;
		} else {
			v = idx[d->dim] / d->stride % d->radix;
		}
		if (d->is_thread)
			t += v * d->weight;
		else
			r += v * d->weight;
	}
	*thread = t;
	*reg = r;
}

static int64_t kw_int(sim *s, const tlc_expr *call, const char *name, int64_t dflt, tlc_loc loc)
{
	const tlc_expr *x = tlc_call_kw(call, name);
	return x ? sim_eval_int(s, x, loc) : dflt;
}

/* Offsets of a shared operand's logical (rows x cols) elements through
 * its layout (row-major without one). */
static int64_t *operand_offsets(sim *s, const tlc_expr *lx, int64_t rows, int64_t cols, const char *which, tlc_loc loc)
{
	const tlc_layout *l = NULL;
	if (lx) {
		const char *why = NULL;
		l = tlc_layout_from_expr(s->m, lx, &why);
		if (!l || l->kind == TLC_LAYOUT_FRAGMENT || l->ndim != 2 || l->shape[0] != rows || l->shape[1] != cols) {
			sim_fail(s, loc, "layout_%s is not a %lldx%lld memory layout%s%s", which, (long long)rows, (long long)cols,
			         why ? ": " : "", why ? why : "");
			return NULL;
		}
	}
	int64_t *off = tlc_xmalloc((size_t)(rows * cols) * sizeof(int64_t));
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++) {
			int64_t idx[2] = {i, j}, flat = i * cols + j;
			if (l && !tlc_layout_eval(l, idx, &flat)) {
				free(off);
				sim_fail(s, loc, "layout_%s cannot be evaluated at (%lld, %lld)", which, (long long)i, (long long)j);
				return NULL;
			}
			off[i * cols + j] = flat;
		}
	return off;
}

static void gemm_free(sim_gemm *g)
{
	free(g->c_at);
	free(g->a_off);
	free(g->b_off);
	free(g->a_slot);
	free(g);
}

void sim_wgmma_reset(sim *s)
{
	for (int i = 0; i < s->nwgmmas; i++)
		free(s->wgmmas[i].delta);
	s->nwgmmas = 0;
}

void sim_matrix_free(sim *s)
{
	while (s->gemms) {
		sim_gemm *g = s->gemms;
		s->gemms = g->next;
		gemm_free(g);
	}
	for (int i = 0; i < s->nwgmmas; i++)
		free(s->wgmmas[i].delta);
	free(s->wgmmas);
	s->wgmmas = NULL;
	s->nwgmmas = s->cap_wgmmas = 0;
}

/* The maps of the call at st (wgmma: a WGMMA call, else mma_gemm). */
static sim_gemm *gemm_of(sim *s, const tlc_stmt *st, bool wgmma)
{
	for (sim_gemm *g = s->gemms; g; g = g->next)
		if (g->st == st)
			return g;
	const tlc_expr *c = st->u.eval.call;
	const tlc_expr *A = c->u.call.args[0], *B = c->u.call.args[1], *C = c->u.call.args[2];
	const tlc_buffer *ab = A->kind == TLC_EXPR_BUF ? A->u.buf : A->kind == TLC_EXPR_LOAD ? A->u.load.buf : NULL;
	const tlc_buffer *bb = B->kind == TLC_EXPR_BUF ? B->u.buf : B->kind == TLC_EXPR_LOAD ? B->u.load.buf : NULL;
	const char *name = wgmma ? "T.wgmma_issue" : "T.mma_gemm";
	if (!ab || !bb || C->kind != TLC_EXPR_BUF || !tlc_buffer_in_shared(bb)) {
		sim_fail(s, st->loc, "%s(A, B, C, ...): A and B shared tiles (A may be a register fragment), C the accumulator",
		         name);
		return NULL;
	}
	const tlc_target_info *info = tlc_module_target_info(s->m);
	sim_gemm *g = tlc_xcalloc(1, sizeof(*g));
	g->st = st;
	g->M = kw_int(s, c, "M", 0, st->loc);
	g->N = kw_int(s, c, "N", 0, st->loc);
	g->K = kw_int(s, c, "K", 0, st->loc);
	g->gm = (int)kw_int(s, c, wgmma ? "wg_m" : "warp_m", 1, st->loc);
	g->gn = (int)kw_int(s, c, wgmma ? "wg_n" : "warp_n", 1, st->loc);
	g->ta = kw_int(s, c, "transpose_A", 0, st->loc) != 0;
	g->tb = kw_int(s, c, "transpose_B", 0, st->loc) != 0;
	g->lo = kw_int(s, c, "thread_lo", 0, st->loc);
	if (s->stop || g->M < 1 || g->N < 1 || g->K < 1 || g->gm < 1 || g->gn < 1 || g->M % g->gm || g->N % g->gn ||
	    g->M * g->N > (1 << 22) || g->K > (1 << 16)) {
		gemm_free(g);
		if (!s->stop)
			sim_fail(s, st->loc, "%s needs M, N, K and a grid of thread groups that divides the tile", name);
		return NULL;
	}
	int group = wgmma ? (info ? info->warpgroup : 0) : (int)s->warp_size;
	const tlc_matrix_inst *x = tlc_target_matrix_of_call(info, c, group);
	if (x && x->threads != group)
		x = NULL; /* a warpgroup instruction named in a T.mma_gemm, or the reverse */
	const char *why = NULL;
	const tlc_layout *atom = x ? tlc_frag_atom_layout(s->m, &x->frag_c, x->threads, 0, &why) : NULL;
	const tlc_layout *cf =
	    atom ? tlc_fragment_tile(s->m, atom, g->M, g->N, g->gm, g->gn, true, true, g->lo, &why) : NULL;
	if (!cf) {
		sim_fail(s, st->loc, "%s: the target has no %s instruction for %s x %s -> %s over %lldx%lld%s%s", name,
		         wgmma ? "warpgroup" : "warp", tlc_dtype_name(ab->dtype), tlc_dtype_name(bb->dtype),
		         tlc_dtype_name(C->u.buf->dtype), (long long)g->M, (long long)g->N, why ? ": " : "", why ? why : "");
		gemm_free(g);
		return NULL;
	}
	/* the instruction multiplies whole k steps (k_pack of them at once):
	 * the target's helper takes K in those steps, so a K that is not a
	 * multiple would not compute the sum written here */
	int64_t kp = kw_int(s, c, "k_pack", 1, st->loc);
	if (!s->stop && (kp < 1 || g->K % (x->k * kp))) {
		sim_fail(s, st->loc, "%s: K = %lld is not a multiple of %lld, the k of %s%s", name, (long long)g->K,
		         (long long)(x->k * (kp < 1 ? 1 : kp)), x->name, kp > 1 ? " times k_pack" : "");
		gemm_free(g);
		return NULL;
	}
	g->group_threads = x->threads;
	g->tf32_a = (x->a_from & TLC_MMA_READS_TF32) != 0;
	g->tf32_b = (x->b_from & TLC_MMA_READS_TF32) != 0;
	g->nthreads = (int64_t)g->gm * g->gn * x->threads;
	g->regs = tlc_layout_phys_size(cf);
	g->c_at = tlc_xmalloc((size_t)(g->nthreads * g->regs) * sizeof(int32_t));
	memset(g->c_at, 0xff, (size_t)(g->nthreads * g->regs) * sizeof(int32_t));
	for (int64_t rep = 0; rep < cf->replicate; rep++)
		for (int64_t i = 0; i < g->M; i++)
			for (int64_t j = 0; j < g->N; j++) {
				int64_t idx[2] = {i, j}, t, r;
				frag_slot(cf, idx, rep, &t, &r);
				if (t < g->nthreads && r < g->regs)
					g->c_at[t * g->regs + r] = (int32_t)(i * g->N + j);
			}
	if (tlc_buffer_in_shared(ab)) {
		g->a_off = operand_offsets(s, tlc_call_kw(c, "layout_A"), g->ta ? g->K : g->M, g->ta ? g->M : g->K, "A",
		                           st->loc);
	} else {
		const tlc_layout *aa = x->frag_a.ndigits ? tlc_frag_atom_layout(s->m, &x->frag_a, x->threads, 0, &why) : NULL;
		const tlc_layout *af =
		    aa ? tlc_fragment_tile(s->m, aa, g->M, g->K, g->gm, g->gn, true, false, g->lo, &why) : NULL;
		if (!af || g->ta) {
			gemm_free(g);
			sim_fail(s, st->loc, "%s: A in registers needs the instruction's A fragment%s%s", name, why ? ": " : "",
			         why ? why : "");
			return NULL;
		}
		/* each group reads A from its own threads' registers */
		int64_t groups = (int64_t)g->gm * g->gn;
		g->a_regs = tlc_layout_phys_size(af);
		g->a_slot = tlc_xmalloc((size_t)(groups * g->M * g->K) * sizeof(int64_t));
		memset(g->a_slot, 0xff, (size_t)(groups * g->M * g->K) * sizeof(int64_t));
		for (int64_t rep = 0; rep < af->replicate; rep++)
			for (int64_t i = 0; i < g->M; i++)
				for (int64_t k = 0; k < g->K; k++) {
					int64_t idx[2] = {i, k}, t, r;
					frag_slot(af, idx, rep, &t, &r);
					int64_t grp = t / g->group_threads;
					if (grp < groups)
						g->a_slot[(grp * g->M + i) * g->K + k] = t * g->a_regs + r;
				}
	}
	if (!s->stop)
		g->b_off = operand_offsets(s, tlc_call_kw(c, "layout_B"), g->tb ? g->N : g->K, g->tb ? g->K : g->N, "B",
		                           st->loc);
	if (s->stop) {
		gemm_free(g);
		return NULL;
	}
	g->next = s->gemms;
	s->gemms = g;
	return g;
}

/* The operands of one call, as arrays and first elements. */
typedef struct operands {
	sim_array *a, *b, *c;
	const tlc_buffer *abuf, *bbuf, *cbuf;
	int64_t a0, b0;
} operands;

static int64_t first_element(sim *s, const tlc_expr *x, sim_array **a, tlc_loc loc)
{
	if (x->kind == TLC_EXPR_BUF) {
		*a = sim_array_of(s, x->u.buf, loc);
		return *a ? 0 : -1;
	}
	return sim_vector_at(s, x, a, 1, loc);
}

static bool get_operands(sim *s, const tlc_stmt *st, const sim_gemm *g, operands *o)
{
	const tlc_expr *c = st->u.eval.call;
	o->abuf = c->u.call.args[0]->kind == TLC_EXPR_BUF ? c->u.call.args[0]->u.buf : c->u.call.args[0]->u.load.buf;
	o->bbuf = c->u.call.args[1]->kind == TLC_EXPR_BUF ? c->u.call.args[1]->u.buf : c->u.call.args[1]->u.load.buf;
	o->cbuf = c->u.call.args[2]->u.buf;
	int64_t tid = s->tid;
	s->tid = g->lo; /* operand indices are uniform over the group */
	o->a0 = g->a_off ? first_element(s, c->u.call.args[0], &o->a, st->loc) : 0;
	if (!g->a_off)
		o->a = sim_array_of(s, o->abuf, st->loc);
	o->b0 = s->stop ? -1 : first_element(s, c->u.call.args[1], &o->b, st->loc);
	o->c = s->stop ? NULL : sim_array_of(s, o->cbuf, st->loc);
	s->tid = tid;
	if (s->stop || !o->a || !o->b || !o->c || o->a0 < 0 || o->b0 < 0)
		return false;
	/* every offset the layouts give must stay inside the operands */
	int64_t amax = 0, bmax = 0;
	for (int64_t e = 0; g->a_off && e < g->M * g->K; e++)
		amax = g->a_off[e] > amax ? g->a_off[e] : amax;
	for (int64_t e = 0; e < g->K * g->N; e++)
		bmax = g->b_off[e] > bmax ? g->b_off[e] : bmax;
	if ((g->a_off && o->a0 + amax >= o->a->numel) || o->b0 + bmax >= o->b->numel) {
		bool a_out = g->a_off && o->a0 + amax >= o->a->numel;
		sim_fail(s, st->loc, "out-of-bounds access: the %s operand's tile runs to element %lld of '%s' (%lld elements)",
		         a_out ? "A" : "B", (long long)(a_out ? o->a0 + amax : o->b0 + bmax),
		         a_out ? o->abuf->name : o->bbuf->name, (long long)(a_out ? o->a->numel : o->b->numel));
		return false;
	}
	if (!o->c->thread_stride || o->c->numel < g->regs) {
		sim_fail(s, st->loc, "the accumulator '%s' needs %lld registers per thread", o->cbuf->name, (long long)g->regs);
		return false;
	}
	if (!g->a_off && (!o->a->thread_stride || o->a->numel < g->a_regs)) {
		sim_fail(s, st->loc, "the A fragment '%s' needs %lld registers per thread", o->abuf->name, (long long)g->a_regs);
		return false;
	}
	return true;
}

/* Every thread of the call's groups runs it. */
static bool all_run(sim *s, const tlc_stmt *st, const sim_gemm *g, const sim_mask *m, const char *name)
{
	for (int64_t t = g->lo; t < g->lo + g->nthreads; t++)
		if (t >= s->nthreads || !m->on[t]) {
			char after[160];
			sim_fail(s, st->loc,
			         "%s is collective over threads [%lld, %lld) and thread %lld does not run it (%lld threads do; %s)",
			         name, (long long)g->lo, (long long)(g->lo + g->nthreads), (long long)t, (long long)m->n,
			         sim_after(s, after, sizeof after));
			return false;
		}
	return true;
}

/* An operand element as a number (integer operands' products and sums of
 * up to 2^16 terms are exact in float64). */
static double number(const sim_array *a, sim_val v)
{
	return tlc_dtype_is_float(a->dtype) ? v.f : (double)v.i;
}

/* An operand as the instruction reads it: TF32 keeps the top 10 mantissa
 * bits of a float32 (tlc_tf32_truncate). */
static double as_read(double v, bool tf32)
{
	return tf32 ? (double)tlc_tf32_truncate((float)v) : v;
}

static double a_value(const sim_gemm *g, const operands *o, int64_t grp, int64_t i, int64_t k)
{
	if (g->a_off)
		return as_read(number(o->a, sim_array_get(o->a, o->a0 + g->a_off[g->ta ? k * g->M + i : i * g->K + k])),
		               g->tf32_a);
	int64_t slot = g->a_slot[(grp * g->M + i) * g->K + k];
	int64_t t = g->lo + slot / g->a_regs, r = slot % g->a_regs;
	return as_read(number(o->a, sim_array_get(o->a, t * o->a->thread_stride + r)), g->tf32_a);
}

static double b_value(const sim_gemm *g, const operands *o, int64_t k, int64_t j)
{
	return as_read(number(o->b, sim_array_get(o->b, o->b0 + g->b_off[g->tb ? j * g->K + k : k * g->N + j])),
	               g->tf32_b);
}

/* The shared bytes group grp reads, as reads of `agent`. */
static void touch_operands(sim *s, const sim_gemm *g, const operands *o, int64_t grp, int64_t agent, tlc_loc loc)
{
	int64_t wm = grp / g->gn, wn = grp % g->gn, MW = g->M / g->gm, NW = g->N / g->gn;
	for (int64_t i = wm * MW; g->a_off && o->a->shadow && i < (wm + 1) * MW && !s->stop; i++)
		for (int64_t k = 0; k < g->K && !s->stop; k++)
			sim_touch_by(s, agent, o->a, o->abuf, o->a0 + g->a_off[g->ta ? k * g->M + i : i * g->K + k], 1, false, loc);
	for (int64_t j = wn * NW; o->b->shadow && j < (wn + 1) * NW && !s->stop; j++)
		for (int64_t k = 0; k < g->K && !s->stop; k++)
			sim_touch_by(s, agent, o->b, o->bbuf, o->b0 + g->b_off[g->tb ? j * g->K + k : k * g->N + j], 1, false, loc);
}

/* The sum for (thread, reg) of the call; false when the slot holds nothing. */
static bool product(const sim_gemm *g, const operands *o, int64_t t, int64_t r, double *sum)
{
	int32_t at = g->c_at[(t - g->lo) * g->regs + r];
	if (at < 0)
		return false;
	int64_t i = at / g->N, j = at % g->N, grp = (t - g->lo) / g->group_threads;
	double acc = 0;
	for (int64_t k = 0; k < g->K; k++)
		acc += a_value(g, o, grp, i, k) * b_value(g, o, k, j);
	*sum = acc;
	return true;
}

static bool accumulator_ready(sim *s, const operands *o, const sim_gemm *g, tlc_loc loc)
{
	for (int64_t t = g->lo; o->c->reg_state && t < g->lo + g->nthreads; t++)
		if (o->c->reg_state[t] != SIM_REG_READY) {
			int64_t tid = s->tid;
			s->tid = t;
			int64_t zero = 0;
			sim_element(s, o->c, o->cbuf, &zero, loc); /* reports it */
			s->tid = tid;
			return false;
		}
	return true;
}

void sim_mma_gemm(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	sim_gemm *g = gemm_of(s, st, false);
	operands o;
	if (!g || !all_run(s, st, g, m, "T.mma_gemm") || !get_operands(s, st, g, &o) || !accumulator_ready(s, &o, g, st->loc))
		return;
	int64_t groups = (int64_t)g->gm * g->gn;
	for (int64_t grp = 0; grp < groups && !s->stop; grp++)
		touch_operands(s, g, &o, grp, sim_agent_thread(s, g->lo + grp * g->group_threads), st->loc);
	for (int64_t t = g->lo; t < g->lo + g->nthreads && !s->stop; t++)
		for (int64_t r = 0; r < g->regs; r++) {
			double sum;
			if (!product(g, &o, t, r, &sum))
				continue;
			int64_t e = t * o.c->thread_stride + r;
			sim_val v = sim_array_get(o.c, e);
			if (tlc_dtype_is_float(o.c->dtype))
				v.f = tlc_sim_round(o.c->dtype, v.f + sum);
			else
				v.i = sim_wrap_int(o.c->dtype, v.i + (int64_t)sum);
			sim_array_set(o.c, e, v);
		}
	/* a warp's lanes run a collective instruction together */
	for (int64_t grp = 0; grp < groups && !s->stop; grp++)
		sim_join_threads(s, g->lo + grp * g->group_threads, g->group_threads);
}

void sim_wgmma_issue(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	sim_gemm *g = gemm_of(s, st, true);
	operands o;
	if (!g || !all_run(s, st, g, m, "T.wgmma_issue") || !get_operands(s, st, g, &o))
		return;
	if (s->warpgroup < 1) {
		sim_fail(s, st->loc, "T.wgmma_issue: the target has no warpgroups");
		return;
	}
	const tlc_expr *acc = tlc_call_kw(st->u.eval.call, "accumulate");
	bool accumulate = !acc || sim_eval_int(s, acc, st->loc) != 0;
	if (!o.c->reg_state)
		o.c->reg_state = tlc_xcalloc((size_t)s->nthreads, 1);
	int64_t groups = (int64_t)g->gm * g->gn;
	for (int64_t grp = 0; grp < groups && !s->stop; grp++) {
		int64_t lo = g->lo + grp * g->group_threads, wg = lo / s->warpgroup;
		int64_t agent = sim_agent_wgmma(s, wg);
		/* the unit reads what its warpgroup's threads published */
		for (int64_t t = lo; t < lo + g->group_threads; t++)
			sim_learn_from(s, agent, sim_agent_thread(s, t));
		touch_operands(s, g, &o, grp, agent, st->loc);
		sim_wgmma w = {wg, lo, g->group_threads, g->regs, o.c, NULL, accumulate, sim_vc(s, agent)[agent], st};
		w.delta = tlc_xmalloc((size_t)(w.n * w.regs) * sizeof(double));
		for (int64_t t = lo; t < lo + w.n; t++) {
			for (int64_t r = 0; r < w.regs; r++) {
				double sum;
				w.delta[(t - lo) * w.regs + r] = product(g, &o, t, r, &sum) ? sum : 0.0 / 0.0;
			}
			o.c->reg_state[t] = SIM_REG_IN_FLIGHT;
			sim_vc_tick(s, sim_agent_thread(s, t));
		}
		o.c->reg_issue = st;
		sim_vc_tick(s, agent);
		s->wgmmas = tlc_mem_grow(s->wgmmas, s->nwgmmas, &s->cap_wgmmas, sizeof(*s->wgmmas));
		s->wgmmas[s->nwgmmas++] = w;
	}
}

/* Group w lands: its results in the accumulator, its reads known to its
 * warpgroup's threads. */
static void retire(sim *s, sim_wgmma *w)
{
	int64_t agent = sim_agent_wgmma(s, w->wg);
	for (int64_t t = w->lo; t < w->lo + w->n; t++) {
		for (int64_t r = 0; r < w->regs; r++) {
			double d = w->delta[(t - w->lo) * w->regs + r];
			if (d != d)
				continue;
			int64_t e = t * w->c->thread_stride + r;
			sim_val v = w->accumulate ? sim_array_get(w->c, e) : (sim_val){0};
			/* an integer accumulator wraps as the .s32 one does */
			if (tlc_dtype_is_float(w->c->dtype))
				v.f = tlc_sim_round(w->c->dtype, v.f + d);
			else
				v.i = sim_wrap_int(w->c->dtype, v.i + (int64_t)d);
			sim_array_set(w->c, e, v);
		}
		sim_clock *v = sim_vc(s, sim_agent_thread(s, t));
		if (v[agent] < w->clock)
			v[agent] = w->clock;
	}
	free(w->delta);
	w->delta = NULL;
}

void sim_wgmma_wait(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	int64_t keep = sim_eval_int(s, st->u.eval.call->u.call.args[0], st->loc);
	if (s->stop || s->warpgroup < 1)
		return;
	/* per warpgroup that runs the wait: all but its newest `keep` groups */
	for (int64_t wg = 0; wg * s->warpgroup < s->nthreads; wg++) {
		bool runs = false;
		for (int64_t t = wg * s->warpgroup; t < (wg + 1) * s->warpgroup && t < s->nthreads; t++)
			runs = runs || m->on[t];
		if (!runs)
			continue;
		int pending = 0;
		for (int i = 0; i < s->nwgmmas; i++)
			pending += s->wgmmas[i].wg == wg;
		int k = 0, seen = 0;
		for (int i = 0; i < s->nwgmmas; i++) {
			sim_wgmma *w = &s->wgmmas[i];
			if (w->wg == wg && seen++ < pending - keep)
				retire(s, w);
			else
				s->wgmmas[k++] = *w;
		}
		s->nwgmmas = k;
	}
	/* mark the accumulators of this wait's threads whose groups all landed */
	for (uint32_t b = 0; b < s->nbufs; b++) {
		sim_array *a = s->arrays[b];
		if (!a || !a->reg_state)
			continue;
		for (int64_t t = 0; t < s->nthreads; t++) {
			if (!m->on[t] || a->reg_state[t] != SIM_REG_IN_FLIGHT)
				continue;
			bool flying = false;
			for (int i = 0; i < s->nwgmmas && !flying; i++)
				flying = s->wgmmas[i].c == a && t >= s->wgmmas[i].lo && t < s->wgmmas[i].lo + s->wgmmas[i].n;
			if (!flying)
				a->reg_state[t] = SIM_REG_UNFENCED;
		}
	}
}

void sim_wgmma_fence(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	const tlc_expr *x = st->u.eval.call->u.call.args[0];
	if (x->kind != TLC_EXPR_BUF) {
		sim_fail(s, st->loc, "T.warpgroup_fence_operand takes a register array");
		return;
	}
	sim_array *a = sim_array_of(s, x->u.buf, st->loc);
	if (!a || !a->reg_state)
		return;
	for (int64_t t = 0; t < s->nthreads; t++)
		if (m->on[t] && a->reg_state[t] == SIM_REG_UNFENCED)
			a->reg_state[t] = SIM_REG_READY;
}

/* ---- T.mma_sync: one warp instruction on registers the program laid out ---- */

/* Row and column of element e of a lane's A or B fragment of T.mma_sync
 * (tlc/target.h, TLC_MMA_SYNC_*); w: operands per 32-bit register. */
static void mma_sync_a_at(int64_t lane, int64_t e, int64_t w, int64_t *row, int64_t *col)
{
	*row = lane / 4 + 8 * ((e / w) % 2);
	*col = lane % 4 * w + e % w + 4 * w * (e / (2 * w));
}

static void mma_sync_b_at(int64_t lane, int64_t e, int64_t w, int64_t *row, int64_t *col)
{
	*row = lane % 4 * w + e % w + 4 * w * (e / w);
	*col = lane / 4;
}

/* The operand dtypes T.mma_sync takes (the CUDA target prints the same set). */
static bool mma_sync_types(tlc_dtype a, tlc_dtype b, tlc_dtype c)
{
	int bits = tlc_dtype_bits(a);
	if (bits != tlc_dtype_bits(b) || tlc_dtype_is_float(a) != tlc_dtype_is_float(b))
		return false;
	if (!tlc_dtype_is_float(a))
		return bits == 8 && c == TLC_DT_INT32;
	if (bits == 16 && a != b)
		return false;
	return c == TLC_DT_FLOAT32 || (a == TLC_DT_FLOAT16 && c == TLC_DT_FLOAT16);
}

/* T.mma_sync(c, a, b) (tlc/ops.def): every warp with a lane in m runs one
 * m16n8kK instruction; all its lanes must run it.  Products are summed in
 * float64 (exact for integers) and added to C once, rounded to C's type. */
void sim_mma_sync(sim *s, const tlc_stmt *st, const sim_mask *m)
{
	/* the instruction's fragments are those of a warp of LANES lanes; the
	 * largest K is that of 8-bit operands */
	enum {
		LANES = TLC_MMA_SYNC_LANES,
		M = TLC_MMA_SYNC_M,
		N = TLC_MMA_SYNC_N,
		RC = TLC_MMA_SYNC_C_REGS,
		K_MAX = TLC_MMA_SYNC_K_BITS / 8
	};
	const tlc_expr *c = st->u.eval.call;
	const tlc_expr *x[3] = {c->u.call.args[0], c->u.call.args[1], c->u.call.args[2]};
	bool ok = s->warp_size == LANES;
	for (int i = 0; i < 3; i++)
		ok = ok && x[i]->kind == TLC_EXPR_LOAD && !tlc_buffer_in_shared(x[i]->u.load.buf);
	tlc_dtype ta = ok ? x[1]->u.load.buf->dtype : TLC_DT_VOID, tb = ok ? x[2]->u.load.buf->dtype : TLC_DT_VOID;
	tlc_dtype tc = ok ? x[0]->u.load.buf->dtype : TLC_DT_VOID;
	if (!ok || !mma_sync_types(ta, tb, tc)) {
		sim_fail(s, st->loc,
		         "T.mma_sync takes elements of per-thread buffers (C, A, B) of float16/bfloat16/float8 or int8 operands "
		         "and a float32 (int32) accumulator, on warps of %d lanes",
		         LANES);
		return;
	}
	int64_t w = 32 / tlc_dtype_bits(ta), K = TLC_MMA_SYNC_K_BITS / tlc_dtype_bits(ta);
	int64_t ra = M * K / LANES, rb = N * K / LANES;
	for (int64_t w0 = 0; w0 < s->nthreads && !s->stop; w0 += s->warp_size) {
		int runs = sim_warp_runs(s, m, w0, st->loc, "T.mma_sync", "mma.sync");
		if (runs < 0)
			return;
		if (!runs)
			continue;
		/* the warp's operands, gathered from each lane's registers */
		double a[M][K_MAX], b[K_MAX][N];
		int64_t ce[LANES];
		sim_array *aa, *ba, *ca = NULL;
		for (int64_t l = 0; l < LANES && !s->stop; l++) {
			s->tid = w0 + l;
			int64_t ae = sim_vector_at(s, x[1], &aa, ra, st->loc);
			int64_t be = ae < 0 ? -1 : sim_vector_at(s, x[2], &ba, rb, st->loc);
			ce[l] = be < 0 ? -1 : sim_vector_at(s, x[0], &ca, RC, st->loc);
			if (ce[l] < 0)
				return;
			for (int64_t e = 0; e < ra; e++) {
				int64_t i, k;
				mma_sync_a_at(l, e, w, &i, &k);
				a[i][k] = number(aa, sim_array_get(aa, ae + e));
			}
			for (int64_t e = 0; e < rb; e++) {
				int64_t k, j;
				mma_sync_b_at(l, e, w, &k, &j);
				b[k][j] = number(ba, sim_array_get(ba, be + e));
			}
		}
		for (int64_t l = 0; l < LANES && !s->stop; l++) {
			for (int64_t e = 0; e < RC; e++) {
				int64_t i = l / 4 + 8 * (e / 2), j = l % 4 * 2 + e % 2;
				double sum = 0;
				for (int64_t k = 0; k < K; k++)
					sum += a[i][k] * b[k][j];
				sim_val v = sim_array_get(ca, ce[l] + e);
				if (tlc_dtype_is_float(tc))
					v.f = tlc_sim_round(tc, v.f + sum);
				else
					v.i = sim_wrap_int(tc, v.i + (int64_t)sum);
				sim_array_set(ca, ce[l] + e, v);
			}
		}
		sim_join_threads(s, w0, s->warp_size);
	}
}
