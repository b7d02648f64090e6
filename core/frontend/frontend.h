/* frontend.h - the compile-time Python evaluator that turns TileLang source
 * into tile IR (private to libtlc).
 *
 * frontend.c        tlc_parse: module evaluation, kernel selection, --entry, -D
 * frontend_value.c  values, environments, conversions to IR, dtypes
 * frontend_eval.c   expressions: names, subscripts, comprehensions, calls
 * frontend_builtins.c attributes, calls, Python builtins and methods
 * frontend_exec.c   statements: compile-time execution and kernel IR building
 * frontend_tile.c   the T.* surface: allocations, loops, frames, tile ops
 * frontend_ops.c    tile-op argument tables and checks
 * frontend_layout.c layout values, T.annotate_layout, T.Parallel(loop_layout=)
 * frontend_operators.c Python operators on compile-time and symbolic values
 * frontend_limits.c the budgets of time, memory and depth (FE_MAX_*)
 * frontend_index.c  hash indexes of big environments and dicts
 * frontend_import.c import statements, the program's own modules (sibling files)
 * frontend_script.c the top-level host statements that are skipped
 * frontend_frames.c `with` items, T.If / T.Then / T.Else, T.PersistentKernel
 * frontend_tvm.c    tvm.tir / tvm.te functions that build kernel expressions
 * frontend_host.c   tilelang.math, tvm.DataType, int/float methods, torch's device queries
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
	FV_DATAPTR,   /* buf.data: the storage of buffer u.buf, for T.make_tensor */
	FV_OBJECT,    /* an instance of a TileLang class tlc models in Python (frontend_intrinsics.c):
	                 u.bound.name its class, u.bound.self the dict of its attributes */
} fe_kind;

/* Module kinds (FV_MODULE). */
enum {
	FM_T, FM_TILELANG, FM_LAYOUT, FM_MATH, FM_ITERTOOLS, FM_FUNCTOOLS, FM_AUTOTUNER, FM_TLMATH,
	FM_TVM, FM_TVM_TIR, FM_TVM_TE,
	FM_USER /* and up: the program's own module fe.pymods[mod - FM_USER] (frontend_import.c) */
};
typedef struct fe_pymod fe_pymod;

typedef struct fe_val fe_val;
typedef struct fe_env fe_env;

/* Decorator flags of a function (FV_FUNC). */
enum { FF_JIT = 1, FF_MACRO = 2 };

/* A kernel loop value (FV_LOOP): kept out of line, fe_val stays small. */
typedef struct fe_loop {
	tlc_for_kind kind;
	int n;
	const tlc_expr **min, **extent;
	tlc_pipeline_info pipe;
	int thread_dim;
	const tlc_expr *loop_layout; /* T.Parallel: outermost loop only */
	int64_t coalesced_width;
	/* T.Parallel(prefer_async=True): its global->shared element copies may
	 * be cp.async; FE_ASYNC_WAIT also commits and waits after the loop */
	enum { FE_ASYNC_NONE, FE_ASYNC_WAIT, FE_ASYNC_NO_WAIT } async_mode;
	/* T.Persistent(domain, wave_size, index): n = the domain's rank, extent
	 * = its extents; the loop runs tiles index, index + wave, ... */
	const tlc_expr *wave, *index;
	/* T.serial / T.unroll(start, stop, step): the user's variable is
	 * min + k * step of a counter k from 0 (step 0: the plain loop) */
	int64_t step;
} fe_loop;

/* A T.Kernel frame value (FV_KERNEL). */
typedef struct fe_grid {
	int ngrid;
	const tlc_expr *grid[3];
	int nthreads;
	const tlc_expr *threads[3];
} fe_grid;

/* The hash index of a big environment or dict (frontend_index.c). */
typedef struct fe_index fe_index;

/* Every compile-time number the evaluator makes is one of these: keep it
 * small (56 bytes), big or rare members live out of line. */
struct fe_val {
	fe_kind kind;
	int mod; /* MODULE: FM_* */
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
			fe_index *index; /* NULL while small */
		} dict;
		struct {
			py_node *def; /* PY_DEF or PY_LAMBDA */
			fe_env *env;
			fe_val **defaults; /* one per param (NULL: none) */
			unsigned flags;
			fe_val *jit_out_idx;  /* from @tilelang.jit(out_idx=...) */
			fe_val *jit_configs;  /* pass_configs dict */
			fe_val *autotune;     /* @autotune(configs=...): a list of dicts or a function making one */
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
		fe_loop *loop;
		fe_grid *kernel;
		struct {
			const tlc_expr *call;  /* T.ws: a CALL */
			const char *attr_key;  /* T.attr: the key and value */
			const tlc_expr *attr_value;
			int frame; /* FS_IF, FS_THEN, FS_ELSE (attr_value: T.If's condition) */
			unsigned attr_flags; /* T.attr's TileLang forms: FE_ATTR_* */
		} scope;
	} u;
};

