/* gpu_printer.h - the printer of GPU C++ that the CUDA and HIP target
 * plugins share (libgpucpp.la, a convenience library linked into each).
 *
 * CUDA C++ and HIP C++ are one language that spells a few types, intrinsics
 * and runtime calls differently.  This printer turns a lowered module into
 * one self-contained source (device kernels, the inline helpers they use,
 * extern "C" host launchers) plus a C header, and takes every spelling that
 * differs from the target's gpu_vendor table.  Ops that only one vendor has
 * (its matrix instructions) reach the vendor through the table's emit_op.
 *
 * It takes thread-level IR and makes no decision: layout-inference,
 * lower-tile-ops, storage-plan and sync-insert (pass plugins) have placed
 * fragments, vectors, atomics, arena offsets and barriers; what is left is
 * spelling them. */
#ifndef TLC_GPU_PRINTER_H
#define TLC_GPU_PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tlc/bounds.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/target.h>
#include <tlc/tileops.h>

/* Each target plugin links its own copy of this library: keep every name
 * local to the plugin, even one built without -fvisibility=hidden, so that
 * two target plugins loaded into one tlc never bind to each other's copy. */
#pragma GCC visibility push(hidden)

typedef struct gpu_emitter gpu_emitter;

/* What one GPU vendor spells its own way.  A field is here only when the
 * other vendor writes it differently: both compile threadIdx, blockIdx,
 * __syncthreads, __launch_bounds__, __shared__, <<<...>>>, atomicAdd and
 * the C math functions (expf, rsqrtf, ...) as CUDA does.  HIP values are
 * noted where they are certain. */
