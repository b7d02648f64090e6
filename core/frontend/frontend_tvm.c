/* frontend_tvm.c - tvm.tir and tvm.te as TileLang programs use them in
 * compile-time helpers that build kernel expressions (the decoding of
 * packed values in dequantizing kernels, a runtime size from te.var):
 *
 *   tir.const(v, dtype), tir.IntImm / FloatImm(dtype, v)  typed constants
 *   tir.Cast(dtype, x), tir.Select(c, a, b)              T.Cast, T.if_then_else
 *   tir.bitwise_and/or/xor/not, shift_left/right,        the operators & | ^ ~ << >>
 *   floordiv, floormod                                    // and %
 *   tir.reinterpret(dtype, x)                             T.reinterpret: a bit cast
 *   te.var(name, dtype), tir.Var(name, dtype)            T.dynamic(name, dtype)
 *   tir.PrimExpr, IntImm, FloatImm, Var, Buffer, ...     types for isinstance()
 *   any other tir.X that T has (tir.exp, tir.min, ...)    T.X, which TileLang re-exports
 *
 * Other attributes of tvm stay opaque host values (frontend_host.c). */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

static const char *const tir_own[] = {
	"const",      "Cast",        "reinterpret", "Select",     "bitwise_and",
	"bitwise_or", "bitwise_xor", "bitwise_not", "shift_left", "shift_right",
	"floordiv",   "floormod",    "IntImm",      "FloatImm",   "Var",
	"PrimExpr",   "Buffer",      "BufferLoad",  "StringImm",  "IterVar",
};

static bool in(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* TIR's bitwise and shift functions, which TileLang's T re-exports
 * (T.shift_left(a, b) is a << b): T.X is tvm.tir.X. */
bool fe_tvm_t_alias(const char *name)
{
	return in(tir_own + 4, 6, name);
}

bool fe_tvm_has(fe *F, int mod, const char *name)
{
	if (mod == FM_TVM_TE)
		return strcmp(name, "var") == 0;
	return in(tir_own, TLC_ARRAY_LEN(tir_own), name) || fe_t_has(F, name);
}

static fe_val *named(fe *F, const char *prefix, const char *name)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s%s", prefix, name);
	return fe_builtin(F, fe_strdup(F, buf));
}

fe_val *fe_tvm_attr(fe *F, int mod, const char *name, tlc_loc loc)
{
	if (mod == FM_TVM_TE) {
		if (strcmp(name, "var") == 0)
			return named(F, "tvm.te.", name);
		fe_val *h = fe_new(F, FV_HOST); /* te.compute and the rest: host API, opaque */
		char buf[128];
		snprintf(buf, sizeof buf, "tvm.te.%s", name);
		h->u.s = fe_strdup(F, buf);
		return h;
	}
	if (in(tir_own, TLC_ARRAY_LEN(tir_own), name))
		return named(F, "tvm.tir.", name);
	if (fe_t_has(F, name))
		return fe_t_attr(F, name, loc);
	tlc_error(F->ctx, loc,
		  "unsupported function 'tvm.tir.%s' (tlc knows tir's constants, casts, "
		  "Select, bitwise and shift functions, floordiv/floormod and what T has)",
		  name);
	return NULL;
}

/* A constant of dtype t made from the number v, typed as T.<t>(v) is. */
static fe_val *typed(fe *F, const char *what, fe_val *v, tlc_dtype t, tlc_loc loc)
{
	if (v->kind != FV_INT && v->kind != FV_BOOL && v->kind != FV_FLOAT) {
		tlc_error(F->ctx, loc, "%s needs a number, got %s", what, fe_kind_name(v));
		return NULL;
	}
	const tlc_expr *e = fe_scalar_as(F, v, t, loc);
	return e ? fe_typed_const(F, e) : NULL;
}

static bool dtype_like(const fe_val *v)
{
	return v->kind == FV_DTYPE || v->kind == FV_STR ||
	       (v->kind == FV_BUILTIN &&
		(!strcmp(v->u.s, "float") || !strcmp(v->u.s, "int") || !strcmp(v->u.s, "bool")));
}

