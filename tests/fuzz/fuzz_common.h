/* fuzz_common.h - what the libFuzzer harnesses of tests/fuzz share: a compile
 * session over the libtlc API with the instrumented plugins, run as the
 * driver runs it (doc/security.md, "Fuzzing").
 *
 * A harness reports a finding by crashing: a sanitizer report, abort() on an
 * internal error (exit status 70 of tlc: a bug by definition), or a broken
 * round trip.  Errors in the input (exit status 1 of tlc) are no findings. */
#ifndef TLC_FUZZ_COMMON_H
#define TLC_FUZZ_COMMON_H

#include <tlc/config.h>
#include <tlc/ir.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inputs longer than this are skipped: the interesting structure of a kernel
 * fits in it, and long inputs only slow the search down. */
#define FUZZ_MAX_INPUT 16384

typedef struct fuzz_session {
	tlc_context *ctx;
	tlc_config *cfg;
	tlc_buf diags; /* every diagnostic, shown when the harness aborts */
} fuzz_session;

/* Once per process: find the plugins and read the default configuration. */
void fuzz_init(void);

/* The text of etc/tlc.ini, read by fuzz_init. */
const char *fuzz_default_config(void);

/* A fresh context reading config_text: its plugins (only those built for
 * fuzzing, by name), then the check of its names.  Returns 0, or -1 when the
 * configuration has errors (the session is still open: close it). */
int fuzz_session_open(fuzz_session *s, const char *config_name, const char *config_text);
void fuzz_session_close(fuzz_session *s);

/* Print the diagnostics and why, then abort(): the harness found a bug. */
_Noreturn void fuzz_bug(const fuzz_session *s, const char *why, const char *input, size_t len);

/* A NUL-terminated copy of the input (free it). */
char *fuzz_text(const uint8_t *data, size_t size);

/* Run target_name's pipeline from the session's configuration over m and
 * emit its source text.  Returns 0 when it compiled, 1 on errors in the
 * input; aborts on an internal error.  strict (the default pipeline): with
 * --verify-each, and a barrier missing after a final sync-insert is a bug.
 * A hand-written pipeline gets neither: --verify-each blames the first pass
 * after sync-insert that leaves a conflict, even when the cause is the
 * pipeline's order (sync-insert before lower-tile-ops), and sync-insert only
 * places barriers in thread-level IR. */
int fuzz_pipeline_and_emit(fuzz_session *s, tlc_module *m, const char *target_name, bool strict,
                           const char *input, size_t len);

#endif
