/* cuda_sync.c - which shared buffers a statement reads and writes.
 *
 * The emitter places __syncthreads() between two statements when the second
 * reads a shared buffer the first wrote (RAW), or writes one that was read or
 * written since the last barrier (WAR, WAW): threads of a T.Parallel
 * partition touch other threads' elements.  A future `sync-insert` pass
 * plugin takes this over. */
#include "cuda_emit.h"

static bool is_shared(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_SHARED_DYN;
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
			if (a->bufs[i] == b->bufs[j])
				return true;
	return false;
}

static void expr_reads(const tlc_expr *x, cuda_smem_set *reads)
{
	if (!x)
		return;
	switch (x->kind) {
	case TLC_EXPR_LOAD:
		if (is_shared(x->u.load.buf))
			cuda_smem_set_add(reads, x->u.load.buf);
		for (int i = 0; i < x->u.load.n; i++)
			expr_reads(x->u.load.idx[i], reads);
		return;
	case TLC_EXPR_CALL:
		for (int i = 0; i < x->u.call.nargs; i++)
			expr_reads(x->u.call.args[i], reads);
		for (int i = 0; i < x->u.call.nkw; i++)
			expr_reads(x->u.call.kw_values[i], reads);
		return;
	case TLC_EXPR_TUPLE:
		for (int i = 0; i < x->u.tuple.n; i++)
			expr_reads(x->u.tuple.items[i], reads);
		return;
	case TLC_EXPR_BUF:
	case TLC_EXPR_REGION: {
		/* an un-lowered tile op operand: count it as a read (conservative) */
		const tlc_buffer *b = x->kind == TLC_EXPR_BUF ? x->u.buf : x->u.region.buf;
		if (is_shared(b))
			cuda_smem_set_add(reads, b);
		return;
	}
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT:
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM:
	case TLC_EXPR_VAR:
	case TLC_EXPR_LAMBDA:
		return;
	default:
		expr_reads(x->u.op.a, reads);
		expr_reads(x->u.op.b, reads);
		expr_reads(x->u.op.c, reads);
	}
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
		expr_reads(s->u.loop.min, reads);
		expr_reads(s->u.loop.extent, reads);
		cuda_collect_shared(s->u.loop.body, reads, writes);
		return;
	case TLC_STMT_IF:
		expr_reads(s->u.if_.cond, reads);
		cuda_collect_shared(s->u.if_.then_s, reads, writes);
		cuda_collect_shared(s->u.if_.else_s, reads, writes);
		return;
	case TLC_STMT_LET:
		expr_reads(s->u.let.value, reads);
		return;
	case TLC_STMT_STORE:
		if (is_shared(s->u.store.buf))
			cuda_smem_set_add(writes, s->u.store.buf);
		for (int i = 0; i < s->u.store.n; i++)
			expr_reads(s->u.store.idx[i], reads);
		expr_reads(s->u.store.value, reads);
		return;
	case TLC_STMT_EVAL:
		expr_reads(s->u.eval.call, reads);
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
