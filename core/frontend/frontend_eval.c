/* frontend_eval.c - expressions of the compile-time evaluator: names,
 * subscripts of buffers (loads and regions), sequences, comprehensions and
 * calls; the operators themselves are in frontend_operators.c. */
#include "frontend.h"

#include <tlc/walk.h>

#include <math.h>
#include <string.h>

bool fe_enter(fe *F, tlc_loc loc)
{
	if (F->depth >= FE_MAX_DEPTH) {
		tlc_error(F->ctx, loc, "compile-time evaluation nests too deeply (recursion?)");
		return false;
	}
	F->depth++;
	return true;
}

static fe_val *eval_compare(fe *F, fe_env *env, py_node *n)
{
	fe_val *left = fe_eval(F, env, n->list[0]);
	fe_val *acc = NULL;
	for (int i = 1; left && i < n->n; i++) {
		fe_val *right = fe_eval(F, env, n->list[i]);
		if (!right)
			return NULL;
		fe_val *r = fe_compare(F, n->ops[i - 1], left, right, n->loc);
		if (!r)
			return NULL;
		if (!acc) {
			acc = r;
		} else if (fe_is_symbolic(acc) || fe_is_symbolic(r)) {
			acc = fe_binop(F, PY_OP_AND, acc, r, n->loc);
			if (!acc)
				return NULL;
		} else {
			bool t;
			if (!fe_truthy(F, acc, n->loc, &t))
				return NULL;
			acc = t ? r : acc;
		}
		if (acc->kind == FV_BOOL && !acc->u.b)
			return acc;
		left = right;
	}
	return acc;
}

static fe_val *eval_boolop(fe *F, fe_env *env, py_node *n)
{
	bool is_and = n->op == PY_OP_AND;
	fe_val *sym = NULL; /* the symbolic part so far */
	for (int i = 0; i < n->n; i++) {
		fe_val *v = fe_eval(F, env, n->list[i]);
		if (!v)
			return NULL;
		if (fe_is_symbolic(v)) {
			sym = sym ? fe_binop(F, n->op, sym, v, n->loc) : v;
			if (!sym)
				return NULL;
			continue;
		}
		bool t;
		if (!fe_truthy(F, v, n->loc, &t))
			return NULL;
		if (t != is_and) /* decides the result: False for and, True for or */
			return sym ? fe_bool(F, t) : v;
		if (i == n->n - 1 && !sym)
			return v;
	}
	return sym;
}

/* Index `seq` with a compile-time integer, Python style (negative from the end). */
static fe_val *seq_index(fe *F, fe_val *seq, fe_val *idx, tlc_loc loc)
{
	int64_t i;
	if (!fe_as_int(idx, &i)) {
		tlc_error(F->ctx, loc, "%s index must be a compile-time integer, got %s",
		          fe_kind_name(seq), fe_kind_name(idx));
		return NULL;
	}
	int64_t len = seq->kind == FV_STR ? (int64_t)strlen(seq->u.s) : seq->u.seq.n;
	if (i < 0)
		i += len;
	if (i < 0 || i >= len) {
		tlc_error(F->ctx, loc, "%s index out of range", fe_kind_name(seq));
		return NULL;
	}
	if (seq->kind == FV_STR) {
		char s[2] = {seq->u.s[i], 0};
		return fe_str(F, s);
	}
	return seq->u.seq.items[i];
}

fe_val *fe_subscript(fe *F, fe_val *v, fe_val *idx, tlc_loc loc)
{
	switch (v->kind) {
	case FV_TUPLE:
	case FV_LIST:
	case FV_STR:
		return seq_index(F, v, idx, loc);
	case FV_DICT: {
		fe_val *r = fe_dict_get(F, v, idx);
		if (!r)
			tlc_error(F->ctx, loc, "key %s not found in dict", fe_show(F, idx));
		return r;
	}
	case FV_HOST:
		return v;
	case FV_BUILTIN:
		if (!strcmp(v->u.s, "T.Tensor") || !strcmp(v->u.s, "T.Buffer"))
			return fe_subscript_type(F, v, idx, loc);
		/* fall through */
	default:
		if (fe_is_torch_tensor(v)) {
			fe_torch_values_error(F, "indexing", loc);
			return NULL;
		}
		tlc_error(F->ctx, loc, "a %s cannot be subscripted", fe_kind_name(v));
		return NULL;
	}
}

