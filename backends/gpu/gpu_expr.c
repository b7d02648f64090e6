/* gpu_expr.c - expressions of the IR printed as GPU C++.
 *
 * Every sub-expression is parenthesised and every conversion is explicit,
 * so the C++ meaning never depends on precedence or implicit promotion.
 * float16 / bfloat16 arithmetic goes through float (the vendor's
 * conversions, __half2float / __float2half_rn on CUDA) and rounds after
 * every operation, which is exactly the IR's meaning of an operation on
 * 16-bit values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_printer.h"

const char *gpu_ctype(gpu_emitter *e, tlc_dtype t)
{
	const gpu_vendor *v = e->target->vendor;
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
	case TLC_DT_FLOAT16: return e->target->vendor->float16_type;
	case TLC_DT_BFLOAT16: return e->target->vendor->bfloat16_type;
	case TLC_DT_FLOAT32: return "float";
	case TLC_DT_FLOAT64: return "double";
	case TLC_DT_FLOAT8_E4M3: return e->target->vendor->float8_e4m3_type;
	case TLC_DT_FLOAT8_E5M2: return e->target->vendor->float8_e5m2_type;
	case TLC_DT_FLOAT8_E4M3FNUZ:
	case TLC_DT_FLOAT8_E5M2FNUZ:
		if (v->float8_e4m3fnuz_type)
			e->helpers |= v->fnuz_helper;
		return t == TLC_DT_FLOAT8_E4M3FNUZ ? v->float8_e4m3fnuz_type : v->float8_e5m2fnuz_type;
	default: return NULL;
	}
}

static const char *const c_reserved[] = {
	"auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do",
	"double", "else", "enum", "extern", "false", "float", "for", "goto", "half", "if", "inline", "int",
	"long", "max", "min", "new", "operator", "private", "public", "register", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "template", "this", "true", "typedef", "union",
	"unsigned", "void", "volatile", "while", "blockIdx", "threadIdx", "blockDim", "gridDim", "warpSize",
	"dim3", "grid", "block", "stream", "namespace", "using", "asm", "signed", "NULL",
};

const char *gpu_name(gpu_emitter *e, const char *name)
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

const char *gpu_op_name(gpu_emitter *e, const tlc_expr *call)
{
	const tlc_op_info *info = tlc_op_get(e->ctx, call->u.call.op);
	return info && info->name ? info->name : "?";
}

static void put(gpu_emitter *e, const char *s) { tlc_buf_puts(e->out, s); }

static void emit_int(gpu_emitter *e, tlc_dtype t, int64_t v)
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
	tlc_buf_printf(e->out, "((%s)%lld)", gpu_ctype(e, t), (long long)v);
}

/* A float32 literal that reads back to the same float. */
void gpu_emit_f32_literal(gpu_emitter *e, double v)
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

static void emit_float(gpu_emitter *e, tlc_dtype t, double v)
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
	/* float32, or a 16- or 8-bit float rounded from it */
	gpu_open_from_float(e, t);
	gpu_emit_f32_literal(e, v);
	gpu_close_from_float(e, t);
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
		{TLC_OP_ERF, "erff", "erf"},
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

static void emit_math(gpu_emitter *e, const tlc_expr *x)
{
	tlc_op_id op = x->u.call.op;
	const tlc_expr *a = x->u.call.args[0];
	const char *f32 = NULL, *f64 = NULL;
	if (op == TLC_OP_ABS && tlc_dtype_is_int(x->dtype)) {
		put(e, tlc_dtype_bits(x->dtype) > 32 ? "llabs(" : "abs(");
		gpu_emit_expr(e, a);
		put(e, ")");
		return;
	}
	if (!tlc_dtype_is_float(x->dtype)) {
		tlc_error(e->ctx, e->loc, "T.%s needs a floating-point argument",
			  gpu_op_name(e, x));
		return;
	}
	bool dbl = x->dtype == TLC_DT_FLOAT64;
	if (!dbl)
		gpu_open_from_float(e, x->dtype);
	if (op == TLC_OP_SIGMOID) {
		put(e, dbl ? "(1.0 / (1.0 + exp(-" : "(1.0f / (1.0f + expf(-");
		if (dbl)
			gpu_emit_expr(e, a);
		else
			gpu_emit_as_float(e, a);
		put(e, ")))");
	} else {
		math_names(op, &f32, &f64);
		tlc_buf_printf(e->out, "%s(", dbl ? f64 : f32);
		for (int i = 0; i < x->u.call.nargs; i++) {
			if (i)
				put(e, ", ");
			if (dbl)
				gpu_emit_expr(e, x->u.call.args[i]);
			else
				gpu_emit_as_float(e, x->u.call.args[i]);
		}
		put(e, ")");
	}
	if (!dbl)
		gpu_close_from_float(e, x->dtype);
}

