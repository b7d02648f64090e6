/* layout_eval.c - the numeric side of layouts: index expressions compiled
 * to a small stack machine (layouts are checked and inverted by enumerating
 * every point, so evaluation must be cheap), interval bounds and variable
 * substitution. */
#include "layout_priv.h"

#include <stdlib.h>

enum {
	LP_CONST, LP_VAR, LP_ADD, LP_SUB, LP_MUL, LP_FDIV, LP_FMOD, LP_MIN, LP_MAX,
	LP_AND, LP_OR, LP_XOR, LP_SHL, LP_SHR, LP_NEG,
	LP_EQ, LP_NE, LP_LT, LP_LE, LP_GT, LP_GE, LP_SELECT,
	/* top = top <op> imm: a constant right operand fused into its operator */
	LP_ADDI, LP_MULI, LP_SHRI, LP_ANDI, LP_DIVI, LP_MODI,
};

#define LPROG_MAX_STACK 64

typedef struct lp_builder {
	tlc_module *m;
	int n, cap, depth, max_depth;
	lprog_op *code;
	int nvars;
	tlc_var *const *vars;
	const char *why;
} lp_builder;

static void emit(lp_builder *b, int op, int64_t imm, int depth_change)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->code = tlc_xrealloc(b->code, sizeof(lprog_op) * (size_t)b->cap);
	}
	b->code[b->n].op = op;
	b->code[b->n].imm = imm;
	b->n++;
	b->depth += depth_change;
	if (b->depth > b->max_depth)
		b->max_depth = b->depth;
}

static int binary_opcode(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: return LP_ADD;
	case TLC_EXPR_SUB: return LP_SUB;
	case TLC_EXPR_MUL: return LP_MUL;
	case TLC_EXPR_FLOORDIV: return LP_FDIV;
	case TLC_EXPR_FLOORMOD: return LP_FMOD;
	case TLC_EXPR_MIN: return LP_MIN;
	case TLC_EXPR_MAX: return LP_MAX;
	case TLC_EXPR_BITAND: case TLC_EXPR_AND: return LP_AND;
	case TLC_EXPR_BITOR: case TLC_EXPR_OR: return LP_OR;
	case TLC_EXPR_BITXOR: return LP_XOR;
	case TLC_EXPR_SHL: return LP_SHL;
	case TLC_EXPR_SHR: return LP_SHR;
	case TLC_EXPR_EQ: return LP_EQ;
	case TLC_EXPR_NE: return LP_NE;
	case TLC_EXPR_LT: return LP_LT;
	case TLC_EXPR_LE: return LP_LE;
	case TLC_EXPR_GT: return LP_GT;
	case TLC_EXPR_GE: return LP_GE;
	default: return -1;
	}
}

/* The right operand just emitted is a constant: fold it into the operator
 * (floordiv / floormod by a power of two become a shift / a mask, exact
 * for negative values too). */
static bool fuse_constant(lp_builder *b, int op)
{
	if (b->n == 0 || b->code[b->n - 1].op != LP_CONST)
		return false;
	lprog_op *last = &b->code[b->n - 1];
	int64_t c = last->imm;
	bool pow2 = c > 0 && (c & (c - 1)) == 0;
	switch (op) {
	case LP_ADD: last->op = LP_ADDI; break;
	case LP_SUB:
		if (c == INT64_MIN)
			return false;
		last->op = LP_ADDI;
		last->imm = -c;
		break;
	case LP_MUL: last->op = LP_MULI; break;
	case LP_FDIV:
		if (c <= 0)
			return false;
		last->op = pow2 ? LP_SHRI : LP_DIVI;
		last->imm = pow2 ? __builtin_ctzll((unsigned long long)c) : c;
		break;
	case LP_FMOD:
		if (c <= 0)
			return false;
		last->op = pow2 ? LP_ANDI : LP_MODI;
		last->imm = pow2 ? c - 1 : c;
		break;
	default: return false;
	}
	b->depth--;
	return true;
}

