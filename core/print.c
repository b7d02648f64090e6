/* print.c - the IR printer.  The output is a TileLang Python file that the
 * frontend reads back to the same IR (doc/ir.md is the contract). */
#include "internal.h"

#include "hash_table.h"

#include <tlc/sim.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- printed names: unique within a kernel, in order of first appearance ----
 *
 * A name already taken gets the first free suffix: v, v_1, v_2, ...  The
 * lookups go through hash tables (a kernel may rebind one variable thousands
 * of times); the names array keeps the order of first appearance, which is
 * what tlc_func_uniquify_names walks. */

typedef struct name_entry {
	const void *obj; /* a tlc_var or a tlc_buffer */
	bool is_buf;
	char *name;
} name_entry;

typedef struct printer {
	tlc_buf *out;
	tlc_module *m; /* printing may hash-cons simplified region ends */
	int n, cap;
	name_entry *names;
	tlc_hash_table by_obj;  /* obj -> index in names */
	tlc_hash_table by_name; /* name -> index in names */
	/* base -> the smallest k whose base_k may still be free (see fresh_name) */
	tlc_hash_table next_suffix;
	int nbases, cap_bases;
	char **bases; /* the keys of next_suffix, owned */
} printer;

static const char *const reserved_names[] = {
	"T", "_", "False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
	"global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield",
};

static bool name_taken(const printer *p, const char *name)
{
	for (size_t i = 0; i < TLC_ARRAY_LEN(reserved_names); i++)
		if (strcmp(reserved_names[i], name) == 0)
			return true;
	return tlc_hash_find_str(&p->by_name, name) >= 0;
}

/* A Python identifier made from `base`: invalid characters become '_'. */
static char *sanitize(const char *base)
{
	if (!base || !*base)
		base = "v";
	size_t n = strlen(base);
	bool digit = base[0] >= '0' && base[0] <= '9';
	char *s = tlc_xmalloc(n + 3);
	char *q = s;
	if (digit)
		*q++ = 'v', *q++ = '_';
	for (size_t i = 0; i < n; i++) {
		char c = base[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
		*q++ = ok ? c : '_';
	}
	*q = '\0';
	return s;
}

/* base_k for the smallest k >= 1 not taken (base itself is taken).  Names are
 * only ever added, so a k found taken stays taken: the search for a base goes
 * on where its previous search ended, and each base_k is probed once over the
 * whole kernel instead of once per rebinding. */
static char *fresh_name(printer *p, const char *base)
{
	int first = tlc_hash_find_str(&p->next_suffix, base);
	if (first < 0) {
		/* the first clash of this base: the table keeps a copy as its key */
		if (p->nbases == p->cap_bases) {
			p->cap_bases = p->cap_bases ? p->cap_bases * 2 : 16;
			p->bases = tlc_xrealloc(p->bases, (size_t)p->cap_bases * sizeof(*p->bases));
		}
		p->bases[p->nbases] = tlc_xstrdup(base);
		tlc_hash_put_str(&p->next_suffix, p->bases[p->nbases++], 1);
		first = 1;
	}
	size_t len = strlen(base);
	char *cand = tlc_xmalloc(len + 24);
	unsigned k = (unsigned)first;
	for (;; k++) {
		snprintf(cand, len + 24, "%s_%u", base, k);
		if (!name_taken(p, cand))
			break;
	}
	/* the caller takes base_k: the next search for this base starts after it
	 * (the entry exists, so the table keeps its own copy of the key) */
	tlc_hash_put_str(&p->next_suffix, base, (int)k + 1);
	return cand;
}

static const char *name_of(printer *p, const void *obj, bool is_buf, const char *base)
{
	int known = tlc_hash_find_addr(&p->by_obj, obj);
	if (known >= 0)
		return p->names[known].name;
	char *name = sanitize(base);
	if (name_taken(p, name)) {
		char *fresh = fresh_name(p, name);
		free(name);
		name = fresh;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->names = tlc_xrealloc(p->names, (size_t)p->cap * sizeof(*p->names));
	}
	p->names[p->n].obj = obj;
	p->names[p->n].is_buf = is_buf;
	p->names[p->n].name = name;
	tlc_hash_put_addr(&p->by_obj, obj, p->n);
	tlc_hash_put_str(&p->by_name, name, p->n);
	p->n++;
	return name;
}

static const char *var_name(printer *p, const tlc_var *v)
{
	return v ? name_of(p, v, false, v->name) : "_";
}

static const char *buf_name(printer *p, const tlc_buffer *b)
{
	return b ? name_of(p, b, true, b->name) : "None";
}

static void printer_init(printer *p, tlc_buf *out, const tlc_module *m)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->m = (tlc_module *)m;
}

