/* pyparse_stmt.c - recursive-descent parser for Python statements. */
#include "pyparse.h"

#include <string.h>

/* ---- statements ---- */

static bool simple_statements(parser *p, pp_stmt_list *out);

/* The block after a compound statement's ':' (`what` names the statement
 * and `line` is its line, for the "expected an indented block" message).
 * In a py_reader, an indented block that py_check noted is jumped over and
 * left in *lazy for py_read_block when it is big (a block as long as the
 * file must not be kept as a tree) or `even_small`. */
static bool block(parser *p, const char *what, uint32_t line, py_node ***body, int *nbody,
                  py_lazy *lazy, bool even_small)
{
	pp_stmt_list l = {0};
	bool ok;
	p->last_skip = NULL;
	if (pp_cur(p)->kind != PYT_NEWLINE) {
		ok = simple_statements(p, &l);
	} else {
		pp_advance(p);
		const py_token *indent = pp_cur(p);
		if (indent->kind != PYT_INDENT) {
			pp_error(p, "expected an indented block after %s on line %u", what, line);
			return false;
		}
		size_t key = indent->off;
		uint32_t first = indent->loc.line;
		py_skip *skip = p->lazy && !p->check ? py_skip_find(p->src, key) : NULL;
		bool big = skip && skip->resume - key > PY_BIG_BLOCK;
		if (skip && (big || even_small)) {
			lazy->at = key;
			lazy->line = first;
			lazy->big = big;
			py_lexer_jump(p->lex, p->pos + 1, skip->resume, skip->line, (int)indent->ival);
			pp_advance(p); /* the INDENT */
			if (pp_cur(p)->kind != PYT_DEDENT) {
				pp_error(p, "internal error: the block of line %u does not end where it did", first);
				return false;
			}
			pp_advance(p);
			p->last_skip = skip;
			*body = NULL;
			*nbody = 0;
			return true;
		}
		if (!pp_enter(p))
			return false;
		pp_advance(p);
		p->block_depth++;
		while (!p->failed && pp_cur(p)->kind != PYT_DEDENT && pp_cur(p)->kind != PYT_EOF) {
			py_pool_mark m = py_pool_mark_now(p->scratch);
			pp_statement(p, &l);
			pp_statement_done(p, m);
			if (p->check) /* its nodes are gone */
				l = (pp_stmt_list){0};
		}
		p->block_depth--;
		if (p->check && !p->failed && pp_cur(p)->kind == PYT_DEDENT) {
			const py_token *dedent = pp_cur(p);
			skip = py_skip_add(p->src, key);
			skip->resume = dedent->off;
			skip->line = dedent->loc.line;
			p->last_skip = skip;
		}
		pp_advance(p); /* the DEDENT */
		pp_leave(p);
		ok = !p->failed;
	}
	*body = l.v;
	*nbody = l.n;
	return ok;
}

/* ':' then a block. */
static bool colon_block(parser *p, const char *context, const char *what, uint32_t line,
                        py_node ***body, int *nbody, py_lazy *lazy, bool even_small)
{
	return pp_expect_op(p, ":", context) && block(p, what, line, body, nbody, lazy, even_small);
}

/* The blocks of a top-level statement are left unread even when small:
 * they run once, or not at all. */
static bool top(parser *p)
{
	return p->block_depth == 0;
}

/* An optional `else:` block. */
static bool else_block(parser *p, py_node *n)
{
	uint32_t line = pp_cur(p)->loc.line;
	if (!pp_accept_kw(p, "else"))
		return true;
	return colon_block(p, "after 'else'", "'else' statement", line, &n->orelse, &n->norelse,
	                   &n->lazy_orelse, top(p));
}

