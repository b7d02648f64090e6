/* test_layout.c - unit tests of the layout algebra (tlc/layout.h).
 * Expected values are recomputed here straight from the formulas in the
 * header's comments (swizzle, mma.sync fragments, partitions), never taken
 * from the code under test. */
#include "tap.h"

#include <stdlib.h>
#include <tlc/diag.h>
#include <tlc/ir.h>
#include <tlc/layout.h>
#include <tlc/pass.h>

static tlc_context *ctx;
static tlc_module *m;

static const tlc_expr *I(int64_t v) { return tlc_i32(m, v); }
static const tlc_expr *V(tlc_var *v) { return tlc_var_ref(m, v); }
static const tlc_expr *bin(tlc_expr_kind k, const tlc_expr *a, const tlc_expr *b) { return tlc_binary(m, k, a, b); }
static const tlc_expr *add(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_ADD, a, b); }
static const tlc_expr *mul(const tlc_expr *a, const tlc_expr *b) { return bin(TLC_EXPR_MUL, a, b); }
static const tlc_expr *fdiv(const tlc_expr *a, int64_t c) { return bin(TLC_EXPR_FLOORDIV, a, I(c)); }
static const tlc_expr *fmod_(const tlc_expr *a, int64_t c) { return bin(TLC_EXPR_FLOORMOD, a, I(c)); }

static bool next_index(int n, const int64_t *shape, int64_t *idx)
{
	for (int d = n - 1; d >= 0; d--) {
		if (++idx[d] < shape[d])
			return true;
		idx[d] = 0;
	}
	return false;
}

static int64_t prod(int n, const int64_t *s)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		p *= s[i];
	return p;
}

/* The thread of a fragment element for replica rep, from the digit
 * definition in the header (independent of the library's evaluator). */
static int64_t digit_thread(const tlc_layout *f, const int64_t *idx, int64_t rep)
{
	int64_t t = 0, repw = 1;
	for (int k = 0; k < f->ndigits; k++) {
		const tlc_frag_digit *g = &f->digits[k];
		if (!g->is_thread)
			continue;
		int64_t v;
		if (g->dim < 0) {
			v = (rep / repw) % g->radix;
			repw *= g->radix;
		} else {
			v = (idx[g->dim] / g->stride) % g->radix;
		}
		t += v * g->weight;
	}
	return t;
}

/* Sorted thread set of an element (all replicas); returns its size. */
static int thread_set(const tlc_layout *f, const int64_t *idx, int64_t *out)
{
	int n = 0;
	for (int64_t r = 0; r < f->replicate; r++) {
		int64_t t = digit_thread(f, idx, r);
		int j = n++;
		while (j > 0 && out[j - 1] > t) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = t;
	}
	return n;
}

/* ---- swizzle ---- */

static int64_t swizzle_direct(int64_t W, int64_t b, int64_t R, int64_t C, int64_t r, int64_t c)
{
	int64_t Wb = W / b, e = 16 / b, nblk = C / Wb;
	(void)nblk;
	int64_t block = c / Wb, cc = c % Wb, chunk = cc / e;
	int64_t x = ((r * W) >> 7) & (W / 16 - 1);
	return (block * R + r) * Wb + (chunk ^ x) * e + cc % e;
}

/* inverse(l)(phys(i)) == i at every point */
static bool inverse_round_trip(const tlc_layout *l, const tlc_layout *inv)
{
	if (!inv || inv->ndim != l->nout)
		return false;
	int64_t idx[TLC_LAYOUT_MAX_DIMS] = {0};
	int64_t n = tlc_layout_size(l), flat, back, pos = 0;
	do {
		if (!tlc_layout_eval(l, idx, &flat))
			return false;
		int64_t phys[TLC_LAYOUT_MAX_DIMS], f = flat;
		for (int k = l->nout - 1; k >= 0; k--) {
			phys[k] = f % l->out_shape[k];
			f /= l->out_shape[k];
		}
		if (!tlc_layout_eval(inv, phys, &back) || back != pos)
			return false;
		pos++;
	} while (next_index(l->ndim, l->shape, idx));
	return pos == n;
}

