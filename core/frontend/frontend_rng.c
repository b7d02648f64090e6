/* frontend_rng.c - TileLang's random numbers: T.rng_init(seed, seq=None,
 * off=0, generator=...), T.rng_rand() and T.rng_rand_float(bit=32,
 * dist="uniform").  Each thread has one generator, cuRAND's
 * Philox4x32-10 as curand_init(seed, seq, off) starts it; the calls
 * become T.rng_init / T.rng_rand / T.rng_rand_float (include/tlc/ops.def),
 * which the targets print with a helper of their own and tlc-sim runs
 * with the same bits. */
#include "frontend.h"

#include <string.h>

#define PHILOX "curandStatePhilox4_32_10_t"

bool fe_rng_has(const char *name)
{
	return !strcmp(name, "rng_init") || !strcmp(name, "rng_rand") ||
	       !strcmp(name, "rng_rand_float");
}

/* The thread's or block's index variable of dimension d, made as
 * T.get_thread_binding(d) / T.get_block_binding(d) make it. */
static const tlc_expr *index_var(fe *F, bool thread, int d)
{
	tlc_func *f = F->kernel->func;
	tlc_var **v = thread ? &f->thread_vars[d] : &f->block_vars[d];
	static const char *const names[2][3] = {{"bx", "by", "bz"}, {"tx", "ty", "tz"}};
	if (!*v)
		*v = tlc_var_new(F->m, fe_hint(F, names[thread][d]), TLC_DT_INT32);
	return tlc_var_ref(F->m, *v);
}

/* TileLang's default seq: the thread's index in the grid, every block and
 * thread dimension flattened with x fastest (blocks outside, threads
 * inside): bx * threads_x + tx for a 1-D launch. */
static const tlc_expr *default_seq(fe *F)
{
	tlc_func *f = F->kernel->func;
	const tlc_expr *id = NULL;
	for (int pass = 0; pass < 2; pass++) {
		bool thread = pass == 1;
		int n = thread ? f->thread_ndim : f->grid_ndim;
		for (int d = n - 1; d >= 0; d--) {
			const tlc_expr *ext = thread ? f->threads[d] : f->grid[d];
			const tlc_expr *v = index_var(F, thread, d);
			id = id ? tlc_binary(F->m, TLC_EXPR_ADD,
					     tlc_binary(F->m, TLC_EXPR_MUL, id, ext), v)
				: v;
		}
	}
	return tlc_simplify_expr(F->m, id);
}

/* An integer operand of T.rng_init (curand_init's unsigned long long). */
static const tlc_expr *int_operand(fe *F, const char *what, fe_val *v, tlc_loc loc)
{
	const tlc_expr *e = fe_to_expr(F, v, loc);
	if (!e)
		return NULL;
	if (!tlc_dtype_is_int(e->dtype)) {
		tlc_error(F->ctx, loc, "T.rng_init: %s must be an integer, got %s of type %s", what,
			  fe_show(F, v), tlc_dtype_name(e->dtype));
		return NULL;
	}
	return e;
}

