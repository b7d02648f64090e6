/* frontend_host.c - the host Python around kernels that tlc answers at
 * compile time beyond the builtins: tilelang.math (cdiv, next_power_of_2),
 * tvm.DataType / T.dtype and a dtype used as the str it is, the methods of
 * int and float, and the queries of the device that kernel files make
 * through torch (torch.cuda.get_device_capability(), get_device_name(),
 * is_available(), torch.version.cuda / .hip), answered from the target
 * description's reference device (tlc_target_device) or a -D value. */
#include "frontend.h"

#include <tlc/target.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fe_val *host_bound(fe *F, const char *name, fe_val *self)
{
	fe_val *v = fe_new(F, FV_BOUND);
	v->u.bound.name = name;
	v->u.bound.self = self;
	return v;
}

static fe_val *module(fe *F, const char *name, int mod)
{
	fe_val *v = fe_new(F, FV_MODULE);
	v->u.s = name;
	v->mod = mod;
	return v;
}

/* ---- tilelang.math and tvm ---- */

static const char *const tlmath_names[] = {"cdiv", "next_power_of_2"};

static bool tlmath_has(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(tlmath_names); i++)
		if (strcmp(tlmath_names[i], name) == 0)
			return true;
	return false;
}

static fe_val *tlmath_attr(fe *F, const char *name, tlc_loc loc)
{
	if (strcmp(name, "cdiv") == 0)
		return fe_builtin(F, "tilelang.math.cdiv");
	if (strcmp(name, "next_power_of_2") == 0)
		return fe_builtin(F, "tilelang.math.next_power_of_2");
	tlc_error(F->ctx, loc,
		  "unsupported function 'tilelang.math.%s' (tilelang.math has cdiv and "
		  "next_power_of_2)",
		  name);
	return NULL;
}

bool fe_host_module_has(int mod, const char *name, bool *has)
{
	switch (mod) {
	case FM_TLMATH:
		*has = tlmath_has(name);
		return true;
	case FM_TVM:
		*has = !strcmp(name, "DataType") || !strcmp(name, "tir") || !strcmp(name, "te");
		return true;
	case FM_TILELANG:
		if (tlmath_has(name) || !strcmp(name, "math") || !strcmp(name, "DataType") ||
		    !strcmp(name, "tvm") || !strcmp(name, "quantize")) {
			*has = true;
			return true;
		}
		return false;
	case FM_T:
		if (!strcmp(name, "dtype") || !strcmp(name, "DataType")) {
			*has = true;
			return true;
		}
		return false;
	default:
		return false;
	}
}

/* Attributes of modules this file adds to: false (nothing reported) when
 * the module's own table answers, else true and *out as fe_host_getattr. */
static bool module_attr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out)
{
	switch (v->mod) {
	case FM_TLMATH:
		*out = tlmath_attr(F, name, loc);
		return true;
	case FM_TVM_TIR:
	case FM_TVM_TE:
		*out = fe_tvm_attr(F, v->mod, name, loc);
		return true;
	case FM_TVM:
		if (strcmp(name, "DataType") == 0) {
			*out = fe_builtin(F, "tvm.DataType");
		} else if (!strcmp(name, "tir") || !strcmp(name, "te")) {
			*out = module(F, name[1] == 'i' ? "tvm.tir" : "tvm.te",
				      name[1] == 'i' ? FM_TVM_TIR : FM_TVM_TE);
		} else { /* tvm.tir, tvm.target, ...: host API, opaque */
			fe_val *h = fe_new(F, FV_HOST);
			size_t n = strlen(name) + 5;
			char *s = fe_alloc(F, n);
			snprintf(s, n, "tvm.%s", name);
			h->u.s = s;
			*out = h;
		}
		return true;
	case FM_TILELANG:
		if (tlmath_has(name)) {
			*out = tlmath_attr(F, name, loc);
			return true;
		}
		if (strcmp(name, "math") == 0) {
			*out = module(F, "tilelang.math", FM_TLMATH);
			return true;
		}
		if (strcmp(name, "tvm") == 0) {
			*out = module(F, "tvm", FM_TVM);
			return true;
		}
		if (strcmp(name, "DataType") == 0) {
			*out = fe_builtin(F, "tvm.DataType");
			return true;
		}
		if (strcmp(name, "quantize") == 0) {
			bool found;
			*out = fe_bundled_module(F, "tilelang.quantize", loc, &found);
			return true;
		}
		return false;
	case FM_T:
		if (!strcmp(name, "dtype") || !strcmp(name, "DataType")) {
			*out = fe_builtin(F, "tvm.DataType");
			return true;
		}
		return false;
	default:
		if (v->mod >= FM_USER) {
			*out = fe_pymodule_attr(F, v, name, loc);
			return true;
		}
		return false;
	}
}

