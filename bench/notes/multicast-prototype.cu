// Hand-written prototype (2026-11-24) of examples/gemm.tl's defaults at
// 4096^3 fp16 on sm_90a, measured in bench/notes/hopper-gemm.md ("TMA
// multicast across a cluster").  Not part of the build.  To rebuild it:
// take tlc's `--emit=cu` output of matmul(4096, 4096, 4096), replace its
// kernel by this file (everything before `extern "C" __global__` stays: the
// device helpers), in the launcher give A's tensor map a box of 128 / CLX
// rows when VARIANT == 2, and compile with
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC
//        -DVARIANT=v [-DCLX=c]
// VARIANT 0 = tlc's output (128 producer arrivals, 128 consumer arrivals a
// stage), 1 = one elected producer thread (arrive.expect_tx) and one arrival
// per consumer warp, 2 = 1 + clusters of CLX blocks along x whose producers
// each load 1/CLX of A's rows and multicast them to every block of the
// cluster (consumers free a stage in every block of the cluster).
#ifndef VARIANT
#define VARIANT 0
#endif
#ifndef CLX
#define CLX 2
#endif
namespace px {
__device__ __forceinline__ uint32_t sa(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t cta_rank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
	asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void arrive_remote(uint64_t *bar, uint32_t rank) {
	asm volatile("{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
	             "mbarrier.arrive.shared::cluster.b64 _, [ra];\n\t}\n" ::"r"(sa(bar)), "r"(rank) : "memory");
}
__device__ __forceinline__ void load_mc(const CUtensorMap *map, uint64_t *bar, void *dst, int c0, int c1, uint16_t mask) {
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
	             " [%0], [%1, {%3, %4}], [%2], %5;\n" :: "r"(sa(dst)), "l"((uint64_t)map), "r"(sa(bar)), "r"(c0), "r"(c1), "h"(mask) : "memory");
}
__device__ __forceinline__ void wait_cluster(uint64_t *bar, uint32_t parity) {
	uint32_t done;
	do {
		asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}\n"
		             : "=r"(done) : "r"(sa(bar)), "r"(parity & 1u) : "memory");
	} while (!done);
}
}

#if VARIANT == 2
#define CLUSTER_ATTR __cluster_dims__(CLX, 1, 1)
#else
#define CLUSTER_ATTR
#endif

