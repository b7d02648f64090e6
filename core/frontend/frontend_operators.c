/* frontend_operators.c - Python operators: Python semantics (64-bit
 * integers that never wrap silently) on compile-time values, IR on symbolic
 * ones, and the sequence operators (+, *, in) under the value budgets. */
#include "frontend.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static bool is_num(const fe_val *v)
{
	return v->kind == FV_INT || v->kind == FV_BOOL || v->kind == FV_FLOAT;
}

static double num_f(const fe_val *v)
{
	return v->kind == FV_FLOAT ? v->u.f : v->kind == FV_INT ? (double)v->u.i : (double)v->u.b;
}

static int64_t num_i(const fe_val *v)
{
	return v->kind == FV_INT ? v->u.i : (int64_t)v->u.b;
}

static const char *op_text(py_op op)
{
	static const char *const t[] = {
		[PY_OP_ADD] = "+", [PY_OP_SUB] = "-", [PY_OP_MUL] = "*", [PY_OP_DIV] = "/",
		[PY_OP_FLOORDIV] = "//", [PY_OP_MOD] = "%", [PY_OP_POW] = "**", [PY_OP_MATMUL] = "@",
		[PY_OP_LSHIFT] = "<<", [PY_OP_RSHIFT] = ">>", [PY_OP_BITAND] = "&",
		[PY_OP_BITOR] = "|", [PY_OP_BITXOR] = "^", [PY_OP_EQ] = "==", [PY_OP_NE] = "!=",
		[PY_OP_LT] = "<", [PY_OP_LE] = "<=", [PY_OP_GT] = ">", [PY_OP_GE] = ">=",
		[PY_OP_IN] = "in", [PY_OP_NOT_IN] = "not in", [PY_OP_IS] = "is",
		[PY_OP_IS_NOT] = "is not",
	};
	return (size_t)op < TLC_ARRAY_LEN(t) && t[op] ? t[op] : "?";
}

static fe_val *int_result(fe *F, bool overflow, int64_t r, tlc_loc loc)
{
	return overflow ? fe_overflow(F, loc) : fe_int(F, r);
}

