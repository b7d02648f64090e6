/* warp_specialize.c - the `warp-specialize` pass: a software-pipelined
 * loop whose tiles can come by TMA runs as a producer warpgroup that only
 * issues the copies and the user's threads as consumers that only compute.
 *
 * Candidate: the kernel's top-level T.Pipelined loop, planned by
 * pipeline-planning with its producers (global -> shared T.copy) at stage 0
 * and everything else at stage S - 1 >= 1, every producer a 2-D tile that
 * TMA can copy (rows of a multiple of 16 bytes, tiles whose rows fit TMA
 * boxes), on a target with TMA, mbarriers with transaction counts and
 * warpgroups, in a 1-D block of whole warpgroups that has room for one more,
 * in a kernel without T.ws of its own.  Anything else is left to
 * inject-pipeline (cp.async); option `enable = false` turns the pass off.
 *
 * The result, with T = the user's thread count and S stages:
 *
 *     threads = T + 128                  (the producer warpgroup is added)
 *     buf = T.alloc_shared((S, ...))     (each producer's buffer, S versions)
 *     full = T.alloc_barrier([128] * S)  (stage s holds data: producer threads arrive)
 *     empty = T.alloc_barrier([T] * S)   (stage s is free again: consumers arrive)
 *     <kernel-level statements: T.use_swizzle, T.annotate_layout>
 *     with T.ws(0):                      (producer)
 *         T.set_max_nreg(<low>, 0)
 *         for k in T.serial(n):
 *             T.barrier_wait(empty[k % S], (k // S + 1) % 2)
 *             T.tma_copy(src, buf[k % S, ...], barrier=full[k % S])   (each producer)
 *             T.barrier_arrive(full[k % S])
 *     with T.ws(1, ..):                  (consumers: the user's threads)
 *         T.set_max_nreg(<high>, 1)
 *         <every other statement of the kernel, in order, with the loop as>
 *         for k in T.serial(n):
 *             T.barrier_wait(full[k % S], (k // S) % 2)
 *             <the loop's other statements, on buf[k % S, ...]>
 *             T.barrier_arrive(empty[k % S])   (after the last one that reads buf;
 *                                               see plan_release for T.wgmma_gemm)
 *
 * The first wait on `empty` asks for parity 1, which a fresh barrier has
 * already completed: the producer fills all S stages before it waits for
 * the consumers.  Every statement outside the loop (accumulator clears, the
 * epilogue) runs in the consumer branch: it was written for the user's
 * threads, and the producer warpgroup must not run it (seed 002: consumer-
 * only initialisation belongs to the consumers).  Layout inference binds
 * the consumers' fragments to threads [128, 128 + T) through T.ws.
 *
 * Clusters (plan_cluster): on a target with TMA multicast, a producer copy
 * whose source does not depend on the block's x index loads the same tile
 * in neighbouring blocks along x; the kernel then runs in clusters of 2
 * blocks along x ("tlc.cluster_dims"), that copy becomes
 * T.tma_copy(..., cluster_mask=3) (each block loads half of it into both),
 * `empty` counts the consumers of both blocks, who arrive on both
 * (T.barrier_arrive(empty[s], cta_id=r)), and a T.cluster_sync() ends the
 * kernel.
 *
 * Register budget (setmaxnreg): the producer needs few registers; the
 * consumers take what it gives back, within what the block holds from its
 * launch: each of its threads the launch cap, the block's share of the
 * register file (all of it, or half when two blocks share an SM:
 * blocks_per_sm) over its threads, rounded down to a multiple of 8.
 * Producer 24, consumers the largest multiple of 8 (at most 240) with
 * 128 * 24 + T * c <= that.  The kernel says how many
 * blocks it is launched for ("tlc.min_blocks"), which caps the registers a
 * thread starts with. */
#include "config.h"

#include <string.h>

#include <tlc/access.h>
#include <tlc/layout.h>
#include <tlc/target.h>
#include <tlc/tileops.h>
#include <tlc/walk.h>

#include "pipeline.h"

#define WS_PRODUCER_REGS 24
#define WS_MAX_REGS 240
#define WS_TWO_BLOCK_ACC 128 /* accumulator registers a consumer may hold at two blocks per SM */
#define WS_REG_HEADROOM 64   /* registers beside the accumulator (ptxas refused a 128-register
                              * accumulator in 112) */

typedef struct ws_state {
	tlc_module *m;
	tlc_context *ctx;
	tlc_func *f;
	const tlc_target_info *t;
	int64_t threads; /* the user's */
	bool failed;     /* a user error was reported */
} ws_state;

/* The kernel's integer attribute `key` (the frontend's register hints,
 * doc/language.md), false when absent. */
static bool int_attr(const tlc_func *f, const char *key, int64_t *v)
{
	for (int i = 0; i < f->nattrs; i++)
		if (f->attr_keys[i] && strcmp(f->attr_keys[i], key) == 0)
			return tlc_expr_as_int(f->attr_values[i], v);
	return false;
}

/* ---- is the kernel a candidate? ---- */

typedef struct scan {
	const tlc_func *f;
	bool found;
} scan;

