#!/usr/bin/env python3
"""Make the cluster/multicast variant of tlc's own CUDA output of
examples/gemm.tl matmul(4096, 4096, 4096) (the defaults, with stage-outputs'
TMA-store epilogue), for the measurement in bench/notes/hopper-gemm.md
("Multicast again, with the staged epilogue").  Not part of the build.

    python3 multicast_variants.py BASE.cu OUT.cu [2|4]

Variant 2: clusters of 2 blocks along x (same by, neighbouring bx) share
A's 128 x 32 tile per stage: each block's producer loads its 64 rows with
TMA multicast into both blocks; a stage is free again when the consumers of
both blocks are done with it (one arrival per consumer warp on each block's
empty barrier, the peer's through mapa); the blocks of a cluster start
after both initialised their barriers and leave together (cluster
barriers), so no multicast or remote arrival meets a barrier that is not
there.  Rasterization walks clusters, panels of 10 rows, as tlc's does
blocks.  Variant 4: clusters of 2 x 2 blocks; A is shared along x as in
variant 2 and B along y (each block loads one of B's two 64-column boxes
and multicasts it to the block above or below); consumers arrive on all
four blocks' empty barriers.
"""
import os
import sys

src = open(sys.argv[1]).read()
variant = int(sys.argv[3]) if len(sys.argv) > 3 else 2

# the cluster helpers (namespace px) of the earlier hand-written prototype
here = os.path.dirname(os.path.abspath(__file__))
proto = open(os.path.join(here, "multicast-prototype.cu")).read()
start = proto.index("namespace px {")
helpers = "\n" + proto[start:proto.index("\n}\n}\n", start) + 5]  # its last function's brace, then its own


def sub(old, new, count=1):
    global src
    assert src.count(old) >= 1, old
    src = src.replace(old, new, count)


if variant == 2:
    sub('extern "C" __global__ void __launch_bounds__(256, 2) matmul_kernel(',
        helpers + 'extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256, 2) matmul_kernel(')
    sub('''	const dim3 tlc_block_idx = tlc::rasterization2DRow<10>();
	const int bx = (int)tlc_block_idx.x;
	const int by = (int)tlc_block_idx.y;''', '''	const unsigned rank = px::cta_rank();
	const unsigned gx = gridDim.x / 2, gy = gridDim.y;
	const unsigned id = blockIdx.x / 2 + blockIdx.y * gx;
	const unsigned panel = id / (10 * gx), in_panel = id % (10 * gx);
	const unsigned rows = min(10u, gy - panel * 10);
	const int bx = (int)((in_panel / rows) * 2 + rank);
	const int by = (int)(panel * 10 + in_panel % rows);''')
    peers, a_mask, a_rank = 2, "(uint16_t)3", "rank"
else:
    sub('extern "C" __global__ void __launch_bounds__(256, 2) matmul_kernel(',
        helpers + 'extern "C" __global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(256, 2) matmul_kernel(')
    sub('''	const dim3 tlc_block_idx = tlc::rasterization2DRow<10>();
	const int bx = (int)tlc_block_idx.x;
	const int by = (int)tlc_block_idx.y;''', '''	const unsigned rank = px::cta_rank(), rx = rank % 2, ry = rank / 2;
	const unsigned gx = gridDim.x / 2, gy = gridDim.y / 2;
	const unsigned id = blockIdx.x / 2 + (blockIdx.y / 2) * gx;
	const unsigned panel = id / (5 * gx), in_panel = id % (5 * gx);
	const unsigned rows = min(5u, gy - panel * 5);
	const int bx = (int)((in_panel / rows) * 2 + rx);
	const int by = (int)((panel * 5 + in_panel % rows) * 2 + ry);''')
    peers, a_mask, a_rank = 4, "(uint16_t)(3u << (2 * ry))", "rx"
    sub('''				tlc::tma_load<2>(&tlc_tma_B_1, &full[(k % 3)], &B_shared[((k % 3) * 4096)], (bx * 128), (k * 32));
				tlc::tma_load<2>(&tlc_tma_B_1, &full[(k % 3)], &B_shared[(((k % 3) * 4096) + 2048)], ((bx * 128) + 64), (k * 32));''',
        '''				px::load_mc(&tlc_tma_B_1, &full[(k % 3)], &B_shared[((k % 3) * 4096) + ry * 2048], (bx * 128) + ry * 64, (k * 32), (uint16_t)((1u << rx) | (1u << (rx + 2))));''')
for s_ in range(3):
    sub(f"tlc::mbar_init(&empty[{s_}], 128);", f"tlc::mbar_init(&empty[{s_}], {4 * peers});")
sub('''		tlc::mbar_fence_init();
	}
	__syncthreads();''', '''		tlc::mbar_fence_init();
	}
	px::cluster_sync();''')
sub("tlc::mbar_wait(&empty[(k % 3)], (((k / 3) + 1) % 2));", "px::wait_cluster(&empty[(k % 3)], (((k / 3) + 1) % 2));")
sub("tlc::tma_load<2>(&tlc_tma_A_0, &full[(k % 3)], &A_shared[((k % 3) * 4096)], (k * 32), (by * 128));",
    f"px::load_mc(&tlc_tma_A_0, &full[(k % 3)], &A_shared[((k % 3) * 4096) + {a_rank} * 2048], (k * 32), (by * 128) + {a_rank} * 64, {a_mask});")
sub("			tlc::mbar_arrive(&empty[(k_1 % 3)]);", f'''			__syncwarp();
			if (threadIdx.x % 32 < {peers})
				px::arrive_remote(&empty[(k_1 % 3)], threadIdx.x % 32);''')
# leave together: the kernel's last closing brace
i = src.index('extern "C" const char *matmul_error_string')
j = src.rindex('}', 0, i)
src = src[:j] + "\tpx::cluster_sync();\n" + src[j:]
# A's box: the 64 rows a block multicasts
sub("const uint32_t tlc_box[2] = {32u, 128u};", "const uint32_t tlc_box[2] = {32u, 64u};")
open(sys.argv[2], "w").write(src)
