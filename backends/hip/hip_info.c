/* hip_info.c - the machine descriptions of hip-gfx90a (AMD Instinct MI200,
 * CDNA2) and hip-gfx942 (MI300, CDNA3): what every pass may assume about
 * them, and their MFMA instructions with the register fragments the AMD
 * ISA documents ("CDNA2/CDNA3 Instruction Set Architecture", the matrix
 * instructions' dependent-register layouts; the AMD Matrix Instruction
 * Calculator prints the same tables).
 *
 * A wavefront has 64 lanes; an MFMA instruction is issued by one
 * wavefront.  Fragments are in the digit form of tlc/layout.h: {radix,
 * dimension, stride in that dimension, thread digit?, weight}.  With lane
 * l and register j (one element of the operand's vector) they read as the
 * ISA's formulas:
 *   16x16 (k = 4 per lane):  A[l % 16][4 (l / 16) + j], B[4 (l / 16) + j][l % 16],
 *                            D[4 (l / 16) + j][l % 16]
 *   32x32 (k = 4 per lane):  A[l % 32][4 (l / 32) + j], B[4 (l / 32) + j][l % 32],
 *                            D[8 (j / 4) + 4 (l / 32) + j % 4][l % 32]
 *   16x16x4 float32:         A[l % 16][l / 16], B[l / 16][l % 16]
 *   16x16x32 8-bit (CDNA3):  A[l % 16][8 (l / 16) + j], B[8 (l / 16) + j][l % 16]
 *                            (int8, and float8 in CDNA3's fnuz encodings)
 * There is no ldmatrix: each lane reads its operand elements from LDS
 * itself (the hip target's MFMA helper, through these fragments). */
#include <tlc/target.h>

#include "hip_emit.h"

/* 16x16 operands with 4 elements per lane along K: A (m x k), B (k x n) */
static const tlc_frag_digit mfma_a_16x16k4[] = {
	{4, 1, 1, false, 1},  /* j: k % 4 */
	{16, 0, 1, true, 1},  /* l % 16: the row */
	{4, 1, 4, true, 16},  /* l / 16: k / 4 */
};
static const tlc_frag_digit mfma_b_16x16k4[] = {
	{4, 0, 1, false, 1},  /* j: k % 4 */
	{16, 1, 1, true, 1},  /* l % 16: the column */
	{4, 0, 4, true, 16},  /* l / 16: k / 4 */
};
/* the 16x16 accumulator: 4 registers down a column */
static const tlc_frag_digit mfma_c_16x16[] = {
	{4, 0, 1, false, 1},  /* j: row % 4 */
	{16, 1, 1, true, 1},  /* l % 16: the column */
	{4, 0, 4, true, 16},  /* l / 16: row / 4 */
};

/* 32x32 operands with 4 elements per lane along K (k = 8) */
static const tlc_frag_digit mfma_a_32x8[] = {
	{4, 1, 1, false, 1},  /* j: k % 4 */
	{32, 0, 1, true, 1},  /* l % 32: the row */
	{2, 1, 4, true, 32},  /* l / 32: k / 4 */
};
static const tlc_frag_digit mfma_b_8x32[] = {
	{4, 0, 1, false, 1},  /* j: k % 4 */
	{32, 1, 1, true, 1},  /* l % 32: the column */
	{2, 0, 4, true, 32},  /* l / 32: k / 4 */
};
/* the 32x32 accumulator: 16 registers, 4 groups of 4 rows */
static const tlc_frag_digit mfma_c_32x32[] = {
	{4, 0, 1, false, 1},  /* j % 4: row % 4 */
	{32, 1, 1, true, 1},  /* l % 32: the column */
	{2, 0, 4, true, 32},  /* l / 32: row bit 2 */
	{4, 0, 8, false, 4},  /* j / 4: row / 8 */
};

/* float32 16x16x4: one element per lane */
static const tlc_frag_digit mfma_a_16x4[] = {
	{16, 0, 1, true, 1},  /* l % 16: the row */
	{4, 1, 1, true, 16},  /* l / 16: k */
};
static const tlc_frag_digit mfma_b_4x16[] = {
	{16, 1, 1, true, 1},  /* l % 16: the column */
	{4, 0, 1, true, 16},  /* l / 16: k */
};

/* 8-bit 16x16x32 (CDNA3): 8 elements per lane along K */
static const tlc_frag_digit mfma_a_16x32[] = {
	{8, 1, 1, false, 1},  /* j: k % 8 */
	{16, 0, 1, true, 1},  /* l % 16: the row */
	{4, 1, 8, true, 16},  /* l / 16: k / 8 */
};
static const tlc_frag_digit mfma_b_32x16[] = {
	{8, 0, 1, false, 1},  /* j: k % 8 */
	{16, 1, 1, true, 1},  /* l % 16: the column */
	{4, 0, 8, true, 16},  /* l / 16: k / 8 */
};

#define ATOM(rows, cols, digits) {(rows), (cols), (int)(sizeof(digits) / sizeof((digits)[0])), (digits)}
#define MFMA(name, m, n, k, a_t, acc_t, fa, fb, fc)                                                          \
	{name, (m), (n), (k), (n), (a_t), (a_t), (acc_t), 64, TLC_MMA_FROM_REGS, TLC_MMA_FROM_REGS, fa, fb, fc, 0}
#define MFMA_16x16x16(name, t, acc)                                                                          \
	MFMA(name, 16, 16, 16, t, acc, ATOM(16, 16, mfma_a_16x16k4), ATOM(16, 16, mfma_b_16x16k4),             \
	     ATOM(16, 16, mfma_c_16x16))
