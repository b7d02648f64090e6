/* arena.c - the bump allocator that owns all IR of a module, and the
 * xmalloc family used for everything else. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks of 64 KiB; a request larger than a quarter block gets a block of its
 * own so that it never wastes the tail of a shared one. */
#define ARENA_BLOCK_SIZE (64u * 1024u)
#define ARENA_BIG (ARENA_BLOCK_SIZE / 4)

typedef struct arena_block {
	struct arena_block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	/* data follows, 16-byte aligned */
	_Alignas(16) unsigned char data[];
} arena_block;

struct tlc_arena {
	arena_block *head;  /* the block bumped from */
	arena_block *big;   /* dedicated blocks of big allocations */
};

static void oom(size_t n)
{
	fprintf(stderr, "tlc: internal error: out of memory allocating %zu bytes\n", n);
	exit(TLC_EXIT_INTERNAL);
}

void *tlc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *tlc_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *tlc_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *tlc_mem_alloc(size_t n)
{
	return tlc_xcalloc(1, n);
}

void *tlc_mem_realloc(void *p, size_t n)
{
	return tlc_xrealloc(p, n);
}

void tlc_mem_free(void *p)
{
	free(p);
}

void *tlc_mem_grow(void *p, int n, int *cap, size_t size)
{
	if (n < *cap)
		return p;
	if (*cap > INT32_MAX / 2 || (size_t)*cap * 2 > SIZE_MAX / (size ? size : 1))
		oom(SIZE_MAX);
	*cap = *cap ? *cap * 2 : 8;
	return tlc_xrealloc(p, (size_t)*cap * size);
}

char *tlc_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = tlc_xmalloc(n);
	memcpy(p, s, n);
	return p;
}

static arena_block *block_new(size_t size)
{
	if (size > SIZE_MAX - sizeof(arena_block))
		oom(size);
	arena_block *b = tlc_xmalloc(sizeof(arena_block) + size);
	b->next = NULL;
	b->size = size;
	b->used = 0;
	return b;
}

/* Create an empty arena. */
tlc_arena *tlc_arena_new(void)
{
	tlc_arena *a = tlc_xcalloc(1, sizeof(*a));
	return a;
}

static void free_chain(arena_block *b)
{
	while (b) {
		arena_block *next = b->next;
		free(b);
		b = next;
	}
}

/* Free every block of the arena and the arena itself. */
void tlc_arena_free(tlc_arena *a)
{
	if (!a)
		return;
	free_chain(a->head);
	free_chain(a->big);
	free(a);
}

/* n zeroed bytes, 8-byte aligned. */
void *tlc_arena_alloc(tlc_arena *a, size_t n)
{
	if (n > SIZE_MAX - 16)
		oom(n);
	size_t need = (n + 7) & ~(size_t)7;
	if (need == 0)
		need = 8;
	if (need > ARENA_BIG) {
		arena_block *b = block_new(need);
		b->used = need;
		b->next = a->big;
		a->big = b;
		memset(b->data, 0, need);
		return b->data;
	}
	if (!a->head || a->head->size - a->head->used < need) {
		arena_block *b = block_new(ARENA_BLOCK_SIZE);
		b->next = a->head;
		a->head = b;
	}
	void *p = a->head->data + a->head->used;
	a->head->used += need;
	memset(p, 0, need);
	return p;
}

/* Copy at most n bytes of s into the arena, NUL-terminated. */
char *tlc_arena_strndup(tlc_arena *a, const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = tlc_arena_alloc(a, len + 1);
	memcpy(p, s, len);
	return p;
}

/* Copy s into the arena. */
char *tlc_arena_strdup(tlc_arena *a, const char *s)
{
	return tlc_arena_strndup(a, s, strlen(s));
}

void *tlc_alloc(tlc_module *m, size_t n)
{
	return tlc_arena_alloc(m->arena, n);
}

const char *tlc_strdup(tlc_module *m, const char *s)
{
	return tlc_arena_strdup(m->arena, s ? s : "");
}