/* next_power_of_2(x) is 1 << (x - 1).bit_length() */
static int bit_length(int64_t x)
{
	uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	int n = 0;
	while (u) {
		n++;
		u >>= 1;
	}
	return n;
}

static int bit_count(int64_t x)
{
	uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	int n = 0;
	for (; u; u &= u - 1)
		n++;
	return n;
}

static fe_val *call_tlmath(fe *F, const char *fn, int nargs, fe_val **args, tlc_loc loc)
{
	if (strcmp(fn, "cdiv") == 0) {
		if (nargs != 2) {
			tlc_error(F->ctx, loc, "tilelang.cdiv() expects 2 arguments, got %d",
				  nargs);
			return NULL;
		}
		/* (a + b - 1) // b, as tilelang writes it: Python's meaning on
		 * numbers, the same expression on kernel values */
		fe_val *s = fe_binop(F, PY_OP_ADD, args[0], args[1], loc);
		s = s ? fe_binop(F, PY_OP_SUB, s, fe_int(F, 1), loc) : NULL;
		return s ? fe_binop(F, PY_OP_FLOORDIV, s, args[1], loc) : NULL;
	}
	/* next_power_of_2 */
	int64_t x;
	if (nargs != 1 || (args[0]->kind != FV_INT && args[0]->kind != FV_BOOL)) {
		tlc_error(F->ctx, loc, "tilelang.next_power_of_2() needs one compile-time integer");
		return NULL;
	}
	x = args[0]->kind == FV_INT ? args[0]->u.i : args[0]->u.b;
	int n = x == INT64_MIN ? 64 : bit_length(x - 1);
	if (n > 62)
		return fe_overflow(F, loc);
	return fe_int(F, (int64_t)1 << n);
}

/* tvm.DataType("float16"), T.dtype(...): the dtype of that name */
static fe_val *data_type(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	tlc_dtype t;
	if (nargs != 1) {
		tlc_error(F->ctx, loc, "DataType() expects 1 argument, got %d", nargs);
		return NULL;
	}
	if (args[0]->kind != FV_STR && args[0]->kind != FV_DTYPE) {
		tlc_error(F->ctx, loc, "DataType() needs a dtype name, not %s",
			  fe_kind_name(args[0]));
		return NULL;
	}
	return fe_to_dtype(F, args[0], loc, &t) ? fe_dtype(F, t) : NULL;
}

/* ---- the reference device (torch.cuda) ---- */

static const tlc_target_device *device(fe *F)
{
	return tlc_target_device_of(F->opts ? F->opts->target : NULL);
}

static bool no_device(fe *F, const char *query, const char *define, tlc_loc loc)
{
	tlc_error(F->ctx, loc, "%s: the device is not known %s: give -D %s", query,
		  F->opts && F->opts->target ? "for this target" : "without a target", define);
	return false;
}

