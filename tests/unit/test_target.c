/* test_target.c - the machine descriptions the cuda plugin registers: every
 * mma.sync and WGMMA fragment, thread by thread and register by register, against the
 * formulas of the PTX ISA's fragment tables (written here in their own
 * form: groupID g = lane / 4, threadID_in_group t = lane % 4), and the
 * plan of a gemm on them.  Needs TLC_PLUGIN_PATH (make check sets it). */
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

typedef void (*ptx_rule)(int lane, int reg, int64_t *row, int64_t *col);

static void c_16x8(int lane, int r, int64_t *row, int64_t *col)
{
	*row = lane / 4 + 8 * (r >= 2);
	*col = 2 * (lane % 4) + (r & 1);
}
static void a_16x16(int lane, int r, int64_t *row, int64_t *col)
{
	*row = lane / 4 + 8 * ((r >> 1) & 1);
	*col = 2 * (lane % 4) + (r & 1) + 8 * (r >= 4);
}
static void b_16x8(int lane, int r, int64_t *row, int64_t *col)
{
	*row = 2 * (lane % 4) + (r & 1) + 8 * (r >= 2);
	*col = lane / 4;
}
static void a_16x32(int lane, int r, int64_t *row, int64_t *col)
{
	*row = lane / 4 + 8 * ((r >> 2) & 1);
	*col = 4 * (lane % 4) + (r & 3) + 16 * (r >= 8);
}
static void b_32x8(int lane, int r, int64_t *row, int64_t *col)
{
	*row = 4 * (lane % 4) + (r & 3) + 16 * (r >= 4);
	*col = lane / 4;
}
/* .tf32 m16n8k8: a0 / a2 at row groupID, a1 / a3 at groupID + 8, a2 / a3
 * at column threadID_in_group + 4; b1 at row threadID_in_group + 4 */
static void a_16x8(int lane, int r, int64_t *row, int64_t *col)
{
	*row = lane / 4 + 8 * (r & 1);
	*col = lane % 4 + 4 * (r >= 2);
}
static void b_8x8(int lane, int r, int64_t *row, int64_t *col)
{
	*row = lane % 4 + 4 * r;
	*col = lane / 4;
}

/* WGMMA (a warpgroup of 128 threads): warp w = thread / 32 holds rows
 * 16w .. 16w + 15, each warp as the mma.sync atom of its lane (the PTX ISA's
 * wgmma register fragments for D and for A of .m64nNk16 / .m64nNk32). */
static void c_64x8(int thread, int r, int64_t *row, int64_t *col)
{
	c_16x8(thread % 32, r, row, col);
	*row += 16 * (thread / 32);
}
static void a_64x16(int thread, int r, int64_t *row, int64_t *col)
{
	a_16x16(thread % 32, r, row, col);
	*row += 16 * (thread / 32);
}
static void a_64x32(int thread, int r, int64_t *row, int64_t *col)
{
	a_16x32(thread % 32, r, row, col);
	*row += 16 * (thread / 32);
}
static void a_64x8(int thread, int r, int64_t *row, int64_t *col)
{
	a_16x8(thread % 32, r, row, col);
	*row += 16 * (thread / 32);
}
/* the D fragment over 16 columns: registers 4..7 are the next 8 columns */
static void c_64x16(int thread, int r, int64_t *row, int64_t *col)
{
	c_64x8(thread, r % 4, row, col);
	*col += 8 * (r / 4);
}

/* Every (thread, register) of the atom holds the element the rule names, and
 * the atom has exactly x->threads x regs slots. */
static void check_atom(const char *target, const tlc_matrix_inst *x, const tlc_frag_atom *a, const char *which,
                       ptx_rule rule, int regs)
{
	const char *why = NULL;
	const tlc_layout *f = tlc_frag_atom_layout(m, a, x->threads, 0, &why);
	bool good = f && f->threads == x->threads && f->out_shape[0] == regs;
	for (int lane = 0; good && lane < x->threads; lane++)
		for (int r = 0; good && r < regs; r++) {
			int64_t idx[2], got;
			rule(lane, r, &idx[0], &idx[1]);
			good = tlc_layout_eval(f, idx, &got) && got == r && thread_of(f, idx) == lane;
		}
	ok(good, "%s %s (%s x %s): %s fragment matches the PTX table", target, x->name, tlc_dtype_name(x->a),
	   tlc_dtype_name(x->acc), which);
}

