/* frontend_hints.c - T.* calls that annotate the kernel rather than build
 * a statement (register allocation hints of warp specialization, blocks
 * per SM, L2 hints), the forms of TileLang's surface that are sugar for
 * another call (T.inc_max_nreg, T.Tensor[...]), and the constructs that
 * are refused by name with what to write instead (T.alloc_reducer). */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

static const char *const hint_names[] = {
	"disable_warp_group_reg_alloc",
	"no_set_max_nreg",
	"annotate_producer_reg_dealloc",
	"annotate_consumer_reg_alloc",
	"annotate_min_blocks_per_sm",
	"annotate_l2_hit_ratio",
	"annotate_restrict_buffers",
	"inc_max_nreg",
	"dec_max_nreg",
	"alloc_reducer",
	"finalize_reducer",
	"reducer_init",
	"reducer_update",
	"create_list_of_mbarrier",
	"get_mbarrier",
	"ptx_arrive_barrier",
	"ptx_arrive_barrier_expect_tx",
	"ptx_cp_async_barrier",
	"ptx_wait_barrier",
	"ptx_init_barrier_thread_count",
	"ptx_fence_barrier_init",
};

bool fe_hint_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(hint_names); i++)
		if (strcmp(hint_names[i], name) == 0)
			return true;
	return false;
}

/* A register count for setmaxnreg: the instruction takes a multiple of 8
 * in [24, 256]; TileLang's hints allow [24, 240]. */
static bool reg_count(fe *F, const char *fname, fe_val *v, tlc_loc loc, int64_t *out)
{
	if (!fe_const_int(F, v, "register count", loc, out))
		return false;
	if (*out < 24 || *out > 240 || *out % 8) {
		tlc_error(F->ctx, loc,
			  "%s: %lld registers; setmaxnreg takes a multiple of 8 from 24 to 240",
			  fname, (long long)*out);
		return false;
	}
	return true;
}

/* A kernel-wide hint: the attribute the passes read (doc/language.md,
 * "Inside a kernel").  TileLang collects these from anywhere in the body,
 * so their place in the kernel does not matter. */
static fe_val *kernel_hint(fe *F, const char *fname, const char *key, const tlc_expr *v,
			   tlc_loc loc)
{
	if (!fe_need_kernel(F, fname, false, loc))
		return NULL;
	fe_kernel_add_attr(F, key, v);
	return F->none;
}

/* T.create_list_of_mbarrier(c0, c1, ...) or ([c0, c1, ...]): TileLang's
 * older way to make the kernel's mbarriers, numbered from 0 in the order
 * of their arrive counts; the calls name them by number (T.get_mbarrier(i)
 * or the integer itself).  One T.alloc_barrier buffer named `mbarrier`. */
static fe_val *create_mbarriers(fe *F, const char *fname, int nargs, fe_val **args, int nkw,
				tlc_loc loc)
{
	if (nkw) {
		tlc_error(F->ctx, loc, "%s takes the arrive counts positionally", fname);
		return NULL;
	}
	if (!fe_need_kernel(F, fname, true, loc))
		return NULL;
	if (F->kernel->mbarriers) {
		tlc_error(F->ctx, loc,
			  "%s: the kernel has its list of mbarriers already; make one list with "
			  "every "
			  "arrive count",
			  fname);
		return NULL;
	}
	fe_val *list = nargs == 1 && (args[0]->kind == FV_LIST || args[0]->kind == FV_TUPLE)
			       ? args[0]
			       : NULL;
	if (!list) {
		list = fe_seq(F, FV_LIST, 0);
		for (int i = 0; i < nargs; i++)
			fe_seq_push(F, list, args[i]);
	}
	const char *saved = F->name_hint;
	F->name_hint = "mbarrier";
	fe_val *b = fe_call_t(F, "T.alloc_barrier", 1, &list, 0, NULL, NULL, loc);
	F->name_hint = saved;
	if (!b)
		return NULL;
	F->kernel->mbarriers = b->u.buf;
	return F->none;
}

