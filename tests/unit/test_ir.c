/* test_ir.c - unit tests of the core IR: hash-consing, dtypes, the
 * simplifier, the printer, the verifier, diagnostics and the arena.
 * Expected texts were worked out by hand from doc/ir.md. */
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <tlc/bounds.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>

static tlc_context *ctx;
static tlc_module *m;

/* ---- helpers ---- */

static const tlc_expr *V(tlc_var *v) { return tlc_var_ref(m, v); }
static const tlc_expr *I(int64_t v) { return tlc_i32(m, v); }
static const tlc_expr *F(double v) { return tlc_float(m, TLC_DT_FLOAT32, v); }
static const tlc_expr *bin(tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b) { return tlc_binary(m, k, a, b); }
static const tlc_expr *add(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_ADD, a, b); }
static const tlc_expr *sub(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_SUB, a, b); }
static const tlc_expr *mul(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_MUL, a, b); }
static const tlc_expr *S(const tlc_expr *e) { return tlc_simplify_expr(m, e); }

/* The printed form of e (a static buffer, valid until the next call). */
static const char *P(const tlc_expr *e)
{
	static tlc_buf b;
	tlc_buf_free(&b);
	tlc_print_expr(&b, m, e);
	return tlc_buf_str(&b);
}

static const tlc_expr *call(const char *op, int nargs, const tlc_expr *const *args)
{
	return tlc_call(m, tlc_op_lookup(ctx, op), TLC_DT_VOID, nargs, args, 0, NULL, NULL);
}

static tlc_loc noloc;

/* ---- hash-consing and dtypes ---- */

static void test_hashcons(void)
{
	tlc_var *x = tlc_var_new(m, "x", TLC_DT_INT32);
	ok(add(V(x), I(1)) == add(V(x), I(1)), "equal expressions are one node");
	ok(add(V(x), I(1)) != add(I(1), V(x)), "operand order matters before simplification");
	ok(tlc_int(m, TLC_DT_INT64, 1) != I(1), "constants of different dtypes differ");
	ok(F(0.0) != F(-0.0), "floats hash by bit pattern: 0.0 and -0.0 differ");
	ok(F(NAN) == F(NAN), "NaN constants are one node");
	ok(tlc_str(m, "abc") == tlc_str(m, "abc"), "strings are interned");
	ok(tlc_intern(m, "key") == tlc_intern(m, "key"), "tlc_intern gives one pointer");
	const tlc_expr *args[1] = {V(x)};
	const char *kwn[1] = {"clear"};
	const tlc_expr *kwv[1] = {tlc_bool(m, false)};
	const tlc_expr *c1 = tlc_call(m, TLC_OP_REDUCE_MAX, TLC_DT_VOID, 1, args, 1, kwn, kwv);
	char name[] = "clear"; /* a different pointer with the same text */
	const char *kwn2[1] = {name};
	ok(c1 == tlc_call(m, TLC_OP_REDUCE_MAX, TLC_DT_VOID, 1, args, 1, kwn2, kwv),
	   "calls with equal keyword names are one node");
	ok(tlc_call_kw(c1, "clear") == kwv[0] && tlc_call_kw(c1, "dim") == NULL, "tlc_call_kw");
	/* many nodes: the table grows and still finds old ones */
	const tlc_expr *first = add(V(x), I(100000));
	for (int i = 0; i < 20000; i++)
		add(V(x), I(i));
	ok(first == add(V(x), I(100000)) && add(V(x), I(7)) == add(V(x), I(7)), "lookup after growth");
}

static void test_dtypes(void)
{
	is_str(tlc_dtype_name(TLC_DT_FLOAT16), "float16", "canonical name float16");
	ok(tlc_dtype_from_name("half") == TLC_DT_FLOAT16 && tlc_dtype_from_name("fp16") == TLC_DT_FLOAT16,
	   "half, fp16 alias float16");
	ok(tlc_dtype_from_name("bf16") == TLC_DT_BFLOAT16 && tlc_dtype_from_name("bfloat16") == TLC_DT_BFLOAT16,
	   "bf16 aliases bfloat16");
	ok(tlc_dtype_from_name("float") == TLC_DT_FLOAT32 && tlc_dtype_from_name("fp32") == TLC_DT_FLOAT32,
	   "float, fp32 alias float32");
	ok(tlc_dtype_from_name("double") == TLC_DT_FLOAT64, "double aliases float64");
	ok(tlc_dtype_from_name("float8_e4m3") == TLC_DT_FLOAT8_E4M3 &&
	   tlc_dtype_from_name("e4m3_float8") == TLC_DT_FLOAT8_E4M3 &&
	   tlc_dtype_from_name("float8_e4m3fn") == TLC_DT_FLOAT8_E4M3, "e4m3 spellings");
	ok(tlc_dtype_from_name("e5m2_float8") == TLC_DT_FLOAT8_E5M2, "e5m2 spelling");
	ok(tlc_dtype_from_name("uint16") == TLC_DT_UINT16 && tlc_dtype_from_name("bool") == TLC_DT_BOOL,
	   "integer and bool names");
	ok(tlc_dtype_from_name("int4") == TLC_DT_VOID && tlc_dtype_from_name("") == TLC_DT_VOID,
	   "unknown names give void");
	ok(tlc_dtype_bits(TLC_DT_BFLOAT16) == 16 && tlc_dtype_bits(TLC_DT_UINT64) == 64 &&
	   tlc_dtype_bits(TLC_DT_VOID) == 0, "bits");
	ok(tlc_dtype_is_int(TLC_DT_UINT8) && !tlc_dtype_is_int(TLC_DT_BOOL) && tlc_dtype_is_unsigned(TLC_DT_UINT8) &&
	   !tlc_dtype_is_unsigned(TLC_DT_INT8) && tlc_dtype_is_float(TLC_DT_FLOAT8_E5M2), "classes");
	is_str(tlc_scope_name(TLC_SCOPE_FRAGMENT), "local.fragment", "scope name");

	tlc_var *i64 = tlc_var_new(m, "a", TLC_DT_INT64);
	tlc_var *i32 = tlc_var_new(m, "b", TLC_DT_INT32);
	tlc_var *f16 = tlc_var_new(m, "h", TLC_DT_FLOAT16);
	ok(add(V(i64), I(1))->dtype == TLC_DT_INT64, "int64 var + int32 constant is int64");
	ok(add(V(i32), V(i64))->dtype == TLC_DT_INT64, "int32 + int64 is int64");
	ok(mul(V(f16), I(2))->dtype == TLC_DT_FLOAT16, "float16 var * int constant is float16");
	/* a typed float32 constant is not a Python literal (the frontend types
	 * those): float32 wins over float16, with an explicit cast */
	ok(mul(V(f16), F(0.5)) == mul(tlc_cast(m, TLC_DT_FLOAT32, V(f16)), F(0.5)),
	   "float16 var * float32 constant is a float32 product of the converted var");
	ok(mul(V(f16), tlc_float(m, TLC_DT_FLOAT16, 0.5))->dtype == TLC_DT_FLOAT16, "float16 * float16 constant");
	ok(add(V(f16), V(i32)) == add(V(f16), tlc_cast(m, TLC_DT_FLOAT16, V(i32))), "float16 + int32: the int converts");
	ok(bin(TLC_EXPR_LT, V(i64), V(i32)) == bin(TLC_EXPR_LT, V(i64), tlc_cast(m, TLC_DT_INT64, V(i32))),
	   "a comparison converts to the common type");
	ok(mul(V(i32), F(0.5))->dtype == TLC_DT_FLOAT32, "int var * float constant is float");
	ok(bin(TLC_EXPR_LT, V(i32), I(3))->dtype == TLC_DT_BOOL, "comparison is bool");
	ok(tlc_unary(m, TLC_EXPR_NOT, bin(TLC_EXPR_LT, V(i32), I(3)))->dtype == TLC_DT_BOOL, "not is bool");
	ok(tlc_cast(m, TLC_DT_FLOAT32, V(i32))->dtype == TLC_DT_FLOAT32, "cast has its dtype");
	ok(tlc_unary(m, TLC_EXPR_ADD, V(i32)) == NULL, "tlc_unary refuses a binary kind");
}

/* ---- simplifier ---- */

