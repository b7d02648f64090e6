/* frontend.c - tlc_parse: run the module's Python at compile time, pick the
 * kernels (--entry, @T.prim_func defs, factories, eager @tilelang.jit) and
 * instantiate each into a tlc_func.  -D NAME=VALUE values override module
 * constants, entry-function parameters and T.const/T.dynamic sizes. */
#include "frontend.h"

#include <tlc/walk.h>

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- -D values ---- */

static fe_val *parse_define(fe *F, const char *name, const char *s)
{
	char *end;
	if (!strcmp(s, "True") || !strcmp(s, "False"))
		return fe_bool(F, s[0] == 'T');
	if (!strcmp(s, "None"))
		return F->none;
	errno = 0;
	long long i = strtoll(s, &end, 0);
	if (*s && !*end && errno == ERANGE) {
		/* strtoll clamps: a silently different size would be wrong code */
		tlc_error(F->ctx, (tlc_loc){0}, "-D %s=%.20s%s: the integer is out of the 64-bit range", name, s,
		          strlen(s) > 20 ? "..." : "");
		return fe_int(F, 1); /* compilation fails; 1 keeps later checks quiet */
	}
	if (*s && !*end)
		return fe_int(F, i);
	double d = strtod(s, &end);
	if (*s && !*end)
		return fe_float(F, d);
	size_t n = strlen(s);
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
		return fe_str(F, fe_strndup(F, s + 1, n - 2));
	return fe_str(F, s);
}

fe_val *fe_define(fe *F, const char *name)
{
	for (int i = 0; i < F->nsizes; i++)
		if (strcmp(F->size_names[i], name) == 0)
			return F->size_vals[i];
	if (!F->opts)
		return NULL;
	for (int i = F->opts->ndefines - 1; i >= 0; i--)
		if (F->opts->define_names[i] && strcmp(F->opts->define_names[i], name) == 0) {
			F->define_used[i] = true;
			return parse_define(F, name, F->opts->define_values[i] ? F->opts->define_values[i] : "");
		}
	return NULL;
}

/* ---- kernel instantiation ---- */

static bool in_params(fe_kernel *K, tlc_var *v)
{
	for (int i = 0; i < K->nparams; i++)
		if (K->params[i].var == v)
			return true;
	return false;
}

/* out_idx from T.func_attr or @tilelang.jit marks outputs (negative counts
 * from the end); the printer writes it back from the flags. */
static bool apply_out_idx(fe *F, fe_kernel *K, const tlc_expr *e, tlc_loc loc)
{
	int n = e->kind == TLC_EXPR_TUPLE ? e->u.tuple.n : 1;
	const tlc_expr *const *items = e->kind == TLC_EXPR_TUPLE ? e->u.tuple.items : &e;
	for (int i = 0; i < n; i++) {
		int64_t x;
		if (!tlc_expr_as_int(items[i], &x) || x < -K->nparams || x >= K->nparams) {
			tlc_error(F->ctx, loc, "out_idx entry '%s' is not a parameter index (kernel has %d)",
			          fe_show_expr(F, items[i]), K->nparams);
			return false;
		}
		K->params[x < 0 ? x + K->nparams : x].is_output = true;
	}
	return true;
}

static const char *const known_configs[] = {
	"tl.disable_warp_specialized", "tl.disable_tma_lower", "tl.enable_fast_math",
	"tl.disable_fast_math", "tl.disable_wgmma", "tl.disable_shared_memory_reuse",
	"tl.enable_aggressive_shared_memory_merge", "tl.disable_safe_memory_legalize",
	"tl.disable_vectorize_256", "tl.disable_thread_storage_sync",
};

static bool apply_configs(fe *F, fe_val *cfg, tlc_loc loc)
{
	if (cfg->kind != FV_DICT) {
		tlc_error(F->ctx, loc, "pass_configs must be a dict");
		return false;
	}
	for (int i = 0; i < cfg->u.dict.n; i++) {
		fe_val *k = cfg->u.dict.keys[i];
		if (k->kind != FV_STR) {
			tlc_error(F->ctx, loc, "pass_configs keys must be strings");
			return false;
		}
		bool known = false;
		for (size_t j = 0; j < TLC_ARRAY_LEN(known_configs) && !known; j++)
			known = strcmp(known_configs[j], k->u.s) == 0;
		if (!known) {
			tlc_warning(F->ctx, loc, "unknown pass config '%s' ignored", k->u.s);
			continue;
		}
		const tlc_expr *v = fe_to_expr(F, cfg->u.dict.vals[i], loc);
		if (!v)
			return false;
		fe_kernel_add_attr(F, k->u.s, v);
	}
	return true;
}

