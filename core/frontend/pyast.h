/* pyast.h - the Python syntax tree read by the frontend (private to libtlc).
 *
 * pylex.c + pyparse.c turn source text into this tree; frontend*.c evaluates
 * it (compile-time Python) and builds tile IR.  The parser accepts the whole
 * Python statement/expression syntax that appears in real TileLang files
 * (host code included), so that host code can be skipped rather than
 * rejected; the evaluator decides what is supported.
 *
 * All nodes live in the arena passed to py_parse() and die with it. */
#ifndef TLC_PYAST_H
#define TLC_PYAST_H

#include "internal.h"

typedef enum py_kind {
	/* ---- expressions ---- */
	PY_NAME,      /* str = identifier */
	PY_INT,       /* ival */
	PY_FLOAT,     /* fval */
	PY_STR,       /* str = decoded contents (adjacent literals concatenated; f-strings
	                 kept as their raw text with is_fstring set) */
	PY_NONE,
	PY_TRUE,
	PY_FALSE,
	PY_ELLIPSIS,
	PY_ATTR,      /* a.str            (a = value, str = attribute name) */
	PY_CALL,      /* a(list...)       list = positional args (PY_STARRED for *x);
	                 kw_names/kw_values: n2 keyword args (kw_names[i] NULL for **x) */
	PY_SUBSCRIPT, /* a[b]             b = index: an expr, a PY_SLICE, or a PY_TUPLE of them */
	PY_SLICE,     /* a:b:c            each may be NULL */
	PY_BINOP,     /* a op b           op = PY_OP_* */
	PY_UNARYOP,   /* op a             op = PY_OP_NEG, PY_OP_POS, PY_OP_NOT, PY_OP_INVERT */
	PY_COMPARE,   /* list[0] ops[0] list[1] ops[1] list[2] ...   n = operands, ops has n-1 entries */
	PY_BOOLOP,    /* list joined by op (PY_OP_AND / PY_OP_OR), n >= 2 */
	PY_IFEXP,     /* b if a else c */
	PY_TUPLE,     /* list (n items); also for parenthesised or bare a, b */
	PY_LIST,      /* [list] */
	PY_DICT,      /* {kw_values[i] as key: list[i] as value}  -- see py_dict_key() */
	PY_SET,       /* {list} */
	PY_LAMBDA,    /* lambda params: a */
	PY_STARRED,   /* *a (in calls, targets) ; ival = 2 for **a */
	PY_COMP,      /* comprehension: ival = PY_LIST/PY_SET/PY_DICT/PY_TUPLE(generator);
	                 a = element (b = value for dict); list = PY_COMP_FOR clauses */
	PY_COMP_FOR,  /* for a in b if list... (list = conditions) */
	PY_NAMEDEXPR, /* a := b */
	PY_AWAIT,     /* await a  (parsed, never evaluated) */
	PY_YIELD,     /* yield a  (parsed, never evaluated) */

	/* ---- statements ---- */
	PY_MODULE,    /* body (list) */
	PY_EXPR_STMT, /* a */
	PY_ASSIGN,    /* list = targets (a = b = value has 2 targets), a = value */
	PY_AUGASSIGN, /* a op= b */
	PY_ANNASSIGN, /* a: b = c   (c may be NULL) */
	PY_IF,        /* if a: body  else: orelse   (elif = orelse holding one PY_IF) */
	PY_FOR,       /* for a in b: body else: orelse */
	PY_WHILE,     /* while a: body else: orelse */
	PY_WITH,      /* with list[i] as targets[i], ...: body   (targets entries may be NULL) */
	PY_DEF,       /* def str(params) -> b: body   decorators in list */
	PY_CLASS,     /* class str(list bases): body ; decorators in targets */
	PY_RETURN,    /* return a (a may be NULL) */
	PY_PASS,
	PY_BREAK,
	PY_CONTINUE,
	PY_IMPORT,    /* import names[i] as asnames[i]  (n names; asnames[i] may be NULL) */
	PY_IMPORT_FROM, /* from str import names[i] as asnames[i]; ival = relative level */
	PY_GLOBAL,    /* global/nonlocal names */
	PY_DEL,       /* del list */
	PY_ASSERT,    /* assert a, b */
	PY_RAISE,     /* raise a from b */
	PY_TRY,       /* try: body  handlers: list (PY_EXCEPT)  else: orelse  finally: finalbody */
	PY_EXCEPT,    /* except a as str: body */
} py_kind;

typedef enum py_op {
	PY_OP_NONE,
	PY_OP_ADD, PY_OP_SUB, PY_OP_MUL, PY_OP_DIV, PY_OP_FLOORDIV, PY_OP_MOD, PY_OP_POW,
	PY_OP_MATMUL, PY_OP_LSHIFT, PY_OP_RSHIFT, PY_OP_BITAND, PY_OP_BITOR, PY_OP_BITXOR,
	PY_OP_NEG, PY_OP_POS, PY_OP_NOT, PY_OP_INVERT,
	PY_OP_AND, PY_OP_OR,
	PY_OP_EQ, PY_OP_NE, PY_OP_LT, PY_OP_LE, PY_OP_GT, PY_OP_GE,
	PY_OP_IS, PY_OP_IS_NOT, PY_OP_IN, PY_OP_NOT_IN,
} py_op;

typedef struct py_node py_node;

/* A function or lambda parameter. */
typedef struct py_param {
	const char *name;
	py_node *annotation; /* may be NULL */
	py_node *def;        /* default value, may be NULL */
	int star;            /* 0 plain, 1 *args, 2 **kwargs; a bare '*' separator is dropped
	                        and sets kwonly on the following params */
	bool kwonly;
} py_param;

struct py_node {
	py_kind kind;
	tlc_loc loc; /* of the node's first token */
	py_op op;
	int64_t ival;
	double fval;
	const char *str;
	bool is_fstring;
	py_node *a, *b, *c;
	int n;             /* list length (also operand count of PY_COMPARE) */
	py_node **list;
	int n2;            /* keyword args of a call / keys of a dict */
	const char **kw_names;
	py_node **kw_values;
	py_op *ops;        /* PY_COMPARE */
	int nparams;       /* PY_DEF, PY_LAMBDA */
	py_param *params;
	int nbody;
	py_node **body;
	int norelse;
	py_node **orelse;
	int nfinal;
	py_node **finalbody;
	int ntargets;      /* PY_WITH: one per item (may be NULL); PY_CLASS: decorators */
	py_node **targets;
	int nnames;        /* PY_IMPORT, PY_IMPORT_FROM, PY_GLOBAL */
	const char **names;
	const char **asnames;
};

/* Parse a whole file.  `file` is the context's file index for locations.
 * Syntax errors are reported through ctx (file:line:col with caret) and the
 * result is NULL.  Never crashes on any input. */
py_node *py_parse(tlc_context *ctx, tlc_arena *arena, uint32_t file, const char *text, size_t len);

/* Append an S-expression form of the tree to out (tests, debugging). */
void py_dump(tlc_buf *out, const py_node *n);

/* For PY_DICT: key i (stored in kw_values[i]) and value i (list[i]). */
static inline py_node *py_dict_key(const py_node *d, int i) { return d->kw_values[i]; }

#endif