static const char *target_error(const py_node *e)
{
	switch (e->kind) {
	case PY_NAME: case PY_ATTR: case PY_SUBSCRIPT:
		return NULL;
	case PY_TUPLE: case PY_LIST:
		for (int i = 0; i < e->n; i++) {
			const char *why = target_error(e->list[i]);
			if (why)
				return why;
		}
		return NULL;
	case PY_STARRED:
		return e->ival == 2 ? "'**' expression" : target_error(e->a);
	case PY_CALL: return "function call";
	case PY_INT: case PY_FLOAT: case PY_STR: case PY_ELLIPSIS: return "literal";
	case PY_NONE: return "None";
	case PY_TRUE: return "True";
	case PY_FALSE: return "False";
	case PY_COMPARE: return "comparison";
	case PY_LAMBDA: return "lambda";
	case PY_IFEXP: return "conditional expression";
	case PY_COMP: return "comprehension";
	case PY_DICT: return "dict literal";
	case PY_SET: return "set display";
	case PY_NAMEDEXPR: return "named expression";
	case PY_YIELD: return "yield expression";
	case PY_AWAIT: return "await expression";
	default: return "expression";
	}
}

static bool check_target(parser *p, const py_node *e, const char *verb)
{
	const char *why = target_error(e);
	if (why)
		pp_error_at(p, e->loc, "cannot %s %s", verb, why);
	return !why;
}

static py_node *rhs(parser *p)
{
	return pp_is_kw(p, "yield") ? pp_yield_expr(p) : pp_star_expressions(p);
}

static py_op augassign_op(const py_token *t)
{
	static const struct { const char *s; py_op op; } ops[] = {
		{"+=", PY_OP_ADD}, {"-=", PY_OP_SUB}, {"*=", PY_OP_MUL}, {"/=", PY_OP_DIV},
		{"//=", PY_OP_FLOORDIV}, {"%=", PY_OP_MOD}, {"**=", PY_OP_POW}, {"@=", PY_OP_MATMUL},
		{">>=", PY_OP_RSHIFT}, {"<<=", PY_OP_LSHIFT}, {"&=", PY_OP_BITAND}, {"|=", PY_OP_BITOR},
		{"^=", PY_OP_BITXOR},
	};
	if (t->kind == PYT_OP)
		for (size_t i = 0; i < TLC_ARRAY_LEN(ops); i++)
			if (!strcmp(t->s, ops[i].s))
				return ops[i].op;
	return PY_OP_NONE;
}

static bool single_target(const py_node *e)
{
	return e->kind == PY_NAME || e->kind == PY_ATTR || e->kind == PY_SUBSCRIPT;
}

/* Expression statement, assignment (chains, tuples), annotated or augmented assignment. */
static py_node *expr_statement(parser *p)
{
	py_node *e = rhs(p);
	if (!e)
		return NULL;
	py_node *n;
	py_op op;
	if (pp_is_op(p, ":")) {
		if (!single_target(e)) {
			pp_error_at(p, e->loc, "only single target (not %s) can be annotated",
			            e->kind == PY_TUPLE ? "tuple" : e->kind == PY_LIST ? "list" : "expression");
			return NULL;
		}
		pp_advance(p);
		n = pp_node(p, PY_ANNASSIGN, e->loc);
		n->a = e;
		if (!(n->b = pp_expression(p)))
			return NULL;
		if (pp_accept_op(p, "=") && !(n->c = rhs(p)))
			return NULL;
		return n;
	}
	if ((op = augassign_op(pp_cur(p))) != PY_OP_NONE) {
		if (!single_target(e)) {
			const char *why = target_error(e);
			pp_error_at(p, e->loc, "'%s' is an illegal expression for augmented assignment",
			            e->kind == PY_TUPLE ? "tuple" : why ? why : "expression");
			return NULL;
		}
		pp_advance(p);
		n = pp_node(p, PY_AUGASSIGN, e->loc);
		n->op = op;
		n->a = e;
		return (n->b = rhs(p)) ? n : NULL;
	}
	if (!pp_is_op(p, "=")) {
		n = pp_node(p, PY_EXPR_STMT, e->loc);
		n->a = e;
		return n;
	}
	n = pp_node(p, PY_ASSIGN, e->loc);
	int cap = 0;
	while (pp_accept_op(p, "=")) {
		if (!check_target(p, e, "assign to"))
			return NULL;
		PP_PUSH(p, n->list, n->n, cap, e);
		if (!(e = rhs(p)))
			return NULL;
	}
	n->a = e;
	return n;
}

