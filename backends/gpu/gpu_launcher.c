/* gpu_launcher.c - the host side of a GPU source: extern "C" launchers and
 * the C header that declares them.
 *
 * Per kernel the source gets
 *     extern "C" const char *NAME_error_string(int err);
 *     extern "C" int NAME(<tensor pointers>, <runtime sizes>, void *stream);
 * The launcher raises the kernel's dynamic shared-memory limit once per
 * device when it needs more than the description's smem_default, checks the
 * grid against the vendor's limits, launches on `stream`, and returns the
 * runtime's last error (cudaGetLastError() on CUDA) as an int (0: launched).
 * Arguments that only the host can make (gpu_host_arg: CUDA's TMA tensor
 * maps) are built after the grid checks; a failure returns its code before
 * the launch, and NAME_error_string then gives the builder's message.
 * A kernel with T.sync_grid is launched cooperatively
 * (PREFIXLaunchCooperativeKernel), after checking that the device can and
 * that its multiprocessors hold the whole grid at once.
 * Runtime names are the vendor's prefix + the CUDA name.  The
 * error-string function is per kernel rather than one module-wide symbol so
 * that two tlc objects linked into one program never define the same name.
 *
 * The header is plain C (no vendor headers needed) and carries one
 * machine-readable line per launcher for tools that bind it at run time
 * (tests/gpu/tlc_gpu.py):
 *     tlc-signature: NAME ARG... stream
 * where ARG is NAME:DTYPE* for a tensor (NAME:DTYPE*:out for an output,
 * NAME:DTYPE*:scratch for scratch memory of T.alloc_global) and
 * NAME:DTYPE for a scalar, in the launcher's parameter order, and
 *     tlc-shapes: NAME TENSOR:D0,D1,... ...
 * with each tensor's extents as Python expressions of the scalars (the
 * tilelang shim allocates outputs from them: python/tlc). */
#include <string.h>

#include "gpu_printer.h"

/* Per-device flags "the shared-memory attribute is set": the attribute
 * belongs to the kernel as loaded in one device's context. */
#define MAX_FLAGGED_DEVICES 64

const char *gpu_launcher_name(const tlc_func *f)
{
	/* TileLang's habit of naming the inner prim_func `main` must not define C's main() */
	return strcmp(f->name, "main") == 0 ? "main_launch" : f->name;
}

/* The C name of launch group `group`'s function (as gpu_launcher_name). */
static const char *group_launcher_name(const char *group)
{
	return strcmp(group, "main") == 0 ? "main_launch" : group;
}

/* The C name of a parameter. */
static const char *param_name(gpu_emitter *e, const tlc_param *p)
{
	return gpu_name(e, p->kind == TLC_PARAM_TENSOR ? p->buf->name : p->var->name);
}

/* The C type of a tensor element or scalar as plain C callers see it. */
static const char *c_type(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_BOOL: return "uint8_t";
	case TLC_DT_INT8: return "int8_t";
	case TLC_DT_INT16: return "int16_t";
	case TLC_DT_INT32: return "int32_t";
	case TLC_DT_INT64: return "int64_t";
	case TLC_DT_UINT8: return "uint8_t";
	case TLC_DT_UINT16: return "uint16_t";
	case TLC_DT_UINT32: return "uint32_t";
	case TLC_DT_UINT64: return "uint64_t";
	case TLC_DT_FLOAT16: /* raw 16-bit values: C callers need no vendor headers */
	case TLC_DT_BFLOAT16: return "uint16_t";
	case TLC_DT_FLOAT32: return "float";
	case TLC_DT_FLOAT64: return "double";
	default: return "void";
	}
}

/* The launcher's parameters up to `void *stream`, in the device types of
 * the source or (plain_c) in the C types of the header. */
static void emit_launcher_params(gpu_emitter *e, tlc_buf *out, bool plain_c)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		bool tensor = p->kind == TLC_PARAM_TENSOR;
		tlc_dtype t = tensor ? p->buf->dtype : p->var->dtype;
		tlc_buf_printf(out, "%s %s%s, ", plain_c ? c_type(t) : gpu_ctype(e, t),
			       tensor ? "*" : "", param_name(e, p));
	}
	tlc_buf_puts(out, "void *stream)");
}

