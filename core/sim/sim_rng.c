/* sim_rng.c - T.rng_init / T.rng_rand / T.rng_rand_float in tlc-sim: each
 * thread's cuRAND Philox4x32-10 generator (curandStatePhilox4_32_10_t),
 * stepped exactly as cuRAND steps it, so that the integers and the uniform
 * floats are the GPU's bits.  The normal draws use the host's logf, sqrtf,
 * sinf and cosf where the GPU uses its own (__sincosf, sincospi): those
 * agree to a few units in the last place, not bit for bit.
 *
 * The generator (the published algorithm, Salmon et al., SC'11, with
 * cuRAND's sequencing):
 *   key = (seed low word, seed high word); counter = 4 words, 0 at init;
 *   init: counter words 2-3 += seq (the subsequence: 2^66 numbers each),
 *         then skip `off` numbers: position += off % 4, counter += off / 4
 *         (one more when the position passes 3), block = Philox(counter);
 *   draw: the block's word at the position; after the fourth, counter += 1
 *         and block = Philox(counter). */
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim_rng {
	uint32_t ctr[4], out[4], key[2];
	uint32_t pos;      /* the next word of out to return */
	bool has_f, has_d; /* the second value of a Box-Muller pair waits */
	float extra_f;
	double extra_d;
	bool init;        /* T.rng_init ran in this thread of this block */
	int64_t block[3]; /* the block it ran in */
} sim_rng;

/* 10 rounds of Philox4x32 on the counter under the key (Random123's
 * constants, which cuRAND uses). */
