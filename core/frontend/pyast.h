/* pyast.h - the Python syntax tree read by the frontend (private to libtlc).
 *
 * pylex.c + pyparse*.c turn source text into this tree (pysource.c: the
 * memory it lives in); frontend*.c evaluates
 * it (compile-time Python) and builds tile IR.  The parser accepts the whole
 * Python statement/expression syntax that appears in real TileLang files
 * (host code included), so that host code can be skipped rather than
 * rejected; the evaluator decides what is supported.
 *
 * Nodes live in the arena or pool they were read into and die with it. */
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
	PY_IMPORT_FROM, /* from str import names[i] as asnames[i]; level = relative level */
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

/* An indented block that the reader left unread: `line` (0: none) is its
 * first line, starting at byte `at` of the text.  A big one (over
 * PY_BIG_BLOCK bytes) is never built whole: it is read and run one
 * statement at a time (py_reader_block). */
typedef struct py_lazy {
	size_t at;
	uint32_t line;
	bool big;
} py_lazy;

/* Bytes of source past which a block is streamed rather than kept as a tree. */
#define PY_BIG_BLOCK (64 * 1024)

/* A function or lambda parameter. */
typedef struct py_param {
	const char *name;
	py_node *annotation; /* may be NULL */
	py_node *def;        /* default value, may be NULL */
	int star;            /* 0 plain, 1 *args, 2 **kwargs; a bare '*' separator is dropped
	                        and sets kwonly on the following params */
	bool kwonly;
} py_param;

/* A node is allocated only as large as its kind needs (pp_node): a name or a
 * literal ends at `a`, an operator at `n`, other expressions and simple
 * statements at `nparams`.  The syntax tree of a big file is most of the
 * frontend's memory, so never read a field its kind does not have. */
struct py_node {
	unsigned char kind; /* py_kind */
	unsigned char op;   /* py_op */
	bool is_fstring;
	bool holds_kernel; /* PY_DEF: its body has a T.Kernel frame or a @T.prim_func def */
	tlc_loc loc;       /* of the node's first token */
	union {
		int64_t ival;
		double fval;
		const char *str;
	};
	/* ---- operators ---- */
	py_node *a, *b, *c;
	/* ---- other expressions, simple statements ---- */
	int n;             /* list length (also operand count of PY_COMPARE) */
	int n2;            /* keyword args of a call / keys of a dict */
	py_node **list;
	const char **kw_names;
	py_node **kw_values;
	py_op *ops;        /* PY_COMPARE */
	/* ---- compound statements, imports, lambdas ---- */
	int nparams;       /* PY_DEF, PY_LAMBDA */
	int nbody, norelse, nfinal;
	int ntargets;      /* PY_WITH: one per item (may be NULL); PY_CLASS: decorators */
	int nnames;        /* PY_IMPORT, PY_IMPORT_FROM, PY_GLOBAL */
	py_param *params;
	py_node **body, **orelse, **finalbody, **targets;
	const char **names;
	const char **asnames;
	int level;         /* PY_IMPORT_FROM: the leading dots */
	/* blocks left unread by a py_reader (see py_read_block) */
	py_lazy lazy_body, lazy_orelse, lazy_final;
};

/* A source file as the lexer and parser read it, for as long as its tree
 * lives: identifiers are interned here, so the tree, environments and
 * values share one copy of each name. */
typedef struct py_source {
	tlc_context *ctx;
	uint32_t file;
	const char *text; /* after a UTF-8 byte order mark */
	size_t len;
	tlc_arena *arena; /* interned names and dotted module names */
	const char **names;
	size_t nnames, cap_names;
	struct py_skip *skips; /* where each indented block ends, found by py_check */
	size_t nskips, cap_skips;
} py_source;

void py_source_init(py_source *src, tlc_context *ctx, tlc_arena *arena, uint32_t file,
                    const char *text, size_t len);
void py_source_fini(py_source *src);
/* The interned copy of s[0..n). */
const char *py_intern(py_source *src, const char *s, size_t n);

/* A stack of node memory: what a statement allocated can be given back
 * (py_pool_release) once nothing refers to it any more. */
typedef struct py_pool py_pool;
typedef struct py_pool_mark {
	void *block;
	size_t used;
} py_pool_mark;
py_pool *py_pool_new(void);
void py_pool_free(py_pool *pool);
void *py_pool_alloc(py_pool *pool, size_t n); /* zeroed, 8-byte aligned */
py_pool_mark py_pool_mark_now(const py_pool *pool);
/* Free everything allocated after m. */
void py_pool_release(py_pool *pool, py_pool_mark m);

/* Parse a whole file.  `file` is the context's file index for locations.
 * Syntax errors are reported through ctx (file:line:col with caret) and the
 * result is NULL.  Never crashes on any input. */
py_node *py_parse(tlc_context *ctx, tlc_arena *arena, uint32_t file, const char *text, size_t len);

/* Check the syntax of the whole file without keeping a tree (memory does
 * not grow with the file), and note where each indented block ends.
 * Reports the first error; false then. */
bool py_check(py_source *src);

/* Read a checked file one top-level statement at a time, each into `pool`.
 * The bodies of defs and classes, the blocks of the top-level statements
 * and every big block are jumped over (no tree is built for them) and left
 * in the node's lazy_* fields: py_read_block reads one when it runs, so host
 * code that never runs costs neither a tree nor a second parse. */
typedef struct py_reader py_reader;
py_reader *py_reader_new(py_source *src, tlc_arena *arena);
/* A reader of the statements of one block left unread. */
py_reader *py_reader_block(py_source *src, tlc_arena *arena, const py_lazy *lazy);
void py_reader_free(py_reader *r);
/* The next statements (several for `a; b`) into *stmts: their count, 0 at
 * the end, -1 after an error.  *retains: they hold a def or lambda, whose
 * value keeps the tree alive (else the pool may be released after them). */
int py_reader_next(py_reader *r, py_pool *pool, py_node ***stmts, bool *retains);
/* Read a block left for later into *body and *n (nodes in `pool` if not NULL,
 * else in `arena`) and clear *lazy; *closures: it holds a def or lambda.
 * False (an error reported) if it cannot be read. */
bool py_read_block(py_source *src, tlc_arena *arena, py_pool *pool, py_lazy *lazy, py_node ***body,
                   int *n, bool *closures);

/* Append an S-expression form of the tree to out (tests, debugging). */
void py_dump(tlc_buf *out, const py_node *n);

/* For PY_DICT: key i (stored in kw_values[i]) and value i (list[i]). */
static inline py_node *py_dict_key(const py_node *d, int i) { return d->kw_values[i]; }

#endif
