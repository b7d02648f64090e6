/* frontend_stdlib.c - the parts of Python's itertools and functools that
 * kernel files use around their kernels: building autotuning configs
 * (itertools.product over parameter lists), fixing arguments
 * (functools.partial), folding (functools.reduce) and caching decorators
 * (lru_cache, cache, wraps: identity at compile time, where every call is
 * evaluated anyway).  Iterators are eager here: each returns a list, counted
 * against the budgets before it is built (frontend_limits.c). */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

static const char *const itertools_names[] = {"product", "chain", "combinations", "permutations", "repeat",
                                              "accumulate"};
static const char *const functools_names[] = {"partial", "reduce", "lru_cache", "cache", "wraps"};

bool fe_stdlib_has(int mod, const char *name)
{
	const char *const *names = mod == FM_ITERTOOLS ? itertools_names : functools_names;
	size_t n = mod == FM_ITERTOOLS ? TLC_ARRAY_LEN(itertools_names) : TLC_ARRAY_LEN(functools_names);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

fe_val *fe_stdlib_attr(fe *F, int mod, const char *name, tlc_loc loc)
{
	const char *modname = mod == FM_ITERTOOLS ? "itertools" : "functools";
	const char *const *names = mod == FM_ITERTOOLS ? itertools_names : functools_names;
	size_t n = mod == FM_ITERTOOLS ? TLC_ARRAY_LEN(itertools_names) : TLC_ARRAY_LEN(functools_names);
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0) {
			char buf[64];
			snprintf(buf, sizeof buf, "%s.%s", modname, name);
			return fe_builtin(F, fe_strdup(F, buf));
		}
	tlc_suggestion sg;
	char hint[96];
	tlc_suggest_init(&sg, name);
	for (size_t i = 0; i < n; i++)
		tlc_suggest_add(&sg, names[i]);
	tlc_error(F->ctx, loc, "unsupported function '%s.%s'%s", modname, name, tlc_suggest_text(&sg, hint, sizeof hint));
	return NULL;
}

/* The items of each argument as lists. */
static bool iterate_all(fe *F, int nargs, fe_val **args, fe_val **its, tlc_loc loc)
{
	for (int i = 0; i < nargs; i++)
		if (!(its[i] = fe_iterate(F, args[i], loc)))
			return false;
	return true;
}

static fe_val *tuple_of(fe *F, fe_val **items, int n)
{
	fe_val *t = fe_seq(F, FV_TUPLE, n);
	for (int i = 0; i < n; i++)
		t->u.seq.items[i] = items[i];
	return t;
}

#define MAX_PRODUCT_ARGS 32

/* itertools.product(*iterables, repeat=1) */
static fe_val *product(fe *F, int nargs, fe_val **args, int64_t repeat, tlc_loc loc)
{
	fe_val *its[MAX_PRODUCT_ARGS];
	if (repeat < 0 || nargs * repeat > MAX_PRODUCT_ARGS) {
		tlc_error(F->ctx, loc, "itertools.product of more than %d iterables is not supported",
		          MAX_PRODUCT_ARGS);
		return NULL;
	}
	if (!iterate_all(F, nargs, args, its, loc))
		return NULL;
	int k = (int)(nargs * repeat);
	for (int i = nargs; i < k; i++)
		its[i] = its[i % nargs];
	int64_t total = 1;
	for (int i = 0; i < k; i++)
		if (__builtin_mul_overflow(total, (int64_t)its[i]->u.seq.n, &total))
			total = -1;
	if (total < 0 || !fe_check_items(F, total, "itertools.product", loc) || !fe_work(F, total * k, loc))
		return NULL;
	fe_val *r = fe_seq(F, FV_LIST, (int)total);
	int idx[MAX_PRODUCT_ARGS] = {0};
	fe_val *cur[MAX_PRODUCT_ARGS];
	for (int64_t j = 0; j < total; j++) {
		for (int i = 0; i < k; i++)
			cur[i] = its[i]->u.seq.items[idx[i]];
		r->u.seq.items[j] = tuple_of(F, cur, k);
		for (int i = k - 1; i >= 0; i--) { /* the last iterable varies fastest */
			if (++idx[i] < its[i]->u.seq.n)
				break;
			idx[i] = 0;
		}
	}
	return r;
}

/* combinations (r positions of it, increasing) or permutations (every
 * ordering of r distinct positions) of it's items, in itertools' order. */