static fe_val *mbarrier_elem(fe *F, fe_val *id, tlc_loc loc)
{
	fe_kernel *K = F->kernel;
	if (!K || !K->mbarriers) {
		tlc_error(F->ctx, loc,
			  "mbarrier %s is a TileLang barrier id, which needs "
			  "T.create_list_of_mbarrier(...) "
			  "earlier in the kernel (or use a T.alloc_barrier buffer's element)",
			  fe_show(F, id));
		return NULL;
	}
	const tlc_expr *i = fe_to_scalar(F, id, loc);
	int64_t x;
	if (!i)
		return NULL;
	if (!tlc_dtype_is_int(i->dtype)) {
		tlc_error(F->ctx, loc, "a barrier id is an integer, not %s",
			  tlc_dtype_name(i->dtype));
		return NULL;
	}
	int64_t n = K->mbarriers->ninit;
	if (tlc_expr_as_int(i, &x) && (x < 0 || x >= n)) {
		tlc_error(
			F->ctx, loc,
			"barrier id %lld: T.create_list_of_mbarrier made %lld barriers (0 to %lld)",
			(long long)x, (long long)n, (long long)(n - 1));
		return NULL;
	}
	if (i->dtype != TLC_DT_INT32)
		i = tlc_cast(F->m, TLC_DT_INT32, i);
	return fe_expr(F, tlc_load(F->m, K->mbarriers, 1, &i));
}

fe_val *fe_mbarrier_operand(fe *F, fe_val *v, tlc_loc loc)
{
	bool id = v->kind == FV_INT || (v->kind == FV_EXPR && tlc_dtype_is_int(v->u.e->dtype) &&
					!(v->u.e->kind == TLC_EXPR_LOAD &&
					  v->u.e->u.load.buf->scope == TLC_SCOPE_BARRIER));
	return id ? mbarrier_elem(F, v, loc) : v;
}

/* ---- reducers ----
 * T.alloc_reducer(shape, dtype, op="sum", replication=None): TileLang
 * keeps a partial result per thread that T.finalize_reducer combines; the
 * sum is the same with one copy in shared memory that every iteration of
 * the T.Parallel loops adds its contribution to atomically (each logical
 * iteration once, however the loop is spread over threads), and that all
 * threads read after it: T.fill/T.clear/T.reducer_init set it, `r[i] += v`
 * and T.reducer_update add, T.finalize_reducer(r[, dst]) is then a read
 * (sync-insert puts the block barriers between).  max/min reducers need an
 * atomic max, which tlc has not. */

bool fe_is_reducer(fe *F, const tlc_buffer *b)
{
	for (int i = 0; F->kernel && i < F->kernel->nreducers; i++)
		if (F->kernel->reducers[i] == b)
			return true;
	return false;
}

bool fe_reducer_add(fe *F, tlc_buffer *b, int n, const tlc_expr *const *idx, fe_val *v, tlc_loc loc)
{
	if (!F->parallel_depth) {
		tlc_error(F->ctx, loc,
			  "reducer '%s' is updated outside a T.Parallel loop, where every thread "
			  "would add "
			  "its own contribution; update it inside T.Parallel (each iteration adds "
			  "once)",
			  b->name);
		return false;
	}
	fe_val *args[2] = {fe_expr(F, tlc_load(F->m, b, n, idx)), v};
	fe_val *call = fe_call_op(F, TLC_OP_ATOMIC_ADD, "atomic_add", 2, args, 0, NULL, NULL, loc);
	if (!call)
		return false;
	fe_emit(F, tlc_eval_new(F->m, loc, call->u.e));
	return true;
}

