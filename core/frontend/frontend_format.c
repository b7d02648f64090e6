/* frontend_format.c - Python's string formatting at compile time: f-strings,
 * str.format and printf-style `%`, with the format-spec mini-language's
 * common part ([[fill]align][sign][0][width][,][.precision][type], types
 * d, i, x, X, o, b, c, s, r, f, F, e, E, g, G, %).  Kernel files use them
 * for names, messages and asserts; a spec tlc does not know is an error,
 * never a string formatted some other way.
 *
 * An f-string's text is kept raw by the parser (pyparse_expr.c: literal
 * braces doubled); each replacement field's expression is parsed here the
 * first time the string is evaluated, as a source of its own named after
 * the place of the f-string, and kept for later evaluations. */
#include "frontend.h"

#include "pyparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one value under one format spec ---- */

typedef struct fmt_spec {
	char fill, align, sign;
	bool zero, comma, alt;
	int width, precision; /* -1: none */
	char type;            /* 0: none */
} fmt_spec;

static bool parse_spec(const char *s, fmt_spec *f)
{
	*f = (fmt_spec){' ', 0, '-', false, false, false, -1, -1, 0};
	size_t n = strlen(s);
	if (n >= 2 && strchr("<>^=", s[1])) {
		f->fill = s[0];
		f->align = s[1];
		s += 2;
	} else if (n >= 1 && strchr("<>^=", s[0])) {
		f->align = *s++;
	}
	if (*s == '+' || *s == '-' || *s == ' ')
		f->sign = *s++;
	if (*s == '#') {
		f->alt = true;
		s++;
	}
	if (*s == '0') {
		f->zero = true;
		s++;
	}
	if (*s >= '0' && *s <= '9') {
		f->width = (int)strtol(s, (char **)&s, 10);
		if (f->width > 4096)
			return false;
	}
	if (*s == ',' || *s == '_') {
		f->comma = *s == ',';
		s++;
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		f->precision = (int)strtol(s, (char **)&s, 10);
		if (f->precision > 100)
			return false;
	}
	if (*s && strchr("dixXobcsrfFeEgG%", *s))
		f->type = *s++;
	return *s == '\0';
}

/* Pad `body` (of sign `neg` for numbers) to the spec's width. */
static void pad(tlc_buf *out, const char *body, bool number, const fmt_spec *f)
{
	size_t len = strlen(body);
	int w = f->width > (int)len ? f->width - (int)len : 0;
	char align = f->align ? f->align : f->zero && number ? '=' : number ? '>' : '<';
	char fill = f->zero && !f->align ? '0' : f->fill;
	if (align == '=' && number && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) {
		tlc_buf_putc(out, body[0]);
		body++;
	}
	int left = align == '>' || align == '=' ? w : align == '^' ? w / 2 : 0;
	for (int i = 0; i < left; i++)
		tlc_buf_putc(out, fill);
	tlc_buf_puts(out, body);
	for (int i = left; i < w; i++)
		tlc_buf_putc(out, fill);
}

static void put_int(tlc_buf *out, int64_t v, const fmt_spec *f)
{
	char digits[80], body[96];
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char t = f->type ? f->type : 'd';
	const char *prefix = "";
	if (t == 'x' || t == 'X') {
		snprintf(digits, sizeof digits, t == 'x' ? "%llx" : "%llX", (unsigned long long)mag);
		prefix = f->alt ? (t == 'x' ? "0x" : "0X") : "";
	} else if (t == 'o') {
		snprintf(digits, sizeof digits, "%llo", (unsigned long long)mag);
		prefix = f->alt ? "0o" : "";
	} else if (t == 'b') {
		int k = 0;
		char rev[70];
		do
			rev[k++] = (char)('0' + (mag & 1));
		while ((mag >>= 1) != 0);
		for (int i = 0; i < k; i++)
			digits[i] = rev[k - 1 - i];
		digits[k] = '\0';
		prefix = f->alt ? "0b" : "";
	} else if (f->comma) {
		char plain[32];
		snprintf(plain, sizeof plain, "%llu", (unsigned long long)mag);
		size_t n = strlen(plain), k = 0;
		for (size_t i = 0; i < n; i++) {
			if (i && (n - i) % 3 == 0)
				digits[k++] = ',';
			digits[k++] = plain[i];
		}
		digits[k] = '\0';
	} else {
		snprintf(digits, sizeof digits, "%llu", (unsigned long long)mag);
	}
	const char *sign = v < 0 ? "-" : f->sign == '+' ? "+" : f->sign == ' ' ? " " : "";
	snprintf(body, sizeof body, "%s%s%s", sign, prefix, digits);
	pad(out, body, true, f);
}

