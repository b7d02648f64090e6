/* pyparse.c - recursive-descent parser for Python statements (expressions
 * are in pyparse_expr.c), py_parse() and the S-expression dumper. */
#include "pyparse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- token access and errors ---- */

const py_token *pp_peek(parser *p, int k)
{
	int i = p->pos + k;
	return &p->toks[i < p->ntoks ? i : p->ntoks - 1];
}

void pp_advance(parser *p)
{
	if (p->pos < p->ntoks - 1)
		p->pos++;
}

bool pp_is_op(parser *p, const char *op)
{
	const py_token *t = pp_cur(p);
	return t->kind == PYT_OP && !strcmp(t->s, op);
}

bool pp_is_kw(parser *p, const char *kw)
{
	const py_token *t = pp_cur(p);
	return t->kind == PYT_KEYWORD && !strcmp(t->s, kw);
}

bool pp_accept_op(parser *p, const char *op)
{
	if (!pp_is_op(p, op))
		return false;
	pp_advance(p);
	return true;
}

bool pp_accept_kw(parser *p, const char *kw)
{
	if (!pp_is_kw(p, kw))
		return false;
	pp_advance(p);
	return true;
}

static void verror(parser *p, tlc_loc loc, const char *fmt, va_list ap)
{
	if (p->failed)
		return;
	p->failed = true;
	const py_token *t = pp_cur(p);
	if (t->kind == PYT_ERROR) /* the lexer's message explains it better */
		tlc_diag(p->ctx, TLC_ERROR, t->loc, "%s", t->s);
	else
		tlc_vdiag(p->ctx, TLC_ERROR, loc, fmt, ap);
}

void pp_error(parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(p, pp_cur(p)->loc, fmt, ap);
	va_end(ap);
}

void pp_error_at(parser *p, tlc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verror(p, loc, fmt, ap);
	va_end(ap);
}

void pp_unexpected(parser *p)
{
	const py_token *t = pp_cur(p);
	switch (t->kind) {
	case PYT_NAME: case PYT_KEYWORD: case PYT_OP:
		pp_error(p, "invalid syntax: unexpected '%s'", t->s);
		break;
	case PYT_INT: case PYT_FLOAT:
		pp_error(p, "invalid syntax: unexpected number");
		break;
	case PYT_STRING:
		pp_error(p, "invalid syntax: unexpected string literal");
		break;
	case PYT_NEWLINE:
		pp_error(p, "invalid syntax: unexpected end of line");
		break;
	case PYT_INDENT:
		pp_error(p, "unexpected indent");
		break;
	case PYT_DEDENT:
		pp_error(p, "invalid syntax: unexpected unindent");
		break;
	default:
		pp_error(p, "invalid syntax: unexpected end of file");
		break;
	}
}

bool pp_expect_op(parser *p, const char *op, const char *context)
{
	if (pp_accept_op(p, op))
		return true;
	const py_token *t = pp_cur(p);
	if (t->kind == PYT_NAME || t->kind == PYT_KEYWORD || t->kind == PYT_OP)
		pp_error(p, "expected '%s' %s, found '%s'", op, context, t->s);
	else
		pp_error(p, "expected '%s' %s", op, context);
	return false;
}

bool pp_enter(parser *p)
{
	if (p->depth >= PY_MAX_DEPTH) {
		pp_error(p, "too deeply nested");
		return false;
	}
	p->depth++;
	return true;
}

py_node *pp_node(parser *p, py_kind kind, tlc_loc loc)
{
	py_node *n = tlc_arena_alloc(p->arena, sizeof(*n));
	n->kind = kind;
	n->loc = loc;
	return n;
}

void pp_push(parser *p, void *arrp, int *n, int *cap, size_t elsize, const void *elem)
{
	char **arr = arrp;
	if (*n == *cap) {
		int ncap = *cap ? *cap * 2 : 4;
		char *grown = tlc_arena_alloc(p->arena, (size_t)ncap * elsize);
		if (*n)
			memcpy(grown, *arr, (size_t)*n * elsize);
		*arr = grown;
		*cap = ncap;
	}
	memcpy(*arr + (size_t)*n * elsize, elem, elsize);
	(*n)++;
}


