/* hip_emit.h - private declarations of the hip target plugin.
 *
 * The plugin prints through the shared GPU C++ printer (backends/gpu,
 * gpu_printer.h), like the cuda plugin; what is AMD's own lives here: the
 * machine descriptions (hip_info.c), the HIP spellings (hip_vendor.c), the
 * MFMA gemm (hip_ops.c, through the tlc_mfma device helper) and the device
 * helper text embedded in the plugin. */
#ifndef TLC_HIP_EMIT_H
#define TLC_HIP_EMIT_H

#include <tlc/target.h>

#include "gpu_printer.h" /* -I backends/gpu */

/* The machine descriptions (hip_info.c). */
extern const tlc_target_info hip_gfx90a_info;
extern const tlc_target_info hip_gfx942_info;

/* The HIP spellings of the shared printer (hip_vendor.c). */
extern const gpu_vendor hip_vendor;

/* HIP's device helpers, after the shared ones (gpu_printer.h). */
enum {
	HIP_HELPER_FP8 = GPU_HELPER_VENDOR << 0,  /* device/tlc_fp8.hip.h: float8 fnuz types */
	HIP_HELPER_MFMA = GPU_HELPER_VENDOR << 1, /* device/tlc_mfma.hip.h */
};

/* ---- hip_ops.c ---- */

/* T.mma_gemm on MFMA: per-lane operand loads from LDS through the
 * instruction's fragments, then __builtin_amdgcn_mfma_*. */
void hip_emit_mma_gemm(gpu_emitter *e, const tlc_expr *call, int ind);

/* ---- device_text.c ---- */

/* The text of backends/hip/device/NAME.hip.h (NAME without the suffix),
 * to paste into a generated .hip; NULL for an unknown name. */
const char *hip_device_text(const char *name);

#endif
