/* sim_number.c - the number formats of the simulator: rounding a value to
 * a dtype, its storage bits, and the random inputs.
 *
 * Floats are held as doubles already rounded to their dtype.  An operation
 * on float16, bfloat16 or float32 operands is computed in double and rounded
 * once: double carries more than twice the bits of each of these formats
 * plus two, so that rounding equals rounding the exact result (for + - * /
 * and sqrt), which is what the GPU computes (the CUDA target converts
 * 16-bit operands to float32, computes, and rounds back with _rn).
 *
 * Formats (IEEE-style, round to nearest even, subnormals kept):
 *   float16        10 mantissa bits, exponents -14..15, overflow -> inf
 *   bfloat16        7 mantissa bits, exponents -126..127, overflow -> inf
 *   float8_e4m3fn   3 mantissa bits, exponents -6..8, no infinities,
 *                   overflow saturates to +-448 (CUDA's __nv_fp8_e4m3 uses
 *                   __NV_SATFINITE), NaN is S.1111.111
 *   float8_e5m2     2 mantissa bits, exponents -14..15, overflow saturates
 *                   to +-57344 (SATFINITE as well)
 *   float8_e4m3fnuz 3 mantissa bits, exponents -7..7, overflow saturates to
 *                   +-240; no infinities, no negative zero: NaN is 0x80
 *   float8_e5m2fnuz 2 mantissa bits, exponents -15..15, overflow saturates
 *                   to +-57344; NaN is 0x80 (the hip target's conversions
 *                   saturate the same way)
 * float32 and float64 are the C types. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

typedef struct fmt {
	int mant;      /* stored mantissa bits */
	int exp_bits;
	int emin;      /* exponent of the smallest normal */
	double max;    /* largest finite value */
	bool saturate; /* overflow gives +-max (CUDA's SATFINITE), else +-inf */
	bool ieee;     /* the all-ones exponent holds inf (mantissa 0) and NaN; else (e4m3fn)
	                * it holds normal values and NaN is the all-ones mantissa */
	bool fnuz;     /* every exponent holds normal values; NaN is the negative zero's code */
} fmt;

static const fmt F16 = {10, 5, -14, 65504.0, false, true, false};
static const fmt BF16 = {7, 8, -126, 3.38953138925153547590e38, false, true, false};
static const fmt E4M3 = {3, 4, -6, 448.0, true, false, false};
static const fmt E5M2 = {2, 5, -14, 57344.0, true, true, false};
static const fmt E4M3FNUZ = {3, 4, -7, 240.0, true, false, true};
static const fmt E5M2FNUZ = {2, 5, -15, 57344.0, true, false, true};

static const fmt *format_of(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_FLOAT16: return &F16;
	case TLC_DT_BFLOAT16: return &BF16;
	case TLC_DT_FLOAT8_E4M3: return &E4M3;
	case TLC_DT_FLOAT8_E5M2: return &E5M2;
	case TLC_DT_FLOAT8_E4M3FNUZ: return &E4M3FNUZ;
	case TLC_DT_FLOAT8_E5M2FNUZ: return &E5M2FNUZ;
	default: return NULL;
	}
}

/* x rounded to format f: nearest, ties to even (rint in the default mode). */
static double round_to(const fmt *f, double x)
{
	if (isnan(x) || x == 0.0)
		return x;
	if (isinf(x))
		return f->saturate ? copysign(f->max, x) : x;
	int e;
	frexp(x, &e); /* |x| = m * 2^e, 0.5 <= m < 1: the leading bit is 2^(e-1) */
	int lead = e - 1 < f->emin ? f->emin : e - 1;
	double q = ldexp(1.0, lead - f->mant); /* the spacing of values at x */
	double r = rint(x / q) * q;
	if (fabs(r) > f->max)
		return f->saturate ? copysign(f->max, x) : copysign(INFINITY, x);
	return r;
}