static void check_target(const char *name, int nmatrix)
{
	const tlc_target_desc *t = tlc_find_target(ctx, name);
	if (!ok(t && t->info, "%s has a description", name))
		return;
	const tlc_target_info *info = t->info;
	ok(info->lanes == 32 && info->nmatrix == nmatrix, "%s: 32 lanes, %d matrix instructions", name, nmatrix);
	/* the whole table, fragments built (registration checks only its cheap facts) */
	const char *bad = tlc_target_info_verify(ctx, info);
	if (!ok(!bad, "%s: its description verifies (tlc_target_info_verify)", name))
		diag("%s", bad);
	for (int i = 0; i < info->nmatrix; i++) {
		const tlc_matrix_inst *x = &info->matrix[i];
		if (x->threads == 128) {
			/* WGMMA: B only from shared memory; 8-bit and 32-bit operands
			 * K-major only (it transposes 16-bit ones only); integer N in
			 * steps of 16; float32 read as TF32 */
			int bits = tlc_dtype_bits(x->a), k = bits == 8 ? 32 : bits == 32 ? 8 : 16;
			bool ints = !tlc_dtype_is_float(x->a), tf32 = bits == 32;
			unsigned reads = tf32 ? (unsigned)TLC_MMA_READS_TF32 : 0u;
			ok(!x->frag_b.ndigits && x->b_from == (TLC_MMA_FROM_SHARED | reads) && x->n == (ints ? 16 : 8) &&
			       x->n_max == 256 && x->k == k && (x->a_from & TLC_MMA_READS_TF32) == reads &&
			       x->acc == (ints ? TLC_DT_INT32 : TLC_DT_FLOAT32) &&
			       x->shared_majors == (bits != 16 ? (unsigned)TLC_MMA_K_MAJOR : 0u),
			   "%s %s (%s): B from shared memory, N up to 256, k %d%s", name, x->name, tlc_dtype_name(x->a), k,
			   bits != 16 ? ", K-major operands" : "");
			check_atom(name, x, &x->frag_c, "accumulator", ints ? c_64x16 : c_64x8, ints ? 8 : 4);
			check_atom(name, x, &x->frag_a, "A", bits == 8 ? a_64x32 : tf32 ? a_64x8 : a_64x16,
			           bits == 8 ? 16 : tf32 ? 4 : 8);
			continue;
		}
		check_atom(name, x, &x->frag_c, "accumulator", c_16x8, 4);
		if (x->k == 16) {
			check_atom(name, x, &x->frag_a, "A", a_16x16, 8);
			check_atom(name, x, &x->frag_b, "B", b_16x8, 4);
		} else if (x->k == 8) {
			ok(x->a == TLC_DT_FLOAT32 && (x->a_from & x->b_from & TLC_MMA_READS_TF32),
			   "%s %s: k = 8 only for float32 read as TF32", name, x->name);
			check_atom(name, x, &x->frag_a, "A", a_16x8, 4);
			check_atom(name, x, &x->frag_b, "B", b_8x8, 2);
		} else {
			ok(x->k == 32 && tlc_dtype_bits(x->a) == 8, "%s %s: k = 32 only for 8-bit inputs", name, x->name);
			check_atom(name, x, &x->frag_a, "A", a_16x32, 16);
			check_atom(name, x, &x->frag_b, "B", b_32x8, 8);
		}
	}
}

/* A 128x128 float16 gemm on 256 threads plans 8 warps in a 4x2 grid whose
 * accumulator holds element (i, j) in thread
 * (i / 32 * 2 + j / 64) * 32 + (i % 8) * 4 + (j % 8) / 2 on sm_80; on sm_90
 * it plans two WGMMA warpgroups over M (element (i, j) in thread
 * (i / 64) * 128 + (i % 64 / 16) * 32 + (i % 8) * 4 + (j % 8) / 2), and
 * falls back to mma.sync where WGMMA does not fit: 64 threads, or a B
 * operand whose layout is not a swizzle. */