#define MFMA_32x32x8(name, t, acc)                                                                           \
	MFMA(name, 32, 32, 8, t, acc, ATOM(32, 8, mfma_a_32x8), ATOM(8, 32, mfma_b_8x32), ATOM(32, 32, mfma_c_32x32))

/* A gemm takes the first row that fits it: 16x16 first (it tiles the most
 * shapes and needs 4 accumulator registers per 16x16, not 16 per 32x32). */
static const tlc_matrix_inst gfx90a_matrix[] = {
	MFMA_16x16x16("v_mfma_f32_16x16x16f16", TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MFMA_16x16x16("v_mfma_f32_16x16x16bf16_1k", TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MFMA_32x32x8("v_mfma_f32_32x32x8f16", TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MFMA_32x32x8("v_mfma_f32_32x32x8bf16_1k", TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MFMA("v_mfma_f32_16x16x4f32", 16, 16, 4, TLC_DT_FLOAT32, TLC_DT_FLOAT32, ATOM(16, 4, mfma_a_16x4),
	     ATOM(4, 16, mfma_b_4x16), ATOM(16, 16, mfma_c_16x16)),
	MFMA_16x16x16("v_mfma_i32_16x16x16i8", TLC_DT_INT8, TLC_DT_INT32),
};

/* CDNA3 keeps the 16-bit and float32 rows, widens 8-bit K to 32 and adds
 * float8 in its fnuz encodings (fp8 = e4m3fnuz, bf8 = e5m2fnuz) */
static const tlc_matrix_inst gfx942_matrix[] = {
	MFMA_16x16x16("v_mfma_f32_16x16x16f16", TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MFMA_16x16x16("v_mfma_f32_16x16x16bf16_1k", TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MFMA_32x32x8("v_mfma_f32_32x32x8f16", TLC_DT_FLOAT16, TLC_DT_FLOAT32),
	MFMA_32x32x8("v_mfma_f32_32x32x8bf16_1k", TLC_DT_BFLOAT16, TLC_DT_FLOAT32),
	MFMA("v_mfma_f32_16x16x4f32", 16, 16, 4, TLC_DT_FLOAT32, TLC_DT_FLOAT32, ATOM(16, 4, mfma_a_16x4),
	     ATOM(4, 16, mfma_b_4x16), ATOM(16, 16, mfma_c_16x16)),
	MFMA("v_mfma_i32_16x16x32_i8", 16, 16, 32, TLC_DT_INT8, TLC_DT_INT32, ATOM(16, 32, mfma_a_16x32),
	     ATOM(32, 16, mfma_b_32x16), ATOM(16, 16, mfma_c_16x16)),
	MFMA("v_mfma_f32_16x16x32_fp8_fp8", 16, 16, 32, TLC_DT_FLOAT8_E4M3FNUZ, TLC_DT_FLOAT32, ATOM(16, 32, mfma_a_16x32),
	     ATOM(32, 16, mfma_b_32x16), ATOM(16, 16, mfma_c_16x16)),
	MFMA("v_mfma_f32_16x16x32_bf8_bf8", 16, 16, 32, TLC_DT_FLOAT8_E5M2FNUZ, TLC_DT_FLOAT32, ATOM(16, 32, mfma_a_16x32),
	     ATOM(32, 16, mfma_b_32x16), ATOM(16, 16, mfma_c_16x16)),
};

/* Both: wave64, 64 KiB of LDS per workgroup, 512 VGPRs per lane (256
 * architectural + 256 accumulation), 16-byte global and LDS accesses
 * (global_load_dwordx4, ds_read_b128), no asynchronous copy engine, no
 * named barriers or mbarriers (s_barrier only). */
#define CDNA_INFO(table, cus, dev)                                                                            \
	{                                                                                                        \
		.struct_size = sizeof(tlc_target_info), .lanes = 64, .warpgroup = 0, .max_threads = 1024,           \
		.smem_default = 64 * 1024, .smem_max = 64 * 1024, .max_regs = 512, .local_bytes_max = 128 * 1024, \
		.regs_per_block = 128 * 1024, .global_vector_bytes = 16, .shared_vector_bytes = 16,                 \
		.atomic_add_f32_vector = 1, .async_copy = 0, .barriers = 0, .setmaxnreg = false, .max_cluster = 1, \
		.nmatrix = (int)(sizeof(table) / sizeof((table)[0])), .matrix = (table), .tma_box_max = 0,         \
		.sm_count = (cus), .smem_per_sm = 64 * 1024, .smem_block_reserved = 0, .device = (dev),            \
	}

/* The reference devices as PyTorch on ROCm 6.2 names them: the capability
 * is the gfx version's major and minor digit (gfx942 is (9, 4)). */
static const tlc_target_device gfx90a_device = {
	.platform = "hip", .runtime_version = "6.2.41133", .name = "AMD Instinct MI250X",
	.arch = "gfx90a",
	.capability_major = 9, .capability_minor = 0,
};
static const tlc_target_device gfx942_device = {
	.platform = "hip", .runtime_version = "6.2.41133", .name = "AMD Instinct MI300X",
	.arch = "gfx942",
	.capability_major = 9, .capability_minor = 4,
};

/* compute units of the reference devices: one GCD of an MI250X (110), an
 * MI300X (304) */
const tlc_target_info hip_gfx90a_info = CDNA_INFO(gfx90a_matrix, 110, &gfx90a_device);
const tlc_target_info hip_gfx942_info = CDNA_INFO(gfx942_matrix, 304, &gfx942_device);
