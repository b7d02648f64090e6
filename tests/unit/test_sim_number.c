/* test_sim_number.c - the simulator's float formats (tlc/sim.h) against
 * values worked out by hand from the formats' definitions: bit patterns,
 * round to nearest even at ties, subnormals, overflow (inf for float16 and
 * bfloat16, saturation for float8 as CUDA's SATFINITE conversions do). */
#include <math.h>
#include <stdint.h>

#include "tap.h"
#include <tlc/sim.h>

static void enc(tlc_dtype t, double x, uint64_t want, const char *what)
{
	uint64_t got = tlc_sim_encode(t, x);
	ok(got == want, "%s: %s encodes as 0x%llx (got 0x%llx)", tlc_dtype_name(t), what, (unsigned long long)want,
	   (unsigned long long)got);
}

static void dec(tlc_dtype t, uint64_t bits, double want, const char *what)
{
	double got = tlc_sim_decode(t, bits);
	ok(got == want || (isnan(got) && isnan(want)), "%s: 0x%llx decodes as %s (%g, got %g)", tlc_dtype_name(t),
	   (unsigned long long)bits, what, want, got);
}

static void rnd(tlc_dtype t, double x, double want, const char *what)
{
	double got = tlc_sim_round(t, x);
	ok(got == want || (isnan(got) && isnan(want)), "%s: %s rounds to %g (got %g)", tlc_dtype_name(t), what, want,
	   got);
}