struct fe_env {
	fe_env *parent;
	int n, cap;
	const char **names;
	fe_val **vals;
	fe_index *index; /* NULL while small */
};

/* Control flow result of executing statements. */
typedef enum fe_flow { FL_NORMAL, FL_RETURN, FL_BREAK, FL_CONTINUE, FL_ERROR } fe_flow;

/* The loops a break or continue can leave (fe's loop_kind). */
enum {
	FE_LOOP_NONE,   /* no loop in this function: Python's error */
	FE_LOOP_PYTHON, /* a loop run at compile time */
	FE_LOOP_KERNEL, /* a serial or unrolled kernel loop: T.loop_break() */
	FE_LOOP_REFUSED /* a kernel loop a thread cannot leave alone (loop_why) */
};

/* One executing Python function (or the module body). */
typedef struct fe_frame {
	struct fe_frame *caller;
	const char *name;  /* function name; NULL for the module */
	bool kernel_mode;  /* prim_func or T.macro body: range() loops and LETs build IR */
	fe_val *retval;
} fe_frame;

/* The kernel being built. */
/* T.Kernel frames one prim_func may hold: kernels launched one after the other */
#define FE_MAX_KERNEL_FRAMES 16

typedef struct fe_kernel {
	tlc_func *func;       /* the kernel of the T.Kernel frame being read (the last one) */
	tlc_func *parts[FE_MAX_KERNEL_FRAMES]; /* one kernel per T.Kernel frame, in order */
	int nparts;
	bool eager;           /* an eager @tilelang.jit function body */
	bool has_frame;       /* T.Kernel seen */
	tlc_stmt *block;      /* where statements go; NULL outside T.Kernel */
	int nparams, cap_params;
	tlc_param *params;
	int nattrs, cap_attrs;
	const char **attr_keys;
	const tlc_expr **attr_values;
	int first_dyn;        /* dynamic vars created from this index on belong to it */
	int scratch[16];      /* the parameters T.alloc_global made (indices) */
	int nscratch;
	tlc_buffer *mbarriers; /* T.create_list_of_mbarrier's barriers (TileLang's barrier ids) */
	fe_val *reduce_scope; /* the T.comm_reducer of the enclosing T.attr "reduce_scope" */
	const tlc_buffer *reducers[16]; /* T.alloc_reducer's buffers */
	int nreducers;
	int nsafe, cap_safe;  /* the tensors T.annotate_safe_value gave a value */
	const tlc_buffer **safe;
	bool rng_init;        /* T.rng_init seen (frontend_rng.c) */
} fe_kernel;

/* Frame scopes (fe_val.u.scope.frame) and an open `with T.If(...)` (frontend_frames.c). */
enum { FS_IF = 1, FS_THEN, FS_ELSE };
typedef struct fe_ifframe fe_ifframe;

/* A top-level statement skipped because it runs host code (frontend_script.c). */
typedef struct fe_skip {
	tlc_loc loc;
	const char *why; /* its first error */
	bool import;     /* a name of a known module that tlc lacks (fe_skip_import) */
} fe_skip;

