// gemm_helper_test.cu - numerics of the mma.sync tile GEMM helpers
// (backends/cuda/device/tlc_gemm.cuh) on a real GPU (sm_80 or newer).
//
//   nvcc -std=c++17 -arch=sm_90a tests/gpu/gemm_helper_test.cu -o t && ./t
//
// Every case runs one block: the operands are copied from global memory into
// shared memory through the case's stored layout (LayA / LayB), the
// accumulator is loaded from C0 by the documented register convention, the
// helper runs, and the registers are written out by the same convention into
// an output pre-filled with NaN.  The result must equal C0 + A * B computed in
// double on the host: the inputs are multiples of 1/8 in [-1, 1], so every
// product and partial sum is exact in float and the comparison is exact.
// The gemm runs on a thread group that may start at thread 32 (the first warp
// idles), to check that `thread` is taken relative to the group.
// One line per case (PASS / FAIL name max_err); exit status 1 on any failure.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../backends/cuda/device/tlc_mma_sync.cuh"
#include "../../backends/cuda/device/tlc_gemm.cuh"

#define CUDA_CHECK(x)                                                                          \
	do {                                                                                   \
		cudaError_t err_ = (x);                                                        \
		if (err_ != cudaSuccess) {                                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,             \
			        cudaGetErrorString(err_));                                     \
			exit(2);                                                               \
		}                                                                              \
	} while (0)

// ---- stored layouts of an (R, C) tile of 2-byte elements ----

// row-major with a row pitch of P >= C elements (P = C: dense; P odd: rows
// not 16-byte aligned, so only the element-wise path may read it)
template <int R, int C, int P = C>
struct Pitched {
	static constexpr int size = R * P;
	static constexpr bool aligned8 = P % 8 == 0;
	static __device__ __host__ __forceinline__ int off(int r, int c) { return r * P + c; }
	static std::string name() { return P == C ? "rowmajor" : "pitch" + std::to_string(P); }
};

// the swizzled layout of include/tlc/layout.h, W bytes wide
template <int R, int C, int W>
struct Swizzled {
	static_assert(W == 32 || W == 64 || W == 128, "swizzle width");
	static_assert((C * 2) % W == 0, "a row must be a multiple of the swizzle width");
	static constexpr int size = R * C;
	static constexpr bool aligned8 = true;
	static __device__ __host__ __forceinline__ int off(int r, int c)
	{
		const int E = W / 2, V = 8;
		int cb = c / E, cc = c % E;
		int chunk = (cc / V) ^ (((r * W) >> 7) & (W / 16 - 1));
		return cb * (R * E) + r * E + chunk * V + cc % V;
	}
	static std::string name() { return "swz" + std::to_string(W); }
};

// widest swizzle a row of C 2-byte elements allows (0: none)
constexpr int widest_swizzle(int c)
{
	return (c * 2) % 128 == 0 ? 128 : (c * 2) % 64 == 0 ? 64 : (c * 2) % 32 == 0 ? 32 : 0;
}

// layout kinds a case can ask for
enum { L_ROW, L_SWZ, L_ODD };

template <int K, int R, int C>
struct PickLayout;
template <int R, int C>
struct PickLayout<L_ROW, R, C> {
	using type = Pitched<R, C>;
};
template <int R, int C>
struct PickLayout<L_ODD, R, C> {
	using type = Pitched<R, C, C + 1>;
};
template <int R, int C, bool SW>
struct PickSwz {
	using type = Swizzled<R, C, widest_swizzle(C)>;
};
template <int R, int C>
struct PickSwz<R, C, false> {
	using type = Pitched<R, C, C + 8>; // still 16-byte aligned runs, but not dense
};
template <int R, int C>
struct PickLayout<L_SWZ, R, C> {
	using type = typename PickSwz<R, C, widest_swizzle(C) != 0>::type;
};

// ---- the kernel ----

template <typename T>
__device__ __host__ inline float to_f(T x);
template <>
__device__ __host__ inline float to_f(__half x) { return __half2float(x); }
template <>
__device__ __host__ inline float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

// gA: logical A [M][K], gB: logical B [K][N], gC0 / gC: [M][N], all row-major.
template <int M, int N, int K, int WM, int WN, bool TA, bool TB, bool LA, bool LB, bool RS, typename T,
          class LayA, class LayB>