/* A prim_func of several T.Kernel frames: kernel i of them is NAME_k<i>,
 * with all the prim_func's parameters and attributes and ("tlc.launch_group":
 * (NAME, i, n)), which tells the host launcher and tlc-sim to run them in
 * order (tlc_func_launch_group). */
static void add_launch_group(fe *F, fe_kernel *K, int na)
{
	const char *name = K->parts[0]->name;
	for (int i = 0; i < K->nparts; i++) {
		tlc_func *p = K->parts[i];
		char buf[256];
		snprintf(buf, sizeof buf, "%s_k%d", name, i);
		p->name = tlc_intern(F->m, buf);
		/* an array of its own: a pass may replace f's parameters in place */
		p->nparams = K->nparams;
		p->params = tlc_alloc(F->m, sizeof(tlc_param) * (size_t)(K->nparams + 1));
		memcpy(p->params, K->params, sizeof(tlc_param) * (size_t)K->nparams);
		fe_own_param_buffers(F, p);
		p->nattrs = na + 1;
		p->attr_keys = tlc_alloc(F->m, sizeof(char *) * (size_t)(na + 1));
		p->attr_values = tlc_alloc(F->m, sizeof(tlc_expr *) * (size_t)(na + 1));
		for (int a = 0; a < na; a++) {
			p->attr_keys[a] = K->attr_keys[a];
			p->attr_values[a] = K->attr_values[a];
		}
		const tlc_expr *g[3] = {tlc_str(F->m, name), tlc_i32(F->m, i), tlc_i32(F->m, K->nparts)};
		p->attr_keys[na] = tlc_intern(F->m, "tlc.launch_group");
		p->attr_values[na] = tlc_tuple(F->m, 3, g, false);
		tlc_module_add_func(F->m, p);
	}
}

typedef struct var_use {
	const tlc_var *v;
	bool used;
} var_use;

static tlc_walk_action find_var(void *p, const tlc_expr *e)
{
	var_use *u = p;
	if (e->kind == TLC_EXPR_VAR && e->u.var == u->v) {
		u->used = true;
		return TLC_WALK_STOP;
	}
	return TLC_WALK_CONTINUE;
}

/* True when kernel K mentions v: in a tensor shape, a launch extent or its body. */
static bool kernel_uses(const fe_kernel *K, const tlc_var *v)
{
	var_use u = {v, false};
	tlc_visitor vis = {.ctx = &u, .expr_pre = find_var};
	for (int i = 0; i < K->nparams && !u.used; i++)
		for (int d = 0; K->params[i].buf && d < K->params[i].buf->ndim && !u.used; d++)
			tlc_walk_expr(&vis, K->params[i].buf->shape[d]);
	for (int p = 0; p < (K->nparts ? K->nparts : 1) && !u.used; p++) {
		const tlc_func *f = K->nparts ? K->parts[p] : K->func;
		for (int d = 0; d < 3 && !u.used; d++) {
			tlc_walk_expr(&vis, f->grid[d]);
			tlc_walk_expr(&vis, f->threads[d]);
		}
		tlc_walk_stmt(&vis, f->body);
	}
	return u.used;
}

/* Move the finished kernel into the module. */
static bool finish_kernel(fe *F, fe_kernel *K, fe_val *out_idx, fe_val *configs, tlc_loc loc)
{
	tlc_func *f = K->func;
	if (!K->has_frame) {
		tlc_error(F->ctx, loc, "kernel '%s' has no 'with T.Kernel(...)' frame", f->name);
		return false;
	}
	/* in_params scans: T.dynamic of thousands of names is quadratic work */
	if (!fe_work(F, (int64_t)(F->ndyn - K->first_dyn) * K->nparams, loc))
		return false;
	for (int i = K->first_dyn; i < F->ndyn; i++)
		if (!in_params(K, F->dyn[i]))
			fe_kernel_add_param(F, (tlc_param){.kind = TLC_PARAM_SCALAR, .var = F->dyn[i]});
	for (int i = 0; i < F->nouter_dyn; i++)
		if (!in_params(K, F->outer_dyn[i]) && kernel_uses(K, F->outer_dyn[i]))
			fe_kernel_add_param(F, (tlc_param){.kind = TLC_PARAM_SCALAR, .var = F->outer_dyn[i]});
	if (out_idx) {
		const tlc_expr *e = fe_to_expr(F, out_idx, loc);
		if (!e || !apply_out_idx(F, K, e, loc))
			return false;
	}
	if (configs && !apply_configs(F, configs, loc))
		return false;
	if (K->nscratch) { /* T.alloc_global's parameters (the header marks them) */
		const tlc_expr *idx[16];
		for (int i = 0; i < K->nscratch; i++)
			idx[i] = tlc_i32(F->m, K->scratch[i]);
		fe_kernel_add_attr(F, "tlc.scratch", tlc_tuple(F->m, K->nscratch, idx, true));
	}
	/* an out_idx attribute (printed IR) only sets the flags */
	int na = 0;
	for (int i = 0; i < K->nattrs; i++) {
		if (strcmp(K->attr_keys[i], "out_idx") == 0) {
			if (!apply_out_idx(F, K, K->attr_values[i], loc))
				return false;
			continue;
		}
		K->attr_keys[na] = K->attr_keys[i];
		K->attr_values[na++] = K->attr_values[i];
	}
	if (K->nparts > 1) {
		add_launch_group(F, K, na);
		return true;
	}
	f->nparams = K->nparams;
	f->params = K->params;
	f->nattrs = na;
	f->attr_keys = K->attr_keys;
	f->attr_values = K->attr_values;
	tlc_module_add_func(F->m, f);
	return true;
}

