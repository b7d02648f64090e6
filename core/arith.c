/* arith.c - the values kernel arithmetic computes (arith.h; the rules are
 * written out in doc/language.md, "Arithmetic").
 *
 * Integers of 8 and 16 bits and every unsigned type wrap around in their
 * type; a signed 32- or 64-bit result that does not fit is an error, as in
 * C and TVM (whose simplifier and nvcc's optimizer both assume it never
 * happens).  Floats are held in doubles: an operation on float16, bfloat16,
 * float8 or float32 values computed in double and rounded once to the type
 * is the correctly rounded result (double has more than twice their
 * precision plus two bits), which is what the GPU computes in float32 and
 * rounds (the same argument for float32 and the narrow types). */
#include "arith.h"

#include <math.h>
#include <tlc/sim.h>

double tlc_arith_round(tlc_dtype t, double x)
{
	return tlc_sim_round(t, x);
}

int64_t tlc_arith_wrap(tlc_dtype t, int64_t v)
{
	int bits = tlc_dtype_bits(t);
	if (t == TLC_DT_BOOL)
		return v != 0;
	if (bits >= 64)
		return v;
	uint64_t mask = (UINT64_C(1) << bits) - 1, u = (uint64_t)v & mask;
	if (!tlc_dtype_is_unsigned(t) && (u >> (bits - 1)))
		u |= ~mask; /* sign-extend */
	return (int64_t)u;
}

/* float -> integer: toward zero, saturating at the type's ends, NaN -> 0
 * (PTX's cvt.rzi; C++ leaves an out-of-range conversion undefined, so the
 * printers clamp first) */
static int64_t float_to_int(tlc_dtype t, double x)
{
	if (t == TLC_DT_BOOL)
		return x != 0.0; /* NaN != 0: true */
	if (isnan(x))
		return 0;
	double tr = trunc(x);
	if (t == TLC_DT_UINT64) {
		if (tr <= 0.0)
			return 0;
		if (tr >= 18446744073709551616.0)
			return -1; /* all ones: 2^64 - 1 */
		return (int64_t)(uint64_t)tr;
	}
	int64_t lo, hi;
	tlc_dtype_int_range(t, &lo, &hi);
	if (tr <= (double)lo)
		return lo;
	if (tr >= (double)hi) /* (double)INT64_MAX is 2^63: out of range too */
		return hi;
	return (int64_t)tr;
}

/* An integer value of dtype `from` (uint64 as bits) as an exact rounding
 * to float32: C's conversion, which rounds once (a double first could round
 * twice for 64-bit values). */
static float int_to_f32(tlc_dtype from, int64_t v)
{
	return from == TLC_DT_UINT64 ? (float)(uint64_t)v : (float)v;
}

static double int_to_f64(tlc_dtype from, int64_t v)
{
	return from == TLC_DT_UINT64 ? (double)(uint64_t)v : (double)v;
}

tlc_scalar tlc_arith_convert(tlc_scalar x, tlc_dtype from, tlc_dtype to)
{
	tlc_scalar r = {0, 0};
	bool ff = tlc_dtype_is_float(from), tf = tlc_dtype_is_float(to);
	if (from == to)
		return x;
	if (!tf) {
		r.i = ff ? float_to_int(to, x.f) : tlc_arith_wrap(to, x.i);
		return r;
	}
	if (to == TLC_DT_FLOAT64) {
		r.f = ff ? x.f : int_to_f64(from, x.i);
		return r;
	}
	/* float32 and the narrow floats: through a float32 value (an integer or
	 * float64 source rounds to float32 first, as the printers convert) */
	float f32 = ff ? (float)x.f : int_to_f32(from, x.i);
	if (ff && from != TLC_DT_FLOAT64)
		r.f = tlc_arith_round(to, x.f); /* exact in float32 already */
	else
		r.f = tlc_arith_round(to, (double)f32);
	return r;
}

