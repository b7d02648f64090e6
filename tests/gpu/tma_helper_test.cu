// tma_helper_test.cu - the TMA and mbarrier helpers (backends/cuda/device/
// tlc_tma.cuh) and the tensor-map builder (tlc_tma_host.cuh) on a real GPU
// (sm_90 or newer).
//
//   nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a tests/gpu/tma_helper_test.cu
//        -o /tmp/tma_test -lcudart && timeout 300 /tmp/tma_test
//
// No -lcuda: the test also checks that the host header needs only cudart.
//
// Cases:
//   host_*      tlc_tma_encode's precondition checks: each bad argument gives
//               its documented cudaError_t and a message naming the tensor
//               and the failed condition (no GPU needed: they run first).
//   load_*      a TMA load of one box into shared memory (poisoned first),
//               dumped byte for byte; every element must sit where the
//               swizzled layout formula of include/tlc/layout.h says
//                 r*W + (((c*b)/16) ^ (((r*W) >> 7) & (W/16 - 1)))*16 + (c*b)%16
//               (r: the box row, all outer box indices flattened row-major),
//               with the global value, or 0 where the box leaves the tensor
//               (the padding bytes past a row's last element are nonzero
//               in global memory, so reading them would show).
//   store_*     a TMA store of a shared box (written by ordinary stores in
//               the swizzled layout, then fence_proxy_async_shared) into a
//               global tensor poisoned with 0xFF: the in-range elements take
//               the box's values, everything else (out-of-range parts of the
//               box, row padding) keeps the poison, except the overhang:
//               TMA stores write whole 16-byte chunks along dimension 0, so
//               in each in-range row the bytes from dims[0] * element size
//               up to the next multiple of 16 (tlc_tma_store_overhang_bytes)
//               may take the box's values for those columns instead (each
//               byte: poison or the box's byte; the PASS line counts the
//               overhang elements written).  A mismatch names the element
//               of the first bad byte and whether it is inside the tensor.
//   parity      mbar_try_wait's phase-parity answers after init, after each
//               completed phase and while an expect_tx is pending.
//   mixed       one barrier completed by 32 threads' cp.async (through
//               cp_async_mbar_arrive_noinc) and a TMA load (mbar_expect_tx +
//               mbar_arrive).
//   pipeline    a 3-stage ring of full/empty barriers: one producer lane
//               (picked by elect_one) loads tile k into stage k % 3, 128
//               consumer threads wait with parity (k / 3) & 1, copy and sum
//               the tile, release the stage; 10 and 1000 tiles.
//   elect_one   exactly one lane per warp.
// Box origins follow the rules of tlc_tma.cuh ("Box origins and the
// tensor's edges"): the inner coordinate times the element size a multiple
// of 16 bytes (PTX ISA 5.5.3.1), store origins never negative (CUDA
// Programming Guide; a negative one traps: "illegal instruction").  Cases
// that break them are undefined behaviour, not tests: run_load / run_store
// refuse such a case (FAIL "invalid case") instead of launching it.
// Data is random and never zero; outputs are poisoned first.  Waits in the
// single-shot cases give up after 2 s and report a timeout instead of
// hanging; the pipeline uses tlc::mbar_wait itself (run under `timeout`).
// Each device case prints "RUN  name" (flushed) before its first launch, so
// that a kernel that kills the context is named by the last RUN line (and by
// the CUDA error message, which names the running case); then one line per
// case (PASS / FAIL name detail).  Exit status 1 on any failure, 2 on a CUDA
// error, 77 when there is no usable GPU (after the host cases).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../backends/cuda/device/tlc_tma.cuh"
#include "../../backends/cuda/device/tlc_tma_host.cuh"

static std::string current_case = "(none)"; // the case whose kernels run now

#define CUDA_CHECK(x)                                                                          \
	do {                                                                                   \
		cudaError_t err_ = (x);                                                        \
		if (err_ != cudaSuccess) {                                                     \
			fflush(stdout);                                                        \
			fprintf(stderr, "%s:%d: %s: %s (in case %s)\n", __FILE__, __LINE__, #x, \
			        cudaGetErrorString(err_), current_case.c_str());               \
			exit(2);                                                               \
		}                                                                              \
	} while (0)

static int n_pass, n_fail;

// Names the case before anything of it runs on the device.
static void begin_case(const std::string &name)
{
	current_case = name;
	printf("RUN  %s\n", name.c_str());
	fflush(stdout);
}

static void report(bool ok, const std::string &name, const std::string &detail)
{
	if (ok)
		n_pass++;
	else
		n_fail++;
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : " ", detail.c_str());
	fflush(stdout);
}

static unsigned rng_state = 0x2545F491u;
static unsigned rnd()
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

// ---- device side ----

struct Coords {
	int c[5];
};

enum { ERR_TIMEOUT = 1, ERR_ALIGN = 2, ERR_DATA = 4 };

__device__ unsigned long long global_ns()
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// tlc::mbar_wait with a 2 s limit: false (and ERR_TIMEOUT) when it expires
__device__ bool bounded_wait(uint64_t *bar, uint32_t parity, int *err)
{
	unsigned long long t0 = global_ns();
	while (!tlc::mbar_try_wait(bar, parity)) {
		if (global_ns() - t0 > 2000000000ull) {
			atomicOr(err, ERR_TIMEOUT);
			return false;
		}
	}
	return true;
}

// the first 1024-byte aligned address (shared window) at or after p
__device__ unsigned char *align1024(unsigned char *p)
{
	unsigned a = (unsigned)__cvta_generic_to_shared(p);
	return p + ((1024u - (a & 1023u)) & 1023u);
}

template <int RANK>
__device__ __forceinline__ void issue_load(const CUtensorMap *map, uint64_t *bar, void *dst, const Coords &k)
{
	if constexpr (RANK == 1)
		tlc::tma_load<1>(map, bar, dst, k.c[0]);
	else if constexpr (RANK == 2)
		tlc::tma_load<2>(map, bar, dst, k.c[0], k.c[1]);
	else if constexpr (RANK == 3)
		tlc::tma_load<3>(map, bar, dst, k.c[0], k.c[1], k.c[2]);
	else if constexpr (RANK == 4)
		tlc::tma_load<4>(map, bar, dst, k.c[0], k.c[1], k.c[2], k.c[3]);
	else
		tlc::tma_load<5>(map, bar, dst, k.c[0], k.c[1], k.c[2], k.c[3], k.c[4]);
}

template <int RANK>
__device__ __forceinline__ void issue_store(const CUtensorMap *map, const void *src, const Coords &k)
{
	if constexpr (RANK == 1)
		tlc::tma_store<1>(map, src, k.c[0]);
	else if constexpr (RANK == 2)
		tlc::tma_store<2>(map, src, k.c[0], k.c[1]);
	else if constexpr (RANK == 3)
		tlc::tma_store<3>(map, src, k.c[0], k.c[1], k.c[2]);
	else if constexpr (RANK == 4)
		tlc::tma_store<4>(map, src, k.c[0], k.c[1], k.c[2], k.c[3]);
	else
		tlc::tma_store<5>(map, src, k.c[0], k.c[1], k.c[2], k.c[3], k.c[4]);
}