static void printer_fini(printer *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->names[i].name);
	free(p->names);
	for (int i = 0; i < p->nbases; i++)
		free(p->bases[i]);
	free(p->bases);
	tlc_hash_free(&p->by_obj);
	tlc_hash_free(&p->by_name);
	tlc_hash_free(&p->next_suffix);
}

/* ---- constants ---- */

/* Python precedence levels, loosest first. */
enum {
	PREC_LAMBDA, PREC_IFELSE, PREC_OR, PREC_AND, PREC_NOT, PREC_CMP, PREC_BITOR, PREC_BITXOR,
	PREC_BITAND, PREC_SHIFT, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_POW, PREC_ATOM,
};

/* The shortest %g text that reads back to exactly v as a constant of
 * dtype t (a float32 0.1 prints as 0.1, and reading 0.1 back rounds to the
 * same float), with a '.' or an 'e' so that Python reads a float. */
static void format_double(char *s, size_t size, double v, tlc_dtype t)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(s, size, "%.*g", prec, v);
		double r = strtod(s, NULL);
		if ((t == TLC_DT_FLOAT64 ? r : tlc_sim_round(t, (double)(float)r)) == v)
			break;
	}
	if (!strpbrk(s, ".e"))
		strncat(s, ".0", size - strlen(s) - 1);
}

static void put_str_lit(tlc_buf *out, const char *s)
{
	tlc_buf_putc(out, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': tlc_buf_puts(out, "\\\""); break;
		case '\\': tlc_buf_puts(out, "\\\\"); break;
		case '\n': tlc_buf_puts(out, "\\n"); break;
		case '\t': tlc_buf_puts(out, "\\t"); break;
		case '\r': tlc_buf_puts(out, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				tlc_buf_printf(out, "\\x%02x", c);
			else
				tlc_buf_putc(out, (char)c);
		}
	}
	tlc_buf_putc(out, '"');
}

static void put_dtype_str(tlc_buf *out, tlc_dtype t)
{
	tlc_buf_printf(out, "\"%s\"", tlc_dtype_name(t));
}

static int const_prec(const tlc_expr *e)
{
	if (e->kind == TLC_EXPR_INT)
		return e->dtype == TLC_DT_INT32 && e->u.ival < 0 ? PREC_UNARY : PREC_ATOM;
	bool bare = e->dtype == TLC_DT_FLOAT32 || isinf(e->u.fval);
	return bare && signbit(e->u.fval) && !isnan(e->u.fval) ? PREC_UNARY : PREC_ATOM;
}

static void print_int(printer *p, const tlc_expr *e)
{
	long long v = (long long)e->u.ival;
	if (e->dtype == TLC_DT_BOOL)
		tlc_buf_puts(p->out, v ? "True" : "False");
	else if (e->dtype == TLC_DT_INT32 || e->dtype == TLC_DT_VOID)
		tlc_buf_printf(p->out, "%lld", v);
	else if (v == LLONG_MIN) /* -2**63: its digits alone are no int64 literal */
		tlc_buf_printf(p->out, "T.%s(%lld - 1)", tlc_dtype_name(e->dtype), v + 1);
	else
		tlc_buf_printf(p->out, "T.%s(%lld)", tlc_dtype_name(e->dtype), v);
}

static void print_float(printer *p, const tlc_expr *e)
{
	double v = e->u.fval;
	const char *dt = tlc_dtype_name(e->dtype);
	if (isinf(v)) {
		tlc_buf_printf(p->out, "%sT.infinity(\"%s\")", v < 0 ? "-" : "", dt);
	} else if (isnan(v)) {
		tlc_buf_printf(p->out, "T.%s(\"nan\")", dt);
	} else {
		char s[64];
		format_double(s, sizeof(s), v, e->dtype);
		if (e->dtype == TLC_DT_FLOAT32)
			tlc_buf_puts(p->out, s);
		else
			tlc_buf_printf(p->out, "T.%s(%s)", dt, s);
	}
}

/* ---- expressions ---- */

static void print_expr(printer *p, const tlc_expr *e, int min_prec);

static int binary_prec(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: case TLC_EXPR_SUB: return PREC_ADD;
	case TLC_EXPR_MUL: case TLC_EXPR_DIV: case TLC_EXPR_FLOORDIV: case TLC_EXPR_FLOORMOD: return PREC_MUL;
	case TLC_EXPR_EQ: case TLC_EXPR_NE: case TLC_EXPR_LT: case TLC_EXPR_LE:
	case TLC_EXPR_GT: case TLC_EXPR_GE: return PREC_CMP;
	case TLC_EXPR_AND: return PREC_AND;
	case TLC_EXPR_OR: return PREC_OR;
	case TLC_EXPR_BITAND: return PREC_BITAND;
	case TLC_EXPR_BITOR: return PREC_BITOR;
	case TLC_EXPR_BITXOR: return PREC_BITXOR;
	case TLC_EXPR_SHL: case TLC_EXPR_SHR: return PREC_SHIFT;
	default: return -1;
	}
}

