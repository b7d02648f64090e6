/* frontend_ops.c - calls of tile ops and intrinsics (T.copy, T.gemm, ...):
 * argument names, keyword validation, the canonical argument form, layout
 * and the shape checks that can be made before any pass runs (layout values are
 * built in frontend_layout.c).
 *
 * Canonical form: an argument that has a positional slot is stored
 * positionally as long as every earlier slot is filled too; the rest stay
 * keywords with their TileLang names (doc/language.md). */
#include "frontend.h"

#include <tlc/target.h>
#include <tlc/tileops.h>

#include <stdio.h>
#include <string.h>

typedef struct op_sig {
	const char *name;
	const char *pos[4]; /* positional parameter names, in order */
	const char *kw[8];  /* keyword names */
	int npkw;           /* how many of kw[] TileLang also takes positionally, after pos[] */
} op_sig;

static const op_sig sigs[] = {
	{"copy", {"src", "dst"},
	 {"coalesced_width", "disable_tma", "eviction_policy", "prefer_instruction", "loop_layout"}, 0},
	{"tma_copy", {"src", "dst"}, {"barrier", "cluster_mask", "eviction_policy"}, 0},
	{"fill", {"buffer", "value"}, {0}, 0},
	{"clear", {"buffer"}, {0}, 0},
	{"gemm", {"A", "B", "C"},
	 {"transpose_A", "transpose_B", "policy", "clear_accum", "k_pack", "wg_wait"}, 6},
	{"wgmma_gemm", {"A", "B", "C"},
	 {"transpose_A", "transpose_B", "policy", "clear_accum", "k_pack"}, 5},
	{"wait_wgmma", {"n"}, {0}, 0},
	{"reduce_max", {"buffer", "out", "dim"}, {"clear"}, 1},
	{"reduce_min", {"buffer", "out", "dim"}, {"clear"}, 1},
	{"reduce_sum", {"buffer", "out", "dim"}, {"clear"}, 1},
	{"reduce_abssum", {"buffer", "out", "dim"}, {"clear"}, 1},
	{"reduce_absmax", {"buffer", "out", "dim"}, {"clear"}, 1},
	{"cumsum", {"src", "dst", "dim"}, {"reverse"}, 1},
	{"atomic_add", {"dst", "value"}, {"memory_order", "return_prev", "use_tma", "old"}, 3},
	{"annotate_layout", {"layout_map"}, {0}, 0},
	{"annotate_safe_value", {"safe_value_map"}, {0}, 0},
	{"use_swizzle", {"panel_size", "order"}, {"enable"}, 1},
	{"sync_threads", {"barrier_id", "arrive_count"}, {0}, 0},
	{"sync_warp", {0}, {0}, 0},
	{"barrier_arrive", {"barrier"}, {"cta_id"}, 0},
	{"barrier_wait", {"barrier", "parity"}, {0}, 0},
	{"mbarrier_arrive", {"barrier"}, {"cta_id"}, 1},
	{"mbarrier_wait_parity", {"barrier", "parity"}, {0}, 0},
	{"mbarrier_expect_tx", {"barrier", "bytes"}, {0}, 0},
	{"mbarrier_arrive_expect_tx", {"barrier", "bytes"}, {0}, 0},
	{"fence_proxy_async", {0}, {0}, 0},
	{"pow", {"x", "y"}, {0}, 0},
	{"print", {"obj"}, {"msg"}, 1},
	{"thread_idx", {"dim"}, {0}, 0},
	{"block_idx", {"dim"}, {0}, 0},
	{"block_rank_in_cluster", {0}, {0}, 0},
	{"cluster_sync", {0}, {0}, 0},
	{"sync_grid", {0}, {0}, 0},
	{"ptx_commit_group", {0}, {0}, 0},
	{"ptx_wait_group", {"num"}, {0}, 0},
	{"cp_async_barrier_noinc", {"barrier"}, {0}, 0},
	{"cp_async_arrive_noinc", {"barrier"}, {0}, 0},
};

static const op_sig *find_sig(const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(sigs); i++)
		if (strcmp(sigs[i].name, name) == 0)
			return &sigs[i];
	return NULL;
}

/* TileLang's other names of a parameter: its mbarrier calls name the
 * barrier `mbarrier` (older releases `barrier_id`) and the transaction
 * bytes `tx`. */
