/* sim_eval.c - the simulator's expressions: values of variables, loads of
 * buffer elements, and arithmetic, which is the language's one definition
 * (core/arith.c, doc/language.md "Arithmetic"): what the language calls an
 * error (a signed 32/64-bit overflow, a zero divisor, a shift count out of
 * range) stops the run with an error at the statement.  Math calls use the C
 * library in double, then round, so they may differ from the GPU's
 * approximations by a few units in the last place. */
#include "sim_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_fail(sim *s, tlc_loc loc, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!s->stop)
		tlc_error(s->ctx, loc, "tlc-sim: %s", msg);
	s->errors++;
	s->stop = true;
	/* the other blocks of the cluster stop too (they run with this one) */
	for (int64_t r = 0; s->cluster && r < s->cluster->n; r++)
		s->cluster->blocks[r]->stop = true;
}

static void grow_vars(sim *s, const tlc_var *v)
{
	if (v->id < s->nvars)
		return;
	uint32_t n = v->id + 64;
	size_t per = (size_t)(s->nthreads > 0 ? s->nthreads : 1);
	s->vals = tlc_xrealloc(s->vals, n * per * sizeof(*s->vals));
	s->bound = tlc_xrealloc(s->bound, n * per * sizeof(*s->bound));
	for (size_t i = (size_t)s->nvars * per; i < n * per; i++)
		s->bound[i] = false;
	s->nvars = n;
}

static size_t slot(const sim *s, const tlc_var *v, int64_t t)
{
	return (size_t)v->id * (size_t)(s->nthreads > 0 ? s->nthreads : 1) + (size_t)t;
}

void sim_bind(sim *s, const tlc_var *v, sim_val x)
{
	grow_vars(s, v);
	s->vals[slot(s, v, s->tid)] = x;
	s->bound[slot(s, v, s->tid)] = true;
}

void sim_bind_all(sim *s, const tlc_var *v, sim_val x)
{
	grow_vars(s, v);
	for (int64_t t = 0; t < (s->nthreads > 0 ? s->nthreads : 1); t++) {
		s->vals[slot(s, v, t)] = x;
		s->bound[slot(s, v, t)] = true;
	}
}

void sim_unbind(sim *s, const tlc_var *v)
{
	if (v->id < s->nvars)
		s->bound[slot(s, v, s->tid)] = false;
}

bool sim_set_array(sim *s, const tlc_buffer *b, sim_array *a)
{
	if (b->id >= s->nbufs) {
		uint32_t n = b->id + 64;
		s->arrays = tlc_xrealloc(s->arrays, n * sizeof(*s->arrays));
		for (uint32_t i = s->nbufs; i < n; i++)
			s->arrays[i] = NULL;
		s->nbufs = n;
	}
	if (s->arrays[b->id]) {
		sim_array_free(s->arrays[b->id]);
		free(s->arrays[b->id]);
	}
	s->arrays[b->id] = a;
	return true;
}

sim_array *sim_array_of(sim *s, const tlc_buffer *b, tlc_loc loc)
{
	if (b->id < s->nbufs && s->arrays[b->id])
		return s->arrays[b->id];
	sim_fail(s, loc, "buffer '%s' is used where it is not allocated", b->name);
	return NULL;
}

sim_val sim_convert(sim_val x, tlc_dtype from, tlc_dtype to)
{
	return tlc_arith_convert(x, from, to);
}

sim_val sim_add(tlc_dtype t, sim_val a, sim_val b)
{
	sim_val r = {0, 0};
	if (tlc_dtype_is_float(t))
		r.f = tlc_sim_round(t, a.f + b.f);
	else
		r.i = sim_wrap_int(t, a.i + b.i);
	return r;
}

/* "1, 96" and "72, 96": the indices and the shape, for messages. */
static void index_texts(const sim_array *a, const int64_t *idx, char *at, char *shape, size_t n)
{
	at[0] = shape[0] = '\0';
	for (int k = 0; k < a->ndim; k++) {
		snprintf(at + strlen(at), n - strlen(at), "%s%lld", k ? ", " : "", (long long)idx[k]);
		snprintf(shape + strlen(shape), n - strlen(shape), "%s%lld", k ? ", " : "", (long long)a->shape[k]);
	}
}

