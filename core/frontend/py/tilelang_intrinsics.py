# tlc's model of TileLang's tilelang.intrinsics (mma_macro_generator,
# mma_layout, utils): the TensorCoreIntrinEmitter and the layout helpers that
# go with it, run by tlc's own evaluator (frontend_intrinsics.c embeds this
# file).  An emitter is a dict of its attributes; frontend_intrinsics.c
# makes it an object whose method NAME is the function
# TensorCoreIntrinEmitter__NAME below, called with the object first.
#
# The registers: lane l of a warp (g = l // 4, q = l % 4) holds the PTX
# ISA's fragments of mma.sync m16n8k16 (16-bit operands) / m16n8k32 (8-bit),
# w the operands in one 32-bit register (2 or 4):
#   A (16 x K), element e: row g + 8 * ((e // w) % 2), column q * w + e % w
#     + 4 * w * (e // (2 * w));
#   B (K x 8), element e: row q * w + e % w + 4 * w * (e // w), column g;
#   C (16 x 8), element e: row g + 8 * (e // 2), column 2 * q + e % 2.
# A warp tile of n_dim = 16 columns holds two of the B and C fragments one
# after the other (columns 0-7, then 8-15).  T.mma_sync is one instruction
# on such registers (tlc/ops.def).
import tilelang.language as T
from tvm import DataType