/* ---- the launcher in the source ---- */

static void emit_smem_opt_in(gpu_emitter *e, tlc_buf *out)
{
	const char *rt = e->target->vendor->runtime;
	int64_t smem_default = e->target->desc->info->smem_default;
	if (smem_default % 1024 == 0)
		tlc_buf_printf(out, "\t/* more than %lld KiB", (long long)(smem_default / 1024));
	else
		tlc_buf_printf(out, "\t/* more than %lld bytes", (long long)smem_default);
	tlc_buf_printf(out,
		       " of shared memory (the arena, static arrays and mbarriers): opt in, once per device */\n"
		       "\tstatic bool tlc_smem_limit_set[%d];\n"
		       "\tint tlc_dev = 0;\n"
		       "\t%sError_t tlc_err = %sGetDevice(&tlc_dev);\n"
		       "\tif (tlc_err != %sSuccess)\n\t\treturn (int)tlc_err;\n"
		       "\tconst bool tlc_flagged = tlc_dev >= 0 && tlc_dev < %d;\n"
		       "\tif (!tlc_flagged || !tlc_smem_limit_set[tlc_dev]) {\n",
		       MAX_FLAGGED_DEVICES, rt, rt, rt, MAX_FLAGGED_DEVICES);
	tlc_buf_printf(out,
		       "\t\ttlc_err = %sFuncSetAttribute(%s%s_kernel, %sFuncAttributeMaxDynamicSharedMemorySize, %lld);\n"
		       "\t\tif (tlc_err != %sSuccess)\n\t\t\treturn (int)tlc_err;\n"
		       "\t\tif (tlc_flagged)\n\t\t\ttlc_smem_limit_set[tlc_dev] = true;\n"
		       "\t}\n",
		       rt, e->target->vendor->kernel_handle_cast, e->f->name, rt,
		       (long long)e->dyn_smem, rt);
}

/* The grid extents, computed on the host from the runtime sizes, and
 * checked against the vendor's limits before the launch. */
static void emit_grid(gpu_emitter *e, tlc_buf *out)
{
	const int64_t *max_grid = e->target->vendor->max_grid;
	for (int d = 0; d < 3; d++) {
		tlc_buf_printf(out, "\tconst long long tlc_grid%d = ", d);
		if (d < e->f->grid_ndim)
			gpu_emit_host_expr(e, out, e->f->grid[d]);
		else
			tlc_buf_puts(out, "1");
		tlc_buf_puts(out, ";\n");
	}
	tlc_buf_puts(out, "\tif (tlc_grid0 < 0 || tlc_grid1 < 0 || tlc_grid2 < 0");
	/* a limit past 16 bits is spelled as a long long, the type of tlc_grid* */
	for (int d = 0; d < 3; d++)
		tlc_buf_printf(out, " || tlc_grid%d > %lld%s", d, (long long)max_grid[d],
			       max_grid[d] > 65535 ? "LL" : "");
	/* clusters tile the grid: a launch with a partial one fails */
	for (int d = 0; d < 3; d++)
		if (e->cluster[d] > 1)
			tlc_buf_printf(out, " || tlc_grid%d %% %lld != 0", d, (long long)e->cluster[d]);
	tlc_buf_printf(out,
		       ")\n"
		       "\t\treturn (int)%sErrorInvalidValue;\n"
		       "\tif (tlc_grid0 == 0 || tlc_grid1 == 0 || tlc_grid2 == 0)\n"
		       "\t\treturn 0; /* empty problem: nothing to launch */\n",
		       e->target->vendor->runtime);
}

/* The error_message (or, with doc, the doc) of host argument i. */
static const char *host_arg_text(const gpu_emitter *e, int i, bool doc)
{
	return doc ? e->host_args[i].doc : e->host_args[i].error_message;
}

/* Whether that text is there and not an earlier argument's: printed once. */
static bool first_text(const gpu_emitter *e, int i, bool doc)
{
	const char *s = host_arg_text(e, i, doc);
	for (int j = 0; s && j < i; j++)
		if (host_arg_text(e, j, doc) && strcmp(s, host_arg_text(e, j, doc)) == 0)
			return false;
	return s != NULL;
}

