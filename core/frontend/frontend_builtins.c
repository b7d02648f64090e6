/* frontend_builtins.c - attribute access, calls, and the Python builtins
 * (range, len, min, max, ...), methods of str/list/dict and the math module
 * that compile-time code around kernels uses. */
#include "frontend.h"

#include <tlc/target.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fe_val *bound(fe *F, const char *name, fe_val *self)
{
	fe_val *v = fe_new(F, FV_BOUND);
	v->u.bound.name = name;
	v->u.bound.self = self;
	return v;
}

/* The number of multiprocessors a kernel file's host code asks for:
 * -D num_sms=N, else the target description's reference device. */
static fe_val *sm_count(fe *F, const char *query, tlc_loc loc)
{
	fe_val *d = fe_define(F, "num_sms");
	if (d)
		return d;
	const tlc_target_info *t = F->opts ? F->opts->target : NULL;
	if (tlc_target_sm_count(t))
		return fe_int(F, tlc_target_sm_count(t));
	tlc_error(F->ctx, loc, "%s: the number of SMs is not known %s: give -D num_sms=N", query,
	          t ? "for this target" : "without a target");
	return NULL;
}

/* Host queries of the device that a kernel file makes at compile time
 * (a persistent kernel's grid) are answered from the target description:
 * torch.cuda.get_device_properties(i).multi_processor_count (true here
 * for a host value made by get_device_properties) and the get_num_sms()
 * of tilelang's helpers (fe_call). */
static bool is_device_properties(const char *base)
{
	return strstr(base, "get_device_properties") != NULL;
}

static fe_val *host(fe *F, const char *base, const char *attr)
{
	/* the name only serves messages: a chain a.b.c... as long as the line
	 * must not copy a longer name at each step (quadratic memory) */
	if (strlen(base) > 200) {
		fe_val *v = fe_new(F, FV_HOST);
		v->u.s = base;
		return v;
	}
	size_t n = strlen(base) + strlen(attr) + 2;
	char *s = fe_alloc(F, n);
	snprintf(s, n, "%s.%s", base, attr);
	fe_val *v = fe_new(F, FV_HOST);
	v->u.s = s;
	return v;
}

static fe_val *shape_tuple(fe *F, tlc_buffer *b)
{
	fe_val *t = fe_seq(F, FV_TUPLE, 0);
	for (int i = 0; i < b->ndim; i++)
		fe_seq_push(F, t, fe_expr(F, b->shape[i]));
	return t;
}

static const char *const math_fns[] = {"sqrt", "log", "log2", "exp", "exp2", "ceil", "floor",
                                       "pow", "gcd", "isqrt", "log10", "prod"};

static bool math_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(math_fns); i++)
		if (strcmp(math_fns[i], name) == 0)
			return true;
	return !strcmp(name, "pi") || !strcmp(name, "e") || !strcmp(name, "inf");
}

static fe_val *math_attr(fe *F, const char *name, tlc_loc loc)
{
	if (strcmp(name, "pi") == 0)
		return fe_float(F, M_PI);
	if (strcmp(name, "e") == 0)
		return fe_float(F, M_E);
	if (strcmp(name, "inf") == 0)
		return fe_float(F, INFINITY);
	const char *const *fns = math_fns;
	for (size_t i = 0; i < TLC_ARRAY_LEN(math_fns); i++)
		if (strcmp(fns[i], name) == 0) {
			char buf[32];
			snprintf(buf, sizeof buf, "math.%s", name);
			return fe_builtin(F, fe_strdup(F, buf));
		}
	tlc_error(F->ctx, loc, "unsupported function 'math.%s'", name);
	return NULL;
}

fe_val *fe_unique(fe *F, fe_val *list, tlc_loc loc)
{
	int n = list->u.seq.n, m = 0;
	if (!fe_work(F, (int64_t)n * n, loc)) /* pairwise equality: sets at compile time are small */
		return NULL;
	fe_val *r = fe_seq(F, FV_LIST, n);
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int j = 0; j < m && !seen; j++)
			seen = fe_equal(F, r->u.seq.items[j], list->u.seq.items[i]);
		if (!seen)
			r->u.seq.items[m++] = list->u.seq.items[i];
	}
	r->u.seq.n = m;
	return r;
}

bool fe_module_has(fe *F, const fe_val *mod, const char *name)
{
	bool has;
	if (mod->mod == FM_TVM_TIR || mod->mod == FM_TVM_TE)
		return fe_tvm_has(F, mod->mod, name);
	if (fe_host_module_has(mod->mod, name, &has))
		return has;
	switch (mod->mod) {
	case FM_T: return fe_t_has(F, name);
	case FM_MATH: return math_has(name);
	case FM_ITERTOOLS:
	case FM_FUNCTOOLS: return fe_stdlib_has(mod->mod, name);
	case FM_LAYOUT: return strcmp(name, "make_swizzled_layout") == 0 || fe_sparse_has(FM_LAYOUT, name);
	case FM_AUTOTUNER: return strcmp(name, "autotune") == 0;
	default: /* tilelang */
		return !strcmp(name, "jit") || !strcmp(name, "compile") || !strcmp(name, "autotune") ||
		       !strcmp(name, "language") || !strcmp(name, "layout") || !strcmp(name, "PassConfigKey");
	}
}

