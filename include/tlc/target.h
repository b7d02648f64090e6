/* tlc/target.h - code generation targets and the machine they describe.
 *
 * A target plugin registers a tlc_target_desc: how to print a lowered module
 * (emit) and drive the device compiler, and a tlc_target_info: the facts
 * about the machine that passes need to make their decisions (lanes per
 * warp or wavefront, shared memory, vector widths, asynchronous copy and
 * barrier engines, and the table of matrix instructions with their fragment
 * layouts).  Passes read the description of the target being compiled for
 * through tlc_module_target_info(); no pass contains a warp size, an atom
 * shape or a memory limit of its own.  `tlc --print-target-info` prints it
 * (tlc_target_info_print), so users and tests can see what passes assume. */
#ifndef TLC_TARGET_H
#define TLC_TARGET_H

#include <tlc/layout.h>
#include <tlc/pass.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a target produces for one module. */
typedef struct tlc_codegen_result {
	tlc_buf source; /* .cu / .hip text: device code + extern "C" host launchers */
	tlc_buf header; /* C header declaring the launchers */
} tlc_codegen_result;

/* A register fragment of one matrix-instruction operand, in the digit form
 * of tlc/layout.h: the tile (rows x cols) held by the `threads` of one
 * instruction (thread digits weigh thread ids inside them, register digits
 * the registers of one instruction's operand).  ndigits == 0: the operand
 * cannot live in registers. */
typedef struct tlc_frag_atom {
	int rows, cols;
	int ndigits;
	const tlc_frag_digit *digits;
} tlc_frag_atom;

/* Where a matrix instruction may read an operand from. */
enum {
	TLC_MMA_FROM_REGS = 1 << 0,
	/* through a shared-memory descriptor (WGMMA): the operand must have a
	 * swizzled layout (tlc_layout_swizzled) with rows a multiple of 8 */
	TLC_MMA_FROM_SHARED = 1 << 1,
	/* the operand is float32 and the instruction reads it as TF32 (NVIDIA
	 * tensor cores: sign, 8 exponent bits and the top 10 mantissa bits;
	 * the low 13 bits are ignored, tlc_tf32_truncate) */
	TLC_MMA_READS_TF32 = 1 << 2,
};

/* Which stored orders a descriptor may read (tlc_matrix_inst.shared_majors):
 * K-major keeps K contiguous (A as [M][K], B as [N][K]), MN-major keeps M
 * or N contiguous (A as [K][M], B as [K][N]). */
enum {
	TLC_MMA_K_MAJOR = 1 << 0,
	TLC_MMA_MN_MAJOR = 1 << 1,
};

/* One matrix (tensor core) instruction: C[m][n] += A[m][k] * B[k][n] for one
 * combination of operand types, issued together by `threads` threads.  N
 * may be any multiple of n up to n_max (WGMMA's m64nNk16); the fragments
 * are those of the m x n atom, and a wider N repeats the C and B fragments
 * along n in registers. */
typedef struct tlc_matrix_inst {
	const char *name;   /* e.g. "mma.sync.m16n8k16" */
	int m, n, k;
	int n_max;          /* == n when N is fixed */
	tlc_dtype a, b;     /* input types */
	tlc_dtype acc;      /* accumulator type */
	int threads;        /* a warp, a warpgroup or a wavefront */
	unsigned a_from, b_from; /* TLC_MMA_FROM_* */
	tlc_frag_atom frag_a;    /* A: m x k */
	tlc_frag_atom frag_b;    /* B: k x n */
	tlc_frag_atom frag_c;    /* the accumulator: m x n */
	unsigned shared_majors;  /* TLC_MMA_*_MAJOR read from shared memory (0 = both) */
} tlc_matrix_inst;

/* Asynchronous global -> shared copy engines. */
enum {
	TLC_ASYNC_CP_ASYNC = 1 << 0, /* cp.async (4/8/16 bytes per thread, commit/wait groups) */
	TLC_ASYNC_TMA = 1 << 1,      /* bulk tensor copies (TMA) completing on an mbarrier */
	TLC_ASYNC_TMA_MULTICAST = 1 << 2, /* ... one of which can fill the same tile in every block of a
	                                   * cluster (max_cluster > 1) */
};

