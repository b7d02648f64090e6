/* pyparse.c - recursive-descent parser for Python statements (expressions
 * are in pyparse_expr.c), py_parse() and the S-expression dumper. */
#include "pyparse.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- token access and errors ---- */

const py_token *pp_peek(parser *p, int k)
{
	return k ? py_lexer_token(p->lex, p->pos + k) : p->tok;
}

void pp_advance(parser *p)
{
	if (p->tok->kind != PYT_EOF && p->tok->kind != PYT_ERROR) /* the last token: stay on it */
		p->tok = py_lexer_token(p->lex, ++p->pos);
}

void pp_back(parser *p)
{
	p->tok = py_lexer_token(p->lex, --p->pos);
}

/* Operator spellings are short: compare the first byte before calling strcmp
 * (the parser asks many times per token). */
bool pp_is_op(parser *p, const char *op)
{
	const py_token *t = pp_cur(p);
	return t->kind == PYT_OP && t->s[0] == op[0] && !strcmp(t->s, op);
}

bool pp_is_kw(parser *p, const char *kw)
{
	const py_token *t = pp_cur(p);
	return t->kind == PYT_KEYWORD && t->s[0] == kw[0] && !strcmp(t->s, kw);
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

/* The bytes a node of this kind uses (see struct py_node): most nodes are
 * names, literals and operators, and need a fraction of the whole struct. */
static size_t node_size(py_kind kind)
{
	switch (kind) {
	case PY_NAME: case PY_INT: case PY_FLOAT: case PY_STR: case PY_NONE: case PY_TRUE:
	case PY_FALSE: case PY_ELLIPSIS:
		return offsetof(py_node, a);
	case PY_ATTR: case PY_SUBSCRIPT: case PY_SLICE: case PY_BINOP: case PY_UNARYOP:
	case PY_IFEXP: case PY_STARRED: case PY_NAMEDEXPR: case PY_AWAIT: case PY_YIELD:
		return offsetof(py_node, n);
	case PY_CALL: case PY_COMPARE: case PY_BOOLOP: case PY_TUPLE: case PY_LIST: case PY_DICT:
	case PY_SET: case PY_COMP: case PY_COMP_FOR: case PY_EXPR_STMT: case PY_ASSIGN:
	case PY_AUGASSIGN: case PY_ANNASSIGN: case PY_RETURN: case PY_PASS: case PY_BREAK:
	case PY_CONTINUE: case PY_DEL: case PY_ASSERT: case PY_RAISE:
		return offsetof(py_node, nparams);
	default:
		return sizeof(py_node);
	}
}

void *pp_alloc(parser *p, size_t n)
{
	if (p->check)
		return py_pool_alloc(p->scratch, n);
	if (p->pool)
		return py_pool_alloc(p->pool, n);
	return tlc_arena_alloc(p->arena, n);
}

py_node *pp_node(parser *p, py_kind kind, tlc_loc loc)
{
	py_node *n = pp_alloc(p, node_size(kind));
	n->kind = (unsigned char)kind;
	n->loc = loc;
	if (!p->check && (kind == PY_DEF || kind == PY_LAMBDA))
		p->made_closure = true;
	return n;
}

void pp_push(parser *p, void *arrp, int *n, int *cap, size_t elsize, const void *elem)
{
	char **arr = arrp;
	if (*n == *cap) {
		if (*cap > INT32_MAX / 2) {
			pp_error(p, "too many items");
			return;
		}
		int ncap = *cap ? *cap * 2 : 4;
		char *grown = pp_alloc(p, (size_t)ncap * elsize);
		if (*n)
			memcpy(grown, *arr, (size_t)*n * elsize);
		*arr = grown;
		*cap = ncap;
	}
	memcpy(*arr + (size_t)*n * elsize, elem, elsize);
	(*n)++;
}

void pp_statement_done(parser *p, py_pool_mark scratch_mark)
{
	if (p->check)
		py_pool_release(p->scratch, scratch_mark);
	py_lexer_release(p->lex, p->pos);
}

void pp_statements(parser *p, pp_stmt_list *out)
{
	while (!p->failed && pp_cur(p)->kind != PYT_EOF) {
		py_pool_mark m = py_pool_mark_now(p->scratch);
		pp_statement(p, out);
		pp_statement_done(p, m);
		if (p->check) /* its nodes are gone */
			*out = (pp_stmt_list){0};
	}
}


/* ---- entry points ---- */

static void parser_init(parser *p, py_source *src, tlc_arena *arena, size_t start, uint32_t line,
                        bool one_block)
{
	memset(p, 0, sizeof(*p));
	p->ctx = src->ctx;
	p->src = src;
	p->arena = arena;
	p->lex = py_lexer_new(src, start, line, one_block);
	p->tok = py_lexer_token(p->lex, 0);
	p->scratch = py_pool_new();
}

static void parser_fini(parser *p)
{
	py_lexer_free(p->lex);
	py_pool_free(p->scratch);
}

py_node *py_parse(tlc_context *ctx, tlc_arena *arena, uint32_t file, const char *text, size_t len)
{
	py_source src;
	py_source_init(&src, ctx, arena, file, text, len);
	parser P;
	parser_init(&P, &src, arena, 0, 1, false);
	py_node *mod = pp_node(&P, PY_MODULE, (tlc_loc){file, 1, 1});
	pp_stmt_list body = {0};
	pp_statements(&P, &body);
	bool failed = P.failed;
	parser_fini(&P);
	py_source_fini(&src);
	if (failed)
		return NULL;
	mod->body = body.v;
	mod->nbody = body.n;
	return mod;
}

bool py_check(py_source *src)
{
	parser P;
	parser_init(&P, src, NULL, 0, 1, false);
	P.check = 1;
	pp_stmt_list body = {0};
	pp_statements(&P, &body);
	bool ok = !P.failed;
	parser_fini(&P);
	return ok;
}

struct py_reader {
	parser p;
};

py_reader *py_reader_new(py_source *src, tlc_arena *arena)
{
	py_reader *r = tlc_xcalloc(1, sizeof(*r));
	parser_init(&r->p, src, arena, 0, 1, false);
	r->p.lazy = true;
	return r;
}

py_reader *py_reader_block(py_source *src, tlc_arena *arena, const py_lazy *lazy)
{
	py_reader *r = tlc_xcalloc(1, sizeof(*r));
	parser_init(&r->p, src, arena, lazy->at, lazy->line, true);
	r->p.lazy = true;
	r->p.block_depth = 1; /* its compound statements are built, defs and big blocks left for later */
	return r;
}

void py_reader_free(py_reader *r)
{
	if (!r)
		return;
	parser_fini(&r->p);
	free(r);
}

int py_reader_next(py_reader *r, py_pool *pool, py_node ***stmts, bool *retains)
{
	parser *p = &r->p;
	if (p->failed)
		return -1;
	if (pp_cur(p)->kind == PYT_EOF)
		return 0;
	p->pool = pool;
	p->made_closure = false;
	pp_stmt_list l = {0};
	py_pool_mark m = py_pool_mark_now(p->scratch);
	pp_statement(p, &l);
	pp_statement_done(p, m);
	p->pool = NULL;
	*stmts = l.v;
	*retains = p->made_closure;
	return p->failed ? -1 : l.n;
}

bool py_read_block(py_source *src, tlc_arena *arena, py_pool *pool, py_lazy *lazy, py_node ***body,
                   int *n, bool *closures)
{
	*closures = false;
	if (!lazy->line)
		return true;
	parser P;
	parser_init(&P, src, arena, lazy->at, lazy->line, true);
	P.pool = pool;
	P.lazy = true;
	P.block_depth = 1; /* its compound statements are built, defs and big blocks left for later */
	pp_stmt_list l = {0};
	pp_statements(&P, &l);
	bool failed = P.failed;
	*closures = P.made_closure;
	parser_fini(&P);
	if (failed)
		return false;
	*body = l.v;
	*n = l.n;
	lazy->line = 0;
	return true;
}

/* ---- S-expression dumper (tests and debugging) ---- */

#define PY_DUMP_DEPTH 2000 /* deeper trees print "...": the dump recurses */

typedef struct dump_out {
	tlc_buf *b;
	int depth;
} dump_out;

static void dump_node(dump_out *out, const py_node *n);

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

static void dump_string(dump_out *out, const char *s)
{
	tlc_buf_putc(out->b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			tlc_buf_printf(out->b, "\\%c", c);
		else if (c == '\n')
			tlc_buf_puts(out->b, "\\n");
		else if (c < ' ' || c >= 0x7f)
			tlc_buf_printf(out->b, "\\x%02x", c);
		else
			tlc_buf_putc(out->b, (char)c);
	}
	tlc_buf_putc(out->b, '"');
}

static void dump_list(dump_out *out, const char *head, py_node *const *v, int n)
{
	tlc_buf_printf(out->b, " (%s", head);
	for (int i = 0; i < n; i++) {
		tlc_buf_putc(out->b, ' ');
		dump_node(out, v[i]);
	}
	tlc_buf_putc(out->b, ')');
}

/* " a" or " _" for NULL */
static void dump_opt(dump_out *out, const py_node *n)
{
	tlc_buf_putc(out->b, ' ');
	if (n)
		dump_node(out, n);
	else
		tlc_buf_putc(out->b, '_');
}

static void dump_params(dump_out *out, const py_param *ps, int n)
{
	tlc_buf_puts(out->b, " (");
	for (int i = 0; i < n; i++) {
		const py_param *q = &ps[i];
		bool plain = !q->annotation && !q->def;
		tlc_buf_printf(out->b, "%s%s%s%s", i ? " " : "", plain ? "" : "(",
		               q->star == 2 ? "**" : q->star ? "*" : q->kwonly ? "kw:" : "", q->name);
		if (q->annotation) {
			tlc_buf_puts(out->b, " :");
			dump_opt(out, q->annotation);
		}
		if (q->def) {
			tlc_buf_puts(out->b, " =");
			dump_opt(out, q->def);
		}
		if (!plain)
			tlc_buf_putc(out->b, ')');
	}
	tlc_buf_putc(out->b, ')');
}

static void dump_names(dump_out *out, const py_node *n)
{
	for (int i = 0; i < n->nnames; i++) {
		if (n->asnames && n->asnames[i])
			tlc_buf_printf(out->b, " (as %s %s)", n->names[i], n->asnames[i]);
		else
			tlc_buf_printf(out->b, " %s", n->names[i]);
	}
}

static void dump_call(dump_out *out, const py_node *n)
{
	for (int i = 0; i < n->n; i++)
		dump_opt(out, n->list[i]);
	for (int i = 0; i < n->n2; i++) {
		if (n->kw_names[i])
			tlc_buf_printf(out->b, " (kw %s", n->kw_names[i]);
		else
			tlc_buf_puts(out->b, " (**");
		dump_opt(out, n->kw_values[i]);
		tlc_buf_putc(out->b, ')');
	}
}

static void dump_body(dump_out *out, const py_node *n)
{
	dump_list(out, "body", n->body, n->nbody);
	if (n->norelse)
		dump_list(out, "else", n->orelse, n->norelse);
	if (n->nfinal)
		dump_list(out, "finally", n->finalbody, n->nfinal);
}

static void dump_expr(dump_out *out, const py_node *n)
{
	switch (n->kind) {
	case PY_ATTR: tlc_buf_puts(out->b, "(."); dump_opt(out, n->a); tlc_buf_printf(out->b, " %s)", n->str); return;
	case PY_CALL: tlc_buf_puts(out->b, "(call"); dump_opt(out, n->a); dump_call(out, n); break;
	case PY_SUBSCRIPT: tlc_buf_puts(out->b, "(sub"); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_SLICE: tlc_buf_puts(out->b, "(slice"); dump_opt(out, n->a); dump_opt(out, n->b); dump_opt(out, n->c); break;
	case PY_BINOP: case PY_UNARYOP:
		tlc_buf_printf(out->b, "(%s", op_spelling(n->op));
		dump_opt(out, n->a);
		if (n->kind == PY_BINOP)
			dump_opt(out, n->b);
		break;
	case PY_COMPARE:
		tlc_buf_puts(out->b, "(cmp");
		for (int i = 0; i < n->n; i++) {
			if (i)
				tlc_buf_printf(out->b, " %s", op_spelling(n->ops[i - 1]));
			dump_opt(out, n->list[i]);
		}
		break;
	case PY_BOOLOP: tlc_buf_printf(out->b, "(%s", op_spelling(n->op)); dump_call(out, n); break;
	case PY_IFEXP: tlc_buf_puts(out->b, "(ifexp"); dump_opt(out, n->a); dump_opt(out, n->b); dump_opt(out, n->c); break;
	case PY_TUPLE: tlc_buf_puts(out->b, "(tuple"); dump_call(out, n); break;
	case PY_LIST: tlc_buf_puts(out->b, "(list"); dump_call(out, n); break;
	case PY_SET: tlc_buf_puts(out->b, "(set"); dump_call(out, n); break;
	case PY_DICT:
		tlc_buf_puts(out->b, "(dict");
		for (int i = 0; i < n->n; i++) {
			tlc_buf_puts(out->b, n->kw_values[i] ? " (" : " (**");
			if (n->kw_values[i])
				dump_node(out, n->kw_values[i]);
			dump_opt(out, n->list[i]);
			tlc_buf_putc(out->b, ')');
		}
		break;
	case PY_LAMBDA: tlc_buf_puts(out->b, "(lambda"); dump_params(out, n->params, n->nparams); dump_opt(out, n->a); break;
	case PY_STARRED: tlc_buf_puts(out->b, n->ival == 2 ? "(**" : "(*"); dump_opt(out, n->a); break;
	case PY_COMP:
		tlc_buf_puts(out->b, n->ival == PY_LIST ? "(listcomp" : n->ival == PY_SET ? "(setcomp"
		                  : n->ival == PY_DICT ? "(dictcomp" : "(genexp");
		dump_opt(out, n->a);
		if (n->b)
			dump_opt(out, n->b);
		for (int i = 0; i < n->n; i++)
			dump_opt(out, n->list[i]);
		break;
	case PY_COMP_FOR:
		tlc_buf_puts(out->b, "(for");
		dump_opt(out, n->a);
		dump_opt(out, n->b);
		for (int i = 0; i < n->n; i++) {
			tlc_buf_puts(out->b, " (if");
			dump_opt(out, n->list[i]);
			tlc_buf_putc(out->b, ')');
		}
		break;
	case PY_NAMEDEXPR: tlc_buf_puts(out->b, "(:="); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_AWAIT: tlc_buf_puts(out->b, "(await"); dump_opt(out, n->a); break;
	case PY_YIELD:
		tlc_buf_puts(out->b, n->ival ? "(yield-from" : "(yield");
		if (n->a)
			dump_opt(out, n->a);
		break;
	default: tlc_buf_printf(out->b, "(?kind%d", (int)n->kind); break;
	}
	tlc_buf_putc(out->b, ')');
}

static void dump_stmt(dump_out *out, const py_node *n)
{
	switch (n->kind) {
	case PY_MODULE: tlc_buf_puts(out->b, "(module"); for (int i = 0; i < n->nbody; i++) dump_opt(out, n->body[i]); break;
	case PY_EXPR_STMT: tlc_buf_puts(out->b, "(expr"); dump_opt(out, n->a); break;
	case PY_ASSIGN: tlc_buf_puts(out->b, "(="); dump_call(out, n); dump_opt(out, n->a); break;
	case PY_AUGASSIGN: tlc_buf_printf(out->b, "(%s=", op_spelling(n->op)); dump_opt(out, n->a); dump_opt(out, n->b); break;
	case PY_ANNASSIGN:
		tlc_buf_puts(out->b, "(ann");
		dump_opt(out, n->a);
		dump_opt(out, n->b);
		if (n->c)
			dump_opt(out, n->c);
		break;
	case PY_IF: case PY_WHILE:
		tlc_buf_puts(out->b, n->kind == PY_IF ? "(if" : "(while");
		dump_opt(out, n->a);
		dump_body(out, n);
		break;
	case PY_FOR: tlc_buf_puts(out->b, "(for"); dump_opt(out, n->a); dump_opt(out, n->b); dump_body(out, n); break;
	case PY_WITH:
		tlc_buf_puts(out->b, "(with");
		for (int i = 0; i < n->n; i++) {
			if (n->targets[i]) {
				tlc_buf_puts(out->b, " (as");
				dump_opt(out, n->list[i]);
				dump_opt(out, n->targets[i]);
				tlc_buf_putc(out->b, ')');
			} else {
				dump_opt(out, n->list[i]);
			}
		}
		dump_body(out, n);
		break;
	case PY_DEF: case PY_CLASS:
		tlc_buf_printf(out->b, "(%s %s", n->kind == PY_DEF ? "def" : "class", n->str);
		if (n->kind == PY_DEF) {
			dump_params(out, n->params, n->nparams);
			if (n->b) {
				tlc_buf_puts(out->b, " (->");
				dump_opt(out, n->b);
				tlc_buf_putc(out->b, ')');
			}
			if (n->n)
				dump_list(out, "@", n->list, n->n);
		} else {
			if (n->n || n->n2) {
				tlc_buf_puts(out->b, " (bases");
				dump_call(out, n);
				tlc_buf_putc(out->b, ')');
			}
			if (n->ntargets)
				dump_list(out, "@", n->targets, n->ntargets);
		}
		dump_body(out, n);
		break;
	case PY_RETURN: tlc_buf_puts(out->b, "(return"); if (n->a) dump_opt(out, n->a); break;
	case PY_PASS: tlc_buf_puts(out->b, "(pass"); break;
	case PY_BREAK: tlc_buf_puts(out->b, "(break"); break;
	case PY_CONTINUE: tlc_buf_puts(out->b, "(continue"); break;
	case PY_IMPORT: tlc_buf_puts(out->b, "(import"); dump_names(out, n); break;
	case PY_IMPORT_FROM:
		tlc_buf_puts(out->b, "(from ");
		for (int i = 0; i < n->level; i++)
			tlc_buf_putc(out->b, '.');
		tlc_buf_puts(out->b, n->str ? n->str : "");
		dump_names(out, n);
		break;
	case PY_GLOBAL: tlc_buf_puts(out->b, n->ival ? "(nonlocal" : "(global"); for (int i = 0; i < n->nnames; i++) tlc_buf_printf(out->b, " %s", n->names[i]); break;
	case PY_DEL: tlc_buf_puts(out->b, "(del"); dump_call(out, n); break;
	case PY_ASSERT: tlc_buf_puts(out->b, "(assert"); dump_opt(out, n->a); if (n->b) dump_opt(out, n->b); break;
	case PY_RAISE:
		tlc_buf_puts(out->b, "(raise");
		if (n->a)
			dump_opt(out, n->a);
		if (n->b) {
			tlc_buf_puts(out->b, " (from");
			dump_opt(out, n->b);
			tlc_buf_putc(out->b, ')');
		}
		break;
	case PY_TRY:
		tlc_buf_puts(out->b, "(try");
		dump_list(out, "body", n->body, n->nbody);
		for (int i = 0; i < n->n; i++)
			dump_opt(out, n->list[i]);
		if (n->norelse)
			dump_list(out, "else", n->orelse, n->norelse);
		if (n->nfinal)
			dump_list(out, "finally", n->finalbody, n->nfinal);
		break;
	case PY_EXCEPT:
		tlc_buf_puts(out->b, "(except");
		if (n->a)
			dump_opt(out, n->a);
		if (n->str)
			tlc_buf_printf(out->b, " (as %s)", n->str);
		dump_body(out, n);
		break;
	default: dump_expr(out, n); return;
	}
	tlc_buf_putc(out->b, ')');
}

/* Like Python's repr(float): the shortest digits that read back exactly,
 * positional notation for exponents -4..15, always with a '.' or 'e'. */
static void dump_float(dump_out *out, double v)
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
		tlc_buf_puts(out->b, s); /* inf, nan, or exponent form */
		return;
	}
	int decimals = prec - 1 - exp > 1 ? prec - 1 - exp : 1;
	tlc_buf_printf(out->b, "%.*f", decimals, v);
}