static bool is_scalar_annotation(py_node *a)
{
	return a && (a->kind == PY_ATTR || a->kind == PY_NAME || a->kind == PY_STR);
}

/* Instantiate a @T.prim_func: parameters from annotations, then the body. */
static bool instantiate(fe *F, fe_val *pf, const char *name, int first_dyn)
{
	py_node *def = pf->u.pf.def;
	fe_kernel K = {.func = tlc_func_new(F->m, name, def->loc), .first_dyn = first_dyn};
	fe_kernel *saved = F->kernel;
	F->kernel = &K;
	fe_env *env = fe_env_new(F, pf->u.pf.env);
	bool ok = true;
	tlc_param *ps = fe_alloc(F, sizeof(tlc_param) * (size_t)(def->nparams + 1));
	/* scalars first: tensor shapes may name them (A: T.Tensor((n,), ...), n: T.int32) */
	for (int pass = 0; pass < 2 && ok; pass++)
		for (int i = 0; i < def->nparams && ok; i++) {
			py_param *p = &def->params[i];
			if (is_scalar_annotation(p->annotation) != (pass == 0))
				continue;
			if (!p->annotation || p->star) {
				tlc_error(F->ctx, def->loc, "parameter '%s' of T.prim_func '%s' needs a "
				          "T.Tensor or dtype annotation", p->name, def->str);
				ok = false;
				break;
			}
			fe_val *a = fe_eval(F, env, p->annotation);
			if (!a) {
				ok = false;
			} else if (a->kind == FV_TENSORTYPE) {
				tlc_buffer *b = fe_make_tensor(F, p->name, a, p->annotation->loc);
				ps[i] = (tlc_param){.kind = TLC_PARAM_TENSOR, .buf = b};
				ok = b != NULL;
				if (ok)
					fe_env_set(F, env, p->name, fe_buf(F, b));
			} else if (a->kind == FV_DTYPE || a->kind == FV_STR ||
			           (a->kind == FV_BUILTIN &&
			            (!strcmp(a->u.s, "T.ptr") || !strcmp(a->u.s, "T.handle")))) {
				/* p: T.ptr is a pointer parameter: a 64-bit address */
				tlc_dtype t;
				ok = fe_to_dtype(F, a, p->annotation->loc, &t);
				if (ok && !tlc_dtype_is_int(t)) {
					tlc_error(F->ctx, p->annotation->loc, "scalar parameter '%s' must have an "
					          "integer dtype, got %s", p->name, tlc_dtype_name(t));
					ok = false;
				}
				if (ok) {
					tlc_var *v = tlc_var_new(F->m, p->name, t);
					ps[i] = (tlc_param){.kind = TLC_PARAM_SCALAR, .var = v};
					fe_env_set(F, env, p->name, fe_expr(F, tlc_var_ref(F->m, v)));
				}
			} else {
				tlc_error(F->ctx, p->annotation->loc, "parameter '%s' needs a T.Tensor or dtype "
				          "annotation, got %s", p->name, fe_kind_name(a));
				ok = false;
			}
		}
	for (int i = 0; ok && i < def->nparams; i++)
		fe_kernel_add_param(F, ps[i]);
	if (ok) {
		fe_frame frame = {.caller = F->frame, .name = def->str, .kernel_mode = true};
		F->frame = &frame;
		fe_flow fl = fe_exec_block(F, env, FE_BODY_OF(def));
		F->frame = frame.caller;
		ok = fl == FL_NORMAL || fl == FL_RETURN;
	}
	if (ok)
		ok = finish_kernel(F, &K, pf->u.pf.out_idx, pf->u.pf.configs, def->loc);
	F->kernel = saved;
	return ok;
}

