// tlc_mfma.hip.h - the MFMA gemm of tlc's hip target (AMD CDNA), pasted
// into generated .hip sources that use T.gemm.
//
// There is no ldmatrix on AMD: each lane of a wavefront (64 lanes) reads the
// elements of its MFMA operands from LDS itself.  Which elements a lane
// holds is not written here: the hip target prints, per gemm, a struct I
// from its description's fragments (I::a::row / col (lane, j) for A's
// element j, I::b likewise, and I::run, the __builtin_amdgcn_mfma_* call),
// and the layout functors of the shared operands (L::off(r, c)).  It also
// checked that each run of V elements a lane reads is contiguous and
// aligned in LDS, so V elements are read at once (ds_read_b64 / b128).
//
// A block of tid threads: wavefront g = tid / 64 is group (wm, wn) =
// (g / WN, g % WN) of a WM x WN grid; it holds rows [wm M/WM, ...) and
// columns [wn N/WN, ...) of the M x N accumulator as MI x NI instruction
// tiles, tile (mi, ni)'s registers at C[(mi NI + ni) I::rc + j] (the
// layout algebra's tlc_fragment_tile, as lowering and tlc-sim read them).
// A in registers (mfma_gemm_rs): tile (mi, ki)'s at A[(mi KI + ki) I::ra + j].

namespace tlc {

template <int BYTES> struct mfma_chunk;
template <> struct mfma_chunk<1> { typedef unsigned char type; };
template <> struct mfma_chunk<2> { typedef unsigned short type; };
template <> struct mfma_chunk<4> { typedef unsigned int type; };
template <> struct mfma_chunk<8> { typedef unsigned int type __attribute__((ext_vector_type(2))); };
template <> struct mfma_chunk<16> { typedef unsigned int type __attribute__((ext_vector_type(4))); };

// Lane `lane`'s elements of one operand tile for P instructions along K
// (k_pack): element j of instruction p is the atom's element j with its k
// coordinate c (the column of A, the row of B; c - j is a multiple of R)
// moved to P (c - j) + p R + j, so that a lane's P R elements are
// consecutive in k.  Logical (r, c) (A: (m, k); B: (k, n)) sits at
// L::off(r, c) from base, or at L::off(c, r) when stored transposed.
template <int R, int P, int V, int KDIM, bool TRANS, class L, class Map, class T>
__device__ __forceinline__ void mfma_load(const T *base, int lane, int row0, int col0, T *dst)
{
	typedef typename mfma_chunk<V * (int)sizeof(T)>::type chunk;
#pragma unroll
	for (int e = 0; e < R * P; e += V) {
		const int j = e % R;
		int r = Map::row(lane, j), c = Map::col(lane, j);
		if (KDIM == 1)
			c = P * (c - j) + e;
		else
			r = P * (r - j) + e;
		const int off = TRANS ? L::off(col0 + c, row0 + r) : L::off(row0 + r, col0 + c);
		*reinterpret_cast<chunk *>(&dst[e]) = *reinterpret_cast<const chunk *>(&base[off]);
	}
}

// One step of P instructions along K: B's tiles from LDS, then every
// product of the wavefront's MI x NI tiles; a_of(mi) is A's tile mi of the
// step (P instructions' elements, each instruction's ra of them in turn).
template <int N, int WN, int MI, int NI, int P, bool TB, int VB, class I, class LB, class T, class Acc, class AOf>
__device__ __forceinline__ void mfma_k_step(AOf a_of, const T *B, Acc *C, int lane, int wn, int kg)
{
	T b[NI][I::rb * P];
#pragma unroll
	for (int ni = 0; ni < NI; ni++)
		mfma_load<I::rb, P, VB, 0, TB, LB, typename I::b>(B, lane, kg * P * I::k, wn * (N / WN) + ni * I::n, b[ni]);
#pragma unroll
	for (int p = 0; p < P; p++)
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
#pragma unroll
			for (int ni = 0; ni < NI; ni++)
				I::run(a_of(mi) + p * I::ra, &b[ni][p * I::rb], &C[(mi * NI + ni) * I::rc]);
}

// C += A B with A (M x K) and B (K x N) in LDS; P = k_pack.
template <int M, int N, int K, int WM, int WN, int P, bool TA, bool TB, int VA, int VB, class I, class LA, class LB,
          class T, class Acc>
__device__ __forceinline__ void mfma_gemm_ss(const T *A, const T *B, Acc *C, int tid)
{
	constexpr int MI = M / WM / I::m, NI = N / WN / I::n, KG = K / I::k / P;
	const int lane = tid % 64, group = tid / 64, wm = group / WN, wn = group % WN;
#pragma unroll
	for (int kg = 0; kg < KG; kg++) {
		T a[MI][I::ra * P];
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
			mfma_load<I::ra, P, VA, 1, TA, LA, typename I::a>(A, lane, wm * (M / WM) + mi * I::m, kg * P * I::k,
			                                                  a[mi]);
		mfma_k_step<N, WN, MI, NI, P, TB, VB, I, LB>([&](int mi) -> const T * { return a[mi]; }, B, C, lane, wn, kg);
	}
}

// C += A B with A in the wavefront's registers (tile (mi, ki) at
// A[(mi KI + ki) I::ra ..]) and B (K x N) in LDS.
template <int M, int N, int K, int WM, int WN, bool TB, int VB, class I, class LB, class T, class Acc>
__device__ __forceinline__ void mfma_gemm_rs(const T *A, const T *B, Acc *C, int tid)
{
	constexpr int MI = M / WM / I::m, NI = N / WN / I::n, KI = K / I::k;
	const int lane = tid % 64, wn = (tid / 64) % WN;
#pragma unroll
	for (int ki = 0; ki < KI; ki++)
		mfma_k_step<N, WN, MI, NI, 1, TB, VB, I, LB>([&](int mi) -> const T * { return &A[(mi * KI + ki) * I::ra]; },
		                                             B, C, lane, wn, ki);
}

} // namespace tlc