static bool compile_rec(lp_builder *b, const tlc_expr *e)
{
	switch (e->kind) {
	case TLC_EXPR_INT: emit(b, LP_CONST, e->u.ival, 1); return true;
	case TLC_EXPR_VAR:
		for (int k = 0; k < b->nvars; k++)
			if (b->vars[k] == e->u.var) {
				emit(b, LP_VAR, k, 1);
				return true;
			}
		b->why = "the layout function uses a variable that is not one of its parameters";
		return false;
	case TLC_EXPR_CAST:
		if (!tlc_dtype_is_int(e->dtype) && e->dtype != TLC_DT_BOOL)
			break;
		return compile_rec(b, e->u.op.a);
	case TLC_EXPR_NEG:
		if (!compile_rec(b, e->u.op.a))
			return false;
		emit(b, LP_NEG, 0, 0);
		return true;
	case TLC_EXPR_NOT:
		if (!compile_rec(b, e->u.op.a))
			return false;
		emit(b, LP_CONST, 0, 1);
		emit(b, LP_EQ, 0, -1);
		return true;
	case TLC_EXPR_SELECT:
		if (!compile_rec(b, e->u.op.a) || !compile_rec(b, e->u.op.b) || !compile_rec(b, e->u.op.c))
			return false;
		emit(b, LP_SELECT, 0, -2);
		return true;
	default: {
		int op = binary_opcode(e->kind);
		if (op < 0)
			break;
		if (!compile_rec(b, e->u.op.a) || !compile_rec(b, e->u.op.b))
			return false;
		if (fuse_constant(b, op))
			return true;
		emit(b, op, 0, -1);
		return true;
	}
	}
	b->why = "the layout function is not integer index arithmetic (+, -, *, //, %, min, max, bit operations)";
	return false;
}