static fe_val *choose(fe *F, bool perm, fe_val *it, int64_t r, tlc_loc loc)
{
	int n = it->u.seq.n;
	fe_val *out = fe_seq(F, FV_LIST, 0);
	if (r < 0 || r > n)
		return out;
	if (r > MAX_PRODUCT_ARGS) {
		tlc_error(F->ctx, loc, "itertools.%s of more than %d items at a time is not supported",
		          perm ? "permutations" : "combinations", MAX_PRODUCT_ARGS);
		return NULL;
	}
	int idx[MAX_PRODUCT_ARGS];
	fe_val *cur[MAX_PRODUCT_ARGS];
	/* enumerate index tuples in lexicographic order; keep the increasing
	 * ones (combinations) or those without repeats (permutations) */
	for (int i = 0; i < r; i++)
		idx[i] = 0;
	for (;;) {
		if (!fe_work(F, r + 1, loc))
			return NULL;
		bool keep = true;
		for (int i = 1; i < r && keep; i++)
			for (int j = perm ? 0 : i - 1; j < i && keep; j++)
				keep = perm ? idx[i] != idx[j] : idx[j] < idx[i];
		if (keep) {
			if (!fe_check_items(F, (int64_t)out->u.seq.n + 1, "itertools result", loc))
				return NULL;
			for (int i = 0; i < r; i++)
				cur[i] = it->u.seq.items[idx[i]];
			fe_seq_push(F, out, tuple_of(F, cur, (int)r));
		}
		int i = (int)r - 1;
		while (i >= 0 && ++idx[i] == n)
			idx[i--] = 0;
		if (i < 0)
			break;
	}
	return out;
}

static bool kw_int(fe *F, const char *fname, const char *want, int nkw, const char **kwn, fe_val **kwv,
                   int64_t *out, tlc_loc loc)
{
	for (int k = 0; k < nkw; k++) {
		if (strcmp(kwn[k], want) != 0) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for %s", kwn[k], fname);
			return false;
		}
		if (!fe_as_int(kwv[k], out)) {
			tlc_error(F->ctx, loc, "%s: %s must be a compile-time integer", fname, want);
			return false;
		}
	}
	return true;
}