static tlc_walk_action find_ws_or_tid(void *p, const tlc_stmt *s)
{
	scan *c = p;
	if (s->kind == TLC_STMT_SCOPE && s->u.scope.call->u.call.op == TLC_OP_WS) {
		c->found = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

static tlc_walk_action find_thread_var(void *p, const tlc_expr *e)
{
	scan *c = p;
	if (e->kind == TLC_EXPR_VAR)
		for (int d = 0; d < 3; d++)
			if (c->f->thread_vars[d] && e->u.var == c->f->thread_vars[d]) {
				c->found = true;
				return TLC_WALK_STOP;
			}
	return TLC_WALK_CONTINUE;
}

/* The swizzle layout inference will give a producer's shared tile of
 * `cols` columns: its own, or the widest its rows allow. */
static tlc_swizzle predicted_swizzle(const tlc_buffer *dst, int64_t cols)
{
	return dst->layout && dst->layout->kind == TLC_LAYOUT_SWIZZLED ? dst->layout->swizzle
	                                                               : tlc_swizzle_widest(cols, dst->dtype);
}

/* A producer TMA can copy: a 2-D shared tile of a global tensor whose rows
 * are a multiple of 16 bytes, at most tma_box_max rows per box and the tile's
 * width in boxes of the swizzle layout-inference will give it. */
static bool tma_producer(ws_state *w, const tlc_stmt *s)
{
	const tlc_buffer *src, *dst;
	if (!pl_copy_sides(s, &src, &dst) || src->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst) ||
	    dst->ndim != 2 || src->ndim < 2 || src->dtype != dst->dtype || dst->alias_of)
		return false;
	/* a tensor at a run-time address has no tensor map (cp.async reads it) */
	if (tlc_buffer_storage(src)->base)
		return false;
	int esize = tlc_dtype_bits(dst->dtype) / 8;
	int64_t rows, cols, row_elems;
	if (esize < 1 || !tlc_expr_as_int(dst->shape[0], &rows) || !tlc_expr_as_int(dst->shape[1], &cols))
		return false;
	/* the tensor map's row pitches must be multiples of 16 bytes; a
	 * runtime last dimension is checked where the launcher encodes the
	 * tensor map (as TileLang's descriptor initialisation does) */
	if (tlc_expr_as_int(src->shape[src->ndim - 1], &row_elems) && (row_elems * esize) % 16)
		return false;
	if (dst->layout && dst->layout->kind != TLC_LAYOUT_SWIZZLED)
		return false;
	tlc_swizzle sw = predicted_swizzle(dst, cols);
	int64_t box_cols = sw == TLC_SWIZZLE_NONE ? cols : tlc_swizzle_get(sw)->bytes / esize;
	int64_t box_max = w->t->tma_box_max;
	return box_cols <= box_max && (box_cols * esize) % 16 == 0 && cols % box_cols == 0 &&
	       (rows <= box_max || rows % box_max == 0);
}

/* What each statement of one iteration does once the loop is specialized. */
typedef enum ws_role {
	WS_CONSUMER, /* runs in the consumer branch */
	WS_TMA,      /* a producer copy issued as TMA */
	WS_CP_ASYNC, /* a producer copy TMA cannot do: cp.async by the producer's threads */
	WS_BOTH,     /* a LET of the iteration both roles use */
} ws_role;

#define WS_MAX_ITEMS 64

/* The loop to specialize and the statements of one iteration. */
typedef struct ws_plan {
	tlc_stmt *loop;
	const tlc_expr *guard; /* the body is `if guard: <items>` (a block-sparse mask), or NULL */
	tlc_stmt **items;
	int n;
	ws_role role[WS_MAX_ITEMS];
	int ntma, nasync;
	bool *hoist; /* per statement of the kernel: a LET bound before the roles split */
	tlc_var **consumer_vars; /* the variables only the consumers bind */
	int nconsumer_vars;
	int lag; /* iterations a stage stays busy after its own (plan_release) */
	int64_t cluster; /* blocks per cluster along x (plan_cluster); 1: no clusters */
	bool multicast[WS_MAX_ITEMS]; /* a TMA producer the cluster's blocks load together */
} ws_plan;

typedef struct buf_scan {
	bool other; /* reads or writes memory that is not a global tensor */
	bool any;   /* touches any buffer */
} buf_scan;

static void note_buffer(void *p, const tlc_buffer *b, unsigned mode)
{
	(void)mode;
	buf_scan *c = p;
	c->any = true;
	if (b->scope != TLC_SCOPE_GLOBAL)
		c->other = true;
}

static buf_scan expr_buffers(const tlc_expr *e)
{
	buf_scan c = {false, false};
	tlc_expr_accesses(e, TLC_ACCESS_READ, note_buffer, &c);
	return c;
}

typedef struct var_scan {
	tlc_var *const *vars;
	int n;
	const tlc_var *found;
} var_scan;

static tlc_walk_action find_var(void *p, const tlc_expr *e)
{
	var_scan *c = p;
	if (e->kind == TLC_EXPR_VAR)
		for (int i = 0; i < c->n; i++)
			if (e->u.var == c->vars[i]) {
				c->found = c->vars[i];
				return TLC_WALK_STOP;
			}
	return TLC_WALK_CONTINUE;
}


/* Per-thread buffers (T.alloc_local / T.alloc_var) that statements before
 * the loop compute from read-only tensors (loop bounds the producer needs,
 * as a block-sparse kernel's range of blocks): those statements run before
 * the roles split, in every thread. */
#define WS_MAX_LOCALS 16
typedef struct hoisted_locals {
	tlc_module *m;
	const tlc_buffer *b[WS_MAX_LOCALS];
	int n;
} hoisted_locals;

static bool is_per_thread(const tlc_buffer *b)
{
	return b->scope == TLC_SCOPE_LOCAL || b->scope == TLC_SCOPE_VAR;
}

static bool in_hoisted(const hoisted_locals *h, const tlc_buffer *b)
{
	for (int i = 0; h && i < h->n; i++)
		if (h->b[i] == b)
			return true;
	return false;
}

typedef struct read_only_scan {
	const tlc_stmt *body;
	bool ok;
	const hoisted_locals *locals; /* also readable */
	const tlc_stmt *self;         /* a statement whose own per-thread writes it may read */
	hoisted_locals *writes;       /* where its per-thread writes go */
} read_only_scan;

static void note_read_only(void *p, const tlc_buffer *b, unsigned mode)
{
	read_only_scan *c = p;
	if (c->writes && (mode & TLC_ACCESS_WRITE)) {
		if (!is_per_thread(b) || c->writes->n == WS_MAX_LOCALS)
			c->ok = false;
		else if (!in_hoisted(c->writes, b))
			c->writes->b[c->writes->n++] = b;
	}
	if (!(mode & TLC_ACCESS_READ))
		return;
	if (is_per_thread(b) ? !in_hoisted(c->locals, b) && !(c->self && (tlc_stmt_use_of(c->self, b) & TLC_ACCESS_WRITE))
	                     : b->scope != TLC_SCOPE_GLOBAL || (tlc_stmt_use_of(c->body, b) & TLC_ACCESS_WRITE))
		c->ok = false;
}

static tlc_walk_action find_op_stmt(void *p, const tlc_stmt *s)
{
	bool *found = p;
	if (s->kind == TLC_STMT_EVAL || s->kind == TLC_STMT_SCOPE || s->kind == TLC_STMT_ATTR ||
	    s->kind == TLC_STMT_ALLOC || (s->kind == TLC_STMT_FOR && s->u.loop.kind != TLC_FOR_SERIAL &&
	                                  s->u.loop.kind != TLC_FOR_UNROLLED))
		*found = true; /* tile ops, and loops that bind threads (T.Parallel) */
	return *found ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

/* s (a statement before the loop) only stores into per-thread buffers
 * values of read-only tensors and per-thread buffers computed so far: it
 * may run in both roles.  Its buffers join h. */
static bool local_writer(const tlc_stmt *body, const tlc_stmt *s, const ws_plan *p, hoisted_locals *h)
{
	bool op = false;
	tlc_walk_stmt(&(tlc_visitor){.ctx = &op, .stmt_pre = find_op_stmt}, s);
	var_scan v = {p->consumer_vars, p->nconsumer_vars, NULL};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &v, .expr_pre = find_var}, s);
	if (op || v.found)
		return false;
	hoisted_locals mine = {.m = h->m};
	read_only_scan c = {body, true, h, s, &mine};
	tlc_stmt_accesses(s, note_read_only, &c);
	if (!c.ok || !mine.n || h->n + mine.n > WS_MAX_LOCALS)
		return false;
	for (int i = 0; i < mine.n; i++)
		if (!in_hoisted(h, mine.b[i]))
			h->b[h->n++] = mine.b[i];
	return true;
}