/* -D device_capability=9.0 | 90 | sm_90 | "8.9", else the target's. */
bool fe_device_capability(fe *F, const char *query, tlc_loc loc, int *major, int *minor)
{
	fe_val *d = fe_define(F, "device_capability");
	if (d) {
		char buf[64];
		if (d->kind == FV_INT) {
			snprintf(buf, sizeof buf, "%lld", (long long)d->u.i);
		} else if (d->kind == FV_FLOAT) {
			snprintf(buf, sizeof buf, "%.1f", d->u.f);
		} else if (d->kind == FV_STR) {
			snprintf(buf, sizeof buf, "%s",
				 strncmp(d->u.s, "sm_", 3) == 0 ? d->u.s + 3 : d->u.s);
		} else {
			buf[0] = 0;
		}
		char *end;
		long a = strtol(buf, &end, 10), b = 0;
		bool ok = end != buf && a >= 0;
		if (ok && *end == '.') {
			char *p = end + 1;
			b = strtol(p, &end, 10);
			ok = end != p && b >= 0 && b < 10;
		} else if (ok) { /* 90 is (9, 0), 120 is (12, 0): the last digit is the minor */
			b = a % 10;
			a /= 10;
		}
		ok = ok && (*end == 0 || *end == 'a') && a > 0 && a < 100;
		if (!ok) {
			tlc_error(F->ctx, loc,
				  "-D device_capability=%s: expected MAJOR.MINOR, e.g. 8.9 or 90",
				  fe_show(F, d));
			return false;
		}
		*major = (int)a;
		*minor = (int)b;
		return true;
	}
	const tlc_target_device *dev = device(F);
	if (!dev)
		return no_device(F, query, "device_capability=MAJOR.MINOR", loc);
	*major = dev->capability_major;
	*minor = dev->capability_minor;
	return true;
}

static fe_val *device_name(fe *F, const char *query, tlc_loc loc)
{
	fe_val *d = fe_define(F, "device_name");
	if (d)
		return d->kind == FV_STR ? d : fe_str(F, fe_show(F, d));
	const tlc_target_device *dev = device(F);
	if (!dev) {
		no_device(F, query, "device_name=NAME", loc);
		return NULL;
	}
	return fe_str(F, dev->name);
}

/* torch.version.cuda / torch.version.hip: the version string on its
 * platform, None on the other */
static fe_val *runtime_version(fe *F, const char *which, tlc_loc loc)
{
	const tlc_target_device *dev = device(F);
	if (!dev) {
		char q[32];
		snprintf(q, sizeof q, "torch.version.%s", which);
		no_device(F, q, "a --target", loc);
		return NULL;
	}
	return strcmp(dev->platform, which) == 0 ? fe_str(F, dev->runtime_version) : F->none;
}

/* The part of a host value's name after the module, when it is torch's:
 * "cuda.get_device_name" of "torch.cuda.get_device_name". */
static const char *torch_path(const fe_val *v)
{
	return strncmp(v->u.s, "torch.", 6) == 0 ? v->u.s + 6 : NULL;
}

static bool is_properties(const char *path)
{
	return path && strcmp(path, "cuda.get_device_properties") == 0;
}

static bool host_attr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out)
{
	const char *path = torch_path(v);
	if (!path)
		return false;
	if (strcmp(path, "version") == 0 && (!strcmp(name, "cuda") || !strcmp(name, "hip"))) {
		*out = runtime_version(F, name, loc);
		return true;
	}
	if (is_properties(path)) { /* torch.cuda.get_device_properties(i).X */
		int major, minor;
		if (!strcmp(name, "major") || !strcmp(name, "minor")) {
			*out = fe_device_capability(F, "get_device_properties().major", loc, &major, &minor)
				       ? fe_int(F, name[1] == 'a' ? major : minor)
				       : NULL;
			return true;
		}
		if (strcmp(name, "name") == 0) {
			*out = device_name(F, "get_device_properties().name", loc);
			return true;
		}
		if (strcmp(name, "gcnArchName") == 0) {
			const tlc_target_device *dev = device(F);
			if (dev && strcmp(dev->platform, "hip") == 0)
				*out = fe_str(F, dev->arch);
			else if (dev) /* CUDA's properties have no such attribute */
				tlc_error(F->ctx, loc,
					  "get_device_properties() has no attribute 'gcnArchName' "
					  "on a "
					  "CUDA target (%s)",
					  dev->arch),
					*out = NULL;
			else
				*out = (no_device(F, "gcnArchName", "a --target", loc), NULL);
			return true;
		}
	}
	return false;
}

/* The last dotted part of a host value's name. */
static const char *last_part(const char *s)
{
	const char *dot = strrchr(s, '.');
	return dot ? dot + 1 : s;
}

