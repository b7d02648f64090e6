/* cuda_info.c - the machine descriptions of cuda-sm80 and cuda-sm90: what
 * every pass may assume about an A100-class and an H100-class GPU (limits
 * from the CUDA programming guide's compute-capability tables), and their
 * matrix instructions with the register fragments the PTX ISA gives for
 * mma.sync ("Matrix Fragments for mma.m16n8k16 / mma.m16n8k32").
 *
 * Fragments are in the digit form of tlc/layout.h: {radix, dimension,
 * stride in that dimension, thread digit?, weight}.  With lane = 4 * g + t
 * (g = groupID, t = threadID_in_group) they read as the PTX formulas, e.g.
 * the accumulator's row g (+8 for registers 2, 3) and column 2 * t (+1 for
 * odd registers). */
#include <tlc/target.h>

#include "cuda_emit.h"

/* C / D of m16n8k16 and m16n8k32 (f32 and s32 alike): 4 registers */
static const tlc_frag_digit mma_c_16x8[] = {
	{2, 1, 1, false, 1}, /* column bit 0: odd registers */
	{4, 1, 2, true, 1},  /* t: columns 2t, 2t+1 */
	{8, 0, 1, true, 4},  /* g: row g */
	{2, 0, 8, false, 2}, /* registers 2, 3: row g + 8 */
};

/* A of m16n8k16 (16-bit types): 8 registers (halves) */
static const tlc_frag_digit mma_a_16x16[] = {
	{2, 1, 1, false, 1}, /* column bit 0 */
	{4, 1, 2, true, 1},  /* t: columns 2t, 2t+1 */
	{2, 0, 8, false, 2}, /* a2, a3, a6, a7: row g + 8 */
	{2, 1, 8, false, 4}, /* a4..a7: column + 8 */
	{8, 0, 1, true, 4},  /* g: row g */
};

/* B of m16n8k16 (k x n): 4 registers */
static const tlc_frag_digit mma_b_16x8[] = {
	{2, 0, 1, false, 1}, /* row (k) bit 0 */
	{4, 0, 2, true, 1},  /* t: rows 2t, 2t+1 */
	{2, 0, 8, false, 2}, /* b2, b3: row + 8 */
	{8, 1, 1, true, 4},  /* g: column g */
};

/* A of m16n8k32 (8-bit types): 16 registers (bytes) */
static const tlc_frag_digit mma_a_16x32[] = {
	{4, 1, 1, false, 1},  /* column bits 0-1 */
	{4, 1, 4, true, 1},   /* t: columns 4t .. 4t+3 */
	{2, 0, 8, false, 4},  /* a4..a7, a12..a15: row g + 8 */
	{2, 1, 16, false, 8}, /* a8..a15: column + 16 */
	{8, 0, 1, true, 4},   /* g: row g */
};

/* B of m16n8k32 (k x n): 8 registers (bytes) */
static const tlc_frag_digit mma_b_32x8[] = {
	{4, 0, 1, false, 1},  /* row (k) bits 0-1 */
	{4, 0, 4, true, 1},   /* t: rows 4t .. 4t+3 */
	{2, 0, 16, false, 4}, /* b4..b7: row + 16 */
	{8, 1, 1, true, 4},   /* g: column g */
};

/* A of m16n8k8 .tf32 (32-bit elements): 4 registers; a0 (g, t), a1 (g + 8,
 * t), a2 (g, t + 4), a3 (g + 8, t + 4) */
static const tlc_frag_digit mma_a_16x8[] = {
	{4, 1, 1, true, 1},   /* t: column t */
	{2, 0, 8, false, 1},  /* a1, a3: row g + 8 */
	{2, 1, 4, false, 2},  /* a2, a3: column t + 4 */
	{8, 0, 1, true, 4},   /* g: row g */
};

/* B of m16n8k8 .tf32 (k x n): b0 (k = t, n = g), b1 (k = t + 4) */
static const tlc_frag_digit mma_b_8x8[] = {
	{4, 0, 1, true, 1},   /* t: row (k) t */
	{2, 0, 4, false, 1},  /* b1: row t + 4 */
	{8, 1, 1, true, 4},   /* g: column g */
};