/* Moving the hoisted statements before the split keeps their meaning when
 * no other statement before the loop touches their buffers and the loop
 * does not write them. */
static bool locals_stay_put(const tlc_stmt *body, const ws_plan *p, const hoisted_locals *h)
{
	for (int i = 0; i < body->u.seq.n; i++) {
		const tlc_stmt *s = body->u.seq.items[i];
		if (p->hoist[i])
			continue;
		for (int k = 0; k < h->n; k++) {
			unsigned use = tlc_stmt_use_of(s, h->b[k]);
			if (s == p->loop ? (use & TLC_ACCESS_WRITE) != 0 : use != 0)
				return false;
		}
		if (s == p->loop)
			break;
	}
	return true;
}

static bool uses_var(const tlc_expr *e, tlc_var *const *vars, int n)
{
	var_scan c = {vars, n, NULL};
	tlc_walk_expr(&(tlc_visitor){.ctx = &c, .expr_pre = find_var}, e);
	return c.found != NULL;
}

/* The kernel's LETs before the loop that both roles may see: a value that
 * reads nothing but global tensors the kernel never writes, and no variable
 * only the consumers bind, can be bound before the roles split (the
 * producer's copies may use it).  The others, and every LET after the loop,
 * stay in the consumer branch with the rest of the kernel's statements. */
static void plan_kernel_lets(ws_state *w, tlc_stmt *body, ws_plan *p)
{
	int n = body->u.seq.n;
	p->hoist = tlc_alloc(w->m, sizeof(*p->hoist) * (size_t)(n + 1));
	p->consumer_vars = tlc_alloc(w->m, sizeof(*p->consumer_vars) * (size_t)(n + WS_MAX_ITEMS + 1));
	p->nconsumer_vars = 0;
	bool after_loop = false;
	hoisted_locals hl = {.m = w->m};
	for (int i = 0; i < n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		p->hoist[i] = false;
		if (s == p->loop)
			after_loop = true;
		if (s->kind != TLC_STMT_LET) {
			if (!after_loop && s != p->loop && local_writer(body, s, p, &hl))
				p->hoist[i] = true;
			continue;
		}
		read_only_scan c = {body, true, &hl, NULL, NULL};
		tlc_expr_accesses(s->u.let.value, TLC_ACCESS_READ, note_read_only, &c);
		if (!after_loop && c.ok && !uses_var(s->u.let.value, p->consumer_vars, p->nconsumer_vars))
			p->hoist[i] = true;
		else
			p->consumer_vars[p->nconsumer_vars++] = s->u.let.var;
	}
	if (!locals_stay_put(body, p, &hl))
		for (int i = 0; i < n; i++)
			if (body->u.seq.items[i]->kind != TLC_STMT_LET)
				p->hoist[i] = false;
}

/* Every item: a global -> shared copy that TMA can do, one it cannot (then
 * cp.async), or the consumers' work. */
static bool producer_role(ws_state *w, ws_plan *p, int j, const char **why)
{
	const tlc_buffer *src, *dst;
	if (!pl_copy_sides(p->items[j], &src, &dst) || src->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst)) {
		*why = "a statement at stage 0 is not a copy from a global tensor into shared memory";
		return false;
	}
	if (tma_producer(w, p->items[j])) {
		p->role[j] = WS_TMA;
		p->ntma++;
	} else if (w->t->async_copy & TLC_ASYNC_CP_ASYNC) {
		p->role[j] = WS_CP_ASYNC;
		p->nasync++;
	} else {
		*why = "a copy at stage 0 cannot go by TMA";
		return false;
	}
	return true;
}

/* A conditional body, `if guard: <items>`, has no plan of stages: a copy
 * from a global tensor into a shared buffer that no other item writes and
 * no earlier item reads is a producer; a LET whose value reads only global
 * tensors is bound by both roles; the rest is the consumers'. */
static bool classify_guarded(ws_state *w, ws_plan *p, const char **why)
{
	for (int j = 0; j < p->n; j++) {
		tlc_stmt *s = p->items[j];
		const tlc_buffer *src, *dst;
		p->role[j] = WS_CONSUMER;
		if (s->kind == TLC_STMT_LET && !expr_buffers(s->u.let.value).other) {
			p->role[j] = WS_BOTH;
			continue;
		}
		if (!pl_copy_sides(s, &src, &dst) || src->scope != TLC_SCOPE_GLOBAL || !tlc_buffer_in_shared(dst))
			continue;
		bool alone = true;
		for (int i = 0; i < p->n && alone; i++) {
			unsigned use = i == j ? 0 : tlc_stmt_use_of(p->items[i], dst);
			alone = !(use & TLC_ACCESS_WRITE) && !(i < j && use);
		}
		if (alone && !producer_role(w, p, j, why))
			return false;
	}
	return true;
}

/* The producers and the guard may use no variable that only the consumers
 * bind: a LET of the kernel that stays in the consumer branch
 * (plan_kernel_lets) or a LET of the iteration that is the consumers' alone. */
typedef struct local_scan {
	const tlc_stmt *body;
	const ws_plan *p;
	bool bad;
} local_scan;

/* A load of a per-thread buffer that no statement hoisted before the split
 * (plan_kernel_lets) writes: the producer's copy would be uninitialised. */