/* seq[b:e:st] of a tuple, list or str, with Python's bounds */
static fe_val *seq_slice(fe *F, fe_env *env, fe_val *seq, py_node *sl)
{
	bool str = seq->kind == FV_STR;
	int64_t len = str ? (int64_t)strlen(seq->u.s) : seq->u.seq.n, b, e, st = 1;
	py_node *parts[3] = {sl->a, sl->b, sl->c};
	int64_t vals[3];
	bool given[3] = {false, false, false};
	for (int k = 0; k < 3; k++) {
		if (!parts[k])
			continue;
		fe_val *x = fe_eval(F, env, parts[k]);
		if (!x)
			return NULL;
		if (x->kind == FV_NONE)
			continue;
		if (!fe_as_int(x, &vals[k])) {
			tlc_error(F->ctx, parts[k]->loc,
				  "slice bounds must be compile-time integers");
			return NULL;
		}
		given[k] = true;
	}
	if (given[2])
		st = vals[2];
	if (st == 0) {
		tlc_error(F->ctx, sl->loc, "slice step cannot be zero");
		return NULL;
	}
	/* the bounds as Python clamps them: [0, len] going up, [-1, len - 1] going down */
	int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? len : len - 1;
	b = given[0] ? vals[0] : st > 0 ? 0 : len - 1;
	e = given[1] ? vals[1] : st > 0 ? len : -1;
	if (given[0] && b < 0)
		b += len;
	if (given[1] && e < 0)
		e += len;
	b = b < lo ? lo : b > hi ? hi : b;
	e = e < lo ? lo : e > hi ? hi : e;
	int64_t n =
		st > 0 ? (e > b ? (e - b + st - 1) / st : 0) : (b > e ? (b - e - st - 1) / -st : 0);
	if (!fe_work(F, n, sl->loc))
		return NULL;
	if (str) {
		char *r = fe_alloc(F, (size_t)n + 1);
		for (int64_t i = 0; i < n; i++)
			r[i] = seq->u.s[b + i * st];
		r[n] = 0;
		fe_val *v = fe_new(F, FV_STR);
		v->u.s = r;
		return v;
	}
	fe_val *r = fe_seq(F, seq->kind, (int)n);
	for (int64_t i = 0; i < n; i++)
		r->u.seq.items[i] = seq->u.seq.items[b + i * st];
	return r;
}

/* buf[i, j] -> LOAD; buf[a:b, i, :] -> REGION (extents simplified). */
void fe_note_let(fe *F, const tlc_var *var, const tlc_expr *value)
{
	if (F->nlets == F->cap_lets) {
		int cap = F->cap_lets ? 2 * F->cap_lets : 16;
		const tlc_var **vars = fe_alloc(F, sizeof(*vars) * (size_t)cap);
		const tlc_expr **vals = fe_alloc(F, sizeof(*vals) * (size_t)cap);
		for (int i = 0; i < F->nlets; i++) {
			vars[i] = F->let_vars[i];
			vals[i] = F->let_vals[i];
		}
		F->let_vars = vars;
		F->let_vals = vals;
		F->cap_lets = cap;
	}
	F->let_vars[F->nlets] = var;
	F->let_vals[F->nlets++] = value;
}

/* The extent of the slice b:e.  Where it is not a constant as written, the
 * kernel's LETs are put in for their values (a few rounds: a LET's value
 * may name older ones), as TileLang's analyzer binds them: `H1 = H0 + 64`
 * makes X[H0:H1] 64 long.  The substituted form is kept only when it is a
 * constant; otherwise the extent stays e - b. */