static void test_swizzle(void)
{
	ok(tlc_swizzle_get(TLC_SWIZZLE_128B)->bytes == 128 && tlc_swizzle_get(TLC_SWIZZLE_128B)->tma_swizzle == 3 &&
	       tlc_swizzle_get(TLC_SWIZZLE_128B)->wgmma_layout_type == 1 &&
	       tlc_swizzle_get(TLC_SWIZZLE_128B)->base_align == 1024,
	   "128B swizzle info");
	ok(tlc_swizzle_get(TLC_SWIZZLE_32B)->wgmma_layout_type == 3 && tlc_swizzle_get(TLC_SWIZZLE_64B)->base_align == 512,
	   "32B/64B swizzle info");
	tlc_swizzle s;
	ok(tlc_swizzle_from_bytes(64, &s) && s == TLC_SWIZZLE_64B && !tlc_swizzle_from_bytes(48, &s), "from_bytes");
	ok(tlc_swizzle_widest(64, TLC_DT_FLOAT16) == TLC_SWIZZLE_128B && tlc_swizzle_widest(32, TLC_DT_FLOAT16) == TLC_SWIZZLE_64B &&
	       tlc_swizzle_widest(16, TLC_DT_FLOAT16) == TLC_SWIZZLE_32B && tlc_swizzle_widest(8, TLC_DT_FLOAT16) == TLC_SWIZZLE_NONE &&
	       tlc_swizzle_widest(96, TLC_DT_FLOAT32) == TLC_SWIZZLE_128B,
	   "widest swizzle of a row");

	static const tlc_dtype dts[] = {TLC_DT_FLOAT16, TLC_DT_FLOAT32};
	for (int wi = 0; wi < 3; wi++)
		for (int di = 0; di < 2; di++) {
			int64_t W = 32 << wi, b = di == 0 ? 2 : 4;
			tlc_swizzle mode = (tlc_swizzle)(TLC_SWIZZLE_32B + wi);
			int64_t shape[3] = {2, 24, 2 * W / b}; /* a leading stage, 24 rows, two column blocks */
			const char *why = NULL;
			const tlc_layout *l = tlc_layout_swizzled(m, 3, shape, dts[di], mode, &why);
			bool good = l && l->kind == TLC_LAYOUT_SWIZZLED && tlc_layout_phys_size(l) == prod(3, shape);
			int64_t idx[3] = {0}, flat;
			do {
				int64_t want = idx[0] * shape[1] * shape[2] +
				               swizzle_direct(W, b, shape[1], shape[2], idx[1], idx[2]);
				good = good && tlc_layout_eval(l, idx, &flat) && flat == want;
			} while (good && next_index(3, shape, idx));
			ok(good, "swizzle %lldB %s matches the formula at every point", (long long)W, tlc_dtype_name(dts[di]));
			ok(l && tlc_layout_is_injective(l, &why), "swizzle %lldB %s is injective", (long long)W,
			   tlc_dtype_name(dts[di]));
			const tlc_layout *inv = l ? tlc_layout_inverse(m, l, &why) : NULL;
			ok(inv && inverse_round_trip(l, inv), "swizzle %lldB %s inverse round trip", (long long)W,
			   tlc_dtype_name(dts[di]));
		}
	const char *why = NULL;
	int64_t bad[2] = {64, 24};
	const tlc_layout *nope = tlc_layout_swizzled(m, 2, bad, TLC_DT_FLOAT16, TLC_SWIZZLE_128B, &why);
	ok(!nope && why, "a 48-byte row cannot take a 128B swizzle (%s)", why ? why : "");
	int64_t sq[2] = {64, 64};
	const tlc_layout *l = tlc_layout_swizzled(m, 2, sq, TLC_DT_FLOAT16, TLC_SWIZZLE_128B, NULL);
	is_int(tlc_layout_contiguous_run(l), 8, "128B swizzle keeps 16-byte chunks contiguous");
	const tlc_expr *ci[2] = {I(5), I(19)};
	int64_t ii[2] = {5, 19}, flat = -1;
	int64_t got = -2;
	tlc_layout_eval(l, ii, &flat);
	ok(tlc_expr_as_int(tlc_layout_apply(m, l, 2, ci), &got) && got == flat, "apply of constants folds to eval");
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_layout_describe(&b, l);
	is_str(tlc_buf_str(&b), "swizzled(128B) 64x64 float16", "describe a swizzled layout");
	tlc_buf_free(&b);
}

/* ---- memory layouts ---- */

static const tlc_layout *perm_layout(void)
{
	tlc_var **v = tlc_layout_new_vars(m, 3);
	int64_t shape[3] = {4, 6, 8};
	const tlc_expr *out[3] = {V(v[2]), V(v[0]), V(v[1])};
	return tlc_layout_memory(m, 3, shape, v, 3, out, NULL);
}

static const tlc_layout *dq_layout(void)
{
	/* lambda b, l, h, d: [b, l // 8, h, d // 8, d % 2, 4 * (l % 8) + (d % 8) // 2] */
	tlc_var **v = tlc_layout_new_vars(m, 4);
	int64_t shape[4] = {2, 32, 3, 64};
	const tlc_expr *B = V(v[0]), *L = V(v[1]), *H = V(v[2]), *D = V(v[3]);
	const tlc_expr *out[6] = {B, fdiv(L, 8), H, fdiv(D, 8), fmod_(D, 2), add(mul(I(4), fmod_(L, 8)), fdiv(fmod_(D, 8), 2))};
	return tlc_layout_memory(m, 4, shape, v, 6, out, NULL);
}