/* a.b.c as one string (interned: module values and names outlive the tree) */
static const char *dotted_name(parser *p)
{
	const py_token *t = pp_cur(p);
	if (t->kind != PYT_NAME) {
		pp_error(p, "expected a module name");
		return NULL;
	}
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_buf_puts(&b, t->s);
	pp_advance(p);
	while (pp_is_op(p, ".") && pp_peek(p, 1)->kind == PYT_NAME) {
		pp_advance(p);
		tlc_buf_printf(&b, ".%s", pp_cur(p)->s);
		pp_advance(p);
	}
	const char *s = py_intern(p->src, tlc_buf_str(&b), strlen(tlc_buf_str(&b)));
	tlc_buf_free(&b);
	return s;
}

/* NAME [as NAME] (or a dotted name for `import`) into n->names/asnames. */
static bool import_name(parser *p, py_node *n, int *cap, int *acap, bool dotted)
{
	const char *name = NULL, *as = NULL;
	if (dotted) {
		name = dotted_name(p);
	} else if (pp_cur(p)->kind == PYT_NAME) {
		name = pp_cur(p)->s;
		pp_advance(p);
	} else {
		pp_error(p, "expected a name to import");
	}
	if (!name)
		return false;
	if (pp_accept_kw(p, "as")) {
		if (pp_cur(p)->kind != PYT_NAME) {
			pp_error(p, "expected a name after 'as'");
			return false;
		}
		as = pp_cur(p)->s;
		pp_advance(p);
	}
	int na = n->nnames;
	PP_PUSH(p, n->asnames, na, *acap, as);
	PP_PUSH(p, n->names, n->nnames, *cap, name);
	return true;
}

static py_node *import_statement(parser *p, tlc_loc loc)
{
	py_node *n = pp_node(p, PY_IMPORT, loc);
	int cap = 0, acap = 0;
	do {
		if (!import_name(p, n, &cap, &acap, true))
			return NULL;
	} while (pp_accept_op(p, ","));
	return n;
}

static py_node *from_statement(parser *p, tlc_loc loc)
{
	py_node *n = pp_node(p, PY_IMPORT_FROM, loc);
	for (;;) {
		if (pp_accept_op(p, "."))
			n->level += 1;
		else if (pp_accept_op(p, "..."))
			n->level += 3;
		else
			break;
	}
	if ((n->level == 0 || pp_cur(p)->kind == PYT_NAME) && !(n->str = dotted_name(p)))
		return NULL;
	if (!pp_accept_kw(p, "import")) {
		pp_error(p, "expected 'import' after the module name");
		return NULL;
	}
	int cap = 0, acap = 0;
	if (pp_is_op(p, "*")) {
		pp_advance(p);
		const char *star = "*", *none = NULL;
		int na = 0;
		PP_PUSH(p, n->asnames, na, acap, none);
		PP_PUSH(p, n->names, n->nnames, cap, star);
		return n;
	}
	bool paren = pp_accept_op(p, "(");
	do {
		if (paren && pp_is_op(p, ")") && n->nnames)
			break;
		if (!import_name(p, n, &cap, &acap, false))
			return NULL;
	} while (pp_accept_op(p, ","));
	return !paren || pp_expect_op(p, ")", "after the imported names") ? n : NULL;
}