int main(void)
{
	/* float16: 1 sign, 5 exponent (bias 15), 10 mantissa bits */
	enc(TLC_DT_FLOAT16, 1.0, 0x3c00, "1");
	enc(TLC_DT_FLOAT16, -2.0, 0xc000, "-2");
	enc(TLC_DT_FLOAT16, 1.0 / 3.0, 0x3555, "1/3 (0.0101010101|01.. rounds down)");
	enc(TLC_DT_FLOAT16, 65504.0, 0x7bff, "65504, the largest finite");
	rnd(TLC_DT_FLOAT16, 65519.0, 65504.0, "65519 (below the halfway point 65520)");
	rnd(TLC_DT_FLOAT16, 65520.0, INFINITY, "65520 (halfway to 65536: ties to even, past the largest)");
	enc(TLC_DT_FLOAT16, ldexp(1.0, -24), 0x0001, "2^-24, the smallest subnormal");
	rnd(TLC_DT_FLOAT16, ldexp(1.0, -25), 0.0, "2^-25 (a tie between 0 and 2^-24: to even, 0)");
	rnd(TLC_DT_FLOAT16, 3 * ldexp(1.0, -25), ldexp(1.0, -23), "3 * 2^-25 (a tie: to even, 2 * 2^-24)");
	rnd(TLC_DT_FLOAT16, 1.0 + ldexp(1.0, -11), 1.0, "1 + 2^-11 (a tie: to even, 1)");
	rnd(TLC_DT_FLOAT16, 1.0 + 3 * ldexp(1.0, -11), 1.0 + ldexp(1.0, -9), "1 + 3 * 2^-11 (a tie: to even)");
	enc(TLC_DT_FLOAT16, INFINITY, 0x7c00, "inf");
	dec(TLC_DT_FLOAT16, 0x7c00, INFINITY, "inf");
	dec(TLC_DT_FLOAT16, 0x7e00, NAN, "NaN");
	dec(TLC_DT_FLOAT16, 0x0400, ldexp(1.0, -14), "the smallest normal");
	dec(TLC_DT_FLOAT16, 0x03ff, 1023 * ldexp(1.0, -24), "the largest subnormal");
	enc(TLC_DT_FLOAT16, -0.0, 0x8000, "-0");

	/* bfloat16: the top 16 bits of float32 */
	enc(TLC_DT_BFLOAT16, 1.0, 0x3f80, "1");
	enc(TLC_DT_BFLOAT16, 1.0 / 3.0, 0x3eab, "1/3 (rounds up: 0.0101010|1010..)");
	rnd(TLC_DT_BFLOAT16, 1.0 + ldexp(1.0, -8), 1.0, "1 + 2^-8 (a tie: to even)");
	rnd(TLC_DT_BFLOAT16, 1.0 + 3 * ldexp(1.0, -8), 1.0 + ldexp(1.0, -6), "1 + 3 * 2^-8 (a tie: to even)");
	rnd(TLC_DT_BFLOAT16, 3.4e38, INFINITY, "3.4e38 (past the largest, 3.3895e38)");
	dec(TLC_DT_BFLOAT16, 0x0001, ldexp(1.0, -133), "the smallest subnormal");

	/* float8 e4m3fn: bias 7, no infinities, NaN = S.1111.111, largest 448 */
	enc(TLC_DT_FLOAT8_E4M3, 1.0, 0x38, "1");
	enc(TLC_DT_FLOAT8_E4M3, 448.0, 0x7e, "448, the largest");
	enc(TLC_DT_FLOAT8_E4M3, 500.0, 0x7e, "500 (saturates to 448)");
	enc(TLC_DT_FLOAT8_E4M3, -1e9, 0xfe, "-1e9 (saturates to -448)");
	enc(TLC_DT_FLOAT8_E4M3, INFINITY, 0x7e, "inf (saturates)");
	enc(TLC_DT_FLOAT8_E4M3, ldexp(1.0, -9), 0x01, "2^-9, the smallest subnormal");
	rnd(TLC_DT_FLOAT8_E4M3, 1.0 + ldexp(1.0, -4), 1.0, "1 + 2^-4 (a tie: to even)");
	rnd(TLC_DT_FLOAT8_E4M3, 0.3, 0.3125, "0.3 (nearest: 1.25 * 2^-2)");
	dec(TLC_DT_FLOAT8_E4M3, 0x7f, NAN, "NaN");
	dec(TLC_DT_FLOAT8_E4M3, 0x78, 256.0, "256 (the all-ones exponent holds normal values)");

	/* float8 e5m2: bias 15, IEEE specials, largest 57344 */
	enc(TLC_DT_FLOAT8_E5M2, 1.0, 0x3c, "1");
	enc(TLC_DT_FLOAT8_E5M2, 57344.0, 0x7b, "57344, the largest");
	enc(TLC_DT_FLOAT8_E5M2, 1e6, 0x7b, "1e6 (saturates)");
	enc(TLC_DT_FLOAT8_E5M2, ldexp(1.0, -16), 0x01, "2^-16, the smallest subnormal");
	dec(TLC_DT_FLOAT8_E5M2, 0x7c, INFINITY, "inf");
	dec(TLC_DT_FLOAT8_E5M2, 0x7d, NAN, "NaN");

	/* float8 e4m3fnuz (CDNA3): bias 8, no infinities, no negative zero, NaN = 0x80, largest 240 */
	enc(TLC_DT_FLOAT8_E4M3FNUZ, 1.0, 0x40, "1");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, 240.0, 0x7f, "240, the largest");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, 300.0, 0x7f, "300 (saturates to 240)");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, -1e9, 0xff, "-1e9 (saturates to -240)");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, ldexp(1.0, -10), 0x01, "2^-10, the smallest subnormal");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, -0.0, 0x00, "-0 (no negative zero)");
	enc(TLC_DT_FLOAT8_E4M3FNUZ, NAN, 0x80, "NaN");
	dec(TLC_DT_FLOAT8_E4M3FNUZ, 0x80, NAN, "0x80 is NaN");
	dec(TLC_DT_FLOAT8_E4M3FNUZ, 0x78, 128.0, "128 (the all-ones exponent holds normal values)");
	rnd(TLC_DT_FLOAT8_E4M3FNUZ, 1.0 + ldexp(1.0, -4), 1.0, "1 + 2^-4 (a tie: to even)");

	/* float8 e5m2fnuz: bias 16, NaN = 0x80, largest 57344 */
	enc(TLC_DT_FLOAT8_E5M2FNUZ, 1.0, 0x40, "1");
	enc(TLC_DT_FLOAT8_E5M2FNUZ, 57344.0, 0x7f, "57344, the largest");
	enc(TLC_DT_FLOAT8_E5M2FNUZ, INFINITY, 0x7f, "inf (saturates)");
	enc(TLC_DT_FLOAT8_E5M2FNUZ, ldexp(1.0, -17), 0x01, "2^-17, the smallest subnormal");
	dec(TLC_DT_FLOAT8_E5M2FNUZ, 0x80, NAN, "0x80 is NaN");
	dec(TLC_DT_FLOAT8_E5M2FNUZ, 0x7c, 32768.0, "32768 (the all-ones exponent holds normal values)");

	/* float32: C's float */
	rnd(TLC_DT_FLOAT32, 0.1, (double)0.1f, "0.1");
	enc(TLC_DT_FLOAT32, 1.0, 0x3f800000, "1");
	return done_testing();
}