/* tilelang.transform's simplify_prim_func (a decorator running TVM's
 * Simplify on the prim_func its function returns) and apply_simplify(f):
 * tlc simplifies every kernel itself, so both give back what they get. */
static bool transparent(const fe_val *fn)
{
	const char *last = last_part(fn->u.s);
	/* bitblas.base has the same decorator (TileLang's programs from before
	 * tilelang was its own package import it from there) */
	return (strncmp(fn->u.s, "tilelang.transform.", 19) == 0 ||
		strncmp(fn->u.s, "bitblas.", 8) == 0) &&
	       (!strcmp(last, "simplify_prim_func") || !strcmp(last, "apply_simplify"));
}

static bool host_call(fe *F, fe_val *fn, int nargs, fe_val **args, tlc_loc loc, fe_val **out)
{
	if (transparent(fn) && nargs == 1 &&
	    (args[0]->kind == FV_FUNC || args[0]->kind == FV_PRIMFUNC)) {
		*out = args[0];
		return true;
	}
	const char *path = torch_path(fn);
	if (!path)
		return false;
	if (strcmp(path, "cuda.is_available") == 0) {
		/* tlc compiles for a GPU: code under `if not is_available()` is host */
		*out = F->vtrue;
		return true;
	}
	if (strcmp(path, "cuda.get_device_capability") == 0 && nargs <= 1) {
		int major, minor;
		if (!fe_device_capability(F, "torch.cuda.get_device_capability()", loc, &major, &minor)) {
			*out = NULL;
			return true;
		}
		fe_val *t = fe_seq(F, FV_TUPLE, 2);
		t->u.seq.items[0] = fe_int(F, major);
		t->u.seq.items[1] = fe_int(F, minor);
		*out = t;
		return true;
	}
	if (strcmp(path, "cuda.get_device_name") == 0 && nargs <= 1) {
		*out = device_name(F, "torch.cuda.get_device_name()", loc);
		return true;
	}
	return false;
}

/* ---- int, float and dtype attributes ---- */

static bool is_int(const fe_val *v)
{
	return v->kind == FV_INT || v->kind == FV_BOOL;
}

static int64_t int_of(const fe_val *v)
{
	return v->kind == FV_INT ? v->u.i : v->u.b;
}

static const char *const int_methods[] = {"bit_length",       "bit_count", "conjugate",
					  "__index__",        "__int__",   "is_integer",
					  "as_integer_ratio", "__abs__"};
static const char *const float_methods[] = {"is_integer", "as_integer_ratio", "conjugate",
					    "__float__", "__abs__"};
static const char *const str_methods[] = {"split",      "strip",    "join",    "upper", "lower",
					  "startswith", "endswith", "replace", "format"};

static bool in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

static bool number_attr(fe *F, fe_val *v, const char *name, fe_val **out)
{
	if (is_int(v)) {
		if (in_list(int_methods, TLC_ARRAY_LEN(int_methods), name)) {
			*out = host_bound(F, name, v);
			return true;
		}
		if (!strcmp(name, "numerator") || !strcmp(name, "real")) {
			*out = fe_int(F, int_of(v));
			return true;
		}
		if (!strcmp(name, "denominator") || !strcmp(name, "imag")) {
			*out = fe_int(F, name[0] == 'd');
			return true;
		}
		return false;
	}
	if (in_list(float_methods, TLC_ARRAY_LEN(float_methods), name)) {
		*out = host_bound(F, name, v);
		return true;
	}
	if (!strcmp(name, "real") || !strcmp(name, "imag")) {
		*out = name[0] == 'r' ? v : fe_float(F, 0.0);
		return true;
	}
	return false;
}

static bool dtype_attr(fe *F, fe_val *v, const char *name, fe_val **out)
{
	if (strcmp(name, "lanes") == 0) {
		*out = fe_int(F, 1);
		return true;
	}
	/* tvm's dtype is a str: its methods are the string's */
	if (in_list(str_methods, TLC_ARRAY_LEN(str_methods), name)) {
		*out = host_bound(F, name, fe_str(F, tlc_dtype_name(v->u.dt)));
		return true;
	}
	return false;
}

/* ---- str methods beyond the builtins' ---- */

