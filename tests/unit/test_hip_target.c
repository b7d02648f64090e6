/* test_hip_target.c - the machine descriptions the hip plugin registers:
 * every MFMA fragment of hip-gfx90a (CDNA2) and hip-gfx942 (CDNA3), lane by
 * lane and register by register, against the dependent-register layouts of
 * the AMD CDNA2 / CDNA3 ISA's matrix instructions (the tables the AMD
 * Matrix Instruction Calculator prints; written here in their own form:
 * lane l of the 64-lane wavefront, element j of the lane's operand vector,
 * packed elements counted from the low bits of the first VGPR up), and
 * the plan of a gemm on them.  Needs TLC_PLUGIN_PATH (make check sets it). */
#include "frag_digits.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/plugin.h>
#include <tlc/target.h>
#include <tlc/tileops.h>

static tlc_context *ctx;
static tlc_module *m;

typedef void (*isa_rule)(int lane, int j, int64_t *row, int64_t *col);

/* A (m x k) and B (k x n): lane l holds row (A) or column (B) l % m of
 * the matrix and the run of K that l / m selects, element j stepping along K. */
static void a_16x16(int l, int j, int64_t *row, int64_t *col) /* 16x16x16: A[l % 16][4 (l / 16) + j] */
{
	*row = l % 16;
	*col = 4 * (l / 16) + j;
}
static void b_16x16(int l, int j, int64_t *row, int64_t *col) /* B[4 (l / 16) + j][l % 16] */
{
	*row = 4 * (l / 16) + j;
	*col = l % 16;
}
static void a_32x8(int l, int j, int64_t *row, int64_t *col) /* 32x32x8: A[l % 32][4 (l / 32) + j] */
{
	*row = l % 32;
	*col = 4 * (l / 32) + j;
}
static void b_8x32(int l, int j, int64_t *row, int64_t *col) /* B[4 (l / 32) + j][l % 32] */
{
	*row = 4 * (l / 32) + j;
	*col = l % 32;
}
static void a_16x4(int l, int j, int64_t *row, int64_t *col) /* 16x16x4 float32: A[l % 16][l / 16] */
{
	(void)j;
	*row = l % 16;
	*col = l / 16;
}
static void b_4x16(int l, int j, int64_t *row, int64_t *col) /* B[l / 16][l % 16] */
{
	(void)j;
	*row = l / 16;
	*col = l % 16;
}
static void a_16x32(int l, int j, int64_t *row, int64_t *col) /* 16x16x32 8-bit: A[l % 16][8 (l / 16) + j] */
{
	*row = l % 16;
	*col = 8 * (l / 16) + j;
}
static void b_32x16(int l, int j, int64_t *row, int64_t *col) /* B[8 (l / 16) + j][l % 16] */
{
	*row = 8 * (l / 16) + j;
	*col = l % 16;
}
/* The accumulator: lane l holds column l % n; its registers run down the
 * column in groups of 4 rows, the lanes' l / n picking the group. */
static void d_16x16(int l, int j, int64_t *row, int64_t *col) /* D[4 (l / 16) + j][l % 16] */
{
	*row = 4 * (l / 16) + j;
	*col = l % 16;
}
static void d_32x32(int l, int j, int64_t *row, int64_t *col) /* D[8 (j / 4) + 4 (l / 32) + j % 4][l % 32] */
{
	*row = 8 * (j / 4) + 4 * (l / 32) + j % 4;
	*col = l % 32;
}

/* One instruction as the ISA has it: shape, types, each operand's rule and
 * its elements per lane. */
typedef struct {
	const char *name;
	int m, n, k;
	tlc_dtype a, acc;
	isa_rule ra, rb, rd;
	int na, nb, nd;
} isa_mfma;

#define F16(name) {name, 16, 16, 16, TLC_DT_FLOAT16, TLC_DT_FLOAT32, a_16x16, b_16x16, d_16x16, 4, 4, 4}
#define BF16(name) {name, 16, 16, 16, TLC_DT_BFLOAT16, TLC_DT_FLOAT32, a_16x16, b_16x16, d_16x16, 4, 4, 4}
#define F16_32(name) {name, 32, 32, 8, TLC_DT_FLOAT16, TLC_DT_FLOAT32, a_32x8, b_8x32, d_32x32, 4, 4, 16}
#define BF16_32(name) {name, 32, 32, 8, TLC_DT_BFLOAT16, TLC_DT_FLOAT32, a_32x8, b_8x32, d_32x32, 4, 4, 16}
#define F32(name) {name, 16, 16, 4, TLC_DT_FLOAT32, TLC_DT_FLOAT32, a_16x4, b_4x16, d_16x16, 1, 1, 4}

