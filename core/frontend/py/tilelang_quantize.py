# tilelang.quantize (also imported as tilelang.quantize.quantization and
# bitblas.quantization) as tlc runs it: the expression builders TileLang's
# dequantizing kernels import, written for tlc from what each computes
# (doc/language.md, "tilelang.quantize").  Each builds a kernel expression
# with tvm.tir, so tlc's frontend types it as TileLang's does, and it gives
# the bits TileLang's generated code gives on the GPU.  This file is
# compiled into libtlc (scripts/embed.sh) and run by the frontend's
# evaluator; a name TileLang's module has and this one lacks (weight
# packing on the host) is an opaque host value.  The C decoders for
# T.import_source are tilelang_quantize_intrin.py's.
from tvm import tir
from tilelang.quantize.lop3 import get_lop3_intrin_group  # noqa: F401
from tilelang.quantize.mxfp import get_mxfp_intrin_group  # noqa: F401


def _k(v, t):
    return tir.const(v, t)


def _u(bits):
    return "uint" + str(bits)


def _field(val, pos, nbit, t):
    # the nbit-wide field number pos of val, in the unsigned type t
    return (val.astype(t) >> (tir.Cast(t, pos) * _k(nbit, t))) & _k((1 << nbit) - 1, t)


def _check_storage(val, storage_dtype):
    assert val.dtype == storage_dtype, f"{val.dtype} != {storage_dtype}"


def _tir_packed_to_unsigned_convert(storage_type="uint", storage_nbit=8):
    storage_dtype = storage_type + str(storage_nbit)

    def f_convert(nbit, val, pos, dtype):
        _check_storage(val, storage_dtype)
        mask = _k((1 << nbit) - 1, storage_dtype)
        return ((val >> tir.Cast(storage_dtype, pos * nbit)) & mask).astype(dtype)

    return f_convert


def _tir_packed_to_unsigned_convert_with_zeros(storage_type="uint", storage_nbit=8):
    storage_dtype = storage_type + str(storage_nbit)

    def f_convert(nbit, val, pos, zero, dtype):
        _check_storage(val, storage_dtype)
        mask = _k((1 << nbit) - 1, storage_dtype)
        return (((val >> tir.Cast(storage_dtype, pos * nbit)) & mask) - zero).astype(dtype)

    return f_convert


def _tir_packed_to_signed_convert(storage_type="uint", storage_nbit=8):
    storage_dtype = storage_type + str(storage_nbit)

    def f_convert(nbit, val, pos, dtype):
        _check_storage(val, storage_dtype)
        # the field, unsigned, minus the bias 2^(nbit-1)
        field = (val >> (tir.Cast("uint32", pos) * _k(nbit, "uint32"))) & _k(
            (1 << nbit) - 1, "uint32")
        return field.astype(dtype) - _k(1 << (nbit - 1), dtype)

    return f_convert


def _tir_packed_int_to_int_convert(storage_type="uint", storage_nbit=8):
    storage_dtype = storage_type + str(storage_nbit)

    def f_convert(nbit, val, pos, dtype):
        _check_storage(val, storage_dtype)
        # the field in int32, sign-extended from its top bit
        field = (val >> (tir.Cast("int32", pos) * _k(nbit, "int32"))) & _k((1 << nbit) - 1, "int32")
        up = _k(32 - nbit, "int32")
        return tir.Cast(dtype, (field << up) >> up)

    return f_convert


def _tir_packed_uint_to_uint_to_float(storage_nbit):
    storage_dtype = "uint" + str(storage_nbit)

    def f_convert(nbit, val, pos, dtype):
        _check_storage(val, storage_dtype)
        field = (val >> (tir.Cast("uint32", pos) * _k(nbit, "uint32"))) & _k(
            (1 << nbit) - 1, "uint32")
        return field.astype(dtype) - _k((1 << (nbit - 1)) - 1, dtype)

    return f_convert


def _tir_packed_int_to_int_to_float(storage_nbit):
    return _tir_packed_int_to_int_convert("int", storage_nbit)


def _tir_u32_to_int_to_float(nbit, val, pos, dtype):
    assert val.dtype == "uint32"
    mask = _k((1 << nbit) - 1, "uint32")
    return tir.Cast(dtype, (val >> tir.Cast("uint32", pos * nbit)) & mask)


def _e3m0_to_f16(f4):
    # TileLang's 4-bit decode to float16: bit 3 the sign, bits 0-2 an
    # exponent e, the value 2^(e - 7) (no mantissa bit), +0 when e is 0
    s = f4 >> _k(3, "uint16")
    e = f4 & _k(7, "uint16")
    bits = ((e | _k(8, "uint16")) | (s << _k(5, "uint16"))) << _k(10, "uint16")
    return tir.Select(e == _k(0, "uint16"), _k(0, "float16"), tir.reinterpret("float16", bits))


def _tir_packed_to_fp4_to_f16(storage_type="uint", storage_nbit=8):
    storage_dtype = storage_type + str(storage_nbit)

    def f_convert(nbit, val, pos, dtype):
        _check_storage(val, storage_dtype)
        # computed in 16 bits at least: TileLang's C code shifts the 8-bit
        # field left by 10 after C's promotion to int
        t = _u(max(storage_nbit, 16))
        f4 = (val.astype(t) >> (tir.Cast(t, pos) * _k(nbit, t))) & _k((1 << nbit) - 1, t)
        return _e3m0_to_f16(f4.astype("uint16"))

    return f_convert


