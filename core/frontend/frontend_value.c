/* frontend_value.c - values of the compile-time evaluator, environments,
 * and the conversion of values into IR expressions. */
#include "frontend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

fe_val *fe_new(fe *F, fe_kind k)
{
	fe_val *v = fe_alloc(F, sizeof *v);
	v->kind = k;
	return v;
}

fe_val *fe_int(fe *F, int64_t x)
{
	if (x >= FE_SMALL_INT_MIN && x <= FE_SMALL_INT_MAX) {
		if (!F->small_ints) {
			int n = FE_SMALL_INT_MAX - FE_SMALL_INT_MIN + 1;
			F->small_ints = fe_alloc(F, sizeof(fe_val) * (size_t)n);
			for (int i = 0; i < n; i++) {
				F->small_ints[i].kind = FV_INT;
				F->small_ints[i].u.i = FE_SMALL_INT_MIN + i;
			}
		}
		return &F->small_ints[x - FE_SMALL_INT_MIN];
	}
	fe_val *v = fe_new(F, FV_INT);
	v->u.i = x;
	return v;
}

#define VALUE_CACHE 1024 /* entries of F->expr_cache and F->float_cache */

static size_t cache_slot(uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15u) >> 54) & (VALUE_CACHE - 1);
}

fe_val *fe_float(fe *F, double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	if (!F->float_cache)
		F->float_cache = fe_alloc(F, sizeof(fe_val *) * VALUE_CACHE);
	fe_val **slot = &F->float_cache[cache_slot(bits)];
	if (*slot && !memcmp(&(*slot)->u.f, &x, sizeof(x)))
		return *slot;
	fe_val *v = fe_new(F, FV_FLOAT);
	v->u.f = x;
	return *slot = v;
}

fe_val *fe_str(fe *F, const char *s)
{
	fe_val *v = fe_new(F, FV_STR);
	v->u.s = fe_strdup(F, s);
	return v;
}

fe_val *fe_bool(fe *F, bool b)
{
	return b ? F->vtrue : F->vfalse;
}

fe_val *fe_seq(fe *F, fe_kind k, int n)
{
	fe_val *v = fe_new(F, k);
	v->u.seq.n = n;
	v->u.seq.cap = n > 4 ? n : 4;
	v->u.seq.items = fe_alloc(F, sizeof(fe_val *) * (size_t)v->u.seq.cap);
	return v;
}

void fe_seq_push(fe *F, fe_val *seq, fe_val *item)
{
	if (seq->u.seq.n == seq->u.seq.cap) {
		/* items are counted against the budgets before they are pushed; a list
		 * grown one append at a time is bounded by the step budget */
		int cap = seq->u.seq.cap < INT32_MAX / 2 ? seq->u.seq.cap * 2 : INT32_MAX;
		fe_val **items = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
		memcpy(items, seq->u.seq.items, sizeof(fe_val *) * (size_t)seq->u.seq.n);
		seq->u.seq.items = items;
		seq->u.seq.cap = cap;
	}
	seq->u.seq.items[seq->u.seq.n++] = item;
}

fe_val *fe_dict(fe *F)
{
	return fe_new(F, FV_DICT);
}

void fe_dict_set(fe *F, fe_val *d, fe_val *k, fe_val *v)
{
	int i = fe_dict_find(F, d, k);
	if (i >= 0) {
		d->u.dict.vals[i] = v;
		return;
	}
	if (d->u.dict.n == d->u.dict.cap) {
		int cap = d->u.dict.cap ? d->u.dict.cap * 2 : 4;
		fe_val **keys = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
		fe_val **vals = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
		if (d->u.dict.n) {
			memcpy(keys, d->u.dict.keys, sizeof(fe_val *) * (size_t)d->u.dict.n);
			memcpy(vals, d->u.dict.vals, sizeof(fe_val *) * (size_t)d->u.dict.n);
		}
		d->u.dict.keys = keys;
		d->u.dict.vals = vals;
		d->u.dict.cap = cap;
	}
	d->u.dict.keys[d->u.dict.n] = k;
	d->u.dict.vals[d->u.dict.n++] = v;
	fe_dict_added(F, d);
}

