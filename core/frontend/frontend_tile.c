/* frontend_tile.c - the T.* surface that is not a plain op call: the kernel
 * frame, tensors and allocations, loops, scopes, symbolic sizes and the
 * scalar helpers (ceildiv, min/max, if_then_else, cast, infinity). */
#include "frontend.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Builtins of T that the frontend implements itself (the rest are ops). */
static const char *const t_builtins[] = {
	"prim_func", "macro", "Kernel", "Tensor", "Buffer", "alloc_shared", "alloc_fragment",
	"alloc_local", "alloc_var", "alloc_barrier", "Parallel", "parallel", "Pipelined", "serial", "Serial",
	"unroll", "Unroll", "vectorized", "Vectorized", "thread_binding", "ceildiv", "max", "min",
	"if_then_else", "cast", "Cast", "infinity", "get_thread_binding", "get_block_binding",
	"func_attr", "attr",
	"const", "dynamic", "symbolic", "empty", "ws", "view", "reshape", "clamp", "alloc_global", "Persistent",
	"make_tensor", "make_tensor_from_addr", "ptr", "handle", "import_source", "comm_reducer",
	"tvm_thread_allreduce",
	"evaluate", "c2d_im2col", "tvm_access_ptr", "type_annotation",
};

bool fe_t_has(fe *F, const char *name)
{
	if (strcmp(name, "GemmWarpPolicy") == 0 || tlc_dtype_from_name(name) != TLC_DT_VOID)
		return true;
	for (size_t i = 0; i < TLC_ARRAY_LEN(t_builtins); i++)
		if (strcmp(t_builtins[i], name) == 0)
			return true;
	return fe_frame_builtin(name) || fe_hint_has(name) || fe_misc_has(name) || fe_intops_has(name) ||
	       fe_async_has(name) || fe_tvm_t_alias(name) || fe_shuffle_has(name) ||
	       fe_sparse_has(FM_T, name) ||
	       tlc_op_lookup(F->ctx, name) >= 0;
}

fe_val *fe_t_attr(fe *F, const char *name, tlc_loc loc)
{
	if (strcmp(name, "GemmWarpPolicy") == 0) {
		fe_val *v = fe_new(F, FV_NAMESPACE);
		v->u.s = "T.GemmWarpPolicy";
		return v;
	}
	/* a sub-byte type is a value host code may compare and print (the
	 * dequantizing kernels' `in_dtype`); used as a dtype it is refused
	 * (fe_to_dtype), saying to declare the packed storage as uint8.
	 * T.tfloat32 is no storage type at all: refused where it is named */
	if (fe_dtype_unsupported(name) && strcmp(name, "tfloat32") != 0)
		return fe_str(F, fe_strdup(F, name));
	if (fe_dtype_unsupported(name)) {
		fe_dtype_unsupported_error(F, name, loc);
		return NULL;
	}
	tlc_dtype t = tlc_dtype_from_name(name);
	if (t != TLC_DT_VOID)
		return fe_dtype(F, t);
	if (fe_sparse_has(FM_T, name))
		return fe_sparse_attr(F, FM_T, name, loc);
	char buf[128];
	if (fe_tvm_t_alias(name)) {
		snprintf(buf, sizeof buf, "tvm.tir.%s", name);
		return fe_builtin(F, fe_strdup(F, buf));
	}
	snprintf(buf, sizeof buf, "T.%s", name);
	for (size_t i = 0; i < TLC_ARRAY_LEN(t_builtins); i++)
		if (strcmp(t_builtins[i], name) == 0)
			return fe_builtin(F, fe_strdup(F, buf));
	if (fe_frame_builtin(name) || fe_hint_has(name) || fe_misc_has(name) || fe_intops_has(name) ||
	    fe_async_has(name) || fe_shuffle_has(name) ||
	    tlc_op_lookup(F->ctx, name) >= 0)
		return fe_builtin(F, fe_strdup(F, buf));
	tlc_suggestion sg;
	tlc_suggest_init(&sg, name);
	for (size_t i = 0; i < TLC_ARRAY_LEN(t_builtins); i++)
		tlc_suggest_add(&sg, t_builtins[i]);
	const tlc_op_info *op;
	for (tlc_op_id i = 0; (op = tlc_op_get(F->ctx, i)); i++)
		tlc_suggest_add(&sg, op->name);
	for (int t = 1; t < TLC_DT_COUNT; t++)
		tlc_suggest_add(&sg, tlc_dtype_name((tlc_dtype)t));
	tlc_suggest_add(&sg, "GemmWarpPolicy");
	if (sg.best)
		tlc_error(F->ctx, loc, "unknown T.* function 'T.%s'; did you mean 'T.%s'?", name, sg.best);
	else
		tlc_error(F->ctx, loc, "unknown T.* function 'T.%s'", name);
	return NULL;
}

fe_val *fe_tilelang_attr(fe *F, int mod, const char *name, tlc_loc loc)
{
	if (mod == FM_AUTOTUNER) {
		if (strcmp(name, "autotune") == 0)
			return fe_builtin(F, "tilelang.autotune");
		fe_val *v = fe_new(F, FV_HOST); /* AutoTuner and the rest: host-side, opaque */
		char buf[128];
		snprintf(buf, sizeof buf, "tilelang.autotuner.%s", name);
		v->u.s = fe_strdup(F, buf);
		return v;
	}
	if (mod == FM_LAYOUT) {
		if (strcmp(name, "make_swizzled_layout") == 0)
			return fe_builtin(F, "T.make_swizzled_layout");
		if (fe_sparse_has(FM_LAYOUT, name))
			return fe_sparse_attr(F, FM_LAYOUT, name, loc);
		tlc_error(F->ctx, loc, "unsupported function 'tilelang.layout.%s'", name);
		return NULL;
	}
	if (strcmp(name, "language") == 0) {
		fe_val *v = fe_new(F, FV_MODULE);
		v->u.s = "tilelang.language";
		v->mod = FM_T;
		return v;
	}
	if (strcmp(name, "layout") == 0) {
		fe_val *v = fe_new(F, FV_MODULE);
		v->u.s = "tilelang.layout";
		v->mod = FM_LAYOUT;
		return v;
	}
	if (strcmp(name, "PassConfigKey") == 0) {
		fe_val *v = fe_new(F, FV_NAMESPACE);
		v->u.s = "tilelang.PassConfigKey";
		return v;
	}
	if (!strcmp(name, "jit") || !strcmp(name, "compile") || !strcmp(name, "autotune"))
		return fe_builtin(F, !strcmp(name, "jit") ? "tilelang.jit"
		                     : !strcmp(name, "compile") ? "tilelang.compile" : "tilelang.autotune");
	char buf[128];
	snprintf(buf, sizeof buf, "tilelang.%s", name);
	fe_val *v = fe_new(F, FV_HOST); /* host-side tilelang API: opaque */
	v->u.s = fe_strdup(F, buf);
	/* a statement that fails on it (`mod, params = tilelang.lower(f)`)
	 * runs host code and may be skipped, as for a host name */
	F->host_uses++;
	return v;
}