static void test_memory(void)
{
	int64_t rs[2] = {4, 6};
	const tlc_layout *rm = tlc_layout_row_major(m, 2, rs);
	const char *why = NULL;
	ok(rm && tlc_layout_is_injective(rm, &why) && tlc_layout_phys_size(rm) == 24, "row-major is injective");
	ok(inverse_round_trip(rm, tlc_layout_inverse(m, rm, &why)), "row-major inverse round trip");
	is_int(tlc_layout_contiguous_run(rm), 6, "row-major rows are contiguous");

	const tlc_layout *p = perm_layout();
	ok(p && p->out_shape[0] == 8 && p->out_shape[1] == 4 && p->out_shape[2] == 6, "out_shape from bounds");
	const tlc_layout *pinv = p ? tlc_layout_inverse(m, p, &why) : NULL;
	ok(inverse_round_trip(p, pinv), "permutation inverse round trip");
	is_int(tlc_layout_contiguous_run(p), 1, "a transposed last dimension is not contiguous");

	const tlc_layout *dq = dq_layout();
	ok(dq && tlc_layout_is_injective(dq, &why), "dQ layout is injective");
	ok(dq && tlc_layout_phys_size(dq) == tlc_layout_size(dq), "dQ layout is onto its physical shape");
	const tlc_layout *dqi = dq ? tlc_layout_inverse(m, dq, &why) : NULL;
	ok(inverse_round_trip(dq, dqi), "dQ layout inverse round trip%s%s", dqi ? "" : ": ", dqi ? "" : why);

	tlc_var **v = tlc_layout_new_vars(m, 2);
	int64_t s4[2] = {4, 4};
	const tlc_expr *sum[1] = {add(V(v[0]), V(v[1]))};
	const tlc_layout *ni = tlc_layout_memory(m, 2, s4, v, 1, sum, &why);
	why = NULL;
	bool inj = ni && tlc_layout_is_injective(ni, &why);
	ok(ni && !inj && why, "i + j is reported not injective (%s)", why ? why : "");
	why = NULL;
	const tlc_layout *ninv = ni ? tlc_layout_inverse(m, ni, &why) : NULL;
	ok(ni && !ninv && why, "i + j has no inverse (%s)", why ? why : "");
	const tlc_expr *neg[1] = {bin(TLC_EXPR_SUB, V(v[0]), V(v[1]))};
	why = NULL;
	ok(!tlc_layout_memory(m, 2, s4, v, 1, neg, &why) && why, "a negative physical index is refused");

	/* expand: physical = stage * size + inner */
	int64_t lead[1] = {3};
	const tlc_layout *e = tlc_layout_expand(m, p, 1, lead);
	bool good = e && e->ndim == 4 && tlc_layout_size(e) == 3 * 192;
	int64_t idx[4] = {0}, f1, f2;
	do {
		good = good && tlc_layout_eval(e, idx, &f1) && tlc_layout_eval(p, idx + 1, &f2) && f1 == idx[0] * 192 + f2;
	} while (good && next_index(4, e->shape, idx));
	ok(good, "expand of a permutation: stage * size + inner offset");
	int64_t sq[2] = {64, 64}, s3[3] = {2, 64, 64};
	const tlc_layout *sw = tlc_layout_swizzled(m, 2, sq, TLC_DT_FLOAT16, TLC_SWIZZLE_64B, NULL);
	const tlc_layout *esw = tlc_layout_expand(m, sw, 1, lead);
	ok(esw && esw->kind == TLC_LAYOUT_SWIZZLED && esw->swizzle == TLC_SWIZZLE_64B && esw->shape[0] == 3,
	   "expand keeps a swizzled layout swizzled");
	ok(!tlc_layout_equal(tlc_layout_swizzled(m, 3, s3, TLC_DT_FLOAT16, TLC_SWIZZLE_64B, NULL), esw),
	   "layouts of different shapes differ");

	/* compose: transpose (6,4) after transpose (4,6) is row-major (4,6) */
	tlc_var **a = tlc_layout_new_vars(m, 2), **c = tlc_layout_new_vars(m, 2);
	int64_t s46[2] = {4, 6}, s64[2] = {6, 4};
	const tlc_expr *ta[2] = {V(a[1]), V(a[0])}, *tc[2] = {V(c[1]), V(c[0])};
	const tlc_layout *t46 = tlc_layout_memory(m, 2, s46, a, 2, ta, NULL);
	const tlc_layout *t64 = tlc_layout_memory(m, 2, s64, c, 2, tc, NULL);
	const tlc_layout *comp = tlc_layout_compose(m, t64, t46, &why);
	ok(comp && tlc_layout_equal(comp, rm), "transpose after transpose is the identity");
	/* compose with a 1-D outer: reversal of the flat offset */
	tlc_var **o = tlc_layout_new_vars(m, 1);
	int64_t s24[1] = {24};
	const tlc_expr *rev[1] = {bin(TLC_EXPR_SUB, I(23), V(o[0]))};
	const tlc_layout *rv = tlc_layout_memory(m, 1, s24, o, 1, rev, NULL);
	const tlc_layout *comp2 = tlc_layout_compose(m, rv, t46, &why);
	good = comp2 != NULL;
	int64_t ij[2] = {0};
	do {
		good = good && tlc_layout_eval(comp2, ij, &f1) && f1 == 23 - (ij[1] * 4 + ij[0]);
	} while (good && next_index(2, s46, ij));
	ok(good, "compose with a 1-D outer layout, numerically");

	const tlc_expr *sym[2] = {V(a[0]), I(2)};
	ok(tlc_layout_apply(m, rm, 2, sym) == tlc_simplify_expr(m, add(mul(V(a[0]), I(6)), I(2))),
	   "apply of row-major is i * 6 + 2");
}