static const char *const spelling[] = {
#define EXPR(e, sp, arity) sp,
#include <tlc/exprs.def>
#undef EXPR
};

static int expr_prec(const tlc_expr *e)
{
	switch (e->kind) {
	case TLC_EXPR_INT:
	case TLC_EXPR_FLOAT: return const_prec(e);
	case TLC_EXPR_NOT: return PREC_NOT;
	case TLC_EXPR_NEG: return PREC_UNARY;
	case TLC_EXPR_LAMBDA: return PREC_LAMBDA;
	default: {
		int b = binary_prec(e->kind);
		return b >= 0 ? b : PREC_ATOM;
	}
	}
}

static void print_list(printer *p, const tlc_expr *const *items, int n, int min_prec)
{
	for (int i = 0; i < n; i++) {
		if (i)
			tlc_buf_puts(p->out, ", ");
		print_expr(p, items[i], min_prec);
	}
}

static bool is_int_value(const tlc_expr *e, int64_t v)
{
	int64_t x;
	return tlc_expr_as_int(e, &x) && x == v;
}

/* One dimension of a region: `i`, `:` or `b:e` with e = simplify(b + extent). */
static void print_range(printer *p, const tlc_buffer *buf, int d, const tlc_range *r)
{
	if (r->is_point) {
		print_expr(p, r->begin, PREC_IFELSE);
		return;
	}
	bool full = is_int_value(r->begin, 0) && d < buf->ndim && r->extent == buf->shape[d];
	if (full) {
		tlc_buf_putc(p->out, ':');
		return;
	}
	print_expr(p, r->begin, PREC_IFELSE);
	tlc_buf_putc(p->out, ':');
	const tlc_expr *end = NULL;
	if (r->begin && r->extent)
		end = tlc_simplify_expr(p->m, tlc_binary(p->m, TLC_EXPR_ADD, r->begin, r->extent));
	print_expr(p, end, PREC_IFELSE);
}

static void print_call(printer *p, const tlc_expr *e)
{
	const tlc_op_info *op = tlc_op_get(p->m->ctx, e->u.call.op);
	if (op)
		tlc_buf_printf(p->out, "T.%s(", op->name);
	else
		tlc_buf_printf(p->out, "T.unknown_op_%d(", (int)e->u.call.op);
	print_list(p, e->u.call.args, e->u.call.nargs, PREC_LAMBDA);
	for (int i = 0; i < e->u.call.nkw; i++) {
		if (i || e->u.call.nargs)
			tlc_buf_puts(p->out, ", ");
		tlc_buf_printf(p->out, "%s=", e->u.call.kw_names[i]);
		print_expr(p, e->u.call.kw_values[i], PREC_LAMBDA);
	}
	tlc_buf_putc(p->out, ')');
}

/* Operands that start with '-' get parentheses under a unary minus, so that
 * `-(-x)` never prints as the confusing `--x`. */
static bool starts_with_minus(const tlc_expr *e)
{
	return e && (e->kind == TLC_EXPR_NEG || ((e->kind == TLC_EXPR_INT || e->kind == TLC_EXPR_FLOAT) &&
	                                         const_prec(e) == PREC_UNARY));
}

/* A constant beside an operand of its own type prints as a plain Python
 * number: read back, the literal takes that operand's type again
 * (doc/language.md, "Arithmetic"), so `x * 2.0` reads back as the float16
 * product it is and `T.cast(i, "int64") + 5` as the int64 sum. */
static bool prints_bare(const tlc_expr *x, const tlc_expr *sibling)
{
	if (!x || !sibling || sibling->kind == TLC_EXPR_INT || sibling->kind == TLC_EXPR_FLOAT ||
	    x->dtype != sibling->dtype)
		return false;
	if (x->kind == TLC_EXPR_FLOAT)
		return isfinite(x->u.fval);
	return x->kind == TLC_EXPR_INT && x->dtype != TLC_DT_BOOL &&
	       (!tlc_dtype_is_unsigned(x->dtype) || x->u.ival >= 0);
}

static void print_operand(printer *p, const tlc_expr *x, const tlc_expr *sibling, int min_prec)
{
	if (!prints_bare(x, sibling)) {
		print_expr(p, x, min_prec);
		return;
	}
	char s[64];
	if (x->kind == TLC_EXPR_FLOAT)
		format_double(s, sizeof(s), x->u.fval, x->dtype);
	else
		snprintf(s, sizeof(s), "%lld", (long long)x->u.ival);
	bool paren = s[0] == '-' && PREC_UNARY < min_prec;
	tlc_buf_printf(p->out, paren ? "(%s)" : "%s", s);
}