__global__ void gemm_kernel(const T *gA, const T *gB, const float *gC0, float *gC, int group_start)
{
	extern __shared__ __align__(1024) unsigned char smem[];
	T *sA = reinterpret_cast<T *>(smem);
	T *sB = sA + ((LayA::size + 511) / 512) * 512; // keep B 1024-byte aligned too
	const int nthreads = blockDim.x;
	// stored A is [K][M] when TA; stored B is [N][K] when TB
	for (int i = threadIdx.x; i < M * K; i += nthreads) {
		int m = i / K, k = i % K;
		if (TA)
			sA[LayA::off(k, m)] = gA[i];
		else
			sA[LayA::off(m, k)] = gA[i];
	}
	for (int i = threadIdx.x; i < K * N; i += nthreads) {
		int k = i / N, n = i % N;
		if (TB)
			sB[LayB::off(n, k)] = gB[i];
		else
			sB[LayB::off(k, n)] = gB[i];
	}
	__syncthreads();
	if ((int)threadIdx.x < group_start)
		return;
	const int thread = threadIdx.x - group_start;
	const int warp = thread / 32, lane = thread % 32, g = lane / 4, q = lane % 4;
	const int wm = warp / WN, wn = warp % WN;
	constexpr int MI = M / WM / 16, NI = N / WN / 8, KI = K / 16;
	const int m0 = wm * (M / WM), n0 = wn * (N / WN);

	float acc[MI * NI * 4];
#pragma unroll
	for (int mi = 0; mi < MI; mi++)
#pragma unroll
		for (int ni = 0; ni < NI; ni++)
#pragma unroll
			for (int h = 0; h < 2; h++)
#pragma unroll
				for (int e = 0; e < 2; e++)
					acc[(mi * NI + ni) * 4 + h * 2 + e] =
					        gC0[(m0 + mi * 16 + h * 8 + g) * N + n0 + ni * 8 + 2 * q + e];

	if constexpr (RS) {
		T areg[MI * KI * 8];
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
#pragma unroll
			for (int ki = 0; ki < KI; ki++)
#pragma unroll
				for (int hc = 0; hc < 2; hc++)
#pragma unroll
					for (int hr = 0; hr < 2; hr++)
#pragma unroll
						for (int e = 0; e < 2; e++)
							areg[(mi * KI + ki) * 8 + hc * 4 + hr * 2 + e] =
							        gA[(m0 + mi * 16 + hr * 8 + g) * K + ki * 16 + hc * 8 +
							           2 * q + e];
		tlc::gemm_rs<M, N, K, WM, WN, TB, LB, T, LayB>(areg, sB, acc, thread);
	} else {
		tlc::gemm_ss<M, N, K, WM, WN, TA, TB, LA, LB, T, LayA, LayB>(sA, sB, acc, thread);
	}

#pragma unroll
	for (int mi = 0; mi < MI; mi++)
#pragma unroll
		for (int ni = 0; ni < NI; ni++)
#pragma unroll
			for (int h = 0; h < 2; h++)
#pragma unroll
				for (int e = 0; e < 2; e++)
					gC[(m0 + mi * 16 + h * 8 + g) * N + n0 + ni * 8 + 2 * q + e] =
					        acc[(mi * NI + ni) * 4 + h * 2 + e];
}

// ---- the host side ----

static int n_pass, n_fail;

static float rand_eighth(unsigned &s)
{
	s = s * 1664525u + 1013904223u;
	return (float)((int)((s >> 8) % 17) - 8) / 8.0f;
}

template <typename T>
T from_f(float x);
template <>
__half from_f(float x) { return __float2half(x); }
template <>
__nv_bfloat16 from_f(float x) { return __float2bfloat16(x); }

