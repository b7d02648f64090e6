"""tilelang.utils.sparse: 2:4 structured-sparse matrices on the host, in
torch, in the format tlc's T.gemm_sp reads (doc/language.md, "Sparse gemm").

Of every 4 consecutive elements of a row of A along K at most 2 are
non-zero.  compress(A) returns A_sparse, the 2 kept values of each group in
order (M x K/2), and E, the metadata: a 4-bit field per group (the column in
the group of the first kept value in its low 2 bits, of the second in the
high 2), bits/4 groups per element of E's integer type (element [m, j] covers
A's columns j*bits .. j*bits + bits-1, group g of them in bits 4g .. 4g+3).

Two forms, as TileLang's releases have them:
- compress(A, transposed, block_k=..., arch=...): E is placed in memory as
  tilelang.layout.make_metadata_layout(E, mma_dtype, "cutlass", arch,
  block_k) places it (the layout a kernel annotates E with): uint8 on sm_90,
  int16 (int32 for 8-bit A) on sm_80.
- compress(A) / compress(A, meta_dtype): E row-major (int16 by default), the
  layout of a kernel that does not annotate E.
A group with more than 2 non-zeros keeps its first 2 (as TileLang's does);
with fewer, zeros fill the 2 kept places."""

_GROUP = 4


def _torch():
    import torch
    return torch


def _is_dtype(v):
    torch = _torch()
    return isinstance(v, torch.dtype)


def _capability(arch):
    if arch is None:
        from tilelang.contrib import nvcc
        arch = nvcc.get_target_compute_version()
    s = str(arch)
    for p in ("sm_", "sm"):
        if s.startswith(p):
            s = s[len(p):]
            break
    if "." in s:
        major, minor = s.split(".")[:2]
        return int(major), int(minor[:1] or 0)
    digits = "".join(c for c in s if c.isdigit())
    if len(digits) < 2:
        raise ValueError(f"compress: arch {arch!r} is no compute capability")
    return int(digits[:-1]), int(digits[-1])


def _signed(torch, x, bits, dtype):
    """int64 values of `bits` bits as the integer type `dtype` (two's complement)."""
    if dtype in (torch.int8, torch.int16, torch.int32):
        x = torch.where(x >= (1 << (bits - 1)), x - (1 << bits), x)
    return x.to(dtype)


def _bits(torch, dtype):
    return {torch.int8: 8, torch.uint8: 8, torch.int16: 16, torch.int32: 32}[dtype]