static void put_float(tlc_buf *out, double v, const fmt_spec *f)
{
	char body[512];
	char t = f->type ? f->type : 0;
	int prec = f->precision >= 0 ? f->precision : 6;
	if (t == '%') {
		v *= 100.0;
		t = 'f';
	}
	char conv[16];
	if (!t) {
		/* Python's repr of a float: the shortest text that reads back */
		if (f->precision < 0) {
			for (int p = 1; p <= 17; p++) {
				snprintf(body, sizeof body, "%.*g", p, v);
				if (strtod(body, NULL) == v)
					break;
			}
			if (isfinite(v) && !strpbrk(body, ".eninf"))
				strcat(body, ".0");
		} else {
			snprintf(body, sizeof body, "%.*g", prec ? prec : 1, v);
		}
	} else {
		snprintf(conv, sizeof conv, "%%%s.*%c", f->sign == '+' ? "+" : f->sign == ' ' ? " " : "", t);
		snprintf(body, sizeof body, conv, prec, v);
	}
	if (f->type == '%')
		strcat(body, "%");
	if (!t && f->sign != '-' && v >= 0) {
		char tmp[512];
		snprintf(tmp, sizeof tmp, "%c%s", f->sign, body);
		strcpy(body, tmp);
	}
	pad(out, body, true, f);
}

/* Append v formatted by spec (conversion 'r', 's' or 0 applied first). */
static bool format_value(fe *F, tlc_buf *out, fe_val *v, char conv, const char *spec, tlc_loc loc)
{
	fmt_spec f;
	if (conv && conv != 'r' && conv != 's' && conv != 'a') {
		tlc_error(F->ctx, loc, "invalid conversion character '%c': expected 's', 'r', or 'a'", conv);
		return false;
	}
	if (!parse_spec(spec, &f)) {
		tlc_error(F->ctx, loc, "format spec '%s' is not supported at compile time", spec);
		return false;
	}
	if (conv == 'r' || conv == 'a' || f.type == 'r') {
		const char *text = fe_show(F, v);
		if (v->kind == FV_STR) {
			size_t len = strlen(v->u.s);
			char *q = fe_alloc(F, len + 3);
			q[0] = '\'';
			memcpy(q + 1, v->u.s, len);
			q[len + 1] = '\'';
			q[len + 2] = '\0';
			text = q;
		}
		v = fe_str(F, text);
		if (f.type == 'r')
			f.type = 's';
	} else if (conv == 's' && v->kind != FV_STR) {
		v = fe_str(F, fe_show(F, v));
	}
	if ((v->kind == FV_INT || v->kind == FV_BOOL) && f.type != 's' && f.type != 'c') {
		int64_t i = v->kind == FV_INT ? v->u.i : v->u.b;
		if (f.type && strchr("fFeEgG%", f.type)) {
			put_float(out, (double)i, &f);
		} else if (v->kind == FV_BOOL && !f.type && f.width < 0) {
			tlc_buf_puts(out, v->u.b ? "True" : "False");
		} else if (f.type && !strchr("dixXob", f.type)) {
			goto bad;
		} else {
			put_int(out, i, &f);
		}
		return true;
	}
	if (v->kind == FV_INT && f.type == 'c') {
		char s[2] = {(char)v->u.i, 0};
		pad(out, s, false, &f);
		return true;
	}
	if (v->kind == FV_FLOAT) {
		if (f.type && !strchr("fFeEgG%", f.type))
			goto bad;
		put_float(out, v->u.f, &f);
		return true;
	}
	if (f.type && f.type != 's')
		goto bad;
	pad(out, v->kind == FV_STR ? v->u.s : fe_show(F, v), false, &f);
	return true;
bad:
	tlc_error(F->ctx, loc, "format code '%c' does not apply to a %s", f.type, fe_kind_name(v));
	return false;
}

/* ---- replacement fields: {expr!c:spec} ---- */

/* The end of the field that starts after `{` at s: the `}` that closes it
 * (brackets and quotes inside are skipped); *expr_end is where the
 * expression ends (at `!`, `:` or `}` at depth 0). */
static const char *field_end(const char *s, const char **expr_end)
{
	int depth = 0;
	char quote = 0;
	*expr_end = NULL;
	for (const char *p = s; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			continue;
		}
		if (*p == '\'' || *p == '"')
			quote = *p;
		else if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == ']' || *p == '}') && depth > 0)
			depth--;
		else if (depth == 0 && !*expr_end && (*p == ':' || (*p == '!' && p[1] != '=')))
			*expr_end = p;
		else if (depth == 0 && *p == '}') {
			if (!*expr_end)
				*expr_end = p;
			return p;
		}
	}
	return NULL;
}

/* An f-string field `{expr=}` (Python 3.8's self-documenting form): the
 * length of expr without the `=` and the spaces around it, else 0. */