static tlc_walk_action find_per_thread_load(void *q, const tlc_expr *e)
{
	local_scan *c = q;
	if (e->kind != TLC_EXPR_LOAD || !is_per_thread(e->u.load.buf))
		return TLC_WALK_CONTINUE;
	bool hoisted = false;
	for (int i = 0; i < c->body->u.seq.n && !hoisted; i++)
		hoisted = c->p->hoist[i] && c->body->u.seq.items[i]->kind != TLC_STMT_LET &&
		          (tlc_stmt_use_of(c->body->u.seq.items[i], e->u.load.buf) & TLC_ACCESS_WRITE);
	c->bad = !hoisted;
	return c->bad ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

static bool producer_vars_ok(const tlc_stmt *body, ws_plan *p, const char **why)
{
	for (int j = 0; j < p->n; j++)
		if (p->items[j]->kind == TLC_STMT_LET && p->role[j] == WS_CONSUMER)
			p->consumer_vars[p->nconsumer_vars++] = p->items[j]->u.let.var;
	var_scan c = {p->consumer_vars, p->nconsumer_vars, NULL};
	tlc_visitor v = {.ctx = &c, .expr_pre = find_var};
	if (p->guard)
		tlc_walk_expr(&v, p->guard);
	for (int j = 0; j < p->n && !c.found; j++)
		if (p->role[j] != WS_CONSUMER)
			tlc_walk_stmt(&v, p->items[j]);
	if (c.found) {
		*why = "a producer copy uses a variable that only the consumers compute";
		return false;
	}
	/* per-thread buffers written by statements that run in the consumer
	 * branch only would be uninitialised in the producer's threads */
	local_scan ls = {body, p, false};
	bool *const local_found = &ls.bad;
	tlc_visitor lv = {.ctx = &ls, .expr_pre = find_per_thread_load};
	tlc_walk_expr(&lv, p->loop->u.loop.min);
	tlc_walk_expr(&lv, p->loop->u.loop.extent);
	if (p->guard)
		tlc_walk_expr(&lv, p->guard);
	for (int j = 0; j < p->n && !*local_found; j++)
		if (p->role[j] != WS_CONSUMER)
			tlc_walk_stmt(&lv, p->items[j]);
	if (*local_found)
		*why = "the loop's bounds or a producer copy read a per-thread buffer (T.alloc_local / T.alloc_var) "
		       "that only the consumers write";
	return !*local_found;
}

typedef struct smem_sum {
	const ws_plan *p;
	int S;
	int64_t bytes;
	bool unknown;
} smem_sum;

static tlc_walk_action add_shared(void *q, const tlc_stmt *s)
{
	smem_sum *c = q;
	if (s->kind != TLC_STMT_ALLOC || !tlc_buffer_in_shared(s->u.alloc.buf) || s->u.alloc.buf->alias_of)
		return TLC_WALK_CONTINUE;
	const tlc_buffer *b = s->u.alloc.buf;
	int64_t bytes;
	if (!tlc_buffer_bytes(b, &bytes)) {
		c->unknown = true;
		return TLC_WALK_CONTINUE;
	}
	for (int j = 0; j < c->p->n; j++) {
		const tlc_buffer *src, *dst;
		if ((c->p->role[j] == WS_TMA || c->p->role[j] == WS_CP_ASYNC) && pl_copy_sides(c->p->items[j], &src, &dst) &&
		    dst == b) {
			bytes *= c->S;
			break;
		}
	}
	c->bytes += bytes;
	return TLC_WALK_CONTINUE;
}

/* The producer's and the consumers' buffers are live at once, so
 * storage-plan cannot overlap them as it may in one thread of control: the
 * specialized kernel needs every shared buffer (the stage buffers S times)
 * in shared memory together.  False when that does not fit the target. */
static bool fits_shared_memory(ws_state *w, tlc_stmt *body, const ws_plan *p, const char **why)
{
	smem_sum c = {p, p->loop->u.loop.pipe.num_stages, 0, false};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = add_shared}, body);
	if (c.unknown || c.bytes > w->t->smem_max) {
		*why = "its buffers would not fit in shared memory together (the producer's and the consumers' "
		       "are live at once)";
		return false;
	}
	return true;
}

/* ---- when the consumers free a stage ---- */

static tlc_walk_action find_async_gemm(void *p, const tlc_expr *e)
{
	(void)p;
	return e->kind == TLC_EXPR_CALL && (e->u.call.op == TLC_OP_WGMMA_GEMM || e->u.call.op == TLC_OP_WAIT_WGMMA)
	           ? TLC_WALK_STOP
	           : TLC_WALK_CONTINUE;
}

static bool has_async_gemm(const tlc_stmt *s)
{
	return !tlc_walk_stmt(&(tlc_visitor){.expr_pre = find_async_gemm}, s);
}

/* How many iterations a stage stays busy after its own: the lag with which
 * the consumers free it (arrive on `empty`).  A T.gemm has read its
 * operands when it returns (lag 0).  A T.wgmma_gemm reads them until a
 * T.wait_wgmma leaves fewer groups in flight: with G of them at the top of
 * the body and T.wait_wgmma(n) after the last one, at most n groups, those
 * of the last ceil(n / G) iterations, are in flight at the end of an
 * iteration.  Freeing a stage any earlier lets the producer overwrite what
 * the tensor cores still read; the producer needs a stage freed before it
 * can run S iterations ahead, so the lag must stay below S. */
static bool plan_release(ws_plan *p, const char **why)
{
	int S = p->loop->u.loop.pipe.num_stages;
	int groups = 0, last_gemm = -1, last_wait = -1;
	int64_t in_flight = 0;
	p->lag = 0;
	for (int j = 0; j < p->n; j++) {
		tlc_stmt *s = p->items[j];
		if (tlc_stmt_is_call(s, TLC_OP_WGMMA_GEMM)) {
			groups++;
			last_gemm = j;
		} else if (tlc_stmt_is_call(s, TLC_OP_WAIT_WGMMA)) {
			const tlc_expr *n = s->u.eval.call->u.call.nargs == 1 ? s->u.eval.call->u.call.args[0] : NULL;
			if (!n || !tlc_expr_as_int(n, &in_flight) || in_flight < 0) {
				*why = "a T.wait_wgmma of the loop body has no constant count";
				return false;
			}
			last_wait = j;
		} else if (has_async_gemm(s)) {
			*why = "a T.wgmma_gemm or T.wait_wgmma of the loop body is inside another statement";
			return false;
		}
	}
	if (!groups)
		return true;
	if (last_wait < last_gemm) {
		*why = "the loop body's last T.wgmma_gemm has no T.wait_wgmma after it, so no iteration says when "
		       "its stage is free";
		return false;
	}
	p->lag = (int)((in_flight + groups - 1) / groups);
	if (p->lag >= S) {
		*why = "the T.wait_wgmma at the end of the loop body leaves stages busy for as many iterations as "
		       "the loop has stages";
		return false;
	}
	return true;
}

/* The loop to specialize (false, and why for the remark, when there is none). */
static bool candidate(ws_state *w, tlc_stmt *body, ws_plan *p, const char **why)
{
	scan c = {w->f, false};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .stmt_pre = find_ws_or_tid}, body);
	if (c.found) {
		*why = "the kernel has T.ws scopes of its own";
		return false;
	}
	tlc_walk_stmt(&(tlc_visitor){.ctx = &c, .expr_pre = find_thread_var}, body);
	if (c.found) {
		*why = "the kernel uses its thread index";
		return false;
	}
	tlc_stmt *loop = NULL;
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PIPELINED) {
			if (loop) {
				*why = "the kernel has more than one pipelined loop";
				return false;
			}
			loop = s;
		}
	}
	if (!loop) {
		*why = "no pipelined loop at the kernel's top level";
		return false;
	}
	const tlc_pipeline_info *pi = &loop->u.loop.pipe;
	tlc_stmt *lb = loop->u.loop.body;
	if (!lb || lb->kind != TLC_STMT_SEQ || pi->n_stage != lb->u.seq.n || pi->num_stages < 2) {
		*why = "the loop is not planned with two or more stages";
		return false;
	}
	p->loop = loop;
	p->items = lb->u.seq.items;
	p->n = lb->u.seq.n;
	tlc_stmt *only = p->n == 1 ? p->items[0] : NULL;
	if (only && only->kind == TLC_STMT_IF && !only->u.if_.else_s) {
		/* a conditional body: both roles test the condition, each counting
		 * the iterations it ran */
		p->guard = only->u.if_.cond;
		if (expr_buffers(p->guard).other) {
			*why = "the loop body's condition reads memory other than global tensors";
			return false;
		}
		tlc_stmt *then = only->u.if_.then_s;
		p->items = then->kind == TLC_STMT_SEQ ? then->u.seq.items : &only->u.if_.then_s;
		p->n = then->kind == TLC_STMT_SEQ ? then->u.seq.n : 1;
	}
	if (p->n > WS_MAX_ITEMS) {
		*why = "the loop body has too many statements";
		return false;
	}
	if (p->guard) {
		if (!classify_guarded(w, p, why))
			return false;
	} else {
		for (int j = 0; j < p->n; j++) {
			p->role[j] = WS_CONSUMER;
			tlc_stmt *s = p->items[j];
			if (pi->stage[j] == 0 && s->kind == TLC_STMT_LET && !expr_buffers(s->u.let.value).other)
				p->role[j] = WS_BOTH;
			else if (pi->stage[j] == 0 && !producer_role(w, p, j, why))
				return false;
			if (pi->stage[j] != 0 && pi->stage[j] != pi->num_stages - 1) {
				*why = "the loop's stages are not the prefetch schedule";
				return false;
			}
		}
	}
	if (!p->ntma) {
		*why = p->nasync ? "no copy of the loop can go by TMA" : "the loop has no copies to prefetch";
		return false;
	}
	plan_kernel_lets(w, body, p);
	return producer_vars_ok(body, p, why) && fits_shared_memory(w, body, p, why) && plan_release(p, why);
}