static void test_simplify(void)
{
	tlc_var *b = tlc_var_new(m, "b", TLC_DT_INT32);
	tlc_var *x = tlc_var_new(m, "x", TLC_DT_INT32);
	tlc_var *i = tlc_var_new(m, "i", TLC_DT_INT32);
	tlc_var *j = tlc_var_new(m, "j", TLC_DT_INT32);
	tlc_var *f = tlc_var_new(m, "f", TLC_DT_FLOAT32);

	ok(S(add(I(2), mul(I(3), I(4)))) == I(14), "2 + 3 * 4 == 14");
	ok(S(bin(TLC_EXPR_FLOORDIV, I(7), I(2))) == I(3), "7 // 2 == 3");
	ok(S(bin(TLC_EXPR_FLOORDIV, I(-7), I(2))) == I(-4), "-7 // 2 == -4 (toward -inf)");
	ok(S(bin(TLC_EXPR_FLOORDIV, I(7), I(-2))) == I(-4), "7 // -2 == -4");
	ok(S(bin(TLC_EXPR_FLOORMOD, I(-7), I(2))) == I(1), "-7 %% 2 == 1");
	ok(S(bin(TLC_EXPR_FLOORMOD, I(7), I(-2))) == I(-1), "7 %% -2 == -1");
	ok(S(bin(TLC_EXPR_FLOORMOD, I(-8), I(4))) == I(0), "-8 %% 4 == 0");
	const tlc_expr *div0 = bin(TLC_EXPR_FLOORDIV, I(1), I(0));
	ok(S(div0) == div0, "1 // 0 is left alone");
	ok(S(add(F(1.5), F(2.25))) == F(3.75), "1.5 + 2.25 == 3.75");
	ok(S(bin(TLC_EXPR_LT, F(1.0), F(2.0))) == tlc_bool(m, true), "1.0 < 2.0 is True");
	ok(S(bin(TLC_EXPR_AND, tlc_bool(m, true), bin(TLC_EXPR_LT, V(x), I(3)))) == bin(TLC_EXPR_LT, V(x), I(3)),
	   "True and c == c");
	ok(S(bin(TLC_EXPR_OR, bin(TLC_EXPR_LT, V(x), I(3)), tlc_bool(m, true))) == tlc_bool(m, true), "c or True == True");
	ok(S(tlc_int(m, TLC_DT_INT8, 0) /* leaf */) == tlc_int(m, TLC_DT_INT8, 0), "constants are fixpoints");
	ok(S(bin(TLC_EXPR_ADD, tlc_int(m, TLC_DT_INT8, 100), tlc_int(m, TLC_DT_INT8, 100))) == tlc_int(m, TLC_DT_INT8, -56),
	   "int8 folding wraps");

	/* identities */
	ok(S(add(V(x), I(0))) == V(x), "x + 0 == x");
	ok(S(mul(V(x), I(1))) == V(x), "x * 1 == x");
	ok(S(mul(V(x), I(0))) == I(0), "x * 0 == 0 for ints");
	ok(S(sub(V(x), V(x))) == I(0), "x - x == 0");
	ok(S(bin(TLC_EXPR_FLOORDIV, V(x), I(1))) == V(x), "x // 1 == x");
	ok(S(bin(TLC_EXPR_FLOORMOD, V(x), I(1))) == I(0), "x %% 1 == 0");
	ok(S(mul(V(f), F(1.0))) == V(f), "f * 1.0 == f");
	const tlc_expr *f0 = mul(V(f), F(0.0));
	ok(S(f0) == f0, "f * 0.0 is kept (NaN, inf)");

	/* canonical order and chains */
	ok(S(add(I(2), V(x))) == add(V(x), I(2)), "constant moves right: 2 + x == x + 2");
	ok(S(add(add(V(x), I(1)), I(2))) == add(V(x), I(3)), "(x + 1) + 2 == x + 3");
	ok(S(mul(mul(V(x), I(2)), I(3))) == mul(V(x), I(6)), "(x * 2) * 3 == x * 6");
	ok(S(sub(add(mul(V(b), I(128)), I(128)), mul(V(b), I(128)))) == I(128), "(b*128 + 128) - b*128 == 128");
	is_str(P(S(add(V(j), V(i)))), "i + j", "atoms sorted by creation order: j + i -> i + j");
	is_str(P(S(sub(I(5), sub(mul(V(i), I(2)), V(j))))), "j - i * 2 + 5", "5 - (i*2 - j)");
	is_str(P(S(sub(I(3), V(x)))), "3 - x", "3 - x stays");
	is_str(P(S(sub(tlc_unary(m, TLC_EXPR_NEG, V(x)), I(3)))), "-x - 3", "-x - 3 stays");
	is_str(P(S(mul(add(V(x), I(1)), I(4)))), "x * 4 + 4", "(x + 1) * 4 distributes");
	is_str(P(S(mul(I(4), mul(V(i), V(j))))), "i * j * 4", "product of atoms times a constant");
	is_str(P(S(bin(TLC_EXPR_FLOORDIV, add(mul(V(i), I(128)), V(j)), I(128)))), "i + j // 128",
	       "(i*128 + j) // 128 == i + j // 128");
	is_str(P(S(bin(TLC_EXPR_FLOORMOD, add(mul(V(i), I(128)), V(j)), I(128)))), "j % 128",
	       "(i*128 + j) % 128 == j % 128");
	is_str(P(S(bin(TLC_EXPR_FLOORDIV, bin(TLC_EXPR_FLOORDIV, V(x), I(4)), I(8)))), "x // 32",
	       "(x // 4) // 8 == x // 32");
	ok(S(bin(TLC_EXPR_LT, add(V(i), I(4)), add(V(i), I(8)))) == tlc_bool(m, true), "i + 4 < i + 8 is True");
	ok(S(bin(TLC_EXPR_GE, V(i), V(i))) == tlc_bool(m, true), "i >= i is True");

	/* select, cast, min/max */
	ok(S(tlc_select(m, tlc_bool(m, true), V(i), V(j))) == V(i), "select with True");
	ok(S(tlc_select(m, bin(TLC_EXPR_LT, I(3), I(2)), V(i), V(j))) == V(j), "select with a false comparison");
	ok(S(tlc_cast(m, TLC_DT_FLOAT32, I(3))) == F(3.0), "cast of a constant");
	ok(S(tlc_cast(m, TLC_DT_INT32, F(-2.7))) == I(-2), "float to int cast truncates");
	ok(S(tlc_cast(m, TLC_DT_INT32, V(i))) == V(i), "cast to the same dtype vanishes");
	ok(S(tlc_cast(m, TLC_DT_FLOAT32, tlc_float(m, TLC_DT_FLOAT64, 0.1))) == F((double)0.1f), "cast to float32 rounds");
	ok(S(bin(TLC_EXPR_MIN, I(3), I(5))) == I(3) && S(bin(TLC_EXPR_MAX, I(3), I(5))) == I(5), "min/max fold");
	is_str(P(S(bin(TLC_EXPR_MIN, bin(TLC_EXPR_MIN, V(x), I(3)), I(5)))), "T.min(x, 3)", "min chain folds");
	ok(S(tlc_unary(m, TLC_EXPR_NEG, I(5))) == I(-5), "-(5) folds");

	/* simplification inside loads and calls */
	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_FLOAT32, TLC_SCOPE_GLOBAL, 1, (const tlc_expr *[]){I(64)}, noloc);
	const tlc_expr *idx[1] = {add(add(V(i), I(1)), I(-1))};
	const tlc_expr *want[1] = {V(i)};
	ok(S(tlc_load(m, A, 1, idx)) == tlc_load(m, A, 1, want), "indices of loads are simplified");

	/* idempotence */
	const tlc_expr *cases[] = {
		sub(add(mul(add(V(i), V(j)), I(3)), I(7)), mul(V(j), I(5))),
		bin(TLC_EXPR_FLOORDIV, add(mul(V(i), I(64)), add(V(j), I(130))), I(64)),
		bin(TLC_EXPR_FLOORMOD, sub(mul(V(i), I(-8)), V(j)), I(4)),
		tlc_unary(m, TLC_EXPR_NEG, sub(V(i), mul(V(j), V(x)))),
		tlc_select(m, bin(TLC_EXPR_LT, V(i), I(3)), mul(V(f), F(2.0)), add(F(1.0), V(f))),
		bin(TLC_EXPR_MAX, add(V(j), I(1)), bin(TLC_EXPR_MIN, V(i), sub(V(x), I(2)))),
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const tlc_expr *once = S(cases[k]);
		ok(S(once) == once, "idempotent: simplify(simplify(%s)) == simplify(...)", P(cases[k]));
	}
	is_str(P(S(cases[0])), "i * 3 - j * 2 + 7", "(i + j) * 3 + 7 - j * 5");
	is_str(P(S(cases[1])), "i + (j + 130) // 64", "(i*64 + (j + 130)) // 64");
}

/* ---- simplifier: random expressions keep their value and are fixpoints ---- */

static uint32_t rng_state = 12345;
static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 8) % n;
}

static tlc_var *rvars[3];

static const tlc_expr *random_expr(int depth)
{
	if (depth == 0 || rnd(4) == 0)
		return rnd(2) ? V(rvars[rnd(3)]) : I((int64_t)rnd(21) - 10);
	const tlc_expr *a = random_expr(depth - 1), *b = random_expr(depth - 1);
	switch (rnd(9)) {
	case 0: return add(a, b);
	case 1: return sub(a, b);
	case 2: return mul(a, rnd(2) ? b : I((int64_t)rnd(9) - 4));
	case 3: return bin(TLC_EXPR_FLOORDIV, a, I((int64_t)rnd(8) + 1));
	case 4: return bin(TLC_EXPR_FLOORMOD, a, I((int64_t)rnd(8) + 1));
	case 5: return tlc_unary(m, TLC_EXPR_NEG, a);
	case 6: return bin(rnd(2) ? TLC_EXPR_MIN : TLC_EXPR_MAX, a, b);
	case 7: return tlc_select(m, bin(TLC_EXPR_LT, a, b), b, a);
	default: return add(mul(a, I(4)), b);
	}
}

static int64_t py_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && ((a < 0) != (b < 0))); }

