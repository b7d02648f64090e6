/* frontend.h - the compile-time Python evaluator that turns TileLang source
 * into tile IR (private to libtlc).
 *
 * frontend.c        tlc_parse: module evaluation, kernel selection, --entry, -D
 * frontend_value.c  values, environments, conversions to IR, dtypes
 * frontend_eval.c   expressions: operators, calls, Python builtins
 * frontend_exec.c   statements: compile-time execution and kernel IR building
 * frontend_tile.c   the T.* surface: allocations, loops, frames, tile ops
 * frontend_ops.c    tile-op argument tables and checks
 * frontend_layout.c layout values, T.annotate_layout, T.Parallel(loop_layout=)
 *
 * A value is either a compile-time Python value (int, float, str, tuple, ...)
 * or a kernel-time one (an IR expression, a buffer).  Python code runs at
 * compile time; inside a T.Kernel frame statements append IR to the current
 * block instead. */
#ifndef TLC_FRONTEND_H
#define TLC_FRONTEND_H

#include "pyast.h"

typedef enum fe_kind {
	FV_NONE,
	FV_BOOL,
	FV_INT,
	FV_FLOAT,
	FV_STR,
	FV_TUPLE,
	FV_LIST,
	FV_DICT,
	FV_FUNC,      /* a Python def or lambda with its closure */
	FV_BOUND,     /* a method bound to a receiver: list.append, dict.items, ... */
	FV_MODULE,    /* T, tilelang, math, tilelang.layout, ... */
	FV_HOST,      /* an opaque host value (torch, argparse, ...): usable only by host code */
	FV_BUILTIN,   /* a Python builtin or a T.* function: u.builtin names it */
	FV_NAMESPACE, /* T.GemmWarpPolicy, tilelang.PassConfigKey */
	FV_DTYPE,
	FV_EXPR,      /* an IR expression (symbolic) */
	FV_BUF,       /* a buffer */
	FV_PRIMFUNC,  /* a @T.prim_func def, not yet instantiated */
	FV_TENSORTYPE,/* T.Tensor(shape, dtype) */
	FV_MISSING,   /* a parameter of the entry function that got no value */
	FV_RANGE,     /* range(a, b, step) with compile-time bounds */
	FV_LOOP,      /* T.Parallel(...), T.Pipelined(...), ...: only iterable by `for` in a kernel */
	FV_KERNEL,    /* T.Kernel(...): only usable in `with` */
	FV_SCOPEOP,   /* T.ws(...), T.attr(...): only usable in `with` */
} fe_kind;

/* Module kinds (FV_MODULE). */
enum { FM_T, FM_TILELANG, FM_LAYOUT, FM_MATH };

typedef struct fe_val fe_val;
typedef struct fe_env fe_env;

/* Decorator flags of a function (FV_FUNC). */
enum { FF_JIT = 1, FF_MACRO = 2 };

struct fe_val {
	fe_kind kind;
	union {
		bool b;
		int64_t i;
		double f;
		const char *s; /* STR; MODULE/HOST/NAMESPACE/BUILTIN/MISSING: the name */
		struct {
			int n, cap;
			fe_val **items;
		} seq; /* TUPLE, LIST */
		struct {
			int n, cap;
			fe_val **keys, **vals;
		} dict;
		struct {
			py_node *def; /* PY_DEF or PY_LAMBDA */
			fe_env *env;
			fe_val **defaults; /* one per param (NULL: none) */
			unsigned flags;
			fe_val *jit_out_idx;  /* from @tilelang.jit(out_idx=...) */
			fe_val *jit_configs;  /* pass_configs dict */
		} fn;
		struct {
			py_node *def;
			fe_env *env;
			const char *factory; /* the function whose call created it, or NULL */
			fe_val *out_idx, *configs;
		} pf;
		struct {
			const char *name;
			fe_val *self;
		} bound;
		tlc_dtype dt;
		const tlc_expr *e;
		tlc_buffer *buf;
		struct {
			fe_val *shape;
			tlc_dtype dt;
		} tensor;
		struct {
			int64_t start, stop, step;
		} range;
		struct {
			tlc_for_kind kind;
			int n;
			const tlc_expr **min, **extent;
			tlc_pipeline_info pipe;
			int thread_dim;
			const tlc_expr *loop_layout; /* T.Parallel: outermost loop only */
			int64_t coalesced_width;
		} loop;
		struct {
			int ngrid;
			const tlc_expr *grid[3];
			int nthreads;
			const tlc_expr *threads[3];
		} kernel;
		const tlc_expr *scope_call; /* SCOPEOP: a CALL; or an ATTR when attr_key is set */
	} u;
	const char *attr_key; /* SCOPEOP for T.attr */
	const tlc_expr *attr_value;
	int mod; /* MODULE: FM_* */
};

