/* tlc/bounds.h - integer interval bounds of index expressions.
 *
 * Passes and targets use them to prove a tile inside a tensor (dropping a
 * boundary predicate) or an operand non-negative.  Unknown means "keep the
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

#ifdef __cplusplus
}
#endif
#endif
