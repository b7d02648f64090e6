/* cuda_sync.c - which shared buffers a statement reads and writes.
 *
 * The sync-insert pass places T.sync_threads() in the IR; the emitter only
 * checks its work with the same rules: a statement that reads a shared
 * buffer written since the last barrier (RAW), or writes one read or written
 * since then (WAR, WAW), with no barrier between, is an error.  Two buffers
 * are the same memory when one is a T.view of the other or when
 * storage-plan gave them overlapping bytes of the arena.  Keep these rules
 * in step with plugins/sync_insert/sync_access.c. */
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
	if (!cuda_buffer_numel(a, &na) || !cuda_buffer_numel(b, &nb))
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

enum { MODE_R = 1, MODE_W = 2, MODE_RW = 3 };

/* How a call uses its buffer-valued argument i (as sync_access.c). */
static int arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_MMA_GEMM:
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: return i < 2 ? MODE_R : MODE_RW;
	case TLC_OP_COPY_VEC: return i == 0 ? MODE_W : MODE_R;
	case TLC_OP_COPY:
	case TLC_OP_TMA_COPY: return i == 0 ? MODE_R : MODE_W;
	case TLC_OP_FILL:
	case TLC_OP_CLEAR: return MODE_W;
	case TLC_OP_ATOMIC_ADD: return i == 0 ? MODE_RW : MODE_R;
	default: return MODE_RW;
	}
}

/* How a call uses its element argument i (a LOAD: copy_vec and atomics take
 * the address of their first one). */
static int load_arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_COPY_VEC: return i == 0 ? MODE_W : MODE_R;
	case TLC_OP_ATOMIC_ADD:
	case TLC_OP_ATOMIC_ADD_VEC: return i == 0 ? MODE_RW : MODE_R;
	default: return MODE_R;
	}
}

static void buf_access(const tlc_buffer *b, int mode, cuda_smem_set *reads, cuda_smem_set *writes)
{
	if (!is_shared(b))
		return;
	if (mode & MODE_R)
		cuda_smem_set_add(reads, b);
	if (mode & MODE_W)
		cuda_smem_set_add(writes, b);
}

/* mode: how a buffer reference at the top of x is used. */
static void expr_access(const tlc_expr *x, int mode, cuda_smem_set *reads, cuda_smem_set *writes)
{
	if (!x)
		return;
	switch (x->kind) {
	case TLC_EXPR_LOAD:
		buf_access(x->u.load.buf, mode, reads, writes);
		for (int i = 0; i < x->u.load.n; i++)
			expr_access(x->u.load.idx[i], MODE_R, reads, writes);
		return;
	case TLC_EXPR_BUF: buf_access(x->u.buf, mode, reads, writes); return;
	case TLC_EXPR_REGION:
		buf_access(x->u.region.buf, mode, reads, writes);
		for (int i = 0; i < x->u.region.n; i++) {
			expr_access(x->u.region.dims[i].begin, MODE_R, reads, writes);
			expr_access(x->u.region.dims[i].extent, MODE_R, reads, writes);
		}
		return;
	case TLC_EXPR_CALL:
		for (int i = 0; i < x->u.call.nargs; i++) {
			const tlc_expr *a = x->u.call.args[i];
			int m = a->kind == TLC_EXPR_LOAD ? load_arg_mode(x->u.call.op, i) : arg_mode(x->u.call.op, i);
			expr_access(a, m, reads, writes);
		}
		for (int i = 0; i < x->u.call.nkw; i++)
			expr_access(x->u.call.kw_values[i], MODE_RW, reads, writes);
		return;
	case TLC_EXPR_TUPLE:
		for (int i = 0; i < x->u.tuple.n; i++)
			expr_access(x->u.tuple.items[i], mode, reads, writes);
		return;
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT:
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM:
	case TLC_EXPR_VAR:
	case TLC_EXPR_LAMBDA:
		return;
	default:
		expr_access(x->u.op.a, MODE_R, reads, writes);
		expr_access(x->u.op.b, MODE_R, reads, writes);
		expr_access(x->u.op.c, MODE_R, reads, writes);
	}
}

static void expr_reads(const tlc_expr *x, cuda_smem_set *reads, cuda_smem_set *writes)
{
	expr_access(x, MODE_R, reads, writes);
}

void cuda_collect_shared(const tlc_stmt *s, cuda_smem_set *reads, cuda_smem_set *writes)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			cuda_collect_shared(s->u.seq.items[i], reads, writes);
		return;
	case TLC_STMT_FOR:
		expr_reads(s->u.loop.min, reads, writes);
		expr_reads(s->u.loop.extent, reads, writes);
		cuda_collect_shared(s->u.loop.body, reads, writes);
		return;
	case TLC_STMT_IF:
		expr_reads(s->u.if_.cond, reads, writes);
		cuda_collect_shared(s->u.if_.then_s, reads, writes);
		cuda_collect_shared(s->u.if_.else_s, reads, writes);
		return;
	case TLC_STMT_LET:
		expr_reads(s->u.let.value, reads, writes);
		return;
	case TLC_STMT_STORE:
		if (is_shared(s->u.store.buf))
			cuda_smem_set_add(writes, s->u.store.buf);
		for (int i = 0; i < s->u.store.n; i++)
			expr_reads(s->u.store.idx[i], reads, writes);
		expr_reads(s->u.store.value, reads, writes);
		return;
	case TLC_STMT_EVAL:
		expr_reads(s->u.eval.call, reads, writes);
		return;
	case TLC_STMT_SCOPE:
		cuda_collect_shared(s->u.scope.body, reads, writes);
		return;
	case TLC_STMT_ATTR:
		cuda_collect_shared(s->u.attr.body, reads, writes);
		return;
	case TLC_STMT_ALLOC:
		return;
	}
}