static void print_expr_inner(printer *p, const tlc_expr *e)
{
	tlc_buf *out = p->out;
	switch (e->kind) {
	case TLC_EXPR_INT: print_int(p, e); return;
	case TLC_EXPR_FLOAT: print_float(p, e); return;
	case TLC_EXPR_STR: put_str_lit(out, e->u.str); return;
	case TLC_EXPR_SYM: tlc_buf_puts(out, e->u.str); return;
	case TLC_EXPR_VAR: tlc_buf_puts(out, var_name(p, e->u.var)); return;
	case TLC_EXPR_BUF: tlc_buf_puts(out, buf_name(p, e->u.buf)); return;
	case TLC_EXPR_NOT:
		tlc_buf_puts(out, "not ");
		print_expr(p, e->u.op.a, PREC_NOT);
		return;
	case TLC_EXPR_NEG:
		tlc_buf_putc(out, '-');
		print_expr(p, e->u.op.a, starts_with_minus(e->u.op.a) ? PREC_POW : PREC_UNARY);
		return;
	case TLC_EXPR_MIN:
	case TLC_EXPR_MAX:
		tlc_buf_puts(out, e->kind == TLC_EXPR_MIN ? "T.min(" : "T.max(");
		print_operand(p, e->u.op.a, e->u.op.b, PREC_LAMBDA);
		tlc_buf_puts(out, ", ");
		print_operand(p, e->u.op.b, e->u.op.a, PREC_LAMBDA);
		tlc_buf_putc(out, ')');
		return;
	case TLC_EXPR_SELECT:
		tlc_buf_puts(out, "T.if_then_else(");
		print_expr(p, e->u.op.a, PREC_LAMBDA);
		tlc_buf_puts(out, ", ");
		print_operand(p, e->u.op.b, e->u.op.c, PREC_LAMBDA);
		tlc_buf_puts(out, ", ");
		print_operand(p, e->u.op.c, e->u.op.b, PREC_LAMBDA);
		tlc_buf_putc(out, ')');
		return;
	case TLC_EXPR_CAST:
	case TLC_EXPR_BITCAST:
		tlc_buf_puts(out, e->kind == TLC_EXPR_CAST ? "T.cast(" : "T.reinterpret(");
		print_expr(p, e->u.op.a, PREC_LAMBDA);
		tlc_buf_puts(out, ", ");
		put_dtype_str(out, e->dtype);
		tlc_buf_putc(out, ')');
		return;
	case TLC_EXPR_LOAD:
		tlc_buf_puts(out, buf_name(p, e->u.load.buf));
		tlc_buf_putc(out, '[');
		if (e->u.load.n == 0)
			tlc_buf_puts(out, "()");
		print_list(p, e->u.load.idx, e->u.load.n, PREC_IFELSE);
		tlc_buf_putc(out, ']');
		return;
	case TLC_EXPR_REGION:
		tlc_buf_puts(out, buf_name(p, e->u.region.buf));
		tlc_buf_putc(out, '[');
		if (e->u.region.n == 0)
			tlc_buf_puts(out, "()");
		for (int i = 0; i < e->u.region.n; i++) {
			if (i)
				tlc_buf_puts(out, ", ");
			print_range(p, e->u.region.buf, i, &e->u.region.dims[i]);
		}
		tlc_buf_putc(out, ']');
		return;
	case TLC_EXPR_TUPLE:
		if (e->u.tuple.is_dict) {
			tlc_buf_putc(out, '{');
			for (int i = 0; i < e->u.tuple.n; i++) {
				const tlc_expr *kv = e->u.tuple.items[i];
				if (i)
					tlc_buf_puts(out, ", ");
				print_expr(p, kv->u.tuple.items[0], PREC_IFELSE);
				tlc_buf_puts(out, ": ");
				print_expr(p, kv->u.tuple.items[1], PREC_IFELSE);
			}
			tlc_buf_putc(out, '}');
			return;
		}
		tlc_buf_putc(out, e->u.tuple.is_list ? '[' : '(');
		print_list(p, e->u.tuple.items, e->u.tuple.n, PREC_IFELSE);
		if (!e->u.tuple.is_list && e->u.tuple.n == 1)
			tlc_buf_putc(out, ',');
		tlc_buf_putc(out, e->u.tuple.is_list ? ']' : ')');
		return;
	case TLC_EXPR_CALL: print_call(p, e); return;
	case TLC_EXPR_LAMBDA:
		tlc_buf_puts(out, "lambda");
		for (int i = 0; i < e->u.lambda.nparams; i++)
			tlc_buf_printf(out, "%s%s", i ? ", " : " ", var_name(p, e->u.lambda.params[i]));
		tlc_buf_puts(out, ": ");
		print_expr(p, e->u.lambda.body, PREC_LAMBDA);
		return;
	default: {
		int prec = binary_prec(e->kind);
		if (prec < 0) {
			tlc_buf_printf(out, "T.unknown_expr_%d()", (int)e->kind);
			return;
		}
		/* left-associative; comparisons do not chain in the IR, so a
		 * comparison operand of a comparison needs parentheses */
		print_operand(p, e->u.op.a, e->u.op.b, prec == PREC_CMP ? prec + 1 : prec);
		tlc_buf_printf(out, " %s ", spelling[e->kind]);
		print_operand(p, e->u.op.b, e->u.op.a, prec + 1);
		return;
	}
	}
}