/* ---- fragments ---- */

/* The mma.sync m16n8k16 accumulator and A atoms, written here from the PTX
 * ISA's fragment tables (cuda_info.c has the target's copy; test_target
 * checks that one), tiled over warps by tlc_fragment_tile. */
static const tlc_layout *mma_c(int64_t M, int64_t N, int warp_m, int warp_n, int64_t lo, const char **why)
{
	static const tlc_frag_digit d[] = {
	    {2, 1, 1, false, 1}, {4, 1, 2, true, 1}, {8, 0, 1, true, 4}, {2, 0, 8, false, 2}};
	int64_t shape[2] = {16, 8};
	const tlc_layout *atom = tlc_fragment_from_digits(m, 2, shape, 4, d, 0, why);
	return atom ? tlc_fragment_tile(m, atom, M, N, warp_m, warp_n, true, true, lo, why) : NULL;
}

static const tlc_layout *mma_a(int64_t M, int64_t K, int warp_m, int warp_n, int64_t lo, const char **why)
{
	static const tlc_frag_digit d[] = {{2, 1, 1, false, 1}, {4, 1, 2, true, 1}, {2, 0, 8, false, 2},
	                                   {2, 1, 8, false, 4}, {8, 0, 1, true, 4}};
	int64_t shape[2] = {16, 16};
	const tlc_layout *atom = tlc_fragment_from_digits(m, 2, shape, 5, d, 0, why);
	return atom ? tlc_fragment_tile(m, atom, M, K, warp_m, warp_n, true, false, lo, why) : NULL;
}

static void test_mma_c(int64_t M, int64_t N, int wm_n, int wn_n)
{
	const char *why = NULL;
	const tlc_layout *f = mma_c(M, N, wm_n, wn_n, 0, &why);
	if (!ok(f != NULL, "mma_c %lldx%lld warps %dx%d builds", (long long)M, (long long)N, wm_n, wn_n)) {
		diag("%s", why ? why : "");
		return;
	}
	int64_t MW = M / wm_n, NW = N / wn_n, NI = NW / 8, T = 32 * wm_n * wn_n, R = (MW / 16) * NI * 4;
	char *used = calloc((size_t)(T * R), 1);
	bool good = f->threads == T && f->replicate == 1 && f->out_shape[0] == R;
	int64_t idx[2] = {0}, shape[2] = {M, N};
	do {
		int64_t row = idx[0], col = idx[1];
		int64_t wm = row / MW, wn = col / NW, rr = row % MW, cc = col % NW;
		int64_t mi = rr / 16, ni = cc / 8, r16 = rr % 16, c8 = cc % 8;
		int64_t lane = (r16 % 8) * 4 + c8 / 2;
		int64_t thread = (wm * wn_n + wn) * 32 + lane;
		int64_t reg = (mi * NI + ni) * 4 + (r16 >= 8) * 2 + col % 2, got;
		good = good && digit_thread(f, idx, 0) == thread && tlc_layout_eval(f, idx, &got) && got == reg &&
		       !used[thread * R + reg]++;
	} while (good && next_index(2, shape, idx));
	free(used);
	ok(good, "mma_c %lldx%lld warps %dx%d: thread and register of every element, each slot once", (long long)M,
	   (long long)N, wm_n, wn_n);
}

