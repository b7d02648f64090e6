# tilelang.quantize's C decoders (get_lop3_intrin_group, tilelang.quantize.lop3;
# get_mxfp_intrin_group, tilelang.quantize.mxfp) as tlc runs them: each
# returns {"func_name": ..., "c_source": ...}, the CUDA code a kernel
# passes to T.import_source and the function it calls with T.call_extern.
# The functions' names, parameters and results are TileLang's; the C code
# is tlc's own, written from the formats (doc/language.md,
# "tilelang.quantize"), in plain integer and fp16 arithmetic that nvcc
# turns into LOP3/PRMT itself.  This file is compiled into libtlc
# (scripts/embed.sh) and run by the frontend's evaluator.
#
# The packed layouts (what TileLang's decoders read; the host packs to
# match, e.g. with interleave_weight):
#   int4 -> fp16, N values from one 32-bit word w: output 2i is the field
#     at bit 4i, output 2i+1 the field at bit 16+4i;
#   int2 -> fp16, from 16 bits (bytes b0, b1): output 2i is field i of b0,
#     output 2i+1 field i of b1;
#   int1 -> fp16, from one byte: output 2i is bit i, output 2i+1 bit i+4.
#   A "uint" field is its value, an "int" one is offset binary (the field
#   minus 8, 2 or, for one bit, 2b-1).  Scales and zeros are converted to
#   fp16 and applied in fp16 (fma.rn: one rounding), per mode:
#   original (v - zero) * scale; rescale v * scale - |zero| (int4, int1),
#   v * scale - zero (int2); quantized (v - zero) * scale, the zero an
#   integer read as int16 from the zeros pointer.  The "_offset" forms
#   (storage_scope="warp") take the scale (and zero) of the first N/2
#   outputs at [0] and of the rest at [offset].
#   to int8, N = 16 values per call, 4 to a 32-bit output word k
#   (byte j of word k): int4 from two words w0, w1: word k < 2 holds the
#   fields at bit 8j+4k of w0, word k+2 those of w1 (signed: field - 7);
#   int2 from one word: field at bit 8j+2k (signed: field - 2); int1 from
#   16 bits: bits k, k+8, k+4, k+12 (signed: 2b - 1).  int2 -> int4: word
#   k holds, in nibble j, the 2-bit field at bit 4j+2k (signed the same).
#   fp4 (e2m1: sign, 2 exponent bits, 1 mantissa bit; 0, 0.5, 1, 1.5, 2, 3,
#   4, 6) -> bfloat16, "twiddled": each 16 bits (the first byte the high
#   one) hold four values, value x's sign, exponent high, exponent low and
#   mantissa bits at bit (15, 8, 7, 6) x=0, (12, 5, 4, 3) x=1,
#   (9, 2, 1, 0) x=2, (14, 11, 10, 13) x=3; the four of bytes 4i, 4i+1
#   are outputs 8i..8i+3, those of bytes 4i+2, 4i+3 outputs 8i+4..8i+7.