static const char *const str_more[] = {
	"isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower", "isdecimal", "isnumeric",
	"lstrip", "rstrip", "find", "rfind", "count", "removeprefix", "removesuffix",
};

static bool ascii_is(const char *name, const char *s)
{
	if (!*s)
		return false;
	bool cased = false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		int c = *p;
		bool digit = c >= '0' && c <= '9', up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z';
		bool space = c == ' ' || (c >= '\t' && c <= '\r');
		cased |= up || lo;
		bool ok = !strcmp(name, "isalpha")   ? up || lo
			  : !strcmp(name, "isalnum") ? up || lo || digit
			  : !strcmp(name, "isspace") ? space
			  : !strcmp(name, "isupper") ? !lo
			  : !strcmp(name, "islower") ? !up
						     : digit; /* isdigit, isdecimal, isnumeric */
		if (!ok)
			return false;
	}
	/* "123".isupper() is False: a cased character is needed */
	return strcmp(name, "isupper") && strcmp(name, "islower") ? true : cased;
}

static fe_val *str_method(fe *F, const char *name, const char *s, int nargs, fe_val **args,
			  tlc_loc loc)
{
	if (!strncmp(name, "is", 2)) {
		if (nargs) {
			tlc_error(F->ctx, loc, "str.%s() takes no arguments (%d given)", name, nargs);
			return NULL;
		}
		return fe_bool(F, ascii_is(name, s));
	}
	size_t n = strlen(s);
	if (!strcmp(name, "lstrip") || !strcmp(name, "rstrip")) {
		const char *set = nargs == 1 && args[0]->kind == FV_STR ? args[0]->u.s : " \t\n\r\v\f";
		if (nargs > 1 || (nargs == 1 && args[0]->kind != FV_STR && args[0]->kind != FV_NONE))
			goto bad;
		size_t a = 0, b = n;
		if (name[0] == 'l')
			while (a < b && strchr(set, s[a]))
				a++;
		else
			while (b > a && strchr(set, s[b - 1]))
				b--;
		return fe_str(F, fe_strndup(F, s + a, b - a));
	}
	if (nargs != 1 || args[0]->kind != FV_STR)
		goto bad;
	const char *sub = args[0]->u.s;
	size_t m = strlen(sub);
	if (!strcmp(name, "removeprefix"))
		return fe_str(F, m <= n && !strncmp(s, sub, m) ? s + m : s);
	if (!strcmp(name, "removesuffix"))
		return fe_str(F, m <= n && !strcmp(s + n - m, sub) ? fe_strndup(F, s, n - m) : s);
	if (!strcmp(name, "count")) {
		int64_t c = 0;
		if (!m)
			return fe_int(F, (int64_t)n + 1);
		for (const char *p = strstr(s, sub); p; p = strstr(p + m, sub))
			c++;
		return fe_int(F, c);
	}
	/* find, rfind */
	const char *hit = NULL;
	for (const char *p = strstr(s, sub); p; p = *p ? strstr(p + 1, sub) : NULL) {
		hit = p;
		if (name[0] == 'f')
			break;
	}
	return fe_int(F, hit ? (int64_t)(hit - s) : -1);
bad:
	tlc_error(F->ctx, loc, "unsupported call of str.%s()", name);
	return NULL;
}

bool fe_host_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out)
{
	if (fe_torch_getattr(F, v, name, loc, out) || fe_intrinsics_getattr(F, v, name, loc, out))
		return true;
	if (v->kind == FV_STR && in_list(str_more, TLC_ARRAY_LEN(str_more), name)) {
		*out = host_bound(F, name, v);
		return true;
	}
	switch (v->kind) {
	case FV_MODULE:
		return module_attr(F, v, name, loc, out);
	case FV_HOST:
		return host_attr(F, v, name, loc, out);
	case FV_INT:
	case FV_BOOL:
	case FV_FLOAT:
		return number_attr(F, v, name, out);
	case FV_DTYPE:
		return dtype_attr(F, v, name, out);
	default:
		return false;
	}
}

/* float.as_integer_ratio(): the exact fraction; NULL (reported) where
 * Python's answer does not fit 64 bits or does not exist */
