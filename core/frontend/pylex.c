/* pylex.c - Python 3 tokenizer: INDENT/DEDENT, implicit and explicit line
 * joining, numbers, strings with escapes, operators.  See pylex.h. */
#include "pylex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BRACKETS 200 /* same limit as the parser's nesting depth */
#define MAX_INDENT 100   /* CPython's limit */
#define TOK_CHUNK 256    /* tokens per chunk: the unit the parser releases */

static const char *const keywords[] = {
	"False", "None",   "True",    "and",      "as",   "assert", "async",  "await",
	"break", "class",  "continue", "def",     "del",  "elif",   "else",   "except",
	"finally", "for",  "from",    "global",   "if",   "import", "in",     "is",
	"lambda", "nonlocal", "not",  "or",       "pass", "raise",  "return", "try",
	"while", "with",   "yield",
};

/* Longest spellings first so that the first match is the longest one. */
static const char *const operators[] = {
	"**=", "//=", ">>=", "<<=", "...",
	"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
	"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
	"(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

/* Tokens [first * TOK_CHUNK, ...) in chunks[0], the next chunk after it.
 * Chunks never move, so a token pointer stays valid until its chunk is
 * released; the strings of a chunk's tokens live in its arena. */
typedef struct tok_chunk {
	py_token toks[TOK_CHUNK];
	tlc_arena *strings; /* decoded string literals, error messages; NULL until needed */
} tok_chunk;

struct py_lexer {
	py_source *src;
	uint32_t file;
	const char *text;
	size_t len, pos;
	uint32_t line;
	size_t line_start;
	size_t tok_start; /* where the token being lexed starts */
	tok_chunk **chunks;
	int nchunks, cap_chunks;
	int first; /* index of chunks[0] */
	int n;     /* tokens made so far */
	int indents[MAX_INDENT + 1];
	int nindent;
	char brackets[MAX_BRACKETS];
	tlc_loc bracket_loc[MAX_BRACKETS];
	int depth;
	bool one_block;
	bool line_has_tokens;
	bool at_bol;
	bool failed; /* the last token (EOF or ERROR) is made */
	char *scratch; /* a literal being decoded */
	size_t cap_scratch;
};

static char *scratch(py_lexer *L, size_t n)
{
	if (n > L->cap_scratch) {
		L->cap_scratch = n > 2 * L->cap_scratch ? n : 2 * L->cap_scratch;
		L->scratch = tlc_xrealloc(L->scratch, L->cap_scratch);
	}
	return L->scratch;
}

static const char *keyword_of(const char *s, size_t n)
{
	/* every keyword is 2 to 8 lowercase letters, or starts with F, N or T */
	bool lower = s[0] >= 'a' && s[0] <= 'y';
	if (n < 2 || n > 8 || !(lower || s[0] == 'F' || s[0] == 'N' || s[0] == 'T'))
		return NULL;
	for (size_t i = 0; i < TLC_ARRAY_LEN(keywords); i++)
		if (keywords[i][0] == s[0] && !strncmp(s, keywords[i], n) && keywords[i][n] == 0)
			return keywords[i];
	return NULL;
}

bool py_is_keyword(const char *s)
{
	return keyword_of(s, strlen(s)) != NULL;
}

/* The byte at pos+off, or -1 past the end. */
static int peekc(const py_lexer *L, size_t off)
{
	return L->pos + off < L->len ? (unsigned char)L->text[L->pos + off] : -1;
}

static tlc_loc loc_at(const py_lexer *L, size_t pos)
{
	tlc_loc l = {L->file, L->line, (uint32_t)(pos - L->line_start + 1)};
	return l;
}

/* Length of the line break at pos+off (1 for \n, 2 for \r\n), 0 if none. */
static int newline_len(const py_lexer *L, size_t off)
{
	int c = peekc(L, off);
	if (c == '\n')
		return 1;
	if (c == '\r' && peekc(L, off + 1) == '\n')
		return 2;
	return 0;
}

static void next_line(py_lexer *L, int nl)
{
	L->pos += nl;
	L->line++;
	L->line_start = L->pos;
}

static py_token *push(py_lexer *L, py_tok_kind kind, tlc_loc loc)
{
	if (L->n == (L->first + L->nchunks) * TOK_CHUNK) {
		if (L->nchunks == L->cap_chunks) {
			L->cap_chunks = L->cap_chunks ? L->cap_chunks * 2 : 8;
			L->chunks = tlc_xrealloc(L->chunks, (size_t)L->cap_chunks * sizeof(*L->chunks));
		}
		tok_chunk *c = tlc_xmalloc(sizeof(*c));
		c->strings = NULL;
		L->chunks[L->nchunks++] = c;
	}
	py_token *t = &L->chunks[L->n / TOK_CHUNK - L->first]->toks[L->n % TOK_CHUNK];
	L->n++;
	memset(t, 0, sizeof(*t));
	t->kind = (unsigned char)kind;
	t->loc = loc;
	t->off = L->tok_start;
	if (kind != PYT_NEWLINE && kind != PYT_INDENT && kind != PYT_DEDENT && kind != PYT_EOF)
		L->line_has_tokens = true;
	return t;
}

/* Room for the string of the last token pushed: it lives in its chunk. */
static char *token_string(py_lexer *L, size_t n)
{
	tok_chunk *c = L->chunks[(L->n - 1) / TOK_CHUNK - L->first];
	if (!c->strings)
		c->strings = tlc_arena_new();
	return tlc_arena_alloc(c->strings, n);
}

static void lex_error(py_lexer *L, tlc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void lex_error(py_lexer *L, tlc_loc loc, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	py_token *t = push(L, PYT_ERROR, loc);
	char *copy = token_string(L, strlen(msg) + 1);
	strcpy(copy, msg);
	t->s = copy;
	t->slen = strlen(msg);
	L->failed = true;
}

static bool is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }

static int digit_value(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* ---- indentation ---- */

/* At the start of a logical line: measure the indentation and emit INDENT
 * or DEDENT tokens.  Blank and comment-only lines emit nothing. */
/* The indentation of the line at text[*pos] (tabs to multiples of 8, as
 * CPython); *pos moves past it. */
static int measure_indent(const char *text, size_t len, size_t *pos)
{
	int col = 0;
	for (; *pos < len; ++*pos) {
		if (text[*pos] == ' ')
			col++;
		else if (text[*pos] == '\t')
			col = (col / 8 + 1) * 8;
		else if (text[*pos] == '\f')
			col = 0;
		else
			break;
	}
	return col;
}

static void indentation(py_lexer *L)
{
	int col = measure_indent(L->text, L->len, &L->pos);
	int c = peekc(L, 0);
	if (c < 0 || c == '#' || newline_len(L, 0))
		return;
	tlc_loc loc = loc_at(L, L->pos);
	/* INDENT and DEDENT point at the start of their line: where a block
	 * starts (py_lazy) and where the one before it ends (py_skip) */
	L->tok_start = L->line_start;
	if (L->one_block && col < L->indents[0]) {
		/* the end of the block being read again */
		for (; L->nindent > 1; L->nindent--)
			push(L, PYT_DEDENT, loc);
		push(L, PYT_EOF, loc);
		L->failed = true;
		return;
	}
	int top = L->indents[L->nindent - 1];
	if (col > top) {
		if (L->nindent > MAX_INDENT) {
			lex_error(L, loc, "too many levels of indentation");
			return;
		}
		L->indents[L->nindent++] = col;
		/* ival: the levels under its block, for py_lexer_jump */
		push(L, PYT_INDENT, loc)->ival = L->nindent;
		return;
	}
	int keep = L->nindent;
	while (keep > 1 && col < L->indents[keep - 1])
		keep--;
	if (col != L->indents[keep - 1]) {
		lex_error(L, loc, "unindent does not match any outer indentation level");
		return;
	}
	for (; L->nindent > keep; L->nindent--)
		push(L, PYT_DEDENT, loc);
}

/* ---- numbers ---- */

/* Digits of `base` with single underscores between them, accumulating the
 * value.  Returns the number of digits, -1 after a bad underscore. */
static int read_digits(py_lexer *L, int base, uint64_t *val, bool *overflow)
{
	int ndigits = 0;
	for (;;) {
		int c = peekc(L, 0);
		if (c == '_') {
			if (digit_value(peekc(L, 1)) >= base)
				return -1;
			L->pos++;
			continue;
		}
		int d = digit_value(c);
		if (d >= base)
			return ndigits;
		if (*val > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			*overflow = true;
		*val = *val * (uint64_t)base + (uint64_t)d;
		ndigits++;
		L->pos++;
	}
}

static void lex_based_int(py_lexer *L, size_t start)
{
	tlc_loc loc = loc_at(L, start);
	int p = peekc(L, 1) | 0x20;
	int base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
	const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
	L->pos += 2;
	if (peekc(L, 0) == '_')
		L->pos++;
	uint64_t v = 0;
	bool overflow = false;
	int nd = read_digits(L, base, &v, &overflow);
	if (nd <= 0 || is_ident_char(peekc(L, 0))) {
		lex_error(L, loc, "invalid %s literal", name);
		return;
	}
	if (overflow || v > INT64_MAX) {
		lex_error(L, loc, "integer literal is too large (more than 63 bits)");
		return;
	}
	push(L, PYT_INT, loc)->ival = (int64_t)v;
}

static void lex_number(py_lexer *L)
{
	size_t start = L->pos;
	tlc_loc loc = loc_at(L, start);
	int c1 = peekc(L, 1) | 0x20;
	if (peekc(L, 0) == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
		lex_based_int(L, start);
		return;
	}
	uint64_t v = 0, ignored = 0;
	bool overflow = false, is_float = false, bad = false;
	if (read_digits(L, 10, &v, &overflow) < 0)
		bad = true;
	if (!bad && peekc(L, 0) == '.') {
		is_float = true;
		L->pos++;
		if (is_digit(peekc(L, 0)) && read_digits(L, 10, &ignored, &(bool){false}) < 0)
			bad = true;
	}
	if (!bad && (peekc(L, 0) | 0x20) == 'e') {
		size_t off = (peekc(L, 1) == '+' || peekc(L, 1) == '-') ? 2 : 1;
		if (is_digit(peekc(L, off))) {
			is_float = true;
			L->pos += off;
			if (read_digits(L, 10, &ignored, &(bool){false}) < 0)
				bad = true;
		}
	}
	if (!bad && (peekc(L, 0) | 0x20) == 'j') {
		lex_error(L, loc, "imaginary literals are not supported");
		return;
	}
	if (bad || is_ident_char(peekc(L, 0))) {
		lex_error(L, loc, "invalid decimal literal");
		return;
	}
	if (is_float) {
		char *tmp = scratch(L, L->pos - start + 1);
		size_t k = 0;
		for (size_t i = start; i < L->pos; i++)
			if (L->text[i] != '_')
				tmp[k++] = L->text[i];
		tmp[k] = 0;
		push(L, PYT_FLOAT, loc)->fval = strtod(tmp, NULL);
		return;
	}
	if (L->text[start] == '0' && v != 0) {
		lex_error(L, loc, "leading zeros in decimal integer literals are not permitted; "
		                  "use an 0o prefix for octal integers");
		return;
	}
	if (overflow || v > INT64_MAX) {
		lex_error(L, loc, "integer literal is too large (more than 63 bits)");
		return;
	}
	push(L, PYT_INT, loc)->ival = (int64_t)v;
}

/* ---- strings ---- */

typedef struct str_flags {
	bool raw, bytes, fstring;
} str_flags;

/* Is text[0..n) a string prefix (r, u, b, f, rb, br, fr, rf in any case)? */
static bool string_prefix(const char *s, size_t n, str_flags *f)
{
	memset(f, 0, sizeof(*f));
	if (n == 0 || n > 2)
		return false;
	bool u = false;
	for (size_t i = 0; i < n; i++) {
		switch (s[i] | 0x20) {
		case 'r': if (f->raw) return false; f->raw = true; break;
		case 'b': if (f->bytes) return false; f->bytes = true; break;
		case 'f': if (f->fstring) return false; f->fstring = true; break;
		case 'u': u = true; break;
		default: return false;
		}
	}
	if (u && n > 1)
		return false;
	return !(f->bytes && f->fstring);
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Read exactly n hex digits at s; -1 if they are not there. */
static int64_t hex_n(const char *s, const char *end, int n)
{
	int64_t v = 0;
	for (int i = 0; i < n; i++) {
		if (s + i >= end || digit_value((unsigned char)s[i]) >= 16)
			return -1;
		v = v * 16 + digit_value((unsigned char)s[i]);
	}
	return v;
}

/* Decode the escapes of a non-raw literal body [s, end) into out (which has
 * room for end - s + 1 bytes: no escape grows).  Returns the length or -1
 * with *err set. */
static long decode_escapes(const char *s, const char *end, bool bytes, char *out, const char **err)
{
	size_t k = 0;
	while (s < end) {
		if (*s != '\\' || s + 1 >= end) {
			out[k++] = *s++;
			continue;
		}
		char e = s[1];
		s += 2;
		switch (e) {
		case '\n': continue;
		case '\r': if (s < end && *s == '\n') s++; continue;
		case '\\': out[k++] = '\\'; continue;
		case '\'': out[k++] = '\''; continue;
		case '"': out[k++] = '"'; continue;
		case 'a': out[k++] = '\a'; continue;
		case 'b': out[k++] = '\b'; continue;
		case 'f': out[k++] = '\f'; continue;
		case 'n': out[k++] = '\n'; continue;
		case 'r': out[k++] = '\r'; continue;
		case 't': out[k++] = '\t'; continue;
		case 'v': out[k++] = '\v'; continue;
		default: break;
		}
		if (e >= '0' && e <= '7') {
			uint32_t v = (uint32_t)(e - '0');
			for (int i = 0; i < 2 && s < end && *s >= '0' && *s <= '7'; i++)
				v = v * 8 + (uint32_t)(*s++ - '0');
			if (bytes)
				out[k++] = (char)(v & 0xFF);
			else
				k += put_utf8(out + k, v);
			continue;
		}
		int n = e == 'x' ? 2 : (!bytes && e == 'u') ? 4 : (!bytes && e == 'U') ? 8 : 0;
		if (n) {
			int64_t v = hex_n(s, end, n);
			if (v < 0) {
				*err = e == 'x' ? "truncated \\xXX escape" : e == 'u' ? "truncated \\uXXXX escape"
				                                                  : "truncated \\UXXXXXXXX escape";
				return -1;
			}
			if (v > 0x10FFFF) {
				*err = "illegal Unicode character in \\U escape";
				return -1;
			}
			s += n;
			if (bytes)
				out[k++] = (char)v;
			else
				k += put_utf8(out + k, (uint32_t)v);
			continue;
		}
		/* unknown escapes (and \N{...}) stay as written */
		out[k++] = '\\';
		out[k++] = e;
	}
	out[k] = 0;
	return (long)k;
}

/* Skip a quoted string nested inside an f-string replacement field. */
static void skip_nested_string(py_lexer *L)
{
	int q = peekc(L, 0);
	L->pos++;
	while (L->pos < L->len && L->text[L->pos] != q && !newline_len(L, 0))
		L->pos += (L->text[L->pos] == '\\' && L->pos + 1 < L->len) ? 2 : 1;
	if (peekc(L, 0) == q)
		L->pos++;
}

/* Lex a string whose prefix started at `start`; L->pos is at the quote. */
static void lex_string(py_lexer *L, size_t start, str_flags f)
{
	tlc_loc loc = loc_at(L, start);
	int quote = peekc(L, 0);
	bool triple = peekc(L, 1) == quote && peekc(L, 2) == quote;
	L->pos += triple ? 3 : 1;
	size_t body = L->pos;
	int fdepth = 0;
	for (;;) {
		int c = peekc(L, 0);
		int nl = newline_len(L, 0);
		if (c < 0 || (nl && !triple)) {
			lex_error(L, loc, "unterminated %sstring literal (detected at line %u)",
			          triple ? "triple-quoted " : "", L->line);
			return;
		}
		if (c == 0) {
			lex_error(L, loc_at(L, L->pos), "source code cannot contain null bytes");
			return;
		}
		if (nl) {
			next_line(L, nl);
			continue;
		}
		if (c == '\\') {
			int nl2 = newline_len(L, 1);
			if (nl2) {
				L->pos++;
				next_line(L, nl2);
			} else {
				L->pos += peekc(L, 1) >= 0 ? 2 : 1;
			}
			continue;
		}
		if (f.fstring) {
			if (c == '{' && fdepth == 0 && peekc(L, 1) == '{') {
				L->pos += 2;
				continue;
			}
			if (c == '{')
				fdepth++;
			else if (c == '}' && fdepth > 0)
				fdepth--;
			else if (fdepth > 0 && (c == '\'' || c == '"')) {
				skip_nested_string(L);
				continue;
			}
		}
		if (c == quote && (!triple || (peekc(L, 1) == quote && peekc(L, 2) == quote)))
			break;
		L->pos++;
	}
	const char *b = L->text + body, *e = L->text + L->pos;
	L->pos += triple ? 3 : 1;
	if (f.bytes)
		for (const char *q = b; q < e; q++)
			if ((unsigned char)*q >= 0x80) {
				lex_error(L, loc, "bytes can only contain ASCII literal characters");
				return;
			}
	char *out = scratch(L, (size_t)(e - b) + 1);
	long n;
	if (f.raw || f.fstring) {
		memcpy(out, b, (size_t)(e - b));
		n = e - b;
	} else {
		const char *err = NULL;
		n = decode_escapes(b, e, f.bytes, out, &err);
		if (n < 0) {
			lex_error(L, loc, "%s", err);
			return;
		}
	}
	py_token *t = push(L, PYT_STRING, loc);
	char *copy = token_string(L, (size_t)n + 1);
	memcpy(copy, out, (size_t)n + 1);
	t->s = copy;
	t->slen = (size_t)n;
	t->is_fstring = f.fstring;
	t->is_bytes = f.bytes;
}

/* ---- names, operators, brackets ---- */

static void lex_name(py_lexer *L)
{
	size_t start = L->pos;
	while (is_ident_char(peekc(L, 0)))
		L->pos++;
	size_t n = L->pos - start;
	int c = peekc(L, 0);
	str_flags f;
	if ((c == '\'' || c == '"') && string_prefix(L->text + start, n, &f)) {
		lex_string(L, start, f);
		return;
	}
	tlc_loc loc = loc_at(L, start);
	if (c >= 0x80) {
		lex_error(L, loc, "non-ASCII character in identifier (only ASCII identifiers are supported)");
		return;
	}
	const char *kw = keyword_of(L->text + start, n);
	py_token *t = push(L, kw ? PYT_KEYWORD : PYT_NAME, loc);
	t->s = kw ? kw : py_intern(L->src, L->text + start, n);
	t->slen = n;
}

static void lex_bracket(py_lexer *L, const char *op, tlc_loc loc)
{
	char c = op[0];
	if (c == '(' || c == '[' || c == '{') {
		if (L->depth == MAX_BRACKETS) {
			lex_error(L, loc, "too deeply nested");
			return;
		}
		L->brackets[L->depth] = c;
		L->bracket_loc[L->depth++] = loc;
	} else {
		if (L->depth == 0) {
			lex_error(L, loc, "unmatched '%c'", c);
			return;
		}
		char open = L->brackets[L->depth - 1];
		char want = open == '(' ? ')' : open == '[' ? ']' : '}';
		if (c != want) {
			lex_error(L, loc, "closing parenthesis '%c' does not match opening parenthesis '%c' at %u:%u",
			          c, open, L->bracket_loc[L->depth - 1].line, L->bracket_loc[L->depth - 1].col);
			return;
		}
		L->depth--;
	}
	py_token *t = push(L, PYT_OP, loc);
	t->s = op;
	t->slen = 1;
}

static void lex_operator(py_lexer *L)
{
	tlc_loc loc = loc_at(L, L->pos);
	char c0 = L->text[L->pos];
	for (size_t i = 0; i < TLC_ARRAY_LEN(operators); i++) {
		if (operators[i][0] != c0)
			continue;
		size_t n = strlen(operators[i]);
		if (L->pos + n <= L->len && !memcmp(L->text + L->pos, operators[i], n)) {
			L->pos += n;
			if (n == 1 && strchr("()[]{}", operators[i][0])) {
				lex_bracket(L, operators[i], loc);
				return;
			}
			py_token *t = push(L, PYT_OP, loc);
			t->s = operators[i];
			t->slen = n;
			return;
		}
	}
	unsigned char c = (unsigned char)L->text[L->pos];
	if (c >= 0x80)
		lex_error(L, loc, "invalid non-ASCII character (only ASCII is supported outside strings and comments)");
	else if (c > ' ' && c < 0x7f)
		lex_error(L, loc, "invalid character '%c'", c);
	else
		lex_error(L, loc, "invalid character '\\x%02x'", c);
}

static void finish(py_lexer *L)
{
	if (L->depth > 0) {
		lex_error(L, L->bracket_loc[L->depth - 1], "'%c' was never closed", L->brackets[L->depth - 1]);
		return;
	}
	tlc_loc loc = loc_at(L, L->pos);
	L->tok_start = L->pos;
	if (L->line_has_tokens)
		push(L, PYT_NEWLINE, loc);
	for (; L->nindent > 1; L->nindent--)
		push(L, PYT_DEDENT, loc);
	push(L, PYT_EOF, loc);
}

/* One step of the main loop: whitespace, a comment, a line break or a token. */
static void lex_step(py_lexer *L)
{
	if (L->at_bol) {
		L->at_bol = false;
		if (L->depth == 0) {
			indentation(L);
			if (L->failed)
				return;
		}
	}
	int c;
	while ((c = peekc(L, 0)) == ' ' || c == '\t' || c == '\f' || (c == '\r' && !newline_len(L, 0)))
		L->pos++;
	if (c < 0) {
		finish(L);
		L->failed = true; /* done */
		return;
	}
	int nl = newline_len(L, 0);
	if (nl) {
		if (L->depth == 0 && L->line_has_tokens) {
			push(L, PYT_NEWLINE, loc_at(L, L->pos));
			L->line_has_tokens = false;
		}
		next_line(L, nl);
		L->at_bol = L->depth == 0;
		return;
	}
	if (c == '#') {
		while (L->pos < L->len && !newline_len(L, 0) && L->text[L->pos])
			L->pos++;
		return;
	}
	if (c == '\\') {
		int nl2 = newline_len(L, 1);
		if (nl2) {
			L->pos++;
			next_line(L, nl2);
		} else if (peekc(L, 1) < 0) {
			lex_error(L, loc_at(L, L->pos), "unexpected end of file after line continuation character");
		} else {
			lex_error(L, loc_at(L, L->pos), "unexpected character after line continuation character");
		}
		return;
	}
	L->tok_start = L->pos;
	if (c == 0)
		lex_error(L, loc_at(L, L->pos), "source code cannot contain null bytes");
	else if (is_ident_start(c))
		lex_name(L);
	else if (is_digit(c) || (c == '.' && is_digit(peekc(L, 1))))
		lex_number(L);
	else if (c == '\'' || c == '"')
		lex_string(L, L->pos, (str_flags){false, false, false});
	else
		lex_operator(L);
}

py_lexer *py_lexer_new(py_source *src, size_t start, uint32_t line, bool one_block)
{
	py_lexer *L = tlc_xcalloc(1, sizeof(*L));
	L->src = src;
	L->file = src->file;
	L->text = src->text ? src->text : "";
	L->len = src->text ? src->len : 0;
	L->pos = start < L->len ? start : L->len;
	L->line = line;
	L->line_start = L->pos;
	L->nindent = 1;
	L->one_block = one_block;
	size_t at = L->pos;
	if (one_block) /* the block's own level is the bottom: no INDENT for it */
		L->indents[0] = measure_indent(L->text, L->len, &at);
	L->at_bol = true;
	return L;
}

void py_lexer_free(py_lexer *L)
{
	if (!L)
		return;
	for (int i = 0; i < L->nchunks; i++) {
		tlc_arena_free(L->chunks[i]->strings);
		free(L->chunks[i]);
	}
	free(L->chunks);
	free(L->scratch);
	free(L);
}

const py_token *py_lexer_token(py_lexer *L, int i)
{
	while (L->n <= i && !L->failed)
		lex_step(L);
	if (i >= L->n)
		i = L->n - 1; /* the EOF or ERROR that ends the stream */
	if (i < L->first * TOK_CHUNK)
		i = L->first * TOK_CHUNK; /* released: never asked for by the parser */
	return &L->chunks[i / TOK_CHUNK - L->first]->toks[i % TOK_CHUNK];
}

void py_lexer_release(py_lexer *L, int i)
{
	int drop = 0;
	/* keep the chunk of token i and, at the end of the stream, the last chunk */
	while (drop < L->nchunks - 1 && (L->first + drop + 1) * TOK_CHUNK <= i)
		drop++;
	if (!drop)
		return;
	for (int k = 0; k < drop; k++) {
		tlc_arena_free(L->chunks[k]->strings);
		free(L->chunks[k]);
	}
	memmove(L->chunks, L->chunks + drop, (size_t)(L->nchunks - drop) * sizeof(*L->chunks));
	L->nchunks -= drop;
	L->first += drop;
}

void py_lexer_jump(py_lexer *L, int keep, size_t at, uint32_t line, int nindent)
{
	/* the tokens looked at past the INDENT belong to the block jumped over */
	while (L->nchunks > 1 && (L->first + L->nchunks - 1) * TOK_CHUNK >= keep) {
		tok_chunk *c = L->chunks[--L->nchunks];
		tlc_arena_free(c->strings);
		free(c);
	}
	L->n = keep;
	L->pos = at < L->len ? at : L->len;
	L->line = line;
	L->line_start = L->pos;
	L->nindent = nindent;
	L->depth = 0; /* a block starts and ends outside brackets */
	L->line_has_tokens = false;
	L->at_bol = true;
	L->failed = false;
}