typedef struct fe {
	tlc_context *ctx;
	tlc_module *m;
	tlc_arena *arena; /* values, environments, def bodies read on demand */
	uint32_t file;
	py_source src;    /* the file being compiled, its interned names */
	py_pool *tree_pool; /* the trees of module statements and of statements of big blocks:
	                       given back once they ran, kept when they made a def or lambda */
	bool tree_kept;     /* the statement running now made a def or lambda: keep its tree */
	const tlc_frontend_opts *opts;
	tlc_frontend_limits lim; /* the budgets, defaults filled in */
	struct fstr_cache *fstrings; /* f-strings' parsed fields (frontend_format.c) */
	fe_val *star[16]; /* modules tlc understands imported with `from M import *` */
	fe_env *star_env[16]; /* ... into the module whose globals these are */
	int nstar;
	fe_pymod **pymods; /* the program's own modules imported so far (frontend_import.c) */
	int npymods, cap_pymods;
	int errors0;               /* the context's error count when parsing began */
	bool too_many_errors;      /* FE_MAX_ERRORS reached: stop going on after errors */
	const char *poisoned[64];  /* names a failed kernel statement would have bound */
	int npoisoned;
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
	int block_depth;  /* kernel blocks being built inside each other (fe_build_block) */
	int parallel_depth; /* T.Parallel bodies being built inside each other */
	/* the innermost loop around the statement being run, in this function:
	 * what a `break` or `continue` there leaves (FE_LOOP_*) and, for a
	 * kernel loop that cannot be left, why */
	int loop_kind;
	const char *loop_why;
	long steps;       /* statements executed: bounds compile-time loops */
	int64_t work;     /* items that operations went through (fe_work) */
	size_t mem;       /* bytes of values and environments (fe_alloc) */
	bool budget_hit;  /* a budget error was reported: stop at the next statement */
	bool deep_reported; /* "values nest too deeply" was said once */
	tlc_loc else_warned[8]; /* the kernel loops whose ignored 'else' was warned about */
	int nelse_warned;
	tlc_loc at;       /* the expression being evaluated: for errors of helpers without one */
	fe_val *small_ints; /* the values of FE_SMALL_INT_MIN..FE_SMALL_INT_MAX, made once */
	struct fe_depth_memo *depths; /* operator depth of the IR expressions made (fe_expr_depth_ok) */
	fe_val **expr_cache;  /* recent FV_EXPR and FV_FLOAT values by expression / bits: values are */
	fe_val **float_cache; /* immutable, and a kernel body makes the same ones line after line */
	int ndyn, cap_dyn; /* T.dynamic / open T.const variables, in creation order */
	tlc_var **dyn;
	/* T.dynamic / T.symbolic made outside a kernel (a factory's argument,
	 * --entry 'make(...)(n=T.symbolic("n"))'): a runtime size parameter of
	 * each kernel that uses it */
	int nouter_dyn, cap_outer_dyn;
	tlc_var **outer_dyn;
	fe_val *none, *vtrue, *vfalse;
	int64_t host_uses; /* host values and kernels used as host objects so far (frontend_script.c) */
	bool user_raised;  /* the program's assert or raise failed */
	fe_ifframe *ifs;   /* the innermost open `with T.If(...)` (frontend_frames.c) */
	fe_skip *skips;    /* the top-level statements skipped */
	fe_env *intrinsics; /* tilelang.intrinsics' model, once loaded (frontend_intrinsics.c) */
	fe_env *torch_model; /* the model of torch tensors, once loaded (frontend_torch.c) */
	int nskips, cap_skips;
	/* the kernel's LETs made from assignments (`H1 = H0 + 64`) and their
	 * values: a slice `X[H0:H1]` has the constant extent they give */
	int nlets, cap_lets;
	const tlc_var **let_vars;
	const tlc_expr **let_vals;
} fe;

static inline tlc_loc fe_file_loc(uint32_t file)
{
	tlc_loc l = {file, 1, 1};
	return l;
}
#define FE_NOLOC fe_file_loc(0)
/* Small integers are shared values (they are immutable): loops and index
 * arithmetic make them by the million. */
#define FE_SMALL_INT_MIN (-8)
#define FE_SMALL_INT_MAX 1024

/* ---- limits (doc/language.md, "Limits"): compile-time evaluation stays
 * bounded in time, memory and stack on any input ---- */
#define FE_MAX_DEPTH 400              /* nested calls and expressions being evaluated */
/* the budgets of time and size are F->lim (tlc_frontend_limits, <tlc/ir.h>:
 * the driver's --limit sets them); the depths below guard the C stack */
#define FE_MAX_VALUE_DEPTH 200        /* lists in lists compared, printed or converted */
#define FE_MAX_EXPR_DEPTH 1000        /* operators inside each other in one kernel expression
                                         (passes and the printer recurse on them) */
#define FE_MAX_ERRORS 20 /* errors reported in kernel bodies before the frontend stops */
#define FE_MAX_BLOCK_NESTING 96       /* kernel if/for/with inside each other: the printed
                                         IR must stay within Python's 100 indentation levels */

/* ---- frontend_limits.c ---- */
/* F->lim from F->opts->limits, defaults where it sets none. */
void fe_limits_init(fe *F);
/* Memory for values and environments, counted against F->lim.memory. */
void *fe_alloc(fe *F, size_t n);
char *fe_strdup(fe *F, const char *s);
char *fe_strndup(fe *F, const char *s, size_t n);
/* One statement or loop iteration; false (reported) past the step budget (F->lim) or
 * after another budget was exceeded. */
bool fe_step(fe *F, tlc_loc loc);
/* An operation about to go through `units` items; false (reported) past
 * the work or memory budget. */
bool fe_work(fe *F, int64_t units, tlc_loc loc);
/* A value of `n` items (`what`: "list", "range", ...; n < 0: more than
 * 2^63 - 1) is about to be made; false (reported) past F->lim.items.
 * Charges the work. */
bool fe_check_items(fe *F, int64_t n, const char *what, tlc_loc loc);
/* A string of `n` bytes is about to be made; false (reported) past F->lim.string_bytes. */
bool fe_check_str(fe *F, int64_t n, tlc_loc loc);
/* The number of items of range(start, stop, step) (step != 0), computed
 * without overflow; -1 when it is more than 2^63 - 1. */
