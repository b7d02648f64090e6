/* gpu_arith.c - the language's arithmetic (doc/language.md, "Arithmetic")
 * printed as GPU C++.
 *
 * The IR gives both operands of every operation one type (tlc_operand_type)
 * and makes every conversion a T.cast, so each operation prints from its
 * type alone, and nothing leans on C++'s implicit conversions, its overload
 * resolution or its undefined behaviour:
 *   - float16, bfloat16 and float8 compute in float and round back after
 *     every operation (the vendor's conversions): exactly the correctly
 *     rounded result the language defines (float32 carries more than twice
 *     their precision plus two bits);
 *   - 8- and 16-bit integers compute in int (unsigned int for the unsigned
 *     ones) and convert back, which wraps them as the language says; a left
 *     shift goes through the unsigned type (shifting a negative value left
 *     is undefined in C++17);
 *   - int32 and int64 print as C's operators: their overflow is an error in
 *     the language as in C (tlc-sim reports it), and index arithmetic keeps
 *     the optimizer's freedom;
 *   - float -> integer clamps first (tlc_ftoi): an out-of-range conversion
 *     is undefined in C++, saturating in the language (PTX's cvt.rzi);
 *   - integer min/max are functions, so that each operand is evaluated once
 *     (an operand may be a warp shuffle every lane must run);
 *   - float % avoids contraction into a fused multiply-add (the _rn
 *     intrinsics), which would round once where the language rounds twice. */
#include <string.h>

#include "gpu_printer.h"

static void put(gpu_emitter *e, const char *s) { tlc_buf_puts(e->out, s); }

bool gpu_is_narrow_float(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_FLOAT16: case TLC_DT_BFLOAT16: case TLC_DT_FLOAT8_E4M3: case TLC_DT_FLOAT8_E5M2:
	case TLC_DT_FLOAT8_E4M3FNUZ: case TLC_DT_FLOAT8_E5M2FNUZ:
		return true;
	default: return false;
	}
}

/* integers that C promotes to int before any operator */
static bool is_small_int(tlc_dtype t)
{
	return t == TLC_DT_BOOL || t == TLC_DT_INT8 || t == TLC_DT_INT16 || t == TLC_DT_UINT8 || t == TLC_DT_UINT16;
}

/* the unsigned C type of integer dtype t's width (int for the small ones) */
static const char *unsigned_ctype(tlc_dtype t)
{
	return tlc_dtype_bits(t) > 32 ? "unsigned long long" : "unsigned int";
}

void gpu_open_from_float(gpu_emitter *e, tlc_dtype t)
{
	const gpu_vendor *v = e->target->vendor;
	if (t == TLC_DT_FLOAT32)
		return;
	if (t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16)
		tlc_buf_printf(e->out, "%s(", t == TLC_DT_FLOAT16 ? v->float_to_float16 : v->float_to_bfloat16);
	else
		tlc_buf_printf(e->out, "((%s)(", gpu_ctype(e, t) ? gpu_ctype(e, t) : "float");
}

void gpu_close_from_float(gpu_emitter *e, tlc_dtype t)
{
	if (t != TLC_DT_FLOAT32)
		put(e, t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16 ? ")" : "))");
}

/* Open / close the float32 value of an expression of dtype t. */
static void open_to_float(gpu_emitter *e, tlc_dtype t)
{
	const gpu_vendor *v = e->target->vendor;
	if (t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16)
		tlc_buf_printf(e->out, "%s(", t == TLC_DT_FLOAT16 ? v->float16_to_float : v->bfloat16_to_float);
	else if (t != TLC_DT_FLOAT32)
		put(e, "((float)(");
}

static void close_to_float(gpu_emitter *e, tlc_dtype t)
{
	if (t != TLC_DT_FLOAT32)
		put(e, t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16 ? ")" : "))");
}

void gpu_emit_as_float(gpu_emitter *e, const tlc_expr *x)
{
	if (x->kind == TLC_EXPR_FLOAT && x->dtype != TLC_DT_FLOAT64) {
		gpu_emit_f32_literal(e, x->u.fval); /* a narrow constant is exact in float */
		return;
	}
	open_to_float(e, x->dtype);
	gpu_emit_expr(e, x);
	close_to_float(e, x->dtype);
}

/* ---- conversions (T.cast) ---- */

/* float (or double, when `dbl`) -> integer dtype t: toward zero,
 * saturating, NaN -> 0.  The bounds are the integers just outside t's
 * range, as the float type rounds them (below -2^31 - 1 is -2^31, whose
 * truncation is in range anyway). */
