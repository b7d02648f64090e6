/* frontend_eval.c - expressions of the compile-time evaluator: names,
 * operators (Python semantics on compile-time values, IR on symbolic ones),
 * subscripts of buffers (loads and regions), comprehensions and calls. */
#include "frontend.h"

#include <math.h>
#include <string.h>

bool fe_enter(fe *F, tlc_loc loc)
{
	if (F->depth >= FE_MAX_DEPTH) {
		tlc_error(F->ctx, loc, "compile-time evaluation nests too deeply (recursion?)");
		return false;
	}
	F->depth++;
	return true;
}

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
	if (overflow) {
		tlc_error(F->ctx, loc, "integer overflow in compile-time arithmetic");
		return NULL;
	}
	return fe_int(F, r);
}

static int64_t floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

/* Python arithmetic on two compile-time numbers. */
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
			if (x == INT64_MIN && y == -1)
				return int_result(F, true, 0, loc);
			return fe_int(F, op == PY_OP_FLOORDIV ? floordiv64(x, y) : x - floordiv64(x, y) * y);
		case PY_OP_POW:
			if (y >= 0) {
				int64_t p = 1;
				for (int64_t i = 0; i < y; i++)
					if (__builtin_mul_overflow(p, x, &p) || i > 64) {
						bool o = !(x == 0 || x == 1 || x == -1);
						return int_result(F, o, p, loc);
					}
				return fe_int(F, p);
			}
			return fe_float(F, pow((double)x, (double)y));
		case PY_OP_LSHIFT:
		case PY_OP_RSHIFT:
			if (y < 0 || y > 62) {
				tlc_error(F->ctx, loc, "shift count %lld out of range", (long long)y);
				return NULL;
			}
			if (op == PY_OP_RSHIFT)
				return fe_int(F, x >> y);
			if (x > (INT64_MAX >> y) || x < (INT64_MIN >> y))
				return int_result(F, true, 0, loc);
			return fe_int(F, (int64_t)((uint64_t)x << y));
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
		return fe_float(F, op == PY_OP_FLOORDIV ? floor(x / y) : x - floor(x / y) * y);
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

static fe_val *seq_concat(fe *F, fe_val *a, fe_val *b)
{
	fe_val *r = fe_seq(F, a->kind, 0);
	for (int i = 0; i < a->u.seq.n; i++)
		fe_seq_push(F, r, a->u.seq.items[i]);
	for (int i = 0; i < b->u.seq.n; i++)
		fe_seq_push(F, r, b->u.seq.items[i]);
	return r;
}

static fe_val *seq_repeat(fe *F, fe_val *a, int64_t k, tlc_loc loc)
{
	if (k > 0 && (int64_t)a->u.seq.n * k > FE_MAX_ITEMS) {
		tlc_error(F->ctx, loc, "sequence too long for compile-time evaluation");
		return NULL;
	}
	fe_val *r = fe_seq(F, a->kind, 0);
	for (int64_t j = 0; j < k; j++)
		for (int i = 0; i < a->u.seq.n; i++)
			fe_seq_push(F, r, a->u.seq.items[i]);
	return r;
}

