/* target.c - target descriptions: which target a module is compiled for,
 * the checks a description passes when its plugin registers it, lookups in
 * its matrix-instruction table, the plan of a gemm on it, and its printed
 * form (tlc --print-target-info). */
#include "internal.h"

#include <tlc/layout.h>
#include <tlc/target.h>
#include <tlc/tileops.h>

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

const tlc_target_info *tlc_module_target_info(const tlc_module *m)
{
	return m && m->target ? m->target->info : NULL;
}

const char *tlc_module_target_name(const tlc_module *m)
{
	return m && m->target ? m->target->name : NULL;
}

void tlc_module_set_target(tlc_module *m, const tlc_target_desc *t)
{
	m->target = t;
}

/* Whether the description is new enough to have field f. */
#define HAS_FIELD(info, f) ((info)->struct_size >= offsetof(tlc_target_info, f) + sizeof((info)->f))

int tlc_target_sm_count(const tlc_target_info *info)
{
	return info && HAS_FIELD(info, sm_count) && info->sm_count > 0 ? info->sm_count : 0;
}

int64_t tlc_target_smem_per_sm(const tlc_target_info *info)
{
	if (!info)
		return 0;
	return HAS_FIELD(info, smem_per_sm) && info->smem_per_sm > 0 ? info->smem_per_sm : info->smem_max;
}

int tlc_target_smem_block_reserved(const tlc_target_info *info)
{
	return info && HAS_FIELD(info, smem_block_reserved) && info->smem_block_reserved > 0 ? info->smem_block_reserved
	                                                                                     : 0;
}

bool tlc_target_has_stmatrix(const tlc_target_info *info)
{
	return info && HAS_FIELD(info, stmatrix) && info->stmatrix;
}

int tlc_target_named_barriers(const tlc_target_info *info)
{
	if (!info || !(info->barriers & TLC_BARRIER_NAMED) || !HAS_FIELD(info, named_barriers))
		return 0;
	return info->named_barriers;
}

const tlc_target_device *tlc_target_device_of(const tlc_target_info *info)
{
	return info && HAS_FIELD(info, device) ? info->device : NULL;
}

int64_t tlc_target_smem_per_block(const tlc_target_info *info, int64_t blocks)
{
	if (!info || blocks < 1)
		return 0;
	int64_t share = tlc_target_smem_per_sm(info) / blocks - tlc_target_smem_block_reserved(info);
	return share < info->smem_max ? share : info->smem_max;
}

bool tlc_matrix_inst_is_async(const tlc_matrix_inst *x)
{
	return x && !(x->b_from & TLC_MMA_FROM_REGS);
}

float tlc_tf32_truncate(float x)
{
	uint32_t u;
	memcpy(&u, &x, sizeof u);
	/* NaN stays NaN: a quiet NaN keeps its top mantissa bit */
	u &= 0xFFFFE000u;
	memcpy(&x, &u, sizeof x);
	return x;
}

const tlc_matrix_inst *tlc_target_find_matrix(const tlc_target_info *info, tlc_dtype a, tlc_dtype b, tlc_dtype acc,
                                              int64_t n_total)
{
	for (int i = 0; info && i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		if (x->a == a && x->b == b && x->acc == acc && (n_total <= 0 || n_total % x->n == 0))
			return x;
	}
	return NULL;
}

static const tlc_buffer *operand_of(const tlc_expr *x)
{
	return x->kind == TLC_EXPR_BUF ? x->u.buf : x->kind == TLC_EXPR_LOAD ? x->u.load.buf : NULL;
}

