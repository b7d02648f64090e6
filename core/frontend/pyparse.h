/* pyparse.h - state shared by the statement parser (pyparse.c) and the
 * expression parser (pyparse_expr.c).  Private to libtlc. */
#ifndef TLC_PYPARSE_H
#define TLC_PYPARSE_H

#include "pyast.h"
#include "pylex.h"

#define PY_MAX_DEPTH 200

typedef struct parser {
	tlc_context *ctx;
	tlc_arena *arena;
	py_token *toks;
	int ntoks, pos;
	int depth;   /* nesting of brackets, unary operators, blocks, ... */
	bool failed; /* an error was reported: unwind */
} parser;

/* ---- token access (pyparse.c) ---- */
const py_token *pp_peek(parser *p, int k);
static inline const py_token *pp_cur(parser *p) { return pp_peek(p, 0); }
void pp_advance(parser *p);
bool pp_is_op(parser *p, const char *op);
bool pp_is_kw(parser *p, const char *kw);
bool pp_accept_op(parser *p, const char *op);
bool pp_accept_kw(parser *p, const char *kw);
/* Report an error at the current token (or the lexer's error if the
 * current token is one) unless one was reported already. */
void pp_error(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pp_error_at(parser *p, tlc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "invalid syntax: unexpected 'X'" at the current token. */
void pp_unexpected(parser *p);
bool pp_expect_op(parser *p, const char *op, const char *context);
bool pp_enter(parser *p);
static inline void pp_leave(parser *p) { p->depth--; }

py_node *pp_node(parser *p, py_kind kind, tlc_loc loc);
/* Append to an arena-grown array; *cap tracks its capacity. */
void pp_push(parser *p, void *arrp, int *n, int *cap, size_t elsize, const void *elem);
#define PP_PUSH(p, arr, n, cap, elem) pp_push((p), &(arr), &(n), &(cap), sizeof(*(arr)), &(elem))

/* ---- statements (pyparse_stmt.c) ---- */
typedef struct pp_stmt_list {
	py_node **v;
	int n, cap;
} pp_stmt_list;
/* Parse one statement (several for `a; b`) and append it to out. */
bool pp_statement(parser *p, pp_stmt_list *out);

/* ---- expressions (pyparse_expr.c) ---- */
py_node *pp_expression(parser *p);       /* lambda / ternary ("test") */
py_node *pp_named_expression(parser *p); /* NAME := test | test */
py_node *pp_disjunction(parser *p);      /* or_test */
py_node *pp_bitor(parser *p);            /* a target-level expression (stops at 'in') */
py_node *pp_star_expressions(parser *p); /* a, *b, c  -> tuple when there is a comma */
py_node *pp_yield_expr(parser *p);       /* at 'yield' */
py_node *pp_target_list(parser *p);      /* for/comprehension targets: a, (b, c), *d */
/* Parse a parameter list up to `close` (")" for def, ":" for lambda). */
bool pp_params(parser *p, const char *close, bool annotations, py_param **params, int *nparams);
/* Parse call arguments after '(' up to and including ')', into call. */
bool pp_call_args(parser *p, py_node *call);

#endif