static const char *canonical_kw(const op_sig *sig, const char *kw)
{
	if (!sig || strncmp(sig->pos[0] ? sig->pos[0] : "", "barrier", 8) != 0)
		return kw;
	if (!strcmp(kw, "mbarrier") || !strcmp(kw, "barrier_id"))
		return "barrier";
	if (!strcmp(kw, "tx"))
		return "bytes";
	return kw;
}

static bool is_math(const tlc_op_info *info)
{
	return (info->flags & TLC_OPF_PURE) && !(info->flags & TLC_OPF_LOWERED);
}

/* Constant extents of an operand: a whole buffer or a region (point
 * dimensions and extents of 1 dropped). False when unknown. */
static bool known_shape(const tlc_expr *e, int *n, int64_t *dims, bool drop_ones)
{
	*n = 0;
	if (e->kind == TLC_EXPR_BUF) {
		for (int i = 0; i < e->u.buf->ndim && i < 8; i++) {
			int64_t x;
			if (!tlc_expr_as_int(e->u.buf->shape[i], &x))
				return false;
			if (!drop_ones || x != 1)
				dims[(*n)++] = x;
		}
		return e->u.buf->ndim <= 8;
	}
	if (e->kind == TLC_EXPR_REGION) {
		for (int i = 0; i < e->u.region.n && i < 8; i++) {
			int64_t x;
			if (e->u.region.dims[i].is_point)
				continue;
			if (!tlc_expr_as_int(e->u.region.dims[i].extent, &x))
				return false;
			if (!drop_ones || x != 1)
				dims[(*n)++] = x;
		}
		return e->u.region.n <= 8;
	}
	return false;
}

static const char *shape_text(fe *F, int n, const int64_t *d)
{
	char buf[256];
	int k = snprintf(buf, sizeof buf, "(");
	for (int i = 0; i < n && k < 200; i++)
		k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%lld", i ? ", " : "", (long long)d[i]);
	snprintf(buf + k, sizeof buf - (size_t)k, "%s)", n == 1 ? "," : "");
	return fe_strdup(F, buf);
}

static const char *operand_name(const tlc_expr *e)
{
	return e->kind == TLC_EXPR_BUF ? e->u.buf->name : e->kind == TLC_EXPR_REGION ? e->u.region.buf->name : "?";
}

static bool check_copy(fe *F, const tlc_expr *src, const tlc_expr *dst, tlc_loc loc)
{
	int ns, nd;
	int64_t s[8], d[8];
	if (!known_shape(src, &ns, s, true) || !known_shape(dst, &nd, d, true))
		return true;
	bool same = ns == nd;
	for (int i = 0; same && i < ns; i++)
		same = s[i] == d[i];
	if (same)
		return true;
	known_shape(src, &ns, s, false);
	known_shape(dst, &nd, d, false);
	tlc_error(F->ctx, loc, "T.copy shapes do not match: source '%s' is %s, destination '%s' is %s",
	          operand_name(src), shape_text(F, ns, s), operand_name(dst), shape_text(F, nd, d));
	return false;
}

static bool flag(const tlc_expr *call, const char *name)
{
	const tlc_expr *v = tlc_call_kw(call, name);
	int64_t x;
	return v && tlc_expr_as_int(v, &x) && x != 0;
}

static bool check_gemm(fe *F, const tlc_expr *call, tlc_loc loc)
{
	int n[3];
	int64_t d[3][8];
	for (int i = 0; i < 3; i++)
		if (!known_shape(call->u.call.args[i], &n[i], d[i], false) || n[i] != 2)
			return true;
	bool ta = flag(call, "transpose_A"), tb = flag(call, "transpose_B");
	int64_t M = ta ? d[0][1] : d[0][0], Ka = ta ? d[0][0] : d[0][1];
	int64_t Kb = tb ? d[1][1] : d[1][0], N = tb ? d[1][0] : d[1][1];
	if (M == d[2][0] && N == d[2][1] && Ka == Kb)
		return true;
	tlc_error(F->ctx, loc,
	          "T.gemm operand shapes do not match: A '%s' is %s, B '%s' is %s, C '%s' is %s "
	          "(transpose_A=%s, transpose_B=%s)",
	          operand_name(call->u.call.args[0]), shape_text(F, 2, d[0]),
	          operand_name(call->u.call.args[1]), shape_text(F, 2, d[1]),
	          operand_name(call->u.call.args[2]), shape_text(F, 2, d[2]), ta ? "True" : "False",
	          tb ? "True" : "False");
	return false;
}