/* NAME_error_string: the message of a host argument's builder when one
 * failed (gpu_host_arg.error_message), or why a cooperative launch cannot
 * be made (T.sync_grid), else the runtime's. */
static void emit_error_string(gpu_emitter *e, tlc_buf *out, bool part)
{
	const char *rt = e->target->vendor->runtime;
	if (e->sync_grid)
		tlc_buf_printf(out,
		               "/* why the last launch of %s_kernel could not be cooperative (\"\": it could) */\n"
		               "static const char *tlc_sync_grid_why_%s = \"\";\n\n",
		               e->f->name, e->f->name);
	tlc_buf_printf(out, "%s const char *%s_error_string(int err)\n{\n", part ? "static" : "extern \"C\"",
	               gpu_launcher_name(e->f));
	if (e->sync_grid)
		tlc_buf_printf(out,
		               "\tif (err != 0 && tlc_sync_grid_why_%s[0] != '\\0')\n"
		               "\t\treturn tlc_sync_grid_why_%s;\n",
		               e->f->name, e->f->name);
	for (int i = 0; i < e->nhost_args; i++) {
		const char *msg = e->host_args[i].error_message;
		if (first_text(e, i, false))
			tlc_buf_printf(out, "\tif (err != 0 && (%s)[0] != '\\0')\n\t\treturn %s;\n", msg, msg);
	}
	/* a kernel of a launch group: NULL, and the group's function goes on */
	if (part)
		tlc_buf_puts(out, "\treturn NULL;\n}\n\n");
	else
		tlc_buf_printf(out, "\treturn %sGetErrorString((%sError_t)err);\n}\n\n", rt, rt);
}

/* T.sync_grid needs every block resident at once: the device must launch
 * cooperatively, and the grid must not exceed the blocks its
 * multiprocessors hold with this kernel's threads and shared memory (the
 * runtime's occupancy), else the launcher returns an error before
 * launching and NAME_error_string says which. */
static void emit_residency_check(gpu_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	const gpu_vendor *v = e->target->vendor;
	const char *rt = v->runtime, *k = e->f->name;
	tlc_buf_printf(out,
		       "\t/* T.sync_grid: a cooperative launch, every block resident at once */\n"
		       "\tint tlc_coop_dev = 0, tlc_coop = 0, tlc_sms = 0, tlc_per_sm = 0;\n"
		       "\t%sError_t tlc_coop_err = %sGetDevice(&tlc_coop_dev);\n"
		       "\tif (tlc_coop_err == %sSuccess)\n"
		       "\t\ttlc_coop_err = %sDeviceGetAttribute(&tlc_coop, %s, tlc_coop_dev);\n"
		       "\tif (tlc_coop_err == %sSuccess)\n"
		       "\t\ttlc_coop_err = %sDeviceGetAttribute(&tlc_sms, %s, tlc_coop_dev);\n"
		       "\tif (tlc_coop_err == %sSuccess)\n"
		       "\t\ttlc_coop_err = %sOccupancyMaxActiveBlocksPerMultiprocessor(&tlc_per_sm, "
		       "%s%s_kernel, %lld, %lld);\n"
		       "\tif (tlc_coop_err != %sSuccess)\n\t\treturn (int)tlc_coop_err;\n",
		       rt, rt, rt, rt, v->attr_cooperative, rt, rt, v->attr_sm_count, rt, rt,
		       v->kernel_handle_cast, k, (long long)(tdims[0] * tdims[1] * tdims[2]),
		       (long long)e->dyn_smem, rt);
	tlc_buf_printf(out,
		       "\tif (!tlc_coop) {\n"
		       "\t\ttlc_sync_grid_why_%s = \"%s_kernel uses T.sync_grid, which needs a "
		       "cooperative launch, and this device cannot launch cooperatively\";\n"
		       "\t\treturn (int)%sErrorNotSupported;\n\t}\n"
		       "\tif (tlc_grid0 * tlc_grid1 * tlc_grid2 > (long long)tlc_per_sm * tlc_sms) {\n"
		       "\t\ttlc_sync_grid_why_%s = \"%s_kernel uses T.sync_grid, which needs every "
		       "block of the grid resident at once, and the grid has more blocks than the "
		       "device's multiprocessors hold with its threads and shared memory: use at most "
		       "(blocks per multiprocessor) x (multiprocessors) blocks, e.g. T.Kernel(num_sms) "
		       "with a loop over the tiles\";\n"
		       "\t\treturn (int)%sErrorCooperativeLaunchTooLarge;\n\t}\n",
		       k, k, rt, k, k, rt);
}

