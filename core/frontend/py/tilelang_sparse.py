# TileLang's 2:4 structured-sparse gemm as tlc runs it: T.gemm_sp /
# T.gemm_sp_v2 and tilelang.layout's metadata layouts (make_metadata_layout,
# make_cutlass_metadata_layout), written for tlc from what they mean
# (doc/language.md, "Sparse gemm").  This file is compiled into libtlc
# (scripts/embed.sh) and run by the frontend's evaluator; frontend_sparse.c
# hands its functions out under TileLang's names.
#
# The format (TileLang's, and what tlc's tilelang.utils.sparse.compress
# writes): of every 4 consecutive elements of a row of A along K at most 2
# are non-zero.  A_sparse keeps 2 values per group of 4, in order; E, of an
# integer type of `bits` bits, keeps a 4-bit field per group, bits / 4 groups
# per element (element [m, j] covers A's columns j * bits .. j * bits +
# bits - 1, group g of them in bits 4g .. 4g + 3): the low 2 bits the column
# in the group of the first kept value, the next 2 that of the second.  The
# layouts below only place E's elements in memory.
import tilelang.language as T
from tvm import DataType

_GROUP = 4  # a group of A's columns along K
_KEPT = 2   # of which at most this many are non-zero
_FIELD = 4  # bits of metadata per group: 2 column indices of 2 bits

_TARGET_ARCH = None  # "9.0" / "8.0": the compile target's, set by frontend_sparse.c


def _bits(dtype):
    return DataType(str(dtype)).bits


def _arch(arch):
    # "9.0", "sm90", "sm_90a", 90 -> (9, 0)
    if arch is None:
        arch = _TARGET_ARCH
    assert arch is not None, "make_metadata_layout: no arch= given and the target is no NVIDIA GPU"
    s = str(arch)
    if s.startswith("sm_"):
        s = s[3:]
    elif s.startswith("sm"):
        s = s[2:]
    if "." in s:
        parts = s.split(".")
        return int(parts[0]), int(parts[1][:1])
    digits = ""
    for c in s:
        if c in "0123456789":
            digits = digits + c
    assert len(digits) >= 2, "make_metadata_layout: arch '" + str(arch) + "' is no compute capability"
    return int(digits[:-1]), int(digits[-1])


def _sm90_layout(buffer, mma_dtype, block_k):
    # CUTLASS's sm90 sparse-WGMMA metadata atom: 64 rows by block_k / 8
    # bytes (block_k at most 128), repeated over the buffer, atoms down the
    # rows first.  Within the atom a row index is the digits (8, 2, 4) and a
    # column index (16-bit A) the digits (2, 2, block_k // 32), lowest first;
    # the digits' strides, from 1 up, follow the order col0, row1, col2, row0,
    # col1, row2.
    assert block_k is not None, "make_metadata_layout: the sm90 layout needs block_k= (the gemm's block_K)"
    if block_k > 128:
        block_k = 128
    bits = {"float16": 16, "bfloat16": 16, "float32": 32, "int8": 8, "float8": 8}
    assert mma_dtype in bits, ("make_metadata_layout: unsupported mma_dtype '" + str(mma_dtype) +
                               "' (float16, bfloat16, float32, int8 or float8)")
    assert _bits(buffer.dtype) == 8, ("make_metadata_layout: sm90 metadata is 8-bit (uint8 or int8), got " +
                                      str(buffer.dtype))
    atom_k = 512 // bits[mma_dtype]
    assert block_k % atom_k == 0, ("make_metadata_layout: block_k " + str(block_k) +
                                   " must be a multiple of " + str(atom_k) + " for " + mma_dtype)
    nk = block_k // atom_k
    rows, cols = buffer.shape[0], buffer.shape[1]
    if bits[mma_dtype] == 8:
        # a row-major 64 x atom_k atom
        ri, rk = [64], [atom_k]
        si, sk = [atom_k], [1]
    else:
        c0 = 2 if bits[mma_dtype] == 16 else 1
        ri, rk = [8, 2, 4], [c0, 2, nk]
        # strides in the order col0, row1, col2, row0, col1, row2
        s_c0 = 1
        s_r1 = c0
        s_c2 = s_r1 * 2
        s_r0 = s_c2 * nk
        s_c1 = s_r0 * 8
        s_r2 = s_c1 * 2
        si, sk = [s_r0, s_r1, s_r2], [s_c0, s_c1, s_c2]
    atom_rows, atom_cols = 1, 1
    for r in ri:
        atom_rows = atom_rows * r
    for r in rk:
        atom_cols = atom_cols * r
    atom = atom_rows * atom_cols
    row_atoms = (rows + atom_rows - 1) // atom_rows

    def digits(x, radix, strides, whole):
        off = 0
        for d in range(len(radix)):
            off = off + x % radix[d] * strides[d]
            x = x // radix[d]
        return off + x * whole

    def place(i, k):
        return digits(i, ri, si, atom) + digits(k, rk, sk, atom * row_atoms)

    return T.Layout((rows, cols), place)