/* ---- argument binding for T.* builtins ---- */

bool fe_bind_args(fe *F, const char *fname, const char *const *names, int nnames, int nreq,
                 int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv, fe_val **out,
                 tlc_loc loc)
{
	for (int i = 0; i < nnames; i++)
		out[i] = NULL;
	if (nargs > nnames) {
		if (nreq == nnames)
			tlc_error(F->ctx, loc, "%s expects %d argument%s, got %d", fname, nnames,
			          nnames == 1 ? "" : "s", nargs);
		else
			tlc_error(F->ctx, loc, "%s expects %d to %d arguments, got %d", fname, nreq, nnames,
			          nargs);
		return false;
	}
	for (int i = 0; i < nargs; i++)
		out[i] = args[i];
	for (int k = 0; k < nkw; k++) {
		int i;
		for (i = 0; i < nnames; i++)
			if (strcmp(names[i], kwn[k]) == 0)
				break;
		if (i == nnames) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for %s", kwn[k], fname);
			return false;
		}
		if (out[i]) {
			tlc_error(F->ctx, loc, "%s got multiple values for argument '%s'", fname, kwn[k]);
			return false;
		}
		out[i] = kwv[k];
	}
	for (int i = 0; i < nreq; i++)
		if (!out[i]) {
			tlc_error(F->ctx, loc, "%s is missing argument '%s'", fname, names[i]);
			return false;
		}
	return true;
}

bool fe_const_int(fe *F, fe_val *v, const char *what, tlc_loc loc, int64_t *out)
{
	if (fe_as_int(v, out))
		return true;
	if (v->kind == FV_MISSING || v->kind == FV_HOST)
		fe_err_not_kernel(F, v, loc);
	else
		tlc_error(F->ctx, loc, "%s must be a compile-time constant, got '%s'", what, fe_show(F, v));
	return false;
}

/* A shape: an int/expression or a tuple/list of them. */
static bool shape_of(fe *F, fe_val *v, const char *what, bool need_const, tlc_loc loc, int *ndim,
                     const tlc_expr ***dims)
{
	int n = v->kind == FV_TUPLE || v->kind == FV_LIST ? v->u.seq.n : 1;
	fe_val **items = v->kind == FV_TUPLE || v->kind == FV_LIST ? v->u.seq.items : &v;
	if (n < 1 || n > 8) {
		tlc_error(F->ctx, loc, "%s must have 1 to 8 dimensions, got %d", what, n);
		return false;
	}
	const tlc_expr **d = fe_alloc(F, sizeof(tlc_expr *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		int64_t x;
		if (need_const) {
			if (!fe_const_int(F, items[i], "block size", loc, &x))
				return false;
		}
		if (fe_as_int(items[i], &x) && x <= 0) {
			tlc_error(F->ctx, loc, "%s has a non-positive extent %lld", what, (long long)x);
			return false;
		}
		/* one dimension's index is 32-bit arithmetic of 32-bit thread and
		 * block ids; only the flattened offset over all dimensions widens
		 * (tlc_buffer_index_dtype) */
		if (fe_as_int(items[i], &x) && x > INT32_MAX) {
			tlc_error(F->ctx, loc, "%s extent %lld is over 2^31 - 1, the most one dimension can index: split "
			          "that dimension into two", what, (long long)x);
			return false;
		}
		if (!(d[i] = fe_to_scalar(F, items[i], loc)))
			return false;
		if (!tlc_dtype_is_int(d[i]->dtype)) {
			tlc_error(F->ctx, loc, "%s extent '%s' is not an integer", what, fe_show(F, items[i]));
			return false;
		}
	}
	*ndim = n;
	*dims = d;
	return true;
}

tlc_buffer *fe_make_tensor(fe *F, const char *name, fe_val *tt, tlc_loc loc)
{
	int n;
	const tlc_expr **dims;
	if (!shape_of(F, tt->u.tensor.shape, "tensor shape", false, loc, &n, &dims))
		return NULL;
	return tlc_buffer_new(F->m, name, tt->u.tensor.dt, TLC_SCOPE_GLOBAL, n, dims, loc);
}

tlc_var *fe_new_dyn(fe *F, const char *name, tlc_dtype t)
{
	tlc_var *v = tlc_var_new(F->m, name, t);
	if (F->ndyn == F->cap_dyn) {
		int cap = F->cap_dyn ? F->cap_dyn * 2 : 8;
		tlc_var **d = fe_alloc(F, sizeof(tlc_var *) * (size_t)cap);
		if (F->ndyn)
			memcpy(d, F->dyn, sizeof(tlc_var *) * (size_t)F->ndyn);
		F->dyn = d;
		F->cap_dyn = cap;
	}
	F->dyn[F->ndyn++] = v;
	return v;
}

void fe_kernel_add_param(fe *F, tlc_param p)
{
	fe_kernel *K = F->kernel;
	if (K->nparams == K->cap_params) {
		int cap = K->cap_params ? K->cap_params * 2 : 8;
		tlc_param *ps = tlc_alloc(F->m, sizeof(tlc_param) * (size_t)cap);
		if (K->nparams)
			memcpy(ps, K->params, sizeof(tlc_param) * (size_t)K->nparams);
		K->params = ps;
		K->cap_params = cap;
	}
	K->params[K->nparams++] = p;
}

void fe_kernel_add_attr(fe *F, const char *key, const tlc_expr *v)
{
	fe_kernel *K = F->kernel;
	key = tlc_intern(F->m, key);
	if (!fe_work(F, K->nattrs, F->at)) /* a scan per attribute: T.func_attr of a huge dict */
		return;
	for (int i = 0; i < K->nattrs; i++)
		if (K->attr_keys[i] == key) {
			K->attr_values[i] = v;
			return;
		}
	if (K->nattrs == K->cap_attrs) {
		int cap = K->cap_attrs ? K->cap_attrs * 2 : 8;
		const char **ks = tlc_alloc(F->m, sizeof(char *) * (size_t)cap);
		const tlc_expr **vs = tlc_alloc(F->m, sizeof(tlc_expr *) * (size_t)cap);
		if (K->nattrs) {
			memcpy(ks, K->attr_keys, sizeof(char *) * (size_t)K->nattrs);
			memcpy(vs, K->attr_values, sizeof(tlc_expr *) * (size_t)K->nattrs);
		}
		K->attr_keys = ks;
		K->attr_values = vs;
		K->cap_attrs = cap;
	}
	K->attr_keys[K->nattrs] = key;
	K->attr_values[K->nattrs++] = v;
}

bool fe_need_kernel(fe *F, const char *what, bool need_block, tlc_loc loc)
{
	if (!F->kernel || (need_block && !F->kernel->block)) {
		tlc_error(F->ctx, loc, "%s must be inside %s", what,
		          need_block ? "'with T.Kernel(...)'" : "a T.prim_func or @tilelang.jit kernel");
		return false;
	}
	return true;
}

const char *fe_hint(fe *F, const char *def)
{
	return F->name_hint ? F->name_hint : def;
}

/* ---- allocations ---- */

static fe_val *alloc_buffer(fe *F, const char *fname, tlc_scope scope, int nargs, fe_val **args,
                            int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"shape", "dtype", "scope", "offset"};
	fe_val *a[4] = {0};
	if (!fe_bind_args(F, fname, names, scope == TLC_SCOPE_SHARED_DYN ? 4 : 3, 2, nargs, args, nkw, kwn, kwv, a,
	                  loc) ||
	    !fe_need_kernel(F, fname, true, loc))
		return NULL;
	int n;
	const tlc_expr **dims;
	tlc_dtype dt;
	if (!shape_of(F, a[0], "buffer shape", true, loc, &n, &dims) || !fe_to_dtype(F, a[1], loc, &dt))
		return NULL;
	/* TileLang's T.alloc_shared, T.alloc_fragment and T.alloc_local are one
	 * T.alloc_buffer(shape, dtype, scope) with different default scopes: the
	 * scope given decides what the buffer is (T.alloc_fragment(shape, dtype,
	 * "local") is a per-thread array, as T.alloc_local) */
	if (a[2] && a[2]->kind != FV_NONE) {
		static const tlc_scope scopes[] = {TLC_SCOPE_SHARED_DYN, TLC_SCOPE_SHARED,
		                                   TLC_SCOPE_FRAGMENT, TLC_SCOPE_LOCAL};
		bool str = a[2]->kind == FV_STR;
		const char *s = str ? a[2]->u.s : "";
		bool known = false;
		for (size_t i = 0; i < sizeof scopes / sizeof scopes[0] && !known; i++)
			if (strcmp(s, tlc_scope_name(scopes[i])) == 0) {
				scope = scopes[i];
				known = true;
			}
		if (!known) {
			tlc_error(F->ctx, loc, "unsupported scope %s%s%s for %s: the scopes of a buffer "
			          "are \"shared.dyn\", \"shared\", \"local.fragment\" and \"local\" "
			          "(a scalar: T.alloc_var)", str ? "'" : "",
			          str ? s : fe_kind_name(a[2]), str ? "'" : "", fname);
			return NULL;
		}
	}
	int64_t offset = -1;
	if (scope == TLC_SCOPE_SHARED_DYN && a[3] && !fe_const_int(F, a[3], "offset", loc, &offset))
		return NULL;
	if (a[3] && (scope != TLC_SCOPE_SHARED_DYN || offset < 0)) {
		tlc_error(F->ctx, loc, "offset= (the arena offset storage-plan prints) needs a dynamic shared buffer "
		                       "and a value >= 0");
		return NULL;
	}
	tlc_buffer *b = tlc_buffer_new(F->m, fe_hint(F, "buf"), dt, scope, n, dims, loc);
	int64_t numel;
	if (!tlc_buffer_numel(b, &numel) || numel > INT32_MAX) {
		char count[32] = "over 2^63";
		if (tlc_buffer_numel(b, &numel))
			snprintf(count, sizeof(count), "%lld", (long long)numel);
		tlc_error(F->ctx, loc, "%s: %s elements, more than the 2^31 - 1 a buffer of a block can index", fname,
		          count);
		return NULL;
	}
	b->offset = offset;
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	return fe_buf(F, b);
}

