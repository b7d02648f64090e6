// wgmma_helper_test.cu - numerics of the Hopper WGMMA tile GEMM helpers
// (backends/cuda/device/tlc_wgmma.cuh) on a real GPU (sm_90a: H100 / H200).
//
//   nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/wgmma_helper_test.cu -o t && ./t
//
// Every case runs one block: the operands are copied element by element from
// global memory into shared memory through the stored layout the header
// documents (TRANS_A ? [K][M] : [M][K], TRANS_B ? [N][K] : [K][N], swizzled in
// column blocks of SWZ bytes, or plain row-major for SWZ 0), the accumulator
// is loaded from C0 by the documented register convention (and, for the rs
// form, A_regs from A by the documented A fragment), the helper issues, the
// kernel waits (wgmma_wait<0> then wgmma_fence_operand) and writes the
// registers out by the same convention into an output pre-filled with NaN.
// The result must equal C0 + A * B (A * B when accumulate is false) computed
// in double on the host: the inputs are multiples of 1/8 in [-1, 1], exact in
// f16, bf16, e4m3 and e5m2, so every product and partial sum is exact in
// float and the comparison is exact.  Some cases run the gemm on a thread
// group that starts at thread 128 (the first warpgroup idles), to check that
// `thread` is taken relative to the group.
// One line per case (PASS / FAIL name max_err); exit status 1 on any failure.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../backends/cuda/device/tlc_wgmma.cuh"

#define CUDA_CHECK(x)                                                                          \
	do {                                                                                   \
		cudaError_t err_ = (x);                                                        \
		if (err_ != cudaSuccess) {                                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,             \
			        cudaGetErrorString(err_));                                     \
			exit(2);                                                               \
		}                                                                              \
	} while (0)

// ---- the stored layout (the header's formula) ----

// byte offset of element (r, c) of a stored (R, CC) array of b-byte elements
// with a swizzle of W bytes (0: plain row-major)
__host__ __device__ inline int stored_off(int r, int c, int R, int CC, int b, int W)
{
	if (W == 0)
		return (r * CC + c) * b;
	const int E = W / b, p = c / E, cc = c % E;
	return p * R * W + r * W + ((((cc * b) / 16) ^ (((r * W) >> 7) & (W / 16 - 1))) * 16) + (cc * b) % 16;
}

// ---- one case ----

template <int M_, int N_, int K_, int WGM_, int WGN_, bool TA_, bool TB_, int SWA_, int SWB_, bool RS_, typename EA_,
          typename EB_, int START_ = 0, bool ACC_ = true>
struct Case {
	static constexpr int M = M_, N = N_, K = K_, WGM = WGM_, WGN = WGN_, SWA = SWA_, SWB = SWB_, START = START_;
	static constexpr bool TA = TA_, TB = TB_, RS = RS_, ACC = ACC_;
	using EA = EA_;
	using EB = EB_;
	static constexpr int threads = START + WGM * WGN * 128;
	static constexpr int MW = M / WGM, NW = N / WGN, MI = MW / 64;
	static constexpr int KS = 32 / (int)sizeof(EA), KI = K / KS, EPR = 4 / (int)sizeof(EA);
	static constexpr int a_bytes = (M * K * (int)sizeof(EA) + 1023) / 1024 * 1024; // keeps B 1024-aligned
	static constexpr int b_bytes = K * N * (int)sizeof(EB);
	static constexpr int smem = 1024 + a_bytes + b_bytes; // + 1024 to align the base ourselves
};

template <typename T>
__host__ __device__ inline uint32_t raw_bits(T x)
{
	uint32_t v = 0;
	memcpy(&v, &x, sizeof(T));
	return v;
}