static const isa_mfma cdna2[] = {
    F16("v_mfma_f32_16x16x16f16"),
    BF16("v_mfma_f32_16x16x16bf16_1k"),
    F16_32("v_mfma_f32_32x32x8f16"),
    BF16_32("v_mfma_f32_32x32x8bf16_1k"),
    F32("v_mfma_f32_16x16x4f32"),
    {"v_mfma_i32_16x16x16i8", 16, 16, 16, TLC_DT_INT8, TLC_DT_INT32, a_16x16, b_16x16, d_16x16, 4, 4, 4},
};
static const isa_mfma cdna3[] = {
    F16("v_mfma_f32_16x16x16f16"),
    BF16("v_mfma_f32_16x16x16bf16_1k"),
    F16_32("v_mfma_f32_32x32x8f16"),
    BF16_32("v_mfma_f32_32x32x8bf16_1k"),
    F32("v_mfma_f32_16x16x4f32"),
    {"v_mfma_i32_16x16x32_i8", 16, 16, 32, TLC_DT_INT8, TLC_DT_INT32, a_16x32, b_32x16, d_16x16, 8, 8, 4},
    /* float8 (fp8 = e4m3fnuz, bf8 = e5m2fnuz): the 8-bit 16x16x32 operand maps */
    {"v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, TLC_DT_FLOAT8_E4M3FNUZ, TLC_DT_FLOAT32, a_16x32, b_32x16, d_16x16, 8, 8,
     4},
    {"v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, TLC_DT_FLOAT8_E5M2FNUZ, TLC_DT_FLOAT32, a_16x32, b_32x16, d_16x16, 8, 8,
     4},
};

/* Every (lane, element) of the atom holds the element the rule names, the
 * atom is rows x cols, and it has exactly 64 x regs slots. */
static void check_atom(const char *target, const tlc_matrix_inst *x, const tlc_frag_atom *a, const char *which,
                       int rows, int cols, isa_rule rule, int regs)
{
	const char *why = NULL;
	const tlc_layout *f = tlc_frag_atom_layout(m, a, x->threads, 0, &why);
	bool good = a->rows == rows && a->cols == cols && f && f->threads == x->threads && f->out_shape[0] == regs &&
	            rows * cols == x->threads * regs;
	for (int lane = 0; good && lane < x->threads; lane++)
		for (int j = 0; good && j < regs; j++) {
			int64_t idx[2], got;
			rule(lane, j, &idx[0], &idx[1]);
			good = tlc_layout_eval(f, idx, &got) && got == j && thread_of(f, idx) == lane;
			if (!good)
				diag("lane %d, element %d: the ISA has [%lld][%lld], which the fragment puts in lane %lld, element "
				     "%lld",
				     lane, j, (long long)idx[0], (long long)idx[1], (long long)thread_of(f, idx),
				     tlc_layout_eval(f, idx, &got) ? (long long)got : -1LL);
		}
	ok(good, "%s %s (%s x %s): %s fragment (%dx%d, %d per lane) matches the ISA", target, x->name,
	   tlc_dtype_name(x->a), tlc_dtype_name(x->acc), which, rows, cols, regs);
}

static void check_target(const char *name, const isa_mfma *isa, int n)
{
	const tlc_target_desc *t = tlc_find_target(ctx, name);
	if (!ok(t && t->info, "%s has a description", name))
		return;
	const tlc_target_info *info = t->info;
	ok(info->lanes == 64 && info->warpgroup == 0 && info->nmatrix == n,
	   "%s: 64 lanes, no warpgroups, %d matrix instructions", name, n);
	/* the whole table, fragments built (registration checks only its cheap facts) */
	const char *bad = tlc_target_info_verify(ctx, info);
	if (!ok(!bad, "%s: its description verifies (tlc_target_info_verify)", name))
		diag("%s", bad);
	for (int i = 0; i < n; i++) {
		const isa_mfma *e = &isa[i];
		const tlc_matrix_inst *x = NULL;
		for (int k = 0; k < info->nmatrix; k++)
			if (strcmp(info->matrix[k].name, e->name) == 0)
				x = &info->matrix[k];
		if (!ok(x && x->m == e->m && x->n == e->n && x->k == e->k && x->n_max == e->n && x->a == e->a &&
		            x->b == e->a && x->acc == e->acc,
		        "%s has %s: %dx%dx%d, %s x %s -> %s", name, e->name, e->m, e->n, e->k, tlc_dtype_name(e->a),
		        tlc_dtype_name(e->a), tlc_dtype_name(e->acc)))
			continue;
		ok(x->threads == 64 && x->a_from == TLC_MMA_FROM_REGS && x->b_from == TLC_MMA_FROM_REGS,
		   "%s %s: issued by one wavefront, A and B from registers", name, x->name);
		check_atom(name, x, &x->frag_a, "A", e->m, e->k, e->ra, e->na);
		check_atom(name, x, &x->frag_b, "B", e->k, e->n, e->rb, e->nb);
		check_atom(name, x, &x->frag_c, "accumulator", e->m, e->n, e->rd, e->nd);
	}
}