typedef struct gpu_vendor {
	const char *language; /* "CUDA": names the language in messages */
	const char *includes; /* the #include lines that open every source, each ending in \n */
	/* 16-bit float types and their conversions through float; the
	 * conversions to 16 bits round to nearest even, as the IR's casts do */
	const char *float16_type;      /* "half" */
	const char *bfloat16_type;     /* "__nv_bfloat16" */
	/* float8 storage types (NULL: the vendor has none); converted to and
	 * from float with C++ casts */
	const char *float8_e4m3_type;  /* "__nv_fp8_e4m3" */
	const char *float8_e5m2_type;  /* "__nv_fp8_e5m2" */
	/* CDNA3's float8 (fnuz) storage types, converted the same way; NULL when
	 * the vendor has none.  A kernel that uses one sets the vendor helper
	 * bit fnuz_helper (the types' definitions, printed by emit_helpers). */
	const char *float8_e4m3fnuz_type;
	const char *float8_e5m2fnuz_type;
	unsigned fnuz_helper;
	const char *float16_to_float;  /* "__half2float" */
	const char *float_to_float16;  /* "__float2half_rn" */
	const char *bfloat16_to_float; /* "__bfloat162float" */
	const char *float_to_bfloat16; /* "__float2bfloat16_rn" */
	/* T.shfl_xor(v, m) prints as shfl_xor v ", " m ")": the call up to its
	 * value argument.  CUDA: "__shfl_xor_sync(0xffffffffu, "; HIP: "__shfl_xor(" */
	const char *shfl_xor;
	const char *shfl_down, *shfl_up; /* the same for T.shfl_down / T.shfl_up (value, delta) */
	const char *shfl_idx;            /* T.shfl_idx (value, lane): "__shfl_sync(0xffffffffu, " */
	const char *sync_warp; /* the statement of T.sync_warp, without ';': "__syncwarp()" */
	/* A barrier of part of the block (T.sync_threads() inside T.ws): a
	 * printf format of the statement without ';', taking the barrier id (%d,
	 * 1 .. named_barriers - 1; 0 is the whole block's) and the thread count
	 * (%lld); NULL when the vendor has none. */
	const char *named_barrier;
	int named_barriers;
	/* The prefix of every runtime name the launcher uses: PREFIXStream_t,
	 * PREFIXError_t, PREFIXSuccess, PREFIXErrorInvalidValue, PREFIXGetDevice,
	 * PREFIXFuncSetAttribute, PREFIXFuncAttributeMaxDynamicSharedMemorySize,
	 * PREFIXGetLastError, PREFIXGetErrorString.  CUDA: "cuda"; HIP: "hip" */
	const char *runtime;
	/* Printed before the kernel passed to PREFIXFuncSetAttribute.  CUDA: ""
	 * (its C++ overload takes the kernel); HIP: "(const void *)" (it takes a
	 * const void *) */
	const char *kernel_handle_cast;
	int64_t max_grid[3]; /* the most blocks a launch may have in x, y, z */
	/* The device attributes a cooperative launch (T.sync_grid) checks: the
	 * multiprocessors, and whether the device launches cooperatively.
	 * CUDA: "cudaDevAttrMultiProcessorCount", "cudaDevAttrCooperativeLaunch";
	 * HIP: "hipDeviceAttributeMultiprocessorCount",
	 * "hipDeviceAttributeCooperativeLaunch" */
	const char *attr_sm_count, *attr_cooperative;
	/* The launch statement: NULL for CUDA's kernel<<<grid, block, bytes,
	 * stream>>>(args); else a macro called as MACRO(kernel, grid, block,
	 * bytes, stream, args...) (HIP: "hipLaunchKernelGGL") */
	const char *launch_macro;
	/* Print the op statement s (TLC_STMT_EVAL) that the shared printer does
	 * not know: the vendor's matrix instructions, vector atomics, mbarriers,
	 * register budgets and bulk copies (which may add gpu_host_args).
	 * Returns false when the vendor does not know it either (the caller
	 * reports it); true when it printed it or reported why it could not. */
	bool (*emit_op)(gpu_emitter *e, const tlc_stmt *s, int ind);
	/* Append the device helpers named by the GPU_HELPER_VENDOR bits and
	 * above of `helpers`; called after the shared helpers are printed.
	 * Host-side helpers that the launchers call (the builders of
	 * gpu_host_arg values) are pasted here too: the launchers come after. */
	void (*emit_helpers)(tlc_buf *out, unsigned helpers);
	/* The definition of tlc_vec_of<T, N>::type, what tlc_copy_vec copies N
	 * elements of T as (one access, aligned to the whole): a type through
	 * which the compiler may read and write T objects, and which it keeps
	 * in registers; NULL: the aggregate tlc_lanes<T, N> */
	const char *vec_of;
	/* Thread-block clusters (a kernel's "tlc.cluster_dims"): the kernel
	 * attribute, a printf format taking the three extents (%lld), and the
	 * expression of the block's rank in its cluster with the helper bit
	 * that defines it; NULL when the vendor has no clusters. */
	const char *cluster_dims_attr;
	const char *cluster_rank;
	unsigned cluster_helper;
} gpu_vendor;

/* A kernel argument that the launcher builds on the host before each
 * launch, for an op that needs a value only the host can make (CUDA: the
 * CUtensorMap of a TMA copy).  emit_op adds it with gpu_add_host_arg while
 * it prints the op; the printer then
 *   - appends `param` to the kernel's parameters, after the IR's, in the
 *     order of the gpu_add_host_arg calls;
 *   - prints `setup` in the launcher after the grid checks, before the
 *     launch: host statements (each line starting with one tab) that
 *     declare and build the variable `name`, and may `return` a nonzero
 *     error code (nothing is launched then);
 *   - passes `name` to the kernel by value;
 *   - makes NAME_error_string(err), for err != 0, return the C string
 *     expression `error_message` when it is not empty (the reason the
 *     setup failed; "" when it did not), before the runtime's message;
 *   - adds the line `doc` (when not NULL) to the launcher's comment in the
 *     C header.
 * Strings equal to an earlier argument's error_message or doc are printed
 * once.  All strings live in the module's arena (tlc_strdup). */