/* A safe value: a constant of b's dtype (an integer tensor's is an
 * integer that its dtype holds); NULL after reporting. */
static const tlc_expr *safe_value_of(fe *F, const tlc_buffer *b, fe_val *v, tlc_loc loc)
{
	const tlc_expr *x = v->kind == FV_BOOL || v->kind == FV_INT || v->kind == FV_FLOAT || v->kind == FV_EXPR
	                        ? fe_to_expr(F, v, loc)
	                        : NULL;
	if (x)
		x = tlc_simplify_expr(F->m, x);
	if (!x || (x->kind != TLC_EXPR_INT && x->kind != TLC_EXPR_FLOAT)) {
		tlc_error(F->ctx, loc, "T.annotate_safe_value: the safe value of '%s' must be a compile-time constant, not '%s'",
		          b->name, fe_show(F, v));
		return NULL;
	}
	int64_t lo, hi;
	if (!tlc_dtype_is_float(b->dtype)) {
		if (x->kind != TLC_EXPR_INT || !tlc_dtype_int_range(b->dtype, &lo, &hi) || x->u.ival < lo || x->u.ival > hi) {
			tlc_error(F->ctx, loc, "T.annotate_safe_value: '%s' holds %s, which cannot hold the safe value %s", b->name,
			          tlc_dtype_name(b->dtype), fe_show(F, v));
			return NULL;
		}
		return tlc_int(F->m, b->dtype, x->u.ival);
	}
	return tlc_simplify_expr(F->m, tlc_cast(F->m, b->dtype, x));
}

/* The argument of T.annotate_safe_value: {global tensor: constant}.  The
 * value belongs to the tensor for the whole kernel, so a second one for
 * the same tensor is an error rather than a rule about which wins. */
static const tlc_expr *safe_value_map(fe *F, fe_val *v, tlc_loc loc)
{
	if (v->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "T.annotate_safe_value expects a dict {tensor: value}, got %s", fe_kind_name(v));
		return NULL;
	}
	int n = v->u.dict.n;
	const tlc_expr **keys = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	const tlc_expr **vals = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	fe_kernel *K = F->kernel;
	for (int i = 0; i < n; i++) {
		fe_val *k = v->u.dict.keys[i];
		if (k->kind != FV_BUF) {
			tlc_error(F->ctx, loc, "T.annotate_safe_value keys must be global tensors, got %s", fe_kind_name(k));
			return NULL;
		}
		tlc_buffer *b = k->u.buf;
		if (b->scope != TLC_SCOPE_GLOBAL) {
			tlc_error(F->ctx, loc,
			          "T.annotate_safe_value: '%s' is a %s buffer; safe values are for global tensors, whose "
			          "out-of-range loads are masked",
			          b->name, tlc_scope_name(b->scope));
			return NULL;
		}
		for (int j = 0; K && j < K->nsafe; j++)
			if (K->safe[j] == b) {
				tlc_error(F->ctx, loc, "T.annotate_safe_value: '%s' already has a safe value in this kernel", b->name);
				return NULL;
			}
		if (!(vals[i] = safe_value_of(F, b, v->u.dict.vals[i], loc)))
			return NULL;
		keys[i] = tlc_buf_ref(F->m, b);
	}
	for (int i = 0; K && i < n; i++) {
		if (K->nsafe == K->cap_safe) {
			int cap = K->cap_safe ? 2 * K->cap_safe : 8;
			const tlc_buffer **safe = fe_alloc(F, sizeof(*safe) * (size_t)cap);
			for (int j = 0; j < K->nsafe; j++)
				safe[j] = K->safe[j];
			K->safe = safe;
			K->cap_safe = cap;
		}
		K->safe[K->nsafe++] = keys[i]->u.buf;
	}
	return tlc_dict(F->m, n, keys, vals);
}

/* T.atomic_add(C[i, j], tile): TileLang's destination is then the region
 * at that corner with the tile's extents, aligned to its last dimensions
 * (the leading ones are points); written as that region, the op is a tile
 * op everywhere, as T.atomic_add(C[i:i+m, j:j+n], tile) is. */