fe_val *fe_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc)
{
	fe_val *r;
	if (v->kind == FV_HOST && strcmp(v->u.s, "tilelang.transform.PassConfigKey") == 0) {
		/* the same keys as tilelang.PassConfigKey */
		fe_val ns = *v;
		ns.kind = FV_NAMESPACE;
		ns.u.s = "tilelang.PassConfigKey";
		return fe_getattr(F, &ns, name, loc);
	}
	if (fe_host_getattr(F, v, name, loc, &r))
		return r;
	switch (v->kind) {
	case FV_MODULE:
		if (v->mod == FM_T)
			return fe_t_attr(F, name, loc);
		if (v->mod == FM_MATH)
			return math_attr(F, name, loc);
		if (v->mod == FM_ITERTOOLS || v->mod == FM_FUNCTOOLS)
			return fe_stdlib_attr(F, v->mod, name, loc);
		return fe_tilelang_attr(F, v->mod, name, loc);
	case FV_HOST:
		if (strcmp(name, "multi_processor_count") == 0 && is_device_properties(v->u.s))
			return sm_count(F, "multi_processor_count", loc);
		return host(F, v->u.s, name);
	case FV_NAMESPACE:
		if (strcmp(v->u.s, "T.GemmWarpPolicy") == 0) {
			if (strcmp(name, "Square") && strcmp(name, "FullRow") && strcmp(name, "FullCol")) {
				tlc_error(F->ctx, loc, "unknown T.GemmWarpPolicy '%s' (Square, FullRow, FullCol)",
				          name);
				return NULL;
			}
			char buf[64];
			snprintf(buf, sizeof buf, "T.GemmWarpPolicy.%s", name);
			return fe_expr(F, tlc_sym(F->m, buf));
		}
		if (strcmp(v->u.s, "tilelang.PassConfigKey") == 0) {
			/* TL_ENABLE_FAST_MATH -> "tl.enable_fast_math"; TVM's own
			 * TIR_DISABLE_VECTORIZE -> "tir.disable_vectorize" */
			bool tir = strncmp(name, "TIR_", 4) == 0;
			if (strncmp(name, "TL_", 3) != 0 && !tir) {
				tlc_error(F->ctx, loc, "unknown pass config key '%s'", name);
				return NULL;
			}
			char buf[128];
			snprintf(buf, sizeof buf, "%s.%s", tir ? "tir" : "tl", name + (tir ? 4 : 3));
			for (char *p = buf; *p; p++)
				if (*p >= 'A' && *p <= 'Z')
					*p = (char)(*p - 'A' + 'a');
			return fe_str(F, buf);
		}
		break;
	case FV_BUF:
		if (strcmp(name, "dtype") == 0)
			return fe_dtype(F, v->u.buf->dtype);
		if (strcmp(name, "shape") == 0)
			return shape_tuple(F, v->u.buf);
		if (strcmp(name, "name") == 0)
			return fe_str(F, v->u.buf->name);
		if (strcmp(name, "ndim") == 0)
			return fe_int(F, v->u.buf->ndim);
		if (strcmp(name, "data") == 0) {
			fe_val *p = fe_new(F, FV_DATAPTR);
			p->u.buf = v->u.buf;
			return p;
		}
		if (strcmp(name, "access_ptr") == 0)
			return bound(F, name, v);
		break;
	case FV_EXPR:
		if (strcmp(name, "dtype") == 0)
			return fe_dtype(F, v->u.e->dtype);
		if (strcmp(name, "astype") == 0) /* x.astype(dtype): T.cast(x, dtype) */
			return bound(F, name, v);
		break;
	case FV_INT:
	case FV_FLOAT:
	case FV_BOOL:
		if (strcmp(name, "astype") == 0) /* as TileLang's constants (PrimExprs) have it */
			return bound(F, name, v);
		break;
	case FV_TENSORTYPE:
		if (strcmp(name, "dtype") == 0)
			return fe_dtype(F, v->u.tensor.dt);
		if (strcmp(name, "shape") == 0)
			return v->u.tensor.shape;
		break;
	case FV_BUILTIN:
		/* T.Tensor.from_ptr(ptr, shape, dtype, strides) is T.make_tensor */
		if (strcmp(v->u.s, "T.Tensor") == 0 && strcmp(name, "from_ptr") == 0)
			return fe_builtin(F, "T.make_tensor");
		break;
	case FV_DTYPE:
		if (strcmp(name, "bits") == 0)
			return fe_int(F, tlc_dtype_bits(v->u.dt));
		break;
	case FV_STR:
		if (!strcmp(name, "split") || !strcmp(name, "strip") || !strcmp(name, "join") ||
		    !strcmp(name, "upper") || !strcmp(name, "lower") || !strcmp(name, "startswith") ||
		    !strcmp(name, "endswith") || !strcmp(name, "replace") || !strcmp(name, "format"))
			return bound(F, name, v);
		break;
	case FV_LIST:
		if (!strcmp(name, "append") || !strcmp(name, "extend") || !strcmp(name, "index"))
			return bound(F, name, v);
		break;
	case FV_TUPLE:
		if (!strcmp(name, "index"))
			return bound(F, name, v);
		break;
	case FV_DICT:
		if (!strcmp(name, "get") || !strcmp(name, "items") || !strcmp(name, "keys") ||
		    !strcmp(name, "values") || !strcmp(name, "update"))
			return bound(F, name, v);
		break;
	case FV_MISSING:
		fe_err_not_kernel(F, v, loc);
		return NULL;
	case FV_PRIMFUNC:
		/* a jit kernel's prim_func (JITKernel.prim_func): the prim_func itself */
		if (!strcmp(name, "prim_func"))
			return v;
		break;
	default:
		break;
	}
	if (v->kind == FV_PRIMFUNC)
		F->host_uses++; /* kernel.get_profiler(): host code */
	tlc_error(F->ctx, loc, "%s has no attribute '%s'", fe_kind_name(v), name);
	return NULL;
}