/* The tiles of T.stmatrix (tlc/ops.def): TLC_STMATRIX_DIM x TLC_STMATRIX_DIM
 * elements of TLC_STMATRIX_ELEM_BITS bits, each lane holding
 * TLC_STMATRIX_PAIR consecutive elements of one row (one register), so a
 * tile takes TLC_STMATRIX_LANES lanes; up to TLC_STMATRIX_MAX_TILES tiles a
 * call. */
enum {
	TLC_STMATRIX_DIM = 8,
	TLC_STMATRIX_ELEM_BITS = 16,
	TLC_STMATRIX_PAIR = 2,
	TLC_STMATRIX_LANES = TLC_STMATRIX_DIM * TLC_STMATRIX_DIM / TLC_STMATRIX_PAIR,
	TLC_STMATRIX_MAX_TILES = 4,
};

/* The warp matrix instruction of T.mma_sync (tlc/ops.def): m16 n8 kK on a
 * warp of TLC_MMA_SYNC_LANES lanes, K = TLC_MMA_SYNC_K_BITS / the operands'
 * bits.  Lane l (g = l / 4, q = l % 4) holds, with w the operands in one
 * 32-bit register (2 of 16 bits, 4 of 8 bits):
 *   A (16 x K, R_A = 16 K / 32 elements): e -> row g + 8 ((e / w) % 2),
 *     column q w + e % w + 4 w (e / (2 w));
 *   B (K x 8, R_B = 8 K / 32): e -> row q w + e % w + 4 w (e / w), column g;
 *   C (16 x 8, 4 elements): e -> row g + 8 (e / 2), column 2 q + e % 2.
 * (The PTX ISA's fragment tables of mma.m16n8k16 and mma.m16n8k32.) */
enum {
	TLC_MMA_SYNC_M = 16,
	TLC_MMA_SYNC_N = 8,
	TLC_MMA_SYNC_LANES = 32,
	TLC_MMA_SYNC_K_BITS = 256,
	TLC_MMA_SYNC_C_REGS = TLC_MMA_SYNC_M * TLC_MMA_SYNC_N / TLC_MMA_SYNC_LANES,
};

/* Barrier kinds beyond the whole-block barrier every target has. */
enum {
	TLC_BARRIER_NAMED = 1 << 0,        /* numbered barriers over a subset of threads */
	TLC_BARRIER_MBARRIER = 1 << 1,     /* shared-memory barriers with arrive counts and phases */
	TLC_BARRIER_MBARRIER_TX = 1 << 2,  /* ... that also count transaction bytes */
};

/* The reference device as the host's GPU runtime describes it: what the
 * queries of PyTorch that a kernel file makes at compile time
 * (torch.cuda.get_device_capability(), get_device_name(), torch.version.cuda
 * / .hip) are answered with (doc/language.md, "Compile-time Python"). */
typedef struct tlc_target_device {
	const char *platform;         /* "cuda" or "hip" */
	const char *runtime_version;  /* torch.version.cuda or torch.version.hip */
	const char *name;             /* torch.cuda.get_device_name() */
	const char *arch;             /* "sm_90a", "gfx942" (HIP: gcnArchName) */
	int capability_major;         /* torch.cuda.get_device_capability() */
	int capability_minor;
} tlc_target_device;

/* The machine a target generates code for.  Version it by struct_size:
 * fields are only ever added at the end. */
