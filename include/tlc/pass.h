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

struct tlc_pass_desc {
	const char *name;    /* unique, e.g. "simplify" */
	const char *summary; /* one line, for --list-passes */
	/* Transform one function in place.  Return 0 on success, nonzero after
	 * reporting errors with tlc_diag (user errors) or tlc_internal_error. */
	int (*run)(tlc_module *m, tlc_func *f, const tlc_pass_options *opts);
	unsigned flags; /* TLC_PASS_* */
	void *reserved[3];
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
