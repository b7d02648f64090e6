/* expr.c - hash-consed expression constructors.
 *
 * Every expression of a module is unique: a constructor first looks the node
 * up in an open-addressing table (m->hashcons) keyed on kind, dtype and
 * payload, where children compare by pointer (they are unique already) and
 * floats by bit pattern.  The table and interned strings live in the arena. */
#include "arith.h"
#include "internal.h"

#include <string.h>

typedef struct hashcons {
	const tlc_expr **slots;
	uint32_t cap, n; /* cap is a power of two */
	const char **strs; /* interned strings */
	uint32_t scap, sn;
} hashcons;

/* ---- hashing ---- */

static uint32_t mix(uint32_t h, uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	h ^= (uint32_t)v ^ (uint32_t)(v >> 32);
	h *= 16777619u;
	return h ^ (h >> 15);
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t child_hash(const tlc_expr *e)
{
	return e ? e->hash : 0x9e3779b9u;
}

static uint64_t double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

static uint32_t expr_hash(const tlc_expr *e)
{
	uint32_t h = mix(2166136261u, (uint64_t)e->kind << 8 | (uint64_t)e->dtype);
	switch (e->kind) {
	case TLC_EXPR_INT: return mix(h, (uint64_t)e->u.ival);
	case TLC_EXPR_FLOAT: return mix(h, double_bits(e->u.fval));
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM: return mix(h, str_hash(e->u.str));
	case TLC_EXPR_VAR: return mix(h, e->u.var->id);
	case TLC_EXPR_BUF: return mix(h, e->u.buf->id);
	case TLC_EXPR_LOAD:
		h = mix(h, e->u.load.buf->id);
		for (int i = 0; i < e->u.load.n; i++)
			h = mix(h, child_hash(e->u.load.idx[i]));
		return h;
	case TLC_EXPR_REGION:
		h = mix(h, e->u.region.buf->id);
		for (int i = 0; i < e->u.region.n; i++) {
			const tlc_range *r = &e->u.region.dims[i];
			h = mix(h, child_hash(r->begin));
			h = mix(h, child_hash(r->extent) + r->is_point);
		}
		return h;
	case TLC_EXPR_TUPLE:
		h = mix(h, (uint64_t)e->u.tuple.is_list | (uint64_t)e->u.tuple.is_dict << 1);
		for (int i = 0; i < e->u.tuple.n; i++)
			h = mix(h, child_hash(e->u.tuple.items[i]));
		return h;
	case TLC_EXPR_CALL:
		h = mix(h, (uint64_t)e->u.call.op);
		for (int i = 0; i < e->u.call.nargs; i++)
			h = mix(h, child_hash(e->u.call.args[i]));
		for (int i = 0; i < e->u.call.nkw; i++) {
			h = mix(h, str_hash(e->u.call.kw_names[i]));
			h = mix(h, child_hash(e->u.call.kw_values[i]));
		}
		return h;
	case TLC_EXPR_LAMBDA:
		for (int i = 0; i < e->u.lambda.nparams; i++)
			h = mix(h, e->u.lambda.params[i]->id);
		return mix(h, child_hash(e->u.lambda.body));
	default:
		h = mix(h, child_hash(e->u.op.a));
		h = mix(h, child_hash(e->u.op.b));
		return mix(h, child_hash(e->u.op.c));
	}
}

static bool same_ptrs(const void *const *a, const void *const *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static bool expr_equal(const tlc_expr *x, const tlc_expr *y)
{
	if (x->kind != y->kind || x->dtype != y->dtype || x->hash != y->hash)
		return false;
	switch (x->kind) {
	case TLC_EXPR_INT: return x->u.ival == y->u.ival;
	case TLC_EXPR_FLOAT: return double_bits(x->u.fval) == double_bits(y->u.fval);
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM: return x->u.str == y->u.str;
	case TLC_EXPR_VAR: return x->u.var == y->u.var;
	case TLC_EXPR_BUF: return x->u.buf == y->u.buf;
	case TLC_EXPR_LOAD:
		return x->u.load.buf == y->u.load.buf && x->u.load.n == y->u.load.n &&
		       same_ptrs((const void *const *)x->u.load.idx, (const void *const *)y->u.load.idx,
		                 x->u.load.n);
	case TLC_EXPR_REGION:
		if (x->u.region.buf != y->u.region.buf || x->u.region.n != y->u.region.n)
			return false;
		for (int i = 0; i < x->u.region.n; i++) {
			const tlc_range *a = &x->u.region.dims[i], *b = &y->u.region.dims[i];
			if (a->begin != b->begin || a->extent != b->extent || a->is_point != b->is_point)
				return false;
		}
		return true;
	case TLC_EXPR_TUPLE:
		return x->u.tuple.n == y->u.tuple.n && x->u.tuple.is_list == y->u.tuple.is_list &&
		       x->u.tuple.is_dict == y->u.tuple.is_dict &&
		       same_ptrs((const void *const *)x->u.tuple.items,
		                 (const void *const *)y->u.tuple.items, x->u.tuple.n);
	case TLC_EXPR_CALL:
		return x->u.call.op == y->u.call.op && x->u.call.nargs == y->u.call.nargs &&
		       x->u.call.nkw == y->u.call.nkw &&
		       same_ptrs((const void *const *)x->u.call.args,
		                 (const void *const *)y->u.call.args, x->u.call.nargs) &&
		       same_ptrs((const void *const *)x->u.call.kw_names,
		                 (const void *const *)y->u.call.kw_names, x->u.call.nkw) &&
		       same_ptrs((const void *const *)x->u.call.kw_values,
		                 (const void *const *)y->u.call.kw_values, x->u.call.nkw);
	case TLC_EXPR_LAMBDA:
		return x->u.lambda.nparams == y->u.lambda.nparams && x->u.lambda.body == y->u.lambda.body &&
		       same_ptrs((const void *const *)x->u.lambda.params,
		                 (const void *const *)y->u.lambda.params, x->u.lambda.nparams);
	default:
		return x->u.op.a == y->u.op.a && x->u.op.b == y->u.op.b && x->u.op.c == y->u.op.c;
	}
}

/* ---- the tables ---- */

static hashcons *get_hc(tlc_module *m)
{
	if (!m->hashcons) {
		hashcons *hc = tlc_alloc(m, sizeof(*hc));
		hc->cap = 1024;
		hc->slots = tlc_alloc(m, hc->cap * sizeof(*hc->slots));
		hc->scap = 256;
		hc->strs = tlc_alloc(m, hc->scap * sizeof(*hc->strs));
		m->hashcons = hc;
	}
	return m->hashcons;
}

/* Grow a table of pointers; the old array stays in the arena (the arena frees
 * everything at once, and doubling bounds the waste by the final size). */
static void grow_exprs(tlc_module *m, hashcons *hc)
{
	uint32_t cap = hc->cap * 2;
	const tlc_expr **slots = tlc_alloc(m, cap * sizeof(*slots));
	for (uint32_t i = 0; i < hc->cap; i++) {
		const tlc_expr *e = hc->slots[i];
		if (!e)
			continue;
		uint32_t j = e->hash & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = e;
	}
	hc->slots = slots;
	hc->cap = cap;
}

const char *tlc_intern(tlc_module *m, const char *s)
{
	if (!s)
		s = "";
	hashcons *hc = get_hc(m);
	if ((hc->sn + 1) * 2 > hc->scap) {
		uint32_t cap = hc->scap * 2;
		const char **strs = tlc_alloc(m, cap * sizeof(*strs));
		for (uint32_t i = 0; i < hc->scap; i++) {
			if (!hc->strs[i])
				continue;
			uint32_t j = str_hash(hc->strs[i]) & (cap - 1);
			while (strs[j])
				j = (j + 1) & (cap - 1);
			strs[j] = hc->strs[i];
		}
		hc->strs = strs;
		hc->scap = cap;
	}
	uint32_t j = str_hash(s) & (hc->scap - 1);
	for (; hc->strs[j]; j = (j + 1) & (hc->scap - 1))
		if (strcmp(hc->strs[j], s) == 0)
			return hc->strs[j];
	hc->strs[j] = tlc_strdup(m, s);
	hc->sn++;
	return hc->strs[j];
}

static void *copy_array(tlc_module *m, const void *src, size_t n, size_t size)
{
	if (n == 0)
		return NULL;
	void *p = tlc_alloc(m, n * size);
	memcpy(p, src, n * size);
	return p;
}

/* Return the unique node equal to *tmpl, copying it (and its arrays) into the
 * arena when it is new. */
static const tlc_expr *hashcons_get(tlc_module *m, tlc_expr *tmpl)
{
	hashcons *hc = get_hc(m);
	tmpl->hash = expr_hash(tmpl);
	uint32_t j = tmpl->hash & (hc->cap - 1);
	for (; hc->slots[j]; j = (j + 1) & (hc->cap - 1))
		if (expr_equal(hc->slots[j], tmpl))
			return hc->slots[j];
	tlc_expr *e = tlc_alloc(m, sizeof(*e));
	*e = *tmpl;
	switch (e->kind) {
	case TLC_EXPR_LOAD:
		e->u.load.idx = copy_array(m, tmpl->u.load.idx, (size_t)e->u.load.n, sizeof(tlc_expr *));
		break;
	case TLC_EXPR_REGION:
		e->u.region.dims = copy_array(m, tmpl->u.region.dims, (size_t)e->u.region.n, sizeof(tlc_range));
		break;
	case TLC_EXPR_TUPLE:
		e->u.tuple.items = copy_array(m, tmpl->u.tuple.items, (size_t)e->u.tuple.n, sizeof(tlc_expr *));
		break;
	case TLC_EXPR_CALL:
		e->u.call.args = copy_array(m, tmpl->u.call.args, (size_t)e->u.call.nargs, sizeof(tlc_expr *));
		e->u.call.kw_names = copy_array(m, tmpl->u.call.kw_names, (size_t)e->u.call.nkw, sizeof(char *));
		e->u.call.kw_values = copy_array(m, tmpl->u.call.kw_values, (size_t)e->u.call.nkw, sizeof(tlc_expr *));
		break;
	case TLC_EXPR_LAMBDA:
		e->u.lambda.params = copy_array(m, tmpl->u.lambda.params, (size_t)e->u.lambda.nparams, sizeof(tlc_var *));
		break;
	default:
		break;
	}
	hc->slots[j] = e;
	if (++hc->n * 2 > hc->cap)
		grow_exprs(m, hc);
	return e;
}

static tlc_expr node(tlc_expr_kind k, tlc_dtype t)
{
	tlc_expr e;
	memset(&e, 0, sizeof(e));
	e.kind = k;
	e.dtype = t;
	return e;
}

/* ---- constructors ---- */

const tlc_expr *tlc_int(tlc_module *m, tlc_dtype t, int64_t v)
{
	tlc_expr e = node(TLC_EXPR_INT, t);
	e.u.ival = v;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_i32(tlc_module *m, int64_t v)
{
	return tlc_int(m, TLC_DT_INT32, v);
}

const tlc_expr *tlc_bool(tlc_module *m, bool v)
{
	return tlc_int(m, TLC_DT_BOOL, v ? 1 : 0);
}

const tlc_expr *tlc_float(tlc_module *m, tlc_dtype t, double v)
{
	tlc_expr e = node(TLC_EXPR_FLOAT, t);
	/* a constant holds a value of its type: rounded as a float32 value is
	 * converted to t (doc/language.md, "Conversions") */
	e.u.fval = t == TLC_DT_FLOAT64 || !tlc_dtype_is_float(t) ? v : tlc_arith_round(t, (double)(float)v);
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_str(tlc_module *m, const char *s)
{
	tlc_expr e = node(TLC_EXPR_STR, TLC_DT_VOID);
	e.u.str = tlc_intern(m, s);
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_sym(tlc_module *m, const char *dotted_name)
{
	tlc_expr e = node(TLC_EXPR_SYM, TLC_DT_VOID);
	e.u.str = tlc_intern(m, dotted_name);
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_var_ref(tlc_module *m, tlc_var *v)
{
	if (!v)
		return NULL;
	tlc_expr e = node(TLC_EXPR_VAR, v->dtype);
	e.u.var = v;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_buf_ref(tlc_module *m, tlc_buffer *b)
{
	if (!b)
		return NULL;
	tlc_expr e = node(TLC_EXPR_BUF, TLC_DT_VOID);
	e.u.buf = b;
	return hashcons_get(m, &e);
}

static bool is_const(const tlc_expr *e)
{
	return e->kind == TLC_EXPR_INT || e->kind == TLC_EXPR_FLOAT;
}

static bool is_ieee_float(tlc_dtype t)
{
	return t == TLC_DT_FLOAT16 || t == TLC_DT_FLOAT32 || t == TLC_DT_FLOAT64;
}

static bool is_float8(tlc_dtype t)
{
	return t == TLC_DT_FLOAT8_E4M3 || t == TLC_DT_FLOAT8_E5M2 || t == TLC_DT_FLOAT8_E4M3FNUZ ||
	       t == TLC_DT_FLOAT8_E5M2FNUZ;
}

/* Operators that compute a number: two bool operands are the int32 0 or 1
 * (Python: True + True == 2), while comparisons, min/max and the bitwise
 * operators keep bools (a bool beside any other type takes that type). */
static bool promotes_bool(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: case TLC_EXPR_SUB: case TLC_EXPR_MUL: case TLC_EXPR_DIV:
	case TLC_EXPR_FLOORDIV: case TLC_EXPR_FLOORMOD: case TLC_EXPR_SHL: case TLC_EXPR_SHR:
		return true;
	default: return false;
	}
}

static bool is_logic(tlc_expr_kind k)
{
	return k == TLC_EXPR_AND || k == TLC_EXPR_OR;
}

static bool is_compare(tlc_expr_kind k)
{
	return k >= TLC_EXPR_EQ && k <= TLC_EXPR_GE;
}

/* TileLang's (TVM's) rule for two typed operands; see ir.h. */
tlc_dtype tlc_operand_type(tlc_expr_kind k, tlc_dtype a, tlc_dtype b)
{
	if (is_logic(k))
		return TLC_DT_BOOL;
	if (promotes_bool(k) && a == TLC_DT_BOOL && b == TLC_DT_BOOL)
		return TLC_DT_INT32;
	if (a == b || b == TLC_DT_VOID)
		return a;
	if (a == TLC_DT_VOID)
		return b;
	if (is_ieee_float(a) || is_ieee_float(b)) {
		if (is_ieee_float(a) && is_ieee_float(b))
			return tlc_dtype_bits(a) >= tlc_dtype_bits(b) ? a : b;
		return is_ieee_float(a) ? a : b;
	}
	if (a == TLC_DT_BFLOAT16 || b == TLC_DT_BFLOAT16)
		return TLC_DT_BFLOAT16;
	if (is_float8(a) || is_float8(b))
		return is_float8(a) && is_float8(b) ? TLC_DT_VOID : is_float8(a) ? a : b;
	if (a == TLC_DT_BOOL || b == TLC_DT_BOOL)
		return a == TLC_DT_BOOL ? b : a;
	int ba = tlc_dtype_bits(a), bb = tlc_dtype_bits(b);
	if (ba != bb)
		return ba > bb ? a : b;
	return tlc_dtype_is_unsigned(a) ? a : b; /* as wide: unsigned wins */
}

/* An integer constant written beside an operand of type t takes t when
 * its value survives: 64-bit constants keep their value (i + 2**32 with i
 * an int32 is an int64 sum, never a silently truncated index). */
static const tlc_expr *adopt_int_const(tlc_module *m, const tlc_expr *c, tlc_dtype t)
{
	int64_t lo, hi;
	if (c->kind != TLC_EXPR_INT || c->dtype == t || t == TLC_DT_BOOL || t == TLC_DT_VOID)
		return c;
	if (tlc_dtype_is_float(t))
		return tlc_cast(m, t, c);
	if (c->dtype == TLC_DT_UINT64 && c->u.ival < 0)
		return c; /* above INT64_MAX */
	if (tlc_dtype_int_range(t, &lo, &hi) && c->u.ival >= lo && c->u.ival <= hi)
		return tlc_int(m, t, c->u.ival);
	return c;
}

/* Convert a and b to the type operator k computes in (see ir.h). */
static void match_operands(tlc_module *m, tlc_expr_kind k, const tlc_expr **a, const tlc_expr **b)
{
	if (promotes_bool(k) && (*a)->dtype == TLC_DT_BOOL && (*b)->dtype == TLC_DT_BOOL) {
		*a = tlc_cast(m, TLC_DT_INT32, *a);
		*b = tlc_cast(m, TLC_DT_INT32, *b);
	}
	if ((*a)->dtype == (*b)->dtype)
		return;
	if (is_const(*a) != is_const(*b)) {
		if (is_const(*a))
			*a = adopt_int_const(m, *a, (*b)->dtype);
		else
			*b = adopt_int_const(m, *b, (*a)->dtype);
	}
	tlc_dtype t = tlc_operand_type(k, (*a)->dtype, (*b)->dtype);
	if (t == TLC_DT_VOID) /* two float8 formats: the frontend refuses them; a pass gets float32 */
		t = TLC_DT_FLOAT32;
	*a = tlc_cast(m, t, *a);
	*b = tlc_cast(m, t, *b);
}

const tlc_expr *tlc_unary(tlc_module *m, tlc_expr_kind k, const tlc_expr *a)
{
	if (!a || (k != TLC_EXPR_NOT && k != TLC_EXPR_NEG))
		return NULL;
	a = tlc_cast(m, k == TLC_EXPR_NOT ? TLC_DT_BOOL : a->dtype == TLC_DT_BOOL ? TLC_DT_INT32 : a->dtype, a);
	tlc_expr e = node(k, a->dtype);
	e.u.op.a = a;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_binary(tlc_module *m, tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b)
{
	if (!a || !b || k < TLC_EXPR_ADD || k > TLC_EXPR_SHR)
		return NULL;
	if (is_logic(k)) {
		a = tlc_cast(m, TLC_DT_BOOL, a);
		b = tlc_cast(m, TLC_DT_BOOL, b);
	} else {
		match_operands(m, k, &a, &b);
	}
	tlc_expr e = node(k, is_compare(k) || is_logic(k) ? TLC_DT_BOOL : a->dtype);
	e.u.op.a = a;
	e.u.op.b = b;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_select(tlc_module *m, const tlc_expr *cond, const tlc_expr *t, const tlc_expr *f)
{
	if (!cond || !t || !f)
		return NULL;
	cond = tlc_cast(m, TLC_DT_BOOL, cond);
	match_operands(m, TLC_EXPR_SELECT, &t, &f);
	tlc_expr e = node(TLC_EXPR_SELECT, t->dtype);
	e.u.op.a = cond;
	e.u.op.b = t;
	e.u.op.c = f;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_cast(tlc_module *m, tlc_dtype t, const tlc_expr *a)
{
	if (!a)
		return NULL;
	if (a->dtype == t || t == TLC_DT_VOID || a->dtype == TLC_DT_VOID)
		return a;
	if (is_const(a)) {
		tlc_scalar v = {a->kind == TLC_EXPR_FLOAT ? a->u.fval : 0, a->kind == TLC_EXPR_INT ? a->u.ival : 0};
		v = tlc_arith_convert(v, a->dtype, t);
		return tlc_dtype_is_float(t) ? tlc_float(m, t, v.f) : tlc_int(m, t, v.i);
	}
	tlc_expr e = node(TLC_EXPR_CAST, t);
	e.u.op.a = a;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_bitcast(tlc_module *m, tlc_dtype t, const tlc_expr *a)
{
	if (!a)
		return NULL;
	if (a->dtype == t || t == TLC_DT_VOID || a->dtype == TLC_DT_VOID)
		return a;
	tlc_expr e = node(TLC_EXPR_BITCAST, t);
	e.u.op.a = a;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_load(tlc_module *m, tlc_buffer *b, int n, const tlc_expr *const *idx)
{
	if (!b || n < 0 || (n > 0 && !idx))
		return NULL;
	tlc_expr e = node(TLC_EXPR_LOAD, b->dtype);
	e.u.load.buf = b;
	e.u.load.n = n;
	e.u.load.idx = (const tlc_expr **)idx;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_region(tlc_module *m, tlc_buffer *b, int n, const tlc_range *dims)
{
	if (!b || n < 0 || (n > 0 && !dims))
		return NULL;
	tlc_expr e = node(TLC_EXPR_REGION, TLC_DT_VOID);
	e.u.region.buf = b;
	e.u.region.n = n;
	e.u.region.dims = dims;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_tuple(tlc_module *m, int n, const tlc_expr *const *items, bool is_list)
{
	if (n < 0 || (n > 0 && !items))
		return NULL;
	tlc_expr e = node(TLC_EXPR_TUPLE, TLC_DT_VOID);
	e.u.tuple.n = n;
	e.u.tuple.items = (const tlc_expr **)items;
	e.u.tuple.is_list = is_list;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_dict(tlc_module *m, int n, const tlc_expr *const *keys,
                         const tlc_expr *const *values)
{
	if (n < 0 || (n > 0 && (!keys || !values)))
		return NULL;
	const tlc_expr **pairs = tlc_alloc(m, sizeof(*pairs) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const tlc_expr *kv[2] = {keys[i], values[i]};
		if (!(pairs[i] = tlc_tuple(m, 2, kv, false)))
			return NULL;
	}
	tlc_expr e = node(TLC_EXPR_TUPLE, TLC_DT_VOID);
	e.u.tuple.n = n;
	e.u.tuple.items = pairs;
	e.u.tuple.is_dict = true;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_call(tlc_module *m, tlc_op_id op, tlc_dtype t, int nargs,
                         const tlc_expr *const *args, int nkw, const char *const *kw_names,
                         const tlc_expr *const *kw_values)
{
	if (nargs < 0 || nkw < 0 || (nargs > 0 && !args) || (nkw > 0 && (!kw_names || !kw_values)))
		return NULL;
	/* keyword names compare by pointer in the table: intern them first */
	const char *stack_names[8];
	const char **names = nkw <= 8 ? stack_names : tlc_alloc(m, (size_t)nkw * sizeof(char *));
	for (int i = 0; i < nkw; i++)
		names[i] = tlc_intern(m, kw_names[i]);
	tlc_expr e = node(TLC_EXPR_CALL, t);
	e.u.call.op = op;
	e.u.call.nargs = nargs;
	e.u.call.args = (const tlc_expr **)args;
	e.u.call.nkw = nkw;
	e.u.call.kw_names = names;
	e.u.call.kw_values = (const tlc_expr **)kw_values;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_lambda(tlc_module *m, int nparams, tlc_var *const *params, const tlc_expr *body)
{
	if (nparams < 0 || !body || (nparams > 0 && !params))
		return NULL;
	tlc_expr e = node(TLC_EXPR_LAMBDA, TLC_DT_VOID);
	e.u.lambda.nparams = nparams;
	e.u.lambda.params = (tlc_var **)params;
	e.u.lambda.body = body;
	return hashcons_get(m, &e);
}

const tlc_expr *tlc_call_kw(const tlc_expr *call, const char *name)
{
	if (!call || call->kind != TLC_EXPR_CALL || !name)
		return NULL;
	for (int i = 0; i < call->u.call.nkw; i++)
		if (strcmp(call->u.call.kw_names[i], name) == 0)
			return call->u.call.kw_values[i];
	return NULL;
}

bool tlc_expr_as_int(const tlc_expr *e, int64_t *v)
{
	if (!e || e->kind != TLC_EXPR_INT)
		return false;
	if (v)
		*v = e->u.ival;
	return true;
}

/* ---- canonical order ---- */

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_list(const tlc_expr *const *a, int na, const tlc_expr *const *b, int nb)
{
	if (na != nb)
		return cmp_i64(na, nb);
	for (int i = 0; i < na; i++) {
		int c = tlc_expr_compare(a[i], b[i]);
		if (c)
			return c;
	}
	return 0;
}

int tlc_expr_compare(const tlc_expr *a, const tlc_expr *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
	if (a->kind != b->kind)
		return cmp_i64(a->kind, b->kind);
	if (a->dtype != b->dtype)
		return cmp_i64(a->dtype, b->dtype);
	int c;
	switch (a->kind) {
	case TLC_EXPR_INT: return cmp_i64(a->u.ival, b->u.ival);
	case TLC_EXPR_FLOAT:
		if (a->u.fval != b->u.fval && a->u.fval == a->u.fval && b->u.fval == b->u.fval)
			return a->u.fval < b->u.fval ? -1 : 1;
		return cmp_i64((int64_t)double_bits(a->u.fval), (int64_t)double_bits(b->u.fval));
	case TLC_EXPR_STR:
	case TLC_EXPR_SYM: return strcmp(a->u.str, b->u.str);
	case TLC_EXPR_VAR: return cmp_i64(a->u.var->id, b->u.var->id);
	case TLC_EXPR_BUF: return cmp_i64(a->u.buf->id, b->u.buf->id);
	case TLC_EXPR_LOAD:
		if ((c = cmp_i64(a->u.load.buf->id, b->u.load.buf->id)))
			return c;
		return cmp_list(a->u.load.idx, a->u.load.n, b->u.load.idx, b->u.load.n);
	case TLC_EXPR_REGION:
		if ((c = cmp_i64(a->u.region.buf->id, b->u.region.buf->id)) ||
		    (c = cmp_i64(a->u.region.n, b->u.region.n)))
			return c;
		for (int i = 0; i < a->u.region.n; i++) {
			const tlc_range *x = &a->u.region.dims[i], *y = &b->u.region.dims[i];
			if ((c = cmp_i64(x->is_point, y->is_point)) ||
			    (c = tlc_expr_compare(x->begin, y->begin)) ||
			    (c = tlc_expr_compare(x->extent, y->extent)))
				return c;
		}
		return 0;
	case TLC_EXPR_TUPLE:
		if ((c = cmp_i64(a->u.tuple.is_list, b->u.tuple.is_list)) ||
		    (c = cmp_i64(a->u.tuple.is_dict, b->u.tuple.is_dict)))
			return c;
		return cmp_list(a->u.tuple.items, a->u.tuple.n, b->u.tuple.items, b->u.tuple.n);
	case TLC_EXPR_CALL:
		if ((c = cmp_i64(a->u.call.op, b->u.call.op)) ||
		    (c = cmp_list(a->u.call.args, a->u.call.nargs, b->u.call.args, b->u.call.nargs)) ||
		    (c = cmp_i64(a->u.call.nkw, b->u.call.nkw)))
			return c;
		for (int i = 0; i < a->u.call.nkw; i++)
			if ((c = strcmp(a->u.call.kw_names[i], b->u.call.kw_names[i])) ||
			    (c = tlc_expr_compare(a->u.call.kw_values[i], b->u.call.kw_values[i])))
				return c;
		return 0;
	case TLC_EXPR_LAMBDA:
		if ((c = cmp_i64(a->u.lambda.nparams, b->u.lambda.nparams)))
			return c;
		for (int i = 0; i < a->u.lambda.nparams; i++)
			if ((c = cmp_i64(a->u.lambda.params[i]->id, b->u.lambda.params[i]->id)))
				return c;
		return tlc_expr_compare(a->u.lambda.body, b->u.lambda.body);
	default:
		if ((c = tlc_expr_compare(a->u.op.a, b->u.op.a)) ||
		    (c = tlc_expr_compare(a->u.op.b, b->u.op.b)))
			return c;
		return tlc_expr_compare(a->u.op.c, b->u.op.c);
	}
}