static fe_val *call_itertools(fe *F, const char *fn, int nargs, fe_val **args, int nkw, const char **kwn,
                              fe_val **kwv, tlc_loc loc)
{
	char fname[48];
	snprintf(fname, sizeof fname, "itertools.%s", fn);
	if (strcmp(fn, "product") == 0) {
		int64_t repeat = 1;
		if (!kw_int(F, fname, "repeat", nkw, kwn, kwv, &repeat, loc))
			return NULL;
		return product(F, nargs, args, repeat, loc);
	}
	if (strcmp(fn, "chain") == 0 && !nkw) {
		fe_val *r = fe_seq(F, FV_LIST, 0);
		for (int i = 0; i < nargs; i++) {
			fe_val *it = fe_iterate(F, args[i], loc);
			if (!it || !fe_check_items(F, (int64_t)r->u.seq.n + it->u.seq.n, fname, loc) ||
			    !fe_work(F, it->u.seq.n, loc))
				return NULL;
			for (int j = 0; j < it->u.seq.n; j++)
				fe_seq_push(F, r, it->u.seq.items[j]);
		}
		return r;
	}
	if ((strcmp(fn, "combinations") == 0 || strcmp(fn, "permutations") == 0) && nargs >= 1 && nargs <= 2) {
		bool perm = fn[0] == 'p';
		fe_val *it = fe_iterate(F, args[0], loc);
		int64_t r = it ? it->u.seq.n : 0;
		if (!it || (nargs == 2 && !fe_as_int(args[1], &r)) ||
		    (!perm && nargs != 2) || !kw_int(F, fname, "r", nkw, kwn, kwv, &r, loc)) {
			if (it)
				tlc_error(F->ctx, loc, "%s expects an iterable and a compile-time integer r", fname);
			return NULL;
		}
		return choose(F, perm, it, r, loc);
	}
	if (strcmp(fn, "repeat") == 0 && nargs >= 1 && nargs <= 2) {
		int64_t times = -1;
		if ((nargs == 2 && !fe_as_int(args[1], &times)) || !kw_int(F, fname, "times", nkw, kwn, kwv, &times, loc))
			return NULL;
		if (times < 0) {
			tlc_error(F->ctx, loc, "itertools.repeat without a count never ends: give times=N");
			return NULL;
		}
		if (!fe_check_items(F, times, fname, loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, (int)times);
		for (int64_t i = 0; i < times; i++)
			r->u.seq.items[i] = args[0];
		return r;
	}
	if (strcmp(fn, "accumulate") == 0 && nargs == 1 && !nkw) {
		fe_val *it = fe_iterate(F, args[0], loc);
		if (!it || !fe_work(F, it->u.seq.n, loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, it->u.seq.n), *acc = NULL;
		for (int i = 0; i < it->u.seq.n; i++) {
			acc = acc ? fe_binop(F, PY_OP_ADD, acc, it->u.seq.items[i], loc) : it->u.seq.items[i];
			if (!acc)
				return NULL;
			r->u.seq.items[i] = acc;
		}
		return r;
	}
	tlc_error(F->ctx, loc, "unsupported call of %s", fname);
	return NULL;
}

/* functools.partial(fn, *args, **kwargs): a callable that calls fn with
 * these arguments first (FV_BOUND "partial", self = (fn, args, kwargs)). */
static fe_val *make_partial(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv)
{
	fe_val *self = fe_seq(F, FV_TUPLE, 3);
	self->u.seq.items[0] = args[0];
	self->u.seq.items[1] = tuple_of(F, args + 1, nargs - 1);
	fe_val *kw = fe_dict(F);
	for (int k = 0; k < nkw; k++)
		fe_dict_set(F, kw, fe_str(F, kwn[k]), kwv[k]);
	self->u.seq.items[2] = kw;
	fe_val *p = fe_new(F, FV_BOUND);
	p->u.bound.name = "partial";
	p->u.bound.self = self;
	return p;
}

fe_val *fe_call_partial(fe *F, fe_val *p, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                        tlc_loc loc)
{
	fe_val *fn = p->u.bound.self->u.seq.items[0], *pre = p->u.bound.self->u.seq.items[1];
	fe_val *kw = p->u.bound.self->u.seq.items[2];
	int na = pre->u.seq.n + nargs, nk = kw->u.dict.n + nkw;
	if (!fe_work(F, na + nk, loc))
		return NULL;
	fe_val **a = fe_alloc(F, sizeof(*a) * (size_t)(na + 1));
	const char **kn = fe_alloc(F, sizeof(*kn) * (size_t)(nk + 1));
	fe_val **kv = fe_alloc(F, sizeof(*kv) * (size_t)(nk + 1));
	memcpy(a, pre->u.seq.items, sizeof(*a) * (size_t)pre->u.seq.n);
	if (nargs)
		memcpy(a + pre->u.seq.n, args, sizeof(*a) * (size_t)nargs);
	int m = 0;
	/* keywords of the call replace the partial's own */
	for (int k = 0; k < kw->u.dict.n; k++) {
		const char *name = kw->u.dict.keys[k]->u.s;
		bool replaced = false;
		for (int j = 0; j < nkw && !replaced; j++)
			replaced = strcmp(kwn[j], name) == 0;
		if (!replaced) {
			kn[m] = name;
			kv[m++] = kw->u.dict.vals[k];
		}
	}
	for (int j = 0; j < nkw; j++) {
		kn[m] = kwn[j];
		kv[m++] = kwv[j];
	}
	return fe_call(F, fn, na, a, m, kn, kv, loc);
}

static fe_val *call_functools(fe *F, const char *fn, int nargs, fe_val **args, int nkw, const char **kwn,
                              fe_val **kwv, tlc_loc loc)
{
	if (strcmp(fn, "partial") == 0) {
		if (nargs < 1) {
			tlc_error(F->ctx, loc, "functools.partial needs the function to call");
			return NULL;
		}
		return make_partial(F, nargs, args, nkw, kwn, kwv);
	}
	if (strcmp(fn, "reduce") == 0 && (nargs == 2 || nargs == 3) && !nkw) {
		fe_val *it = fe_iterate(F, args[1], loc);
		if (!it || !fe_work(F, it->u.seq.n, loc))
			return NULL;
		int i = 0;
		fe_val *acc = nargs == 3 ? args[2] : NULL;
		if (!acc) {
			if (!it->u.seq.n) {
				tlc_error(F->ctx, loc, "functools.reduce() of an empty iterable with no initial value");
				return NULL;
			}
			acc = it->u.seq.items[i++];
		}
		for (; acc && i < it->u.seq.n; i++) {
			fe_val *pair[2] = {acc, it->u.seq.items[i]};
			acc = fe_call(F, args[0], 2, pair, 0, NULL, NULL, loc);
		}
		return acc;
	}
	if (strcmp(fn, "lru_cache") == 0 || strcmp(fn, "cache") == 0 || strcmp(fn, "wraps") == 0) {
		/* @lru_cache applied to a function is that function; lru_cache(maxsize=...)
		 * and wraps(f) are decorators that return it unchanged */
		if (strcmp(fn, "wraps") != 0 && nargs == 1 && !nkw && args[0]->kind == FV_FUNC)
			return args[0];
		return fe_identity_decorator(F, loc);
	}
	tlc_error(F->ctx, loc, "unsupported call of functools.%s", fn);
	return NULL;
}

fe_val *fe_call_stdlib(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                       tlc_loc loc)
{
	if (strncmp(name, "itertools.", 10) == 0)
		return call_itertools(F, name + 10, nargs, args, nkw, kwn, kwv, loc);
	return call_functools(F, name + 10, nargs, args, nkw, kwn, kwv, loc);
}