fe_val *fe_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
	if (is_num(a) && is_num(b))
		return num_binop(F, op, a, b, loc);
	if (fe_is_symbolic(a) || fe_is_symbolic(b)) {
		const tlc_expr *x = fe_to_scalar(F, a, loc);
		const tlc_expr *y = x ? fe_to_scalar(F, b, loc) : NULL;
		if (!y)
			return NULL;
		if (op == PY_OP_POW) {
			const tlc_expr *args[2] = {x, y};
			return fe_expr(F, tlc_call(F->m, TLC_OP_POW, x->dtype, 2, args, 0, NULL, NULL));
		}
		tlc_expr_kind k = ir_binop_kind(op);
		if (k == TLC_EXPR_COUNT) {
			tlc_error(F->ctx, loc, "operator '%s' is not supported on kernel values",
			          op_text(op));
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
	if (op == PY_OP_ADD && a->kind == FV_STR && b->kind == FV_STR) {
		size_t la = strlen(a->u.s), lb = strlen(b->u.s);
		char *s = tlc_arena_alloc(F->arena, la + lb + 1);
		memcpy(s, a->u.s, la);
		memcpy(s + la, b->u.s, lb + 1);
		fe_val *r = fe_new(F, FV_STR);
		r->u.s = s;
		return r;
	}
	if (op == PY_OP_ADD && a->kind == b->kind && (a->kind == FV_TUPLE || a->kind == FV_LIST))
		return seq_concat(F, a, b);
	if (op == PY_OP_MUL && (a->kind == FV_TUPLE || a->kind == FV_LIST) && b->kind == FV_INT)
		return seq_repeat(F, a, b->u.i, loc);
	if (op == PY_OP_MUL && (b->kind == FV_TUPLE || b->kind == FV_LIST) && a->kind == FV_INT)
		return seq_repeat(F, b, a->u.i, loc);
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
	tlc_error(F->ctx, loc, "unsupported operand types for %s: '%s' and '%s'", op_text(op),
	          fe_kind_name(a), fe_kind_name(b));
	return NULL;
}

static fe_val *unaryop(fe *F, py_op op, fe_val *a, tlc_loc loc)
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
		if (op == PY_OP_INVERT)
			return fe_expr(F, tlc_binary(F->m, TLC_EXPR_BITXOR, x, tlc_int(F->m, x->dtype, -1)));
		/* fold negated constants: -T.infinity(...) is the constant -inf */
		if (x->kind == TLC_EXPR_FLOAT)
			return fe_expr(F, tlc_float(F->m, x->dtype, -x->u.fval));
		if (x->kind == TLC_EXPR_INT && x->u.ival != INT64_MIN)
			return fe_expr(F, tlc_int(F->m, x->dtype, -x->u.ival));
		return fe_expr(F, tlc_unary(F->m, TLC_EXPR_NEG, x));
	}
	if (a->kind == FV_HOST)
		return a;
	tlc_error(F->ctx, loc, "bad operand type for unary operator: '%s'", fe_kind_name(a));
	return NULL;
}

static fe_val *compare2(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
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
			for (int i = 0; i < b->u.seq.n && !found; i++)
				found = fe_equal(a, b->u.seq.items[i]);
		} else if (b->kind == FV_DICT) {
			found = fe_dict_get(b, a) != NULL;
		} else if (b->kind == FV_STR && a->kind == FV_STR) {
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
		bool eq = fe_equal(a, b);
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
	} else {
		tlc_error(F->ctx, loc, "'%s' not supported between '%s' and '%s'", op_text(op),
		          fe_kind_name(a), fe_kind_name(b));
		return NULL;
	}
	bool r = op == PY_OP_LT ? c < 0 : op == PY_OP_LE ? c <= 0 : op == PY_OP_GT ? c > 0 : c >= 0;
	return fe_bool(F, r);
}

static fe_val *eval_compare(fe *F, fe_env *env, py_node *n)
{
	fe_val *left = fe_eval(F, env, n->list[0]);
	fe_val *acc = NULL;
	for (int i = 1; left && i < n->n; i++) {
		fe_val *right = fe_eval(F, env, n->list[i]);
		if (!right)
			return NULL;
		fe_val *r = compare2(F, n->ops[i - 1], left, right, n->loc);
		if (!r)
			return NULL;
		if (!acc) {
			acc = r;
		} else if (fe_is_symbolic(acc) || fe_is_symbolic(r)) {
			acc = fe_binop(F, PY_OP_AND, acc, r, n->loc);
			if (!acc)
				return NULL;
		} else {
			bool t;
			if (!fe_truthy(F, acc, n->loc, &t))
				return NULL;
			acc = t ? r : acc;
		}
		if (acc->kind == FV_BOOL && !acc->u.b)
			return acc;
		left = right;
	}
	return acc;
}

static fe_val *eval_boolop(fe *F, fe_env *env, py_node *n)
{
	bool is_and = n->op == PY_OP_AND;
	fe_val *sym = NULL; /* the symbolic part so far */
	for (int i = 0; i < n->n; i++) {
		fe_val *v = fe_eval(F, env, n->list[i]);
		if (!v)
			return NULL;
		if (fe_is_symbolic(v)) {
			sym = sym ? fe_binop(F, n->op, sym, v, n->loc) : v;
			if (!sym)
				return NULL;
			continue;
		}
		bool t;
		if (!fe_truthy(F, v, n->loc, &t))
			return NULL;
		if (t != is_and) /* decides the result: False for and, True for or */
			return sym ? fe_bool(F, t) : v;
		if (i == n->n - 1 && !sym)
			return v;
	}
	return sym;
}

