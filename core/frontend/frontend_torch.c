/* frontend_torch.c - torch tensors at compile time, by shape and dtype.
 *
 * Kernel files are scripts: many make their inputs at module level
 * (`A = torch.randn(M, K, device="cuda", dtype=torch.float16)`) and take
 * kernel sizes from them (`M, K = A.shape`).  tlc cannot run torch, so the
 * tensor creators of torch (randn, rand, empty, zeros, ones, full, arange,
 * randint, *_like) make an object that has a shape, a dtype and a device
 * only; its methods that give or keep shapes (size(), numel(), .T, view(),
 * to(), half(), cuda(), ...) and elementwise arithmetic work on that.  What
 * they mean is written in Python, py/torch_tensor.py (embedded by
 * scripts/embed.sh), run by this evaluator like the intrinsics model
 * (frontend_intrinsics.c).  Whatever needs the values (an element, a
 * reduction, item(), a comparison) is an error at its use that says so; at
 * module level such a statement is host code and skipped
 * (frontend_script.c).  Under `python -m tlc run` the real torch runs. */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

#define SOURCE_NAME "<tlc>/torch_tensor.py"

/* what FV_OBJECT's mod says of a torch tensor (0: an intrinsics object) */
#define FE_OBJ_TORCH 1

static fe_env *module_env(fe *F)
{
	if (!F->torch_model)
		F->torch_model = fe_run_bundled(F, "torch_tensor", "torch_tensor", SOURCE_NAME,
						"torch tensors");
	return F->torch_model;
}

bool fe_is_torch_tensor(const fe_val *v)
{
	return v && v->kind == FV_OBJECT && v->mod == FE_OBJ_TORCH;
}

static fe_val *unwrap(fe_val *v)
{
	return fe_is_torch_tensor(v) ? v->u.bound.self : v;
}

/* Call the model's function `name`: tensors passed as their dicts, a dict
 * returned made a tensor.  The model runs with no kernel, as host code. */
static fe_val *call_model(fe *F, const char *name, fe_val *self, int nargs, fe_val **args, int nkw,
			  const char **kwn, fe_val **kwv, tlc_loc loc)
{
	fe_env *env = module_env(F);
	fe_val *fn = env ? fe_env_get_local(env, name) : NULL;
	if (!fn)
		return NULL;
	int n = nargs + (self != NULL);
	fe_val **all = fe_alloc(F, sizeof(*all) * (size_t)(n + 1));
	fe_val **kw = fe_alloc(F, sizeof(*kw) * (size_t)(nkw + 1));
	int k = 0;
	if (self)
		all[k++] = unwrap(self);
	for (int i = 0; i < nargs; i++)
		all[k++] = unwrap(args[i]);
	for (int i = 0; i < nkw; i++)
		kw[i] = unwrap(kwv[i]);
	fe_kernel *kernel = F->kernel;
	F->kernel = NULL;
	int errors = F->ctx->nerrors;
	fe_val *r = fe_call(F, fn, n, all, nkw, kwn, kw, loc);
	F->kernel = kernel;
	F->host_uses++; /* a statement that fails here is host code (frontend_script.c) */
	if (!r || F->ctx->nerrors != errors) {
		tlc_note(F->ctx, loc, "in tlc's model of torch tensors (shape and dtype only), called here");
		return NULL;
	}
	if (r->kind == FV_DICT) {
		fe_val *o = fe_new(F, FV_OBJECT);
		o->mod = FE_OBJ_TORCH;
		o->u.bound.name = "Tensor";
		o->u.bound.self = r;
		r = o;
	}
	return r;
}

static const char *const creators[] = {
	"randn", "rand", "empty", "zeros", "ones", "full", "arange", "randint",
	"empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "full_like",
};

static bool in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* an error at a use of a tensor's values; short, as a skipped statement's
 * note shows its first 200 characters (frontend_script.c) */
static void values_error(fe *F, const char *what, tlc_loc loc)
{
	tlc_error(F->ctx, loc,
		  "%s needs a torch tensor's values: tlc models torch tensors at compile time by shape and "
		  "dtype only (python -m tlc run has the values)",
		  what);
}