static int64_t floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Python's a % b (the sign of b), without the overflow of a - (a // b) * b */
static int64_t floormod64(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

/* x ** y for y >= 0: exact, or an overflow error (never a wrapped value) */
static fe_val *int_pow(fe *F, int64_t x, int64_t y, tlc_loc loc)
{
	if (x == 0 || x == 1)
		return fe_int(F, y == 0 ? 1 : x);
	if (x == -1)
		return fe_int(F, y % 2 ? -1 : 1);
	int64_t p = 1;
	for (int64_t i = 0; i < y; i++) /* |x| >= 2: at most 63 rounds before an overflow */
		if (__builtin_mul_overflow(p, x, &p))
			return fe_overflow(F, loc);
	return fe_int(F, p);
}

/* x << y and x >> y with Python's meaning for any count */
static fe_val *int_shift(fe *F, py_op op, int64_t x, int64_t y, tlc_loc loc)
{
	if (y < 0) {
		tlc_error(F->ctx, loc, "negative shift count %lld", (long long)y);
		return NULL;
	}
	if (op == PY_OP_RSHIFT)
		return fe_int(F, y > 63 ? (x < 0 ? -1 : 0) : x >> y);
	if (x == 0)
		return fe_int(F, 0);
	if (y > 62 || x > (INT64_MAX >> y) || x < (INT64_MIN >> y))
		return fe_overflow(F, loc);
	return fe_int(F, (int64_t)((uint64_t)x << y));
}

/* Python arithmetic on two compile-time numbers. */
/* CPython's float % and //: the remainder comes exactly from fmod (so
 * 1.0 // 0.1 is 9.0, where floor(1.0 / 0.1) would round up to 10), takes
 * the divisor's sign, and the quotient is (x - mod) / y rounded to the
 * nearest integer. */
static double py_float_mod(double x, double y)
{
	double mod = fmod(x, y);
	if (mod != 0.0)
		return (y < 0) != (mod < 0) ? mod + y : mod;
	return copysign(0.0, y);
}

static double py_float_floordiv(double x, double y)
{
	double mod = fmod(x, y), div = (x - mod) / y;
	if (mod != 0.0 && (y < 0) != (mod < 0))
		div -= 1.0;
	if (div == 0.0)
		return copysign(0.0, x / y);
	double q = floor(div);
	return div - q > 0.5 ? q + 1.0 : q;
}

static fe_val *num_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
	bool fl = a->kind == FV_FLOAT || b->kind == FV_FLOAT;
	if (!fl) {
		int64_t x = num_i(a), y = num_i(b), r = 0;
		switch (op) {
		case PY_OP_ADD: {
			bool o = __builtin_add_overflow(x, y, &r);
			return int_result(F, o, r, loc);
		}
		case PY_OP_SUB: {
			bool o = __builtin_sub_overflow(x, y, &r);
			return int_result(F, o, r, loc);
		}
		case PY_OP_MUL: {
			bool o = __builtin_mul_overflow(x, y, &r);
			return int_result(F, o, r, loc);
		}
		case PY_OP_FLOORDIV:
		case PY_OP_MOD:
			if (y == 0) {
				tlc_error(F->ctx, loc, "integer division by zero");
				return NULL;
			}
			if (x == INT64_MIN && y == -1) /* -2^63 // -1 is 2^63; -2^63 % -1 is 0 */
				return op == PY_OP_MOD ? fe_int(F, 0) : fe_overflow(F, loc);
			return fe_int(F, op == PY_OP_FLOORDIV ? floordiv64(x, y) : floormod64(x, y));
		case PY_OP_POW:
			if (y >= 0)
				return int_pow(F, x, y, loc);
			if (x == 0) {
				tlc_error(F->ctx, loc, "0 cannot be raised to a negative power");
				return NULL;
			}
			return fe_float(F, pow((double)x, (double)y));
		case PY_OP_LSHIFT:
		case PY_OP_RSHIFT:
			return int_shift(F, op, x, y, loc);
		case PY_OP_BITAND: return fe_int(F, x & y);
		case PY_OP_BITOR: return fe_int(F, x | y);
		case PY_OP_BITXOR: return fe_int(F, x ^ y);
		case PY_OP_DIV: break;
		default: goto bad;
		}
	}
	double x = num_f(a), y = num_f(b);
	switch (op) {
	case PY_OP_ADD: return fe_float(F, x + y);
	case PY_OP_SUB: return fe_float(F, x - y);
	case PY_OP_MUL: return fe_float(F, x * y);
	case PY_OP_DIV:
		if (y == 0) {
			tlc_error(F->ctx, loc, "division by zero");
			return NULL;
		}
		return fe_float(F, x / y);
	case PY_OP_FLOORDIV:
	case PY_OP_MOD:
		if (y == 0) {
			tlc_error(F->ctx, loc, "division by zero");
			return NULL;
		}
		return fe_float(F, op == PY_OP_FLOORDIV ? py_float_floordiv(x, y) : py_float_mod(x, y));
	case PY_OP_POW: return fe_float(F, pow(x, y));
	default: break;
	}
bad:
	tlc_error(F->ctx, loc, "unsupported operand types for %s: '%s' and '%s'", op_text(op),
	          fe_kind_name(a), fe_kind_name(b));
	return NULL;
}