/* The configs of an @autotune entry: its `configs` list, or what the
 * function given as configs returns (called with the entry's arguments
 * when it takes parameters).  NULL (reported) when that is no list of
 * dicts. */
static fe_val *autotune_configs(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
                                fe_val **kwv, tlc_loc loc)
{
	fe_val *c = fn->u.fn.autotune;
	if (c->kind == FV_FUNC) {
		bool takes = c->u.fn.def->nparams > 0;
		c = fe_call(F, c, takes ? nargs : 0, args, takes ? nkw : 0, kwn, kwv, loc);
		if (!c)
			return NULL;
	} else if (c->kind == FV_BUILTIN || c->kind == FV_BOUND) {
		c = fe_call(F, c, 0, NULL, 0, NULL, NULL, loc);
		if (!c)
			return NULL;
	}
	fe_val *list = c->kind == FV_DICT ? NULL : fe_iterate(F, c, loc);
	for (int i = 0; list && i < list->u.seq.n; i++)
		if (list->u.seq.items[i]->kind != FV_DICT)
			list = NULL;
	if (!list)
		tlc_error(F->ctx, loc, "@autotune: configs must be a list of dicts (or a function returning one), "
		          "not %s", fe_kind_name(c));
	return list;
}

/* Fill the parameters the entry call leaves open (not positional, not a
 * keyword, not -D: kn/kv so far) from config `index` of an @autotune
 * entry; every key must be a parameter. */
static bool apply_config(fe *F, fe_val *configs, int index, py_node *def, int nargs, const char **kn, fe_val **kv,
                         int *nk, fe_val **pass_configs, tlc_loc loc)
{
	if (index < 0 || index >= configs->u.seq.n) {
		tlc_error(F->ctx, loc, "--config-index=%d: the @autotune configs are numbered 0 to %d "
		          "(tlc --list-configs lists them)", index, configs->u.seq.n - 1);
		return false;
	}
	fe_val *cfg = configs->u.seq.items[index];
	for (int j = 0; j < cfg->u.dict.n; j++) {
		fe_val *key = cfg->u.dict.keys[j];
		int pi = -1;
		for (int i = 0; key->kind == FV_STR && i < def->nparams; i++)
			if (!def->params[i].star && strcmp(def->params[i].name, key->u.s) == 0)
				pi = i;
		if (pi < 0 && key->kind == FV_STR && strcmp(key->u.s, "pass_configs") == 0) {
			/* TileLang's autotuner compiles the config with these pass configs */
			*pass_configs = cfg->u.dict.vals[j];
			continue;
		}
		if (pi < 0) {
			tlc_error(F->ctx, loc, "@autotune config %d sets %s%s%s, which is not a parameter of '%s'", index,
			          key->kind == FV_STR ? "'" : "", fe_show(F, key), key->kind == FV_STR ? "'" : "", def->str);
			return false;
		}
		bool given = pi < nargs;
		for (int k = 0; k < *nk && !given; k++)
			given = strcmp(kn[k], key->u.s) == 0;
		if (!given) {
			kn[*nk] = key->u.s;
			kv[(*nk)++] = cfg->u.dict.vals[j];
		}
	}
	return true;
}

/* The decorator's pass_configs with an @autotune config's own on top
 * (either may be NULL); NULL after an error. */
static fe_val *merged_configs(fe *F, fe_val *jit, fe_val *config, tlc_loc loc)
{
	if (!config)
		return jit;
	fe_val *both[2] = {jit, config};
	fe_val *d = fe_dict(F);
	for (int k = 0; k < 2; k++) {
		if (!both[k])
			continue;
		if (both[k]->kind != FV_DICT) {
			tlc_error(F->ctx, loc, "pass_configs must be a dict, not %s", fe_kind_name(both[k]));
			return NULL;
		}
		for (int i = 0; i < both[k]->u.dict.n; i++)
			fe_dict_set(F, d, both[k]->u.dict.keys[i], both[k]->u.dict.vals[i]);
	}
	return d;
}

/* A call of an @autotune function that is not the entry: a factory calls
 * its tuned kernel, often with no arguments (`return kernel()`), and
 * TileLang tunes there and builds the best config.  As for the entry, the
 * parameters the call leaves open take config --config-index (0 by
 * default; the Python package's tuner builds each); a call that gives them
 * all is built as it is, as TileLang does.  *kwn / *kwv grow; *pass_configs
 * is the jit's and the config's. */