/* The cooperative launch of T.sync_grid: the kernel's arguments by address. */
static void emit_cooperative_launch(gpu_emitter *e, tlc_buf *out)
{
	const char *rt = e->target->vendor->runtime;
	int n = e->f->nparams + e->nhost_args;
	tlc_buf_puts(out, "\tvoid *tlc_args[] = {");
	for (int i = 0; i < e->f->nparams; i++)
		tlc_buf_printf(out, "%s(void *)&%s", i ? ", " : "", param_name(e, &e->f->params[i]));
	for (int i = 0; i < e->nhost_args; i++)
		tlc_buf_printf(out, "%s(void *)&%s", i + e->f->nparams ? ", " : "", e->host_args[i].name);
	tlc_buf_printf(out, "%s};\n", n ? "" : "NULL");
	tlc_buf_printf(out,
		       "\tconst %sError_t tlc_launch_err = %sLaunchCooperativeKernel((const void *)%s_kernel, "
		       "tlc_grid, tlc_block, tlc_args, %lld, (%sStream_t)stream);\n"
		       "\tif (tlc_launch_err != %sSuccess)\n\t\treturn (int)tlc_launch_err;\n"
		       "\treturn (int)%sGetLastError();\n}\n\n",
		       rt, rt, e->f->name, (long long)e->dyn_smem, rt, rt, rt);
}

void gpu_emit_launcher(gpu_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	const char *launcher = gpu_launcher_name(e->f), *rt = e->target->vendor->runtime, *group;
	int nparts;
	/* the kernels of a launch group are launched by the group's function */
	bool part = tlc_func_launch_group(e->f, &group, &nparts) >= 0;
	emit_error_string(e, out, part);
	tlc_buf_printf(out, "%s int %s(", part ? "static" : "extern \"C\"", launcher);
	emit_launcher_params(e, out, false);
	tlc_buf_puts(out, "\n{\n");
	if (e->sync_grid)
		tlc_buf_printf(out, "\ttlc_sync_grid_why_%s = \"\";\n", e->f->name);
	/* static arrays and mbarriers count against the same default */
	if (e->dyn_smem && e->dyn_smem + e->static_smem > e->target->desc->info->smem_default)
		emit_smem_opt_in(e, out);
	emit_grid(e, out);
	for (int i = 0; i < e->nhost_args; i++)
		tlc_buf_puts(out, e->host_args[i].setup);
	if (e->sync_grid)
		emit_residency_check(e, out, tdims);
	tlc_buf_printf(out, "\tconst dim3 tlc_grid((unsigned)tlc_grid0, (unsigned)tlc_grid1, (unsigned)tlc_grid2);\n"
	                    "\tconst dim3 tlc_block(%lld, %lld, %lld);\n",
	               (long long)tdims[0], (long long)tdims[1], (long long)tdims[2]);
	if (e->sync_grid) {
		emit_cooperative_launch(e, out);
		return;
	}
	const char *launch = e->target->vendor->launch_macro;
	bool first = true;
	if (launch) {
		tlc_buf_printf(out, "\t%s(%s_kernel, tlc_grid, tlc_block, %lld, (%sStream_t)stream", launch, e->f->name,
		               (long long)e->dyn_smem, rt);
		first = false;
	} else {
		tlc_buf_printf(out, "\t%s_kernel<<<tlc_grid, tlc_block, %lld, (%sStream_t)stream>>>(", e->f->name,
		               (long long)e->dyn_smem, rt);
	}
	for (int i = 0; i < e->f->nparams; i++, first = false)
		tlc_buf_printf(out, "%s%s", first ? "" : ", ", param_name(e, &e->f->params[i]));
	for (int i = 0; i < e->nhost_args; i++, first = false)
		tlc_buf_printf(out, "%s%s", first ? "" : ", ", e->host_args[i].name);
	tlc_buf_printf(out, ");\n\treturn (int)%sGetLastError();\n}\n\n", rt);
}