static py_node *names_statement(parser *p, tlc_loc loc, bool nonlocal)
{
	py_node *n = pp_node(p, PY_GLOBAL, loc);
	n->ival = nonlocal;
	int cap = 0;
	do {
		if (pp_cur(p)->kind != PYT_NAME) {
			pp_error(p, "expected a name after '%s'", nonlocal ? "nonlocal" : "global");
			return NULL;
		}
		const char *name = pp_cur(p)->s;
		PP_PUSH(p, n->names, n->nnames, cap, name);
		pp_advance(p);
	} while (pp_accept_op(p, ","));
	return n;
}

static bool at_statement_end(parser *p)
{
	py_tok_kind k = pp_cur(p)->kind;
	return k == PYT_NEWLINE || k == PYT_EOF || pp_is_op(p, ";");
}

/* pass, break, continue, return, raise, global, nonlocal, del, assert, import, from, or an expression statement */
static py_node *small_statement(parser *p)
{
	const py_token *t = pp_cur(p);
	if (t->kind != PYT_KEYWORD || !strcmp(t->s, "yield") || !strcmp(t->s, "None") || !strcmp(t->s, "True") ||
	    !strcmp(t->s, "False") || !strcmp(t->s, "not") || !strcmp(t->s, "lambda") || !strcmp(t->s, "await"))
		return expr_statement(p);
	static const struct { const char *kw; py_kind kind; } simple[] = {
		{"pass", PY_PASS}, {"break", PY_BREAK}, {"continue", PY_CONTINUE},
		{"return", PY_RETURN}, {"raise", PY_RAISE}, {"del", PY_DEL}, {"assert", PY_ASSERT},
	};
	tlc_loc loc = t->loc;
	py_node *n = NULL;
	for (size_t i = 0; i < TLC_ARRAY_LEN(simple); i++)
		if (!strcmp(t->s, simple[i].kw))
			n = pp_node(p, simple[i].kind, loc);
	pp_advance(p);
	if (!n) {
		if (!strcmp(t->s, "import"))
			return import_statement(p, loc);
		if (!strcmp(t->s, "from"))
			return from_statement(p, loc);
		if (!strcmp(t->s, "global") || !strcmp(t->s, "nonlocal"))
			return names_statement(p, loc, t->s[0] == 'n');
		pp_back(p);
		pp_unexpected(p);
		return NULL;
	}
	switch (n->kind) {
	case PY_RETURN:
		return at_statement_end(p) || (n->a = pp_star_expressions(p)) ? n : NULL;
	case PY_RAISE:
		if (at_statement_end(p))
			return n;
		if (!(n->a = pp_expression(p)))
			return NULL;
		return !pp_accept_kw(p, "from") || (n->b = pp_expression(p)) ? n : NULL;
	case PY_ASSERT:
		if (!(n->a = pp_expression(p)))
			return NULL;
		return !pp_accept_op(p, ",") || (n->b = pp_expression(p)) ? n : NULL;
	case PY_DEL: {
		int cap = 0;
		do {
			if (at_statement_end(p) && n->n)
				break;
			py_node *e = pp_bitor(p);
			if (!e || !check_target(p, e, "delete"))
				return NULL;
			PP_PUSH(p, n->list, n->n, cap, e);
		} while (pp_accept_op(p, ","));
		return n;
	}
	default:
		return n;
	}
}

static bool simple_statements(parser *p, pp_stmt_list *out)
{
	do {
		if (pp_cur(p)->kind == PYT_NEWLINE && out->n)
			break; /* trailing ';' */
		py_node *s = small_statement(p);
		if (!s)
			return false;
		PP_PUSH(p, out->v, out->n, out->cap, s);
	} while (pp_accept_op(p, ";"));
	if (pp_cur(p)->kind != PYT_NEWLINE) {
		pp_unexpected(p);
		return false;
	}
	pp_advance(p);
	return true;
}


/* ---- compound statements ---- */

/* if / elif / else: an elif chain is read in a loop (a chain of 100,000
 * branches must not recurse), each elif becoming the one statement of the
 * orelse of the branch before it. */