int64_t fe_range_len(int64_t start, int64_t stop, int64_t step);
/* Report "integer overflow in compile-time arithmetic" and return NULL. */
fe_val *fe_overflow(fe *F, tlc_loc loc);
/* False (reported once, at F->at) if e nests deeper than FE_MAX_EXPR_DEPTH. */
bool fe_expr_depth_ok(fe *F, const tlc_expr *e);
void fe_limits_free(fe *F);

/* ---- frontend_index.c ---- */
/* The entry of `name` in env (not its parents), or -1. */
int fe_env_find(const fe_env *env, const char *name);
/* The last entry of env was just appended: index it. */
void fe_env_added(fe *F, fe_env *env);
/* The entry of key k in dict d, or -1. */
int fe_dict_find(fe *F, const fe_val *d, const fe_val *k);
void fe_dict_added(fe *F, fe_val *d);

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
fe_val *fe_dict_get(fe *F, fe_val *d, fe_val *k);
fe_val *fe_builtin(fe *F, const char *name);
fe_val *fe_dtype(fe *F, tlc_dtype t);
/* Wrap an IR expression; constants that print bare (int32, bool, float32)
 * become Python values so that printed IR re-parses to the same thing. */
/* A typed constant (T.float32(0.5), T.cast(3, "int64")) as a kernel value,
 * never a Python number: TileLang types it, where a literal takes its
 * operand's type (doc/language.md, "Arithmetic"). */
fe_val *fe_typed_const(fe *F, const tlc_expr *e);
fe_val *fe_expr(fe *F, const tlc_expr *e);
fe_val *fe_buf(fe *F, tlc_buffer *b);
/* Python ==.  Values nested deeper than FE_MAX_VALUE_DEPTH (or holding
 * themselves) are an error, reported once: the answer is then false. */
bool fe_equal(fe *F, const fe_val *a, const fe_val *b);
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
/* v as a scalar of dtype t (VOID: its own type): a Python number is the
 * constant of t made from its exact value, anything else is converted
 * (tlc_cast) -- what a store into a t buffer or T.cast(v, t) needs. */
const tlc_expr *fe_scalar_as(fe *F, fe_val *v, tlc_dtype t, tlc_loc loc);
/* The two operands of binary operator k (SELECT: the two branches) as
 * scalars: a Python number beside a kernel value takes that value's type
 * where it can (a literal has no type of its own: x_f16 * 0.5 is a float16
 * product), and two typed values (typed constants included: x_f16 +
 * T.float32(0.5) is a float32 sum) are converted to tlc_operand_type; two
 * float8 formats with no common type are an error at loc.  False after an
 * error. */
bool fe_scalar_pair(fe *F, tlc_expr_kind k, fe_val *a, fe_val *b, tlc_loc loc, const tlc_expr **x,
                    const tlc_expr **y);
/* A compile-time integer (Python int/bool or an integer constant). */
bool fe_as_int(fe_val *v, int64_t *out);
/* A dtype from a dtype object or a string; reports errors. */
bool fe_to_dtype(fe *F, fe_val *v, tlc_loc loc, tlc_dtype *out);
/* True for TileLang dtypes tlc does not support yet (int4, float4_e2m1fn, ...). */
bool fe_dtype_unsupported(const char *name);
/* The error for such a name: what to write instead (packed uint8 storage). */
void fe_dtype_unsupported_error(fe *F, const char *name, tlc_loc loc);
/* Print a value for a message ("128", "'n'", "n * 2"); nesting past
 * FE_MAX_VALUE_DEPTH prints as [...] and the text stops near F->lim.string_bytes. */
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
/* (frontend_operators.c) a op b, op a, a cmp b (==, <, in, is, ...) */
fe_val *fe_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc);
fe_val *fe_unaryop(fe *F, py_op op, fe_val *a, tlc_loc loc);
fe_val *fe_compare(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc);
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

/* ---- frontend_format.c: f-strings, str.format, % ---- */
fe_val *fe_eval_fstring(fe *F, fe_env *env, py_node *n);
fe_val *fe_str_format(fe *F, const char *s, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                      tlc_loc loc);
fe_val *fe_str_percent(fe *F, const char *s, fe_val *args, tlc_loc loc);

/* ---- frontend_stdlib.c: itertools and functools ---- */
fe_val *fe_stdlib_attr(fe *F, int mod, const char *name, tlc_loc loc);
bool fe_stdlib_has(int mod, const char *name);
/* (frontend_builtins.c, frontend_tile.c) whether a module tlc understands
 * has `name`, without reporting anything: what `from M import *` brings */
bool fe_module_has(fe *F, const fe_val *mod, const char *name);
/* A set: the list's items without repeats, in first-seen order (sets are
 * lists at compile time). */
