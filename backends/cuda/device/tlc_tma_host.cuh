/* tlc_tma_host.cuh - building the CUtensorMap of a TMA operand (host side).
 *
 * Embedded into the cuda target plugin and pasted into the generated host
 * launcher when a kernel copies tiles with TMA (the device side is
 * tlc_tma.cuh).  Written from the CUDA driver API's description of
 * cuTensorMapEncodeTiled and the runtime's cudaGetDriverEntryPointByVersion.
 *
 * The launcher calls, for each TMA operand, before the launch:
 *
 *   int tlc_tma_encode(const char *what, CUtensorMap *map, int dtype_code, int rank,
 *                      const void *global_addr, const uint64_t *dims,
 *                      const uint64_t *strides_bytes, const uint32_t *box,
 *                      int swizzle_bytes);
 *
 *   what           the tensor's name, for messages ("A")
 *   map            where to build the map: 64-byte aligned (a CUtensorMap
 *                  variable is); pass it by value to the kernel as a
 *                  `const __grid_constant__ CUtensorMap` parameter
 *   dtype_code     a tlc_tma_dtype below
 *   rank           1 .. 5
 *   dims[rank]     the tensor's sizes in elements, innermost (contiguous) first
 *   strides_bytes  rank - 1 entries: the strides in bytes of dimensions
 *                  1 .. rank - 1 (dimension 0 is contiguous); NULL for rank 1
 *   box[rank]      the box (tile) one copy moves, in elements, innermost first
 *   swizzle_bytes  0 (none), 32, 64 or 128
 *
 * It returns 0 (cudaSuccess) or a cudaError_t code, launches nothing, and
 * leaves a message in tlc_tma_last_error() (per thread; "" after a success):
 *
 *   cudaErrorMisalignedAddress  an alignment precondition fails: the global
 *                               address is not a multiple of 16 bytes, a
 *                               global stride is not a multiple of 16 bytes
 *                               (rows would start unaligned), or `map` is
 *                               not 64-byte aligned
 *   cudaErrorInvalidValue       any other argument is out of range: NULL
 *                               pointers, rank not in 1..5, unknown
 *                               dtype_code, a size not in [1, 2^32], a
 *                               stride of 2^40 bytes or more, a box size not
 *                               in [1, 256], inner box bytes (box[0] times
 *                               the element size) not a multiple of 16 or,
 *                               with a swizzle, above the swizzle width,
 *                               swizzle_bytes not 0/32/64/128; also when the
 *                               driver refuses the map anyway (the message
 *                               gives its CUresult)
 *   cudaErrorNotSupported       the driver has no cuTensorMapEncodeTiled
 *                               (driver older than CUDA 12.0)
 *
 * The arguments are all checked before the driver is asked for anything, so
 * a bad call fails the same way with or without a GPU.
 *
 * The driver function is looked up at run time through the runtime's driver
 * entry point API, once (a function-local static: thread-safe), so that the
 * library links only cudart, never libcuda; <cuda.h> is included for its
 * types alone.  The pointer is requested for the CUDA 12.0 ABI of the
 * function, the one the typedef below spells.
 *
 * Fixed choices: no interleave; element strides 1; out-of-bounds elements
 * filled with zeros (OOB fill NONE; never the NaN fill); L2 promotion 256B:
 * DRAM->L2 fills of 256 bytes.  Tiles are walked along their inner
 * dimension (the K loop of a GEMM, the KV loop of attention), so the 128
 * bytes past a 128-byte box row are usually the next stage's and are
 * fetched with this one; otherwise the cost over 128B promotion is at most
 * one extra 128-byte line per box row.
 *
 * Device side requirements the map does not check (see tlc_tma.cuh, "Box
 * origins and the tensor's edges"): the shared destination / source of a
 * copy 128-byte aligned, and 8 * swizzle_bytes aligned for the swizzled
 * layout to start at the tile base; the inner origin coordinate times the
 * element size a multiple of 16 bytes; store origins never negative.
 *
 * Stores and the inner extent.  A TMA store writes global memory in whole
 * 16-byte chunks along dimension 0: where dims[0] * element size is not a
 * multiple of 16, a store whose box crosses dims[0] also writes the bytes
 * of each in-range row up to the next 16-byte boundary (with the box's
 * values for those columns).  The launcher asks
 *
 *   int tlc_tma_store_overhang_bytes(int dtype_code, uint64_t dim0);
 *
 * for that byte count (0: stores are exact; -1: unknown dtype_code) and
 * stores with TMA only where it is 0 or the bytes are the tensor's own dead
 * padding; tlc_tma_encode does not refuse such maps, as loads through them
 * are exact and a store may never reach the last column. */
