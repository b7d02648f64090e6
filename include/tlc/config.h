/* tlc/config.h - the INI configuration and the pass manager.
 *
 * The INI file (doc/pipeline.md) says which plugins to load, the pass order
 * of each target ([pipeline.<target>]) and the options of each pass
 * ([pass.<name>]) and target ([target.<name>]).  The pass manager runs a list
 * of passes over a module with the debugging aids of --print-after,
 * --verify-each and --time-passes. */
#ifndef TLC_CONFIG_H
#define TLC_CONFIG_H

#include <tlc/pass.h>
#include <tlc/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the INI configuration ---- */

typedef struct tlc_config tlc_config;

/* An empty configuration: no plugins, no pipelines, no options. */
TLC_API tlc_config *tlc_config_new(void);
TLC_API void tlc_config_free(tlc_config *cfg);

/* Read the INI file at `path` into cfg.  Syntax errors, unknown sections and
 * unknown keys are reported as `file:line:col: error: ...`; returns 0 or -1. */
TLC_API int tlc_config_load(tlc_context *ctx, tlc_config *cfg, const char *path);
/* The same for INI text held in memory; `name` is used in messages. */
TLC_API int tlc_config_load_string(tlc_context *ctx, tlc_config *cfg, const char *name,
                                   const char *text);

/* The file to read when --config is not given: $TLC_CONFIG, else
 * <libdir of the running libtlc>/../share/tlc/tlc.ini, else the installed
 * pkgdatadir's tlc.ini.  NULL when none exists.  The caller frees it. */
TLC_API char *tlc_config_default_path(void);
/* Where tlc_config_default_path looks, in order, as one line for messages. */
TLC_API void tlc_config_search_path(tlc_buf *out);
/* The file cfg was read from, or NULL. */
TLC_API const char *tlc_config_path(const tlc_config *cfg);

/* Plugins of [plugins] `load = NAME`, in file order (i from 0; NULL past the end). */
TLC_API const char *tlc_config_plugin_at(const tlc_config *cfg, int i);
/* [tlc] default_target, or NULL. */
TLC_API const char *tlc_config_default_target(const tlc_config *cfg);
/* The passes of [pipeline.<target>] in order: returns their number and sets
 * *names, or -1 when the file has no such section. */
TLC_API int tlc_config_pipeline(const tlc_config *cfg, const char *target,
                                const char *const **names);

/* Check, once plugins are loaded, that every pass named in a pipeline or a
 * [pass.X] section is registered and every [target.X] names a target.
 * Reports `file:line:col: error: unknown pass 'X'`; returns 0 or -1. */
TLC_API int tlc_config_check(tlc_context *ctx, const tlc_config *cfg);

/* Apply --pass-arg=NAME.KEY=VALUE (NAME a pass or a target; later values win
 * over the INI).  Reports malformed arguments; returns 0 or -1.  Whether NAME
 * exists is checked by tlc_config_check. */
TLC_API int tlc_config_set_pass_arg(tlc_context *ctx, tlc_config *cfg, const char *arg);

/* Options of the pass or target `name` (never NULL; empty when none set). */
TLC_API const tlc_pass_options *tlc_config_options(const tlc_config *cfg, const char *name);

/* ---- the pass manager ---- */

typedef struct tlc_pipeline_opts {
	const tlc_target_desc *target;   /* the target compiled for: passes read its description; may be NULL */
	int npasses;
	const char *const *passes;       /* pass names, in order */
	const tlc_config *config;        /* pass options; may be NULL */
	int nprint_before;
	const char *const *print_before; /* --print-before=P */
	int nprint_after;
	const char *const *print_after;  /* --print-after=P */
	bool print_before_all;
	bool print_after_all;
	bool verify_each;                /* tlc_verify_module after every pass */
	bool time_passes;                /* per-pass wall time table on stderr */
} tlc_pipeline_opts;

/* Check that every name in o->passes, o->print_before and o->print_after is a
 * registered pass; reports `tlc: error: unknown pass 'X'`; returns 0 or -1. */
TLC_API int tlc_pipeline_check(tlc_context *ctx, const tlc_pipeline_opts *o);

/* Run the passes in order, each over every function of m, under a crash
 * handler that names the pass.  Stops at the first pass that fails.  Returns
 * 0, or -1 after errors (tlc_had_internal_error tells a bug from a user error). */
TLC_API int tlc_run_passes(tlc_module *m, const tlc_pipeline_opts *o);

#ifdef __cplusplus
}
#endif
#endif