static void test_mma_a(int64_t M, int64_t K, int wm_n, int wn_n)
{
	const char *why = NULL;
	const tlc_layout *f = mma_a(M, K, wm_n, wn_n, 0, &why);
	if (!ok(f != NULL, "mma_a %lldx%lld warps %dx%d builds", (long long)M, (long long)K, wm_n, wn_n))
		return;
	int64_t MW = M / wm_n, KI = K / 16, T = 32 * wm_n * wn_n, R = (MW / 16) * KI * 8;
	char *used = calloc((size_t)(T * R), 1);
	bool good = f->threads == T && f->replicate == wn_n && f->out_shape[0] == R;
	int64_t idx[2] = {0}, shape[2] = {M, K}, set[64];
	do {
		int64_t row = idx[0], col = idx[1];
		int64_t wm = row / MW, rr = row % MW, mi = rr / 16, ki = col / 16, r16 = rr % 16, c16 = col % 16;
		int64_t lane = (r16 % 8) * 4 + (c16 % 8) / 2;
		int64_t reg = (mi * KI + ki) * 8 + (c16 >= 8) * 4 + (r16 >= 8) * 2 + col % 2, got;
		good = good && tlc_layout_eval(f, idx, &got) && got == reg && thread_set(f, idx, set) == wn_n;
		for (int wn = 0; good && wn < wn_n; wn++) {
			int64_t thread = (wm * wn_n + wn) * 32 + lane;
			good = set[wn] == thread && !used[thread * R + reg]++;
		}
	} while (good && next_index(2, shape, idx));
	free(used);
	ok(good, "mma_a %lldx%lld warps %dx%d: every element's threads (replicas) and register, each slot once",
	   (long long)M, (long long)K, wm_n, wn_n);
}