#ifndef TLC_TMA_HOST_CUH
#define TLC_TMA_HOST_CUH

#include <cuda.h> /* CUtensorMap and its enums: types only, no libcuda needed */
#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Element types, by size; TMA moves bits, and with the zero fill the
 * out-of-bounds value is all-zero bits, which is 0 / 0.0 in every type of
 * that size, so a code stands for all types of its size and kind. */
enum tlc_tma_dtype {
	TLC_TMA_U8 = 1,   /* uint8, int8, fp8 (1 byte) */
	TLC_TMA_F16 = 2,  /* float16 */
	TLC_TMA_BF16 = 3, /* bfloat16 */
	TLC_TMA_F32 = 4,  /* float32 */
	TLC_TMA_I32 = 5,  /* int32, uint32 */
	TLC_TMA_U16 = 6,  /* uint16, int16 */
	TLC_TMA_B64 = 7,  /* int64, uint64, float64 (8 bytes) */
};

namespace tlc {
namespace tma_detail {

typedef CUresult(CUDAAPI *encode_tiled_fn)(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                           cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
                                           const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                                           const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                           CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                           CUtensorMapFloatOOBfill oobFill);

static inline char *last_error_buf()
{
	static thread_local char buf[256];
	return buf;
}

/* Leave "tensor <what>: <message>" in the per-thread buffer; returns code. */
#if defined(__GNUC__)
static inline int fail(int code, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
static inline int fail(int code, const char *what, const char *fmt, ...)
{
	char *buf = last_error_buf();
	int n = snprintf(buf, 256, "tensor %s: ", what ? what : "?");
	if (n < 0 || n >= 256)
		n = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, (size_t)(256 - n), fmt, ap);
	va_end(ap);
	return code;
}

/* The driver's type and the element size of a dtype code; false if none. */
static inline bool dtype_info(int code, CUtensorMapDataType *t, unsigned *size)
{
	switch (code) {
	case TLC_TMA_U8: *t = CU_TENSOR_MAP_DATA_TYPE_UINT8; *size = 1; return true;
	case TLC_TMA_F16: *t = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; *size = 2; return true;
	case TLC_TMA_BF16: *t = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; *size = 2; return true;
	case TLC_TMA_F32: *t = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; *size = 4; return true;
	case TLC_TMA_I32: *t = CU_TENSOR_MAP_DATA_TYPE_INT32; *size = 4; return true;
	case TLC_TMA_U16: *t = CU_TENSOR_MAP_DATA_TYPE_UINT16; *size = 2; return true;
	case TLC_TMA_B64: *t = CU_TENSOR_MAP_DATA_TYPE_UINT64; *size = 8; return true;
	default: return false;
	}
}

static inline encode_tiled_fn lookup_encode_tiled()
{
	void *fn = nullptr;
	cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
	cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
#else
	cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q);
#endif
	if (e != cudaSuccess || q != cudaDriverEntryPointSuccess)
		return nullptr;
	return reinterpret_cast<encode_tiled_fn>(fn);
}

static inline encode_tiled_fn encode_tiled()
{
	static const encode_tiled_fn fn = lookup_encode_tiled();
	return fn;
}

} /* namespace tma_detail */
} /* namespace tlc */

/* The message of the last tlc_tma_encode of this thread ("" if it succeeded). */
static inline const char *tlc_tma_last_error(void)
{
	return tlc::tma_detail::last_error_buf();
}

/* How many bytes past the end of each row (dim0 elements of dtype_code) a
 * TMA store whose box crosses the row's end writes: the distance from
 * dim0 * element size to the next multiple of 16 (0 when it is one).  -1
 * for an unknown dtype_code. */
static inline __attribute__((unused)) int tlc_tma_store_overhang_bytes(int dtype_code, uint64_t dim0)
{
	CUtensorMapDataType t;
	unsigned esize;
	if (!tlc::tma_detail::dtype_info(dtype_code, &t, &esize))
		return -1;
	return (int)((16 - (dim0 * esize) % 16) % 16);
}

