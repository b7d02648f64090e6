/* tlc/target.h - code generation targets. */
#ifndef TLC_TARGET_H
#define TLC_TARGET_H

#include <tlc/pass.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a target produces for one module. */
typedef struct tlc_codegen_result {
	tlc_buf source; /* .cu / .hip text: device code + extern "C" host launchers */
	tlc_buf header; /* C header declaring the launchers */
} tlc_codegen_result;

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
	void *reserved[1];
};

#ifdef __cplusplus
}
#endif
#endif