template <int M, int N, int K, int WM, int WN, bool TA, bool TB, int KA, int KB, bool RS, typename T>
static void run_case(const char *tname)
{
	// ldmatrix needs aligned runs of 8: the odd-pitch layout only runs element-wise
	constexpr bool LA = KA != L_ODD, LB = KB != L_ODD;
	using LayA = typename PickLayout<KA, TA ? K : M, TA ? M : K>::type;
	using LayB = typename PickLayout<KB, TB ? N : K, TB ? K : N>::type;
	static_assert(!LA || LayA::aligned8, "ldmatrix on an unaligned layout");
	static_assert(!LB || LayB::aligned8, "ldmatrix on an unaligned layout");
	const int group_start = (KA + KB + TA + TB) % 2 ? 32 : 0; // vary it over the cases
	char name[256];
	snprintf(name, sizeof name, "%s_%s M%d N%d K%d warps%dx%d %s%s A:%s%s B:%s%s start%d", RS ? "rs" : "ss", tname,
	         M, N, K, WM, WN, TA ? "T" : "N", TB ? "T" : "N", RS ? "regs" : LayA::name().c_str(),
	         RS ? "" : (LA ? "/ldm" : "/scalar"), LayB::name().c_str(), LB ? "/ldm" : "/scalar", group_start);

	unsigned seed = 12345u + M * 7u + N * 13u + K * 17u + TA * 3u + TB * 5u + KA * 11u + KB * 19u;
	std::vector<T> hA(M * K), hB(K * N);
	std::vector<float> fA(M * K), fB(K * N), hC0(M * N), hC(M * N);
	for (int i = 0; i < M * K; i++)
		hA[i] = from_f<T>(fA[i] = rand_eighth(seed));
	for (int i = 0; i < K * N; i++)
		hB[i] = from_f<T>(fB[i] = rand_eighth(seed));
	for (int i = 0; i < M * N; i++)
		hC0[i] = rand_eighth(seed) * 4.0f;

	T *dA, *dB;
	float *dC0, *dC;
	CUDA_CHECK(cudaMalloc(&dA, M * K * sizeof(T)));
	CUDA_CHECK(cudaMalloc(&dB, K * N * sizeof(T)));
	CUDA_CHECK(cudaMalloc(&dC0, M * N * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
	CUDA_CHECK(cudaMemcpy(dA, hA.data(), M * K * sizeof(T), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(dB, hB.data(), K * N * sizeof(T), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(dC0, hC0.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dC, 0xff, M * N * sizeof(float))); // all NaN

	size_t smem = (((LayA::size + 511) / 512) * 512 + LayB::size) * sizeof(T);
	auto kern = gemm_kernel<M, N, K, WM, WN, TA, TB, LA, LB, RS, T, LayA, LayB>;
	CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	kern<<<1, WM * WN * 32 + group_start, smem>>>(dA, dB, dC0, dC, group_start);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(hC.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));

	double max_err = 0;
	bool bad = false, any_nonzero = false, any_product = false;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			double prod = 0;
			for (int k = 0; k < K; k++)
				prod += (double)fA[m * K + k] * (double)fB[k * N + n];
			double want = hC0[m * N + n] + prod, got = hC[m * N + n];
			double err = std::fabs(got - want);
			if (!(err <= 1e-6)) // NaN (an element never written) fails too
				bad = true;
			if (err > max_err || std::isnan(err))
				max_err = err;
			any_nonzero |= got != 0;
			any_product |= prod != 0;
		}
	// a case whose products are all zero could not tell a skipped mma from a run one
	if (!any_nonzero || !any_product)
		bad = true;
	if (bad) {
		n_fail++;
		printf("FAIL %s %g\n", name, max_err);
	} else {
		n_pass++;
		printf("PASS %s %g\n", name, max_err);
	}
	fflush(stdout);
	cudaFree(dA);
	cudaFree(dB);
	cudaFree(dC0);
	cudaFree(dC);
}

// every transpose combination and layout kind pair for one shape and type
template <int M, int N, int K, int WM, int WN, bool TA, bool TB, typename T>
static void run_layouts(const char *tname)
{
	run_case<M, N, K, WM, WN, TA, TB, L_ROW, L_ROW, false, T>(tname);
	run_case<M, N, K, WM, WN, TA, TB, L_SWZ, L_SWZ, false, T>(tname);
	run_case<M, N, K, WM, WN, TA, TB, L_ODD, L_ODD, false, T>(tname);
	run_case<M, N, K, WM, WN, TA, TB, L_SWZ, L_ODD, false, T>(tname);
	run_case<M, N, K, WM, WN, TA, TB, L_ODD, L_SWZ, false, T>(tname);
	if (!TA) { // gemm_rs has no A layout: run it once per B layout
		run_case<M, N, K, WM, WN, false, TB, L_ROW, L_ROW, true, T>(tname);
		run_case<M, N, K, WM, WN, false, TB, L_ROW, L_SWZ, true, T>(tname);
		run_case<M, N, K, WM, WN, false, TB, L_ROW, L_ODD, true, T>(tname);
	}
}

template <int M, int N, int K, int WM, int WN, typename T>
static void run_shape(const char *tname)
{
	run_layouts<M, N, K, WM, WN, false, false, T>(tname);
	run_layouts<M, N, K, WM, WN, false, true, T>(tname);
	run_layouts<M, N, K, WM, WN, true, false, T>(tname);
	run_layouts<M, N, K, WM, WN, true, true, T>(tname);
}

template <typename T>
static void run_type(const char *tname)
{
	run_shape<64, 64, 32, 2, 2, T>(tname);   // MI 2, NI 4: the x4 B pairs
	run_shape<32, 16, 64, 1, 2, T>(tname);   // NI 1: the x2 B load; 4 k steps
	run_shape<128, 64, 32, 4, 1, T>(tname);  // MI 2, NI 8, 4 warps along M
	run_shape<16, 24, 16, 1, 1, T>(tname);   // NI 3: a pair and a single; 24 has no swizzle
	run_shape<64, 128, 64, 2, 4, T>(tname);  // 8 warps, 128B swizzles on every operand
}

int main()
{
	int dev = 0;
	cudaDeviceProp prop;
	if (cudaGetDeviceCount(&dev) != cudaSuccess || dev == 0) {
		printf("no CUDA device: skipped\n");
		return 77;
	}
	CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
	if (prop.major < 8) {
		printf("%s is sm_%d%d: mma.sync m16n8k16 needs sm_80: skipped\n", prop.name, prop.major, prop.minor);
		return 77;
	}
	printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
	run_type<__half>("f16");
	run_type<__nv_bfloat16>("bf16");
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