static const tlc_expr *atomic_tile_dst(fe *F, const tlc_expr *dst, const tlc_expr *src, tlc_loc loc)
{
	if (dst->kind != TLC_EXPR_LOAD || (src->kind != TLC_EXPR_BUF && src->kind != TLC_EXPR_REGION))
		return dst;
	const tlc_expr *ext[8];
	int k = 0;
	if (src->kind == TLC_EXPR_BUF) {
		for (int d = 0; d < src->u.buf->ndim && k < 8; d++)
			ext[k++] = src->u.buf->shape[d];
	} else {
		for (int d = 0; d < src->u.region.n && k < 8; d++)
			if (!src->u.region.dims[d].is_point)
				ext[k++] = src->u.region.dims[d].extent;
	}
	int n = dst->u.load.n, first = 0;
	int64_t x;
	while (k - first > n && tlc_expr_as_int(ext[first], &x) && x == 1)
		first++; /* (1, 64) fits a 1-D corner */
	if (k - first > n) {
		tlc_error(F->ctx, loc, "T.atomic_add: the tile added has %d dimensions, more than the %d of its destination "
		          "element '%s[...]'; give the destination as a region", k - first, n, dst->u.load.buf->name);
		return NULL;
	}
	tlc_range *dims = fe_alloc(F, sizeof(tlc_range) * (size_t)n);
	int lead = n - (k - first);
	for (int d = 0; d < n; d++) {
		dims[d].begin = dst->u.load.idx[d];
		dims[d].is_point = d < lead;
		dims[d].extent = d < lead ? tlc_i32(F->m, 1) : ext[first + d - lead];
	}
	return tlc_region(F->m, dst->u.load.buf, n, dims);
}

/* TileLang's keywords of T.atomic_add that tlc keeps or refuses: CUDA's
 * atomicAdd is relaxed; a TMA reduction (use_tma) adds the same values. */
static bool atomic_keyword(fe *F, const char *kw, fe_val *v, bool *keep, bool *prev, tlc_loc loc)
{
	*keep = false;
	bool t = false;
	if (!strcmp(kw, "memory_order")) {
		if (v->kind == FV_STR && !strcmp(v->u.s, "relaxed"))
			return true;
		tlc_error(F->ctx, loc, "T.atomic_add(memory_order=%s%s%s) is not supported: tlc's atomics are relaxed; "
		          "order them with a barrier (T.sync_threads) or drop memory_order", v->kind == FV_STR ? "\"" : "",
		          fe_show(F, v), v->kind == FV_STR ? "\"" : "");
		return false;
	}
	if (!strcmp(kw, "use_tma"))
		return fe_truthy(F, v, loc, &t);
	if (!strcmp(kw, "return_prev"))
		return fe_truthy(F, v, loc, prev);
	*keep = true;
	return true;
}

/* A C++ callee as T.call_extern names it: an identifier, maybe qualified
 * (ns::f) or with template arguments (f<8, float>). */
static bool is_callee_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr("_:<>, ", *s)))
			return false;
	return true;
}

/* T.call_extern(dtype, "name", args...): the return type ("handle" or
 * None: none), the function's name, then its arguments -- scalars, and
 * pointers as T.address_of(buf[i]) or buf.data (the address of its first
 * element).  The dtype is kept as its name, which the printed IR reads
 * back. */
static bool extern_call_args(fe *F, int n, fe_val **slot, const tlc_expr **ax, tlc_dtype *t, tlc_loc loc)
{
	*t = TLC_DT_VOID;
	if (slot[0]->kind == FV_NONE || (slot[0]->kind == FV_STR && strcmp(slot[0]->u.s, "handle") == 0)) {
		ax[0] = tlc_str(F->m, "handle");
	} else {
		if (!fe_to_dtype(F, slot[0], loc, t))
			return false;
		ax[0] = tlc_str(F->m, tlc_dtype_name(*t));
	}
	if (slot[1]->kind != FV_STR || !is_callee_name(slot[1]->u.s)) {
		tlc_error(F->ctx, loc, "T.call_extern: the function must be named by a string holding a C++ name "
		          "(f, ns::f, f<8>), not %s", fe_show(F, slot[1]));
		return false;
	}
	ax[1] = tlc_str(F->m, slot[1]->u.s);
	for (int i = 2; i < n; i++) {
		if (slot[i]->kind == FV_DATAPTR) {
			tlc_buffer *b = slot[i]->u.buf;
			const tlc_expr **zero = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(b->ndim + 1));
			for (int d = 0; d < b->ndim; d++)
				zero[d] = tlc_i32(F->m, 0);
			const tlc_expr *el = tlc_load(F->m, b, b->ndim, zero);
			ax[i] = tlc_call(F->m, TLC_OP_ADDRESS_OF, TLC_DT_VOID, 1, &el, 0, NULL, NULL);
		} else if (slot[i]->kind == FV_STR) {
			tlc_error(F->ctx, loc, "T.call_extern: argument %d is a string; pass numbers, elements and "
			          "pointers (T.address_of(buf[i]), buf.data)", i + 1);
			return false;
		} else if (slot[i]->kind == FV_EXPR && slot[i]->u.e->kind == TLC_EXPR_CALL &&
		           slot[i]->u.e->u.call.op == TLC_OP_ADDRESS_OF) {
			ax[i] = slot[i]->u.e;
		} else if (!(ax[i] = fe_to_scalar(F, slot[i], loc))) {
			return false;
		}
	}
	return true;
}