bool fe_autotune_call_args(fe *F, fe_val *fn, int nargs, fe_val **args, int *nkw, const char ***kwn,
                           fe_val ***kwv, fe_val **pass_configs, tlc_loc loc)
{
	py_node *def = fn->u.fn.def;
	*pass_configs = fn->u.fn.jit_configs;
	if (!fn->u.fn.autotune || fn->u.fn.autotune->kind == FV_HOST || def->kind != PY_DEF)
		return true;
	fe_val *configs = autotune_configs(F, fn, nargs, args, *nkw, *kwn, *kwv, loc);
	if (!configs)
		return false;
	const char **kn = fe_alloc(F, sizeof(char *) * (size_t)(*nkw + def->nparams + 1));
	fe_val **kv = fe_alloc(F, sizeof(fe_val *) * (size_t)(*nkw + def->nparams + 1));
	if (*nkw) {
		memcpy(kn, *kwn, sizeof(char *) * (size_t)*nkw);
		memcpy(kv, *kwv, sizeof(fe_val *) * (size_t)*nkw);
	}
	fe_val *config_passes = NULL;
	if (!apply_config(F, configs, F->opts ? F->opts->config_index : 0, def, nargs, kn, kv, nkw,
	                  &config_passes, loc))
		return false;
	*kwn = kn;
	*kwv = kv;
	*pass_configs = merged_configs(F, fn->u.fn.jit_configs, config_passes, loc);
	return !config_passes || *pass_configs;
}

/* --list-configs: "N: {...}" a line. */
static void list_configs(fe *F, fe_val *configs, tlc_buf *out)
{
	for (int i = 0; i < configs->u.seq.n; i++)
		tlc_buf_printf(out, "%d: %s\n", i, fe_show(F, configs->u.seq.items[i]));
}

/* Call a factory or eager jit function as the entry; instantiate what it
 * returns, or the eager kernel its body built. */
static bool run_entry(fe *F, fe_val *fn, const char *name, int nargs, fe_val **args, int nkw,
                      const char **kwn, fe_val **kwv, tlc_loc loc)
{
	fe_val *config_passes = NULL; /* an @autotune config's pass_configs */
	py_node *def = fn->u.fn.def;
	/* -D NAME=V gives parameters not passed explicitly */
	const char **kn = fe_alloc(F, sizeof(char *) * (size_t)(nkw + def->nparams + 1));
	fe_val **kv = fe_alloc(F, sizeof(fe_val *) * (size_t)(nkw + def->nparams + 1));
	int nk = 0;
	for (int k = 0; k < nkw; k++) {
		kn[nk] = kwn[k];
		kv[nk++] = kwv[k];
	}
	for (int i = nargs; i < def->nparams; i++) {
		py_param *p = &def->params[i];
		bool given = false;
		for (int k = 0; k < nkw; k++)
			given |= strcmp(kwn[k], p->name) == 0;
		fe_val *d = p->star || given ? NULL : fe_define(F, p->name);
		if (d) {
			kn[nk] = p->name;
			kv[nk++] = d;
		}
	}
	if (F->opts && F->opts->list_configs && !fn->u.fn.autotune) {
		tlc_error(F->ctx, loc, "--list-configs: '%s' has no @autotune(configs=...)", name);
		return false;
	}
	if (fn->u.fn.autotune && fn->u.fn.autotune->kind == FV_HOST) {
		/* configs made by host code tlc cannot run (fe_eval_decorator) */
		if (F->opts && F->opts->list_configs) {
			tlc_error(F->ctx, loc,
			          "--list-configs: the @autotune configs of '%s' run host code (%s)",
			          name, fn->u.fn.autotune->u.s);
			return false;
		}
		tlc_warning(F->ctx, loc,
		            "the @autotune configs of '%s' were not computed, since they run "
		            "host code (%s): the entry's arguments and the defaults are used",
		            name, fn->u.fn.autotune->u.s);
	} else if (fn->u.fn.autotune) {
		fe_val *configs = autotune_configs(F, fn, nargs, args, nkw, kwn, kwv, loc);
		if (!configs)
			return false;
		if (F->opts && F->opts->list_configs) {
			list_configs(F, configs, F->opts->list_configs);
			return true;
		}
		/* room for one keyword per parameter more */
		const char **kn2 = fe_alloc(F, sizeof(char *) * (size_t)(nk + def->nparams + 1));
		fe_val **kv2 = fe_alloc(F, sizeof(fe_val *) * (size_t)(nk + def->nparams + 1));
		memcpy(kn2, kn, sizeof(char *) * (size_t)nk);
		memcpy(kv2, kv, sizeof(fe_val *) * (size_t)nk);
		kn = kn2;
		kv = kv2;
		if (!apply_config(F, configs, F->opts ? F->opts->config_index : 0, def, nargs, kn, kv, &nk,
		                  &config_passes, loc))
			return false;
	}
	fe_val *pass_configs = merged_configs(F, fn->u.fn.jit_configs, config_passes, loc);
	if (config_passes && !pass_configs)
		return false;
	int first_dyn = F->ndyn;
	fe_kernel K = {.func = tlc_func_new(F->m, name, def->loc), .eager = true, .first_dyn = first_dyn};
	fe_kernel *saved = F->kernel;
	F->kernel = &K;
	F->entry_missing_ok = true;
	fe_val *r = fe_call_function(F, fn, nargs, args, nk, kn, kv, loc);
	F->entry_missing_ok = false;
	F->kernel = saved;
	if (!r)
		return false;
	if (K.has_frame) {
		F->kernel = &K;
		bool ok = finish_kernel(F, &K, fn->u.fn.jit_out_idx, pass_configs, def->loc);
		F->kernel = saved;
		return ok;
	}
	if (r->kind == FV_PRIMFUNC) {
		fe_val *pf = r;
		if (fn->u.fn.flags & FF_JIT) {
			pf = fe_new(F, FV_PRIMFUNC);
			*pf = *r;
			pf->u.pf.out_idx = fn->u.fn.jit_out_idx;
			pf->u.pf.configs = pass_configs;
		}
		return instantiate(F, pf, name, first_dyn);
	}
	tlc_error(F->ctx, loc, "'%s' neither returns a T.prim_func nor builds a T.Kernel (returned %s)",
	          name, fe_kind_name(r));
	return false;
}

