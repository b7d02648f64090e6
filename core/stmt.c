/* stmt.c - statement constructors, modules, functions, variables, buffers. */
#include "internal.h"

#include <string.h>

/* ---- modules, functions, variables, buffers ---- */

tlc_module *tlc_module_new(tlc_context *ctx)
{
	tlc_arena *a = tlc_arena_new();
	tlc_module *m = tlc_arena_alloc(a, sizeof(*m));
	m->ctx = ctx;
	m->arena = a;
	m->next_id = 1;
	return m;
}

tlc_context *tlc_module_context(const tlc_module *m)
{
	return m->ctx;
}

int tlc_module_func_count(const tlc_module *m)
{
	return m->nfuncs;
}

tlc_func *tlc_module_func(const tlc_module *m, int i)
{
	return i >= 0 && i < m->nfuncs ? m->funcs[i] : NULL;
}

void tlc_module_free(tlc_module *m)
{
	if (m)
		tlc_arena_free(m->arena); /* the module itself lives in its arena */
}

tlc_func *tlc_func_new(tlc_module *m, const char *name, tlc_loc loc)
{
	tlc_func *f = tlc_alloc(m, sizeof(*f));
	f->name = tlc_intern(m, name ? name : "main");
	f->loc = loc;
	f->grid_ndim = 1;
	f->thread_ndim = 1;
	f->body = tlc_seq_new(m, loc);
	return f;
}

void tlc_module_add_func(tlc_module *m, tlc_func *f)
{
	if (m->nfuncs == m->cap_funcs) {
		int cap = m->cap_funcs ? m->cap_funcs * 2 : 4;
		tlc_func **funcs = tlc_alloc(m, (size_t)cap * sizeof(*funcs));
		if (m->nfuncs)
			memcpy(funcs, m->funcs, (size_t)m->nfuncs * sizeof(*funcs));
		m->funcs = funcs;
		m->cap_funcs = cap;
	}
	m->funcs[m->nfuncs++] = f;
}

tlc_var *tlc_var_new(tlc_module *m, const char *name, tlc_dtype t)
{
	tlc_var *v = tlc_alloc(m, sizeof(*v));
	v->name = tlc_intern(m, name && *name ? name : "v");
	v->dtype = t;
	v->id = m->next_id++;
	return v;
}

tlc_buffer *tlc_buffer_new(tlc_module *m, const char *name, tlc_dtype t, tlc_scope s, int ndim,
                           const tlc_expr *const *shape, tlc_loc loc)
{
	tlc_buffer *b = tlc_alloc(m, sizeof(*b));
	b->name = tlc_intern(m, name && *name ? name : "buf");
	b->dtype = t;
	b->scope = s;
	b->ndim = ndim > 0 ? ndim : 0;
	if (b->ndim) {
		b->shape = tlc_alloc(m, (size_t)b->ndim * sizeof(*b->shape));
		if (shape)
			memcpy(b->shape, shape, (size_t)b->ndim * sizeof(*b->shape));
	}
	b->id = m->next_id++;
	b->loc = loc;
	b->offset = -1; /* not planned (storage-plan sets it) */
	return b;
}

bool tlc_buffer_numel(const tlc_buffer *b, int64_t *numel)
{
	int64_t n = 1, v;
	for (int d = 0; d < b->ndim; d++)
		if (!tlc_expr_as_int(b->shape[d], &v) || v < 0 || __builtin_mul_overflow(n, v, &n))
			return false;
	*numel = n;
	return true;
}

bool tlc_buffer_bytes(const tlc_buffer *b, int64_t *bytes)
{
	int64_t n, bits;
	if (!tlc_buffer_numel(b, &n) || __builtin_mul_overflow(n, (int64_t)tlc_dtype_bits(b->dtype), &bits))
		return false;
	*bytes = bits / 8 + (bits % 8 != 0);
	return true;
}

