/* frontend_limits.c - the budgets that keep compile-time evaluation bounded
 * on any input: statements run, items gone through, memory of values, size
 * of one value.  Each is checked before the work or the allocation it
 * guards, so that a hostile input gets a file:line:col error, never an
 * abort on a huge allocation or a run that does not end.  The limits are
 * in frontend.h and documented in doc/language.md ("Limits"). */
#include "frontend.h"

#include <tlc/walk.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *fe_alloc(fe *F, size_t n)
{
	F->mem += n;
	return tlc_arena_alloc(F->arena, n);
}

char *fe_strndup(fe *F, const char *s, size_t n)
{
	F->mem += n + 1;
	return tlc_arena_strndup(F->arena, s, n);
}

char *fe_strdup(fe *F, const char *s)
{
	return fe_strndup(F, s, strlen(s));
}

/* The memory budget is checked where work is counted: every allocation of
 * a value is preceded by a step or by work, and one step or one operation
 * allocates at most one value of FE_MAX_ITEMS items or FE_MAX_STR bytes. */
static bool memory_ok(fe *F, tlc_loc loc)
{
	if (F->mem <= FE_MAX_MEMORY)
		return true;
	tlc_error(F->ctx, loc, "compile-time values take more than %zu MiB of memory (a limit of tlc: "
	          "see \"Limits\" in doc/language.md)", FE_MAX_MEMORY >> 20);
	F->budget_hit = true;
	return false;
}

bool fe_step(fe *F, tlc_loc loc)
{
	if (F->budget_hit)
		return false;
	if (++F->steps > FE_MAX_STEPS) {
		tlc_error(F->ctx, loc, "compile-time evaluation takes too many steps (more than %ld statements "
		          "and loop iterations)", FE_MAX_STEPS);
		F->budget_hit = true;
		return false;
	}
	return memory_ok(F, loc);
}

bool fe_work(fe *F, int64_t units, tlc_loc loc)
{
	if (F->budget_hit)
		return false;
	if (units > FE_MAX_WORK - F->work) {
		tlc_error(F->ctx, loc, "compile-time evaluation takes too many steps (operations went through "
		          "more than %lld items)", (long long)FE_MAX_WORK);
		F->budget_hit = true;
		return false;
	}
	F->work += units > 0 ? units : 0;
	return memory_ok(F, loc);
}

bool fe_check_items(fe *F, int64_t n, const char *what, tlc_loc loc)
{
	if (n < 0 || n > FE_MAX_ITEMS) {
		char count[32] = "more than 2^63 - 1";
		if (n >= 0)
			snprintf(count, sizeof(count), "%lld", (long long)n);
		tlc_error(F->ctx, loc, "%s of %s items is too long for compile-time evaluation (the limit is %d "
		          "items: see \"Limits\" in doc/language.md)", what, count, FE_MAX_ITEMS);
		return false;
	}
	return fe_work(F, n, loc);
}

bool fe_check_str(fe *F, int64_t n, tlc_loc loc)
{
	if (n > FE_MAX_STR) {
		tlc_error(F->ctx, loc, "string of %lld bytes is too long for compile-time evaluation (the limit "
		          "is %d bytes: see \"Limits\" in doc/language.md)", (long long)n, FE_MAX_STR);
		return false;
	}
	/* a string costs about one unit per 64 bytes it copies */
	return fe_work(F, n / 64, loc);
}

int64_t fe_range_len(int64_t start, int64_t stop, int64_t step)
{
	/* stop - start of two int64 bounds needs the unsigned range */
	uint64_t span, mag;
	if (step > 0 && stop > start) {
		span = (uint64_t)stop - (uint64_t)start;
		mag = (uint64_t)step;
	} else if (step < 0 && start > stop) {
		span = (uint64_t)start - (uint64_t)stop;
		mag = (uint64_t)0 - (uint64_t)step;
	} else {
		return 0;
	}
	uint64_t n = (span - 1) / mag + 1;
	return n > (uint64_t)INT64_MAX ? -1 : (int64_t)n;
}

fe_val *fe_overflow(fe *F, tlc_loc loc)
{
	tlc_error(F->ctx, loc, "integer overflow in compile-time arithmetic (integers are 64-bit)");
	return NULL;
}

/* ---- depth of kernel expressions ---- */

/* Expressions are a DAG (x = x + x doubles the tree, not the DAG): the depth
 * of each operator node made is remembered, so that a new node costs a look
 * at its operands only. */
struct fe_depth_memo {
	size_t n, cap;
	const tlc_expr **keys;
	int *depth;
};

static size_t memo_slot(const tlc_expr *e, size_t cap)
{
	return (size_t)(((uint64_t)(uintptr_t)e * 0x9E3779B97F4A7C15u) >> 20) & (cap - 1);
}

static int memo_get(const struct fe_depth_memo *m, const tlc_expr *e)
{
	if (!m->cap)
		return 0;
	for (size_t j = memo_slot(e, m->cap); m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == e)
			return m->depth[j];
	return 0;
}

static void memo_put(struct fe_depth_memo *m, const tlc_expr *e, int depth)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		const tlc_expr **keys = tlc_xcalloc(cap, sizeof(*keys));
		int *d = tlc_xcalloc(cap, sizeof(*d));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = memo_slot(m->keys[i], cap);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = m->keys[i];
			d[j] = m->depth[i];
		}
		free(m->keys);
		free(m->depth);
		m->keys = keys;
		m->depth = d;
		m->cap = cap;
	}
	size_t j = memo_slot(e, m->cap);
	while (m->keys[j])
		j = (j + 1) & (m->cap - 1);
	m->keys[j] = e;
	m->depth[j] = depth;
	m->n++;
}

/* The depth of e, or more than FE_MAX_EXPR_DEPTH (then it stops looking:
 * `budget` bounds this recursion as the limit bounds the expressions). */
static int expr_depth(struct fe_depth_memo *m, const tlc_expr *e, int budget)
{
	int n = tlc_expr_num_children(e);
	if (!n)
		return 1;
	int d = memo_get(m, e);
	if (d)
		return d;
	if (budget <= 0)
		return FE_MAX_EXPR_DEPTH + 1;
	for (int i = 0; i < n && d <= FE_MAX_EXPR_DEPTH; i++) {
		const tlc_expr *c = tlc_expr_child(e, i);
		int dc = c ? expr_depth(m, c, budget - 1) : 0;
		if (dc > d)
			d = dc;
	}
	d++;
	if (d <= FE_MAX_EXPR_DEPTH)
		memo_put(m, e, d);
	return d;
}

bool fe_expr_depth_ok(fe *F, const tlc_expr *e)
{
	if (!F->depths) {
		F->depths = tlc_xcalloc(1, sizeof(*F->depths));
	}
	if (expr_depth(F->depths, e, FE_MAX_EXPR_DEPTH + 1) <= FE_MAX_EXPR_DEPTH)
		return true;
	if (!F->budget_hit)
		tlc_error(F->ctx, F->at, "kernel expression nests too deeply: more than %d operators inside each "
		          "other (split it with intermediate variables)", FE_MAX_EXPR_DEPTH);
	F->budget_hit = true;
	return false;
}

void fe_limits_free(fe *F)
{
	if (!F->depths)
		return;
	free(F->depths->keys);
	free(F->depths->depth);
	free(F->depths);
	F->depths = NULL;
}
