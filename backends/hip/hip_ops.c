/* hip_ops.c - T.mma_gemm on AMD MFMA (hip_vendor's emit_op).
 *
 * lower-tile-ops decided everything (the instruction, the grid of
 * wavefronts, the transposes, the operand layouts); this file spells it as
 * a call of tlc::mfma_gemm_ss / _rs (device/tlc_mfma.hip.h) with, printed
 * before the kernel:
 *  - a struct of the instruction: its shape, the elements each lane holds
 *    of A, B and C, the lane -> element maps of A and B written out from the
 *    target description's fragments (digit by digit: a lane's element j of
 *    A is at row sum of (lane or j) / weight % radix * stride over the row
 *    digits, and the same for the column), and run(), the builtin;
 *  - the layout functors of the shared operands (gpu_emit_layout_functor);
 *  - how many elements a lane reads at once from each shared operand: the
 *    widest V (up to the target's shared_vector_bytes) such that the lane's
 *    elements j .. j+V-1 are V consecutive columns of one row, and the
 *    operand's layout stores every such run contiguously at an offset that
 *    is a multiple of V.
 * The operand pointers are the IR's (&A_shared[stage, 0, 0] when pipelining
 * versioned the buffer): the stage index is never lost (seed 002). */
#include <stdio.h>
#include <string.h>

#include <tlc/layout.h>

#include "hip_emit.h"

/* The builtin of each MFMA row of hip_info.c, and the vector types of its
 * operands and accumulator (the clang builtin's signature). */
typedef struct mfma_builtin {
	const char *inst, *builtin, *operand, *acc;
} mfma_builtin;

#define VEC(t, n) t " __attribute__((ext_vector_type(" #n ")))"
static const mfma_builtin mfma_builtins[] = {
	{"v_mfma_f32_16x16x16f16", "__builtin_amdgcn_mfma_f32_16x16x16f16", VEC("_Float16", 4), VEC("float", 4)},
	{"v_mfma_f32_16x16x16bf16_1k", "__builtin_amdgcn_mfma_f32_16x16x16bf16_1k", VEC("short", 4), VEC("float", 4)},
	{"v_mfma_f32_32x32x8f16", "__builtin_amdgcn_mfma_f32_32x32x8f16", VEC("_Float16", 4), VEC("float", 16)},
	{"v_mfma_f32_32x32x8bf16_1k", "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k", VEC("short", 4), VEC("float", 16)},
	{"v_mfma_f32_16x16x4f32", "__builtin_amdgcn_mfma_f32_16x16x4f32", "float", VEC("float", 4)},
	{"v_mfma_i32_16x16x16i8", "__builtin_amdgcn_mfma_i32_16x16x16i8", "int", VEC("int", 4)},
	{"v_mfma_i32_16x16x32_i8", "__builtin_amdgcn_mfma_i32_16x16x32_i8", "long", VEC("int", 4)},
	{"v_mfma_f32_16x16x32_fp8_fp8", "__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8", "long", VEC("float", 4)},
	{"v_mfma_f32_16x16x32_bf8_bf8", "__builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8", "long", VEC("float", 4)},
};

/* Elements per lane of an operand atom: the product of its register digits. */
static int atom_regs(const tlc_frag_atom *a)
{
	int n = 1;
	for (int i = 0; i < a->ndigits; i++)
		if (!a->digits[i].is_thread && a->digits[i].dim >= 0)
			n *= a->digits[i].radix;
	return n;
}

/* The logical (row, col) of a lane's element e of P instructions along K
 * (k_pack; kdim: the atom's k dimension), as tlc::mfma_load reads it: the
 * atom's element j = e % regs with its k coordinate c moved to
 * P (c - j) + e. */
static void atom_at(const tlc_frag_atom *a, int regs, int P, int kdim, int lane, int e, int64_t *row, int64_t *col)
{
	int j = e % regs;
	*row = *col = 0;
	for (int i = 0; i < a->ndigits; i++) {
		const tlc_frag_digit *d = &a->digits[i];
		if (d->dim < 0)
			continue;
		int64_t v = (d->is_thread ? lane : j) / d->weight % d->radix * d->stride;
		*(d->dim == 0 ? row : col) += v;
	}
	int64_t *k = kdim == 0 ? row : col;
	*k = P * (*k - j) + e;
}

/* True when every lane's k coordinate of element j is a multiple of the
 * atom's elements per lane plus j (what k_pack's reordering needs). */
static bool k_runs(const tlc_frag_atom *a, int regs, int kdim, int lanes)
{
	for (int lane = 0; lane < lanes; lane++)
		for (int j = 0; j < regs; j++) {
			int64_t r, c;
			atom_at(a, regs, 1, kdim, lane, j, &r, &c);
			int64_t k = kdim == 0 ? r : c;
			if (k % regs != j)
				return false;
		}
	return true;
}

/* Print `return EXPR;` of the row (dim 0) or column (dim 1) of a lane's
 * element j. */