/* ---- entry point ---- */

py_node *py_parse(tlc_context *ctx, tlc_arena *arena, uint32_t file, const char *text, size_t len)
{
	parser P;
	memset(&P, 0, sizeof(P));
	P.ctx = ctx;
	P.arena = arena;
	if (len >= 3 && text && !memcmp(text, "\xEF\xBB\xBF", 3)) { /* UTF-8 byte order mark */
		text += 3;
		len -= 3;
	}
	P.ntoks = py_tokenize(arena, file, text, len, &P.toks);
	py_node *mod = pp_node(&P, PY_MODULE, (tlc_loc){file, 1, 1});
	pp_stmt_list body = {0};
	while (!P.failed && pp_cur(&P)->kind != PYT_EOF)
		pp_statement(&P, &body);
	free(P.toks);
	if (P.failed)
		return NULL;
	mod->body = body.v;
	mod->nbody = body.n;
	return mod;
}

/* ---- S-expression dumper (tests and debugging) ---- */

static const char *op_spelling(py_op op)
{
	static const char *const names[] = {
		[PY_OP_NONE] = "?", [PY_OP_ADD] = "+", [PY_OP_SUB] = "-", [PY_OP_MUL] = "*",
		[PY_OP_DIV] = "/", [PY_OP_FLOORDIV] = "//", [PY_OP_MOD] = "%", [PY_OP_POW] = "**",
		[PY_OP_MATMUL] = "@", [PY_OP_LSHIFT] = "<<", [PY_OP_RSHIFT] = ">>", [PY_OP_BITAND] = "&",
		[PY_OP_BITOR] = "|", [PY_OP_BITXOR] = "^", [PY_OP_NEG] = "-", [PY_OP_POS] = "+",
		[PY_OP_NOT] = "not", [PY_OP_INVERT] = "~", [PY_OP_AND] = "and", [PY_OP_OR] = "or",
		[PY_OP_EQ] = "==", [PY_OP_NE] = "!=", [PY_OP_LT] = "<", [PY_OP_LE] = "<=",
		[PY_OP_GT] = ">", [PY_OP_GE] = ">=", [PY_OP_IS] = "is", [PY_OP_IS_NOT] = "is-not",
		[PY_OP_IN] = "in", [PY_OP_NOT_IN] = "not-in",
	};
	return (unsigned)op < TLC_ARRAY_LEN(names) && names[op] ? names[op] : "?";
}

static void dump_string(tlc_buf *out, const char *s)
{
	tlc_buf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			tlc_buf_printf(out, "\\%c", c);
		else if (c == '\n')
			tlc_buf_puts(out, "\\n");
		else if (c < ' ' || c >= 0x7f)
			tlc_buf_printf(out, "\\x%02x", c);
		else
			tlc_buf_putc(out, (char)c);
	}
	tlc_buf_putc(out, '"');
}

static void dump_list(tlc_buf *out, const char *head, py_node *const *v, int n)
{
	tlc_buf_printf(out, " (%s", head);
	for (int i = 0; i < n; i++) {
		tlc_buf_putc(out, ' ');
		py_dump(out, v[i]);
	}
	tlc_buf_putc(out, ')');
}

/* " a" or " _" for NULL */
static void dump_opt(tlc_buf *out, const py_node *n)
{
	tlc_buf_putc(out, ' ');
	if (n)
		py_dump(out, n);
	else
		tlc_buf_putc(out, '_');
}

