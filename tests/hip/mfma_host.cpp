// mfma_host.cpp - runs the MFMA gemm helper the hip target prints
// (device/tlc_mfma.hip.h with the per-gemm structs of a generated .hip) on
// the CPU, with MFMA instructions computed from the AMD ISA's lane maps
// written here, and checks every lane's accumulator registers against
// A @ B.  This checks what neither hipcc (it only compiles) nor tlc-sim (it
// runs the IR, not the printed C++) can: the lane -> element maps printed
// from the target's fragments, the vectorized LDS reads, transposes and
// k_pack's interleaving of k.
//
// mfma_host.sh builds it with -include of a shim (__device__ and the
// __builtin_amdgcn_mfma_* as calls of tlc_host_mfma) and of the structs cut
// out of the .hip, and -D the gemm: TLC_GEMM (the helper call's template),
// TLC_M TLC_N TLC_K TLC_WM TLC_WN TLC_TA TLC_TB, ELEM (the operand type), LA LB (the layout functors) and
// INST (the instruction struct).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// ---- the MFMA instructions, by the ISA (lane l, element j; R elements per lane) ----
// A (m x k): A[l % m][R (l / m) + j];  B (k x n): B[R (l / n) + j][l % n]
// D 16x16: D[4 (l / 16) + j][l % 16];  D 32x32: D[8 (j / 4) + 4 (l / 32) + j % 4][l % 32]
static void d_at(int m, int lane, int j, int *row, int *col)
{
	if (m == 16) {
		*row = 4 * (lane / 16) + j;
		*col = lane % 16;
	} else {
		*row = 8 * (j / 4) + 4 * (lane / 32) + j % 4;
		*col = lane % 32;
	}
}

static const int LANES = 64;
static int cur_lane, cur_call;
static bool applying; // pass 2: the builtin returns the accumulator plus its delta
static std::vector<std::vector<std::vector<double>>> rec_a, rec_b; // [lane][call][element]
static std::vector<std::vector<std::vector<double>>> delta;        // [lane][call][register]

template <class OP, class ACC> ACC tlc_host_mfma(OP a, OP b, ACC c)
{
	const int na = sizeof(OP) / sizeof(ELEM), nc = sizeof(ACC) / sizeof(float);
	ELEM ea[64], eb[64];
	std::memcpy(ea, &a, sizeof a);
	std::memcpy(eb, &b, sizeof b);
	if (!applying) {
		std::vector<double> va(na), vb(na);
		for (int i = 0; i < na; i++) {
			va[i] = (double)ea[i];
			vb[i] = (double)eb[i];
		}
		rec_a[cur_lane].push_back(va);
		rec_b[cur_lane].push_back(vb);
		return c;
	}
	float ec[64];
	std::memcpy(ec, &c, sizeof c);
	for (int r = 0; r < nc; r++)
		ec[r] += (float)delta[cur_lane][cur_call][r];
	cur_call++;
	std::memcpy(&c, ec, sizeof c);
	return c;
}

#include "tlc_mfma.hip.h"

static std::vector<ELEM> store(const std::vector<double> &logical, int rows, int cols, bool trans, int (*off)(int, int))
{
	// the operand as it lies in LDS: logical (r, c) at off(r, c), or off(c, r) transposed
	int size = 0;
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			int o = trans ? off(c, r) : off(r, c);
			size = o + 1 > size ? o + 1 : size;
		}
	std::vector<ELEM> s(size + 64, (ELEM)0);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			s[trans ? off(c, r) : off(r, c)] = (ELEM)logical[r * cols + c];
	return s;
}

int main()
{
	const int threads = TLC_WM * TLC_WN * LANES, MI = TLC_M / TLC_WM / INST::m, NI = TLC_N / TLC_WN / INST::n, R = INST::rc * MI * NI;
	std::vector<double> A(TLC_M * TLC_K), B(TLC_K * TLC_N);
	std::srand(1);
	for (auto &x : A)
		x = std::rand() % 5 - 2; // small integers: every sum is exact
	for (auto &x : B)
		x = std::rand() % 5 - 2;
	std::vector<ELEM> As = store(A, TLC_M, TLC_K, TLC_TA, LA::off), Bs = store(B, TLC_K, TLC_N, TLC_TB, LB::off);
	std::vector<std::vector<float>> C(threads, std::vector<float>(R, 0.0f));
	rec_a.assign(threads, {});
	rec_b.assign(threads, {});
	// pass 1: every lane's operands, call by call
	applying = false;
	for (int t = 0; t < threads; t++) {
		cur_lane = t;
		TLC_GEMM(As.data(), Bs.data(), C[t].data(), t);
	}
	// each wavefront's instructions by the ISA
	delta.assign(threads, {});
	const int ra = INST::ra, rb = INST::rb;
	for (int w = 0; w < threads / LANES; w++) {
		size_t calls = rec_a[w * LANES].size();
		for (int l = 0; l < LANES; l++)
			if (rec_a[w * LANES + l].size() != calls) {
				std::printf("wavefront %d: lane %d issues %zu MFMAs, lane 0 %zu\n", w, l, rec_a[w * LANES + l].size(),
				            calls);
				return 1;
			}
		for (size_t s = 0; s < calls; s++) {
			std::vector<double> a(INST::m * INST::k), b(INST::k * INST::n);
			for (int l = 0; l < LANES; l++)
				for (int j = 0; j < ra; j++) {
					a[(l % INST::m) * INST::k + ra * (l / INST::m) + j] = rec_a[w * LANES + l][s][j];
					b[(rb * (l / INST::n) + j) * INST::n + l % INST::n] = rec_b[w * LANES + l][s][j];
				}
			for (int l = 0; l < LANES; l++) {
				std::vector<double> d(INST::rc);
				for (int j = 0; j < INST::rc; j++) {
					int row, col;
					d_at(INST::m, l, j, &row, &col);
					for (int k = 0; k < INST::k; k++)
						d[j] += a[row * INST::k + k] * b[k * INST::n + col];
				}
				delta[w * LANES + l].push_back(d);
			}
		}
	}
	// pass 2: the same calls, now accumulating
	applying = true;
	for (int t = 0; t < threads; t++) {
		cur_lane = t;
		cur_call = 0;
		TLC_GEMM(As.data(), Bs.data(), C[t].data(), t);
	}
	// register r of thread t: tile (mi, ni) = r / rc of its wavefront's block (tlc_fragment_tile)
	int bad = 0;
	for (int t = 0; t < threads; t++)
		for (int r = 0; r < R; r++) {
			int g = t / LANES, lane = t % LANES, wm = g / TLC_WN, wn = g % TLC_WN, tile = r / INST::rc, row, col;
			d_at(INST::m, lane, r % INST::rc, &row, &col);
			int i = wm * (TLC_M / TLC_WM) + tile / NI * INST::m + row, j = wn * (TLC_N / TLC_WN) + tile % NI * INST::n + col;
			double want = 0;
			for (int k = 0; k < TLC_K; k++)
				want += A[i * TLC_K + k] * B[k * TLC_N + j];
			if (C[t][r] != (float)want && bad++ < 5)
				std::printf("thread %d register %d: %g, C[%d][%d] is %g\n", t, r, C[t][r], i, j, want);
		}
	std::printf("%s: %d of %d registers wrong\n", bad ? "FAIL" : "ok", bad, threads * R);
	return bad != 0;
}