static void philox(const uint32_t c_in[4], const uint32_t k_in[2], uint32_t out[4])
{
	uint32_t c[4] = {c_in[0], c_in[1], c_in[2], c_in[3]}, k0 = k_in[0], k1 = k_in[1];
	for (int round = 0; round < 10; round++) {
		if (round > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0,
			 n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
		c[1] = (uint32_t)p1;
		c[3] = (uint32_t)p0;
		c[0] = n0;
		c[2] = n2;
	}
	for (int i = 0; i < 4; i++)
		out[i] = c[i];
}

/* counter += n, with cuRAND's carry out of word 1 (Philox_State_Incr(s, n),
 * which tests `n_high <= word 1` after the add). */
static void advance(sim_rng *r, uint64_t n)
{
	uint32_t nlo = (uint32_t)n, nhi = (uint32_t)(n >> 32);
	r->ctr[0] += nlo;
	if (r->ctr[0] < nlo)
		nhi++;
	r->ctr[1] += nhi;
	if (nhi <= r->ctr[1])
		return;
	if (++r->ctr[2])
		return;
	++r->ctr[3];
}

static sim_rng *state(sim *s, tlc_loc loc, const char *what)
{
	if (!s->threaded && s->block_threads > 1) {
		sim_fail(s, loc,
			 "T.%s is not modelled at the tile level: each thread has its own "
			 "generator, and which iterations a thread runs is decided by the pipeline "
			 "(run the thread level: --run with the target's passes)",
			 what);
		return NULL;
	}
	int64_t n = s->nthreads > 0 ? s->nthreads : 1;
	if (!s->rng)
		s->rng = tlc_xcalloc((size_t)n, sizeof(sim_rng));
	return &s->rng[s->tid < n ? s->tid : 0];
}

void sim_rng_init(sim *s, const tlc_expr *call, tlc_loc loc)
{
	sim_rng *r = state(s, loc, "rng_init");
	if (!r)
		return;
	/* curand_init's unsigned long long operands: an int32 sign-extends */
	uint64_t seed = (uint64_t)sim_eval_int(s, call->u.call.args[0], loc);
	uint64_t seq = (uint64_t)sim_eval_int(s, call->u.call.args[1], loc);
	uint64_t off = (uint64_t)sim_eval_int(s, call->u.call.args[2], loc);
	*r = (sim_rng){.key = {(uint32_t)seed, (uint32_t)(seed >> 32)},
		       .init = true,
		       .block = {s->block[0], s->block[1], s->block[2]}};
	/* the subsequence: counter words 2 and 3 (no carry out of word 3) */
	uint32_t nlo = (uint32_t)seq, nhi = (uint32_t)(seq >> 32);
	r->ctr[2] += nlo;
	if (r->ctr[2] < nlo)
		nhi++;
	r->ctr[3] += nhi;
	/* the offset: whole blocks and a position in the block */
	r->pos = (uint32_t)(off & 3);
	advance(r, off / 4);
	philox(r->ctr, r->key, r->out);
}

static uint32_t next_u32(sim_rng *r)
{
	uint32_t x = r->out[r->pos++];
	if (r->pos == 4) {
		/* Philox_State_Incr(s): counter + 1 with a full carry */
		if (!++r->ctr[0] && !++r->ctr[1] && !++r->ctr[2])
			++r->ctr[3];
		philox(r->ctr, r->key, r->out);
		r->pos = 0;
	}
	return x;
}

/* curand_uniform's float: x * 2^-32 + 2^-33, in float (the product is exact). */
static float uniform_f(uint32_t x)
{
	return (float)x * 0x1p-32f + 0x1p-33f;
}

sim_val sim_rng_draw(sim *s, const tlc_expr *call, tlc_loc loc)
{
	sim_val v = {0, 0};
	bool rand = call->u.call.op == TLC_OP_RNG_RAND;
	sim_rng *r = state(s, loc, rand ? "rng_rand" : "rng_rand_float");
	if (!r)
		return v;
	if (!r->init || r->block[0] != s->block[0] || r->block[1] != s->block[1] ||
	    r->block[2] != s->block[2]) {
		sim_fail(s, loc,
			 "T.%s before T.rng_init in this thread (its generator is uninitialized "
			 "on the GPU)",
			 rand ? "rng_rand" : "rng_rand_float");
		return v;
	}
	if (rand) {
		v.i = next_u32(r);
		return v;
	}
	const tlc_expr *dist = tlc_call_kw(call, "dist");
	bool normal = dist && dist->kind == TLC_EXPR_STR && !strcmp(dist->u.str, "normal");
	bool dbl = call->dtype == TLC_DT_FLOAT64;
	if (!normal && !dbl) {
		v.f = uniform_f(next_u32(r)); /* curand_uniform */
	} else if (!normal) {
		v.f = (double)next_u32(r) * 0x1p-32 + 0x1p-32; /* curand_uniform_double: exact */
	} else if (!dbl) {
		/* curand_normal: Box-Muller on two words, the cosine half kept */
		if (r->has_f) {
			r->has_f = false;
			v.f = r->extra_f;
			return v;
		}
		uint32_t x = next_u32(r), y = next_u32(r);
		const float two_pi_2_32 = 0x1p-32f * 6.2831855f;
		float u = uniform_f(x), a = fmaf((float)y, two_pi_2_32, two_pi_2_32 / 2);
		float m = sqrtf(-2.0f * logf(u));
		r->extra_f = cosf(a) * m;
		r->has_f = true;
		v.f = sinf(a) * m;
	} else {
		/* curand_normal_double: four words make two 53-bit uniforms */
		if (r->has_d) {
			r->has_d = false;
			v.f = r->extra_d;
			return v;
		}
		uint32_t w[4];
		for (int i = 0; i < 4; i++)
			w[i] = next_u32(r);
		uint64_t zx = w[0] ^ ((uint64_t)w[1] << 21), zy = w[2] ^ ((uint64_t)w[3] << 21);
		double u = (double)zx * 0x1p-53 + 0x1p-54, a = (double)zy * 0x1p-52 + 0x1p-53;
		double m = sqrt(-2.0 * log(u));
		const double pi = 3.14159265358979323846;
		r->extra_d = cos(a * pi) * m;
		r->has_d = true;
		v.f = sin(a * pi) * m;
	}
	return v;
}