/* ---- clusters ---- */

typedef struct taint_scan {
	tlc_var **vars;
	int n;
} taint_scan;

/* The variables whose values depend on the block's x index: the index and
 * the LETs computed from it (before the roles split, or in the iteration). */
static taint_scan x_dependent_vars(ws_state *w, tlc_stmt *body, const ws_plan *p)
{
	taint_scan t = {tlc_alloc(w->m, sizeof(tlc_var *) * (size_t)(body->u.seq.n + p->n + 1)), 0};
	t.vars[t.n++] = w->f->block_vars[0];
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (s->kind == TLC_STMT_LET && uses_var(s->u.let.value, t.vars, t.n))
			t.vars[t.n++] = s->u.let.var;
	}
	for (int j = 0; j < p->n; j++)
		if (p->items[j]->kind == TLC_STMT_LET && uses_var(p->items[j]->u.let.value, t.vars, t.n))
			t.vars[t.n++] = p->items[j]->u.let.var;
	return t;
}

/* Clusters of C blocks along x (option cluster-size, 2 by default) that
 * load the tiles they all need once (TMA multicast): a producer copy whose
 * source does not depend on the block's x index fetches the same tile in
 * every block of a cluster (A of a GEMM whose blocks walk N along x), so
 * each block loads 1/C of its rows into all of them and the tile leaves L2
 * once for the C.  A stage then holds data of every block's producer, so
 * it is free only when the consumers of all of them are done with it:
 * they arrive on the `empty` barriers of every block of the cluster.
 * Needs a target with TMA multicast and clusters of C, a constant grid
 * along x that C divides (a launch is refused otherwise), a loop that
 * every block runs in full (no condition), and a tile whose parts TMA can
 * write (tlc_tma_multicast_split); specialize keeps the clusters only for
 * a kernel launched two blocks per SM (blocks_per_sm).  Option `multicast
 * = false` turns them off. */
static void plan_cluster(ws_state *w, tlc_stmt *body, ws_plan *p, bool enable, int64_t C)
{
	int64_t gx, dims[3];
	p->cluster = 1;
	if (!enable || C < 2 || !(w->t->async_copy & TLC_ASYNC_TMA_MULTICAST) || w->t->max_cluster < C || p->guard ||
	    tlc_func_cluster_dims(w->f, dims) > 1 || !w->f->block_vars[0] || !tlc_expr_as_int(w->f->grid[0], &gx) ||
	    gx % C)
		return;
	taint_scan t = x_dependent_vars(w, body, p);
	bool any = false;
	for (int j = 0; j < p->n; j++) {
		const tlc_buffer *src, *dst;
		p->multicast[j] = false;
		if (p->role[j] != WS_TMA || !pl_copy_sides(p->items[j], &src, &dst))
			continue;
		const tlc_expr *from = p->items[j]->u.eval.call->u.call.args[0];
		int64_t rows, cols;
		int esize = tlc_dtype_bits(dst->dtype) / 8;
		if (uses_var(from, t.vars, t.n) || !tlc_expr_as_int(dst->shape[0], &rows) ||
		    !tlc_expr_as_int(dst->shape[1], &cols))
			continue;
		tlc_swizzle sw = predicted_swizzle(dst, cols);
		int width = sw == TLC_SWIZZLE_NONE ? 0 : tlc_swizzle_get(sw)->bytes;
		if (!tlc_tma_multicast_split(rows, width ? width : cols * esize, width, C))
			continue;
		p->multicast[j] = any = true;
	}
	if (any)
		p->cluster = C;
}

/* ---- the rewrite ---- */

static tlc_stmt *eval(ws_state *w, tlc_loc loc, tlc_op_id op, int n, const tlc_expr *const *args, int nkw,
                      const char **kwn, const tlc_expr *const *kwv)
{
	return tlc_eval_new(w->m, loc, tlc_call(w->m, op, TLC_DT_VOID, n, args, nkw, kwn, kwv));
}

static const tlc_expr *bar_at(ws_state *w, tlc_buffer *bar, const tlc_expr *s)
{
	return tlc_load(w->m, bar, 1, &s);
}

static tlc_buffer *new_barriers(ws_state *w, tlc_loc loc, const char *name, int stages, int64_t count)
{
	const tlc_expr *ext = tlc_i32(w->m, stages);
	tlc_buffer *b = tlc_buffer_new(w->m, name, TLC_DT_UINT64, TLC_SCOPE_BARRIER, 1, &ext, loc);
	b->init = tlc_alloc(w->m, (size_t)stages * sizeof(*b->init));
	b->ninit = stages;
	for (int i = 0; i < stages; i++)
		b->init[i] = tlc_i32(w->m, count);
	return b;
}

static tlc_stmt *ws_scope(ws_state *w, tlc_loc loc, int first, int count, tlc_stmt *body)
{
	const tlc_expr *args[8];
	for (int i = 0; i < count && i < 8; i++)
		args[i] = tlc_i32(w->m, first + i);
	return tlc_scope_new(w->m, loc, tlc_call(w->m, TLC_OP_WS, TLC_DT_VOID, count, args, 0, NULL, NULL), body);
}

static tlc_stmt *set_max_nreg(ws_state *w, tlc_loc loc, int64_t regs, bool inc)
{
	const tlc_expr *args[2] = {tlc_i32(w->m, regs), tlc_i32(w->m, inc)};
	return eval(w, loc, TLC_OP_SET_MAX_NREG, 2, args, 0, NULL, NULL);
}

/* A statement that belongs to the whole kernel, not to a role. */
static bool kernel_level(const tlc_stmt *s)
{
	return s->kind == TLC_STMT_ALLOC || tlc_stmt_is_call(s, TLC_OP_USE_SWIZZLE) ||
	       tlc_stmt_is_call(s, TLC_OP_ANNOTATE_LAYOUT);
}