_COMMON = """
#ifndef TLC_DQ_COMMON
#define TLC_DQ_COMMON
// tlc's decoders of tilelang.quantize's packed formats (get_lop3_intrin_group,
// get_mxfp_intrin_group).  A 32-bit word of fp16 results holds output 2i in
// its low half and output 2i+1 in its high half.
__device__ __forceinline__ __half2 tlc_dq_h2(uint32_t u)
{
	__half2 h;
	__builtin_memcpy(&h, &u, sizeof(h));
	return h;
}

__device__ __forceinline__ uint32_t tlc_dq_u32(__half2 h)
{
	uint32_t u;
	__builtin_memcpy(&u, &h, sizeof(u));
	return u;
}

// v in fp16 (round to nearest even), in both halves
template <typename T>
__device__ __forceinline__ __half2 tlc_dq_splat(T v)
{
	__half x = __float2half_rn((float)v);
	return __halves2half2(x, x);
}

// NB-bit fields spread over one word: pair i is the field at bit NB*i in the
// low half and the field at bit 16+NB*i in the high half.  4 bits: the word
// as stored; 2 bits: byte 0 low, byte 1 high; 1 bit: a byte's low nibble
// low, its high nibble high.
template <int NB, typename T1>
__device__ __forceinline__ uint32_t tlc_dq_spread(const T1 *src)
{
	if (NB == 4) {
		uint32_t w;
		__builtin_memcpy(&w, src, 4);
		return w;
	}
	if (NB == 2) {
		uint16_t v;
		__builtin_memcpy(&v, src, 2);
		return (v & 0xffu) | ((uint32_t)(v >> 8) << 16);
	}
	uint32_t b = *reinterpret_cast<const uint8_t *>(src);
	return (b & 0x0fu) | ((b & 0xf0u) << 12);
}

// pair i's two fields as fp16 1024 + field: the field in the mantissa of
// 2^10 (0x6400), exact for fields below 1024
template <int NB>
__device__ __forceinline__ __half2 tlc_dq_biased(uint32_t w, int i)
{
	const uint32_t mask = ((1u << NB) - 1u) * 0x00010001u;
	return tlc_dq_h2(((w >> (NB * i)) & mask) | 0x64006400u);
}

// pair i's integer values, exact in fp16: a field, or (SIGNED) the field
// minus 2^(NB-1); a signed bit b stands for 2b - 1
template <int NB, bool SIGNED>
__device__ __forceinline__ __half2 tlc_dq_int(uint32_t w, int i)
{
	__half2 q = tlc_dq_biased<NB>(w, i);
	if (NB == 1 && SIGNED) {
		__half2 b = __hsub2(q, tlc_dq_h2(0x64006400u));
		return __hadd2(__hadd2(b, b), tlc_dq_h2(0xbc00bc00u)); // 0xbc00: -1.0
	}
	const uint32_t bias = SIGNED ? (1u << (NB - 1)) * 0x00010001u : 0u;
	return __hsub2(q, tlc_dq_h2(0x64006400u + bias));
}

// -1024 - z in fp16 (0xe400 is -1024.0; z, a small integer, its mantissa)
// in both halves, from the 16 bits z as C's int arithmetic combines them
__device__ __forceinline__ __half2 tlc_dq_neg_biased_zero(int16_t z)
{
	const uint32_t m = (uint32_t)(0xe400 | (int)z);
	return tlc_dq_h2((m << 16) | m);
}

// 32-bit word k of an output array: copied bytewise, as the caller's local
// array of 8- or 16-bit elements need not be 4-byte aligned
template <typename T>
__device__ __forceinline__ void tlc_dq_store(T *dst, int k, uint32_t v)
{
	__builtin_memcpy(reinterpret_cast<char *>(dst) + 4 * k, &v, 4);
}

__device__ __forceinline__ __half2 tlc_dq_zero2()
{
	return tlc_dq_h2(0u);
}

// MODE 0: v * s; 1 (original): (v - z) * s; 2 (rescale): v * s - |z| in
// one rounding; 3 (rescale, int2): v * s - z in two; 4 (quantized):
// (1024 + field) + (-1024 - z), then * s
template <int NB, bool SIGNED, int MODE, typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_f16(const T1 *src, T2 *dst, int N, __half2 sl, __half2 sr,
                                           __half2 zl, __half2 zr)
{
	const uint32_t w = tlc_dq_spread<NB>(src);
#pragma unroll
	for (int i = 0; i < N / 2; i++) {
		const __half2 s = i < N / 4 ? sl : sr, z = i < N / 4 ? zl : zr;
		__half2 v;
		if (MODE == 4)
			v = __hadd2(tlc_dq_biased<NB>(w, i), z);
		else
			v = tlc_dq_int<NB, SIGNED>(w, i);
		if (MODE == 1)
			v = __hsub2(v, z);
		if (MODE == 2)
			v = __hfma2(v, s, tlc_dq_h2(tlc_dq_u32(z) | 0x80008000u));
		else if (MODE == 3)
			v = __hsub2(__hfma2(v, s, tlc_dq_zero2()), z);
		else if (MODE >= 0)
			v = __hfma2(v, s, tlc_dq_zero2());
		tlc_dq_store(dst, i, tlc_dq_u32(v));
	}
}

// MODE -1: the integers alone
template <int NB, bool SIGNED, typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_f16_plain(const T1 *src, T2 *dst, int N)
{
	tlc_dq_f16<NB, SIGNED, -1>(src, dst, N, tlc_dq_zero2(), tlc_dq_zero2(), tlc_dq_zero2(),
	                           tlc_dq_zero2());
}

// byte-wise a - b (mod 256) for bytes a below 0x80: the top bit of each
// byte set first keeps a borrow from crossing into the next byte
__device__ __forceinline__ uint32_t tlc_dq_sub_bytes(uint32_t a, uint32_t b)
{
	return ((a | 0x80808080u) - b) ^ 0x80808080u;
}
#endif
"""