static void dump_params(tlc_buf *out, const py_param *ps, int n)
{
	tlc_buf_puts(out, " (");
	for (int i = 0; i < n; i++) {
		const py_param *q = &ps[i];
		bool plain = !q->annotation && !q->def;
		tlc_buf_printf(out, "%s%s%s%s", i ? " " : "", plain ? "" : "(",
		               q->star == 2 ? "**" : q->star ? "*" : q->kwonly ? "kw:" : "", q->name);
		if (q->annotation) {
			tlc_buf_puts(out, " :");
			dump_opt(out, q->annotation);
		}
		if (q->def) {
			tlc_buf_puts(out, " =");
			dump_opt(out, q->def);
		}
		if (!plain)
			tlc_buf_putc(out, ')');
	}
	tlc_buf_putc(out, ')');
}

static void dump_names(tlc_buf *out, const py_node *n)
{
	for (int i = 0; i < n->nnames; i++) {
		if (n->asnames && n->asnames[i])
			tlc_buf_printf(out, " (as %s %s)", n->names[i], n->asnames[i]);
		else
			tlc_buf_printf(out, " %s", n->names[i]);
	}
}

static void dump_call(tlc_buf *out, const py_node *n)
{
	for (int i = 0; i < n->n; i++)
		dump_opt(out, n->list[i]);
	for (int i = 0; i < n->n2; i++) {
		if (n->kw_names[i])
			tlc_buf_printf(out, " (kw %s", n->kw_names[i]);
		else
			tlc_buf_puts(out, " (**");
		dump_opt(out, n->kw_values[i]);
		tlc_buf_putc(out, ')');
	}
}

static void dump_body(tlc_buf *out, const py_node *n)
{
	dump_list(out, "body", n->body, n->nbody);
	if (n->norelse)
		dump_list(out, "else", n->orelse, n->norelse);
	if (n->nfinal)
		dump_list(out, "finally", n->finalbody, n->nfinal);
}

static void dump_expr(tlc_buf *out, const py_node *n)
{
	switch (n->kind) {
	case PY_ATTR: tlc_buf_puts(out, "(."); dump_opt(out, n->a); tlc_buf_printf(out, " %s)", n->str); return;
	case PY_CALL: tlc_buf_puts(out, "(call"); dump_opt(out, n->a); dump_call(out, n); break;
	case PY_SUBSCRIPT: tlc_buf_puts(out, "(sub"); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_SLICE: tlc_buf_puts(out, "(slice"); dump_opt(out, n->a); dump_opt(out, n->b); dump_opt(out, n->c); break;
	case PY_BINOP: case PY_UNARYOP:
		tlc_buf_printf(out, "(%s", op_spelling(n->op));
		dump_opt(out, n->a);
		if (n->kind == PY_BINOP)
			dump_opt(out, n->b);
		break;
	case PY_COMPARE:
		tlc_buf_puts(out, "(cmp");
		for (int i = 0; i < n->n; i++) {
			if (i)
				tlc_buf_printf(out, " %s", op_spelling(n->ops[i - 1]));
			dump_opt(out, n->list[i]);
		}
		break;
	case PY_BOOLOP: tlc_buf_printf(out, "(%s", op_spelling(n->op)); dump_call(out, n); break;
	case PY_IFEXP: tlc_buf_puts(out, "(ifexp"); dump_opt(out, n->a); dump_opt(out, n->b); dump_opt(out, n->c); break;
	case PY_TUPLE: tlc_buf_puts(out, "(tuple"); dump_call(out, n); break;
	case PY_LIST: tlc_buf_puts(out, "(list"); dump_call(out, n); break;
	case PY_SET: tlc_buf_puts(out, "(set"); dump_call(out, n); break;
	case PY_DICT:
		tlc_buf_puts(out, "(dict");
		for (int i = 0; i < n->n; i++) {
			tlc_buf_puts(out, n->kw_values[i] ? " (" : " (**");
			if (n->kw_values[i])
				py_dump(out, n->kw_values[i]);
			dump_opt(out, n->list[i]);
			tlc_buf_putc(out, ')');
		}
		break;
	case PY_LAMBDA: tlc_buf_puts(out, "(lambda"); dump_params(out, n->params, n->nparams); dump_opt(out, n->a); break;
	case PY_STARRED: tlc_buf_puts(out, n->ival == 2 ? "(**" : "(*"); dump_opt(out, n->a); break;
	case PY_COMP:
		tlc_buf_puts(out, n->ival == PY_LIST ? "(listcomp" : n->ival == PY_SET ? "(setcomp"
		                  : n->ival == PY_DICT ? "(dictcomp" : "(genexp");
		dump_opt(out, n->a);
		if (n->b)
			dump_opt(out, n->b);
		for (int i = 0; i < n->n; i++)
			dump_opt(out, n->list[i]);
		break;
	case PY_COMP_FOR:
		tlc_buf_puts(out, "(for");
		dump_opt(out, n->a);
		dump_opt(out, n->b);
		for (int i = 0; i < n->n; i++) {
			tlc_buf_puts(out, " (if");
			dump_opt(out, n->list[i]);
			tlc_buf_putc(out, ')');
		}
		break;
	case PY_NAMEDEXPR: tlc_buf_puts(out, "(:="); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_AWAIT: tlc_buf_puts(out, "(await"); dump_opt(out, n->a); break;
	case PY_YIELD:
		tlc_buf_puts(out, n->ival ? "(yield-from" : "(yield");
		if (n->a)
			dump_opt(out, n->a);
		break;
	default: tlc_buf_printf(out, "(?kind%d", (int)n->kind); break;
	}
	tlc_buf_putc(out, ')');
}

