/* hash_table.h - libtlc's private hash table: lookups by name or by address.
 *
 * The table maps a key to an int (an index into the caller's own array, a
 * counter).  It never owns its keys: a string key must outlive its entry.
 * It is never iterated, so nothing printed can depend on its order: callers
 * keep their entries in an array in insertion order and use the table only to
 * find them.  Keys are hashed with SipHash under a random key per table, so
 * that a hostile INI file or kernel cannot choose names that all collide
 * (doc/security.md). */
#ifndef TLC_PASS_HASH_TABLE_H
#define TLC_PASS_HASH_TABLE_H

#include <stdint.h>

typedef struct tlc_hash_slot tlc_hash_slot;

/* Zero-initialised ({0}) is an empty table.  One table holds either string
 * keys (the _str functions) or address keys (the _addr functions), never both. */
typedef struct tlc_hash_table {
	uint32_t cap;   /* a power of two, or 0 before the first insertion */
	uint32_t count; /* entries stored */
	uint64_t sip_key[2];
	tlc_hash_slot *slots;
} tlc_hash_table;

/* The value stored for key, or -1 when the table has none. */
int tlc_hash_find_str(const tlc_hash_table *t, const char *key);
/* Store value for key.  For a key already there only the value changes: the
 * table keeps the key it was first given, so a borrowed copy may be passed. */
void tlc_hash_put_str(tlc_hash_table *t, const char *key, int value);

int tlc_hash_find_addr(const tlc_hash_table *t, const void *key);
void tlc_hash_put_addr(tlc_hash_table *t, const void *key, int value);

/* Free the slots (not the keys); the table is empty and usable again. */
void tlc_hash_free(tlc_hash_table *t);

#endif