fe_val *fe_unique(fe *F, fe_val *list, tlc_loc loc);
bool fe_t_has(fe *F, const char *name);
/* a call of builtin "itertools.X" or "functools.X" */
fe_val *fe_call_stdlib(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                       tlc_loc loc);
/* a call of a functools.partial value (FV_BOUND "partial") */
fe_val *fe_call_partial(fe *F, fe_val *p, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc);
/* (frontend_tile.c) a decorator that returns what it decorates */
fe_val *fe_identity_decorator(fe *F, tlc_loc loc);

/* ---- frontend_host.c ---- */
/* Attribute `name` of v where host code needs more than the builtins
 * (tilelang.math, tvm, torch's device queries, int/float/dtype methods):
 * true when handled, *out the value or NULL after a report. */
bool fe_host_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out);
/* A call of such a value: true when handled, *out as above. */
bool fe_host_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		  fe_val **kwv, tlc_loc loc, fe_val **out);
/* globals: the function whose call gives a dict of the module globals of env. */
fe_val *fe_globals_fn(fe *F, fe_env *env, tlc_loc loc);
/* Whether module kind `mod` has `name` where this file adds to it: true
 * when it knows (*has the answer). */
bool fe_host_module_has(int mod, const char *name, bool *has);

/* ---- frontend_intrinsics.c: tilelang.intrinsics (TensorCoreIntrinEmitter, ...) ---- */
/* A call of one of its names, or of a method of its objects: true when it is
 * one (*out NULL after a report). */
bool fe_intrinsics_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
			fe_val **kwv, tlc_loc loc, fe_val **out);
/* An attribute of such an object (FV_OBJECT): true when v is one. */
bool fe_intrinsics_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out);

/* ---- frontend.c ---- */
/* The arguments of a call of an @autotune function that is not the entry:
 * the open parameters from config --config-index (frontend.c). */
bool fe_autotune_call_args(fe *F, fe_val *fn, int nargs, fe_val **args, int *nkw, const char ***kwn,
                           fe_val ***kwv, fe_val **pass_configs, tlc_loc loc);

/* ---- frontend_torch.c: torch tensors made at compile time, by shape and dtype ---- */
bool fe_is_torch_tensor(const fe_val *v);
/* torch.randn(...) and the other creators, a tensor's methods: true when
 * handled (*out NULL after a report). */
bool fe_torch_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		   fe_val **kwv, tlc_loc loc, fe_val **out);
/* An attribute of a tensor: true when v is one. */
bool fe_torch_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out);
/* a op b where one of them is a tensor (elementwise: the broadcast shape) */
fe_val *fe_torch_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc);
/* "WHAT needs the values of a torch tensor ..." */
void fe_torch_values_error(fe *F, const char *what, tlc_loc loc);

/* ---- frontend_tvm.c: tvm.tir and tvm.te (FM_TVM_TIR, FM_TVM_TE) ---- */
/* The device's compute capability: -D device_capability, else the target's
 * reference device; false after a report naming query. */
bool fe_device_capability(fe *F, const char *query, tlc_loc loc, int *major, int *minor);
/* tilelang.contrib.nvcc's queries (frontend_nvcc.c): true when fn names one
 * (*out NULL after a report). */
bool fe_nvcc_call(fe *F, const char *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		  fe_val **kwv, tlc_loc loc, fe_val **out);
bool fe_tvm_has(fe *F, int mod, const char *name);
/* T.bitwise_and/or/xor/not, T.shift_left/right: the tvm.tir functions. */
bool fe_tvm_t_alias(const char *name);
fe_val *fe_tvm_attr(fe *F, int mod, const char *name, tlc_loc loc);
/* A call of builtin "tvm.tir.X" / "tvm.te.X": true when it is one (*out NULL after a report). */
bool fe_tvm_call(fe *F, const char *full, int nargs, fe_val **args, int nkw, const char **kwn,
		 fe_val **kwv, tlc_loc loc, fe_val **out);
/* isinstance(v, tvm.tir.TYPE): true when type names one (*out the answer). */
bool fe_tvm_isinstance(const fe_val *v, const char *type, bool *out);

/* ---- frontend_import.c ---- */
fe_flow fe_exec_import(fe *F, fe_env *env, py_node *s);
/* Attribute `name` of a module of the program (v->mod >= FM_USER). */
fe_val *fe_pymodule_attr(fe *F, fe_val *v, const char *name, tlc_loc loc);
/* The text of tlc's own Python module NAME (core/frontend/py/NAME.py,
 * embedded in libtlc); NULL when there is none. */
const char *fe_bundled_text(const char *name);
/* Run tlc's own module NAME (core/frontend/py/NAME.py) as host code, outside
 * any kernel, with __name__ module_name and its text shown as `path`: its
 * globals, or NULL after an internal error that names `what`. */
