/* frontend_misc.c - smaller T.* functions of TileLang's surface: the
 * extreme values of a dtype (T.max_value, T.min_value), bit casts
 * (T.reinterpret, frontend_tvm.c), the element
 * atomics other than add (T.atomic_max, T.atomic_min), and the calls tlc
 * refuses by name with what to write instead (vector atomics, atomic
 * loads and stores, device assertions), and T.loop_break() /
 * T.loop_continue(), the call forms of break and continue. */
#include "frontend.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Refused constructs: the name and what the message says after "T.<name>
 * is not supported yet". */
static const struct {
	const char *name, *why;
} refused[] = {
	{"atomic_addx2",
	 "(a vector atomic add of 2 elements); write T.atomic_add once per element, or "
	 "the tile form T.atomic_add(dst_region, src_region), whose float32 runs become "
	 "vector atomics where the target has them"},
	{"atomic_addx4",
	 "(a vector atomic add of 4 elements); write T.atomic_add once per element, or "
	 "the tile form T.atomic_add(dst_region, src_region), whose float32 runs become "
	 "vector atomics where the target has them"},
	{"atomic_load",
	 "(an atomic load with a memory order); read the element, with T.sync_threads() "
	 "between the writers and the readers of one block"},
	{"atomic_store", "(an atomic store with a memory order); store the element, with "
			 "T.sync_threads() between the writers and the readers of one block"},
	{"device_assert",
	 "(a device-side assertion); check the condition on the host, or guard the code "
	 "with `if cond:`"},
};

static const char *const misc_names[] = {"max_value", "min_value", "atomic_max", "atomic_min",
					"reinterpret", "loop_break", "loop_continue"};

bool fe_misc_has(const char *name)
{
	if (fe_rng_has(name))
		return true;
	for (size_t i = 0; i < TLC_ARRAY_LEN(misc_names); i++)
		if (strcmp(misc_names[i], name) == 0)
			return true;
	for (size_t i = 0; i < TLC_ARRAY_LEN(refused); i++)
		if (strcmp(refused[i].name, name) == 0)
			return true;
	return false;
}

/* The largest finite value of a float dtype (the smallest is its
 * negation: the formats are sign-magnitude). */
static double float_max(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_FLOAT8_E4M3:
		return 448.0;
	case TLC_DT_FLOAT8_E4M3FNUZ:
		return 240.0;
	case TLC_DT_FLOAT8_E5M2:
	case TLC_DT_FLOAT8_E5M2FNUZ:
		return 57344.0;
	case TLC_DT_FLOAT16:
		return 65504.0;
	case TLC_DT_BFLOAT16:
		return 3.3895313892515355e38; /* (2 - 2^-7) * 2^127 */
	case TLC_DT_FLOAT32:
		return FLT_MAX;
	default:
		return DBL_MAX;
	}
}

/* T.max_value(dtype) / T.min_value(dtype): as tvm.tir's, the largest and
 * the lowest finite value of the dtype, a constant of that dtype. */
static fe_val *extreme_value(fe *F, const char *fname, bool max, int nargs, fe_val **args, int nkw,
			     const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"dtype"};
	fe_val *a[1];
	tlc_dtype t;
	if (!fe_bind_args(F, fname, names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_to_dtype(F, a[0], loc, &t))
		return NULL;
	if (tlc_dtype_is_float(t)) {
		double v = float_max(t);
		return fe_typed_const(F, tlc_float(F->m, t, max ? v : -v));
	}
	int bits = tlc_dtype_bits(t);
	if (t == TLC_DT_BOOL)
		return fe_typed_const(F, tlc_bool(F->m, max));
	if (tlc_dtype_is_unsigned(t)) {
		if (max && bits == 64) {
			tlc_error(
				F->ctx, loc,
				"%s(\"uint64\") is not supported yet: tlc's constants hold at most "
				"2**63 - 1; use T.max_value(\"int64\") or a smaller unsigned dtype",
				fname);
			return NULL;
		}
		return fe_typed_const(
			F, tlc_int(F->m, t, max ? (int64_t)((UINT64_C(1) << bits) - 1) : 0));
	}
	if (!tlc_dtype_is_int(t)) {
		tlc_error(F->ctx, loc, "%s: %s has no extreme values", fname, tlc_dtype_name(t));
		return NULL;
	}
	int64_t hi = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
	return fe_typed_const(F, tlc_int(F->m, t, max ? hi : -hi - 1));
}