fe_val *fe_reinterpret(fe *F, const char *fname, bool dtype_first, int nargs, fe_val **args,
		       int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	/* TileLang's T.reinterpret(value, dtype) (the order of T.cast), and
	 * its older T.reinterpret(dtype, value), which it still takes when the
	 * first argument is a dtype; tvm.tir.reinterpret(dtype, value) */
	static const char *const vfirst[] = {"value", "dtype", "span"};
	static const char *const dfirst[] = {"dtype", "value", "span"};
	fe_val *a[3];
	if (!fe_bind_args(F, fname, dtype_first ? dfirst : vfirst, 3, 2, nargs, args, nkw, kwn, kwv,
			  a, loc))
		return NULL;
	fe_val *dt = dtype_first ? a[0] : a[1], *v = dtype_first ? a[1] : a[0];
	if (!dtype_like(dt) && dtype_like(v)) {
		fe_val *x = dt;
		dt = v;
		v = x;
	}
	if (dt->kind == FV_STR && !strcmp(dt->u.s, "handle")) {
		tlc_error(F->ctx, loc,
			  "%s to \"handle\" (a pointer made from an integer) is not supported: "
			  "tlc's kernels have no pointer values; index buffers instead",
			  fname);
		return NULL;
	}
	tlc_dtype t;
	const tlc_expr *x;
	if (!fe_to_dtype(F, dt, loc, &t) || !(x = fe_to_scalar(F, v, loc)))
		return NULL;
	tlc_dtype s = x->dtype;
	if (s == TLC_DT_BOOL || t == TLC_DT_BOOL) {
		tlc_error(F->ctx, loc,
			  "%s from %s to %s: bool has no bit pattern of its own (TVM's is 1 bit "
			  "wide); use T.cast, or compare with 0",
			  fname, tlc_dtype_name(s), tlc_dtype_name(t));
		return NULL;
	}
	if (tlc_dtype_bits(s) != tlc_dtype_bits(t)) {
		tlc_error(F->ctx, loc,
			  "%s from %s (%d bits) to %s (%d bits): a bit cast keeps the width; "
			  "reinterpret as a type of %d bits and convert that with T.cast",
			  fname, tlc_dtype_name(s), tlc_dtype_bits(s), tlc_dtype_name(t),
			  tlc_dtype_bits(t), tlc_dtype_bits(s));
		return NULL;
	}
	return fe_expr(F, tlc_bitcast(F->m, t, x));
}

static fe_val *call_t(fe *F, const char *name, int nargs, fe_val **args, tlc_loc loc)
{
	return fe_call_t(F, name, nargs, args, 0, NULL, NULL, loc);
}

/* te.var(name="tindex", dtype="int32") and tir.Var(name, dtype): a size
 * known at run time */
