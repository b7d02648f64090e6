/* pyparse_expr.c - recursive-descent parser for Python expressions, one
 * function per precedence level (lowest first), as in the Python grammar. */
#include "pyparse.h"

#include <string.h>

static py_node *atom(parser *p);
static py_node *factor(parser *p);

static bool is_tok_op(const py_token *t, const char *op) { return t->kind == PYT_OP && !strcmp(t->s, op); }
static bool is_tok_kw(const py_token *t, const char *kw) { return t->kind == PYT_KEYWORD && !strcmp(t->s, kw); }

/* Can this token start an expression?  (Used to tell a trailing comma.) */
static bool starts_expression(const py_token *t)
{
	static const char *const kws[] = {"None", "True", "False", "not", "lambda", "await"};
	static const char *const ops[] = {"(", "[", "{", "-", "+", "~", "*", "..."};
	switch (t->kind) {
	case PYT_NAME: case PYT_INT: case PYT_FLOAT: case PYT_STRING:
		return true;
	case PYT_KEYWORD:
		for (size_t i = 0; i < TLC_ARRAY_LEN(kws); i++)
			if (!strcmp(t->s, kws[i]))
				return true;
		return false;
	case PYT_OP:
		for (size_t i = 0; i < TLC_ARRAY_LEN(ops); i++)
			if (!strcmp(t->s, ops[i]))
				return true;
		return false;
	default:
		return false;
	}
}

static py_node *unary(parser *p, py_kind kind, py_op op, tlc_loc loc, py_node *a)
{
	if (!a)
		return NULL;
	py_node *n = pp_node(p, kind, loc);
	n->op = op;
	n->a = a;
	return n;
}

/* '*' bitor | named_expression  (list/set/tuple elements) */
static py_node *star_named(parser *p)
{
	if (pp_is_op(p, "*")) {
		tlc_loc loc = pp_cur(p)->loc;
		pp_advance(p);
		return unary(p, PY_STARRED, PY_OP_NONE, loc, pp_bitor(p));
	}
	return pp_named_expression(p);
}

/* '*' bitor | expression */
static py_node *star_expression(parser *p)
{
	if (pp_is_op(p, "*")) {
		tlc_loc loc = pp_cur(p)->loc;
		pp_advance(p);
		return unary(p, PY_STARRED, PY_OP_NONE, loc, pp_bitor(p));
	}
	return pp_expression(p);
}

/* Collect `first, item, item...` (after `first`) into a PY_TUPLE at loc,
 * stopping before a token that cannot start an item (trailing comma). */
static py_node *tuple_rest(parser *p, py_node *first, tlc_loc loc, py_node *(*item)(parser *))
{
	py_node *t = pp_node(p, PY_TUPLE, loc);
	int cap = 0;
	PP_PUSH(p, t->list, t->n, cap, first);
	while (pp_accept_op(p, ",")) {
		if (!starts_expression(pp_cur(p)))
			break;
		py_node *e = item(p);
		if (!e)
			return NULL;
		PP_PUSH(p, t->list, t->n, cap, e);
	}
	return t;
}

py_node *pp_star_expressions(parser *p)
{
	py_node *first = star_expression(p);
	if (!first || !pp_is_op(p, ","))
		return first;
	return tuple_rest(p, first, first->loc, star_expression);
}

static py_node *star_target(parser *p)
{
	if (pp_is_op(p, "*")) {
		tlc_loc loc = pp_cur(p)->loc;
		pp_advance(p);
		return unary(p, PY_STARRED, PY_OP_NONE, loc, pp_bitor(p));
	}
	return pp_bitor(p);
}

py_node *pp_target_list(parser *p)
{
	py_node *first = star_target(p);
	if (!first || !pp_is_op(p, ","))
		return first;
	return tuple_rest(p, first, first->loc, star_target);
}

py_node *pp_yield_expr(parser *p)
{
	py_node *y = pp_node(p, PY_YIELD, pp_cur(p)->loc);
	pp_advance(p);
	if (pp_accept_kw(p, "from")) {
		y->ival = 1; /* yield from */
		y->a = pp_expression(p);
		return y->a ? y : NULL;
	}
	if (starts_expression(pp_cur(p)) && !(y->a = pp_star_expressions(p)))
		return NULL;
	return y;
}

/* ---- comprehensions ---- */