bool tlc_stmt_is_call(const tlc_stmt *s, tlc_op_id op)
{
	return s && s->kind == TLC_STMT_EVAL && s->u.eval.call && s->u.eval.call->kind == TLC_EXPR_CALL &&
	       s->u.eval.call->u.call.op == op;
}

tlc_dtype tlc_buffer_index_dtype(const tlc_buffer *b)
{
	int64_t n;
	return tlc_buffer_numel(b, &n) && n <= INT32_MAX ? TLC_DT_INT32 : TLC_DT_INT64;
}

/* ---- statements ---- */

static tlc_stmt *stmt(tlc_module *m, tlc_stmt_kind k, tlc_loc loc)
{
	tlc_stmt *s = tlc_alloc(m, sizeof(*s));
	s->kind = k;
	s->loc = loc;
	return s;
}

tlc_stmt *tlc_seq_new(tlc_module *m, tlc_loc loc)
{
	return stmt(m, TLC_STMT_SEQ, loc);
}

void tlc_seq_append(tlc_module *m, tlc_stmt *seq, tlc_stmt *s)
{
	if (!seq || seq->kind != TLC_STMT_SEQ || !s)
		return;
	if (seq->u.seq.n == seq->u.seq.cap) {
		int cap = seq->u.seq.cap ? seq->u.seq.cap * 2 : 4;
		tlc_stmt **items = tlc_alloc(m, (size_t)cap * sizeof(*items));
		if (seq->u.seq.n)
			memcpy(items, seq->u.seq.items, (size_t)seq->u.seq.n * sizeof(*items));
		seq->u.seq.items = items;
		seq->u.seq.cap = cap;
	}
	seq->u.seq.items[seq->u.seq.n++] = s;
}

tlc_stmt *tlc_for_new(tlc_module *m, tlc_loc loc, tlc_var *v, const tlc_expr *min,
                      const tlc_expr *extent, tlc_for_kind kind, tlc_stmt *body)
{
	tlc_stmt *s = stmt(m, TLC_STMT_FOR, loc);
	s->u.loop.var = v;
	s->u.loop.min = min ? min : tlc_int(m, v ? v->dtype : TLC_DT_INT32, 0);
	s->u.loop.extent = extent;
	s->u.loop.kind = kind;
	s->u.loop.body = body ? body : tlc_seq_new(m, loc);
	return s;
}

tlc_stmt *tlc_if_new(tlc_module *m, tlc_loc loc, const tlc_expr *cond, tlc_stmt *then_s,
                     tlc_stmt *else_s)
{
	tlc_stmt *s = stmt(m, TLC_STMT_IF, loc);
	s->u.if_.cond = cond;
	s->u.if_.then_s = then_s ? then_s : tlc_seq_new(m, loc);
	s->u.if_.else_s = else_s;
	return s;
}

tlc_stmt *tlc_let_new(tlc_module *m, tlc_loc loc, tlc_var *v, const tlc_expr *value)
{
	tlc_stmt *s = stmt(m, TLC_STMT_LET, loc);
	s->u.let.var = v;
	s->u.let.value = value;
	return s;
}

tlc_stmt *tlc_store_new(tlc_module *m, tlc_loc loc, tlc_buffer *b, int n,
                        const tlc_expr *const *idx, const tlc_expr *value)
{
	tlc_stmt *s = stmt(m, TLC_STMT_STORE, loc);
	s->u.store.buf = b;
	s->u.store.n = n > 0 ? n : 0;
	if (s->u.store.n) {
		s->u.store.idx = tlc_alloc(m, (size_t)n * sizeof(*s->u.store.idx));
		if (idx)
			memcpy(s->u.store.idx, idx, (size_t)n * sizeof(*s->u.store.idx));
	}
	s->u.store.value = value;
	return s;
}

tlc_stmt *tlc_eval_new(tlc_module *m, tlc_loc loc, const tlc_expr *call)
{
	tlc_stmt *s = stmt(m, TLC_STMT_EVAL, loc);
	s->u.eval.call = call;
	return s;
}