static fe_val *size_var(fe *F, const char *fname, int nargs, fe_val **args, int nkw,
			const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"name", "dtype", "span"};
	fe_val *a[3];
	if (!fe_bind_args(F, fname, names, 3, 0, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	fe_val *x[2] = {a[0] ? a[0] : fe_str(F, "tindex"), a[1] ? a[1] : fe_str(F, "int32")};
	if (x[0]->kind != FV_STR) {
		tlc_error(F->ctx, loc, "%s needs a name string, got %s", fname, fe_kind_name(x[0]));
		return NULL;
	}
	return call_t(F, "T.dynamic", 2, x, loc);
}

bool fe_tvm_call(fe *F, const char *full, int nargs, fe_val **args, int nkw, const char **kwn,
		 fe_val **kwv, tlc_loc loc, fe_val **out)
{
	*out = NULL;
	if (strncmp(full, "tvm.te.", 7) == 0) {
		*out = size_var(F, "tvm.te.var", nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	if (strncmp(full, "tvm.tir.", 8) != 0)
		return false;
	const char *n = full + 8;
	if (!strcmp(n, "Var")) {
		*out = size_var(F, "tvm.tir.Var", nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	if (!strcmp(n, "const")) {
		static const char *const names[] = {"value", "dtype", "span"};
		fe_val *a[3];
		tlc_dtype t;
		if (!fe_bind_args(F, "tvm.tir.const", names, 3, 1, nargs, args, nkw, kwn, kwv, a,
				  loc))
			return true;
		if (a[1] && a[1]->kind != FV_NONE) {
			if (!fe_to_dtype(F, a[1], loc, &t))
				return true;
		} else { /* TVM's default: the Python number's own type */
			t = a[0]->kind == FV_BOOL    ? TLC_DT_BOOL
			    : a[0]->kind == FV_FLOAT ? TLC_DT_FLOAT32
						     : TLC_DT_INT32;
		}
		*out = typed(F, "tvm.tir.const", a[0], t, loc);
		return true;
	}
	if (!strcmp(n, "reinterpret")) {
		*out = fe_reinterpret(F, full, true, nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	if (nkw) {
		tlc_error(F->ctx, loc, "%s takes no keyword arguments here", full);
		return true;
	}
	static const struct {
		const char *name;
		int nargs;
	} arity[] = {
		{"Cast", 2},        {"Select", 3},      {"bitwise_and", 2},
		{"bitwise_or", 2},  {"bitwise_xor", 2}, {"bitwise_not", 1}, {"shift_left", 2},
		{"shift_right", 2}, {"floordiv", 2},    {"floormod", 2},    {"IntImm", 2},
		{"FloatImm", 2},
	};
	for (size_t i = 0; i < TLC_ARRAY_LEN(arity); i++)
		if (!strcmp(arity[i].name, n) && nargs != arity[i].nargs) {
			tlc_error(F->ctx, loc, "%s expects %d arguments, got %d", full,
				  arity[i].nargs, nargs);
			return true;
		}
	if (!strcmp(n, "Cast"))
		*out = call_t(F, "T.Cast", nargs, args, loc);
	else if (!strcmp(n, "Select"))
		*out = call_t(F, "T.if_then_else", nargs, args, loc);
	else if (!strcmp(n, "bitwise_not"))
		*out = fe_unaryop(F, PY_OP_INVERT, args[0], loc);
	else if (!strcmp(n, "IntImm") || !strcmp(n, "FloatImm")) {
		tlc_dtype t;
		if (fe_to_dtype(F, args[0], loc, &t))
			*out = typed(F, full, args[1], t, loc);
	} else {
		static const struct {
			const char *name;
			py_op op;
		} ops[] = {
			{"bitwise_and", PY_OP_BITAND}, {"bitwise_or", PY_OP_BITOR},
			{"bitwise_xor", PY_OP_BITXOR}, {"shift_left", PY_OP_LSHIFT},
			{"shift_right", PY_OP_RSHIFT}, {"floordiv", PY_OP_FLOORDIV},
			{"floormod", PY_OP_MOD},
		};
		for (size_t i = 0; i < TLC_ARRAY_LEN(ops); i++)
			if (!strcmp(ops[i].name, n)) {
				*out = fe_binop(F, ops[i].op, args[0], args[1], loc);
				return true;
			}
		tlc_error(F->ctx, loc, "%s is a type: it cannot be called here", full);
	}
	return true;
}

bool fe_tvm_isinstance(const fe_val *v, const char *type, bool *out)
{
	if (strncmp(type, "tvm.tir.", 8) != 0)
		return false;
	const char *n = type + 8;
	const tlc_expr *e = v->kind == FV_EXPR ? v->u.e : NULL;
	if (!strcmp(n, "PrimExpr"))
		*out = e != NULL;
	else if (!strcmp(n, "IntImm"))
		*out = e && e->kind == TLC_EXPR_INT;
	else if (!strcmp(n, "FloatImm"))
		*out = e && e->kind == TLC_EXPR_FLOAT;
	else if (!strcmp(n, "Var"))
		*out = e && e->kind == TLC_EXPR_VAR;
	else if (!strcmp(n, "BufferLoad"))
		*out = e && e->kind == TLC_EXPR_LOAD;
	else if (!strcmp(n, "Buffer"))
		*out = v->kind == FV_BUF;
	else if (!strcmp(n, "StringImm"))
		*out = e && e->kind == TLC_EXPR_STR;
	else
		*out = false;
	return true;
}
