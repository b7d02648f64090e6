/* tlc/walk.h - the one walker and the one rewriter of the IR.
 *
 * Every pass that looks at all of a kernel, or rebuilds part of it, goes
 * through here instead of its own `switch (kind)` recursion, so that a new
 * expression or statement kind is taught to the traversals once, in
 * core/walk.c, and no pass silently misses an operand.
 *
 * Three layers, each built on the one before:
 *
 *  - *Children.*  tlc_expr_child() numbers the operands of every expression
 *    kind, and tlc_expr_with_children() rebuilds a node over new operands
 *    (through the tlc_* constructors, so the result is hash-consed and equal
 *    operands give back the very same node).  tlc_stmt_expr() numbers the
 *    expressions a statement holds itself, tlc_stmt_child() its nested
 *    statements.  Everything is numbered in printed order (doc/ir.md).
 *    Code that gives an operand its own meaning (how a call uses its i-th
 *    argument) loops over these instead of spelling out each kind.
 *
 *  - *The visitor* (tlc_walk_*) calls pre- and post-hooks on statements and
 *    expressions in printed order: a statement's pre-hook, its own
 *    expressions (each a whole tree: pre-hook, operands, post-hook), its
 *    nested statements, its post-hook.  Shared sub-expressions (expressions
 *    are a DAG) are visited once per occurrence.  A pre-hook may skip the
 *    node's insides or stop the walk.  Hooks left NULL cost nothing: a
 *    visitor with no expression hook does not descend into expressions.
 *
 *  - *The rewriter* (tlc_expr_rewrite, tlc_stmt_rewrite, tlc_stmt_clone)
 *    substitutes variables by expressions and buffers by buffers, and lets
 *    hooks replace any expression or statement.  Expressions are immutable:
 *    a node is rebuilt only when an operand changed, so an unchanged
 *    expression comes back as the same pointer.  Statements are mutable and
 *    the caller picks: tlc_stmt_rewrite edits the tree in place (what a
 *    lowering pass wants), tlc_stmt_clone builds a new tree and leaves the
 *    original alone (what loop unrolling and software pipelining want: one
 *    body, several copies).  With fresh_binders set, a clone also gets new
 *    loop and let variables and new buffers for its T.alloc_* statements, so
 *    that two copies side by side in one block never declare one object twice.
 *
 * Neither walker nor rewriter ever edits a tlc_buffer or a tlc_var: they are
 * declarations shared by every use (a pass that changes a buffer's shape
 * does so itself).  Memory of rewritten IR is the module's arena. */
#ifndef TLC_WALK_H
#define TLC_WALK_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- children ----
 *
 * Operands of an expression, by kind: none for constants, strings, symbols,
 * VAR and BUF; a (b (c)) for operators, SELECT (cond, then, else) and CAST;
 * the indices of a LOAD; begin0, extent0, begin1, extent1, ... of a REGION
 * (a point dimension too: its extent is 1); the items of a TUPLE, but
 * key0, value0, key1, value1, ... of a dict; the positional arguments then
 * the keyword values of a CALL; the body of a LAMBDA (its parameters are
 * binders, not operands).  A missing operand of malformed IR reads NULL. */

/* The number of operands of e (0 for NULL or an unknown kind). */
TLC_API int tlc_expr_num_children(const tlc_expr *e);
/* Operand i of e (0 <= i < tlc_expr_num_children(e)), in printed order. */
TLC_API const tlc_expr *tlc_expr_child(const tlc_expr *e, int i);
/* e with its operands replaced by children[0 .. num_children-1] (same kind,
 * buffer, op, keyword names, parameters); e itself when none differs. */
TLC_API const tlc_expr *tlc_expr_with_children(tlc_module *m, const tlc_expr *e,
                                               const tlc_expr *const *children);

/* The number of expressions s holds itself: FOR min, extent, loop_layout; IF
 * cond; LET value; STORE indices then value; EVAL and SCOPE call; ATTR value;
 * ALLOC its buffer's shape then init values; SEQ none. */
TLC_API int tlc_stmt_num_exprs(const tlc_stmt *s);
/* Expression i of s (NULL where the field is empty, e.g. no loop_layout). */
TLC_API const tlc_expr *tlc_stmt_expr(const tlc_stmt *s, int i);
/* The number of statements nested directly in s: the items of a SEQ; the
 * body of FOR, SCOPE and ATTR; then and else of IF; none for the others. */
TLC_API int tlc_stmt_num_children(const tlc_stmt *s);
/* Nested statement i of s (an IF's else reads NULL when absent). */
TLC_API tlc_stmt *tlc_stmt_child(const tlc_stmt *s, int i);
/* Where nested statement i of s is stored, to replace it in place. */
TLC_API tlc_stmt **tlc_stmt_child_slot(tlc_stmt *s, int i);

/* ---- the visitor ---- */

typedef enum tlc_walk_action {
	TLC_WALK_CONTINUE, /* visit the node's insides */
	TLC_WALK_SKIP,     /* not its insides; its post-hook still runs */
	TLC_WALK_STOP,     /* end the whole walk now: no hook runs again */
} tlc_walk_action;

/* Hooks of a walk; any may be NULL.  A post-hook runs for every node whose
 * pre-hook did not stop the walk, so pre/post pairs can push and pop state. */
