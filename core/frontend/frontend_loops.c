/* frontend_loops.c - kernel loops (T.Parallel, T.Pipelined, serial, unroll,
 * vectorized, thread_binding), the T.Kernel frame and `with` scopes. */
#include "frontend.h"

#include <tlc/walk.h>

#include <string.h>

/* ---- loops ---- */

static fe_val *new_loop(fe *F, tlc_for_kind kind, int n)
{
	fe_val *v = fe_new(F, FV_LOOP);
	v->u.loop = fe_alloc(F, sizeof(fe_loop));
	v->u.loop->kind = kind;
	v->u.loop->n = n;
	v->u.loop->min = fe_alloc(F, sizeof(tlc_expr *) * (size_t)n);
	v->u.loop->extent = fe_alloc(F, sizeof(tlc_expr *) * (size_t)n);
	return v;
}

/* (start, stop[, step]) -> min, extent (the trip count), *step_out.  A step
 * is a non-zero compile-time integer (TileLang's SerialForWithStep): the
 * loop runs start, start + step, ... while short of stop, so its trip count
 * is ceil((stop - start) / step), none when that is not positive. */
static bool loop_bounds_step(fe *F, fe_val *start, fe_val *stop, fe_val *step, tlc_loc loc,
                             const tlc_expr **min, const tlc_expr **extent, int64_t *step_out)
{
	int64_t s = 1, a, b;
	if (step && step->kind != FV_NONE) {
		if (step->kind == FV_BOOL || !fe_as_int(step, &s) || s == 0 || s < INT32_MIN ||
		    s > INT32_MAX) {
			tlc_error(F->ctx, loc, "a loop step must be a non-zero compile-time integer, got '%s' "
			          "(write a loop of step 1 and compute the index from its variable)",
			          fe_show(F, step));
			return false;
		}
		if (!step_out && s != 1) {
			tlc_error(F->ctx, loc, "this loop takes no step other than 1 (T.serial and T.unroll "
			          "take one)");
			return false;
		}
	}
	if (step_out)
		*step_out = s == 1 ? 0 : s;
	if (!stop || stop->kind == FV_NONE) {
		stop = start;
		start = fe_int(F, 0);
	}
	if (fe_as_int(start, &a) && fe_as_int(stop, &b)) {
		/* loop variables are int32: a bound or trip count past it would wrap */
		if (a < INT32_MIN || a > INT32_MAX || b < INT32_MIN || b > INT32_MAX ||
		    (b > a && b - a > INT32_MAX)) {
			tlc_error(F->ctx, loc, "loop range [%lld, %lld) does not fit a 32-bit loop variable (bounds and "
			          "trip count up to 2^31 - 1)", (long long)a, (long long)b);
			return false;
		}
		int64_t n = s > 0 ? (b > a ? (b - a + s - 1) / s : 0) : (a > b ? (a - b - s - 1) / -s : 0);
		*min = tlc_i32(F->m, a);
		*extent = tlc_i32(F->m, n);
		return true;
	}
	const tlc_expr *x = fe_to_scalar(F, start, loc), *y = x ? fe_to_scalar(F, stop, loc) : NULL;
	if (!y)
		return false;
	*min = x;
	*extent = fe_as_int(start, &a) && a == 0 ? y
	                                         : tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_SUB, y, x));
	if (s != 1) {
		/* floor((d + s - 1) / s) for s > 0, floor((-d - s - 1) / -s) for s < 0;
		 * a count below 0 runs the loop no time, as an empty range does */
		tlc_module *m = F->m;
		const tlc_expr *d = *extent;
		if (s < 0)
			d = tlc_binary(m, TLC_EXPR_SUB, tlc_int(m, d->dtype, 0), d);
		int64_t as = s < 0 ? -s : s;
		*extent = tlc_simplify_expr(
		    m, tlc_binary(m, TLC_EXPR_FLOORDIV, tlc_binary(m, TLC_EXPR_ADD, d, tlc_int(m, d->dtype, as - 1)),
		                  tlc_int(m, d->dtype, as)));
		*extent = tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_MAX, *extent, tlc_int(m, d->dtype, 0)));
	}
	return true;
}

/* (start, stop) -> min, extent */
static bool loop_bounds(fe *F, fe_val *start, fe_val *stop, fe_val *step, tlc_loc loc,
                        const tlc_expr **min, const tlc_expr **extent)
{
	return loop_bounds_step(F, start, stop, step, loc, min, extent, NULL);
}

static bool int_list(fe *F, fe_val *v, const char *what, tlc_loc loc, int *n, const int **out)
{
	fe_val *it = v->kind == FV_LIST || v->kind == FV_TUPLE ? v : NULL;
	if (!it) {
		tlc_error(F->ctx, loc, "%s must be a list of integers", what);
		return false;
	}
	int *r = tlc_alloc(F->m, sizeof(int) * (size_t)(it->u.seq.n + 1));
	for (int i = 0; i < it->u.seq.n; i++) {
		int64_t x;
		if (!fe_const_int(F, it->u.seq.items[i], what, loc, &x))
			return false;
		r[i] = (int)x;
	}
	*n = it->u.seq.n;
	*out = r;
	return true;
}