extern "C" __global__ void CLUSTER_ATTR __launch_bounds__(256, 2) matmul_kernel(half *__restrict__ A, half *__restrict__ B, half *__restrict__ C, const __grid_constant__ CUtensorMap tlc_tma_A_0, const __grid_constant__ CUtensorMap tlc_tma_B_1)
{
	extern __shared__ __align__(1024) unsigned char tlc_smem[];
#if VARIANT == 2
	// rasterize clusters, not blocks: a cluster's CTAs keep the same by
	const unsigned rank = px::cta_rank();
	const unsigned gx = gridDim.x / CLX, gy = gridDim.y;
	const unsigned id = blockIdx.x / CLX + blockIdx.y * gx;
	const unsigned panel = id / (10 * gx), in_panel = id % (10 * gx);
	const unsigned rows = min(10u, gy - panel * 10);
	const int bx = (int)((in_panel / rows) * CLX + rank);
	const int by = (int)(panel * 10 + in_panel % rows);
#else
	const dim3 tlc_block_idx = tlc::rasterization2DRow<10>();
	const int bx = (int)tlc_block_idx.x;
	const int by = (int)tlc_block_idx.y;
#endif
	half *A_shared = reinterpret_cast<half *>(tlc_smem + 0);
	half *B_shared = reinterpret_cast<half *>(tlc_smem + 24576);
	float C_local[128];
	__shared__ __align__(8) uint64_t full[3];
	__shared__ __align__(8) uint64_t empty[3];
#if VARIANT == 0
	const uint32_t full_count = 128, empty_count = 128;
#elif VARIANT == 1
	const uint32_t full_count = 1, empty_count = 4;
#else
	const uint32_t full_count = 1, empty_count = 4 * CLX;
#endif
	if ((((int)threadIdx.x) == 0)) {
		for (int s = 0; s < 3; s++) {
			tlc::mbar_init(&full[s], full_count);
			tlc::mbar_init(&empty[s], empty_count);
		}
		tlc::mbar_fence_init();
	}
#if VARIANT == 2
	px::cluster_sync();
#else
	__syncthreads();
#endif
	if ((int)threadIdx.x < 128) {
		asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(24));
#if VARIANT == 0
		for (int k = 0; k < 128; ++k) {
			tlc::mbar_wait(&empty[(k % 3)], (((k / 3) + 1) % 2));
			if ((((int)threadIdx.x) == 0)) {
				tlc::mbar_expect_tx(&full[(k % 3)], 8192);
				tlc::tma_load<2>(&tlc_tma_A_0, &full[(k % 3)], &A_shared[((k % 3) * 4096)], (k * 32), (by * 128));
			}
			if ((((int)threadIdx.x) == 0)) {
				tlc::mbar_expect_tx(&full[(k % 3)], 8192);
				tlc::tma_load<2>(&tlc_tma_B_1, &full[(k % 3)], &B_shared[((k % 3) * 4096)], (bx * 128), (k * 32));
				tlc::tma_load<2>(&tlc_tma_B_1, &full[(k % 3)], &B_shared[(((k % 3) * 4096) + 2048)], ((bx * 128) + 64), (k * 32));
			}
			tlc::mbar_arrive(&full[(k % 3)]);
		}
#else
		if (threadIdx.x == 0) {
			for (int k = 0; k < 128; ++k) {
				const int s = k % 3;
#if VARIANT == 2
				px::wait_cluster(&empty[s], (((k / 3) + 1) % 2));
#else
				tlc::mbar_wait(&empty[s], (((k / 3) + 1) % 2));
#endif
				tlc::mbar_arrive_expect_tx(&full[s], 16384);
#if VARIANT == 2
				// this CTA's slice of A's 128 rows, to every CTA of the cluster
				px::load_mc(&tlc_tma_A_0, &full[s], &A_shared[s * 4096 + rank * (4096 / CLX)], k * 32, by * 128 + rank * (128 / CLX), (uint16_t)((1u << CLX) - 1));
#else
				tlc::tma_load<2>(&tlc_tma_A_0, &full[s], &A_shared[s * 4096], (k * 32), (by * 128));
#endif
				tlc::tma_load<2>(&tlc_tma_B_1, &full[s], &B_shared[s * 4096], (bx * 128), (k * 32));
				tlc::tma_load<2>(&tlc_tma_B_1, &full[s], &B_shared[s * 4096 + 2048], ((bx * 128) + 64), (k * 32));
			}
		}
#endif
	}
	if ((int)threadIdx.x >= 128 && (int)threadIdx.x < 256) {
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(232));
		#pragma unroll
		for (int r_0 = 0; r_0 < 128; ++r_0)
			C_local[r_0] = 0.0f;
		for (int k_1 = 0; k_1 < 128; ++k_1) {
			tlc::mbar_wait(&full[(k_1 % 3)], ((k_1 / 3) % 2));
			tlc::wgmma_gemm_ss<128, 128, 32, 1, 1, false, false, 64, 128, half, half>(&A_shared[((k_1 % 3) * 4096)], &B_shared[((k_1 % 3) * 4096)], C_local, (int)threadIdx.x - 128, true);
			tlc::wgmma_wait<1>();
			tlc::wgmma_fence_operand(C_local);
			if ((k_1 >= 1)) {
#if VARIANT == 0
				tlc::mbar_arrive(&empty[((k_1 + 2) % 3)]);
#elif VARIANT == 1
				__syncwarp();
				if (threadIdx.x % 32 == 0)
					tlc::mbar_arrive(&empty[((k_1 + 2) % 3)]);
#else
				__syncwarp();
				if (threadIdx.x % 32 < CLX)
					px::arrive_remote(&empty[((k_1 + 2) % 3)], threadIdx.x % 32);
#endif
			}
		}
		tlc::wgmma_wait<0>();
		tlc::wgmma_fence_operand(C_local);
		#pragma unroll
		for (int q_2 = 0; q_2 < 64; ++q_2) {
			const int i = ((((tlc_floordiv_i32((((int)threadIdx.x) - 128), 32) * 16) + (((q_2 * 2) / 64) * 64)) + ((q_2 % 2) * 8)) + tlc_floormod_i32(tlc_floordiv_i32((((int)threadIdx.x) - 128), 4), 8));
			const int j = ((tlc_floormod_i32((((int)threadIdx.x) - 128), 4) * 2) + ((((q_2 * 2) / 4) % 16) * 8));
			*reinterpret_cast<tlc_lanes<half, 2> *>(&C[(((by * 128) + i) * 4096 + ((bx * 128) + j))]) = tlc_lanes<half, 2>{{__float2half_rn(C_local[(((((q_2 * 2) / 64) * 64) + ((q_2 % 2) * 2)) + ((((q_2 * 2) / 4) % 16) * 4))]), __float2half_rn(C_local[((((((q_2 * 2) / 64) * 64) + ((q_2 % 2) * 2)) + ((((q_2 * 2) / 4) % 16) * 4)) + 1)])}};
		}
	}
#if VARIANT == 2
	// no CTA leaves while a peer may still arrive on its barriers
	px::cluster_sync();
#endif
}