double tlc_sim_round(tlc_dtype t, double x)
{
	const fmt *f = format_of(t);
	if (f)
		return round_to(f, x);
	if (t == TLC_DT_FLOAT32)
		return (double)(float)x;
	return x;
}

static uint64_t encode_small(const fmt *f, double x)
{
	uint64_t sign = signbit(x) ? 1 : 0, exp_all = (UINT64_C(1) << f->exp_bits) - 1, bias = (uint64_t)(1 - f->emin);
	uint64_t e = 0, m = 0;
	/* a stored value is already of the format (arithmetic rounded it):
	 * an infinity of a format that has one (float8_e5m2) is kept, as the
	 * GPU's byte copy keeps it; only a conversion saturates it */
	if (!(isinf(x) && f->ieee))
		x = round_to(f, x);
	if (f->fnuz && (isnan(x) || x == 0.0))
		return isnan(x) ? UINT64_C(1) << (f->exp_bits + f->mant) : 0; /* NaN 0x80; no -0 */
	if (isnan(x)) {
		e = exp_all;
		m = (UINT64_C(1) << f->mant) - 1;
	} else if (isinf(x)) {
		e = exp_all;
	} else if (x != 0.0) {
		int ex;
		frexp(x, &ex);
		int lead = ex - 1;
		if (lead < f->emin) { /* subnormal */
			m = (uint64_t)llrint(fabs(x) / ldexp(1.0, f->emin - f->mant));
		} else {
			e = (uint64_t)(lead + (int)bias);
			m = (uint64_t)llrint((fabs(x) / ldexp(1.0, lead) - 1.0) * ldexp(1.0, f->mant));
		}
	}
	return sign << (f->exp_bits + f->mant) | e << f->mant | m;
}

static double decode_small(const fmt *f, uint64_t bits)
{
	uint64_t m_all = (UINT64_C(1) << f->mant) - 1, exp_all = (UINT64_C(1) << f->exp_bits) - 1;
	uint64_t m = bits & m_all, e = (bits >> f->mant) & exp_all;
	bool neg = (bits >> (f->exp_bits + f->mant)) & 1;
	double v;
	if (f->fnuz && neg && !e && !m)
		return NAN;
	if (f->ieee && e == exp_all)
		v = m ? NAN : INFINITY;
	else if (!f->ieee && !f->fnuz && e == exp_all && m == m_all)
		v = NAN;
	else if (e == 0)
		v = ldexp((double)m, f->emin - f->mant);
	else
		v = ldexp(1.0 + ldexp((double)m, -f->mant), (int)e + f->emin - 1);
	return neg ? -v : v;
}

uint64_t tlc_sim_encode(tlc_dtype t, double x)
{
	const fmt *f = format_of(t);
	if (f)
		return encode_small(f, x);
	if (t == TLC_DT_FLOAT32) {
		float v = (float)x;
		uint32_t b;
		memcpy(&b, &v, 4);
		return b;
	}
	uint64_t b;
	memcpy(&b, &x, 8);
	return b;
}

double tlc_sim_decode(tlc_dtype t, uint64_t bits)
{
	const fmt *f = format_of(t);
	if (f)
		return decode_small(f, bits);
	if (t == TLC_DT_FLOAT32) {
		uint32_t b = (uint32_t)bits;
		float v;
		memcpy(&v, &b, 4);
		return v;
	}
	double v;
	memcpy(&v, &bits, 8);
	return v;
}

int64_t sim_float_to_int(tlc_dtype t, double x)
{
	tlc_scalar v = {x, 0};
	return tlc_arith_convert(v, TLC_DT_FLOAT64, t).i;
}

/* ---- random inputs: splitmix64 ---- */

uint64_t sim_random_u64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

double sim_random_normal(uint64_t *state)
{
	/* Box-Muller on two uniforms in (0, 1] */
	double u1 = ((double)(sim_random_u64(state) >> 11) + 1.0) / 9007199254740992.0;
	double u2 = (double)(sim_random_u64(state) >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