static void print_expr(printer *p, const tlc_expr *e, int min_prec)
{
	if (!e) {
		tlc_buf_puts(p->out, "None");
		return;
	}
	bool paren = expr_prec(e) < min_prec;
	if (paren)
		tlc_buf_putc(p->out, '(');
	print_expr_inner(p, e);
	if (paren)
		tlc_buf_putc(p->out, ')');
}

/* ---- statements ---- */

static void print_block(printer *p, const tlc_stmt *s, int indent);

static void print_shape(printer *p, const tlc_buffer *b)
{
	tlc_buf_putc(p->out, '(');
	print_list(p, b->shape, b->ndim, PREC_IFELSE);
	if (b->ndim == 1)
		tlc_buf_putc(p->out, ',');
	tlc_buf_putc(p->out, ')');
}

static void print_alloc(printer *p, const tlc_buffer *b)
{
	tlc_buf *out = p->out;
	tlc_buf_printf(out, "%s = ", buf_name(p, b));
	if (b->base) {
		/* a tensor at a run-time address: the frontend reads it back */
		tlc_buf_puts(out, "T.make_tensor(");
		print_expr(p, b->base, PREC_LAMBDA);
		tlc_buf_puts(out, ", ");
		print_shape(p, b);
		tlc_buf_puts(out, ", ");
		put_dtype_str(out, b->dtype);
		tlc_buf_putc(out, ')');
		return;
	}
	if (b->alias_of) {
		tlc_buf_printf(out, "T.view(%s, ", buf_name(p, b->alias_of));
		print_shape(p, b);
		tlc_buf_puts(out, ", ");
		put_dtype_str(out, b->dtype);
		tlc_buf_putc(out, ')');
		return;
	}
	switch (b->scope) {
	case TLC_SCOPE_VAR:
		tlc_buf_puts(out, "T.alloc_var(");
		put_dtype_str(out, b->dtype);
		if (b->ninit > 0) {
			tlc_buf_puts(out, ", init=");
			print_expr(p, b->init[0], PREC_LAMBDA);
		}
		tlc_buf_putc(out, ')');
		return;
	case TLC_SCOPE_BARRIER:
		tlc_buf_puts(out, "T.alloc_barrier([");
		print_list(p, b->init, b->ninit, PREC_IFELSE);
		tlc_buf_puts(out, "])");
		return;
	case TLC_SCOPE_SHARED:
	case TLC_SCOPE_SHARED_DYN: tlc_buf_puts(out, "T.alloc_shared("); break;
	case TLC_SCOPE_FRAGMENT: tlc_buf_puts(out, "T.alloc_fragment("); break;
	case TLC_SCOPE_LOCAL: tlc_buf_puts(out, "T.alloc_local("); break;
	default: tlc_buf_puts(out, "T.alloc_buffer("); break;
	}
	print_shape(p, b);
	tlc_buf_puts(out, ", ");
	put_dtype_str(out, b->dtype);
	if (b->scope == TLC_SCOPE_SHARED || b->scope == TLC_SCOPE_GLOBAL)
		tlc_buf_printf(out, ", scope=\"%s\"", tlc_scope_name(b->scope));
	if (b->scope == TLC_SCOPE_SHARED_DYN && b->offset >= 0) /* placed by storage-plan */
		tlc_buf_printf(out, ", offset=%lld", (long long)b->offset);
	tlc_buf_putc(out, ')');
}

/* `e` when min is 0, else `min, end` with end = simplify(min + extent). */
static void print_bounds(printer *p, const tlc_expr *min, const tlc_expr *extent)
{
	if (!min || is_int_value(min, 0)) {
		print_expr(p, extent, PREC_LAMBDA);
		return;
	}
	print_expr(p, min, PREC_LAMBDA);
	tlc_buf_puts(p->out, ", ");
	const tlc_expr *end = extent ? tlc_simplify_expr(p->m, tlc_binary(p->m, TLC_EXPR_ADD, min, extent)) : NULL;
	print_expr(p, end, PREC_LAMBDA);
}

static void print_int_list(tlc_buf *out, const int *v, int n)
{
	tlc_buf_putc(out, '[');
	for (int i = 0; i < n; i++)
		tlc_buf_printf(out, "%s%d", i ? ", " : "", v ? v[i] : 0);
	tlc_buf_putc(out, ']');
}

