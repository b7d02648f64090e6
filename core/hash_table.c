/* hash_table.c - open addressing with linear probing, at most half full.
 * See hash_table.h for the rules (no owned keys, never iterated). */
#include "internal.h"

#include "hash_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct tlc_hash_slot {
	const void *key; /* NULL: empty */
	uint64_t hash;
	int value;
};

/* ---- SipHash-1-3 (Aumasson and Bernstein): a keyed hash, so that the
 * probe sequences of names from the input cannot be predicted ---- */

#define ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL64(v[1], 13);
	v[1] ^= v[0];
	v[0] = ROTL64(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = ROTL64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = ROTL64(v[1], 17);
	v[1] ^= v[2];
	v[2] = ROTL64(v[2], 32);
}

static uint64_t siphash13(const uint64_t key[2], const unsigned char *p, size_t len)
{
	uint64_t v[4] = {
		0x736f6d6570736575ULL ^ key[0], 0x646f72616e646f6dULL ^ key[1],
		0x6c7967656e657261ULL ^ key[0], 0x7465646279746573ULL ^ key[1],
	};
	size_t whole = len - len % 8;
	for (size_t i = 0; i < whole; i += 8) {
		uint64_t m = 0;
		for (int b = 7; b >= 0; b--)
			m = m << 8 | p[i + (size_t)b]; /* little-endian on every host */
		v[3] ^= m;
		sip_round(v);
		v[0] ^= m;
	}
	uint64_t last = (uint64_t)len << 56;
	for (size_t b = 0; b < len % 8; b++)
		last |= (uint64_t)p[whole + b] << (8 * b);
	v[3] ^= last;
	sip_round(v);
	v[0] ^= last;
	v[2] ^= 0xff;
	for (int r = 0; r < 3; r++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* A fresh random key for a new table.  Which key a table gets changes only
 * the probe lengths, never what a lookup finds, so output stays deterministic. */
static void pick_key(tlc_hash_table *t)
{
	if (getrandom(t->sip_key, sizeof(t->sip_key), GRND_NONBLOCK) == (ssize_t)sizeof(t->sip_key))
		return;
	/* no entropy yet (early boot): still different per table and per run */
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t->sip_key[0] = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)t;
	t->sip_key[1] = (uint64_t)now.tv_sec ^ (uint64_t)(uintptr_t)&now;
}

/* ---- the table ---- */

typedef bool (*key_equal_fn)(const void *a, const void *b);

static bool str_equal(const void *a, const void *b)
{
	return strcmp(a, b) == 0;
}

static bool addr_equal(const void *a, const void *b)
{
	return a == b;
}

/* The slot holding key, or the empty slot where it would go. */
static tlc_hash_slot *probe(const tlc_hash_table *t, const void *key, uint64_t hash,
                           key_equal_fn equal)
{
	uint32_t mask = t->cap - 1;
	for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
		tlc_hash_slot *s = &t->slots[i];
		if (!s->key || (s->hash == hash && equal(s->key, key)))
			return s;
	}
}

static void grow(tlc_hash_table *t)
{
	uint32_t old_cap = t->cap;
	tlc_hash_slot *old = t->slots;
	if (old_cap >= UINT32_C(1) << 31) {
		/* 2^30 entries: the int values (array indices) would overflow first */
		fprintf(stderr, "tlc: internal error: more than 2^30 names in one table\n");
		exit(TLC_EXIT_INTERNAL);
	}
	t->cap = old_cap ? old_cap * 2 : 16;
	t->slots = tlc_xcalloc(t->cap, sizeof(*t->slots));
	for (uint32_t i = 0; i < old_cap; i++) {
		if (!old[i].key)
			continue;
		/* keys are distinct: the first empty slot is the place */
		uint32_t mask = t->cap - 1, j = (uint32_t)old[i].hash & mask;
		while (t->slots[j].key)
			j = (j + 1) & mask;
		t->slots[j] = old[i];
	}
	free(old);
}

/* t must have slots (cap > 0). */
static int find(const tlc_hash_table *t, const void *key, uint64_t hash, key_equal_fn equal)
{
	const tlc_hash_slot *s = probe(t, key, hash, equal);
	return s->key ? s->value : -1;
}

static void put(tlc_hash_table *t, const void *key, uint64_t hash, key_equal_fn equal, int value)
{
	tlc_hash_slot *s = probe(t, key, hash, equal);
	if (!s->key) {
		s->key = key;
		s->hash = hash;
		t->count++;
	}
	s->value = value;
}

/* Make room for one more key; at most half full keeps probes short. */
static void reserve(tlc_hash_table *t)
{
	if (!t->cap)
		pick_key(t);
	if ((uint64_t)(t->count + 1) * 2 > t->cap)
		grow(t);
}

static uint64_t str_hash(const tlc_hash_table *t, const char *key)
{
	return siphash13(t->sip_key, (const unsigned char *)key, strlen(key));
}

static uint64_t addr_hash(const tlc_hash_table *t, const void *key)
{
	uintptr_t a = (uintptr_t)key;
	return siphash13(t->sip_key, (const unsigned char *)&a, sizeof(a));
}

int tlc_hash_find_str(const tlc_hash_table *t, const char *key)
{
	return t->cap ? find(t, key, str_hash(t, key), str_equal) : -1;
}

void tlc_hash_put_str(tlc_hash_table *t, const char *key, int value)
{
	reserve(t);
	put(t, key, str_hash(t, key), str_equal, value);
}

int tlc_hash_find_addr(const tlc_hash_table *t, const void *key)
{
	return t->cap ? find(t, key, addr_hash(t, key), addr_equal) : -1;
}

void tlc_hash_put_addr(tlc_hash_table *t, const void *key, int value)
{
	reserve(t);
	put(t, key, addr_hash(t, key), addr_equal, value);
}

void tlc_hash_free(tlc_hash_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->count = 0;
}
