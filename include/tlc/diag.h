/* tlc/diag.h - diagnostics, growable strings and the compile context. */
#ifndef TLC_DIAG_H
#define TLC_DIAG_H

#include <stdarg.h>
#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- growable string ---- */

struct tlc_buf {
	char *data; /* NUL-terminated; NULL while empty */
	size_t len;
	size_t cap;
};

TLC_API void tlc_buf_init(tlc_buf *b);
TLC_API void tlc_buf_free(tlc_buf *b);
TLC_API void tlc_buf_puts(tlc_buf *b, const char *s);
TLC_API void tlc_buf_putc(tlc_buf *b, char c);
TLC_API void tlc_buf_printf(tlc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
TLC_API void tlc_buf_vprintf(tlc_buf *b, const char *fmt, va_list ap);
/* Append `n` spaces. */
TLC_API void tlc_buf_indent(tlc_buf *b, int n);
/* The contents as a C string ("" when empty). */
TLC_API const char *tlc_buf_str(const tlc_buf *b);

/* ---- context ---- */

/* Exit codes of the driver (DESIGN.md §2). */
enum { TLC_EXIT_OK = 0, TLC_EXIT_ERROR = 1, TLC_EXIT_USAGE = 2, TLC_EXIT_INTERNAL = 70 };

/* Create a compile session: an empty registry holding the builtin ops,
 * diagnostics written to stderr. */
TLC_API tlc_context *tlc_context_new(void);
TLC_API void tlc_context_free(tlc_context *ctx);

/* Register a source file so that locations can point into it; returns its
 * file index for tlc_loc.file.  The text is copied. */
TLC_API uint32_t tlc_add_source(tlc_context *ctx, const char *name, const char *text, size_t len);

typedef enum tlc_severity { TLC_NOTE, TLC_WARNING, TLC_ERROR } tlc_severity;

/* Report `file:line:col: severity: message`, the source line and a caret
 * when the location is known; `tlc: severity: message` otherwise. */
TLC_API void tlc_diag(tlc_context *ctx, tlc_severity sev, tlc_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
TLC_API void tlc_vdiag(tlc_context *ctx, tlc_severity sev, tlc_loc loc, const char *fmt, va_list ap);
#define tlc_error(ctx, loc, ...) tlc_diag((ctx), TLC_ERROR, (loc), __VA_ARGS__)
#define tlc_warning(ctx, loc, ...) tlc_diag((ctx), TLC_WARNING, (loc), __VA_ARGS__)
#define tlc_note(ctx, loc, ...) tlc_diag((ctx), TLC_NOTE, (loc), __VA_ARGS__)
/* Number of errors reported so far. */
TLC_API int tlc_error_count(const tlc_context *ctx);
/* Send diagnostics to a buffer instead of stderr (for tests); NULL restores stderr. */
TLC_API void tlc_diag_capture(tlc_context *ctx, tlc_buf *sink);
/* Print diagnostics without the source line and caret. */
TLC_API void tlc_diag_set_caret(tlc_context *ctx, bool enabled);

/* "Did you mean": offer the candidates one by one (tlc_suggest_add); the
 * closest by edit distance, within a third of the word's length (at least
 * one edit), is kept.  Case differences count as half an edit. */
typedef struct tlc_suggestion {
	const char *word;
	const char *best; /* NULL: none close enough */
	int cost;         /* twice the edit distance of best */
} tlc_suggestion;
TLC_API void tlc_suggest_init(tlc_suggestion *s, const char *word);
TLC_API void tlc_suggest_add(tlc_suggestion *s, const char *candidate);
/* "; did you mean 'X'?" into buf (empty when there is no suggestion). */
TLC_API const char *tlc_suggest_text(const tlc_suggestion *s, char *buf, size_t n);

/* Report an internal error in `pass` (a bug in tlc or a plugin); the driver
 * exits with TLC_EXIT_INTERNAL. */
TLC_API void tlc_internal_error(tlc_context *ctx, const char *pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
TLC_API bool tlc_had_internal_error(const tlc_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