// One box into shared memory (poisoned with 0xEE first), dumped to out.
template <int RANK>
__global__ void load_kernel(const __grid_constant__ CUtensorMap map, Coords at, unsigned nbytes, unsigned char *out,
                            int *err)
{
	extern __shared__ unsigned char dyn[];
	__shared__ uint64_t bar;
	unsigned char *tile = align1024(dyn);
	for (unsigned i = threadIdx.x; i < nbytes; i += blockDim.x)
		tile[i] = 0xEE;
	tlc::fence_proxy_async_shared(); // the poison (generic) before the TMA's writes (async)
	if (threadIdx.x == 0) {
		tlc::mbar_init(&bar, 1);
		tlc::mbar_fence_init();
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		tlc::prefetch_tensor_map(&map);
		tlc::mbar_arrive_expect_tx(&bar, nbytes);
		issue_load<RANK>(&map, &bar, tile, at);
	}
	if (!bounded_wait(&bar, 0, err))
		return;
	for (unsigned i = threadIdx.x; i < nbytes; i += blockDim.x)
		out[i] = tile[i];
}

// A box written into shared memory by ordinary stores (image: its bytes in
// the swizzled layout), then stored by TMA.
template <int RANK>
__global__ void store_kernel(const __grid_constant__ CUtensorMap map, Coords at, unsigned nbytes,
                             const unsigned char *image)
{
	extern __shared__ unsigned char dyn[];
	unsigned char *tile = align1024(dyn);
	for (unsigned i = threadIdx.x; i < nbytes; i += blockDim.x)
		tile[i] = image[i];
	tlc::fence_proxy_async_shared(); // every writer: generic stores before the async-proxy read
	__syncthreads();
	if (threadIdx.x == 0) {
		issue_store<RANK>(&map, tile, at);
		tlc::tma_store_commit();
		tlc::tma_store_wait<0>();     // the shared box may be reused from here
		tlc::tma_store_wait_all<0>(); // the global writes are done
	}
}

// try_wait's answers for both parities through three phases.
__global__ void parity_kernel(const __grid_constant__ CUtensorMap map16, int *res, float *data, int *err)
{
	__shared__ __align__(128) float buf[4];
	__shared__ uint64_t bar;
	if (threadIdx.x != 0)
		return;
	for (int i = 0; i < 4; i++)
		buf[i] = __int_as_float(0x7fc00000);
	tlc::fence_proxy_async_shared();
	tlc::mbar_init(&bar, 1);
	tlc::mbar_fence_init();
	res[0] = tlc::mbar_try_wait(&bar, 0); // phase 0 pending: 0
	res[1] = tlc::mbar_try_wait(&bar, 1); // "phase -1": complete: 1
	tlc::mbar_arrive(&bar);               // phase 0 completes
	res[2] = tlc::mbar_try_wait(&bar, 0); // 1
	res[3] = tlc::mbar_try_wait(&bar, 1); // phase 1 pending: 0
	tlc::mbar_arrive(&bar);               // phase 1 completes
	res[4] = tlc::mbar_try_wait(&bar, 1); // 1
	res[5] = tlc::mbar_try_wait(&bar, 0); // phase 2 pending: 0
	tlc::mbar_expect_tx(&bar, 16);
	tlc::mbar_arrive(&bar);               // all arrivals in, 16 bytes outstanding
	res[6] = tlc::mbar_try_wait(&bar, 0); // still pending: 0
	tlc::tma_load<1>(&map16, &bar, buf, 0);
	res[7] = bounded_wait(&bar, 0, err);  // the copy completes phase 2: 1
	res[8] = tlc::mbar_try_wait(&bar, 1); // phase 3 pending: 0
	res[9] = tlc::mbar_try_wait(&bar, 0); // 1
	for (int i = 0; i < 4; i++)
		data[i] = buf[i];
}

// 32 threads' cp.async (16 bytes each) and one TMA load on one barrier.
__global__ void mixed_kernel(const __grid_constant__ CUtensorMap map, const unsigned char *src, unsigned tma_bytes,
                             unsigned char *out, int *err)
{
	extern __shared__ unsigned char dyn[];
	__shared__ uint64_t bar;
	unsigned char *tile = align1024(dyn);          // the TMA box
	unsigned char *side = tile + tma_bytes;        // 512 bytes by cp.async
	for (unsigned i = threadIdx.x; i < tma_bytes + 512; i += blockDim.x)
		tile[i] = 0xEE;
	tlc::fence_proxy_async_shared();
	if (threadIdx.x == 0) {
		tlc::mbar_init(&bar, 33); // 32 cp.async arrivals (noinc) + thread 0's arrive
		tlc::mbar_fence_init();
	}
	__syncthreads();
	if (threadIdx.x < 32) {
		unsigned dst = (unsigned)__cvta_generic_to_shared(side + threadIdx.x * 16);
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src + threadIdx.x * 16)
		             : "memory");
		tlc::cp_async_mbar_arrive_noinc(&bar);
	}
	if (threadIdx.x == 0) {
		tlc::mbar_expect_tx(&bar, tma_bytes);
		tlc::tma_load<2>(&map, &bar, tile, 0, 0);
		tlc::mbar_arrive(&bar);
	}
	if (!bounded_wait(&bar, 0, err))
		return;
	for (unsigned i = threadIdx.x; i < tma_bytes + 512; i += blockDim.x)
		out[i] = tile[i];
}

// The producer / consumer ring.
constexpr int P_STAGES = 3, P_TR = 16, P_TC = 32, P_CONSUMERS = 128;

__global__ void pipeline_kernel(const __grid_constant__ CUtensorMap map, int iters, float *copy_out, float *sums,
                                int *err)
{
	__shared__ __align__(1024) float tiles[P_STAGES][P_TR * P_TC];
	__shared__ uint64_t full[P_STAGES], empty[P_STAGES];
	const int warp = threadIdx.x / 32;
	if ((unsigned)__cvta_generic_to_shared(tiles) % 1024 != 0 && threadIdx.x == 0)
		atomicOr(err, ERR_ALIGN);
	for (int i = threadIdx.x; i < P_STAGES * P_TR * P_TC; i += blockDim.x)
		(&tiles[0][0])[i] = __int_as_float(0x7fc00000);
	tlc::fence_proxy_async_shared();
	if (threadIdx.x == 0) {
		for (int s = 0; s < P_STAGES; s++) {
			tlc::mbar_init(&full[s], 1);
			tlc::mbar_init(&empty[s], P_CONSUMERS);
		}
		tlc::mbar_fence_init();
	}
	__syncthreads();

	if (warp == P_CONSUMERS / 32) { // the producer warp: one elected lane issues
		if (tlc::elect_one()) {
			tlc::prefetch_tensor_map(&map);
			for (int k = 0; k < iters; k++) {
				int s = k % P_STAGES;
				tlc::mbar_wait(&empty[s], ((k / P_STAGES) & 1) ^ 1);
				tlc::mbar_arrive_expect_tx(&full[s], (uint32_t)(P_TR * P_TC * sizeof(float)));
				tlc::tma_load<2>(&map, &full[s], tiles[s], 0, k * P_TR);
			}
		}
		return;
	}
	const int t = threadIdx.x;
	float acc = 0;
	for (int k = 0; k < iters; k++) {
		int s = k % P_STAGES;
		tlc::mbar_wait(&full[s], (k / P_STAGES) & 1);
		// uneven consumers, so that the producer runs ahead where it can
		if ((k + warp) % 3 == 0)
			__nanosleep(1000 + 500 * warp);
#pragma unroll
		for (int j = 0; j < P_TR * P_TC / P_CONSUMERS; j++) {
			float v = tiles[s][t + j * P_CONSUMERS];
			copy_out[(size_t)k * P_TR * P_TC + t + j * P_CONSUMERS] = v;
			acc += v;
		}
		tlc::mbar_arrive(&empty[s]);
	}
	sums[t] = acc;
}

