/* internal.h - libtlc's private declarations, grouped by file.
 * Nothing here is part of the installed API. */
#ifndef TLC_INTERNAL_H
#define TLC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/pass.h>
#include <tlc/plugin.h>
#include <tlc/target.h>

#define TLC_HIDDEN __attribute__((visibility("hidden")))
#define TLC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- arena.c ---- */

/* A bump allocator; blocks are freed together by tlc_arena_free. */
tlc_arena *tlc_arena_new(void);
void tlc_arena_free(tlc_arena *a);
void *tlc_arena_alloc(tlc_arena *a, size_t n); /* zeroed, 8-byte aligned */
char *tlc_arena_strdup(tlc_arena *a, const char *s);
char *tlc_arena_strndup(tlc_arena *a, const char *s, size_t n);

/* xmalloc and friends: abort with a message on out-of-memory. */
void *tlc_xmalloc(size_t n);
void *tlc_xcalloc(size_t n, size_t size);
void *tlc_xrealloc(void *p, size_t n);
char *tlc_xstrdup(const char *s);

/* ---- fragment_extent.c ---- */

/* Fragments that T.Parallel loops index at their loop variables beyond the
 * declared shape get the loops' extents, as TileLang's layouts give them
 * (with a warning); called by the frontend on each module it reads. */
void tlc_widen_parallel_fragments(tlc_context *ctx, tlc_module *m);

/* ---- diag.c ---- */

/* Diagnostics held back: what is reported between tlc_diag_hold and
 * tlc_diag_release goes to `held`, and release either lets it through
 * (as if never held) or takes it back, counts and all (the frontend tries
 * a host statement that it skips when it fails). */
typedef struct tlc_diag_held {
	tlc_buf held;
	tlc_buf *sink;
	int nerrors, nwarnings, nseen;
} tlc_diag_held;
void tlc_diag_hold(tlc_context *ctx, tlc_diag_held *h);
void tlc_diag_release(tlc_context *ctx, tlc_diag_held *h, bool keep);

/* ---- context.c ---- */

typedef struct tlc_source {
	char *name;
	char *text;
	size_t len;
	/* where each line starts, made the first time a diagnostic shows one of
	 * its lines (diag.c): a file with many errors is not rescanned per error */
	size_t *line_starts;
	uint32_t nlines;
} tlc_source;

typedef struct tlc_loaded_plugin {
	char *path;
	void *handle; /* dlopen handle */
	const tlc_plugin_desc *desc;
} tlc_loaded_plugin;

struct tlc_registry {
	tlc_context *ctx;
	const char *plugin_path; /* the plugin being initialised, for messages */
};

struct tlc_context {
	/* sources for diagnostics; index 0 unused */
	int nsources, cap_sources;
	tlc_source *sources;
	/* diagnostics */
	int nerrors, nwarnings;
	bool caret;
	bool internal_error;
	tlc_buf *diag_sink; /* NULL: stderr */
	/* the located diagnostics already reported (whole text), so that a
	 * statement that passes copied (pipelining's prologue, loop and
	 * epilogue) is reported once, not once per copy */
	int nseen, cap_seen;
	char **seen;
	/* op table: builtins first */
	int nops, cap_ops;
	tlc_op_info *ops;
	/* registry */
	int npasses, cap_passes;
	const tlc_pass_desc **passes;
	const char **pass_plugin; /* which plugin registered each pass */
	int ntargets, cap_targets;
	const tlc_target_desc **targets;
	int nplugins, cap_plugins;
	tlc_loaded_plugin *plugins;
	/* the pass currently running (for crash context and internal errors) */
	const char *current_pass;
};

/* Append an op to ctx's op table (the name is copied and owned by ctx);
 * returns its id, or -1 when the name is empty or taken.  plugin.c's
 * tlc_register_op is a thin wrapper. */
tlc_op_id tlc_context_add_op(tlc_context *ctx, const char *name, int min_args, int max_args,
                             unsigned flags);

/* ---- modules (opaque in ir.h) ---- */

struct tlc_module {
	tlc_context *ctx;
	tlc_arena *arena;
	int nfuncs, cap_funcs;
	tlc_func **funcs;
	void *hashcons;
	void *layout_cache; /* the layout of each layout expression seen (core/layout/layout_expr.c) */
	uint32_t next_id;
	const struct tlc_target_desc *target; /* see tlc_module_target_info (tlc/target.h) */
};

/* ---- expr.c ---- */

/* A total order on expressions that depends only on their structure and on
 * variable/buffer ids (never on addresses): the simplifier's canonical order. */
int tlc_expr_compare(const tlc_expr *a, const tlc_expr *b);

/* ---- target.c ---- */

/* NULL when a target plugin's machine description is usable, else what is
 * wrong with it (for the registration error).  Checks what is cheap to check
 * at every load; tlc_target_info_verify (tlc/target.h) checks everything. */
const char *tlc_target_info_check(const struct tlc_target_info *info);

#endif