/* Blocks per SM the specialized kernel is launched for.  Two when the loop
 * is a plain GEMM (one T.gemm) whose accumulator takes at most
 * WS_TWO_BLOCK_ACC registers a consumer thread and two blocks' threads and
 * stage buffers fit an SM: a block then launches with half the register
 * file, the producer gives most of its share to the consumers
 * (setmaxnreg), and one block's epilogue and prologue overlap the other's
 * main loop.  Otherwise one. */
static int blocks_per_sm(ws_state *w, const ws_plan *p, const pl_versions *vers)
{
	const tlc_stmt *gemm = NULL;
	for (int j = 0; j < p->n; j++) {
		if (p->role[j] != WS_CONSUMER)
			continue;
		if (gemm || !tlc_stmt_is_call(p->items[j], TLC_OP_GEMM))
			return 1;
		gemm = p->items[j];
	}
	tlc_gemm_info g;
	const char *why = NULL;
	if (!gemm || !tlc_gemm_decode(gemm->u.eval.call, &g, &why))
		return 1;
	int64_t acc = g.M * g.N * (tlc_dtype_bits(g.C->dtype) / 8) / 4 / w->threads;
	int64_t smem = 0;
	for (int i = 0; i < vers->n; i++) {
		int64_t bytes;
		if (!vers->ver[i].to || !tlc_buffer_bytes(vers->ver[i].to, &bytes))
			return 1;
		smem += bytes;
	}
	/* the consumers' share at two blocks must hold the accumulator and
	 * the addresses and indices around it */
	int64_t share = (w->t->regs_per_block / 2 - (int64_t)w->t->warpgroup * WS_PRODUCER_REGS) / w->threads / 8 * 8;
	if (acc > WS_TWO_BLOCK_ACC || share < acc + WS_REG_HEADROOM || smem > tlc_target_smem_per_block(w->t, 2))
		return 1;
	return 2;
}

/* The consumers free a stage (arrive on `empty`) right after the last
 * statement of the loop body that reads one of its buffers, so that the
 * producer refills it while the rest of the body (a softmax, a float32
 * promotion of the accumulator) runs.  A tile-level T.gemm has waited for
 * its reads when it ends; an asynchronous T.wgmma_gemm reads until some
 * later T.wait_wgmma, so a body with one frees a stage at its end (and
 * the stage of an earlier iteration when groups stay in flight: lag). */
static int last_stage_reader(const pl_versions *vers, const ws_plan *p)
{
	int last = p->n - 1;
	for (int j = 0; j < p->n; j++)
		if (has_async_gemm(p->items[j]))
			return last;
	for (; last > 0; last--) {
		bool reads = false;
		for (int i = 0; i < vers->n && !reads; i++)
			reads = p->role[last] == WS_CONSUMER && tlc_stmt_use_of(p->items[last], vers->ver[i].from) != 0;
		if (reads)
			break;
	}
	return last;
}

/* The consumers are done with a stage: they arrive on its `empty` barrier,
 * in every block of the cluster when the blocks fill each other's stages
 * (plan_cluster). */
static tlc_stmt *free_stage(ws_state *w, tlc_loc loc, const ws_plan *p, const tlc_expr *empty_elem)
{
	if (p->cluster == 1)
		return eval(w, loc, TLC_OP_BARRIER_ARRIVE, 1, &empty_elem, 0, NULL, NULL);
	tlc_stmt *seq = tlc_seq_new(w->m, loc);
	const char *kw = tlc_intern(w->m, "cta_id");
	for (int64_t r = 0; r < p->cluster; r++) {
		const tlc_expr *rank = tlc_i32(w->m, r);
		tlc_seq_append(w->m, seq, eval(w, loc, TLC_OP_BARRIER_ARRIVE, 1, &empty_elem, 1, &kw, &rank));
	}
	return seq;
}

/* Where one role is in the loop: iteration `it` (from 0) of those it ran
 * uses stage it % S, whose phase parity is (it / S) % 2. */
typedef struct ws_position {
	const tlc_expr *stage, *parity, *parity_free;
} ws_position;

static ws_position position(tlc_module *m, const tlc_expr *it, int S)
{
	const tlc_expr *round = tlc_binary(m, TLC_EXPR_FLOORDIV, it, tlc_i32(m, S));
	ws_position p;
	p.stage = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_FLOORMOD, it, tlc_i32(m, S)));
	p.parity = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_FLOORMOD, round, tlc_i32(m, 2)));
	/* the first wait for a free stage asks for parity 1, which a fresh
	 * barrier has completed: the producer fills all stages first */
	p.parity_free = tlc_simplify_expr(
	    m, tlc_binary(m, TLC_EXPR_FLOORMOD, tlc_binary(m, TLC_EXPR_ADD, round, tlc_i32(m, 1)), tlc_i32(m, 2)));
	return p;
}

/* A role's count of the iterations it ran (a conditional body skips some,
 * so the loop variable does not say where the role is: seed 002). */
static tlc_buffer *iteration_counter(ws_state *w, tlc_loc loc, const char *name, tlc_stmt *role_body)
{
	const tlc_expr *one = tlc_i32(w->m, 1);
	tlc_buffer *b = tlc_buffer_new(w->m, name, TLC_DT_INT32, TLC_SCOPE_VAR, 1, &one, loc);
	b->init = tlc_alloc(w->m, sizeof(*b->init));
	b->init[0] = tlc_i32(w->m, 0);
	b->ninit = 1;
	tlc_seq_append(w->m, role_body, tlc_alloc_new(w->m, loc, b));
	return b;
}

static tlc_stmt *count_iteration(ws_state *w, tlc_loc loc, tlc_buffer *counter)
{
	const tlc_expr *zero = tlc_i32(w->m, 0);
	const tlc_expr *next = tlc_binary(w->m, TLC_EXPR_ADD, tlc_load(w->m, counter, 1, &zero), tlc_i32(w->m, 1));
	return tlc_store_new(w->m, loc, counter, 1, &zero, next);
}

