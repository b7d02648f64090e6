/* cuda_emit.c - a module as one self-contained .cu plus a C header.
 *
 * Layout of the .cu: the CUDA toolkit includes, the device helpers the
 * kernels use, then per kernel the __global__ function and its extern "C"
 * host launcher
 *     int NAME(<tensor pointers>, <runtime sizes>, void *stream)
 * which sets the dynamic shared-memory limit once, launches, and returns
 * cudaGetLastError() as an int. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tlc/walk.h>

#include "cuda_emit.h"


void cuda_error(cuda_emitter *e, tlc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tlc_vdiag(e->ctx, TLC_ERROR, loc, fmt, ap);
	va_end(ap);
	e->errors++;
}

/* ---- shared memory ---- */

/* The bytes of the dynamic shared arena: storage-plan placed every
 * shared.dyn buffer and wrote the arena's size on the kernel. */
static int64_t arena_bytes(const tlc_func *f)
{
	int64_t n;
	for (int i = 0; i < f->nattrs; i++)
		if (f->attr_keys[i] && strcmp(f->attr_keys[i], "tlc.smem_bytes") == 0 &&
		    tlc_expr_as_int(f->attr_values[i], &n))
			return n;
	return 0;
}

/* ---- signature ---- */

static int check_params(cuda_emitter *e)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		tlc_dtype t = p->kind == TLC_PARAM_TENSOR ? p->buf->dtype : p->var->dtype;
		if (!cuda_ctype(t) || (p->kind == TLC_PARAM_SCALAR && !tlc_dtype_is_int(t) && !tlc_dtype_is_float(t)))
			cuda_error(e, p->kind == TLC_PARAM_TENSOR ? p->buf->loc : e->f->loc,
			           "parameter dtype %s is not supported by target %s yet", tlc_dtype_name(t), e->arch->target);
	}
	return e->errors;
}

/* Parameters in order: tensors as pointers, scalars by value. */
static void emit_params(cuda_emitter *e, tlc_buf *out, bool restrict_ptrs)
{
	for (int i = 0; i < e->f->nparams; i++) {
		const tlc_param *p = &e->f->params[i];
		if (i)
			tlc_buf_puts(out, ", ");
		if (p->kind == TLC_PARAM_TENSOR)
			tlc_buf_printf(out, "%s *%s%s", cuda_ctype(p->buf->dtype), restrict_ptrs ? "__restrict__ " : "",
			               cuda_name(e, p->buf->name));
		else
			tlc_buf_printf(out, "%s %s", cuda_ctype(p->var->dtype), cuda_name(e, p->var->name));
	}
}

static int compute_threads(cuda_emitter *e, int64_t dims[3])
{
	e->threads = 1;
	for (int d = 0; d < 3; d++) {
		dims[d] = 1;
		if (d < e->f->thread_ndim && (!tlc_expr_as_int(e->f->threads[d], &dims[d]) || dims[d] <= 0)) {
			cuda_error(e, e->f->loc, "the thread counts of T.Kernel must be positive compile-time constants");
			return -1;
		}
		e->threads *= dims[d];
	}
	if (e->threads > 1024) {
		cuda_error(e, e->f->loc, "T.Kernel asks for %lld threads per block; CUDA allows at most 1024",
		           (long long)e->threads);
		return -1;
	}
	return 0;
}

/* ---- the kernel ---- */

