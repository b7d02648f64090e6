/* frontend_index.c - hash indexes of big environments and dicts.  A module
 * with 100,000 globals, or a dict built by a long comprehension, took
 * quadratic time when every lookup scanned; an environment or dict gets an
 * index once it has more than a few entries (most stay small and are
 * scanned).  Dict keys hash consistently with fe_equal: 1, 1.0 and True are
 * one key, as in Python. */
#include "frontend.h"

#include <string.h>

#define INDEX_FROM 8 /* entries scanned before an index pays */

struct fe_index {
	int cap;    /* a power of two, at least twice the entries */
	int *slots; /* entry + 1; 0: empty */
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* Equal values (fe_equal) hash equal.  Numbers hash by their double value,
 * since fe_equal compares an int with a float that way; a sequence by its
 * length and first items, so that a huge or deep key costs little. */
static uint64_t value_hash(const fe_val *v, int depth)
{
	switch (v->kind) {
	case FV_NONE:
		return 1;
	case FV_BOOL:
	case FV_INT:
	case FV_FLOAT: {
		double x = v->kind == FV_FLOAT ? v->u.f : v->kind == FV_INT ? (double)v->u.i : (double)v->u.b;
		if (x == 0)
			x = 0; /* -0.0 == 0.0 */
		uint64_t bits;
		memcpy(&bits, &x, sizeof(bits));
		return mix(bits);
	}
	case FV_DTYPE: /* as the string of its name, which it equals */
		return str_hash(tlc_dtype_name(v->u.dt)) ^ (uint64_t)FV_STR;
	case FV_STR:
	case FV_MODULE:
	case FV_HOST:
	case FV_NAMESPACE:
	case FV_BUILTIN:
		return str_hash(v->u.s) ^ (uint64_t)v->kind;
	case FV_TUPLE:
	case FV_LIST: {
		uint64_t h = mix((uint64_t)v->u.seq.n + 0x51ed);
		for (int i = 0; i < v->u.seq.n && i < 8 && depth < 8; i++)
			h = mix(h ^ value_hash(v->u.seq.items[i], depth + 1));
		return h;
	}
	case FV_EXPR:
		return mix((uint64_t)(uintptr_t)v->u.e);
	case FV_BUF:
		return mix((uint64_t)(uintptr_t)v->u.buf);
	default:
		return mix((uint64_t)(uintptr_t)v); /* equal only to itself */
	}
}

/* A new index of cap slots (a power of two) over entries [0, n). */
static fe_index *index_new(fe *F, int cap)
{
	fe_index *x = fe_alloc(F, sizeof(*x));
	x->cap = cap;
	x->slots = fe_alloc(F, sizeof(int) * (size_t)cap);
	return x;
}

static void index_put(fe_index *x, uint64_t h, int entry)
{
	int j = (int)(h & (uint64_t)(x->cap - 1));
	while (x->slots[j])
		j = (j + 1) & (x->cap - 1);
	x->slots[j] = entry + 1;
}

/* ---- environments ---- */

static fe_index *env_rebuild(fe *F, fe_env *env)
{
	int cap = 16;
	while (cap < 2 * env->cap)
		cap *= 2;
	fe_index *x = index_new(F, cap);
	for (int i = 0; i < env->n; i++)
		index_put(x, str_hash(env->names[i]), i);
	return x;
}

int fe_env_find(const fe_env *env, const char *name)
{
	if (!env->index) {
		for (int i = env->n - 1; i >= 0; i--)
			if (env->names[i] == name || strcmp(env->names[i], name) == 0)
				return i;
		return -1;
	}
	const fe_index *x = env->index;
	for (int j = (int)(str_hash(name) & (uint64_t)(x->cap - 1)); x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		int i = x->slots[j] - 1;
		if (env->names[i] == name || strcmp(env->names[i], name) == 0)
			return i;
	}
	return -1;
}

void fe_env_added(fe *F, fe_env *env)
{
	if (env->n <= INDEX_FROM)
		return;
	if (!env->index || 2 * env->n > env->index->cap)
		env->index = env_rebuild(F, env);
	else
		index_put(env->index, str_hash(env->names[env->n - 1]), env->n - 1);
}

/* ---- dicts ---- */

static fe_index *dict_rebuild(fe *F, fe_val *d)
{
	int cap = 16;
	while (cap < 2 * d->u.dict.cap)
		cap *= 2;
	fe_index *x = index_new(F, cap);
	for (int i = 0; i < d->u.dict.n; i++)
		index_put(x, value_hash(d->u.dict.keys[i], 0), i);
	return x;
}

int fe_dict_find(fe *F, const fe_val *d, const fe_val *k)
{
	if (!d->u.dict.index) {
		for (int i = 0; i < d->u.dict.n; i++)
			if (fe_equal(F, d->u.dict.keys[i], k))
				return i;
		return -1;
	}
	const fe_index *x = d->u.dict.index;
	for (int j = (int)(value_hash(k, 0) & (uint64_t)(x->cap - 1)); x->slots[j]; j = (j + 1) & (x->cap - 1)) {
		int i = x->slots[j] - 1;
		if (fe_equal(F, d->u.dict.keys[i], k))
			return i;
	}
	return -1;
}

void fe_dict_added(fe *F, fe_val *d)
{
	if (d->u.dict.n <= INDEX_FROM)
		return;
	if (!d->u.dict.index || 2 * d->u.dict.n > d->u.dict.index->cap)
		d->u.dict.index = dict_rebuild(F, d);
	else
		index_put(d->u.dict.index, value_hash(d->u.dict.keys[d->u.dict.n - 1], 0), d->u.dict.n - 1);
}