static fe_val *alloc_var(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                         tlc_loc loc)
{
	static const char *const names[] = {"dtype", "init", "scope"};
	fe_val *a[3];
	tlc_dtype dt;
	if (!fe_bind_args(F, "T.alloc_var", names, 3, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.alloc_var", true, loc) || !fe_to_dtype(F, a[0], loc, &dt))
		return NULL;
	const tlc_expr *one = tlc_i32(F->m, 1);
	tlc_buffer *b = tlc_buffer_new(F->m, fe_hint(F, "var"), dt, TLC_SCOPE_VAR, 1, &one, loc);
	if (a[1] && a[1]->kind != FV_NONE) {
		const tlc_expr *init = fe_to_scalar(F, a[1], loc);
		if (!init)
			return NULL;
		b->init = tlc_alloc(F->m, sizeof(tlc_expr *));
		b->init[0] = init;
		b->ninit = 1;
	}
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	return fe_buf(F, b);
}

static fe_val *alloc_barrier(fe *F, int nargs, fe_val **args, int nkw, const char **kwn,
                             fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"arrive_count"};
	fe_val *a[1];
	if (!fe_bind_args(F, "T.alloc_barrier", names, 1, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.alloc_barrier", true, loc))
		return NULL;
	int n = a[0]->kind == FV_LIST || a[0]->kind == FV_TUPLE ? a[0]->u.seq.n : 1;
	fe_val **items = a[0]->kind == FV_LIST || a[0]->kind == FV_TUPLE ? a[0]->u.seq.items : a;
	if (n < 1) {
		tlc_error(F->ctx, loc, "T.alloc_barrier needs at least one arrive count");
		return NULL;
	}
	const tlc_expr **counts = tlc_alloc(F->m, sizeof(tlc_expr *) * (size_t)n);
	for (int i = 0; i < n; i++) {
		int64_t c;
		if (!fe_const_int(F, items[i], "barrier arrive count", loc, &c))
			return NULL;
		counts[i] = tlc_i32(F->m, c);
	}
	const tlc_expr *ext = tlc_i32(F->m, n);
	tlc_buffer *b = tlc_buffer_new(F->m, fe_hint(F, "bar"), TLC_DT_UINT64, TLC_SCOPE_BARRIER, 1, &ext, loc);
	b->init = counts;
	b->ninit = n;
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	return fe_buf(F, b);
}

/* Bits of n elements of t when every extent is a constant; false otherwise. */
static bool const_bits(int n, const tlc_expr *const *dims, tlc_dtype t, int64_t *bits)
{
	int64_t b = tlc_dtype_bits(t);
	for (int i = 0; i < n; i++) {
		int64_t x;
		if (!tlc_expr_as_int(dims[i], &x) || x < 0 || (x && b > INT64_MAX / x))
			return false;
		b *= x;
	}
	*bits = b;
	return true;
}

/* T.view(buf, shape=None, dtype=None): a new buffer over buf's storage. */
static fe_val *view(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"src", "shape", "dtype"};
	fe_val *a[3];
	if (!fe_bind_args(F, "T.view", names, 3, 1, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.view", true, loc))
		return NULL;
	if (a[0]->kind != FV_BUF) {
		tlc_error(F->ctx, loc, "T.view expects a buffer, got %s", fe_kind_name(a[0]));
		return NULL;
	}
	tlc_buffer *src = a[0]->u.buf;
	if (src->scope == TLC_SCOPE_VAR || src->scope == TLC_SCOPE_BARRIER) {
		tlc_error(F->ctx, loc, "T.view of '%s' (%s) is not supported: only tensors and shared and "
		                       "local buffers can be viewed", src->name, tlc_scope_name(src->scope));
		return NULL;
	}
	int n = src->ndim;
	const tlc_expr **dims = src->shape;
	tlc_dtype t = src->dtype;
	if (a[1] && a[1]->kind != FV_NONE &&
	    !shape_of(F, a[1], "view shape", src->scope != TLC_SCOPE_GLOBAL, loc, &n, &dims))
		return NULL;
	if (a[2] && a[2]->kind != FV_NONE && !fe_to_dtype(F, a[2], loc, &t))
		return NULL;
	int64_t need, have;
	bool sized = const_bits(n, dims, t, &need) &&
	             const_bits(src->ndim, src->shape, src->dtype, &have);
	/* a fragment's elements live in the registers its layout gives them: a
	 * view is the same registers under the layout reshaped (layout
	 * inference keeps the two in step), so it has the fragment's elements,
	 * all of them, of the same type */
	if (src->scope == TLC_SCOPE_FRAGMENT && (t != src->dtype || !sized || need != have)) {
		tlc_error(F->ctx, loc, "T.view / T.reshape of fragment '%s' %s of %s as %s of %s: a "
		          "view of a fragment is its registers under another shape, so it keeps the "
		          "fragment's dtype and number of elements; copy into a fragment of that "
		          "shape and dtype instead", src->name,
		          fe_show_expr(F, tlc_tuple(F->m, src->ndim, src->shape, false)),
		          tlc_dtype_name(src->dtype), fe_show_expr(F, tlc_tuple(F->m, n, dims, false)),
		          tlc_dtype_name(t));
		return NULL;
	}
	if (sized && need > have) {
		tlc_error(F->ctx, loc, "T.view does not fit: %s of %s needs %lld bytes but '%s' has %lld",
		          fe_show_expr(F, tlc_tuple(F->m, n, dims, false)), tlc_dtype_name(t),
		          (long long)(need + 7) / 8, src->name, (long long)(have + 7) / 8);
		return NULL;
	}
	tlc_buffer *b = tlc_buffer_new(F->m, fe_hint(F, "view"), t, src->scope, n, dims, loc);
	b->alias_of = src;
	b->offset = src->offset; /* a view lives where its source does */
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	return fe_buf(F, b);
}

/* T.make_tensor(ptr, shape, dtype="float32", strides=None) (and
 * T.Tensor.from_ptr): TileLang's tensor over a pointer, with TileLang's
 * default dtype, float32.  Over X.data it is T.view(X, shape, dtype).  Over
 * a pointer value read at run time -- a T.ptr parameter, an element of a
 * pointer table (T.Tensor((n,), T.ptr): int64 addresses, what the host
 * fills with tensor.data_ptr()) -- it is a global tensor of its own whose
 * address is that value, declared here (the value is read here).
 * T.make_tensor_from_addr(addr, shape, dtype, strides, storage_scope) is the
 * same over any integer, made a 64-bit address. */
static fe_val *make_tensor(fe *F, bool from_addr, int nargs, fe_val **args, int nkw, const char **kwn,
                           fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"ptr", "shape", "dtype", "strides"};
	static const char *const addr_names[] = {"addr", "shape", "dtype", "strides", "storage_scope"};
	fe_val *a[5];
	if (!fe_bind_args(F, from_addr ? "T.make_tensor_from_addr" : "T.make_tensor",
	                  from_addr ? addr_names : names, from_addr ? 5 : 4, 2, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (from_addr && a[4] && !(a[4]->kind == FV_STR && strcmp(a[4]->u.s, "global") == 0)) {
		tlc_error(F->ctx, loc, "T.make_tensor_from_addr with storage_scope=%s: only global memory has "
		          "addresses a kernel reads at run time; leave storage_scope=\"global\"", fe_show(F, a[4]));
		return NULL;
	}
	if (a[0]->kind == FV_BUF && a[0]->u.buf->scope != TLC_SCOPE_VAR) {
		tlc_error(F->ctx, loc, "T.make_tensor takes a pointer: write '%s.data' for the storage of "
		          "buffer '%s'", a[0]->u.buf->name, a[0]->u.buf->name);
		return NULL;
	}
	int n;
	const tlc_expr **dims;
	if (!shape_of(F, a[1], "T.make_tensor shape", false, loc, &n, &dims))
		return NULL;
	if (a[3] && a[3]->kind != FV_NONE) {
		/* only the row-major strides of the shape: what a view is */
		fe_val *s = a[3];
		bool seq = s->kind == FV_TUPLE || s->kind == FV_LIST;
		bool ok = seq && s->u.seq.n == n;
		const tlc_expr *want = tlc_i32(F->m, 1);
		for (int d = n - 1; ok && d >= 0; d--) {
			const tlc_expr *got = fe_to_scalar(F, s->u.seq.items[d], loc);
			if (!got)
				return NULL;
			int64_t diff;
			ok = tlc_expr_as_int(tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_SUB, got, want)), &diff) &&
			     diff == 0;
			want = tlc_binary(F->m, TLC_EXPR_MUL, want, dims[d]);
		}
		if (!ok) {
			tlc_error(F->ctx, loc, "T.make_tensor with strides %s: only the row-major strides of its shape "
			          "are supported (leave strides=None)", fe_show(F, s));
			return NULL;
		}
	}
	if (a[0]->kind == FV_DATAPTR) {
		fe_val *va[3] = {fe_buf(F, a[0]->u.buf), a[1], a[2] ? a[2] : fe_str(F, "float32")};
		return view(F, 3, va, 0, NULL, NULL, loc);
	}
	const tlc_expr *ptr = fe_to_scalar(F, a[0], loc);
	if (!ptr)
		return NULL;
	/* T.make_tensor_from_addr reinterprets any integer as an address */
	if (from_addr && tlc_dtype_is_int(ptr->dtype) && ptr->dtype != TLC_DT_INT64 && ptr->dtype != TLC_DT_UINT64)
		ptr = tlc_cast(F->m, TLC_DT_INT64, ptr);
	if (ptr->dtype != TLC_DT_INT64 && ptr->dtype != TLC_DT_UINT64) {
		tlc_error(F->ctx, loc, "T.make_tensor takes a pointer -- a T.ptr parameter, an element of a pointer "
		          "table T.Tensor((n,), T.ptr), or X.data of a tensor X -- but got a %s value; a 64-bit "
		          "address may be written T.cast(x, \"int64\")", tlc_dtype_name(ptr->dtype));
		return NULL;
	}
	tlc_dtype t = TLC_DT_FLOAT32;
	if (a[2] && !fe_to_dtype(F, a[2], loc, &t))
		return NULL;
	if (!F->kernel) {
		tlc_error(F->ctx, loc, "T.make_tensor of a pointer value is a statement of a kernel: call it inside "
		          "'with T.Kernel(...)'");
		return NULL;
	}
	tlc_buffer *b = tlc_buffer_new(F->m, fe_hint(F, "tensor"), t, TLC_SCOPE_GLOBAL, n, dims, loc);
	b->base = ptr;
	fe_emit(F, tlc_alloc_new(F->m, loc, b));
	return fe_buf(F, b);
}

/* T.import_source(code): device code of the user's that the kernel's
 * T.call_extern calls, put into the generated source before the kernels.
 * The kernel's attribute "tlc.import_source" lists the code strings in the
 * order given, each once; None adds nothing (TileLang's default). */
static fe_val *import_source(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                             tlc_loc loc)
{
	static const char *const names[] = {"source"};
	fe_val *a[1];
	if (!fe_bind_args(F, "T.import_source", names, 1, 0, nargs, args, nkw, kwn, kwv, a, loc) ||
	    !fe_need_kernel(F, "T.import_source", false, loc))
		return NULL;
	if (!a[0] || a[0]->kind == FV_NONE)
		return F->none;
	if (a[0]->kind == FV_HOST) {
		/* the text of a host function tlc does not run: name it */
		tlc_error(F->ctx, loc, "T.import_source takes the source code as a string, not host value %s, "
		          "which tlc does not evaluate; pass a str known at compile time (a literal, a "
		          "variable, a dict entry such as tilelang.quantize's get_lop3_intrin_group(...)"
		          "[\"c_source\"], a concatenation)", fe_show(F, a[0]));
		return NULL;
	}
	if (a[0]->kind != FV_STR) {
		tlc_error(F->ctx, loc, "T.import_source takes the source code as a string, not %s", fe_kind_name(a[0]));
		return NULL;
	}
	fe_kernel *K = F->kernel;
	const tlc_expr *old = NULL;
	for (int i = 0; i < K->nattrs; i++)
		if (strcmp(K->attr_keys[i], "tlc.import_source") == 0)
			old = K->attr_values[i];
	int n = old && old->kind == TLC_EXPR_TUPLE ? old->u.tuple.n : 0;
	const tlc_expr **items = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	const tlc_expr *code = tlc_str(F->m, a[0]->u.s);
	for (int i = 0; i < n; i++) {
		items[i] = old->u.tuple.items[i];
		if (items[i] == code) /* hash-consed: the same text */
			return F->none;
	}
	items[n] = code;
	fe_kernel_add_attr(F, "tlc.import_source", tlc_tuple(F->m, n + 1, items, false));
	return F->none;
}

/* ---- symbolic sizes and tensors ---- */

static fe_val *size_symbol(fe *F, const char *name, tlc_dtype t, tlc_loc loc)
{
	fe_val *d = fe_define(F, name);
	if (d)
		return d;
	(void)loc;
	if (!F->kernel) {
		/* TileLang's free variable: a size of the kernels built from it */
		for (int i = 0; i < F->nouter_dyn; i++)
			if (F->outer_dyn[i]->name == name && F->outer_dyn[i]->dtype == t)
				return fe_expr(F, tlc_var_ref(F->m, F->outer_dyn[i]));
		if (F->nouter_dyn == F->cap_outer_dyn) {
			int cap = F->cap_outer_dyn ? F->cap_outer_dyn * 2 : 8;
			tlc_var **d = fe_alloc(F, sizeof(tlc_var *) * (size_t)cap);
			if (F->nouter_dyn)
				memcpy(d, F->outer_dyn, sizeof(tlc_var *) * (size_t)F->nouter_dyn);
			F->outer_dyn = d;
			F->cap_outer_dyn = cap;
		}
		tlc_var *v = tlc_var_new(F->m, name, t);
		F->outer_dyn[F->nouter_dyn++] = v;
		return fe_expr(F, tlc_var_ref(F->m, v));
	}
	return fe_expr(F, tlc_var_ref(F->m, fe_new_dyn(F, name, t)));
}

static fe_val *t_const(fe *F, int nargs, fe_val **args, bool split, tlc_loc loc)
{
	if (nargs < 1 || nargs > 2 || args[0]->kind != FV_STR) {
		tlc_error(F->ctx, loc, "expected a string of size names, e.g. T.const(\"M, N\")");
		return NULL;
	}
	tlc_dtype t = TLC_DT_INT32;
	if (nargs == 2 && !fe_to_dtype(F, args[1], loc, &t))
		return NULL;
	fe_val *r = fe_seq(F, FV_TUPLE, 0);
	const char *p = args[0]->u.s;
	while (*p) {
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		size_t n = split ? strcspn(p, " ,\t") : strlen(p);
		if (!n)
			break;
		fe_val *v = size_symbol(F, tlc_intern(F->m, fe_strndup(F, p, n)), t, loc);
		if (!v)
			return NULL;
		fe_seq_push(F, r, v);
		p += n;
	}
	if (r->u.seq.n == 0) {
		tlc_error(F->ctx, loc, "no size names given");
		return NULL;
	}
	return r->u.seq.n == 1 ? r->u.seq.items[0] : r;
}

/* T.dynamic(name, dtype="int32") (T.symbolic: its old name): one size
 * variable, or a tuple of them when the string holds several names, split
 * as TileLang does: at commas (with the blanks around them) if it has one,
 * else at blanks. */
static fe_val *t_dynamic(fe *F, const char *fname, int nargs, fe_val **args, int nkw, const char **kwn,
                         fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"name", "dtype"};
	fe_val *a[2];
	tlc_dtype t = TLC_DT_INT32;
	if (!fe_bind_args(F, fname, names, 2, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[0]->kind != FV_STR) {
		tlc_error(F->ctx, loc, "%s expects a string of size names, e.g. %s(\"m, n\")", fname, fname);
		return NULL;
	}
	if (a[1] && !fe_to_dtype(F, a[1], loc, &t))
		return NULL;
	if (!tlc_dtype_is_int(t)) {
		tlc_error(F->ctx, loc, "%s: a size is an integer, not %s", fname, tlc_dtype_name(t));
		return NULL;
	}
	const char *s = a[0]->u.s;
	const char *seps = strchr(s, ',') ? "," : " \t";
	bool several = strpbrk(s, seps) != NULL;
	fe_val *r = fe_seq(F, FV_TUPLE, 0);
	for (const char *p = s;;) {
		size_t n = strcspn(p, seps);
		size_t b = 0, e = n; /* the blanks around a comma belong to it */
		while (b < e && (p[b] == ' ' || p[b] == '\t'))
			b++;
		while (e > b && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		if (b == e) {
			tlc_error(F->ctx, loc, "%s(\"%s\"): an empty size name", fname, s);
			return NULL;
		}
		fe_val *v = size_symbol(F, tlc_intern(F->m, fe_strndup(F, p + b, e - b)), t, loc);
		if (!v)
			return NULL;
		fe_seq_push(F, r, v);
		if (!p[n])
			break;
		p += n + 1;
		if (!strchr(s, ','))
			p += strspn(p, " \t"); /* a run of blanks is one separator */
	}
	return several ? r : r->u.seq.items[0];
}

static fe_val *tensor_type(fe *F, const char *fname, int nargs, fe_val **args, int nkw,
                           const char **kwn, fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"shape", "dtype", "data"};
	fe_val *a[3];
	bool proxy = strcmp(fname, "T.Tensor") == 0 || strcmp(fname, "T.Buffer") == 0;
	if (!fe_bind_args(F, fname, names, proxy ? 3 : 2, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (proxy && a[2] && a[2]->kind != FV_NONE) {
		/* T.Tensor(shape, dtype, data=X.data): TileLang's buffer over X's
		 * storage, T.make_tensor(X.data, shape, dtype) */
		fe_val *m[3] = {a[2], a[0], a[1] ? a[1] : fe_str(F, "float32")};
		return make_tensor(F, false, 3, m, 0, NULL, NULL, loc);
	}
	fe_val *v = fe_new(F, FV_TENSORTYPE);
	v->u.tensor.shape = a[0];
	v->u.tensor.dt = TLC_DT_FLOAT32;
	if (a[1] && !fe_to_dtype(F, a[1], loc, &v->u.tensor.dt))
		return NULL;
	return v;
}

static fe_val *t_empty(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                       tlc_loc loc)
{
	fe_val *tt = tensor_type(F, "T.empty", nargs, args, nkw, kwn, kwv, loc);
	if (!tt)
		return NULL;
	if (!F->kernel || !F->kernel->eager || F->kernel->block) {
		tlc_error(F->ctx, loc, "T.empty declares an output of an eager @tilelang.jit kernel, "
		                       "before its T.Kernel");
		return NULL;
	}
	tlc_buffer *b = fe_make_tensor(F, fe_hint(F, "out"), tt, loc);
	if (!b)
		return NULL;
	fe_kernel_add_param(F, (tlc_param){.kind = TLC_PARAM_TENSOR, .buf = b, .is_output = true});
	return fe_buf(F, b);
}

/* T.alloc_global(shape, dtype) in a kernel: scratch memory in global
 * memory, shared by the kernel's blocks.  It becomes one more tensor
 * parameter of the kernel, after the others, that the caller allocates
 * (its contents on entry are not defined); attribute "tlc.scratch" lists
 * the indices of such parameters, for the launcher's header (doc/calling.md). */
static fe_val *t_alloc_global(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                              tlc_loc loc)
{
	fe_val *tt = tensor_type(F, "T.alloc_global", nargs, args, nkw, kwn, kwv, loc);
	if (!tt)
		return NULL;
	/* before the T.Kernel frame (in the prim_func's body) it is the same
	 * buffer: the launcher's caller allocates it either way */
	if (!F->kernel || (!F->kernel->block && !(F->frame && F->frame->kernel_mode))) {
		tlc_error(F->ctx, loc, "T.alloc_global allocates scratch memory of a kernel: use it in a T.prim_func "
		                       "body or inside 'with T.Kernel(...)'");
		return NULL;
	}
	tlc_buffer *b = fe_make_tensor(F, fe_hint(F, "scratch"), tt, loc);
	if (!b)
		return NULL;
	fe_kernel *K = F->kernel;
	if (K->nscratch == (int)TLC_ARRAY_LEN(K->scratch)) {
		tlc_error(F->ctx, loc, "more than %d T.alloc_global buffers in one kernel", (int)TLC_ARRAY_LEN(K->scratch));
		return NULL;
	}
	fe_kernel_add_param(F, (tlc_param){.kind = TLC_PARAM_TENSOR, .buf = b});
	K->scratch[K->nscratch++] = K->nparams - 1;
	return fe_buf(F, b);
}

/* ---- scalar helpers ---- */

static fe_val *ceildiv(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	if (nargs != 2) {
		tlc_error(F->ctx, loc, "T.ceildiv expects 2 arguments, got %d", nargs);
		return NULL;
	}
	int64_t a, b;
	if (fe_as_int(args[0], &a) && fe_as_int(args[1], &b) && !fe_is_symbolic(args[0])) {
		if (b == 0) {
			tlc_error(F->ctx, loc, "T.ceildiv by zero");
			return NULL;
		}
		if (b > 0) { /* exact, where a + b - 1 would overflow near INT64_MAX */
			int64_t q = a / b;
			return fe_int(F, q + (a % b > 0));
		}
		fe_val *num = fe_binop(F, PY_OP_ADD, fe_int(F, a), fe_int(F, b), loc);
		num = num ? fe_binop(F, PY_OP_SUB, num, fe_int(F, 1), loc) : NULL;
		return num ? fe_binop(F, PY_OP_FLOORDIV, num, fe_int(F, b), loc) : NULL;
	}
	/* (a + b - 1) // b, with b - 1 folded when b is a constant */
	fe_val *num;
	if (fe_as_int(args[1], &b) && !fe_is_symbolic(args[1])) {
		num = fe_binop(F, PY_OP_ADD, args[0], fe_int(F, b - 1), loc);
	} else {
		num = fe_binop(F, PY_OP_ADD, args[0], args[1], loc);
		num = num ? fe_binop(F, PY_OP_SUB, num, fe_int(F, 1), loc) : NULL;
	}
	return num ? fe_binop(F, PY_OP_FLOORDIV, num, args[1], loc) : NULL;
}

static fe_val *if_then_else(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	if (nargs != 3) {
		tlc_error(F->ctx, loc, "T.if_then_else expects 3 arguments, got %d", nargs);
		return NULL;
	}
	if (!fe_is_symbolic(args[0])) {
		bool t;
		return fe_truthy(F, args[0], loc, &t) ? args[t ? 1 : 2] : NULL;
	}
	const tlc_expr *c = fe_to_scalar(F, args[0], loc), *x, *y;
	if (!c || !fe_scalar_pair(F, TLC_EXPR_SELECT, args[1], args[2], loc, &x, &y))
		return NULL;
	return fe_expr(F, tlc_select(F->m, c, x, y));
}

static fe_val *cast(fe *F, fe_val *x, fe_val *dt, tlc_loc loc)
{
	tlc_dtype t;
	if (!fe_to_dtype(F, dt, loc, &t))
		return NULL;
	const tlc_expr *e = fe_scalar_as(F, x, t, loc);
	return e ? fe_typed_const(F, e) : NULL;
}

static fe_val *thread_binding_var(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	int64_t d = 0;
	if (nargs > 1) {
		tlc_error(F->ctx, loc, "T.get_thread_binding expects 0 to 1 arguments, got %d", nargs);
		return NULL;
	}
	if (nargs == 1 && !fe_const_int(F, args[0], "thread dimension", loc, &d))
		return NULL;
	if (!fe_need_kernel(F, "T.get_thread_binding", true, loc))
		return NULL;
	if (d < 0 || d > 2) {
		tlc_error(F->ctx, loc, "thread dimension must be 0, 1 or 2, got %lld", (long long)d);
		return NULL;
	}
	tlc_func *f = F->kernel->func;
	if (!f->thread_vars[d])
		f->thread_vars[d] = tlc_var_new(F->m, fe_hint(F, "tx"), TLC_DT_INT32);
	return fe_expr(F, tlc_var_ref(F->m, f->thread_vars[d]));
}

/* T.get_block_binding(dim=0): blockIdx.dim, the kernel's block index
 * variable (the one `with T.Kernel(...) as bx` names); 0 past the grid's
 * dimensions, as blockIdx is there. */
static fe_val *block_binding_var(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	int64_t d = 0;
	if (nargs > 1) {
		tlc_error(F->ctx, loc, "T.get_block_binding expects 0 to 1 arguments, got %d", nargs);
		return NULL;
	}
	if (nargs == 1 && !fe_const_int(F, args[0], "block dimension", loc, &d))
		return NULL;
	if (!fe_need_kernel(F, "T.get_block_binding", true, loc))
		return NULL;
	if (d < 0 || d > 2) {
		tlc_error(F->ctx, loc, "block dimension must be 0, 1 or 2, got %lld", (long long)d);
		return NULL;
	}
	tlc_func *f = F->kernel->func;
	if (d >= f->grid_ndim)
		return fe_expr(F, tlc_i32(F->m, 0));
	if (!f->block_vars[d])
		f->block_vars[d] = tlc_var_new(F->m, fe_hint(F, d == 0 ? "bx" : d == 1 ? "by" : "bz"),
		                               TLC_DT_INT32);
	return fe_expr(F, tlc_var_ref(F->m, f->block_vars[d]));
}

/* What tlc_func_cluster_dims reads: anything else would silently mean no
 * clusters. */
static bool cluster_dims_ok(const tlc_expr *e)
{
	int64_t x;
	if (e->kind != TLC_EXPR_TUPLE || e->u.tuple.is_dict || e->u.tuple.n != 3)
		return false;
	for (int k = 0; k < 3; k++)
		if (!tlc_expr_as_int(e->u.tuple.items[k], &x) || x < 1 || x > 1024)
			return false;
	return true;
}

static fe_val *func_attr(fe *F, int nargs, fe_val **args, tlc_loc loc)
{
	if (nargs != 1 || args[0]->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "T.func_attr expects one dict");
		return NULL;
	}
	if (!fe_need_kernel(F, "T.func_attr", false, loc))
		return NULL;
	fe_val *d = args[0];
	for (int i = 0; i < d->u.dict.n; i++) {
		if (d->u.dict.keys[i]->kind != FV_STR) {
			tlc_error(F->ctx, loc, "T.func_attr keys must be strings");
			return NULL;
		}
		const tlc_expr *e = fe_to_expr(F, d->u.dict.vals[i], loc);
		if (!e)
			return NULL;
		if (strcmp(d->u.dict.keys[i]->u.s, "tlc.cluster_dims") == 0 && !cluster_dims_ok(e)) {
			tlc_error(F->ctx, loc, "T.func_attr: \"tlc.cluster_dims\" is three constant block counts (cx, cy, cz), "
			          "each at least 1");
			return NULL;
		}
		fe_kernel_add_attr(F, d->u.dict.keys[i]->u.s, e);
	}
	return F->none;
}

static fe_val *jit_decorator(fe *F, const char *kind, int nkw, const char **kwn, fe_val **kwv,
                             tlc_loc loc)
{
	static const char *const known[] = {"out_idx", "pass_configs", "target", "execution_backend",
	                                    "verbose", "compile_flags", "debug_root_path"};
	fe_val *opts = fe_dict(F);
	fe_dict_set(F, opts, fe_str(F, "kind"), fe_str(F, kind));
	for (int k = 0; k < nkw; k++) {
		bool ok = strcmp(kind, "jit") != 0;
		for (size_t i = 0; i < TLC_ARRAY_LEN(known) && !ok; i++)
			ok = strcmp(known[i], kwn[k]) == 0;
		if (!ok) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for tilelang.jit", kwn[k]);
			return NULL;
		}
		fe_dict_set(F, opts, fe_str(F, kwn[k]), kwv[k]);
	}
	fe_val *d = fe_new(F, FV_BOUND);
	d->u.bound.name = "decorator";
	d->u.bound.self = opts;
	return d;
}

fe_val *fe_identity_decorator(fe *F, tlc_loc loc)
{
	return jit_decorator(F, "identity", 0, NULL, NULL, loc);
}

static fe_val *decorate(fe *F, const char *name, int nargs, fe_val **args, int nkw,
                        const char **kwn, fe_val **kwv, tlc_loc loc)
{
	bool jit = strcmp(name, "tilelang.jit") == 0;
	const char *kind = jit ? "jit" : strcmp(name, "tilelang.autotune") == 0 ? "autotune" : "identity";
	if (nargs == 0)
		return jit_decorator(F, kind, nkw, kwn, kwv, loc);
	if (strcmp(name, "tilelang.compile") == 0) {
		if (args[0]->kind != FV_PRIMFUNC) {
			tlc_error(F->ctx, loc, "tilelang.compile needs a T.prim_func");
			return NULL;
		}
		fe_val *r = fe_new(F, FV_PRIMFUNC);
		*r = *args[0];
		for (int k = 0; k < nkw; k++)
			if (strcmp(kwn[k], "out_idx") == 0)
				r->u.pf.out_idx = kwv[k];
			else if (strcmp(kwn[k], "pass_configs") == 0)
				r->u.pf.configs = kwv[k];
		return r;
	}
	fe_val *dec = jit_decorator(F, kind, nkw, kwn, kwv, loc);
	return dec ? fe_call(F, dec, nargs, args, 0, NULL, NULL, loc) : NULL;
}

fe_val *fe_call_t(fe *F, const char *name, int nargs, fe_val **args, int nkw, const char **kwn,
                  fe_val **kwv, tlc_loc loc)
{
	if (strncmp(name, "tilelang.", 9) == 0)
		return decorate(F, name, nargs, args, nkw, kwn, kwv, loc);
	const char *n = name + 2;
	if (strcmp(n, "prim_func") == 0 || strcmp(n, "macro") == 0) {
		if (nargs != 1 || args[0]->kind != FV_FUNC || args[0]->u.fn.def->kind != PY_DEF) {
			tlc_error(F->ctx, loc, "@T.%s applies to a function definition", n);
			return NULL;
		}
		fe_val *r;
		if (n[0] == 'm') {
			r = fe_new(F, FV_FUNC);
			*r = *args[0];
			r->u.fn.flags |= FF_MACRO;
			return r;
		}
		r = fe_new(F, FV_PRIMFUNC);
		r->u.pf.def = args[0]->u.fn.def;
		r->u.pf.env = args[0]->u.fn.env;
		r->u.pf.factory = F->frame ? F->frame->name : NULL;
		return r;
	}
	if (fe_allreduce_has(n, nargs, args, nkw, kwn, kwv))
		return fe_call_allreduce(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "Kernel") == 0)
		return fe_kernel_frame(F, nargs, args, nkw, kwn, kwv, loc);
	if (fe_frame_builtin(n)) /* T.If/T.Then/T.Else, T.PersistentKernel (frontend_frames.c) */
		return fe_call_frame(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "Tensor") == 0 || strcmp(n, "Buffer") == 0)
		return tensor_type(F, name, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "alloc_shared") == 0)
		return alloc_buffer(F, name, TLC_SCOPE_SHARED_DYN, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "alloc_fragment") == 0)
		return alloc_buffer(F, name, TLC_SCOPE_FRAGMENT, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "alloc_local") == 0)
		return alloc_buffer(F, name, TLC_SCOPE_LOCAL, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "alloc_var") == 0)
		return alloc_var(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "alloc_barrier") == 0)
		return alloc_barrier(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "Parallel") == 0)
		return fe_parallel(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "parallel") == 0)
		return fe_parallel_tir(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "Pipelined") == 0)
		return fe_pipelined(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "serial") == 0 || strcmp(n, "Serial") == 0)
		return fe_simple_loop(F, name, TLC_FOR_SERIAL, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "unroll") == 0 || strcmp(n, "Unroll") == 0)
		return fe_simple_loop(F, name, TLC_FOR_UNROLLED, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "vectorized") == 0 || strcmp(n, "Vectorized") == 0)
		return fe_simple_loop(F, name, TLC_FOR_VECTORIZED, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "thread_binding") == 0)
		return fe_simple_loop(F, name, TLC_FOR_THREAD, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "view") == 0)
		return view(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "make_tensor") == 0 || strcmp(n, "make_tensor_from_addr") == 0)
		return make_tensor(F, strcmp(n, "make_tensor") != 0, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "import_source") == 0)
		return import_source(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "tvm_access_ptr") == 0)
		return fe_call_tvm_access_ptr(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "type_annotation") == 0) {
		/* T.type_annotation(dtype): the dtype, as T.tvm_access_ptr's first argument */
		static const char *const tn[] = {"dtype"};
		fe_val *ta[1];
		tlc_dtype t;
		if (!fe_bind_args(F, name, tn, 1, 1, nargs, args, nkw, kwn, kwv, ta, loc) ||
		    !fe_to_dtype(F, ta[0], loc, &t))
			return NULL;
		return fe_dtype(F, t);
	}
	if (strcmp(n, "ptr") == 0 || strcmp(n, "handle") == 0) {
		/* T.ptr(dtype=None, storage_scope="global"): the type of a pointer
		 * parameter (p: T.ptr("float16")), a 64-bit address */
		static const char *const pn[] = {"dtype", "storage_scope", "is_size_var"};
		fe_val *pa[3];
		if (!fe_bind_args(F, name, pn, 3, 0, nargs, args, nkw, kwn, kwv, pa, loc))
			return NULL;
		return fe_dtype(F, TLC_DT_INT64);
	}
	if (strcmp(n, "alloc_global") == 0)
		return t_alloc_global(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "Persistent") == 0)
		return fe_persistent_loop(F, nargs, args, nkw, kwn, kwv, loc);
	if (fe_hint_has(n))
		return fe_call_hint(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (fe_misc_has(n))
		return fe_call_misc(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (fe_intops_has(n))
		return fe_call_intops(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (fe_shuffle_has(n))
		return fe_call_shuffle(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "c2d_im2col") == 0)
		return fe_call_im2col(F, nargs, args, nkw, kwn, kwv, loc);
	if (fe_async_has(n))
		return fe_call_async(F, n, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "dynamic") == 0 || strcmp(n, "symbolic") == 0)
		return t_dynamic(F, name, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "reshape") == 0) {
		/* T.reshape(buf, shape): a view with buf's dtype */
		static const char *const names[] = {"src", "shape"};
		fe_val *a[2];
		if (!fe_bind_args(F, "T.reshape", names, 2, 2, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		return view(F, 2, a, 0, NULL, NULL, loc);
	}
	if (strcmp(n, "clamp") == 0) {
		/* T.clamp(x, lo, hi) = T.max(T.min(x, hi), lo) */
		static const char *const names[] = {"x", "lo", "hi"};
		fe_val *a[3];
		if (!fe_bind_args(F, "T.clamp", names, 3, 3, nargs, args, nkw, kwn, kwv, a, loc))
			return NULL;
		fe_val *upper[2] = {a[0], a[2]};
		fe_val *low = fe_minmax(F, false, 2, upper, loc);
		fe_val *lower[2] = {low, a[1]};
		return low ? fe_minmax(F, true, 2, lower, loc) : NULL;
	}
	if (nkw && strcmp(n, "ws") && strcmp(n, "empty") && tlc_op_lookup(F->ctx, n) < 0) {
		tlc_error(F->ctx, loc, "unknown keyword argument '%s' for %s", kwn[0], name);
		return NULL;
	}
	if (strcmp(n, "ceildiv") == 0)
		return ceildiv(F, nargs, args, loc);
	if (strcmp(n, "max") == 0 || strcmp(n, "min") == 0) {
		if (nargs != 2) {
			tlc_error(F->ctx, loc, "%s expects 2 arguments, got %d", name, nargs);
			return NULL;
		}
		return fe_minmax(F, n[1] == 'a', nargs, args, loc);
	}
	if (strcmp(n, "if_then_else") == 0)
		return if_then_else(F, nargs, args, loc);
	if (strcmp(n, "cast") == 0 || strcmp(n, "Cast") == 0) {
		if (nargs != 2) {
			tlc_error(F->ctx, loc, "%s expects 2 arguments, got %d", name, nargs);
			return NULL;
		}
		return n[0] == 'c' ? cast(F, args[0], args[1], loc) : cast(F, args[1], args[0], loc);
	}
	if (strcmp(n, "infinity") == 0) {
		tlc_dtype t;
		if (nargs != 1) {
			tlc_error(F->ctx, loc, "T.infinity expects 1 argument, got %d", nargs);
			return NULL;
		}
		if (!fe_to_dtype(F, args[0], loc, &t))
			return NULL;
		if (!tlc_dtype_is_float(t)) {
			tlc_error(F->ctx, loc, "T.infinity needs a float dtype, got %s", tlc_dtype_name(t));
			return NULL;
		}
		return fe_expr(F, tlc_float(F->m, t, INFINITY));
	}
	if (strcmp(n, "get_block_binding") == 0)
		return block_binding_var(F, nargs, args, loc);
	if (strcmp(n, "get_thread_binding") == 0)
		return thread_binding_var(F, nargs, args, loc);
	if (strcmp(n, "func_attr") == 0)
		return func_attr(F, nargs, args, loc);
	if (strcmp(n, "attr") == 0)
		return fe_t_attr_scope(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "const") == 0)
		return t_const(F, nargs, args, true, loc);
	if (strcmp(n, "empty") == 0)
		return t_empty(F, nargs, args, nkw, kwn, kwv, loc);
	if (strcmp(n, "ws") == 0) {
		fe_val *call = fe_call_op(F, TLC_OP_WS, "ws", nargs, args, nkw, kwn, kwv, loc);
		if (!call)
			return NULL;
		fe_val *v = fe_new(F, FV_SCOPEOP);
		v->u.scope.call = call->u.e;
		return v;
	}
	tlc_op_id op = tlc_op_lookup(F->ctx, n);
	if (op < 0) {
		tlc_error(F->ctx, loc, "unknown T.* function '%s'", name);
		return NULL;
	}
	return fe_call_op(F, op, n, nargs, args, nkw, kwn, kwv, loc);
}
