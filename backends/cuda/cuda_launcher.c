/* cuda_launcher.c - the host side of a .cu: extern "C" launchers and the C
 * header that declares them.
 *
 * Per kernel the .cu gets
 *     extern "C" const char *NAME_error_string(int err);
 *     extern "C" int NAME(<tensor pointers>, <runtime sizes>, void *stream);
 * The launcher raises the kernel's dynamic shared-memory limit once per
 * device when it needs more than the 48 KiB every kernel gets, launches on
 * `stream`, and returns cudaGetLastError() as an int (0: launched).  The
 * error-string function is per kernel rather than one module-wide symbol so
 * that two tlc objects linked into one program never define the same name.
 *
 * The header is plain C (no CUDA headers needed) and carries one
 * machine-readable line per launcher for tools that bind it at run time
 * (tests/gpu/tlc_gpu.py):
 *     tlc-signature: NAME ARG... stream
 * where ARG is NAME:DTYPE* for a tensor (NAME:DTYPE*:out for an output) and
 * NAME:DTYPE for a scalar, in the launcher's parameter order. */
#include <string.h>

#include "cuda_emit.h"

/* Per-device flags "the shared-memory attribute is set": the attribute
 * belongs to the kernel as loaded in one device's context. */
#define MAX_FLAGGED_DEVICES 64

const char *cuda_launcher_name(const tlc_func *f)
{
	/* TileLang's habit of naming the inner prim_func `main` must not define C's main() */
	return strcmp(f->name, "main") == 0 ? "main_launch" : f->name;
}

/* C spelling of a parameter: tensors by pointer, scalars by value. */
static const char *param_name(cuda_emitter *e, const tlc_param *p)
{
	return cuda_name(e, p->kind == TLC_PARAM_TENSOR ? p->buf->name : p->var->name);
}

/* ---- the launcher in the .cu ---- */

static void emit_smem_opt_in(cuda_emitter *e, tlc_buf *out)
{
	tlc_buf_printf(out,
	               "\t/* more than 48 KiB of dynamic shared memory: opt in, once per device */\n"
	               "\tstatic bool tlc_smem_limit_set[%d];\n"
	               "\tint tlc_dev = 0;\n"
	               "\tcudaError_t tlc_err = cudaGetDevice(&tlc_dev);\n"
	               "\tif (tlc_err != cudaSuccess)\n\t\treturn (int)tlc_err;\n"
	               "\tconst bool tlc_flagged = tlc_dev >= 0 && tlc_dev < %d;\n"
	               "\tif (!tlc_flagged || !tlc_smem_limit_set[tlc_dev]) {\n"
	               "\t\ttlc_err = cudaFuncSetAttribute(%s_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, %lld);\n"
	               "\t\tif (tlc_err != cudaSuccess)\n\t\t\treturn (int)tlc_err;\n"
	               "\t\tif (tlc_flagged)\n\t\t\ttlc_smem_limit_set[tlc_dev] = true;\n"
	               "\t}\n",
	               MAX_FLAGGED_DEVICES, MAX_FLAGGED_DEVICES, e->f->name, (long long)e->dyn_smem);
}

/* The grid extents, computed on the host from the runtime sizes. */
static void emit_grid(cuda_emitter *e, tlc_buf *out)
{
	tlc_buf *saved = e->out;
	e->out = out;
	e->host = true;
	for (int d = 0; d < 3; d++) {
		tlc_buf_printf(out, "\tconst long long tlc_grid%d = ", d);
		if (d < e->f->grid_ndim)
			cuda_emit_expr(e, e->f->grid[d]);
		else
			tlc_buf_puts(out, "1");
		tlc_buf_puts(out, ";\n");
	}
	e->host = false;
	e->out = saved;
	tlc_buf_puts(out, "\tif (tlc_grid0 < 0 || tlc_grid1 < 0 || tlc_grid2 < 0 || tlc_grid0 > 2147483647LL || "
	                  "tlc_grid1 > 65535 || tlc_grid2 > 65535)\n"
	                  "\t\treturn (int)cudaErrorInvalidValue;\n"
	                  "\tif (tlc_grid0 == 0 || tlc_grid1 == 0 || tlc_grid2 == 0)\n"
	                  "\t\treturn 0; /* empty problem: nothing to launch */\n");
}