static int64_t eval(const tlc_expr *e, const int64_t *env)
{
	switch (e->kind) {
	case TLC_EXPR_INT: return e->u.ival;
	case TLC_EXPR_VAR:
		for (int i = 0; i < 3; i++)
			if (e->u.var == rvars[i])
				return env[i];
		return 0;
	case TLC_EXPR_NEG: return -eval(e->u.op.a, env);
	case TLC_EXPR_SELECT: return eval(e->u.op.a, env) ? eval(e->u.op.b, env) : eval(e->u.op.c, env);
	default: break;
	}
	int64_t a = eval(e->u.op.a, env), b = eval(e->u.op.b, env);
	switch (e->kind) {
	case TLC_EXPR_ADD: return a + b;
	case TLC_EXPR_SUB: return a - b;
	case TLC_EXPR_MUL: return a * b;
	case TLC_EXPR_FLOORDIV: return py_div(a, b);
	case TLC_EXPR_FLOORMOD: return a - py_div(a, b) * b;
	case TLC_EXPR_MIN: return a < b ? a : b;
	case TLC_EXPR_MAX: return a > b ? a : b;
	case TLC_EXPR_LT: return a < b;
	case TLC_EXPR_LE: return a <= b;
	case TLC_EXPR_GT: return a > b;
	case TLC_EXPR_GE: return a >= b;
	case TLC_EXPR_EQ: return a == b;
	case TLC_EXPR_NE: return a != b;
	case TLC_EXPR_AND: return a && b;
	case TLC_EXPR_OR: return a || b;
	default: return 0x7fffffff; /* a kind the simplifier should not have produced */
	}
}

static void test_simplify_random(void)
{
	rvars[0] = tlc_var_new(m, "r0", TLC_DT_INT32);
	rvars[1] = tlc_var_new(m, "r1", TLC_DT_INT32);
	rvars[2] = tlc_var_new(m, "r2", TLC_DT_INT32);
	int wrong = 0, unstable = 0;
	for (int n = 0; n < 2000; n++) {
		const tlc_expr *e = random_expr(4);
		const tlc_expr *s = S(e);
		if (S(s) != s && unstable++ < 3)
			diag("not a fixpoint: %s", P(e));
		for (int t = 0; t < 8; t++) {
			int64_t env[3] = {(int64_t)rnd(41) - 20, (int64_t)rnd(41) - 20, (int64_t)rnd(41) - 20};
			if (eval(e, env) != eval(s, env)) {
				if (wrong++ < 3)
					diag("value changed: %s", P(e));
				break;
			}
		}
	}
	ok(wrong == 0, "2000 random expressions keep their value (%d changed)", wrong);
	ok(unstable == 0, "2000 random expressions simplify to fixpoints (%d not)", unstable);
}

/* ---- printer: expressions ---- */

static void test_print_expr(void)
{
	tlc_var *x = tlc_var_new(m, "x", TLC_DT_INT32);
	tlc_var *y = tlc_var_new(m, "y", TLC_DT_INT32);
	tlc_var *x2 = tlc_var_new(m, "x", TLC_DT_INT32);
	tlc_var *p = tlc_var_new(m, "p", TLC_DT_BOOL);
	tlc_var *q = tlc_var_new(m, "q", TLC_DT_BOOL);
	const tlc_expr *lt = bin(TLC_EXPR_LT, V(x), V(y));

	is_str(P(mul(add(V(x), I(1)), I(2))), "(x + 1) * 2", "parentheses for a looser left operand");
	is_str(P(add(V(x), mul(V(y), I(2)))), "x + y * 2", "no parentheses for a tighter operand");
	is_str(P(sub(V(x), sub(V(y), I(1)))), "x - (y - 1)", "right operand of - needs parentheses");
	is_str(P(sub(sub(V(x), V(y)), I(1))), "x - y - 1", "left-associative chain");
	is_str(P(bin(TLC_EXPR_FLOORDIV, V(x), mul(V(y), I(2)))), "x // (y * 2)", "x // (y * 2)");
	is_str(P(tlc_unary(m, TLC_EXPR_NEG, add(V(x), I(1)))), "-(x + 1)", "unary minus of a sum");
	is_str(P(tlc_unary(m, TLC_EXPR_NEG, tlc_unary(m, TLC_EXPR_NEG, V(x)))), "-(-x)", "double negation");
	is_str(P(mul(V(x), I(-2))), "x * -2", "negative constant operand");
	is_str(P(bin(TLC_EXPR_EQ, lt, tlc_bool(m, true))), "(x < y) == True", "comparisons do not chain");
	is_str(P(tlc_unary(m, TLC_EXPR_NOT, bin(TLC_EXPR_AND, V(p), V(q)))), "not (p and q)", "not of and");
	is_str(P(bin(TLC_EXPR_AND, tlc_unary(m, TLC_EXPR_NOT, V(p)), lt)), "not p and x < y", "and of not");
	is_str(P(tlc_unary(m, TLC_EXPR_NOT, lt)), "not x < y", "not binds looser than <");
	is_str(P(bin(TLC_EXPR_OR, bin(TLC_EXPR_AND, V(p), V(q)), V(p))), "p and q or p", "and inside or");
	is_str(P(bin(TLC_EXPR_AND, bin(TLC_EXPR_OR, V(p), V(q)), V(p))), "(p or q) and p", "or inside and");
	is_str(P(bin(TLC_EXPR_BITAND, bin(TLC_EXPR_SHL, V(x), I(1)), I(3))), "x << 1 & 3", "shift binds tighter than &");
	is_str(P(bin(TLC_EXPR_SHL, V(x), add(V(y), I(1)))), "x << y + 1", "+ binds tighter than <<");
	is_str(P(add(V(x), V(x2))), "x + x_1", "two variables named x print as x and x_1");

	is_str(P(F(1.0)), "1.0", "float32 1.0");
	is_str(P(F(0.1)), "0.1", "float32 0.1 (shortest text)");
	is_str(P(F(1e-6)), "1e-06", "float32 1e-06");
	is_str(P(F(1e20)), "1e+20", "float32 1e+20");
	is_str(P(F(1.0 / 3.0)), "0.33333334", "float32 1/3: the shortest text of the float");
	is_str(P(tlc_float(m, TLC_DT_FLOAT64, 1.0 / 3.0)), "T.float64(0.3333333333333333)", "float64 1/3 round-trips");
	is_str(P(tlc_float(m, TLC_DT_FLOAT16, 0.1)), "T.float16(0.1)", "float16 0.1 holds the float16 value, printed short");
	ok(tlc_float(m, TLC_DT_FLOAT16, 0.1)->u.fval == 0.0999755859375, "float16 0.1 is rounded to its type");
	is_str(P(F(-2.5)), "-2.5", "negative float");
	is_str(P(tlc_float(m, TLC_DT_FLOAT16, 1.5)), "T.float16(1.5)", "float16 constant");
	is_str(P(F(-INFINITY)), "-T.infinity(\"float32\")", "-inf");
	is_str(P(tlc_float(m, TLC_DT_BFLOAT16, INFINITY)), "T.infinity(\"bfloat16\")", "bf16 inf");
	is_str(P(tlc_int(m, TLC_DT_INT64, 5)), "T.int64(5)", "int64 constant");
	is_str(P(tlc_bool(m, false)), "False", "bool constant");
	is_str(P(tlc_str(m, "a\"b\n")), "\"a\\\"b\\n\"", "string escapes");
	is_str(P(tlc_sym(m, "T.GemmWarpPolicy.FullRow")), "T.GemmWarpPolicy.FullRow", "symbol");
	is_str(P(tlc_tuple(m, 1, (const tlc_expr *[]){V(x)}, false)), "(x,)", "1-tuple");
	is_str(P(tlc_tuple(m, 2, (const tlc_expr *[]){I(1), I(2)}, true)), "[1, 2]", "list");
	is_str(P(tlc_lambda(m, 2, (tlc_var *[]){x, y},
	                    tlc_tuple(m, 2, (const tlc_expr *[]){V(y), mul(V(x), I(2))}, false))),
	       "lambda x, y: (y, x * 2)", "lambda");
	is_str(P(tlc_select(m, lt, tlc_cast(m, TLC_DT_FLOAT16, V(x)), tlc_float(m, TLC_DT_FLOAT16, 0))),
	       "T.if_then_else(x < y, T.cast(x, \"float16\"), 0.0)",
	       "select and cast (the constant beside a float16 branch prints as a literal, read back as float16)");
	is_str(P(tlc_select(m, lt, tlc_float(m, TLC_DT_FLOAT16, 1), tlc_float(m, TLC_DT_FLOAT16, 0))),
	       "T.if_then_else(x < y, T.float16(1.0), T.float16(0.0))", "two constants keep their types");
	is_str(P(mul(bin(TLC_EXPR_MAX, V(x), I(0)), I(2))), "T.max(x, 0) * 2", "max");
	is_str(P(tlc_call(m, TLC_OP_EXP2, TLC_DT_FLOAT32, 1, (const tlc_expr *[]){F(2.0)}, 0, NULL, NULL)),
	       "T.exp2(2.0)", "math call");

	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_FLOAT16, TLC_SCOPE_GLOBAL, 3,
	                               (const tlc_expr *[]){I(4), I(256), I(64)}, noloc);
	tlc_range dims[3] = {
		{V(x), NULL, true},
		{mul(V(y), I(32)), I(32), false},
		{I(0), I(64), false},
	};
	is_str(P(tlc_region(m, A, 3, dims)), "A[x, y * 32:y * 32 + 32, :]", "region: point, slice, full");
	tlc_range dims2[3] = {{I(0), I(4), false}, {I(0), I(128), false}, {I(16), I(48), false}};
	is_str(P(tlc_region(m, A, 3, dims2)), "A[:, 0:128, 16:64]", "region ends are simplified");
}

