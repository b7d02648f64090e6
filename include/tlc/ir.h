/* tlc/ir.h - the tile IR owned by libtlc.
 *
 * A module holds kernels (tlc_func).  Everything in a module lives in the
 * module's arena and is freed with tlc_module_free(); plugins never free IR.
 * Expressions are immutable and hash-consed: two structurally equal
 * expressions built in one module are the same pointer, so pointer equality is
 * structural equality.  Statements are mutable trees that passes rebuild or
 * edit in place.  The grammar of the printed form is in doc/ir.md. */
#ifndef TLC_IR_H
#define TLC_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TLC_API __attribute__((visibility("default")))
#else
#define TLC_API
#endif

typedef struct tlc_context tlc_context; /* a compile session: registry, diagnostics, options */
typedef struct tlc_module tlc_module;
typedef struct tlc_arena tlc_arena;

/* ---- source locations ---- */

typedef struct tlc_loc {
	uint32_t file; /* index into the context's file table; 0 = none */
	uint32_t line; /* 1-based; 0 = unknown */
	uint32_t col;  /* 1-based */
} tlc_loc;

/* ---- arena ---- */

/* Allocate n zeroed bytes (8-byte aligned) from the module's arena. */
TLC_API void *tlc_alloc(tlc_module *m, size_t n);
/* Copy a string into the module's arena. */
TLC_API const char *tlc_strdup(tlc_module *m, const char *s);
/* Intern a string: equal strings give the same pointer within a module. */
TLC_API const char *tlc_intern(tlc_module *m, const char *s);

/* Heap memory for a pass's own working tables (IR itself goes in the arena).
 * These never return NULL: when memory runs out tlc reports it and exits
 * with status 70 (an internal error), so passes need no failure path. */
TLC_API void *tlc_mem_alloc(size_t n); /* zeroed */
TLC_API void *tlc_mem_realloc(void *p, size_t n);
TLC_API void tlc_mem_free(void *p);
/* Room for element n of a growable array p of *cap elements of `size`
 * bytes: doubles *cap (from 8) when n == *cap; returns the array. */
TLC_API void *tlc_mem_grow(void *p, int n, int *cap, size_t size);

/* ---- data types ---- */

typedef enum tlc_dtype {
	TLC_DT_VOID = 0, /* statements, calls without value, handles */
#define DTYPE(e, name, bits, cls) TLC_DT_##e,
#include <tlc/dtypes.def>
#undef DTYPE
	TLC_DT_COUNT
} tlc_dtype;

/* Canonical name ("float16"); "void" for TLC_DT_VOID. */
TLC_API const char *tlc_dtype_name(tlc_dtype t);
/* Size in bits (0 for void). */
TLC_API int tlc_dtype_bits(tlc_dtype t);
TLC_API bool tlc_dtype_is_float(tlc_dtype t);
TLC_API bool tlc_dtype_is_int(tlc_dtype t);       /* signed or unsigned, not bool */
TLC_API bool tlc_dtype_is_unsigned(tlc_dtype t);
/* The values an integer (or bool) type holds, as [*lo, *hi] (uint64: up to
 * INT64_MAX, what an IR constant can hold); false for other types. */
TLC_API bool tlc_dtype_int_range(tlc_dtype t, int64_t *lo, int64_t *hi);
/* Parse a dtype name in any TileLang spelling ("float16", "half", "float",
 * "float8_e4m3", ...). Returns TLC_DT_VOID if unknown. */
TLC_API tlc_dtype tlc_dtype_from_name(const char *name);

/* ---- ops (tile ops and intrinsics) ---- */

enum {
	TLC_OPF_PURE = 1 << 0,
	TLC_OPF_TILE = 1 << 1,
	TLC_OPF_SCOPE = 1 << 2,
	TLC_OPF_SYNC = 1 << 3,
	TLC_OPF_LOWERED = 1 << 4,
};

typedef enum tlc_builtin_op {
#define OP(e, name, mina, maxa, flags) TLC_OP_##e,
#include <tlc/ops.def>
#undef OP
	TLC_OP_BUILTIN_COUNT
} tlc_builtin_op;

