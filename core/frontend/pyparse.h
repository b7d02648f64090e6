/* pyparse.h - state shared by the statement parser (pyparse.c) and the
 * expression parser (pyparse_expr.c).  Private to libtlc. */
#ifndef TLC_PYPARSE_H
#define TLC_PYPARSE_H

#include "pyast.h"
#include "pylex.h"

#define PY_MAX_DEPTH 200

typedef struct parser {
	tlc_context *ctx;
	py_source *src;
	py_lexer *lex;
	tlc_arena *arena;  /* built nodes, unless pool is set */
	py_pool *pool;     /* built nodes of the statement being streamed, or NULL */
	py_pool *scratch;  /* nodes of code only checked: given back after each statement */
	int pos;
	const py_token *tok; /* token pos: asked for many times each */
	int depth;         /* nesting of brackets, unary operators, blocks, ... */
	int check;         /* > 0: only check the syntax, keep no tree */
	int block_depth;   /* blocks around the statement being read */
	bool lazy;         /* a py_reader: jump over def and class bodies, top-level blocks */
	bool kernel_seen;  /* the def body being read holds a T.Kernel or @T.prim_func */
	struct py_skip *last_skip; /* the entry of the block just checked */
	bool made_closure; /* a def or lambda was built: the statement's tree must stay */
	bool failed;       /* an error was reported: unwind */
} parser;

/* Where the indented block whose first line starts at byte `key` ends:
 * the line that dedents out of it (py_check notes it, a py_reader jumps). */
typedef struct py_skip {
	size_t key;
	size_t resume;     /* the start of the dedenting line (or the end of the text) */
	uint32_t line;     /* its line number */
	bool holds_kernel; /* a def body: see py_node.holds_kernel */
} py_skip;
py_skip *py_skip_add(py_source *src, size_t key);
py_skip *py_skip_find(const py_source *src, size_t key);

/* ---- token access (pyparse.c) ---- */
/* Token pointers are valid until the end of the statement that reads them:
 * copy what must outlive a nested statement (pp_statement_done frees them). */
const py_token *pp_peek(parser *p, int k);
static inline const py_token *pp_cur(parser *p) { return p->tok; }
void pp_advance(parser *p);
void pp_back(parser *p); /* one token back, within the statement being read */
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
void *pp_alloc(parser *p, size_t n);
/* A statement of a block is parsed: give back its tokens (and its nodes
 * when only checking). */
void pp_statement_done(parser *p, py_pool_mark scratch_mark);
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
/* A whole file (or the one def being re-read) into out. */
void pp_statements(parser *p, pp_stmt_list *out);

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