static void emit_kernel(cuda_emitter *e, tlc_buf *out, const int64_t tdims[3])
{
	tlc_buf body;
	tlc_buf_init(&body);
	e->out = &body;
	for (int d = 0; d < 3; d++)
		if (e->f->block_vars[d] && d < e->f->grid_ndim) {
			int64_t lo = 0, hi = 0;
			if (tlc_expr_bounds(&e->ranges, e->f->grid[d], &lo, &hi) && hi >= 1)
				tlc_ranges_push(&e->ranges, e->f->block_vars[d], 0, hi - 1);
		}
	for (int d = 0; d < 3; d++)
		if (e->f->thread_vars[d])
			tlc_ranges_push(&e->ranges, e->f->thread_vars[d], 0, tdims[d] - 1);
	cuda_emit_stmt(e, e->f->body, 1);

	tlc_buf_printf(out, "extern \"C\" __global__ void __launch_bounds__(%lld) %s_kernel(", (long long)e->threads,
	               e->f->name);
	emit_params(e, out, true);
	tlc_buf_puts(out, ")\n{\n");
	if (e->dyn_smem)
		tlc_buf_puts(out, "\textern __shared__ __align__(128) unsigned char tlc_smem[];\n");
	if (e->used_frame & (1u << 6)) {
		tlc_buf_puts(out, "\tconst int tlc_tid = (int)threadIdx.x");
		if (tdims[1] > 1 || tdims[2] > 1)
			tlc_buf_printf(out, " + %lld * (int)threadIdx.y + %lld * (int)threadIdx.z", (long long)tdims[0],
			               (long long)(tdims[0] * tdims[1]));
		tlc_buf_puts(out, ";\n");
	}
	/* T.use_swizzle: the block variables come from the rasterization */
	const char *block = "blockIdx";
	if (e->raster_panel > 0 && (e->used_frame & 7u)) {
		tlc_buf_printf(out, "\tconst dim3 tlc_block_idx = tlc::rasterization2D%s<%lld>();\n",
		               e->raster_column ? "Column" : "Row", (long long)e->raster_panel);
		block = "tlc_block_idx";
	}
	for (int d = 0; d < 3; d++) {
		if ((e->used_frame & (1u << d)) && e->f->block_vars[d])
			tlc_buf_printf(out, "\tconst int %s = (int)%s.%c;\n", cuda_name(e, e->f->block_vars[d]->name), block,
			               "xyz"[d]);
		if ((e->used_frame & (1u << (3 + d))) && e->f->thread_vars[d])
			tlc_buf_printf(out, "\tconst int %s = (int)threadIdx.%c;\n", cuda_name(e, e->f->thread_vars[d]->name),
			               "xyz"[d]);
	}
	tlc_buf_puts(out, tlc_buf_str(&body));
	tlc_buf_puts(out, "}\n\n");
	tlc_buf_free(&body);
}

/* ---- the module ---- */

static int emit_func(tlc_module *m, const cuda_arch *arch, tlc_func *f, tlc_buf *kernels, tlc_buf *launchers,
                     tlc_buf *header, unsigned *helpers)
{
	cuda_emitter e = {.m = m, .ctx = tlc_module_context(m), .arch = arch, .f = f};
	int64_t tdims[3];
	tlc_buf decls;
	tlc_buf_init(&decls);
	e.decls = &decls;
	/* passes made new variables: C needs unique names */
	tlc_func_uniquify_names(m, f);
	if (check_params(&e) || compute_threads(&e, tdims))
		return 1;
	e.dyn_smem = arena_bytes(f);
	{
		tlc_buf kernel;
		tlc_buf_init(&kernel);
		emit_kernel(&e, &kernel, tdims);
		tlc_buf_puts(kernels, tlc_buf_str(&decls));
		tlc_buf_puts(kernels, tlc_buf_str(&kernel));
		tlc_buf_free(&kernel);
		if (!e.errors)
			cuda_emit_launcher(&e, launchers, tdims);
		if (!e.errors)
			cuda_emit_header_decl(&e, header);
	}
	*helpers |= e.helpers;
	tlc_ranges_free(&e.ranges);
	tlc_buf_free(&decls);
	return e.errors;
}

int cuda_emit_module(tlc_module *m, const cuda_arch *arch, tlc_codegen_result *out)
{
	tlc_buf kernels, launchers, header;
	unsigned helpers = 0;
	int errors = 0;
	tlc_buf_init(&kernels);
	tlc_buf_init(&launchers);
	tlc_buf_init(&header);
	for (int i = 0; i < tlc_module_func_count(m); i++)
		errors += emit_func(m, arch, tlc_module_func(m, i), &kernels, &launchers, &header,
		                    &helpers);
	if (!errors) {
		tlc_buf_printf(&out->source,
		               "// Generated by tlc for target %s (%s). Self-contained: compile with\n"
		               "//   nvcc -gencode=arch=compute_%s,code=%s -c <this file>\n"
		               "#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
		               "#include <stdint.h>\n\n",
		               arch->target, arch->sm, arch->sm + 3, arch->sm);
		cuda_emit_helpers(&out->source, helpers);
		tlc_buf_puts(&out->source, tlc_buf_str(&kernels));
		tlc_buf_puts(&out->source, tlc_buf_str(&launchers));
		cuda_emit_header_file(&out->header, m, tlc_buf_str(&header));
	}
	tlc_buf_free(&kernels);
	tlc_buf_free(&launchers);
	tlc_buf_free(&header);
	return errors;
}