/* An op id is an index into the context's op table: the builtin ops first
 * (tlc_builtin_op values), then ops registered by plugins. */
typedef int tlc_op_id;

typedef struct tlc_op_info {
	const char *name; /* printed as T.<name> */
	int min_args;
	int max_args; /* -1: any number */
	unsigned flags;
} tlc_op_info;

/* Look an op up by printed name (without "T."); -1 if unknown. */
TLC_API tlc_op_id tlc_op_lookup(const tlc_context *ctx, const char *name);
TLC_API const tlc_op_info *tlc_op_get(const tlc_context *ctx, tlc_op_id op);

/* ---- variables and buffers ---- */

typedef enum tlc_scope {
	TLC_SCOPE_GLOBAL,     /* kernel parameters (T.Tensor) */
	TLC_SCOPE_SHARED,     /* T.alloc_shared(..., scope="shared") */
	TLC_SCOPE_SHARED_DYN, /* T.alloc_shared default */
	TLC_SCOPE_FRAGMENT,   /* T.alloc_fragment: a tile distributed over threads */
	TLC_SCOPE_LOCAL,      /* T.alloc_local: per-thread array */
	TLC_SCOPE_VAR,        /* T.alloc_var: per-thread scalar */
	TLC_SCOPE_BARRIER,    /* T.alloc_barrier: mbarriers */
} tlc_scope;

/* Printed name of a scope: "global", "shared", "shared.dyn", "local.fragment", ... */
TLC_API const char *tlc_scope_name(tlc_scope s);

typedef struct tlc_var {
	const char *name; /* unique within a function after tlc_func_uniquify_names() */
	tlc_dtype dtype;
	uint32_t id; /* unique within the module */
} tlc_var;

typedef struct tlc_layout tlc_layout; /* defined by the layout algebra (later issues) */

typedef struct tlc_buffer {
	const char *name;
	tlc_dtype dtype;
	tlc_scope scope;
	int ndim;
	const struct tlc_expr **shape; /* ndim extents */
	/* alloc_barrier: arrive counts (one per barrier, shape[0] of them);
	 * alloc_var: optional initial value in init[0]; otherwise NULL */
	const struct tlc_expr **init;
	int ninit;
	const tlc_layout *layout; /* set by layout inference or annotate_layout; NULL = row-major */
	uint32_t id;              /* unique within the module */
	tlc_loc loc;              /* where it was declared */
	/* T.view: this buffer reinterprets the storage of alias_of (same scope,
	 * its own shape and dtype, at most as many bytes); NULL = own storage */
	const struct tlc_buffer *alias_of;
	/* T.make_tensor(ptr, shape, dtype) over a pointer value read at run
	 * time (a T.ptr parameter, an element of a pointer table): a global
	 * buffer whose first element is at the address `base` (a 64-bit integer
	 * expression, evaluated where the buffer is declared); NULL otherwise */
	const struct tlc_expr *base;
	/* shared.dyn: byte offset in the kernel's dynamic shared arena, set by
	 * the storage-plan pass (a T.view: its source's); -1 = not planned.
	 * Printed as `offset=N` in T.alloc_shared. */
	int64_t offset;
} tlc_buffer;

/* ---- expressions ---- */

typedef enum tlc_expr_kind {
#define EXPR(e, spelling, arity) TLC_EXPR_##e,
#include <tlc/exprs.def>
#undef EXPR
	TLC_EXPR_COUNT
} tlc_expr_kind;

/* One dimension of a REGION: a slice [begin, begin+extent) or, when
 * is_point, the single index begin (that dimension is dropped). */
typedef struct tlc_range {
	const struct tlc_expr *begin;
	const struct tlc_expr *extent;
	bool is_point;
} tlc_range;