__global__ void elect_kernel(int *lanes)
{
	lanes[threadIdx.x] = tlc::elect_one() ? 1 : 0;
}

// ---- host side ----

// A global tensor and the box one copy moves.
struct Desc {
	int dtype, esize, rank;
	uint64_t dims[5];
	uint64_t strides[4]; // bytes, dimensions 1..rank-1
	uint32_t box[5];
	int swz;

	// (rank 1: rounded up to 16 bytes, so that a store's overhang past the
	// last element stays inside the allocation and is checked)
	size_t global_bytes() const
	{
		return rank == 1 ? (dims[0] * esize + 15) / 16 * 16 : strides[rank - 2] * dims[rank - 1];
	}
	size_t box_elems() const
	{
		size_t n = 1;
		for (int i = 0; i < rank; i++)
			n *= box[i];
		return n;
	}
	// byte offset of global element g
	size_t gaddr(const int64_t *g) const
	{
		size_t a = (size_t)g[0] * esize;
		for (int i = 1; i < rank; i++)
			a += (size_t)g[i] * strides[i - 1];
		return a;
	}
	// byte offset in the shared box of box element idx: the documented layout
	size_t soff(const int *idx) const
	{
		size_t r = 0;
		for (int i = rank - 1; i >= 1; i--)
			r = r * box[i] + idx[i];
		size_t cb = (size_t)idx[0] * esize;
		if (swz == 0)
			return r * box[0] * esize + cb;
		size_t W = swz;
		if ((size_t)box[0] * esize != W) { // the formula is for rows exactly one swizzle span wide
			fprintf(stderr, "test bug: a swizzled box row must be %zu bytes\n", W);
			exit(2);
		}
		return r * W + (((cb / 16) ^ (((r * W) >> 7) & (W / 16 - 1))) * 16) + cb % 16;
	}
	int encode(const char *what, CUtensorMap *map, const void *addr) const
	{
		return tlc_tma_encode(what, map, dtype, rank, addr, dims, strides, box, swz);
	}
	// the global element holding byte `off` of the allocation (g innermost
	// first; g[0] >= dims[0] in a row's padding), and the byte within it
	void element_at(size_t off, int64_t *g, int *byte) const
	{
		for (int i = rank - 1; i >= 1; i--) {
			g[i] = (int64_t)(off / strides[i - 1]);
			off %= strides[i - 1];
		}
		g[0] = (int64_t)(off / esize);
		*byte = (int)(off % esize);
	}
	bool inside(const int64_t *g) const
	{
		for (int i = 0; i < rank; i++)
			if (g[i] < 0 || g[i] >= (int64_t)dims[i])
				return false;
		return true;
	}
	// a box element a store may write although it is outside the tensor:
	// past dims[0] but inside the 16-byte chunk that holds the row's last
	// element, in a row that is inside the tensor
	bool in_overhang(const int64_t *g) const
	{
		for (int i = 1; i < rank; i++)
			if (g[i] < 0 || g[i] >= (int64_t)dims[i])
				return false;
		int over = tlc_tma_store_overhang_bytes(dtype, dims[0]);
		return g[0] >= (int64_t)dims[0] && (size_t)g[0] * esize < dims[0] * esize + (size_t)over;
	}
};

// The box origin rules of tlc_tma.cuh: "" if `at` keeps them, else why not.
static std::string origin_violation(const Desc &d, const Coords &at, bool store)
{
	if (((int64_t)at.c[0] * d.esize) % 16 != 0)
		return "inner origin " + std::to_string(at.c[0]) + " x " + std::to_string(d.esize) +
		       " bytes is not a multiple of 16 (PTX ISA 5.5.3.1: the bounding box address must be 16-byte aligned)";
	if (store)
		for (int i = 0; i < d.rank; i++)
			if (at.c[i] < 0)
				return "store origin coordinate " + std::to_string(i) + " is " + std::to_string(at.c[i]) +
				       " (a store's top left corner cannot have negative indices)";
	return "";
}

static const int esize_of[8] = {0, 1, 2, 2, 4, 4, 2, 8};

static Desc make2d(int dtype, uint64_t rows, uint64_t cols, uint64_t pitch_elems, uint32_t box_r, uint32_t box_c,
                   int swz)
{
	Desc d{};
	d.dtype = dtype;
	d.esize = esize_of[dtype];
	d.rank = 2;
	d.dims[0] = cols;
	d.dims[1] = rows;
	d.strides[0] = pitch_elems * d.esize;
	d.box[0] = box_c;
	d.box[1] = box_r;
	d.swz = swz;
	return d;
}

// dims innermost first, padded inner pitch in elements, dense above
static Desc make_nd(int dtype, int rank, const uint64_t *dims, uint64_t pitch_elems, const uint32_t *box, int swz)
{
	Desc d{};
	d.dtype = dtype;
	d.esize = esize_of[dtype];
	d.rank = rank;
	for (int i = 0; i < rank; i++) {
		d.dims[i] = dims[i];
		d.box[i] = box[i];
	}
	if (rank > 1)
		d.strides[0] = pitch_elems * d.esize;
	for (int i = 2; i < rank; i++)
		d.strides[i - 1] = d.strides[i - 2] * dims[i - 1];
	d.swz = swz;
	return d;
}

// random bytes, no element all zero (padding included)
static std::vector<unsigned char> random_tensor(size_t bytes, int esize)
{
	std::vector<unsigned char> v(bytes);
	for (size_t i = 0; i < bytes; i++)
		v[i] = (unsigned char)(rnd() >> 11);
	for (size_t i = 0; i + esize <= bytes; i += esize) {
		bool zero = true;
		for (int b = 0; b < esize; b++)
			zero &= v[i + b] == 0;
		if (zero)
			v[i] = 1 + (unsigned char)(rnd() % 255);
	}
	return v;
}

// calls f(idx, global index, in_range) for every element of a box at `at`
template <class F>
static void for_box(const Desc &d, const Coords &at, F f)
{
	int idx[5] = {0, 0, 0, 0, 0};
	size_t n = d.box_elems();
	for (size_t e = 0; e < n; e++) {
		size_t rem = e;
		bool in = true;
		int64_t g[5];
		for (int i = 0; i < d.rank; i++) {
			idx[i] = (int)(rem % d.box[i]);
			rem /= d.box[i];
			g[i] = (int64_t)at.c[i] + idx[i];
			in &= g[i] >= 0 && g[i] < (int64_t)d.dims[i];
		}
		f(idx, g, in);
	}
}