fe_val *fe_call_op(fe *F, tlc_op_id op, const char *name, int nargs, fe_val **args, int nkw,
                   const char **kw_names, fe_val **kw_vals, tlc_loc loc)
{
	if (fe_is_layout_op(op))
		return fe_layout_value(F, op, nargs, args, nkw, kw_names, kw_vals, loc);
	/* T.call_extern("name", args..., dtype=t) is T.call_extern(t, "name",
	 * args...), as TVM's script builder forwards a dtype keyword */
	for (int k = 0; op == TLC_OP_CALL_EXTERN && k < nkw; k++)
		if (strcmp(kw_names[k], "dtype") == 0) {
			fe_val **a2 = fe_alloc(F, sizeof(fe_val *) * (size_t)(nargs + 1));
			a2[0] = kw_vals[k];
			for (int i = 0; i < nargs; i++)
				a2[i + 1] = args[i];
			const char **kn2 = fe_alloc(F, sizeof(char *) * (size_t)(nkw + 1));
			fe_val **kv2 = fe_alloc(F, sizeof(fe_val *) * (size_t)(nkw + 1));
			int m = 0;
			for (int j = 0; j < nkw; j++)
				if (j != k) {
					kn2[m] = kw_names[j];
					kv2[m++] = kw_vals[j];
				}
			return fe_call_op(F, op, name, nargs + 1, a2, m, kn2, kv2, loc);
		}
	const tlc_op_info *info = tlc_op_get(F->ctx, op);
	const op_sig *sig = find_sig(name);
	bool prev = false; /* T.atomic_add(..., return_prev=True) */
	int npos = 0;
	if (sig)
		while (npos < 4 && sig->pos[npos])
			npos++;
	if (is_math(info) && !sig)
		npos = 1;
	/* arguments past the positional slots that TileLang takes positionally
	 * (T.gemm(A, B, C, False, True)) are the keywords they stand for */
	int extra = sig && sig->npkw && nargs > npos ? nargs - npos : 0;
	if (extra > (sig ? sig->npkw : 0)) {
		int most = npos + sig->npkw;
		tlc_error(F->ctx, loc, "T.%s expects at most %d positional argument%s, got %d", name, most,
		          most == 1 ? "" : "s", nargs);
		return NULL;
	}
	for (int k = 0; k < nkw; k++)
		for (int i = 0; i < extra; i++)
			if (strcmp(kw_names[k], sig->kw[i]) == 0) {
				tlc_error(F->ctx, loc, "T.%s got multiple values for argument '%s'", name, kw_names[k]);
				return NULL;
			}
	if (extra) {
		const char **kn2 = fe_alloc(F, sizeof(char *) * (size_t)(nkw + extra));
		fe_val **kv2 = fe_alloc(F, sizeof(fe_val *) * (size_t)(nkw + extra));
		for (int i = 0; i < extra; i++) {
			kn2[i] = sig->kw[i];
			kv2[i] = args[npos + i];
		}
		for (int k = 0; k < nkw; k++) {
			kn2[extra + k] = kw_names[k];
			kv2[extra + k] = kw_vals[k];
		}
		nargs = npos;
		nkw += extra;
		kw_names = kn2;
		kw_vals = kv2;
	}
	const char **canon = fe_alloc(F, sizeof(char *) * (size_t)(nkw + 1));
	for (int k = 0; k < nkw; k++)
		canon[k] = canonical_kw(sig, kw_names[k]);
	kw_names = canon;
	/* slots: positional args, then keywords naming a positional parameter;
	 * every positional parameter has one (read up to npos below) */
	int cap = nargs + nkw + npos + 1;
	fe_val **slot = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
	const char **kn = fe_alloc(F, sizeof(char *) * (size_t)cap);
	fe_val **kv = fe_alloc(F, sizeof(fe_val *) * (size_t)cap);
	int nk = 0;
	for (int i = 0; i < nargs; i++)
		slot[i] = args[i];
	for (int k = 0; k < nkw; k++) {
		int i = 0;
		while (i < npos && strcmp(sig->pos[i], kw_names[k]) != 0)
			i++;
		bool known = i < npos;
		for (int j = 0; sig && !known && j < 8 && sig->kw[j]; j++)
			known = strcmp(sig->kw[j], kw_names[k]) == 0;
		if (!known && !(info->flags & TLC_OPF_LOWERED) && (sig || is_math(info) || op < TLC_OP_BUILTIN_COUNT)) {
			tlc_error(F->ctx, loc, "unknown keyword argument '%s' for T.%s", kw_names[k], name);
			return NULL;
		}
		if (i < npos && i < nargs) {
			tlc_error(F->ctx, loc, "T.%s got multiple values for argument '%s'", name, kw_names[k]);
			return NULL;
		}
		if (kw_vals[k]->kind == FV_NONE)
			continue; /* the default */
		bool keep = true;
		if (op == TLC_OP_ATOMIC_ADD && !atomic_keyword(F, kw_names[k], kw_vals[k], &keep, &prev, loc))
			return NULL;
		if (!keep)
			continue;
		if (i < npos) {
			slot[i] = kw_vals[k];
		} else {
			kn[nk] = kw_names[k];
			kv[nk++] = kw_vals[k];
		}
	}
	/* TileLang's integer barrier ids (T.create_list_of_mbarrier) */
	if (sig && sig->pos[0] && !strcmp(sig->pos[0], "barrier") && npos && slot[0] &&
	    !(slot[0] = fe_mbarrier_operand(F, slot[0], loc)))
		return NULL;
	int n = nargs;
	while (n < npos && slot[n])
		n++;
	for (int i = n; i < npos; i++) /* after a gap: stays a keyword */
		if (slot[i]) {
			kn[nk] = sig->pos[i];
			kv[nk++] = slot[i];
		}
	if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
		if (info->min_args == info->max_args)
			tlc_error(F->ctx, loc, "T.%s expects %d argument%s, got %d", name, info->min_args,
			          info->min_args == 1 ? "" : "s", n);
		else if (info->max_args < 0)
			tlc_error(F->ctx, loc, "T.%s expects at least %d argument%s, got %d", name,
			          info->min_args, info->min_args == 1 ? "" : "s", n);
		else
			tlc_error(F->ctx, loc, "T.%s expects %d to %d arguments, got %d", name,
			          info->min_args, info->max_args, n);
		return NULL;
	}
	const tlc_expr **ax = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(n + 1));
	tlc_dtype extern_type = TLC_DT_VOID;
	if (op == TLC_OP_CALL_EXTERN && !extern_call_args(F, n, slot, ax, &extern_type, loc))
		return NULL;
	for (int i = 0; i < n; i++) {
		if (op == TLC_OP_CALL_EXTERN)
			continue; /* converted above */
		if (op == TLC_OP_ANNOTATE_LAYOUT)
			ax[i] = fe_layout_map(F, slot[i], loc);
		else if (op == TLC_OP_ANNOTATE_SAFE_VALUE)
			ax[i] = safe_value_map(F, slot[i], loc);
		else if (op == TLC_OP_WS) {
			int64_t x;
			if (!fe_as_int(slot[i], &x) || x < 0 || x > 7) {
				tlc_error(F->ctx, loc, "T.ws expects warpgroup indices 0..7, got '%s'",
				          fe_show(F, slot[i]));
				return NULL;
			}
			ax[i] = tlc_i32(F->m, x);
		} else
			ax[i] = is_math(info) ? fe_to_scalar(F, slot[i], loc) : fe_to_expr(F, slot[i], loc);
		if (!ax[i])
			return NULL;
	}
	if (op == TLC_OP_ATOMIC_ADD && n == 2 && !(ax[0] = atomic_tile_dst(F, ax[0], ax[1], loc)))
		return NULL;
	/* conversions the op implies are explicit in the IR: an element atomic
	 * adds a value of its destination's type; the two arguments of T.pow
	 * meet in their common type, as two operands of * do (TVM's pow) */
	if (op == TLC_OP_ATOMIC_ADD && n == 2 && ax[0]->kind == TLC_EXPR_LOAD && ax[1]->dtype != TLC_DT_VOID &&
	    !(ax[1] = fe_scalar_as(F, slot[1], ax[0]->dtype, loc)))
		return NULL;
	if (is_math(info) && n == 2 && !fe_scalar_pair(F, TLC_EXPR_MUL, slot[0], slot[1], loc, &ax[0], &ax[1]))
		return NULL;
	if (is_math(info) && n == 2 && ax[0]->dtype != ax[1]->dtype) {
		tlc_dtype u = tlc_operand_type(TLC_EXPR_MUL, ax[0]->dtype, ax[1]->dtype);
		ax[0] = tlc_cast(F->m, u, ax[0]);
		ax[1] = tlc_cast(F->m, u, ax[1]);
	}
	/* the math functions are of floats (T.abs also of integers); TVM leaves
	 * T.exp(int) to C++'s overloads */
	if (is_math(info) && op != TLC_OP_ABS && op < TLC_OP_BUILTIN_COUNT && n > 0 &&
	    !tlc_dtype_is_float(ax[0]->dtype) && ax[0]->dtype != TLC_DT_VOID) {
		tlc_error(F->ctx, loc, "T.%s needs a float argument, not %s: convert it with T.cast(x, \"float32\")",
		          name, tlc_dtype_name(ax[0]->dtype));
		return NULL;
	}
	const char **kwn = fe_alloc(F, sizeof(char *) * (size_t)(nk + 1));
	const tlc_expr **kwx = fe_alloc(F, sizeof(tlc_expr *) * (size_t)(nk + 1));
	for (int k = 0; k < nk; k++) {
		kwn[k] = tlc_intern(F->m, kn[k]);
		if (!(kwx[k] = fe_to_expr(F, kv[k], loc)))
			return NULL;
	}
	tlc_dtype t = TLC_DT_VOID;
	/* a pure op's value has its first operand's dtype (math, shuffles of
	 * a value); the other lowered ones (thread and block indices) are int32 */
	bool shuffle = op == TLC_OP_SHFL_XOR || op == TLC_OP_SHFL_DOWN || op == TLC_OP_SHFL_UP ||
	               op == TLC_OP_SHFL_IDX;
	if (info->flags & TLC_OPF_PURE)
		t = n > 0 && ax[0]->dtype != TLC_DT_VOID && (!(info->flags & TLC_OPF_LOWERED) || shuffle) ? ax[0]->dtype
		                                                                                      : TLC_DT_INT32;
	if (shuffle && n == 3) {
		/* the printers pass the width on as the vendors' last argument,
		 * which must be a power of two no wider than the warp */
		const tlc_target_info *ti = F->opts ? F->opts->target : NULL;
		int64_t w, lanes = ti && ti->lanes > 0 ? ti->lanes : 32;
		if (!tlc_expr_as_int(ax[2], &w) || w < 1 || w > lanes || (w & (w - 1))) {
			tlc_error(F->ctx, loc, "T.%s: the width '%s' must be a compile-time power of two from 1 "
			          "to %lld (the lanes of a warp)", name, fe_show_expr(F, ax[2]), (long long)lanes);
			return NULL;
		}
	}
	if (op == TLC_OP_PRINT && (ax[0]->kind == TLC_EXPR_BUF || ax[0]->kind == TLC_EXPR_REGION ||
	                           ax[0]->dtype == TLC_DT_VOID)) {
		tlc_error(F->ctx, loc, "T.print prints one scalar (an element such as buf[i], or a variable), "
		          "not a whole buffer");
		return NULL;
	}
	for (int k = 0; op == TLC_OP_PRINT && k < nk; k++)
		if (kwx[k]->kind != TLC_EXPR_STR) {
			tlc_error(F->ctx, loc, "T.print: msg must be a string");
			return NULL;
		}
	const tlc_expr *call = tlc_call(F->m, op, t, n, ax, nk, kwn, kwx);
	if ((op == TLC_OP_COPY || op == TLC_OP_TMA_COPY) && !check_copy(F, ax[0], ax[1], loc))
		return NULL;
	if ((op == TLC_OP_GEMM || op == TLC_OP_WGMMA_GEMM) && !check_gemm(F, call, loc))
		return NULL;
	if (op == TLC_OP_USE_SWIZZLE) {
		tlc_raster r;
		const char *why = NULL;
		int grid = F->kernel && F->kernel->has_frame ? F->kernel->func->grid_ndim : 0;
		if (!tlc_raster_decode(call, grid, &r, &why)) {
			tlc_error(F->ctx, loc, "%s", why);
			return NULL;
		}
	}
	if (op == TLC_OP_ADDRESS_OF && ax[0]->kind != TLC_EXPR_LOAD) {
		tlc_error(F->ctx, loc, "T.address_of takes one element of a buffer, such as buf[i, 0], not '%s'",
		          fe_show(F, slot[0]));
		return NULL;
	}
	if (op == TLC_OP_CALL_EXTERN)
		call = tlc_call(F->m, op, extern_type, n, ax, nk, kwn, kwx);
	if (!fe_expr_depth_ok(F, call))
		return NULL;
	if (op == TLC_OP_ATOMIC_ADD && (prev || tlc_call_kw(call, "old")) &&
	    !fe_atomic_element_check(F, "T.atomic_add", call, prev, loc))
		return NULL;
	if (prev)
		return fe_atomic_prev(F, call, loc);
	fe_val *v = fe_new(F, FV_EXPR);
	v->u.e = call;
	return v;
}