typedef struct tlc_expr {
	tlc_expr_kind kind;
	tlc_dtype dtype; /* value type; VOID for calls without value, tuples, regions */
	uint32_t hash;
	union {
		int64_t ival;
		double fval;
		const char *str; /* STR, SYM (interned) */
		tlc_var *var;
		tlc_buffer *buf;
		struct {
			const struct tlc_expr *a, *b, *c;
		} op; /* unary/binary operators, SELECT (c ? a : b stored as a=cond,b=then,c=else), CAST (a) */
		struct {
			tlc_buffer *buf;
			int n;
			const struct tlc_expr **idx;
		} load;
		struct {
			tlc_buffer *buf;
			int n;
			const tlc_range *dims;
		} region;
		struct {
			int n;
			const struct tlc_expr **items;
			bool is_list; /* printed [..] instead of (..) */
			bool is_dict; /* items are (key, value) pairs printed {k: v, ...} */
		} tuple;
		struct {
			tlc_op_id op;
			int nargs;
			const struct tlc_expr **args;
			int nkw;
			const char **kw_names; /* interned */
			const struct tlc_expr **kw_values;
		} call;
		struct {
			int nparams;
			tlc_var **params;
			const struct tlc_expr *body; /* a TUPLE for several outputs */
		} lambda;
	} u;
} tlc_expr;

/* Constructors.  All return hash-consed nodes owned by the module.  They do
 * not simplify (the simplify pass and tlc_simplify() do that), except that
 * constructors check arity and compute the result dtype. */
TLC_API const tlc_expr *tlc_int(tlc_module *m, tlc_dtype t, int64_t v);
TLC_API const tlc_expr *tlc_i32(tlc_module *m, int64_t v); /* tlc_int(m, TLC_DT_INT32, v) */
TLC_API const tlc_expr *tlc_bool(tlc_module *m, bool v);
TLC_API const tlc_expr *tlc_float(tlc_module *m, tlc_dtype t, double v);
TLC_API const tlc_expr *tlc_str(tlc_module *m, const char *s);
TLC_API const tlc_expr *tlc_sym(tlc_module *m, const char *dotted_name);
TLC_API const tlc_expr *tlc_var_ref(tlc_module *m, tlc_var *v);
TLC_API const tlc_expr *tlc_buf_ref(tlc_module *m, tlc_buffer *b);
/* The type both operands of binary operator k (or the two branches of a
 * SELECT) are converted to when their types are a and b: TileLang's (TVM's)
 * rule, doc/language.md "Arithmetic".  An IEEE float (float16/32/64) beats
 * any other type, the wider of two; else bfloat16; else a float8 (two
 * different float8 formats: TLC_DT_VOID, an error); else the wider integer,
 * unsigned when as wide; bool with any other type gives that type.
 * Arithmetic (+ - * / // % << >>) on two bools is int32; `and`/`or` give
 * bool. */
TLC_API tlc_dtype tlc_operand_type(tlc_expr_kind k, tlc_dtype a, tlc_dtype b);
/* Unary and binary operators, SELECT, MIN/MAX.  The operands are converted
 * to tlc_operand_type (explicit T.cast nodes; a constant becomes a constant
 * of that type), except that an integer constant beside a non-constant
 * operand takes that operand's type when its value survives (i + 1 is an
 * int64 sum for an int64 i).  So both operands of every node have one type:
 * comparisons and logic give bool, arithmetic that type.  `not`, `and`, `or`
 * and the condition of a SELECT take bools (x != 0 for other types); NEG of
 * a bool is an int32. */
TLC_API const tlc_expr *tlc_unary(tlc_module *m, tlc_expr_kind k, const tlc_expr *a);
TLC_API const tlc_expr *tlc_binary(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b);
TLC_API const tlc_expr *tlc_select(tlc_module *m, const tlc_expr *cond, const tlc_expr *t, const tlc_expr *f);
/* a converted to dtype t (T.cast(a, t)): a itself when it has type t, the
 * constant of t when a is a constant (the language's conversion of its
 * value, as TVM's cast folds constants), else a CAST node. */
TLC_API const tlc_expr *tlc_cast(tlc_module *m, tlc_dtype t, const tlc_expr *a);
/* The bits of a read as dtype t (T.reinterpret(a, t)): a itself when it has
 * type t, else a BITCAST node (never folded here: tlc_simplify folds it where
 * the result is exact).  The widths must agree (the verifier checks it). */