void cuda_emit_launcher(cuda_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	const char *launcher = cuda_launcher_name(e->f);
	tlc_buf_printf(out,
	               "extern \"C\" const char *%s_error_string(int err)\n{\n"
	               "\treturn cudaGetErrorString((cudaError_t)err);\n}\n\n",
	               launcher);
	tlc_buf_printf(out, "extern \"C\" int %s(", launcher);
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(out, "%s *%s, ", cuda_ctype(p->buf->dtype), param_name(e, p));
		else
			tlc_buf_printf(out, "%s %s, ", cuda_ctype(p->var->dtype), param_name(e, p));
	}
	tlc_buf_puts(out, "void *stream)\n{\n");
	if (e->dyn_smem > e->arch->info->smem_default)
		emit_smem_opt_in(e, out);
	emit_grid(e, out);
	tlc_buf_printf(out, "\tconst dim3 tlc_grid((unsigned)tlc_grid0, (unsigned)tlc_grid1, (unsigned)tlc_grid2);\n"
	                    "\tconst dim3 tlc_block(%lld, %lld, %lld);\n",
	               (long long)tdims[0], (long long)tdims[1], (long long)tdims[2]);
	tlc_buf_printf(out, "\t%s_kernel<<<tlc_grid, tlc_block, %lld, (cudaStream_t)stream>>>(", e->f->name,
	               (long long)e->dyn_smem);
	for (int i = 0; i < e->f->nparams; i++)
		tlc_buf_printf(out, "%s%s", i ? ", " : "", param_name(e, &e->f->params[i]));
	tlc_buf_puts(out, ");\n\treturn (int)cudaGetLastError();\n}\n\n");
}

/* ---- the C header ---- */

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
	case TLC_DT_FLOAT16: /* raw 16-bit values: C callers need no CUDA headers */
	case TLC_DT_BFLOAT16: return "uint16_t";
	case TLC_DT_FLOAT32: return "float";
	case TLC_DT_FLOAT64: return "double";
	default: return "void";
	}
}

static void emit_param_docs(cuda_emitter *e, tlc_buf *h)
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
		tlc_buf_printf(h, "], row-major%s\n", p->is_output ? " (output)" : "");
	}
}

/* The machine-readable line: see the top of this file. */
static void emit_signature(cuda_emitter *e, tlc_buf *h)
{
	tlc_buf_printf(h, " * tlc-signature: %s", cuda_launcher_name(e->f));
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(h, " %s:%s*%s", param_name(e, p), tlc_dtype_name(p->buf->dtype),
			               p->is_output ? ":out" : "");
		else
			tlc_buf_printf(h, " %s:%s", param_name(e, p), tlc_dtype_name(p->var->dtype));
	}
	tlc_buf_puts(h, " stream\n");
}

void cuda_emit_header_decl(cuda_emitter *e, tlc_buf *h)
{
	const char *launcher = cuda_launcher_name(e->f);
	tlc_buf_printf(h, "/* %s: launch kernel %s_kernel on `stream` (a cudaStream_t; NULL for the default stream).\n",
	               launcher, e->f->name);
	emit_param_docs(e, h);
	tlc_buf_printf(h, " * Returns a cudaError_t value: 0 on success; %s_error_string() names it.\n", launcher);
	emit_signature(e, h);
	tlc_buf_printf(h, " */\nint %s(", launcher);
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(h, "%s *%s, ", c_type(p->buf->dtype), param_name(e, p));
		else
			tlc_buf_printf(h, "%s %s, ", c_type(p->var->dtype), param_name(e, p));
	}
	tlc_buf_puts(h, "void *stream);\n");
	tlc_buf_printf(h, "/* The message of an error code returned by %s (cudaGetErrorString). */\n"
	                  "const char *%s_error_string(int err);\n\n",
	               launcher, launcher);
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

void cuda_emit_header_file(tlc_buf *out, const tlc_module *m, const char *decls)
{
	tlc_buf_puts(out, "/* Generated by tlc: host launchers of the kernels in the matching .cu.\n"
	                  " * Plain C; float16 and bfloat16 tensors are passed as uint16_t pointers.\n"
	                  " * Calling them: see doc/calling.md. */\n"
	                  "#ifndef ");
	header_guard(out, m);
	tlc_buf_puts(out, "\n#define ");
	header_guard(out, m);
	tlc_buf_puts(out, "\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	tlc_buf_puts(out, decls);
	tlc_buf_puts(out, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}
