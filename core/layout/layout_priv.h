/* layout_priv.h - private helpers shared by the layout algebra's files
 * (layout.c, layout_eval.c, layout_fragment.c, layout_fit.c, layout_expr.c).
 * Nothing here is installed. */
#ifndef TLC_LAYOUT_PRIV_H
#define TLC_LAYOUT_PRIV_H

#include "internal.h"

#include <tlc/layout.h>

/* Enumeration of more points than this is refused (compile time). */
#define LAYOUT_ENUM_CAP ((int64_t)1 << 22)

/* ---- layout_eval.c: a small stack machine for index expressions ---- */

typedef struct lprog_op {
	int op;      /* an lprog opcode (layout_eval.c) */
	int64_t imm; /* constant or variable slot */
} lprog_op;

/* An expression compiled against an ordered list of variables (slots). */
typedef struct lprog {
	int n;
	const lprog_op *code;
} lprog;

/* Compile e over vars[0..nvars) into m's arena; false (and *why) when e uses
 * something other than integer arithmetic on those variables. */
bool lprog_compile(tlc_module *m, const tlc_expr *e, int nvars, tlc_var *const *vars, lprog *out,
                   const char **why);
/* Evaluate with slot values vals; false on division by zero or a bad program. */
bool lprog_eval(const lprog *p, const int64_t *vals, int64_t *out);

/* Interval bounds of e with each vars[k] in [lo[k], hi[k]]; false if unknown. */
bool layout_bounds(const tlc_expr *e, int nvars, tlc_var *const *vars, const int64_t *lo, const int64_t *hi,
                   int64_t *emin, int64_t *emax);

/* e with vars[k] replaced by with[k], not simplified. */
const tlc_expr *layout_subst(tlc_module *m, const tlc_expr *e, int nvars, tlc_var *const *vars,
                             const tlc_expr *const *with);

/* ---- layout.c ---- */

/* Every tlc_layout built here is the first member of this. */
typedef struct layout_impl {
	tlc_layout pub;
	lprog *prog; /* MEMORY/SWIZZLED: one program per out[k] over vars */
} layout_impl;

static inline const layout_impl *impl_of(const tlc_layout *l) { return (const layout_impl *)l; }

/* A new zeroed layout of the given kind and logical shape (copied). */
layout_impl *layout_alloc(tlc_module *m, tlc_layout_kind kind, int ndim, const int64_t *shape);
/* Product of n extents; -1 on overflow or a negative extent. */
int64_t layout_prod(int n, const int64_t *v);
/* Odometer step over a shape: false after the last index. */
bool layout_next_index(int n, const int64_t *shape, int64_t *idx);
/* Physical multi-index (nout values) of a logical index of a memory layout. */
bool layout_eval_phys(const tlc_layout *l, const int64_t *idx, int64_t *phys);
/* Row-major flat offset of idx in shape, as an expression. */
const tlc_expr *layout_flatten(tlc_module *m, int n, const int64_t *shape, const tlc_expr *const *idx);
/* The i-th digit helper: (x // w) % r, dropping the // for w == 1 and the %
 * when x < w * r is known from the extent. */
const tlc_expr *layout_digit_expr(tlc_module *m, const tlc_expr *x, int64_t w, int64_t r, int64_t extent);
/* Finish a memory layout: simplify out, compile programs, out_shape given. */
const tlc_layout *layout_finish_memory(tlc_module *m, layout_impl *L, tlc_var **vars, int nout,
                                       const tlc_expr *const *out, const int64_t *out_shape,
                                       const char **why);

/* ---- layout_fragment.c ---- */

/* Thread (relative, for replica rep in [0, replicate)) and register of a
 * logical index of a fragment. */
void frag_eval(const tlc_layout *f, const int64_t *idx, int64_t rep, int64_t *thread, int64_t *reg);
/* f with a new leading dimension of extent 1 (for tlc_layout_expand). */
const tlc_layout *frag_add_leading_dim(tlc_module *m, const tlc_layout *f);
/* tlc_fragment_from_digits, with the variables of the expressions given
 * (vars: ndim of them; rep: used when the fragment replicates) or fresh
 * when NULL. */
const tlc_layout *frag_build(tlc_module *m, int ndim, const int64_t *shape, int ndigits,
                             const tlc_frag_digit *digits, int64_t thread_lo, tlc_var **vars, tlc_var *rep,
                             const char **why);

/* ---- layout_fit.c ---- */

/* The digit form of the fragment whose thread and register index are
 * thread_fn (over vars..., rep) and index_fn (over vars...), found by
 * enumeration; threads <= 0: as many as used.  NULL and *why otherwise. */
const tlc_layout *frag_fit(tlc_module *m, int ndim, const int64_t *shape, tlc_var **vars, tlc_var *rep,
                           const lprog *thread_fn, const lprog *index_fn, int64_t replicate, int64_t threads,
                           int64_t thread_lo, const char **why);

#endif