const tlc_matrix_inst *tlc_target_matrix_of_call(const tlc_target_info *info, const tlc_expr *call, int threads)
{
	if (!info || !call || call->kind != TLC_EXPR_CALL || call->u.call.nargs < 3)
		return NULL;
	const tlc_buffer *a = operand_of(call->u.call.args[0]), *b = operand_of(call->u.call.args[1]),
	                 *c = operand_of(call->u.call.args[2]);
	if (!a || !b || !c)
		return NULL;
	const tlc_expr *name = tlc_call_kw(call, "inst");
	const tlc_expr *nx = tlc_call_kw(call, "N"), *gx = tlc_call_kw(call, "warp_n");
	if (!gx)
		gx = tlc_call_kw(call, "wg_n");
	int64_t N = 0, gn = 1;
	if (nx)
		tlc_expr_as_int(nx, &N);
	if (gx)
		tlc_expr_as_int(gx, &gn);
	for (int i = 0; i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		if (x->a != a->dtype || x->b != b->dtype || x->acc != c->dtype)
			continue;
		if (name ? name->kind == TLC_EXPR_STR && strcmp(name->u.str, x->name) == 0
		         : x->threads == threads && gn > 0 && N % gn == 0 && (N / gn) % x->n == 0)
			return x;
	}
	return NULL;
}

const tlc_layout *tlc_frag_atom_layout(tlc_module *m, const tlc_frag_atom *atom, int threads, int64_t thread_lo,
                                       const char **why)
{
	if (!atom->ndigits) {
		if (why)
			*why = "this operand cannot live in registers";
		return NULL;
	}
	int64_t shape[2] = {atom->rows, atom->cols};
	const tlc_layout *f = tlc_fragment_from_digits(m, 2, shape, atom->ndigits, atom->digits, thread_lo, why);
	if (f && (f->threads != threads || f->replicate != 1)) {
		if (why)
			*why = "the fragment's threads are not the instruction's";
		return NULL;
	}
	return f;
}

const tlc_layout *tlc_target_partition(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                       int elem_bytes, const char **why)
{
	const tlc_target_info *info = tlc_module_target_info(m);
	int64_t bytes = 4;
	if (info)
		bytes = info->global_vector_bytes < info->shared_vector_bytes ? info->global_vector_bytes
		                                                              : info->shared_vector_bytes;
	int64_t size = 1, vec = bytes / (elem_bytes > 0 ? elem_bytes : 4);
	if (vec < 1)
		vec = 1;
	for (int d = 0; d < ndim; d++)
		size *= shape[d];
	while (vec > 1 && (shape[ndim - 1] % vec || size / vec < threads))
		vec /= 2;
	const tlc_layout *l = tlc_fragment_partition(m, ndim, shape, threads, vec, 0, why);
	if (!l && vec > 1)
		l = tlc_fragment_partition(m, ndim, shape, threads, 1, 0, why);
	return l;
}

/* ---- checks at registration ---- */

static bool pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* Why atom a of x is not a fragment of its rows x cols tile, or NULL.
 * Builds the atom's layout: the costly part of a description's check, left
 * to tlc_target_info_verify (unit tests, --verify-each). */
static const char *check_atom(tlc_module *m, const tlc_matrix_inst *x, const tlc_frag_atom *a,
                              const char *what)
{
	static _Thread_local char msg[320];
	const char *why = NULL;
	if (!a->ndigits || tlc_frag_atom_layout(m, a, x->threads, 0, &why))
		return NULL;
	snprintf(msg, sizeof(msg), "matrix instruction '%s' whose %s fragment is wrong: %s", x->name, what, why);
	return msg;
}

/* The shape of atom a: rows x cols, or no atom. */
static bool atom_shape(const tlc_frag_atom *a, int rows, int cols)
{
	return !a->ndigits || (a->rows == rows && a->cols == cols);
}