static size_t self_doc(const char *e, size_t len)
{
	while (len && e[len - 1] == ' ')
		len--;
	if (len < 2 || e[len - 1] != '=' || strchr("=!<>", e[len - 2]))
		return 0;
	return len - 1;
}

/* The parsed expressions of an f-string, kept per node. */
typedef struct fstr_cache {
	const py_node *node;
	py_node **exprs;
	int n;
	struct fstr_cache *next;
} fstr_cache;

static py_node *parse_field(fe *F, const py_node *n, const char *text, size_t len)
{
	char name[128];
	snprintf(name, sizeof name, "<f-string at line %u, column %u>", (unsigned)n->loc.line, (unsigned)n->loc.col);
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_buf_printf(&b, "(%.*s)\n", (int)len, text);
	uint32_t src = tlc_add_source(F->ctx, name, tlc_buf_str(&b), b.len);
	py_node *m = py_parse(F->ctx, F->arena, src, tlc_buf_str(&b), b.len);
	tlc_buf_free(&b);
	if (!m || m->nbody != 1 || m->body[0]->kind != PY_EXPR_STMT) {
		if (m)
			tlc_error(F->ctx, n->loc, "f-string: '%.*s' is not an expression", (int)len, text);
		return NULL;
	}
	return m->body[0]->a;
}

/* Format template s: literal text (with {{ and }} for braces) and
 * replacement fields {FIELD!c:spec}, whose values `value` gives from the
 * field's text.  `what` names the construct in errors. */
typedef fe_val *field_value_fn(fe *F, void *ctx, const char *field, size_t len, tlc_loc loc);

static fe_val *format_template(fe *F, const char *s, field_value_fn *value, void *ctx, const char *what, tlc_loc loc)
{
	bool fstring = strcmp(what, "f-string") == 0;
	tlc_buf out;
	tlc_buf_init(&out);
	bool ok = true;
	for (const char *p = s; *p && ok; p++) {
		if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
			tlc_buf_putc(&out, *p++);
			continue;
		}
		if (*p != '{') {
			tlc_buf_putc(&out, *p);
			continue;
		}
		const char *ee, *end = field_end(p + 1, &ee);
		if (!end) {
			tlc_error(F->ctx, loc, "%s: single '{' encountered in format string", what);
			ok = false;
			break;
		}
		char conv = 0;
		const char *spec_at = ee;
		if (*ee == '!') {
			conv = ee[1];
			spec_at = ee + 2;
		}
		char spec[256] = "";
		if (*spec_at == ':') {
			size_t sl = (size_t)(end - spec_at - 1);
			if (memchr(spec_at + 1, '{', sl)) {
				tlc_error(F->ctx, loc, "%s: nested replacement fields in a format spec are not supported", what);
				ok = false;
				break;
			}
			snprintf(spec, sizeof spec, "%.*s", (int)sl, spec_at + 1);
		}
		if (fstring && self_doc(p + 1, (size_t)(ee - p - 1))) {
			/* {x=}: the text, then the value (repr unless converted or formatted) */
			tlc_buf_printf(&out, "%.*s", (int)(ee - p - 1), p + 1);
			conv = conv || spec[0] ? conv : 'r';
		}
		fe_val *v = value(F, ctx, p + 1, (size_t)(ee - p - 1), loc);
		ok = v && format_value(F, &out, v, conv, spec, loc) && fe_check_str(F, (int64_t)out.len, loc);
		p = end;
	}
	fe_val *r = ok ? fe_str(F, fe_strdup(F, tlc_buf_str(&out))) : NULL;
	tlc_buf_free(&out);
	return r;
}

/* An f-string's value of its next field: the next parsed expression. */
typedef struct fstr_fields {
	fe_env *env;
	py_node **exprs;
	int next;
} fstr_fields;

static fe_val *fstring_value(fe *F, void *ctx, const char *field, size_t len, tlc_loc loc)
{
	(void)field, (void)len, (void)loc;
	fstr_fields *ff = ctx;
	return fe_eval(F, ff->env, ff->exprs[ff->next++]);
}

