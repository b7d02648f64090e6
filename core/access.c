/* access.c - the buffer accesses of statements (tlc/access.h). */
#include <string.h>

#include <tlc/access.h>
#include <tlc/walk.h>

/* How a call uses its buffer-valued argument i. */
static unsigned arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_MMA_GEMM: /* A, B read; C accumulates */
	case TLC_OP_WGMMA_ISSUE:
	case TLC_OP_GEMM:
	case TLC_OP_WGMMA_GEMM: return i < 2 ? TLC_ACCESS_READ : TLC_ACCESS_RW;
	case TLC_OP_COPY_VEC:
	case TLC_OP_CP_ASYNC: return i == 0 ? TLC_ACCESS_WRITE : TLC_ACCESS_READ;
	case TLC_OP_COPY: return i == 0 ? TLC_ACCESS_READ : TLC_ACCESS_WRITE;
	case TLC_OP_TMA_COPY: return i == 0 ? TLC_ACCESS_READ : TLC_ACCESS_WRITE | TLC_ACCESS_MBARRIER;
	case TLC_OP_TMA_STORE: /* the tensor; the shared source is an element */
	case TLC_OP_FILL:
	case TLC_OP_CLEAR: return TLC_ACCESS_WRITE;
	case TLC_OP_ATOMIC_ADD:
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN: return i == 0 ? TLC_ACCESS_RW : TLC_ACCESS_READ;
	default: return TLC_ACCESS_RW; /* unknown: as conservative as can be */
	}
}

/* How a call uses its element argument i (a load: copy_vec and atomics take
 * the address of their first one). */
static unsigned load_arg_mode(tlc_op_id op, int i)
{
	switch (op) {
	case TLC_OP_COPY_VEC:
	case TLC_OP_STMATRIX:
	case TLC_OP_CP_ASYNC: return i == 0 ? TLC_ACCESS_WRITE : TLC_ACCESS_READ;
	case TLC_OP_ATOMIC_ADD:
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN:
	case TLC_OP_ATOMIC_ADD_VEC:
	case TLC_OP_MMA_SYNC: /* C accumulates; A and B are read */
		return i == 0 ? TLC_ACCESS_RW : TLC_ACCESS_READ;
	case TLC_OP_COPY: /* a tile named by its corner element */
	case TLC_OP_TMA_COPY:
	case TLC_OP_FILL:
	case TLC_OP_CLEAR: return arg_mode(op, i);
	case TLC_OP_TMA_LOAD: return i == 1 ? TLC_ACCESS_WRITE | TLC_ACCESS_MBARRIER : i == 2 ? TLC_ACCESS_RW : TLC_ACCESS_READ;
	default: return TLC_ACCESS_READ;
	}
}

/* How operand i of x is used, x itself being used as `mode`: the indices
 * of an access and the operands of arithmetic are read; a call says per
 * argument (keyword values: unknown, so both); a tuple passes its own use
 * on to its items. */
static unsigned operand_mode(const tlc_expr *x, int i, unsigned mode)
{
	switch (x->kind) {
	case TLC_EXPR_CALL: {
		if (i >= x->u.call.nargs)
			return TLC_ACCESS_RW;
		const tlc_expr *a = tlc_expr_child(x, i);
		return a && a->kind == TLC_EXPR_LOAD ? load_arg_mode(x->u.call.op, i) : arg_mode(x->u.call.op, i);
	}
	case TLC_EXPR_TUPLE: return mode;
	default: return TLC_ACCESS_READ;
	}
}

/* Where accesses go: a plain callback, or one that also gets the indices
 * of an access of one element (n, idx; NULL idx for anything wider). */
typedef struct access_sink {
	tlc_access_fn fn;
	tlc_elem_access_fn efn;
	void *ctx;
} access_sink;

static void emit(const access_sink *k, const tlc_buffer *b, unsigned mode, int n,
                 const tlc_expr *const *idx)
{
	if (k->efn)
		k->efn(k->ctx, b, mode, n, idx);
	else
		k->fn(k->ctx, b, mode);
}

/* True when a load that is argument i of call x stands for the one element
 * it names: the destination of a scalar atomic.  Any other call may take
 * it as the address of several elements (a vector copy, stmatrix, ...). */
static bool element_arg(const tlc_expr *x, int i)
{
	switch (x->u.call.op) {
	case TLC_OP_ATOMIC_ADD:
	case TLC_OP_ATOMIC_MAX:
	case TLC_OP_ATOMIC_MIN: return i == 0;
	default: return false;
	}
}

/* elem: x is used as a value (or an atomic's element), so a load at its
 * top reads (or updates) one element. */