static tlc_expr_kind ir_binop_kind(py_op op)
{
	switch (op) {
	case PY_OP_ADD: return TLC_EXPR_ADD;
	case PY_OP_SUB: return TLC_EXPR_SUB;
	case PY_OP_MUL: return TLC_EXPR_MUL;
	case PY_OP_DIV: return TLC_EXPR_DIV;
	case PY_OP_FLOORDIV: return TLC_EXPR_FLOORDIV;
	case PY_OP_MOD: return TLC_EXPR_FLOORMOD;
	case PY_OP_LSHIFT: return TLC_EXPR_SHL;
	case PY_OP_RSHIFT: return TLC_EXPR_SHR;
	case PY_OP_BITAND: return TLC_EXPR_BITAND;
	case PY_OP_BITOR: return TLC_EXPR_BITOR;
	case PY_OP_BITXOR: return TLC_EXPR_BITXOR;
	case PY_OP_EQ: return TLC_EXPR_EQ;
	case PY_OP_NE: return TLC_EXPR_NE;
	case PY_OP_LT: return TLC_EXPR_LT;
	case PY_OP_LE: return TLC_EXPR_LE;
	case PY_OP_GT: return TLC_EXPR_GT;
	case PY_OP_GE: return TLC_EXPR_GE;
	case PY_OP_AND: return TLC_EXPR_AND;
	case PY_OP_OR: return TLC_EXPR_OR;
	default: return TLC_EXPR_COUNT;
	}
}

static fe_val *seq_concat(fe *F, fe_val *a, fe_val *b, tlc_loc loc)
{
	int64_t n = (int64_t)a->u.seq.n + b->u.seq.n;
	if (!fe_check_items(F, n, fe_kind_name(a), loc))
		return NULL;
	fe_val *r = fe_seq(F, a->kind, (int)n);
	if (a->u.seq.n)
		memcpy(r->u.seq.items, a->u.seq.items, sizeof(fe_val *) * (size_t)a->u.seq.n);
	if (b->u.seq.n)
		memcpy(r->u.seq.items + a->u.seq.n, b->u.seq.items, sizeof(fe_val *) * (size_t)b->u.seq.n);
	return r;
}

static fe_val *seq_repeat(fe *F, fe_val *a, int64_t k, tlc_loc loc)
{
	int64_t n = a->u.seq.n;
	if (k <= 0 || n == 0)
		return fe_seq(F, a->kind, 0);
	int64_t total;
	if (__builtin_mul_overflow(n, k, &total))
		total = -1; /* more than 2^63 - 1 */
	if (!fe_check_items(F, total, fe_kind_name(a), loc))
		return NULL;
	fe_val *r = fe_seq(F, a->kind, (int)total);
	for (int64_t j = 0; j < k; j++)
		memcpy(r->u.seq.items + j * n, a->u.seq.items, sizeof(fe_val *) * (size_t)n);
	return r;
}

static fe_val *str_concat(fe *F, const char *a, const char *b, tlc_loc loc)
{
	size_t la = strlen(a), lb = strlen(b);
	if (!fe_check_str(F, (int64_t)(la + lb), loc))
		return NULL;
	char *s = fe_alloc(F, la + lb + 1);
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	fe_val *r = fe_new(F, FV_STR);
	r->u.s = s;
	return r;
}

/* "ab" * k: k copies (none for k <= 0), its size checked before it is made */
static fe_val *str_repeat(fe *F, const char *a, int64_t k, tlc_loc loc)
{
	int64_t la = (int64_t)strlen(a), total;
	if (k <= 0 || la == 0)
		return fe_str(F, "");
	if (__builtin_mul_overflow(la, k, &total))
		total = INT64_MAX;
	if (!fe_check_str(F, total, loc))
		return NULL;
	char *s = fe_alloc(F, (size_t)total + 1);
	for (int64_t j = 0; j < k; j++)
		memcpy(s + j * la, a, (size_t)la);
	s[total] = '\0';
	fe_val *r = fe_new(F, FV_STR);
	r->u.s = s;
	return r;
}

static bool is_compare(py_op op)
{
	return op == PY_OP_EQ || op == PY_OP_NE || op == PY_OP_LT || op == PY_OP_LE || op == PY_OP_GT ||
	       op == PY_OP_GE;
}