def _sm8x_layout(buffer, mma_dtype):
    # CUTLASS's sm80 metadata: column-major, pairs of columns interleaved
    if mma_dtype in ("float16", "bfloat16"):
        assert _bits(buffer.dtype) == 16, ("make_metadata_layout: sm80 metadata of " + mma_dtype +
                                           " is 16-bit (int16 or uint16), got " + str(buffer.dtype))
    if mma_dtype in ("float8", "int8", "uint8"):
        assert _bits(buffer.dtype) == 32, ("make_metadata_layout: sm80 metadata of " + mma_dtype +
                                           " is 32-bit (int32 or uint32), got " + str(buffer.dtype))
    rows, cols = buffer.shape[0], buffer.shape[1]

    def place(i, j):
        return j // 2 * (rows * 2) + i * 2 + j % 2

    return T.Layout((rows, cols), place)


def make_metadata_layout(buffer, mma_dtype="float16", backend="cutlass", arch=None, block_k=None,
                         **extra_args):
    assert backend == "cutlass", ("make_metadata_layout: backend '" + str(backend) +
                                  "' is not supported (TileLang's layouts are backend='cutlass')")
    cc = _arch(arch)
    if cc[0] >= 9:
        return _sm90_layout(buffer, mma_dtype, block_k)
    if cc[0] >= 8:
        return _sm8x_layout(buffer, mma_dtype)
    assert False, "make_metadata_layout: arch " + str(arch) + " has no sparse tensor cores (sm_80 or later)"


def make_cutlass_metadata_layout(buffer, mma_dtype="float16", arch=None, block_k=None, **extra_args):
    return make_metadata_layout(buffer, mma_dtype=mma_dtype, backend="cutlass", arch=arch,
                                block_k=block_k, **extra_args)


def _whole(name, what, buf):
    assert len(buf.shape) == 2, name + ": " + what + " must be a whole 2-D buffer (a shared or fragment tile)"


def _gemm_sp(name, A_sparse, E, B, C, transpose_A, transpose_B, transpose_E, policy, clear_accum,
             k_pack, wg_wait):
    _whole(name, "A_sparse", A_sparse)
    _whole(name, "E", E)
    _whole(name, "B", B)
    _whole(name, "C", C)
    M, N = C.shape[0], C.shape[1]
    K = B.shape[1] if transpose_B else B.shape[0]
    ka = A_sparse.shape[0] if transpose_A else A_sparse.shape[1]
    am = A_sparse.shape[1] if transpose_A else A_sparse.shape[0]
    assert ka * _KEPT == K and am == M, (name + ": A_sparse " + str(A_sparse.shape) + " must be " +
                                         ("(K / 2, M)" if transpose_A else "(M, K / 2)") + " for B " +
                                         str(B.shape) + " and C " + str(C.shape))
    assert _bits(A_sparse.dtype) in (8, 16), (
        name + ": A of " + str(A_sparse.dtype) + " is not supported: tlc's sparse gemm is 2:4 sparsity of "
        "16- and 8-bit types (TileLang's float32 sparse gemm is 1:2)")
    ebits = _bits(E.dtype)
    assert str(E.dtype) in ("int8", "uint8", "int16", "uint16", "int32", "uint32"), (
        name + ": E must be of an integer type of 8, 16 or 32 bits, got " + str(E.dtype))
    per = ebits // _FIELD * _GROUP  # A's columns one element of E covers
    assert K % per == 0, (name + ": K = " + str(K) + " is not a multiple of the " + str(per) +
                          " columns an element of " + str(E.dtype) + " metadata covers")
    e_t = transpose_E
    e_shape = (K // per, M) if e_t else (M, K // per)
    assert E.shape[0] == e_shape[0] and E.shape[1] == e_shape[1], (
        name + ": E " + str(E.shape) + " must be " + ("(K / " if e_t else "(M, K / ") + str(per) +
        (", M)" if e_t else ")") + " = " + str(e_shape))
    # A as a dense tile: each element the kept value its group's field names,
    # else 0; then the dense product (tensor cores on every target)
    A_dense = T.alloc_shared((K, M) if transpose_A else (M, K), A_sparse.dtype)
    for i, k in T.Parallel(M, K):
        meta = T.Cast("int32", E[k // per, i] if e_t else E[i, k // per])
        field = (meta >> (k % per // _GROUP * _FIELD)) & 15
        col = k % _GROUP
        at = k // _GROUP * _KEPT
        first = A_sparse[at, i] if transpose_A else A_sparse[i, at]
        second = A_sparse[at + 1, i] if transpose_A else A_sparse[i, at + 1]
        v = T.if_then_else(col == (field & 3), first,
                           T.if_then_else(col == (field >> 2), second, T.cast(0, A_sparse.dtype)))
        if transpose_A:
            A_dense[k, i] = v
        else:
            A_dense[i, k] = v
    T.gemm(A_dense, B, C, transpose_A, transpose_B, policy=policy, clear_accum=clear_accum,
           k_pack=k_pack, wg_wait=wg_wait)


def gemm_sp(A_sparse, E, B, C, transpose_A=False, transpose_B=False, policy=T.GemmWarpPolicy.Square,
            clear_accum=False, k_pack=1, wg_wait=0):
    _gemm_sp("T.gemm_sp", A_sparse, E, B, C, transpose_A, transpose_B, False, policy, clear_accum,
             k_pack, wg_wait)


def gemm_sp_v2(A_sparse, E, B, C, transpose_A=False, transpose_B=False, transpose_E=False,
               policy=T.GemmWarpPolicy.Square, clear_accum=False, k_pack=1, wg_wait=0):
    _gemm_sp("T.gemm_sp_v2", A_sparse, E, B, C, transpose_A, transpose_B, transpose_E, policy,
             clear_accum, k_pack, wg_wait)
