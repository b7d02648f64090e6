/* cuda_expr.c - expressions of the IR printed as CUDA C++.
 *
 * Every sub-expression is parenthesised and every conversion is explicit,
 * so the C++ meaning never depends on precedence or implicit promotion.
 * float16 / bfloat16 arithmetic goes through float (__half2float,
 * __float2half_rn) and rounds after every operation, which is exactly the
 * IR's meaning of an operation on 16-bit values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda_emit.h"

const char *cuda_ctype(tlc_dtype t)
{
	switch (t) {
	case TLC_DT_BOOL: return "bool";
	case TLC_DT_INT8: return "signed char";
	case TLC_DT_INT16: return "short";
	case TLC_DT_INT32: return "int";
	case TLC_DT_INT64: return "long long";
	case TLC_DT_UINT8: return "unsigned char";
	case TLC_DT_UINT16: return "unsigned short";
	case TLC_DT_UINT32: return "unsigned int";
	case TLC_DT_UINT64: return "unsigned long long";
	case TLC_DT_FLOAT16: return "half";
	case TLC_DT_BFLOAT16: return "__nv_bfloat16";
	case TLC_DT_FLOAT32: return "float";
	case TLC_DT_FLOAT64: return "double";
	default: return NULL; /* float8: needs cuda_fp8.h and conversions, later */
	}
}

static bool is_f16ish(tlc_dtype t) { return t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16; }

static const char *const c_reserved[] = {
	"auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do",
	"double", "else", "enum", "extern", "false", "float", "for", "goto", "half", "if", "inline", "int",
	"long", "max", "min", "new", "operator", "private", "public", "register", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef", "union",
	"unsigned", "void", "volatile", "while", "blockIdx", "threadIdx", "blockDim", "gridDim", "warpSize",
	"dim3", "grid", "block", "stream", "namespace", "using", "asm", "signed", "NULL",
};

