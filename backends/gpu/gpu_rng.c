/* gpu_rng.c - T.rng_init / T.rng_rand / T.rng_rand_float on the GPU.
 *
 * TileLang prints them as cuRAND's device API on a
 * curandStatePhilox4_32_10_t.  tlc prints a helper of its own that steps
 * the same Philox4x32-10 generator exactly as cuRAND does (curand_init's
 * subsequence and offset, curand's word order, the uniform and Box-Muller
 * formulas with the same float operations), so that the source stays
 * self-contained (no curand_kernel.h, DESIGN.md 2), HIP gets the same
 * bits as CUDA, and tlc-sim (core/sim/sim_rng.c) computes what both print.
 * Each kernel that uses one has one generator per thread, `tlc_rng`,
 * declared at its entry (a T.rng_init inside an `if` or a loop still
 * starts the generator the later draws use). */
#include "gpu_printer.h"

#include <string.h>

/* The constants are Random123's (Philox4x32: multipliers 0xD2511F53,
 * 0xCD9E8D57, Weyl key increments 0x9E3779B9, 0xBB67AE85), cuRAND's too.
 * The functions are inline, not static: a kernel draws some kinds only,
 * and nvcc warns of an unused static function. */
const char gpu_rng_helper[] =
	"/* T.rng_init / T.rng_rand / T.rng_rand_float: cuRAND's Philox4x32-10 generator\n"
	" * (curandStatePhilox4_32_10_t), stepped as curand_init, curand, curand_uniform(_double)\n"
	" * and curand_normal(_double) step it: the values are theirs bit for bit (the normals\n"
	" * when compiled with the same flags: they share logf, sqrtf, __sincosf, log, sincospi). */\n"
	"struct tlc_rng_state {\n"
	"\tunsigned int ctr[4], out[4], key[2];\n"
	"\tunsigned int pos; /* the next word of out */\n"
	"\tint has_f, has_d; /* the second value of a Box-Muller pair waits */\n"
	"\tfloat extra_f;\n\tdouble extra_d;\n};\n\n"
	"__device__ __forceinline__ void tlc_rng_block(tlc_rng_state *s)\n"
	"{\n"
	"\tunsigned int c0 = s->ctr[0], c1 = s->ctr[1], c2 = s->ctr[2], c3 = s->ctr[3];\n"
	"\tunsigned int k0 = s->key[0], k1 = s->key[1];\n"
	"#pragma unroll\n"
	"\tfor (int round = 0; round < 10; round++) {\n"
	"\t\tif (round > 0) {\n\t\t\tk0 += 0x9E3779B9u;\n\t\t\tk1 += 0xBB67AE85u;\n\t\t}\n"
	"\t\tconst unsigned int hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;\n"
	"\t\tconst unsigned int hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;\n"
	"\t\tc0 = hi1 ^ c1 ^ k0;\n\t\tc1 = lo1;\n\t\tc2 = hi0 ^ c3 ^ k1;\n\t\tc3 = lo0;\n"
	"\t}\n"
	"\ts->out[0] = c0;\n\ts->out[1] = c1;\n\ts->out[2] = c2;\n\ts->out[3] = c3;\n"
	"}\n\n"
	"/* curand_init(seed, seq, off): the subsequence adds to counter words 2-3, the offset\n"
	" * skips off / 4 blocks (cuRAND's carry out of word 1 kept as it is) and off % 4 words "
	"*/\n"
	"__device__ __forceinline__ void tlc_rng_init(tlc_rng_state *s, unsigned long long seed,\n"
	"                                                    unsigned long long seq, unsigned long "
	"long off)\n"
	"{\n"
	"\ts->key[0] = (unsigned int)seed;\n\ts->key[1] = (unsigned int)(seed >> 32);\n"
	"\ts->has_f = 0;\n\ts->has_d = 0;\n\ts->extra_f = 0.0f;\n\ts->extra_d = 0.0;\n"
	"\tunsigned int lo = (unsigned int)seq, hi = (unsigned int)(seq >> 32);\n"
	"\ts->ctr[2] = lo;\n\ts->ctr[3] = hi;\n"
	"\t/* from a zero counter, cuRAND's skips carry nothing further */\n"
	"\ts->ctr[0] = (unsigned int)(off >> 2);\n\ts->ctr[1] = (unsigned int)(off >> 34);\n"
	"\ts->pos = (unsigned int)(off & 3u);\n"
	"\ttlc_rng_block(s);\n"
	"}\n\n"
	"/* curand(): the next word; a new block after the fourth */\n"
	"__device__ __forceinline__ unsigned int tlc_rng_u32(tlc_rng_state *s)\n"
	"{\n"
	"\tconst unsigned int x = s->out[s->pos++];\n"
	"\tif (s->pos == 4u) {\n"
	"\t\tif (++s->ctr[0] == 0u && ++s->ctr[1] == 0u && ++s->ctr[2] == 0u)\n\t\t\t++s->ctr[3];\n"
	"\t\ttlc_rng_block(s);\n\t\ts->pos = 0u;\n"
	"\t}\n"
	"\treturn x;\n"
	"}\n\n"
	"/* curand_uniform: (0, 1]; x * 2^-32 is exact, so fused or not the sum rounds once */\n"
	"__device__ __forceinline__ float tlc_rng_uniform_f32(tlc_rng_state *s)\n"
	"{\n\treturn (float)tlc_rng_u32(s) * 2.3283064e-10f + 2.3283064e-10f / 2.0f;\n}\n\n"
	"/* curand_uniform_double: one word, x * 2^-32 + 2^-32 (exact) */\n"
	"__device__ __forceinline__ double tlc_rng_uniform_f64(tlc_rng_state *s)\n"
	"{\n\treturn (double)tlc_rng_u32(s) * 2.3283064365386963e-10 + "
	"2.3283064365386963e-10;\n}\n\n"
	"/* curand_normal: Box-Muller on two words (the angle's multiply-add fused, as nvcc\n"
	" * contracts cuRAND's), the cosine half kept for the next call */\n"
	"__device__ __forceinline__ float tlc_rng_normal_f32(tlc_rng_state *s)\n"
	"{\n"
	"\tif (s->has_f) {\n\t\ts->has_f = 0;\n\t\treturn s->extra_f;\n\t}\n"
	"\tconst unsigned int x = tlc_rng_u32(s), y = tlc_rng_u32(s);\n"
	"\tconst float two_pi_2_32 = 2.3283064e-10f * 6.2831855f;\n"
	"\tconst float u = (float)x * 2.3283064e-10f + 2.3283064e-10f / 2.0f;\n"
	"\tconst float a = __fmaf_rn((float)y, two_pi_2_32, two_pi_2_32 / 2.0f);\n"
	"\tconst float m = sqrtf(-2.0f * logf(u));\n"
	"\tfloat sn, cs;\n\t__sincosf(a, &sn, &cs);\n"
	"\ts->extra_f = cs * m;\n\ts->has_f = 1;\n\treturn sn * m;\n"
	"}\n\n"
	"/* curand_normal_double: four words make two 53-bit uniforms */\n"
	"__device__ __forceinline__ double tlc_rng_normal_f64(tlc_rng_state *s)\n"
	"{\n"
	"\tif (s->has_d) {\n\t\ts->has_d = 0;\n\t\treturn s->extra_d;\n\t}\n"
	"\tconst unsigned int w0 = tlc_rng_u32(s), w1 = tlc_rng_u32(s);\n"
	"\tconst unsigned int w2 = tlc_rng_u32(s), w3 = tlc_rng_u32(s);\n"
	"\tconst unsigned long long zx = (unsigned long long)w0 ^ ((unsigned long long)w1 << 21);\n"
	"\tconst unsigned long long zy = (unsigned long long)w2 ^ ((unsigned long long)w3 << 21);\n"
	"\tconst double u = (double)zx * 1.1102230246251565e-16 + 1.1102230246251565e-16 / 2.0;\n"
	"\tconst double a = (double)zy * (1.1102230246251565e-16 * 2.0) + 1.1102230246251565e-16;\n"
	"\tconst double m = sqrt(-2.0 * log(u));\n"
	"\tdouble sn, cs;\n\tsincospi(a, &sn, &cs);\n"
	"\ts->extra_d = cs * m;\n\ts->has_d = 1;\n\treturn sn * m;\n"
	"}\n\n";