/* The `for ... in ... if ...` clauses after the element(s). */
static py_node *comprehension(parser *p, py_kind what, py_node *elt, py_node *val, tlc_loc loc)
{
	if (!pp_enter(p))
		return NULL;
	py_node *c = pp_node(p, PY_COMP, loc);
	c->ival = what;
	c->a = elt;
	c->b = val;
	int cap = 0, nested = 0;
	while (pp_is_kw(p, "for") || (pp_is_kw(p, "async") && is_tok_kw(pp_peek(p, 1), "for"))) {
		/* each clause nests a loop in the evaluator */
		if (c->n && !pp_enter(p))
			return NULL;
		nested += c->n > 0;
		pp_accept_kw(p, "async");
		py_node *f = pp_node(p, PY_COMP_FOR, pp_cur(p)->loc);
		pp_advance(p);
		if (!(f->a = pp_target_list(p)))
			return NULL;
		if (!pp_accept_kw(p, "in")) {
			pp_error(p, "expected 'in' after comprehension target");
			return NULL;
		}
		if (!(f->b = pp_disjunction(p)))
			return NULL;
		int fcap = 0;
		while (pp_accept_kw(p, "if")) {
			py_node *cond = pp_disjunction(p);
			if (!cond)
				return NULL;
			PP_PUSH(p, f->list, f->n, fcap, cond);
		}
		PP_PUSH(p, c->list, c->n, cap, f);
	}
	p->depth -= nested + 1;
	return c;
}

/* ---- atoms ---- */

/* Adjacent string literals concatenate.  When one part is an f-string the
 * result is f-string text, so plain parts get their braces doubled. */
static py_node *strings(parser *p)
{
	const py_token *first = pp_cur(p);
	size_t total = 0;
	bool fstr = false;
	int k = 0;
	for (const py_token *t; (t = pp_peek(p, k))->kind == PYT_STRING; k++) {
		if (t->is_bytes != first->is_bytes) {
			pp_error_at(p, t->loc, "cannot mix bytes and nonbytes literals");
			return NULL;
		}
		total += 2 * t->slen;
		fstr |= t->is_fstring;
	}
	char *buf = pp_alloc(p, total + 1);
	size_t len = 0;
	for (int i = 0; i < k; i++) {
		const py_token *t = pp_cur(p);
		for (size_t j = 0; j < t->slen; j++) {
			buf[len++] = t->s[j];
			if (fstr && !t->is_fstring && (t->s[j] == '{' || t->s[j] == '}'))
				buf[len++] = t->s[j];
		}
		pp_advance(p);
	}
	py_node *n = pp_node(p, PY_STR, first->loc);
	n->str = buf;
	n->is_fstring = fstr;
	return n;
}

/* ( ... ): empty tuple, yield, group, tuple or generator expression */
static py_node *paren_atom(parser *p, tlc_loc loc)
{
	if (pp_accept_op(p, ")"))
		return pp_node(p, PY_TUPLE, loc);
	py_node *e;
	if (pp_is_kw(p, "yield")) {
		e = pp_yield_expr(p);
		return e && pp_expect_op(p, ")", "after yield expression") ? e : NULL;
	}
	if (!(e = star_named(p)))
		return NULL;
	if (pp_is_kw(p, "for") || pp_is_kw(p, "async"))
		e = comprehension(p, PY_TUPLE, e, NULL, loc);
	else if (pp_is_op(p, ",")) {
		e = tuple_rest(p, e, loc, star_named);
	} else if (e->kind == PY_STARRED) {
		pp_error_at(p, e->loc, "cannot use starred expression here");
		return NULL;
	}
	return e && pp_expect_op(p, ")", "to close '('") ? e : NULL;
}

static py_node *list_atom(parser *p, tlc_loc loc)
{
	if (pp_accept_op(p, "]"))
		return pp_node(p, PY_LIST, loc);
	py_node *e = star_named(p);
	if (!e)
		return NULL;
	if (pp_is_kw(p, "for") || pp_is_kw(p, "async")) {
		e = comprehension(p, PY_LIST, e, NULL, loc);
	} else if ((e = tuple_rest(p, e, loc, star_named))) {
		e->kind = PY_LIST;
	}
	return e && pp_expect_op(p, "]", "to close '['") ? e : NULL;
}