static py_node *if_statement(parser *p)
{
	py_node *first = NULL, *last = NULL;
	do {
		const py_token *head = pp_cur(p);
		bool elif = head->s[2] == 'i';
		uint32_t line = head->loc.line;
		py_node *n = pp_node(p, PY_IF, head->loc);
		pp_advance(p);
		if (!(n->a = pp_named_expression(p)) ||
		    !colon_block(p, elif ? "after 'elif' condition" : "after 'if' condition",
		                 elif ? "'elif' statement" : "'if' statement", line, &n->body, &n->nbody,
		                 &n->lazy_body, top(p)))
			return NULL;
		if (last) {
			last->orelse = pp_alloc(p, sizeof(py_node *));
			last->orelse[0] = n;
			last->norelse = 1;
		} else {
			first = n;
		}
		last = n;
	} while (pp_is_kw(p, "elif"));
	return else_block(p, last) ? first : NULL;
}

static py_node *while_statement(parser *p)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_WHILE, pp_cur(p)->loc);
	pp_advance(p);
	if (!(n->a = pp_named_expression(p)) ||
	    !colon_block(p, "after 'while' condition", "'while' statement", line, &n->body, &n->nbody,
	                 &n->lazy_body, top(p)))
		return NULL;
	return else_block(p, n) ? n : NULL;
}

static py_node *for_statement(parser *p)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_FOR, pp_cur(p)->loc);
	pp_advance(p);
	if (!(n->a = pp_target_list(p)) || !check_target(p, n->a, "assign to"))
		return NULL;
	if (!pp_accept_kw(p, "in")) {
		pp_error(p, "expected 'in' after the 'for' target");
		return NULL;
	}
	if (!(n->b = pp_star_expressions(p)) ||
	    !colon_block(p, "after 'for' header", "'for' statement", line, &n->body, &n->nbody,
	                 &n->lazy_body, top(p)))
		return NULL;
	return else_block(p, n) ? n : NULL;
}

static py_node *except_clause(parser *p)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *h = pp_node(p, PY_EXCEPT, pp_cur(p)->loc);
	pp_advance(p);
	pp_accept_op(p, "*"); /* except* */
	if (!pp_is_op(p, ":")) {
		if (!(h->a = pp_expression(p)))
			return NULL;
		if (pp_accept_kw(p, "as")) {
			if (pp_cur(p)->kind != PYT_NAME) {
				pp_error(p, "expected a name after 'as'");
				return NULL;
			}
			h->str = pp_cur(p)->s;
			pp_advance(p);
		}
	}
	return colon_block(p, "after 'except' clause", "'except' statement", line, &h->body, &h->nbody,
	                   &h->lazy_body, top(p)) ? h : NULL;
}

static py_node *try_statement(parser *p)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_TRY, pp_cur(p)->loc);
	pp_advance(p);
	if (!colon_block(p, "after 'try'", "'try' statement", line, &n->body, &n->nbody, &n->lazy_body, top(p)))
		return NULL;
	int cap = 0;
	/* a kernel in a handler or a finally block does not make a kernel factory */
	bool kernel_seen = p->kernel_seen;
	while (pp_is_kw(p, "except")) {
		py_node *h = except_clause(p);
		if (!h)
			return NULL;
		PP_PUSH(p, n->list, n->n, cap, h);
	}
	p->kernel_seen = kernel_seen;
	if (n->n && !else_block(p, n))
		return NULL;
	kernel_seen = p->kernel_seen;
	line = pp_cur(p)->loc.line;
	if (pp_accept_kw(p, "finally")) {
		if (!colon_block(p, "after 'finally'", "'finally' statement", line, &n->finalbody, &n->nfinal,
		                 &n->lazy_final, top(p)))
			return NULL;
		p->kernel_seen = kernel_seen;
	} else if (!n->n) {
		pp_error(p, "expected 'except' or 'finally' block");
		return NULL;
	}
	return n;
}