const char *cuda_name(cuda_emitter *e, const char *name)
{
	bool bad = !name || !*name || strncmp(name, "tlc_", 4) == 0 || strncmp(name, "__", 2) == 0;
	for (size_t i = 0; !bad && i < sizeof(c_reserved) / sizeof(c_reserved[0]); i++)
		bad = strcmp(name, c_reserved[i]) == 0;
	for (const char *p = name; !bad && *p; p++)
		bad = !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_');
	if (!bad)
		return name;
	/* a suffix that the IR printer never produces keeps the name unique */
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_buf_puts(&b, "u_");
	for (const char *p = name ? name : ""; *p; p++)
		tlc_buf_putc(&b, ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_');
	const char *r = tlc_strdup(e->m, tlc_buf_str(&b));
	tlc_buf_free(&b);
	return r;
}

const char *cuda_op_name(cuda_emitter *e, const tlc_expr *call)
{
	const tlc_op_info *info = tlc_op_get(e->ctx, call->u.call.op);
	return info && info->name ? info->name : "?";
}

static void put(cuda_emitter *e, const char *s) { tlc_buf_puts(e->out, s); }

static void emit_int(cuda_emitter *e, tlc_dtype t, int64_t v)
{
	if (t == TLC_DT_BOOL) {
		put(e, v ? "true" : "false");
		return;
	}
	if (t == TLC_DT_INT64 || (t == TLC_DT_INT32 && v == INT32_MIN)) {
		if (v == INT64_MIN)
			put(e, "(-9223372036854775807LL - 1)");
		else
			tlc_buf_printf(e->out, v < 0 ? "(%lldLL)" : "%lldLL", (long long)v);
		return;
	}
	if (t == TLC_DT_UINT32 || t == TLC_DT_UINT64) {
		tlc_buf_printf(e->out, t == TLC_DT_UINT64 ? "%lluull" : "%lluu", (unsigned long long)v);
		return;
	}
	if (t == TLC_DT_INT32) {
		tlc_buf_printf(e->out, v < 0 ? "(%lld)" : "%lld", (long long)v);
		return;
	}
	tlc_buf_printf(e->out, "((%s)%lld)", cuda_ctype(t), (long long)v);
}

/* A float32 literal that reads back to the same float. */
static void emit_f32_literal(cuda_emitter *e, double v)
{
	if (isnan(v)) {
		put(e, "__int_as_float(0x7fffffff)");
		return;
	}
	if (isinf(v)) {
		put(e, v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float((int)0xff800000u)");
		return;
	}
	char s[64];
	snprintf(s, sizeof s, "%.9g", (double)(float)v);
	tlc_buf_printf(e->out, strpbrk(s, ".en") ? "%sf" : "%s.0f", s);
}

static void emit_float(cuda_emitter *e, tlc_dtype t, double v)
{
	if (t == TLC_DT_FLOAT64) {
		if (isnan(v) || isinf(v)) {
			put(e, isnan(v) ? "__longlong_as_double(0x7fffffffffffffffLL)"
			                : v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)"
			                        : "__longlong_as_double((long long)0xfff0000000000000ull)");
			return;
		}
		char s[64];
		snprintf(s, sizeof s, "%.17g", v);
		tlc_buf_printf(e->out, strpbrk(s, ".en") ? "%s" : "%s.0", s);
		return;
	}
	if (t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16)
		put(e, t == TLC_DT_FLOAT16 ? "__float2half_rn(" : "__float2bfloat16_rn(");
	emit_f32_literal(e, v);
	if (t == TLC_DT_FLOAT16 || t == TLC_DT_BFLOAT16)
		put(e, ")");
}

/* x as a float-valued expression, whatever its dtype. */
static void emit_as_float(cuda_emitter *e, const tlc_expr *x)
{
	if (x->kind == TLC_EXPR_FLOAT) {
		emit_f32_literal(e, x->u.fval);
		return;
	}
	if (x->dtype == TLC_DT_FLOAT32) {
		cuda_emit_expr(e, x);
		return;
	}
	put(e, x->dtype == TLC_DT_FLOAT16 ? "__half2float(" : x->dtype == TLC_DT_BFLOAT16 ? "__bfloat162float(" : "((float)");
	cuda_emit_expr(e, x);
	put(e, ")");
}

/* Open / close a conversion of a float value to dtype t. */
static void open_from_float(cuda_emitter *e, tlc_dtype t)
{
	if (t == TLC_DT_FLOAT32)
		return; /* already a float */
	if (t == TLC_DT_FLOAT16)
		put(e, "__float2half_rn(");
	else if (t == TLC_DT_BFLOAT16)
		put(e, "__float2bfloat16_rn(");
	else
		tlc_buf_printf(e->out, "((%s)(", cuda_ctype(t) ? cuda_ctype(t) : "float");
}

static void close_from_float(cuda_emitter *e, tlc_dtype t)
{
	if (t != TLC_DT_FLOAT32)
		put(e, is_f16ish(t) ? ")" : "))");
}

static void emit_cast(cuda_emitter *e, tlc_dtype t, const tlc_expr *a)
{
	if (a->dtype == t) {
		cuda_emit_expr(e, a);
	} else if (t == TLC_DT_BOOL) {
		put(e, "(");
		if (is_f16ish(a->dtype))
			emit_as_float(e, a);
		else
			cuda_emit_expr(e, a);
		put(e, " != 0)");
	} else if (is_f16ish(t) || is_f16ish(a->dtype)) {
		open_from_float(e, t);
		emit_as_float(e, a);
		close_from_float(e, t);
	} else {
		tlc_buf_printf(e->out, "((%s)", cuda_ctype(t));
		cuda_emit_expr(e, a);
		put(e, ")");
	}
}

static const char *infix(tlc_expr_kind k)
{
	switch (k) {
	case TLC_EXPR_ADD: return " + ";
	case TLC_EXPR_SUB: return " - ";
	case TLC_EXPR_MUL: return " * ";
	case TLC_EXPR_DIV: return " / ";
	case TLC_EXPR_EQ: return " == ";
	case TLC_EXPR_NE: return " != ";
	case TLC_EXPR_LT: return " < ";
	case TLC_EXPR_LE: return " <= ";
	case TLC_EXPR_GT: return " > ";
	case TLC_EXPR_GE: return " >= ";
	case TLC_EXPR_AND: return " && ";
	case TLC_EXPR_OR: return " || ";
	case TLC_EXPR_BITAND: return " & ";
	case TLC_EXPR_BITOR: return " | ";
	case TLC_EXPR_BITXOR: return " ^ ";
	case TLC_EXPR_SHL: return " << ";
	case TLC_EXPR_SHR: return " >> ";
	default: return NULL;
	}
}

static bool is_compare(tlc_expr_kind k) { return k >= TLC_EXPR_EQ && k <= TLC_EXPR_GE; }

/* a op b; 16-bit float operands are computed in float. */
static void emit_infix(cuda_emitter *e, const tlc_expr *x)
{
	const tlc_expr *a = x->u.op.a, *b = x->u.op.b;
	bool via_float = is_f16ish(x->dtype) || (is_compare(x->kind) && (is_f16ish(a->dtype) || is_f16ish(b->dtype)));
	if (via_float && !is_compare(x->kind))
		open_from_float(e, x->dtype);
	put(e, "(");
	if (via_float)
		emit_as_float(e, a);
	else
		cuda_emit_expr(e, a);
	put(e, infix(x->kind));
	if (via_float)
		emit_as_float(e, b);
	else
		cuda_emit_expr(e, b);
	put(e, ")");
	if (via_float && !is_compare(x->kind))
		close_from_float(e, x->dtype);
}

static bool nonneg(cuda_emitter *e, const tlc_expr *x, bool strictly)
{
	int64_t lo, hi;
	return tlc_expr_bounds(&e->ranges, x, &lo, &hi) && (strictly ? lo > 0 : lo >= 0);
}

static void emit_floor_divmod(cuda_emitter *e, const tlc_expr *x)
{
	bool div = x->kind == TLC_EXPR_FLOORDIV;
	const tlc_expr *a = x->u.op.a, *b = x->u.op.b;
	if (tlc_dtype_is_float(x->dtype)) {
		/* floor(a / b) and a - floor(a / b) * b, in float */
		open_from_float(e, x->dtype);
		put(e, div ? "floorf(" : "(");
		if (!div) {
			emit_as_float(e, a);
			put(e, " - floorf(");
		}
		emit_as_float(e, a);
		put(e, " / ");
		emit_as_float(e, b);
		put(e, ")");
		if (!div) {
			put(e, " * ");
			emit_as_float(e, b);
			put(e, ")");
		}
		close_from_float(e, x->dtype);
		return;
	}
	if (tlc_dtype_is_unsigned(x->dtype) || (nonneg(e, a, false) && nonneg(e, b, true))) {
		put(e, "(");
		cuda_emit_expr(e, a);
		put(e, div ? " / " : " % ");
		cuda_emit_expr(e, b);
		put(e, ")");
		return;
	}
	bool wide = tlc_dtype_bits(x->dtype) > 32;
	e->helpers |= wide ? (div ? CUDA_HELPER_FLOORDIV_I64 : CUDA_HELPER_FLOORMOD_I64)
	                   : (div ? CUDA_HELPER_FLOORDIV_I32 : CUDA_HELPER_FLOORMOD_I32);
	tlc_buf_printf(e->out, "tlc_floor%s_i%d(", div ? "div" : "mod", wide ? 64 : 32);
	cuda_emit_expr(e, a);
	put(e, ", ");
	cuda_emit_expr(e, b);
	put(e, ")");
}

static void emit_minmax(cuda_emitter *e, const tlc_expr *x)
{
	bool is_min = x->kind == TLC_EXPR_MIN;
	if (tlc_dtype_is_float(x->dtype)) {
		bool dbl = x->dtype == TLC_DT_FLOAT64;
		if (!dbl)
			open_from_float(e, x->dtype);
		put(e, is_min ? (dbl ? "fmin(" : "fminf(") : (dbl ? "fmax(" : "fmaxf("));
		if (dbl) {
			cuda_emit_expr(e, x->u.op.a);
			put(e, ", ");
			cuda_emit_expr(e, x->u.op.b);
		} else {
			emit_as_float(e, x->u.op.a);
			put(e, ", ");
			emit_as_float(e, x->u.op.b);
		}
		put(e, ")");
		if (!dbl)
			close_from_float(e, x->dtype);
		return;
	}
	/* integers: a conditional (pure operands, so evaluating one twice is harmless);
	 * works in host code too, unlike CUDA's min()/max() overloads */
	put(e, "((");
	cuda_emit_expr(e, x->u.op.a);
	put(e, is_min ? ") < (" : ") > (");
	cuda_emit_expr(e, x->u.op.b);
	put(e, ") ? (");
	cuda_emit_expr(e, x->u.op.a);
	put(e, ") : (");
	cuda_emit_expr(e, x->u.op.b);
	put(e, "))");
}

/* float function names of the math intrinsics: {float, double} */
static bool math_names(tlc_op_id op, const char **f32, const char **f64)
{
	static const struct {
		tlc_op_id op;
		const char *f32, *f64;
	} table[] = {
		{TLC_OP_EXP, "expf", "exp"},     {TLC_OP_EXP2, "exp2f", "exp2"},   {TLC_OP_LOG, "logf", "log"},
		{TLC_OP_LOG2, "log2f", "log2"},  {TLC_OP_SQRT, "sqrtf", "sqrt"},   {TLC_OP_RSQRT, "rsqrtf", "rsqrt"},
		{TLC_OP_ABS, "fabsf", "fabs"},   {TLC_OP_SIN, "sinf", "sin"},      {TLC_OP_COS, "cosf", "cos"},
		{TLC_OP_TANH, "tanhf", "tanh"},  {TLC_OP_FLOOR, "floorf", "floor"}, {TLC_OP_CEIL, "ceilf", "ceil"},
		{TLC_OP_POW, "powf", "pow"},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].op == op) {
			*f32 = table[i].f32;
			*f64 = table[i].f64;
			return true;
		}
	return false;
}