static void test_fragments(void)
{
	static const int cfg[4][4] = {{64, 64, 2, 2}, {128, 128, 4, 1}, {128, 64, 2, 2}, {64, 192, 4, 1}};
	for (int i = 0; i < 4; i++) {
		test_mma_c(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3]);
		test_mma_a(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3]);
	}
	const char *why = NULL;
	ok(!mma_c(64, 60, 2, 2, 0, &why) && why, "tiling refuses N %% (8*warp_n) != 0");
	ok(!mma_a(64, 40, 2, 1, 0, &why) && why, "tiling refuses K %% 16 != 0");

	/* flash attention: P = softmax(S) in the accumulator layout is the A operand */
	ok(tlc_layout_equal(mma_c(128, 64, 4, 1, 0, NULL), mma_a(128, 64, 4, 1, 0, NULL)),
	   "mma_c == mma_a over the same tile when warp_n == 1");
	ok(!tlc_layout_equal(mma_c(128, 64, 2, 2, 0, NULL), mma_a(128, 64, 2, 2, 0, NULL)),
	   "but not when warp_n == 2");

	/* project mma_c over the columns: rows as in mma_c, columns' threads replicate */
	const tlc_layout *c = mma_c(64, 64, 2, 2, 0, NULL);
	const tlc_layout *p = tlc_fragment_project(m, c, 1);
	bool good = p && p->ndim == 1 && p->shape[0] == 64 && p->replicate == 8 && p->threads == 128 &&
	            p->out_shape[0] == 4;
	for (int64_t row = 0; good && row < 64; row++) {
		/* threads holding row in c: every column */
		char in_c[128] = {0};
		int64_t set[16], ix[2] = {row, 0}, regs = 0;
		for (ix[1] = 0; ix[1] < 64; ix[1]++)
			in_c[digit_thread(c, ix, 0)] = 1;
		int n = thread_set(p, &row, set);
		for (int k = 0; k < n; k++)
			good = good && in_c[set[k]] && (k == 0 || set[k] != set[k - 1]);
		for (int k = 0; k < 128; k++)
			regs += in_c[k];
		good = good && regs == n;
		int64_t reg, want = (row % 32) / 16 * 2 + (row % 16 >= 8);
		good = good && tlc_layout_eval(p, &row, &reg) && reg == want;
	}
	ok(good, "project of mma_c over dim 1: each row's threads and register (mi * 2 + row>=8)");

	/* partitions */
	int64_t s1[2] = {64, 96};
	const tlc_layout *q = tlc_fragment_partition(m, 2, s1, 128, 4, 0, &why);
	good = q && q->threads == 128 && q->out_shape[0] == 48 && q->replicate == 1;
	int64_t idx[2] = {0};
	char *used = calloc(128 * 48, 1);
	do {
		int64_t i = idx[0], j = idx[1];
		int64_t thread = (j / 4) % 8 + 8 * (i % 16), reg = j % 4 + 4 * (j / 32) + 12 * (i / 16), got;
		good = good && digit_thread(q, idx, 0) == thread && tlc_layout_eval(q, idx, &got) && got == reg &&
		       !used[thread * 48 + reg]++;
	} while (good && next_index(2, s1, idx));
	free(used);
	ok(good, "partition (64,96) over 128 threads, vec 4");
	is_int(q ? tlc_layout_contiguous_run(q) : 0, 4, "the partition's vectors are 4 elements");
	int64_t s2[1] = {128}, s3[1] = {100};
	const tlc_layout *q2 = tlc_fragment_partition(m, 1, s2, 128, 1, 0, &why);
	good = q2 && q2->threads == 128 && q2->out_shape[0] == 1;
	for (int64_t i = 0; good && i < 128; i++)
		good = digit_thread(q2, &i, 0) == i;
	ok(good, "partition (128,) over 128 threads: element i on thread i");
	const tlc_layout *q3 = tlc_fragment_partition(m, 1, s3, 128, 1, 0, &why);
	good = q3 && q3->threads == 4 && q3->out_shape[0] == 25;
	for (int64_t i = 0, r; good && i < 100; i++)
		good = digit_thread(q3, &i, 0) == i % 4 && tlc_layout_eval(q3, &i, &r) && r == i / 4;
	ok(good, "partition (100,) over 128 threads uses gcd = 4 threads");
	ok(!tlc_fragment_partition(m, 2, s1, 128, 5, 0, &why), "vec must divide the last extent");

	/* digits that overlap are refused; adjacent ones merge */
	tlc_frag_digit bad[2] = {{4, 0, 1, true, 1}, {4, 0, 2, false, 1}};
	int64_t s8[1] = {8};
	why = NULL;
	const tlc_layout *ov = tlc_fragment_from_digits(m, 1, s8, 2, bad, 0, &why);
	ok(!ov && why, "overlapping digits are refused (%s)", why ? why : "");
	tlc_frag_digit split[3] = {{2, 0, 1, true, 1}, {4, 0, 2, true, 2}, {2, -1, 0, true, 8}};
	const tlc_layout *mg = tlc_fragment_from_digits(m, 1, s8, 3, split, 32, &why);
	ok(mg && mg->ndigits == 2 && mg->digits[0].radix == 8 && mg->threads == 16 && mg->replicate == 2 &&
	       mg->thread_lo == 32,
	   "adjacent digits merge");

	/* repeat, replicate, rebind */
	const tlc_layout *r = tlc_fragment_repeat(m, c, 0, 2);
	ok(r && r->shape[0] == 128 && r->out_shape[0] == 2 * c->out_shape[0] && r->threads == c->threads,
	   "repeat doubles the registers");
	const tlc_layout *rp = tlc_fragment_replicate(m, c, 2);
	ok(rp && rp->threads == 256 && rp->replicate == 2 && tlc_fragment_contains(rp, c) && !tlc_fragment_contains(c, rp),
	   "replicate: the replicated fragment contains the original");
	const tlc_layout *rb = tlc_fragment_rebind(m, c, 128);
	ok(rb && rb->thread_lo == 128 && !tlc_layout_equal(rb, c), "rebind moves the thread range");

	/* symbolic thread_of / logical_of agree with the digits */
	const tlc_layout *a = mma_a(64, 32, 2, 2, 0, NULL);
	int64_t e[2] = {37, 21}, t, reg;
	const tlc_expr *ce[2] = {I(37), I(21)};
	ok(tlc_expr_as_int(tlc_fragment_thread_of(m, a, 2, ce, I(1)), &t) && t == digit_thread(a, e, 1),
	   "thread_of of constants");
	tlc_layout_eval(a, e, &reg);
	const tlc_expr *back[2];
	tlc_fragment_logical_of(m, a, I(digit_thread(a, e, 1)), I(reg), back);
	int64_t b0 = -1, b1 = -1;
	ok(tlc_expr_as_int(back[0], &b0) && tlc_expr_as_int(back[1], &b1) && b0 == 37 && b1 == 21,
	   "logical_of inverts thread_of");
	tlc_buf b;
	tlc_buf_init(&b);
	tlc_layout_describe(&b, c);
	is_str(tlc_buf_str(&b), "fragment 64x64 over threads [0, 128), 32 registers", "describe a fragment");
	tlc_buf_free(&b);
}

/* ---- reshape (T.view / T.reshape of a fragment) ---- */

/* Every element of view v (shape vs) has the threads and register of f's
 * element at the same row-major flat index: computed from the digits of
 * each, not from the reshape. */
static bool same_slots(const tlc_layout *f, const tlc_layout *v, int vn, const int64_t *vs)
{
	if (!v || v->ndim != vn || v->replicate != f->replicate || v->threads != f->threads ||
	    v->out_shape[0] != f->out_shape[0])
		return false;
	int64_t vi[TLC_LAYOUT_MAX_DIMS] = {0};
	do {
		int64_t flat = 0, fi[TLC_LAYOUT_MAX_DIMS], x;
		for (int d = 0; d < vn; d++)
			flat = flat * vs[d] + vi[d];
		x = flat;
		for (int d = f->ndim - 1; d >= 0; d--) {
			fi[d] = x % f->shape[d];
			x /= f->shape[d];
		}
		int64_t s1[64], s2[64], r1, r2;
		int n1 = thread_set(f, fi, s1), n2 = thread_set(v, vi, s2);
		if (n1 != n2 || !tlc_layout_eval(f, fi, &r1) || !tlc_layout_eval(v, vi, &r2) || r1 != r2)
			return false;
		for (int k = 0; k < n1; k++)
			if (s1[k] != s2[k])
				return false;
	} while (next_index(vn, vs, vi));
	return true;
}