fe_val *fe_eval_fstring(fe *F, fe_env *env, py_node *n)
{
	const char *s = n->str ? n->str : "";
	fstr_cache *c = F->fstrings;
	while (c && c->node != n)
		c = c->next;
	if (!c) {
		c = fe_alloc(F, sizeof(*c));
		*c = (fstr_cache){n, NULL, 0, F->fstrings};
		int count = 0;
		for (const char *p = s; *p; p++)
			count += *p == '{';
		c->exprs = fe_alloc(F, sizeof(py_node *) * (size_t)(count + 1));
		for (const char *p = s; *p; p++) {
			if (*p == '{' && p[1] == '{') {
				p++;
				continue;
			}
			if (*p != '{')
				continue;
			const char *ee, *end = field_end(p + 1, &ee);
			if (!end || ee == p + 1) {
				tlc_error(F->ctx, n->loc, "f-string: %s", end ? "empty expression not allowed" : "expecting '}'");
				return NULL;
			}
			size_t len = (size_t)(ee - p - 1), doc = self_doc(p + 1, len);
			py_node *e = parse_field(F, n, p + 1, doc ? doc : len);
			if (!e)
				return NULL;
			c->exprs[c->n++] = e;
			p = end;
		}
		F->fstrings = c;
	}
	fstr_fields ff = {env, c->exprs, 0};
	return format_template(F, s, fstring_value, &ff, "f-string", n->loc);
}

/* ---- "...".format(*args, **kwargs) ---- */

typedef struct format_args {
	int nargs, nkw, auto_index;
	fe_val **args, **kwv;
	const char **kwn;
} format_args;

/* str.format's value of field {name}: the next positional argument, the
 * numbered one, or the keyword argument `name` */
static fe_val *format_arg(fe *F, void *ctx, const char *name, size_t len, tlc_loc loc)
{
	format_args *fa = ctx;
	fe_val *v = NULL;
	if (!len) {
		v = fa->auto_index < fa->nargs ? fa->args[fa->auto_index++] : NULL;
	} else if (*name >= '0' && *name <= '9') {
		long i = strtol(name, NULL, 10);
		v = i < fa->nargs ? fa->args[i] : NULL;
	} else {
		for (int k = 0; k < fa->nkw && !v; k++)
			if (strlen(fa->kwn[k]) == len && strncmp(fa->kwn[k], name, len) == 0)
				v = fa->kwv[k];
	}
	if (!v)
		tlc_error(F->ctx, loc, "str.format: no argument for field '{%.*s}'", (int)len, name);
	return v;
}

fe_val *fe_str_format(fe *F, const char *s, int nargs, fe_val **args, int nkw, const char **kwn, fe_val **kwv,
                      tlc_loc loc)
{
	format_args fa = {nargs, nkw, 0, args, kwv, kwn};
	return format_template(F, s, format_arg, &fa, "str.format", loc);
}

/* ---- "..." % args ---- */

fe_val *fe_str_percent(fe *F, const char *s, fe_val *args, tlc_loc loc)
{
	fe_val *one[1] = {args};
	fe_val **items = args->kind == FV_TUPLE ? args->u.seq.items : one;
	int n = args->kind == FV_TUPLE ? args->u.seq.n : 1, k = 0;
	tlc_buf out;
	tlc_buf_init(&out);
	bool ok = true;
	for (const char *p = s; *p && ok; p++) {
		if (*p != '%') {
			tlc_buf_putc(&out, *p);
			continue;
		}
		if (p[1] == '%') {
			tlc_buf_putc(&out, '%');
			p++;
			continue;
		}
		/* %[flags][width][.precision]type -> a format spec */
		const char *q = p + 1;
		char spec[64];
		size_t m = 0;
		bool left = false;
		while (*q && strchr("-+ 0#", *q)) {
			if (*q == '-')
				left = true;
			else if (m < 8)
				spec[m++] = *q == '0' ? '0' : *q;
			q++;
		}
		while (*q >= '0' && *q <= '9' && m < 40)
			spec[m++] = *q++;
		if (*q == '.') {
			spec[m++] = *q++;
			while (*q >= '0' && *q <= '9' && m < 50)
				spec[m++] = *q++;
		}
		char t = *q;
		if (!t || !strchr("dixXofFeEgGsrc", t)) {
			tlc_error(F->ctx, loc, "unsupported format character '%c' in a %% format", t ? t : ' ');
			ok = false;
			break;
		}
		spec[m++] = t == 'i' ? 'd' : t == 'r' ? 's' : t;
		spec[m] = '\0';
		if (k >= n) {
			tlc_error(F->ctx, loc, "not enough arguments for format string");
			ok = false;
			break;
		}
		char full[72];
		/* printf pads on the left unless '-' (or '0' for numbers) says otherwise */
		snprintf(full, sizeof full, "%s%s", left ? "<" : strchr(spec, '0') == spec ? "" : ">", spec);
		ok = format_value(F, &out, items[k++], t == 'r' ? 'r' : 0, full, loc) &&
		     fe_check_str(F, (int64_t)out.len, loc);
		p = q;
	}
	if (ok && k < n) {
		tlc_error(F->ctx, loc, "not all arguments converted during string formatting");
		ok = false;
	}
	fe_val *r = ok ? fe_str(F, fe_strdup(F, tlc_buf_str(&out))) : NULL;
	tlc_buf_free(&out);
	return r;
}