#define ATOM(rows, cols, digits) {(rows), (cols), (int)(sizeof(digits) / sizeof((digits)[0])), (digits)}
#define MMA_K16(a_t, b_t, acc_t)                                                                              \
	{"mma.sync.m16n8k16", 16, 8, 16, 8, (a_t), (b_t), (acc_t), 32, TLC_MMA_FROM_REGS, TLC_MMA_FROM_REGS,   \
	 ATOM(16, 16, mma_a_16x16), ATOM(16, 8, mma_b_16x8), ATOM(16, 8, mma_c_16x8), 0}
#define MMA_K32(a_t, b_t, acc_t)                                                                              \
	{"mma.sync.m16n8k32", 16, 8, 32, 8, (a_t), (b_t), (acc_t), 32, TLC_MMA_FROM_REGS, TLC_MMA_FROM_REGS,   \
	 ATOM(16, 32, mma_a_16x32), ATOM(32, 8, mma_b_32x8), ATOM(16, 8, mma_c_16x8), 0}
/* float32 operands on TF32 tensor cores: the instruction reads each float32
 * register as TF32 (TLC_MMA_READS_TF32, doc/language.md) */
#define MMA_K8_TF32                                                                                           \
	{"mma.sync.m16n8k8", 16, 8, 8, 8, TLC_DT_FLOAT32, TLC_DT_FLOAT32, TLC_DT_FLOAT32, 32,                   \
	 TLC_MMA_FROM_REGS | TLC_MMA_READS_TF32, TLC_MMA_FROM_REGS | TLC_MMA_READS_TF32, ATOM(16, 8, mma_a_16x8), \
	 ATOM(8, 8, mma_b_8x8), ATOM(16, 8, mma_c_16x8), 0}

/* WGMMA (sm_90a), issued by a warpgroup of 128 threads (4 warps: w = thread
 * / 32, lane l = 4 * g + t).  The accumulator of m64nNk16 / m64nNk32, per
 * 8 columns: the mma.sync 16x8 accumulator of warp w at rows 16w .. 16w+15
 * ("Register fragment: wgmma .m64nNk16 accumulator D" in the PTX ISA); a
 * wider N repeats it in registers. */
static const tlc_frag_digit wgmma_c_64x8[] = {
	{2, 1, 1, false, 1}, /* column bit 0: odd registers */
	{4, 1, 2, true, 1},  /* t: columns 2t, 2t+1 */
	{8, 0, 1, true, 4},  /* g: row g */
	{2, 0, 8, false, 2}, /* registers 2, 3: row g + 8 */
	{4, 0, 16, true, 32}, /* w: rows 16w .. */
};

/* The same over 16 columns (integer WGMMA, planned in steps of 16 columns):
 * registers 4..7 hold columns 8.. */
static const tlc_frag_digit wgmma_c_64x16[] = {
	{2, 1, 1, false, 1},  /* column bit 0: odd registers */
	{4, 1, 2, true, 1},   /* t: columns 2t, 2t+1 */
	{8, 0, 1, true, 4},   /* g: row g */
	{2, 0, 8, false, 2},  /* registers 2, 3: row g + 8 */
	{4, 0, 16, true, 32}, /* w: rows 16w .. */
	{2, 1, 8, false, 4},  /* registers 4..7: column + 8 */
};

/* A of m64nNk16 in registers (16-bit types): 8 halves, warp w's rows 16w .. */
static const tlc_frag_digit wgmma_a_64x16[] = {
	{2, 1, 1, false, 1},  /* column bit 0 */
	{4, 1, 2, true, 1},   /* t: columns 2t, 2t+1 */
	{2, 0, 8, false, 2},  /* a2, a3, a6, a7: row g + 8 */
	{2, 1, 8, false, 4},  /* a4..a7: column + 8 */
	{8, 0, 1, true, 4},   /* g: row g */
	{4, 0, 16, true, 32}, /* w: rows 16w .. */
};

/* A of m64nNk32 in registers (8-bit types): 16 bytes */
static const tlc_frag_digit wgmma_a_64x32[] = {
	{4, 1, 1, false, 1},  /* column bits 0-1 */
	{4, 1, 4, true, 1},   /* t: columns 4t .. 4t+3 */
	{2, 0, 8, false, 4},  /* row g + 8 */
	{2, 1, 16, false, 8}, /* column + 16 */
	{8, 0, 1, true, 4},   /* g: row g */
	{4, 0, 16, true, 32}, /* w: rows 16w .. */
};

/* A of m64nNk8 .tf32 in registers: 4 registers, per warp the mma.sync
 * m16n8k8 .tf32 A fragment at rows 16w .. */