static fe_val *str_split(fe *F, const char *s, const char *sep, tlc_loc loc)
{
	if (sep && !*sep) { /* strstr would find it at every step, forever */
		tlc_error(F->ctx, loc, "str.split(): empty separator");
		return NULL;
	}
	if (!fe_check_str(F, (int64_t)strlen(s), loc))
		return NULL;
	fe_val *r = fe_seq(F, FV_LIST, 0);
	size_t ls = sep ? strlen(sep) : 0;
	const char *p = s;
	for (;;) {
		if (!sep)
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
		if (!sep && !*p)
			break;
		const char *q = sep ? strstr(p, sep) : p + strcspn(p, " \t\n");
		if (sep && !q)
			q = p + strlen(p);
		if (r->u.seq.n == F->lim.items && !fe_check_items(F, F->lim.items + 1, "split() result", loc))
			return NULL;
		fe_val *part = fe_new(F, FV_STR);
		part->u.s = fe_strndup(F, p, (size_t)(q - p));
		fe_seq_push(F, r, part);
		if (!*q)
			break;
		p = q + (sep ? ls : 0);
	}
	return r;
}

static fe_val *call_method(fe *F, fe_val *m, int nargs, fe_val **args, tlc_loc loc)
{
	const char *name = m->u.bound.name;
	fe_val *self = m->u.bound.self;
	if (self->kind == FV_LIST && strcmp(name, "append") == 0 && nargs == 1) {
		fe_seq_push(F, self, args[0]);
		return F->none;
	}
	if (self->kind == FV_LIST && strcmp(name, "extend") == 0 && nargs == 1) {
		fe_val *it = fe_iterate(F, args[0], loc);
		if (!it || !fe_check_items(F, (int64_t)self->u.seq.n + it->u.seq.n, "list", loc))
			return NULL;
		for (int i = 0, n = it->u.seq.n; i < n; i++) /* n first: x.extend(x) */
			fe_seq_push(F, self, it->u.seq.items[i]);
		return F->none;
	}
	if ((self->kind == FV_LIST || self->kind == FV_TUPLE) && !strcmp(name, "index") && nargs == 1) {
		if (!fe_work(F, self->u.seq.n, loc))
			return NULL;
		for (int i = 0; i < self->u.seq.n; i++)
			if (fe_equal(F, self->u.seq.items[i], args[0]))
				return fe_int(F, i);
		tlc_error(F->ctx, loc, "value not in %s", fe_kind_name(self));
		return NULL;
	}
	if (self->kind == FV_DICT) {
		if (strcmp(name, "get") == 0 && (nargs == 1 || nargs == 2)) {
			fe_val *r = fe_dict_get(F, self, args[0]);
			return r ? r : nargs == 2 ? args[1] : F->none;
		}
		if (strcmp(name, "update") == 0 && nargs == 1 && args[0]->kind == FV_DICT) {
			if (!fe_work(F, args[0]->u.dict.n, loc))
				return NULL;
			for (int i = 0; i < args[0]->u.dict.n; i++)
				fe_dict_set(F, self, args[0]->u.dict.keys[i], args[0]->u.dict.vals[i]);
			return F->none;
		}
		if (nargs == 0) {
			if (!fe_work(F, self->u.dict.n, loc))
				return NULL;
			fe_val *r = fe_seq(F, FV_LIST, 0);
			for (int i = 0; i < self->u.dict.n; i++) {
				fe_val *k = self->u.dict.keys[i], *v = self->u.dict.vals[i];
				if (strcmp(name, "keys") == 0) {
					fe_seq_push(F, r, k);
				} else if (strcmp(name, "values") == 0) {
					fe_seq_push(F, r, v);
				} else {
					fe_val *p = fe_seq(F, FV_TUPLE, 2);
					p->u.seq.items[0] = k;
					p->u.seq.items[1] = v;
					fe_seq_push(F, r, p);
				}
			}
			return r;
		}
	}
	if (self->kind == FV_STR) {
		const char *s = self->u.s;
		if (strcmp(name, "split") == 0 && nargs <= 1) {
			if (nargs == 1 && args[0]->kind != FV_STR)
				goto bad;
			return str_split(F, s, nargs ? args[0]->u.s : NULL, loc);
		}
		if (strcmp(name, "strip") == 0 && nargs == 0) {
			while (*s == ' ' || *s == '\t' || *s == '\n')
				s++;
			size_t n = strlen(s);
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
				n--;
			return fe_str(F, fe_strndup(F, s, n));
		}
		if ((!strcmp(name, "upper") || !strcmp(name, "lower")) && nargs == 0) {
			char *r = fe_strdup(F, s);
			for (char *p = r; *p; p++)
				if (name[0] == 'u' && *p >= 'a' && *p <= 'z')
					*p = (char)(*p - 32);
				else if (name[0] == 'l' && *p >= 'A' && *p <= 'Z')
					*p = (char)(*p + 32);
			fe_val *v = fe_new(F, FV_STR);
			v->u.s = r;
			return v;
		}
		if (strcmp(name, "replace") == 0 && (nargs == 2 || nargs == 3) && args[0]->kind == FV_STR &&
		    args[1]->kind == FV_STR && (nargs == 2 || args[2]->kind == FV_INT)) {
			/* every (or the first `count`) occurrence of old, left to right; an
			 * empty old matches between every two characters, as in Python */
			const char *old = args[0]->u.s, *rep = args[1]->u.s;
			int64_t limit = nargs == 3 && args[2]->u.i >= 0 ? args[2]->u.i : INT64_MAX;
			size_t lo = strlen(old), lr = strlen(rep), ls = strlen(s);
			int64_t hits = 0;
			for (const char *p = s; hits < limit && (lo ? (p = strstr(p, old)) != NULL : p <= s + ls);
			     p += lo ? lo : 1)
				hits++;
			if (!fe_check_str(F, (int64_t)ls + hits * ((int64_t)lr - (int64_t)lo), loc))
				return NULL;
			tlc_buf b;
			tlc_buf_init(&b);
			const char *p = s;
			for (int64_t h = 0; h < hits; h++) {
				const char *q = lo ? strstr(p, old) : p;
				tlc_buf_printf(&b, "%.*s%s", (int)(q - p), p, rep);
				p = q + lo;
				if (!lo && *p)
					tlc_buf_putc(&b, *p++);
				else if (!lo)
					break;
			}
			tlc_buf_puts(&b, p);
			fe_val *r = fe_str(F, fe_strdup(F, tlc_buf_str(&b)));
			tlc_buf_free(&b);
			return r;
		}
		if ((!strcmp(name, "startswith") || !strcmp(name, "endswith")) && nargs == 1 &&
		    args[0]->kind == FV_STR) {
			size_t ls = strlen(s), lp = strlen(args[0]->u.s);
			if (lp > ls)
				return F->vfalse;
			return fe_bool(F, strncmp(name[0] == 's' ? s : s + ls - lp, args[0]->u.s, lp) == 0);
		}
		if (strcmp(name, "join") == 0 && nargs == 1) {
			fe_val *it = fe_iterate(F, args[0], loc);
			if (!it)
				return NULL;
			/* the size first: join of a long list of long strings must not build it */
			int64_t total = 0, ls = (int64_t)strlen(s);
			for (int i = 0; i < it->u.seq.n; i++) {
				if (it->u.seq.items[i]->kind != FV_STR)
					goto bad;
				total += (i ? ls : 0) + (int64_t)strlen(it->u.seq.items[i]->u.s);
				if (total > F->lim.string_bytes)
					break;
			}
			if (!fe_check_str(F, total, loc))
				return NULL;
			tlc_buf b;
			tlc_buf_init(&b);
			for (int i = 0; i < it->u.seq.n; i++)
				tlc_buf_printf(&b, "%s%s", i ? s : "", it->u.seq.items[i]->u.s);
			fe_val *v = fe_str(F, tlc_buf_str(&b));
			tlc_buf_free(&b);
			return v;
		}
	}
bad:
	tlc_error(F->ctx, loc, "unsupported call of %s.%s()", fe_kind_name(self), name);
	return NULL;
}