fe_env *fe_run_bundled(fe *F, const char *name, const char *module_name, const char *path,
		      const char *what);
/* tlc's own module `dotted` (tilelang.quantize); NULL with *found false
 * when there is none of that name, NULL after an error in it. */
fe_val *fe_bundled_module(fe *F, const char *dotted, tlc_loc loc, bool *found);
/* The globals of module v of the program or of tlc's own; NULL for others. */
fe_env *fe_pymodule_env(fe *F, const fe_val *v);

/* ---- frontend_sparse.c: T.gemm_sp, T.gemm_sp_v2, the metadata layouts ---- */
/* Whether T.name (mod FM_T) or tilelang.layout.name (FM_LAYOUT) is one of them. */
bool fe_sparse_has(int mod, const char *name);
/* Its value: a builtin that fe_sparse_call runs. */
fe_val *fe_sparse_attr(fe *F, int mod, const char *name, tlc_loc loc);
/* A call of one of them: true when fn is one (*out NULL after a report). */
bool fe_sparse_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		    fe_val **kwv, tlc_loc loc, fe_val **out);

/* ---- frontend_script.c: the host script around the kernel ---- */
/* Run top-level statement s, skipping it when it fails because it runs
 * host code (its names then bind markers). */
fe_flow fe_exec_toplevel(fe *F, fe_env *env, py_node *s);
/* v is the marker of a skipped statement's name: report its use at loc
 * (true), else false. */
bool fe_skipped_value(fe *F, const fe_val *v, tlc_loc loc);
/* Bind `name` (imported at loc from a module tlc knows, which lacks it:
 * `why` says so) to a value whose use is that error, not the import. */
void fe_skip_import(fe *F, fe_env *env, const char *name, tlc_loc loc, const char *why);
/* v is the marker of such a name: report its use at loc (true), else false. */
bool fe_refused_import(fe *F, const fe_val *v, tlc_loc loc);
/* The message of the first error among held diagnostics. */
const char *fe_first_error(fe *F, const tlc_buf *held);
/* A decorator expression of a def; an @autotune(configs=...) whose configs
 * fail because they run host code becomes @autotune with configs an opaque
 * host value naming why (frontend.c then uses the entry's own arguments). */
fe_val *fe_eval_decorator(fe *F, fe_env *env, py_node *d);
/* Notes naming the skipped statements, after the compilation failed. */
void fe_skip_notes(fe *F);

/* ---- frontend_exec.c ---- */
fe_flow fe_exec_body(fe *F, fe_env *env, int n, py_node **body);
/* One block of statements of a node (its body, orelse or finalbody): the
 * statements read, or where to read them when the reader left it unread. */
typedef struct fe_block {
	py_node *owner; /* the def, if, for, ... whose block it is */
	py_lazy *lazy;
	py_node ***body;
	int *n;
} fe_block;
#define FE_BODY_OF(s) ((fe_block){(s), &(s)->lazy_body, &(s)->body, &(s)->nbody})
#define FE_ORELSE_OF(s) ((fe_block){(s), &(s)->lazy_orelse, &(s)->orelse, &(s)->norelse})
#define FE_FINAL_OF(s) ((fe_block){(s), &(s)->lazy_final, &(s)->finalbody, &(s)->nfinal})
/* Run a block.  One left unread is read first and kept, except a big one
 * (py_lazy.big): that is read and run one statement at a time, every time
 * it runs, so that a kernel body as long as the file is never a tree. */
fe_flow fe_exec_block(fe *F, fe_env *env, fe_block b);
/* Bind the parameters of a def/lambda and run it. */
fe_val *fe_call_function(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw,
                         const char **kw_names, fe_val **kw_vals, tlc_loc loc);
/* Make a function value from a def or lambda (evaluates defaults). */
fe_val *fe_make_function(fe *F, fe_env *env, py_node *def);
/* Append a statement to the kernel's current block. */
void fe_emit(fe *F, tlc_stmt *s);
/* Remember a LET the kernel body made from an assignment (frontend_eval.c) */
void fe_note_let(fe *F, const tlc_var *var, const tlc_expr *value);
/* Run block b into a fresh kernel block and return it (NULL on error). */
tlc_stmt *fe_build_block(fe *F, fe_env *env, fe_block b, tlc_loc loc, fe_flow *flow);
/* The same with what runs given: run(F, env, arg). */
tlc_stmt *fe_build_with(fe *F, fe_env *env, fe_flow (*run)(fe *, fe_env *, void *), void *arg,
			tlc_loc loc, fe_flow *flow);

