/* tlc/pass.h - passes and the pass manager. */
#ifndef TLC_PASS_H
#define TLC_PASS_H

#include <tlc/diag.h>
#include <tlc/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options of one pass, from the INI section [pass.<name>] and --pass-arg. */
typedef struct tlc_pass_options tlc_pass_options;
/* Value of option `key`, or `def` if unset. */
TLC_API const char *tlc_opt_str(const tlc_pass_options *o, const char *key, const char *def);
TLC_API long tlc_opt_int(const tlc_pass_options *o, const char *key, long def);
TLC_API bool tlc_opt_bool(const tlc_pass_options *o, const char *key, bool def);

/* An option a pass reads (tlc_pass_desc.options): its name, its kind, and
 * one line for the error that lists a pass's options. */
typedef enum tlc_opt_kind {
	TLC_OPT_BOOL,   /* 1/0, true/false, yes/no, on/off */
	TLC_OPT_INT,    /* a decimal (or 0x) integer */
	TLC_OPT_STRING, /* anything */
} tlc_opt_kind;

typedef struct tlc_pass_option {
	const char *name; /* NULL ends the list */
	tlc_opt_kind kind;
	const char *summary;
} tlc_pass_option;

struct tlc_pass_desc {
	const char *name;    /* unique, e.g. "simplify" */
	const char *summary; /* one line, for --list-passes */
	/* Transform one function in place.  Return 0 on success, nonzero after
	 * reporting errors with tlc_diag (user errors) or tlc_internal_error. */
	int (*run)(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
	unsigned flags; /* TLC_PASS_* */
	/* The options the pass reads, ended by {NULL}; a key of [pass.NAME] or
	 * --pass-arg=NAME.KEY=VALUE that is not one of them, or a value not of
	 * its kind, is an error before any pass runs.  NULL: not declared (a
	 * plugin built before this field): its options are not checked. */
	const tlc_pass_option *options;
	void *reserved[2];
};

enum {
	/* The pass places the block's barriers (sync-insert): from then on,
	 * --verify-each also checks them (tlc_verify_barriers) after every pass. */
	TLC_PASS_PLACES_BARRIERS = 1 << 0,
};

/* Simplify one expression (constant folding, canonical arithmetic); shared by
 * every pass that builds index arithmetic. */
TLC_API const tlc_expr *tlc_simplify_expr(tlc_module *m, const tlc_expr *e);

#ifdef __cplusplus
}
#endif
#endif