static bool want_args(fe *F, const char *name, int nargs, int lo, int hi, tlc_loc loc)
{
	if (nargs >= lo && nargs <= hi)
		return true;
	if (lo == hi)
		tlc_error(F->ctx, loc, "%s() expects %d argument%s, got %d", name, lo, lo == 1 ? "" : "s",
		          nargs);
	else
		tlc_error(F->ctx, loc, "%s() expects %d to %d arguments, got %d", name, lo, hi, nargs);
	return false;
}

/* min()/max() of compile-time numbers or, when any is symbolic, T.min/T.max. */
static fe_val *minmax(fe *F, bool is_max, int nargs, fe_val **args, tlc_loc loc)
{
	if (nargs == 1) {
		fe_val *it = fe_iterate(F, args[0], loc);
		if (!it)
			return NULL;
		nargs = it->u.seq.n;
		args = it->u.seq.items;
	}
	if (nargs == 0) {
		tlc_error(F->ctx, loc, "%s() of an empty sequence", is_max ? "max" : "min");
		return NULL;
	}
	if (!fe_work(F, nargs, loc))
		return NULL;
	fe_val *r = args[0];
	for (int i = 1; i < nargs; i++) {
		fe_val *b = args[i];
		if (fe_is_symbolic(r) || fe_is_symbolic(b)) {
			const tlc_expr *x, *y;
			if (!fe_scalar_pair(F, is_max ? TLC_EXPR_MAX : TLC_EXPR_MIN, r, b, loc, &x, &y))
				return NULL;
			r = fe_expr(F, tlc_binary(F->m, is_max ? TLC_EXPR_MAX : TLC_EXPR_MIN, x, y));
			continue;
		}
		fe_val *lt = fe_binop(F, PY_OP_LT, r, b, loc); /* only numbers reach here sanely */
		if (!lt)
			return NULL;
		if (lt->kind == FV_BOOL && lt->u.b == is_max)
			r = b;
	}
	return r;
}

fe_val *fe_minmax(fe *F, bool is_max, int nargs, fe_val **args, tlc_loc loc)
{
	return minmax(F, is_max, nargs, args, loc);
}

static fe_val *make_range(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	if (!want_args(F, "range", nargs, 1, 3, loc))
		return NULL;
	int64_t v[3] = {0, 0, 1};
	bool all_const = true;
	for (int i = 0; i < nargs; i++)
		if (!fe_as_int(args[i], &v[i]))
			all_const = false;
	if (!all_const || (F->kernel && F->kernel->block && F->frame->kernel_mode)) {
		/* in a kernel, range() is a serial loop (TileLang semantics) */
		return fe_call_t(F, "T.serial", nargs, args, 0, NULL, NULL, loc);
	}
	if (nargs == 1) {
		v[1] = v[0];
		v[0] = 0;
	}
	if (v[2] == 0) {
		tlc_error(F->ctx, loc, "range() step must not be zero");
		return NULL;
	}
	fe_val *r = fe_new(F, FV_RANGE);
	r->u.range.start = v[0];
	r->u.range.stop = v[1];
	r->u.range.step = v[2];
	return r;
}

