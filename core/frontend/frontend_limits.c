/* frontend_limits.c - the budgets that keep compile-time evaluation bounded
 * on any input: statements run, items gone through, memory of values, size
 * of one value.  Each is checked before the work or the allocation it
 * guards, so that a hostile input gets a file:line:col error, never an
 * abort on a huge allocation or a run that does not end.  The budgets are
 * F->lim (tlc_frontend_limits: defaults and maxima in <tlc/ir.h>, set by
 * the driver's --limit), the depths are in frontend.h; doc/security.md
 * ("Limits") documents both. */
#include "frontend.h"

#include <tlc/walk.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the limits' names (tlc --limit NAME=N) ---- */

typedef struct limit_field {
	const char *name;
	size_t offset;
	int64_t def, max;
} limit_field;

static const limit_field limit_fields[] = {
    {"steps", offsetof(tlc_frontend_limits, steps), TLC_LIMIT_STEPS_DEFAULT, TLC_LIMIT_STEPS_MAX},
    {"work", offsetof(tlc_frontend_limits, work), TLC_LIMIT_WORK_DEFAULT, TLC_LIMIT_WORK_MAX},
    {"items", offsetof(tlc_frontend_limits, items), TLC_LIMIT_ITEMS_DEFAULT, TLC_LIMIT_ITEMS_MAX},
    {"string-bytes", offsetof(tlc_frontend_limits, string_bytes), TLC_LIMIT_STRING_BYTES_DEFAULT,
     TLC_LIMIT_STRING_BYTES_MAX},
    {"memory", offsetof(tlc_frontend_limits, memory), TLC_LIMIT_MEMORY_DEFAULT, TLC_LIMIT_MEMORY_MAX},
};
#define NLIMITS (sizeof(limit_fields) / sizeof(limit_fields[0]))

static const limit_field *limit_field_of(const char *name)
{
	for (size_t i = 0; name && i < NLIMITS; i++)
		if (strcmp(limit_fields[i].name, name) == 0)
			return &limit_fields[i];
	return NULL;
}

int tlc_frontend_limit_set(tlc_frontend_limits *l, const char *name, int64_t value)
{
	const limit_field *f = limit_field_of(name);
	if (!f)
		return 1;
	if (value < 1 || value > f->max)
		return 2;
	memcpy((char *)l + f->offset, &value, sizeof(value));
	return 0;
}

int64_t tlc_frontend_limit_get(const tlc_frontend_limits *l, const char *name)
{
	const limit_field *f = limit_field_of(name);
	if (!f)
		return -1;
	int64_t v = 0;
	if (l)
		memcpy(&v, (const char *)l + f->offset, sizeof(v));
	return v > 0 && v <= f->max ? v : f->def;
}

int64_t tlc_frontend_limit_max(const char *name)
{
	const limit_field *f = limit_field_of(name);
	return f ? f->max : -1;
}

const char *const *tlc_frontend_limit_names(void)
{
	static const char *const names[NLIMITS + 1] = {"steps", "work", "items", "string-bytes", "memory", NULL};
	return names;
}

void fe_limits_init(fe *F)
{
	const tlc_frontend_limits *l = F->opts ? F->opts->limits : NULL;
	F->lim.steps = tlc_frontend_limit_get(l, "steps");
	F->lim.work = tlc_frontend_limit_get(l, "work");
	F->lim.items = tlc_frontend_limit_get(l, "items");
	F->lim.string_bytes = tlc_frontend_limit_get(l, "string-bytes");
	F->lim.memory = tlc_frontend_limit_get(l, "memory");
}

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
 * allocates at most one value of F->lim.items items or F->lim.string_bytes
 * bytes. */
static bool memory_ok(fe *F, tlc_loc loc)
{
	if ((int64_t)F->mem <= F->lim.memory)
		return true;
	bool mib = F->lim.memory % (1 << 20) == 0;
	tlc_error(F->ctx, loc, "compile-time values take more than %lld %s of memory (a limit of tlc: "
	          "--limit memory=BYTES raises it; see \"Limits\" in doc/security.md)",
	          (long long)(mib ? F->lim.memory >> 20 : F->lim.memory), mib ? "MiB" : "bytes");
	F->budget_hit = true;
	return false;
}

bool fe_step(fe *F, tlc_loc loc)
{
	if (F->budget_hit)
		return false;
	if (++F->steps > F->lim.steps) {
		tlc_error(F->ctx, loc, "compile-time evaluation takes too many steps (more than %lld statements "
		          "and loop iterations: --limit steps=N raises it)", (long long)F->lim.steps);
		F->budget_hit = true;
		return false;
	}
	return memory_ok(F, loc);
}

bool fe_work(fe *F, int64_t units, tlc_loc loc)
{
	if (F->budget_hit)
		return false;
	if (units > F->lim.work - F->work) {
		tlc_error(F->ctx, loc, "compile-time evaluation takes too many steps (operations went through "
		          "more than %lld items: --limit work=N raises it)", (long long)F->lim.work);
		F->budget_hit = true;
		return false;
	}
	F->work += units > 0 ? units : 0;
	return memory_ok(F, loc);
}

bool fe_check_items(fe *F, int64_t n, const char *what, tlc_loc loc)
{
	if (n < 0 || n > F->lim.items) {
		char count[32] = "more than 2^63 - 1";
		if (n >= 0)
			snprintf(count, sizeof(count), "%lld", (long long)n);
		tlc_error(F->ctx, loc, "%s of %s items is too long for compile-time evaluation (the limit is %lld "
		          "items: --limit items=N raises it)", what, count, (long long)F->lim.items);
		return false;
	}
	return fe_work(F, n, loc);
}

bool fe_check_str(fe *F, int64_t n, tlc_loc loc)
{
	if (n > F->lim.string_bytes) {
		tlc_error(F->ctx, loc, "string of %lld bytes is too long for compile-time evaluation (the limit "
		          "is %lld bytes: --limit string-bytes=N raises it)", (long long)n, (long long)F->lim.string_bytes);
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