/* Does the '(' at the current token open a parenthesised list of with-items
 * (`with (a as b, c):`) rather than an expression?  It does when the
 * matching ')' is followed by ':'. */
static bool paren_with_items(parser *p)
{
	int depth = 0;
	for (int k = 0;; k++) {
		const py_token *t = pp_peek(p, k);
		if (t->kind == PYT_EOF || t->kind == PYT_ERROR)
			return false;
		if (t->kind != PYT_OP)
			continue;
		if (strchr("([{", t->s[0]) && t->s[1] == 0)
			depth++;
		else if (strchr(")]}", t->s[0]) && t->s[1] == 0 && --depth == 0) {
			const py_token *next = pp_peek(p, k + 1);
			return next->kind == PYT_OP && !strcmp(next->s, ":");
		}
	}
}

static bool with_item(parser *p, py_node *n, int *cap, int *tcap)
{
	py_node *e = pp_expression(p), *target = NULL;
	if (!e)
		return false;
	if (pp_accept_kw(p, "as")) {
		if (pp_is_op(p, "*")) {
			pp_error(p, "cannot use a starred expression as a 'with' target");
			return false;
		}
		if (!(target = pp_bitor(p)) || !check_target(p, target, "assign to"))
			return false;
	}
	if (e->kind == PY_CALL && e->a->kind == PY_ATTR && !strcmp(e->a->str, "Kernel"))
		p->kernel_seen = true;
	int nt = n->n;
	PP_PUSH(p, n->targets, nt, *tcap, target);
	PP_PUSH(p, n->list, n->n, *cap, e);
	n->ntargets = n->n;
	return true;
}

static py_node *with_statement(parser *p)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_WITH, pp_cur(p)->loc);
	pp_advance(p);
	int cap = 0, tcap = 0;
	if (pp_is_op(p, "(") && paren_with_items(p)) {
		pp_advance(p);
		do {
			if (pp_is_op(p, ")") && n->n)
				break;
			if (!with_item(p, n, &cap, &tcap))
				return NULL;
		} while (pp_accept_op(p, ","));
		if (!pp_expect_op(p, ")", "after the 'with' items"))
			return NULL;
	} else {
		do {
			if (!with_item(p, n, &cap, &tcap))
				return NULL;
		} while (pp_accept_op(p, ","));
	}
	return colon_block(p, "after 'with' items", "'with' statement", line, &n->body, &n->nbody,
	                   &n->lazy_body, top(p)) ? n : NULL;
}

static const char *def_name(parser *p, const char *what)
{
	const py_token *t = pp_cur(p);
	if (t->kind != PYT_NAME) {
		pp_error(p, "expected a name after '%s'", what);
		return NULL;
	}
	pp_advance(p);
	return t->s;
}

static py_node *def_statement(parser *p, py_node **decorators, int ndecorators)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_DEF, pp_cur(p)->loc);
	n->list = decorators;
	n->n = ndecorators;
	pp_advance(p);
	if (!(n->str = def_name(p, "def")) || !pp_expect_op(p, "(", "after the function name") ||
	    !pp_params(p, ")", true, &n->params, &n->nparams) || !pp_expect_op(p, ")", "after the parameters"))
		return NULL;
	if (pp_accept_op(p, "->") && !(n->b = pp_expression(p)))
		return NULL;
	bool outer_kernel = p->kernel_seen;
	p->kernel_seen = false;
	/* a def body is read when the function is first called (py_read_block) */
	bool ok = colon_block(p, "after the function signature", "function definition", line, &n->body,
	                      &n->nbody, &n->lazy_body, true);
	if (ok && n->lazy_body.line)
		n->holds_kernel = p->last_skip->holds_kernel; /* what py_check saw in it */
	else
		n->holds_kernel = p->kernel_seen;
	if (ok && p->check && p->last_skip)
		p->last_skip->holds_kernel = p->kernel_seen;
	p->kernel_seen = outer_kernel;
	for (int i = 0; i < ndecorators; i++)
		if (decorators[i]->kind == PY_ATTR && !strcmp(decorators[i]->str, "prim_func"))
			p->kernel_seen = true;
	return ok ? n : NULL;
}

