/* pysource.c - the memory of the syntax tree: a source file with its
 * interned names (py_source) and the node pool whose statements can be given
 * back (py_pool).  See pyast.h. */
#include "pyparse.h"

#include <stdlib.h>
#include <string.h>

/* ---- the source and its interned names ---- */

void py_source_init(py_source *src, tlc_context *ctx, tlc_arena *arena, uint32_t file,
                    const char *text, size_t len)
{
	memset(src, 0, sizeof(*src));
	src->ctx = ctx;
	src->arena = arena;
	src->file = file;
	if (len >= 3 && text && !memcmp(text, "\xEF\xBB\xBF", 3)) { /* UTF-8 byte order mark */
		text += 3;
		len -= 3;
	}
	src->text = text ? text : "";
	src->len = text ? len : 0;
}

void py_source_fini(py_source *src)
{
	free(src->skips);
	src->skips = NULL;
	src->nskips = src->cap_skips = 0;
	free(src->names);
	src->names = NULL;
	src->nnames = src->cap_names = 0;
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

const char *py_intern(py_source *src, const char *s, size_t n)
{
	if (src->nnames * 2 >= src->cap_names) {
		size_t cap = src->cap_names ? src->cap_names * 2 : 256;
		const char **names = tlc_xcalloc(cap, sizeof(*names));
		for (size_t i = 0; i < src->cap_names; i++) {
			const char *old = src->names[i];
			if (!old)
				continue;
			size_t j = name_hash(old, strlen(old)) & (cap - 1);
			while (names[j])
				j = (j + 1) & (cap - 1);
			names[j] = old;
		}
		free(src->names);
		src->names = names;
		src->cap_names = cap;
	}
	size_t j = name_hash(s, n) & (src->cap_names - 1);
	for (; src->names[j]; j = (j + 1) & (src->cap_names - 1))
		if (!strncmp(src->names[j], s, n) && src->names[j][n] == 0)
			return src->names[j];
	src->nnames++;
	return src->names[j] = tlc_arena_strndup(src->arena, s, n);
}

/* ---- where blocks end ---- */

static size_t skip_slot(size_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15u) >> 17) & (cap - 1);
}

/* A key of 0 marks an empty slot: no block starts at byte 0 (an indented
 * block follows the line of its header). */
py_skip *py_skip_add(py_source *src, size_t key)
{
	if (src->nskips * 2 >= src->cap_skips) {
		size_t cap = src->cap_skips ? src->cap_skips * 2 : 64;
		py_skip *t = tlc_xcalloc(cap, sizeof(*t));
		for (size_t i = 0; i < src->cap_skips; i++) {
			if (!src->skips[i].key)
				continue;
			size_t j = skip_slot(src->skips[i].key, cap);
			while (t[j].key)
				j = (j + 1) & (cap - 1);
			t[j] = src->skips[i];
		}
		free(src->skips);
		src->skips = t;
		src->cap_skips = cap;
	}
	size_t j = skip_slot(key, src->cap_skips);
	while (src->skips[j].key && src->skips[j].key != key)
		j = (j + 1) & (src->cap_skips - 1);
	if (!src->skips[j].key)
		src->nskips++;
	src->skips[j].key = key;
	return &src->skips[j];
}

py_skip *py_skip_find(const py_source *src, size_t key)
{
	if (!src->cap_skips || !key)
		return NULL;
	size_t j = skip_slot(key, src->cap_skips);
	for (; src->skips[j].key; j = (j + 1) & (src->cap_skips - 1))
		if (src->skips[j].key == key)
			return &src->skips[j];
	return NULL;
}

/* ---- the node pool ---- */

/* Blocks of 64 KiB, chained newest first; a request over a quarter block
 * gets a block of its own, so that a mark and a release stay exact. */
#define POOL_BLOCK (64u * 1024u)

typedef struct pool_block {
	struct pool_block *prev;
	size_t size, used;
	_Alignas(16) unsigned char data[];
} pool_block;

struct py_pool {
	pool_block *top;
	pool_block *spare; /* one freed standard block, kept: a statement often crosses a block */
};

py_pool *py_pool_new(void)
{
	return tlc_xcalloc(1, sizeof(py_pool));
}

void py_pool_free(py_pool *pool)
{
	if (!pool)
		return;
	py_pool_release(pool, (py_pool_mark){NULL, 0});
	free(pool->spare);
	free(pool);
}

void *py_pool_alloc(py_pool *pool, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	pool_block *b = pool->top;
	if (!b || b->size - b->used < n) {
		size_t size = n > POOL_BLOCK / 4 ? n : POOL_BLOCK;
		if (size == POOL_BLOCK && pool->spare) {
			b = pool->spare;
			pool->spare = NULL;
		} else {
			if (size > SIZE_MAX - sizeof(pool_block))
				size = SIZE_MAX - sizeof(pool_block); /* tlc_xmalloc reports it */
			b = tlc_xmalloc(sizeof(pool_block) + size);
			b->size = size;
		}
		b->used = 0;
		b->prev = pool->top;
		pool->top = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

py_pool_mark py_pool_mark_now(const py_pool *pool)
{
	py_pool_mark m = {pool->top, pool->top ? pool->top->used : 0};
	return m;
}

void py_pool_release(py_pool *pool, py_pool_mark m)
{
	while (pool->top && pool->top != m.block) {
		pool_block *b = pool->top;
		pool->top = b->prev;
		if (b->size == POOL_BLOCK && !pool->spare)
			pool->spare = b;
		else
			free(b);
	}
	if (pool->top)
		pool->top->used = m.used;
}