/* ---- printer: a whole kernel ---- */

static tlc_func *build_kernel(tlc_var **loop_i)
{
	tlc_var *n = tlc_var_new(m, "n", TLC_DT_INT32);
	tlc_buffer *A = tlc_buffer_new(m, "A", TLC_DT_FLOAT16, TLC_SCOPE_GLOBAL, 2, (const tlc_expr *[]){V(n), I(64)}, noloc);
	tlc_buffer *C = tlc_buffer_new(m, "C", TLC_DT_FLOAT32, TLC_SCOPE_GLOBAL, 2, (const tlc_expr *[]){V(n), I(64)}, noloc);
	tlc_func *f = tlc_func_new(m, "main", noloc);
	f->nparams = 3;
	f->params = tlc_alloc(m, 3 * sizeof(tlc_param));
	f->params[0] = (tlc_param){TLC_PARAM_TENSOR, A, NULL, false};
	f->params[1] = (tlc_param){TLC_PARAM_TENSOR, C, NULL, true};
	f->params[2] = (tlc_param){TLC_PARAM_SCALAR, NULL, n, false};
	tlc_var *bx = tlc_var_new(m, "bx", TLC_DT_INT32);
	tlc_var *tx = tlc_var_new(m, "tx", TLC_DT_INT32);
	f->grid_ndim = 1;
	f->grid[0] = bin(TLC_EXPR_FLOORDIV, add(V(n), I(127)), I(128));
	f->block_vars[0] = bx;
	f->thread_ndim = 1;
	f->threads[0] = I(128);
	f->thread_vars[0] = tx;
	tlc_stmt *body = f->body;

	tlc_buffer *As = tlc_buffer_new(m, "A_s", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 2, (const tlc_expr *[]){I(128), I(64)}, noloc);
	tlc_buffer *acc = tlc_buffer_new(m, "acc", TLC_DT_FLOAT32, TLC_SCOPE_FRAGMENT, 2, (const tlc_expr *[]){I(128), I(64)}, noloc);
	tlc_seq_append(m, body, tlc_alloc_new(m, noloc, As));
	tlc_seq_append(m, body, tlc_alloc_new(m, noloc, acc));
	tlc_seq_append(m, body, tlc_eval_new(m, noloc, call("clear", 1, (const tlc_expr *[]){tlc_buf_ref(m, acc)})));
	tlc_range r[2] = {{mul(V(bx), I(128)), I(128), false}, {I(0), I(64), false}};
	tlc_seq_append(m, body, tlc_eval_new(m, noloc, call("copy", 2, (const tlc_expr *[]){tlc_region(m, A, 2, r), tlc_buf_ref(m, As)})));

	tlc_var *i = tlc_var_new(m, "i", TLC_DT_INT32), *j = tlc_var_new(m, "j", TLC_DT_INT32);
	*loop_i = i;
	const tlc_expr *ij[2] = {V(i), V(j)};
	tlc_stmt *st = tlc_store_new(m, noloc, acc, 2, ij,
	                             add(mul(tlc_cast(m, TLC_DT_FLOAT32, tlc_load(m, As, 2, ij)), F(2.0)), F(1e-6)));
	tlc_stmt *inner = tlc_for_new(m, noloc, j, I(0), I(64), TLC_FOR_PARALLEL, st);
	tlc_seq_append(m, body, tlc_for_new(m, noloc, i, I(0), I(128), TLC_FOR_PARALLEL, inner));

	tlc_var *k = tlc_var_new(m, "k", TLC_DT_INT32), *x = tlc_var_new(m, "x", TLC_DT_INT32);
	tlc_stmt *kb = tlc_seq_new(m, noloc);
	tlc_seq_append(m, kb, tlc_let_new(m, noloc, x, mul(V(k), I(2))));
	const tlc_expr *cidx[2] = {add(mul(V(bx), I(128)), V(k)), I(0)};
	const tlc_expr *k0[2] = {V(k), I(0)};
	tlc_stmt *then_s = tlc_store_new(m, noloc, C, 2, cidx, tlc_unary(m, TLC_EXPR_NEG, tlc_load(m, acc, 2, k0)));
	tlc_stmt *else_s = tlc_store_new(m, noloc, C, 2, cidx,
	                                 tlc_select(m, bin(TLC_EXPR_GT, V(x), I(3)), F(INFINITY), F(-INFINITY)));
	const tlc_expr *cond = bin(TLC_EXPR_AND, bin(TLC_EXPR_LT, V(x), V(n)),
	                           tlc_unary(m, TLC_EXPR_NOT, bin(TLC_EXPR_EQ, V(x), I(3))));
	tlc_seq_append(m, kb, tlc_if_new(m, noloc, cond, then_s, else_s));
	tlc_seq_append(m, body, tlc_for_new(m, noloc, k, I(2), I(8), TLC_FOR_SERIAL, kb));

	tlc_var *i2 = tlc_var_new(m, "i", TLC_DT_INT32);
	const tlc_expr *i21[2] = {V(i2), I(1)};
	tlc_stmt *ub = tlc_store_new(m, noloc, acc, 2, i21,
	                             sub(tlc_call(m, TLC_OP_EXP2, TLC_DT_FLOAT32, 1,
	                                          (const tlc_expr *[]){tlc_load(m, acc, 2, i21)}, 0, NULL, NULL),
	                                 F(1.5)));
	tlc_seq_append(m, body, tlc_for_new(m, noloc, i2, I(0), I(4), TLC_FOR_UNROLLED, ub));

	tlc_stmt *pb = tlc_seq_new(m, noloc);
	tlc_stmt *pl = tlc_for_new(m, noloc, tlc_var_new(m, "ko", TLC_DT_INT32), I(0), I(16), TLC_FOR_PIPELINED, pb);
	pl->u.loop.pipe.num_stages = 3;
	tlc_seq_append(m, body, pl);

	const char *kwn[2] = {"transpose_B", "policy"};
	const tlc_expr *kwv[2] = {tlc_bool(m, true), tlc_sym(m, "T.GemmWarpPolicy.FullRow")};
	const tlc_expr *g = tlc_call(m, TLC_OP_GEMM, TLC_DT_VOID, 3,
	                             (const tlc_expr *[]){tlc_buf_ref(m, As), tlc_buf_ref(m, As), tlc_buf_ref(m, acc)}, 2, kwn, kwv);
	tlc_stmt *ws = tlc_scope_new(m, noloc, call("ws", 2, (const tlc_expr *[]){I(1), I(2)}), NULL);
	tlc_seq_append(m, ws->u.scope.body, tlc_eval_new(m, noloc, g));
	tlc_seq_append(m, body, ws);
	return f;
}

static const char kernel_text[] =
	"@T.prim_func\n"
	"def main(A: T.Tensor((n, 64), \"float16\"), C: T.Tensor((n, 64), \"float32\"), n: T.int32):\n"
	"    T.func_attr({\"out_idx\": [1]})\n"
	"    with T.Kernel((n + 127) // 128, threads=128) as bx:\n"
	"        tx = T.get_thread_binding(0)\n"
	"        A_s = T.alloc_shared((128, 64), \"float16\")\n"
	"        acc = T.alloc_fragment((128, 64), \"float32\")\n"
	"        T.clear(acc)\n"
	"        T.copy(A[bx * 128:bx * 128 + 128, :], A_s)\n"
	"        for i, j in T.Parallel(128, 64):\n"
	"            acc[i, j] = T.cast(A_s[i, j], \"float32\") * 2.0 + 1e-06\n"
	"        for k in T.serial(2, 10):\n"
	"            x = k * 2\n"
	"            if x < n and not x == 3:\n"
	"                C[bx * 128 + k, 0] = -acc[k, 0]\n"
	"            else:\n"
	"                C[bx * 128 + k, 0] = T.if_then_else(x > 3, T.infinity(\"float32\"), -T.infinity(\"float32\"))\n"
	"        for i_1 in T.unroll(4):\n"
	"            acc[i_1, 1] = T.exp2(acc[i_1, 1]) - 1.5\n"
	"        for ko in T.Pipelined(16, num_stages=3):\n"
	"            pass\n"
	"        with T.ws(1, 2):\n"
	"            T.gemm(A_s, A_s, acc, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)\n";