/* ---- frontend_tile.c ---- */
/* Attribute `name` of module T (tilelang.language); NULL + error if unknown. */
fe_val *fe_t_attr(fe *F, const char *name, tlc_loc loc);
fe_val *fe_tilelang_attr(fe *F, int mod, const char *name, tlc_loc loc);
/* Call a T.* builtin (FV_BUILTIN whose name starts with "T."). */
fe_val *fe_call_t(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kw_names,
                  fe_val **kw_vals, tlc_loc loc);
/* `with X as targets:` in a kernel. */
fe_flow fe_exec_with(fe *F, fe_env *env, py_node *stmt);
/* (frontend_loops.c) item k of `with A, B, ...:` (the items after it nest inside) */
fe_flow fe_with_item(fe *F, fe_env *env, py_node *s, int k);
/* `for targets in X:` where X is a kernel loop (T.Parallel, range in a kernel, ...). */
fe_flow fe_exec_kernel_for(fe *F, fe_env *env, py_node *stmt, fe_val *iter);
/* `break` (is_break) or `continue` at loc: in a kernel loop, its IR
 * statement (emitted) or an error; FL_BREAK / FL_CONTINUE stop the block,
 * FL_ERROR after an error. */
fe_flow fe_loop_exit(fe *F, bool is_break, tlc_loc loc);
/* The flow after a kernel block (an if's branch, a loop's body, a with
 * scope) that ended with `flow`: a break or continue of a kernel loop is
 * in the IR (FL_NORMAL), any other way out of the block an error. */
fe_flow fe_block_flow(fe *F, fe_flow flow, tlc_loc loc);
/* Check element atomic `call` (T.atomic_add / atomic_max / atomic_min,
 * named fname) that returns its previous value (prev) or keeps it in its
 * keyword old=; false after an error. */
bool fe_atomic_element_check(fe *F, const char *fname, const tlc_expr *call, bool prev, tlc_loc loc);
/* Emit element atomic `call` keeping the element's previous value in a new
 * T.alloc_var (keyword old=), and return that value: return_prev=True. */
fe_val *fe_atomic_prev(fe *F, const tlc_expr *call, tlc_loc loc);
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

/* T.reinterpret / tvm.tir.reinterpret (frontend_tvm.c): a bit cast;
 * dtype_first: the dtype is the first parameter (tvm's order). */
fe_val *fe_reinterpret(fe *F, const char *fname, bool dtype_first, int nargs, fe_val **args,
		       int nkw, const char **kwn, fe_val **kwv, tlc_loc loc);

/* ---- frontend_allreduce.c ---- */
/* The host value of T.reinterpret(x, dtype="handle"): TVM's null handle,
 * which only a reduce_scope attribute takes. */
#define FE_NULL_HANDLE "T.reinterpret(handle)"
/* Whether this call of T.<name> is one of TVM's cross-thread reduction
 * (T.comm_reducer, its T.attr scope, T.tvm_thread_allreduce, T.evaluate). */
bool fe_allreduce_has(const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                      fe_val **kwv);
fe_val *fe_call_allreduce(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                          fe_val **kwv, tlc_loc loc);

/* ---- frontend_intops.c ---- */
/* Whether T.<name> is a named integer division (floordiv, truncmod, ...). */
/* T.c2d_im2col (frontend_im2col.c): a T.Parallel loop of guarded loads */
fe_val *fe_call_im2col(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
		       tlc_loc loc);
/* T.shfl_sync, T.tvm_warp_shuffle(_up/_down) (frontend_shuffle.c) */
bool fe_shuffle_has(const char *name);
fe_val *fe_call_shuffle(fe *F, const char *name, int nargs, fe_val **args, int nkw,
			const char **kwn, fe_val **kwv, tlc_loc loc);
bool fe_intops_has(const char *name);
fe_val *fe_call_intops(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                       fe_val **kwv, tlc_loc loc);

/* ---- frontend_misc.c ---- */
/* T.attr(node, key, value) / T.attr({key: value}) (frontend_async.c): a
 * TileLang attribute scope; ASYNC: copies may be cp.async; COMMIT: the
 * body's copies are committed as one group at its end. */
enum { FE_ATTR_SCOPE = 1, FE_ATTR_ASYNC = 2, FE_ATTR_COMMIT = 4 };
/* Whether T.<name> is one of the hand-written async copy calls fe_call_async handles. */
bool fe_async_has(const char *name);
fe_val *fe_call_async(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                      fe_val **kwv, tlc_loc loc);
/* T.attr's scope value (tlc's ("key", value) form and TileLang's). */
fe_val *fe_t_attr_scope(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc);
/* The statement a T.attr scope value makes of its body. */
tlc_stmt *fe_attr_body(fe *F, const fe_val *v, tlc_stmt *body, tlc_loc loc);
/* ---- frontend_rng.c: T.rng_init, T.rng_rand, T.rng_rand_float ---- */
bool fe_rng_has(const char *name);
fe_val *fe_call_rng(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
		    fe_val **kwv, tlc_loc loc);