fe_val *fe_dict_get(fe *F, fe_val *d, fe_val *k)
{
	int i = fe_dict_find(F, d, k);
	return i >= 0 ? d->u.dict.vals[i] : NULL;
}

fe_val *fe_builtin(fe *F, const char *name)
{
	fe_val *v = fe_new(F, FV_BUILTIN);
	v->u.s = name;
	return v;
}

fe_val *fe_dtype(fe *F, tlc_dtype t)
{
	fe_val *v = fe_new(F, FV_DTYPE);
	v->u.dt = t;
	return v;
}

fe_val *fe_expr(fe *F, const tlc_expr *e)
{
	/* too deep for the passes and the printer: the error is reported and
	 * compilation stops at the next statement; 0 keeps this one harmless */
	if (!fe_expr_depth_ok(F, e))
		return fe_int(F, 0);
	if (e->kind == TLC_EXPR_INT && e->dtype == TLC_DT_INT32)
		return fe_int(F, e->u.ival);
	if (e->kind == TLC_EXPR_INT && e->dtype == TLC_DT_BOOL)
		return fe_bool(F, e->u.ival != 0);
	if (e->kind == TLC_EXPR_FLOAT && e->dtype == TLC_DT_FLOAT32 && isfinite(e->u.fval))
		return fe_float(F, e->u.fval);
	if (e->kind == TLC_EXPR_STR)
		return fe_str(F, e->u.str);
	if (!F->expr_cache)
		F->expr_cache = fe_alloc(F, sizeof(fe_val *) * VALUE_CACHE);
	fe_val **slot = &F->expr_cache[cache_slot((uint64_t)(uintptr_t)e)];
	if (*slot && (*slot)->u.e == e) /* expressions are hash-consed: one pointer, one value */
		return *slot;
	fe_val *v = fe_new(F, FV_EXPR);
	v->u.e = e;
	return *slot = v;
}

fe_val *fe_typed_const(fe *F, const tlc_expr *e)
{
	if (e->kind != TLC_EXPR_INT && e->kind != TLC_EXPR_FLOAT)
		return fe_expr(F, e);
	fe_val *v = fe_new(F, FV_EXPR);
	v->u.e = e;
	return v;
}

fe_val *fe_buf(fe *F, tlc_buffer *b)
{
	fe_val *v = fe_new(F, FV_BUF);
	v->u.buf = b;
	return v;
}

static bool equal_rec(fe *F, const fe_val *a, const fe_val *b, int depth)
{
	if (a == b)
		return true;
	bool an = a->kind == FV_INT || a->kind == FV_BOOL || a->kind == FV_FLOAT;
	bool bn = b->kind == FV_INT || b->kind == FV_BOOL || b->kind == FV_FLOAT;
	if (an && bn) {
		double x = a->kind == FV_FLOAT ? a->u.f : a->kind == FV_INT ? (double)a->u.i : a->u.b;
		double y = b->kind == FV_FLOAT ? b->u.f : b->kind == FV_INT ? (double)b->u.i : b->u.b;
		if (a->kind != FV_FLOAT && b->kind != FV_FLOAT) {
			int64_t xi = a->kind == FV_INT ? a->u.i : a->u.b;
			int64_t yi = b->kind == FV_INT ? b->u.i : b->u.b;
			return xi == yi;
		}
		return x == y;
	}
	/* a dtype is a str in TileLang (tvm's dtype subclasses str): it equals
	 * the string of its name, "float16" == T.float16 */
	if ((a->kind == FV_DTYPE && b->kind == FV_STR) || (a->kind == FV_STR && b->kind == FV_DTYPE))
		return strcmp(tlc_dtype_name(a->kind == FV_DTYPE ? a->u.dt : b->u.dt),
		              a->kind == FV_STR ? a->u.s : b->u.s) == 0;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case FV_NONE:
		return true;
	case FV_STR:
	case FV_MODULE:
	case FV_HOST:
	case FV_NAMESPACE:
	case FV_BUILTIN:
		return strcmp(a->u.s, b->u.s) == 0;
	case FV_TUPLE:
	case FV_LIST:
		if (a->u.seq.n != b->u.seq.n)
			return false;
		if (depth >= FE_MAX_VALUE_DEPTH) {
			if (!F->deep_reported)
				tlc_error(F->ctx, F->at, "values nest too deeply to compare (more than %d levels of "
				          "lists and tuples; a list that holds itself?)", FE_MAX_VALUE_DEPTH);
			F->deep_reported = F->budget_hit = true;
			return false;
		}
		if (!fe_work(F, a->u.seq.n, F->at))
			return false;
		for (int i = 0; i < a->u.seq.n; i++)
			if (!equal_rec(F, a->u.seq.items[i], b->u.seq.items[i], depth + 1))
				return false;
		return true;
	case FV_DICT:
		/* the same keys with equal values, in any order */
		if (a->u.dict.n != b->u.dict.n || depth >= FE_MAX_VALUE_DEPTH || !fe_work(F, a->u.dict.n, F->at))
			return false;
		for (int i = 0; i < a->u.dict.n; i++) {
			int j = fe_dict_find(F, b, a->u.dict.keys[i]);
			if (j < 0 || !equal_rec(F, a->u.dict.vals[i], b->u.dict.vals[j], depth + 1))
				return false;
		}
		return true;
	case FV_DTYPE:
		return a->u.dt == b->u.dt;
	case FV_EXPR:
		return a->u.e == b->u.e;
	case FV_BUF:
		return a->u.buf == b->u.buf;
	default:
		return false;
	}
}