static void print_pipelined(printer *p, const tlc_stmt *s)
{
	tlc_buf *out = p->out;
	const tlc_pipeline_info *pi = &s->u.loop.pipe;
	tlc_buf_puts(out, "T.Pipelined(");
	print_bounds(p, s->u.loop.min, s->u.loop.extent);
	if (pi->num_stages)
		tlc_buf_printf(out, ", num_stages=%d", pi->num_stages);
	if (pi->n_order > 0) {
		tlc_buf_puts(out, ", order=");
		print_int_list(out, pi->order, pi->n_order);
	}
	if (pi->n_stage > 0) {
		tlc_buf_puts(out, ", stage=");
		print_int_list(out, pi->stage, pi->n_stage);
	}
	if (pi->n_group > 0) {
		tlc_buf_puts(out, ", group=[");
		for (int g = 0; g < pi->n_group; g++) {
			if (g)
				tlc_buf_puts(out, ", ");
			print_int_list(out, pi->group ? pi->group[g] : NULL, pi->group_len ? pi->group_len[g] : 0);
		}
		tlc_buf_putc(out, ']');
	}
	tlc_buf_putc(out, ')');
}

/* The single parallel loop that is the whole body of s, or NULL. */
static const tlc_stmt *nested_parallel(const tlc_stmt *s)
{
	const tlc_stmt *b = s->u.loop.body;
	if (b && b->kind == TLC_STMT_SEQ && b->u.seq.n == 1)
		b = b->u.seq.items[0];
	if (!b || b->kind != TLC_STMT_FOR || b->u.loop.kind != TLC_FOR_PARALLEL)
		return NULL;
	/* keywords belong to the outermost loop of a printed nest: an inner loop
	 * with its own starts a nest of its own */
	return b->u.loop.loop_layout || b->u.loop.coalesced_width ? NULL : b;
}

/* `for i, j in T.Parallel(a, b):` over a nest of parallel loops; a dimension
 * with a non-zero min prints as `(min, end)`. Returns the innermost loop. */
static const tlc_stmt *print_parallel_header(printer *p, const tlc_stmt *s)
{
	const tlc_stmt *nest[64];
	int n = 0;
	for (const tlc_stmt *l = s; l && n < 64; l = nested_parallel(l))
		nest[n++] = l;
	tlc_buf_puts(p->out, "for ");
	for (int i = 0; i < n; i++)
		tlc_buf_printf(p->out, "%s%s", i ? ", " : "", var_name(p, nest[i]->u.loop.var));
	tlc_buf_puts(p->out, " in T.Parallel(");
	for (int i = 0; i < n; i++) {
		if (i)
			tlc_buf_puts(p->out, ", ");
		bool ranged = nest[i]->u.loop.min && !is_int_value(nest[i]->u.loop.min, 0);
		if (ranged)
			tlc_buf_putc(p->out, '(');
		print_bounds(p, nest[i]->u.loop.min, nest[i]->u.loop.extent);
		if (ranged)
			tlc_buf_putc(p->out, ')');
	}
	if (s->u.loop.coalesced_width)
		tlc_buf_printf(p->out, ", coalesced_width=%lld", (long long)s->u.loop.coalesced_width);
	if (s->u.loop.loop_layout) {
		tlc_buf_puts(p->out, ", loop_layout=");
		print_expr(p, s->u.loop.loop_layout, PREC_LAMBDA);
	}
	tlc_buf_puts(p->out, "):\n");
	return nest[n - 1];
}

static void print_for(printer *p, const tlc_stmt *s, int indent)
{
	tlc_buf *out = p->out;
	if (s->u.loop.kind == TLC_FOR_PARALLEL) {
		const tlc_stmt *inner = print_parallel_header(p, s);
		print_block(p, inner->u.loop.body, indent + 4);
		return;
	}
	tlc_buf_printf(out, "for %s in ", var_name(p, s->u.loop.var));
	switch (s->u.loop.kind) {
	case TLC_FOR_PIPELINED: print_pipelined(p, s); break;
	case TLC_FOR_THREAD: {
		int d = s->u.loop.thread_dim;
		tlc_buf_puts(out, "T.thread_binding(");
		print_bounds(p, s->u.loop.min, s->u.loop.extent);
		tlc_buf_printf(out, ", thread=\"threadIdx.%c\")", d == 1 ? 'y' : d == 2 ? 'z' : 'x');
		break;
	}
	default: {
		const char *fn = s->u.loop.kind == TLC_FOR_UNROLLED     ? "T.unroll("
		                 : s->u.loop.kind == TLC_FOR_VECTORIZED ? "T.vectorized("
		                                                        : "T.serial(";
		tlc_buf_puts(out, fn);
		print_bounds(p, s->u.loop.min, s->u.loop.extent);
		tlc_buf_putc(out, ')');
		break;
	}
	}
	tlc_buf_puts(out, ":\n");
	print_block(p, s->u.loop.body, indent + 4);
}