/* Whether T.<name> is one fe_call_misc handles (dtype extremes, refused calls). */
bool fe_misc_has(const char *name);
fe_val *fe_call_misc(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                     fe_val **kwv, tlc_loc loc);

/* ---- frontend_hints.c ---- */
/* Whether T.<name> is a kernel hint or a refused construct fe_call_hint handles. */
bool fe_hint_has(const char *name);
fe_val *fe_call_hint(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                     tlc_loc loc);
/* An mbarrier operand written as TileLang's barrier id (an integer, or an
 * integer expression): the element of T.create_list_of_mbarrier's list;
 * other values are returned as they are. */
fe_val *fe_mbarrier_operand(fe *F, fe_val *v, tlc_loc loc);
/* Whether b is a T.alloc_reducer buffer of the kernel being built. */
bool fe_is_reducer(fe *F, const tlc_buffer *b);
/* reducer[idx] += v (T.reducer_update): the contribution of one iteration
 * of a T.Parallel loop; false after an error. */
bool fe_reducer_add(fe *F, tlc_buffer *b, int n, const tlc_expr *const *idx, fe_val *v, tlc_loc loc);
/* T.Tensor[shape, dtype] (fn is the T.Tensor or T.Buffer builtin). */
fe_val *fe_subscript_type(fe *F, fe_val *fn, fe_val *idx, tlc_loc loc);

/* ---- frontend_loops.c ---- */
fe_val *fe_pipelined(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                     tlc_loc loc);
/* T.Persistent(domain, wave_size, index, group_size=8) (frontend_loops.c) */
fe_val *fe_persistent_loop(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                           tlc_loc loc);
/* `tx = T.thread_binding(0, n, thread="threadIdx.x")` (a loop frame
 * assigned, which TVMScript enters for the rest of the block): the thread
 * index along that dimension when the range is the kernel's threads there;
 * any other loop range is an error naming what to write instead. */
fe_val *fe_thread_binding_value(fe *F, fe_val *loop, tlc_loc loc);
fe_val *fe_simple_loop(fe *F, const char *fname, tlc_for_kind kind, int nargs, fe_val **args,
                       int nkw, const char **kwn, fe_val **kwv, tlc_loc loc);
/* T.parallel(start, stop=None): TVM's parallel loop, a 1-D T.Parallel. */
fe_val *fe_parallel_tir(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc);
fe_val *fe_parallel(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                    tlc_loc loc);
fe_val *fe_kernel_frame(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc);

/* ---- frontend_ops.c ---- */
/* Build the call of a tile op / intrinsic T.<name>: validates arity and
 * keywords, converts arguments and checks shapes that are known now. */
/* buf.access_ptr(...), T.tvm_access_ptr(...): the address of an element (frontend_ops.c) */
fe_val *fe_access_ptr(fe *F, tlc_buffer *b, fe_val *offset, tlc_loc loc);
fe_val *fe_call_access_ptr(fe *F, tlc_buffer *b, int nargs, fe_val **args, int nkw, const char **kwn,
                           fe_val **kwv, tlc_loc loc);
fe_val *fe_call_tvm_access_ptr(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                               tlc_loc loc);
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
/* Give kernel f of a launch group tensor parameters of its own, with the
 * layouts of its own T.annotate_layout statements only. */
void fe_own_param_buffers(fe *F, tlc_func *f);
/* Check a T.Parallel loop_layout value against the loop extents. */
const tlc_layout *fe_loop_layout(fe *F, fe_val *v, int n, const tlc_expr *const *extents,
                                 tlc_loc loc);

/* ---- frontend_frames.c: with-items, T.If / T.Then / T.Else, T.PersistentKernel ---- */
/* What is inside item k of `with` statement s: items k.. nesting, or its body. */
fe_flow fe_with_rest(fe *F, fe_env *env, py_node *s, int k);
/* The same into a fresh kernel block (NULL on error). */
tlc_stmt *fe_build_rest(fe *F, fe_env *env, py_node *s, int k, fe_flow *flow);
/* `with T.If(c)` / `with T.Then()` / `with T.Else()` (FV_SCOPEOP, u.scope.frame set) */
fe_flow fe_with_frame(fe *F, fe_env *env, py_node *s, int k, fe_val *v, py_node *target);
/* Whether T.NAME is one of T.If, T.Then, T.Else, T.PersistentKernel; a call of one */
bool fe_frame_builtin(const char *name);
fe_val *fe_call_frame(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
		      fe_val **kwv, tlc_loc loc);

/* ---- frontend.c ---- */
/* The -D value for `name`, or NULL; marks it used. */
fe_val *fe_define(fe *F, const char *name);

#endif