_I4_F16 = """
#ifndef TLC_DQ_I4_F16
#define TLC_DQ_I4_F16
template <typename T1, typename T2>
__device__ void decode_i4s_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<4, true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i4u_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<4, false>(src, dst, N);
}
#endif
"""

_I2_F16 = """
#ifndef TLC_DQ_I2_F16
#define TLC_DQ_I2_F16
template <typename T1, typename T2>
__device__ void decode_i2s_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<2, true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i2u_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<2, false>(src, dst, N);
}
#endif
"""

_I1_F16 = """
#ifndef TLC_DQ_I1_F16
#define TLC_DQ_I1_F16
template <typename T1, typename T2>
__device__ void decode_i1s_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<1, true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i1u_to_f16(T1 *src, T2 *dst, const int N = 8)
{
	tlc_dq_f16_plain<1, false>(src, dst, N);
}
#endif
"""


def _scale_pair(nb, sym, signed):
    # decode_iNB{sym}_to_f16_scale(src, dst, scale, N): (v) * scale[0]
    g = "TLC_DQ_I" + str(nb) + sym.upper() + "_SCALE"
    d = "nullptr" if nb != 2 else ""
    default = " = " + d if d else ""
    return ("#ifndef " + g + "\n#define " + g + "\n"
            "template <typename T1, typename T2, typename T3>\n"
            "__device__ void decode_i" + str(nb) + sym + "_to_f16_scale(T1 *src, T2 *dst, T3 *scale"
            + default + ", const int N = 8)\n{\n"
            "\tconst __half2 s = tlc_dq_splat(scale[0]);\n"
            "\ttlc_dq_f16<" + str(nb) + ", " + signed + ", 0>(src, dst, N, s, s, tlc_dq_zero2(), "
            "tlc_dq_zero2());\n}\n#endif\n")


def _scale_offset(sym, signed):
    g = "TLC_DQ_I4" + sym.upper() + "_SCALE_OFFSET"
    return ("#ifndef " + g + "\n#define " + g + "\n"
            "template <typename T1, typename T2, typename T3>\n"
            "__device__ void decode_i4" + sym + "_to_f16_scale_offset(T1 *src, T2 *dst, "
            "T3 *scale = nullptr, const int offset = 0, const int N = 8)\n{\n"
            "\ttlc_dq_f16<4, " + signed + ", 0>(src, dst, N, tlc_dq_splat(scale[0]), "
            "tlc_dq_splat(scale[offset]), tlc_dq_zero2(), tlc_dq_zero2());\n}\n#endif\n")