static void dump_stmt(tlc_buf *out, const py_node *n)
{
	switch (n->kind) {
	case PY_MODULE: tlc_buf_puts(out, "(module"); for (int i = 0; i < n->nbody; i++) dump_opt(out, n->body[i]); break;
	case PY_EXPR_STMT: tlc_buf_puts(out, "(expr"); dump_opt(out, n->a); break;
	case PY_ASSIGN: tlc_buf_puts(out, "(="); dump_call(out, n); dump_opt(out, n->a); break;
	case PY_AUGASSIGN: tlc_buf_printf(out, "(%s=", op_spelling(n->op)); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_ANNASSIGN:
		tlc_buf_puts(out, "(ann");
		dump_opt(out, n->a);
		dump_opt(out, n->b);
		if (n->c)
			dump_opt(out, n->c);
		break;
	case PY_IF: case PY_WHILE:
		tlc_buf_puts(out, n->kind == PY_IF ? "(if" : "(while");
		dump_opt(out, n->a);
		dump_body(out, n);
		break;
	case PY_FOR: tlc_buf_puts(out, "(for"); dump_opt(out, n->a); dump_opt(out, n->b); dump_body(out, n); break;
	case PY_WITH:
		tlc_buf_puts(out, "(with");
		for (int i = 0; i < n->n; i++) {
			if (n->targets[i]) {
				tlc_buf_puts(out, " (as");
				dump_opt(out, n->list[i]);
				dump_opt(out, n->targets[i]);
				tlc_buf_putc(out, ')');
			} else {
				dump_opt(out, n->list[i]);
			}
		}
		dump_body(out, n);
		break;
	case PY_DEF: case PY_CLASS:
		tlc_buf_printf(out, "(%s %s", n->kind == PY_DEF ? "def" : "class", n->str);
		if (n->kind == PY_DEF) {
			dump_params(out, n->params, n->nparams);
			if (n->b) {
				tlc_buf_puts(out, " (->");
				dump_opt(out, n->b);
				tlc_buf_putc(out, ')');
			}
			if (n->n)
				dump_list(out, "@", n->list, n->n);
		} else {
			if (n->n || n->n2) {
				tlc_buf_puts(out, " (bases");
				dump_call(out, n);
				tlc_buf_putc(out, ')');
			}
			if (n->ntargets)
				dump_list(out, "@", n->targets, n->ntargets);
		}
		dump_body(out, n);
		break;
	case PY_RETURN: tlc_buf_puts(out, "(return"); if (n->a) dump_opt(out, n->a); break;
	case PY_PASS: tlc_buf_puts(out, "(pass"); break;
	case PY_BREAK: tlc_buf_puts(out, "(break"); break;
	case PY_CONTINUE: tlc_buf_puts(out, "(continue"); break;
	case PY_IMPORT: tlc_buf_puts(out, "(import"); dump_names(out, n); break;
	case PY_IMPORT_FROM:
		tlc_buf_puts(out, "(from ");
		for (int i = 0; i < n->ival; i++)
			tlc_buf_putc(out, '.');
		tlc_buf_puts(out, n->str ? n->str : "");
		dump_names(out, n);
		break;
	case PY_GLOBAL: tlc_buf_puts(out, n->ival ? "(nonlocal" : "(global"); for (int i = 0; i < n->nnames; i++) tlc_buf_printf(out, " %s", n->names[i]); break;
	case PY_DEL: tlc_buf_puts(out, "(del"); dump_call(out, n); break;
	case PY_ASSERT: tlc_buf_puts(out, "(assert"); dump_opt(out, n->a); if (n->b) dump_opt(out, n->b); break;
	case PY_RAISE:
		tlc_buf_puts(out, "(raise");
		if (n->a)
			dump_opt(out, n->a);
		if (n->b) {
			tlc_buf_puts(out, " (from");
			dump_opt(out, n->b);
			tlc_buf_putc(out, ')');
		}
		break;
	case PY_TRY:
		tlc_buf_puts(out, "(try");
		dump_list(out, "body", n->body, n->nbody);
		for (int i = 0; i < n->n; i++)
			dump_opt(out, n->list[i]);
		if (n->norelse)
			dump_list(out, "else", n->orelse, n->norelse);
		if (n->nfinal)
			dump_list(out, "finally", n->finalbody, n->nfinal);
		break;
	case PY_EXCEPT:
		tlc_buf_puts(out, "(except");
		if (n->a)
			dump_opt(out, n->a);
		if (n->str)
			tlc_buf_printf(out, " (as %s)", n->str);
		dump_body(out, n);
		break;
	default: dump_expr(out, n); return;
	}
	tlc_buf_putc(out, ')');
}