static void test_print_kernel(void)
{
	tlc_var *i;
	tlc_func *f = build_kernel(&i);
	tlc_module_add_func(m, f);
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_print_func(&b, m, f);
	is_str(tlc_buf_str(&b), kernel_text, "printed kernel");
	tlc_buf c;
	tlc_buf_init(&c);
	tlc_print_func(&c, m, f);
	ok(strcmp(tlc_buf_str(&b), tlc_buf_str(&c)) == 0, "printing is deterministic");

	ok(tlc_verify_module(ctx, m, NULL), "the hand-built kernel verifies");

	tlc_module *m2 = tlc_module_new(ctx);
	tlc_module *saved = m;
	m = m2;
	tlc_var *i2;
	tlc_module_add_func(m2, build_kernel(&i2));
	tlc_buf d;
	tlc_buf_init(&d);
	tlc_print_module(&d, m2);
	const char *head = "# tlc IR\nimport tilelang.language as T\n\n\n@T.prim_func\ndef main(";
	ok(strncmp(tlc_buf_str(&d), head, strlen(head)) == 0,
	   "module header and two blank lines");
	tlc_func_uniquify_names(m2, tlc_module_func(m2, 0));
	tlc_stmt *unroll = tlc_module_func(m2, 0)->body->u.seq.items[6];
	is_str(unroll->u.loop.var->name, "i_1", "uniquify_names renames the second i");
	tlc_buf e;
	tlc_buf_init(&e);
	tlc_print_module(&e, m2);
	is_str(tlc_buf_str(&e), tlc_buf_str(&d), "printing after uniquify_names is unchanged");
	m = saved;
	tlc_module_free(m2);
	tlc_buf_free(&b);
	tlc_buf_free(&c);
	tlc_buf_free(&d);
	tlc_buf_free(&e);
}

/* The one-line forms listed in doc/ir.md. */
static void test_print_forms(void)
{
	tlc_module *saved = m;
	m = tlc_module_new(ctx);
	tlc_func *f = tlc_func_new(m, "forms", noloc);
	f->grid_ndim = 3;
	f->grid[0] = I(8);
	f->grid[1] = I(4);
	f->grid[2] = I(2);
	f->block_vars[0] = tlc_var_new(m, "bx", TLC_DT_INT32);
	f->block_vars[1] = tlc_var_new(m, "by", TLC_DT_INT32);
	f->thread_ndim = 2;
	f->threads[0] = I(128);
	f->threads[1] = I(2);
	tlc_stmt *body = f->body;
	tlc_buffer *S = tlc_buffer_new(m, "S", TLC_DT_FLOAT16, TLC_SCOPE_SHARED, 2, (const tlc_expr *[]){I(128), I(32)}, noloc);
	tlc_buffer *r = tlc_buffer_new(m, "r", TLC_DT_FLOAT32, TLC_SCOPE_LOCAL, 1, (const tlc_expr *[]){I(8)}, noloc);
	tlc_buffer *acc = tlc_buffer_new(m, "acc", TLC_DT_FLOAT32, TLC_SCOPE_VAR, 1, (const tlc_expr *[]){I(1)}, noloc);
	acc->ninit = 1;
	acc->init = tlc_alloc(m, sizeof(*acc->init));
	acc->init[0] = F(0.0);
	tlc_buffer *bars = tlc_buffer_new(m, "bars", TLC_DT_UINT64, TLC_SCOPE_BARRIER, 1, (const tlc_expr *[]){I(2)}, noloc);
	bars->ninit = 2;
	bars->init = tlc_alloc(m, 2 * sizeof(*bars->init));
	bars->init[0] = bars->init[1] = I(128);
	tlc_buffer *G = tlc_buffer_new(m, "G", TLC_DT_FLOAT32, TLC_SCOPE_GLOBAL, 1, (const tlc_expr *[]){I(64)}, noloc);
	tlc_buffer *T = tlc_buffer_new(m, "T", TLC_DT_FLOAT32, TLC_SCOPE_FRAGMENT, 1, (const tlc_expr *[]){I(4)}, noloc);
	tlc_buffer *bufs[] = {S, r, acc, bars, G, T};
	for (int i = 0; i < 6; i++)
		tlc_seq_append(m, body, tlc_alloc_new(m, noloc, bufs[i]));
	tlc_stmt *pl = tlc_for_new(m, noloc, tlc_var_new(m, "k", TLC_DT_INT32), I(1), I(16), TLC_FOR_PIPELINED, NULL);
	static const int order[] = {0, 1, 2}, stage[] = {0, 0, 1}, g0[] = {0}, g1[] = {1, 2}, glen[] = {1, 2};
	static const int *const groups[] = {g0, g1};
	pl->u.loop.pipe = (tlc_pipeline_info){3, 3, order, 3, stage, 2, glen, groups};
	tlc_seq_append(m, body, pl);
	tlc_var *i = tlc_var_new(m, "i", TLC_DT_INT32), *j = tlc_var_new(m, "j", TLC_DT_INT32);
	tlc_stmt *pj = tlc_for_new(m, noloc, j, I(0), I(64), TLC_FOR_PARALLEL, NULL);
	tlc_seq_append(m, body, tlc_for_new(m, noloc, i, I(2), I(8), TLC_FOR_PARALLEL, pj));
	tlc_seq_append(m, body, tlc_for_new(m, noloc, tlc_var_new(m, "v", TLC_DT_INT32), I(0), I(8), TLC_FOR_VECTORIZED, NULL));
	tlc_stmt *tb = tlc_for_new(m, noloc, tlc_var_new(m, "t", TLC_DT_INT32), I(0), I(128), TLC_FOR_THREAD, NULL);
	tb->u.loop.thread_dim = 1;
	tlc_seq_append(m, body, tb);
	tlc_stmt *at = tlc_attr_new(m, noloc, "key", I(1), NULL);
	tlc_seq_append(m, at->u.attr.body, tlc_store_new(m, noloc, acc, 1, (const tlc_expr *[]){I(0)},
	                                                 add(tlc_load(m, acc, 1, (const tlc_expr *[]){I(0)}), F(1.0))));
	tlc_seq_append(m, body, at);
	tlc_seq_append(m, body, tlc_if_new(m, noloc, bin(TLC_EXPR_LT, V(f->block_vars[0]), I(2)), NULL, NULL));
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_print_func(&b, m, f);
	is_str(tlc_buf_str(&b),
	       "@T.prim_func\n"
	       "def forms():\n"
	       "    with T.Kernel(8, 4, 2, threads=(128, 2)) as (bx, by, _):\n"
	       "        S = T.alloc_shared((128, 32), \"float16\", scope=\"shared\")\n"
	       "        r = T.alloc_local((8,), \"float32\")\n"
	       "        acc = T.alloc_var(\"float32\", init=0.0)\n"
	       "        bars = T.alloc_barrier([128, 128])\n"
	       "        G = T.alloc_buffer((64,), \"float32\", scope=\"global\")\n"
	       "        T_1 = T.alloc_fragment((4,), \"float32\")\n"
	       "        for k in T.Pipelined(1, 17, num_stages=3, order=[0, 1, 2], stage=[0, 0, 1], group=[[0], [1, 2]]):\n"
	       "            pass\n"
	       "        for i, j in T.Parallel((2, 10), 64):\n"
	       "            pass\n"
	       "        for v in T.vectorized(8):\n"
	       "            pass\n"
	       "        for t in T.thread_binding(128, thread=\"threadIdx.y\"):\n"
	       "            pass\n"
	       "        with T.attr(\"key\", 1):\n"
	       "            acc[0] = acc[0] + 1.0\n"
	       "        if bx < 2:\n"
	       "            pass\n",
	       "the other statement forms of doc/ir.md");
	tlc_buf_free(&b);
	tlc_module_free(m);
	m = saved;
}

/* ---- verifier ---- */