/* buf.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0,
 * extent=None) and T.tvm_access_ptr(T.type_annotation(dtype), buf.data,
 * offset, extent, rw_mask): TVM's pointer to element `offset` of the
 * buffer's storage, counted row-major -- T.address_of of that element.  The
 * access mask and the extent say how the callee uses it; nothing here does. */
fe_val *fe_access_ptr(fe *F, tlc_buffer *b, fe_val *offset, tlc_loc loc)
{
	const tlc_expr *off = tlc_i32(F->m, 0);
	if (offset && offset->kind != FV_NONE && !(off = fe_to_scalar(F, offset, loc)))
		return NULL;
	if (!tlc_dtype_is_int(off->dtype)) {
		tlc_error(F->ctx, loc, "access_ptr of '%s': the offset counts elements, an integer, not %s", b->name,
		          tlc_dtype_name(off->dtype));
		return NULL;
	}
	if (b->ndim < 1) {
		tlc_error(F->ctx, loc, "access_ptr of '%s', a buffer without dimensions", b->name);
		return NULL;
	}
	const tlc_expr **idx = fe_alloc(F, sizeof(tlc_expr *) * (size_t)b->ndim);
	for (int d = b->ndim - 1; d > 0; d--) {
		const tlc_expr *ext = b->shape[d];
		if (ext->dtype != off->dtype)
			ext = tlc_cast(F->m, off->dtype, ext);
		idx[d] = tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_FLOORMOD, off, ext));
		off = tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_FLOORDIV, off, ext));
	}
	idx[0] = off;
	const tlc_expr *el = tlc_load(F->m, b, b->ndim, idx);
	fe_val *v = fe_new(F, FV_EXPR);
	v->u.e = tlc_call(F->m, TLC_OP_ADDRESS_OF, TLC_DT_VOID, 1, &el, 0, NULL, NULL);
	return v;
}