static void emit_math(cuda_emitter *e, const tlc_expr *x)
{
	tlc_op_id op = x->u.call.op;
	const tlc_expr *a = x->u.call.args[0];
	const char *f32 = NULL, *f64 = NULL;
	if (op == TLC_OP_ABS && tlc_dtype_is_int(x->dtype)) {
		put(e, tlc_dtype_bits(x->dtype) > 32 ? "llabs(" : "abs(");
		cuda_emit_expr(e, a);
		put(e, ")");
		return;
	}
	if (!tlc_dtype_is_float(x->dtype)) {
		cuda_error(e, e->loc, "T.%s needs a floating-point argument", cuda_op_name(e, x));
		return;
	}
	bool dbl = x->dtype == TLC_DT_FLOAT64;
	if (!dbl)
		open_from_float(e, x->dtype);
	if (op == TLC_OP_SIGMOID) {
		put(e, dbl ? "(1.0 / (1.0 + exp(-" : "(1.0f / (1.0f + expf(-");
		if (dbl)
			cuda_emit_expr(e, a);
		else
			emit_as_float(e, a);
		put(e, ")))");
	} else {
		math_names(op, &f32, &f64);
		tlc_buf_printf(e->out, "%s(", dbl ? f64 : f32);
		for (int i = 0; i < x->u.call.nargs; i++) {
			if (i)
				put(e, ", ");
			if (dbl)
				cuda_emit_expr(e, x->u.call.args[i]);
			else
				emit_as_float(e, x->u.call.args[i]);
		}
		put(e, ")");
	}
	if (!dbl)
		close_from_float(e, x->dtype);
}