static const tlc_frag_digit wgmma_a_64x8[] = {
	{4, 1, 1, true, 1},   /* t: column t */
	{2, 0, 8, false, 1},  /* row g + 8 */
	{2, 1, 4, false, 2},  /* column t + 4 */
	{8, 0, 1, true, 4},   /* g: row g */
	{4, 0, 16, true, 32}, /* w: rows 16w .. */
};

/* B of WGMMA comes from shared memory only: no register fragment */
#define NO_ATOM(rows, cols) {(rows), (cols), 0, NULL}
/* n: the N steps the instruction is planned in, c_atom its m x n
 * accumulator; the A atom last, as it holds commas */
#define WGMMA_ACC(name, n, c_atom, k, a_t, b_t, acc_t, tf32, majors, ...)                                 \
	{name, 64, (n), (k), 256, (a_t), (b_t), (acc_t), 128, TLC_MMA_FROM_REGS | TLC_MMA_FROM_SHARED | (tf32),  \
	 TLC_MMA_FROM_SHARED | (tf32), __VA_ARGS__, NO_ATOM((k), (n)), ATOM(64, (n), c_atom), (majors)}
#define WGMMA(name, k, a_t, b_t, a_atom, majors)                                                              \
	WGMMA_ACC(name, 8, wgmma_c_64x8, k, a_t, b_t, TLC_DT_FLOAT32, 0, majors, a_atom)

