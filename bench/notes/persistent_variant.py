#!/usr/bin/env python3
"""A persistent variant of tlc's CUDA for examples/gemm.tl at its defaults
(clusters of 2 along x, stage-outputs' TMA-store epilogue), made by hand to
measure what a persistent warp-specialized kernel would gain before building
one into tlc (bench/notes/hopper-gemm.md):

    python3 persistent_variant.py IN.cu OUT.cu TILES_X TILES_Y RESIDENT_CLUSTERS

The grid becomes RESIDENT_CLUSTERS clusters of 2 blocks; each cluster walks
the cluster tiles (pairs of neighbouring tiles along x) t = c, c + R, ... in
the rasterization's order (row panels of 10, as T.use_swizzle(panel_size=10)).
The producer and the consumers count their k-steps across tiles (stage g % S,
phase g / S), and the consumers meet once more after the TMA store has read
the staged tile, before the next tile's accumulator goes into it."""
import re
import sys

src, dst, tiles_x, tiles_y, resident = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cu = open(src).read()
k_iters = int(re.search(r"for \(int k = 0; k < (\d+); \+\+k\)", cu).group(1))
stages = int(re.search(r"uint64_t full\[(\d+)\]", cu).group(1))


def must_replace(text, old, new, count=1):
    assert text.count(old) >= 1, old
    return text.replace(old, new, count)


cu = must_replace(cu, """	const dim3 tlc_block_idx = tlc::rasterization2DRow<10, 2, 1>();
	const int bx = (int)tlc_block_idx.x;
	const int by = (int)tlc_block_idx.y;
""", f"""	const unsigned p_rank = blockIdx.x % 2, p_cluster = blockIdx.x / 2, p_clusters = gridDim.x / 2;
	const unsigned p_gx = {tiles_x} / 2, p_gy = {tiles_y}, p_ntiles = p_gx * p_gy;
#define P_TILE(t) \\
	const unsigned p_panel = (t) / (10 * p_gx), p_in = (t) % (10 * p_gx); \\
	const unsigned p_rows = min(10u, p_gy - p_panel * 10); \\
	const int bx = (int)((p_in / p_rows) * 2 + p_rank), by = (int)(p_panel * 10 + p_in % p_rows);
""")
# the producer: a loop over the cluster's tiles around the k loop
cu = must_replace(cu, f"""		for (int k = 0; k < {k_iters}; ++k) {{
			tlc::mbar_wait(&empty[""", f"""		int g = 0;
		for (unsigned t = p_cluster; t < p_ntiles; t += p_clusters) {{
		P_TILE(t)
		for (int k = 0; k < {k_iters}; ++k, ++g) {{
			tlc::mbar_wait(&empty[""")
prod_start = cu.index("int g = 0;")
prod_end = cu.index("tlc::mbar_arrive(&full[", prod_start)
prod_end = cu.index("\n", prod_end)
body = cu[prod_start:prod_end]
body = body.replace(f"(k % {stages})", f"(g % {stages})").replace(f"(k / {stages})", f"(g / {stages})")
cu = cu[:prod_start] + body + "\n\t\t}" + cu[prod_end:]
# the consumers: from the accumulator's clear to the TMA store's wait
cons_start = cu.index('asm volatile("setmaxnreg.inc')
cons_start = cu.index("\n", cons_start) + 1
cu = cu[:cons_start] + "\t\tint g = 0;\n\t\tfor (unsigned t = p_cluster; t < p_ntiles; t += p_clusters) {\n\t\tP_TILE(t)\n" + cu[cons_start:]
cu = must_replace(cu, f"for (int k_1 = 0; k_1 < {k_iters}; ++k_1) {{", f"for (int k_1 = 0; k_1 < {k_iters}; ++k_1, ++g) {{")
loop_start = cu.index("for (int k_1 = 0;")
loop_end = cu.index("\n\t\t}", cu.rindex("tlc::mbar_arrive_cluster(&empty["))
seg = cu[loop_start:loop_end].replace(f"(k_1 % {stages})", f"(g % {stages})").replace(f"(k_1 / {stages})", f"(g / {stages})")
cu = cu[:loop_start] + seg + cu[loop_end:]
cu = must_replace(cu, """			tlc::tma_store_wait<0>();
		}
""", """			tlc::tma_store_wait<0>();
		}
		/* the staged tile is read: the next tile's accumulator may go in */
		asm volatile("bar.sync 1, 128;\\n" ::: "memory");
		}
""")
cu = re.sub(r"const long long tlc_grid0 = \d+;", f"const long long tlc_grid0 = {2 * resident};", cu)
cu = re.sub(r"const long long tlc_grid1 = \d+;", "const long long tlc_grid1 = 1;", cu)
open(dst, "w").write(cu)