static void expr_accesses(const tlc_expr *x, unsigned mode, bool elem, const access_sink *k)
{
	if (!x)
		return;
	switch (x->kind) {
	case TLC_EXPR_LOAD:
		emit(k, x->u.load.buf, mode, x->u.load.n, elem ? x->u.load.idx : NULL);
		break;
	case TLC_EXPR_BUF: emit(k, x->u.buf, mode, 0, NULL); break;
	case TLC_EXPR_REGION: emit(k, x->u.region.buf, mode, 0, NULL); break;
	case TLC_EXPR_LAMBDA: return; /* a layout function: index arithmetic, no memory */
	case TLC_EXPR_CALL:
		/* names tensors to say what their masked loads read, or buffers
		 * to give their layouts: no memory (a T.annotate_layout before a
		 * pipelined loop is not a use of its buffers outside the loop) */
		if (x->u.call.op == TLC_OP_ANNOTATE_SAFE_VALUE || x->u.call.op == TLC_OP_ANNOTATE_LAYOUT)
			return;
		break;
	default: break;
	}
	int n = tlc_expr_num_children(x);
	for (int i = 0; i < n; i++) {
		/* the indices of an access and the operands of arithmetic are
		 * values; a call's arguments are values only where it says so */
		bool e = x->kind != TLC_EXPR_CALL || element_arg(x, i);
		expr_accesses(tlc_expr_child(x, i), operand_mode(x, i, mode), e, k);
	}
}

void tlc_expr_accesses(const tlc_expr *x, unsigned mode, tlc_access_fn fn, void *ctx)
{
	access_sink k = {fn, NULL, ctx};
	expr_accesses(x, mode, false, &k);
}

typedef struct access_walk {
	access_sink k;
} access_walk;

bool tlc_stmt_completes_on_mbarrier(const tlc_stmt *s)
{
	return s && s->kind == TLC_STMT_ATTR && s->u.attr.key && !strcmp(s->u.attr.key, "completes_on");
}

/* Inside `with T.attr("completes_on", bar)`: writes are published by bar. */
static void mbarrier_write(void *p, const tlc_buffer *b, unsigned mode, int n,
                           const tlc_expr *const *idx)
{
	access_walk *w = p;
	emit(&w->k, b, mode & TLC_ACCESS_WRITE ? mode | TLC_ACCESS_MBARRIER : mode, n, idx);
}

static void stmt_accesses(const tlc_stmt *s, const access_sink *k);

static tlc_walk_action stmt_access(void *p, const tlc_stmt *s)
{
	access_walk *w = p;
	if (tlc_stmt_completes_on_mbarrier(s)) {
		access_sink inner = {NULL, mbarrier_write, w};
		stmt_accesses(s->u.attr.body, &inner);
		expr_accesses(s->u.attr.value, TLC_ACCESS_READ, true, &w->k);
		return TLC_WALK_SKIP;
	}
	if (s->kind == TLC_STMT_STORE)
		emit(&w->k, s->u.store.buf, TLC_ACCESS_WRITE, s->u.store.n, s->u.store.idx);
	/* a declaration's shape and init are not accesses of memory */
	return s->kind == TLC_STMT_ALLOC ? TLC_WALK_SKIP : TLC_WALK_CONTINUE;
}

/* Each expression a statement holds is a value read (a call statement's
 * arguments say more for themselves): classify it whole, then skip it. */
static tlc_walk_action expr_access(void *p, const tlc_expr *e)
{
	access_walk *w = p;
	expr_accesses(e, TLC_ACCESS_READ, true, &w->k);
	return TLC_WALK_SKIP;
}

static void stmt_accesses(const tlc_stmt *s, const access_sink *k)
{
	access_walk w = {*k};
	tlc_visitor v = {.ctx = &w, .stmt_pre = stmt_access, .expr_pre = expr_access};
	tlc_walk_stmt(&v, s);
}

void tlc_stmt_accesses(const tlc_stmt *s, tlc_access_fn fn, void *ctx)
{
	stmt_accesses(s, &(access_sink){fn, NULL, ctx});
}

void tlc_stmt_elem_accesses(const tlc_stmt *s, tlc_elem_access_fn fn, void *ctx)
{
	stmt_accesses(s, &(access_sink){NULL, fn, ctx});
}

typedef struct align_walk {
	const tlc_buffer *storage;
	int64_t align;
} align_walk;

/* The ops that access several consecutive elements of an operand as one
 * access: each operand is an element (a load) and the lane count follows. */