static void test_verify(void)
{
	tlc_buf sink;
	tlc_buf_init(&sink);
	tlc_diag_capture(ctx, &sink);
	uint32_t file = tlc_add_source(ctx, "k.py", "line one\n    C[q] = 1\n", 21);

	tlc_module *vm = tlc_module_new(ctx);
	tlc_module *saved = m;
	m = vm;
	tlc_buffer *C = tlc_buffer_new(m, "C", TLC_DT_INT32, TLC_SCOPE_GLOBAL, 2, (const tlc_expr *[]){I(8), I(8)}, noloc);
	tlc_func *f = tlc_func_new(m, "k", noloc);
	f->nparams = 1;
	f->params = tlc_alloc(m, sizeof(tlc_param));
	f->params[0] = (tlc_param){TLC_PARAM_TENSOR, C, NULL, false};
	f->grid[0] = I(1);
	f->threads[0] = I(32);
	tlc_var *q = tlc_var_new(m, "q", TLC_DT_INT32);
	tlc_loc at = {file, 2, 7};
	tlc_seq_append(m, f->body, tlc_store_new(m, at, C, 2, (const tlc_expr *[]){V(q), I(0)}, I(1)));
	tlc_module_add_func(m, f);
	ok(!tlc_verify_module(ctx, m, "test-pass"), "an unbound variable fails verification");
	is_str(tlc_buf_str(&sink),
	       "k.py:2:7: error: IR verification failed after pass 'test-pass': variable 'q' is used but not bound\n"
	       "    C[q] = 1\n"
	       "      ^\n",
	       "unbound variable message at the statement's location");

	/* bind q with a loop: fine; then index with one index */
	tlc_buf_free(&sink);
	f->body = tlc_seq_new(m, noloc);
	tlc_stmt *store = tlc_store_new(m, noloc, C, 2, (const tlc_expr *[]){V(q), I(0)}, I(1));
	tlc_seq_append(m, f->body, tlc_for_new(m, noloc, q, I(0), I(8), TLC_FOR_SERIAL, store));
	ok(tlc_verify_module(ctx, m, "test-pass"), "bound by a loop: verifies");
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, C, 1, (const tlc_expr *[]){I(0)}, I(1)));
	ok(!tlc_verify_module(ctx, m, NULL), "a wrong index count fails verification");
	is_str(tlc_buf_str(&sink), "tlc: error: IR verification failed: buffer 'C' has 2 dimensions but is indexed with 1\n",
	       "index count message");

	/* the loop variable is out of scope after the loop */
	tlc_buf_free(&sink);
	f->body->u.seq.n = 1;
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, C, 2, (const tlc_expr *[]){V(q), I(0)}, I(1)));
	ok(!tlc_verify_module(ctx, m, NULL), "a loop variable used after its loop");

	/* an undeclared buffer, a bad arity, a non-bool condition, a float extent */
	tlc_buf_free(&sink);
	f->body = tlc_seq_new(m, noloc);
	tlc_buffer *S = tlc_buffer_new(m, "S", TLC_DT_INT32, TLC_SCOPE_SHARED_DYN, 1, (const tlc_expr *[]){I(8)}, noloc);
	tlc_seq_append(m, f->body, tlc_eval_new(m, noloc, call("clear", 1, (const tlc_expr *[]){tlc_buf_ref(m, S)})));
	tlc_seq_append(m, f->body, tlc_alloc_new(m, noloc, S));
	tlc_seq_append(m, f->body, tlc_eval_new(m, noloc, call("copy", 1, (const tlc_expr *[]){tlc_buf_ref(m, S)})));
	tlc_seq_append(m, f->body, tlc_if_new(m, noloc, I(1), tlc_seq_new(m, noloc), NULL));
	tlc_seq_append(m, f->body, tlc_for_new(m, noloc, tlc_var_new(m, "t", TLC_DT_INT32), I(0), F(2.0),
	                                       TLC_FOR_SERIAL, NULL));
	tlc_seq_append(m, f->body, tlc_eval_new(m, noloc, call("clear", 1, (const tlc_expr *[]){tlc_buf_ref(m, S)})));
	ok(!tlc_verify_module(ctx, m, NULL), "four mistakes fail verification");
	is_str(tlc_buf_str(&sink),
	       "tlc: error: IR verification failed: buffer 'S' is used but not declared (no parameter or T.alloc_* in scope)\n"
	       "tlc: error: IR verification failed: T.copy takes 2 positional arguments, got 1\n"
	       "tlc: error: IR verification failed: if condition must be bool, not int32\n"
	       "tlc: error: IR verification failed: loop extent must be an integer, not float32\n",
	       "one message per mistake, use after the alloc is fine");

	/* the typing invariants: a store converts nothing */
	tlc_buf_free(&sink);
	f->body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, C, 2, (const tlc_expr *[]){I(0), I(0)}, F(1.5)));
	ok(!tlc_verify_module(ctx, m, "test-pass"), "a float32 value stored into an int32 buffer fails verification");
	is_str(tlc_buf_str(&sink),
	       "tlc: error: IR verification failed after pass 'test-pass': a float32 value stored into int32 buffer "
	       "'C' (an explicit T.cast is missing)\n",
	       "the store's message names both types");

	/* a bit cast keeps the width */
	tlc_buf_free(&sink);
	f->body = tlc_seq_new(m, noloc);
	const tlc_expr *h = tlc_float(m, TLC_DT_FLOAT16, 1.0);
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, C, 2, (const tlc_expr *[]){I(0), I(0)},
	                                         tlc_bitcast(m, TLC_DT_INT32, h)));
	ok(!tlc_verify_module(ctx, m, NULL), "a bit cast from 16 to 32 bits fails verification");
	is_str(tlc_buf_str(&sink),
	       "tlc: error: IR verification failed: T.reinterpret from float16 (16 bits) to int32 (32 bits): a bit "
	       "cast keeps the width; reinterpret as a type of 16 bits and convert that with T.cast\n",
	       "the bit cast's message names both types and widths");
	tlc_buf_free(&sink);
	f->body = tlc_seq_new(m, noloc);
	tlc_seq_append(m, f->body, tlc_store_new(m, noloc, C, 2, (const tlc_expr *[]){I(0), I(0)},
	                                         tlc_cast(m, TLC_DT_INT32, tlc_bitcast(m, TLC_DT_INT16, h))));
	ok(tlc_verify_module(ctx, m, NULL), "a bit cast of one width verifies");
	m = saved;
	tlc_module_free(vm);
	tlc_diag_capture(ctx, NULL);
	tlc_buf_free(&sink);
}

/* ---- the language's arithmetic (doc/language.md, "Arithmetic") ----
 * Constant folding computes what tlc-sim computes (core/arith.c); the
 * expected values are worked out from the definition by hand. */

static const tlc_expr *C(tlc_dtype t, int64_t v) { return tlc_int(m, t, v); }
static const tlc_expr *CF(tlc_dtype t, double v) { return tlc_float(m, t, v); }

