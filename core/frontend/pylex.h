/* pylex.h - the Python 3 tokenizer used by pyparse.c (private to libtlc).
 *
 * Tokens are made on demand, as the parser looks at them, and kept in
 * chunks that the parser releases at each statement boundary: the tokens of
 * a file are never all in memory at once (the memory of the frontend stays
 * proportional to what it builds, not to the size of the input).
 *
 * A lexical error does not stop the stream short of a terminator: the last
 * token is then a PYT_ERROR carrying the message, and the parser reports it
 * when it gets there (so an earlier syntax error still wins, as in Python). */
#ifndef TLC_PYLEX_H
#define TLC_PYLEX_H

#include "pyast.h"

typedef enum py_tok_kind {
	PYT_EOF,
	PYT_NEWLINE,
	PYT_INDENT,  /* ival = the indentation levels with this one; off = its line's start */
	PYT_DEDENT,  /* off = the start of the line that ends the block (or the end of the text) */
	PYT_NAME,    /* s = identifier (interned in the py_source: lives as long as the tree) */
	PYT_KEYWORD, /* s = the keyword (static string) */
	PYT_INT,     /* ival */
	PYT_FLOAT,   /* fval */
	PYT_STRING,  /* s = decoded text (raw text for f-strings), slen bytes; dies with the token */
	PYT_OP,      /* s = operator spelling (static string), e.g. "**=" */
	PYT_ERROR,   /* s = the message; always the last token */
} py_tok_kind;

typedef struct py_token {
	unsigned char kind; /* py_tok_kind */
	bool is_fstring;
	bool is_bytes;
	tlc_loc loc;
	size_t off; /* byte offset of the token's first character in the text */
	const char *s;
	size_t slen;
	union {
		int64_t ival;
		double fval;
	};
} py_token;

typedef struct py_lexer py_lexer;

/* Lex src's text from byte `start`, the first byte of line `line`.  With
 * one_block, lexing stops (DEDENTs, then EOF) at the first logical line
 * indented less than line `line`: the reading of one block left unread. */
py_lexer *py_lexer_new(py_source *src, size_t start, uint32_t line, bool one_block);
void py_lexer_free(py_lexer *L);
/* Token i (from 0), lexed now if need be; past the end, the last token (EOF
 * or ERROR).  The pointer is valid until py_lexer_release passes it. */
const py_token *py_lexer_token(py_lexer *L, int i);
/* The tokens before index i are not needed any more. */
void py_lexer_release(py_lexer *L, int i);

/* Drop the tokens from index `keep` on and go on lexing at byte `at`, the
 * start of line `line`, with the indentation levels of the first `nindent`
 * (an INDENT's ival): the parser jumping over a block that py_check read. */
void py_lexer_jump(py_lexer *L, int keep, size_t at, uint32_t line, int nindent);

/* True if `s` (NUL-terminated) is a Python keyword. */
bool py_is_keyword(const char *s);

#endif