static inline int tlc_tma_encode(const char *what, CUtensorMap *map, int dtype_code, int rank,
                                 const void *global_addr, const uint64_t *dims, const uint64_t *strides_bytes,
                                 const uint32_t *box, int swizzle_bytes)
{
	using tlc::tma_detail::fail;
	const int inval = (int)cudaErrorInvalidValue, misal = (int)cudaErrorMisalignedAddress;
	tlc::tma_detail::last_error_buf()[0] = '\0';

	const char *null_arg = !map ? "tensor map" : !global_addr ? "global address" : !dims ? "dims" : !box ? "box"
	                     : rank > 1 && !strides_bytes ? "strides" : nullptr;
	if (null_arg)
		return fail(inval, what, "NULL %s", null_arg);
	if ((uintptr_t)map % 64 != 0)
		return fail(misal, what, "the CUtensorMap at %p is not 64-byte aligned", (const void *)map);
	if (rank < 1 || rank > 5)
		return fail(inval, what, "rank %d is not in 1..5", rank);
	CUtensorMapDataType dtype;
	unsigned esize;
	if (!tlc::tma_detail::dtype_info(dtype_code, &dtype, &esize))
		return fail(inval, what, "unknown element type code %d", dtype_code);
	if ((uintptr_t)global_addr % 16 != 0)
		return fail(misal, what, "global address %p is not 16-byte aligned", global_addr);

	cuuint64_t gdim[5], gstride[4];
	cuuint32_t bdim[5], estride[5];
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 1 || dims[i] > ((uint64_t)1 << 32))
			return fail(inval, what, "size %llu of dimension %d is not in [1, 2^32]",
			            (unsigned long long)dims[i], i);
		if (box[i] < 1 || box[i] > 256)
			return fail(inval, what, "box size %u of dimension %d is not in [1, 256]", (unsigned)box[i], i);
		gdim[i] = dims[i];
		bdim[i] = box[i];
		estride[i] = 1;
	}
	for (int i = 1; i < rank; i++) {
		uint64_t s = strides_bytes[i - 1];
		if (s % 16 != 0)
			return fail(misal, what, "global stride %llu bytes of dimension %d is not a multiple of 16",
			            (unsigned long long)s, i);
		if (s >= ((uint64_t)1 << 40))
			return fail(inval, what, "global stride %llu bytes of dimension %d is not below 2^40",
			            (unsigned long long)s, i);
		gstride[i - 1] = s;
	}
	uint64_t inner = (uint64_t)box[0] * esize;
	if (inner % 16 != 0)
		return fail(inval, what, "inner box extent %llu bytes (%u elements of %u bytes) is not a multiple of 16",
		            (unsigned long long)inner, (unsigned)box[0], esize);
	CUtensorMapSwizzle swz;
	switch (swizzle_bytes) {
	case 0: swz = CU_TENSOR_MAP_SWIZZLE_NONE; break;
	case 32: swz = CU_TENSOR_MAP_SWIZZLE_32B; break;
	case 64: swz = CU_TENSOR_MAP_SWIZZLE_64B; break;
	case 128: swz = CU_TENSOR_MAP_SWIZZLE_128B; break;
	default: return fail(inval, what, "swizzle of %d bytes is not 0, 32, 64 or 128", swizzle_bytes);
	}
	if (swizzle_bytes != 0 && inner > (uint64_t)swizzle_bytes)
		return fail(inval, what, "inner box extent %llu bytes exceeds the %d-byte swizzle span",
		            (unsigned long long)inner, swizzle_bytes);

	tlc::tma_detail::encode_tiled_fn fn = tlc::tma_detail::encode_tiled();
	if (!fn)
		return fail((int)cudaErrorNotSupported, what,
		            "the CUDA driver has no cuTensorMapEncodeTiled (needs a CUDA 12.0 or newer driver)");
	CUresult r = fn(map, dtype, (cuuint32_t)rank, const_cast<void *>(global_addr), gdim, gstride, bdim, estride,
	                CU_TENSOR_MAP_INTERLEAVE_NONE, swz, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
	                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS)
		return fail(inval, what, "cuTensorMapEncodeTiled failed with CUresult %d", (int)r);
	return (int)cudaSuccess;
}

#endif