static std::string hex(const unsigned char *p, int n)
{
	std::string s;
	char b[4];
	for (int i = n - 1; i >= 0; i--) {
		snprintf(b, sizeof b, "%02x", p[i]);
		s += b;
	}
	return s;
}

static std::string coords_str(const Desc &d, const int64_t *g)
{
	std::string s = "(";
	for (int i = 0; i < d.rank; i++)
		s += (i ? "," : "") + std::to_string(g[i]);
	return s + ")";
}

static void run_load(const std::string &name, const Desc &d, Coords at)
{
	std::string invalid = origin_violation(d, at, false);
	if (!invalid.empty()) {
		report(false, name, "invalid case (undefined behaviour, not launched): " + invalid);
		return;
	}
	begin_case(name);
	std::vector<unsigned char> host = random_tensor(d.global_bytes(), d.esize);
	unsigned char *dg, *dout;
	int *derr;
	const unsigned nbytes = (unsigned)(d.box_elems() * d.esize);
	CUDA_CHECK(cudaMalloc(&dg, host.size()));
	CUDA_CHECK(cudaMalloc(&dout, nbytes));
	CUDA_CHECK(cudaMalloc(&derr, sizeof(int)));
	CUDA_CHECK(cudaMemcpy(dg, host.data(), host.size(), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dout, 0xff, nbytes));
	CUDA_CHECK(cudaMemset(derr, 0, sizeof(int)));
	CUtensorMap map;
	int rc = d.encode(name.c_str(), &map, dg);
	if (rc != 0) {
		report(false, name, "encode: " + std::to_string(rc) + " " + tlc_tma_last_error());
		cudaFree(dg), cudaFree(dout), cudaFree(derr);
		return;
	}
	size_t smem = nbytes + 1024;
	void (*kern)(CUtensorMap, Coords, unsigned, unsigned char *, int *) =
	        d.rank == 1 ? load_kernel<1> : d.rank == 2 ? load_kernel<2> : d.rank == 3 ? load_kernel<3>
	        : d.rank == 4 ? load_kernel<4> : load_kernel<5>;
	CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	kern<<<1, 128, smem>>>(map, at, nbytes, dout, derr);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	std::vector<unsigned char> got(nbytes);
	int err = 0;
	CUDA_CHECK(cudaMemcpy(got.data(), dout, nbytes, cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&err, derr, sizeof(int), cudaMemcpyDeviceToHost));

	std::string detail;
	size_t bad = 0, n_in = 0, n_out = 0;
	std::vector<unsigned char> covered(nbytes, 0);
	for_box(d, at, [&](const int *idx, const int64_t *g, bool in) {
		size_t so = d.soff(idx);
		unsigned char want[8] = {0};
		if (in)
			memcpy(want, &host[d.gaddr(g)], d.esize);
		(in ? n_in : n_out)++;
		for (int b = 0; b < d.esize; b++)
			covered[so + b]++;
		if (memcmp(want, &got[so], d.esize) != 0) {
			if (!bad) {
				detail = "first bad element " + coords_str(d, g) + (in ? "" : " (out of bounds)") + " at byte " +
				         std::to_string(so) + ": got 0x" + hex(&got[so], d.esize) + " want 0x" +
				         hex(want, d.esize);
				// where the wanted value did land, if anywhere (a layout hint)
				for (unsigned o = 0; in && o + d.esize <= nbytes; o += d.esize)
					if (memcmp(want, &got[o], d.esize) == 0) {
						detail += " (that value is at byte " + std::to_string(o) + ")";
						break;
					}
			}
			bad++;
		}
	});
	for (unsigned i = 0; i < nbytes; i++)
		if (covered[i] != 1) {
			bad++;
			detail += " (the layout formula is not a bijection at byte " + std::to_string(i) + ")";
			break;
		}
	if (err)
		detail = "device error flags " + std::to_string(err) + (err & ERR_TIMEOUT ? " (wait timed out)" : "");
	char counts[96];
	snprintf(counts, sizeof counts, "%zu in bounds, %zu out", n_in, n_out);
	// (a box wholly outside has no in-bounds element: its check is that the
	// poison became zeros and the barrier still completed)
	report(!bad && !err, name, bad || err ? detail + "; " + std::to_string(bad) + " bad" : counts);
	cudaFree(dg), cudaFree(dout), cudaFree(derr);
}

// "row 64, col 196" for a matrix, "element (x,y,z) innermost first" otherwise
static std::string element_str(const Desc &d, const int64_t *g)
{
	if (d.rank == 2)
		return "row " + std::to_string(g[1]) + ", col " + std::to_string(g[0]);
	return "element " + coords_str(d, g) + " innermost first";
}

// Checks the global bytes `got` (poisoned with 0xFF before a store of the
// box values `vals`, logical order, at `at`): the box's values inside the
// tensor, the poison elsewhere, either in the overhang (the header).  True
// if right; *detail: the counts, or the first bad byte and its element.
static bool check_store(const Desc &d, const Coords &at, const std::vector<unsigned char> &vals,
                        const std::vector<unsigned char> &got, std::string *detail)
{
	const size_t gbytes = got.size();
	std::vector<unsigned char> want(gbytes, 0xff), alt(gbytes, 0xff), box_byte(gbytes, 0);
	std::vector<size_t> over_elems; // global offsets of the overhang elements
	size_t n_in = 0, n_out = 0;
	{
		size_t e = 0;
		for_box(d, at, [&](const int *, const int64_t *g, bool in) {
			if (in) {
				memcpy(&want[d.gaddr(g)], &vals[e * d.esize], d.esize);
				n_in++;
			} else {
				n_out++;
				if (d.in_overhang(g) && d.gaddr(g) + d.esize <= gbytes) {
					memcpy(&alt[d.gaddr(g)], &vals[e * d.esize], d.esize);
					over_elems.push_back(d.gaddr(g));
				}
			}
			if ((in || d.in_overhang(g)) && d.gaddr(g) + d.esize <= gbytes)
				memset(&box_byte[d.gaddr(g)], 1, d.esize);
			e++;
		});
	}
	size_t bad = 0;
	for (size_t i = 0; i < gbytes; i++)
		if (got[i] != want[i] && got[i] != alt[i]) {
			if (!bad) {
				int64_t g[5];
				int byte;
				d.element_at(i, g, &byte);
				bool in_box = true;
				for (int k = 0; k < d.rank; k++)
					in_box &= g[k] >= at.c[k] && g[k] < (int64_t)at.c[k] + d.box[k];
				char b[400];
				snprintf(b, sizeof b,
				         "first bad global byte %zu (%s, byte %d of the element; %s; %s): got 0x%02x want 0x%02x%s", i,
				         element_str(d, g).c_str(), byte,
				         d.inside(g) ? "inside the tensor"
				         : g[0] >= (int64_t)d.dims[0] ? "outside the tensor: row padding"
				                                       : "outside the tensor",
				         in_box ? "inside the box" : "outside the box", got[i], want[i],
				         want[i] == 0xff && !box_byte[i] ? " (must stay untouched)" : "");
				*detail = b;
			}
			bad++;
		}
	if (bad) {
		*detail += "; " + std::to_string(bad) + " bad bytes";
		return false;
	}
	size_t over_written = 0;
	for (size_t o : over_elems)
		over_written += memcmp(&got[o], &alt[o], d.esize) == 0;
	char counts[96];
	snprintf(counts, sizeof counts, "%zu in bounds, %zu out", n_in, n_out);
	*detail = counts;
	if (!over_elems.empty())
		*detail += "; overhang (16-byte store chunks past dims[0]): " + std::to_string(over_written) + " of " +
		           std::to_string(over_elems.size()) + " elements written";
	return n_in > 0;
}