static bool outside(const sim_array *a, const int64_t *idx)
{
	for (int d = 0; d < a->ndim; d++)
		if (idx[d] < 0 || idx[d] >= a->shape[d])
			return true;
	return false;
}

bool sim_bounds_masked(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, const char *what,
                       tlc_loc loc)
{
	if (!s->masked || b->scope != TLC_SCOPE_GLOBAL || !outside(a, idx))
		return false;
	if (s->strict_bounds) {
		char at[160], shape[160];
		index_texts(a, idx, at, shape, sizeof at);
		sim_fail(s, loc, "--strict-bounds: %s %s[%s] outside its shape (%s), which the bounds semantics would mask",
		         what, b->name, at, shape);
	}
	return true;
}

sim_val sim_safe_value(const sim *s, const tlc_buffer *b)
{
	sim_val zero = {0, 0};
	return b->id < s->nsafe ? s->safe[b->id] : zero;
}

int64_t sim_element(sim *s, const sim_array *a, const tlc_buffer *b, const int64_t *idx, tlc_loc loc)
{
	int64_t e = 0;
	if (outside(a, idx)) {
		char at[160], shape[160];
		index_texts(a, idx, at, shape, sizeof at);
		/* a global tensor's: nothing masks it where this runs (lowered
		 * code, or legalize-bounds guarded every access it could not
		 * prove inside): on the GPU it would corrupt memory */
		sim_fail(s, loc, "out-of-bounds access %s[%s] (shape (%s), %s)%s", b->name, at, shape,
		         tlc_scope_name(b->scope), b->scope == TLC_SCOPE_GLOBAL ? ", which no guard masks" : "");
		return -1;
	}
	for (int d = 0; d < a->ndim; d++)
		e = e * a->shape[d] + idx[d];
	if (b->id < s->nlayouts && s->layouts[b->id]) {
		/* a laid-out global tensor: where its layout puts the element */
		int64_t flat;
		if (!tlc_layout_eval(s->layouts[b->id], idx, &flat) || flat < 0 || flat >= a->numel) {
			sim_fail(s, loc, "the layout of '%s' puts an element outside its %lld elements", b->name,
			         (long long)a->numel);
			return -1;
		}
		e = flat;
	}
	if (a->reg_state && a->reg_state[s->tid] != SIM_REG_READY) {
		char after[160];
		const tlc_loc at = a->reg_issue ? a->reg_issue->loc : (tlc_loc){0};
		if (a->reg_state[s->tid] == SIM_REG_IN_FLIGHT)
			sim_fail(s, loc,
			         "thread %lld accesses '%s' while the WGMMA issued at %u:%u may still be writing it (no "
			         "T.wait_wgmma lets it land before; %s)",
			         (long long)s->tid, b->name, at.line, at.col, sim_after(s, after, sizeof after));
		else
			sim_fail(s, loc,
			         "thread %lld accesses '%s' after T.wait_wgmma with no T.warpgroup_fence_operand(%s) since: the "
			         "compiler may move the access above the wait, racing with the WGMMA issued at %u:%u (%s)",
			         (long long)s->tid, b->name, b->name, at.line, at.col, sim_after(s, after, sizeof after));
		return -1;
	}
	return e + s->tid * a->thread_stride;
}

static sim_val load(sim *s, const tlc_expr *e, tlc_loc loc)
{
	sim_val zero = {0, 0};
	const tlc_buffer *b = e->u.load.buf;
	sim_array *a = sim_array_of(s, b, loc);
	if (!a)
		return zero;
	if (e->u.load.n != a->ndim) {
		sim_fail(s, loc, "'%s' has %d dimensions but is indexed with %d", b->name, a->ndim, e->u.load.n);
		return zero;
	}
	int64_t idx[TLC_SIM_MAX_DIMS];
	for (int d = 0; d < a->ndim; d++)
		idx[d] = sim_eval_int(s, e->u.load.idx[d], loc);
	if (s->stop)
		return zero;
	if (sim_bounds_masked(s, a, b, idx, "load", loc))
		return s->stop ? zero : sim_safe_value(s, b);
	int64_t el = sim_element(s, a, b, idx, loc);
	if (el >= 0 && a->shadow)
		sim_touch(s, a, b, el, 1, false, loc);
	return el < 0 || s->stop ? zero : sim_array_get(a, el);
}