/* ---- kernel selection ---- */

static bool select_without_entry(fe *F)
{
	fe_env *g = F->globals;
	int found = 0;
	/* 1. module-level @T.prim_func defs (printed IR), in source order */
	for (int i = 0; i < g->n; i++) {
		fe_val *v = g->vals[i];
		if (v->kind == FV_PRIMFUNC && !v->u.pf.factory && strcmp(g->names[i], v->u.pf.def->str) == 0) {
			if (!instantiate(F, v, v->u.pf.def->str, F->ndyn))
				return false;
			found++;
		}
	}
	if (found)
		return true;
	/* 2. module-level names bound to prim_funcs (kernel = matmul(...)); one
	 * kernel bound twice (func = matmul(...); kernel = tilelang.compile(func,
	 * out_idx=...)) is built once, from its last binding */
	for (int i = 0; i < g->n; i++) {
		fe_val *v = g->vals[i];
		bool again = false;
		for (int j = i + 1; v->kind == FV_PRIMFUNC && j < g->n && !again; j++)
			again = g->vals[j]->kind == FV_PRIMFUNC && g->vals[j]->u.pf.def == v->u.pf.def &&
			        g->vals[j]->u.pf.env == v->u.pf.env;
		if (v->kind == FV_PRIMFUNC && !again) {
			const char *name = v->u.pf.factory ? v->u.pf.factory : v->u.pf.def->str;
			if (!instantiate(F, v, name, F->ndyn))
				return false;
			found++;
		}
	}
	if (found)
		return true;
	/* 3. the one factory / jit function, called with its defaults */
	fe_val *cand = NULL;
	const char *cname = NULL;
	tlc_buf names;
	tlc_buf_init(&names);
	int ncand = 0;
	for (int i = 0; i < g->n; i++) {
		fe_val *v = g->vals[i];
		if (v->kind != FV_FUNC || v->u.fn.def->kind != PY_DEF || v->u.fn.env != g)
			continue;
		/* holds_kernel: a @T.prim_func def or a T.Kernel frame, found while reading */
		if (!(v->u.fn.flags & FF_JIT) && !v->u.fn.def->holds_kernel)
			continue;
		tlc_buf_printf(&names, "%s'%s'", ncand ? ", " : "", g->names[i]);
		cand = v;
		cname = g->names[i];
		ncand++;
	}
	tlc_loc loc = {F->file, 1, 1};
	if (ncand > 1) {
		tlc_error(F->ctx, loc, "several kernels in file (%s): pick one with --entry '%s(...)'",
		          tlc_buf_str(&names), cname);
		tlc_buf_free(&names);
		return false;
	}
	tlc_buf_free(&names);
	if (ncand == 0) {
		tlc_error(F->ctx, loc, "no kernel found in file: expected a @T.prim_func, a function "
		                       "returning one, or a @tilelang.jit kernel");
		return false;
	}
	return run_entry(F, cand, cname, 0, NULL, 0, NULL, NULL, cand->u.fn.def->loc);
}