static void print_stmt(printer *p, const tlc_stmt *s, int indent)
{
	tlc_buf *out = p->out;
	if (!s) {
		tlc_buf_indent(out, indent);
		tlc_buf_puts(out, "pass\n");
		return;
	}
	if (s->kind == TLC_STMT_SEQ) {
		print_block(p, s, indent);
		return;
	}
	tlc_buf_indent(out, indent);
	switch (s->kind) {
	case TLC_STMT_FOR: print_for(p, s, indent); return;
	case TLC_STMT_IF:
		tlc_buf_puts(out, "if ");
		print_expr(p, s->u.if_.cond, PREC_IFELSE);
		tlc_buf_puts(out, ":\n");
		print_block(p, s->u.if_.then_s, indent + 4);
		if (s->u.if_.else_s) {
			tlc_buf_indent(out, indent);
			tlc_buf_puts(out, "else:\n");
			print_block(p, s->u.if_.else_s, indent + 4);
		}
		return;
	case TLC_STMT_LET:
		tlc_buf_printf(out, "%s = ", var_name(p, s->u.let.var));
		print_expr(p, s->u.let.value, PREC_LAMBDA);
		break;
	case TLC_STMT_STORE:
		tlc_buf_printf(out, "%s[", buf_name(p, s->u.store.buf));
		if (s->u.store.n == 0)
			tlc_buf_puts(out, "()");
		print_list(p, s->u.store.idx, s->u.store.n, PREC_IFELSE);
		tlc_buf_puts(out, "] = ");
		print_expr(p, s->u.store.value, PREC_LAMBDA);
		break;
	case TLC_STMT_EVAL: print_expr(p, s->u.eval.call, PREC_LAMBDA); break;
	case TLC_STMT_ALLOC:
		if (s->u.alloc.buf)
			print_alloc(p, s->u.alloc.buf);
		else
			tlc_buf_puts(out, "pass");
		break;
	case TLC_STMT_SCOPE:
		tlc_buf_puts(out, "with ");
		print_expr(p, s->u.scope.call, PREC_ATOM);
		tlc_buf_puts(out, ":\n");
		print_block(p, s->u.scope.body, indent + 4);
		return;
	case TLC_STMT_ATTR:
		tlc_buf_puts(out, "with T.attr(");
		put_str_lit(out, s->u.attr.key);
		tlc_buf_puts(out, ", ");
		print_expr(p, s->u.attr.value, PREC_LAMBDA);
		tlc_buf_puts(out, "):\n");
		print_block(p, s->u.attr.body, indent + 4);
		return;
	default: tlc_buf_puts(out, "pass"); break;
	}
	tlc_buf_putc(out, '\n');
}

/* A statement list at `indent`; an empty one prints `pass`. */
static void print_block(printer *p, const tlc_stmt *s, int indent)
{
	if (s && s->kind == TLC_STMT_SEQ) {
		int printed = 0;
		for (int i = 0; i < s->u.seq.n; i++) {
			if (!s->u.seq.items[i])
				continue;
			print_stmt(p, s->u.seq.items[i], indent);
			printed++;
		}
		if (printed)
			return;
		s = NULL;
	}
	print_stmt(p, s, indent);
}

/* ---- functions and modules ---- */

static void print_params(printer *p, const tlc_func *f)
{
	tlc_buf *out = p->out;
	for (int i = 0; i < f->nparams; i++) {
		const tlc_param *pa = &f->params[i];
		if (i)
			tlc_buf_puts(out, ", ");
		if (pa->kind == TLC_PARAM_TENSOR && pa->buf) {
			tlc_buf_printf(out, "%s: T.Tensor(", buf_name(p, pa->buf));
			print_shape(p, pa->buf);
			tlc_buf_puts(out, ", ");
			put_dtype_str(out, pa->buf->dtype);
			tlc_buf_putc(out, ')');
		} else if (pa->var) {
			const char *name = var_name(p, pa->var);
			tlc_buf_printf(out, "%s: T.%s", name, tlc_dtype_name(pa->var->dtype));
		} else {
			tlc_buf_printf(out, "_p%d", i);
		}
	}
}

/* T.func_attr({...}); out_idx is derived from the output flags when the
 * attributes do not hold it already. */