bool fe_equal(fe *F, const fe_val *a, const fe_val *b)
{
	return equal_rec(F, a, b, 0);
}

const char *fe_kind_name(const fe_val *v)
{
	switch (v->kind) {
	case FV_NONE: return "None";
	case FV_BOOL: return "bool";
	case FV_INT: return "int";
	case FV_FLOAT: return "float";
	case FV_STR: return "str";
	case FV_TUPLE: return "tuple";
	case FV_LIST: return "list";
	case FV_DICT: return "dict";
	case FV_FUNC: return "function";
	case FV_BOUND: return "method";
	case FV_MODULE: return "module";
	case FV_HOST: return "host value";
	case FV_BUILTIN: return "builtin function";
	case FV_NAMESPACE: return "namespace";
	case FV_DTYPE: return "dtype";
	case FV_EXPR: return "expression";
	case FV_BUF: return "buffer";
	case FV_PRIMFUNC: return "T.prim_func";
	case FV_TENSORTYPE: return "T.Tensor type";
	case FV_DATAPTR: return "buffer data pointer";
	case FV_OBJECT: return "object";
	case FV_MISSING: return "missing parameter";
	case FV_RANGE: return "range";
	case FV_LOOP: return "loop range";
	case FV_KERNEL: return "T.Kernel frame";
	case FV_SCOPEOP: return "scope";
	}
	return "value";
}

bool fe_truthy(fe *F, fe_val *v, tlc_loc loc, bool *out)
{
	switch (v->kind) {
	case FV_NONE: *out = false; return true;
	case FV_BOOL: *out = v->u.b; return true;
	case FV_INT: *out = v->u.i != 0; return true;
	case FV_FLOAT: *out = v->u.f != 0; return true;
	case FV_STR: *out = v->u.s[0] != 0; return true;
	case FV_TUPLE:
	case FV_LIST: *out = v->u.seq.n != 0; return true;
	case FV_DICT: *out = v->u.dict.n != 0; return true;
	case FV_MISSING:
		fe_err_not_kernel(F, v, loc);
		return false;
	case FV_EXPR: {
		int64_t x;
		if (tlc_expr_as_int(v->u.e, &x)) {
			*out = x != 0;
			return true;
		}
		tlc_error(F->ctx, loc, "condition '%s' is not a compile-time value here",
		          fe_show_expr(F, v->u.e));
		return false;
	}
	default:
		*out = true;
		return true;
	}
}

/* ---- environments ---- */

fe_env *fe_env_new(fe *F, fe_env *parent)
{
	fe_env *e = fe_alloc(F, sizeof *e);
	e->parent = parent;
	return e;
}