fe_val *fe_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
	if (is_num(a) && is_num(b)) /* min(), abs(), sorted() compare through here */
		return is_compare(op) ? fe_compare(F, op, a, b, loc) : num_binop(F, op, a, b, loc);
	if (fe_is_symbolic(a) || fe_is_symbolic(b)) {
		const tlc_expr *x, *y;
		tlc_expr_kind k = op == PY_OP_POW ? TLC_EXPR_MUL : ir_binop_kind(op);
		if (k == TLC_EXPR_COUNT) {
			tlc_error(F->ctx, loc, "operator '%s' is not supported on kernel values",
			          op_text(op));
			return NULL;
		}
		if (!fe_scalar_pair(F, k, a, b, loc, &x, &y))
			return NULL;
		if (op == PY_OP_POW) {
			tlc_dtype t = tlc_operand_type(TLC_EXPR_MUL, x->dtype, y->dtype);
			const tlc_expr *args[2] = {tlc_cast(F->m, t, x), tlc_cast(F->m, t, y)};
			return fe_expr(F, tlc_call(F->m, TLC_OP_POW, t, 2, args, 0, NULL, NULL));
		}
		bool bitwise = k == TLC_EXPR_SHL || k == TLC_EXPR_SHR || k == TLC_EXPR_BITAND || k == TLC_EXPR_BITOR ||
		               k == TLC_EXPR_BITXOR;
		if (bitwise && (tlc_dtype_is_float(x->dtype) || tlc_dtype_is_float(y->dtype))) {
			/* Python refuses them on floats too; C++ has no such operators */
			tlc_error(F->ctx, loc, "operator '%s' needs integer operands, not %s", op_text(op),
			          tlc_dtype_name(tlc_dtype_is_float(x->dtype) ? x->dtype : y->dtype));
			return NULL;
		}
		if (k == TLC_EXPR_DIV && !tlc_dtype_is_float(tlc_operand_type(k, x->dtype, y->dtype))) {
			/* TileLang refuses it too: C's truncation is not Python's / */
			tlc_error(F->ctx, loc,
			          "'/' on integers (%s and %s) is not defined in a kernel: use '//' for floor "
			          "division, or T.cast an operand to a float type",
			          tlc_dtype_name(x->dtype), tlc_dtype_name(y->dtype));
			return NULL;
		}
		/* Python raises ZeroDivisionError; C would divide by zero at run time */
		int64_t zero;
		if ((k == TLC_EXPR_DIV || k == TLC_EXPR_FLOORDIV || k == TLC_EXPR_FLOORMOD) &&
		    tlc_expr_as_int(y, &zero) && zero == 0) {
			tlc_error(F->ctx, loc, "%s by zero", k == TLC_EXPR_FLOORMOD ? "modulo" : "division");
			return NULL;
		}
		return fe_expr(F, tlc_binary(F->m, k, x, y));
	}
	bool as = a->kind == FV_STR || a->kind == FV_DTYPE, bs = b->kind == FV_STR || b->kind == FV_DTYPE;
	if (op == PY_OP_ADD && as && bs && (a->kind == FV_STR || b->kind == FV_STR)) /* a dtype is a str */
		return str_concat(F, a->kind == FV_STR ? a->u.s : tlc_dtype_name(a->u.dt),
		                  b->kind == FV_STR ? b->u.s : tlc_dtype_name(b->u.dt), loc);
	if (op == PY_OP_ADD && a->kind == b->kind && (a->kind == FV_TUPLE || a->kind == FV_LIST))
		return seq_concat(F, a, b, loc);
	if (is_compare(op) && a->kind == b->kind && (a->kind == FV_STR || a->kind == FV_TUPLE || a->kind == FV_LIST))
		return fe_compare(F, op, a, b, loc);
	if (op == PY_OP_MUL && (a->kind == FV_TUPLE || a->kind == FV_LIST) && b->kind == FV_INT)
		return seq_repeat(F, a, b->u.i, loc);
	if (op == PY_OP_MUL && (b->kind == FV_TUPLE || b->kind == FV_LIST) && a->kind == FV_INT)
		return seq_repeat(F, b, a->u.i, loc);
	if (op == PY_OP_MOD && a->kind == FV_STR)
		return fe_str_percent(F, a->u.s, b, loc);
	if (op == PY_OP_MUL && a->kind == FV_STR && b->kind == FV_INT)
		return str_repeat(F, a->u.s, b->u.i, loc);
	if (op == PY_OP_MUL && b->kind == FV_STR && a->kind == FV_INT)
		return str_repeat(F, b->u.s, a->u.i, loc);
	if (a->kind == FV_HOST || a->kind == FV_MISSING) {
		if (a->kind == FV_HOST)
			return a; /* host code: opaque */
		fe_err_not_kernel(F, a, loc);
		return NULL;
	}
	if (b->kind == FV_HOST)
		return b;
	if (b->kind == FV_MISSING) {
		fe_err_not_kernel(F, b, loc);
		return NULL;
	}
	if (fe_is_torch_tensor(a) || fe_is_torch_tensor(b))
		return fe_torch_binop(F, op, a, b, loc);
	tlc_error(F->ctx, loc, "unsupported operand types for %s: '%s' and '%s'", op_text(op),
	          fe_kind_name(a), fe_kind_name(b));
	return NULL;
}