TLC_API const tlc_expr *tlc_bitcast(tlc_module *m, tlc_dtype t, const tlc_expr *a);
TLC_API const tlc_expr *tlc_load(tlc_module *m, tlc_buffer *b, int n, const tlc_expr *const *idx);
TLC_API const tlc_expr *tlc_region(tlc_module *m, tlc_buffer *b, int n, const tlc_range *dims);
TLC_API const tlc_expr *tlc_tuple(tlc_module *m, int n, const tlc_expr *const *items, bool is_list);
/* A dict {keys[i]: values[i]}: a TUPLE of (key, value) pair tuples with is_dict set. */
TLC_API const tlc_expr *tlc_dict(tlc_module *m, int n, const tlc_expr *const *keys,
                                 const tlc_expr *const *values);
/* A call of op with positional args and keyword args.  dtype is the result
 * type (VOID for tile ops). */
TLC_API const tlc_expr *tlc_call(tlc_module *m, tlc_op_id op, tlc_dtype t, int nargs,
                                 const tlc_expr *const *args, int nkw, const char *const *kw_names,
                                 const tlc_expr *const *kw_values);
TLC_API const tlc_expr *tlc_lambda(tlc_module *m, int nparams, tlc_var *const *params, const tlc_expr *body);

/* Keyword argument of a call by name; NULL if absent. */
TLC_API const tlc_expr *tlc_call_kw(const tlc_expr *call, const char *name);
/* True and *v set if e is an integer constant. */
TLC_API bool tlc_expr_as_int(const tlc_expr *e, int64_t *v);

/* ---- statements ---- */

typedef enum tlc_stmt_kind {
	TLC_STMT_SEQ,   /* a block of statements */
	TLC_STMT_FOR,   /* for var in <kind>(min, min+extent) */
	TLC_STMT_IF,    /* if cond: then else: else */
	TLC_STMT_LET,   /* var = value (binding visible to the rest of the enclosing block) */
	TLC_STMT_STORE, /* buf[idx...] = value */
	TLC_STMT_EVAL,  /* a call evaluated for its effect (tile ops, barriers) */
	TLC_STMT_ALLOC, /* buffer declaration (scope: rest of the enclosing block) */
	TLC_STMT_SCOPE, /* with T.<scope op>(...): body   (T.ws) */
	TLC_STMT_ATTR,  /* with T.attr(key, value): body */
} tlc_stmt_kind;

typedef enum tlc_for_kind {
	TLC_FOR_SERIAL,    /* range / T.serial */
	TLC_FOR_PARALLEL,  /* T.Parallel */
	TLC_FOR_PIPELINED, /* T.Pipelined */
	TLC_FOR_UNROLLED,  /* T.unroll */
	TLC_FOR_VECTORIZED,/* T.vectorized */
	TLC_FOR_THREAD,    /* T.thread_binding: bound to a thread index (after lowering) */
} tlc_for_kind;

/* T.Pipelined annotations. order/stage have one entry per statement of the
 * loop body (n_order == n_stage, or 0 when not given). */
typedef struct tlc_pipeline_info {
	int num_stages;
	int n_order;
	const int *order;
	int n_stage;
	const int *stage;
	int n_group;        /* groups: lists of statement indices */
	const int *group_len;
	const int *const *group;
} tlc_pipeline_info;