/* The bits of x (dtype t), in the low tlc_dtype_bits(t) bits. */
static uint64_t bits_of(tlc_scalar x, tlc_dtype t)
{
	int n = tlc_dtype_bits(t);
	uint64_t mask = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
	return (tlc_dtype_is_float(t) ? tlc_sim_encode(t, x.f) : (uint64_t)x.i) & mask;
}

tlc_scalar tlc_arith_bitcast(tlc_scalar x, tlc_dtype from, tlc_dtype to)
{
	tlc_scalar r = {0, 0};
	uint64_t b = bits_of(x, from);
	if (tlc_dtype_is_float(to))
		r.f = tlc_sim_decode(to, b);
	else
		r.i = tlc_arith_wrap(to, (int64_t)b); /* sign-extends a signed type */
	return r;
}

bool tlc_arith_bitcast_exact(tlc_scalar x, tlc_dtype from, tlc_dtype to)
{
	if (tlc_dtype_is_float(from) && isnan(x.f))
		return false;
	return !tlc_dtype_is_float(to) || !isnan(tlc_arith_bitcast(x, from, to).f);
}

/* The signed 32/64-bit result r of an operation, or the overflow. */
static const char *fit_signed(tlc_dtype t, __int128 r, int64_t *out)
{
	if ((t == TLC_DT_INT32 && (r < INT32_MIN || r > INT32_MAX)) ||
	    (t == TLC_DT_INT64 && (r < INT64_MIN || r > INT64_MAX)))
		return t == TLC_DT_INT32 ? "int32 overflow" : "int64 overflow";
	*out = (int64_t)r;
	return NULL;
}

static bool overflow_checked(tlc_dtype t)
{
	return t == TLC_DT_INT32 || t == TLC_DT_INT64;
}

/* a as a number: uint64 bit patterns above 2^63 are large, not negative */
static __int128 int_value(tlc_dtype t, int64_t a)
{
	return t == TLC_DT_UINT64 ? (__int128)(uint64_t)a : (__int128)a;
}

