/* tlc/plugin.h - the plugin ABI.
 *
 * A plugin is a shared object exporting exactly one symbol, TLC_PLUGIN_SYMBOL,
 * a function returning a pointer to a const tlc_plugin_desc.  libtlc checks
 * abi_version and struct_size, then calls init() with a registry through which
 * the plugin registers its passes, targets and ops.  See doc/plugins.md. */
#ifndef TLC_PLUGIN_H
#define TLC_PLUGIN_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of a public header (ir.h, pass.h,
 * target.h, layout.h, config.h, ... or this file): 2 added the target
 * description (tlc_target_info) that passes read. */
#define TLC_PLUGIN_ABI_VERSION 2
#define TLC_PLUGIN_SYMBOL "tlc_plugin_entry_v1"
#define TLC_PLUGIN_ENTRY tlc_plugin_entry_v1

#if defined(__GNUC__)
#define TLC_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TLC_PLUGIN_EXPORT
#endif

typedef struct tlc_registry tlc_registry;
typedef struct tlc_pass_desc tlc_pass_desc;
typedef struct tlc_target_desc tlc_target_desc;

typedef struct tlc_plugin_desc {
	uint32_t abi_version; /* TLC_PLUGIN_ABI_VERSION */
	uint32_t struct_size; /* sizeof(tlc_plugin_desc) */
	const char *name;     /* unique among loaded plugins */
	const char *version;
	const char *description;
	/* Register passes, targets and ops; return 0 on success.  Report errors
	 * with tlc_diag on tlc_registry_context(reg). */
	int (*init)(tlc_registry *reg);
	void *reserved[4];
} tlc_plugin_desc;

typedef const tlc_plugin_desc *(*tlc_plugin_entry_fn)(void);

/* Registration (valid only inside init).  Return 0, or -1 after reporting a
 * duplicate name. The descriptors must outlive the context (static const). */
TLC_API int tlc_register_pass(tlc_registry *reg, const tlc_pass_desc *pass);
TLC_API int tlc_register_target(tlc_registry *reg, const tlc_target_desc *target);
/* Add an op printed as T.<name>; returns its id, or -1 if the name is taken. */
TLC_API tlc_op_id tlc_register_op(tlc_registry *reg, const char *name, int min_args, int max_args,
                                  unsigned flags);
TLC_API tlc_context *tlc_registry_context(tlc_registry *reg);

/* ---- loading (used by the driver) ---- */

/* Load the plugin file at `path` and run its init.  Errors are one line
 * naming the file and the reason (unloadable, missing entry symbol, ABI
 * mismatch, duplicate name).  Returns 0 or -1. */
TLC_API int tlc_plugin_load_file(tlc_context *ctx, const char *path);
/* Load a plugin given by path (contains '/') or bare name ("simplify" ->
 * "simplify.so"), searched in: `dirs` (--plugin-path), TLC_PLUGIN_PATH,
 * the plugins directory beside libtlc, the compiled-in plugin directory. */
TLC_API int tlc_plugin_load(tlc_context *ctx, const char *name_or_path, int ndirs,
                            const char *const *dirs);
/* Write the effective search directories, one per line, for --print-plugin-path. */
TLC_API void tlc_plugin_search_path(tlc_buf *out, int ndirs, const char *const *dirs);
TLC_API const tlc_pass_desc *tlc_find_pass(const tlc_context *ctx, const char *name);
TLC_API const tlc_target_desc *tlc_find_target(const tlc_context *ctx, const char *name);
/* Enumerate registered passes/targets (i from 0; NULL past the end). */
TLC_API const tlc_pass_desc *tlc_pass_at(const tlc_context *ctx, int i);
TLC_API const tlc_target_desc *tlc_target_at(const tlc_context *ctx, int i);
/* Enumerate loaded plugins (i from 0; NULL past the end); *path (if not NULL)
 * is set to the file it was loaded from.  For -v. */
TLC_API const tlc_plugin_desc *tlc_plugin_at(const tlc_context *ctx, int i, const char **path);
/* Name of the plugin that registered the i-th pass (as tlc_pass_at), or NULL. */
TLC_API const char *tlc_pass_plugin_at(const tlc_context *ctx, int i);

/* Define a plugin's entry point:  TLC_DEFINE_PLUGIN(my_desc) */
#define TLC_DEFINE_PLUGIN(desc)                                                                    \
	TLC_PLUGIN_EXPORT const tlc_plugin_desc *TLC_PLUGIN_ENTRY(void);                           \
	TLC_PLUGIN_EXPORT const tlc_plugin_desc *TLC_PLUGIN_ENTRY(void) { return &(desc); }

#ifdef __cplusplus
}
#endif
#endif