static void test_reshape(void)
{
	const char *why = NULL;
	/* a gemm accumulator over 4 warps viewed as (rows, heads, columns per
	 * head) and flat; then back */
	const tlc_layout *c = mma_c(64, 64, 2, 2, 0, NULL);
	int64_t v3[3] = {64, 8, 8}, v1[1] = {4096}, v4[4] = {2, 32, 4, 16};
	const tlc_layout *r3 = tlc_fragment_reshape(m, c, 3, v3, &why);
	ok(same_slots(c, r3, 3, v3), "mma_c 64x64 viewed as (64, 8, 8): same threads and registers%s%s",
	   r3 ? "" : ": ", r3 ? "" : why);
	ok(same_slots(c, tlc_fragment_reshape(m, c, 1, v1, &why), 1, v1), "mma_c viewed flat");
	ok(same_slots(c, tlc_fragment_reshape(m, c, 4, v4, &why), 4, v4), "mma_c viewed as (2, 32, 4, 16)");
	int64_t c2[2] = {64, 64};
	ok(r3 && tlc_layout_equal(tlc_fragment_reshape(m, r3, 2, c2, &why), c), "reshaping back gives the layout");
	/* a replicated A operand: the replicas follow */
	const tlc_layout *a = mma_a(64, 32, 2, 2, 128, NULL);
	int64_t av[3] = {4, 16, 32};
	const tlc_layout *ar = tlc_fragment_reshape(m, a, 3, av, &why);
	ok(same_slots(a, ar, 3, av) && ar->thread_lo == 128, "a replicated fragment bound at 128, viewed (4, 16, 32)");
	/* a whole tile in one thread's registers: any shape of as many elements */
	int64_t s43[2] = {4, 3}, s34[2] = {3, 4}, s26[2] = {2, 6};
	const tlc_layout *one = tlc_fragment_replicated(m, 2, s43, 1, 0);
	ok(same_slots(one, tlc_fragment_reshape(m, one, 2, s34, &why), 2, s34), "registers (4, 3) viewed (3, 4)");
	/* threads along rows of 3, registers along the 3: the view (3, 4) would
	 * need element 3i+j's thread as a sum over i and j of digits; none is */
	tlc_frag_digit td[2] = {{4, 0, 1, true, 1}, {3, 1, 1, false, 1}};
	const tlc_layout *t43 = tlc_fragment_from_digits(m, 2, s43, 2, td, 0, NULL);
	why = NULL;
	ok(t43 && !tlc_fragment_reshape(m, t43, 2, s34, &why) && why, "(4, 3) over 4 threads is not a (3, 4) (%s)",
	   why ? why : "");
	ok(same_slots(t43, tlc_fragment_reshape(m, t43, 2, s26, &why), 2, s26), "but it is a (2, 6)");
	int64_t s5[1] = {5};
	why = NULL;
	ok(!tlc_fragment_reshape(m, c, 1, s5, &why) && why, "another number of elements is refused");
}

/* ---- the IR forms ---- */

static bool round_trips(const tlc_layout *l, const char *what)
{
	const char *why = NULL;
	const tlc_expr *e = tlc_layout_to_expr(m, l);
	const tlc_layout *back = e ? tlc_layout_from_expr(m, e, &why) : NULL;
	bool good = back && tlc_layout_equal(back, l) && tlc_layout_to_expr(m, back) == e;
	ok(good, "from_expr(to_expr(%s)) is the layout, and prints the same", what);
	if (!good || getenv("TLC_TEST_VERBOSE")) {
		tlc_buf b;
		tlc_buf_init(&b);
		if (e)
			tlc_print_expr(&b, m, e);
		diag("%s %s", tlc_buf_str(&b), why ? why : "");
		tlc_buf_free(&b);
	}
	return good;
}

static const tlc_expr *frag_call(int64_t n0, int64_t n1, const tlc_expr *tfn, const tlc_expr *ifn)
{
	const tlc_expr *s[2] = {I(n0), I(n1)};
	const tlc_expr *args[1] = {tlc_tuple(m, 2, s, false)};
	const char *kn[2] = {"forward_thread_fn", "forward_index_fn"};
	const tlc_expr *kx[2] = {tfn, ifn};
	return tlc_call(m, TLC_OP_FRAGMENT, TLC_DT_VOID, 1, args, 2, kn, kx);
}