static bool entry_call(fe *F, fe_val *fn, const char *name, py_node *e, tlc_loc loc);

static bool select_entry(fe *F, const char *entry)
{
	uint32_t efile = tlc_add_source(F->ctx, "<entry>", entry, strlen(entry));
	tlc_loc eloc = {efile, 1, 1};
	py_node *m = py_parse(F->ctx, F->arena, efile, entry, strlen(entry));
	if (!m)
		return false;
	py_node *e = m->nbody == 1 && m->body[0]->kind == PY_EXPR_STMT ? m->body[0]->a : NULL;
	py_node *callee = e && e->kind == PY_CALL ? e->a : e;
	if (callee && callee->kind == PY_CALL && e->kind == PY_CALL) {
		/* a call on a call, make_kernel(...)(args): the inner call, run in
		 * the module, makes the kernel function the outer one calls */
		fe_val *made = fe_eval(F, F->globals, callee);
		if (!made)
			return false;
		if (made->kind != FV_FUNC || !made->u.fn.def->str) {
			tlc_error(F->ctx, callee->loc, "--entry: the call returns %s, not a kernel function to call",
			          fe_kind_name(made));
			return false;
		}
		return entry_call(F, made, made->u.fn.def->str, e, callee->loc);
	}
	if (!callee || callee->kind != PY_NAME) {
		tlc_error(F->ctx, eloc, "bad --entry text: expected NAME, NAME(args...) or a call on a call "
		                        "(make(...)(args...)), e.g. --entry 'matmul(1024, 1024, 1024)'");
		return false;
	}
	fe_val *fn = fe_env_get_local(F->globals, callee->str);
	if (!fn || (fn->kind != FV_FUNC && fn->kind != FV_PRIMFUNC)) {
		tlc_suggestion sg;
		tlc_suggest_init(&sg, callee->str);
		for (int i = 0; i < F->globals->n; i++)
			if (F->globals->vals[i]->kind == FV_FUNC || F->globals->vals[i]->kind == FV_PRIMFUNC)
				tlc_suggest_add(&sg, F->globals->names[i]);
		char hint[160];
		tlc_error(F->ctx, callee->loc, "--entry: no kernel function '%s' in the file%s", callee->str,
		          tlc_suggest_text(&sg, hint, sizeof hint));
		return false;
	}
	if (fn->kind == FV_PRIMFUNC) {
		if (e->kind == PY_CALL) {
			tlc_error(F->ctx, e->loc, "--entry: '%s' is a T.prim_func and takes no arguments",
			          callee->str);
			return false;
		}
		return instantiate(F, fn, fn->u.pf.factory ? fn->u.pf.factory : callee->str, F->ndyn);
	}
	return entry_call(F, fn, callee->str, e, callee->loc);
}

/* Run kernel function fn (named `name`) as the entry with the arguments of
 * call e (or none when e is a bare name). */
static bool entry_call(fe *F, fe_val *fn, const char *name, py_node *e, tlc_loc loc)
{
	int nargs = 0, nkw = 0;
	fe_val **args = NULL, **kwv = NULL;
	const char **kwn = NULL;
	if (e->kind == PY_CALL) {
		args = fe_alloc(F, sizeof(fe_val *) * (size_t)(e->n + 1));
		kwv = fe_alloc(F, sizeof(fe_val *) * (size_t)(e->n2 + 1));
		kwn = fe_alloc(F, sizeof(char *) * (size_t)(e->n2 + 1));
		F->size_names = fe_alloc(F, sizeof(char *) * (size_t)(e->n2 + 1));
		F->size_vals = fe_alloc(F, sizeof(fe_val *) * (size_t)(e->n2 + 1));
		for (int i = 0; i < e->n; i++)
			if (e->list[i]->kind == PY_STARRED || !(args[nargs++] = fe_eval(F, F->globals, e->list[i])))
				return e->list[i]->kind == PY_STARRED
				           ? (tlc_error(F->ctx, e->list[i]->loc, "--entry: * arguments are not supported"), false)
				           : false;
		for (int i = 0; i < e->n2; i++) {
			if (!e->kw_names[i]) {
				tlc_error(F->ctx, e->kw_values[i]->loc, "--entry: ** arguments are not supported");
				return false;
			}
			fe_val *v = fe_eval(F, F->globals, e->kw_values[i]);
			if (!v)
				return false;
			/* keywords that are not parameters name T.const sizes (eager style) */
			bool is_param = false;
			for (int p = 0; p < fn->u.fn.def->nparams; p++)
				is_param |= strcmp(fn->u.fn.def->params[p].name, e->kw_names[i]) == 0;
			if (!is_param && !(fn->u.fn.flags & FF_JIT)) {
				tlc_error(F->ctx, e->kw_values[i]->loc, "--entry: %s() has no parameter '%s'",
				          name, e->kw_names[i]);
				return false;
			}
			if (!is_param) { /* a T.const size of an eager kernel */
				F->size_names[F->nsizes] = e->kw_names[i];
				F->size_vals[F->nsizes++] = v;
				continue;
			}
			kwn[nkw] = e->kw_names[i];
			kwv[nkw++] = v;
		}
	}
	return run_entry(F, fn, name, nargs, args, nkw, kwn, kwv, loc);
}