static void print_coord(tlc_buf *out, const tlc_frag_atom *a, int dim)
{
	bool any = false;
	tlc_buf_puts(out, "return ");
	for (int i = 0; i < a->ndigits; i++) {
		const tlc_frag_digit *d = &a->digits[i];
		if (d->dim != dim)
			continue;
		tlc_buf_printf(out, "%s(%s / %d %% %d) * %lld", any ? " + " : "", d->is_thread ? "l" : "j", (int)d->weight,
		               (int)d->radix, (long long)d->stride);
		any = true;
	}
	tlc_buf_puts(out, any ? ";" : "0;");
}

static void print_map(tlc_buf *out, const char *name, const tlc_frag_atom *a)
{
	tlc_buf_printf(out, "\tstruct %s {\n\t\tstatic __device__ __forceinline__ int row(int l, int j) { ", name);
	print_coord(out, a, 0);
	tlc_buf_puts(out, " }\n\t\tstatic __device__ __forceinline__ int col(int l, int j) { ");
	print_coord(out, a, 1);
	tlc_buf_puts(out, " }\n\t};\n");
}

static int64_t gcd64(int64_t a, int64_t b)
{
	a = a < 0 ? -a : a, b = b < 0 ? -b : b;
	while (b) {
		int64_t t = a % b;
		a = b, b = t;
	}
	return a;
}

/* A number that divides every value x takes (1 when nothing is known;
 * 1 << 30 stands for 0, which every number divides). */
static int64_t known_multiple(const tlc_expr *x)
{
	const int64_t any = (int64_t)1 << 30;
	switch (x->kind) {
	case TLC_EXPR_INT: return x->u.ival ? gcd64(x->u.ival, any) : any;
	case TLC_EXPR_ADD:
	case TLC_EXPR_SUB: return gcd64(known_multiple(x->u.op.a), known_multiple(x->u.op.b));
	case TLC_EXPR_MUL: {
		int64_t p = known_multiple(x->u.op.a) * known_multiple(x->u.op.b);
		return p >= any || p <= 0 ? any : p;
	}
	default: return 1;
	}
}

/* The widest run of elements a lane may read at once from a shared operand
 * (see the header comment); 1 when nothing wider is safe. */
static int operand_vector(gpu_emitter *e, const tlc_frag_atom *a, int P, int kdim, int lanes,
                          const tlc_expr *operand, const tlc_expr *layout_expr, bool trans, int elem_bytes)
{
	const tlc_layout *l = tlc_layout_from_expr(e->m, layout_expr, NULL);
	if (!l || l->ndim != 2)
		return 1;
	/* the operand's first element: its flat offset in the buffer is a
	 * multiple of `start` (a stage's tile, [s * tile]) */
	int64_t start = (int64_t)1 << 30;
	if (operand->kind == TLC_EXPR_LOAD) {
		const tlc_buffer *b = operand->u.load.buf;
		int64_t stride = 1;
		for (int i = operand->u.load.n - 1; i >= 0; i--) {
			start = gcd64(start, known_multiple(operand->u.load.idx[i]) * stride);
			int64_t ext;
			if (i > 0 && (!tlc_expr_as_int(b->shape[i], &ext) || ext <= 0))
				return 1;
			stride *= i > 0 ? ext : 1;
		}
	}
	int regs = atom_regs(a), widest = e->target->desc->info->shared_vector_bytes / elem_bytes;
	int64_t rows = l->shape[trans ? 1 : 0], cols = l->shape[trans ? 0 : 1]; /* logical */
	int64_t kext = kdim == 0 ? rows : cols, other = kdim == 0 ? cols : rows;
	for (int v = widest; v > 1; v /= 2) {
		if ((regs * P) % v || start % v)
			continue;
		/* a lane's elements e .. e+v-1: one row (A) or column (B), v
		 * consecutive k from a multiple of v */
		bool good = true;
		for (int lane = 0; good && lane < lanes; lane++)
			for (int j = 0; good && j < regs * P; j += v) {
				int64_t r0, c0;
				atom_at(a, regs, P, kdim, lane, j, &r0, &c0);
				good = (kdim == 0 ? r0 : c0) % v == 0;
				for (int i = 1; good && i < v; i++) {
					int64_t r, c;
					atom_at(a, regs, P, kdim, lane, j + i, &r, &c);
					good = kdim == 0 ? c == c0 && r == r0 + i : r == r0 && c == c0 + i;
				}
			}
		/* the layout stores each such run contiguously, aligned */
		for (int64_t o = 0; good && o < other; o++)
			for (int64_t k = 0; good && k < kext; k += v) {
				int64_t first = 0;
				for (int i = 0; good && i < v; i++) {
					int64_t r = kdim == 0 ? k + i : o, c = kdim == 0 ? o : k + i; /* logical */
					int64_t idx[2] = {trans ? c : r, trans ? r : c}, off;
					good = tlc_layout_eval(l, idx, &off) && (i ? off == first + i : off % v == 0);
					if (!i)
						first = off;
				}
			}
		if (good)
			return v;
	}
	return 1;
}