static void test_arith(void)
{
	/* the type of two typed operands: TVM's PromoteBinaryOpType */
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_BFLOAT16, TLC_DT_FLOAT16) == TLC_DT_FLOAT16 &&
	   tlc_operand_type(TLC_EXPR_ADD, TLC_DT_FLOAT16, TLC_DT_BFLOAT16) == TLC_DT_FLOAT16,
	   "bfloat16 + float16 is float16, in either order");
	ok(tlc_operand_type(TLC_EXPR_MUL, TLC_DT_FLOAT8_E4M3, TLC_DT_FLOAT16) == TLC_DT_FLOAT16 &&
	   tlc_operand_type(TLC_EXPR_MUL, TLC_DT_BFLOAT16, TLC_DT_FLOAT8_E5M2) == TLC_DT_BFLOAT16 &&
	   tlc_operand_type(TLC_EXPR_MUL, TLC_DT_INT32, TLC_DT_FLOAT8_E5M2) == TLC_DT_FLOAT8_E5M2,
	   "IEEE floats beat bfloat16, which beats float8, which beats integers");
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_FLOAT8_E4M3, TLC_DT_FLOAT8_E5M2) == TLC_DT_VOID,
	   "two float8 formats have no common type");
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_FLOAT32, TLC_DT_FLOAT64) == TLC_DT_FLOAT64 &&
	   tlc_operand_type(TLC_EXPR_ADD, TLC_DT_INT64, TLC_DT_FLOAT16) == TLC_DT_FLOAT16,
	   "the wider IEEE float; an int with a float gives the float");
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_INT32, TLC_DT_UINT32) == TLC_DT_UINT32 &&
	   tlc_operand_type(TLC_EXPR_ADD, TLC_DT_UINT8, TLC_DT_INT16) == TLC_DT_INT16 &&
	   tlc_operand_type(TLC_EXPR_ADD, TLC_DT_INT8, TLC_DT_INT64) == TLC_DT_INT64,
	   "integers: the wider, unsigned when as wide");
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_BOOL, TLC_DT_BOOL) == TLC_DT_INT32 &&
	   tlc_operand_type(TLC_EXPR_BITAND, TLC_DT_BOOL, TLC_DT_BOOL) == TLC_DT_BOOL &&
	   tlc_operand_type(TLC_EXPR_LT, TLC_DT_BOOL, TLC_DT_INT8) == TLC_DT_INT8,
	   "two bools add as int32, stay bool in bitwise ops; bool with an int gives the int");
	ok(tlc_operand_type(TLC_EXPR_ADD, TLC_DT_BOOL, TLC_DT_INT8) == TLC_DT_INT8 &&
	   tlc_operand_type(TLC_EXPR_SUB, TLC_DT_UINT8, TLC_DT_BOOL) == TLC_DT_UINT8,
	   "a bool beside an int in arithmetic takes the int's type (int8 + True is an int8 sum)");

	/* integers wrap in 8 and 16 bits and in unsigned types */
	ok(S(add(C(TLC_DT_INT8, 100), C(TLC_DT_INT8, 100))) == C(TLC_DT_INT8, -56), "int8 100 + 100 == -56");
	ok(S(sub(C(TLC_DT_UINT8, 1), C(TLC_DT_UINT8, 2))) == C(TLC_DT_UINT8, 255), "uint8 1 - 2 == 255");
	ok(S(add(tlc_bool(m, true), tlc_bool(m, true))) == I(2), "True + True == 2 (int32)");
	ok(S(bin(TLC_EXPR_FLOORDIV, C(TLC_DT_INT8, -128), C(TLC_DT_INT8, -1))) == C(TLC_DT_INT8, -128),
	   "int8 -128 // -1 wraps to -128");
	ok(S(bin(TLC_EXPR_LT, C(TLC_DT_UINT64, -1), C(TLC_DT_UINT64, 1))) == tlc_bool(m, false) &&
	   S(bin(TLC_EXPR_MAX, C(TLC_DT_UINT64, -1), C(TLC_DT_UINT64, 1))) == C(TLC_DT_UINT64, -1),
	   "uint64 2^64 - 1 compares as unsigned");
	ok(S(bin(TLC_EXPR_SHL, C(TLC_DT_INT32, -1), C(TLC_DT_INT32, 31))) == C(TLC_DT_INT32, INT32_MIN),
	   "<< of a negative int32 is two's complement");
	ok(S(bin(TLC_EXPR_SHR, C(TLC_DT_INT8, -128), C(TLC_DT_INT8, 3))) == C(TLC_DT_INT8, -16),
	   ">> of a signed value is arithmetic");
	const tlc_expr *shift = bin(TLC_EXPR_SHL, C(TLC_DT_INT32, 1), C(TLC_DT_INT32, 32));
	ok(S(shift)->kind == TLC_EXPR_SHL, "a shift count out of range is not folded (an error at run time)");
	const tlc_expr *ovf = add(C(TLC_DT_INT64, INT64_MAX), C(TLC_DT_INT64, 1));
	ok(S(ovf)->kind == TLC_EXPR_ADD, "int64 overflow is not folded (an error at run time)");

	/* floats: rounded to their type after every step */
	ok(S(bin(TLC_EXPR_FLOORDIV, F(1.0), F(0.1))) == F(10.0), "float32 1.0 // 0.1 == 10 (1.0f / 0.1f rounds to 10)");
	ok(S(bin(TLC_EXPR_FLOORMOD, F(1.0), F(0.1))) == F((double)(1.0f - 10.0f * 0.1f)),
	   "float32 1.0 %% 0.1 == 1 - 10 * 0.1f, each step in float32");
	ok(S(add(CF(TLC_DT_FLOAT16, 2048), CF(TLC_DT_FLOAT16, 1))) == CF(TLC_DT_FLOAT16, 2048),
	   "float16 2048 + 1 rounds to 2048 (ties to even)");
	ok(S(mul(CF(TLC_DT_FLOAT8_E4M3, 256), CF(TLC_DT_FLOAT8_E4M3, 2))) == CF(TLC_DT_FLOAT8_E4M3, 448),
	   "float8_e4m3fn overflow saturates to 448");
	ok(S(mul(CF(TLC_DT_FLOAT16, 256), CF(TLC_DT_FLOAT16, 256)))->u.fval == INFINITY, "float16 overflow is inf");
	ok(S(bin(TLC_EXPR_MIN, F(NAN), F(1.0))) == F(1.0) && S(bin(TLC_EXPR_MAX, F(1.0), F(NAN))) == F(1.0),
	   "min/max of a NaN give the other operand");
	ok(signbit(S(bin(TLC_EXPR_MIN, F(0.0), F(-0.0)))->u.fval) && !signbit(S(bin(TLC_EXPR_MAX, F(-0.0), F(0.0)))->u.fval),
	   "min/max order -0 below +0");

	/* conversions */
	ok(tlc_cast(m, TLC_DT_INT8, CF(TLC_DT_FLOAT16, 200)) == C(TLC_DT_INT8, 127), "float16 200 -> int8 saturates to 127");
	ok(tlc_cast(m, TLC_DT_INT32, F(NAN)) == I(0) && tlc_cast(m, TLC_DT_UINT8, F(-3.5)) == C(TLC_DT_UINT8, 0),
	   "NaN -> 0, a negative float -> 0 for an unsigned type");
	ok(tlc_cast(m, TLC_DT_INT32, F(-2.75)) == I(-2), "float -> int truncates toward zero");
	ok(tlc_cast(m, TLC_DT_BOOL, F(NAN)) == tlc_bool(m, true), "NaN -> bool is True (x != 0)");
	ok(tlc_cast(m, TLC_DT_INT8, I(300)) == C(TLC_DT_INT8, 44), "int32 300 -> int8 wraps to 44");
	/* 2^24 + 2^16 + 1 rounds to 2^24 + 2^16 in float32 (a tie, to even),
	 * then to 2^24 in bfloat16 (a tie again): through float32, as defined */
	ok(tlc_cast(m, TLC_DT_BFLOAT16, I((1 << 24) + (1 << 16) + 1)) == CF(TLC_DT_BFLOAT16, 16777216.0),
	   "int -> bfloat16 rounds through float32");
	ok(tlc_cast(m, TLC_DT_FLOAT8_E5M2, F(INFINITY)) == CF(TLC_DT_FLOAT8_E5M2, 57344),
	   "inf -> float8_e5m2 saturates to 57344");
	ok(tlc_cast(m, TLC_DT_UINT64, F(1e30)) == C(TLC_DT_UINT64, -1), "1e30 -> uint64 saturates to 2^64 - 1");
}

/* ---- diagnostics ---- */

static void test_diag(void)
{
	tlc_context *c = tlc_context_new();
	tlc_buf sink;
	tlc_buf_init(&sink);
	tlc_diag_capture(c, &sink);
	const char *src = "def f():\n\tx = y\n";
	uint32_t file = tlc_add_source(c, "k.py", src, strlen(src));
	tlc_error(c, ((tlc_loc){file, 2, 6}), "name '%s' is not defined", "y");
	is_str(tlc_buf_str(&sink), "k.py:2:6: error: name 'y' is not defined\n\tx = y\n\t    ^\n",
	       "error with source line and caret (tabs kept)");
	is_int(tlc_error_count(c), 1, "one error counted");
	tlc_buf_free(&sink);
	tlc_warning(c, ((tlc_loc){file, 1, 1}), "unused %d", 3);
	is_str(tlc_buf_str(&sink), "k.py:1:1: warning: unused 3\ndef f():\n^\n", "warning");
	is_int(tlc_error_count(c), 1, "warnings are not errors");
	tlc_buf_free(&sink);
	tlc_diag_set_caret(c, false);
	tlc_note(c, ((tlc_loc){file, 2, 2}), "here");
	is_str(tlc_buf_str(&sink), "k.py:2:2: note: here\n", "note without caret");
	tlc_buf_free(&sink);
	tlc_error(c, noloc, "no input files");
	is_str(tlc_buf_str(&sink), "tlc: error: no input files\n", "error without location");
	tlc_buf_free(&sink);
	tlc_error(c, ((tlc_loc){file, 99, 1}), "past the end");
	is_str(tlc_buf_str(&sink), "k.py:99:1: error: past the end\n", "line past the end: no source line, no crash");
	tlc_buf_free(&sink);
	ok(!tlc_had_internal_error(c), "no internal error yet");
	tlc_internal_error(c, "layout-inference", "bad %s", "state");
	ok(tlc_had_internal_error(c), "internal error flag set");
	ok(strncmp(tlc_buf_str(&sink), "tlc: internal error in pass 'layout-inference': bad state\n", 58) == 0 &&
	   strstr(tlc_buf_str(&sink), "please report") != NULL, "internal error message names the pass");
	tlc_buf_free(&sink);

	tlc_buf b;
	tlc_buf_init(&b);
	is_str(tlc_buf_str(&b), "", "empty tlc_buf is \"\"");
	tlc_buf_printf(&b, "%d-%s", 42, "x");
	tlc_buf_indent(&b, 2);
	tlc_buf_putc(&b, '|');
	for (int i = 0; i < 1000; i++)
		tlc_buf_puts(&b, "0123456789");
	ok(b.len == 4 + 2 + 1 + 10000 && strncmp(tlc_buf_str(&b), "42-x  |0123", 11) == 0, "tlc_buf grows");
	tlc_buf_free(&b);

	ok(tlc_op_lookup(c, "gemm") == TLC_OP_GEMM && tlc_op_lookup(c, "nope") == -1, "op lookup");
	ok(tlc_op_get(c, TLC_OP_WS)->flags & 4 /* TLC_OPF_SCOPE */, "op flags from ops.def");
	ok(tlc_op_get(c, -1) == NULL && tlc_op_get(c, 100000) == NULL, "op_get out of range");
	tlc_context_free(c);
}

/* ---- arena ---- */

static void test_arena(void)
{
	tlc_module *am = tlc_module_new(ctx);
	bool zeroed = true, aligned = true;
	for (int i = 0; i < 100000; i++) {
		size_t n = (size_t)(i % 97) + 1;
		unsigned char *p = tlc_alloc(am, n);
		aligned &= ((uintptr_t)p & 7) == 0;
		for (size_t k = 0; k < n; k++)
			zeroed &= p[k] == 0;
		memset(p, 0xab, n);
	}
	unsigned char *big = tlc_alloc(am, 1 << 20);
	zeroed &= big[0] == 0 && big[(1 << 20) - 1] == 0;
	memset(big, 1, 1 << 20);
	ok(zeroed && aligned, "arena memory is zeroed and 8-byte aligned, big blocks included");
	const char *s = tlc_strdup(am, "hello");
	ok(strcmp(s, "hello") == 0, "tlc_strdup");
	tlc_var *v = tlc_var_new(am, "v", TLC_DT_INT32);
	const tlc_expr *e = tlc_var_ref(am, v);
	for (int i = 0; i < 50000; i++)
		e = tlc_binary(am, TLC_EXPR_ADD, e, tlc_i32(am, i % 13));
	ok(e != NULL, "deep expression built in a fresh module");
	tlc_module_free(am);
	ok(true, "module freed");
}

/* Dicts (the T.annotate_layout argument) print as {k: v} and stay dicts
 * through the simplifier, so printed IR re-parses after any pass. */