bool lprog_compile(tlc_module *m, const tlc_expr *e, int nvars, tlc_var *const *vars, lprog *out,
                   const char **why)
{
	lp_builder b = {.m = m, .nvars = nvars, .vars = vars};
	bool good = e && compile_rec(&b, e);
	if (good && b.max_depth > LPROG_MAX_STACK) {
		b.why = "the layout function is too deeply nested";
		good = false;
	}
	if (good) {
		lprog_op *code = tlc_alloc(m, sizeof(lprog_op) * (size_t)(b.n + 1));
		for (int i = 0; i < b.n; i++)
			code[i] = b.code[i];
		out->n = b.n;
		out->code = code;
	} else if (why) {
		*why = b.why ? b.why : "no expression";
	}
	free(b.code);
	return good;
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floormod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

bool lprog_eval(const lprog *p, const int64_t *vals, int64_t *out)
{
	int64_t st[LPROG_MAX_STACK + 1];
	int sp = 0;
	for (int i = 0; i < p->n; i++) {
		const lprog_op *o = &p->code[i];
		if (o->op == LP_CONST) {
			st[sp++] = o->imm;
			continue;
		}
		if (o->op == LP_VAR) {
			st[sp++] = vals[o->imm];
			continue;
		}
		if (o->op >= LP_ADDI) {
			int64_t x = st[sp - 1], c = o->imm;
			switch (o->op) {
			case LP_ADDI: x = (int64_t)((uint64_t)x + (uint64_t)c); break;
			case LP_MULI: x = (int64_t)((uint64_t)x * (uint64_t)c); break;
			case LP_SHRI: x >>= c; break;
			case LP_ANDI: x &= c; break;
			case LP_DIVI: x = floordiv(x, c); break;
			default: x = floormod(x, c); break;
			}
			st[sp - 1] = x;
			continue;
		}
		if (o->op == LP_NEG) {
			st[sp - 1] = (int64_t)(0 - (uint64_t)st[sp - 1]);
			continue;
		}
		if (o->op == LP_SELECT) {
			sp -= 2;
			st[sp - 1] = st[sp - 1] ? st[sp] : st[sp + 1];
			continue;
		}
		int64_t y = st[--sp], x = st[sp - 1], r;
		switch (o->op) {
		case LP_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
		case LP_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
		case LP_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
		case LP_FDIV:
		case LP_FMOD:
			if (y == 0 || (x == INT64_MIN && y == -1))
				return false;
			r = o->op == LP_FDIV ? floordiv(x, y) : floormod(x, y);
			break;
		case LP_MIN: r = x < y ? x : y; break;
		case LP_MAX: r = x > y ? x : y; break;
		case LP_AND: r = x & y; break;
		case LP_OR: r = x | y; break;
		case LP_XOR: r = x ^ y; break;
		case LP_SHL:
			if (y < 0 || y > 62)
				return false;
			r = (int64_t)((uint64_t)x << y);
			break;
		case LP_SHR:
			if (y < 0 || y > 63)
				return false;
			r = x >> y;
			break;
		case LP_EQ: r = x == y; break;
		case LP_NE: r = x != y; break;
		case LP_LT: r = x < y; break;
		case LP_LE: r = x <= y; break;
		case LP_GT: r = x > y; break;
		case LP_GE: r = x >= y; break;
		default: return false;
		}
		st[sp - 1] = r;
	}
	if (sp != 1)
		return false;
	*out = st[0];
	return true;
}

/* ---- interval bounds ---- */

#define BOUND_LIMIT ((int64_t)1 << 40)

static bool in_limit(int64_t v) { return v > -BOUND_LIMIT && v < BOUND_LIMIT; }

/* Smallest 2^k - 1 >= v (v >= 0). */
static int64_t ones_above(int64_t v)
{
	int64_t r = 0;
	while (r < v)
		r = r * 2 + 1;
	return r;
}

static bool bounds_rec(const tlc_expr *e, int nvars, tlc_var *const *vars, const int64_t *lo, const int64_t *hi,
                       int64_t *mn, int64_t *mx)
{
	int64_t a0, a1, b0, b1, c;
	switch (e->kind) {
	case TLC_EXPR_INT: *mn = *mx = e->u.ival; return in_limit(e->u.ival);
	case TLC_EXPR_VAR:
		for (int k = 0; k < nvars; k++)
			if (vars[k] == e->u.var) {
				*mn = lo[k];
				*mx = hi[k];
				return true;
			}
		return false;
	case TLC_EXPR_CAST: return bounds_rec(e->u.op.a, nvars, vars, lo, hi, mn, mx);
	case TLC_EXPR_NEG:
		if (!bounds_rec(e->u.op.a, nvars, vars, lo, hi, &a0, &a1))
			return false;
		*mn = -a1;
		*mx = -a0;
		return true;
	case TLC_EXPR_SELECT:
		if (!bounds_rec(e->u.op.b, nvars, vars, lo, hi, &a0, &a1) ||
		    !bounds_rec(e->u.op.c, nvars, vars, lo, hi, &b0, &b1))
			return false;
		*mn = a0 < b0 ? a0 : b0;
		*mx = a1 > b1 ? a1 : b1;
		return true;
	default: break;
	}
	if (binary_opcode(e->kind) < 0 || !bounds_rec(e->u.op.a, nvars, vars, lo, hi, &a0, &a1) ||
	    !bounds_rec(e->u.op.b, nvars, vars, lo, hi, &b0, &b1))
		return false;
	bool bconst = b0 == b1;
	c = b0;
	switch (e->kind) {
	case TLC_EXPR_ADD: *mn = a0 + b0; *mx = a1 + b1; break;
	case TLC_EXPR_SUB: *mn = a0 - b1; *mx = a1 - b0; break;
	case TLC_EXPR_MUL: {
		int64_t p[4];
		if (__builtin_mul_overflow(a0, b0, &p[0]) || __builtin_mul_overflow(a0, b1, &p[1]) ||
		    __builtin_mul_overflow(a1, b0, &p[2]) || __builtin_mul_overflow(a1, b1, &p[3]))
			return false;
		*mn = *mx = p[0];
		for (int i = 1; i < 4; i++) {
			*mn = p[i] < *mn ? p[i] : *mn;
			*mx = p[i] > *mx ? p[i] : *mx;
		}
		break;
	}
	case TLC_EXPR_FLOORDIV:
		if (!bconst || c <= 0)
			return false;
		*mn = floordiv(a0, c);
		*mx = floordiv(a1, c);
		break;
	case TLC_EXPR_FLOORMOD:
		if (!bconst || c <= 0)
			return false;
		if (floordiv(a0, c) == floordiv(a1, c)) {
			*mn = floormod(a0, c);
			*mx = floormod(a1, c);
		} else {
			*mn = 0;
			*mx = c - 1;
		}
		break;
	case TLC_EXPR_MIN: *mn = a0 < b0 ? a0 : b0; *mx = a1 < b1 ? a1 : b1; break;
	case TLC_EXPR_MAX: *mn = a0 > b0 ? a0 : b0; *mx = a1 > b1 ? a1 : b1; break;
	case TLC_EXPR_BITAND:
		if (a0 < 0 || b0 < 0)
			return false;
		*mn = 0;
		*mx = a1 < b1 ? a1 : b1;
		break;
	case TLC_EXPR_BITOR:
	case TLC_EXPR_BITXOR:
		if (a0 < 0 || b0 < 0)
			return false;
		*mn = 0;
		*mx = ones_above(a1 > b1 ? a1 : b1);
		break;
	case TLC_EXPR_SHL:
		if (!bconst || c < 0 || c > 30)
			return false;
		*mn = a0 * ((int64_t)1 << c);
		*mx = a1 * ((int64_t)1 << c);
		break;
	case TLC_EXPR_SHR:
		if (!bconst || c < 0 || c > 62)
			return false;
		*mn = a0 >> c;
		*mx = a1 >> c;
		break;
	default: /* comparisons and logic */
		*mn = 0;
		*mx = 1;
		break;
	}
	return in_limit(*mn) && in_limit(*mx);
}

bool layout_bounds(const tlc_expr *e, int nvars, tlc_var *const *vars, const int64_t *lo, const int64_t *hi,
                   int64_t *emin, int64_t *emax)
{
	for (int k = 0; k < nvars; k++)
		if (!in_limit(lo[k]) || !in_limit(hi[k]))
			return false;
	return e && bounds_rec(e, nvars, vars, lo, hi, emin, emax);
}

/* ---- substitution ---- */

const tlc_expr *layout_subst(tlc_module *m, const tlc_expr *e, int nvars, tlc_var *const *vars,
                             const tlc_expr *const *with)
{
	switch (e->kind) {
	case TLC_EXPR_VAR:
		for (int k = 0; k < nvars; k++)
			if (vars[k] == e->u.var)
				return with[k];
		return e;
	case TLC_EXPR_CAST: return tlc_cast(m, e->dtype, layout_subst(m, e->u.op.a, nvars, vars, with));
	case TLC_EXPR_NEG:
	case TLC_EXPR_NOT: return tlc_unary(m, e->kind, layout_subst(m, e->u.op.a, nvars, vars, with));
	case TLC_EXPR_SELECT:
		return tlc_select(m, layout_subst(m, e->u.op.a, nvars, vars, with),
		                  layout_subst(m, e->u.op.b, nvars, vars, with),
		                  layout_subst(m, e->u.op.c, nvars, vars, with));
	case TLC_EXPR_TUPLE: {
		const tlc_expr **items = tlc_alloc(m, sizeof(tlc_expr *) * (size_t)(e->u.tuple.n + 1));
		for (int i = 0; i < e->u.tuple.n; i++)
			items[i] = layout_subst(m, e->u.tuple.items[i], nvars, vars, with);
		return tlc_tuple(m, e->u.tuple.n, items, e->u.tuple.is_list);
	}
	default:
		if (binary_opcode(e->kind) >= 0 || e->kind == TLC_EXPR_DIV)
			return tlc_binary(m, e->kind, layout_subst(m, e->u.op.a, nvars, vars, with),
			                  layout_subst(m, e->u.op.b, nvars, vars, with));
		return e;
	}
}