// What a store would leave in a poisoned global tensor, on the host: the
// in-range elements, plus (chunk16) the overhang, plus (spill) the box's
// elements in the 16 bytes past the overhang (a broken store, for the
// checker's self-test).
static std::vector<unsigned char> simulate_store(const Desc &d, const Coords &at,
                                                 const std::vector<unsigned char> &vals, bool chunk16, bool spill)
{
	std::vector<unsigned char> g_out(d.global_bytes(), 0xff);
	int over = tlc_tma_store_overhang_bytes(d.dtype, d.dims[0]);
	size_t e = 0;
	for_box(d, at, [&](const int *, const int64_t *g, bool in) {
		bool outer_in = true;
		for (int i = 1; i < d.rank; i++)
			outer_in &= g[i] >= 0 && g[i] < (int64_t)d.dims[i];
		size_t end = d.dims[0] * d.esize + (size_t)over;
		bool write = in || (chunk16 && d.in_overhang(g)) ||
		             (spill && outer_in && g[0] >= 0 && (size_t)g[0] * d.esize >= end &&
		              (size_t)g[0] * d.esize < end + 16);
		if (write && d.gaddr(g) + d.esize <= g_out.size())
			memcpy(&g_out[d.gaddr(g)], &vals[e * d.esize], d.esize);
		e++;
	});
	return g_out;
}

// The checker against simulated stores (no GPU): exact and 16-byte-chunk
// stores pass, a store that writes past the overhang fails, naming the
// element (row 65, col 0: the spill lands in the next row).
static void run_store_model_selftest()
{
	struct {
		const char *what;
		Desc d;
		Coords at;
	} cs[] = {
	        {"f16 196 cols, pitch 200", make2d(TLC_TMA_F16, 100, 196, 200, 64, 32, 0), Coords{{192, 64, 0, 0, 0}}},
	        {"f16 184 cols, pitch 200", make2d(TLC_TMA_F16, 100, 184, 200, 64, 32, 0), Coords{{160, 64, 0, 0, 0}}},
	        {"u8 300 cols, pitch 304", make2d(TLC_TMA_U8, 20, 300, 304, 8, 128, 128), Coords{{256, 16, 0, 0, 0}}},
	};
	bool ok = true;
	std::string detail;
	for (auto &c : cs) {
		std::vector<unsigned char> vals = random_tensor(c.d.box_elems() * c.d.esize, c.d.esize);
		std::string d1, d2, d3;
		bool exact = check_store(c.d, c.at, vals, simulate_store(c.d, c.at, vals, false, false), &d1);
		bool chunk = check_store(c.d, c.at, vals, simulate_store(c.d, c.at, vals, true, false), &d2);
		bool spill = check_store(c.d, c.at, vals, simulate_store(c.d, c.at, vals, true, true), &d3);
		ok &= exact && chunk && !spill;
		if (!exact || !chunk || spill)
			detail += std::string(c.what) + ": exact " + (exact ? "passes" : "FAILS: " + d1) + ", chunked " +
			          (chunk ? "passes" : "FAILS: " + d2) + ", spilling " + (spill ? "PASSES" : "fails") + "; ";
		else if (detail.empty())
			detail = "chunked: " + d2 + "; spilling: " + d3;
	}
	report(ok, "host_store_model", detail);
}

static void run_store(const std::string &name, const Desc &d, Coords at)
{
	std::string invalid = origin_violation(d, at, true);
	if (!invalid.empty()) {
		report(false, name, "invalid case (undefined behaviour, not launched): " + invalid);
		return;
	}
	begin_case(name);
	const unsigned nbytes = (unsigned)(d.box_elems() * d.esize);
	std::vector<unsigned char> vals = random_tensor((size_t)nbytes, d.esize); // box values, logical order
	std::vector<unsigned char> image(nbytes, 0);
	{
		size_t e = 0;
		for_box(d, at, [&](const int *idx, const int64_t *, bool) {
			memcpy(&image[d.soff(idx)], &vals[e * d.esize], d.esize);
			e++;
		});
	}
	unsigned char *dg, *dimage;
	const size_t gbytes = d.global_bytes();
	CUDA_CHECK(cudaMalloc(&dg, gbytes));
	CUDA_CHECK(cudaMalloc(&dimage, nbytes));
	CUDA_CHECK(cudaMemset(dg, 0xff, gbytes));
	CUDA_CHECK(cudaMemcpy(dimage, image.data(), nbytes, cudaMemcpyHostToDevice));
	CUtensorMap map;
	int rc = d.encode(name.c_str(), &map, dg);
	if (rc != 0) {
		report(false, name, "encode: " + std::to_string(rc) + " " + tlc_tma_last_error());
		cudaFree(dg), cudaFree(dimage);
		return;
	}
	size_t smem = nbytes + 1024;
	void (*kern)(CUtensorMap, Coords, unsigned, const unsigned char *) =
	        d.rank == 1 ? store_kernel<1> : d.rank == 2 ? store_kernel<2> : d.rank == 3 ? store_kernel<3>
	        : d.rank == 4 ? store_kernel<4> : store_kernel<5>;
	CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	kern<<<1, 128, smem>>>(map, at, nbytes, dimage);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	std::vector<unsigned char> got(gbytes);
	CUDA_CHECK(cudaMemcpy(got.data(), dg, gbytes, cudaMemcpyDeviceToHost));

	std::string detail;
	bool ok = check_store(d, at, vals, got, &detail);
	report(ok, name, detail);
	cudaFree(dg), cudaFree(dimage);
}

