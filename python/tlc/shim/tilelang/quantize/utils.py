"""tilelang.quantize.utils's packing of low-bit weights, written for tlc's
shim from the layouts the decoders of get_lop3_intrin_group read
(core/frontend/py/tilelang_quantize_intrin.py)."""
from .._inert import Inert


def general_compress(lowprecision_weight, source_bits=4, storage_dtype=None):
    """Packs the last dimension's values, 8 // source_bits to a byte, the
    first in the lowest bits, as int8 (then converted to storage_dtype)."""
    import torch
    if storage_dtype is None:
        storage_dtype = torch.int8
    per_byte = 8 // source_bits
    w = lowprecision_weight
    if w.dtype == torch.float16:
        w = w.to(torch.int8)
    w = w.to(torch.int32) & ((1 << source_bits) - 1)
    w = w.reshape(*w.shape[:-1], w.shape[-1] // per_byte, per_byte)
    packed = torch.zeros(w.shape[:-1], dtype=torch.int32, device=w.device)
    for k in range(per_byte):
        packed |= w[..., k] << (source_bits * k)
    # two's complement byte values, as int8
    packed = torch.where(packed >= 128, packed - 256, packed).to(torch.int8)
    return packed.to(storage_dtype)


def _position(o, nbits, target_dtype):
    """The bit at which the decoder of target_dtype reads field o of a
    32-bit word of nbits fields, so that it outputs the fields in order."""
    if target_dtype == "float16":
        if nbits == 4:  # output 2i: bit 4i, 2i+1: bit 16 + 4i
            return (o % 2) * 16 + (o // 2) * 4
        if nbits == 2:  # a call per 2 bytes: 2i from the first byte's field i
            c, r = divmod(o, 8)
            return (2 * c + r % 2) * 8 + (r // 2) * 2
        c, r = divmod(o, 8)  # a call per byte: 2i bit i, 2i+1 bit i + 4
        return 8 * c + r // 2 + 4 * (r % 2)
    # int8: output word k, byte j
    if nbits == 4:  # word k (k < 2), byte j: the field at bit 8j + 4k
        return 8 * (o % 4) + 4 * (o // 4)
    if nbits == 2:
        return 8 * (o % 4) + 2 * (o // 4)
    c, r = divmod(o, 16)  # a call per 2 bytes: bits k, k+8, k+4, k+12
    return 16 * c + r // 4 + (0, 8, 4, 12)[r % 4]


def interleave_weight(qweight, nbits=4, target_dtype="float16"):
    """qweight's fields (packed in order, as general_compress packs them)
    reordered within each 32-bit word into the order get_lop3_intrin_group's
    decoder to target_dtype ("float16" or "int8") reads, so that it outputs
    them in order.  Returns the words as int8."""
    import torch
    target_dtype = str(target_dtype)
    assert target_dtype in ["float16", "int8"], f"target_dtype {target_dtype}: float16 or int8"
    assert nbits in (1, 2, 4), f"nbits {nbits}: 1, 2 or 4"
    words = qweight.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    out = torch.zeros_like(words)
    mask = (1 << nbits) - 1
    for o in range(32 // nbits):
        out |= ((words >> (nbits * o)) & mask) << _position(o, nbits, target_dtype)
    out = torch.where(out >= 2**31, out - 2**32, out).to(torch.int32)
    return out.view(torch.int8)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Inert(f"{__name__}.{name}", warn=True)