static void print_func_attrs(printer *p, const tlc_func *f, int indent)
{
	tlc_buf *out = p->out;
	bool has_out_idx = false, any_output = false;
	for (int i = 0; i < f->nattrs; i++)
		if (f->attr_keys[i] && strcmp(f->attr_keys[i], "out_idx") == 0)
			has_out_idx = true;
	for (int i = 0; i < f->nparams; i++)
		any_output |= f->params[i].is_output;
	bool synth = any_output && !has_out_idx;
	if (!synth && f->nattrs == 0)
		return;
	tlc_buf_indent(out, indent);
	tlc_buf_puts(out, "T.func_attr({");
	int n = 0;
	if (synth) {
		tlc_buf_puts(out, "\"out_idx\": [");
		for (int i = 0, k = 0; i < f->nparams; i++)
			if (f->params[i].is_output)
				tlc_buf_printf(out, "%s%d", k++ ? ", " : "", i);
		tlc_buf_putc(out, ']');
		n++;
	}
	for (int i = 0; i < f->nattrs; i++, n++) {
		if (n)
			tlc_buf_puts(out, ", ");
		put_str_lit(out, f->attr_keys[i] ? f->attr_keys[i] : "");
		tlc_buf_puts(out, ": ");
		print_expr(p, f->attr_values[i], PREC_LAMBDA);
	}
	tlc_buf_puts(out, "})\n");
}

static void print_kernel_frame(printer *p, const tlc_func *f, int indent)
{
	tlc_buf *out = p->out;
	int ng = f->grid_ndim < 1 ? 1 : f->grid_ndim > 3 ? 3 : f->grid_ndim;
	int nt = f->thread_ndim < 1 ? 1 : f->thread_ndim > 3 ? 3 : f->thread_ndim;
	tlc_buf_indent(out, indent);
	tlc_buf_puts(out, "with T.Kernel(");
	for (int i = 0; i < ng; i++) {
		if (i)
			tlc_buf_puts(out, ", ");
		print_expr(p, f->grid[i], PREC_LAMBDA);
	}
	tlc_buf_puts(out, ", threads=");
	if (nt > 1)
		tlc_buf_putc(out, '(');
	for (int i = 0; i < nt; i++) {
		if (i)
			tlc_buf_puts(out, ", ");
		print_expr(p, f->threads[i], PREC_LAMBDA);
	}
	if (nt > 1)
		tlc_buf_putc(out, ')');
	tlc_buf_puts(out, ") as ");
	if (ng > 1)
		tlc_buf_putc(out, '(');
	for (int i = 0; i < ng; i++)
		tlc_buf_printf(out, "%s%s", i ? ", " : "", var_name(p, f->block_vars[i]));
	if (ng > 1)
		tlc_buf_putc(out, ')');
	tlc_buf_puts(out, ":\n");
	for (int i = 0; i < 3; i++) {
		if (!f->thread_vars[i])
			continue;
		tlc_buf_indent(out, indent + 4);
		tlc_buf_printf(out, "%s = T.get_thread_binding(%d)\n", var_name(p, f->thread_vars[i]), i);
	}
	print_block(p, f->body, indent + 4);
}

static void print_func(printer *p, const tlc_func *f)
{
	tlc_buf *out = p->out;
	char *fname = sanitize(f->name);
	tlc_buf_printf(out, "@T.prim_func\ndef %s(", fname);
	free(fname);
	print_params(p, f);
	tlc_buf_puts(out, "):\n");
	print_func_attrs(p, f, 4);
	print_kernel_frame(p, f, 4);
}

void tlc_print_func(tlc_buf *out, const tlc_module *m, const tlc_func *f)
{
	printer p;
	printer_init(&p, out, m);
	print_func(&p, f);
	printer_fini(&p);
}

void tlc_print_module(tlc_buf *out, const tlc_module *m)
{
	tlc_buf_puts(out, "# tlc IR\nimport tilelang.language as T\n");
	for (int i = 0; i < m->nfuncs; i++) {
		tlc_buf_puts(out, "\n\n");
		tlc_print_func(out, m, m->funcs[i]);
	}
}

void tlc_print_expr(tlc_buf *out, const tlc_module *m, const tlc_expr *e)
{
	printer p;
	printer_init(&p, out, m);
	print_expr(&p, e, PREC_LAMBDA);
	printer_fini(&p);
}

void tlc_print_stmt(tlc_buf *out, const tlc_module *m, const tlc_stmt *s, int indent)
{
	printer p;
	printer_init(&p, out, m);
	print_stmt(&p, s, indent);
	printer_fini(&p);
}

/* The printer's names become the IR's names, so that the IR and its printed
 * form agree. */
void tlc_func_uniquify_names(tlc_module *m, tlc_func *f)
{
	tlc_buf scratch;
	tlc_buf_init(&scratch);
	printer p;
	printer_init(&p, &scratch, m);
	print_func(&p, f);
	for (int i = 0; i < p.n; i++) {
		const char *name = p.names[i].name;
		if (p.names[i].is_buf) {
			tlc_buffer *b = (tlc_buffer *)p.names[i].obj;
			if (strcmp(b->name, name) != 0)
				b->name = tlc_intern(m, name);
		} else {
			tlc_var *v = (tlc_var *)p.names[i].obj;
			if (strcmp(v->name, name) != 0)
				v->name = tlc_intern(m, name);
		}
	}
	printer_fini(&p);
	tlc_buf_free(&scratch);
}