static __int128 floordiv128(__int128 a, __int128 b)
{
	__int128 q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static const char *int_binary(tlc_expr_kind k, tlc_dtype t, int64_t a, int64_t b, int64_t *r)
{
	__int128 x = int_value(t, a), y = int_value(t, b), v;
	int bits = tlc_dtype_bits(t);
	switch (k) {
	case TLC_EXPR_ADD: v = x + y; break;
	case TLC_EXPR_SUB: v = x - y; break;
	case TLC_EXPR_MUL:
		/* the low 64 bits are all a wrapping type keeps; the full product
		 * of two int64 values fits 128 bits */
		v = overflow_checked(t) ? x * y : (__int128)((uint64_t)a * (uint64_t)b);
		break;
	case TLC_EXPR_DIV:
	case TLC_EXPR_FLOORDIV:
	case TLC_EXPR_FLOORMOD:
		if (y == 0)
			return "integer division by zero";
		if (k == TLC_EXPR_DIV)
			v = x / y; /* truncating: the IR's integer / (passes only) */
		else if (k == TLC_EXPR_FLOORDIV)
			v = floordiv128(x, y);
		else
			v = x - floordiv128(x, y) * y;
		break;
	case TLC_EXPR_MIN: v = x < y ? x : y; break;
	case TLC_EXPR_MAX: v = x > y ? x : y; break;
	case TLC_EXPR_BITAND: v = x & y; break;
	case TLC_EXPR_BITOR: v = x | y; break;
	case TLC_EXPR_BITXOR: v = x ^ y; break;
	case TLC_EXPR_SHL:
	case TLC_EXPR_SHR:
		if (y < 0 || y >= bits)
			return "shift count out of range";
		if (k == TLC_EXPR_SHL) {
			/* two's complement: the bits shifted past the type are lost */
			*r = tlc_arith_wrap(t, (int64_t)((uint64_t)a << (int)y));
			return NULL;
		}
		v = x >> (int)y; /* arithmetic for signed values, logical for unsigned ones */
		break;
	default: return "operator not defined on integers";
	}
	if (overflow_checked(t))
		return fit_signed(t, v, r);
	*r = tlc_arith_wrap(t, (int64_t)(uint64_t)v);
	return NULL;
}

/* IEEE 754-2019 minimumNumber / maximumNumber: a NaN gives the other
 * operand, and -0 orders below +0 */
static double fminmax(bool is_min, double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	if (a == b)
		return (signbit(a) != 0) == is_min ? a : b;
	return (a < b) == is_min ? a : b;
}

static const char *float_binary(tlc_expr_kind k, tlc_dtype t, double a, double b, double *r)
{
	switch (k) {
	case TLC_EXPR_ADD: *r = tlc_arith_round(t, a + b); return NULL;
	case TLC_EXPR_SUB: *r = tlc_arith_round(t, a - b); return NULL;
	case TLC_EXPR_MUL: *r = tlc_arith_round(t, a * b); return NULL;
	case TLC_EXPR_DIV: *r = tlc_arith_round(t, a / b); return NULL;
	case TLC_EXPR_FLOORDIV:
		/* TileLang's floordiv of floats: floor of the rounded quotient */
		*r = floor(tlc_arith_round(t, a / b));
		return NULL;
	case TLC_EXPR_FLOORMOD: {
		/* a - floor(a / b) * b, each step in the type */
		double q = floor(tlc_arith_round(t, a / b));
		*r = tlc_arith_round(t, a - tlc_arith_round(t, q * b));
		return NULL;
	}
	case TLC_EXPR_MIN: *r = fminmax(true, a, b); return NULL;
	case TLC_EXPR_MAX: *r = fminmax(false, a, b); return NULL;
	default: return "operator not defined on floats";
	}
}

const char *tlc_arith_binary(tlc_expr_kind k, tlc_dtype t, tlc_scalar a, tlc_scalar b, tlc_scalar *r)
{
	tlc_scalar z = {0, 0};
	*r = z;
	if (tlc_dtype_is_float(t))
		return float_binary(k, t, a.f, b.f, &r->f);
	return int_binary(k, t, a.i, b.i, &r->i);
}

const char *tlc_arith_neg(tlc_dtype t, tlc_scalar a, tlc_scalar *r)
{
	tlc_scalar zero = {0, 0};
	if (tlc_dtype_is_float(t)) {
		*r = zero;
		r->f = -a.f;
		return NULL;
	}
	return tlc_arith_binary(TLC_EXPR_SUB, t, zero, a, r);
}

const char *tlc_arith_abs(tlc_dtype t, tlc_scalar a, tlc_scalar *r)
{
	if (tlc_dtype_is_float(t)) {
		*r = a;
		r->f = fabs(a.f);
		return NULL;
	}
	if (tlc_dtype_is_unsigned(t) || a.i >= 0) {
		*r = a;
		return NULL;
	}
	return tlc_arith_neg(t, a, r);
}

bool tlc_arith_compare(tlc_expr_kind k, tlc_dtype t, tlc_scalar a, tlc_scalar b)
{
	if (tlc_dtype_is_float(t)) {
		switch (k) {
		case TLC_EXPR_EQ: return a.f == b.f;
		case TLC_EXPR_NE: return a.f != b.f;
		case TLC_EXPR_LT: return a.f < b.f;
		case TLC_EXPR_LE: return a.f <= b.f;
		case TLC_EXPR_GT: return a.f > b.f;
		default: return a.f >= b.f;
		}
	}
	__int128 x = int_value(t, a.i), y = int_value(t, b.i);
	switch (k) {
	case TLC_EXPR_EQ: return x == y;
	case TLC_EXPR_NE: return x != y;
	case TLC_EXPR_LT: return x < y;
	case TLC_EXPR_LE: return x <= y;
	case TLC_EXPR_GT: return x > y;
	default: return x >= y;
	}
}

bool tlc_arith_truth(tlc_dtype t, tlc_scalar a)
{
	return tlc_dtype_is_float(t) ? a.f != 0.0 : a.i != 0;
}