/* One `key: value` or `**mapping` entry of a dict display. */
static bool dict_entry(parser *p, py_node *d, int *cap, int *kcap)
{
	py_node *key = NULL, *val;
	if (pp_accept_op(p, "**")) {
		val = pp_bitor(p);
	} else {
		if (!(key = pp_expression(p)) || !pp_expect_op(p, ":", "after dict key"))
			return false;
		val = pp_expression(p);
	}
	if (!val)
		return false;
	PP_PUSH(p, d->list, d->n, *cap, val);
	PP_PUSH(p, d->kw_values, d->n2, *kcap, key);
	return true;
}

static py_node *brace_atom(parser *p, tlc_loc loc)
{
	py_node *d = pp_node(p, PY_DICT, loc);
	int cap = 0, kcap = 0;
	if (pp_accept_op(p, "}"))
		return d;
	py_node *first = NULL;
	if (pp_is_op(p, "**")) {
		if (!dict_entry(p, d, &cap, &kcap))
			return NULL;
	} else {
		if (!(first = star_named(p)))
			return NULL;
		if (pp_accept_op(p, ":")) {
			py_node *val = pp_expression(p);
			if (!val)
				return NULL;
			if (pp_is_kw(p, "for") || pp_is_kw(p, "async")) {
				d = comprehension(p, PY_DICT, first, val, loc);
				return d && pp_expect_op(p, "}", "to close '{'") ? d : NULL;
			}
			PP_PUSH(p, d->list, d->n, cap, val);
			PP_PUSH(p, d->kw_values, d->n2, kcap, first);
			first = NULL;
		}
	}
	if (first) { /* a set */
		py_node *s;
		if (pp_is_kw(p, "for") || pp_is_kw(p, "async")) {
			s = comprehension(p, PY_SET, first, NULL, loc);
		} else {
			py_node *t = tuple_rest(p, first, loc, star_named);
			if (!t)
				return NULL;
			t->kind = PY_SET;
			s = t;
		}
		return s && pp_expect_op(p, "}", "to close '{'") ? s : NULL;
	}
	while (pp_accept_op(p, ",")) {
		if (pp_is_op(p, "}"))
			break;
		if (!dict_entry(p, d, &cap, &kcap))
			return NULL;
	}
	return pp_expect_op(p, "}", "to close '{'") ? d : NULL;
}

static py_node *atom(parser *p)
{
	const py_token *t = pp_cur(p);
	py_node *n;
	switch (t->kind) {
	case PYT_NAME:
		n = pp_node(p, PY_NAME, t->loc);
		n->str = t->s;
		pp_advance(p);
		return n;
	case PYT_INT:
		n = pp_node(p, PY_INT, t->loc);
		n->ival = t->ival;
		pp_advance(p);
		return n;
	case PYT_FLOAT:
		n = pp_node(p, PY_FLOAT, t->loc);
		n->fval = t->fval;
		pp_advance(p);
		return n;
	case PYT_STRING:
		return strings(p);
	case PYT_KEYWORD: {
		py_kind k = !strcmp(t->s, "None") ? PY_NONE : !strcmp(t->s, "True") ? PY_TRUE
		          : !strcmp(t->s, "False") ? PY_FALSE : PY_MODULE;
		if (k == PY_MODULE)
			break;
		pp_advance(p);
		return pp_node(p, k, t->loc);
	}
	case PYT_OP: {
		if (!strcmp(t->s, "...")) {
			pp_advance(p);
			return pp_node(p, PY_ELLIPSIS, t->loc);
		}
		py_node *(*fn)(parser *, tlc_loc) = !strcmp(t->s, "(") ? paren_atom
		                                  : !strcmp(t->s, "[") ? list_atom
		                                  : !strcmp(t->s, "{") ? brace_atom : NULL;
		if (!fn)
			break;
		if (!pp_enter(p))
			return NULL;
		pp_advance(p);
		n = fn(p, t->loc);
		pp_leave(p);
		return n;
	}
	default:
		break;
	}
	pp_unexpected(p);
	return NULL;
}

/* ---- primaries: attribute, call, subscript ---- */