/* The bound method buf.access_ptr(...) (see fe_access_ptr). */
fe_val *fe_call_access_ptr(fe *F, tlc_buffer *b, int nargs, fe_val **args, int nkw, const char **kwn,
                           fe_val **kwv, tlc_loc loc)
{
	static const char *const names[] = {"access_mask", "ptr_type", "content_lanes", "offset", "extent"};
	fe_val *a[5];
	if (!fe_bind_args(F, "access_ptr", names, 5, 1, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[2] && !(a[2]->kind == FV_INT && a[2]->u.i == 1)) {
		tlc_error(F->ctx, loc, "access_ptr of '%s' with content_lanes=%s: tlc's pointers are to single "
		          "elements; leave content_lanes=1", b->name, fe_show(F, a[2]));
		return NULL;
	}
	return fe_access_ptr(F, b, a[3], loc);
}

/* T.tvm_access_ptr(ptype, data, offset, extent, rw_mask) (see fe_access_ptr). */
fe_val *fe_call_tvm_access_ptr(fe *F, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                               tlc_loc loc)
{
	static const char *const names[] = {"ptype", "data", "offset", "extent", "rw_mask"};
	fe_val *a[5];
	if (!fe_bind_args(F, "T.tvm_access_ptr", names, 5, 5, nargs, args, nkw, kwn, kwv, a, loc))
		return NULL;
	if (a[1]->kind != FV_DATAPTR) {
		tlc_error(F->ctx, loc, "T.tvm_access_ptr takes the storage of a buffer, buf.data, not %s",
		          fe_show(F, a[1]));
		return NULL;
	}
	return fe_access_ptr(F, a[1]->u.buf, a[2], loc);
}