/* Index `seq` with a compile-time integer, Python style (negative from the end). */
static fe_val *seq_index(fe *F, fe_val *seq, fe_val *idx, tlc_loc loc)
{
	int64_t i;
	if (!fe_as_int(idx, &i)) {
		tlc_error(F->ctx, loc, "%s index must be a compile-time integer, got %s",
		          fe_kind_name(seq), fe_kind_name(idx));
		return NULL;
	}
	int64_t len = seq->kind == FV_STR ? (int64_t)strlen(seq->u.s) : seq->u.seq.n;
	if (i < 0)
		i += len;
	if (i < 0 || i >= len) {
		tlc_error(F->ctx, loc, "%s index out of range", fe_kind_name(seq));
		return NULL;
	}
	if (seq->kind == FV_STR) {
		char s[2] = {seq->u.s[i], 0};
		return fe_str(F, s);
	}
	return seq->u.seq.items[i];
}

fe_val *fe_subscript(fe *F, fe_val *v, fe_val *idx, tlc_loc loc)
{
	switch (v->kind) {
	case FV_TUPLE:
	case FV_LIST:
	case FV_STR:
		return seq_index(F, v, idx, loc);
	case FV_DICT: {
		fe_val *r = fe_dict_get(v, idx);
		if (!r)
			tlc_error(F->ctx, loc, "key %s not found in dict", fe_show(F, idx));
		return r;
	}
	case FV_HOST:
		return v;
	default:
		tlc_error(F->ctx, loc, "a %s cannot be subscripted", fe_kind_name(v));
		return NULL;
	}
}

static fe_val *seq_slice(fe *F, fe_env *env, fe_val *seq, py_node *sl)
{
	int64_t len = seq->u.seq.n, b = 0, e = len, st = 1;
	py_node *parts[3] = {sl->a, sl->b, sl->c};
	int64_t *outs[3] = {&b, &e, &st};
	for (int k = 0; k < 3; k++) {
		if (!parts[k])
			continue;
		fe_val *x = fe_eval(F, env, parts[k]);
		if (!x)
			return NULL;
		if (x->kind == FV_NONE)
			continue;
		if (!fe_as_int(x, outs[k])) {
			tlc_error(F->ctx, parts[k]->loc, "slice bounds must be compile-time integers");
			return NULL;
		}
	}
	if (st != 1) {
		tlc_error(F->ctx, sl->loc, "slices with a step are not supported");
		return NULL;
	}
	if (b < 0)
		b += len;
	if (e < 0)
		e += len;
	b = b < 0 ? 0 : b > len ? len : b;
	e = e < b ? b : e > len ? len : e;
	fe_val *r = fe_seq(F, seq->kind, 0);
	for (int64_t i = b; i < e; i++)
		fe_seq_push(F, r, seq->u.seq.items[i]);
	return r;
}

/* buf[i, j] -> LOAD; buf[a:b, i, :] -> REGION (extents simplified). */
static fe_val *index_buffer(fe *F, fe_env *env, tlc_buffer *buf, py_node *idx, tlc_loc loc)
{
	int n = idx->kind == PY_TUPLE ? idx->n : 1;
	py_node **items = idx->kind == PY_TUPLE ? idx->list : &idx;
	if (n != buf->ndim) {
		tlc_error(F->ctx, loc, "buffer '%s' has %d dimension%s, indexed with %d", buf->name,
		          buf->ndim, buf->ndim == 1 ? "" : "s", n);
		return NULL;
	}
	tlc_range *dims = tlc_arena_alloc(F->arena, sizeof(tlc_range) * (size_t)n);
	const tlc_expr **pts = tlc_arena_alloc(F->arena, sizeof(tlc_expr *) * (size_t)n);
	bool any_slice = false;
	for (int d = 0; d < n; d++) {
		py_node *it = items[d];
		if (it->kind != PY_SLICE) {
			fe_val *x = fe_eval(F, env, it);
			if (!x || !(pts[d] = fe_to_scalar(F, x, it->loc)))
				return NULL;
			dims[d].begin = pts[d];
			dims[d].extent = tlc_i32(F->m, 1);
			dims[d].is_point = true;
			continue;
		}
		any_slice = true;
		if (it->c) {
			tlc_error(F->ctx, it->loc, "buffer slices with a step are not supported");
			return NULL;
		}
		const tlc_expr *b = tlc_i32(F->m, 0), *e = buf->shape[d];
		if (it->a) {
			fe_val *x = fe_eval(F, env, it->a);
			if (!x || !(b = fe_to_scalar(F, x, it->a->loc)))
				return NULL;
		}
		if (it->b) {
			fe_val *x = fe_eval(F, env, it->b);
			if (!x || !(e = fe_to_scalar(F, x, it->b->loc)))
				return NULL;
		}
		dims[d].begin = b;
		dims[d].extent = tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_SUB, e, b));
		dims[d].is_point = false;
	}
	if (!any_slice)
		return fe_expr(F, tlc_load(F->m, buf, n, pts));
	return fe_expr(F, tlc_region(F->m, buf, n, dims));
}