tlc_stmt *tlc_alloc_new(tlc_module *m, tlc_loc loc, tlc_buffer *b)
{
	tlc_stmt *s = stmt(m, TLC_STMT_ALLOC, loc);
	s->u.alloc.buf = b;
	return s;
}

tlc_stmt *tlc_scope_new(tlc_module *m, tlc_loc loc, const tlc_expr *call, tlc_stmt *body)
{
	tlc_stmt *s = stmt(m, TLC_STMT_SCOPE, loc);
	s->u.scope.call = call;
	s->u.scope.body = body ? body : tlc_seq_new(m, loc);
	return s;
}

tlc_stmt *tlc_attr_new(tlc_module *m, tlc_loc loc, const char *key, const tlc_expr *value,
                       tlc_stmt *body)
{
	tlc_stmt *s = stmt(m, TLC_STMT_ATTR, loc);
	s->u.attr.key = tlc_intern(m, key ? key : "");
	s->u.attr.value = value;
	s->u.attr.body = body ? body : tlc_seq_new(m, loc);
	return s;
}

void tlc_func_set_attr(tlc_module *m, tlc_func *f, const char *key, const tlc_expr *value)
{
	for (int i = 0; i < f->nattrs; i++)
		if (f->attr_keys[i] && strcmp(f->attr_keys[i], key) == 0) {
			f->attr_values[i] = value;
			return;
		}
	const char **keys = tlc_alloc(m, sizeof(*keys) * (size_t)(f->nattrs + 1));
	const tlc_expr **values = tlc_alloc(m, sizeof(*values) * (size_t)(f->nattrs + 1));
	if (f->nattrs) {
		memcpy(keys, f->attr_keys, sizeof(*keys) * (size_t)f->nattrs);
		memcpy(values, f->attr_values, sizeof(*values) * (size_t)f->nattrs);
	}
	keys[f->nattrs] = tlc_intern(m, key);
	values[f->nattrs] = value;
	f->attr_keys = keys;
	f->attr_values = values;
	f->nattrs++;
}

int tlc_func_launch_group(const tlc_func *f, const char **name, int *count)
{
	*name = NULL;
	*count = 1;
	for (int i = 0; i < f->nattrs; i++) {
		const tlc_expr *v = f->attr_values[i];
		if (!f->attr_keys[i] || strcmp(f->attr_keys[i], "tlc.launch_group") != 0 || v->kind != TLC_EXPR_TUPLE ||
		    v->u.tuple.n != 3 || v->u.tuple.items[0]->kind != TLC_EXPR_STR)
			continue;
		int64_t idx, n;
		if (!tlc_expr_as_int(v->u.tuple.items[1], &idx) || !tlc_expr_as_int(v->u.tuple.items[2], &n) || n < 1 ||
		    n > INT32_MAX || idx < 0 || idx >= n)
			continue;
		*name = v->u.tuple.items[0]->u.str;
		*count = (int)n;
		return (int)idx;
	}
	return -1;
}

int64_t tlc_func_cluster_dims(const tlc_func *f, int64_t dims[3])
{
	dims[0] = dims[1] = dims[2] = 1;
	for (int i = 0; i < f->nattrs; i++) {
		const tlc_expr *v = f->attr_values[i];
		if (!f->attr_keys[i] || strcmp(f->attr_keys[i], "tlc.cluster_dims") != 0 || v->kind != TLC_EXPR_TUPLE ||
		    v->u.tuple.n != 3)
			continue;
		int64_t d[3];
		bool ok = true;
		for (int k = 0; k < 3; k++)
			ok = ok && tlc_expr_as_int(v->u.tuple.items[k], &d[k]) && d[k] >= 1;
		if (ok)
			memcpy(dims, d, sizeof(d));
	}
	return dims[0] * dims[1] * dims[2];
}