const char *tlc_target_info_check(const tlc_target_info *info)
{
	if (!pow2(info->lanes) || info->max_threads < info->lanes || info->max_threads % info->lanes ||
	    (info->warpgroup && info->warpgroup % info->lanes))
		return "a machine description with bad thread counts (lanes a power of two, max_threads and warpgroup "
		       "multiples of it)";
	if (info->smem_default < 0 || info->smem_max < info->smem_default)
		return "a machine description with bad shared-memory sizes (0 <= smem_default <= smem_max)";
	if (!pow2(info->global_vector_bytes) || !pow2(info->shared_vector_bytes) || !pow2(info->atomic_add_f32_vector) ||
	    info->max_regs <= 0 || info->regs_per_block <= 0 || info->local_bytes_max <= 0 || info->max_cluster < 1)
		return "a machine description with bad register, vector or cluster sizes";
	if ((info->async_copy & TLC_ASYNC_TMA) && info->tma_box_max < 1)
		return "a machine description with TMA but no TMA box size (tma_box_max)";
	if ((info->async_copy & TLC_ASYNC_TMA_MULTICAST) && (!(info->async_copy & TLC_ASYNC_TMA) || info->max_cluster < 2))
		return "a machine description with TMA multicast but without TMA or clusters (max_cluster >= 2)";
	if (tlc_target_has_stmatrix(info) && info->lanes != TLC_STMATRIX_LANES)
		return "a machine description with stmatrix but not 32 lanes (its 8x8 tiles take a warp of 32)";
	if (info->nmatrix < 0 || (info->nmatrix && !info->matrix))
		return "a machine description with a bad matrix-instruction table";
	for (int i = 0; i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		if (!x->name || x->m <= 0 || x->n <= 0 || x->k <= 0 || x->n_max < x->n || x->n_max % x->n ||
		    x->threads < info->lanes || x->threads % info->lanes || !x->frag_c.ndigits ||
		    (x->a_from & TLC_MMA_FROM_REGS) != (x->frag_a.ndigits ? TLC_MMA_FROM_REGS : 0u) ||
		    (x->b_from & TLC_MMA_FROM_REGS) != (x->frag_b.ndigits ? TLC_MMA_FROM_REGS : 0u))
			return "a matrix instruction with a bad shape, thread count or operand "
			       "sources";
		if (!atom_shape(&x->frag_a, x->m, x->k) || !atom_shape(&x->frag_b, x->k, x->n) ||
		    !atom_shape(&x->frag_c, x->m, x->n))
			return "a matrix instruction whose fragment's shape is not the "
			       "instruction's";
	}
	return NULL;
}

const char *tlc_target_info_verify(tlc_context *ctx, const tlc_target_info *info)
{
	const char *bad = tlc_target_info_check(info);
	if (bad || !info->nmatrix)
		return bad;
	tlc_module *m = tlc_module_new(ctx);
	for (int i = 0; !bad && i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		bad = check_atom(m, x, &x->frag_a, "A");
		if (!bad)
			bad = check_atom(m, x, &x->frag_b, "B");
		if (!bad)
			bad = check_atom(m, x, &x->frag_c, "accumulator");
	}
	tlc_module_free(m);
	return bad;
}

/* ---- a gemm on the target ---- */

static const char *fmt(tlc_module *m, const char *f, ...) __attribute__((format(printf, 2, 3)));
static const char *fmt(tlc_module *m, const char *f, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return tlc_strdup(m, buf);
}

/* The stored (rows, last-dimension extent) of a gemm operand's 2-D tile. */
static void tile_dims(const tlc_buffer *b, int nlead, int64_t *rows, int64_t *cols)
{
	*rows = *cols = 0;
	if (b->ndim == nlead + 2) {
		tlc_expr_as_int(b->shape[nlead], rows);
		tlc_expr_as_int(b->shape[nlead + 1], cols);
	}
}

/* The swizzle a descriptor would read operand b through: its layout's, or
 * the one layout-inference gives a gemm operand without one (the widest its
 * rows allow); NONE when b's layout is not a swizzle. */
static tlc_swizzle descriptor_swizzle(const tlc_buffer *b, int64_t cols)
{
	if (!b->layout)
		return tlc_swizzle_widest(cols, b->dtype);
	return b->layout->kind == TLC_LAYOUT_SWIZZLED ? b->layout->swizzle : TLC_SWIZZLE_NONE;
}

/* Why x cannot read operand `which` ("A" / "B") of g through a shared-memory
 * descriptor, split over `groups` thread groups with `share` elements each
 * along M or N; NULL when it can. */