typedef struct gpu_host_arg {
	const char *key;           /* what the value stands for: equal keys are one argument */
	const char *name;          /* the C name in launcher and kernel: "tlc_tma_A_0" */
	const char *param;         /* the kernel parameter: "const __grid_constant__ CUtensorMap tlc_tma_A_0" */
	const char *setup;         /* host statements that declare and build `name` */
	const char *error_message; /* C expression of type const char *, or NULL */
	const char *doc;           /* one line for the C header, or NULL */
} gpu_host_arg;

/* One target: its registered description (name, device compiler and its
 * flags, machine), the chip those flags select and the vendor's spellings. */
typedef struct gpu_target {
	const tlc_target_desc *desc;
	const char *arch; /* "sm_90a": named in the banner of the source */
	const gpu_vendor *vendor;
} gpu_target;

/* The tlc_target_desc of a GPU target NAME ("cuda-sm90"): its pipeline
 * is the INI's [pipeline.NAME]; the device compiler takes ARCH for binaries
 * and ASM for assembly text (NULL-terminated flag lists). */
#define GPU_TARGET_DESC(NAME, SUMMARY, EXT, EMIT, COMPILER, ARCH, ASM, INFO)                                  \
	{                                                                                                        \
		.name = NAME, .summary = SUMMARY, .pipeline = "pipeline." NAME, .source_ext = EXT, .emit = EMIT,     \
		.compiler = COMPILER, .arch_flags = ARCH, .asm_flags = ASM, .info = INFO,                            \
	}

/* The emit function of a target plugin's tlc_target_desc for gpu_target T
 * (a static const gpu_target): the descriptor's emit has no context
 * argument, so each target gets its own one-line function. */
#define GPU_TARGET_EMIT(fn, T)                                                                              \
	static int fn(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out)                      \
	{                                                                                                        \
		(void)opts;                                                                                          \
		return gpu_emit_module(m, &(T), out);                                                                \
	}

/* Register the descriptors of n targets; 0, or -1 when one fails. */
int gpu_register_targets(tlc_registry *reg, const tlc_target_desc *const *targets, int n);

/* Device helpers printed into the source only when some kernel uses them,
 * in the order of these bits. */
enum {
	GPU_HELPER_FLOORDIV_I32 = 1 << 0,
	GPU_HELPER_FLOORMOD_I32 = 1 << 1,
	GPU_HELPER_FLOORDIV_I64 = 1 << 2,
	GPU_HELPER_FLOORMOD_I64 = 1 << 3,
	GPU_HELPER_COPY_VEC = 1 << 4, /* tlc_copy_vec<bytes> */
	GPU_HELPER_RASTER = 1 << 5,   /* tlc::rasterization2DRow / Column */
	GPU_HELPER_LANES = 1 << 6,    /* tlc_lanes<T, N>: N elements stored at once */
	GPU_HELPER_PRINTF = 1 << 7,   /* <cstdio> for T.print, under TLC_DEBUG_PRINT */
	GPU_HELPER_MINMAX = 1 << 8,   /* tlc_min<T> / tlc_max<T>: integer T.min / T.max */
	GPU_HELPER_FTOI = 1 << 9,     /* tlc_ftoi<I>: saturating float -> integer */
	GPU_HELPER_FLOORMOD_F32 = 1 << 10, /* tlc_floormod_f32: float % */
	GPU_HELPER_FLOORMOD_F64 = 1 << 11, /* tlc_floormod_f64: double % */
	GPU_HELPER_ATOMIC_MINMAX = 1 << 12, /* tlc_atomic_minmax<MAX>: float, double max / min */
	GPU_HELPER_SYNC_GRID = 1 << 13, /* tlc_sync_grid: T.sync_grid's barrier of the grid */
	GPU_HELPER_BITCAST = 1 << 14, /* tlc_bitcast<To>: T.reinterpret */
	GPU_HELPER_RNG = 1 << 15,     /* tlc_rng_*: T.rng_init's generator (gpu_rng.c) */
	GPU_HELPER_VENDOR = 1 << 16,  /* this bit and above belong to the vendor (emit_helpers) */
};

