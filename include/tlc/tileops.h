/* tlc/tileops.h - reading the operands of tile ops.
 *
 * layout-inference and lower-tile-ops (and out-of-tree passes) must agree on
 * what a T.copy region or a T.gemm means; the decoding lives here, once. */
#ifndef TLC_TILEOPS_H
#define TLC_TILEOPS_H

#include <tlc/ir.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLC_TILE_MAX_DIMS 8

/* One operand of a tile op: per buffer dimension a begin, an extent and
 * whether the dimension is a single index (dropped from the tile).  `corner`
 * marks the buf[i, j] form, whose extents come from the other operand. */
typedef struct tlc_tile_operand {
	tlc_buffer *buf;
	int ndim;
	const tlc_expr *begin[TLC_TILE_MAX_DIMS];
	const tlc_expr *extent[TLC_TILE_MAX_DIMS];
	bool point[TLC_TILE_MAX_DIMS];
	bool corner;
} tlc_tile_operand;

/* Decode a buffer, region or element expression; false (and *why) if x is
 * none of them. */
TLC_API bool tlc_tile_operand_from_expr(tlc_module *m, const tlc_expr *x, tlc_tile_operand *out, const char **why);
/* True if the operand is its whole buffer (every dimension from 0 over the
 * full extent). */
TLC_API bool tlc_tile_operand_is_whole(tlc_module *m, const tlc_tile_operand *o);

/* Whether region d of a tensor is a rows x cols tile along one dimension
 * (*row_dim) and its last, its other dimensions single indices (a slice of
 * one row counts as one); a corner operand G[i, j] is first completed to
 * the tile on its last two dimensions.  What a TMA box walks. */
TLC_API bool tlc_tile_region_2d(tlc_module *m, tlc_tile_operand *d, int64_t rows, int64_t cols, int *row_dim);

struct tlc_ranges;
/* Whether a TMA store of a rows x cols tile into the region d of a global
 * tensor of kernel f is exact and safe: d is such a tile
 * (tlc_tile_region_2d, *row_dim); the tensor's rows are a known
 * multiple of 16 bytes (TMA's stride rule; then nothing past a row's end
 * is written); every origin is provably >= 0 under r (a store box
 * starting before the tensor traps) and fits a TMA coordinate's 32 bits; and
 * f never reads the tensor (the stores complete after the kernel's own
 * reads could see them).  False and *why otherwise.  stage-outputs and
 * lower-tile-ops ask the same question. */
TLC_API bool tlc_tma_store_region(tlc_module *m, const tlc_func *f, const struct tlc_ranges *r, tlc_tile_operand *d,
                                  int64_t rows, int64_t cols, int *row_dim, const char **why);

/* The alignment in bytes of shared memory where a TMA box starts: 128
 * bytes (the PTX ISA's rule for cp.async.bulk.tensor), or 8 times the
 * swizzle width for a swizzled box (the pattern repeats every 8 of its
 * rows, and tlc's swizzled layouts are relative to the tile's start). */
TLC_API int64_t tlc_tma_shared_align(int64_t swizzle_bytes);

/* Whether a shared tile of `rows` rows splits into `shares` equal parts of
 * whole rows, one per block of a TMA multicast (T.tma_copy's
 * cluster_mask=), each starting where TMA may write (128 bytes) and where
 * the tile's swizzle starts over (8 of its rows of swizzle_bytes; 0: not
 * swizzled), so that the tile's layout is the same whichever block wrote
 * each part.  row_bytes: the bytes of a row of the tile's storage (a
 * swizzled tile stores column blocks of swizzle_bytes rows). */
TLC_API bool tlc_tma_multicast_split(int64_t rows, int64_t row_bytes, int swizzle_bytes, int64_t shares);

typedef enum tlc_warp_policy {
	TLC_WARP_POLICY_SQUARE,
	TLC_WARP_POLICY_FULL_ROW, /* every warp along M: warp_m = warps */
	TLC_WARP_POLICY_FULL_COL, /* every warp along N: warp_n = warps */
} tlc_warp_policy;

/* A T.gemm / T.wgmma_gemm call, decoded: C[M, N] += op(A)[M, K] op(B)[K, N].
 * A and B may be whole 2-D tiles of buffers with more dimensions
 * (A_shared[s, :, :], the versions of a pipelined buffer): nlead[0] / [1]
 * single indices lead[0] / [1] select the tile, 0 for a whole buffer. */