static fe_val *eval_subscript(fe *F, fe_env *env, py_node *n)
{
	fe_val *v = fe_eval(F, env, n->a);
	if (!v)
		return NULL;
	if (v->kind == FV_BUF)
		return index_buffer(F, env, v->u.buf, n->b, n->loc);
	if ((v->kind == FV_TUPLE || v->kind == FV_LIST) && n->b->kind == PY_SLICE)
		return seq_slice(F, env, v, n->b);
	if (v->kind == FV_MODULE || v->kind == FV_NAMESPACE) {
		tlc_error(F->ctx, n->loc, "subscript of %s is not supported", v->u.s);
		return NULL;
	}
	fe_val *idx = fe_eval(F, env, n->b);
	if (!idx)
		return NULL;
	return fe_subscript(F, v, idx, n->loc);
}

fe_val *fe_iterate(fe *F, fe_val *v, tlc_loc loc)
{
	switch (v->kind) {
	case FV_TUPLE:
	case FV_LIST:
		return v;
	case FV_DICT: {
		fe_val *r = fe_seq(F, FV_LIST, 0);
		for (int i = 0; i < v->u.dict.n; i++)
			fe_seq_push(F, r, v->u.dict.keys[i]);
		return r;
	}
	case FV_STR: {
		fe_val *r = fe_seq(F, FV_LIST, 0);
		for (const char *s = v->u.s; *s; s++) {
			char c[2] = {*s, 0};
			fe_seq_push(F, r, fe_str(F, c));
		}
		return r;
	}
	case FV_RANGE: {
		int64_t a = v->u.range.start, b = v->u.range.stop, s = v->u.range.step;
		int64_t cnt = s > 0 ? (b > a ? (b - a + s - 1) / s : 0) : (a > b ? (a - b - s - 1) / -s : 0);
		if (cnt > FE_MAX_ITEMS) {
			tlc_error(F->ctx, loc, "range of %lld items is too long for compile-time evaluation",
			          (long long)cnt);
			return NULL;
		}
		fe_val *r = fe_seq(F, FV_LIST, 0);
		for (int64_t i = 0; i < cnt; i++)
			fe_seq_push(F, r, fe_int(F, a + i * s));
		return r;
	}
	default:
		tlc_error(F->ctx, loc, "a %s is not iterable at compile time", fe_kind_name(v));
		return NULL;
	}
}


static bool comp_loop(fe *F, fe_env *env, py_node *n, int k, fe_val *out, fe_val *dict)
{
	if (k == n->n) {
		fe_val *e = fe_eval(F, env, n->a);
		if (!e)
			return false;
		if (dict) {
			fe_val *val = fe_eval(F, env, n->b);
			if (!val)
				return false;
			fe_dict_set(F, dict, e, val);
		} else {
			if (out->u.seq.n >= FE_MAX_ITEMS) {
				tlc_error(F->ctx, n->loc, "comprehension too long");
				return false;
			}
			fe_seq_push(F, out, e);
		}
		return true;
	}
	py_node *c = n->list[k];
	fe_val *it = fe_eval(F, env, c->b);
	if (!it || !(it = fe_iterate(F, it, c->b->loc)))
		return false;
	for (int i = 0; i < it->u.seq.n; i++) {
		if (++F->steps > FE_MAX_STEPS) {
			tlc_error(F->ctx, n->loc, "compile-time evaluation takes too many steps");
			return false;
		}
		if (!fe_bind_target(F, env, c->a, it->u.seq.items[i]))
			return false;
		bool keep = true;
		for (int j = 0; j < c->n && keep; j++) {
			fe_val *cond = fe_eval(F, env, c->list[j]);
			if (!cond || !fe_truthy(F, cond, c->list[j]->loc, &keep))
				return false;
		}
		if (keep && !comp_loop(F, env, n, k + 1, out, dict))
			return false;
	}
	return true;
}