/* State of printing one kernel. */
struct gpu_emitter {
	tlc_module *m;
	tlc_context *ctx;
	const gpu_target *target;
	tlc_func *f;
	tlc_buf *out;         /* where the kernel body goes */
	unsigned helpers;     /* GPU_HELPER_* used */
	int64_t threads;      /* threads per block */
	int64_t dyn_smem;     /* bytes of the dynamic shared arena */
	int64_t static_smem;  /* bytes of static __shared__ arrays and mbarriers (tlc.smem_static) */
	tlc_ranges ranges;    /* variables in scope with known ranges */
	int64_t raster_panel; /* T.use_swizzle(panel, order): > 0 when block indices are rasterized */
	bool sync_grid;       /* T.sync_grid: launched cooperatively, with a grid barrier counter */
	bool raster_column;   /* ... in column panels */
	tlc_buf *decls;       /* file-scope declarations the kernel needs (layout functors), before it */
	int counter;          /* for fresh C names */
	bool host;            /* printing host (launcher) code: no thread/block ids */
	tlc_loc loc;          /* the statement being printed, for expression errors */
	unsigned used_frame;  /* bits 0-2: block vars used, 3-5: thread vars used, 6: tlc_tid,
	                       * 7: tlc_rng (T.rng_init's generator) */
	int errors_before;    /* tlc_error_count() when this kernel began */
	/* > 0: the kernel's __launch_bounds__ names this minimum of resident
	 * blocks per multiprocessor, which fixes the registers a thread has at
	 * entry (CUDA's setmaxnreg is ignored without it); set by emit_op */
	int min_blocks;
	int64_t cluster[3]; /* the kernel's cluster extents (tlc_func_cluster_dims) */
	int64_t cluster_blocks; /* their product: 1 without clusters */
	/* inside T.ws: its threads are [ws_lo, ws_lo + ws_n) (ws_n 0 outside),
	 * and T.sync_threads() there is a named barrier of those threads */
	int64_t ws_lo, ws_n;
	int64_t named_bar[16][2]; /* (first thread, count) of named barrier named_bar_id[i] */
	int nnamed_bars;
	/* the named barrier ids the kernel's own T.sync_threads(id, count) use
	 * (bit i: id i), which the barriers of T.ws leave to them */
	uint32_t user_bars;
	int named_bar_id[16]; /* the id of named_bar[i] */
	gpu_host_arg *host_args; /* the kernel's host-built arguments, gpu_add_host_arg */
	int nhost_args, cap_host_args;
};

/* ---- gpu_module.c: the module, the kernel frame, the helpers ---- */

/* Print module m for target t into out; 0, or the number of errors reported. */
int gpu_emit_module(tlc_module *m, const gpu_target *t, tlc_codegen_result *out);
/* Whether an error was reported since e's kernel began: printing stops there. */
bool gpu_failed(const gpu_emitter *e);
/* The name of e's target ("cuda-sm90"), for messages. */
const char *gpu_target_name(const gpu_emitter *e);
/* Append `ind` tabs to e->out. */
void gpu_indent(gpu_emitter *e, int ind);
/* The alignment in bytes of the base of e's dynamic shared arena, as the
 * kernel declares it: storage-plan's tlc.smem_align, at least 128. */
int64_t gpu_arena_align(const gpu_emitter *e);
/* The index of e's host-built argument with this key; -1 when none. */
int gpu_find_host_arg(const gpu_emitter *e, const char *key);
/* Add a host-built argument to e's kernel (see gpu_host_arg); returns its index. */
int gpu_add_host_arg(gpu_emitter *e, const gpu_host_arg *arg);

/* ---- gpu_expr.c: expressions and types ---- */

/* The device C++ type of a dtype ("half", "__nv_bfloat16", "float"...);
 * NULL for dtypes the printer cannot print yet. */
const char *gpu_ctype(gpu_emitter *e, tlc_dtype t);
/* Print x as a C++ expression of x's dtype. */
void gpu_emit_expr(gpu_emitter *e, const tlc_expr *x);
/* Print the row-major flat offset of buffer b at idx. */
void gpu_emit_flat_index(gpu_emitter *e, const tlc_buffer *b, int n, const tlc_expr *const *idx);
/* Print the element of buffer b at idx as an lvalue. */
void gpu_emit_access(gpu_emitter *e, tlc_loc loc, const tlc_buffer *b, int n, const tlc_expr *const *idx);
/* Print x as host code into out (a launch dimension, a tensor size in the
 * launcher): only constants, runtime sizes and arithmetic on them. */