bool pp_call_args(parser *p, py_node *call)
{
	int cap = 0, kcap = 0, vcap = 0;
	while (!pp_is_op(p, ")") && !p->failed) {
		const py_token *t = pp_cur(p);
		if (pp_accept_op(p, "**") || (t->kind == PYT_NAME && is_tok_op(pp_peek(p, 1), "="))) {
			const char *name = NULL;
			if (t->kind == PYT_NAME) {
				name = t->s;
				pp_advance(p);
				pp_advance(p);
			}
			py_node *v = pp_expression(p);
			if (!v)
				return false;
			int nv = call->n2; /* kw_values grows in step with kw_names */
			PP_PUSH(p, call->kw_values, nv, vcap, v);
			PP_PUSH(p, call->kw_names, call->n2, kcap, name);
		} else {
			bool starred = pp_is_op(p, "*");
			py_node *e = starred ? star_expression(p) : pp_named_expression(p);
			if (!e)
				return false;
			if (!starred && (pp_is_kw(p, "for") || pp_is_kw(p, "async"))) {
				if (call->n || call->n2 || !(e = comprehension(p, PY_TUPLE, e, NULL, e->loc)))
					goto genexp_error;
				if (!pp_is_op(p, ")"))
					goto genexp_error;
			} else if (call->n2 && !starred) {
				pp_error_at(p, e->loc, "positional argument follows keyword argument");
				return false;
			}
			PP_PUSH(p, call->list, call->n, cap, e);
		}
		if (!pp_accept_op(p, ","))
			break;
	}
	return !p->failed && pp_expect_op(p, ")", "to close the call's '('");
genexp_error:
	if (!p->failed)
		pp_error_at(p, call->loc, "generator expression must be parenthesized");
	return false;
}

static py_node *slice_item(parser *p)
{
	tlc_loc loc = pp_cur(p)->loc;
	py_node *lower = NULL;
	if (!pp_is_op(p, ":")) {
		if (pp_is_op(p, "*"))
			return star_expression(p);
		if (!(lower = pp_named_expression(p)) || !pp_is_op(p, ":"))
			return lower;
	}
	pp_advance(p);
	py_node *s = pp_node(p, PY_SLICE, loc);
	s->a = lower;
	if (!pp_is_op(p, ":") && !pp_is_op(p, "]") && !pp_is_op(p, ",") && !(s->b = pp_expression(p)))
		return NULL;
	if (pp_accept_op(p, ":") && !pp_is_op(p, "]") && !pp_is_op(p, ",") && !(s->c = pp_expression(p)))
		return NULL;
	return s;
}

static py_node *subscript_index(parser *p)
{
	py_node *first = slice_item(p);
	if (!first || !pp_is_op(p, ","))
		return first;
	py_node *t = pp_node(p, PY_TUPLE, first->loc);
	int cap = 0;
	PP_PUSH(p, t->list, t->n, cap, first);
	while (pp_accept_op(p, ",") && !pp_is_op(p, "]")) {
		py_node *e = slice_item(p);
		if (!e)
			return NULL;
		PP_PUSH(p, t->list, t->n, cap, e);
	}
	return t;
}

static py_node *primary(parser *p)
{
	py_node *e = atom(p);
	while (e && !p->failed) {
		py_node *n;
		if (pp_accept_op(p, ".")) {
			const py_token *t = pp_cur(p);
			if (t->kind != PYT_NAME) {
				pp_error(p, "expected an attribute name after '.'");
				return NULL;
			}
			n = pp_node(p, PY_ATTR, e->loc);
			n->a = e;
			n->str = t->s;
			pp_advance(p);
		} else if (pp_is_op(p, "(") || pp_is_op(p, "[")) {
			bool call = pp_is_op(p, "(");
			if (!pp_enter(p))
				return NULL;
			pp_advance(p);
			n = pp_node(p, call ? PY_CALL : PY_SUBSCRIPT, e->loc);
			n->a = e;
			bool ok = call ? pp_call_args(p, n)
			               : (n->b = subscript_index(p)) && pp_expect_op(p, "]", "to close '['");
			pp_leave(p);
			if (!ok)
				return NULL;
		} else {
			break;
		}
		e = n;
	}
	return p->failed ? NULL : e;
}

/* ---- operators ---- */

static py_node *power(parser *p)
{
	py_node *e;
	if (pp_is_kw(p, "await")) {
		tlc_loc loc = pp_cur(p)->loc;
		pp_advance(p);
		e = unary(p, PY_AWAIT, PY_OP_NONE, loc, primary(p));
	} else {
		e = primary(p);
	}
	if (!e || !pp_accept_op(p, "**"))
		return e;
	if (!pp_enter(p))
		return NULL;
	py_node *rhs = factor(p); /* right-associative: a ** -b ** c = a ** (-(b ** c)) */
	pp_leave(p);
	if (!rhs)
		return NULL;
	py_node *n = pp_node(p, PY_BINOP, e->loc);
	n->op = PY_OP_POW;
	n->a = e;
	n->b = rhs;
	return n;
}