typedef struct tlc_target_info {
	uint32_t struct_size;       /* sizeof(tlc_target_info) */
	int lanes;                  /* threads per warp / wavefront */
	int warpgroup;              /* threads per warpgroup; 0 when there is none */
	int max_threads;            /* threads per block */
	int64_t smem_default;       /* shared memory per block without opting in (bytes) */
	int64_t smem_max;           /* shared memory per block, opted in (bytes) */
	int max_regs;               /* registers per thread */
	int64_t local_bytes_max;    /* local memory of one thread (its arrays and spilled registers) */
	int regs_per_block;         /* registers of one block (the register file a block may use) */
	int global_vector_bytes;    /* widest single global access of a thread */
	int shared_vector_bytes;    /* widest single shared-memory access of a thread */
	int atomic_add_f32_vector;  /* widest float32 atomic add (elements): 1, 2 or 4 */
	unsigned async_copy;        /* TLC_ASYNC_* */
	unsigned barriers;          /* TLC_BARRIER_* */
	bool setmaxnreg;            /* warpgroups can trade registers */
	int max_cluster;            /* blocks per cluster; 1 when there are no clusters */
	int nmatrix;
	const tlc_matrix_inst *matrix;
	int tma_box_max;            /* elements per dimension of a TMA box; 0 without TMA */
	/* multiprocessors (SMs, CUs) of the target's reference device: what a
	 * kernel file's host queries of the device (the SM count of a
	 * persistent kernel) are answered with; 0: unknown.  Read it with
	 * tlc_target_sm_count (older plugins' descriptions end before it). */
	int sm_count;
	/* shared memory of one multiprocessor, all its resident blocks
	 * together, and what the hardware keeps of it for each block beside
	 * the block's own (bytes); read them with tlc_target_smem_per_sm and
	 * tlc_target_smem_block_reserved */
	int64_t smem_per_sm;
	int smem_block_reserved;
	/* a warp stores 8x8 tiles of 16-bit elements from the registers of a
	 * matrix instruction's accumulator to shared memory, each row by one
	 * lane's address (T.stmatrix); needs lanes == TLC_STMATRIX_LANES.  Read
	 * it with tlc_target_has_stmatrix. */
	bool stmatrix;
	/* the reference device as the host runtime names it (NULL: unknown);
	 * read it with tlc_target_device_of */
	const tlc_target_device *device;
	/* numbered barriers of part of a block (TLC_BARRIER_NAMED): ids
	 * 0 .. named_barriers - 1, 0 being the whole block's; read it with
	 * tlc_target_named_barriers */
	int named_barriers;
} tlc_target_info;

/* info->sm_count, or 0 when the description has none. */
TLC_API int tlc_target_sm_count(const tlc_target_info *info);
/* info->smem_per_sm; smem_max when the description has none. */
TLC_API int64_t tlc_target_smem_per_sm(const tlc_target_info *info);
/* info->smem_block_reserved; 0 when the description has none. */
TLC_API int tlc_target_smem_block_reserved(const tlc_target_info *info);
/* info->stmatrix; false when the description has none. */
TLC_API bool tlc_target_has_stmatrix(const tlc_target_info *info);
/* info->named_barriers; 0 when the description has none or the target
 * has no TLC_BARRIER_NAMED. */
TLC_API int tlc_target_named_barriers(const tlc_target_info *info);
/* info->device, or NULL when the description has none. */
TLC_API const tlc_target_device *tlc_target_device_of(const tlc_target_info *info);
/* The shared memory each of `blocks` blocks resident on one
 * multiprocessor may use: smem_per_sm / blocks less the per-block
 * reserve, at most smem_max. */
TLC_API int64_t tlc_target_smem_per_block(const tlc_target_info *info, int64_t blocks);

/* The description of the target m is compiled for (set by the pass manager
 * from tlc_pipeline_opts.target); NULL when there is none. */
TLC_API const tlc_target_info *tlc_module_target_info(const tlc_module *m);
/* The name of that target ("cuda-sm90"); NULL when there is none. */
TLC_API const char *tlc_module_target_name(const tlc_module *m);
/* Compile m for target t from now on (the pass manager does this). */
TLC_API void tlc_module_set_target(tlc_module *m, const tlc_target_desc *t);
/* True when x runs asynchronously: an instruction that reads B through a
 * shared-memory descriptor (WGMMA) is issued and committed as a group that
 * a later wait completes, so its operands are read, and its accumulator
 * written, until then.  One that takes B from registers has finished with
 * them when it returns. */