/* The function of a launch group (tlc_func_launch_group), after its
 * kernels' static launchers: each launched in order on `stream`, the first
 * failure returned; its error string asks each kernel's for a message of
 * its own (a host argument that could not be built) before the runtime's. */
void gpu_emit_group_launcher(gpu_emitter *e, tlc_buf *out, const tlc_func *const *parts, int nparts)
{
	const char *group, *rt = e->target->vendor->runtime;
	int n;
	tlc_func_launch_group(e->f, &group, &n);
	const char *launcher = group_launcher_name(group);
	tlc_buf_printf(out, "extern \"C\" const char *%s_error_string(int err)\n{\n\tconst char *tlc_msg;\n",
	               launcher);
	for (int i = 0; i < nparts; i++)
		tlc_buf_printf(out, "\tif ((tlc_msg = %s_error_string(err)) != NULL)\n\t\treturn tlc_msg;\n",
		               gpu_launcher_name(parts[i]));
	tlc_buf_printf(out, "\treturn %sGetErrorString((%sError_t)err);\n}\n\n", rt, rt);
	tlc_buf_printf(out, "extern \"C\" int %s(", launcher);
	emit_launcher_params(e, out, false);
	tlc_buf_puts(out, "\n{\n\tint tlc_err;\n");
	for (int i = 0; i < nparts; i++) {
		tlc_buf_printf(out, "\tif ((tlc_err = %s(", gpu_launcher_name(parts[i]));
		for (int k = 0; k < e->f->nparams; k++)
			tlc_buf_printf(out, "%s, ", param_name(e, &e->f->params[k]));
		tlc_buf_puts(out, "stream)) != 0)\n\t\treturn tlc_err;\n");
	}
	tlc_buf_puts(out, "\treturn 0;\n}\n\n");
}

/* ---- the C header ---- */

/* Whether parameter i is scratch memory of the kernel (T.alloc_global:
 * attribute "tlc.scratch" lists their indices). */
static bool is_scratch(const tlc_func *f, int i)
{
	for (int a = 0; a < f->nattrs; a++) {
		const tlc_expr *v = f->attr_values[a];
		if (!f->attr_keys[a] || strcmp(f->attr_keys[a], "tlc.scratch") != 0 || v->kind != TLC_EXPR_TUPLE)
			continue;
		for (int k = 0; k < v->u.tuple.n; k++) {
			int64_t idx;
			if (tlc_expr_as_int(v->u.tuple.items[k], &idx) && idx == i)
				return true;
		}
	}
	return false;
}

static void emit_param_docs(gpu_emitter *e, tlc_buf *h)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind != TLC_PARAM_TENSOR) {
			tlc_buf_printf(h, " *   %s: %s\n", param_name(e, p), tlc_dtype_name(p->var->dtype));
			continue;
		}
		tlc_buf_printf(h, " *   %s: device pointer to %s[", param_name(e, p), tlc_dtype_name(p->buf->dtype));
		for (int d = 0; d < p->buf->ndim; d++) {
			if (d)
				tlc_buf_puts(h, ", ");
			tlc_print_expr(h, e->m, p->buf->shape[d]);
		}
		tlc_buf_printf(h, "], row-major%s\n", p->is_output       ? " (output)"
		                                       : is_scratch(e->f, i) ? " (scratch: T.alloc_global; the caller "
		                                                               "allocates it, its contents need not be set)"
		                                                             : "");
	}
}