static const char *descriptor_unfit(tlc_module *m, const tlc_matrix_inst *x, const tlc_buffer *b, int nlead,
                                    bool k_major, int groups, int64_t share, const char *which)
{
	int64_t rows, cols;
	tile_dims(b, nlead, &rows, &cols);
	tlc_swizzle sw = descriptor_swizzle(b, cols);
	if (sw == TLC_SWIZZLE_NONE)
		return fmt(m, "%s reads %s through a shared-memory descriptor, which needs a swizzled layout (rows of a "
		              "multiple of 32 bytes, no other T.annotate_layout)",
		           x->name, which);
	if (rows % 8)
		return fmt(m, "%s reads %s through a shared-memory descriptor, which needs a multiple of 8 stored rows",
		           x->name, which);
	unsigned need = k_major ? TLC_MMA_K_MAJOR : TLC_MMA_MN_MAJOR;
	if (x->shared_majors && !(x->shared_majors & need))
		return fmt(m, "%s reads %s %s only; transpose the operand in shared memory", x->name, which,
		           x->shared_majors & TLC_MMA_K_MAJOR ? "K-major (A as [M][K], B as [N][K])" : "M/N-major");
	/* M/N-major: a group's share of M (or N) must be whole swizzle spans or
	 * lie inside one, for the descriptor's strides to step correctly */
	int64_t span = tlc_swizzle_get(sw)->bytes / (tlc_dtype_bits(b->dtype) / 8);
	if (!k_major && groups > 1 && share % span && span % share)
		return fmt(m, "%s reads %s M/N-major in %lld-element swizzle spans, which the %lld elements of each of its "
		              "%d thread groups do not divide",
		           x->name, which, (long long)span, (long long)share, groups);
	return NULL;
}

/* What the Square policy needs of M and N on `groups` groups of x: one of
 * the splits wm x wn with M a multiple of x->m * wm and N of x->n * wn. */