static const tlc_expr *fe_slice_extent(fe *F, const tlc_expr *b, const tlc_expr *e)
{
	const tlc_expr *x = tlc_simplify_expr(F->m, tlc_binary(F->m, TLC_EXPR_SUB, e, b));
	if (x->kind == TLC_EXPR_INT || F->nlets == 0)
		return x;
	tlc_rewriter rw;
	tlc_rewriter_init(&rw, F->m);
	for (int i = 0; i < F->nlets; i++)
		tlc_rewriter_map_var(&rw, F->let_vars[i], F->let_vals[i]);
	const tlc_expr *y = x;
	for (int round = 0; round < 4 && y->kind != TLC_EXPR_INT; round++)
		y = tlc_simplify_expr(F->m, tlc_expr_rewrite(&rw, y));
	tlc_rewriter_free(&rw);
	return y->kind == TLC_EXPR_INT ? y : x;
}

static fe_val *index_buffer(fe *F, fe_env *env, tlc_buffer *buf, py_node *idx, tlc_loc loc)
{
	int n = idx->kind == PY_TUPLE ? idx->n : 1;
	py_node **items = idx->kind == PY_TUPLE ? idx->list : &idx;
	if (n != buf->ndim) {
		tlc_error(F->ctx, loc, "buffer '%s' has %d dimension%s, indexed with %d", buf->name,
		          buf->ndim, buf->ndim == 1 ? "" : "s", n);
		return NULL;
	}
	/* a buffer has at most 8 dimensions; tlc_load and tlc_region copy them */
	tlc_range dims_here[8];
	const tlc_expr *pts_here[8];
	tlc_range *dims = n <= 8 ? dims_here : fe_alloc(F, sizeof(tlc_range) * (size_t)n);
	const tlc_expr **pts = n <= 8 ? pts_here : fe_alloc(F, sizeof(tlc_expr *) * (size_t)n);
	bool any_slice = false;
	for (int d = 0; d < n; d++) {
		py_node *it = items[d];
		if (it->kind != PY_SLICE) {
			fe_val *x = fe_eval(F, env, it);
			if (!x || !(pts[d] = fe_to_scalar(F, x, it->loc)))
				return NULL;
			dims[d].begin = pts[d];
			dims[d].extent = tlc_i32(F->m, 1);
			dims[d].is_point = true;
			continue;
		}
		any_slice = true;
		if (it->c) {
			tlc_error(F->ctx, it->loc, "buffer slices with a step are not supported");
			return NULL;
		}
		const tlc_expr *b = tlc_i32(F->m, 0), *e = buf->shape[d];
		if (it->a) {
			fe_val *x = fe_eval(F, env, it->a);
			if (!x || !(b = fe_to_scalar(F, x, it->a->loc)))
				return NULL;
		}
		if (it->b) {
			fe_val *x = fe_eval(F, env, it->b);
			if (!x || !(e = fe_to_scalar(F, x, it->b->loc)))
				return NULL;
		}
		dims[d].begin = b;
		dims[d].extent = fe_slice_extent(F, b, e);
		dims[d].is_point = false;
	}
	if (!any_slice)
		return fe_expr(F, tlc_load(F->m, buf, n, pts));
	return fe_expr(F, tlc_region(F->m, buf, n, dims));
}

/* n->a[n->b], n->a evaluated to v */
static fe_val *subscript_of(fe *F, fe_env *env, py_node *n, fe_val *v)
{
	if (v->kind == FV_BUF)
		return index_buffer(F, env, v->u.buf, n->b, n->loc);
	if ((v->kind == FV_TUPLE || v->kind == FV_LIST || v->kind == FV_STR) &&
	    n->b->kind == PY_SLICE)
		return seq_slice(F, env, v, n->b);
	if (v->kind == FV_MODULE || v->kind == FV_NAMESPACE) {
		tlc_error(F->ctx, n->loc, "subscript of %s is not supported", v->u.s);
		return NULL;
	}
	fe_val *idx = fe_eval(F, env, n->b);
	if (!idx)
		return NULL;
	return fe_subscript(F, v, idx, n->loc);
}