void fe_env_set(fe *F, fe_env *env, const char *name, fe_val *v)
{
	int i = fe_env_find(env, name);
	if (i >= 0) {
		env->vals[i] = v;
		return;
	}
	if (env->n == env->cap) {
		int cap = env->cap ? env->cap * 2 : 8;
		const char **names = fe_alloc(F, sizeof(char *) * (size_t)cap);
		fe_val **vals = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
		if (env->n) {
			memcpy(names, env->names, sizeof(char *) * (size_t)env->n);
			memcpy(vals, env->vals, sizeof(fe_val *) * (size_t)env->n);
		}
		env->names = names;
		env->vals = vals;
		env->cap = cap;
	}
	env->names[env->n] = name;
	env->vals[env->n++] = v;
	fe_env_added(F, env);
}

fe_val *fe_env_get_local(fe_env *env, const char *name)
{
	int i = fe_env_find(env, name);
	return i >= 0 ? env->vals[i] : NULL;
}

fe_val *fe_env_get(fe_env *env, const char *name)
{
	for (; env; env = env->parent) {
		fe_val *v = fe_env_get_local(env, name);
		if (v)
			return v;
	}
	return NULL;
}

/* ---- conversions ---- */

bool fe_is_symbolic(const fe_val *v)
{
	return v->kind == FV_EXPR || (v->kind == FV_BUF && v->u.buf->scope == TLC_SCOPE_VAR);
}

bool fe_as_int(fe_val *v, int64_t *out)
{
	if (v->kind == FV_INT) {
		*out = v->u.i;
		return true;
	}
	if (v->kind == FV_BOOL) {
		*out = v->u.b;
		return true;
	}
	if (v->kind == FV_EXPR)
		return tlc_expr_as_int(v->u.e, out);
	return false;
}