fe_val *fe_unaryop(fe *F, py_op op, fe_val *a, tlc_loc loc)
{
	if (op == PY_OP_NOT) {
		if (fe_is_symbolic(a)) {
			const tlc_expr *x = fe_to_scalar(F, a, loc);
			return x ? fe_expr(F, tlc_unary(F->m, TLC_EXPR_NOT, x)) : NULL;
		}
		bool t;
		return fe_truthy(F, a, loc, &t) ? fe_bool(F, !t) : NULL;
	}
	if (a->kind == FV_INT || a->kind == FV_BOOL) {
		int64_t x = num_i(a);
		if (op == PY_OP_POS)
			return fe_int(F, x);
		if (op == PY_OP_INVERT)
			return fe_int(F, ~x);
		return int_result(F, x == INT64_MIN, -x, loc);
	}
	if (a->kind == FV_FLOAT && op != PY_OP_INVERT)
		return fe_float(F, op == PY_OP_NEG ? -a->u.f : a->u.f);
	if (fe_is_symbolic(a)) {
		const tlc_expr *x = fe_to_scalar(F, a, loc);
		if (!x)
			return NULL;
		if (op == PY_OP_POS)
			return a;
		if (op == PY_OP_INVERT) {
			if (tlc_dtype_is_float(x->dtype)) {
				tlc_error(F->ctx, loc, "operator '~' needs an integer operand, not %s", tlc_dtype_name(x->dtype));
				return NULL;
			}
			return fe_expr(F, tlc_binary(F->m, TLC_EXPR_BITXOR, x, tlc_int(F->m, x->dtype, -1)));
		}
		/* fold negated constants: -T.infinity(...) is the constant -inf */
		if (x->kind == TLC_EXPR_FLOAT)
			return fe_expr(F, tlc_float(F->m, x->dtype, -x->u.fval));
		if (x->kind == TLC_EXPR_INT && x->u.ival != INT64_MIN)
			return fe_expr(F, tlc_int(F->m, x->dtype, -x->u.ival));
		return fe_expr(F, tlc_unary(F->m, TLC_EXPR_NEG, x));
	}
	if (a->kind == FV_HOST)
		return a;
	if (fe_is_torch_tensor(a) && op != PY_OP_INVERT)
		return op == PY_OP_POS ? a : fe_torch_binop(F, PY_OP_MUL, a, fe_int(F, -1), loc);
	tlc_error(F->ctx, loc, "bad operand type for unary operator: '%s'", fe_kind_name(a));
	return NULL;
}