static void specialize(ws_state *w, tlc_stmt *body, ws_plan *p)
{
	tlc_module *m = w->m;
	tlc_stmt *loop = p->loop;
	tlc_loc loc = loop->loc;
	int S = loop->u.loop.pipe.num_stages;

	pl_versions vers = {.m = m};
	for (int j = 0; j < p->n; j++) {
		const tlc_buffer *src, *dst;
		if ((p->role[j] == WS_TMA || p->role[j] == WS_CP_ASYNC) && pl_copy_sides(p->items[j], &src, &dst))
			pl_add_version(&vers, dst, S);
	}
	const tlc_buffer *outside = NULL;
	if (!pl_make_versions(&vers, w->f, loop, &outside))
		return; /* not a candidate after all: inject-pipeline will say why */

	/* the user's hints (T.disable_warp_group_reg_alloc,
	 * T.annotate_producer_reg_dealloc / _consumer_reg_alloc,
	 * T.annotate_min_blocks_per_sm): without setmaxnreg both roles keep
	 * the launch share, which two blocks per SM would halve */
	int64_t hint, producer_regs = WS_PRODUCER_REGS, consumer_regs = 0, user_blocks = 0;
	bool no_nreg = int_attr(w->f, "tlc.no_set_max_nreg", &hint) && hint;
	int_attr(w->f, "tlc.producer_regs", &producer_regs);
	int_attr(w->f, "tlc.consumer_regs", &consumer_regs);
	int_attr(w->f, "tlc.min_blocks", &user_blocks);
	int blocks = user_blocks >= 1 ? (int)user_blocks : no_nreg ? 1 : blocks_per_sm(w, p, &vers);
	/* a consumer count that two blocks' share cannot give wants the SM alone */
	if (consumer_regs && user_blocks < 1 && blocks > 1 &&
	    (int64_t)w->t->warpgroup * producer_regs + w->threads * consumer_regs > w->t->regs_per_block / blocks)
		blocks = 1;
	/* clusters pay where two small-tiled blocks share an SM and their L2
	 * traffic per flop is highest (5-20% on an H100); one-block kernels
	 * with larger tiles gained nothing measurable, within the 3% that two
	 * runs of one kernel differ by (bench/notes/hopper-gemm.md), and
	 * clusters make a block wait for its neighbour's consumers */
	if (blocks < 2)
		p->cluster = 1;
	/* setmaxnreg moves registers within what the block got at launch:
	 * every thread the launch cap, its share of the register file rounded
	 * down to whole allocation units (8 a thread).  With 640 threads that
	 * is 96 a thread (61440, not 65536): consumers asking for more than
	 * the producer gives back wait forever. */
	int64_t total = (int64_t)w->t->warpgroup + w->threads;
	int64_t per_block = w->t->regs_per_block / blocks / total / 8 * 8 * total;
	int64_t regs = (per_block - (int64_t)w->t->warpgroup * producer_regs) / w->threads / 8 * 8;
	if (regs > WS_MAX_REGS)
		regs = WS_MAX_REGS;
	if (consumer_regs && !no_nreg) {
		/* setmaxnreg.inc waits until the registers are free: asking for
		 * more than the block holds would wait forever */
		if ((int64_t)w->t->warpgroup * producer_regs + w->threads * consumer_regs > per_block) {
			tlc_error(w->ctx, loc, "T.annotate_consumer_reg_alloc(%lld): %lld consumer threads at %lld registers "
			          "and %d producer threads at %lld need more than the %lld registers a block gets at launch at %d "
			          "block%s per SM; give at most %lld",
			          (long long)consumer_regs, (long long)w->threads, (long long)consumer_regs,
			          w->t->warpgroup, (long long)producer_regs, (long long)per_block, blocks,
			          blocks == 1 ? "" : "s", (long long)regs);
			w->failed = true;
			return;
		}
		regs = consumer_regs;
	}
	/* the register cap at launch that setmaxnreg redistributes */
	tlc_func_set_attr(m, w->f, "tlc.min_blocks", tlc_i32(m, blocks));

	tlc_buffer *full = new_barriers(w, loc, "full", S, w->t->warpgroup);
	tlc_buffer *empty = new_barriers(w, loc, "empty", S, w->threads * p->cluster);
	tlc_stmt *producer = tlc_seq_new(m, loc);
	tlc_stmt *consumer = tlc_seq_new(m, loc);
	if (!no_nreg) {
		tlc_seq_append(m, producer, set_max_nreg(w, loc, producer_regs, false));
		tlc_seq_append(m, consumer, set_max_nreg(w, loc, regs, true));
	}

	/* where each role is: the loop's iteration, or its own count of the
	 * iterations whose condition held */
	tlc_var *k = loop->u.loop.var;
	const tlc_expr *zero = tlc_i32(m, 0);
	tlc_buffer *produced = NULL, *consumed = NULL;
	const tlc_expr *prod_it, *cons_it;
	if (p->guard) {
		produced = iteration_counter(w, loc, "produced", producer);
		consumed = iteration_counter(w, loc, "consumed", consumer);
		prod_it = tlc_load(m, produced, 1, &zero);
		cons_it = tlc_load(m, consumed, 1, &zero);
	} else {
		prod_it = cons_it =
		    tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_SUB, tlc_var_ref(m, k), loop->u.loop.min));
	}
	ws_position pp = position(m, prod_it, S), cp = position(m, cons_it, S);

	/* the producer: wait for a free stage, copy into it, mark it full */
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, m);
	pl_version_rewriter(&rw, &vers);
	vers.iter = prod_it;
	tlc_stmt *prod_body = tlc_seq_new(m, loc);
	const tlc_expr *wait_free[2] = {bar_at(w, empty, pp.stage), pp.parity_free};
	tlc_seq_append(m, prod_body, eval(w, loc, TLC_OP_BARRIER_WAIT, 2, wait_free, 0, NULL, NULL));
	const char *kw_bar = tlc_intern(m, "barrier");
	const tlc_expr *full_p = bar_at(w, full, pp.stage);
	for (int j = 0; j < p->n; j++) {
		if (p->role[j] == WS_CONSUMER)
			continue;
		tlc_stmt *c = tlc_stmt_clone(&rw, p->items[j]);
		if (p->role[j] == WS_TMA) {
			const char *kwn[2] = {kw_bar, tlc_intern(m, "cluster_mask")};
			const tlc_expr *kwv[2] = {full_p, tlc_i32(m, ((int64_t)1 << p->cluster) - 1)};
			bool multicast = p->cluster > 1 && p->multicast[j];
			c = eval(w, c->loc, TLC_OP_TMA_COPY, 2, c->u.eval.call->u.call.args, multicast ? 2 : 1, kwn, kwv);
		} else if (p->role[j] == WS_CP_ASYNC) {
			/* the producer's threads copy; the full barrier publishes it */
			c = tlc_attr_new(m, c->loc, "completes_on", full_p, c);
		}
		tlc_seq_append(m, prod_body, c);
	}
	if (p->nasync)
		/* the stage is full once this thread's cp.async copies have landed too */
		tlc_seq_append(m, prod_body, eval(w, loc, TLC_OP_CP_ASYNC_ARRIVE, 1, &full_p, 0, NULL, NULL));
	tlc_seq_append(m, prod_body, eval(w, loc, TLC_OP_BARRIER_ARRIVE, 1, &full_p, 0, NULL, NULL));
	if (produced)
		tlc_seq_append(m, prod_body, count_iteration(w, loc, produced));

	/* the consumer: wait for a full stage, compute, free it */
	vers.iter = cons_it;
	tlc_stmt *cons_body = tlc_seq_new(m, loc);
	const tlc_expr *full_c = bar_at(w, full, cp.stage);
	const tlc_expr *wait_full[2] = {full_c, cp.parity};
	tlc_seq_append(m, cons_body, eval(w, loc, TLC_OP_BARRIER_WAIT, 2, wait_full, 0, NULL, NULL));
	if (p->nasync)
		/* the producer's threads wrote part of the stage through the
		 * generic proxy; WGMMA reads it through the async proxy */
		tlc_seq_append(m, cons_body, eval(w, loc, TLC_OP_FENCE_PROXY_ASYNC, 0, NULL, 0, NULL, NULL));
	int last_read = p->lag ? -1 : last_stage_reader(&vers, p);
	const tlc_expr *empty_c = bar_at(w, empty, cp.stage);
	for (int j = 0; j < p->n; j++) {
		if (p->role[j] == WS_CONSUMER || p->role[j] == WS_BOTH)
			tlc_seq_append(m, cons_body, tlc_stmt_clone(&rw, p->items[j]));
		if (j == last_read)
			tlc_seq_append(m, cons_body, free_stage(w, loc, p, empty_c));
	}
	if (p->lag) {
		/* the groups still in flight read the stages of the last `lag`
		 * iterations: free the one before them */
		const tlc_expr *lag = tlc_i32(m, p->lag);
		const tlc_expr *older = tlc_simplify_expr(
		    m, tlc_binary(m, TLC_EXPR_FLOORMOD, tlc_binary(m, TLC_EXPR_ADD, cons_it, tlc_i32(m, S - p->lag)),
		                  tlc_i32(m, S)));
		const tlc_expr *empty_old = bar_at(w, empty, older);
		tlc_stmt *free_old = free_stage(w, loc, p, empty_old);
		tlc_seq_append(m, cons_body, tlc_if_new(m, loc, tlc_binary(m, TLC_EXPR_GE, cons_it, lag), free_old, NULL));
	}
	if (consumed)
		tlc_seq_append(m, cons_body, count_iteration(w, loc, consumed));
	tlc_rewriter_free(&rw);

	if (p->guard) {
		prod_body = tlc_if_new(m, loc, p->guard, prod_body, NULL);
		cons_body = tlc_if_new(m, loc, p->guard, cons_body, NULL);
	}
	tlc_var *kp = tlc_var_new(m, k->name, k->dtype);
	tlc_stmt *prod_loop = tlc_for_new(m, loc, k, loop->u.loop.min, loop->u.loop.extent, TLC_FOR_SERIAL, prod_body);
	tlc_stmt *cons_loop = tlc_for_new(m, loc, kp, loop->u.loop.min, loop->u.loop.extent, TLC_FOR_SERIAL, cons_body);
	/* the two loops bind their own variables */
	tlc_rewriter rk;
	tlc_rewriter_init(&rk, m);
	tlc_rewriter_map_var(&rk, k, tlc_var_ref(m, kp));
	cons_loop->u.loop.body = tlc_stmt_rewrite(&rk, cons_loop->u.loop.body);
	tlc_rewriter_free(&rk);

	tlc_seq_append(m, producer, prod_loop);

	tlc_stmt *out = tlc_seq_new(m, body->loc);
	for (int i = 0; i < body->u.seq.n; i++) {
		tlc_stmt *s = body->u.seq.items[i];
		if (s == loop)
			tlc_seq_append(m, consumer, cons_loop);
		else if (kernel_level(s) || p->hoist[i])
			tlc_seq_append(m, out, s);
		else
			tlc_seq_append(m, consumer, s);
	}
	/* barriers after the allocations, then the two roles */
	tlc_stmt *fin = tlc_seq_new(m, body->loc);
	int after = 0;
	for (int i = 0; i < out->u.seq.n; i++)
		if (out->u.seq.items[i]->kind == TLC_STMT_ALLOC)
			after = i + 1;
	for (int i = 0; i < out->u.seq.n; i++) {
		if (i == after) {
			tlc_seq_append(m, fin, tlc_alloc_new(m, loc, full));
			tlc_seq_append(m, fin, tlc_alloc_new(m, loc, empty));
		}
		tlc_seq_append(m, fin, out->u.seq.items[i]);
	}
	if (after == out->u.seq.n) {
		tlc_seq_append(m, fin, tlc_alloc_new(m, loc, full));
		tlc_seq_append(m, fin, tlc_alloc_new(m, loc, empty));
	}
	int wg = w->t->warpgroup;
	tlc_seq_append(m, fin, ws_scope(w, loc, 0, 1, producer));
	tlc_seq_append(m, fin, ws_scope(w, loc, 1, (int)(w->threads / wg), consumer));
	if (p->cluster > 1) {
		/* a block leaves only when no other block of its cluster can still
		 * arrive on its barriers */
		tlc_seq_append(m, fin, eval(w, loc, TLC_OP_CLUSTER_SYNC, 0, NULL, 0, NULL, NULL));
		const tlc_expr *dims[3] = {tlc_i32(m, p->cluster), tlc_i32(m, 1), tlc_i32(m, 1)};
		tlc_func_set_attr(m, w->f, "tlc.cluster_dims", tlc_tuple(m, 3, dims, false));
	}
	*body = *fin;
	w->f->threads[0] = tlc_i32(m, w->threads + wg);
}