static void test_ir_forms(void)
{
	int64_t rs[2] = {4, 6}, sq[3] = {2, 64, 32};
	round_trips(tlc_layout_row_major(m, 2, rs), "row-major");
	round_trips(dq_layout(), "the dQ layout");
	round_trips(tlc_layout_swizzled(m, 3, sq, TLC_DT_FLOAT16, TLC_SWIZZLE_64B, NULL), "swizzled");
	round_trips(mma_c(64, 64, 2, 2, 0, NULL), "mma_c");
	round_trips(mma_a(64, 64, 2, 2, 128, NULL), "mma_a (replicated, bound at 128)");
	round_trips(tlc_fragment_project(m, mma_c(128, 64, 4, 1, 0, NULL), 1), "a projection");
	int64_t ps[2] = {64, 96};
	round_trips(tlc_fragment_partition(m, 2, ps, 128, 4, 0, NULL), "a partition");

	/* user lambdas: digit form accepted, XOR refused */
	tlc_var *i = tlc_var_new(m, "i", TLC_DT_INT32), *j = tlc_var_new(m, "j", TLC_DT_INT32);
	tlc_var *ij[2] = {i, j};
	const tlc_expr *idx_body[1] = {fdiv(V(j), 4)};
	const tlc_expr *ifn = tlc_lambda(m, 2, ij, tlc_tuple(m, 1, idx_body, true));
	const tlc_expr *tfn = tlc_lambda(m, 2, ij, add(mul(V(i), I(4)), fmod_(V(j), 4)));
	const char *why = NULL;
	const tlc_layout *f = tlc_layout_from_expr(m, frag_call(8, 8, tfn, ifn), &why);
	tlc_frag_digit want[4] = {{4, 1, 1, true, 1}, {8, 0, 1, true, 4}, {2, 1, 4, false, 1}};
	int64_t s88[2] = {8, 8};
	ok(f && tlc_layout_equal(f, tlc_fragment_from_digits(m, 2, s88, 3, want, 0, NULL)),
	   "a digit-form T.Fragment lambda is fitted%s%s", f ? "" : ": ", f ? "" : why);
	const tlc_expr *xt = tlc_lambda(m, 2, ij, add(mul(V(i), I(4)), bin(TLC_EXPR_BITXOR, fmod_(V(j), 4), fmod_(V(i), 4))));
	why = NULL;
	const tlc_layout *xl = tlc_layout_from_expr(m, frag_call(8, 8, xt, ifn), &why);
	ok(!xl && why, "an XOR-swizzled thread map is not digit form (%s)", why ? why : "");
	const tlc_expr *dup = tlc_lambda(m, 2, ij, fmod_(V(j), 4));
	why = NULL;
	const tlc_layout *dl = tlc_layout_from_expr(m, frag_call(8, 8, dup, ifn), &why);
	ok(!dl && why, "a fragment sharing slots is refused (%s)", why ? why : "");
	/* forward_fn=lambda i, j: (thread, index) */
	const tlc_expr *pair[2] = {add(mul(V(i), I(4)), fmod_(V(j), 4)), fdiv(V(j), 4)};
	const tlc_expr *s[2] = {I(8), I(8)};
	const tlc_expr *args[2] = {tlc_tuple(m, 2, s, false), tlc_lambda(m, 2, ij, tlc_tuple(m, 2, pair, false))};
	const tlc_layout *g = tlc_layout_from_expr(m, tlc_call(m, TLC_OP_FRAGMENT, TLC_DT_VOID, 2, args, 0, NULL, NULL), &why);
	ok(g && f && tlc_layout_equal(g, f), "forward_fn giving (thread, index)");
	/* T.Layout from a user lambda */
	const tlc_expr *lbody[2] = {V(j), V(i)};
	const tlc_expr *largs[2] = {tlc_tuple(m, 2, s, false), tlc_lambda(m, 2, ij, tlc_tuple(m, 2, lbody, true))};
	const tlc_layout *lt = tlc_layout_from_expr(m, tlc_call(m, TLC_OP_LAYOUT, TLC_DT_VOID, 2, largs, 0, NULL, NULL), &why);
	int64_t e[2] = {3, 5}, fl;
	ok(lt && tlc_layout_eval(lt, e, &fl) && fl == 5 * 8 + 3, "T.Layout transposed lambda");
	ok(!tlc_layout_from_expr(m, I(3), &why) && why, "a constant is not a layout");
}

int main(void)
{
	ctx = tlc_context_new();
	m = tlc_module_new(ctx);
	test_swizzle();
	test_memory();
	test_fragments();
	test_reshape();
	test_ir_forms();
	tlc_module_free(m);
	tlc_context_free(ctx);
	return done_testing();
}