typedef struct tlc_gemm_info {
	tlc_buffer *A, *B, *C;
	int nlead[2];
	const tlc_range *lead[2];
	/* A or B a part of its 2-D tile (A_shared[:, k * 64:(k + 1) * 64]):
	 * sub[k], the first row and column off[k][0..1]; M, N, K are then the
	 * part's (lower-tile-ops decides whether the layout lets the target
	 * address it) */
	bool sub[2];
	const tlc_expr *off[2][2];
	bool trans_A, trans_B;
	bool clear_accum;
	tlc_warp_policy policy;
	int64_t M, N, K;
	/* k_pack=P (AMD): each operand read of a lane covers P instructions'
	 * k elements at once, the k of P consecutive instructions interleaved
	 * (doc/hip.md); 1 otherwise, and ignored by targets without it */
	int k_pack;
} tlc_gemm_info;

/* Decode a gemm call (operands: buffers with constant 2-D shapes, or
 * regions of them: single indices on leading dimensions and slices of
 * constant extent of the last two); false and *why otherwise. */
TLC_API bool tlc_gemm_decode(const tlc_expr *call, tlc_gemm_info *g, const char **why);
/* Whether operand k of g is a part of whole rows (B_shared[k * 64:(k + 1) *
 * 64, :]) of a shared tile wider than one block of the swizzle it would
 * get: its rows lie in several column blocks, which no standalone swizzled
 * tile matches, so layout-inference leaves the buffer unswizzled (a
 * row-major part of whole rows is a row-major tile) and descriptor-based
 * instructions (WGMMA) cannot read it. */
TLC_API bool tlc_gemm_part_unswizzled(const tlc_gemm_info *g, int k);
/* Split `warps` warps into a warp_m x warp_n grid for an M x N accumulator
 * tiled by atoms of atom_m x atom_n, following the policy; false (and *why)
 * when no split divides the tile.  As in TileLang, FullRow (FullCol) puts
 * every warp along M (N) when the tile allows, else as many as divide it and
 * the rest along the other dimension. */
TLC_API bool tlc_gemm_warp_grid(int64_t M, int64_t N, int64_t atom_m, int64_t atom_n, int warps,
                                tlc_warp_policy policy, int *warp_m, int *warp_n, const char **why);

/* A T.use_swizzle(panel_size, order="row", enable=True) call, decoded: the
 * blocks of a 2-D grid are visited in panels of `panel` rows (or columns)
 * for L2 locality. */
typedef struct tlc_raster {
	int64_t panel;
	bool column; /* order="column" */
	bool enabled;
} tlc_raster;

/* Decode and check a use_swizzle call in a kernel with grid_ndim grid
 * dimensions (0: not known yet); false and *why when it is malformed. */
TLC_API bool tlc_raster_decode(const tlc_expr *call, int grid_ndim, tlc_raster *r, const char **why);

/* The threads of a `with T.ws(i, j, ...)` scope: warpgroups i, j, ...
 * (consecutive, constant) of `warpgroup` threads each, as [*lo, *lo + *n);
 * false and *why otherwise. */
TLC_API bool tlc_ws_range(const tlc_expr *call, int warpgroup, int64_t *lo, int64_t *n, const char **why);

/* True when s is a `with T.ws(...)` scope. */
TLC_API bool tlc_stmt_is_ws(const tlc_stmt *s);
/* T.ws scopes next to each other in a block (no statement between) are one
 * group: scopes of the group over different warpgroups run at the same
 * time, ordered among themselves only by the mbarriers they wait on; scopes
 * over the same warpgroups run one after the other, as those threads reach
 * them.  Returns how many of items[i], items[i + 1], ... (of n) are T.ws
 * scopes: the length of the group starting at i, 0 when items[i] is no
 * T.ws scope. */
TLC_API int tlc_ws_group_len(tlc_stmt *const *items, int n, int i);
/* True when T.ws scopes a and b select the same warpgroups. */
TLC_API bool tlc_ws_same_warpgroups(const tlc_stmt *a, const tlc_stmt *b);

/* How a gemm runs on the module's target (tlc_module_target_info): the
 * matrix instruction for its operand types, the grid of the instruction's
 * thread groups over the accumulator, and the register fragments of the
 * accumulator and of A (for a gemm whose A lives in registers). */
typedef struct tlc_gemm_plan {
	const struct tlc_matrix_inst *inst;
	int warp_m, warp_n;        /* the grid of instruction thread groups (warps) */
	const struct tlc_layout *c_frag;
	const struct tlc_layout *a_frag; /* NULL when A cannot be in registers; a_why says why */
	const char *a_why;
} tlc_gemm_plan;

/* Plan gemm g run by `threads` threads from thread_lo; false and *why (a
 * message naming the target and the numbers) when the target cannot. */
TLC_API bool tlc_gemm_plan_for(tlc_module *m, const tlc_gemm_info *g, int64_t threads, int64_t thread_lo,
                               tlc_gemm_plan *plan, const char **why);

#ifdef __cplusplus
}
#endif
#endif