typedef struct tlc_stmt tlc_stmt;
struct tlc_stmt {
	tlc_stmt_kind kind;
	tlc_loc loc;
	union {
		struct {
			int n, cap;
			tlc_stmt **items;
		} seq;
		struct {
			tlc_var *var;
			const tlc_expr *min;
			const tlc_expr *extent;
			tlc_for_kind kind;
			int thread_dim;            /* TLC_FOR_THREAD: 0,1,2 = x,y,z */
			tlc_pipeline_info pipe;    /* TLC_FOR_PIPELINED */
			/* TLC_FOR_PARALLEL, on the outermost loop of a nest: the user's
			 * T.Parallel(loop_layout=) (a T.Fragment expression, see
			 * tlc/layout.h) or NULL, and coalesced_width= (0 = unset) */
			const tlc_expr *loop_layout;
			int64_t coalesced_width;
			tlc_stmt *body;
		} loop;
		struct {
			const tlc_expr *cond;
			tlc_stmt *then_s;
			tlc_stmt *else_s; /* may be NULL */
		} if_;
		struct {
			tlc_var *var;
			const tlc_expr *value;
		} let;
		struct {
			tlc_buffer *buf;
			int n;
			const tlc_expr **idx;
			const tlc_expr *value;
		} store;
		struct {
			const tlc_expr *call;
		} eval;
		struct {
			tlc_buffer *buf;
		} alloc;
		struct {
			const tlc_expr *call; /* CALL of a TLC_OPF_SCOPE op */
			tlc_stmt *body;
		} scope;
		struct {
			const char *key; /* interned */
			const tlc_expr *value;
			tlc_stmt *body;
		} attr;
	} u;
};

/* Statement constructors (arena-allocated, mutable). */
TLC_API tlc_stmt *tlc_seq_new(tlc_module *m, tlc_loc loc);
TLC_API void tlc_seq_append(tlc_module *m, tlc_stmt *seq, tlc_stmt *s);
TLC_API tlc_stmt *tlc_for_new(tlc_module *m, tlc_loc loc, tlc_var *v, const tlc_expr *min,
                              const tlc_expr *extent, tlc_for_kind kind, tlc_stmt *body);
TLC_API tlc_stmt *tlc_if_new(tlc_module *m, tlc_loc loc, const tlc_expr *cond, tlc_stmt *then_s,
                             tlc_stmt *else_s);
TLC_API tlc_stmt *tlc_let_new(tlc_module *m, tlc_loc loc, tlc_var *v, const tlc_expr *value);
TLC_API tlc_stmt *tlc_store_new(tlc_module *m, tlc_loc loc, tlc_buffer *b, int n,
                                const tlc_expr *const *idx, const tlc_expr *value);
TLC_API tlc_stmt *tlc_eval_new(tlc_module *m, tlc_loc loc, const tlc_expr *call);
TLC_API tlc_stmt *tlc_alloc_new(tlc_module *m, tlc_loc loc, tlc_buffer *b);
TLC_API tlc_stmt *tlc_scope_new(tlc_module *m, tlc_loc loc, const tlc_expr *call, tlc_stmt *body);
TLC_API tlc_stmt *tlc_attr_new(tlc_module *m, tlc_loc loc, const char *key, const tlc_expr *value,
                               tlc_stmt *body);

/* ---- functions (kernels) and modules ---- */

typedef enum tlc_param_kind {
	TLC_PARAM_TENSOR, /* a global buffer: A: T.Tensor((M, K), "float16") */
	TLC_PARAM_SCALAR, /* a runtime scalar, e.g. a dynamic size: n: T.int32 */
} tlc_param_kind;

typedef struct tlc_param {
	tlc_param_kind kind;
	tlc_buffer *buf; /* TENSOR */
	tlc_var *var;    /* SCALAR */
	bool is_output;  /* from out_idx / T.empty */
} tlc_param;

typedef struct tlc_func {
	const char *name;
	tlc_loc loc;
	int nparams;
	tlc_param *params;
	/* The launch frame: with T.Kernel(grid..., threads=...) as (bx, by, bz) */
	int grid_ndim;                /* 1..3 */
	const tlc_expr *grid[3];
	tlc_var *block_vars[3];       /* bound to blockIdx.x/y/z; NULL when unnamed */
	int thread_ndim;              /* 1..3 */
	const tlc_expr *threads[3];
	tlc_var *thread_vars[3];      /* from T.get_thread_binding(i); may be NULL */
	tlc_stmt *body;               /* a SEQ inside the kernel frame */
	/* attributes: key/value pairs, printed as T.func_attr({...}) */
	int nattrs;
	const char **attr_keys;
	const tlc_expr **attr_values;
} tlc_func;