/* Like Python's repr(float): the shortest digits that read back exactly,
 * positional notation for exponents -4..15, always with a '.' or 'e'. */
static void dump_float(tlc_buf *out, double v)
{
	char s[64];
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec - 1, v);
		if (strtod(s, NULL) == v)
			break;
	}
	snprintf(s, sizeof(s), "%.*e", prec - 1, v);
	const char *e = strchr(s, 'e');
	int exp = e ? atoi(e + 1) : 0;
	if (!e || exp < -4 || exp >= 16) {
		tlc_buf_puts(out, s); /* inf, nan, or exponent form */
		return;
	}
	int decimals = prec - 1 - exp > 1 ? prec - 1 - exp : 1;
	tlc_buf_printf(out, "%.*f", decimals, v);
}

void py_dump(tlc_buf *out, const py_node *n)
{
	if (!n) {
		tlc_buf_puts(out, "_");
		return;
	}
	switch (n->kind) {
	case PY_NAME: tlc_buf_puts(out, n->str); return;
	case PY_INT: tlc_buf_printf(out, "%lld", (long long)n->ival); return;
	case PY_FLOAT: dump_float(out, n->fval); return;
	case PY_STR:
		if (n->is_fstring)
			tlc_buf_putc(out, 'f');
		dump_string(out, n->str);
		return;
	case PY_NONE: tlc_buf_puts(out, "None"); return;
	case PY_TRUE: tlc_buf_puts(out, "True"); return;
	case PY_FALSE: tlc_buf_puts(out, "False"); return;
	case PY_ELLIPSIS: tlc_buf_puts(out, "..."); return;
	default: dump_stmt(out, n); return;
	}
}
