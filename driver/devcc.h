/* devcc.h - running the target's device compiler (nvcc or hipcc) for
 * tlc --emit=ptx|cubin|hsaco|so. */
#ifndef TLC_DRIVER_DEVCC_H
#define TLC_DRIVER_DEVCC_H

#include <stdbool.h>

#include <tlc/target.h>

typedef struct devcc_opts {
	const char *compiler; /* --nvcc=PATH / --hipcc=PATH, or NULL: $NVCC / $HIPCC, the configured path, PATH */
	int nextra;           /* -Xnvcc=ARG / -Xhipcc=ARG values, in order */
	const char *const *extra;
	bool keep_temps; /* --keep-temps: keep the temporary directory, say where */
	bool verbose;    /* -v: print the compiler command on stderr */
} devcc_opts;

/* True for the --emit kinds built by the device compiler. */
bool devcc_is_binary_kind(const char *kind);

/* Compile `source` (the target's generated .cu / .hip) to `kind` ("ptx",
 * "cubin" or "so" with nvcc; "hsaco" or "so" with hipcc) and write the result to `output` ("-": stdout, ptx only).  `stem`
 * names the temporary source so that compiler messages name the kernel file.
 * Temporary files are removed unless o->keep_temps.  Returns a TLC_EXIT_*
 * code after reporting any error on stderr. */
int devcc_build(const tlc_target_desc *t, const devcc_opts *o, const char *kind, const char *stem,
                const char *source, const char *output);

#endif