static fe_val *eval_comp(fe *F, fe_env *env, py_node *n)
{
	fe_env *inner = fe_env_new(F, env);
	if (n->ival == PY_DICT) {
		fe_val *d = fe_dict(F);
		return comp_loop(F, inner, n, 0, NULL, d) ? d : NULL;
	}
	fe_val *out = fe_seq(F, n->ival == PY_LIST ? FV_LIST : FV_TUPLE, 0);
	return comp_loop(F, inner, n, 0, out, NULL) ? out : NULL;
}

/* The items of a tuple/list/set literal (or a call's positional arguments),
 * with *x unpacked, as a sequence of kind k. */
static fe_val *eval_seq_literal(fe *F, fe_env *env, py_node *n, fe_kind k)
{
	fe_val *r = fe_seq(F, k, 0);
	for (int i = 0; i < n->n; i++) {
		py_node *a = n->list[i];
		fe_val *v = fe_eval(F, env, a->kind == PY_STARRED ? a->a : a);
		if (!v)
			return NULL;
		if (a->kind == PY_STARRED) {
			if (!(v = fe_iterate(F, v, a->loc)))
				return NULL;
			for (int j = 0; j < v->u.seq.n; j++)
				fe_seq_push(F, r, v->u.seq.items[j]);
		} else {
			fe_seq_push(F, r, v);
		}
	}
	return r;
}

static fe_val *eval_call(fe *F, fe_env *env, py_node *n)
{
	const char *hint = F->name_hint;
	F->name_hint = NULL;
	fe_val *fn = fe_eval(F, env, n->a);
	if (!fn)
		return NULL;
	/* positional arguments, *x unpacked: evaluated like a list literal */
	fe_val *args = eval_seq_literal(F, env, n, FV_LIST);
	if (!args)
		return NULL;
	int cap = n->n2 + 1, nkw = 0;
	const char **kn = tlc_arena_alloc(F->arena, sizeof(char *) * (size_t)cap);
	fe_val **kv = tlc_arena_alloc(F->arena, sizeof(fe_val *) * (size_t)cap);
	for (int i = 0; i < n->n2; i++) {
		fe_val *v = fe_eval(F, env, n->kw_values[i]);
		if (!v)
			return NULL;
		if (n->kw_names[i]) {
			kn[nkw] = n->kw_names[i];
			kv[nkw++] = v;
			continue;
		}
		if (v->kind != FV_DICT) {
			tlc_error(F->ctx, n->kw_values[i]->loc, "** needs a dict, got %s", fe_kind_name(v));
			return NULL;
		}
		const char **kn2 = tlc_arena_alloc(F->arena, sizeof(char *) * (size_t)(cap + v->u.dict.n));
		fe_val **kv2 = tlc_arena_alloc(F->arena, sizeof(fe_val *) * (size_t)(cap + v->u.dict.n));
		memcpy(kn2, kn, sizeof(char *) * (size_t)nkw);
		memcpy(kv2, kv, sizeof(fe_val *) * (size_t)nkw);
		kn = kn2;
		kv = kv2;
		cap += v->u.dict.n;
		for (int j = 0; j < v->u.dict.n; j++) {
			if (v->u.dict.keys[j]->kind != FV_STR) {
				tlc_error(F->ctx, n->kw_values[i]->loc, "keywords must be strings");
				return NULL;
			}
			kn[nkw] = v->u.dict.keys[j]->u.s;
			kv[nkw++] = v->u.dict.vals[j];
		}
	}
	F->name_hint = hint;
	fe_val *r = fe_call(F, fn, args->u.seq.n, args->u.seq.items, nkw, kn, kv, n->loc);
	F->name_hint = NULL;
	return r;
}


static fe_val *eval_name(fe *F, fe_env *env, py_node *n)
{
	fe_val *v = fe_env_get(env, n->str);
	if (v)
		return v;
	static const char *const builtins[] = {
		"range", "len", "min", "max", "abs", "int", "float", "bool", "str", "tuple", "list",
		"dict", "print", "enumerate", "zip", "sum", "any", "all", "round", "sorted", "reversed",
		"divmod", "pow", "isinstance", "ValueError", "AssertionError", "RuntimeError",
		"TypeError", "NotImplementedError", "KeyError", "Exception", "map", "set", "type",
	};
	for (size_t i = 0; i < TLC_ARRAY_LEN(builtins); i++)
		if (strcmp(builtins[i], n->str) == 0)
			return fe_builtin(F, builtins[i]);
	tlc_error(F->ctx, n->loc, "undefined name '%s'", n->str);
	return NULL;
}