void hip_emit_mma_gemm(gpu_emitter *e, const tlc_expr *call, int ind)
{
	gpu_mma_call g;
	if (!gpu_decode_mma(e, call, &g))
		return;
	const tlc_matrix_inst *x = g.inst;
	const mfma_builtin *mb = NULL;
	for (size_t i = 0; i < sizeof mfma_builtins / sizeof mfma_builtins[0]; i++)
		if (!strcmp(mfma_builtins[i].inst, x->name))
			mb = &mfma_builtins[i];
	if (!mb || !x->frag_a.ndigits || !x->frag_b.ndigits) {
		tlc_error(e->ctx, e->loc, "T.mma_gemm: target %s cannot print %s", gpu_target_name(e), x->name);
		return;
	}
	const char *T = gpu_ctype(e, g.a_buf->dtype);
	const char *Acc = gpu_ctype(e, g.C->u.buf->dtype);
	if (!T || !Acc)
		return;
	int elem = (int)(tlc_dtype_bits(g.a_buf->dtype) / 8);
	int lanes = e->target->desc->info->lanes;
	int ra = atom_regs(&x->frag_a), rb = atom_regs(&x->frag_b), rc = atom_regs(&x->frag_c);

	char inst[96];
	snprintf(inst, sizeof inst, "tlc_mfma_%s_%d", e->f->name, e->counter++);
	tlc_buf *d = e->decls;
	tlc_buf_printf(d, "/* %s: lane l's element j of A and B (the target's fragments) */\n", x->name);
	tlc_buf_printf(d, "struct %s {\n\tstatic constexpr int m = %d, n = %d, k = %d, ra = %d, rb = %d, rc = %d;\n", inst,
	               x->m, x->n, x->k, ra, rb, rc);
	print_map(d, "a", &x->frag_a);
	print_map(d, "b", &x->frag_b);
	tlc_buf_printf(d,
	               "\ttemplate <class T, class Acc>\n\tstatic __device__ __forceinline__ void run(const T *a, const T *b, "
	               "Acc *c)\n\t{\n\t\ttypedef %s operand;\n\t\ttypedef %s accumulator;\n"
	               "\t\toperand va, vb;\n\t\taccumulator vc;\n"
	               "\t\t__builtin_memcpy(&va, a, sizeof va);\n\t\t__builtin_memcpy(&vb, b, sizeof vb);\n"
	               "\t\t__builtin_memcpy(&vc, c, sizeof vc);\n\t\tvc = %s(va, vb, vc, 0, 0, 0);\n"
	               "\t\t__builtin_memcpy(c, &vc, sizeof vc);\n\t}\n};\n\n",
	               mb->operand, mb->acc, mb->builtin);

	int64_t P = 1;
	const tlc_expr *kp = tlc_call_kw(call, "k_pack");
	if (kp && (!tlc_expr_as_int(kp, &P) || P < 1 || g.K % (P * x->k) || (P > 1 && g.a_regs) ||
	           !k_runs(&x->frag_a, ra, 1, lanes) || !k_runs(&x->frag_b, rb, 0, lanes))) {
		tlc_error(e->ctx, e->loc,
		          "T.gemm k_pack: %s with A and B in LDS and K a multiple of k_pack x %d (here K = %lld%s)", x->name,
		          x->k, (long long)g.K, g.a_regs ? ", A in registers" : "");
		return;
	}
	int vb = operand_vector(e, &x->frag_b, (int)P, 0, lanes, g.B, tlc_call_kw(call, "layout_B"), g.trans_b, elem);
	e->helpers |= HIP_HELPER_MFMA;
	gpu_indent(e, ind);
	if (g.a_regs) {
		tlc_buf_printf(e->out, "tlc::mfma_gemm_rs<%lld, %lld, %lld, %lld, %lld, %s, %d, %s, %s>(", (long long)g.M,
		               (long long)g.N, (long long)g.K, (long long)g.warp_m, (long long)g.warp_n,
		               g.trans_b ? "true" : "false", vb, inst, g.layout_b);
	} else {
		int va = operand_vector(e, &x->frag_a, (int)P, 1, lanes, g.A, tlc_call_kw(call, "layout_A"), g.trans_a,
		                        elem);
		tlc_buf_printf(e->out, "tlc::mfma_gemm_ss<%lld, %lld, %lld, %lld, %lld, %lld, %s, %s, %d, %d, %s, %s, %s>(",
		               (long long)g.M, (long long)g.N, (long long)g.K, (long long)g.warp_m, (long long)g.warp_n,
		               (long long)P, g.trans_a ? "true" : "false", g.trans_b ? "true" : "false", va, vb, inst,
		               g.layout_a, g.layout_b);
	}
	tlc_buf_printf(e->out, "(const %s *)", T);
	gpu_emit_operand(e, g.A);
	tlc_buf_printf(e->out, ", (const %s *)", T);
	gpu_emit_operand(e, g.B);
	tlc_buf_printf(e->out, ", %s, (int)threadIdx.x", gpu_name(e, g.C->u.buf->name));
	if (g.thread_lo)
		tlc_buf_printf(e->out, " - %lld", (long long)g.thread_lo);
	tlc_buf_puts(e->out, ");\n");
}