/* A module is opaque: its arena, hash-cons table and caches are libtlc's.
 * Plugins reach what they need through these accessors. */
TLC_API tlc_context *tlc_module_context(const tlc_module *m);
/* The kernels of m, in source order. */
TLC_API int tlc_module_func_count(const tlc_module *m);
TLC_API tlc_func *tlc_module_func(const tlc_module *m, int i);


/* Create an empty module in ctx. */
TLC_API tlc_module *tlc_module_new(tlc_context *ctx);
/* Free a module and everything in its arena. */
TLC_API void tlc_module_free(tlc_module *m);
TLC_API tlc_func *tlc_func_new(tlc_module *m, const char *name, tlc_loc loc);
TLC_API void tlc_module_add_func(tlc_module *m, tlc_func *f);
/* Set f's attribute `key` (T.func_attr) to value, replacing an older one. */
TLC_API void tlc_func_set_attr(tlc_module *m, tlc_func *f, const char *key, const tlc_expr *value);
/* The blocks of f's thread-block clusters along x, y, z (its
 * "tlc.cluster_dims" attribute, a tuple of three positive constants) and
 * their product, the blocks per cluster; 1, 1, 1 and 1 without it. */
TLC_API int64_t tlc_func_cluster_dims(const tlc_func *f, int64_t dims[3]);
/* A prim_func with several T.Kernel frames is one function per frame, in
 * launch order, each with the attribute "tlc.launch_group": (name, index,
 * count) naming the prim_func, and all with its parameters: the host
 * launches them one after the other on one stream.  f's index in its group
 * (0 .. *count - 1) and the group's name; -1, NULL and 1 when f is a
 * kernel of its own. */
TLC_API int tlc_func_launch_group(const tlc_func *f, const char **name, int *count);
TLC_API tlc_var *tlc_var_new(tlc_module *m, const char *name, tlc_dtype t);
TLC_API tlc_buffer *tlc_buffer_new(tlc_module *m, const char *name, tlc_dtype t, tlc_scope s, int ndim,
                                   const tlc_expr *const *shape, tlc_loc loc);
/* The element count of b when every extent is a constant and the product
 * fits int64; false otherwise. */
TLC_API bool tlc_buffer_numel(const tlc_buffer *b, int64_t *numel);
/* The byte size of b (tlc_buffer_numel times the element size, rounded up
 * to whole bytes); false when unknown or over int64. */
TLC_API bool tlc_buffer_bytes(const tlc_buffer *b, int64_t *bytes);
/* The integer type b's flattened element offset is computed in: int32 when
 * every offset inside b fits it, int64 when the element count can pass
 * 2^31 - 1 (large or runtime-sized shapes).  Printers cast the flattened
 * index to it; an offset computed in int32 would silently wrap. */
TLC_API tlc_dtype tlc_buffer_index_dtype(const tlc_buffer *b);
/* True when s is an expression statement calling op (T.sync_threads(), ...). */
TLC_API bool tlc_stmt_is_call(const tlc_stmt *s, tlc_op_id op);
/* Rename variables and buffers so that every name in f is unique (name, name_1, ...). */
TLC_API void tlc_func_uniquify_names(tlc_module *m, tlc_func *f);

/* ---- printing, parsing, verifying ---- */

typedef struct tlc_buf tlc_buf; /* growable string, see tlc_buf_* in diag.h */

/* Print the module in the tile-language syntax (doc/ir.md); parse(print(m))
 * prints identically. */
TLC_API void tlc_print_module(tlc_buf *out, const tlc_module *m);
TLC_API void tlc_print_func(tlc_buf *out, const tlc_module *m, const tlc_func *f);
TLC_API void tlc_print_expr(tlc_buf *out, const tlc_module *m, const tlc_expr *e);
TLC_API void tlc_print_stmt(tlc_buf *out, const tlc_module *m, const tlc_stmt *s, int indent);

/* The budgets of compile-time evaluation (doc/security.md, "Limits"): what
 * a kernel file may make the frontend do before it stops with an error.  A
 * field of 0 keeps its default (TLC_LIMIT_*_DEFAULT); a value above its
 * TLC_LIMIT_*_MAX is refused by tlc_frontend_limit_set.  The depths of
 * nesting are not here: they keep the C stack bounded and are fixed. */