const char *fe_show_expr(fe *F, const tlc_expr *e)
{
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_print_expr(&b, F->m, e);
	const char *s = fe_strdup(F, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return s;
}

/* Append v to b; deeper than FE_MAX_VALUE_DEPTH (a list holding itself)
 * prints [...], and a text past the string budget stops with "...". */
static void show_into(fe *F, tlc_buf *b, fe_val *v, int depth)
{
	if ((int64_t)b->len > F->lim.string_bytes)
		return;
	if (v->kind == FV_STR && depth > 0) { /* inside a container: its repr */
		tlc_buf_printf(b, strchr(v->u.s, '\'') ? "\"%s\"" : "'%s'", v->u.s);
		return;
	}
	if (v->kind != FV_TUPLE && v->kind != FV_LIST && v->kind != FV_DICT) {
		tlc_buf_puts(b, fe_show(F, v));
		return;
	}
	if (depth >= FE_MAX_VALUE_DEPTH) {
		tlc_buf_puts(b, v->kind == FV_LIST ? "[...]" : v->kind == FV_DICT ? "{...}" : "(...)");
		return;
	}
	if (v->kind == FV_DICT) {
		tlc_buf_putc(b, '{');
		for (int i = 0; i < v->u.dict.n; i++) {
			if ((int64_t)b->len > F->lim.string_bytes) {
				tlc_buf_puts(b, "...");
				return;
			}
			if (i)
				tlc_buf_puts(b, ", ");
			show_into(F, b, v->u.dict.keys[i], depth + 1);
			tlc_buf_puts(b, ": ");
			show_into(F, b, v->u.dict.vals[i], depth + 1);
		}
		tlc_buf_putc(b, '}');
		return;
	}
	tlc_buf_putc(b, v->kind == FV_LIST ? '[' : '(');
	for (int i = 0; i < v->u.seq.n; i++) {
		if ((int64_t)b->len > F->lim.string_bytes) {
			tlc_buf_puts(b, "...");
			return;
		}
		if (i)
			tlc_buf_puts(b, ", ");
		show_into(F, b, v->u.seq.items[i], depth + 1);
	}
	if (v->kind == FV_TUPLE && v->u.seq.n == 1)
		tlc_buf_putc(b, ',');
	tlc_buf_putc(b, v->kind == FV_LIST ? ']' : ')');
}

const char *fe_show(fe *F, fe_val *v)
{
	char tmp[64];
	switch (v->kind) {
	case FV_INT:
		snprintf(tmp, sizeof tmp, "%lld", (long long)v->u.i);
		return fe_strdup(F, tmp);
	case FV_FLOAT:
		snprintf(tmp, sizeof tmp, "%g", v->u.f);
		return fe_strdup(F, tmp);
	case FV_BOOL:
		return v->u.b ? "True" : "False";
	case FV_NONE:
		return "None";
	case FV_STR:
		return v->u.s;
	case FV_EXPR:
		return fe_show_expr(F, v->u.e);
	case FV_BUF:
		return v->u.buf->name;
	case FV_DTYPE:
		return tlc_dtype_name(v->u.dt);
	case FV_MODULE:
	case FV_HOST:
	case FV_NAMESPACE:
	case FV_BUILTIN:
	case FV_MISSING:
		return v->u.s;
	case FV_TUPLE:
	case FV_LIST:
	case FV_DICT: {
		tlc_buf b;
		tlc_buf_init(&b);
		show_into(F, &b, v, 0);
		const char *s = fe_strdup(F, tlc_buf_str(&b));
		tlc_buf_free(&b);
		return s;
	}
	default:
		return fe_kind_name(v);
	}
}

void fe_err_not_kernel(fe *F, fe_val *v, tlc_loc loc)
{
	if (fe_skipped_value(F, v, loc))
		return;
	switch (v->kind) {
	case FV_HOST: {
		if (strcmp(v->u.s, FE_NULL_HANDLE) == 0) {
			/* TVM's null handle, made for a reduce_scope attribute, used anywhere else */
			tlc_error(F->ctx, loc, "T.reinterpret to \"handle\" (a pointer made from an integer) is "
			          "not supported: tlc's kernels have no pointer values");
			break;
		}
		/* name the module: "torch" of "torch.float16" */
		char mod[128];
		snprintf(mod, sizeof mod, "%s", v->u.s);
		char *dot = strchr(mod, '.');
		if (dot)
			*dot = 0;
		if (strcmp(mod, v->u.s) == 0)
			tlc_error(F->ctx, loc, "host module '%s' cannot be used in a kernel", mod);
		else
			tlc_error(F->ctx, loc, "host module '%s' cannot be used in a kernel (%s)", mod,
			          v->u.s);
		break;
	}
	case FV_MISSING:
		tlc_error(F->ctx, loc,
		          "parameter '%s' has no value: give it with --entry or -D %s=VALUE", v->u.s,
		          v->u.s);
		break;
	default:
		if (fe_is_torch_tensor(v)) /* made at compile time by frontend_torch.c */
			tlc_error(F->ctx, loc, "a torch tensor cannot be used in a kernel: pass it to the "
			          "kernel as a T.Tensor parameter");
		else
			tlc_error(F->ctx, loc, "a %s cannot be used as a kernel value", fe_kind_name(v));
		break;
	}
}

static const tlc_expr *int_const(fe *F, int64_t x)
{
	if (x >= INT32_MIN && x <= INT32_MAX)
		return tlc_i32(F->m, x);
	return tlc_int(F->m, TLC_DT_INT64, x);
}

static const tlc_expr *to_expr(fe *F, fe_val *v, tlc_loc loc, int depth);

const tlc_expr *fe_to_expr(fe *F, fe_val *v, tlc_loc loc)
{
	return to_expr(F, v, loc, 0);
}

static const tlc_expr *to_expr(fe *F, fe_val *v, tlc_loc loc, int depth)
{
	bool nests = v->kind == FV_TUPLE || v->kind == FV_LIST || v->kind == FV_DICT;
	if (nests && depth >= FE_MAX_VALUE_DEPTH) {
		tlc_error(F->ctx, loc, "value nests too deeply for a kernel (more than %d levels of lists, "
		          "tuples and dicts)", FE_MAX_VALUE_DEPTH);
		return NULL;
	}
	switch (v->kind) {
	case FV_INT:
		return int_const(F, v->u.i);
	case FV_BOOL:
		return tlc_bool(F->m, v->u.b);
	case FV_FLOAT:
		return tlc_float(F->m, TLC_DT_FLOAT32, v->u.f);
	case FV_STR:
		return tlc_str(F->m, v->u.s);
	case FV_DTYPE:
		return tlc_str(F->m, tlc_dtype_name(v->u.dt));
	case FV_EXPR:
		return v->u.e;
	case FV_BUF:
		if (v->u.buf->scope == TLC_SCOPE_VAR) {
			const tlc_expr *zero = tlc_i32(F->m, 0);
			return tlc_load(F->m, v->u.buf, 1, &zero);
		}
		return tlc_buf_ref(F->m, v->u.buf);
	case FV_TUPLE:
	case FV_LIST: {
		int n = v->u.seq.n;
		const tlc_expr **items = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
		if (!fe_work(F, n, loc))
			return NULL;
		for (int i = 0; i < n; i++) {
			items[i] = to_expr(F, v->u.seq.items[i], loc, depth + 1);
			if (!items[i])
				return NULL;
		}
		return tlc_tuple(F->m, n, items, v->kind == FV_LIST);
	}
	case FV_DICT: {
		/* {k: v} -> ((k, v), ...): the encoding of dict arguments (doc/ir.md) */
		int n = v->u.dict.n;
		const tlc_expr **items = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
		for (int i = 0; i < n; i++) {
			const tlc_expr *kv[2];
			kv[0] = to_expr(F, v->u.dict.keys[i], loc, depth + 1);
			kv[1] = kv[0] ? to_expr(F, v->u.dict.vals[i], loc, depth + 1) : NULL;
			if (!kv[1])
				return NULL;
			items[i] = tlc_tuple(F->m, 2, kv, false);
		}
		return tlc_tuple(F->m, n, items, false);
	}
	case FV_FUNC:
		if (v->u.fn.def->kind == PY_LAMBDA)
			return fe_layout_fn(F, v, -1, loc);
		tlc_error(F->ctx, loc, "function '%s' cannot be used as a kernel value",
		          v->u.fn.def->str ? v->u.fn.def->str : "?");
		return NULL;
	default:
		fe_err_not_kernel(F, v, loc);
		return NULL;
	}
}

const tlc_expr *fe_to_scalar(fe *F, fe_val *v, tlc_loc loc)
{
	if (v->kind == FV_BUF && v->u.buf->scope != TLC_SCOPE_VAR) {
		/* TileLang (TVM) has no arithmetic on whole buffers: only a
		 * T.alloc_var buffer stands for its value (its element 0) */
		tlc_error(F->ctx, loc, "buffer '%s' is used as a scalar value: index it, e.g. %s[i] (TileLang has no "
		          "whole-buffer arithmetic: write the element-wise loop, e.g. for i in T.Parallel(n): "
		          "D[i] = %s[i] * s; only a T.alloc_var buffer is a scalar; a pointer to it is %s.data, "
		          "T.address_of(%s[i]) or %s.access_ptr(\"r\"))", v->u.buf->name, v->u.buf->name,
		          v->u.buf->name, v->u.buf->name, v->u.buf->name, v->u.buf->name);
		return NULL;
	}
	if (v->kind == FV_TUPLE || v->kind == FV_LIST || v->kind == FV_STR || v->kind == FV_DICT ||
	    v->kind == FV_DTYPE || v->kind == FV_NONE) {
		tlc_error(F->ctx, loc, "a %s cannot be used as a scalar value in a kernel",
		          fe_kind_name(v));
		return NULL;
	}
	const tlc_expr *e = fe_to_expr(F, v, loc);
	if (e && e->kind == TLC_EXPR_REGION) {
		/* TVM reads a region of one element, A[i:i + 1], as that element */
		int n = e->u.region.n;
		const tlc_expr **idx = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
		bool one = true;
		for (int d = 0; d < n && one; d++) {
			int64_t ext = 1;
			const tlc_range *r = &e->u.region.dims[d];
			one = r->is_point || (tlc_expr_as_int(tlc_simplify_expr(F->m, r->extent), &ext) && ext == 1);
			idx[d] = r->begin;
		}
		if (one)
			return tlc_load(F->m, e->u.region.buf, n, idx);
		tlc_error(F->ctx, loc, "slice of buffer '%s' is used as a scalar value: a slice is a scalar only "
		          "when it holds one element (A[i:i + 1]); index it, e.g. %s[i]", e->u.region.buf->name,
		          e->u.region.buf->name);
		return NULL;
	}
	return e;
}

static bool is_python_number(const fe_val *v)
{
	return v->kind == FV_INT || v->kind == FV_BOOL || v->kind == FV_FLOAT;
}

/* The type a Python number takes beside an operand of type t
 * (doc/language.md, "Arithmetic"): a float literal any float type (else
 * float32), an int or bool literal any float type or an integer type that
 * holds its value; VOID: its own type (int32, int64 or bool). */
static tlc_dtype literal_type(const fe_val *n, tlc_dtype t)
{
	if (n->kind == FV_FLOAT)
		return tlc_dtype_is_float(t) ? t : TLC_DT_FLOAT32;
	if (tlc_dtype_is_float(t))
		return t;
	int64_t v = n->kind == FV_BOOL ? n->u.b : n->u.i, lo, hi;
	if (n->kind == FV_BOOL && t == TLC_DT_BOOL)
		return t;
	if (tlc_dtype_is_int(t) && tlc_dtype_int_range(t, &lo, &hi) && v >= lo && v <= hi)
		return t;
	return TLC_DT_VOID;
}

const tlc_expr *fe_scalar_as(fe *F, fe_val *v, tlc_dtype t, tlc_loc loc)
{
	if (is_python_number(v) && t != TLC_DT_VOID) {
		/* from the exact Python value: a float literal stored into a
		 * float64 buffer keeps its double, not a float32 rounding */
		if (v->kind == FV_FLOAT && tlc_dtype_is_float(t))
			return tlc_float(F->m, t, v->u.f);
		if (v->kind != FV_FLOAT)
			return tlc_cast(F->m, t, tlc_int(F->m, TLC_DT_INT64, v->kind == FV_BOOL ? v->u.b : v->u.i));
	}
	const tlc_expr *e = fe_to_scalar(F, v, loc);
	return e && t != TLC_DT_VOID ? tlc_cast(F->m, t, e) : e;
}

bool fe_scalar_pair(fe *F, tlc_expr_kind k, fe_val *a, fe_val *b, tlc_loc loc, const tlc_expr **x,
                    const tlc_expr **y)
{
	bool literal = is_python_number(a) != is_python_number(b);
	*x = *y = NULL;
	if (is_python_number(a) && !is_python_number(b)) {
		if (!(*y = fe_to_scalar(F, b, loc)))
			return false;
		*x = fe_scalar_as(F, a, literal_type(a, (*y)->dtype), loc);
	} else if (is_python_number(b) && !is_python_number(a)) {
		if (!(*x = fe_to_scalar(F, a, loc)))
			return false;
		*y = fe_scalar_as(F, b, literal_type(b, (*x)->dtype), loc);
	} else {
		*x = fe_to_scalar(F, a, loc);
		*y = *x ? fe_to_scalar(F, b, loc) : NULL;
	}
	if (!*x || !*y)
		return false;
	tlc_dtype ta = (*x)->dtype, tb = (*y)->dtype, t = tlc_operand_type(k, ta, tb);
	if (ta != tb && t == TLC_DT_VOID) {
		tlc_error(F->ctx, loc, "%s and %s have no common type: the operation needs an explicit T.cast of one "
		          "operand, e.g. T.cast(x, \"%s\")", tlc_dtype_name(ta), tlc_dtype_name(tb), tlc_dtype_name(tb));
		return false;
	}
	if (!literal && ta != tb) {
		/* converted here, so that the constructor's adoption of integer
		 * constants (for passes: i + 1 with i an int64) leaves a typed
		 * constant its type: x_i8 + T.int64(5) is an int64 sum */
		*x = tlc_cast(F->m, t, *x);
		*y = tlc_cast(F->m, t, *y);
	}
	return true;
}

/* TileLang dtype names that tlc does not support yet. */
static const char *const unsupported_dtypes[] = {
	"int4", "uint4", "int2", "uint2", "int1", "uint1", "float4_e2m1fn", "float4",
	"float6_e2m3fn", "float6_e3m2fn", "float8_e8m0fnu",
	"float8_e4m3b11fnuz", "float4_e2m1fnx2", "tfloat32",
};

bool fe_dtype_unsupported(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(unsupported_dtypes); i++)
		if (strcmp(unsupported_dtypes[i], name) == 0)
			return true;
	return false;
}