fe_val *fe_compare(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
	/* a dtype is the str of its name (tvm's dtype subclasses str): "float"
	 * in T.float16, T.float16 < "int8" */
	bool as = a->kind == FV_STR || a->kind == FV_DTYPE, bs = b->kind == FV_STR || b->kind == FV_DTYPE;
	if (op != PY_OP_IS && op != PY_OP_IS_NOT && op != PY_OP_EQ && op != PY_OP_NE && as && bs &&
	    (a->kind == FV_DTYPE || b->kind == FV_DTYPE)) {
		if (a->kind == FV_DTYPE)
			a = fe_str(F, tlc_dtype_name(a->u.dt));
		if (b->kind == FV_DTYPE)
			b = fe_str(F, tlc_dtype_name(b->u.dt));
	}
	if ((fe_is_torch_tensor(a) || fe_is_torch_tensor(b)) && op != PY_OP_IS && op != PY_OP_IS_NOT) {
		fe_torch_values_error(F, "a comparison", loc);
		return NULL;
	}
	switch (op) {
	case PY_OP_IS:
	case PY_OP_IS_NOT: {
		bool same = a == b || (a->kind == FV_NONE && b->kind == FV_NONE) ||
		            (a->kind == FV_BOOL && b->kind == FV_BOOL && a->u.b == b->u.b);
		return fe_bool(F, op == PY_OP_IS ? same : !same);
	}
	case PY_OP_IN:
	case PY_OP_NOT_IN: {
		bool found = false;
		if (b->kind == FV_TUPLE || b->kind == FV_LIST) {
			if (!fe_work(F, b->u.seq.n, loc))
				return NULL;
			for (int i = 0; i < b->u.seq.n && !found; i++)
				found = fe_equal(F, a, b->u.seq.items[i]);
		} else if (b->kind == FV_DICT) {
			found = fe_dict_get(F, b, a) != NULL;
		} else if (b->kind == FV_STR && a->kind == FV_STR) {
			if (!fe_work(F, (int64_t)strlen(b->u.s) / 64, loc))
				return NULL;
			found = strstr(b->u.s, a->u.s) != NULL;
		} else {
			tlc_error(F->ctx, loc, "'in' needs a compile-time sequence, got %s",
			          fe_kind_name(b));
			return NULL;
		}
		return fe_bool(F, op == PY_OP_IN ? found : !found);
	}
	default:
		break;
	}
	if (fe_is_symbolic(a) || fe_is_symbolic(b))
		return fe_binop(F, op, a, b, loc);
	if (op == PY_OP_EQ || op == PY_OP_NE) {
		bool eq = fe_equal(F, a, b);
		return fe_bool(F, op == PY_OP_EQ ? eq : !eq);
	}
	int c;
	if (is_num(a) && is_num(b)) {
		if (a->kind != FV_FLOAT && b->kind != FV_FLOAT)
			c = num_i(a) < num_i(b) ? -1 : num_i(a) > num_i(b);
		else
			c = num_f(a) < num_f(b) ? -1 : num_f(a) > num_f(b);
	} else if (a->kind == FV_STR && b->kind == FV_STR) {
		c = strcmp(a->u.s, b->u.s);
	} else if (a->kind == b->kind && (a->kind == FV_TUPLE || a->kind == FV_LIST)) {
		/* lexicographic: the first unequal items decide, else the lengths */
		int n = a->u.seq.n < b->u.seq.n ? a->u.seq.n : b->u.seq.n;
		if (!fe_work(F, n, loc) || !fe_enter(F, loc))
			return NULL;
		for (int i = 0; i < n; i++)
			if (!fe_equal(F, a->u.seq.items[i], b->u.seq.items[i])) {
				fe_val *r = F->budget_hit ? NULL : fe_compare(F, op, a->u.seq.items[i], b->u.seq.items[i], loc);
				fe_leave(F);
				return r;
			}
		fe_leave(F);
		c = a->u.seq.n < b->u.seq.n ? -1 : a->u.seq.n > b->u.seq.n;
	} else {
		tlc_error(F->ctx, loc, "'%s' not supported between '%s' and '%s'", op_text(op),
		          fe_kind_name(a), fe_kind_name(b));
		return NULL;
	}
	bool r = op == PY_OP_LT ? c < 0 : op == PY_OP_LE ? c <= 0 : op == PY_OP_GT ? c > 0 : c >= 0;
	return fe_bool(F, r);
}