/* The generator is declared at kernel entry (emit_frame) when bit 7 is set. */
static void use_state(gpu_emitter *e)
{
	e->helpers |= GPU_HELPER_RNG;
	e->used_frame |= 1u << 7;
}

void gpu_emit_rng_draw(gpu_emitter *e, const tlc_expr *x)
{
	use_state(e);
	if (x->u.call.op == TLC_OP_RNG_RAND) {
		tlc_buf_puts(e->out, "tlc_rng_u32(&tlc_rng)");
		return;
	}
	const tlc_expr *dist = tlc_call_kw(x, "dist");
	bool normal = dist && dist->kind == TLC_EXPR_STR && !strcmp(dist->u.str, "normal");
	tlc_buf_printf(e->out, "tlc_rng_%s_f%d(&tlc_rng)", normal ? "normal" : "uniform",
		       x->dtype == TLC_DT_FLOAT64 ? 64 : 32);
}

void gpu_emit_rng_init(gpu_emitter *e, const tlc_expr *c, int ind)
{
	use_state(e);
	gpu_indent(e, ind);
	tlc_buf_puts(e->out, "tlc_rng_init(&tlc_rng");
	/* curand_init's operands: an int converts as C converts it (sign-extended) */
	for (int i = 0; i < 3; i++) {
		tlc_buf_puts(e->out, ", (unsigned long long)(");
		gpu_emit_expr(e, c->u.call.args[i]);
		tlc_buf_puts(e->out, ")");
	}
	tlc_buf_puts(e->out, ");\n");
}