static void check_plan(void)
{
	tlc_module_set_target(m, tlc_find_target(ctx, "cuda-sm80"));
	const tlc_expr *sa[2] = {tlc_i32(m, 128), tlc_i32(m, 32)}, *sb[2] = {tlc_i32(m, 32), tlc_i32(m, 128)},
	               *sc[2] = {tlc_i32(m, 128), tlc_i32(m, 128)};
	tlc_gemm_info g = {
	    .A = tlc_buffer_new(m, "A", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sa, (tlc_loc){0}),
	    .B = tlc_buffer_new(m, "B", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sb, (tlc_loc){0}),
	    .C = tlc_buffer_new(m, "C", TLC_DT_FLOAT32, TLC_SCOPE_FRAGMENT, 2, sc, (tlc_loc){0}),
	    .M = 128, .N = 128, .K = 32, .policy = TLC_WARP_POLICY_SQUARE};
	tlc_gemm_plan plan;
	const char *why = NULL;
	if (!ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why), "plan a 128x128x32 float16 gemm on 256 threads")) {
		diag("%s", why ? why : "");
		return;
	}
	ok(plan.inst && strcmp(plan.inst->name, "mma.sync.m16n8k16") == 0 && plan.warp_m == 4 && plan.warp_n == 2,
	   "mma.sync.m16n8k16 on a 4x2 warp grid");
	bool good = plan.c_frag->threads == 256;
	for (int64_t i = 0; good && i < 128; i++)
		for (int64_t j = 0; good && j < 128; j++) {
			int64_t idx[2] = {i, j};
			good = thread_of(plan.c_frag, idx) == (i / 32 * 2 + j / 64) * 32 + (i % 8) * 4 + (j % 8) / 2;
		}
	ok(good, "the accumulator's threads follow the warp grid and the atom");

	tlc_module_set_target(m, tlc_find_target(ctx, "cuda-sm90"));
	ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && strcmp(plan.inst->name, "wgmma.m64nNk16") == 0 &&
	       plan.warp_m == 2 && plan.warp_n == 1,
	   "sm_90: two WGMMA warpgroups over M");
	good = plan.c_frag && plan.c_frag->threads == 256;
	for (int64_t i = 0; good && i < 128; i++)
		for (int64_t j = 0; good && j < 128; j++) {
			int64_t idx[2] = {i, j};
			good = thread_of(plan.c_frag, idx) == (i / 64) * 128 + (i % 64 / 16) * 32 + (i % 8) * 4 + (j % 8) / 2;
		}
	ok(good, "the WGMMA accumulator's threads: warpgroup, then warp by 16 rows, then the mma.sync atom");
	ok(tlc_gemm_plan_for(m, &g, 64, 0, &plan, &why) && strcmp(plan.inst->name, "mma.sync.m16n8k16") == 0,
	   "sm_90, 64 threads: not a warpgroup, so mma.sync");
	int64_t rm_shape[2] = {32, 128};
	g.B->layout = tlc_layout_row_major(m, 2, rm_shape);
	ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && strcmp(plan.inst->name, "mma.sync.m16n8k16") == 0,
	   "sm_90, B with a row-major layout of the user's: no descriptor reads it, so mma.sync");
	g.B->layout = NULL;
	g.A->dtype = g.B->dtype = TLC_DT_FLOAT8_E4M3;
	ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && strcmp(plan.inst->name, "mma.sync.m16n8k32") == 0,
	   "sm_90, float8 with B as [K][N] (not K-major): WGMMA cannot read it, mma.sync can");
	g.A->dtype = g.B->dtype = TLC_DT_FLOAT32;
	ok(tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && strcmp(plan.inst->name, "mma.sync.m16n8k8") == 0 &&
	       (plan.inst->a_from & TLC_MMA_READS_TF32),
	   "sm_90, float32 with B as [K][N]: TF32 WGMMA reads K-major operands only, TF32 mma.sync takes it");
	g.A->dtype = g.B->dtype = TLC_DT_INT16;
	ok(!tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) &&
	       strstr(why, "target cuda-sm90 has no matrix instruction for int16 x int16 -> float32; its matrix "
	                   "instructions take float16 x float16 -> float32, bfloat16 x bfloat16 -> float32,"),
	   "no instruction for int16 inputs: the reason names the target and the types it takes");
	g.A->dtype = g.B->dtype = TLC_DT_FLOAT16;
	ok(!tlc_gemm_plan_for(m, &g, 48, 0, &plan, &why) && strstr(why, "groups of 32 threads"),
	   "48 threads are not whole warps");
	/* K = 24: A's rows of 48 bytes take no swizzle, which keeps WGMMA out;
	 * mma.sync takes all but K, and the error names its k */
	const tlc_expr *sa24[2] = {tlc_i32(m, 128), tlc_i32(m, 24)}, *sb24[2] = {tlc_i32(m, 24), tlc_i32(m, 128)};
	tlc_gemm_info g24 = g;
	g24.A = tlc_buffer_new(m, "A24", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sa24, (tlc_loc){0});
	g24.B = tlc_buffer_new(m, "B24", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, sb24, (tlc_loc){0});
	g24.K = 24;
	ok(!tlc_gemm_plan_for(m, &g24, 256, 0, &plan, &why) &&
	       strstr(why, "must be a multiple of 16 for float16 mma.sync.m16n8k16 (the instruction's k); got 24"),
	   "K = 24: not a multiple of mma.sync's k of 16, an error that names it (never truncated)");
	tlc_module_set_target(m, NULL);
	ok(!tlc_gemm_plan_for(m, &g, 256, 0, &plan, &why) && strstr(why, "--target"), "no target, no plan");
}

int main(void)
{
	ctx = tlc_context_new();
	m = tlc_module_new(ctx);
	if (!ok(getenv("TLC_PLUGIN_PATH") && tlc_plugin_load(ctx, "cuda", 0, NULL) == 0,
	        "load the cuda plugin (TLC_PLUGIN_PATH, set by make check)"))
		return done_testing();
	check_target("cuda-sm80", 5);
	check_target("cuda-sm90", 14);
	check_plan();
	tlc_module_free(m);
	tlc_context_free(ctx);
	return done_testing();
}