static const char *op_spelling(tlc_expr_kind k)
{
	static const char *const spelling[] = {
#define EXPR(e, sp, arity) sp,
#include <tlc/exprs.def>
#undef EXPR
	};
	if (k == TLC_EXPR_MIN)
		return "T.min";
	if (k == TLC_EXPR_MAX)
		return "T.max";
	if (k == TLC_EXPR_NEG)
		return "negation";
	return (int)k < (int)TLC_ARRAY_LEN(spelling) && *spelling[k] ? spelling[k] : "an operation";
}

/* An operation the language calls an error stops the run. */
static sim_val checked(sim *s, tlc_loc loc, const char *err, sim_val r, const tlc_expr *e, sim_val a, sim_val b)
{
	if (!err)
		return r;
	const tlc_expr *x = e->u.op.a;
	bool fl = tlc_dtype_is_float(x->dtype), uns = x->dtype == TLC_DT_UINT64;
	char va[64], vb[64] = "";
	if (fl)
		snprintf(va, sizeof va, "%.17g", a.f);
	else if (uns)
		snprintf(va, sizeof va, "%llu", (unsigned long long)a.i);
	else
		snprintf(va, sizeof va, "%lld", (long long)a.i);
	if (e->kind != TLC_EXPR_NEG && !fl) {
		if (uns)
			snprintf(vb, sizeof vb, ", %llu", (unsigned long long)b.i);
		else
			snprintf(vb, sizeof vb, ", %lld", (long long)b.i);
	}
	sim_fail(s, loc, "%s in %s of %s (operands %s%s)", err, op_spelling(e->kind), tlc_dtype_name(x->dtype), va,
	         vb);
	return r;
}

static sim_val math_call(sim *s, const tlc_expr *e, tlc_loc loc)
{
	sim_val r = {0, 0};
	const tlc_expr *const *args = e->u.call.args;
	tlc_dtype t = e->dtype;
	if (!tlc_dtype_is_float(t) && e->u.call.op != TLC_OP_ABS) {
		sim_fail(s, loc, "T.%s on %s is not modelled", tlc_op_get(s->ctx, e->u.call.op)->name, tlc_dtype_name(t));
		return r;
	}
	sim_val a = sim_convert(sim_eval(s, args[0], loc), args[0]->dtype, t);
	double x = a.f;
	switch (e->u.call.op) {
	case TLC_OP_EXP: r.f = exp(x); break;
	case TLC_OP_EXP2: r.f = exp2(x); break;
	case TLC_OP_LOG: r.f = log(x); break;
	case TLC_OP_LOG2: r.f = log2(x); break;
	case TLC_OP_SQRT: r.f = sqrt(x); break;
	case TLC_OP_RSQRT: r.f = 1.0 / sqrt(x); break;
	case TLC_OP_ABS: {
		const char *err = tlc_arith_abs(t, a, &r);
		if (err)
			sim_fail(s, loc, "%s in T.abs of %s", err, tlc_dtype_name(t));
		return r;
	}
	case TLC_OP_SIN: r.f = sin(x); break;
	case TLC_OP_COS: r.f = cos(x); break;
	case TLC_OP_TANH: r.f = tanh(x); break;
	case TLC_OP_ERF: r.f = erf(x); break;
	case TLC_OP_SIGMOID: r.f = 1.0 / (1.0 + exp(-x)); break;
	case TLC_OP_FLOOR: r.f = floor(x); break;
	case TLC_OP_CEIL: r.f = ceil(x); break;
	case TLC_OP_POW: r.f = pow(x, sim_convert(sim_eval(s, args[1], loc), args[1]->dtype, t).f); break;
	default:
		sim_fail(s, loc, "T.%s is not modelled by the simulator", tlc_op_get(s->ctx, e->u.call.op)->name);
		return r;
	}
	r.f = tlc_sim_round(t, r.f);
	return r;
}

int64_t sim_thread_coord(const sim *s, int64_t t, int d)
{
	for (int k = 0; k <= d && k < s->f->thread_ndim; k++) {
		int64_t n = 1;
		tlc_expr_as_int(s->f->threads[k], &n);
		if (k == d)
			return t % n;
		t /= n;
	}
	return 0; /* a dimension the block does not have */
}