def _zeros(nb, mode, code, offset):
    # decode_iNBu_to_f16_scale_zeros_MODE[_offset](src, dst, scale, zeros[, offset], N)
    name = "decode_i" + str(nb) + "u_to_f16_scale_zeros_" + mode + ("_offset" if offset else "")
    g = "TLC_DQ_" + name.upper()
    dflt = "" if nb == 2 else " = nullptr"
    t4 = "T3" if nb == 2 else "T4"
    tpl = "typename T1, typename T2, typename T3" + ("" if nb == 2 else ", typename T4")
    params = ("T1 *src, T2 *dst, T3 *scale" + dflt + ", " + t4 + " *zeros" + dflt
              + (", const int offset = 0" if offset else "") + ", const int N = 8")
    if offset:
        # TileLang reads the two zeros into the scale's type first
        body = ("\tconst T3 zl = zeros[0], zr = zeros[offset];\n"
                "\ttlc_dq_f16<" + str(nb) + ", false, " + code + ">(src, dst, N, "
                "tlc_dq_splat(scale[0]), tlc_dq_splat(scale[offset]), tlc_dq_splat(zl), "
                "tlc_dq_splat(zr));\n")
    else:
        body = ("\tconst __half2 s = tlc_dq_splat(scale[0]), z = tlc_dq_splat(zeros[0]);\n"
                "\ttlc_dq_f16<" + str(nb) + ", false, " + code + ">(src, dst, N, s, s, z, z);\n")
    return ("#ifndef " + g + "\n#define " + g + "\ntemplate <" + tpl + ">\n__device__ void "
            + name + "(" + params + ")\n{\n" + body + "}\n#endif\n")


def _quantized(nb):
    name = "decode_i" + str(nb) + "u_to_f16_scale_zeros_quantized"
    g = "TLC_DQ_" + name.upper()
    return ("#ifndef " + g + "\n#define " + g + "\n"
            "template <typename T1, typename T2, typename T3, typename T4>\n"
            "__device__ void " + name + "(T1 *src, T2 *dst, T3 *scale = nullptr, "
            "T4 *zeros = nullptr, const int N = 8)\n{\n"
            "\t// the zero: the 16 bits at zeros, as an int16\n"
            "\tint16_t z16;\n\t__builtin_memcpy(&z16, zeros, 2);\n"
            "\tconst __half2 s = tlc_dq_splat(scale[0]), z = tlc_dq_neg_biased_zero(z16);\n"
            "\ttlc_dq_f16<" + str(nb) + ", false, 4>(src, dst, N, s, s, z, z);\n}\n#endif\n")


_I4_QUANTIZED_OFFSET = """
#ifndef TLC_DQ_I4U_QUANTIZED_OFFSET
#define TLC_DQ_I4U_QUANTIZED_OFFSET
// the zeros: 4-bit fields number group_offset of qzeros[0] and
// qzeros[zero_offset], in the storage type
template <typename T1, typename T2, typename T3>
__device__ void decode_i4u_to_f16_scale_zeros_quantized_offset(T1 *src, T2 *dst, T3 *scale = nullptr,
                                                               T1 *qzeros = nullptr,
                                                               const int scale_offset = 0,
                                                               const int zero_offset = 0,
                                                               const int group_offset = 0,
                                                               const int N = 8)
{
	const int16_t zl = (int16_t)((qzeros[0] >> (group_offset * 4)) & 0xf);
	const int16_t zr = (int16_t)((qzeros[zero_offset] >> (group_offset * 4)) & 0xf);
	tlc_dq_f16<4, false, 4>(src, dst, N, tlc_dq_splat(scale[0]), tlc_dq_splat(scale[scale_offset]),
	                        tlc_dq_neg_biased_zero(zl), tlc_dq_neg_biased_zero(zr));
}
#endif
"""

_I1_I8 = """
#ifndef TLC_DQ_I1_I8
#define TLC_DQ_I1_I8
// 16 one-bit fields (bits k, k+8, k+4, k+12 into word k's bytes 0-3)
template <bool SIGNED, typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_i1_i8(const T1 *src, T2 *dst, int N)
{
	uint16_t v;
	__builtin_memcpy(&v, src, 2);
	const uint32_t x = (v & 0x0f0fu) | ((uint32_t)(v & 0xf0f0u) << 12);
#pragma unroll
	for (int k = 0; k < N / 4; k++) {
		const uint32_t b = (x >> k) & 0x01010101u;
		// signed: 2b - 1 per byte, 0 -> 0xff, 1 -> 0x01 (no byte carries)
		tlc_dq_store(dst, k, SIGNED ? ~(b * 0xfeu) : b);
	}
}

template <typename T1, typename T2>
__device__ void decode_i1s_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i1_i8<true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i1u_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i1_i8<false>(src, dst, N);
}
#endif
"""