static fe_val *float_ratio(fe *F, double x, tlc_loc loc)
{
	if (isnan(x) || isinf(x)) {
		tlc_error(F->ctx, loc, "cannot convert %s to integer ratio",
			  isnan(x) ? "NaN" : "Infinity");
		return NULL;
	}
	int e;
	double m = frexp(x, &e); /* x = m * 2^e, 0.5 <= |m| < 1 */
	int64_t num = (int64_t)ldexp(m, 53);
	e -= 53;
	while (num != 0 && num % 2 == 0 && e < 0) {
		num /= 2;
		e++;
	}
	if (num == 0)
		e = 0;
	int64_t den = 1;
	if (e > 0) {
		if (e > 62 - bit_length(num))
			return fe_overflow(F, loc);
		num *= (int64_t)1 << e;
	} else if (e < 0) {
		if (-e > 62)
			return fe_overflow(F, loc);
		den = (int64_t)1 << -e;
	}
	fe_val *t = fe_seq(F, FV_TUPLE, 2);
	t->u.seq.items[0] = fe_int(F, num);
	t->u.seq.items[1] = fe_int(F, den);
	return t;
}

static fe_val *number_method(fe *F, const char *name, fe_val *self, int nargs, tlc_loc loc)
{
	if (nargs) {
		tlc_error(F->ctx, loc, "%s.%s() takes no arguments (%d given)", fe_kind_name(self),
			  name, nargs);
		return NULL;
	}
	if (is_int(self)) {
		int64_t x = int_of(self);
		if (!strcmp(name, "bit_length"))
			return fe_int(F, bit_length(x));
		if (!strcmp(name, "bit_count"))
			return fe_int(F, bit_count(x));
		if (!strcmp(name, "is_integer"))
			return F->vtrue;
		if (!strcmp(name, "__abs__"))
			return x == INT64_MIN ? fe_overflow(F, loc) : fe_int(F, x < 0 ? -x : x);
		if (!strcmp(name, "as_integer_ratio")) {
			fe_val *t = fe_seq(F, FV_TUPLE, 2);
			t->u.seq.items[0] = fe_int(F, x);
			t->u.seq.items[1] = fe_int(F, 1);
			return t;
		}
		return fe_int(F, x); /* conjugate, __index__, __int__ (a bool gives its int) */
	}
	double x = self->u.f;
	if (!strcmp(name, "is_integer"))
		return fe_bool(F, isfinite(x) && x == floor(x));
	if (!strcmp(name, "as_integer_ratio"))
		return float_ratio(F, x, loc);
	if (!strcmp(name, "__abs__"))
		return fe_float(F, fabs(x));
	return self; /* conjugate, __float__ */
}

fe_val *fe_globals_fn(fe *F, fe_env *env, tlc_loc loc)
{
	while (env->parent)
		env = env->parent;
	if (!fe_work(F, env->n, loc))
		return NULL;
	fe_val *d = fe_dict(F);
	for (int i = 0; i < env->n; i++)
		fe_dict_set(F, d, fe_str(F, env->names[i]), env->vals[i]);
	return host_bound(F, "globals", d);
}

/* getattr(obj, name[, default]) and hasattr(obj, name): the attribute
 * looked up as `obj.name` is; one that is not there is the default (or
 * False), its error taken back.  Of an opaque host value the answer is
 * host too: tlc does not know what torch has. */
static fe_val *get_or_has(fe *F, bool has, int nargs, fe_val **args, tlc_loc loc)
{
	const char *fn = has ? "hasattr" : "getattr";
	if (nargs < 2 || nargs > (has ? 2 : 3) || args[1]->kind != FV_STR) {
		tlc_error(F->ctx, loc, "%s() needs an object and an attribute name%s", fn,
			  has ? "" : " (and a default)");
		return NULL;
	}
	if (args[0]->kind == FV_HOST)
		return has ? args[0] : fe_getattr(F, args[0], args[1]->u.s, loc);
	if (!has && nargs == 2)
		return fe_getattr(F, args[0], args[1]->u.s, loc);
	tlc_diag_held held;
	tlc_diag_hold(F->ctx, &held);
	fe_val *v = fe_getattr(F, args[0], args[1]->u.s, loc);
	bool keep = v != NULL || F->budget_hit;
	tlc_diag_release(F->ctx, &held, keep);
	if (!v && F->budget_hit)
		return NULL;
	if (has)
		return fe_bool(F, v != NULL);
	return v ? v : args[2];
}