void gpu_emit_host_expr(gpu_emitter *e, tlc_buf *out, const tlc_expr *x);
/* C-safe spelling of an IR name (keywords and reserved prefixes get a prefix). */
const char *gpu_name(gpu_emitter *e, const char *name);
/* The printed name of a call's op ("gemm"). */
const char *gpu_op_name(gpu_emitter *e, const tlc_expr *call);
/* A float32 literal that reads back to the same float (v is one). */
void gpu_emit_f32_literal(gpu_emitter *e, double v);

/* ---- gpu_arith.c: the language's arithmetic and conversions ---- */

/* float16, bfloat16 and the float8 types: computed through float. */
bool gpu_is_narrow_float(tlc_dtype t);
/* Open / close the conversion of a float value to float dtype t (nothing
 * for float32; the vendor's rounding conversion for the narrow types). */
void gpu_open_from_float(gpu_emitter *e, tlc_dtype t);
void gpu_close_from_float(gpu_emitter *e, tlc_dtype t);
/* x (float32 or narrower) as a float value. */
void gpu_emit_as_float(gpu_emitter *e, const tlc_expr *x);
/* T.cast(a, t): the language's conversion from a's dtype to t. */
void gpu_emit_cast(gpu_emitter *e, tlc_dtype t, const tlc_expr *a);
/* Whether kind k prints as an infix operator (gpu_emit_infix). */
bool gpu_is_infix(tlc_expr_kind k);
/* An arithmetic, comparison, logic or bitwise operator node. */
void gpu_emit_infix(gpu_emitter *e, const tlc_expr *x);
/* // and % (floor division and modulo) of integers and floats. */
void gpu_emit_floor_divmod(gpu_emitter *e, const tlc_expr *x);
/* T.min / T.max. */
void gpu_emit_minmax(gpu_emitter *e, const tlc_expr *x);
/* Negation. */
void gpu_emit_neg(gpu_emitter *e, const tlc_expr *x);

/* ---- gpu_stmt.c: statements ---- */

/* Print a statement at indentation depth `ind` (tabs). */
void gpu_emit_stmt(gpu_emitter *e, const tlc_stmt *s, int ind);

/* ---- gpu_ops.c: the ops every vendor prints alike ---- */