fe_val *fe_iterate(fe *F, fe_val *v, tlc_loc loc)
{
	switch (v->kind) {
	case FV_TUPLE:
	case FV_LIST:
		return v;
	case FV_DICT: {
		if (!fe_work(F, v->u.dict.n, loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, v->u.dict.n);
		memcpy(r->u.seq.items, v->u.dict.keys, sizeof(fe_val *) * (size_t)v->u.dict.n);
		return r;
	}
	case FV_STR: {
		int64_t n = (int64_t)strlen(v->u.s);
		if (!fe_check_items(F, n, "iteration of a str", loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, (int)n);
		for (int64_t i = 0; i < n; i++) {
			char c[2] = {v->u.s[i], 0};
			r->u.seq.items[i] = fe_str(F, c);
		}
		return r;
	}
	case FV_RANGE: {
		int64_t a = v->u.range.start, s = v->u.range.step;
		int64_t n = fe_range_len(a, v->u.range.stop, s);
		if (!fe_check_items(F, n, "range", loc))
			return NULL;
		fe_val *r = fe_seq(F, FV_LIST, (int)n);
		for (int64_t i = 0; i < n; i++) /* a + i * s stays between start and stop */
			r->u.seq.items[i] = fe_int(F, (int64_t)((uint64_t)a + (uint64_t)i * (uint64_t)s));
		return r;
	}
	default:
		tlc_error(F->ctx, loc, "a %s is not iterable at compile time", fe_kind_name(v));
		return NULL;
	}
}

/* The for clauses of a comprehension, one level per clause: the parser
 * counts each clause as a nesting level, so this recursion is bounded. */
static bool comp_loop(fe *F, fe_env *env, py_node *n, int k, fe_val *out, fe_val *dict)
{
	if (k == n->n) {
		fe_val *e = fe_eval(F, env, n->a);
		if (!e)
			return false;
		if (dict) {
			fe_val *val = fe_eval(F, env, n->b);
			if (!val)
				return false;
			fe_dict_set(F, dict, e, val);
		} else {
			if (!fe_check_items(F, (int64_t)out->u.seq.n + 1, "comprehension", n->loc))
				return false;
			fe_seq_push(F, out, e);
		}
		return true;
	}
	py_node *c = n->list[k];
	fe_val *it = fe_eval(F, env, c->b);
	if (!it || !(it = fe_iterate(F, it, c->b->loc)))
		return false;
	for (int i = 0; i < it->u.seq.n; i++) {
		if (!fe_step(F, n->loc))
			return false;
		if (!fe_bind_target(F, env, c->a, it->u.seq.items[i]))
			return false;
		bool keep = true;
		for (int j = 0; j < c->n && keep; j++) {
			fe_val *cond = fe_eval(F, env, c->list[j]);
			if (!cond || !fe_truthy(F, cond, c->list[j]->loc, &keep))
				return false;
		}
		if (keep && !comp_loop(F, env, n, k + 1, out, dict))
			return false;
	}
	return true;
}

static fe_val *eval_comp(fe *F, fe_env *env, py_node *n)
{
	fe_env *inner = fe_env_new(F, env);
	if (n->ival == PY_DICT) {
		fe_val *d = fe_dict(F);
		return comp_loop(F, inner, n, 0, NULL, d) ? d : NULL;
	}
	fe_val *out = fe_seq(F, n->ival == PY_LIST ? FV_LIST : FV_TUPLE, 0);
	return comp_loop(F, inner, n, 0, out, NULL) ? out : NULL;
}

/* The items of a tuple/list/set literal (or a call's positional arguments),
 * with *x unpacked, as a sequence of kind k. */
static fe_val *eval_seq_literal(fe *F, fe_env *env, py_node *n, fe_kind k)
{
	fe_val *r = fe_seq(F, k, 0);
	for (int i = 0; i < n->n; i++) {
		py_node *a = n->list[i];
		fe_val *v = fe_eval(F, env, a->kind == PY_STARRED ? a->a : a);
		if (!v)
			return NULL;
		if (a->kind == PY_STARRED) {
			if (!(v = fe_iterate(F, v, a->loc)) ||
			    !fe_check_items(F, (int64_t)r->u.seq.n + v->u.seq.n, fe_kind_name(r), a->loc))
				return NULL;
			for (int j = 0; j < v->u.seq.n; j++)
				fe_seq_push(F, r, v->u.seq.items[j]);
		} else {
			fe_seq_push(F, r, v);
		}
	}
	return r;
}

/* n->a(...), n->a evaluated to fn; `hint` names what the call makes */
static fe_val *call_of(fe *F, fe_env *env, py_node *n, fe_val *fn, const char *hint)
{
	/* positional arguments, *x unpacked: evaluated like a list literal */
	fe_val *args = eval_seq_literal(F, env, n, FV_LIST);
	if (!args)
		return NULL;
	int cap = n->n2 + 1, nkw = 0;
	const char **kn = n->n2 ? fe_alloc(F, sizeof(char *) * (size_t)cap) : NULL;
	fe_val **kv = n->n2 ? fe_alloc(F, sizeof(fe_val *) * (size_t)cap) : NULL;
	for (int i = 0; i < n->n2; i++) {
		fe_val *v = fe_eval(F, env, n->kw_values[i]);
		if (!v)
			return NULL;
		if (n->kw_names[i]) {
			kn[nkw] = n->kw_names[i];
			kv[nkw++] = v;
			continue;
		}
		if (v->kind != FV_DICT) {
			tlc_error(F->ctx, n->kw_values[i]->loc, "** needs a dict, got %s", fe_kind_name(v));
			return NULL;
		}
		if (!fe_check_items(F, (int64_t)cap + v->u.dict.n, "keyword arguments", n->loc))
			return NULL;
		const char **kn2 = fe_alloc(F, sizeof(char *) * (size_t)(cap + v->u.dict.n));
		fe_val **kv2 = fe_alloc(F, sizeof(fe_val *) * (size_t)(cap + v->u.dict.n));
		memcpy(kn2, kn, sizeof(char *) * (size_t)nkw);
		memcpy(kv2, kv, sizeof(fe_val *) * (size_t)nkw);
		kn = kn2;
		kv = kv2;
		cap += v->u.dict.n;
		for (int j = 0; j < v->u.dict.n; j++) {
			if (v->u.dict.keys[j]->kind != FV_STR) {
				tlc_error(F->ctx, n->kw_values[i]->loc, "keywords must be strings");
				return NULL;
			}
			kn[nkw] = v->u.dict.keys[j]->u.s;
			kv[nkw++] = v->u.dict.vals[j];
		}
	}
	F->name_hint = hint;
	fe_val *r = fe_call(F, fn, args->u.seq.n, args->u.seq.items, nkw, kn, kv, n->loc);
	F->name_hint = NULL;
	return r;
}


static fe_val *eval_name(fe *F, fe_env *env, py_node *n)
{
	fe_val *v = fe_env_get(env, n->str);
	if (v) {
		if (v->kind == FV_HOST || fe_is_torch_tensor(v))
			F->host_uses++; /* a statement that fails after this may be skipped */
		return v;
	}
	if (strcmp(n->str, "globals") == 0)
		return fe_globals_fn(F, env, n->loc);
	static const char *const builtins[] = {
		"range", "len", "min", "max", "abs", "int", "float", "bool", "str", "tuple", "list",
		"dict", "print", "enumerate", "zip", "sum", "any", "all", "round", "sorted", "reversed",
		"divmod", "pow", "isinstance", "ValueError", "AssertionError", "RuntimeError",
		"TypeError", "NotImplementedError", "KeyError", "Exception", "map", "set", "type",
		"getattr", "hasattr",
	};
	for (size_t i = 0; i < TLC_ARRAY_LEN(builtins); i++)
		if (strcmp(builtins[i], n->str) == 0)
			return fe_builtin(F, builtins[i]);
	/* from M import *: the latest import that has the name (Python's
	 * builtins are found first here, so that `float` stays Python's) */
	fe_env *root = env;
	while (F->nstar && root->parent)
		root = root->parent;
	for (int i = F->nstar - 1; i >= 0; i--)
		if (F->star_env[i] == root && fe_module_has(F, F->star[i], n->str))
			return fe_getattr(F, F->star[i], n->str, n->loc);
	for (int i = 0; i < F->npoisoned; i++)
		if (strcmp(F->poisoned[i], n->str) == 0)
			return NULL; /* its statement failed and was reported (keep_going) */
	tlc_error(F->ctx, n->loc, "undefined name '%s'", n->str);
	return NULL;
}

/* Finish n, whose left operand n->a evaluated to `left`: the nodes of a
 * left spine (a + b + c, x.a.b, f(x)(y), a[i][j]). */
static fe_val *finish_spine_node(fe *F, fe_env *env, py_node *n, fe_val *left, const char *hint)
{
	switch (n->kind) {
	case PY_ATTR:
		return fe_getattr(F, left, n->str, n->loc);
	case PY_CALL:
		return call_of(F, env, n, left, hint);
	case PY_SUBSCRIPT:
		return subscript_of(F, env, n, left);
	default: { /* PY_BINOP */
		fe_val *b = fe_eval(F, env, n->b);
		return b ? fe_binop(F, n->op, left, b, n->loc) : NULL;
	}
	}
}

static bool on_spine(const py_node *n)
{
	return n->kind == PY_BINOP || n->kind == PY_ATTR || n->kind == PY_CALL ||
	       n->kind == PY_SUBSCRIPT;
}

/* The parser builds `a + a + ... + a` (and chains of attributes, calls and
 * subscripts) as a left-deep tree as long as the source line: evaluate its
 * left spine in a loop, bottom up, so that its length costs no stack. */
static fe_val *eval_spine(fe *F, fe_env *env, py_node *n)
{
	const char *hint = F->name_hint; /* names what the outermost call makes */
	F->name_hint = NULL;
	int len = 0;
	for (py_node *x = n; on_spine(x); x = x->a)
		len++;
	if (!fe_work(F, len, n->loc))
		return NULL;
	py_node *spine_here[16]; /* most spines are short: no allocation for each */
	py_node **spine = len <= 16 ? spine_here : fe_alloc(F, sizeof(py_node *) * (size_t)len);
	int i = len;
	for (py_node *x = n; on_spine(x); x = x->a)
		spine[--i] = x;
	fe_val *v = fe_eval(F, env, spine[0]->a);
	for (i = 0; v && i < len; i++) {
		F->at = spine[i]->loc;
		v = finish_spine_node(F, env, spine[i], v, i == len - 1 ? hint : NULL);
		F->name_hint = NULL;
	}
	return v;
}

static fe_val *eval_inner(fe *F, fe_env *env, py_node *n)
{
	switch (n->kind) {
	case PY_NAME: return eval_name(F, env, n);
	case PY_INT: return fe_int(F, n->ival);
	case PY_FLOAT: return fe_float(F, n->fval);
	case PY_STR: return n->is_fstring ? fe_eval_fstring(F, env, n) : fe_str(F, n->str ? n->str : "");
	case PY_NONE:
	case PY_ELLIPSIS: return F->none;
	case PY_TRUE: return F->vtrue;
	case PY_FALSE: return F->vfalse;
	case PY_ATTR:
	case PY_CALL:
	case PY_SUBSCRIPT:
	case PY_BINOP: return eval_spine(F, env, n);
	case PY_UNARYOP: {
		fe_val *a = fe_eval(F, env, n->a);
		return a ? fe_unaryop(F, n->op, a, n->loc) : NULL;
	}
	case PY_COMPARE: return eval_compare(F, env, n);
	case PY_BOOLOP: return eval_boolop(F, env, n);
	case PY_IFEXP: {
		fe_val *c = fe_eval(F, env, n->a);
		if (!c)
			return NULL;
		if (fe_is_symbolic(c)) {
			fe_val *t = fe_eval(F, env, n->b), *f = t ? fe_eval(F, env, n->c) : NULL;
			const tlc_expr *ce = f ? fe_to_scalar(F, c, n->a->loc) : NULL, *te, *ee;
			if (!ce || !fe_scalar_pair(F, TLC_EXPR_SELECT, t, f, n->loc, &te, &ee))
				return NULL;
			return fe_expr(F, tlc_select(F->m, ce, te, ee));
		}
		bool t;
		if (!fe_truthy(F, c, n->a->loc, &t))
			return NULL;
		return fe_eval(F, env, t ? n->b : n->c);
	}
	case PY_TUPLE: return eval_seq_literal(F, env, n, FV_TUPLE);
	case PY_LIST: return eval_seq_literal(F, env, n, FV_LIST);
	case PY_SET: {
		fe_val *items = eval_seq_literal(F, env, n, FV_LIST);
		return items ? fe_unique(F, items, n->loc) : NULL;
	}
	case PY_DICT: {
		fe_val *d = fe_dict(F);
		for (int i = 0; i < n->n2; i++) {
			if (!py_dict_key(n, i)) { /* {**mapping}: its entries, in order */
				fe_val *m = fe_eval(F, env, n->list[i]);
				if (!m)
					return NULL;
				if (m->kind != FV_DICT) {
					tlc_error(F->ctx, n->list[i]->loc, "'%s' object is not a mapping", fe_kind_name(m));
					return NULL;
				}
				if (!fe_work(F, m->u.dict.n, n->loc))
					return NULL;
				for (int j = 0; j < m->u.dict.n; j++)
					fe_dict_set(F, d, m->u.dict.keys[j], m->u.dict.vals[j]);
				continue;
			}
			fe_val *k = fe_eval(F, env, py_dict_key(n, i));
			fe_val *v = k ? fe_eval(F, env, n->list[i]) : NULL;
			if (!v)
				return NULL;
			fe_dict_set(F, d, k, v);
		}
		return d;
	}
	case PY_LAMBDA: return fe_make_function(F, env, n);
	case PY_COMP: return eval_comp(F, env, n);
	case PY_NAMEDEXPR: {
		fe_val *v = fe_eval(F, env, n->b);
		if (v && n->a->kind == PY_NAME)
			fe_env_set(F, env, n->a->str, v);
		return v;
	}
	case PY_STARRED:
		tlc_error(F->ctx, n->loc, "starred expression is not allowed here");
		return NULL;
	case PY_AWAIT:
		tlc_error(F->ctx, n->loc, "unsupported Python construct: await");
		return NULL;
	case PY_YIELD:
		tlc_error(F->ctx, n->loc, "unsupported Python construct: yield");
		return NULL;
	default:
		tlc_error(F->ctx, n->loc, "unsupported Python expression");
		return NULL;
	}
}

fe_val *fe_eval(fe *F, fe_env *env, py_node *n)
{
	if (!n) {
		tlc_error(F->ctx, FE_NOLOC, "internal: missing expression");
		return NULL;
	}
	if (!fe_enter(F, n->loc))
		return NULL;
	F->at = n->loc;
	fe_val *v = eval_inner(F, env, n);
	fe_leave(F);
	return v;
}