bool fe_torch_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		   fe_val **kwv, tlc_loc loc, fe_val **out)
{
	if (fn->kind == FV_BOUND && fe_is_torch_tensor(fn->u.bound.self)) {
		char name[128];
		snprintf(name, sizeof name, "Tensor__%s", fn->u.bound.name);
		*out = call_model(F, name, fn->u.bound.self, nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	/* in a kernel body torch stays a host module (fe_err_not_kernel) */
	if (fn->kind != FV_HOST || strncmp(fn->u.s, "torch.", 6) != 0 || (F->kernel && F->kernel->block))
		return false;
	const char *what = fn->u.s + 6;
	if (in_list(creators, TLC_ARRAY_LEN(creators), what)) {
		/* a *_like of an opaque value stays opaque */
		if (strstr(what, "_like") && (nargs < 1 || !fe_is_torch_tensor(args[0])))
			return false;
		*out = call_model(F, what, NULL, nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	if (!strcmp(what, "matmul") && nargs == 2 && fe_is_torch_tensor(args[0]) &&
	    fe_is_torch_tensor(args[1])) {
		*out = call_model(F, "matmul", NULL, nargs, args, 0, NULL, NULL, loc);
		return true;
	}
	return false;
}

/* the attributes that are properties (no call) */
static const char *const properties[] = {"T", "mT", "ndim"};

bool fe_torch_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out)
{
	if (!fe_is_torch_tensor(v))
		return false;
	F->host_uses++;
	if (!strcmp(name, "is_cuda")) {
		fe_val *dev = fe_dict_get(F, v->u.bound.self, fe_str(F, "device"));
		*out = fe_bool(F, dev && dev->kind == FV_STR && !strncmp(dev->u.s, "cuda", 4));
		return true;
	}
	fe_val *got = fe_dict_get(F, v->u.bound.self, fe_str(F, name));
	if (got) {
		*out = got;
		return true;
	}
	char fname[128];
	snprintf(fname, sizeof fname, "Tensor__%s", name);
	fe_env *env = module_env(F);
	fe_val *fn = env ? fe_env_get_local(env, fname) : NULL;
	if (!env) {
		*out = NULL;
		return true;
	}
	if (!fn) {
		char what[160];
		snprintf(what, sizeof what, "torch.Tensor.%s", name);
		values_error(F, what, loc);
		*out = NULL;
		return true;
	}
	if (in_list(properties, TLC_ARRAY_LEN(properties), name)) {
		*out = call_model(F, fname, v, 0, NULL, 0, NULL, NULL, loc);
		return true;
	}
	fe_val *b = fe_new(F, FV_BOUND);
	b->u.bound.name = fe_strdup(F, name);
	b->u.bound.self = v;
	*out = b;
	return true;
}

static const char *op_name(py_op op)
{
	switch (op) {
	case PY_OP_ADD: return "+";
	case PY_OP_SUB: return "-";
	case PY_OP_MUL: return "*";
	case PY_OP_DIV: return "/";
	case PY_OP_POW: return "**";
	case PY_OP_FLOORDIV: return "//";
	case PY_OP_MOD: return "%";
	default: return NULL;
	}
}

fe_val *fe_torch_binop(fe *F, py_op op, fe_val *a, fe_val *b, tlc_loc loc)
{
	if (op == PY_OP_MATMUL && fe_is_torch_tensor(a) && fe_is_torch_tensor(b)) {
		fe_val *args[2] = {a, b};
		return call_model(F, "matmul", NULL, 2, args, 0, NULL, NULL, loc);
	}
	const char *name = op_name(op);
	if (!name) {
		values_error(F, "this operator", loc);
		F->host_uses++;
		return NULL;
	}
	fe_val *args[3] = {fe_str(F, name), a, b};
	return call_model(F, "binop", NULL, 3, args, 0, NULL, NULL, loc);
}

void fe_torch_values_error(fe *F, const char *what, tlc_loc loc)
{
	F->host_uses++;
	values_error(F, what, loc);
}