static void run_parity()
{
	begin_case("parity");
	float hdata[4] = {1.5f, -2.25f, 3.125f, -0.5f};
	float *dsrc, *ddata;
	int *dres, *derr;
	CUDA_CHECK(cudaMalloc(&dsrc, sizeof hdata));
	CUDA_CHECK(cudaMalloc(&ddata, sizeof hdata));
	CUDA_CHECK(cudaMalloc(&dres, 10 * sizeof(int)));
	CUDA_CHECK(cudaMalloc(&derr, sizeof(int)));
	CUDA_CHECK(cudaMemcpy(dsrc, hdata, sizeof hdata, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(ddata, 0xff, sizeof hdata));
	CUDA_CHECK(cudaMemset(dres, 0xff, 10 * sizeof(int)));
	CUDA_CHECK(cudaMemset(derr, 0, sizeof(int)));
	uint64_t dims[1] = {4};
	uint32_t box[1] = {4};
	CUtensorMap map;
	int rc = tlc_tma_encode("parity", &map, TLC_TMA_F32, 1, dsrc, dims, nullptr, box, 0);
	if (rc != 0) {
		report(false, "parity", std::string("encode: ") + tlc_tma_last_error());
		return;
	}
	parity_kernel<<<1, 32>>>(map, dres, ddata, derr);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	int res[10], err;
	float got[4];
	CUDA_CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(got, ddata, sizeof got, cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&err, derr, sizeof err, cudaMemcpyDeviceToHost));
	const int want[10] = {0, 1, 1, 0, 1, 0, 0, 1, 0, 1};
	std::string g, w;
	bool ok = !err && memcmp(got, hdata, sizeof got) == 0;
	for (int i = 0; i < 10; i++) {
		g += std::to_string(res[i]);
		w += std::to_string(want[i]);
		ok &= res[i] == want[i];
	}
	report(ok, "parity", "try_wait answers " + g + " want " + w + (err ? " (timeout)" : "") +
	                             (memcmp(got, hdata, sizeof got) ? " (data wrong)" : ""));
	cudaFree(dsrc), cudaFree(ddata), cudaFree(dres), cudaFree(derr);
}

static void run_mixed()
{
	begin_case("mixed cp.async(noinc)+tma expect_tx");
	Desc d = make2d(TLC_TMA_F16, 8, 64, 64, 8, 64, 128); // one 1 KB box
	const unsigned tma_bytes = 8 * 64 * 2;
	std::vector<unsigned char> g = random_tensor(d.global_bytes(), 2), side = random_tensor(512, 2);
	unsigned char *dg, *dside, *dout;
	int *derr;
	CUDA_CHECK(cudaMalloc(&dg, g.size()));
	CUDA_CHECK(cudaMalloc(&dside, 512));
	CUDA_CHECK(cudaMalloc(&dout, tma_bytes + 512));
	CUDA_CHECK(cudaMalloc(&derr, sizeof(int)));
	CUDA_CHECK(cudaMemcpy(dg, g.data(), g.size(), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(dside, side.data(), 512, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dout, 0xff, tma_bytes + 512));
	CUDA_CHECK(cudaMemset(derr, 0, sizeof(int)));
	CUtensorMap map;
	if (d.encode("mixed", &map, dg) != 0) {
		report(false, "mixed", std::string("encode: ") + tlc_tma_last_error());
		return;
	}
	mixed_kernel<<<1, 128, tma_bytes + 512 + 1024>>>(map, dside, tma_bytes, dout, derr);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	std::vector<unsigned char> got(tma_bytes + 512);
	int err;
	CUDA_CHECK(cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&err, derr, sizeof err, cudaMemcpyDeviceToHost));
	size_t bad = 0;
	Coords at{{0, 0, 0, 0, 0}};
	for_box(d, at, [&](const int *idx, const int64_t *gi, bool) {
		bad += memcmp(&got[d.soff(idx)], &g[d.gaddr(gi)], 2) != 0;
	});
	size_t bad_side = 0;
	for (int i = 0; i < 512; i++)
		bad_side += got[tma_bytes + i] != side[i];
	report(!err && !bad && !bad_side, "mixed cp.async(noinc)+tma expect_tx",
	       err ? "wait timed out (noinc arrivals not counted as expected?)"
	           : std::to_string(bad) + " bad tma elements, " + std::to_string(bad_side) + " bad cp.async bytes");
	cudaFree(dg), cudaFree(dside), cudaFree(dout), cudaFree(derr);
}

static void run_pipeline(int iters)
{
	begin_case("pipeline stages3 tiles" + std::to_string(iters));
	const int rows = iters * P_TR;
	Desc d = make2d(TLC_TMA_F32, rows, P_TC, P_TC, P_TR, P_TC, 0);
	std::vector<float> m((size_t)rows * P_TC);
	for (auto &x : m) { // multiples of 1/64 in [-2, 2), never 0: every sum is exact
		int v = (int)(rnd() % 256) - 128;
		x = (float)(v ? v : 32) / 64.0f;
	}
	float *dm, *dcopy, *dsums;
	int *derr;
	CUDA_CHECK(cudaMalloc(&dm, m.size() * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&dcopy, m.size() * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&dsums, P_CONSUMERS * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&derr, sizeof(int)));
	CUDA_CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(float), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dcopy, 0xff, m.size() * sizeof(float)));
	CUDA_CHECK(cudaMemset(dsums, 0xff, P_CONSUMERS * sizeof(float)));
	CUDA_CHECK(cudaMemset(derr, 0, sizeof(int)));
	CUtensorMap map;
	if (d.encode("pipeline", &map, dm) != 0) {
		report(false, "pipeline", std::string("encode: ") + tlc_tma_last_error());
		return;
	}
	pipeline_kernel<<<1, P_CONSUMERS + 32>>>(map, iters, dcopy, dsums, derr);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	std::vector<float> copy(m.size()), sums(P_CONSUMERS);
	int err;
	CUDA_CHECK(cudaMemcpy(copy.data(), dcopy, copy.size() * sizeof(float), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(sums.data(), dsums, sums.size() * sizeof(float), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&err, derr, sizeof err, cudaMemcpyDeviceToHost));
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < m.size(); i++)
		if (memcmp(&copy[i], &m[i], 4) != 0 && !bad++)
			first = i;
	int bad_sums = 0;
	for (int t = 0; t < P_CONSUMERS; t++) {
		float acc = 0;
		for (int k = 0; k < iters; k++)
			for (int j = 0; j < P_TR * P_TC / P_CONSUMERS; j++)
				acc += m[(size_t)k * P_TR * P_TC + t + j * P_CONSUMERS];
		bad_sums += memcmp(&acc, &sums[t], 4) != 0;
	}
	std::string detail = std::to_string(bad) + " bad copied elements";
	if (bad)
		detail += " (first: tile " + std::to_string(first / (P_TR * P_TC)) + " element " +
		          std::to_string(first % (P_TR * P_TC)) + ")";
	detail += ", " + std::to_string(bad_sums) + " bad sums";
	if (err)
		detail += ", device error flags " + std::to_string(err);
	report(!bad && !bad_sums && !err, "pipeline stages3 tiles" + std::to_string(iters), detail);
	cudaFree(dm), cudaFree(dcopy), cudaFree(dsums), cudaFree(derr);
}

static void run_elect()
{
	begin_case("elect_one");
	int *d;
	CUDA_CHECK(cudaMalloc(&d, 128 * sizeof(int)));
	CUDA_CHECK(cudaMemset(d, 0xff, 128 * sizeof(int)));
	elect_kernel<<<1, 128>>>(d);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	int h[128];
	CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	bool ok = true;
	std::string per;
	for (int w = 0; w < 4; w++) {
		int n = 0;
		for (int l = 0; l < 32; l++) {
			ok &= h[w * 32 + l] == 0 || h[w * 32 + l] == 1;
			n += h[w * 32 + l] == 1;
		}
		ok &= n == 1;
		per += (w ? "," : "") + std::to_string(n);
	}
	report(ok, "elect_one", "elected per warp: " + per);
	cudaFree(d);
}

