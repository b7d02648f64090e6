/* frontend_intrinsics.c - TileLang's tilelang.intrinsics (the
 * TensorCoreIntrinEmitter of mma_macro_generator, bitblas.tl's before it, and
 * the layout helpers of mma_layout / utils).
 *
 * What they mean is written in Python, in py/tilelang_intrinsics.py
 * (embedded here by scripts/embed.sh), and run by this evaluator like a module
 * of the program: per-thread loads and stores with the PTX fragment indices,
 * and T.mma_sync for the instruction itself.  This file loads that module
 * once per compilation, makes a call of TensorCoreIntrinEmitter(...) an
 * object (FV_OBJECT: its attributes a dict the module's constructor made),
 * and sends `obj.method(...)` to the module's function
 * TensorCoreIntrinEmitter__method(obj, ...). */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

#include <tlc/target.h>


#define SOURCE_NAME "<tlc>/tilelang/intrinsics.py"

/* The module's globals, run on first use; NULL after a report. */
static fe_env *module_env(fe *F, tlc_loc loc)
{
	if (!F->intrinsics)
		F->intrinsics = fe_run_bundled(F, "tilelang_intrinsics", "tilelang.intrinsics",
					       SOURCE_NAME, "tilelang.intrinsics");
	return F->intrinsics;
}

static const char *last_part(const char *s)
{
	const char *dot = strrchr(s, '.');
	return dot ? dot + 1 : s;
}

/* A host value named from TileLang's intrinsics packages (bitblas.tl's
 * were their first home). */
static bool from_intrinsics(const char *path)
{
	return strncmp(path, "tilelang.intrinsics.", 20) == 0 || strncmp(path, "bitblas.tl.", 11) == 0 ||
	       strncmp(path, "bitblas.gpu.intrin.", 19) == 0;
}

/* Call the module's function `name` with `self` (or none) first. */
static fe_val *call_model(fe *F, const char *name, fe_val *self, int nargs, fe_val **args, int nkw,
			  const char **kwn, fe_val **kwv, tlc_loc loc)
{
	fe_env *env = module_env(F, loc);
	fe_val *fn = env ? fe_env_get_local(env, name) : NULL;
	if (!fn)
		return NULL;
	fe_val **all = args;
	if (self) {
		all = fe_alloc(F, sizeof(*all) * (size_t)(nargs + 1));
		all[0] = self;
		if (nargs)
			memcpy(all + 1, args, sizeof(*all) * (size_t)nargs);
		nargs++;
	}
	int errors = F->ctx->nerrors;
	fe_val *r = fe_call(F, fn, nargs, all, nkw, kwn, kwv, loc);
	if (!r || F->ctx->nerrors != errors) {
		tlc_note(F->ctx, loc, "in tlc's model of TileLang's %s, called here", name);
		F->user_raised = true; /* the program's use of TileLang's API: never host code */
	}
	return r;
}

/* The register buffers of method m (its first argument; mma's first three)
 * are per-thread T.alloc_local buffers: the model indexes them by register. */
static bool registers_ok(fe *F, const char *m, int nargs, fe_val **args, tlc_loc loc)
{
	int n = strcmp(m, "mma") == 0 ? 3 : 1;
	for (int i = 0; i < n && i < nargs; i++) {
		fe_val *v = args[i];
		if (v->kind == FV_BUF && v->u.buf->scope == TLC_SCOPE_LOCAL)
			continue;
		if (v->kind == FV_BUF)
			tlc_error(F->ctx, loc,
				  "TensorCoreIntrinEmitter.%s: '%s' is not a T.alloc_local buffer; the "
				  "emitter's registers must be T.alloc_local buffers in tlc (a "
				  "T.alloc_fragment's registers are placed by layout inference)",
				  m, v->u.buf->name);
		else
			tlc_error(F->ctx, loc,
				  "TensorCoreIntrinEmitter.%s: argument %d is a %s, not a T.alloc_local "
				  "buffer",
				  m, i + 1, fe_kind_name(v));
		F->user_raised = true;
		return false;
	}
	return true;
}

/* mma.sync on float8 operands needs sm_89: refused where the program makes
 * the emitter, not at the first mma of tlc's model. */
static bool float8_ok(fe *F, fe_val *attrs, const tlc_target_device *dev, tlc_loc loc)
{
	static const char *const keys[] = {"a_dtype", "b_dtype"};
	for (int k = 0; k < 2; k++) {
		int i = fe_dict_find(F, attrs, fe_str(F, keys[k]));
		tlc_dtype t;
		if (i < 0 || !fe_to_dtype(F, attrs->u.dict.vals[i], loc, &t))
			return false;
		bool f8 = tlc_dtype_bits(t) == 8 && tlc_dtype_is_float(t);
		if (f8 && dev->capability_major * 10 + dev->capability_minor < 89) {
			tlc_error(F->ctx, loc,
				  "TensorCoreIntrinEmitter with %s %s: mma.sync on float8 needs sm_89 or "
				  "later, and the target is %s; use --target=cuda-sm90",
				  keys[k], tlc_dtype_name(t), dev->arch);
			F->user_raised = true;
			return false;
		}
	}
	return true;
}