static void emit_call(gpu_emitter *e, const tlc_expr *x)
{
	tlc_op_id op = x->u.call.op;
	const char *f32, *f64;
	if (op == TLC_OP_SIGMOID || math_names(op, &f32, &f64)) {
		emit_math(e, x);
		return;
	}
	if ((op == TLC_OP_SHFL_XOR || op == TLC_OP_SHFL_DOWN || op == TLC_OP_SHFL_UP ||
	     op == TLC_OP_SHFL_IDX) && x->u.call.nargs >= 2 && !e->host) {
		/* every lane of the warp takes part: lower-tile-ops emits it in
		 * thread-uniform code only, and tlc-sim checks a user's shuffle
		 * runs on every lane; the width, when there is one, is the
		 * vendors' last argument */
		const gpu_vendor *v = e->target->vendor;
		put(e, op == TLC_OP_SHFL_XOR    ? v->shfl_xor
		       : op == TLC_OP_SHFL_DOWN ? v->shfl_down
		       : op == TLC_OP_SHFL_UP   ? v->shfl_up
		                                : v->shfl_idx);
		for (int i = 0; i < x->u.call.nargs; i++) {
			if (i)
				put(e, ", ");
			gpu_emit_expr(e, x->u.call.args[i]);
		}
		put(e, ")");
		return;
	}
	if ((op == TLC_OP_RNG_RAND || op == TLC_OP_RNG_RAND_FLOAT) && !e->host) {
		gpu_emit_rng_draw(e, x);
		return;
	}
	if (op == TLC_OP_BLOCK_RANK_IN_CLUSTER && !e->host) {
		/* every block is alone in its cluster without clusters (emit_func
		 * refused a kernel with clusters the vendor does not have) */
		if (e->cluster_blocks > 1) {
			e->helpers |= e->target->vendor->cluster_helper;
			put(e, e->target->vendor->cluster_rank);
		} else {
			put(e, "0");
		}
		return;
	}
	if (op == TLC_OP_CALL_EXTERN && !e->host && x->u.call.nargs >= 2 && x->u.call.args[1]->kind == TLC_EXPR_STR) {
		/* a function of the kernel's T.import_source code, called as written */
		put(e, x->u.call.args[1]->u.str);
		put(e, "(");
		for (int i = 2; i < x->u.call.nargs; i++) {
			if (i > 2)
				put(e, ", ");
			gpu_emit_expr(e, x->u.call.args[i]);
		}
		put(e, ")");
		return;
	}
	if (op == TLC_OP_ADDRESS_OF && !e->host && x->u.call.nargs == 1 && x->u.call.args[0]->kind == TLC_EXPR_LOAD) {
		/* the element's address: the buffer's storage plus its flat offset */
		const tlc_expr *l = x->u.call.args[0];
		put(e, "(");
		put(e, gpu_name(e, l->u.load.buf->name));
		put(e, " + ");
		gpu_emit_flat_index(e, l->u.load.buf, l->u.load.n, l->u.load.idx);
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
	tlc_error(e->ctx, e->loc, "T.%s is not supported by target %s yet", gpu_op_name(e, x),
		  gpu_target_name(e));
}

void gpu_emit_flat_index(gpu_emitter *e, const tlc_buffer *b, int n, const tlc_expr *const *idx)
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
	gpu_emit_expr(e, idx[0]);
	for (int d = 1; d < n; d++) {
		put(e, " * ");
		gpu_emit_expr(e, b->shape[d]);
		put(e, " + ");
		gpu_emit_expr(e, idx[d]);
		put(e, ")");
	}
}

