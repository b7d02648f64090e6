/* cuda_emit.h - private declarations of the cuda target plugin.
 *
 * The plugin prints through the shared GPU C++ printer (backends/gpu,
 * gpu_printer.h); what is NVIDIA's own lives here: the machine descriptions,
 * the CUDA spellings (cuda_vendor), the ops only CUDA prints (mma.sync
 * through the tlc_gemm.cuh device helper, float32 vector atomics) and the
 * device helper headers embedded in the plugin. */
#ifndef TLC_CUDA_EMIT_H
#define TLC_CUDA_EMIT_H

#include <tlc/target.h>

#include "gpu_printer.h" /* -I backends/gpu */

/* The machine descriptions (cuda_info.c). */
extern const tlc_target_info cuda_sm80_info;
extern const tlc_target_info cuda_sm90_info;

/* The CUDA spellings of the shared printer (cuda_vendor.c). */
extern const gpu_vendor cuda_vendor;

/* CUDA's device helpers, after the shared ones (gpu_printer.h). */
enum {
	CUDA_HELPER_GEMM = GPU_HELPER_VENDOR << 0,     /* device/tlc_gemm.cuh */
	CUDA_HELPER_CP_ASYNC = GPU_HELPER_VENDOR << 1, /* device/tlc_cp_async.cuh */
	CUDA_HELPER_WGMMA = GPU_HELPER_VENDOR << 2,    /* device/tlc_wgmma.cuh */
	CUDA_HELPER_TMA = GPU_HELPER_VENDOR << 3,      /* device/tlc_tma.cuh: mbarriers, TMA */
	CUDA_HELPER_TMA_HOST = GPU_HELPER_VENDOR << 4, /* device/tlc_tma_host.cuh: tensor maps (launcher) */
	CUDA_HELPER_STMATRIX = GPU_HELPER_VENDOR << 5, /* device/tlc_stmatrix.cuh */
	CUDA_HELPER_GEMM_X = GPU_HELPER_VENDOR << 6,   /* device/tlc_gemm_i8_tf32.cuh */
	CUDA_HELPER_WGMMA_X = GPU_HELPER_VENDOR << 7,  /* device/tlc_wgmma_i8_tf32.cuh (after tlc_wgmma) */
	CUDA_HELPER_MMA_SYNC = GPU_HELPER_VENDOR << 8, /* device/tlc_mma_sync.cuh (+ gemms) */
};

/* ---- cuda_ops.c: the ops only CUDA prints ---- */

/* T.mma_gemm: layout functors for the shared operands, then tlc::gemm_ss/rs. */
void cuda_emit_mma_gemm(gpu_emitter *e, const tlc_expr *call, int ind);
/* T.atomic_add_vec(dst[i..], src[j..], lanes): float32 vector atomics (sm_90). */
void cuda_emit_atomic_add_vec(gpu_emitter *e, const tlc_stmt *s, int ind);

/* T.wgmma_issue, T.wait_wgmma, T.warpgroup_fence_operand (sm_90a). */
void cuda_emit_wgmma(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.cp_async, T.cp_async_commit, T.cp_async_wait (sm_80 and up). */
void cuda_emit_cp_async(gpu_emitter *e, const tlc_stmt *s, int ind);

/* ---- cuda_ops.c, continued: Hopper synchronization and TMA (sm_90a) ---- */

/* T.mbarrier_init, T.mbarrier_fence_init, T.mbarrier_arrive,
 * T.barrier_arrive, T.mbarrier_wait_parity, T.barrier_wait,
 * T.mbarrier_expect_tx, T.mbarrier_arrive_expect_tx: the tlc::mbar_*
 * helpers of tlc_tma.cuh on T.alloc_barrier buffers. */
void cuda_emit_mbarrier(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.set_max_nreg(n, inc): setmaxnreg.inc / .dec. */
void cuda_emit_set_max_nreg(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.tma_load(A, dst[..], bar[..], c.., box=, swizzle=): tlc::tma_load on a
 * CUtensorMap kernel parameter that the launcher encodes (a gpu_host_arg). */
void cuda_emit_cluster_sync(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.stmatrix: a warp's store of 8x8 16-bit tiles (device/tlc_stmatrix.cuh). */
void cuda_emit_stmatrix(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.mma_sync: one mma.sync of a warp on its lanes' registers (device/tlc_mma_sync.cuh). */
void cuda_emit_mma_sync(gpu_emitter *e, const tlc_stmt *s, int ind);
void cuda_emit_tma_load(gpu_emitter *e, const tlc_stmt *s, int ind);
/* T.tma_store(A, src[..], c.., box=, swizzle=): tlc::tma_store into the
 * issuing thread's bulk group; T.tma_store_wait(): commit and wait for the
 * group's shared reads. */
void cuda_emit_tma_store(gpu_emitter *e, const tlc_stmt *s, int ind);

/* ---- device_text.c: the device helper headers embedded in the plugin ---- */

/* The text of backends/cuda/device/NAME.cuh (NAME without ".cuh", e.g.
 * "tlc_gemm"), to paste into a generated .cu; NULL for an unknown name. */
const char *cuda_device_text(const char *name);

#endif
