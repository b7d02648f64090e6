/* tlc/bounds.h - integer interval bounds of index expressions.
 *
 * Passes and targets use them to prove an access inside a tensor (dropping
 * a boundary predicate) or an operand non-negative.  Unknown means "keep the
 * safe form": every rule is sound, never merely plausible. */
#ifndef TLC_BOUNDS_H
#define TLC_BOUNDS_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An integer interval [lo, hi] known for a variable. */
typedef struct tlc_var_range {
	const tlc_var *var;
	int64_t lo, hi;
} tlc_var_range;

/* Ranges of the variables in scope (a stack: save n, push, restore n). */
typedef struct tlc_ranges {
	int n, cap;
	tlc_var_range *items;
} tlc_ranges;

/* Push v in [lo, hi]. */
TLC_API void tlc_ranges_push(tlc_ranges *r, const tlc_var *v, int64_t lo, int64_t hi);
/* Free the stack's storage. */
TLC_API void tlc_ranges_free(tlc_ranges *r);
/* Bounds of an integer expression under r; false when unknown. */
TLC_API bool tlc_expr_bounds(const tlc_ranges *r, const tlc_expr *e, int64_t *lo, int64_t *hi);
/* Push the range of loop variable v running from min for extent iterations
 * (from min up to INT32_MAX when only min is bounded; nothing when not). */
TLC_API void tlc_ranges_push_loop(tlc_ranges *r, const tlc_var *v, const tlc_expr *min, const tlc_expr *extent);
/* Push the ranges of f's named block and thread variables (the GPU's limits
 * where the grid or the block size is known only at run time). */
TLC_API void tlc_ranges_push_frame(tlc_ranges *r, const tlc_func *f);
/* The guard of an access to b at idx[0..n-1]: the conjunction, in
 * dimension order, of `idx[d] < shape[d]` and `idx[d] >= 0` for what
 * neither r's bounds nor the conditions facts[0..nfacts-1] (known to hold
 * there) prove; NULL when the access is provably inside b. */
TLC_API const tlc_expr *tlc_access_guard(tlc_module *m, const tlc_ranges *r, const tlc_buffer *b, int n,
                                         const tlc_expr *const *idx, int nfacts, const tlc_expr *const *facts);
/* What a masked load of global tensor b reads in kernel f: the constant its
 * T.annotate_safe_value gives, else 0 of b's dtype. */
TLC_API const tlc_expr *tlc_safe_value(tlc_module *m, const tlc_func *f, const tlc_buffer *b);

#ifdef __cplusplus
}
#endif
#endif