void gpu_emit_access(gpu_emitter *e, tlc_loc loc, const tlc_buffer *b, int n,
		     const tlc_expr *const *idx)
{
	const char *name = gpu_name(e, b->name);
	switch (b->scope) {
	case TLC_SCOPE_VAR:
		put(e, name);
		return;
	case TLC_SCOPE_FRAGMENT:
		tlc_error(e->ctx, loc,
			  "fragment '%s' must be lowered to registers before target %s: "
			  "run layout-inference and lower-tile-ops",
			  b->name, gpu_target_name(e));
		return;
	case TLC_SCOPE_BARRIER:
		/* the ops that take barriers print their addresses (gpu_emit_barrier_addr) */
		tlc_error(e->ctx, loc,
			  "barrier '%s' is not a value: name it only as the barrier operand of the "
			  "T.mbarrier_* / T.barrier_* ops and T.tma_load",
			  b->name);
		return;
	default:
		if (e->host) {
			tlc_error(e->ctx, loc, "buffer '%s' cannot be read in a launch dimension",
				  b->name);
			return;
		}
		tlc_buf_printf(e->out, "%s[", name);
		gpu_emit_flat_index(e, b, n, idx);
		put(e, "]");
	}
}

void gpu_emit_host_expr(gpu_emitter *e, tlc_buf *out, const tlc_expr *x)
{
	tlc_buf *saved = e->out;
	bool host = e->host;
	e->out = out;
	e->host = true;
	gpu_emit_expr(e, x);
	e->host = host;
	e->out = saved;
}

void gpu_emit_expr(gpu_emitter *e, const tlc_expr *x)
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
		put(e, gpu_name(e, x->u.var->name));
		return;
	case TLC_EXPR_FLOORDIV:
	case TLC_EXPR_FLOORMOD: gpu_emit_floor_divmod(e, x); return;
	case TLC_EXPR_MIN:
	case TLC_EXPR_MAX: gpu_emit_minmax(e, x); return;
	case TLC_EXPR_NOT:
		put(e, "(!");
		gpu_emit_expr(e, x->u.op.a);
		put(e, ")");
		return;
	case TLC_EXPR_NEG: gpu_emit_neg(e, x); return;
	case TLC_EXPR_SELECT:
		/* both branches have the node's type; only the one taken runs */
		put(e, "(");
		gpu_emit_expr(e, x->u.op.a);
		put(e, " ? ");
		gpu_emit_expr(e, x->u.op.b);
		put(e, " : ");
		gpu_emit_expr(e, x->u.op.c);
		put(e, ")");
		return;
	case TLC_EXPR_CAST: gpu_emit_cast(e, x->dtype, x->u.op.a); return;
	case TLC_EXPR_BITCAST: {
		const char *to = gpu_ctype(e, x->dtype);
		if (!to) {
			tlc_error(e->ctx, e->loc, "T.reinterpret to %s: %s code has no such type",
			          tlc_dtype_name(x->dtype), e->target->vendor->language);
			return;
		}
		e->helpers |= GPU_HELPER_BITCAST;
		tlc_buf_printf(e->out, "tlc_bitcast<%s>(", to);
		gpu_emit_expr(e, x->u.op.a);
		put(e, ")");
		return;
	}
	case TLC_EXPR_LOAD:
		gpu_emit_access(e, e->loc, x->u.load.buf, x->u.load.n, x->u.load.idx);
		return;
	case TLC_EXPR_CALL: emit_call(e, x); return;
	default:
		if (gpu_is_infix(x->kind)) {
			gpu_emit_infix(e, x);
			return;
		}
		tlc_error(e->ctx, e->loc, "this expression cannot be used as a value in %s code",
			  e->target->vendor->language);
	}
}