// ---- host-only precondition checks ----

static void host_case(const char *name, int want_code, const char *want_msg, int dtype, int rank, uintptr_t addr,
                      std::vector<uint64_t> dims, std::vector<uint64_t> strides, std::vector<uint32_t> box, int swz,
                      bool misalign_map = false, bool null_dims = false)
{
	alignas(128) static unsigned char raw[sizeof(CUtensorMap) + 128];
	CUtensorMap *map = reinterpret_cast<CUtensorMap *>(raw + (misalign_map ? 8 : 0));
	int rc = tlc_tma_encode("A", map, dtype, rank, reinterpret_cast<const void *>(addr),
	                        null_dims ? nullptr : dims.data(), strides.empty() ? nullptr : strides.data(),
	                        box.data(), swz);
	std::string msg = tlc_tma_last_error();
	bool ok = rc == want_code && msg.rfind("tensor A: ", 0) == 0 && msg.find(want_msg) != std::string::npos;
	report(ok, std::string("host_") + name,
	       "code " + std::to_string(rc) + " (want " + std::to_string(want_code) + "): \"" + msg + "\"");
}

static void run_host_cases()
{
	const int inval = cudaErrorInvalidValue, misal = cudaErrorMisalignedAddress;
	const uintptr_t base = 0x7f0000100000ull; // never dereferenced: the checks come first
	host_case("misaligned_base", misal, "global address", TLC_TMA_F16, 2, base + 8, {64, 64}, {128}, {64, 16}, 128);
	host_case("stride_not_16", misal, "global stride 2002 bytes of dimension 1 is not a multiple of 16", TLC_TMA_F16,
	          2, base, {1001, 64}, {2002}, {64, 16}, 128);
	host_case("stride_outer_not_16", misal, "of dimension 2 is not a multiple of 16", TLC_TMA_F32, 3, base,
	          {64, 8, 4}, {256, 2056}, {32, 8, 1}, 128);
	host_case("stride_2_40", inval, "not below 2^40", TLC_TMA_U8, 2, base, {64, 4}, {1ull << 40}, {64, 4}, 0);
	host_case("box_257", inval, "box size 257 of dimension 1", TLC_TMA_F16, 2, base, {64, 1000}, {128}, {64, 257},
	          128);
	host_case("box_0", inval, "box size 0 of dimension 0", TLC_TMA_F16, 2, base, {64, 1000}, {128}, {0, 16}, 0);
	host_case("inner_box_over_swizzle", inval, "exceeds the 128-byte swizzle span", TLC_TMA_F16, 2, base,
	          {256, 64}, {512}, {128, 16}, 128);
	host_case("inner_box_over_swizzle32", inval, "exceeds the 32-byte swizzle span", TLC_TMA_F32, 2, base,
	          {256, 64}, {1024}, {16, 16}, 32);
	host_case("inner_box_not_16", inval, "not a multiple of 16", TLC_TMA_F16, 2, base, {64, 64}, {128}, {4, 16}, 0);
	host_case("dims_0", inval, "size 0 of dimension 1", TLC_TMA_F16, 2, base, {64, 0}, {128}, {64, 16}, 0);
	host_case("dims_over_2_32", inval, "size 4294967297 of dimension 0", TLC_TMA_U8, 1, base,
	          {(1ull << 32) + 1}, {}, {64}, 0);
	host_case("rank_0", inval, "rank 0", TLC_TMA_F16, 0, base, {64}, {}, {64}, 0);
	host_case("rank_6", inval, "rank 6", TLC_TMA_F16, 6, base, {8, 8, 8, 8, 8, 8}, {16, 128, 1024, 8192, 65536},
	          {8, 8, 8, 8, 8, 8}, 0);
	host_case("dtype_0", inval, "element type code 0", 0, 2, base, {64, 64}, {128}, {64, 16}, 0);
	host_case("dtype_8", inval, "element type code 8", 8, 2, base, {64, 64}, {128}, {64, 16}, 0);
	host_case("swizzle_16", inval, "swizzle of 16 bytes", TLC_TMA_F16, 2, base, {64, 64}, {128}, {64, 16}, 16);
	host_case("map_misaligned", misal, "64-byte aligned", TLC_TMA_F16, 2, base, {64, 64}, {128}, {64, 16}, 0, true);
	host_case("null_dims", inval, "NULL dims", TLC_TMA_F16, 2, base, {64, 64}, {128}, {64, 16}, 0, false, true);
	host_case("null_strides", inval, "NULL strides", TLC_TMA_F16, 2, base, {64, 64}, {}, {64, 16}, 0);

	// tlc_tma_store_overhang_bytes: bytes from dim0 * element size to the
	// next multiple of 16
	struct {
		int dtype;
		uint64_t dim0;
		int want;
	} ov[] = {{TLC_TMA_F16, 196, 8},  {TLC_TMA_F16, 184, 0}, {TLC_TMA_U8, 300, 4},
	          {TLC_TMA_F32, 1001, 12}, {TLC_TMA_F32, 52, 0}, {TLC_TMA_B64, 3, 8},
	          {TLC_TMA_BF16, 1ull << 32, 0}, {TLC_TMA_U8, 1, 15}, {0, 64, -1}, {8, 64, -1}};
	std::string got, want;
	bool ok = true;
	for (auto &c : ov) {
		int r = tlc_tma_store_overhang_bytes(c.dtype, c.dim0);
		ok &= r == c.want;
		got += (got.empty() ? "" : ",") + std::to_string(r);
		want += (want.empty() ? "" : ",") + std::to_string(c.want);
	}
	report(ok, "host_store_overhang", "got " + got + " want " + want);
}