/* Module statements, read and run one at a time: the tree of a statement
 * that left no def or lambda behind is given back once it has run (host code
 * under `if __name__ == "__main__":` costs no memory).  A module-level
 * `NAME = ...` with a -D NAME takes the -D value instead. */
static bool run_module(fe *F)
{
	py_reader *r = py_reader_new(&F->src, F->arena);
	py_pool *pool = py_pool_new();
	F->tree_pool = pool;
	bool ok = true;
	for (;;) {
		py_pool_mark m = py_pool_mark_now(pool);
		py_node **stmts;
		bool retains;
		int n = py_reader_next(r, pool, &stmts, &retains);
		if (n <= 0) {
			ok = n == 0;
			break;
		}
		F->tree_kept = retains;
		for (int i = 0; ok && i < n; i++) {
			py_node *s = stmts[i];
			fe_val *d = s->kind == PY_ASSIGN && s->n == 1 && s->list[0]->kind == PY_NAME
			                    ? fe_define(F, s->list[0]->str) : NULL;
			if (d)
				fe_env_set(F, F->globals, s->list[0]->str, d);
			else
				ok = fe_exec_toplevel(F, F->globals, s) == FL_NORMAL;
		}
		if (!ok)
			break;
		if (!F->tree_kept)
			py_pool_release(pool, m);
	}
	py_reader_free(r);
	return ok; /* the pool keeps the defs: freed with the module's values */
}

tlc_module *tlc_parse(tlc_context *ctx, const char *filename, const char *text, size_t len,
                      const tlc_frontend_opts *opts)
{
	int errors0 = tlc_error_count(ctx);
	fe F = {.ctx = ctx, .opts = opts};
	F.errors0 = errors0;
	fe_limits_init(&F);
	F.arena = tlc_arena_new();
	F.file = tlc_add_source(ctx, filename ? filename : "<input>", text ? text : "", text ? len : 0);
	py_source_init(&F.src, ctx, F.arena, F.file, text, text ? len : 0);
	F.m = tlc_module_new(ctx);
	F.none = fe_new(&F, FV_NONE);
	F.vtrue = fe_new(&F, FV_BOOL);
	F.vtrue->u.b = true;
	F.vfalse = fe_new(&F, FV_BOOL);
	int nd = opts ? opts->ndefines : 0;
	F.define_used = tlc_arena_alloc(F.arena, sizeof(bool) * (size_t)(nd + 1));
	fe_frame top = {.name = NULL};
	F.frame = &top;
	F.globals = fe_env_new(&F, NULL);
	fe_env_set(&F, F.globals, "__name__", fe_str(&F, "__tlc__"));
	fe_env_set(&F, F.globals, "__file__", fe_str(&F, filename ? filename : "<input>"));
	bool ok = false;
	/* syntax errors anywhere come first, as in Python */
	if (py_check(&F.src) && run_module(&F)) {
		if (opts && opts->entry && *opts->entry)
			ok = select_entry(&F, opts->entry);
		else
			ok = select_without_entry(&F);
	}
	for (int i = 0; ok && i < nd; i++)
		if (!F.define_used[i])
			tlc_warning(ctx, FE_NOLOC, "-D %s was not used", opts->define_names[i]);
	ok = ok && tlc_error_count(ctx) == errors0;
	if (ok)
		tlc_widen_parallel_fragments(ctx, F.m);
	if (!ok && F.nskips)
		fe_skip_notes(&F);
	py_pool_free(F.tree_pool);
	fe_limits_free(&F);
	py_source_fini(&F.src);
	tlc_arena_free(F.arena);
	if (!ok) {
		if (tlc_error_count(ctx) == errors0)
			tlc_error(ctx, fe_file_loc(F.file), "could not read the kernel");
		tlc_module_free(F.m);
		return NULL;
	}
	return F.m;
}