bool fe_intrinsics_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
			fe_val **kwv, tlc_loc loc, fe_val **out)
{
	if (fn->kind == FV_BOUND && fn->u.bound.self->kind == FV_OBJECT) {
		const char *m = fn->u.bound.name;
		char name[128];
		snprintf(name, sizeof name, "%s__%s", fn->u.bound.self->u.bound.name, m);
		bool regs = !strcmp(m, "ldmatrix_a") || !strcmp(m, "ldmatrix_b") || !strcmp(m, "mma") ||
			    !strcmp(m, "stmatrix");
		if (regs && !registers_ok(F, m, nargs, args, loc)) {
			*out = NULL;
			return true;
		}
		if (regs && !fe_need_kernel(F, name, true, loc)) {
			*out = NULL;
			return true;
		}
		if ((!strcmp(m, "ldmatrix_a") || !strcmp(m, "ldmatrix_b")) && nargs >= 2 &&
		    args[1]->kind == FV_EXPR && args[1]->u.e->kind == TLC_EXPR_REGION) {
			/* a part of a shared tile (TileLang's BufferRegion): the buffer,
			 * and where the part starts as `_base` */
			const tlc_expr *r = args[1]->u.e;
			fe_val **a2 = fe_alloc(F, sizeof(*a2) * (size_t)nargs);
			memcpy(a2, args, sizeof(*a2) * (size_t)nargs);
			a2[1] = fe_buf(F, (tlc_buffer *)r->u.region.buf);
			fe_val *base = fe_seq(F, FV_TUPLE, r->u.region.n);
			for (int d = 0; d < r->u.region.n; d++)
				base->u.seq.items[d] = fe_expr(F, r->u.region.dims[d].begin);
			const char **kn2 = fe_alloc(F, sizeof(*kn2) * (size_t)(nkw + 1));
			fe_val **kv2 = fe_alloc(F, sizeof(*kv2) * (size_t)(nkw + 1));
			if (nkw) {
				memcpy(kn2, kwn, sizeof(*kn2) * (size_t)nkw);
				memcpy(kv2, kwv, sizeof(*kv2) * (size_t)nkw);
			}
			kn2[nkw] = "_base";
			kv2[nkw] = base;
			*out = call_model(F, name, fn->u.bound.self, nargs, a2, nkw + 1, kn2, kv2, loc);
			return true;
		}
		*out = call_model(F, name, fn->u.bound.self, nargs, args, nkw, kwn, kwv, loc);
		return true;
	}
	if (fn->kind != FV_HOST || !from_intrinsics(fn->u.s))
		return false;
	const char *last = last_part(fn->u.s);
	size_t n = strlen(last);
	bool emitter = n > 7 && strcmp(last + n - 7, "Emitter") == 0;
	const tlc_target_device *dev = tlc_target_device_of(F->opts ? F->opts->target : NULL);
	if (emitter && dev && strcmp(dev->platform, "hip") == 0) {
		tlc_error(F->ctx, loc,
			  "'%s' is not supported on HIP target %s: it programs NVIDIA mma.sync "
			  "registers (TileLang's AMD emitter, MatrixCoreIntrinEmitter, is not "
			  "supported by tlc); write the product as T.gemm(A_shared, B_shared, C_local)",
			  last, dev->arch);
		F->user_raised = true;
		*out = NULL;
		return true;
	}
	/* the WGMMA and tcgen05 generators have classes of the same name */
	bool mma_module = strcmp(fn->u.s, "tilelang.intrinsics.TensorCoreIntrinEmitter") == 0 ||
			  strstr(fn->u.s, ".mma_macro_generator.") != NULL;
	if (emitter && (strcmp(last, "TensorCoreIntrinEmitter") != 0 || !mma_module)) {
		tlc_error(F->ctx, loc,
			  "'%s' is not supported: of TileLang's matrix-instruction emitters tlc "
			  "models mma_macro_generator's TensorCoreIntrinEmitter (mma.sync) only; write "
			  "the product with it or as T.gemm(A_shared, B_shared, C_local)",
			  fn->u.s);
		F->user_raised = true;
		*out = NULL;
		return true;
	}
	fe_env *env = module_env(F, loc);
	fe_val *model = env ? fe_env_get_local(env, last) : NULL;
	if (!env || !model || model->kind != FV_FUNC || last[0] == '_') {
		if (env) {
			tlc_error(F->ctx, loc,
				  "'%s' is not supported: tlc models TensorCoreIntrinEmitter, "
				  "get_swizzle_layout, make_mma_swizzle_layout and the mma store "
				  "index maps of TileLang's intrinsics",
				  fn->u.s);
			F->user_raised = true;
		}
		*out = NULL;
		return true;
	}
	fe_val *r = call_model(F, last, NULL, nargs, args, nkw, kwn, kwv, loc);
	if (r && emitter) {
		if (r->kind != FV_DICT) {
			tlc_internal_error(F->ctx, "frontend", "tlc's model of %s made no attributes", last);
			*out = NULL;
			return true;
		}
		if (dev && !float8_ok(F, r, dev, loc)) {
			*out = NULL;
			return true;
		}
		fe_val *o = fe_new(F, FV_OBJECT);
		o->u.bound.name = fe_strdup(F, last);
		o->u.bound.self = r;
		r = o;
	}
	*out = r;
	return true;
}

bool fe_intrinsics_getattr(fe *F, fe_val *v, const char *name, tlc_loc loc, fe_val **out)
{
	if (v->kind != FV_OBJECT)
		return false;
	fe_val *key = fe_str(F, name);
	int i = fe_dict_find(F, v->u.bound.self, key);
	if (i >= 0) {
		*out = v->u.bound.self->u.dict.vals[i];
		return true;
	}
	char fname[128];
	snprintf(fname, sizeof fname, "%s__%s", v->u.bound.name, name);
	fe_env *env = module_env(F, loc);
	fe_val *fn = env ? fe_env_get_local(env, fname) : NULL;
	if (!fn) {
		if (env)
			tlc_error(F->ctx, loc, "'%s' object has no attribute '%s' in tlc", v->u.bound.name,
				  name);
		*out = NULL;
		return true;
	}
	fe_val *b = fe_new(F, FV_BOUND);
	b->u.bound.name = fe_strdup(F, name);
	b->u.bound.self = v;
	*out = b;
	return true;
}