static py_node *factor(parser *p)
{
	const py_token *t = pp_cur(p);
	py_op op = is_tok_op(t, "-") ? PY_OP_NEG : is_tok_op(t, "+") ? PY_OP_POS
	         : is_tok_op(t, "~") ? PY_OP_INVERT : PY_OP_NONE;
	if (op == PY_OP_NONE)
		return power(p);
	if (!pp_enter(p))
		return NULL;
	pp_advance(p);
	py_node *n = unary(p, PY_UNARYOP, op, t->loc, factor(p));
	pp_leave(p);
	return n;
}

/* Binary operator levels from `|` (0) to `* / // % @` (5). */
static const struct binop_spelling {
	const char *s;
	py_op op;
} binop_levels[6][5] = {
	{{"|", PY_OP_BITOR}},
	{{"^", PY_OP_BITXOR}},
	{{"&", PY_OP_BITAND}},
	{{"<<", PY_OP_LSHIFT}, {">>", PY_OP_RSHIFT}},
	{{"+", PY_OP_ADD}, {"-", PY_OP_SUB}},
	{{"*", PY_OP_MUL}, {"/", PY_OP_DIV}, {"//", PY_OP_FLOORDIV}, {"%", PY_OP_MOD}, {"@", PY_OP_MATMUL}},
};

static py_node *binary_level(parser *p, int level)
{
	if (level == 6)
		return factor(p);
	py_node *e = binary_level(p, level + 1);
	while (e) {
		py_op op = PY_OP_NONE;
		for (int i = 0; i < 5 && binop_levels[level][i].s; i++)
			if (pp_is_op(p, binop_levels[level][i].s))
				op = binop_levels[level][i].op;
		if (op == PY_OP_NONE)
			break;
		pp_advance(p);
		py_node *rhs = binary_level(p, level + 1);
		if (!rhs)
			return NULL;
		py_node *n = pp_node(p, PY_BINOP, e->loc);
		n->op = op;
		n->a = e;
		n->b = rhs;
		e = n;
	}
	return e;
}

py_node *pp_bitor(parser *p) { return binary_level(p, 0); }

/* The comparison operator at the current token (consumed), or PY_OP_NONE. */
static py_op comparison_op(parser *p)
{
	static const struct binop_spelling cmp[] = {
		{"==", PY_OP_EQ}, {"!=", PY_OP_NE}, {"<", PY_OP_LT},
		{"<=", PY_OP_LE}, {">", PY_OP_GT}, {">=", PY_OP_GE},
	};
	for (size_t i = 0; i < TLC_ARRAY_LEN(cmp); i++)
		if (pp_accept_op(p, cmp[i].s))
			return cmp[i].op;
	if (pp_accept_kw(p, "in"))
		return PY_OP_IN;
	if (pp_is_kw(p, "not") && is_tok_kw(pp_peek(p, 1), "in")) {
		pp_advance(p);
		pp_advance(p);
		return PY_OP_NOT_IN;
	}
	if (pp_accept_kw(p, "is"))
		return pp_accept_kw(p, "not") ? PY_OP_IS_NOT : PY_OP_IS;
	return PY_OP_NONE;
}

static py_node *comparison(parser *p)
{
	py_node *first = pp_bitor(p);
	if (!first)
		return NULL;
	py_node *c = NULL;
	int cap = 0, ocap = 0, nops = 0;
	py_op op;
	while ((op = comparison_op(p)) != PY_OP_NONE) {
		if (!c) {
			c = pp_node(p, PY_COMPARE, first->loc);
			PP_PUSH(p, c->list, c->n, cap, first);
		}
		py_node *rhs = pp_bitor(p);
		if (!rhs)
			return NULL;
		PP_PUSH(p, c->ops, nops, ocap, op);
		PP_PUSH(p, c->list, c->n, cap, rhs);
	}
	return c ? c : first;
}