/* A 128x128x32 float16 gemm on 256 threads (4 wavefronts) on gfx90a takes
 * v_mfma_f32_16x16x16f16 over a grid of the 4 wavefronts, wavefront
 * (wm, wn) = (i / (128 / warp_m), j / (128 / warp_n)) numbered
 * wm * warp_n + wn, each holding its tile as the 16x16 accumulator atom
 * (lane 16 (i % 16 / 4) + j % 16); float8 has no MFMA on CDNA2. */
static void check_plan(void)
{
	tlc_module_set_target(m, tlc_find_target(ctx, "hip-gfx90a"));
	const tlc_expr *sa[2] = {tlc_i32(m, 128), tlc_i32(m, 32)}, *sb[2] = {tlc_i32(m, 32), tlc_i32(m, 128)},
	               *sc[2] = {tlc_i32(m, 128), tlc_i32(m, 128)};
	tlc_gemm_info g = {
	    .A = tlc_buffer_new(m, "A", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sa, (tlc_loc){0}),
	    .B = tlc_buffer_new(m, "B", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sb, (tlc_loc){0}),
	    .C = tlc_buffer_new(m, "C", TLC_DT_FLOAT32, TLC_SCOPE_FRAGMENT, 2, sc, (tlc_loc){0}),
	    .M = 128, .N = 128, .K = 32, .policy = TLC_WARP_POLICY_SQUARE};
	tlc_gemm_plan plan;
	const char *why = NULL;
	if (!ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why), "hip-gfx90a: plan a 128x128x32 float16 gemm on 256 threads")) {
		diag("%s", why ? why : "");
		tlc_module_set_target(m, NULL);
		return;
	}
	ok(plan.inst && strcmp(plan.inst->name, "v_mfma_f32_16x16x16f16") == 0 && plan.warp_m * plan.warp_n == 4,
	   "v_mfma_f32_16x16x16f16 on a grid of 4 wavefronts (%dx%d)", plan.warp_m, plan.warp_n);
	bool good = plan.c_frag && plan.c_frag->threads == 256 && plan.warp_m > 0 && plan.warp_n > 0 &&
	            128 % (16 * plan.warp_m) == 0 && 128 % (16 * plan.warp_n) == 0;
	int64_t tm = good ? 128 / plan.warp_m : 1, tn = good ? 128 / plan.warp_n : 1;
	for (int64_t i = 0; good && i < 128; i++)
		for (int64_t j = 0; good && j < 128; j++) {
			int64_t idx[2] = {i, j};
			good = thread_of(plan.c_frag, idx) == (i / tm * plan.warp_n + j / tn) * 64 + 16 * (i % 16 / 4) + j % 16;
		}
	ok(good, "the accumulator's 256 threads: the wavefront of the grid, then the 16x16 MFMA atom");

	g.A->dtype = g.B->dtype = TLC_DT_FLOAT8_E4M3;
	why = NULL;
	if (!ok(!tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && why && strstr(why, "hip-gfx90a") &&
	            strstr(why, "no matrix instruction"),
	        "hip-gfx90a: no instruction for float8_e4m3 inputs, and the reason names the target"))
		diag("%s", why ? why : "(no reason)");
	tlc_module_set_target(m, NULL);
}

int main(void)
{
	ctx = tlc_context_new();
	m = tlc_module_new(ctx);
	if (!ok(getenv("TLC_PLUGIN_PATH") && tlc_plugin_load(ctx, "hip", 0, NULL) == 0,
	        "load the hip plugin (TLC_PLUGIN_PATH, set by make check)"))
		return done_testing();
	check_target("hip-gfx90a", cdna2, (int)(sizeof(cdna2) / sizeof(cdna2[0])));
	check_target("hip-gfx942", cdna3, (int)(sizeof(cdna3) / sizeof(cdna3[0])));
	check_plan();
	tlc_module_free(m);
	tlc_context_free(ctx);
	return done_testing();
}
