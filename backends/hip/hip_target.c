/* hip_target.c - the hip target plugin: registers hip-gfx90a and hip-gfx942.
 *
 * Both print through the shared GPU C++ printer (backends/gpu) with HIP's
 * spellings (hip_vendor.c); they differ in their hipcc flags and in their
 * machine descriptions (hip_info.c), which passes read through
 * tlc_module_target_info().  hipcc older than LLVM 16 (Debian 12's 5.2.3)
 * does not know gfx942: configure then builds hip-gfx942 code for gfx940,
 * the same CDNA3 instruction set (TLC_HIP_GFX942_ARCH, doc/hip.md). */
#include "config.h"

#include <tlc/plugin.h>
#include <tlc/target.h>

#include "hip_emit.h"

#ifndef TLC_HIP_GFX942_ARCH
#define TLC_HIP_GFX942_ARCH "gfx942"
#endif

static int emit_gfx90a(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out);
static int emit_gfx942(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out);

/* hipcc flags for tlc --emit=hsaco|so (and the banner of the .hip); always
 * an explicit --offload-arch: without one hipcc asks the (absent) GPU */
static const char *const gfx90a_flags[] = {"--offload-arch=gfx90a", NULL};
static const char *const gfx942_flags[] = {"--offload-arch=" TLC_HIP_GFX942_ARCH, NULL};

static const tlc_target_desc hip_gfx90a_target =
    GPU_TARGET_DESC("hip-gfx90a", "AMD Instinct MI200 (gfx90a, CDNA2): HIP C++ with extern \"C\" launchers", "hip",
                    emit_gfx90a, "hipcc", gfx90a_flags, gfx90a_flags, &hip_gfx90a_info);
static const tlc_target_desc hip_gfx942_target =
    GPU_TARGET_DESC("hip-gfx942", "AMD Instinct MI300 (gfx942, CDNA3): HIP C++ with extern \"C\" launchers", "hip",
                    emit_gfx942, "hipcc", gfx942_flags, gfx942_flags, &hip_gfx942_info);

static const gpu_target gfx90a = {&hip_gfx90a_target, "gfx90a", &hip_vendor};
static const gpu_target gfx942 = {&hip_gfx942_target, TLC_HIP_GFX942_ARCH, &hip_vendor};

GPU_TARGET_EMIT(emit_gfx90a, gfx90a)
GPU_TARGET_EMIT(emit_gfx942, gfx942)

static int hip_plugin_init(tlc_registry *reg)
{
	static const tlc_target_desc *const targets[] = {&hip_gfx90a_target, &hip_gfx942_target};
	return gpu_register_targets(reg, targets, 2);
}

static const tlc_plugin_desc hip_plugin = {
	.name = "hip",
	.description = "HIP targets hip-gfx90a and hip-gfx942 (AMD CDNA, MFMA)",
	.version = "0.1.0",
	.init = hip_plugin_init,
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
};

TLC_DEFINE_PLUGIN(hip_plugin)