/* The machine-readable line: see the top of this file. */
static void emit_signature(gpu_emitter *e, tlc_buf *h, const char *launcher)
{
	tlc_buf_printf(h, " * tlc-signature: %s", launcher);
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(h, " %s:%s*%s", param_name(e, p), tlc_dtype_name(p->buf->dtype),
			               p->is_output ? ":out" : is_scratch(e->f, i) ? ":scratch" : "");
		else
			tlc_buf_printf(h, " %s:%s", param_name(e, p), tlc_dtype_name(p->var->dtype));
	}
	tlc_buf_puts(h, " stream\n");
	tlc_buf_printf(h, " * tlc-shapes: %s", launcher);
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind != TLC_PARAM_TENSOR)
			continue;
		tlc_buf_printf(h, " %s:", param_name(e, p));
		for (int d = 0; d < p->buf->ndim; d++) {
			tlc_buf tmp;
			tlc_buf_init(&tmp);
			tlc_print_expr(&tmp, e->m, p->buf->shape[d]);
			/* one word per tensor: the printed extent without its spaces */
			if (d)
				tlc_buf_putc(h, ',');
			for (const char *c = tlc_buf_str(&tmp); *c; c++)
				if (*c != ' ')
					tlc_buf_putc(h, *c);
			tlc_buf_free(&tmp);
		}
	}
	tlc_buf_putc(h, '\n');
}

void gpu_emit_header_decl(gpu_emitter *e, tlc_buf *h, const tlc_func *const *parts, int nparts)
{
	const char *group, *rt = e->target->vendor->runtime;
	int n;
	bool grouped = tlc_func_launch_group(e->f, &group, &n) >= 0;
	const char *launcher = grouped ? group_launcher_name(group) : gpu_launcher_name(e->f);
	if (grouped) {
		tlc_buf_printf(h, "/* %s: launch the kernels", launcher);
		for (int i = 0; i < nparts; i++)
			tlc_buf_printf(h, "%s %s_kernel", i ? "," : "", parts[i]->name);
		tlc_buf_printf(h, "\n *   (the T.Kernel frames of %s) one after the other on `stream` (a %sStream_t; NULL "
		               "for the\n *   default stream).\n", group, rt);
	} else {
		tlc_buf_printf(h,
			       "/* %s: launch kernel %s_kernel on `stream` (a %sStream_t; NULL for the default stream).\n",
			       launcher, e->f->name, rt);
	}
	emit_param_docs(e, h);
	if (e->sync_grid)
		tlc_buf_printf(h, " * T.sync_grid: a cooperative launch; every block of the grid must be resident at\n"
		               " *   once, and launches of this kernel must not overlap (they share its grid\n"
		               " *   barrier's counter).\n");
	for (int i = 0; i < e->nhost_args; i++)
		if (first_text(e, i, true))
			tlc_buf_printf(h, " * %s\n", e->host_args[i].doc);
	tlc_buf_printf(h,
		       " * Returns a %sError_t value: 0 on success; %s_error_string() names it.\n",
		       rt, launcher);
	emit_signature(e, h, launcher);
	tlc_buf_printf(h, " */\nint %s(", launcher);
	emit_launcher_params(e, h, true);
	bool setup_message = false;
	for (int i = 0; i < e->nhost_args; i++)
		setup_message |= e->host_args[i].error_message != NULL;
	tlc_buf_printf(h,
		       ";\n/* The message of an error code returned by %s (%sGetErrorString%s). */\n"
		       "const char *%s_error_string(int err);\n\n",
		       launcher, rt, setup_message ? ", or why the launcher could not prepare the launch" : "",
		       launcher);
}

/* TLC_<FIRST KERNEL>_H: deterministic, and distinct for distinct kernels. */
static void header_guard(tlc_buf *h, const tlc_module *m)
{
	tlc_buf_puts(h, "TLC_");
	const char *n = tlc_module_func_count(m) ? tlc_module_func(m, 0)->name : "MODULE";
	for (const char *p = n; *p; p++) {
		char c = *p;
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			c = '_';
		tlc_buf_putc(h, c);
	}
	tlc_buf_puts(h, "_H");
}

void gpu_emit_header_file(tlc_buf *out, const tlc_module *m, const gpu_target *t, const char *decls)
{
	tlc_buf_printf(out,
		       "/* Generated by tlc: host launchers of the kernels in the matching .%s.\n"
		       " * Plain C; float16 and bfloat16 tensors are passed as uint16_t pointers.\n"
		       " * Calling them: see doc/calling.md. */\n"
		       "#ifndef ",
		       t->desc->source_ext);
	header_guard(out, m);
	tlc_buf_puts(out, "\n#define ");
	header_guard(out, m);
	tlc_buf_puts(out, "\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	tlc_buf_puts(out, decls);
	tlc_buf_puts(out, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}