def _tir_u32_to_f4_to_f32(nbit, val, pos, dtype):
    assert nbit == 4
    assert dtype == "float32"
    assert val.dtype == "uint32"
    f4 = _field(val, pos, nbit, "uint32")
    s = f4 >> _k(3, "uint32")
    e = f4 & _k(7, "uint32")
    # exponent e + 120: the value 2^(e - 7), +0 when e is 0
    bits = ((e | _k(120, "uint32")) | (s << _k(8, "uint32"))) << _k(23, "uint32")
    return tir.Select(e == _k(0, "uint32"), _k(0, "float32"), tir.reinterpret("float32", bits))


def _tir_u32_to_f4_to_f16(nbit, val, pos, dtype):
    assert nbit == 4
    assert dtype == "float16"
    assert val.dtype == "uint32"
    return _e3m0_to_f16(_field(val, pos, nbit, "uint32").astype("uint16"))


def _e2m1_to_bf16_bits(f4, scale):
    # float4_e2m1 (sign, 2 exponent bits, 1 mantissa bit) as bfloat16 bits,
    # its exponent rebiased by 126 and raised by scale (at most 255); a zero
    # exponent field is read as a normal number too, as TileLang does
    s = f4 >> _k(3, "uint16")
    e = (f4 & _k(6, "uint16")) >> _k(1, "uint16")
    m = f4 & _k(1, "uint16")
    e_bf16 = tir.min(e + _k(126, "uint16") + tir.Cast("uint16", scale), _k(255, "uint16"))
    return (((s << _k(8, "uint16")) | e_bf16) << _k(7, "uint16")) | (m << _k(6, "uint16"))


def _tir_u8_to_f4_to_bf16(nbit, val, pos, scale, dtype):
    assert nbit == 4
    assert dtype == "bfloat16"
    assert val.dtype == "uint8"
    return tir.reinterpret("bfloat16", _e2m1_to_bf16_bits(_field(val, pos, nbit, "uint16"), scale))


def _tir_u8_to_f8_e4m3_to_f16(nbit, val, dtype):
    assert nbit == 8
    assert dtype == "float16"
    # float8_e4m3fn converts to float16 exactly (subnormals included)
    return tir.reinterpret("float8_e4m3fn", val.astype("uint8")).astype("float16")


def _tir_u8_to_f8_e4m3_to_f16_naive(nbit, val, dtype):
    return _tir_u8_to_f8_e4m3_to_f16(nbit, val, dtype)


def _tir_u8_to_f8_e5m2_to_f16(nbit, val, dtype):
    assert nbit == 8
    assert dtype == "float16"
    return tir.reinterpret("float8_e5m2", val.astype("uint8")).astype("float16")


def _tir_f32x2_to_bf16x2_to_u32(v0, v1, round_to_even=True):
    # two float32 values as bfloat16 bits, v0 in the low half: rounded to
    # nearest even unless round_to_even is False (truncated); an infinity
    # or NaN is truncated
    halves = []
    for v in [v0, v1]:
        u = tir.reinterpret("uint32", v)
        if round_to_even:
            exp = (u >> _k(23, "uint32")) & _k(255, "uint32")
            bias = ((u >> _k(16, "uint32")) & _k(1, "uint32")) + _k(0x7FFF, "uint32")
            u = tir.Select(exp == _k(255, "uint32"), u, u + bias)
        halves.append((u >> _k(16, "uint32")) & _k(0xFFFF, "uint32"))
    return halves[0] | (halves[1] << _k(16, "uint32"))


def _tir_u32_to_bf16x2_to_f32x2(x):
    lo = x & _k(0xFFFF, "uint32")
    hi = (x >> _k(16, "uint32")) & _k(0xFFFF, "uint32")
    return (tir.reinterpret("float32", lo << _k(16, "uint32")),
            tir.reinterpret("float32", hi << _k(16, "uint32")))


def _f4_exponent(e, m_h, bias):
    # the 3-bit exponent of the value whose exponent field is e (bias the
    # field of 2^-7 ... 2^0 minus one), rounded up by the first dropped
    # mantissa bit m_h, saturating at 7; 1 at the bias, 0 below it
    return tir.Select(e > _k(bias, "uint32"),
                      tir.min(e - _k(bias, "uint32") + m_h, _k(7, "uint32")),
                      tir.Select(e == _k(bias, "uint32"), _k(1, "uint32"), _k(0, "uint32")))


def _tir_f32_to_uint_to_f4(val):
    assert val.dtype == "float32"
    u = tir.reinterpret("uint32", val)
    m_h = (u >> _k(22, "uint32")) & _k(1, "uint32")
    e = (u >> _k(23, "uint32")) & _k(255, "uint32")
    return ((u >> _k(31, "uint32")) << _k(3, "uint32")) | _f4_exponent(e, m_h, 120)


def _tir_f16_to_uint_to_f4(val):
    assert val.dtype == "float16"
    u = tir.Cast("uint32", tir.reinterpret("uint16", val))
    m_h = (u >> _k(9, "uint32")) & _k(1, "uint32")
    e = (u >> _k(10, "uint32")) & _k(31, "uint32")
    return ((u >> _k(15, "uint32")) << _k(3, "uint32")) | _f4_exponent(e, m_h, 8)