_I2_I8 = """
#ifndef TLC_DQ_I2_I8
#define TLC_DQ_I2_I8
// the 2-bit field at bit 8j+2k into byte j of word k; signed: minus 2
template <bool SIGNED, typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_i2_i8(const T1 *src, T2 *dst, int N)
{
	uint32_t x;
	__builtin_memcpy(&x, src, 4);
#pragma unroll
	for (int k = 0; k < N / 4; k++) {
		const uint32_t b = (x >> (2 * k)) & 0x03030303u;
		tlc_dq_store(dst, k, SIGNED ? tlc_dq_sub_bytes(b, 0x02020202u) : b);
	}
}

template <typename T1, typename T2>
__device__ void decode_i2s_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i2_i8<true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i2u_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i2_i8<false>(src, dst, N);
}
#endif
"""

_I4_I8 = """
#ifndef TLC_DQ_I4_I8
#define TLC_DQ_I4_I8
// the 4-bit field at bit 8j+4k of word 0 into byte j of word k, of word 1
// into word k+2; signed: minus 7
template <bool SIGNED, typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_i4_i8(const T1 *src, T2 *dst, int N)
{
	uint32_t x[2];
	__builtin_memcpy(x, src, 8);
#pragma unroll
	for (int k = 0; k < N / 8; k++) {
		for (int h = 0; h < 2; h++) {
			const uint32_t b = (x[h] >> (4 * k)) & 0x0f0f0f0fu;
			tlc_dq_store(dst, k + 2 * h, SIGNED ? tlc_dq_sub_bytes(b, 0x07070707u) : b);
		}
	}
}

template <typename T1, typename T2>
__device__ void decode_i4s_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i4_i8<true>(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i4u_to_i8s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i4_i8<false>(src, dst, N);
}
#endif
"""

_I2_I4 = """
#ifndef TLC_DQ_I2_I4
#define TLC_DQ_I2_I4
// the 2-bit field at bit 4j+2(k%2) of word k/2 into nibble j of word k
// (the signed form is the same, as in TileLang)
template <typename T1, typename T2>
__device__ __forceinline__ void tlc_dq_i2_i4(const T1 *src, T2 *dst, int N)
{
#pragma unroll
	for (int k = 0; k < N / 8; k++) {
		uint32_t x;
		__builtin_memcpy(&x, reinterpret_cast<const char *>(src) + 4 * (k / 2), 4);
		tlc_dq_store(dst, k, (x >> (2 * (k % 2))) & 0x33333333u);
	}
}

template <typename T1, typename T2>
__device__ void decode_i2s_to_i4s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i2_i4(src, dst, N);
}

template <typename T1, typename T2>
__device__ void decode_i2u_to_i4s(T1 *src, T2 *dst, const int N = 16)
{
	tlc_dq_i2_i4(src, dst, N);
}
#endif
"""

_LOP3 = {
    "i4_to_f16": _I4_F16,
    "i2_to_f16": _I2_F16,
    "i1_to_f16": _I1_F16,
    "i4_to_f16_scale": _scale_pair(4, "s", "true") + _scale_pair(4, "u", "false"),
    "i4_to_f16_scale_offset": _scale_offset("s", "true") + _scale_offset("u", "false"),
    "i2_to_f16_scale": _scale_pair(2, "s", "true") + _scale_pair(2, "u", "false"),
    "i1_to_f16_scale": _scale_pair(1, "s", "true") + _scale_pair(1, "u", "false"),
    "i4_to_f16_scale_zeros_original": _zeros(4, "original", "1", False),
    "i4_to_f16_scale_zeros_original_offset": _zeros(4, "original", "1", True),
    "i2_to_f16_scale_zeros_original": _zeros(2, "original", "1", False),
    "i1_to_f16_scale_zeros_original": _zeros(1, "original", "1", False),
    "i4_to_f16_scale_zeros_rescale": _zeros(4, "rescale", "2", False),
    "i4_to_f16_scale_zeros_rescale_offset": _zeros(4, "rescale", "2", True),
    "i2_to_f16_scale_zeros_rescale": _zeros(2, "rescale", "3", False),
    "i1_to_f16_scale_zeros_rescale": _zeros(1, "rescale", "2", False),
    "i4_to_f16_scale_zeros_quantized": _quantized(4),
    "i2_to_f16_scale_zeros_quantized": _quantized(2),
    "i4_to_f16_scale_zeros_quantized_offset": _I4_QUANTIZED_OFFSET,
    "i1_to_i8": _I1_I8,
    "i2_to_i8": _I2_I8,
    "i4_to_i8": _I4_I8,
    "i2_to_i4": _I2_I4,
}