/* The integer value of an integral double x (the result of floor, ceil,
 * round, ...), or Python's error where an int64 cannot hold it (Python's
 * ints are unbounded: silently clamping would be a wrong value). */
static fe_val *fe_int_of_float(fe *F, double x, const char *fn, tlc_loc loc)
{
	if (isnan(x) || isinf(x)) {
		tlc_error(F->ctx, loc, "%s(): cannot convert float %s to integer", fn,
		          isnan(x) ? "NaN" : "infinity");
		return NULL;
	}
	/* [-2^63, 2^63): both bounds are exact doubles */
	if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) {
		tlc_error(F->ctx, loc, "%s(): %.17g is too large for a 64-bit integer", fn, x);
		return NULL;
	}
	return fe_int(F, (int64_t)x);
}

static fe_val *to_number(fe *F, const char *name, fe_val *a, tlc_loc loc)
{
	bool is_int = strcmp(name, "int") == 0;
	if (a->kind == FV_INT || a->kind == FV_BOOL)
		return is_int ? fe_int(F, a->kind == FV_INT ? a->u.i : a->u.b)
		              : fe_float(F, (double)(a->kind == FV_INT ? a->u.i : a->u.b));
	if (a->kind == FV_FLOAT) {
		if (!is_int)
			return a;
		return fe_int_of_float(F, trunc(a->u.f), "int", loc);
	}
	if (a->kind == FV_STR) {
		char *end;
		if (is_int) {
			errno = 0;
			long long x = strtoll(a->u.s, &end, 10);
			if (*a->u.s && !*end && errno == ERANGE) {
				tlc_error(F->ctx, loc, "int('%.40s'): too large for a 64-bit integer", a->u.s);
				return NULL;
			}
			if (*a->u.s && !*end)
				return fe_int(F, x);
		} else {
			double x = strtod(a->u.s, &end);
			if (*a->u.s && !*end)
				return fe_float(F, x);
		}
		tlc_error(F->ctx, loc, "invalid literal for %s(): '%s'", name, a->u.s);
		return NULL;
	}
	if (fe_is_symbolic(a)) {
		const tlc_expr *e = fe_to_scalar(F, a, loc);
		return e ? fe_expr(F, tlc_cast(F->m, is_int ? TLC_DT_INT32 : TLC_DT_FLOAT32, e)) : NULL;
	}
	tlc_error(F->ctx, loc, "%s() of a %s is not supported", name, fe_kind_name(a));
	return NULL;
}

static fe_val *call_math(fe *F, const char *fn, int nargs, fe_val **args, tlc_loc loc)
{
	if (!strcmp(fn, "gcd") && nargs == 2 && args[0]->kind == FV_INT && args[1]->kind == FV_INT) {
		/* in unsigned: |-2^63| is 2^63 */
		uint64_t a = (uint64_t)args[0]->u.i, b = (uint64_t)args[1]->u.i;
		a = args[0]->u.i < 0 ? (uint64_t)0 - a : a;
		b = args[1]->u.i < 0 ? (uint64_t)0 - b : b;
		while (b) {
			uint64_t t = a % b;
			a = b;
			b = t;
		}
		return a > (uint64_t)INT64_MAX ? fe_overflow(F, loc) : fe_int(F, (int64_t)a);
	}
	if (!strcmp(fn, "pow") && nargs == 2)
		return fe_binop(F, PY_OP_POW, args[0], args[1], loc);
	if (nargs != 1 || (args[0]->kind != FV_INT && args[0]->kind != FV_FLOAT &&
	                   args[0]->kind != FV_BOOL)) {
		tlc_error(F->ctx, loc, "math.%s() needs one compile-time number", fn);
		return NULL;
	}
	double x = args[0]->kind == FV_FLOAT ? args[0]->u.f : (double)(args[0]->kind == FV_INT ? args[0]->u.i : args[0]->u.b);
	if (!strcmp(fn, "ceil") || !strcmp(fn, "floor"))
		return fe_int_of_float(F, fn[0] == 'c' ? ceil(x) : floor(x), fn, loc);
	if (!strcmp(fn, "isqrt")) {
		if (x < 0) {
			tlc_error(F->ctx, loc, "math.isqrt() argument must be nonnegative");
			return NULL;
		}
		return fe_int_of_float(F, floor(sqrt(x)), fn, loc);
	}
	double r = !strcmp(fn, "sqrt") ? sqrt(x) : !strcmp(fn, "log") ? log(x) : !strcmp(fn, "log2") ? log2(x)
	         : !strcmp(fn, "log10") ? log10(x) : !strcmp(fn, "exp") ? exp(x) : exp2(x);
	return fe_float(F, r);
}

/* sorted(): a stable merge sort (n log n comparisons: insertion sort was
 * quadratic on a long list); false if a comparison fails (reported). */
static bool sort_values(fe *F, fe_val **v, int n, tlc_loc loc)
{
	if (n < 2)
		return true;
	int64_t rounds = 1;
	for (int w = 1; w < n; w *= 2)
		rounds++;
	if (!fe_work(F, (int64_t)n * rounds, loc))
		return false;
	fe_val **tmp = fe_alloc(F, sizeof(fe_val *) * (size_t)n);
	for (int w = 1; w < n; w *= 2) {
		for (int lo = 0; lo < n; lo += 2 * w) {
			int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			int i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				fe_val *lt = fe_binop(F, PY_OP_LT, v[j], v[i], loc);
				if (!lt)
					return false;
				/* take from the right only when strictly smaller: stable */
				tmp[k++] = lt->kind == FV_BOOL && lt->u.b ? v[j++] : v[i++];
			}
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, sizeof(fe_val *) * (size_t)n);
	}
	return true;
}