static fe_val *eval_inner(fe *F, fe_env *env, py_node *n)
{
	switch (n->kind) {
	case PY_NAME: return eval_name(F, env, n);
	case PY_INT: return fe_int(F, n->ival);
	case PY_FLOAT: return fe_float(F, n->fval);
	case PY_STR: return fe_str(F, n->str ? n->str : "");
	case PY_NONE:
	case PY_ELLIPSIS: return F->none;
	case PY_TRUE: return F->vtrue;
	case PY_FALSE: return F->vfalse;
	case PY_ATTR: {
		fe_val *v = fe_eval(F, env, n->a);
		return v ? fe_getattr(F, v, n->str, n->loc) : NULL;
	}
	case PY_CALL: return eval_call(F, env, n);
	case PY_SUBSCRIPT: return eval_subscript(F, env, n);
	case PY_BINOP: {
		fe_val *a = fe_eval(F, env, n->a);
		fe_val *b = a ? fe_eval(F, env, n->b) : NULL;
		return b ? fe_binop(F, n->op, a, b, n->loc) : NULL;
	}
	case PY_UNARYOP: {
		fe_val *a = fe_eval(F, env, n->a);
		return a ? unaryop(F, n->op, a, n->loc) : NULL;
	}
	case PY_COMPARE: return eval_compare(F, env, n);
	case PY_BOOLOP: return eval_boolop(F, env, n);
	case PY_IFEXP: {
		fe_val *c = fe_eval(F, env, n->a);
		if (!c)
			return NULL;
		if (fe_is_symbolic(c)) {
			fe_val *t = fe_eval(F, env, n->b), *f = t ? fe_eval(F, env, n->c) : NULL;
			const tlc_expr *ce = f ? fe_to_scalar(F, c, n->a->loc) : NULL;
			const tlc_expr *te = ce ? fe_to_scalar(F, t, n->b->loc) : NULL;
			const tlc_expr *ee = te ? fe_to_scalar(F, f, n->c->loc) : NULL;
			return ee ? fe_expr(F, tlc_select(F->m, ce, te, ee)) : NULL;
		}
		bool t;
		if (!fe_truthy(F, c, n->a->loc, &t))
			return NULL;
		return fe_eval(F, env, t ? n->b : n->c);
	}
	case PY_TUPLE: return eval_seq_literal(F, env, n, FV_TUPLE);
	case PY_LIST:
	case PY_SET: return eval_seq_literal(F, env, n, FV_LIST);
	case PY_DICT: {
		fe_val *d = fe_dict(F);
		for (int i = 0; i < n->n2; i++) {
			fe_val *k = fe_eval(F, env, py_dict_key(n, i));
			fe_val *v = k ? fe_eval(F, env, n->list[i]) : NULL;
			if (!v)
				return NULL;
			fe_dict_set(F, d, k, v);
		}
		return d;
	}
	case PY_LAMBDA: return fe_make_function(F, env, n);
	case PY_COMP: return eval_comp(F, env, n);
	case PY_NAMEDEXPR: {
		fe_val *v = fe_eval(F, env, n->b);
		if (v && n->a->kind == PY_NAME)
			fe_env_set(F, env, n->a->str, v);
		return v;
	}
	case PY_STARRED:
		tlc_error(F->ctx, n->loc, "starred expression is not allowed here");
		return NULL;
	case PY_AWAIT:
		tlc_error(F->ctx, n->loc, "unsupported Python construct: await");
		return NULL;
	case PY_YIELD:
		tlc_error(F->ctx, n->loc, "unsupported Python construct: yield");
		return NULL;
	default:
		tlc_error(F->ctx, n->loc, "unsupported Python expression");
		return NULL;
	}
}

fe_val *fe_eval(fe *F, fe_env *env, py_node *n)
{
	if (!n) {
		tlc_error(F->ctx, FE_NOLOC, "internal: missing expression");
		return NULL;
	}
	if (!fe_enter(F, n->loc))
		return NULL;
	fe_val *v = eval_inner(F, env, n);
	fe_leave(F);
	return v;
}
