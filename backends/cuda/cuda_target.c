/* cuda_target.c - the cuda target plugin: registers cuda-sm90 and cuda-sm80.
 *
 * Both targets print through the shared GPU C++ printer (backends/gpu) with
 * CUDA's spellings (cuda_vendor.c); they differ in their nvcc flags and in
 * their machine descriptions (cuda_info.c), which passes read through
 * tlc_module_target_info(). */
#include <tlc/plugin.h>
#include <tlc/target.h>

#include "cuda_emit.h"

static int emit_sm90(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out);
static int emit_sm80(tlc_module *m, const tlc_pass_options *opts, tlc_codegen_result *out);

/* nvcc flags for tlc --emit=ptx|cubin|so (and the banner of the .cu).
 * sm_90a (not sm_90): WGMMA and setmaxnreg exist only in the arch-specific
 * variant. */
static const char *const sm90_arch_flags[] = {"-gencode=arch=compute_90a,code=sm_90a", NULL};
static const char *const sm90_asm_flags[] = {"-arch=compute_90a", NULL};
static const char *const sm80_arch_flags[] = {"-gencode=arch=compute_80,code=sm_80", NULL};
static const char *const sm80_asm_flags[] = {"-arch=compute_80", NULL};

static const tlc_target_desc cuda_sm90_target =
    GPU_TARGET_DESC("cuda-sm90", "NVIDIA Hopper (sm_90a): CUDA C++ with extern \"C\" launchers", "cu", emit_sm90, "nvcc",
                    sm90_arch_flags, sm90_asm_flags, &cuda_sm90_info);
static const tlc_target_desc cuda_sm80_target =
    GPU_TARGET_DESC("cuda-sm80", "NVIDIA Ampere (sm_80): CUDA C++ with extern \"C\" launchers", "cu", emit_sm80, "nvcc",
                    sm80_arch_flags, sm80_asm_flags, &cuda_sm80_info);

static const gpu_target sm90 = {&cuda_sm90_target, "sm_90a", &cuda_vendor};
static const gpu_target sm80 = {&cuda_sm80_target, "sm_80", &cuda_vendor};

GPU_TARGET_EMIT(emit_sm90, sm90)
GPU_TARGET_EMIT(emit_sm80, sm80)

static int cuda_plugin_init(tlc_registry *reg)
{
	static const tlc_target_desc *const targets[] = {&cuda_sm90_target, &cuda_sm80_target};
	return gpu_register_targets(reg, targets, 2);
}

/* what the plugin is, then the ABI stamp */
static const tlc_plugin_desc cuda_plugin = {
	.name = "cuda",
	.description = "CUDA targets cuda-sm90 and cuda-sm80",
	.version = "0.1.0",
	.init = cuda_plugin_init,
	.abi_version = TLC_PLUGIN_ABI_VERSION,
	.struct_size = sizeof(tlc_plugin_desc),
};

TLC_DEFINE_PLUGIN(cuda_plugin)