static fe_val *call_builtin(fe *F, const char *name, int nargs, fe_val **args, int nkw,
                            const char **kw_names, fe_val **kw_vals, tlc_loc loc)
{
	if (strncmp(name, "T.", 2) == 0 || strncmp(name, "tilelang.", 9) == 0)
		return fe_call_t(F, name, nargs, args, nkw, kw_names, kw_vals, loc);
	if (strncmp(name, "math.", 5) == 0)
		return call_math(F, name + 5, nargs, args, loc);
	if (strncmp(name, "itertools.", 10) == 0 || strncmp(name, "functools.", 10) == 0)
		return fe_call_stdlib(F, name, nargs, args, nkw, kw_names, kw_vals, loc);
	if (nkw && strcmp(name, "print") && strcmp(name, "sorted") && strcmp(name, "dict")) {
		tlc_error(F->ctx, loc, "%s() takes no keyword arguments here", name);
		return NULL;
	}
	if (strcmp(name, "range") == 0)
		return make_range(F, nargs, args, loc);
	if (strcmp(name, "print") == 0)
		return F->none;
	if (strcmp(name, "len") == 0) {
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		fe_val *a = args[0];
		if (a->kind == FV_BUF)
			return fe_expr(F, a->u.buf->shape[0]);
		if (a->kind == FV_STR)
			return fe_int(F, (int64_t)strlen(a->u.s));
		if (a->kind == FV_DICT)
			return fe_int(F, a->u.dict.n);
		if (a->kind == FV_RANGE) { /* counted, not built */
			int64_t n = fe_range_len(a->u.range.start, a->u.range.stop, a->u.range.step);
			return n < 0 ? fe_overflow(F, loc) : fe_int(F, n);
		}
		fe_val *it = fe_iterate(F, a, loc);
		return it ? fe_int(F, it->u.seq.n) : NULL;
	}
	if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
		return minmax(F, name[1] == 'a', nargs, args, loc);
	if (strcmp(name, "abs") == 0) {
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		if (fe_is_symbolic(args[0]))
			return fe_call_t(F, "T.abs", 1, args, 0, NULL, NULL, loc);
		fe_val *zero = fe_int(F, 0);
		fe_val *lt = fe_binop(F, PY_OP_LT, args[0], zero, loc);
		if (!lt)
			return NULL;
		return lt->u.b ? fe_binop(F, PY_OP_SUB, zero, args[0], loc) : args[0];
	}
	if (strcmp(name, "int") == 0 || strcmp(name, "float") == 0) {
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		return to_number(F, name, args[0], loc);
	}
	if (strcmp(name, "bool") == 0) {
		bool t = false;
		if (!want_args(F, name, nargs, 1, 1, loc) || !fe_truthy(F, args[0], loc, &t))
			return NULL;
		return fe_bool(F, t);
	}
	if (strcmp(name, "str") == 0) {
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		const char *text = fe_show(F, args[0]);
		if (!fe_check_str(F, (int64_t)strlen(text), loc))
			return NULL;
		fe_val *v = fe_new(F, FV_STR);
		v->u.s = text;
		return v;
	}
	if (strcmp(name, "tuple") == 0 || strcmp(name, "list") == 0 || strcmp(name, "sorted") == 0 ||
	    strcmp(name, "reversed") == 0 || strcmp(name, "set") == 0) {
		if (nargs == 0)
			return fe_seq(F, name[0] == 't' ? FV_TUPLE : FV_LIST, 0);
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		fe_val *it = fe_iterate(F, args[0], loc);
		if (!it || !fe_work(F, it->u.seq.n, loc))
			return NULL;
		int n = it->u.seq.n;
		fe_val *r = fe_seq(F, name[0] == 't' ? FV_TUPLE : FV_LIST, n);
		for (int i = 0; i < n; i++)
			r->u.seq.items[i] = it->u.seq.items[name[0] == 'r' ? n - 1 - i : i];
		if (name[0] == 's' && name[1] == 'o' && !sort_values(F, r->u.seq.items, n, loc))
			return NULL;
		return name[0] == 's' && name[1] == 'e' ? fe_unique(F, r, loc) : r;
	}
	if (strcmp(name, "dict") == 0) {
		fe_val *d = fe_dict(F);
		if (!want_args(F, name, nargs, 0, 1, loc))
			return NULL;
		if (nargs && args[0]->kind == FV_DICT) {
			for (int i = 0; i < args[0]->u.dict.n; i++)
				fe_dict_set(F, d, args[0]->u.dict.keys[i], args[0]->u.dict.vals[i]);
		} else if (nargs) { /* an iterable of (key, value) pairs */
			fe_val *it = fe_iterate(F, args[0], loc);
			if (!it || !fe_work(F, it->u.seq.n, loc))
				return NULL;
			for (int i = 0; i < it->u.seq.n; i++) {
				fe_val *pair = fe_iterate(F, it->u.seq.items[i], loc);
				if (!pair)
					return NULL;
				if (pair->u.seq.n != 2) {
					tlc_error(F->ctx, loc, "dictionary update sequence element #%d has length %d; 2 is required",
					          i, pair->u.seq.n);
					return NULL;
				}
				fe_dict_set(F, d, pair->u.seq.items[0], pair->u.seq.items[1]);
			}
		}
		for (int i = 0; i < nkw; i++)
			fe_dict_set(F, d, fe_str(F, kw_names[i]), kw_vals[i]);
		return d;
	}
	if (strcmp(name, "enumerate") == 0 || strcmp(name, "zip") == 0) {
		fe_val *its[8];
		if (nargs < 1 || nargs > 8 || (name[0] == 'e' && nargs != 1)) {
			tlc_error(F->ctx, loc, "unsupported call of %s()", name);
			return NULL;
		}
		int len = -1;
		for (int i = 0; i < nargs; i++) {
			if (!(its[i] = fe_iterate(F, args[i], loc)))
				return NULL;
			if (len < 0 || its[i]->u.seq.n < len)
				len = its[i]->u.seq.n;
		}
		if (!fe_work(F, (int64_t)len * (nargs + 1), loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, 0);
		for (int k = 0; k < len; k++) {
			fe_val *t = fe_seq(F, FV_TUPLE, 0);
			if (name[0] == 'e')
				fe_seq_push(F, t, fe_int(F, k));
			for (int i = 0; i < nargs; i++)
				fe_seq_push(F, t, its[i]->u.seq.items[k]);
			fe_seq_push(F, r, t);
		}
		return r;
	}
	if (strcmp(name, "sum") == 0 || strcmp(name, "any") == 0 || strcmp(name, "all") == 0) {
		if (!want_args(F, name, nargs, 1, 1, loc))
			return NULL;
		fe_val *it = fe_iterate(F, args[0], loc);
		if (!it || !fe_work(F, it->u.seq.n, loc))
			return NULL;
		fe_val *acc = name[0] == 's' ? fe_int(F, 0) : fe_bool(F, name[1] == 'l');
		for (int i = 0; i < it->u.seq.n; i++) {
			if (name[0] == 's') {
				if (!(acc = fe_binop(F, PY_OP_ADD, acc, it->u.seq.items[i], loc)))
					return NULL;
				continue;
			}
			bool t;
			if (!fe_truthy(F, it->u.seq.items[i], loc, &t))
				return NULL;
			if (t == (name[1] == 'n'))
				return fe_bool(F, t);
		}
		return acc;
	}
	if (strcmp(name, "divmod") == 0 && nargs == 2) {
		fe_val *r = fe_seq(F, FV_TUPLE, 2);
		r->u.seq.items[0] = fe_binop(F, PY_OP_FLOORDIV, args[0], args[1], loc);
		r->u.seq.items[1] = r->u.seq.items[0] ? fe_binop(F, PY_OP_MOD, args[0], args[1], loc) : NULL;
		return r->u.seq.items[1] ? r : NULL;
	}
	if (strcmp(name, "pow") == 0 && nargs == 2)
		return fe_binop(F, PY_OP_POW, args[0], args[1], loc);
	if (strcmp(name, "round") == 0 && nargs == 1 && args[0]->kind == FV_FLOAT)
		return fe_int_of_float(F, nearbyint(args[0]->u.f), "round", loc);
	if (strcmp(name, "round") == 0 && nargs == 1 && args[0]->kind == FV_INT)
		return args[0];
	if (strcmp(name, "isinstance") == 0 && nargs == 2) {
		/* a type or a tuple of types (tvm.tir's too: frontend_tvm.c) */
		bool tuple = args[1]->kind == FV_TUPLE;
		int nt = tuple ? args[1]->u.seq.n : 1;
		bool r = false;
		for (int i = 0; i < nt && !r; i++) {
			fe_val *t = tuple ? args[1]->u.seq.items[i] : args[1];
			if (t->kind != FV_BUILTIN) {
				tlc_error(F->ctx, loc, "isinstance() needs a builtin type");
				return NULL;
			}
			fe_kind k = args[0]->kind;
			const char *tn = t->u.s;
			if (fe_tvm_isinstance(args[0], tn, &r))
				continue;
			r = (!strcmp(tn, "int") && (k == FV_INT || k == FV_BOOL)) ||
			    (!strcmp(tn, "float") && k == FV_FLOAT) ||
			    (!strcmp(tn, "str") && k == FV_STR) ||
			    (!strcmp(tn, "bool") && k == FV_BOOL) ||
			    (!strcmp(tn, "tuple") && k == FV_TUPLE) ||
			    (!strcmp(tn, "list") && k == FV_LIST) ||
			    (!strcmp(tn, "dict") && k == FV_DICT);
		}
		return fe_bool(F, r);
	}
	tlc_error(F->ctx, loc, "unsupported call of builtin '%s'", name);
	return NULL;
}

/* @tilelang.jit(...) / @tilelang.autotune(...) / T.prim_func applied to a function. */
static fe_val *apply_decorator(fe *F, fe_val *dec, fe_val *fn, tlc_loc loc);

fe_val *fe_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kw_names,
                fe_val **kw_vals, tlc_loc loc)
{
	fe_val *hr;
	if (fe_host_call(F, fn, nargs, args, nkw, kw_names, kw_vals, loc, &hr))
		return hr;
	switch (fn->kind) {
	case FV_FUNC: {
		fe_val *passes = fn->u.fn.jit_configs;
		if (fn->u.fn.autotune && !fe_autotune_call_args(F, fn, nargs, args, &nkw, &kw_names, &kw_vals,
		                                                &passes, loc))
			return NULL;
		fe_val *r = fe_call_function(F, fn, nargs, args, nkw, kw_names, kw_vals, loc);
		if (r && r->kind == FV_PRIMFUNC && (fn->u.fn.flags & FF_JIT)) {
			fe_val *c = fe_new(F, FV_PRIMFUNC);
			*c = *r;
			c->u.pf.out_idx = fn->u.fn.jit_out_idx;
			c->u.pf.configs = passes;
			r = c;
		}
		return r;
	}
	case FV_BUILTIN:
		return call_builtin(F, fn->u.s, nargs, args, nkw, kw_names, kw_vals, loc);
	case FV_BOUND:
		if (strcmp(fn->u.bound.name, "decorator") == 0) {
			if (nargs != 1 || nkw) {
				tlc_error(F->ctx, loc, "a decorator takes one function");
				return NULL;
			}
			return apply_decorator(F, fn, args[0], loc);
		}
		if (strcmp(fn->u.bound.name, "partial") == 0)
			return fe_call_partial(F, fn, nargs, args, nkw, kw_names, kw_vals, loc);
		if (strcmp(fn->u.bound.name, "astype") == 0) {
			static const char *const names[] = {"dtype"};
			fe_val *a[2] = {fn->u.bound.self, NULL};
			if (!fe_bind_args(F, "astype", names, 1, 1, nargs, args, nkw, kw_names, kw_vals, a + 1, loc))
				return NULL;
			return fe_call_t(F, "T.cast", 2, a, 0, NULL, NULL, loc);
		}
		if (strcmp(fn->u.bound.name, "access_ptr") == 0 && fn->u.bound.self->kind == FV_BUF)
			return fe_call_access_ptr(F, fn->u.bound.self->u.buf, nargs, args, nkw, kw_names, kw_vals,
			                          loc);
		if (strcmp(fn->u.bound.name, "format") == 0 && fn->u.bound.self->kind == FV_STR)
			return fe_str_format(F, fn->u.bound.self->u.s, nargs, args, nkw, kw_names, kw_vals, loc);
		if (nkw) {
			tlc_error(F->ctx, loc, "%s() takes no keyword arguments", fn->u.bound.name);
			return NULL;
		}
		return call_method(F, fn, nargs, args, loc);
	case FV_DTYPE: {
		/* T.float16(1.5): a typed constant; T.float16(x): a cast */
		if (nargs != 1 || nkw) {
			tlc_error(F->ctx, loc, "T.%s() expects 1 argument", tlc_dtype_name(fn->u.dt));
			return NULL;
		}
		tlc_dtype t = fn->u.dt;
		fe_val *a = args[0];
		if ((a->kind == FV_INT || a->kind == FV_BOOL) && t == TLC_DT_BOOL)
			return fe_bool(F, (a->kind == FV_INT ? a->u.i : a->u.b) != 0);
		if (a->kind == FV_FLOAT && !tlc_dtype_is_float(t)) {
			/* T.int32(2.7): Python's int() first, then the integer type */
			fe_val *i = fe_int_of_float(F, trunc(a->u.f), tlc_dtype_name(t), loc);
			const tlc_expr *e = i ? fe_scalar_as(F, i, t, loc) : NULL;
			return e ? fe_typed_const(F, e) : NULL;
		}
		/* a typed constant: the language's conversion of the value
		 * (T.int8(300) wraps to 44, T.float16(0.1) rounds) */
		const tlc_expr *e = fe_scalar_as(F, a, t, loc);
		return e ? fe_typed_const(F, e) : NULL;
	}
	case FV_HOST: {
		if (fe_refused_import(F, fn, loc))
			return NULL;
		/* host code: opaque, but for the SM count of tilelang's helpers */
		const char *last = strrchr(fn->u.s, '.');
		if (strcmp(last ? last + 1 : fn->u.s, "get_num_sms") == 0)
			return sm_count(F, "get_num_sms()", loc);
		return fn;
	}
	case FV_MISSING:
		fe_err_not_kernel(F, fn, loc);
		return NULL;
	default:
		if (fn->kind == FV_PRIMFUNC)
			F->host_uses++; /* kernel(a, b): host code runs a built kernel */
		tlc_error(F->ctx, loc, "a %s is not callable", fe_kind_name(fn));
		return NULL;
	}
}