typedef struct tlc_visitor {
	void *ctx; /* passed to every hook */
	tlc_walk_action (*stmt_pre)(void *ctx, const tlc_stmt *s);
	void (*stmt_post)(void *ctx, const tlc_stmt *s);
	tlc_walk_action (*expr_pre)(void *ctx, const tlc_expr *e);
	void (*expr_post)(void *ctx, const tlc_expr *e);
} tlc_visitor;

/* Walk expression e and its operands; false if a hook stopped the walk. */
TLC_API bool tlc_walk_expr(const tlc_visitor *v, const tlc_expr *e);
/* Walk statement s, its expressions and nested statements; false if stopped. */
TLC_API bool tlc_walk_stmt(const tlc_visitor *v, const tlc_stmt *s);
/* Walk a kernel in printed order: tensor shapes of the parameters, attribute
 * values, grid extents, thread counts, then the body; false if stopped. */
TLC_API bool tlc_walk_func(const tlc_visitor *v, const tlc_func *f);

/* ---- the rewriter ---- */

typedef struct tlc_rewriter tlc_rewriter;

/* Substitutions and hooks of a rewrite.  Set it up with tlc_rewriter_init,
 * fill the maps with tlc_rewriter_map_*, set the hooks you need, free it
 * with tlc_rewriter_free.  One rewriter may serve many rewrites (change a
 * mapping between two clones of a loop body). */
struct tlc_rewriter {
	tlc_module *m;
	void *ctx; /* for the hooks */
	/* Before an expression is rewritten: a replacement, used as it is, or
	 * NULL to substitute inside e. */
	const tlc_expr *(*expr_pre)(tlc_rewriter *rw, const tlc_expr *e);
	/* After e's operands were rewritten (e is the rebuilt node): a
	 * replacement or NULL to keep e.  Not called on a substituted variable's
	 * value, which is used as it is. */
	const tlc_expr *(*expr_post)(tlc_rewriter *rw, const tlc_expr *e);
	/* Before a statement is rewritten: a replacement, used as it is, or NULL
	 * to rewrite inside s.  In a clone s is the original: do not edit it, and
	 * return a statement of your own (tlc_stmt_clone of parts of s is fine). */
	tlc_stmt *(*stmt_pre)(tlc_rewriter *rw, tlc_stmt *s);
	/* After s's expressions and nested statements were rewritten (in a
	 * clone, s is the copy): a replacement or NULL to keep s. */
	tlc_stmt *(*stmt_post)(tlc_rewriter *rw, tlc_stmt *s);
	/* Give every loop and let variable bound, and every buffer allocated, in
	 * the rewritten statements a new object (same name, dtype, shape), and
	 * map the old one to it (over any older mapping: the copy before this
	 * one got its own).  Meant for clones; lambda parameters are kept (a
	 * lambda is closed: its parameters never escape it). */
	bool fresh_binders;

	/* private: the maps (tlc_rewriter_map_*) */
	int nvars, cap_vars;
	const tlc_var **var_keys;
	const tlc_expr **var_values;
	int nbufs, cap_bufs;
	const tlc_buffer **buf_keys;
	tlc_buffer **buf_values;
	bool cloning;
};

/* A rewriter over module m with empty maps and no hooks. */
TLC_API void tlc_rewriter_init(tlc_rewriter *rw, tlc_module *m);
/* Free the maps' storage (the IR built stays in the module). */
TLC_API void tlc_rewriter_free(tlc_rewriter *rw);
/* Replace every use of v by value (which is not rewritten further); a NULL
 * value removes v's mapping.  Mapping v again overrides the old value. */
TLC_API void tlc_rewriter_map_var(tlc_rewriter *rw, const tlc_var *v, const tlc_expr *value);
/* Replace every use and the declaration of buffer `from` by `to` (NULL: unmap). */
TLC_API void tlc_rewriter_map_buffer(tlc_rewriter *rw, const tlc_buffer *from, tlc_buffer *to);
/* What v is mapped to, or NULL. */
TLC_API const tlc_expr *tlc_rewriter_var_value(const tlc_rewriter *rw, const tlc_var *v);
/* What buffer b is mapped to, or NULL. */
TLC_API tlc_buffer *tlc_rewriter_buffer_value(const tlc_rewriter *rw, const tlc_buffer *b);

/* Rewrite expression e; e itself when nothing in it changed. */
TLC_API const tlc_expr *tlc_expr_rewrite(tlc_rewriter *rw, const tlc_expr *e);
/* Rewrite statement s in place (its fields and nested statements are
 * edited); returns the statement to use in s's place: s, or a hook's
 * replacement. */
TLC_API tlc_stmt *tlc_stmt_rewrite(tlc_rewriter *rw, tlc_stmt *s);
/* A rewritten copy of s: new statements throughout (expressions are shared,
 * being immutable), s left untouched. */
TLC_API tlc_stmt *tlc_stmt_clone(tlc_rewriter *rw, const tlc_stmt *s);
/* e with vars[i] replaced by values[i] (i < n): a one-shot substitution. */
TLC_API const tlc_expr *tlc_expr_subst_vars(tlc_module *m, const tlc_expr *e, int n,
                                            const tlc_var *const *vars,
                                            const tlc_expr *const *values);

#ifdef __cplusplus
}
#endif
#endif
