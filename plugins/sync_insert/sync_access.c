/* sync_access.c - which shared buffers a statement reads and writes, and
 * when two sets of accesses need a barrier between them.
 *
 * Two shared buffers are the same memory when they have the same root (a
 * T.view and its source) or when storage-plan gave them overlapping bytes
 * of the arena: a write to one after a read of the other by another thread
 * is a hazard like any other. */
#include <string.h>

#include "sync_insert.h"

static bool is_shared(const tlc_buffer *b)
{
	return b && (b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_SHARED_DYN);
}

static const tlc_buffer *root_of(const tlc_buffer *b)
{
	while (b->alias_of)
		b = b->alias_of;
	return b;
}

/* Bytes of b, or -1 when its shape is not constant. */
static int64_t buffer_bytes(const tlc_buffer *b)
{
	int64_t bits = tlc_dtype_bits(b->dtype);
	for (int i = 0; i < b->ndim; i++) {
		int64_t x;
		if (!tlc_expr_as_int(b->shape[i], &x) || x < 0 || (x && bits > INT64_MAX / 2 / x))
			return -1;
		bits *= x;
	}
	return (bits + 7) / 8;
}

static bool same_memory(const tlc_buffer *a, const tlc_buffer *b)
{
	if (root_of(a) == root_of(b))
		return true;
	if (a->scope != TLC_SCOPE_SHARED_DYN || b->scope != TLC_SCOPE_SHARED_DYN || a->offset < 0 || b->offset < 0)
		return false;
	int64_t na = buffer_bytes(a), nb = buffer_bytes(b);
	if (na < 0 || nb < 0)
		return true; /* unknown extent: assume the worst */
	return a->offset < b->offset + nb && b->offset < a->offset + na;
}

/* The index of b in si's table, adding it (and its conflict row) if new;
 * -1 past SI_MAX_BUFS (reported once). */
static int buf_index(si_state *si, const tlc_buffer *b)
{
	for (int i = 0; i < si->nbufs; i++)
		if (si->bufs[i] == b)
			return i;
	if (si->nbufs == SI_MAX_BUFS) {
		if (!si->too_many++)
			tlc_error(si->m->ctx, si->f->loc, "kernel '%s' uses more than %d shared buffers: sync-insert "
			          "cannot track them", si->f->name, SI_MAX_BUFS);
		return -1;
	}
	int k = si->nbufs++;
	si->bufs[k] = b;
	si->rows[k] = (si_set){{0}};
	for (int i = 0; i <= k; i++)
		if (same_memory(si->bufs[i], b)) {
			si->rows[k].w[i / 64] |= 1ull << (i % 64);
			si->rows[i].w[k / 64] |= 1ull << (k % 64);
		}
	return k;
}

static void set_add(si_state *si, si_set *s, const tlc_buffer *b)
{
	if (!is_shared(b))
		return;
	int i = buf_index(si, b);
	if (i >= 0)
		s->w[i / 64] |= 1ull << (i % 64);
}

void si_set_union(si_set *s, const si_set *t)
{
	for (int i = 0; i < SI_WORDS; i++)
		s->w[i] |= t->w[i];
}

/* The first buffer of a that shares memory with one of b; NULL if none. */
static const tlc_buffer *meets(const si_state *si, const si_set *a, const si_set *b)
{
	for (int i = 0; i < si->nbufs; i++) {
		if (!(a->w[i / 64] >> (i % 64) & 1))
			continue;
		for (int j = 0; j < SI_WORDS; j++)
			if (si->rows[i].w[j] & b->w[j])
				return si->bufs[i];
	}
	return NULL;
}

const tlc_buffer *si_hazard(const si_state *si, const si_access *pending, const si_access *next)
{
	const tlc_buffer *b = meets(si, &next->r, &pending->w);
	if (!b)
		b = meets(si, &next->w, &pending->r);
	if (!b)
		b = meets(si, &next->w, &pending->w);
	return b;
}

/* ---- collecting accesses ---- */

enum { MODE_R = 1, MODE_W = 2, MODE_RW = 3 };

/* How a call uses its buffer-valued argument i. */
static int arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_MMA_GEMM: /* A, B from shared memory; C accumulates */
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: return i < 2 ? MODE_R : MODE_RW;
	case TLC_OP_COPY_VEC: return i == 0 ? MODE_W : MODE_R;
	case TLC_OP_COPY:
	case TLC_OP_TMA_COPY: return i == 0 ? MODE_R : MODE_W;
	case TLC_OP_FILL:
	case TLC_OP_CLEAR: return MODE_W;
	case TLC_OP_ATOMIC_ADD: return i == 0 ? MODE_RW : MODE_R;
	default: return MODE_RW; /* unknown: as conservative as can be */
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