/* T.atomic_add(dst[i..], value) of one element. */
void gpu_emit_atomic_add(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.atomic_max / T.atomic_min of one element */
void gpu_emit_atomic_minmax(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.copy_vec(dst[i..], src[j..], lanes). */
void gpu_emit_copy_vec(gpu_emitter *e, const tlc_stmt *s, int ind);
/* The operands of a vector op T.NAME(dst[i..], src[j..], lanes)
 * (T.copy_vec, T.atomic_add_vec): false unless dst and src are elements of
 * buffers and lanes is a constant. */
bool gpu_vector_operands(const tlc_stmt *s, const tlc_expr **dst, const tlc_expr **src, int64_t *lanes);
/* The `lanes` elements from src (an element access) on along its last
 * index, each converted to `to` as T.cast converts it, comma-separated. */
void gpu_emit_converted_lanes(gpu_emitter *e, const tlc_expr *src, int64_t lanes, tlc_dtype to);
/* Declare, before the kernel, a struct with `static int off(int r, int c)`:
 * the element offset of (r, c) in the 2-D memory layout `layout_expr`, for
 * the device helper of `call` (whose operand `what` it lays out).  Returns
 * the struct's name, or NULL after reporting why it cannot. */
const char *gpu_emit_layout_functor(gpu_emitter *e, const tlc_expr *call, const tlc_expr *layout_expr,
                                    const char *what);

/* A T.mma_gemm call as lower-tile-ops wrote it: the shapes, the grid of
 * thread groups, the transposes, the operands (A and B: a whole shared
 * buffer or the first element of a tile, which carries a pipeline stage's
 * index; A may be registers), the functors of the shared operands' layouts
 * (printed by gpu_decode_mma) and the instruction. */
typedef struct gpu_mma_call {
	int64_t M, N, K, warp_m, warp_n, thread_lo;
	bool trans_a, trans_b, ldmatrix_a, ldmatrix_b;
	const tlc_expr *A, *B, *C;
	const tlc_buffer *a_buf;
	bool a_regs;                    /* A is the thread's registers (T.alloc_local) */
	const char *layout_a, *layout_b; /* functor names; layout_a NULL when a_regs */
	const tlc_matrix_inst *inst;    /* the target's row the call names */
} gpu_mma_call;

/* Decode a T.mma_gemm call for e's target; false after reporting what is
 * missing. */
bool gpu_decode_mma(gpu_emitter *e, const tlc_expr *call, gpu_mma_call *g);
/* Print a matrix operand: a whole buffer by name, the first element of a
 * tile by its address (&A[stage, 0, 0] keeps the stage). */
void gpu_emit_operand(gpu_emitter *e, const tlc_expr *x);

/* The operand `x` of op statement `call` that names a barrier
 * (T.alloc_barrier): a whole barrier buffer (its barrier 0) or one element
 * bar[i].  Prints its address, &NAME[i], and returns true; reports
 * "T.<op>: barrier operands are T.alloc_barrier buffers (or their elements)
 * in tlc" at `loc` (or an index out of range) and returns false otherwise. */
bool gpu_emit_barrier_addr(gpu_emitter *e, tlc_loc loc, const tlc_expr *call, const tlc_expr *x);

/* ---- gpu_rng.c: T.rng_init / T.rng_rand / T.rng_rand_float ---- */

/* The helper text (GPU_HELPER_RNG). */
extern const char gpu_rng_helper[];
/* T.rng_rand() / T.rng_rand_float(...): a draw of the thread's generator. */
void gpu_emit_rng_draw(gpu_emitter *e, const tlc_expr *x);
/* The statement T.rng_init(seed, seq, off). */
void gpu_emit_rng_init(gpu_emitter *e, const tlc_expr *call, int ind);

/* A device helper's text, embedded in a target plugin by scripts/embed.sh
 * (a generated device_sources.h holds a table of them). */
struct tlc_device_source {
	const char *name;
	const char *text;
};
/* The text of helper `name` in table (n entries); NULL when it is not there. */
const char *gpu_device_text(const struct tlc_device_source *table, size_t n, const char *name);
/* Append `text` (the helper `file`) and a blank line to out; an #error line
 * naming the file when text is NULL (a plugin built without it). */
void gpu_paste_device_text(tlc_buf *out, const char *text, const char *file);

/* ---- gpu_launcher.c: extern "C" launchers and the C header ---- */

/* The C symbol of f's launcher: f's name, but never `main`. */
const char *gpu_launcher_name(const tlc_func *f);
/* Append f's NAME_error_string() and its launcher NAME(...) to out (static
 * when f is a kernel of a launch group, tlc_func_launch_group). */
void gpu_emit_launcher(gpu_emitter *e, tlc_buf *out, const int64_t tdims[3]);
/* Append the function of e->f's launch group, which launches its kernels
 * `parts` (e->f the last) in order, and its error string, to out. */
void gpu_emit_group_launcher(gpu_emitter *e, tlc_buf *out, const tlc_func *const *parts, int nparts);
/* Append the documented C declarations of f's launcher to h; for the last
 * kernel of a launch group, those of the group's function (its kernels
 * `parts`). */
void gpu_emit_header_decl(gpu_emitter *e, tlc_buf *h, const tlc_func *const *parts, int nparts);
/* Write the whole C header of module m around the declarations `decls`. */
void gpu_emit_header_file(tlc_buf *out, const tlc_module *m, const gpu_target *t, const char *decls);

#pragma GCC visibility pop

#endif