static void test_dict(void)
{
	const tlc_expr *s0[1] = {I(8)};
	tlc_buffer *a = tlc_buffer_new(m, "a", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 1, s0, noloc);
	tlc_buffer *b = tlc_buffer_new(m, "b", TLC_DT_FLOAT16, TLC_SCOPE_SHARED_DYN, 1, s0, noloc);
	const tlc_expr *keys[2] = {tlc_buf_ref(m, a), tlc_buf_ref(m, b)};
	const tlc_expr *vals[2] = {add(I(1), I(2)), I(4)};
	const tlc_expr *d = tlc_dict(m, 2, keys, vals);
	is_str(P(d), "{a: 1 + 2, b: 4}", "a dict prints with braces");
	const tlc_expr *ds = S(d);
	ok(ds->kind == TLC_EXPR_TUPLE && ds->u.tuple.is_dict, "simplify keeps a dict a dict");
	is_str(P(ds), "{a: 3, b: 4}", "and simplifies its values");
	ok(d != tlc_tuple(m, 2, d->u.tuple.items, false), "a dict differs from a tuple of pairs");
}

/* Index arithmetic never truncates a value to 32 bits (hardening issue:
 * A[i * 2**40 + 5] folded to A[5], A[i + 2**32] to A[i + 0]). */
static void test_wide_index_arith(void)
{
	tlc_var *i = tlc_var_new(m, "i", TLC_DT_INT32);
	const tlc_expr *t40 = tlc_int(m, TLC_DT_INT64, INT64_C(1) << 40);
	const tlc_expr *t32 = tlc_int(m, TLC_DT_INT64, INT64_C(1) << 32);
	int64_t lo, hi;
	ok(tlc_dtype_int_range(TLC_DT_INT32, &lo, &hi) && lo == INT32_MIN && hi == INT32_MAX, "int32 range");
	ok(tlc_dtype_int_range(TLC_DT_UINT8, &lo, &hi) && lo == 0 && hi == 255, "uint8 range");
	ok(!tlc_dtype_int_range(TLC_DT_FLOAT32, &lo, &hi), "float32 has no integer range");
	ok(add(V(i), t32)->dtype == TLC_DT_INT64, "int32 var + 2**32 is an int64 sum");
	ok(mul(V(i), t40)->dtype == TLC_DT_INT64, "int32 var * 2**40 is an int64 product");
	ok(add(V(i), tlc_int(m, TLC_DT_INT64, 5))->dtype == TLC_DT_INT32, "a small int64 constant adopts int32");
	is_str(P(S(add(mul(V(i), t40), I(5)))), "T.cast(i, \"int64\") * 1099511627776 + 5",
	       "i * 2**40 + 5 keeps 2**40 (an int64 product of the converted i)");
	is_str(P(S(add(V(i), t32))), "T.cast(i, \"int64\") + 4294967296", "i + 2**32 keeps 2**32");
	/* int32 arithmetic that overflows is the program's error (tlc-sim
	 * reports it): simplify neither wraps it nor widens it (a pass never
	 * changes a type); it stays as written */
	is_str(P(S(mul(mul(V(i), I(65536)), I(65536)))), "i * 65536 * 65536",
	       "(i * 65536) * 65536 keeps its int32 form");
	ok(S(mul(I(65536), I(65536))) == mul(I(65536), I(65536)), "65536 * 65536 in int32 is not folded");
	ok(S(sub(I(INT32_MIN), I(1)))->dtype == TLC_DT_INT32 && S(sub(I(INT32_MIN), I(1)))->kind == TLC_EXPR_SUB,
	   "INT32_MIN - 1 is not folded, and stays int32");
	ok(S(tlc_unary(m, TLC_EXPR_NEG, I(INT32_MIN)))->kind == TLC_EXPR_NEG, "-INT32_MIN is not folded");
	ok(S(mul(I(65536), I(32767))) == I(INT64_C(65536) * 32767), "an int32 product that fits folds");
	/* int64 overflow is never folded into a wrong constant */
	const tlc_expr *big = tlc_int(m, TLC_DT_INT64, INT64_MAX);
	const tlc_expr *ovf = add(big, tlc_int(m, TLC_DT_INT64, 1));
	ok(S(ovf) == ovf, "INT64_MAX + 1 is left alone");
	const tlc_expr *ovm = mul(mul(V(i), t40), t40);
	ok(S(ovm)->kind == TLC_EXPR_MUL && S(ovm) != mul(V(i), tlc_int(m, TLC_DT_INT64, 0)),
	   "i * 2**40 * 2**40 is not folded to i * 0");
	/* (x // a) // c merges only when a * c fits */
	is_str(P(S(bin(TLC_EXPR_FLOORDIV, bin(TLC_EXPR_FLOORDIV, V(i), I(65536)), I(65536)))), "i // 65536 // 65536",
	       "(i // 2**16) // 2**16 does not fold to i // 0");
	is_str(P(S(bin(TLC_EXPR_FLOORDIV, bin(TLC_EXPR_FLOORDIV, V(i), I(64)), I(64)))), "i // 4096",
	       "(i // 64) // 64 == i // 4096");
	/* unsigned arithmetic stays modular */
	ok(S(add(tlc_int(m, TLC_DT_UINT32, 0xffffffffLL), tlc_int(m, TLC_DT_UINT32, 1))) == tlc_int(m, TLC_DT_UINT32, 0),
	   "uint32 folding is modular");
	/* the flattened offset of a large buffer is 64-bit */
	const tlc_expr *sh_small[2] = {I(1024), I(1024)}, *sh_big[2] = {I(65536), I(65536)}, *sh_dyn[2] = {I(4), V(i)};
	tlc_buffer *small = tlc_buffer_new(m, "S", TLC_DT_FLOAT16, TLC_SCOPE_GLOBAL, 2, sh_small, (tlc_loc){0});
	tlc_buffer *large = tlc_buffer_new(m, "L", TLC_DT_FLOAT16, TLC_SCOPE_GLOBAL, 2, sh_big, (tlc_loc){0});
	tlc_buffer *dyn = tlc_buffer_new(m, "D", TLC_DT_FLOAT16, TLC_SCOPE_GLOBAL, 2, sh_dyn, (tlc_loc){0});
	int64_t n;
	ok(tlc_buffer_numel(large, &n) && n == INT64_C(1) << 32, "numel of 65536 x 65536");
	ok(tlc_buffer_bytes(large, &n) && n == INT64_C(1) << 33, "bytes of 65536 x 65536 float16");
	ok(!tlc_buffer_numel(dyn, &n), "a runtime extent has no constant numel");
	ok(tlc_buffer_index_dtype(small) == TLC_DT_INT32, "1024 x 1024 indexes in int32");
	ok(tlc_buffer_index_dtype(large) == TLC_DT_INT64, "65536 x 65536 indexes in int64");
	ok(tlc_buffer_index_dtype(dyn) == TLC_DT_INT64, "a runtime-sized buffer indexes in int64");
}

/* ---- interval bounds ---- */

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); }
static int64_t floor_mod2(int64_t a) { return a - floor_div(a, 2) * 2; }

/* A variable held at one value gives its expressions one value, mod
 * included (lower-tile-ops reads a register index at each register so); a
 * wider range keeps the safe [0, b) of a mod. */
static void test_bounds(void)
{
	tlc_var *r = tlc_var_new(m, "r", TLC_DT_INT32);
	const tlc_expr *hi64 = mul(bin(TLC_EXPR_FLOORDIV, V(r), I(64)), I(64));
	const tlc_expr *bit1 = mul(bin(TLC_EXPR_FLOORMOD, bin(TLC_EXPR_FLOORDIV, V(r), I(2)), I(2)), I(2));
	const tlc_expr *reg = add(add(hi64, bin(TLC_EXPR_FLOORMOD, V(r), I(2))), bit1);
	tlc_ranges at = {0};
	tlc_ranges_push(&at, r, 0, 0);
	bool good = true;
	for (int64_t v = -70; v < 140; v++) {
		int64_t lo, hi;
		int64_t want = floor_div(v, 64) * 64 + floor_mod2(v) + floor_mod2(floor_div(v, 2)) * 2;
		at.items[0].lo = at.items[0].hi = v;
		good = good && tlc_expr_bounds(&at, reg, &lo, &hi) && lo == want && hi == want;
	}
	ok(good, "bounds at one value of r: the value of r // 64 * 64 + r %% 2 + r // 2 %% 2 * 2 "
	         "(negative r too)");
	int64_t lo, hi;
	at.items[0].lo = 3, at.items[0].hi = 5;
	ok(tlc_expr_bounds(&at, bin(TLC_EXPR_FLOORMOD, V(r), I(4)), &lo, &hi) && lo == 0 && hi == 3,
	   "r in [3, 5]: r %% 4 in [0, 3]");
	tlc_ranges_free(&at);
}

int main(void)
{
	ctx = tlc_context_new();
	m = tlc_module_new(ctx);
	test_hashcons();
	test_dtypes();
	test_simplify();
	test_wide_index_arith();
	test_simplify_random();
	test_print_expr();
	test_print_kernel();
	test_print_forms();
	test_dict();
	test_verify();
	test_arith();
	test_diag();
	test_arena();
	test_bounds();
	tlc_module_free(m);
	tlc_context_free(ctx);
	return done_testing();
}