static void emit_call(cuda_emitter *e, const tlc_expr *x)
{
	tlc_op_id op = x->u.call.op;
	const char *f32, *f64;
	if (op == TLC_OP_SIGMOID || math_names(op, &f32, &f64)) {
		emit_math(e, x);
		return;
	}
	if (op == TLC_OP_SHFL_XOR && x->u.call.nargs == 2 && !e->host) {
		/* every lane of the warp takes part: lower-tile-ops emits it in
		 * thread-uniform code only */
		put(e, "__shfl_xor_sync(0xffffffffu, ");
		cuda_emit_expr(e, x->u.call.args[0]);
		put(e, ", ");
		cuda_emit_expr(e, x->u.call.args[1]);
		put(e, ")");
		return;
	}
	if ((op == TLC_OP_THREAD_IDX || op == TLC_OP_BLOCK_IDX) && !e->host) {
		int64_t d = 0;
		if (x->u.call.nargs == 1 && tlc_expr_as_int(x->u.call.args[0], &d) && d >= 0 && d < 3) {
			tlc_buf_printf(e->out, "((int)%s.%c)", op == TLC_OP_THREAD_IDX ? "threadIdx" : "blockIdx",
			               "xyz"[d]);
			return;
		}
	}
	cuda_error(e, e->loc, "T.%s is not supported by target %s yet", cuda_op_name(e, x), e->arch->target);
}