/* T.shfl_xor(value, mask): value as lane (lane ^ mask) of the warp holds
 * it; T.shfl_down / T.shfl_up(value, delta): as lane lane + delta / lane -
 * delta holds it, or the thread's own value past the warp's ends;
 * T.shfl_idx(value, lane): as lane `lane` holds it.  With a width the warp
 * is split into segments of width lanes: shfl_idx reads in the thread's
 * segment, shfl_down / shfl_xor give the own value past its end, shfl_up
 * before its start (CUDA's __shfl*_sync, HIP's __shfl*).  Every lane of
 * the warp that the block has must run the statement (the printed code
 * shuffles with the full mask): the lane read, and all the others. */
static sim_val shuffle(sim *s, const tlc_expr *e, tlc_loc loc)
{
	sim_val r = {0, 0};
	tlc_op_id op = e->u.call.op;
	const char *name = tlc_op_get(s->ctx, op)->name;
	int64_t lanes = s->warp_size, mask = sim_eval_int(s, e->u.call.args[1], loc), t = s->tid;
	int64_t width = e->u.call.nargs > 2 ? sim_eval_int(s, e->u.call.args[2], loc) : lanes;
	if (s->stop)
		return r;
	if (width < 1 || width > lanes || (width & (width - 1))) {
		sim_fail(s, loc, "T.%s: width %lld is not a power of two from 1 to %lld (the warp's lanes)", name,
		         (long long)width, (long long)lanes);
		return r;
	}
	int64_t lane = t % lanes, seg = lane - lane % width, src;
	bool range = op == TLC_OP_SHFL_IDX ? mask >= 0 && mask < width : mask >= 0 && mask < lanes;
	switch (op) {
	case TLC_OP_SHFL_XOR: src = (lane ^ mask) < seg + width ? lane ^ mask : lane; break;
	case TLC_OP_SHFL_DOWN: src = lane + mask < seg + width ? lane + mask : lane; break;
	case TLC_OP_SHFL_UP: src = lane - mask >= seg ? lane - mask : lane; break;
	default: src = seg + mask; break;
	}
	int64_t partner = t - lane + src;
	if (!range || partner >= s->nthreads || !s->active || !s->active[partner]) {
		sim_fail(s, loc, "T.%s: thread %lld reads lane %lld of its warp, which %s", name, (long long)t,
		         (long long)(partner % lanes), !range || partner >= s->nthreads
		                                           ? "does not exist"
		                                           : "does not run this statement (a divergent shuffle)");
		return r;
	}
	for (int64_t u = t - lane; u < t - lane + lanes && u < s->nthreads; u++)
		if (!s->active[u]) {
			sim_fail(s, loc, "T.%s: lane %lld of the warp of thread %lld does not run this statement: every "
			         "lane of the warp takes part in a shuffle (a divergent shuffle)", name,
			         (long long)(u % lanes), (long long)t);
			return r;
		}
	s->tid = partner;
	r = sim_eval(s, e->u.call.args[0], loc);
	s->tid = t;
	return r;
}