bool fe_atomic_element_check(fe *F, const char *fname, const tlc_expr *call, bool prev, tlc_loc loc)
{
	const tlc_expr *d = call->u.call.args[0], *old = tlc_call_kw(call, "old");
	if (d->kind != TLC_EXPR_LOAD) {
		tlc_error(F->ctx, loc, "%s(%s) is of one element, %s(C[i], v, return_prev=True): the "
			  "tile form has no previous value (TileLang refuses it too); read the tile "
			  "before the add where no other thread updates it", fname,
			  prev ? "return_prev=True" : "old=", fname);
		return false;
	}
	if (prev && old) {
		tlc_error(F->ctx, loc, "%s: give return_prev=True or old=, not both", fname);
		return false;
	}
	if (old && (old->kind != TLC_EXPR_LOAD || old->dtype != d->dtype ||
		    (old->u.load.buf->scope != TLC_SCOPE_VAR && old->u.load.buf->scope != TLC_SCOPE_LOCAL))) {
		tlc_error(F->ctx, loc, "%s(old=x): x must be an element of a T.alloc_var or T.alloc_local "
			  "buffer of the destination's dtype %s, where the previous value goes", fname,
			  tlc_dtype_name(d->dtype));
		return false;
	}
	return true;
}

fe_val *fe_atomic_prev(fe *F, const tlc_expr *call, tlc_loc loc)
{
	const tlc_expr *d = call->u.call.args[0], *zero = tlc_i32(F->m, 0), *one = tlc_i32(F->m, 1);
	tlc_buffer *b = tlc_buffer_new(F->m, "prev", d->dtype, TLC_SCOPE_VAR, 1, &one, loc);
	/* an atomic that the bounds semantics drops (its element outside the
	 * tensor) changes nothing and returns 0, as a masked load reads */
	b->init = tlc_alloc(F->m, sizeof(tlc_expr *));
	b->init[0] = tlc_dtype_is_float(d->dtype) ? tlc_float(F->m, d->dtype, 0.0) : tlc_int(F->m, d->dtype, 0);
	b->ninit = 1;
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	int nk = call->u.call.nkw;
	const char **kn = fe_alloc(F, sizeof(char *) * (size_t)(nk + 1));
	const tlc_expr **kv = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(nk + 1));
	for (int k = 0; k < nk; k++) {
		kn[k] = call->u.call.kw_names[k];
		kv[k] = call->u.call.kw_values[k];
	}
	const tlc_expr *at = tlc_load(F->m, b, 1, &zero);
	kn[nk] = tlc_intern(F->m, "old");
	kv[nk] = at;
	fe_emit(F, tlc_eval_new(F->m, loc, tlc_call(F->m, call->u.call.op, TLC_DT_VOID, call->u.call.nargs,
						    call->u.call.args, nk + 1, kn, kv)));
	return fe_expr(F, at);
}

/* T.atomic_max(dst, value, memory_order=None, return_prev=False) and
 * T.atomic_min: one element of global or shared memory, the value
 * converted to its dtype; tlc's atomics are relaxed.  With return_prev=True
 * the value of the call is the element before the update. */
