/* diag.c - growable strings and diagnostics in the GNU style:
 *   file:line:col: error: message
 *   <the source line>
 *       ^
 */
#include "internal.h"

#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tlc_buf ---- */

void tlc_buf_init(tlc_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void tlc_buf_free(tlc_buf *b)
{
	free(b->data);
	tlc_buf_init(b);
}

static void buf_reserve(tlc_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = tlc_xrealloc(b->data, cap);
	b->cap = cap;
}

static void buf_putn(tlc_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void tlc_buf_puts(tlc_buf *b, const char *s)
{
	buf_putn(b, s, strlen(s));
}

void tlc_buf_putc(tlc_buf *b, char c)
{
	buf_putn(b, &c, 1);
}

void tlc_buf_vprintf(tlc_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void tlc_buf_printf(tlc_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tlc_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void tlc_buf_indent(tlc_buf *b, int n)
{
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	memset(b->data + b->len, ' ', (size_t)n);
	b->len += (size_t)n;
	b->data[b->len] = '\0';
}

const char *tlc_buf_str(const tlc_buf *b)
{
	return b->data ? b->data : "";
}

/* ---- diagnostics ---- */

static const char *severity_name(tlc_severity sev)
{
	switch (sev) {
	case TLC_NOTE: return "note";
	case TLC_WARNING: return "warning";
	default: return "error";
	}
}

static void emit(tlc_context *ctx, const tlc_buf *msg)
{
	if (ctx->diag_sink) {
		tlc_buf_puts(ctx->diag_sink, tlc_buf_str(msg));
	} else {
		fputs(tlc_buf_str(msg), stderr);
		fflush(stderr);
	}
}

/* True the first time this exact located diagnostic is reported (it is
 * remembered); a repeat still counts as an error or warning, it is only
 * not printed again. */
static bool first_report(tlc_context *ctx, const char *text)
{
	for (int i = 0; i < ctx->nseen; i++)
		if (strcmp(ctx->seen[i], text) == 0)
			return false;
	if (ctx->nseen == ctx->cap_seen) {
		int cap = ctx->cap_seen ? 2 * ctx->cap_seen : 16;
		char **n = realloc(ctx->seen, sizeof *n * (size_t)cap);
		if (!n)
			return true;
		ctx->seen = n;
		ctx->cap_seen = cap;
	}
	char *copy = strdup(text);
	if (copy)
		ctx->seen[ctx->nseen++] = copy;
	return true;
}

/* The source line holding `line` (1-based) of src, or NULL. */
/* Line `line` (from 1) of src and its length without the newline; NULL
 * past the end.  The first call indexes the lines' starts. */
static const char *find_line(tlc_source *src, uint32_t line, size_t *len)
{
	const char *end = src->text + src->len;
	if (!src->line_starts) {
		size_t n = 1;
		for (const char *p = src->text; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
			n++;
		if (n > UINT32_MAX)
			n = UINT32_MAX;
		src->line_starts = tlc_xmalloc(n * sizeof(*src->line_starts));
		src->line_starts[0] = 0;
		src->nlines = 1;
		for (const char *p = src->text; src->nlines < n && (p = memchr(p, '\n', (size_t)(end - p))) != NULL;)
			src->line_starts[src->nlines++] = (size_t)(++p - src->text);
	}
	if (line < 1 || line > src->nlines)
		return NULL;
	const char *p = src->text + src->line_starts[line - 1];
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*len = (size_t)((nl ? nl : end) - p);
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

/* The source line and a caret under column `col`; tabs before the column are
 * copied so that the caret lines up in a terminal. */
static void put_caret(tlc_buf *out, tlc_source *src, tlc_loc loc)
{
	size_t len;
	const char *line = find_line(src, loc.line, &len);
	if (!line)
		return;
	buf_putn(out, line, len);
	tlc_buf_putc(out, '\n');
	size_t col = loc.col ? loc.col - 1 : 0;
	for (size_t i = 0; i < col; i++)
		tlc_buf_putc(out, i < len && line[i] == '\t' ? '\t' : ' ');
	tlc_buf_puts(out, "^\n");
}

void tlc_vdiag(tlc_context *ctx, tlc_severity sev, tlc_loc loc, const char *fmt, va_list ap)
{
	tlc_buf msg;
	tlc_buf_init(&msg);
	tlc_source *src = NULL;
	if (loc.file > 0 && (int)loc.file < ctx->nsources)
		src = &ctx->sources[loc.file];
	if (src && loc.line > 0) {
		tlc_buf_printf(&msg, "%s:%u:%u: ", src->name, (unsigned)loc.line,
		               (unsigned)(loc.col ? loc.col : 1));
	} else if (src) {
		tlc_buf_printf(&msg, "%s: ", src->name);
	} else {
		tlc_buf_puts(&msg, "tlc: ");
	}
	tlc_buf_printf(&msg, "%s: ", severity_name(sev));
	tlc_buf_vprintf(&msg, fmt, ap);
	tlc_buf_putc(&msg, '\n');
	if (src && loc.line > 0 && ctx->caret)
		put_caret(&msg, src, loc);
	if (!(src && loc.line > 0) || first_report(ctx, tlc_buf_str(&msg)))
		emit(ctx, &msg);
	tlc_buf_free(&msg);
	if (sev == TLC_ERROR)
		ctx->nerrors++;
	else if (sev == TLC_WARNING)
		ctx->nwarnings++;
}

void tlc_diag(tlc_context *ctx, tlc_severity sev, tlc_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tlc_vdiag(ctx, sev, loc, fmt, ap);
	va_end(ap);
}

int tlc_error_count(const tlc_context *ctx)
{
	return ctx->nerrors;
}

void tlc_diag_capture(tlc_context *ctx, tlc_buf *sink)
{
	ctx->diag_sink = sink;
}

void tlc_diag_hold(tlc_context *ctx, tlc_diag_held *h)
{
	tlc_buf_init(&h->held);
	h->sink = ctx->diag_sink;
	h->nerrors = ctx->nerrors;
	h->nwarnings = ctx->nwarnings;
	h->nseen = ctx->nseen;
	ctx->diag_sink = &h->held;
}

void tlc_diag_release(tlc_context *ctx, tlc_diag_held *h, bool keep)
{
	ctx->diag_sink = h->sink;
	if (keep && h->held.len) {
		emit(ctx, &h->held);
	} else if (!keep) {
		ctx->nerrors = h->nerrors;
		ctx->nwarnings = h->nwarnings;
		/* forgotten: a later report of the same text must be printed */
		while (ctx->nseen > h->nseen)
			free(ctx->seen[--ctx->nseen]);
	}
	tlc_buf_free(&h->held);
}

void tlc_diag_set_caret(tlc_context *ctx, bool enabled)
{
	ctx->caret = enabled;
}

void tlc_internal_error(tlc_context *ctx, const char *pass, const char *fmt, ...)
{
	tlc_buf msg;
	tlc_buf_init(&msg);
	if (!pass)
		pass = ctx->current_pass;
	if (pass)
		tlc_buf_printf(&msg, "tlc: internal error in pass '%s': ", pass);
	else
		tlc_buf_puts(&msg, "tlc: internal error: ");
	va_list ap;
	va_start(ap, fmt);
	tlc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	tlc_buf_puts(&msg, "\ntlc: note: this is a bug in tlc or in one of its plugins; "
	                   "please report it with the input that triggered it\n");
	emit(ctx, &msg);
	tlc_buf_free(&msg);
	ctx->internal_error = true;
	ctx->nerrors++;
}

bool tlc_had_internal_error(const tlc_context *ctx)
{
	return ctx->internal_error;
}

/* ---- did you mean ---- */

void tlc_suggest_init(tlc_suggestion *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->cost = 0;
}

/* Twice the edit distance of a and b (insertions, deletions,
 * substitutions and swaps of neighbours; a case-only difference costs 1),
 * or more than `limit` once it is sure to exceed it. */
static int edit_cost(const char *a, const char *b, int limit)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 64 || nb > 64)
		return limit + 1;
	int rows[3][65], *prev2 = rows[0], *prev = rows[1], *row = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = 2 * (int)j;
	for (size_t i = 1; i <= na; i++) {
		int best = row[0] = 2 * (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int sub = a[i - 1] == b[j - 1]                                                   ? 0
			          : tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 1
			                                                                                 : 2;
			int v = prev[j - 1] + sub;
			if (prev[j] + 2 < v)
				v = prev[j] + 2;
			if (row[j - 1] + 2 < v)
				v = row[j - 1] + 2;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 2 < v)
				v = prev2[j - 2] + 2;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
		int *t = prev2;
		prev2 = prev, prev = row, row = t;
	}
	return prev[nb];
}

void tlc_suggest_add(tlc_suggestion *s, const char *candidate)
{
	if (!s->word || !candidate || strcmp(s->word, candidate) == 0)
		return;
	int len = (int)strlen(s->word), limit = 2 * (len / 3 > 1 ? len / 3 : 1);
	int cost = edit_cost(s->word, candidate, limit);
	if (cost <= limit && (!s->best || cost < s->cost)) {
		s->best = candidate;
		s->cost = cost;
	}
}

const char *tlc_suggest_text(const tlc_suggestion *s, char *buf, size_t n)
{
	if (n)
		buf[0] = '\0';
	if (s->best)
		snprintf(buf, n, "; did you mean '%s'?", s->best);
	return buf;
}
