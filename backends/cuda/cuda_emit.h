/* cuda_emit.h - private declarations of the cuda target plugin.
 *
 * The plugin turns a module into one self-contained .cu (device kernels, the
 * inline helpers they use, extern "C" host launchers) plus a C header.
 *
 * It takes thread-level IR: layout-inference and lower-tile-ops (pass
 * plugins) have already turned tile ops, fragments and T.Parallel nests into
 * per-thread code; what is left here is printing it, shared-memory
 * placement, barriers and the calls of the device helpers. */
#ifndef TLC_CUDA_EMIT_H
#define TLC_CUDA_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <tlc/bounds.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>
#include <tlc/target.h>
#include <tlc/tileops.h>

/* What differs between the CUDA targets. */
typedef struct cuda_arch {
	const char *target;  /* "cuda-sm90": used in messages */
	const char *sm;      /* "sm_90a" */
	const tlc_target_info *info; /* the machine (cuda_info.c) */
} cuda_arch;

/* The machine descriptions (cuda_info.c). */
extern const tlc_target_info cuda_sm80_info;
extern const tlc_target_info cuda_sm90_info;

/* Device helpers emitted into the .cu only when some expression uses them. */
enum {
	CUDA_HELPER_FLOORDIV_I32 = 1 << 0,
	CUDA_HELPER_FLOORMOD_I32 = 1 << 1,
	CUDA_HELPER_FLOORDIV_I64 = 1 << 2,
	CUDA_HELPER_FLOORMOD_I64 = 1 << 3,
	CUDA_HELPER_GEMM = 1 << 4,     /* device/tlc_gemm.cuh */
	CUDA_HELPER_COPY_VEC = 1 << 5, /* tlc_copy_vec<bytes> */
	CUDA_HELPER_RASTER = 1 << 6,   /* tlc::rasterization2DRow / Column */
};



/* State of emitting one kernel. */
typedef struct cuda_emitter {
	tlc_module *m;
	tlc_context *ctx;
	const cuda_arch *arch;
	tlc_func *f;
	tlc_buf *out;        /* where the kernel body goes */
	unsigned helpers;    /* CUDA_HELPER_* used (module-wide) */
	int64_t threads;     /* threads per block */
	int64_t dyn_smem;    /* bytes of the dynamic shared arena */
	tlc_ranges ranges;  /* variables in scope with known ranges */
	int64_t raster_panel; /* T.use_swizzle(panel, order): > 0 when block indices are rasterized */
	bool raster_column;   /* ... in column panels */
	tlc_buf *decls;      /* file-scope declarations the kernel needs (layout functors), before it */
	int counter;         /* for fresh C names */
	bool host;           /* printing host (launcher) code: no thread/block ids */
	tlc_loc loc;         /* the statement being emitted, for expression errors */
	unsigned used_frame; /* bits 0-2: block vars used, 3-5: thread vars used, 6: tlc_tid */
	int errors;
} cuda_emitter;

/* ---- cuda_emit.c: module, kernel signature, launcher, header ---- */

/* Emit the whole module for arch; 0 or nonzero after reporting errors. */
int cuda_emit_module(tlc_module *m, const cuda_arch *arch, tlc_codegen_result *out);
/* Report an error at loc and count it. */
void cuda_error(cuda_emitter *e, tlc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- cuda_launcher.c: extern "C" launchers and the C header ---- */

/* The C symbol of f's launcher: f's name, but never `main`. */
const char *cuda_launcher_name(const tlc_func *f);
/* Append f's NAME_error_string() and its launcher NAME(...) to out. */
void cuda_emit_launcher(cuda_emitter *e, tlc_buf *out, const int64_t tdims[3]);
/* Append the documented C declarations of f's launcher to h. */
void cuda_emit_header_decl(cuda_emitter *e, tlc_buf *h);
/* Write the whole C header of module m around the declarations `decls`. */
void cuda_emit_header_file(tlc_buf *out, const tlc_module *m, const char *decls);

/* ---- cuda_expr.c: expressions and types ---- */

/* The C type of a dtype in device code ("half", "__nv_bfloat16", "float"...);
 * NULL for dtypes the target cannot emit yet. */
const char *cuda_ctype(tlc_dtype t);
/* Print e as a C expression of e's dtype. */
void cuda_emit_expr(cuda_emitter *e, const tlc_expr *x);
/* Print the row-major flat offset of buffer b at idx. */
void cuda_emit_flat_index(cuda_emitter *e, const tlc_buffer *b, int n, const tlc_expr *const *idx);
/* Print the element of buffer b at idx as an lvalue (fragments: the thread's slot). */
void cuda_emit_access(cuda_emitter *e, tlc_loc loc, const tlc_buffer *b, int n, const tlc_expr *const *idx);
/* Print the helper functions recorded in `helpers`. */
void cuda_emit_helpers(tlc_buf *out, unsigned helpers);
/* C-safe spelling of an IR name (keywords and reserved prefixes get a suffix). */
const char *cuda_name(cuda_emitter *e, const char *name);
/* The printed name of a call's op ("gemm"). */
const char *cuda_op_name(cuda_emitter *e, const tlc_expr *call);

/* ---- cuda_stmt.c: statements, T.Parallel partition, syncs ---- */

/* Print a statement at indentation depth `ind` (tabs). */
void cuda_emit_stmt(cuda_emitter *e, const tlc_stmt *s, int ind);


/* ---- cuda_ops.c: lowered intrinsics that become device helper calls ---- */

/* T.mma_gemm: layout functors for the shared operands, then tlc::gemm_ss/rs. */
void cuda_emit_mma_gemm(cuda_emitter *e, const tlc_expr *call, int ind);
/* T.atomic_add(dst[i..], value) of one element. */
void cuda_emit_atomic_add(cuda_emitter *e, const tlc_stmt *s, int ind);
/* T.atomic_add_vec(dst[i..], src[j..], lanes): float32 vector atomics (per lane before sm_90). */
void cuda_emit_atomic_add_vec(cuda_emitter *e, const tlc_stmt *s, int ind);
/* T.copy_vec(dst[i..], src[j..], lanes). */
void cuda_emit_copy_vec(cuda_emitter *e, const tlc_stmt *s, int ind);

/* ---- device_text.c: the device helper headers embedded in the plugin ---- */

/* The text of backends/cuda/device/NAME.cuh (NAME without ".cuh", e.g.
 * "tlc_gemm"), to paste into a generated .cu; NULL for an unknown name. */
const char *cuda_device_text(const char *name);

#endif