static void open_ftoi(gpu_emitter *e, tlc_dtype t)
{
	e->helpers |= GPU_HELPER_FTOI;
	tlc_buf_printf(e->out, "tlc_ftoi<%s>(", gpu_ctype(e, t));
}

static void close_ftoi(gpu_emitter *e, tlc_dtype t, bool dbl)
{
	int64_t lo, hi;
	double below, above;
	if (t == TLC_DT_UINT64) {
		below = -1.0;
		above = 18446744073709551616.0;
	} else {
		tlc_dtype_int_range(t, &lo, &hi);
		below = (double)lo - 1.0;
		above = (double)hi + 1.0;
	}
	put(e, ", ");
	if (dbl) {
		tlc_buf_printf(e->out, "%.1f, %.1f, ", below, above); /* integers, as double literals */
	} else {
		gpu_emit_f32_literal(e, (double)(float)below);
		put(e, ", ");
		gpu_emit_f32_literal(e, (double)(float)above);
		put(e, ", ");
	}
	if (t == TLC_DT_UINT64)
		tlc_buf_printf(e->out, "(%s)0, (%s)~0ull)", gpu_ctype(e, t), gpu_ctype(e, t));
	else if (lo == INT64_MIN)
		tlc_buf_printf(e->out, "(-9223372036854775807LL - 1), %lldLL)", (long long)hi);
	else
		tlc_buf_printf(e->out, "(%s)(%lldLL), (%s)%lldLL)", gpu_ctype(e, t), (long long)lo, gpu_ctype(e, t),
		               (long long)hi);
}

void gpu_emit_cast(gpu_emitter *e, tlc_dtype t, const tlc_expr *a)
{
	tlc_dtype f = a->dtype;
	bool ff = tlc_dtype_is_float(f), tf = tlc_dtype_is_float(t);
	if (f == t) {
		gpu_emit_expr(e, a);
	} else if (t == TLC_DT_BOOL) {
		/* x != 0: NaN converts to true */
		put(e, "(");
		if (ff && f != TLC_DT_FLOAT64)
			gpu_emit_as_float(e, a);
		else
			gpu_emit_expr(e, a);
		put(e, !ff ? " != 0)" : f == TLC_DT_FLOAT64 ? " != 0.0)" : " != 0.0f)");
	} else if (!tf && !ff) {
		/* integer (or bool) -> integer: modulo 2^bits */
		tlc_buf_printf(e->out, "((%s)", gpu_ctype(e, t));
		gpu_emit_expr(e, a);
		put(e, ")");
	} else if (!tf) {
		/* float -> integer: clamped */
		open_ftoi(e, t);
		if (f == TLC_DT_FLOAT64)
			gpu_emit_expr(e, a);
		else
			gpu_emit_as_float(e, a);
		close_ftoi(e, t, f == TLC_DT_FLOAT64);
	} else if (t == TLC_DT_FLOAT64) {
		/* exact from every type */
		put(e, "((double)");
		if (gpu_is_narrow_float(f))
			gpu_emit_as_float(e, a);
		else
			gpu_emit_expr(e, a);
		put(e, ")");
	} else {
		/* float32 and the narrow floats: from a float32 value (an integer
		 * or a double rounds to float32 first) */
		gpu_open_from_float(e, t);
		if (gpu_is_narrow_float(f)) {
			gpu_emit_as_float(e, a);
		} else if (f == TLC_DT_FLOAT32) {
			gpu_emit_expr(e, a);
		} else {
			put(e, "((float)");
			gpu_emit_expr(e, a);
			put(e, ")");
		}
		gpu_close_from_float(e, t);
	}
}

/* ---- operators ---- */

static const char *infix(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: return " + ";
	case TLC_EXPR_SUB: return " - ";
	case TLC_EXPR_MUL: return " * ";
	case TLC_EXPR_DIV: return " / ";
	case TLC_EXPR_EQ: return " == ";
	case TLC_EXPR_NE: return " != ";
	case TLC_EXPR_LT: return " < ";
	case TLC_EXPR_LE: return " <= ";
	case TLC_EXPR_GT: return " > ";
	case TLC_EXPR_GE: return " >= ";
	case TLC_EXPR_AND: return " && ";
	case TLC_EXPR_OR: return " || ";
	case TLC_EXPR_BITAND: return " & ";
	case TLC_EXPR_BITOR: return " | ";
	case TLC_EXPR_BITXOR: return " ^ ";
	case TLC_EXPR_SHL: return " << ";
	case TLC_EXPR_SHR: return " >> ";
	default: return NULL;
	}
}