bool fe_host_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		  fe_val **kwv, tlc_loc loc, fe_val **out)
{
	if (fe_torch_call(F, fn, nargs, args, nkw, kwn, kwv, loc, out) ||
	    fe_intrinsics_call(F, fn, nargs, args, nkw, kwn, kwv, loc, out) ||
	    fe_sparse_call(F, fn, nargs, args, nkw, kwn, kwv, loc, out))
		return true;
	if (fn->kind == FV_BUILTIN && (!strcmp(fn->u.s, "getattr") || !strcmp(fn->u.s, "hasattr"))) {
		if (nkw) {
			tlc_error(F->ctx, loc, "%s() takes no keyword arguments", fn->u.s);
			*out = NULL;
			return true;
		}
		*out = get_or_has(F, fn->u.s[0] == 'h', nargs, args, loc);
		return true;
	}
	if (fn->kind == FV_BOUND && strcmp(fn->u.bound.name, "globals") == 0 &&
	    fn->u.bound.self->kind == FV_DICT) {
		if (nargs || nkw) {
			tlc_error(F->ctx, loc, "globals() takes no arguments");
			*out = NULL;
			return true;
		}
		*out = fn->u.bound.self; /* a snapshot: assigning into it binds nothing */
		return true;
	}
	if (fn->kind == FV_HOST && fe_nvcc_call(F, fn->u.s, nargs, args, nkw, kwn, kwv, loc, out))
		return true;
	if (fn->kind == FV_HOST)
		return host_call(F, fn, nargs, args, loc, out);
	if (fn->kind == FV_BUILTIN) {
		if (strncmp(fn->u.s, "tvm.t", 5) == 0 && strcmp(fn->u.s, "tvm.DataType") != 0) {
			/* tvm.tir.X, tvm.te.X */
			return fe_tvm_call(F, fn->u.s, nargs, args, nkw, kwn, kwv, loc, out);
		}
		if (strncmp(fn->u.s, "tilelang.math.", 14) != 0 &&
		    strcmp(fn->u.s, "tvm.DataType") != 0)
			return false;
		if (nkw) {
			tlc_error(F->ctx, loc, "%s() takes no keyword arguments here", fn->u.s);
			*out = NULL;
			return true;
		}
		*out = fn->u.s[0] == 't' && fn->u.s[1] == 'v'
			       ? data_type(F, nargs, args, loc)
			       : call_tlmath(F, fn->u.s + 14, nargs, args, loc);
		return true;
	}
	if (fn->kind == FV_BOUND && fn->u.bound.self->kind == FV_STR &&
	    in_list(str_more, TLC_ARRAY_LEN(str_more), fn->u.bound.name)) {
		if (nkw) {
			tlc_error(F->ctx, loc, "str.%s() takes no keyword arguments", fn->u.bound.name);
			*out = NULL;
			return true;
		}
		*out = str_method(F, fn->u.bound.name, fn->u.bound.self->u.s, nargs, args, loc);
		return true;
	}
	if (fn->kind == FV_BOUND) {
		fe_val *self = fn->u.bound.self;
		if (self->kind != FV_INT && self->kind != FV_BOOL && self->kind != FV_FLOAT)
			return false;
		/* only the methods listed above: x.astype(dtype) is the frontend's */
		const char *m = fn->u.bound.name;
		if (!in_list(int_methods, TLC_ARRAY_LEN(int_methods), m) &&
		    !in_list(float_methods, TLC_ARRAY_LEN(float_methods), m))
			return false;
		if (nkw) {
			tlc_error(F->ctx, loc, "%s() takes no keyword arguments", fn->u.bound.name);
			*out = NULL;
			return true;
		}
		*out = number_method(F, fn->u.bound.name, self, nargs, loc);
		return true;
	}
	return false;
}