static fe_val *reducer_arg(fe *F, const char *fname, fe_val *v, tlc_loc loc)
{
	const tlc_buffer *b = v->kind == FV_BUF ? v->u.buf
			      : v->kind == FV_EXPR && v->u.e->kind == TLC_EXPR_LOAD
				      ? v->u.e->u.load.buf
				      : NULL;
	if (!b || !fe_is_reducer(F, b)) {
		tlc_error(F->ctx, loc, "%s expects a T.alloc_reducer buffer, got %s", fname,
			  fe_show(F, v));
		return NULL;
	}
	return v;
}

static fe_val *reducer_call(fe *F, const char *n, const char *fname, int nargs, fe_val **args,
			    int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	fe_val *a[4] = {0};
	if (!strcmp(n, "alloc_reducer")) {
		static const char *const names[] = {"shape", "dtype", "op", "replication"};
		if (!fe_bind_args(F, fname, names, 4, 2, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !fe_need_kernel(F, fname, true, loc))
			return NULL;
		if (a[2] && (a[2]->kind != FV_STR || strcmp(a[2]->u.s, "sum") != 0)) {
			tlc_error(F->ctx, loc,
				  "%s(op=%s) is not supported yet: only op=\"sum\" reducers "
				  "(shared memory "
				  "and atomic adds); reduce a fragment with "
				  "T.reduce_max/T.reduce_min instead",
				  fname, fe_show(F, a[2]));
			return NULL;
		}
		if (a[3] && a[3]->kind != FV_NONE &&
		    (a[3]->kind != FV_STR ||
		     (strcmp(a[3]->u.s, "all") && strcmp(a[3]->u.s, "none")))) {
			tlc_error(F->ctx, loc, "%s: replication is \"all\" or \"none\", not %s",
				  fname, fe_show(F, a[3]));
			return NULL;
		}
		fe_kernel *K = F->kernel;
		if (K->nreducers == (int)TLC_ARRAY_LEN(K->reducers)) {
			tlc_error(F->ctx, loc, "more than %d T.alloc_reducer buffers in one kernel",
				  (int)TLC_ARRAY_LEN(K->reducers));
			return NULL;
		}
		fe_val *r = fe_call_t(F, "T.alloc_shared", 2, a, 0, NULL, NULL, loc);
		if (r)
			K->reducers[K->nreducers++] = r->u.buf;
		return r;
	}
	if (!strcmp(n, "reducer_init")) {
		/* the identity of a sum, or the value given */
		static const char *const names[] = {"reducer", "value"};
		if (!fe_bind_args(F, fname, names, 2, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !reducer_arg(F, fname, a[0], loc))
			return NULL;
		fe_val *fa[2] = {a[0], a[1] && a[1]->kind != FV_NONE ? a[1] : fe_int(F, 0)};
		return fe_call_op(F, TLC_OP_FILL, "fill", 2, fa, 0, NULL, NULL, loc);
	}
	if (!strcmp(n, "reducer_update")) {
		static const char *const names[] = {"target", "value"};
		if (!fe_bind_args(F, fname, names, 2, 2, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !reducer_arg(F, fname, a[0], loc))
			return NULL;
		if (a[0]->kind != FV_EXPR) {
			tlc_error(F->ctx, loc, "%s updates one element: %s(r[i], v)", fname, fname);
			return NULL;
		}
		const tlc_expr *e = a[0]->u.e;
		return fe_reducer_add(F, e->u.load.buf, e->u.load.n, e->u.load.idx, a[1], loc)
			       ? F->none
			       : NULL;
	}
	if (!strcmp(n, "finalize_reducer")) {
		/* the sum is complete once every add is: reading it is all */
		static const char *const names[] = {"reducer", "dst", "batch"};
		if (!fe_bind_args(F, fname, names, 3, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !reducer_arg(F, fname, a[0], loc))
			return NULL;
		if (a[1] && a[1]->kind != FV_NONE) {
			fe_val *ca[2] = {a[0], a[1]};
			return fe_call_op(F, TLC_OP_COPY, "copy", 2, ca, 0, NULL, NULL, loc);
		}
		return F->none;
	}
	tlc_error(F->ctx, loc, "unknown T.* function '%s'", fname);
	return NULL;
}

/* TVM's PTX mbarrier intrinsics as TileLang re-exports them (the barrier a
 * T.get_mbarrier(i), an integer id of T.create_list_of_mbarrier, or a
 * T.alloc_barrier element): arrivals are the T.mbarrier_* ops; tlc
 * initializes every barrier itself, from its arrive count. */
static fe_val *ptx_barrier_call(fe *F, const char *n, const char *fname, int nargs, fe_val **args,
				int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"barrier_id", "byte_count"};
	fe_val *a[2];
	if (!strcmp(n, "ptx_arrive_barrier") || !strcmp(n, "ptx_cp_async_barrier")) {
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		/* cp.async.mbarrier.arrive (without .noinc): the phase also waits
		 * for the thread's cp.async copies, its own arrival still counts */
		if (n[4] == 'c')
			return fe_call_op(F, TLC_OP_CP_ASYNC_ARRIVE, "cp_async_arrive", 1, a, 0, NULL, NULL,
					  loc);
		return fe_call_op(F, TLC_OP_MBARRIER_ARRIVE, "mbarrier_arrive", 1, a, 0, NULL, NULL, loc);
	}
	if (!strcmp(n, "ptx_arrive_barrier_expect_tx")) {
		if (!fe_bind_args(F, fname, names, 2, 2, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		return fe_call_op(F, TLC_OP_MBARRIER_ARRIVE_EXPECT_TX, "mbarrier_arrive_expect_tx", 2, a, 0,
				  NULL, NULL, loc);
	}
	if (!strcmp(n, "ptx_wait_barrier")) {
		tlc_error(F->ctx, loc,
			  "%s is not supported: it waits without naming the phase; write "
			  "T.mbarrier_wait_parity(barrier, parity) (parity: the phase's number "
			  "modulo 2, e.g. the loop counter's)",
			  fname);
		return NULL;
	}
	tlc_error(F->ctx, loc,
		  "%s is not supported: tlc initializes each mbarrier itself, once at kernel entry "
		  "(with the fence and barrier that publish it); declare the barriers with their "
		  "arrive counts, T.alloc_barrier([c0, c1, ...]) or T.create_list_of_mbarrier(c0, c1, ...)",
		  fname);
	return NULL;
}

fe_val *fe_call_hint(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
		     fe_val **kwv, tlc_loc loc)
{
	char fname[96];
	snprintf(fname, sizeof fname, "T.%s", n);
	fe_val *a[4] = {0};
	if (!strcmp(n, "disable_warp_group_reg_alloc") || !strcmp(n, "no_set_max_nreg")) {
		if (!fe_bind_args(F, fname, NULL, 0, 0, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		/* the producer and consumer warpgroups keep the registers they
		 * are launched with: no setmaxnreg (plugins/pipeline) */
		return kernel_hint(F, fname, "tlc.no_set_max_nreg", tlc_i32(F->m, 1), loc);
	}
	if (!strcmp(n, "annotate_producer_reg_dealloc") ||
	    !strcmp(n, "annotate_consumer_reg_alloc")) {
		static const char *const names[] = {"reg_count"};
		bool producer = n[9] == 'p';
		int64_t regs = producer ? 24 : 240;
		if (!fe_bind_args(F, fname, names, 1, 0, nargs, args, nkw, kwn, kwv, a, loc) ||
		    (a[0] && !reg_count(F, fname, a[0], loc, &regs)))
			return NULL;
		/* inside a branch of a kernel the user specializes by hand (under
		 * `if tid >= 128:` or T.ws), it is the instruction there, as
		 * TileLang 0.1's T.dec_max_nreg / T.inc_max_nreg */
		if (F->kernel && F->kernel->block && F->kernel->block != F->kernel->func->body) {
			fe_val *na[2] = {fe_int(F, regs), fe_int(F, !producer)};
			return fe_call_op(F, TLC_OP_SET_MAX_NREG, "set_max_nreg", 2, na, 0, NULL,
					  NULL, loc);
		}
		return kernel_hint(F, fname, producer ? "tlc.producer_regs" : "tlc.consumer_regs",
				   tlc_i32(F->m, regs), loc);
	}
	if (!strcmp(n, "annotate_min_blocks_per_sm")) {
		static const char *const names[] = {"n"};
		int64_t b;
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !fe_const_int(F, a[0], "blocks per SM", loc, &b))
			return NULL;
		if (b < 1 || b > 64) {
			tlc_error(F->ctx, loc,
				  "%s: %lld blocks per SM; give a positive count of at most 64",
				  fname, (long long)b);
			return NULL;
		}
		/* the second argument of __launch_bounds__, as warp
		 * specialization's own choice is (tlc.min_blocks) */
		return kernel_hint(F, fname, "tlc.min_blocks", tlc_i32(F->m, b), loc);
	}
	if (!strcmp(n, "annotate_l2_hit_ratio")) {
		static const char *const names[] = {"l2_hit_ratio_map"};
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
		    !fe_need_kernel(F, fname, false, loc))
			return NULL;
		if (a[0]->kind != FV_DICT) {
			tlc_error(F->ctx, loc, "%s expects a dict {tensor: ratio}", fname);
			return NULL;
		}
		for (int i = 0; i < a[0]->u.dict.n; i++) {
			fe_val *k = a[0]->u.dict.keys[i];
			if (k->kind != FV_BUF || k->u.buf->scope != TLC_SCOPE_GLOBAL) {
				tlc_error(F->ctx, loc,
					  "%s: keys must be global tensors, got %s%s%s", fname,
					  k->kind == FV_BUF ? "the " : "",
					  k->kind == FV_BUF ? tlc_scope_name(k->u.buf->scope) : "",
					  k->kind == FV_BUF ? " buffer" : fe_kind_name(k));
				return NULL;
			}
		}
		/* a cache-persistence preference: what the kernel computes does
		 * not depend on it, and tlc sets no access policy window */
		return F->none;
	}
	if (!strcmp(n, "annotate_restrict_buffers")) {
		tlc_error(F->ctx, loc,
			  "%s is not supported: tlc declares every tensor parameter __restrict__ "
			  "(no two "
			  "overlap); pass tensors that do not overlap, or copy one first",
			  fname);
		return NULL;
	}
	if (!strcmp(n, "inc_max_nreg") || !strcmp(n, "dec_max_nreg")) {
		/* T.set_max_nreg(n, 1) / T.set_max_nreg(n, 0) */
		static const char *const names[] = {"reg_count"};
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		a[1] = fe_int(F, n[0] == 'i');
		return fe_call_op(F, TLC_OP_SET_MAX_NREG, "set_max_nreg", 2, a, 0, NULL, NULL, loc);
	}
	if (!strcmp(n, "create_list_of_mbarrier"))
		return create_mbarriers(F, fname, nargs, args, nkw, loc);
	if (!strcmp(n, "get_mbarrier")) {
		static const char *const names[] = {"barrier_id"};
		if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		return mbarrier_elem(F, a[0], loc);
	}
	if (!strncmp(n, "ptx_", 4))
		return ptx_barrier_call(F, n, fname, nargs, args, nkw, kwn, kwv, loc);
	return reducer_call(F, n, fname, nargs, args, nkw, kwn, kwv, loc);
}

/* T.Tensor[shape, dtype] / T.Buffer[...]: TileLang's subscript form of the
 * annotation is the call with the subscript's items as arguments. */
fe_val *fe_subscript_type(fe *F, fe_val *fn, fe_val *idx, tlc_loc loc)
{
	if (idx->kind == FV_TUPLE)
		return fe_call(F, fn, idx->u.seq.n, idx->u.seq.items, 0, NULL, NULL, loc);
	return fe_call(F, fn, 1, &idx, 0, NULL, NULL, loc);
}