static const tlc_matrix_inst sm80_matrix[] = {
	MMA_K16(TLC_DT_FLOAT16, TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MMA_K16(TLC_DT_BFLOAT16, TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MMA_K32(TLC_DT_INT8, TLC_DT_INT8, TLC_DT_INT32),
	MMA_K32(TLC_DT_UINT8, TLC_DT_UINT8, TLC_DT_INT32),
	MMA_K8_TF32,
};

/* sm_90a: WGMMA first (a gemm takes the first row that fits it: WGMMA
 * wants warpgroups and swizzled shared operands), then the sm_80
 * instructions and float8 mma.sync (sm_89 and later).  WGMMA transposes
 * 16-bit operands only: float8, int8 and tf32 read K-major operands only
 * (PTX ISA, wgmma.mma_async: imm-trans-a/b are valid for .f16/.bf16), so a
 * gemm of those with an MN-major operand falls to the mma.sync row. */
static const tlc_matrix_inst sm90_matrix[] = {
	WGMMA("wgmma.m64nNk16", 16, TLC_DT_FLOAT16, TLC_DT_FLOAT16, ATOM(64, 16, wgmma_a_64x16), 0),
	WGMMA("wgmma.m64nNk16", 16, TLC_DT_BFLOAT16, TLC_DT_BFLOAT16, ATOM(64, 16, wgmma_a_64x16), 0),
	WGMMA("wgmma.m64nNk32", 32, TLC_DT_FLOAT8_E4M3, TLC_DT_FLOAT8_E4M3, ATOM(64, 32, wgmma_a_64x32), TLC_MMA_K_MAJOR),
	WGMMA("wgmma.m64nNk32", 32, TLC_DT_FLOAT8_E5M2, TLC_DT_FLOAT8_E5M2, ATOM(64, 32, wgmma_a_64x32), TLC_MMA_K_MAJOR),
	/* integer wgmma takes N = 8, 16, 24 and the multiples of 16 (ptxas
	 * refuses m64n40k32 .s8): planned in steps of 16 */
	WGMMA_ACC("wgmma.m64nNk32", 16, wgmma_c_64x16, 32, TLC_DT_INT8, TLC_DT_INT8, TLC_DT_INT32, 0, TLC_MMA_K_MAJOR,
	          ATOM(64, 32, wgmma_a_64x32)),
	WGMMA_ACC("wgmma.m64nNk32", 16, wgmma_c_64x16, 32, TLC_DT_UINT8, TLC_DT_UINT8, TLC_DT_INT32, 0, TLC_MMA_K_MAJOR,
	          ATOM(64, 32, wgmma_a_64x32)),
	WGMMA_ACC("wgmma.m64nNk8", 8, wgmma_c_64x8, 8, TLC_DT_FLOAT32, TLC_DT_FLOAT32, TLC_DT_FLOAT32, TLC_MMA_READS_TF32,
	          TLC_MMA_K_MAJOR, ATOM(64, 8, wgmma_a_64x8)),
	MMA_K16(TLC_DT_FLOAT16, TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MMA_K16(TLC_DT_BFLOAT16, TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MMA_K32(TLC_DT_INT8, TLC_DT_INT8, TLC_DT_INT32),
	MMA_K32(TLC_DT_UINT8, TLC_DT_UINT8, TLC_DT_INT32),
	MMA_K8_TF32,
	MMA_K32(TLC_DT_FLOAT8_E4M3, TLC_DT_FLOAT8_E4M3, TLC_DT_FLOAT32),
	MMA_K32(TLC_DT_FLOAT8_E5M2, TLC_DT_FLOAT8_E5M2, TLC_DT_FLOAT32),
};

/* The reference devices as PyTorch on a CUDA 12.8 installation names them
 * (torch.cuda.get_device_name(), get_device_capability()). */
static const tlc_target_device sm80_device = {
	.platform = "cuda", .runtime_version = "12.8", .name = "NVIDIA A100-SXM4-80GB", .arch = "sm_80",
	.capability_major = 8, .capability_minor = 0,
};
static const tlc_target_device sm90_device = {
	.platform = "cuda", .runtime_version = "12.8", .name = "NVIDIA H100 80GB HBM3", .arch = "sm_90a",
	.capability_major = 9, .capability_minor = 0,
};

const tlc_target_info cuda_sm80_info = {
	.struct_size = sizeof(tlc_target_info),
	.lanes = 32,
	.warpgroup = 0,
	.max_threads = 1024,
	.smem_default = 48 * 1024,
	.smem_max = 163 * 1024,
	.max_regs = 255,
	.local_bytes_max = 512 * 1024,
	.regs_per_block = 64 * 1024,
	.global_vector_bytes = 16,
	.shared_vector_bytes = 16,
	.atomic_add_f32_vector = 1,
	.async_copy = TLC_ASYNC_CP_ASYNC,
	.barriers = TLC_BARRIER_NAMED | TLC_BARRIER_MBARRIER,
	.setmaxnreg = false,
	.max_cluster = 1,
	.nmatrix = (int)(sizeof(sm80_matrix) / sizeof(sm80_matrix[0])),
	.matrix = sm80_matrix,
	.sm_count = 108, /* the reference device: A100 */
	/* CUDA C++ Programming Guide, compute capability 8.0: 164 KB of shared
	 * memory per SM, 1 KB of it reserved for each resident block */
	.smem_per_sm = 164 * 1024,
	.smem_block_reserved = 1024,
	.device = &sm80_device,
	.named_barriers = 16, /* PTX ISA, bar.sync: barrier ids 0..15 */
};

const tlc_target_info cuda_sm90_info = {
	.struct_size = sizeof(tlc_target_info),
	.lanes = 32,
	.warpgroup = 128,
	.max_threads = 1024,
	.smem_default = 48 * 1024,
	.smem_max = 227 * 1024,
	.max_regs = 255,
	.local_bytes_max = 512 * 1024,
	.regs_per_block = 64 * 1024,
	.global_vector_bytes = 16,
	.shared_vector_bytes = 16,
	.atomic_add_f32_vector = 4, /* atomicAdd on float2 / float4 (sm_90) */
	.async_copy = TLC_ASYNC_CP_ASYNC | TLC_ASYNC_TMA | TLC_ASYNC_TMA_MULTICAST,
	.barriers = TLC_BARRIER_NAMED | TLC_BARRIER_MBARRIER | TLC_BARRIER_MBARRIER_TX,
	.setmaxnreg = true,
	.max_cluster = 8, /* the portable cluster size */
	.nmatrix = (int)(sizeof(sm90_matrix) / sizeof(sm90_matrix[0])),
	.matrix = sm90_matrix,
	.tma_box_max = 256, /* cuTensorMapEncodeTiled: boxDim[i] <= 256 */
	.sm_count = 132,    /* the reference device: H100 SXM5 */
	/* compute capability 9.0: 228 KB per SM, 1 KB reserved per block */
	.smem_per_sm = 228 * 1024,
	.smem_block_reserved = 1024,
	.stmatrix = true, /* stmatrix.sync.aligned.m8n8 (PTX ISA: sm_90 and up) */
	.device = &sm90_device,
	.named_barriers = 16, /* PTX ISA, bar.sync: barrier ids 0..15 */
};