sim_val sim_eval(sim *s, const tlc_expr *e, tlc_loc loc)
{
	sim_val r = {0, 0};
	if (s->stop)
		return r;
	switch (e->kind) {
	case TLC_EXPR_INT: r.i = e->u.ival; return r;
	case TLC_EXPR_FLOAT: r.f = tlc_sim_round(e->dtype, e->u.fval); return r;
	case TLC_EXPR_VAR:
		if (e->u.var->id < s->nvars && s->bound[slot(s, e->u.var, s->tid)])
			return s->vals[slot(s, e->u.var, s->tid)];
		sim_fail(s, loc, "variable '%s' has no value here", e->u.var->name);
		return r;
	case TLC_EXPR_LOAD: return load(s, e, loc);
	case TLC_EXPR_CAST: return sim_convert(sim_eval(s, e->u.op.a, loc), e->u.op.a->dtype, e->dtype);
	case TLC_EXPR_BITCAST:
		return tlc_arith_bitcast(sim_eval(s, e->u.op.a, loc), e->u.op.a->dtype, e->dtype);
	case TLC_EXPR_SELECT: {
		/* only the branch taken is evaluated, as C's ?: does */
		sim_val c = sim_eval(s, e->u.op.a, loc);
		return sim_eval(s, tlc_arith_truth(e->u.op.a->dtype, c) ? e->u.op.b : e->u.op.c, loc);
	}
	case TLC_EXPR_NOT: {
		sim_val a = sim_eval(s, e->u.op.a, loc);
		r.i = !tlc_arith_truth(e->u.op.a->dtype, a);
		return r;
	}
	case TLC_EXPR_NEG: {
		sim_val a = sim_eval(s, e->u.op.a, loc);
		if (s->stop)
			return r;
		return checked(s, loc, tlc_arith_neg(e->dtype, a, &r), r, e, a, a);
	}
	case TLC_EXPR_AND:
	case TLC_EXPR_OR: {
		/* short-circuit, as C's && and || */
		sim_val a = sim_eval(s, e->u.op.a, loc);
		bool x = tlc_arith_truth(e->u.op.a->dtype, a);
		if (x == (e->kind == TLC_EXPR_OR)) {
			r.i = x;
			return r;
		}
		r.i = tlc_arith_truth(e->u.op.b->dtype, sim_eval(s, e->u.op.b, loc));
		return r;
	}
	case TLC_EXPR_EQ:
	case TLC_EXPR_NE:
	case TLC_EXPR_LT:
	case TLC_EXPR_LE:
	case TLC_EXPR_GT:
	case TLC_EXPR_GE: {
		/* both operands have one type (the IR's invariant, tlc_operand_type) */
		sim_val a = sim_eval(s, e->u.op.a, loc), b = sim_eval(s, e->u.op.b, loc);
		r.i = tlc_arith_compare(e->kind, e->u.op.a->dtype, a, b);
		return r;
	}
	case TLC_EXPR_CALL:
		if (s->threaded && (e->u.call.op == TLC_OP_THREAD_IDX || e->u.call.op == TLC_OP_BLOCK_IDX)) {
			/* the thread's index along a dimension of the block (x fastest), or the block's */
			int64_t d = sim_eval_int(s, e->u.call.args[0], loc), t = s->tid;
			if (d < 0 || d > 2) {
				sim_fail(s, loc, "T.%s(%lld): dimensions are 0, 1 and 2", tlc_op_get(s->ctx, e->u.call.op)->name,
				         (long long)d);
				return r;
			}
			if (e->u.call.op == TLC_OP_BLOCK_IDX) {
				r.i = s->block[d];
				return r;
			}
			r.i = sim_thread_coord(s, t, (int)d);
			return r;
		}
		if (s->threaded && e->u.call.op == TLC_OP_BLOCK_RANK_IN_CLUSTER) {
			/* the block's rank in its cluster (0 without clusters) */
			r.i = sim_cluster_of(s) ? s->rank : 0;
			return r;
		}
		if (s->threaded && (e->u.call.op == TLC_OP_SHFL_XOR || e->u.call.op == TLC_OP_SHFL_DOWN ||
		                    e->u.call.op == TLC_OP_SHFL_UP || e->u.call.op == TLC_OP_SHFL_IDX))
			return shuffle(s, e, loc);
		if (e->u.call.op == TLC_OP_RNG_RAND || e->u.call.op == TLC_OP_RNG_RAND_FLOAT)
			return sim_rng_draw(s, e, loc);
		if ((tlc_op_get(s->ctx, e->u.call.op)->flags & TLC_OPF_PURE) &&
		    !(tlc_op_get(s->ctx, e->u.call.op)->flags & TLC_OPF_LOWERED))
			return math_call(s, e, loc);
		sim_fail(s, loc, "T.%s is not modelled by the simulator at this level",
		         tlc_op_get(s->ctx, e->u.call.op)->name);
		return r;
	default: break;
	}
	if (tlc_expr_num_children(e) == 2 && e->kind >= TLC_EXPR_ADD && e->kind <= TLC_EXPR_SHR) {
		sim_val a = sim_eval(s, e->u.op.a, loc), b = sim_eval(s, e->u.op.b, loc);
		if (s->stop)
			return r;
		return checked(s, loc, tlc_arith_binary(e->kind, e->dtype, a, b, &r), r, e, a, b);
	}
	sim_fail(s, loc, "this expression is not modelled by the simulator");
	return r;
}

int64_t sim_eval_int(sim *s, const tlc_expr *e, tlc_loc loc)
{
	sim_val v = sim_eval(s, e, loc);
	return tlc_dtype_is_float(e->dtype) ? sim_float_to_int(TLC_DT_INT64, v.f) : v.i;
}