TLC_API bool tlc_matrix_inst_is_async(const tlc_matrix_inst *x);
/* x as an operand of an instruction that reads float32 as TF32
 * (TLC_MMA_READS_TF32): its low 13 mantissa bits cleared. */
TLC_API float tlc_tf32_truncate(float x);
/* The first matrix instruction of info for these operand and accumulator
 * types whose n divides n_total (0: any); NULL when none. */
TLC_API const tlc_matrix_inst *tlc_target_find_matrix(const tlc_target_info *info, tlc_dtype a, tlc_dtype b,
                                                      tlc_dtype acc, int64_t n_total);
/* The instruction of a lowered matrix call (T.mma_gemm, T.wgmma_issue):
 * the row of info its `inst="NAME"` keyword names, for the call's operand
 * and accumulator types (lower-tile-ops writes it: the plan's choice, which
 * the simulator and the target then follow); without the keyword (hand-
 * written IR), the first row for those types issued by groups of `threads`
 * threads whose n divides the call's N / (its groups along N).  NULL when
 * there is none. */
TLC_API const tlc_matrix_inst *tlc_target_matrix_of_call(const tlc_target_info *info, const tlc_expr *call,
                                                         int threads);
/* The fragment of an operand atom as a layout of m (bound to thread_lo);
 * NULL and *why set when its digits are not a fragment. */
TLC_API const tlc_layout *tlc_frag_atom_layout(tlc_module *m, const tlc_frag_atom *atom, int threads,
                                               int64_t thread_lo, const char **why);
/* The thread partition (tlc_fragment_partition) of a T.Parallel nest or a
 * tile copy of that shape on m's target: vectors of elements of elem_bytes
 * as wide as the narrower of the target's global and shared accesses (4
 * bytes without a target), shrunk until they divide the last extent and
 * every thread has work; without vectors when that fails. */
TLC_API const tlc_layout *tlc_target_partition(tlc_module *m, int ndim, const int64_t *shape, int64_t threads,
                                               int elem_bytes, const char **why);
/* NULL when target description info holds together, else what is wrong.
 * tlc_register_target checks only what is cheap at every load (counts,
 * sizes, each matrix instruction's shape and its fragments' shapes); this
 * also builds every fragment of the matrix table and checks that its digits
 * cover its atom exactly once.  Run by the unit tests of the built-in
 * targets and by `tlc --verify-each` for the target it compiles for. */
TLC_API const char *tlc_target_info_verify(tlc_context *ctx, const tlc_target_info *info);
/* Print the description of target t in its stable `key = value` form, one
 * line per fact and one per matrix instruction (tlc --print-target-info). */
TLC_API void tlc_target_info_print(tlc_buf *out, tlc_context *ctx, const tlc_target_desc *t);

struct tlc_target_desc {
	const char *name;     /* "cuda-sm90", "cuda-sm80", "hip-gfx90a", ... */
	const char *summary;  /* one line, for --list-targets */
	const char *pipeline; /* INI pipeline section used by default: "pipeline.<name>" */
	const char *source_ext; /* "cu" or "hip" */
	/* Emit source for the (lowered) module.  Return 0, or nonzero after
	 * reporting errors. */
	int (*emit)(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out);
	/* The device compiler behind --emit=ptx|cubin|so.  These take three of
	 * the four pointer slots that were reserved, so the struct keeps its size
	 * and layout; a descriptor that leaves them NULL emits source only. */
	const char *compiler;          /* program name, searched as tlc(1) says: "nvcc" */
	const char *const *arch_flags; /* NULL-terminated: select the GPU for cubin and so */
	const char *const *asm_flags;  /* NULL-terminated: select the virtual arch for ptx */
	const tlc_target_info *info;   /* the machine: what passes may assume (required) */
};

#ifdef __cplusplus
}
#endif
#endif
