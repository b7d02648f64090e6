/* frontend_sparse.c - TileLang's 2:4 structured-sparse gemm: T.gemm_sp,
 * T.gemm_sp_v2 and tilelang.layout's metadata layouts.
 *
 * What they mean is written in Python, in py/tilelang_sparse.py (embedded
 * by scripts/embed.sh) and run by this evaluator like a module of the
 * program: the metadata layouts are T.Layout functions, and a sparse gemm
 * expands A's kept values into a dense shared tile by E's 2-bit column
 * indices, then multiplies with T.gemm.  This file loads that module once
 * per compilation and hands its functions out under TileLang's names. */
#include "frontend.h"

#include <stdio.h>
#include <string.h>

#include <tlc/target.h>

/* the module's name in the bundled table of frontend_import.c */
#define SPARSE_MODULE "tilelang.tlc_sparse"

static const char *const t_names[] = {"gemm_sp", "gemm_sp_v2"};
static const char *const layout_names[] = {"make_metadata_layout", "make_cutlass_metadata_layout"};

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

bool fe_sparse_has(int mod, const char *name)
{
	return mod == FM_LAYOUT ? listed(layout_names, TLC_ARRAY_LEN(layout_names), name)
	                        : listed(t_names, TLC_ARRAY_LEN(t_names), name);
}

/* The module, with the target's compute capability set for it. */
static fe_val *sparse_module(fe *F, tlc_loc loc)
{
	bool found;
	fe_val *mod = fe_bundled_module(F, SPARSE_MODULE, loc, &found);
	if (!mod) {
		if (!found)
			tlc_internal_error(F->ctx, "frontend",
					   "tlc's model of the sparse gemm is not built in");
		return NULL;
	}
	/* make_metadata_layout(arch=None) is the layout of the GPU the kernel
	 * is built for, as TileLang's is the one of the GPU it runs on */
	const tlc_target_device *dev = tlc_target_device_of(F->opts ? F->opts->target : NULL);
	if (dev && strcmp(dev->platform, "cuda") == 0 && dev->capability_major > 0) {
		char arch[32];
		snprintf(arch, sizeof arch, "%d.%d", dev->capability_major, dev->capability_minor);
		fe_env *env = fe_pymodule_env(F, mod);
		if (env)
			fe_env_set(F, env, "_TARGET_ARCH", fe_str(F, fe_strdup(F, arch)));
	}
	return mod;
}

fe_val *fe_sparse_attr(fe *F, int mod, const char *name, tlc_loc loc)
{
	(void)loc;
	char buf[96];
	snprintf(buf, sizeof buf, "%s.%s", mod == FM_LAYOUT ? "tilelang.layout" : "T", name);
	return fe_builtin(F, fe_strdup(F, buf));
}

bool fe_sparse_call(fe *F, fe_val *fn, int nargs, fe_val **args, int nkw, const char **kwn,
		    fe_val **kwv, tlc_loc loc, fe_val **out)
{
	if (fn->kind != FV_BUILTIN)
		return false;
	const char *name = NULL;
	if (!strncmp(fn->u.s, "T.", 2) && fe_sparse_has(FM_T, fn->u.s + 2))
		name = fn->u.s + 2;
	else if (!strncmp(fn->u.s, "tilelang.layout.", 16) &&
		 fe_sparse_has(FM_LAYOUT, fn->u.s + 16))
		name = fn->u.s + 16;
	if (!name)
		return false;
	*out = NULL;
	fe_val *mod = sparse_module(F, loc);
	fe_env *env = mod ? fe_pymodule_env(F, mod) : NULL;
	fe_val *model = env ? fe_env_get_local(env, name) : NULL;
	if (!model) {
		if (mod)
			tlc_internal_error(F->ctx, "frontend",
					   "tlc's model of the sparse gemm lacks %s", name);
		return true;
	}
	/* the statements a gemm puts into the kernel are the program's call:
	 * a pass's message about them (the accumulator's registers, say) points
	 * there, not into tlc's module */
	tlc_stmt *block = F->kernel ? F->kernel->block : NULL;
	int first = block && block->kind == TLC_STMT_SEQ ? block->u.seq.n : -1;
	int errors = F->ctx->nerrors;
	*out = fe_call(F, model, nargs, args, nkw, kwn, kwv, loc);
	if (first >= 0 && F->kernel && F->kernel->block == block)
		for (int i = first; i < block->u.seq.n; i++)
			block->u.seq.items[i]->loc = loc;
	if (!*out || F->ctx->nerrors != errors) {
		tlc_note(F->ctx, loc, "in tlc's model of TileLang's %s, called here", fn->u.s);
		F->user_raised = true; /* the program's use of TileLang's API: never host code */
	}
	return true;
}