static py_node *class_statement(parser *p, py_node **decorators, int ndecorators)
{
	uint32_t line = pp_cur(p)->loc.line;
	py_node *n = pp_node(p, PY_CLASS, pp_cur(p)->loc);
	n->targets = decorators;
	n->ntargets = ndecorators;
	pp_advance(p);
	if (!(n->str = def_name(p, "class")))
		return NULL;
	if (pp_is_op(p, "(")) {
		if (!pp_enter(p))
			return NULL;
		pp_advance(p);
		bool ok = pp_call_args(p, n); /* bases in list, keywords (metaclass=) in kw_names/kw_values */
		pp_leave(p);
		if (!ok)
			return NULL;
	}
	/* a class body never runs (host code): a reader never reads it */
	return colon_block(p, "after the class name", "class definition", line, &n->body, &n->nbody,
	                   &n->lazy_body, true) ? n : NULL;
}

static py_node *decorated(parser *p)
{
	py_node **decorators = NULL;
	int n = 0, cap = 0;
	while (pp_accept_op(p, "@")) {
		py_node *d = pp_named_expression(p);
		if (!d)
			return NULL;
		if (pp_cur(p)->kind != PYT_NEWLINE) {
			pp_unexpected(p);
			return NULL;
		}
		pp_advance(p);
		PP_PUSH(p, decorators, n, cap, d);
	}
	pp_accept_kw(p, "async");
	if (pp_is_kw(p, "def"))
		return def_statement(p, decorators, n);
	if (pp_is_kw(p, "class"))
		return class_statement(p, decorators, n);
	pp_error(p, "expected 'def' or 'class' after a decorator");
	return NULL;
}

static bool is_compound_keyword(const py_token *t)
{
	static const char *const kws[] = {"if", "while", "for", "try", "with", "def", "class", "async"};
	if (t->kind == PYT_KEYWORD)
		for (size_t i = 0; i < TLC_ARRAY_LEN(kws); i++)
			if (!strcmp(t->s, kws[i]))
				return true;
	return false;
}

bool pp_statement(parser *p, pp_stmt_list *out)
{
	const py_token *t = pp_cur(p);
	py_node *s = NULL;
	if (t->kind == PYT_INDENT || t->kind == PYT_NEWLINE || t->kind == PYT_DEDENT) {
		pp_unexpected(p);
		return false;
	}
	if (pp_is_op(p, "@")) {
		s = decorated(p);
	} else if (is_compound_keyword(t)) {
		if (!strcmp(t->s, "async")) {
			const py_token *next = pp_peek(p, 1);
			if (next->kind != PYT_KEYWORD || (strcmp(next->s, "def") && strcmp(next->s, "for") &&
			                                  strcmp(next->s, "with"))) {
				pp_advance(p);
				pp_error(p, "expected 'def', 'for' or 'with' after 'async'");
				return false;
			}
			pp_advance(p);
			t = pp_cur(p);
		}
		switch (t->s[0]) {
		case 'i': s = if_statement(p); break;
		case 'w': s = t->s[1] == 'h' ? while_statement(p) : with_statement(p); break;
		case 'f': s = for_statement(p); break;
		case 't': s = try_statement(p); break;
		case 'd': s = def_statement(p, NULL, 0); break;
		default: s = class_statement(p, NULL, 0); break;
		}
	} else {
		return simple_statements(p, out);
	}
	if (!s)
		return false;
	PP_PUSH(p, out->v, out->n, out->cap, s);
	return true;
}