_WARP = 32
_M_DIM = 16
_ABBRV = {"float16": "fp16", "bfloat16": "bf16", "int8": "int8", "uint8": "uint8",
          "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "float32": "fp32", "int32": "int32"}


def _name(dtype):
    # the canonical spelling: "e4m3_float8", "float8_e4m3" and T.float8_e4m3fn alike
    return str(DataType(str(dtype)))


def _bits(dtype):
    return DataType(_name(dtype)).bits


def _abbrv(dtype, what):
    name = _name(dtype)
    if name not in _ABBRV:
        raise ValueError("TensorCoreIntrinEmitter: a dtype tlc does not support (float16, bfloat16, "
                         "int8, uint8, float8_e4m3 and float8_e5m2 operands with float32, int32 or "
                         "float16 accumulators)")
    return _ABBRV[name]


def TensorCoreIntrinEmitter(a_dtype="float16", b_dtype="float16", accum_dtype="float16",
                            a_transposed=False, b_transposed=False, block_row_warps=2,
                            block_col_warps=2, warp_row_tiles=8, warp_col_tiles=8, chunk=16,
                            reduce_k=1, num_elems_per_byte=1, is_m_first=False, thread_var=None):
    a_abbrv = _abbrv(a_dtype, "a_dtype")
    b_abbrv = _abbrv(b_dtype, "b_dtype")
    c_abbrv = _abbrv(accum_dtype, "accum_dtype")
    a_bits = _bits(a_dtype)
    if a_bits == 32:
        raise ValueError("TensorCoreIntrinEmitter: float32 (tf32, m16n8k8) operands are not supported "
                         "by tlc; use float16 or bfloat16 operands")
    if _bits(b_dtype) != a_bits:
        raise ValueError("TensorCoreIntrinEmitter: a_dtype and b_dtype differ in size")
    k_dim = 256 // a_bits
    if warp_row_tiles < 16 or warp_row_tiles % 16 != 0:
        raise ValueError("TensorCoreIntrinEmitter: warp_row_tiles must be a positive multiple of 16")
    if warp_col_tiles < 8 or warp_col_tiles % 8 != 0:
        raise ValueError("TensorCoreIntrinEmitter: warp_col_tiles must be a positive multiple of 8")
    n_dim = 16 if warp_col_tiles % 16 == 0 else 8
    return {
        "a_dtype": a_dtype, "b_dtype": b_dtype, "accum_dtype": accum_dtype,
        "a_transposed": a_transposed, "b_transposed": b_transposed,
        "block_row_warps": block_row_warps, "block_col_warps": block_col_warps,
        "warp_row_tiles": warp_row_tiles, "warp_col_tiles": warp_col_tiles, "chunk": chunk,
        "reduce_k": reduce_k, "num_elems_per_byte": num_elems_per_byte,
        "is_m_first": bool(is_m_first) if is_m_first is not None else False,
        "thread_var": thread_var,
        "M_DIM": _M_DIM, "n_dim": n_dim, "k_dim": k_dim, "WARP_SIZE": _WARP,
        "warp_rows": warp_row_tiles // _M_DIM, "warp_cols": warp_col_tiles // n_dim,
        "micro_size_x": _M_DIM, "micro_size_y": n_dim, "micro_size_k": k_dim,
        "local_size_a": _M_DIM * k_dim // _WARP, "local_size_b": n_dim * k_dim // _WARP,
        "local_size_out": _M_DIM * n_dim // _WARP,
        "threads": _WARP * block_row_warps * block_col_warps * reduce_k,
        "mma_prefix": f"m16n8k{k_dim}",
        "a_dtype_abbrv": a_abbrv, "b_dtype_abbrv": b_abbrv, "accum_dtype_abbrv": c_abbrv,
    }


def TensorCoreIntrinEmitter__get_thread_binding(self):
    if self.thread_var is None:
        return T.get_thread_binding(0)
    return self.thread_var


def TensorCoreIntrinEmitter__extract_thread_binding(self, thread_id, is_m_first=None):
    """(lane, warp_n, warp_m) of thread thread_id."""
    if is_m_first is None:
        is_m_first = self.is_m_first
    lane = thread_id % _WARP
    if is_m_first:
        warp_n = (thread_id // _WARP) % self.block_col_warps
        warp_m = (thread_id // (_WARP * self.block_col_warps)) % self.block_row_warps
    else:
        warp_m = (thread_id // _WARP) % self.block_row_warps
        warp_n = (thread_id // (_WARP * self.block_row_warps)) % self.block_col_warps
    return lane, warp_n, warp_m


def _thread(self, thread_binding, thread_bindings):
    if thread_binding is not None:
        return thread_binding
    if thread_bindings is not None:
        return thread_bindings
    return TensorCoreIntrinEmitter__get_thread_binding(self)


def _a_at(lane, e, w):
    return lane // 4 + 8 * ((e // w) % 2), lane % 4 * w + e % w + 4 * w * (e // (2 * w))


def _b_at(lane, e, w):
    return lane % 4 * w + e % w + 4 * w * (e // w), lane // 4


def _shared_at(buf, base, r, c):
    # element (r, c) of a 2-D shared tile, or of the part of one that starts
    # at `base` (a region: single indices before its last two dimensions)
    if base is None:
        if len(buf.shape) != 2:
            raise ValueError("ldmatrix: the shared operand must be a 2-D buffer or a part of one")
        return buf[r, c]
    n = len(base)
    r, c = base[n - 2] + r, base[n - 1] + c
    if n == 2:
        return buf[r, c]
    if n == 3:
        return buf[base[0], r, c]
    if n == 4:
        return buf[base[0], base[1], r, c]
    raise ValueError("ldmatrix: a part of a shared buffer of at most 4 dimensions")


def _old_positional(args, what):
    # TileLang 0.1's ldmatrix_a/b(local, shared, ki, thread_bindings, rk=0);
    # later releases: (local, shared, ki, rk=0)
    if len(args) == 2:
        return args[0], args[1]
    if len(args) == 1:
        return None, args[0]
    if len(args) == 0:
        return None, None
    raise TypeError("ldmatrix_a/ldmatrix_b take at most 5 positional arguments")


def TensorCoreIntrinEmitter__ldmatrix_a(self, A_local_buf, A_shared_buf, ki, *args, rk=None,
                                        thread_binding=None, thread_bindings=None, _base=None):
    tb, rk_pos = _old_positional(args, "ldmatrix_a")
    rk = rk if rk is not None else (rk_pos if rk_pos is not None else 0)
    tx = _thread(self, tb if tb is not None else thread_binding, thread_bindings)
    lane, _, warp_m = TensorCoreIntrinEmitter__extract_thread_binding(self, tx)
    w = 32 // _bits(self.a_dtype)
    n = self.local_size_a
    for i in T.unroll(self.warp_rows):
        wi = warp_m * self.warp_row_tiles + i * _M_DIM
        wk = rk * self.chunk + ki * self.micro_size_k
        for e in T.unroll(n):
            r, c = _a_at(lane, e, w)
            if self.a_transposed:
                A_local_buf[i * n + e] = _shared_at(A_shared_buf, _base, wk + c, wi + r)
            else:
                A_local_buf[i * n + e] = _shared_at(A_shared_buf, _base, wi + r, wk + c)


def TensorCoreIntrinEmitter__ldmatrix_b(self, B_local_buf, B_shared_buf, ki, *args, rk=None,
                                        thread_binding=None, thread_bindings=None, _base=None):
    tb, rk_pos = _old_positional(args, "ldmatrix_b")
    rk = rk if rk is not None else (rk_pos if rk_pos is not None else 0)
    tx = _thread(self, tb if tb is not None else thread_binding, thread_bindings)
    lane, warp_n, _ = TensorCoreIntrinEmitter__extract_thread_binding(self, tx)
    w = 32 // _bits(self.b_dtype)
    n = self.local_size_b
    per8 = self.micro_size_k // 4  # the registers of one 8-column fragment
    for j in T.unroll(self.warp_cols):
        wj = warp_n * self.warp_col_tiles + j * self.n_dim
        wk = rk * self.chunk + ki * self.micro_size_k
        for e in T.unroll(n):
            k, c = _b_at(lane, e % per8, w)
            c = c + 8 * (e // per8)
            if self.b_transposed:
                B_local_buf[j * n + e] = _shared_at(B_shared_buf, _base, wj + c, wk + k)
            else:
                B_local_buf[j * n + e] = _shared_at(B_shared_buf, _base, wk + k, wj + c)


def TensorCoreIntrinEmitter__mma(self, A_local_buf, B_local_buf, C_local_buf, k_inner=0):
    na, nb, nc = self.local_size_a, self.local_size_b, self.local_size_out
    for i in T.unroll(self.warp_rows):
        for j in T.unroll(self.warp_cols):
            c0 = i * self.warp_cols * nc + j * nc
            T.mma_sync(C_local_buf[c0], A_local_buf[i * na], B_local_buf[j * nb])
            if self.n_dim == 16:
                T.mma_sync(C_local_buf[c0 + nc // 2], A_local_buf[i * na],
                           B_local_buf[j * nb + nb // 2])


def _c_at(lane, e):
    # the accumulator of a 16 x n_dim tile: C fragments of 8 columns side by side
    return 8 * (e % 4 // 2) + lane // 4, 8 * (e // 4) + lane % 4 * 2 + e % 2


def TensorCoreIntrinEmitter__stmatrix(self, C_local_buf, C_buf, *args, pid_m=None, pid_n=None,
                                      thread_binding=None, thread_bindings=None):
    # TileLang 0.1: stmatrix(local, buf, thread_bindings, pid_m=None, pid_n=None);
    # later releases: stmatrix(local, buf, pid_m=None, pid_n=None)
    tb = None
    if len(args) == 1 or len(args) == 3:
        tb = args[0]
        args = args[1:]
    if len(args) == 2:
        pid_m, pid_n = args
    elif len(args) != 0:
        raise TypeError("stmatrix() takes C_local, C_buf, then thread_bindings and/or pid_m, pid_n")
    tx = _thread(self, tb if tb is not None else thread_binding, thread_bindings)
    lane, warp_n, warp_m = TensorCoreIntrinEmitter__extract_thread_binding(self, tx)
    nc = self.local_size_out
    ndim = len(C_buf.shape)
    is_global = pid_m is not None and pid_n is not None
    if not is_global and ndim != 2 and ndim != 4:
        raise ValueError("stmatrix: C_buf must have 2 or 4 dimensions (or pass pid_m and pid_n)")
    block_m = self.block_row_warps * self.warp_rows
    block_n = self.block_col_warps * self.warp_cols
    if self.reduce_k == 1:
        # each thread stores elements no other thread stores (sync-insert
        # then puts no barrier between the stores)
        with T.attr("thread_private", 1):
            _store(self, C_local_buf, C_buf, lane, warp_n, warp_m, pid_m, pid_n, is_global, ndim,
                   block_m, block_n)
    else:
        _store(self, C_local_buf, C_buf, lane, warp_n, warp_m, pid_m, pid_n, is_global, ndim,
               block_m, block_n)


def _store(self, C_local_buf, C_buf, lane, warp_n, warp_m, pid_m, pid_n, is_global, ndim, block_m,
           block_n):
    nc = self.local_size_out
    for i in T.unroll(self.warp_rows):
        for j in T.unroll(self.warp_cols):
            for e in T.unroll(nc):
                row, col = _c_at(lane, e)
                v = C_local_buf[i * self.warp_cols * nc + j * nc + e]
                if is_global:
                    C_buf[(pid_m * block_m + warp_m * self.warp_rows + i) * _M_DIM + row,
                          (pid_n * block_n + warp_n * self.warp_cols + j) * self.n_dim + col] = v
                elif ndim == 2:
                    C_buf[(warp_m * self.warp_rows + i) * _M_DIM + row,
                          (warp_n * self.warp_cols + j) * self.n_dim + col] = v
                else:
                    C_buf[warp_m * self.warp_rows + i, warp_n * self.warp_cols + j, row, col] = v


def TensorCoreIntrinEmitter__make_mma_store_layout(self, local_buf):
    nc, ndim_ = self.local_size_out, self.n_dim
    wr, wc = self.warp_rows, self.warp_cols

    def thread(i, j):
        bi, bj = (i // _M_DIM) // wr, (j // ndim_) // wc
        mi, mj = i % _M_DIM, j % ndim_
        lane = (mi % 8) * 4 + (mj % 8) // 2
        if self.is_m_first:
            return bi * (self.block_col_warps * _WARP) + bj * _WARP + lane
        return bj * (self.block_row_warps * _WARP) + bi * _WARP + lane

    def index(i, j):
        wi, wj = (i // _M_DIM) % wr, (j // ndim_) % wc
        mi, mj = i % _M_DIM, j % ndim_
        return wi * (wc * nc) + wj * nc + (mj // 8) * 4 + (mi // 8) * 2 + mj % 2

    return T.Fragment(local_buf.shape, forward_thread_fn=thread, forward_index_fn=index)


def TensorCoreIntrinEmitter__make_mma_load_layout(self, local_buf, matrix="A"):
    raise NotImplementedError("TensorCoreIntrinEmitter.make_mma_load_layout is not supported by tlc: "
                              "keep the operand registers in T.alloc_local buffers filled by "
                              "ldmatrix_a / ldmatrix_b")


# ---- tilelang.intrinsics.utils / mma_layout ----

def mma_store_index_map(thread_id, local_id):
    return _c_at(thread_id, local_id)


def mma_32x8_to_shared_16x16_layout(thread_id, local_id):
    return _c_at(thread_id, local_id)


def shared_16x16_to_mma_32x8_layout(i, j):
    return 4 * (i % 8) + (j % 8) // 2, 4 * (j // 8) + (i // 8) * 2 + j % 2


def index_to_coordinates(index, shape):
    """The row-major coordinates of flat element `index` of an array of `shape`."""
    coords = []
    for extent in reversed(list(shape)):
        coords.append(index % extent)
        index = index // extent
    return list(reversed(coords))


def get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None):
    bits = _bits(dtype)
    row_bytes = bits * row_size // 8
    if row_bytes % 32 != 0:
        raise ValueError("get_swizzle_layout: a row must be a multiple of 32 bytes")
    if swizzle_bytes is None:
        swizzle_bytes = min(128, row_bytes)
    per16 = 128 // bits
    chunk = (col_idx // per16) ^ (row_idx % (swizzle_bytes // 16))
    return row_idx, chunk * per16 + col_idx % per16


def make_mma_swizzle_layout(shared_buf, is_smooth=False):
    shape = shared_buf.shape
    bits = _bits(shared_buf.dtype)
    if is_smooth or shape[-1] * bits % 512 != 0:
        return T.Layout(shape, lambda *args: list(args))

    def swizzled(*args):
        r, c = get_swizzle_layout(args[-2], args[-1], shape[-1], shared_buf.dtype)
        return list(args[:-2]) + [r, c]

    return T.Layout(shape, swizzled)