def get_lop3_intrin_group(out_dtype, source_format="uint", source_bit=4, storage_dtype="int8",
                          with_scaling=False, with_zeros=False, zeros_mode="original",
                          storage_scope="local"):
    out_dtype = str(out_dtype)
    source_format = str(source_format)
    assert out_dtype in ["float16", "int8", "int4"], (
        f"Invalid out_dtype: {out_dtype}. Expected 'float16' or 'int8' or 'int4' .")
    assert source_format in ["int", "uint"], (
        f"Invalid source_format. Expected 'int' or 'uint', but got {source_format}.")
    assert not (with_zeros and source_format == "int"), (
        f"Zeros are not supported for signed integers, but got {source_format}")
    target = {"float16": "f16", "int8": "i8", "int4": "i4"}[out_dtype]
    key = f"i{source_bit}_to_{target}"
    if with_scaling:
        key += "_scale"
    if with_zeros:
        key += f"_zeros_{zeros_mode}"
    # TileLang's "warp" scope with scaling: the two-scale (_offset) forms
    ladder = storage_scope == "warp" and with_scaling
    if ladder:
        key += "_offset"
    assert key in _LOP3, (
        f"get_lop3_intrin_group: no decoder '{key}' (source_bit={source_bit}, out_dtype="
        f"{out_dtype}, with_scaling={with_scaling}, with_zeros={with_zeros}, zeros_mode="
        f"{zeros_mode}, storage_scope={storage_scope}), as in TileLang")
    d4f = {"float16": "f16", "int8": "i8s", "int4": "i4s"}[out_dtype]
    sym = "u" if source_format == "uint" else "s"
    func_name = f"decode_i{source_bit}{sym}_to_{d4f}"
    if with_scaling:
        func_name += "_scale"
    if with_zeros:
        func_name += f"_zeros_{zeros_mode}"
    if ladder:
        func_name += "_offset"
    return {"func_name": func_name, "c_source": _COMMON + _LOP3[key]}


_E2M1 = """
#ifndef TLC_DQ_E2M1
#define TLC_DQ_E2M1
// fp4 e2m1 (bit 3 sign, bits 2-1 exponent e, bit 0 mantissa m) as bfloat16
// bits: 2^(e-1) * (1 + m/2) for e > 0, m/2 for e == 0 (0x3f00: 0.5)
__device__ __forceinline__ uint16_t tlc_dq_e2m1_bf16(uint32_t f)
{
	const uint32_t e = (f >> 1) & 3u, m = f & 1u;
	const uint32_t mag = e ? ((e + 126u) << 7) | (m << 6) : (m ? 0x3f00u : 0u);
	return (uint16_t)(((f & 8u) << 12) | mag);
}
#endif
"""