// gA: logical A [M][K], gB: logical B [K][N], gC0 / gC: [M][N], all row-major.
template <class CS>
__global__ void __launch_bounds__(CS::threads) wgmma_kernel(const typename CS::EA *gA, const typename CS::EB *gB,
                                                             const float *gC0, float *gC)
{
	using EA = typename CS::EA;
	using EB = typename CS::EB;
	constexpr int M = CS::M, N = CS::N, K = CS::K, MW = CS::MW, NW = CS::NW, MI = CS::MI, KI = CS::KI,
	              KS = CS::KS, EPR = CS::EPR;
	extern __shared__ unsigned char smem_raw[];
	// the dynamic shared window need not start on 1024 bytes: align it here
	const unsigned s0 = (unsigned)__cvta_generic_to_shared(smem_raw);
	unsigned char *base = smem_raw + ((1024 - (s0 & 1023)) & 1023);
	EA *sA = reinterpret_cast<EA *>(base);
	EB *sB = reinterpret_cast<EB *>(base + CS::a_bytes);
	const int nthreads = blockDim.x;
	for (int i = threadIdx.x; i < M * K; i += nthreads) {
		int m = i / K, k = i % K;
		int off = CS::TA ? stored_off(k, m, K, M, sizeof(EA), CS::SWA)
		                 : stored_off(m, k, M, K, sizeof(EA), CS::SWA);
		sA[off / (int)sizeof(EA)] = gA[i];
	}
	for (int i = threadIdx.x; i < K * N; i += nthreads) {
		int k = i / N, n = i % N;
		int off = CS::TB ? stored_off(n, k, N, K, sizeof(EB), CS::SWB)
		                 : stored_off(k, n, K, N, sizeof(EB), CS::SWB);
		sB[off / (int)sizeof(EB)] = gB[i];
	}
	// generic-proxy stores, read by wgmma (the async proxy)
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	if ((int)threadIdx.x < CS::START)
		return;
	const int thread = threadIdx.x - CS::START;
	const int g = thread / 128, wm = g / CS::WGN, wn = g % CS::WGN;
	const int t = thread % 128, w = t / 32, l = t % 32;

	float acc[MI * NW / 2];
#pragma unroll
	for (int mi = 0; mi < MI; mi++)
#pragma unroll
		for (int r = 0; r < NW / 2; r++) {
			int row = wm * MW + 64 * mi + 16 * w + l / 4 + 8 * ((r / 2) % 2);
			int col = wn * NW + 8 * (r / 4) + 2 * (l % 4) + r % 2;
			acc[mi * (NW / 2) + r] = gC0[row * N + col];
		}

	if constexpr (CS::RS) {
		uint32_t areg[MI * KI * 4];
#pragma unroll
		for (int mi = 0; mi < MI; mi++)
#pragma unroll
			for (int ki = 0; ki < KI; ki++)
#pragma unroll
				for (int j = 0; j < 4; j++) {
					uint32_t v = 0;
					int row = wm * MW + 64 * mi + 16 * w + l / 4 + 8 * (j % 2);
#pragma unroll
					for (int e = 0; e < EPR; e++) {
						int col = ki * KS + (KS / 2) * (j / 2) + EPR * (l % 4) + e;
						v |= raw_bits(gA[row * K + col]) << (8 * (int)sizeof(EA) * e);
					}
					areg[(mi * KI + ki) * 4 + j] = v;
				}
		tlc::wgmma_gemm_rs<M, N, K, CS::WGM, CS::WGN, CS::TB, CS::SWB, EA>(areg, sB, acc, thread, CS::ACC);
	} else {
		tlc::wgmma_gemm_ss<M, N, K, CS::WGM, CS::WGN, CS::TA, CS::TB, CS::SWA, CS::SWB>(sA, sB, acc, thread,
		                                                                              CS::ACC);
	}
	tlc::wgmma_wait<0>();
	tlc::wgmma_fence_operand(acc);

#pragma unroll
	for (int mi = 0; mi < MI; mi++)
#pragma unroll
		for (int r = 0; r < NW / 2; r++) {
			int row = wm * MW + 64 * mi + 16 * w + l / 4 + 8 * ((r / 2) % 2);
			int col = wn * NW + 8 * (r / 4) + 2 * (l % 4) + r % 2;
			gC[row * N + col] = acc[mi * (NW / 2) + r];
		}
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
template <>
__nv_fp8_e4m3 from_f(float x) { return __nv_fp8_e4m3(x); }
template <>
__nv_fp8_e5m2 from_f(float x) { return __nv_fp8_e5m2(x); }

template <typename T>
float to_f(T x) { return (float)x; }
template <>
float to_f(__half x) { return __half2float(x); }
template <>
float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
const char *type_name();
template <>
const char *type_name<__half>() { return "f16"; }
template <>
const char *type_name<__nv_bfloat16>() { return "bf16"; }
template <>
const char *type_name<__nv_fp8_e4m3>() { return "e4m3"; }
template <>
const char *type_name<__nv_fp8_e5m2>() { return "e5m2"; }

template <class CS>
static void run_case(const char *note = "")
{
	using EA = typename CS::EA;
	using EB = typename CS::EB;
	constexpr int M = CS::M, N = CS::N, K = CS::K;
	char name[256];
	char alay[64];
	if (CS::RS)
		snprintf(alay, sizeof alay, "regs");
	else
		snprintf(alay, sizeof alay, "%s/swz%d", CS::TA ? "[K][M]" : "[M][K]", CS::SWA);
	snprintf(name, sizeof name, "%s_%s%s%s M%d N%d K%d wg%dx%d A:%s B:%s/swz%d start%d%s%s",
	         CS::RS ? "rs" : "ss", type_name<EA>(), sizeof(EA) == 1 ? "x" : "",
	         sizeof(EA) == 1 ? type_name<EB>() : "", M, N, K, CS::WGM, CS::WGN, alay,
	         CS::TB ? "[N][K]" : "[K][N]", CS::SWB, CS::START, CS::ACC ? "" : " overwrite", note);

	unsigned seed = 12345u + M * 7u + N * 13u + K * 17u + CS::TA * 3u + CS::TB * 5u + CS::SWA * 11u +
	                CS::SWB * 19u + CS::RS * 23u + sizeof(EA) * 29u;
	std::vector<EA> hA(M * K);
	std::vector<EB> hB(K * N);
	std::vector<float> fA(M * K), fB(K * N), hC0(M * N), hC(M * N);
	bool inexact = false;
	for (int i = 0; i < M * K; i++) {
		hA[i] = from_f<EA>(fA[i] = rand_eighth(seed));
		inexact |= to_f(hA[i]) != fA[i];
	}
	for (int i = 0; i < K * N; i++) {
		hB[i] = from_f<EB>(fB[i] = rand_eighth(seed));
		inexact |= to_f(hB[i]) != fB[i];
	}
	for (int i = 0; i < M * N; i++)
		hC0[i] = rand_eighth(seed) * 4.0f;

	EA *dA;
	EB *dB;
	float *dC0, *dC;
	CUDA_CHECK(cudaMalloc(&dA, M * K * sizeof(EA)));
	CUDA_CHECK(cudaMalloc(&dB, K * N * sizeof(EB)));
	CUDA_CHECK(cudaMalloc(&dC0, M * N * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&dC, M * N * sizeof(float)));
	CUDA_CHECK(cudaMemcpy(dA, hA.data(), M * K * sizeof(EA), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(dB, hB.data(), K * N * sizeof(EB), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(dC0, hC0.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dC, 0xff, M * N * sizeof(float))); // all NaN

	auto kern = wgmma_kernel<CS>;
	CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, CS::smem));
	kern<<<1, CS::threads, CS::smem>>>(dA, dB, dC0, dC);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(hC.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));

	double max_err = 0;
	bool bad = inexact, any_nonzero = false, any_product = false;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			double prod = 0;
			for (int k = 0; k < K; k++)
				prod += (double)fA[m * K + k] * (double)fB[k * N + n];
			double want = (CS::ACC ? hC0[m * N + n] : 0.0) + prod, got = hC[m * N + n];
			double err = std::fabs(got - want);
			if (!(err <= 1e-6)) // NaN (an element never written) fails too
				bad = true;
			if (err > max_err || std::isnan(err))
				max_err = err;
			any_nonzero |= got != 0;
			any_product |= prod != 0;
		}
	// a case whose products are all zero could not tell a skipped wgmma from a run one
	if (!any_nonzero || !any_product)
		bad = true;
	if (bad) {
		n_fail++;
		printf("FAIL %s %g%s\n", name, max_err, inexact ? " (inputs not exact in the element type)" : "");
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

// Case<M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, SWZ_A, SWZ_B, RS, TA, TB, START, ACC>

// every transpose combination with the same swizzle on both operands
template <typename T, int W, int START>
static void run_transposes()
{
	run_case<Case<64, 64, 64, 1, 1, false, false, W, W, false, T, T, START>>();
	run_case<Case<64, 64, 64, 1, 1, false, true, W, W, false, T, T, 0>>();
	run_case<Case<64, 64, 64, 1, 1, true, false, W, W, false, T, T, 0>>();
	run_case<Case<64, 64, 64, 1, 1, true, true, W, W, false, T, T, START>>();
}

template <typename T>
static void run_16bit()
{
	// layouts: K-major and MN-major with each swizzle (64-element rows: 128 bytes)
	run_transposes<T, 128, 0>();
	run_transposes<T, 64, 128>();
	run_transposes<T, 32, 0>();
	// shapes and warpgroup grids
	run_case<Case<128, 128, 32, 2, 1, false, true, 64, 64, false, T, T>>();       // 64-byte K rows, 2 wg along M
	run_case<Case<128, 128, 32, 2, 1, true, false, 128, 128, false, T, T, 128>>(); // MN-major: 2 blocks
	run_case<Case<256, 128, 16, 2, 1, false, true, 32, 32, false, T, T>>();       // K16: 32B only; MI 2
	run_case<Case<256, 64, 64, 1, 1, true, true, 32, 128, false, T, T>>();        // A M-major 32B: 4 atoms; MI 4
	run_case<Case<64, 256, 32, 1, 1, false, false, 64, 128, false, T, T>>();      // N 256, B N-major 4 atoms (LBO)
	run_case<Case<128, 256, 16, 1, 2, true, false, 64, 64, false, T, T, 128>>(); // 2 wg along N, MI 2
	run_case<Case<64, 128, 64, 1, 2, false, true, 128, 64, false, T, T, 128>>();  // 2 wg along N, K-major B
	run_case<Case<64, 8, 32, 1, 1, false, false, 64, 0, false, T, T>>();          // N 8: B [K][8] without swizzle
	run_case<Case<128, 8, 16, 2, 1, true, false, 128, 0, false, T, T, 128>>();    // the same, M-major A
	run_case<Case<64, 8, 64, 1, 1, false, true, 128, 128, false, T, T>>();        // N 8, K-major B
	run_case<Case<64, 16, 32, 1, 2, false, false, 64, 32, false, T, T>>(" (B start mid-row)");
	run_case<Case<64, 64, 16, 1, 2, true, false, 128, 128, false, T, T, 128>>(" (B start mid-row)");
	run_case<Case<64, 64, 32, 1, 1, false, true, 64, 64, false, T, T, 0, false>>(); // accumulate = false
	// A in registers
	run_case<Case<64, 64, 64, 1, 1, false, true, 0, 128, true, T, T>>();
	run_case<Case<64, 128, 32, 1, 1, false, false, 0, 64, true, T, T>>();
	run_case<Case<128, 64, 32, 2, 1, false, true, 0, 64, true, T, T, 128>>();
	run_case<Case<64, 8, 32, 1, 1, false, false, 0, 0, true, T, T>>();
	run_case<Case<128, 128, 16, 1, 2, false, false, 0, 128, true, T, T, 128>>();
	run_case<Case<64, 64, 32, 1, 1, false, false, 0, 32, true, T, T, 0, false>>(); // accumulate = false
}

static void run_fp8()
{
	using E4 = __nv_fp8_e4m3;
	using E5 = __nv_fp8_e5m2;
	run_case<Case<64, 64, 128, 1, 1, false, true, 128, 128, false, E4, E4>>();
	run_case<Case<128, 128, 64, 2, 1, false, true, 64, 64, false, E5, E5, 128>>();
	run_case<Case<64, 256, 32, 1, 1, false, true, 32, 32, false, E4, E5>>();
	run_case<Case<64, 128, 128, 1, 2, false, true, 128, 64, false, E5, E4, 128>>();
	run_case<Case<64, 8, 64, 1, 1, false, true, 64, 64, false, E4, E4>>();
	run_case<Case<64, 64, 64, 1, 1, false, true, 64, 64, false, E4, E4, 0, false>>(); // accumulate = false
	run_case<Case<64, 64, 64, 1, 1, false, true, 0, 64, true, E4, E4>>();
	run_case<Case<128, 64, 128, 2, 1, false, true, 0, 128, true, E5, E4, 128>>();
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
	if (prop.major != 9) {
		printf("%s is sm_%d%d: wgmma needs sm_90a: skipped\n", prop.name, prop.major, prop.minor);
		return 77;
	}
	printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
	run_16bit<__half>();
	run_16bit<__nv_bfloat16>();
	run_fp8();
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