typedef struct tlc_frontend_limits {
	int64_t steps;        /* statements and loop iterations run */
	int64_t work;         /* items that operations go through (a + b, sum, in, ...) */
	int64_t items;        /* items of one list, tuple, dict or range */
	int64_t string_bytes; /* bytes of one string made by an operation */
	int64_t memory;       /* bytes of all compile-time values */
} tlc_frontend_limits;

#define TLC_LIMIT_STEPS_DEFAULT 2000000LL
#define TLC_LIMIT_WORK_DEFAULT 100000000LL
#define TLC_LIMIT_ITEMS_DEFAULT 1000000LL
#define TLC_LIMIT_STRING_BYTES_DEFAULT (16LL << 20)
#define TLC_LIMIT_MEMORY_DEFAULT (1LL << 30)
#define TLC_LIMIT_STEPS_MAX (1LL << 40)
#define TLC_LIMIT_WORK_MAX (1LL << 50)
#define TLC_LIMIT_ITEMS_MAX (1LL << 30)        /* a list's length is an int */
#define TLC_LIMIT_STRING_BYTES_MAX (1LL << 30)
#define TLC_LIMIT_MEMORY_MAX (1LL << 40)

/* Set the limit `name` ("steps", "work", "items", "string-bytes" or
 * "memory", the spellings of `tlc --limit NAME=N`) to value (>= 1, at most
 * its maximum).  Returns 0, 1 for an unknown name, 2 for a value out of
 * range. */
TLC_API int tlc_frontend_limit_set(tlc_frontend_limits *l, const char *name, int64_t value);
/* The limit `name` of l (its default when 0 or l is NULL); -1 for an unknown
 * name.  tlc_frontend_limit_names lists the names, NULL-terminated. */
TLC_API int64_t tlc_frontend_limit_get(const tlc_frontend_limits *l, const char *name);
/* The largest value limit `name` may be set to; -1 for an unknown name. */
TLC_API int64_t tlc_frontend_limit_max(const char *name);
TLC_API const char *const *tlc_frontend_limit_names(void);

/* Options of the frontend. */
typedef struct tlc_frontend_opts {
	const char *entry; /* "matmul(1024, 1024, 1024, 128, 128, 32)" or NULL */
	int ndefines;
	const char *const *define_names; /* -D NAME=VALUE */
	const char *const *define_values;
	const tlc_frontend_limits *limits; /* NULL: the defaults */
	/* @autotune(configs=...): the config (0-based) whose values fill the
	 * entry's parameters that neither --entry nor -D gives */
	int config_index;
	/* when set, the entry's configs are written here ("N: {...}" a line)
	 * and nothing is compiled */
	tlc_buf *list_configs;
	/* the target the kernel is compiled for (NULL: none yet): its
	 * description answers the file's host queries (SM count) */
	const struct tlc_target_info *target;
} tlc_frontend_opts;

/* Parse a TileLang source (or printed IR) into a new module.  Errors are
 * reported through the context's diagnostics; returns NULL on error. */
TLC_API tlc_module *tlc_parse(tlc_context *ctx, const char *filename, const char *text, size_t len,
                              const tlc_frontend_opts *opts);

/* Check structural invariants (every variable bound before use, buffers
 * declared, dtypes consistent, arities of ops).  Reports errors naming
 * `after` (a pass name or NULL) and returns false if any. */
TLC_API bool tlc_verify_module(tlc_context *ctx, const tlc_module *m, const char *after);
/* Check that thread-level IR has a T.sync_threads() between every two
 * statements whose shared-memory accesses conflict (sync-insert's rules,
 * core/verify_sync.c).  Errors name both statements, the buffers and
 * `after` (the pass that ran last); returns false if any. */
TLC_API bool tlc_verify_barriers(tlc_context *ctx, const tlc_module *m, const char *after);

#ifdef __cplusplus
}
#endif
#endif