bool gpu_is_infix(tlc_expr_kind k) { return infix(k) != NULL; }

static bool is_compare(tlc_expr_kind k) { return k >= TLC_EXPR_EQ && k <= TLC_EXPR_GE; }

/* (a op b), each operand converted by `cast` first when not NULL */
static void emit_op(gpu_emitter *e, const tlc_expr *x, const char *cast)
{
	put(e, "(");
	if (cast)
		tlc_buf_printf(e->out, "(%s)", cast);
	gpu_emit_expr(e, x->u.op.a);
	put(e, infix(x->kind));
	if (cast)
		tlc_buf_printf(e->out, "(%s)", cast);
	gpu_emit_expr(e, x->u.op.b);
	put(e, ")");
}

void gpu_emit_infix(gpu_emitter *e, const tlc_expr *x)
{
	const tlc_expr *a = x->u.op.a, *b = x->u.op.b;
	tlc_dtype t = a->dtype; /* the operands' type */
	bool cmp = is_compare(x->kind);
	if (gpu_is_narrow_float(t)) {
		if (!cmp)
			gpu_open_from_float(e, t);
		put(e, "(");
		gpu_emit_as_float(e, a);
		put(e, infix(x->kind));
		gpu_emit_as_float(e, b);
		put(e, ")");
		if (!cmp)
			gpu_close_from_float(e, t);
		return;
	}
	if (cmp && is_small_int(t) && t != TLC_DT_BOOL) {
		emit_op(e, x, "int"); /* every 8- and 16-bit value is an int */
		return;
	}
	if (cmp || x->kind == TLC_EXPR_AND || x->kind == TLC_EXPR_OR || tlc_dtype_is_float(t)) {
		emit_op(e, x, NULL);
		return;
	}
	bool shl_signed = x->kind == TLC_EXPR_SHL && !tlc_dtype_is_unsigned(t);
	if (is_small_int(t) || shl_signed) {
		/* computed wide and converted back: the language's wrap-around */
		const char *wide = shl_signed || tlc_dtype_is_unsigned(t) ? unsigned_ctype(t) : "int";
		tlc_buf_printf(e->out, "((%s)", gpu_ctype(e, t));
		emit_op(e, x, wide);
		put(e, ")");
		return;
	}
	emit_op(e, x, NULL);
}

static bool nonneg(gpu_emitter *e, const tlc_expr *x, bool strictly)
{
	int64_t lo, hi;
	return tlc_expr_bounds(&e->ranges, x, &lo, &hi) && (strictly ? lo > 0 : lo >= 0);
}

/* floor(a / b) and a - floor(a / b) * b of floats, each step rounded to
 * the type: a narrow type rounds through its own conversions, which keeps
 * the compiler from fusing the multiply and the subtract; float32 and
 * float64 call a helper written with the _rn intrinsics for the same
 * reason. */
static void emit_float_floor_divmod(gpu_emitter *e, const tlc_expr *x, bool div)
{
	const tlc_expr *a = x->u.op.a, *b = x->u.op.b;
	tlc_dtype t = x->dtype;
	if (!gpu_is_narrow_float(t)) {
		bool dbl = t == TLC_DT_FLOAT64;
		if (div) {
			tlc_buf_printf(e->out, "%s(", dbl ? "floor" : "floorf");
			gpu_emit_expr(e, a);
			put(e, " / ");
			gpu_emit_expr(e, b);
			put(e, ")");
			return;
		}
		e->helpers |= dbl ? GPU_HELPER_FLOORMOD_F64 : GPU_HELPER_FLOORMOD_F32;
		tlc_buf_printf(e->out, "tlc_floormod_f%d(", dbl ? 64 : 32);
		gpu_emit_expr(e, a);
		put(e, ", ");
		gpu_emit_expr(e, b);
		put(e, ")");
		return;
	}
	/* q = floor(float(t(a / b))) */
	gpu_open_from_float(e, t);
	if (!div) {
		gpu_emit_as_float(e, a);
		put(e, " - ");
		open_to_float(e, t);
		gpu_open_from_float(e, t);
	}
	put(e, "floorf(");
	open_to_float(e, t);
	gpu_open_from_float(e, t);
	put(e, "(");
	gpu_emit_as_float(e, a);
	put(e, " / ");
	gpu_emit_as_float(e, b);
	put(e, ")");
	gpu_close_from_float(e, t);
	close_to_float(e, t);
	put(e, ")");
	if (!div) {
		/* ... * b rounded to t, subtracted from a */
		put(e, " * ");
		gpu_emit_as_float(e, b);
		gpu_close_from_float(e, t);
		close_to_float(e, t);
	}
	gpu_close_from_float(e, t);
}

