/* pylex.h - the Python 3 tokenizer used by pyparse.c (private to libtlc).
 *
 * The whole file is tokenized up front into an array.  A lexical error does
 * not stop the array short of a terminator: the last token is then a
 * PYT_ERROR carrying the message, and the parser reports it when it gets
 * there (so an earlier syntax error still wins, as in Python). */
#ifndef TLC_PYLEX_H
#define TLC_PYLEX_H

#include "internal.h"

typedef enum py_tok_kind {
	PYT_EOF,
	PYT_NEWLINE,
	PYT_INDENT,
	PYT_DEDENT,
	PYT_NAME,    /* s = identifier (arena) */
	PYT_KEYWORD, /* s = the keyword (static string) */
	PYT_INT,     /* ival */
	PYT_FLOAT,   /* fval */
	PYT_STRING,  /* s = decoded text (raw text for f-strings), slen bytes */
	PYT_OP,      /* s = operator spelling (static string), e.g. "**=" */
	PYT_ERROR,   /* s = the message; always the last token */
} py_tok_kind;

typedef struct py_token {
	py_tok_kind kind;
	tlc_loc loc;
	const char *s;
	size_t slen;
	int64_t ival;
	double fval;
	bool is_fstring;
	bool is_bytes;
} py_token;

/* Tokenize text[0..len).  Returns the number of tokens stored in *out (a
 * malloc'd array the caller frees); the last one is PYT_EOF or PYT_ERROR.
 * Strings and names are allocated in `arena`. */
int py_tokenize(tlc_arena *arena, uint32_t file, const char *text, size_t len, py_token **out);

/* True if `s` (NUL-terminated) is a Python keyword. */
bool py_is_keyword(const char *s);

#endif