struct fe_env {
	fe_env *parent;
	int n, cap;
	const char **names;
	fe_val **vals;
};

/* Control flow result of executing statements. */
typedef enum fe_flow { FL_NORMAL, FL_RETURN, FL_BREAK, FL_CONTINUE, FL_ERROR } fe_flow;

/* One executing Python function (or the module body). */
typedef struct fe_frame {
	struct fe_frame *caller;
	const char *name;  /* function name; NULL for the module */
	bool kernel_mode;  /* prim_func or T.macro body: range() loops and LETs build IR */
	fe_val *retval;
} fe_frame;

/* The kernel being built. */
typedef struct fe_kernel {
	tlc_func *func;
	bool eager;           /* an eager @tilelang.jit function body */
	bool has_frame;       /* T.Kernel seen */
	tlc_stmt *block;      /* where statements go; NULL outside T.Kernel */
	int nparams, cap_params;
	tlc_param *params;
	int nattrs, cap_attrs;
	const char **attr_keys;
	const tlc_expr **attr_values;
	int first_dyn;        /* dynamic vars created from this index on belong to it */
} fe_kernel;

typedef struct fe {
	tlc_context *ctx;
	tlc_module *m;
	tlc_arena *arena; /* values, environments, the syntax tree */
	uint32_t file;
	const tlc_frontend_opts *opts;
	bool *define_used;
	int nsizes;           /* --entry keywords that are not parameters: T.const sizes */
	const char **size_names;
	fe_val **size_vals;
	bool entry_missing_ok; /* the next call binds absent parameters to FV_MISSING */
	fe_env *globals;
	fe_frame *frame;
	fe_kernel *kernel; /* NULL outside a kernel instantiation */
	const char *name_hint; /* the assignment target naming a new buffer or variable */
	int depth;        /* evaluation recursion */
	long steps;       /* statements executed: bounds compile-time loops */
	int ndyn, cap_dyn; /* T.dynamic / open T.const variables, in creation order */
	tlc_var **dyn;
	fe_val *none, *vtrue, *vfalse;
} fe;

static inline tlc_loc fe_file_loc(uint32_t file)
{
	tlc_loc l = {file, 1, 1};
	return l;
}
#define FE_NOLOC fe_file_loc(0)
#define FE_MAX_DEPTH 400
#define FE_MAX_STEPS 2000000L
#define FE_MAX_ITEMS 1000000

/* ---- frontend_value.c ---- */
fe_val *fe_new(fe *F, fe_kind k);
fe_val *fe_int(fe *F, int64_t v);
fe_val *fe_float(fe *F, double v);
fe_val *fe_str(fe *F, const char *s);
fe_val *fe_bool(fe *F, bool b);
fe_val *fe_seq(fe *F, fe_kind k, int n);           /* TUPLE or LIST of n NULL items */
void fe_seq_push(fe *F, fe_val *seq, fe_val *item);
fe_val *fe_dict(fe *F);
void fe_dict_set(fe *F, fe_val *d, fe_val *k, fe_val *v);
fe_val *fe_dict_get(fe_val *d, fe_val *k);
fe_val *fe_builtin(fe *F, const char *name);
fe_val *fe_dtype(fe *F, tlc_dtype t);
/* Wrap an IR expression; constants that print bare (int32, bool, float32)
 * become Python values so that printed IR re-parses to the same thing. */