void cuda_emit_flat_index(cuda_emitter *e, const tlc_buffer *b, int n, const tlc_expr *const *idx)
{
	if (n == 0) {
		put(e, "0");
		return;
	}
	/* Horner form: ((i0 * s1 + i1) * s2 + i2), in 64 bits when the buffer
	 * is too large for a 32-bit offset (the first cast widens the rest) */
	bool wide = n > 1 && tlc_buffer_index_dtype(b) == TLC_DT_INT64;
	for (int d = 1; d < n; d++)
		put(e, "(");
	if (wide)
		put(e, "(long long)");
	cuda_emit_expr(e, idx[0]);
	for (int d = 1; d < n; d++) {
		put(e, " * ");
		cuda_emit_expr(e, b->shape[d]);
		put(e, " + ");
		cuda_emit_expr(e, idx[d]);
		put(e, ")");
	}
}

void cuda_emit_access(cuda_emitter *e, tlc_loc loc, const tlc_buffer *b, int n, const tlc_expr *const *idx)
{
	const char *name = cuda_name(e, b->name);
	switch (b->scope) {
	case TLC_SCOPE_VAR:
		put(e, name);
		return;
	case TLC_SCOPE_FRAGMENT:
		cuda_error(e, loc, "fragment '%s' must be lowered to registers before target %s: run layout-inference and "
		           "lower-tile-ops", b->name, e->arch->target);
		return;
	case TLC_SCOPE_BARRIER:
		cuda_error(e, loc, "barriers are not supported by target %s yet", e->arch->target);
		return;
	default:
		if (e->host) {
			cuda_error(e, loc, "buffer '%s' cannot be read in a launch dimension", b->name);
			return;
		}
		tlc_buf_printf(e->out, "%s[", name);
		cuda_emit_flat_index(e, b, n, idx);
		put(e, "]");
	}
}

void cuda_emit_expr(cuda_emitter *e, const tlc_expr *x)
{
	switch (x->kind) {
	case TLC_EXPR_INT: emit_int(e, x->dtype, x->u.ival); return;
	case TLC_EXPR_FLOAT: emit_float(e, x->dtype, x->u.fval); return;
	case TLC_EXPR_VAR:
		for (int d = 0; d < 3 && e->f; d++) {
			if (x->u.var == e->f->block_vars[d])
				e->used_frame |= 1u << d;
			if (x->u.var == e->f->thread_vars[d])
				e->used_frame |= 1u << (3 + d);
		}
		put(e, cuda_name(e, x->u.var->name));
		return;
	case TLC_EXPR_FLOORDIV:
	case TLC_EXPR_FLOORMOD: emit_floor_divmod(e, x); return;
	case TLC_EXPR_MIN:
	case TLC_EXPR_MAX: emit_minmax(e, x); return;
	case TLC_EXPR_NOT:
		put(e, "(!");
		cuda_emit_expr(e, x->u.op.a);
		put(e, ")");
		return;
	case TLC_EXPR_NEG:
		if (is_f16ish(x->dtype)) {
			open_from_float(e, x->dtype);
			put(e, "-");
			emit_as_float(e, x->u.op.a);
			close_from_float(e, x->dtype);
		} else {
			put(e, "(-");
			cuda_emit_expr(e, x->u.op.a);
			put(e, ")");
		}
		return;
	case TLC_EXPR_SELECT:
		put(e, "(");
		cuda_emit_expr(e, x->u.op.a);
		put(e, " ? ");
		cuda_emit_expr(e, x->u.op.b);
		put(e, " : ");
		cuda_emit_expr(e, x->u.op.c);
		put(e, ")");
		return;
	case TLC_EXPR_CAST: emit_cast(e, x->dtype, x->u.op.a); return;
	case TLC_EXPR_LOAD: cuda_emit_access(e, e->loc, x->u.load.buf, x->u.load.n, x->u.load.idx); return;
	case TLC_EXPR_CALL: emit_call(e, x); return;
	default:
		if (infix(x->kind)) {
			emit_infix(e, x);
			return;
		}
		cuda_error(e, e->loc, "this expression cannot be used as a value in CUDA code");
	}
}