static fe_val *atomic_minmax(fe *F, const char *fname, bool max, int nargs, fe_val **args, int nkw,
			     const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"dst", "value", "memory_order", "return_prev", "old"};
	fe_val *a[5] = {0};
	bool prev = false;
	if (!fe_bind_args(F, fname, names, 5, 2, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, fname, true, loc))
		return NULL;
	if (a[2] && a[2]->kind != FV_NONE &&
	    (a[2]->kind != FV_STR || strcmp(a[2]->u.s, "relaxed"))) {
		tlc_error(F->ctx, loc,
			  "%s(memory_order=%s%s%s) is not supported: tlc's atomics are relaxed; "
			  "order them "
			  "with a barrier (T.sync_threads) or drop memory_order",
			  fname, a[2]->kind == FV_STR ? "\"" : "", fe_show(F, a[2]),
			  a[2]->kind == FV_STR ? "\"" : "");
		return NULL;
	}
	if (a[3] && a[3]->kind != FV_NONE && !fe_truthy(F, a[3], loc, &prev))
		return NULL;
	const tlc_expr *d = a[0]->kind == FV_EXPR ? a[0]->u.e : NULL;
	if (!d || d->kind != TLC_EXPR_LOAD) {
		tlc_error(F->ctx, loc, "%s takes one element, %s(C[i, j], v), not %s", fname, fname,
			  fe_show(F, a[0]));
		return NULL;
	}
	tlc_scope sc = d->u.load.buf->scope;
	if (sc != TLC_SCOPE_GLOBAL && sc != TLC_SCOPE_SHARED && sc != TLC_SCOPE_SHARED_DYN) {
		tlc_error(F->ctx, loc,
			  "%s of an element of %s buffer '%s': atomics are of global or shared "
			  "memory; "
			  "each thread owns its own registers, update them with T.%s",
			  fname, tlc_scope_name(sc), d->u.load.buf->name, max ? "max" : "min");
		return NULL;
	}
	const tlc_expr *v = fe_scalar_as(F, a[1], d->dtype, loc);
	if (!v)
		return NULL;
	const tlc_expr *ca[2] = {d, v}, *old = NULL;
	const char *old_name = tlc_intern(F->m, "old");
	if (a[4] && a[4]->kind != FV_NONE && !(old = fe_to_expr(F, a[4], loc)))
		return NULL;
	const tlc_expr *call = tlc_call(F->m, max ? TLC_OP_ATOMIC_MAX : TLC_OP_ATOMIC_MIN, TLC_DT_VOID,
					2, ca, old ? 1 : 0, &old_name, &old);
	if ((prev || old) && !fe_atomic_element_check(F, fname, call, prev, loc))
		return NULL;
	if (prev)
		return fe_atomic_prev(F, call, loc);
	fe_emit(F, tlc_eval_new(F->m, loc, call));
	return F->none;
}

fe_val *fe_call_misc(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
		     fe_val **kwv, tlc_loc loc)
{
	char fname[96];
	snprintf(fname, sizeof fname, "T.%s", n);
	if (fe_rng_has(n))
		return fe_call_rng(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (!strcmp(n, "max_value") || !strcmp(n, "min_value"))
		return extreme_value(F, fname, n[1] == 'a', nargs, args, nkw, kwn, kwv, loc);
	if (!strcmp(n, "reinterpret"))
		return fe_reinterpret(F, fname, false, nargs, args, nkw, kwn, kwv, loc);
	if (!strcmp(n, "loop_break") || !strcmp(n, "loop_continue")) {
		bool brk = n[5] == 'b';
		if (!fe_bind_args(F, fname, NULL, 0, 0, nargs, args, nkw, kwn, kwv, NULL, loc) ||
		    !fe_need_kernel(F, fname, true, loc))
			return NULL;
		if (F->loop_kind != FE_LOOP_KERNEL && F->loop_kind != FE_LOOP_REFUSED) {
			tlc_error(F->ctx, loc, "%s() leaves a kernel loop, and none is around it%s", fname,
				  F->loop_kind == FE_LOOP_PYTHON ? " (this loop runs at compile time: "
								   "write `break` or `continue`)" : "");
			return NULL;
		}
		/* as the statement does, but the rest of the block is still built
		 * (it never runs: the same program) */
		return fe_loop_exit(F, brk, loc) == FL_ERROR ? NULL : F->none;
	}
	if (!strcmp(n, "atomic_max") || !strcmp(n, "atomic_min"))
		return atomic_minmax(F, fname, n[8] == 'a', nargs, args, nkw, kwn, kwv, loc);
	for (size_t i = 0; i < TLC_ARRAY_LEN(refused); i++)
		if (strcmp(refused[i].name, n) == 0) {
			tlc_error(F->ctx, loc, "%s is not supported yet %s", fname, refused[i].why);
			return NULL;
		}
	tlc_error(F->ctx, loc, "unknown T.* function '%s'", fname);
	return NULL;
}