static fe_val *apply_decorator(fe *F, fe_val *dec, fe_val *fn, tlc_loc loc)
{
	fe_val *opts = dec->u.bound.self; /* dict: "kind" plus the decorator's keywords */
	fe_val *kind = fe_dict_get(F, opts, fe_str(F, "kind"));
	const char *k = kind ? kind->u.s : "";
	if (strcmp(k, "identity") == 0)
		return fn;
	if (fn->kind != FV_FUNC) {
		if (fn->kind == FV_HOST)
			return fn;
		tlc_error(F->ctx, loc, "@%s applies to a function, got %s", k, fe_kind_name(fn));
		return NULL;
	}
	fe_val *r = fe_new(F, FV_FUNC);
	*r = *fn;
	if (strcmp(k, "jit") == 0) {
		r->u.fn.flags |= FF_JIT;
		r->u.fn.jit_out_idx = fe_dict_get(F, opts, fe_str(F, "out_idx"));
		r->u.fn.jit_configs = fe_dict_get(F, opts, fe_str(F, "pass_configs"));
	}
	if (strcmp(k, "autotune") == 0) {
		/* the configs are evaluated when the function is the entry
		 * (frontend.c): the search itself is not tlc's */
		fe_val *configs = fe_dict_get(F, opts, fe_str(F, "configs"));
		if (configs)
			r->u.fn.autotune = configs;
	}
	return r;
}