static py_node *inversion(parser *p)
{
	if (!pp_is_kw(p, "not"))
		return comparison(p);
	tlc_loc loc = pp_cur(p)->loc;
	if (!pp_enter(p))
		return NULL;
	pp_advance(p);
	py_node *n = unary(p, PY_UNARYOP, PY_OP_NOT, loc, inversion(p));
	pp_leave(p);
	return n;
}

/* a and b and c / a or b or c */
static py_node *boolop(parser *p, const char *kw, py_op op, py_node *(*operand)(parser *))
{
	py_node *first = operand(p);
	if (!first || !pp_is_kw(p, kw))
		return first;
	py_node *b = pp_node(p, PY_BOOLOP, first->loc);
	b->op = op;
	int cap = 0;
	PP_PUSH(p, b->list, b->n, cap, first);
	while (pp_accept_kw(p, kw)) {
		py_node *e = operand(p);
		if (!e)
			return NULL;
		PP_PUSH(p, b->list, b->n, cap, e);
	}
	return b;
}

static py_node *conjunction(parser *p) { return boolop(p, "and", PY_OP_AND, inversion); }
py_node *pp_disjunction(parser *p) { return boolop(p, "or", PY_OP_OR, conjunction); }

static py_node *lambda(parser *p)
{
	py_node *l = pp_node(p, PY_LAMBDA, pp_cur(p)->loc);
	if (!pp_enter(p))
		return NULL;
	pp_advance(p);
	bool ok = pp_params(p, ":", false, &l->params, &l->nparams) &&
	          pp_expect_op(p, ":", "after lambda parameters") && (l->a = pp_expression(p));
	pp_leave(p);
	return ok ? l : NULL;
}

py_node *pp_expression(parser *p)
{
	if (pp_is_kw(p, "lambda"))
		return lambda(p);
	py_node *e = pp_disjunction(p);
	if (!e || !pp_is_kw(p, "if"))
		return e;
	if (!pp_enter(p))
		return NULL;
	pp_advance(p);
	py_node *n = pp_node(p, PY_IFEXP, e->loc);
	n->b = e;
	bool ok = (n->a = pp_disjunction(p));
	if (ok && !pp_accept_kw(p, "else")) {
		pp_error(p, "expected 'else' after 'if' expression");
		ok = false;
	}
	ok = ok && (n->c = pp_expression(p));
	pp_leave(p);
	return ok ? n : NULL;
}

py_node *pp_named_expression(parser *p)
{
	const py_token *t = pp_cur(p);
	if (t->kind != PYT_NAME || !is_tok_op(pp_peek(p, 1), ":="))
		return pp_expression(p);
	py_node *n = pp_node(p, PY_NAMEDEXPR, t->loc);
	n->a = pp_node(p, PY_NAME, t->loc);
	n->a->str = t->s;
	pp_advance(p);
	pp_advance(p);
	return (n->b = pp_expression(p)) ? n : NULL;
}

bool pp_params(parser *p, const char *close, bool annotations, py_param **params, int *nparams)
{
	int cap = 0;
	bool kwonly = false, seen_default = false;
	while (!pp_is_op(p, close) && !p->failed) {
		py_param prm = {0};
		if (pp_accept_op(p, "**")) {
			prm.star = 2;
		} else if (pp_accept_op(p, "*")) {
			kwonly = true;
			if (pp_is_op(p, ",") || pp_is_op(p, close)) { /* bare '*' */
				if (!pp_accept_op(p, ","))
					break;
				continue;
			}
			prm.star = 1;
		} else if (pp_accept_op(p, "/")) { /* positional-only marker */
			if (!pp_accept_op(p, ","))
				break;
			continue;
		}
		const py_token *t = pp_cur(p);
		if (t->kind != PYT_NAME) {
			pp_error(p, "expected a parameter name");
			return false;
		}
		prm.name = t->s;
		pp_advance(p);
		if (annotations && pp_accept_op(p, ":") && !(prm.annotation = star_expression(p)))
			return false;
		if (prm.star == 0 && pp_is_op(p, "=")) {
			pp_advance(p);
			if (!(prm.def = pp_expression(p)))
				return false;
			seen_default = true;
		} else if (prm.star == 0 && !kwonly && seen_default) {
			pp_error_at(p, t->loc, "parameter without a default follows parameter with a default");
			return false;
		}
		prm.kwonly = kwonly && prm.star == 0;
		PP_PUSH(p, *params, *nparams, cap, prm);
		if (!pp_accept_op(p, ","))
			break;
	}
	return !p->failed;
}