static void dump_inner(dump_out *out, const py_node *n)
{
	if (!n) {
		tlc_buf_puts(out->b, "_");
		return;
	}
	switch (n->kind) {
	case PY_NAME: tlc_buf_puts(out->b, n->str); return;
	case PY_INT: tlc_buf_printf(out->b, "%lld", (long long)n->ival); return;
	case PY_FLOAT: dump_float(out, n->fval); return;
	case PY_STR:
		if (n->is_fstring)
			tlc_buf_putc(out->b, 'f');
		dump_string(out, n->str);
		return;
	case PY_NONE: tlc_buf_puts(out->b, "None"); return;
	case PY_TRUE: tlc_buf_puts(out->b, "True"); return;
	case PY_FALSE: tlc_buf_puts(out->b, "False"); return;
	case PY_ELLIPSIS: tlc_buf_puts(out->b, "..."); return;
	default: dump_stmt(out, n); return;
	}
}

static void dump_node(dump_out *out, const py_node *n)
{
	if (out->depth >= PY_DUMP_DEPTH) { /* a left-deep a + a + ... as long as the file */
		tlc_buf_puts(out->b, "...");
		return;
	}
	out->depth++;
	dump_inner(out, n);
	out->depth--;
}

void py_dump(tlc_buf *b, const py_node *n)
{
	dump_out out = {b, 0};
	dump_node(&out, n);
}