int pl_run_warp_specialize(tlc_module *m, tlc_func *f, const tlc_pass_options *opts)
{
	const tlc_target_info *t = tlc_module_target_info(m);
	if (!tlc_opt_bool(opts, "enable", true) || !t || !(t->async_copy & TLC_ASYNC_TMA) ||
	    !(t->barriers & TLC_BARRIER_MBARRIER_TX) || !t->warpgroup || !f->body || f->body->kind != TLC_STMT_SEQ)
		return 0;
	int64_t off = 0;
	if (int_attr(f, "tl.disable_warp_specialized", &off) && off)
		return 0; /* TileLang's pass config: the loop is left to inject-pipeline */
	ws_state w = {m, tlc_module_context(m), f, t, 0, false};
	if (f->thread_ndim != 1 || !tlc_expr_as_int(f->threads[0], &w.threads) || w.threads % t->warpgroup ||
	    w.threads + t->warpgroup > t->max_threads || w.threads / t->warpgroup > 8)
		return 0;
	const char *why = NULL;
	ws_plan plan = {0};
	if (!candidate(&w, f->body, &plan, &why)) {
		if (tlc_opt_bool(opts, "remarks", false))
			tlc_note(w.ctx, f->loc, "warp-specialize: kernel '%s' is not specialized: %s", f->name, why);
		return 0;
	}
	plan_cluster(&w, f->body, &plan, tlc_opt_bool(opts, "multicast", true), tlc_opt_int(opts, "cluster-size", 2));
	specialize(&w, f->body, &plan);
	if (plan.cluster > 1 && tlc_opt_bool(opts, "remarks", false))
		tlc_note(w.ctx, f->loc, "warp-specialize: kernel '%s' runs in clusters of %lld blocks along x that share "
		         "the tiles they both load (TMA multicast)", f->name, (long long)plan.cluster);
	return w.failed;
}