fe_val *fe_expr(fe *F, const tlc_expr *e);
fe_val *fe_buf(fe *F, tlc_buffer *b);
bool fe_equal(const fe_val *a, const fe_val *b);
const char *fe_kind_name(const fe_val *v);
bool fe_truthy(fe *F, fe_val *v, tlc_loc loc, bool *out);

fe_env *fe_env_new(fe *F, fe_env *parent);
void fe_env_set(fe *F, fe_env *env, const char *name, fe_val *v);
fe_val *fe_env_get(fe_env *env, const char *name);
fe_val *fe_env_get_local(fe_env *env, const char *name);

bool fe_is_symbolic(const fe_val *v); /* EXPR or a VAR buffer */
/* Convert a value to an IR expression for a kernel; reports and returns NULL
 * when it has no IR form. */
const tlc_expr *fe_to_expr(fe *F, fe_val *v, tlc_loc loc);
/* Same, but a scalar: no whole buffers, regions or tuples. */
const tlc_expr *fe_to_scalar(fe *F, fe_val *v, tlc_loc loc);
/* A compile-time integer (Python int/bool or an integer constant). */
bool fe_as_int(fe_val *v, int64_t *out);
/* A dtype from a dtype object or a string; reports errors. */
bool fe_to_dtype(fe *F, fe_val *v, tlc_loc loc, tlc_dtype *out);
/* True for TileLang dtypes tlc does not support yet (int4, float4_e2m1fn, ...). */
bool fe_dtype_unsupported(const char *name);
/* Print a value for a message ("128", "'n'", "n * 2"). */
const char *fe_show(fe *F, fe_val *v);
const char *fe_show_expr(fe *F, const tlc_expr *e);
/* "host module 'torch' cannot be used in a kernel" and similar. */
void fe_err_not_kernel(fe *F, fe_val *v, tlc_loc loc);

/* ---- frontend_eval.c ---- */
fe_val *fe_eval(fe *F, fe_env *env, py_node *n);
/* Call a callable value with evaluated arguments. */
/* (frontend_builtins.c) */
fe_val *fe_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kw_names,
                fe_val **kw_vals, tlc_loc loc);
fe_val *fe_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc);
fe_val *fe_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc);
fe_val *fe_subscript(fe *F, fe_val *v, fe_val *idx, tlc_loc loc);
/* Iterate a compile-time iterable into a list; NULL on error. */
fe_val *fe_iterate(fe *F, fe_val *v, tlc_loc loc);
/* Bind a for/comprehension target (a name or nested tuple of names). */
bool fe_bind_target(fe *F, fe_env *env, py_node *t, fe_val *v);

/* ---- frontend_builtins.c ---- */
/* min()/max(): Python on compile-time values, T.min/T.max on symbolic ones. */
fe_val *fe_minmax(fe *F, bool is_max, int nargs, fe_val **args, tlc_loc loc);
bool fe_enter(fe *F, tlc_loc loc);
static inline void fe_leave(fe *F) { F->depth--; }

/* ---- frontend_exec.c ---- */
fe_flow fe_exec_body(fe *F, fe_env *env, int n, py_node **body);
/* Bind the parameters of a def/lambda and run it. */
fe_val *fe_call_function(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw,
                         const char **kw_names, fe_val **kw_vals, tlc_loc loc);
/* Make a function value from a def or lambda (evaluates defaults). */
fe_val *fe_make_function(fe *F, fe_env *env, py_node *def);
/* Append a statement to the kernel's current block. */
void fe_emit(fe *F, tlc_stmt *s);
/* Run `body` into a fresh block and return it (NULL on error). */
tlc_stmt *fe_build_block(fe *F, fe_env *env, int n, py_node **body, tlc_loc loc, fe_flow *flow);