void fe_dtype_unsupported_error(fe *F, const char *name, tlc_loc loc)
{
	/* TileLang's sub-byte types pack several values into each byte; its
	 * dequantizing kernels declare that packed storage as uint8/int8 and
	 * unpack with shifts, which tlc compiles: say so */
	if (strncmp(name, "int", 3) == 0 || strncmp(name, "uint", 4) == 0)
		tlc_error(F->ctx, loc, "%s is not supported yet: tlc has no packed sub-byte integer tensors; declare "
		          "the packed storage as a uint8 (or int8) tensor with %s values per byte and unpack them with "
		          "shifts and masks, e.g. (B[i, j // 2] >> (4 * (j %% 2))) & 0xF for 4-bit values",
		          name, name[strlen(name) - 1] == '4' ? "two" : name[strlen(name) - 1] == '2' ? "four" : "eight");
	else if (strncmp(name, "float4", 6) == 0 || strncmp(name, "float6", 6) == 0)
		tlc_error(F->ctx, loc, "%s is not supported yet: tlc has no packed sub-byte float tensors; declare the "
		          "packed storage as a uint8 tensor and decode each value's sign, exponent and mantissa bits "
		          "with shifts and masks into a float16/bfloat16/float32 value", name);
	else if (strcmp(name, "tfloat32") == 0 || strcmp(name, "tf32") == 0)
		tlc_error(F->ctx, loc, "%s is not supported yet: declare float32 buffers (TileLang's T.gemm of float32 "
		          "operands is the TF32 tensor-core gemm)", name);
	else
		tlc_error(F->ctx, loc, "%s is not supported yet", name);
}