static fe_val *rng_init(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
			tlc_loc loc)
{
	static const char *const names[] = {"seed", "seq", "off", "generator"};
	fe_val *a[4] = {0};
	if (!fe_bind_args(F, "T.rng_init", names, 4, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.rng_init", true, loc))
		return NULL;
	if (a[3] && a[3]->kind != FV_NONE) {
		if (a[3]->kind != FV_STR) {
			tlc_error(F->ctx, loc,
				  "T.rng_init(generator=...) takes a cuRAND state type name "
				  "as a string, got %s",
				  fe_show(F, a[3]));
			return NULL;
		}
		const char *g = a[3]->u.s;
		if (!strcmp(g, "curandStateXORWOW_t") || !strcmp(g, "curandStateMRG32k3a_t")) {
			/* their skip-ahead needs cuRAND's precomputed matrices */
			tlc_error(F->ctx, loc,
				  "T.rng_init(generator=\"%s\") is not supported: tlc makes "
				  "cuRAND's Philox4x32-10 sequence only, on every target and in "
				  "tlc-sim; "
				  "leave generator out (its default is \"" PHILOX "\")",
				  g);
			return NULL;
		}
		if (strcmp(g, PHILOX)) {
			tlc_error(F->ctx, loc,
				  "T.rng_init(generator=\"%s\"): TileLang's generators are "
				  "\"curandStateMRG32k3a_t\", \"" PHILOX
				  "\" and \"curandStateXORWOW_t\"; "
				  "tlc makes \"" PHILOX "\"",
				  g);
			return NULL;
		}
	}
	const tlc_expr *ops[3];
	ops[0] = int_operand(F, "seed", a[0], loc);
	if (!ops[0])
		return NULL;
	if (a[1] && a[1]->kind != FV_NONE)
		ops[1] = int_operand(F, "seq", a[1], loc);
	else
		ops[1] = default_seq(F);
	ops[2] =
		a[2] && a[2]->kind != FV_NONE ? int_operand(F, "off", a[2], loc) : tlc_i32(F->m, 0);
	if (!ops[1] || !ops[2])
		return NULL;
	fe_emit(F,
		tlc_eval_new(F->m, loc,
			     tlc_call(F->m, TLC_OP_RNG_INIT, TLC_DT_VOID, 3, ops, 0, NULL, NULL)));
	F->kernel->rng_init = true;
	return F->none;
}

/* TileLang refuses a draw before any T.rng_init (its state would be
 * uninitialized memory). */
static bool need_init(fe *F, const char *fname, tlc_loc loc)
{
	if (!fe_need_kernel(F, fname, true, loc))
		return false;
	if (F->kernel->rng_init)
		return true;
	tlc_error(F->ctx, loc,
		  "%s requires a preceding `T.rng_init(...)` in the kernel, which "
		  "starts the thread's generator",
		  fname);
	return false;
}

static fe_val *rng_rand_float(fe *F, int nargs, fe_val **args, int nkw, const char **kwn,
			      fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"bit", "dist"};
	fe_val *a[2] = {0};
	int64_t bit = 32;
	const char *dist = "uniform";
	if (!fe_bind_args(F, "T.rng_rand_float", names, 2, 0, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[0] && a[0]->kind != FV_NONE && !fe_const_int(F, a[0], "bit", loc, &bit))
		return NULL;
	if (bit != 32 && bit != 64) {
		tlc_error(F->ctx, loc,
			  "T.rng_rand_float(bit=%lld): bit is 32 (float32) or 64 (float64)",
			  (long long)bit);
		return NULL;
	}
	if (a[1] && a[1]->kind != FV_NONE) {
		if (a[1]->kind != FV_STR ||
		    (strcmp(a[1]->u.s, "uniform") && strcmp(a[1]->u.s, "normal"))) {
			tlc_error(F->ctx, loc,
				  "T.rng_rand_float(dist=%s): dist is \"uniform\" or \"normal\"",
				  fe_show(F, a[1]));
			return NULL;
		}
		dist = a[1]->u.s;
	}
	if (!need_init(F, "T.rng_rand_float", loc))
		return NULL;
	const char *kn[2] = {tlc_intern(F->m, "bit"), tlc_intern(F->m, "dist")};
	const tlc_expr *kv[2] = {tlc_i32(F->m, bit), tlc_str(F->m, dist)};
	return fe_expr(F,
		       tlc_call(F->m, TLC_OP_RNG_RAND_FLOAT,
				bit == 64 ? TLC_DT_FLOAT64 : TLC_DT_FLOAT32, 0, NULL, 2, kn, kv));
}

fe_val *fe_call_rng(fe *F, const char *n, int nargs, fe_val **args, int nkw, const char **kwn,
		    fe_val **kwv, tlc_loc loc)
{
	if (!strcmp(n, "rng_init"))
		return rng_init(F, nargs, args, nkw, kwn, kwv, loc);
	if (!strcmp(n, "rng_rand_float"))
		return rng_rand_float(F, nargs, args, nkw, kwn, kwv, loc);
	if (!fe_bind_args(F, "T.rng_rand", NULL, 0, 0, nargs, args, nkw, kwn, kwv, NULL, loc) ||
	    !need_init(F, "T.rng_rand", loc))
		return NULL;
	return fe_expr(F, tlc_call(F->m, TLC_OP_RNG_RAND, TLC_DT_UINT32, 0, NULL, 0, NULL, NULL));
}