static tlc_walk_action vector_access(void *p, const tlc_stmt *s)
{
	align_walk *w = p;
	const tlc_expr *c = s->kind == TLC_STMT_EVAL ? s->u.eval.call : NULL;
	int64_t lanes;
	if (!c || c->kind != TLC_EXPR_CALL || (c->u.call.op != TLC_OP_COPY_VEC && c->u.call.op != TLC_OP_ATOMIC_ADD_VEC) ||
	    c->u.call.nargs != 3 || !tlc_expr_as_int(c->u.call.args[2], &lanes) || lanes < 1)
		return TLC_WALK_CONTINUE;
	const tlc_expr *dst = c->u.call.args[0], *src = c->u.call.args[1];
	for (int i = 0; i < 2; i++) {
		const tlc_expr *x = i ? src : dst;
		if (x->kind != TLC_EXPR_LOAD || tlc_buffer_storage(x->u.load.buf) != w->storage)
			continue;
		/* a converting copy reads its source one element at a time */
		if (i && c->u.call.op == TLC_OP_COPY_VEC && dst->kind == TLC_EXPR_LOAD &&
		    dst->u.load.buf->dtype != src->u.load.buf->dtype)
			continue;
		int64_t bytes = lanes * tlc_dtype_bits(x->u.load.buf->dtype) / 8;
		if (bytes > w->align)
			w->align = bytes;
	}
	return TLC_WALK_CONTINUE;
}

int64_t tlc_stmt_vector_align(const tlc_stmt *s, const tlc_buffer *b)
{
	int64_t elem = tlc_dtype_bits(b->dtype) / 8;
	align_walk w = {tlc_buffer_storage(b), elem > 0 ? elem : 1};
	tlc_visitor v = {.ctx = &w, .stmt_pre = vector_access};
	tlc_walk_stmt(&v, s);
	return w.align;
}

bool tlc_buffer_in_shared(const tlc_buffer *b)
{
	return b && (b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_SHARED_DYN);
}

const tlc_buffer *tlc_buffer_storage(const tlc_buffer *b)
{
	while (b->alias_of)
		b = b->alias_of;
	return b;
}

bool tlc_buffers_share_memory(const tlc_buffer *a, const tlc_buffer *b)
{
	int64_t na, nb;
	if (tlc_buffer_storage(a) == tlc_buffer_storage(b))
		return true;
	if (a->scope != TLC_SCOPE_SHARED_DYN || b->scope != TLC_SCOPE_SHARED_DYN || a->offset < 0 || b->offset < 0)
		return false;
	if (!tlc_buffer_bytes(a, &na) || !tlc_buffer_bytes(b, &nb))
		return true;
	return a->offset < b->offset + nb && b->offset < a->offset + na;
}

typedef struct async_scan {
	tlc_access_fn fn;
	void *ctx;
} async_scan;

static tlc_walk_action async_expr(void *p, const tlc_expr *x)
{
	async_scan *a = p;
	if (x->kind == TLC_EXPR_CALL && x->u.call.op == TLC_OP_CP_ASYNC && x->u.call.nargs >= 1) {
		const tlc_expr *dst = x->u.call.args[0];
		if (dst->kind == TLC_EXPR_LOAD)
			a->fn(a->ctx, dst->u.load.buf, TLC_ACCESS_WRITE);
		return TLC_WALK_SKIP;
	}
	return TLC_WALK_CONTINUE;
}

/* Copies published by an mbarrier are not waited for with T.cp_async_wait. */
static tlc_walk_action async_stmt(void *p, const tlc_stmt *s)
{
	(void)p;
	return tlc_stmt_completes_on_mbarrier(s) ? TLC_WALK_SKIP : TLC_WALK_CONTINUE;
}

void tlc_stmt_async_writes(const tlc_stmt *s, tlc_access_fn fn, void *ctx)
{
	async_scan a = {fn, ctx};
	if (s)
		tlc_walk_stmt(&(tlc_visitor){.ctx = &a, .stmt_pre = async_stmt, .expr_pre = async_expr}, s);
}

int64_t tlc_stmt_async_wait_count(const tlc_stmt *s)
{
	int64_t n;
	if (!tlc_stmt_is_call(s, TLC_OP_CP_ASYNC_WAIT) || s->u.eval.call->u.call.nargs != 1 ||
	    !tlc_expr_as_int(s->u.eval.call->u.call.args[0], &n))
		return -1;
	return n;
}

typedef struct use_scan {
	const tlc_buffer *storage;
	unsigned mode;
} use_scan;

static void note_use(void *p, const tlc_buffer *b, unsigned mode)
{
	use_scan *u = p;
	if (tlc_buffer_storage(b) == u->storage)
		u->mode |= mode;
}

unsigned tlc_stmt_use_of(const tlc_stmt *s, const tlc_buffer *b)
{
	use_scan u = {tlc_buffer_storage(b), 0};
	tlc_stmt_accesses(s, note_use, &u);
	return u.mode;
}

bool tlc_stmt_is_block_barrier(const tlc_stmt *s)
{
	return tlc_stmt_is_call(s, TLC_OP_SYNC_THREADS) || tlc_stmt_is_call(s, TLC_OP_CLUSTER_SYNC) ||
	       tlc_stmt_is_call(s, TLC_OP_SYNC_GRID);
}