fe_val *fe_pipelined(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                         tlc_loc loc)
{
	static const char *const names[] = {"start", "stop", "num_stages", "order", "stage", "group"};
	fe_val *a[6];
	if (!fe_bind_args(F, "T.Pipelined", names, 6, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	fe_val *v = new_loop(F, TLC_FOR_PIPELINED, 1);
	if (!loop_bounds(F, a[0], a[1], NULL, loc, &v->u.loop->min[0], &v->u.loop->extent[0]))
		return NULL;
	tlc_pipeline_info *p = &v->u.loop->pipe;
	int64_t ns = 0;
	if (a[2] && !fe_const_int(F, a[2], "num_stages", loc, &ns))
		return NULL;
	if (ns < 0 || ns > 64) {
		tlc_error(F->ctx, loc, "num_stages must be between 0 and 64, got %lld", (long long)ns);
		return NULL;
	}
	p->num_stages = (int)ns;
	if (a[3] && !int_list(F, a[3], "order", loc, &p->n_order, &p->order))
		return NULL;
	if (a[4] && !int_list(F, a[4], "stage", loc, &p->n_stage, &p->stage))
		return NULL;
	if (a[3] && a[4] && p->n_order != p->n_stage) {
		tlc_error(F->ctx, loc, "order has %d entries but stage has %d", p->n_order, p->n_stage);
		return NULL;
	}
	if (a[5]) {
		fe_val *g = a[5];
		if (g->kind != FV_LIST && g->kind != FV_TUPLE) {
			tlc_error(F->ctx, loc, "group must be a list of lists of integers");
			return NULL;
		}
		int *lens = tlc_alloc(F->m, sizeof(int) * (size_t)(g->u.seq.n + 1));
		const int **groups = tlc_alloc(F->m, sizeof(int *) * (size_t)(g->u.seq.n + 1));
		for (int i = 0; i < g->u.seq.n; i++)
			if (!int_list(F, g->u.seq.items[i], "group", loc, &lens[i], &groups[i]))
				return NULL;
		p->n_group = g->u.seq.n;
		p->group_len = lens;
		p->group = groups;
	}
	return v;
}

/* T.Persistent(domain, wave_size, index, group_size=8): the tiles of
 * `domain` (a list of extents) for a persistent kernel, whose `wave_size`
 * blocks (the SM count, say) each take the tiles index, index + wave_size,
 * index + 2 wave_size, ... of the domain in row-major order; the loop
 * variables are the tile's coordinates.  TileLang's group_size only
 * reorders the tiles for L2 locality: accepted, and the order here stays
 * row-major (every tile is still visited once, by one block). */
fe_val *fe_persistent_loop(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                           tlc_loc loc)
{
	static const char *const names[] = {"domain", "wave_size", "index", "group_size"};
	fe_val *a[4];
	if (!fe_bind_args(F, "T.Persistent", names, 4, 3, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	fe_val *dom = a[0]->kind == FV_TUPLE || a[0]->kind == FV_LIST ? a[0] : NULL;
	if (!dom || dom->u.seq.n < 1 || dom->u.seq.n > 8) {
		tlc_error(F->ctx, loc, "T.Persistent: the domain must be a list of 1 to 8 extents");
		return NULL;
	}
	fe_val *v = new_loop(F, TLC_FOR_SERIAL, dom->u.seq.n);
	for (int i = 0; i < dom->u.seq.n; i++) {
		v->u.loop->min[i] = tlc_i32(F->m, 0);
		if (!(v->u.loop->extent[i] = fe_to_scalar(F, dom->u.seq.items[i], loc)))
			return NULL;
	}
	if (!(v->u.loop->wave = fe_to_scalar(F, a[1], loc)) || !(v->u.loop->index = fe_to_scalar(F, a[2], loc)))
		return NULL;
	return v;
}

/* The statement of a T.Persistent loop over `body`, which uses vars (the
 * tile's coordinates):
 *     for w in T.serial(ceildiv(total, wave)):
 *         t = w * wave + index
 *         if t < total:
 *             c0 = t // (e1 * ... ); ...; c_{n-1} = t % e_{n-1}
 *             <body> */
static tlc_stmt *persistent_loop(fe *F, const fe_loop *L, tlc_var **vars, tlc_stmt *body, tlc_loc loc)
{
	tlc_module *m = F->m;
	const tlc_expr *total = L->extent[0];
	for (int i = 1; i < L->n; i++)
		total = tlc_binary(m, TLC_EXPR_MUL, total, L->extent[i]);
	total = tlc_simplify_expr(m, total);
	tlc_var *w = tlc_var_new(m, "w", TLC_DT_INT32), *t = tlc_var_new(m, "tile", TLC_DT_INT32);
	const tlc_expr *waves = tlc_simplify_expr(
	    m, tlc_binary(m, TLC_EXPR_FLOORDIV,
	                  tlc_binary(m, TLC_EXPR_ADD, total, tlc_binary(m, TLC_EXPR_SUB, L->wave, tlc_i32(m, 1))), L->wave));
	tlc_stmt *inner = tlc_seq_new(m, loc);
	const tlc_expr *rest = tlc_var_ref(m, t);
	for (int i = L->n - 1; i >= 0; i--) { /* the last coordinate varies fastest */
		const tlc_expr *c = i ? tlc_binary(m, TLC_EXPR_FLOORMOD, rest, L->extent[i]) : rest;
		tlc_seq_append(m, inner, tlc_let_new(m, loc, vars[i], tlc_simplify_expr(m, c)));
		if (i)
			rest = tlc_binary(m, TLC_EXPR_FLOORDIV, rest, L->extent[i]);
	}
	/* the LETs above were made innermost first: put them outermost first */
	for (int a = 0, b = inner->u.seq.n - 1; a < b; a++, b--) {
		tlc_stmt *x = inner->u.seq.items[a];
		inner->u.seq.items[a] = inner->u.seq.items[b];
		inner->u.seq.items[b] = x;
	}
	tlc_seq_append(m, inner, body);
	tlc_stmt *wbody = tlc_seq_new(m, loc);
	tlc_seq_append(m, wbody,
	               tlc_let_new(m, loc, t,
	                           tlc_simplify_expr(m, tlc_binary(m, TLC_EXPR_ADD,
	                                                           tlc_binary(m, TLC_EXPR_MUL, tlc_var_ref(m, w), L->wave),
	                                                           L->index))));
	tlc_seq_append(m, wbody, tlc_if_new(m, loc, tlc_binary(m, TLC_EXPR_LT, tlc_var_ref(m, t), total), inner, NULL));
	return tlc_for_new(m, loc, w, tlc_i32(m, 0), waves, TLC_FOR_SERIAL, wbody);
}

/* TVM's loop annotations on T.serial / T.unroll / T.vectorized / T.parallel:
 * the unrolling hints only change how the loop is compiled, so they are
 * taken and dropped; another key may carry a meaning tlc would lose. */
static bool loop_annotations(fe *F, const char *fname, fe_val *x, tlc_loc loc)
{
	static const char *const known[] = {"pragma_unroll_explicit", "pragma_unroll_factor"};
	if (!x || x->kind == FV_NONE)
		return true;
	if (x->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "annotations of %s must be a dict of string keys, got '%s'", fname,
		          fe_show(F, x));
		return false;
	}
	for (int i = 0; i < x->u.dict.n; i++) {
		fe_val *key = x->u.dict.keys[i];
		bool ok = false;
		for (size_t j = 0; key->kind == FV_STR && j < TLC_ARRAY_LEN(known); j++)
			ok = ok || strcmp(key->u.s, known[j]) == 0;
		if (!ok) {
			tlc_error(F->ctx, loc, "%s annotation '%s' is not supported; tlc takes %s and %s "
			          "(unrolling hints) and no other", fname, fe_show(F, key), known[0], known[1]);
			return false;
		}
	}
	return true;
}

fe_val *fe_simple_loop(fe *F, const char *fname, tlc_for_kind kind, int nargs, fe_val **args,
                           int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	/* TileLang: serial/unroll(start, stop=None, step=None, *, annotations)
	 * (unroll also explicit=, unroll_factor=: hints), vectorized(start,
	 * stop=None, *, annotations) */
	static const char *const names[] = {"start", "stop", "step", "annotations", "explicit",
	                                    "unroll_factor"};
	static const char *const vnames[] = {"start", "stop", "annotations"};
	fe_val *a[6] = {NULL};
	int npos = kind == TLC_FOR_VECTORIZED ? 2 : 3; /* the rest are keyword-only */
	if (kind != TLC_FOR_THREAD && nargs > npos) {
		tlc_error(F->ctx, loc, "%s takes %s, got %d positional arguments", fname,
		          npos == 2 ? "(start, stop) and no step" : "(start, stop, step)", nargs);
		return NULL;
	}
	if (kind == TLC_FOR_THREAD) {
		/* T.thread_binding(extent, thread="threadIdx.x") */
		static const char *const tn[] = {"start", "stop", "thread"};
		if (!fe_bind_args(F, fname, tn, 3, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		a[5] = a[2];
		a[2] = NULL;
	} else if (kind == TLC_FOR_VECTORIZED) {
		if (!fe_bind_args(F, fname, vnames, 3, 1, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		a[3] = a[2];
		a[2] = NULL;
	} else if (!fe_bind_args(F, fname, names, kind == TLC_FOR_UNROLLED ? 6 : 4, 1, nargs, args,
	                         nkw, kwn, kwv, a, loc)) {
		return NULL;
	}
	if (kind != TLC_FOR_THREAD && !loop_annotations(F, fname, a[3], loc))
		return NULL;
	fe_val *v = new_loop(F, kind, 1);
	bool stepped = kind == TLC_FOR_SERIAL || kind == TLC_FOR_UNROLLED;
	if (!loop_bounds_step(F, a[0], a[1], a[2], loc, &v->u.loop->min[0], &v->u.loop->extent[0],
	                      stepped ? &v->u.loop->step : NULL))
		return NULL;
	if (kind == TLC_FOR_THREAD) {
		const char *t = a[5] && a[5]->kind == FV_STR ? a[5]->u.s : "";
		if (strcmp(t, "threadIdx.x") && strcmp(t, "threadIdx.y") && strcmp(t, "threadIdx.z")) {
			tlc_error(F->ctx, loc, "T.thread_binding needs thread=\"threadIdx.x|y|z\"");
			return NULL;
		}
		v->u.loop->thread_dim = t[10] - 'x'; /* "threadIdx." is 10 characters */
	}
	return v;
}

/* T.parallel(start, stop=None, *, annotations=None): TVM's parallel loop
 * kind, which TileLang lowers as it lowers T.Parallel (a tile-parallel
 * loop of one dimension): the same loop as T.Parallel(n) or
 * T.Parallel((start, stop)). */
fe_val *fe_parallel_tir(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc)
{
	static const char *const names[] = {"start", "stop", "annotations"};
	fe_val *a[3];
	if (!fe_bind_args(F, "T.parallel", names, 3, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	fe_val *ext = a[0];
	if (a[1] && a[1]->kind != FV_NONE) {
		ext = fe_seq(F, FV_TUPLE, 2);
		ext->u.seq.items[0] = a[0];
		ext->u.seq.items[1] = a[1];
	}
	const char *akw[] = {"annotations"};
	fe_val *akv[] = {a[2]};
	return fe_parallel(F, 1, &ext, a[2] ? 1 : 0, akw, akv, loc);
}

fe_val *fe_thread_binding_value(fe *F, fe_val *v, tlc_loc loc)
{
	const fe_loop *L = v->u.loop;
	if (L->kind != TLC_FOR_THREAD || L->n != 1 || !F->kernel) {
		tlc_error(F->ctx, loc, "a loop range can only be iterated (for ... in ...), not assigned");
		return NULL;
	}
	tlc_func *f = F->kernel->func;
	int d = L->thread_dim;
	int64_t lo, n, threads = 1;
	if (d < f->thread_ndim && !tlc_expr_as_int(f->threads[d], &threads))
		threads = -1;
	if (!tlc_expr_as_int(L->min[0], &lo) || !tlc_expr_as_int(L->extent[0], &n) || lo != 0 || n != threads) {
		tlc_error(F->ctx, loc, "T.thread_binding assigned to a name must span the kernel's %lld threads along "
		          "threadIdx.%c from 0; use T.get_thread_binding(%d) and an if for part of them",
		          (long long)threads, 'x' + d, d);
		return NULL;
	}
	if (!f->thread_vars[d])
		f->thread_vars[d] = tlc_var_new(F->m, fe_hint(F, "tx"), TLC_DT_INT32);
	return fe_expr(F, tlc_var_ref(F->m, f->thread_vars[d]));
}

/* T.Parallel(annotations={...}): TileLang's loop annotations.  The ones it
 * documents only steer how copies in the loop are made asynchronous; tlc
 * makes them synchronous (see prefer_async), which satisfies every wait, so
 * they are checked and dropped.  An unknown key is refused: it may carry a
 * meaning tlc would silently lose. */
static bool parallel_annotations(fe *F, fe_val *x, tlc_loc loc, bool *no_wait)
{
	static const char *const known[] = {
		"parallel_prefer_async", "parallel_async_without_async_commit_wait",
		"no_implicit_async_commit_wait",
	};
	if (x->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "annotations of T.Parallel must be a dict of string keys, got '%s'",
		          fe_show(F, x));
		return false;
	}
	for (int i = 0; i < x->u.dict.n; i++) {
		fe_val *key = x->u.dict.keys[i];
		bool ok = false;
		for (size_t j = 0; key->kind == FV_STR && j < sizeof known / sizeof known[0]; j++)
			ok = ok || strcmp(key->u.s, known[j]) == 0;
		if (!ok) {
			tlc_error(F->ctx, loc, "T.Parallel annotation '%s' is not supported; tlc knows %s, %s "
			          "and %s (they steer asynchronous copies)", fe_show(F, key), known[0],
			          known[1], known[2]);
			return false;
		}
		bool on;
		if (strcmp(key->u.s, known[1]) == 0 || strcmp(key->u.s, known[2]) == 0) {
			if (!fe_truthy(F, x->u.dict.vals[i], loc, &on))
				return false;
			*no_wait = *no_wait || on;
		}
	}
	return true;
}

/* T.Parallel(coalesced_width=, loop_layout=, prefer_async=, annotations=):
 * checked here, stored on the outermost loop of the nest by
 * fe_exec_kernel_for.  prefer_async=True: the loop's global->shared element
 * copies become cp.async where the target and the copy allow (the
 * "async_copy" scope lower-tile-ops knows from inject-pipeline), followed by
 * a commit and a wait for all groups unless an annotation says the program
 * commits and waits itself (T.ptx_commit_group / T.ptx_wait_group). */
static bool parallel_kwargs(fe *F, fe_val *v, int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	bool prefer = false, no_wait = false;
	for (int k = 0; k < nkw; k++) {
		fe_val *x = kwv[k];
		bool width = strcmp(kwn[k], "coalesced_width") == 0;
		if (strcmp(kwn[k], "prefer_async") == 0) {
			int64_t c;
			if (x->kind == FV_EXPR && !tlc_expr_as_int(x->u.e, &c)) {
				tlc_error(F->ctx, loc, "prefer_async of T.Parallel must be a compile-time bool, "
				          "got '%s'", fe_show(F, x));
				return false;
			}
			if (x->kind != FV_NONE && !fe_truthy(F, x, loc, &prefer))
				return false;
			continue;
		}
		if (strcmp(kwn[k], "annotations") == 0) {
			if (x->kind != FV_NONE && !parallel_annotations(F, x, loc, &no_wait))
				return false;
			continue;
		}
		if (!width && strcmp(kwn[k], "loop_layout") != 0) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for T.Parallel", kwn[k]);
			return false;
		}
		if (x->kind == FV_NONE)
			continue; /* the default */
		if (width) {
			int64_t w;
			if (!fe_as_int(x, &w) || x->kind == FV_BOOL || w < 1) {
				tlc_error(F->ctx, loc, "coalesced_width of T.Parallel must be a positive compile-time "
				                       "integer, got '%s'", fe_show(F, x));
				return false;
			}
			v->u.loop->coalesced_width = w;
		} else {
			if (!fe_loop_layout(F, x, v->u.loop->n, v->u.loop->extent, loc))
				return false;
			v->u.loop->loop_layout = x->u.e;
		}
	}
	/* without prefer_async, the annotations alone ask for nothing */
	if (prefer)
		v->u.loop->async_mode = no_wait ? FE_ASYNC_NO_WAIT : FE_ASYNC_WAIT;
	return true;
}

fe_val *fe_parallel(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                    tlc_loc loc)
{
	if (nargs < 1 || nargs > 8) {
		tlc_error(F->ctx, loc, "T.Parallel expects 1 to 8 extents, got %d", nargs);
		return NULL;
	}
	fe_val *v = new_loop(F, TLC_FOR_PARALLEL, nargs);
	for (int i = 0; i < nargs; i++) {
		int64_t x;
		fe_val *a = args[i];
		if (a->kind == FV_TUPLE && a->u.seq.n == 2) { /* (min, end) */
			if (!loop_bounds(F, a->u.seq.items[0], a->u.seq.items[1], NULL, loc,
			                 &v->u.loop->min[i], &v->u.loop->extent[i]))
				return NULL;
			if (!tlc_expr_as_int(v->u.loop->extent[i], &x)) {
				tlc_error(F->ctx, loc, "T.Parallel extent must be a compile-time constant, got '%s'",
				          fe_show_expr(F, v->u.loop->extent[i]));
				return NULL;
			}
			continue;
		}
		if (!fe_const_int(F, a, "T.Parallel extent", loc, &x))
			return NULL;
		if (x < 0 || x > INT32_MAX) {
			tlc_error(F->ctx, loc, "T.Parallel extent %lld does not fit a 32-bit loop variable", (long long)x);
			return NULL;
		}
		v->u.loop->min[i] = tlc_i32(F->m, 0);
		v->u.loop->extent[i] = tlc_i32(F->m, x);
	}
	/* layout inference multiplies the extents: keep the product in int32 */
	int64_t total = 1, x;
	for (int i = 0; i < nargs; i++)
		if (tlc_expr_as_int(v->u.loop->extent[i], &x) && x > 0 && (total *= x) > INT32_MAX) {
			tlc_error(F->ctx, loc, "T.Parallel covers more than 2^31 - 1 points");
			return NULL;
		}
	return parallel_kwargs(F, v, nkw, kwn, kwv, loc) ? v : NULL;
}

/* Why a thread cannot leave loop (of n variables) on its own with break or
 * continue; NULL when it can: a serial or unrolled loop of one variable,
 * which each thread runs by itself (TileLang's break_loop /
 * continue_loop print as C's break and continue). */
static const char *loop_exit_refusal(const fe_loop *l, int n)
{
	if (l->wave)
		return "a T.Persistent loop, whose iterations are the tiles of the persistent "
		       "kernel's blocks; guard the body with `if` instead";
	switch (l->kind) {
	case TLC_FOR_SERIAL:
	case TLC_FOR_UNROLLED:
		if (n > 1)
			return "a loop of several variables, a nest of loops (T.grid) of which it would "
			       "leave only the innermost; write the nest as one loop per variable";
		return NULL;
	case TLC_FOR_PARALLEL:
		return "a T.Parallel loop, whose iterations are spread over the block's threads and "
		       "run side by side, not one after another; guard the body with `if` instead";
	case TLC_FOR_PIPELINED:
		return "a T.Pipelined loop, whose iterations overlap (the copies of later "
		       "iterations are issued before this one's compute), so every iteration must run; "
		       "make the extent the iteration count needed, or guard the body with `if`";
	case TLC_FOR_VECTORIZED:
		return "a T.vectorized loop, whose iterations are the lanes of one vector "
		       "operation; use T.serial";
	case TLC_FOR_THREAD:
		return "a T.thread_binding loop, whose iterations are threads; guard the body with "
		       "`if` instead";
	}
	return "this loop";
}

fe_flow fe_loop_exit(fe *F, bool is_break, tlc_loc loc)
{
	const char *what = is_break ? "break" : "continue";
	if (F->loop_kind == FE_LOOP_REFUSED) {
		tlc_error(F->ctx, loc, "'%s' is not supported in %s", what, F->loop_why);
		return FL_ERROR;
	}
	if (F->loop_kind == FE_LOOP_KERNEL) {
		tlc_op_id op = is_break ? TLC_OP_LOOP_BREAK : TLC_OP_LOOP_CONTINUE;
		fe_emit(F, tlc_eval_new(F->m, loc, tlc_call(F->m, op, TLC_DT_VOID, 0, NULL, 0, NULL, NULL)));
	}
	/* a compile-time loop ends here; the rest of the block is never run */
	return is_break ? FL_BREAK : FL_CONTINUE;
}

fe_flow fe_block_flow(fe *F, fe_flow flow, tlc_loc loc)
{
	/* a break or continue of a kernel loop is in the IR (fe_loop_exit): the
	 * block it ended is complete */
	if ((flow == FL_BREAK || flow == FL_CONTINUE) && F->loop_kind == FE_LOOP_KERNEL)
		flow = FL_NORMAL;
	if ((flow == FL_BREAK || flow == FL_CONTINUE) && F->loop_kind == FE_LOOP_PYTHON) {
		tlc_error(F->ctx, loc, "unsupported Python construct in kernel: %s out of a loop run at compile "
		          "time (a Python loop over a list or tuple) under a condition known only at run "
		          "time; make the loop a kernel loop (T.serial) or the condition a compile-time value",
		          flow == FL_BREAK ? "break" : "continue");
		flow = FL_ERROR;
	}
	if ((flow == FL_BREAK || flow == FL_CONTINUE) && F->loop_kind == FE_LOOP_NONE) {
		tlc_error(F->ctx, loc, "'%s' outside a loop (a function's break leaves no loop of its "
		          "caller, as in Python)", flow == FL_BREAK ? "break" : "continue");
		flow = FL_ERROR;
	}
	if (flow == FL_BREAK || flow == FL_CONTINUE || flow == FL_RETURN) {
		tlc_error(F->ctx, loc, "unsupported Python construct in kernel: %s inside a kernel %s",
		          flow == FL_BREAK ? "break" : flow == FL_CONTINUE ? "continue" : "return",
		          "loop or symbolic if");
		flow = FL_ERROR;
	}
	return flow;
}

/* TileLang spreads a T.Parallel loop over the threads only when it stores
 * to memory the threads share (fragments, shared or global memory, an
 * atomic or a tile op): a loop that stores only into the thread's own
 * T.alloc_local / T.alloc_var buffers (`for v in T.Parallel(8):
 * acc[v] *= s`) is run whole by every thread, as a serial loop. */
typedef struct register_stores {
	tlc_context *ctx;
	bool registers, shared;
} register_stores;

static tlc_walk_action note_store(void *p, const tlc_stmt *s)
{
	register_stores *r = p;
	if (s->kind == TLC_STMT_STORE) {
		tlc_scope scope = s->u.store.buf->scope;
		if (scope == TLC_SCOPE_LOCAL || scope == TLC_SCOPE_VAR)
			r->registers = true;
		else
			r->shared = true;
	} else if (s->kind == TLC_STMT_EVAL && s->u.eval.call->kind == TLC_EXPR_CALL) {
		int op = s->u.eval.call->u.call.op;
		if (op == TLC_OP_ATOMIC_ADD || op == TLC_OP_ATOMIC_MAX || op == TLC_OP_ATOMIC_MIN ||
		    (tlc_op_get(r->ctx, op)->flags & TLC_OPF_TILE))
			r->shared = true;
	} else if (s->kind == TLC_STMT_FOR && s->u.loop.kind == TLC_FOR_PARALLEL) {
		r->shared = true; /* nested T.Parallel: keep today's planning */
	}
	return r->shared ? TLC_WALK_STOP : TLC_WALK_CONTINUE;
}

static bool stores_registers_only(fe *F, const tlc_stmt *body)
{
	register_stores r = {F->ctx, false, false};
	tlc_walk_stmt(&(tlc_visitor){.ctx = &r, .stmt_pre = note_store}, body);
	return r.registers && !r.shared;
}

fe_flow fe_exec_kernel_for(fe *F, fe_env *env, py_node *s, fe_val *loop)
{
	if (!fe_need_kernel(F, "a kernel loop", true, s->loc))
		return FL_ERROR;
	bool warned = false; /* a kernel body may be run more than once: one warning */
	for (int i = 0; i < F->nelse_warned; i++)
		warned = warned || (F->else_warned[i].line == s->loc.line && F->else_warned[i].col == s->loc.col &&
		                    F->else_warned[i].file == s->loc.file);
	if ((s->norelse || s->lazy_orelse.line) && !warned) {
		if (F->nelse_warned < (int)TLC_ARRAY_LEN(F->else_warned))
			F->else_warned[F->nelse_warned++] = s->loc;
		/* TileLang's parsers (TVMScript's visit_for, the v2 builder's loop
		 * rewrite) build the loop from its body alone: the else block of a
		 * kernel loop never runs.  tlc does the same, and says so. */
		tlc_warning(F->ctx, s->loc,
		            "the 'else' block of this kernel loop is ignored, as TileLang ignores it (it "
		            "never runs, whatever Python would do): move its statements after the loop to "
		            "run them, or delete it");
	}
	int n = loop->u.loop->n;
	py_node *t = s->a;
	py_node **names = &t;
	if (t->kind == PY_TUPLE || t->kind == PY_LIST) {
		names = t->list;
		if (t->n != n) {
			tlc_error(F->ctx, t->loc, "loop has %d dimension%s but %d loop variables", n,
			          n == 1 ? "" : "s", t->n);
			return FL_ERROR;
		}
	} else if (n != 1) {
		tlc_error(F->ctx, t->loc, "loop has %d dimensions but 1 loop variable", n);
		return FL_ERROR;
	}
	tlc_var **vars = fe_alloc(F, sizeof(tlc_var *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (names[i]->kind != PY_NAME) {
			tlc_error(F->ctx, names[i]->loc, "loop variable must be a name");
			return FL_ERROR;
		}
		vars[i] = tlc_var_new(F->m, names[i]->str, TLC_DT_INT32);
		fe_env_set(F, env, names[i]->str, fe_expr(F, tlc_var_ref(F->m, vars[i])));
	}
	/* a stepped loop counts k = 0, 1, ... and binds the user's variable to
	 * start + k * step at the top of each iteration */
	tlc_stmt *step_let = NULL;
	if (loop->u.loop->step) {
		tlc_var *counter = tlc_var_new(F->m, fe_hint(F, "k"), TLC_DT_INT32);
		const tlc_expr *k = tlc_var_ref(F->m, counter);
		const tlc_expr *val = tlc_binary(F->m, TLC_EXPR_ADD, loop->u.loop->min[0],
		                                 tlc_binary(F->m, TLC_EXPR_MUL, k,
		                                            tlc_i32(F->m, (int32_t)loop->u.loop->step)));
		step_let = tlc_let_new(F->m, s->loc, vars[0], tlc_simplify_expr(F->m, val));
		vars[0] = counter;
	}
	fe_flow fl;
	bool parallel = loop->u.loop->kind == TLC_FOR_PARALLEL;
	int outer_loop = F->loop_kind;
	const char *outer_why = F->loop_why;
	F->loop_why = loop_exit_refusal(loop->u.loop, n);
	F->loop_kind = F->loop_why ? FE_LOOP_REFUSED : FE_LOOP_KERNEL;
	F->block_depth += n - 1; /* a loop of n variables is n nested loops */
	F->parallel_depth += parallel;
	tlc_stmt *body = fe_build_block(F, env, FE_BODY_OF(s), s->loc, &fl);
	F->parallel_depth -= parallel;
	F->block_depth -= n - 1;
	F->loop_kind = outer_loop;
	F->loop_why = outer_why;
	if (!body)
		return FL_ERROR;
	if (step_let) {
		tlc_stmt *seq = tlc_seq_new(F->m, s->loc);
		tlc_seq_append(F->m, seq, step_let);
		tlc_seq_append(F->m, seq, body);
		body = seq;
	}
	if (loop->u.loop->wave) {
		fe_emit(F, persistent_loop(F, loop->u.loop, vars, body, s->loc));
		return FL_NORMAL;
	}
	tlc_for_kind kind = loop->u.loop->kind;
	if (parallel && !loop->u.loop->loop_layout && stores_registers_only(F, body))
		kind = TLC_FOR_SERIAL;
	for (int i = n - 1; i >= 0; i--) {
		const tlc_expr *lo = step_let ? tlc_i32(F->m, 0) : loop->u.loop->min[i];
		tlc_stmt *f = tlc_for_new(F->m, s->loc, vars[i], lo, loop->u.loop->extent[i], kind, body);
		f->u.loop.pipe = loop->u.loop->pipe;
		f->u.loop.thread_dim = loop->u.loop->thread_dim;
		if (i == 0) {
			f->u.loop.loop_layout = loop->u.loop->loop_layout;
			f->u.loop.coalesced_width = loop->u.loop->coalesced_width;
			body = f;
		} else {
			body = tlc_seq_new(F->m, s->loc);
			tlc_seq_append(F->m, body, f);
		}
	}
	if (loop->u.loop->async_mode != FE_ASYNC_NONE)
		body = tlc_attr_new(F->m, s->loc, tlc_intern(F->m, "async_copy"), tlc_i32(F->m, 1), body);
	fe_emit(F, body);
	if (loop->u.loop->async_mode == FE_ASYNC_WAIT) {
		const tlc_expr *none = tlc_i32(F->m, 0);
		fe_emit(F, tlc_eval_new(F->m, s->loc,
		                        tlc_call(F->m, TLC_OP_CP_ASYNC_COMMIT, TLC_DT_VOID, 0, NULL, 0, NULL, NULL)));
		fe_emit(F, tlc_eval_new(F->m, s->loc,
		                        tlc_call(F->m, TLC_OP_CP_ASYNC_WAIT, TLC_DT_VOID, 1, &none, 0, NULL, NULL)));
	}
	return FL_NORMAL;
}

/* ---- the kernel frame and scopes ---- */

fe_val *fe_kernel_frame(fe *F, int nargs, fe_val **args, int nkw, const char **kwn,
                            fe_val **kwv, tlc_loc loc)
{
	fe_val *v = fe_new(F, FV_KERNEL);
	v->u.kernel = fe_alloc(F, sizeof(fe_grid));
	fe_val *threads = NULL;
	for (int k = 0; k < nkw; k++) {
		if (strcmp(kwn[k], "threads") == 0) {
			threads = kwv[k];
		} else {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for T.Kernel", kwn[k]);
			return NULL;
		}
	}
	if (nargs < 1 || nargs > 3) {
		tlc_error(F->ctx, loc, "T.Kernel expects 1 to 3 grid extents, got %d", nargs);
		return NULL;
	}
	v->u.kernel->ngrid = nargs;
	for (int i = 0; i < nargs; i++)
		if (!(v->u.kernel->grid[i] = fe_to_scalar(F, args[i], loc)))
			return NULL;
	int nt = 1;
	fe_val *tv[3] = {threads};
	if (!threads)
		tv[0] = fe_int(F, 128);
	else if (threads->kind == FV_TUPLE || threads->kind == FV_LIST) {
		nt = threads->u.seq.n;
		if (nt < 1 || nt > 3) {
			tlc_error(F->ctx, loc, "threads must have 1 to 3 extents, got %d", nt);
			return NULL;
		}
		for (int i = 0; i < nt; i++)
			tv[i] = threads->u.seq.items[i];
	}
	v->u.kernel->nthreads = nt;
	for (int i = 0; i < nt; i++) {
		int64_t x;
		if (!fe_const_int(F, tv[i], "threads", loc, &x))
			return NULL;
		if (x < 1 || x > 1024) {
			tlc_error(F->ctx, loc, "threads must be between 1 and 1024, got %lld", (long long)x);
			return NULL;
		}
		v->u.kernel->threads[i] = tlc_i32(F->m, x);
	}
	return v;
}

static fe_flow with_kernel(fe *F, fe_env *env, py_node *s, int item, fe_val *k, py_node *target)
{
	fe_kernel *K = F->kernel;
	if (!K || !F->frame->kernel_mode || K->block) {
		tlc_error(F->ctx, s->loc, K && K->block ? "nested T.Kernel is not supported"
		                                        : "T.Kernel must be in a T.prim_func or @tilelang.jit kernel");
		return FL_ERROR;
	}
	if (K->has_frame) {
		/* another T.Kernel frame: another kernel, launched after the ones
		 * before it on the same stream (finish_kernel makes them a group) */
		if (K->nparts == FE_MAX_KERNEL_FRAMES) {
			tlc_error(F->ctx, s->loc, "a kernel can have at most %d T.Kernel frames", FE_MAX_KERNEL_FRAMES);
			return FL_ERROR;
		}
		K->func = tlc_func_new(F->m, K->func->name, s->loc);
	}
	tlc_func *f = K->func;
	K->parts[K->nparts++] = f;
	f->grid_ndim = k->u.kernel->ngrid;
	f->thread_ndim = k->u.kernel->nthreads;
	for (int i = 0; i < 3; i++) {
		f->grid[i] = i < f->grid_ndim ? k->u.kernel->grid[i] : NULL;
		f->threads[i] = i < f->thread_ndim ? k->u.kernel->threads[i] : NULL;
	}
	if (target) {
		bool several = target->kind == PY_TUPLE || target->kind == PY_LIST;
		int n = several ? target->n : 1;
		py_node **names = several ? target->list : &target; /* `as x.y`: not a name, said below */
		if (n != f->grid_ndim) {
			tlc_error(F->ctx, target->loc, "T.Kernel has %d grid dimension%s but %d name%s",
			          f->grid_ndim, f->grid_ndim == 1 ? "" : "s", n, n == 1 ? "" : "s");
			return FL_ERROR;
		}
		for (int i = 0; i < n; i++) {
			if (names[i]->kind != PY_NAME) {
				tlc_error(F->ctx, names[i]->loc, "T.Kernel block index must be a name");
				return FL_ERROR;
			}
			f->block_vars[i] = tlc_var_new(F->m, names[i]->str, TLC_DT_INT32);
			fe_env_set(F, env, names[i]->str, fe_expr(F, tlc_var_ref(F->m, f->block_vars[i])));
		}
	}
	K->has_frame = true;
	f->body = tlc_seq_new(F->m, s->loc);
	K->block = f->body;
	fe_flow fl = fe_with_rest(F, env, s, item + 1);
	K->block = NULL;
	if (fl == FL_RETURN || fl == FL_BREAK || fl == FL_CONTINUE) {
		tlc_error(F->ctx, s->loc, "unsupported Python construct in kernel: return/break/continue "
		                          "inside T.Kernel");
		return FL_ERROR;
	}
	return fl;
}

fe_flow fe_exec_with(fe *F, fe_env *env, py_node *s)
{
	return fe_with_item(F, env, s, 0);
}

/* `with A, B:` is `with A:` around `with B:` */
fe_flow fe_with_item(fe *F, fe_env *env, py_node *s, int k)
{
	fe_val *v = fe_eval(F, env, s->list[k]);
	if (!v)
		return FL_ERROR;
	py_node *target = k < s->ntargets ? s->targets[k] : NULL;
	if (v->kind == FV_KERNEL)
		return with_kernel(F, env, s, k, v, target);
	if (v->kind == FV_HOST)
		return fe_with_rest(F, env, s, k + 1);
	if (v->kind != FV_SCOPEOP) {
		tlc_error(F->ctx, s->list[k]->loc, "unsupported 'with' item: %s", fe_kind_name(v));
		return FL_ERROR;
	}
	if (v->u.scope.frame)
		return fe_with_frame(F, env, s, k, v, target);
	if (target) {
		tlc_error(F->ctx, target->loc, "this 'with' scope binds no name");
		return FL_ERROR;
	}
	if (!fe_need_kernel(F, v->u.scope.call ? "T.ws" : "T.attr", true, s->loc))
		return FL_ERROR;
	fe_flow fl;
	tlc_stmt *body = fe_build_rest(F, env, s, k + 1, &fl);
	if (!body)
		return FL_ERROR;
	if (v->u.scope.call)
		fe_emit(F, tlc_scope_new(F->m, s->loc, v->u.scope.call, body));
	else
		fe_emit(F, fe_attr_body(F, v, body, s->loc));
	return FL_NORMAL;
}