static const char *square_rule(tlc_module *m, const tlc_matrix_inst *x, int groups)
{
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_buf_puts(&b, "M and N must be multiples of ");
	int n = 0;
	for (int wm = 1; wm <= groups; wm++) {
		if (groups % wm)
			continue;
		tlc_buf_printf(&b, "%s%d and %d (%dx%d groups)", n++ ? " or " : "", x->m * wm, x->n * (groups / wm), wm,
		               groups / wm);
	}
	const char *r = tlc_strdup(m, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return r;
}

/* Plan g on instruction x; NULL on success, else why not.  *k_only: x
 * takes everything of g but its K (a multiple of x's k), which it would
 * otherwise silently truncate or that its helper refuses. */
static const char *plan_on(tlc_module *m, const tlc_matrix_inst *x, const tlc_gemm_info *g, int64_t threads,
                           int64_t thread_lo, tlc_gemm_plan *plan, bool *k_only)
{
	*k_only = false;
	bool a_regs = g->A->scope == TLC_SCOPE_FRAGMENT;
	if (a_regs && !(x->a_from & TLC_MMA_FROM_REGS))
		return fmt(m, "%s cannot read A from registers", x->name);
	if (!(x->b_from & TLC_MMA_FROM_REGS) && g->B->scope == TLC_SCOPE_FRAGMENT)
		return fmt(m, "%s reads B from shared memory only", x->name);
	if (threads % x->threads)
		return fmt(m, "%s is issued by groups of %d threads and the gemm runs on %lld", x->name, x->threads,
		           (long long)threads);
	int groups = (int)(threads / x->threads);
	const char *grid_why = NULL;
	if (!tlc_gemm_warp_grid(g->M, g->N, x->m, x->n, groups, g->policy, &plan->warp_m, &plan->warp_n, &grid_why)) {
		/* every policy falls back to any grid that divides the tile, so
		 * none does: name the splits that would */
		const char *rule = square_rule(m, x, groups);
		return fmt(m, "a %lldx%lld accumulator over %d group%s of %d threads (%s): %s", (long long)g->M,
		           (long long)g->N, groups, groups == 1 ? "" : "s", x->threads, x->name, rule);
	}
	int64_t MW = g->M / plan->warp_m, NW = g->N / plan->warp_n;
	/* an instruction of variable N covers a group's whole share of N */
	if (x->n_max > x->n && NW > x->n_max)
		return fmt(m, "%s covers at most %d columns per group of threads and each of the %d groups along N has %lld",
		           x->name, x->n_max, plan->warp_n, (long long)NW);
	const char *bad = NULL;
	for (int k = 0; k < 2 && !bad; k++) {
		bool by_descriptor = k ? !(x->b_from & TLC_MMA_FROM_REGS) : (x->a_from & TLC_MMA_FROM_SHARED) != 0;
		if (by_descriptor && tlc_gemm_part_unswizzled(g, k))
			bad = fmt(m, "%s reads %s through a shared-memory descriptor, which needs a swizzled "
			             "tile: a part of whole rows of a tile wider than one swizzle block stays "
			             "unswizzled",
			          x->name, k ? "B" : "A");
	}
	if (!bad && (x->a_from & TLC_MMA_FROM_SHARED) && !a_regs)
		bad = descriptor_unfit(m, x, g->A, g->nlead[0], !g->trans_A, plan->warp_m, MW, "A");
	if (!bad && !(x->b_from & TLC_MMA_FROM_REGS))
		bad = descriptor_unfit(m, x, g->B, g->nlead[1], g->trans_B, plan->warp_n, NW, "B");
	if (bad)
		return bad;
	/* the instruction multiplies whole k steps: the helpers and tlc-sim
	 * take K in steps of x->k, so any other K is refused, never truncated */
	if (g->K % x->k) {
		*k_only = true;
		return fmt(m, "K = %lld is not a multiple of the k of %s (%d)", (long long)g->K, x->name, x->k);
	}
	plan->inst = x;
	const char *why = NULL;
	const tlc_layout *c_atom = tlc_frag_atom_layout(m, &x->frag_c, x->threads, 0, &why);
	plan->c_frag = c_atom ? tlc_fragment_tile(m, c_atom, g->M, g->N, plan->warp_m, plan->warp_n, true, true,
	                                          thread_lo, &why)
	                      : NULL;
	if (!plan->c_frag)
		return why;
	if (x->frag_a.ndigits) {
		const char *a_why = NULL;
		const tlc_layout *a_atom = tlc_frag_atom_layout(m, &x->frag_a, x->threads, 0, &a_why);
		/* A's K is not split over warps: every wn holds the same rows */
		plan->a_frag = a_atom ? tlc_fragment_tile(m, a_atom, g->M, g->K, plan->warp_m, plan->warp_n, true, false,
		                                          thread_lo, &a_why)
		                      : NULL;
		plan->a_why = a_why ? fmt(m, "%s: A in registers: %s", x->name, a_why) : NULL;
	} else {
		plan->a_why = fmt(m, "%s reads A from shared memory only", x->name);
	}
	if (a_regs && !plan->a_frag)
		return plan->a_why;
	return NULL;
}

bool tlc_gemm_plan_for(tlc_module *m, const tlc_gemm_info *g, int64_t threads, int64_t thread_lo, tlc_gemm_plan *plan,
                       const char **why)
{
	const tlc_target_info *info = tlc_module_target_info(m);
	memset(plan, 0, sizeof(*plan));
	if (!info) {
		*why = "a gemm needs a target's matrix instructions: compile with --target";
		return false;
	}
	/* the first instruction of the table that fits */
	const char *reasons[32];
	const tlc_matrix_inst *k_insts[32];
	int nreasons = 0, nk = 0;
	for (int i = 0; i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		if (x->a != g->A->dtype || x->b != g->B->dtype || x->acc != g->C->dtype)
			continue;
		tlc_gemm_plan p = {0};
		bool k_only;
		const char *r = plan_on(m, x, g, threads, thread_lo, &p, &k_only);
		if (!r) {
			*plan = p;
			return true;
		}
		if (k_only && nk < 32)
			k_insts[nk++] = x;
		if (nreasons < 32)
			reasons[nreasons++] = r;
	}
	if (!nreasons) {
		/* no row for these types: name the combinations the table has, as
		 * what the operands and accumulator may be instead */
		tlc_buf b;
		tlc_buf_init(&b);
		tlc_buf_printf(&b, "target %s has no matrix instruction for %s x %s -> %s; its matrix instructions take",
		               tlc_module_target_name(m), tlc_dtype_name(g->A->dtype), tlc_dtype_name(g->B->dtype),
		               tlc_dtype_name(g->C->dtype));
		int listed = 0;
		for (int i = 0; i < info->nmatrix; i++) {
			const tlc_matrix_inst *x = &info->matrix[i];
			bool seen = false;
			for (int j = 0; j < i; j++)
				seen = seen || (info->matrix[j].a == x->a && info->matrix[j].b == x->b &&
				                 info->matrix[j].acc == x->acc);
			if (!seen)
				tlc_buf_printf(&b, "%s %s x %s -> %s", listed++ ? "," : "", tlc_dtype_name(x->a),
				               tlc_dtype_name(x->b), tlc_dtype_name(x->acc));
		}
		if (!listed)
			tlc_buf_puts(&b, " nothing");
		*why = tlc_strdup(m, tlc_buf_str(&b));
		tlc_buf_free(&b);
		return false;
	}
	tlc_buf b;
	tlc_buf_init(&b);
	if (nk) {
		/* instructions that take all of the gemm but its K: name their k,
		 * from the table, as what to change */
		tlc_buf_puts(&b, "K (the reduction extent of the gemm's tiles: block_K) must be a multiple of ");
		int groups = 0;
		for (int i = 0; i < nk; i++) {
			bool seen = false;
			for (int j = 0; j < i; j++)
				seen = seen || k_insts[j]->k == k_insts[i]->k;
			if (seen)
				continue;
			tlc_buf_printf(&b, "%s%d for %s %s", groups++ ? " or of " : "", k_insts[i]->k,
			               tlc_dtype_name(g->A->dtype), k_insts[i]->name);
			for (int j = i + 1; j < nk; j++)
				if (k_insts[j]->k == k_insts[i]->k)
					tlc_buf_printf(&b, " and %s", k_insts[j]->name);
		}
		tlc_buf_printf(&b, " (%s k); got %lld", nk > 1 ? "each instruction's" : "the instruction's", (long long)g->K);
	} else if (nreasons == 1) {
		tlc_buf_puts(&b, reasons[0]);
	} else {
		tlc_buf_printf(&b, "no %s matrix instruction of target %s fits this gemm: ", tlc_dtype_name(g->A->dtype),
		               tlc_module_target_name(m));
		for (int i = 0; i < nreasons; i++)
			tlc_buf_printf(&b, "%s%s", i ? "; " : "", reasons[i]);
	}
	*why = tlc_strdup(m, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return false;
}

/* ---- the printed form ---- */

static void put_flags(tlc_buf *out, const char *key, unsigned v, const char *const *names, int n)
{
	tlc_buf_printf(out, "%s =", key);
	bool any = false;
	for (int i = 0; i < n; i++)
		if (v & (1u << i)) {
			tlc_buf_printf(out, "%s %s", any ? "," : "", names[i]);
			any = true;
		}
	tlc_buf_puts(out, any ? "\n" : " none\n");
}

static void put_sources(tlc_buf *out, const char *key, unsigned v)
{
	tlc_buf_printf(out, " %s=%s%s%s", key, v & TLC_MMA_FROM_REGS ? "regs" : "",
	               (v & TLC_MMA_FROM_REGS) && (v & TLC_MMA_FROM_SHARED) ? "+" : "",
	               v & TLC_MMA_FROM_SHARED ? "shared" : "");
}

static void put_atom(tlc_buf *out, tlc_module *m, const char *key, const tlc_frag_atom *a, int threads)
{
	if (!a->ndigits)
		return;
	const tlc_layout *f = tlc_frag_atom_layout(m, a, threads, 0, NULL);
	tlc_buf_printf(out, " %s=", key);
	if (f)
		tlc_print_expr(out, m, tlc_layout_to_expr(m, f));
	else
		tlc_buf_puts(out, "<invalid>");
}

void tlc_target_info_print(tlc_buf *out, tlc_context *ctx, const tlc_target_desc *t)
{
	static const char *const copies[] = {"cp.async", "tma", "tma_multicast"};
	static const char *const barriers[] = {"named", "mbarrier", "mbarrier_tx"};
	const tlc_target_info *i = t->info;
	tlc_buf_printf(out, "target = %s\n", t->name);
	tlc_buf_printf(out, "summary = %s\n", t->summary ? t->summary : "");
	if (!i)
		return;
	tlc_buf_printf(out, "lanes = %d\n", i->lanes);
	tlc_buf_printf(out, "warpgroup = %d\n", i->warpgroup);
	tlc_buf_printf(out, "max_threads = %d\n", i->max_threads);
	tlc_buf_printf(out, "smem_default = %lld\n", (long long)i->smem_default);
	tlc_buf_printf(out, "smem_max = %lld\n", (long long)i->smem_max);
	tlc_buf_printf(out, "max_regs = %d\n", i->max_regs);
	tlc_buf_printf(out, "local_bytes_max = %lld\n", (long long)i->local_bytes_max);
	tlc_buf_printf(out, "regs_per_block = %d\n", i->regs_per_block);
	tlc_buf_printf(out, "global_vector_bytes = %d\n", i->global_vector_bytes);
	tlc_buf_printf(out, "shared_vector_bytes = %d\n", i->shared_vector_bytes);
	tlc_buf_printf(out, "atomic_add_f32_vector = %d\n", i->atomic_add_f32_vector);
	put_flags(out, "async_copy", i->async_copy, copies, 3);
	put_flags(out, "barriers", i->barriers, barriers, 3);
	tlc_buf_printf(out, "setmaxnreg = %s\n", i->setmaxnreg ? "yes" : "no");
	tlc_buf_printf(out, "max_cluster = %d\n", i->max_cluster);
	tlc_buf_printf(out, "tma_box_max = %d\n", i->tma_box_max);
	if (tlc_target_sm_count(i))
		tlc_buf_printf(out, "sm_count = %d\n", tlc_target_sm_count(i));
	tlc_buf_printf(out, "smem_per_sm = %lld\n", (long long)tlc_target_smem_per_sm(i));
	tlc_buf_printf(out, "smem_block_reserved = %d\n", tlc_target_smem_block_reserved(i));
	tlc_buf_printf(out, "stmatrix = %s\n", tlc_target_has_stmatrix(i) ? "yes" : "no");
	tlc_buf_printf(out, "named_barriers = %d\n", tlc_target_named_barriers(i));
	const tlc_target_device *d = tlc_target_device_of(i);
	if (d) {
		tlc_buf_printf(out, "device_platform = %s %s\n", d->platform, d->runtime_version);
		tlc_buf_printf(out, "device_name = %s\n", d->name);
		tlc_buf_printf(out, "device_arch = %s\n", d->arch);
		tlc_buf_printf(out, "device_capability = %d.%d\n", d->capability_major, d->capability_minor);
	}
	tlc_module *m = tlc_module_new(ctx);
	for (int k = 0; k < i->nmatrix; k++) {
		const tlc_matrix_inst *x = &i->matrix[k];
		tlc_buf_printf(out, "matrix = %s m=%d n=%d k=%d n_max=%d a=%s b=%s acc=%s threads=%d", x->name, x->m, x->n,
		               x->k, x->n_max, tlc_dtype_name(x->a), tlc_dtype_name(x->b), tlc_dtype_name(x->acc),
		               x->threads);
		put_sources(out, "a_from", x->a_from);
		put_sources(out, "b_from", x->b_from);
		if ((x->a_from | x->b_from) & TLC_MMA_READS_TF32)
			tlc_buf_puts(out, " reads=tf32");
		if (x->shared_majors)
			tlc_buf_printf(out, " shared_majors=%s%s%s", x->shared_majors & TLC_MMA_K_MAJOR ? "K" : "",
			               x->shared_majors == (TLC_MMA_K_MAJOR | TLC_MMA_MN_MAJOR) ? "|" : "",
			               x->shared_majors & TLC_MMA_MN_MAJOR ? "MN" : "");
		put_atom(out, m, "a_frag", &x->frag_a, x->threads);
		put_atom(out, m, "b_frag", &x->frag_b, x->threads);
		put_atom(out, m, "c_frag", &x->frag_c, x->threads);
		tlc_buf_putc(out, '\n');
	}
	tlc_module_free(m);
}
