/* cuda_sync.c - which shared buffers a statement reads and writes.
 *
 * The sync-insert pass places T.sync_threads() in the IR; the emitter only
 * checks its work with the same rules: a statement that reads a shared
 * buffer written since the last barrier (RAW), or writes one read or written
 * since then (WAR, WAW), with no barrier between, is an error.  Two buffers
 * are the same memory when one is a T.view of the other or when
 * storage-plan gave them overlapping bytes of the arena.  Keep these rules
 * in step with plugins/sync_insert/sync_access.c. */
#include <tlc/access.h>
#include "cuda_emit.h"

static bool is_shared(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_SHARED_DYN;
}

static const tlc_buffer *root_of(const tlc_buffer *b)
{
	while (b->alias_of)
		b = b->alias_of;
	return b;
}

static bool same_memory(const tlc_buffer *a, const tlc_buffer *b)
{
	int64_t na, nb;
	if (root_of(a) == root_of(b))
		return true;
	if (a->scope != TLC_SCOPE_SHARED_DYN || b->scope != TLC_SCOPE_SHARED_DYN || a->offset < 0 || b->offset < 0)
		return false;
	if (!tlc_buffer_numel(a, &na) || !tlc_buffer_numel(b, &nb))
		return true;
	na = (na * tlc_dtype_bits(a->dtype) + 7) / 8;
	nb = (nb * tlc_dtype_bits(b->dtype) + 7) / 8;
	return a->offset < b->offset + nb && b->offset < a->offset + na;
}

void cuda_smem_set_add(cuda_smem_set *s, const tlc_buffer *b)
{
	for (int i = 0; i < s->n; i++)
		if (s->bufs[i] == b)
			return;
	if (s->n == CUDA_SMEM_SET_MAX) {
		s->overflow = true; /* treated as "every buffer" */
		return;
	}
	s->bufs[s->n++] = b;
}

void cuda_smem_set_union(cuda_smem_set *s, const cuda_smem_set *t)
{
	s->overflow |= t->overflow;
	for (int i = 0; i < t->n; i++)
		cuda_smem_set_add(s, t->bufs[i]);
}

bool cuda_smem_set_intersects(const cuda_smem_set *a, const cuda_smem_set *b)
{
	if ((a->overflow && (b->n || b->overflow)) || (b->overflow && a->n))
		return true;
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++)
			if (same_memory(a->bufs[i], b->bufs[j]))
				return true;
	return false;
}

typedef struct access_sets {
	cuda_smem_set *reads, *writes;
} access_sets;

static void add_access(void *p, const tlc_buffer *b, unsigned mode)
{
	access_sets *c = p;
	if (!is_shared(b))
		return;
	if (mode & TLC_ACCESS_READ)
		cuda_smem_set_add(c->reads, b);
	if (mode & TLC_ACCESS_WRITE)
		cuda_smem_set_add(c->writes, b);
}

void cuda_collect_shared(const tlc_stmt *s, cuda_smem_set *reads, cuda_smem_set *writes)
{
	access_sets c = {reads, writes};
	tlc_stmt_accesses(s, add_access, &c);
}