void cuda_emit_helpers(tlc_buf *out, unsigned helpers)
{
	static const struct {
		unsigned flag;
		const char *text;
	} table[] = {
		{CUDA_HELPER_FLOORDIV_I32,
		 "static __host__ __device__ __forceinline__ int tlc_floordiv_i32(int a, int b)\n"
		 "{\n\tint q = a / b;\n\treturn (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n\n"},
		{CUDA_HELPER_FLOORMOD_I32,
		 "static __host__ __device__ __forceinline__ int tlc_floormod_i32(int a, int b)\n"
		 "{\n\tint r = a % b;\n\treturn (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n\n"},
		{CUDA_HELPER_FLOORDIV_I64,
		 "static __host__ __device__ __forceinline__ long long tlc_floordiv_i64(long long a, long long b)\n"
		 "{\n\tlong long q = a / b;\n\treturn (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n}\n\n"},
		{CUDA_HELPER_FLOORMOD_I64,
		 "static __host__ __device__ __forceinline__ long long tlc_floormod_i64(long long a, long long b)\n"
		 "{\n\tlong long r = a % b;\n\treturn (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n}\n\n"},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (helpers & table[i].flag)
			tlc_buf_puts(out, table[i].text);
	if (helpers & CUDA_HELPER_COPY_VEC)
		tlc_buf_puts(out, "/* BYTES bytes at once; both addresses are aligned to BYTES (lower-tile-ops proved it) */\n"
		                  "template <int BYTES> struct tlc_vec_type;\n"
		                  "template <> struct tlc_vec_type<2> { typedef unsigned short type; };\n"
		                  "template <> struct tlc_vec_type<4> { typedef unsigned int type; };\n"
		                  "template <> struct tlc_vec_type<8> { typedef uint2 type; };\n"
		                  "template <> struct tlc_vec_type<16> { typedef uint4 type; };\n"
		                  "template <int BYTES>\n"
		                  "static __device__ __forceinline__ void tlc_copy_vec(void *dst, const void *src)\n"
		                  "{\n\ttypedef typename tlc_vec_type<BYTES>::type V;\n"
		                  "\t*reinterpret_cast<V *>(dst) = *reinterpret_cast<const V *>(src);\n}\n\n");
	if (helpers & CUDA_HELPER_RASTER)
		tlc_buf_puts(out,
		             "namespace tlc {\n"
		             "/* T.use_swizzle: a permutation of the blocks of a 2-D grid for L2 locality.  Row: panels of\n"
		             " * PANEL block rows, walked column by column inside a panel (the last panel may be\n"
		             " * shorter); Column: the same with rows and columns exchanged. */\n"
		             "template <int PANEL>\n"
		             "static __device__ __forceinline__ dim3 rasterization2DRow()\n"
		             "{\n"
		             "\tconst unsigned gx = gridDim.x, gy = gridDim.y;\n"
		             "\tconst unsigned id = blockIdx.x + blockIdx.y * gx;\n"
		             "\tconst unsigned panel = id / (PANEL * gx), in_panel = id % (PANEL * gx);\n"
		             "\tconst unsigned rows = min((unsigned)PANEL, gy - panel * PANEL);\n"
		             "\treturn dim3(in_panel / rows, panel * PANEL + in_panel % rows, blockIdx.z);\n"
		             "}\n\n"
		             "template <int PANEL>\n"
		             "static __device__ __forceinline__ dim3 rasterization2DColumn()\n"
		             "{\n"
		             "\tconst unsigned gx = gridDim.x, gy = gridDim.y;\n"
		             "\tconst unsigned id = blockIdx.y + blockIdx.x * gy;\n"
		             "\tconst unsigned panel = id / (PANEL * gy), in_panel = id % (PANEL * gy);\n"
		             "\tconst unsigned cols = min((unsigned)PANEL, gx - panel * PANEL);\n"
		             "\treturn dim3(panel * PANEL + in_panel % cols, in_panel / cols, blockIdx.z);\n"
		             "}\n"
		             "} /* namespace tlc */\n\n");
	if (helpers & CUDA_HELPER_GEMM) {
		const char *text = cuda_device_text("tlc_gemm");
		tlc_buf_puts(out, text ? text : "#error tlc: device helper tlc_gemm.cuh missing from the cuda plugin\n");
		tlc_buf_puts(out, "\n");
	}
}