def _compress_rows(dense, meta_dtype):
    """(A_sparse, E) of a row-major M x K matrix, E logical (row-major)."""
    torch = _torch()
    M, K = dense.shape
    bits = _bits(torch, meta_dtype)
    if K % bits:
        raise ValueError(f"compress: K = {K} is not a multiple of the {bits} columns an element of "
                         f"{meta_dtype} metadata covers")
    groups = dense.reshape(M, K // _GROUP, _GROUP)
    column = torch.arange(_GROUP, device=dense.device)
    # the non-zero columns first, in order, then the zero ones
    key = (groups == 0).to(torch.int64) * _GROUP + column
    pos = key.argsort(dim=-1)[..., :2].sort(dim=-1).values
    kept = groups.gather(-1, pos).reshape(M, K // 2)
    field = pos[..., 0] | (pos[..., 1] << 2)
    per = bits // 4
    field = field.reshape(M, K // bits, per)
    shifts = (4 * torch.arange(per, device=dense.device)).to(torch.int64)
    meta = (field << shifts).sum(dim=-1)
    return kept.contiguous(), _signed(torch, meta, bits, meta_dtype)


def _sm90_offsets(torch, rows, cols, block_k, a_bits, device):
    nk = min(block_k, 128) * a_bits // 512
    if nk < 1 or min(block_k, 128) * a_bits % 512:
        raise ValueError(f"compress: block_k {block_k} must be a multiple of {512 // a_bits}")
    i = torch.arange(rows, device=device).view(-1, 1)
    j = torch.arange(cols, device=device).view(1, -1)
    row_atoms = (rows + 63) // 64
    if a_bits == 8:
        ak = 512 // a_bits  # a row-major 64 x 64 atom
        atom = 64 * ak
        return (i % 64) * ak + j % ak + (i // 64) * atom + (j // ak) * atom * row_atoms
    c0 = 2 if a_bits == 16 else 1
    s_c0, s_r1 = 1, c0
    s_c2 = 2 * s_r1
    s_r0 = s_c2 * nk
    s_c1, s_r2 = 8 * s_r0, 16 * s_r0
    atom = 64 * c0 * 2 * nk
    ri = (i % 8) * s_r0 + (i // 8 % 2) * s_r1 + (i // 16 % 4) * s_r2 + (i // 64) * atom
    kj = ((j % c0) * s_c0 + (j // c0 % 2) * s_c1 + (j // (2 * c0) % nk) * s_c2 +
          (j // (2 * c0 * nk)) * atom * row_atoms)
    return ri + kj


def _sm80_offsets(torch, rows, cols, device):
    i = torch.arange(rows, device=device).view(-1, 1)
    j = torch.arange(cols, device=device).view(1, -1)
    return (j // 2) * (rows * 2) + i * 2 + j % 2


def _place(torch, meta, offsets):
    if int(offsets.max()) >= meta.numel():
        raise ValueError(f"compress: metadata of shape {tuple(meta.shape)} does not fill whole atoms of "
                         f"its layout (rows a multiple of 64 on sm_90, K a multiple of block_k)")
    flat = torch.empty(meta.numel(), dtype=meta.dtype, device=meta.device)
    flat[offsets.reshape(-1)] = meta.reshape(-1)
    return flat.view(meta.shape)


def compress(A, transposed=None, block_k=None, arch=None, meta_dtype=None, **kwargs):
    """2:4-compress A (M x K; K x M with transposed=True): (A_sparse, E).
    A_sparse is M x K/2 (K/2 x M when transposed); E is M x K/bits."""
    torch = _torch()
    if _is_dtype(transposed):  # compress(A, meta_dtype), the later releases' form
        meta_dtype, transposed = transposed, None
    if A.dim() != 2:
        raise ValueError("compress: A must be 2-D")
    dense = A.t() if transposed else A
    dense = dense.contiguous()
    a_bits = dense.element_size() * 8
    if a_bits not in (8, 16):
        raise ValueError(f"compress: {A.dtype} is not supported (2:4 sparsity of 16- and 8-bit types)")
    cutlass = transposed is not None or block_k is not None or arch is not None
    cc = _capability(arch) if cutlass else None
    if meta_dtype is None:
        if cc is not None and cc[0] >= 9:
            meta_dtype = torch.uint8
        else:
            meta_dtype = torch.int16 if a_bits == 16 else torch.int32
    kept, meta = _compress_rows(dense, meta_dtype)
    if cutlass:
        rows, cols = meta.shape
        if cc[0] >= 9:
            if block_k is None:
                raise ValueError("compress: the sm_90 metadata layout needs block_k= (the kernel's block_K)")
            offsets = _sm90_offsets(torch, rows, cols, block_k, a_bits, meta.device)
        elif cc[0] >= 8:
            offsets = _sm80_offsets(torch, rows, cols, meta.device)
        else:
            raise ValueError(f"compress: arch {arch} has no sparse tensor cores (sm_80 or later)")
        meta = _place(torch, meta, offsets)
    if transposed:
        kept = kept.t().contiguous()
    return kept, meta


def compress_sm90(A, block_k, transposed=False):
    """compress(A, transposed, block_k=block_k, arch="9.0"): E uint8 in sm_90's layout."""
    return compress(A, transposed=bool(transposed), block_k=block_k, arch="9.0")


def compress_sm80(A, transposed=False):
    """compress(A, transposed, arch="8.0"): E int16 (int32 for 8-bit A) in sm_80's layout."""
    return compress(A, transposed=bool(transposed), arch="8.0")


def decompress(A_sparse, E, transposed=False):
    """The dense matrix of (A_sparse, E) with E row-major (compress(A) without
    a layout): the inverse of compress."""
    torch = _torch()
    kept = A_sparse.t() if transposed else A_sparse
    M, K = kept.shape[0], kept.shape[1] * 2
    bits = _bits(torch, E.dtype)
    meta = E.to(torch.int64) & ((1 << bits) - 1)
    shifts = 4 * torch.arange(bits // 4, device=E.device)
    field = ((meta.unsqueeze(-1) >> shifts) & 15).reshape(M, K // _GROUP)
    pos = torch.stack([field & 3, field >> 2], dim=-1)
    dense = torch.zeros(M, K // _GROUP, _GROUP, dtype=kept.dtype, device=kept.device)
    dense.scatter_(-1, pos, kept.reshape(M, K // _GROUP, 2))
    dense = dense.reshape(M, K)
    return dense.t().contiguous() if transposed else dense


def _semi_sparse(tensor, M, K, transposed):
    torch = _torch()
    groups = tensor.reshape(M, K // _GROUP, _GROUP)
    drop = torch.rand(groups.shape, device=tensor.device).topk(2, dim=-1).indices
    groups = groups.scatter(-1, drop, torch.zeros_like(groups))
    out = groups.reshape(M, K)
    return out.t().contiguous() if transposed else out


def randn_semi_sparse(M, K, dtype=None, device="cuda", transposed=False):
    """A random normal M x K matrix (K x M with transposed) with 2 of every 4
    elements along K zero."""
    torch = _torch()
    dtype = dtype or torch.float16
    t = torch.randn((M, K), dtype=torch.float32, device=device)
    return _semi_sparse(t, M, K, transposed).to(dtype)


def randint_semi_sparse(M, K, low, high, dtype=None, device="cuda", transposed=False):
    torch = _torch()
    dtype = dtype or torch.int32
    t = torch.randint(low, high, (M, K), dtype=dtype, device=device)
    return _semi_sparse(t, M, K, transposed)


def arange_semi_sparse(M, K, dtype=None, device="cuda", transposed=False):
    torch = _torch()
    dtype = dtype or torch.float16
    t = torch.arange(M * K, dtype=torch.float32, device=device).reshape(M, K)
    return _semi_sparse(t, M, K, transposed).to(dtype)