/* ---- frontend_tile.c ---- */
/* Attribute `name` of module T (tilelang.language); NULL + error if unknown. */
fe_val *fe_t_attr(fe *F, const char *name, tlc_loc loc);
fe_val *fe_tilelang_attr(fe *F, int mod, const char *name, tlc_loc loc);
/* Call a T.* builtin (FV_BUILTIN whose name starts with "T."). */
fe_val *fe_call_t(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kw_names,
                  fe_val **kw_vals, tlc_loc loc);
/* `with X as targets:` in a kernel. */
fe_flow fe_exec_with(fe *F, fe_env *env, py_node *stmt);
/* `for targets in X:` where X is a kernel loop (T.Parallel, range in a kernel, ...). */
fe_flow fe_exec_kernel_for(fe *F, fe_env *env, py_node *stmt, fe_val *iter);
/* A tensor parameter's buffer from T.Tensor / T.empty. */
tlc_buffer *fe_make_tensor(fe *F, const char *name, fe_val *tt, tlc_loc loc);
/* Record a new dynamic size variable (T.dynamic, open T.const). */
tlc_var *fe_new_dyn(fe *F, const char *name, tlc_dtype t);
void fe_kernel_add_param(fe *F, tlc_param p);
void fe_kernel_add_attr(fe *F, const char *key, const tlc_expr *v);

/* Helpers shared by frontend_tile.c and frontend_loops.c. */
bool fe_bind_args(fe *F, const char *fname, const char *const *names, int nnames, int nreq,
                  int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv, fe_val **out,
                  tlc_loc loc);
bool fe_const_int(fe *F, fe_val *v, const char *what, tlc_loc loc, int64_t *out);
bool fe_need_kernel(fe *F, const char *what, bool need_block, tlc_loc loc);
const char *fe_hint(fe *F, const char *def);

/* ---- frontend_loops.c ---- */
fe_val *fe_pipelined(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                     tlc_loc loc);
fe_val *fe_simple_loop(fe *F, const char *fname, tlc_for_kind kind, int nargs, fe_val **args,
                       int nkw, const char **kwn, fe_val **kwv, tlc_loc loc);
fe_val *fe_parallel(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                    tlc_loc loc);
fe_val *fe_kernel_frame(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc);

/* ---- frontend_ops.c ---- */
/* Build the call of a tile op / intrinsic T.<name>: validates arity and
 * keywords, converts arguments and checks shapes that are known now. */
fe_val *fe_call_op(fe *F, tlc_op_id op, const char *name, int nargs, fe_val **args, int nkw,
                   const char **kw_names, fe_val **kw_vals, tlc_loc loc);

/* ---- frontend_layout.c ---- */
/* T.Layout / T.Fragment function argument: a lambda over fresh variables. */
const tlc_expr *fe_layout_fn(fe *F, fe_val *fn, int nparams_hint, tlc_loc loc);
/* True for the ops whose calls are layout values (T.Layout, T.Fragment, ...). */
bool fe_is_layout_op(tlc_op_id op);
/* Evaluate a call of a layout op to its canonical CALL expression. */
fe_val *fe_layout_value(fe *F, tlc_op_id op, int nargs, fe_val **args, int nkw, const char **kwn,
                        fe_val **kwv, tlc_loc loc);
/* The argument of T.annotate_layout: converts each layout, checks it against
 * its buffer and sets the buffer's layout; returns the dict expression. */
const tlc_expr *fe_layout_map(fe *F, fe_val *v, tlc_loc loc);
/* Check a T.Parallel loop_layout value against the loop extents. */
const tlc_layout *fe_loop_layout(fe *F, fe_val *v, int n, const tlc_expr *const *extents,
                                 tlc_loc loc);

/* ---- frontend.c ---- */
/* The -D value for `name`, or NULL; marks it used. */
fe_val *fe_define(fe *F, const char *name);

#endif