_FP4_TWIDDLING = """
#ifndef TLC_DQ_FP4_BF16_TWIDDLING
#define TLC_DQ_FP4_BF16_TWIDDLING
// value x of a twiddled 16-bit group p (the first byte the high one): its
// sign, exponent high, exponent low and mantissa bits sit at these bits
__device__ __forceinline__ uint32_t tlc_dq_untwiddle(uint32_t p, int x)
{
	const int at[4][4] = {{15, 8, 7, 6}, {12, 5, 4, 3}, {9, 2, 1, 0}, {14, 11, 10, 13}};
	uint32_t f = 0;
#pragma unroll
	for (int b = 0; b < 4; b++)
		f = (f << 1) | ((p >> at[x][b]) & 1u);
	return f;
}

// N groups of 4 bytes (8 values each): bytes 4i, 4i+1 give outputs 8i..8i+3,
// bytes 4i+2, 4i+3 outputs 8i+4..8i+7 (bfloat16)
template <typename T1, typename T2>
__device__ void decode_fp4_to_bf16_twiddling(T1 *B_local, T2 *B_local_decode, const int N = 8)
{
#pragma unroll
	for (int i = 0; i < N; ++i) {
		uint8_t b[4];
		__builtin_memcpy(b, &B_local[i << 2], 4);
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const uint32_t p = ((uint32_t)b[2 * h] << 8) | b[2 * h + 1];
#pragma unroll
			for (int x = 0; x < 4; x++) {
				const uint16_t v = tlc_dq_e2m1_bf16(tlc_dq_untwiddle(p, x));
				__builtin_memcpy(&B_local_decode[(i << 3) + 4 * h + x], &v, 2);
			}
		}
	}
}
#endif
"""

_FP4_SIMPLE = """
#ifndef TLC_DQ_FP4_BF16
#define TLC_DQ_FP4_BF16
// N groups of 4 bytes: byte j's low nibble is output 8i+j, its high nibble
// output 8i+j+4 (e2m1 values, converted to T2)
template <typename T1, typename T2>
__device__ void decode_fp4_to_bf16(T1 *B_local, T2 *B_local_decode, const int N = 8)
{
#pragma unroll
	for (int i = 0; i < N; ++i) {
		uint8_t b[4];
		__builtin_memcpy(b, reinterpret_cast<const uint8_t *>(B_local) + (i << 2), 4);
#pragma unroll
		for (int j = 0; j < 4; j++) {
			for (int h = 0; h < 2; h++) {
				const uint32_t bits = (uint32_t)tlc_dq_e2m1_bf16((b[j] >> (4 * h)) & 15u) << 16;
				float f;
				__builtin_memcpy(&f, &bits, 4);
				B_local_decode[(i << 3) + j + 4 * h] = (T2)f;
			}
		}
	}
}
#endif
"""


def get_mxfp_intrin_group(out_dtype="bfloat16", source_format="uint", source_bit=4,
                          storage_dtype="uint8", use_twiddling=False, target=None):
    out_dtype = str(out_dtype)
    source_format = str(source_format)
    storage_dtype = str(storage_dtype)
    assert out_dtype in ["float16", "bfloat16"], (
        f"Invalid out_dtype: {out_dtype}. Expected 'float16' or 'bfloat16'.")
    assert source_format in ["int", "uint"], (
        f"Invalid source_format: {source_format}. Expected 'int' or 'uint'.")
    assert storage_dtype in ["int32", "int8", "uint8"], (
        f"Invalid storage_dtype: {storage_dtype}. Expected 'int32' or 'int8' or 'uint8'.")
    short = {"float16": "f16", "bfloat16": "bf16"}[out_dtype]
    func_name = f"decode_fp{source_bit}_to_{short}"
    if use_twiddling:
        func_name += "_twiddling"
    key = f"fp{source_bit}_to_{short}"
    if use_twiddling:
        key += "_twiddling"
    sources = {"fp4_to_bf16_twiddling": _E2M1 + _FP4_TWIDDLING}
    # TileLang's AMD gfx950 path adds the plain-nibble decoder
    if target is not None and "gfx950" in str(target):
        sources["fp4_to_bf16"] = _E2M1 + _FP4_SIMPLE
    assert key in sources, (
        f"get_mxfp_intrin_group: no decoder '{key}' (source_bit={source_bit}, out_dtype="
        f"{out_dtype}, use_twiddling={use_twiddling}), as in TileLang: it has "
        f"fp4 -> bfloat16 with use_twiddling=True")
    return {"func_name": func_name, "c_source": sources[key]}