void gpu_emit_floor_divmod(gpu_emitter *e, const tlc_expr *x)
{
	bool div = x->kind == TLC_EXPR_FLOORDIV;
	const tlc_expr *a = x->u.op.a, *b = x->u.op.b;
	tlc_dtype t = x->dtype;
	if (tlc_dtype_is_float(t)) {
		emit_float_floor_divmod(e, x, div);
		return;
	}
	if (tlc_dtype_is_unsigned(t) || (nonneg(e, a, false) && nonneg(e, b, true))) {
		/* truncation is the floor here */
		const char *wide = !is_small_int(t) ? NULL : tlc_dtype_is_unsigned(t) ? "unsigned int" : "int";
		if (wide)
			tlc_buf_printf(e->out, "((%s)((%s)", gpu_ctype(e, t), wide);
		else
			put(e, "(");
		gpu_emit_expr(e, a);
		put(e, div ? " / " : " % ");
		if (wide)
			tlc_buf_printf(e->out, "(%s)", wide);
		gpu_emit_expr(e, b);
		put(e, wide ? "))" : ")");
		return;
	}
	bool wide = tlc_dtype_bits(t) > 32;
	e->helpers |= wide ? (div ? GPU_HELPER_FLOORDIV_I64 : GPU_HELPER_FLOORMOD_I64)
			   : (div ? GPU_HELPER_FLOORDIV_I32 : GPU_HELPER_FLOORMOD_I32);
	/* an 8- or 16-bit quotient (-128 // -1) wraps back into its type */
	if (is_small_int(t))
		tlc_buf_printf(e->out, "((%s)", gpu_ctype(e, t));
	tlc_buf_printf(e->out, "tlc_floor%s_i%d(", div ? "div" : "mod", wide ? 64 : 32);
	if (is_small_int(t))
		put(e, "(int)");
	gpu_emit_expr(e, a);
	put(e, ", ");
	if (is_small_int(t))
		put(e, "(int)");
	gpu_emit_expr(e, b);
	put(e, ")");
	if (is_small_int(t))
		put(e, ")");
}

void gpu_emit_minmax(gpu_emitter *e, const tlc_expr *x)
{
	bool is_min = x->kind == TLC_EXPR_MIN;
	tlc_dtype t = x->dtype;
	if (tlc_dtype_is_float(t)) {
		/* IEEE minimumNumber / maximumNumber: a NaN gives the other operand */
		bool dbl = t == TLC_DT_FLOAT64;
		if (!dbl)
			gpu_open_from_float(e, t);
		put(e, is_min ? (dbl ? "fmin(" : "fminf(") : (dbl ? "fmax(" : "fmaxf("));
		if (dbl) {
			gpu_emit_expr(e, x->u.op.a);
			put(e, ", ");
			gpu_emit_expr(e, x->u.op.b);
		} else {
			gpu_emit_as_float(e, x->u.op.a);
			put(e, ", ");
			gpu_emit_as_float(e, x->u.op.b);
		}
		put(e, ")");
		if (!dbl)
			gpu_close_from_float(e, t);
		return;
	}
	/* integers: a function, so that each operand is evaluated once: an
	 * operand may be a warp shuffle, and a conditional expression would run
	 * the second one on only some of the lanes (a divergent shuffle) */
	e->helpers |= GPU_HELPER_MINMAX;
	tlc_buf_printf(e->out, "tlc_%s<%s>(", is_min ? "min" : "max", gpu_ctype(e, t));
	gpu_emit_expr(e, x->u.op.a);
	put(e, ", ");
	gpu_emit_expr(e, x->u.op.b);
	put(e, ")");
}

void gpu_emit_neg(gpu_emitter *e, const tlc_expr *x)
{
	tlc_dtype t = x->dtype;
	if (gpu_is_narrow_float(t)) {
		gpu_open_from_float(e, t);
		put(e, "-");
		gpu_emit_as_float(e, x->u.op.a);
		gpu_close_from_float(e, t);
	} else if (is_small_int(t)) {
		/* -(-128) wraps to -128; an unsigned type's negation is modular */
		tlc_buf_printf(e->out, "((%s)(-(int)", gpu_ctype(e, t));
		gpu_emit_expr(e, x->u.op.a);
		put(e, "))");
	} else {
		put(e, "(-");
		gpu_emit_expr(e, x->u.op.a);
		put(e, ")");
	}
}