int main()
{
	run_host_cases();
	run_store_model_selftest();

	int ndev = 0;
	cudaDeviceProp prop;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("no CUDA device: device cases skipped\n%d passed, %d failed\n", n_pass, n_fail);
		return n_fail ? 1 : 77;
	}
	CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
	if (prop.major < 9) {
		printf("%s is sm_%d%d: TMA needs sm_90: device cases skipped\n%d passed, %d failed\n", prop.name, prop.major,
		       prop.minor, n_pass, n_fail);
		return n_fail ? 1 : 77;
	}
	printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

	{ // a valid map leaves no message
		void *p;
		CUDA_CHECK(cudaMalloc(&p, 1 << 16));
		uint64_t dims[2] = {128, 128}, strides[1] = {256};
		uint32_t box[2] = {64, 64};
		CUtensorMap map;
		int rc = tlc_tma_encode("A", &map, TLC_TMA_F16, 2, p, dims, strides, box, 128);
		report(rc == 0 && tlc_tma_last_error()[0] == '\0', "host_valid_map",
		       "code " + std::to_string(rc) + " \"" + tlc_tma_last_error() + "\"");
		cudaFree(p);
	}

	run_elect();
	run_parity();

	// fp16 100 x 196 (row pitch 200 elements: 8 padding bytes per row), one
	// box per swizzle: rows x (W / 2) elements (64 x 32 unswizzled)
	const int swz[4] = {0, 32, 64, 128};
	for (int w : swz) {
		uint32_t bc = w ? w / 2 : 32;
		Desc d = make2d(TLC_TMA_F16, 100, 196, 200, 64, bc, w);
		run_load("load_f16_2d_swz" + std::to_string(w) + " interior", d, Coords{{(int)bc * 2, 32, 0, 0, 0}});
		run_load("load_f16_2d_swz" + std::to_string(w) + " bottom_right_oob", d,
		         Coords{{(int)(196 / bc) * (int)bc, 64, 0, 0, 0}});
		run_load("load_f16_2d_swz" + std::to_string(w) + " top_left_negative", d,
		         Coords{{-(int)bc / 2, -5, 0, 0, 0}});
	}
	// the whole box outside: all zeros (still completes its bytes)
	run_load("load_f16_2d_swz128 fully_outside", make2d(TLC_TMA_F16, 100, 196, 200, 16, 64, 128),
	         Coords{{256, 128, 0, 0, 0}});
	// 3-D (batch, rows, cols)
	{
		uint64_t dims[3] = {52, 40, 3};
		uint32_t box[3] = {32, 16, 2};
		run_load("load_f32_3d_swz0 batch1", make_nd(TLC_TMA_F32, 3, dims, 52, box, 0), Coords{{16, 8, 1, 0, 0}});
		run_load("load_f32_3d_swz0 batch_edge_oob", make_nd(TLC_TMA_F32, 3, dims, 52, box, 0),
		         Coords{{32, 32, 2, 0, 0}});
	}
	{
		uint64_t dims[3] = {72, 30, 4};
		uint32_t box[3] = {32, 16, 2};
		run_load("load_bf16_3d_swz64 batch2_rows_oob", make_nd(TLC_TMA_BF16, 3, dims, 72, box, 64),
		         Coords{{32, 16, 2, 0, 0}});
	}
	{
		uint64_t dims[3] = {300, 20, 3};
		uint32_t box[3] = {128, 8, 2};
		run_load("load_u8_3d_swz128 batch1", make_nd(TLC_TMA_U8, 3, dims, 304, box, 128),
		         Coords{{128, 8, 1, 0, 0}});
		run_load("load_u8_3d_swz128 cols_oob", make_nd(TLC_TMA_U8, 3, dims, 304, box, 128),
		         Coords{{256, 16, 2, 0, 0}});
	}
	// the other ranks and types
	{
		uint64_t dims[1] = {1000};
		uint32_t box[1] = {64};
		run_load("load_f32_1d tail_oob", make_nd(TLC_TMA_F32, 1, dims, 0, box, 0), Coords{{960, 0, 0, 0, 0}});
	}
	{
		uint64_t dims[4] = {24, 5, 3, 2};
		uint32_t box[4] = {8, 4, 2, 2};
		run_load("load_i32_4d_swz32", make_nd(TLC_TMA_I32, 4, dims, 24, box, 32), Coords{{8, 2, 1, 1, 0}});
	}
	{
		uint64_t dims[5] = {16, 3, 4, 2, 3};
		uint32_t box[5] = {8, 2, 2, 2, 2};
		run_load("load_u16_5d", make_nd(TLC_TMA_U16, 5, dims, 16, box, 0), Coords{{8, 1, 3, 0, 2}});
	}
	run_load("load_b64_2d_swz64 oob", make2d(TLC_TMA_B64, 10, 20, 20, 8, 8, 64), Coords{{16, 4, 0, 0, 0}});
	run_load("load_bf16_2d_swz128", make2d(TLC_TMA_BF16, 70, 128, 128, 32, 64, 128), Coords{{64, 38, 0, 0, 0}});
	// a box of 12 rows: the 128B pattern (8 rows) does not divide it
	run_load("load_f16_2d_swz128 rows12", make2d(TLC_TMA_F16, 100, 196, 200, 12, 64, 128), Coords{{64, 50, 0, 0, 0}});

	run_mixed();
	run_pipeline(10);
	run_pipeline(1000);

	// stores: fp16 100 x 196 (pitch 200): a row ends at byte 392, mid-chunk;
	// a box over the last columns may write its 4 padding elements (bytes
	// 392..399, the overhang: seen written on H100), never anything past them
	for (int w : swz) {
		uint32_t bc = w ? w / 2 : 32;
		Desc d = make2d(TLC_TMA_F16, 100, 196, 200, 64, bc, w);
		run_store("store_f16_2d_swz" + std::to_string(w) + " interior", d, Coords{{(int)bc, 16, 0, 0, 0}});
		run_store("store_f16_2d_swz" + std::to_string(w) + " bottom_right_oob", d,
		          Coords{{(int)(196 / bc) * (int)bc, 64, 0, 0, 0}});
	}
	// (no store at a negative origin: undefined, it traps; see tlc_tma.cuh)
	// the inner extent on a 16-byte boundary (184 fp16 = 368 bytes): exact,
	// the box's columns 184.. (inside the pitch) must stay untouched
	run_store("store_f16_2d_swz0 inner_edge_16B", make2d(TLC_TMA_F16, 100, 184, 200, 64, 32, 0),
	          Coords{{160, 64, 0, 0, 0}});
	run_store("store_f16_2d_swz128 inner_edge_16B", make2d(TLC_TMA_F16, 100, 184, 200, 16, 64, 128),
	          Coords{{128, 90, 0, 0, 0}});
	// origin 0 and a box larger than the whole tensor, rows unpadded (24 fp16
	// = 48 bytes): nothing may spill into the next row
	run_store("store_f16_2d_swz0 box_over_whole_tensor", make2d(TLC_TMA_F16, 10, 24, 24, 16, 32, 0),
	          Coords{{0, 0, 0, 0, 0}});
	{ // 1001 floats: the last 16-byte chunk holds 1 element and 3 of overhang
		uint64_t dims[1] = {1001};
		uint32_t box[1] = {64};
		run_store("store_f32_1d tail_overhang", make_nd(TLC_TMA_F32, 1, dims, 0, box, 0), Coords{{960, 0, 0, 0, 0}});
	}
	{
		uint64_t dims[3] = {52, 40, 3};
		uint32_t box[3] = {32, 16, 2};
		run_store("store_f32_3d_swz0 batch_edge_oob", make_nd(TLC_TMA_F32, 3, dims, 52, box, 0),
		          Coords{{32, 32, 2, 0, 0}});
	}
	{
		uint64_t dims[3] = {300, 20, 3};
		uint32_t box[3] = {128, 8, 2};
		run_store("store_u8_3d_swz128 cols_oob", make_nd(TLC_TMA_U8, 3, dims, 304, box, 128),
		          Coords{{256, 16, 2, 0, 0}});
	}
	// (no box origin whose inner coordinate is not a 16-byte multiple, e.g. 3
	// fp16 = 6 bytes: PTX ISA 5.5.3.1 requires the bounding box address to be
	// 16-byte aligned; see tlc_tma.cuh)

	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
