/* arith.h - the one definition of what kernel arithmetic computes
 * (doc/language.md, "Arithmetic"), shared by the simplifier's constant
 * folding and tlc-sim.  The printers print the same meaning
 * (backends/gpu/gpu_expr.c); the type of every operation is
 * tlc_operand_type (expr.c).
 *
 * A value is a tlc_scalar: integers and bool in i (uint64 as its bit
 * pattern), floats in f, a double that holds a value of the dtype exactly
 * (already rounded to it).  Every operation takes operands of its own type. */
#ifndef TLC_ARITH_H
#define TLC_ARITH_H

#include <stdbool.h>
#include <stdint.h>
#include <tlc/ir.h>

typedef struct tlc_scalar {
	double f;
	int64_t i;
} tlc_scalar;

/* x rounded to float dtype t (nearest, ties to even; float16 and bfloat16
 * overflow to +-inf, float8 saturates); x itself for float64. */
double tlc_arith_round(tlc_dtype t, double x);
/* v wrapped to integer dtype t (two's complement); bool: v != 0. */
int64_t tlc_arith_wrap(tlc_dtype t, int64_t v);
/* x converted from dtype `from` to dtype `to` (the conversions of the
 * definition: wrapping between integers, truncating and saturating float to
 * integer with NaN -> 0, narrow floats through float32). */
tlc_scalar tlc_arith_convert(tlc_scalar x, tlc_dtype from, tlc_dtype to);
/* x of dtype `from` with its bits read as dtype `to` of the same width
 * (T.reinterpret): a float's bits are its IEEE (or float8) encoding, an
 * integer's its two's complement.  A NaN keeps its sign; its payload is the
 * canonical one of the format (floats are held as doubles). */
tlc_scalar tlc_arith_bitcast(tlc_scalar x, tlc_dtype from, tlc_dtype to);
/* Whether tlc_arith_bitcast of x gives the bits the GPU gives (every value
 * but a NaN, whose payload a double does not carry). */
bool tlc_arith_bitcast_exact(tlc_scalar x, tlc_dtype from, tlc_dtype to);
/* *r = a k b for a binary arithmetic or bitwise operator k on operands of
 * dtype t.  Returns NULL, or what makes the operation an error (a signed
 * 32- or 64-bit overflow, a zero divisor, a shift count out of range);
 * *r is then unset. */
const char *tlc_arith_binary(tlc_expr_kind k, tlc_dtype t, tlc_scalar a, tlc_scalar b, tlc_scalar *r);
/* *r = -a in dtype t; NULL or the error (negating the smallest int32/int64). */
const char *tlc_arith_neg(tlc_dtype t, tlc_scalar a, tlc_scalar *r);
/* *r = |a| in dtype t (T.abs); NULL or the error. */
const char *tlc_arith_abs(tlc_dtype t, tlc_scalar a, tlc_scalar *r);
/* The comparison k of two operands of dtype t (IEEE for floats: NaN is
 * unordered; unsigned types compare as unsigned). */
bool tlc_arith_compare(tlc_expr_kind k, tlc_dtype t, tlc_scalar a, tlc_scalar b);
/* Whether a value of dtype t is non-zero (bool conversion: NaN is true). */
bool tlc_arith_truth(tlc_dtype t, tlc_scalar a);

#endif