static void expr_access(si_state *si, const tlc_expr *x, int mode, si_access *acc);

static void buf_access(si_state *si, const tlc_buffer *b, int mode, si_access *acc)
{
	if (mode & MODE_R)
		set_add(si, &acc->r, b);
	if (mode & MODE_W)
		set_add(si, &acc->w, b);
}

static void call_access(si_state *si, const tlc_expr *x, si_access *acc)
{
	for (int i = 0; i < x->u.call.nargs; i++) {
		const tlc_expr *a = x->u.call.args[i];
		int mode = a->kind == TLC_EXPR_LOAD ? load_arg_mode(x->u.call.op, i) : arg_mode(x->u.call.op, i);
		expr_access(si, a, mode, acc);
	}
	for (int i = 0; i < x->u.call.nkw; i++)
		expr_access(si, x->u.call.kw_values[i], MODE_RW, acc);
}

/* mode: how a buffer reference at the top of x is used (LOAD, BUF, REGION). */
static void expr_access(si_state *si, const tlc_expr *x, int mode, si_access *acc)
{
	if (!x)
		return;
	switch (x->kind) {
	case TLC_EXPR_LOAD:
		buf_access(si, x->u.load.buf, mode, acc);
		for (int i = 0; i < x->u.load.n; i++)
			expr_access(si, x->u.load.idx[i], MODE_R, acc);
		return;
	case TLC_EXPR_BUF: buf_access(si, x->u.buf, mode, acc); return;
	case TLC_EXPR_REGION:
		buf_access(si, x->u.region.buf, mode, acc);
		for (int i = 0; i < x->u.region.n; i++) {
			expr_access(si, x->u.region.dims[i].begin, MODE_R, acc);
			expr_access(si, x->u.region.dims[i].extent, MODE_R, acc);
		}
		return;
	case TLC_EXPR_CALL: call_access(si, x, acc); return;
	case TLC_EXPR_TUPLE:
		for (int i = 0; i < x->u.tuple.n; i++)
			expr_access(si, x->u.tuple.items[i], mode, acc);
		return;
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT:
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM:
	case TLC_EXPR_VAR:
	case TLC_EXPR_LAMBDA: return;
	default:
		expr_access(si, x->u.op.a, MODE_R, acc);
		expr_access(si, x->u.op.b, MODE_R, acc);
		expr_access(si, x->u.op.c, MODE_R, acc);
	}
}

void si_stmt_access(si_state *si, const tlc_stmt *s, si_access *acc)
{
	if (!s)
		return;
	switch (s->kind) {
	case TLC_STMT_SEQ:
		for (int i = 0; i < s->u.seq.n; i++)
			si_stmt_access(si, s->u.seq.items[i], acc);
		return;
	case TLC_STMT_FOR:
		expr_access(si, s->u.loop.min, MODE_R, acc);
		expr_access(si, s->u.loop.extent, MODE_R, acc);
		si_stmt_access(si, s->u.loop.body, acc);
		return;
	case TLC_STMT_IF:
		expr_access(si, s->u.if_.cond, MODE_R, acc);
		si_stmt_access(si, s->u.if_.then_s, acc);
		si_stmt_access(si, s->u.if_.else_s, acc);
		return;
	case TLC_STMT_LET: expr_access(si, s->u.let.value, MODE_R, acc); return;
	case TLC_STMT_STORE:
		buf_access(si, s->u.store.buf, MODE_W, acc);
		for (int i = 0; i < s->u.store.n; i++)
			expr_access(si, s->u.store.idx[i], MODE_R, acc);
		expr_access(si, s->u.store.value, MODE_R, acc);
		return;
	case TLC_STMT_EVAL: expr_access(si, s->u.eval.call, MODE_R, acc); return;
	case TLC_STMT_SCOPE: si_stmt_access(si, s->u.scope.body, acc); return;
	case TLC_STMT_ATTR: si_stmt_access(si, s->u.attr.body, acc); return;
	case TLC_STMT_ALLOC: return;
	}
}

bool si_is_barrier(const tlc_stmt *s)
{
	return s && s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL &&
	       s->u.eval.call->u.call.op == TLC_OP_SYNC_THREADS;
}

void si_body_head(si_state *si, const tlc_stmt *body, si_access *acc)
{
	if (!body || si_is_barrier(body))
		return;
	if (body->kind != TLC_STMT_SEQ) {
		si_stmt_access(si, body, acc);
		return;
	}
	for (int i = 0; i < body->u.seq.n && !si_is_barrier(body->u.seq.items[i]); i++)
		si_stmt_access(si, body->u.seq.items[i], acc);
}