/* torch's dtypes (torch.float16, torch.half, A.dtype of a tensor made at
 * compile time, frontend_torch.c) name the same types as TileLang's */
static bool torch_dtype(const char *name, tlc_dtype *out)
{
	static const char *const alias[][2] = {
		{"half", "float16"}, {"float", "float32"}, {"double", "float64"},
		{"int", "int32"},    {"long", "int64"},    {"short", "int16"},
	};
	if (strncmp(name, "torch.", 6) != 0)
		return false;
	name += 6;
	for (size_t i = 0; i < TLC_ARRAY_LEN(alias); i++)
		if (strcmp(name, alias[i][0]) == 0)
			name = alias[i][1];
	if (fe_dtype_unsupported(name))
		return false;
	tlc_dtype t = tlc_dtype_from_name(name);
	if (t == TLC_DT_VOID)
		return false;
	*out = t;
	return true;
}

bool fe_to_dtype(fe *F, fe_val *v, tlc_loc loc, tlc_dtype *out)
{
	if (v->kind == FV_DTYPE) {
		*out = v->u.dt;
		return true;
	}
	if (v->kind == FV_STR && strcmp(v->u.s, "handle") == 0) {
		*out = TLC_DT_INT64; /* a pointer: see T.ptr below */
		return true;
	}
	if (v->kind == FV_STR) {
		if (fe_dtype_unsupported(v->u.s)) {
			fe_dtype_unsupported_error(F, v->u.s, loc);
			return false;
		}
		tlc_dtype t = tlc_dtype_from_name(v->u.s);
		if (t == TLC_DT_VOID) {
			tlc_error(F->ctx, loc, "unknown dtype '%s'", v->u.s);
			return false;
		}
		*out = t;
		return true;
	}
	if (v->kind == FV_BUILTIN && (strcmp(v->u.s, "float") == 0 || strcmp(v->u.s, "int") == 0 ||
	                              strcmp(v->u.s, "bool") == 0)) {
		*out = tlc_dtype_from_name(v->u.s);
		return true;
	}
	if (v->kind == FV_HOST && torch_dtype(v->u.s, out))
		return true;
	if (v->kind == FV_HOST || v->kind == FV_MISSING) {
		fe_err_not_kernel(F, v, loc);
		return false;
	}
	if (v->kind == FV_BUILTIN && (strcmp(v->u.s, "T.ptr") == 0 || strcmp(v->u.s, "T.handle") == 0)) {
		/* TVM's handle as an element or parameter type: a 64-bit address,
		 * what a host passes as tensor.data_ptr() (a pointer table is an
		 * int64 tensor of them); T.make_tensor turns one into a tensor */
		*out = TLC_DT_INT64;
		return true;
	}
	tlc_error(F->ctx, loc, "expected a dtype, got %s", fe_kind_name(v));
	return false;
}
