"""model.py - kernel arithmetic as doc/language.md "Arithmetic" defines it,
computed here in plain Python (no NumPy, nothing from tlc), so that the
dtype matrix (gen_matrix.py, check_matrix.py) can hold tlc-sim and the GPU
to it bit for bit.

Values: integers and bools are Python ints (bools 0 or 1); floats of every
format are Python floats (a float16, bfloat16, float8 or float32 value is
exactly a double), already rounded to their format.  Every float operation
is computed exactly (as a ratio of Python integers) and rounded once, to
nearest with ties to even, by round_exact(); nothing leans on the host's
float arithmetic except for infinities and NaN.

A case the definition calls an error (two different float8 formats, `/` on
integers, int32/int64 overflow, a zero integer divisor, a shift count out
of range) raises ModelError: the matrix never computes one.
"""
import math
import struct

FLOATS = ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2")
IEEE = ("float16", "float32", "float64")
FLOAT8 = ("float8_e4m3fn", "float8_e5m2")
INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
# the order the matrix uses
DTYPES = ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
          "int8", "uint8", "int32", "int64", "bool")
SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
         "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "int8": "i8", "uint8": "u8",
         "int16": "i16", "uint16": "u16", "int32": "i32", "uint32": "u32", "int64": "i64",
         "uint64": "u64", "bool": "b"}


class ModelError(Exception):
    """An operation the definition makes an error."""


# ---- formats ----

class Fmt:
    """A binary float format: p significant bits (with the hidden one),
    emin the exponent of the smallest normal, maxfinite, whether overflow
    saturates (float8, CUDA's SATFINITE) or gives infinity, and its bit
    layout (exponent and mantissa widths; ieee: the all-ones exponent is
    inf/NaN, else (e4m3fn) only S.1111.111 is NaN)."""

    def __init__(self, name, ebits, mbits, emin, saturate, ieee):
        self.name, self.ebits, self.mbits, self.emin = name, ebits, mbits, emin
        self.p = mbits + 1
        self.saturate, self.ieee = saturate, ieee
        self.bias = 1 - emin
        self.nbits = 1 + ebits + mbits
        if ieee:
            emax = (1 << ebits) - 2 - self.bias
            self.maxfinite = math.ldexp((1 << self.p) - 1, emax - mbits)
        else:  # e4m3fn: the top exponent holds values, its all-ones mantissa is NaN
            emax = (1 << ebits) - 1 - self.bias
            self.maxfinite = math.ldexp((1 << self.p) - 2, emax - mbits)


FMT = {
    "float16": Fmt("float16", 5, 10, -14, False, True),
    "bfloat16": Fmt("bfloat16", 8, 7, -126, False, True),
    "float32": Fmt("float32", 8, 23, -126, False, True),
    "float64": Fmt("float64", 11, 52, -1022, False, True),
    "float8_e4m3fn": Fmt("float8_e4m3fn", 4, 3, -6, True, False),
    "float8_e5m2": Fmt("float8_e5m2", 5, 2, -14, True, True),
}
assert FMT["float16"].maxfinite == 65504.0 and FMT["float8_e4m3fn"].maxfinite == 448.0
assert FMT["float8_e5m2"].maxfinite == 57344.0 and FMT["float32"].maxfinite == 3.4028234663852886e38


def int_range(t):
    r = _RANGES.get(t)
    if r is None:
        r = _RANGES[t] = _int_range(t)
    return r


_RANGES = {}


def _int_range(t):
    if t == "bool":
        return 0, 1
    bits = int("".join(c for c in t if c.isdigit()))
    if t.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def bits_of(t):
    if t == "bool":
        return 8
    if t in FMT:
        return FMT[t].nbits
    return int("".join(c for c in t if c.isdigit()))


def is_float(t):
    return t in FMT


def is_int(t):
    return t in INTS


def is_signed(t):
    return t.startswith("int")


# ---- rounding ----

def round_exact(num, den, t):
    """The rational num/den (den > 0) rounded to float format t: nearest,
    ties to even, subnormals kept; overflow gives +-inf, or +-max for the
    saturating float8 formats.  An exact zero is +0 (callers that know the
    sign of a zero result give it themselves)."""
    f = FMT[t]
    if num == 0:
        return 0.0
    neg = num < 0
    n = -num if neg else num
    # e: the exponent of the leading bit, 2^e <= n/den < 2^(e+1)
    e = n.bit_length() - den.bit_length()
    if (n << -e if e < 0 else n) < (den << e if e > 0 else den):
        e -= 1
    q = max(e, f.emin) - (f.p - 1)  # the spacing of the format's values at n/den
    if q >= 0:
        m, r = divmod(n, den << q)
        half = den << q
    else:
        m, r = divmod(n << -q, den)
        half = den
    if 2 * r > half or (2 * r == half and m & 1):
        m += 1
    if m == 0:
        return -0.0 if neg else 0.0
    # m <= 2^p and q is the format's own: m 2^q is a double, exactly, unless
    # float64 itself overflows (2^1024 and up)
    if m.bit_length() + q > 1024:
        value = math.inf
    else:
        value = math.ldexp(m, q)
    if value > f.maxfinite:
        value = f.maxfinite if f.saturate else math.inf
    return -value if neg else value


def round_float(x, t):
    """A double (or inf/NaN) rounded to format t, at once."""
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.copysign(FMT[t].maxfinite if FMT[t].saturate else math.inf, x)
    if x == 0.0:
        return x
    n, d = x.as_integer_ratio()
    return round_exact(n, d, t)


# ---- conversions (T.cast, stores, operands to their common type) ----

NARROW = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")


# float formats whose every value (inf and NaN too) is a value of another:
# converting between them changes nothing (a short cut only: the general
# path below rounds them to the same value)
SUBSET = {("float16", "float32"), ("float16", "float64"), ("bfloat16", "float32"), ("bfloat16", "float64"),
          ("float32", "float64")}
SUBSET |= {(f8, t) for f8 in FLOAT8 for t in ("float16", "bfloat16", "float32", "float64")}


def convert(x, src, dst):
    """x of dtype src converted to dtype dst."""
    if src == dst or (src, dst) in SUBSET:
        return x
    if dst == "bool":
        return 1 if (x != 0 or (isinstance(x, float) and math.isnan(x))) else 0
    if src == "bool":
        return float(x) if is_float(dst) else x
    if is_float(dst):
        if dst in NARROW:
            # every conversion into a narrow float rounds from a float32 value
            x32 = convert(x, src, "float32")
            return round_float(x32, dst)
        if is_int(src):
            return round_exact(x, 1, dst) if x else 0.0
        return round_float(x, dst)  # float -> float32/float64
    # dst is an integer type
    lo, hi = int_range(dst)
    if is_float(src):
        if math.isnan(x):
            return 0
        if math.isinf(x):
            return hi if x > 0 else lo
        v = math.trunc(x)  # toward zero, then saturate (cvt.rzi)
        return max(lo, min(hi, v))
    return wrap(x, dst)


def wrap(v, t):
    """An integer reduced modulo 2^bits into type t (two's complement)."""
    lo, hi = int_range(t)
    span = hi - lo + 1
    return (v - lo) % span + lo


# ---- result types ----

def float_rank(t):
    return {"float16": 16, "float32": 32, "float64": 64}[t]


def int_common(ta, tb):
    """Two integer types (bool included)."""
    if ta == tb:
        return ta
    if ta == "bool":
        return tb
    if tb == "bool":
        return ta
    ba, bb = bits_of(ta), bits_of(tb)
    if ba != bb:
        return ta if ba > bb else tb
    return ta if not is_signed(ta) else tb  # equally wide: the unsigned one


ARITH = ("add", "sub", "mul", "div", "floordiv", "mod", "neg")


def common_type(ta, tb, op=None):
    """The type a binary operation on typed operands of ta and tb runs in
    (and both are converted to).  op: the operation's name, for the rules
    that depend on it (bool with bool; `/` on integers)."""
    if is_float(ta) or is_float(tb):
        ia, ib = ta in IEEE, tb in IEEE
        if ia and ib:
            return ta if float_rank(ta) >= float_rank(tb) else tb
        if ia or ib:
            return ta if ia else tb
        if "bfloat16" in (ta, tb):
            return "bfloat16"
        fa, fb = ta in FLOAT8, tb in FLOAT8
        if fa and fb and ta != tb:
            raise ModelError(f"{ta} and {tb} need an explicit T.cast")
        return ta if fa else tb
    if op == "div":
        raise ModelError("'/' on integers")
    if ta == "bool" and tb == "bool":
        return "int32" if op in ARITH else "bool"
    return int_common(ta, tb)


def literal_int_type(v):
    """The type an int literal has on its own (when the other operand cannot hold it)."""
    if -(1 << 31) <= v < (1 << 31):
        return "int32"
    if -(1 << 63) <= v < (1 << 63):
        return "int64"
    raise ModelError("integer literal out of int64")


def literal_common(t, lit, op=None):
    """The type of an operation between a typed operand of type t and a
    Python literal lit (int, float or bool)."""
    if isinstance(lit, bool):
        if is_int(t):
            return t
        if t == "bool":
            return common_type("bool", "bool", op)
        raise ModelError("a bool literal with a float operand is not in the definition")
    if isinstance(lit, int):
        if is_float(t):
            return t
        if is_int(t):
            lo, hi = int_range(t)
            if lo <= lit <= hi:
                if op == "div":
                    raise ModelError("'/' on integers")
                return t
        # bool, or an int type that cannot hold it: the literal's own type competes
        return common_type(t, literal_int_type(lit), op)
    # a float literal
    if is_float(t):
        return t
    return "float32"


def literal_value(lit, t):
    """The literal converted to type t (an int literal as an int, a float one
    as the float64 Python holds)."""
    if isinstance(lit, bool):
        return convert(int(lit), "bool", t)
    if isinstance(lit, int):
        return convert(lit, "int64", t) if is_float(t) or t == "bool" else wrap(lit, t)
    return convert(lit, "float64", t)


def result_type(op, t):
    """The dtype of an operation's result, given the type t it runs in."""
    if op in ("eq", "ne", "lt", "le", "gt", "ge", "not"):
        return "bool"
    return t


# ---- operations in a type ----

def _ratio(x):
    return x.as_integer_ratio()


def f_add(a, b, t, sub=False):
    if sub:
        b = -b
    if not (math.isfinite(a) and math.isfinite(b)):
        return round_float(a + b, t)
    if a == 0.0 and b == 0.0:
        # exact zero sum: -0 only when both are -0 (round to nearest)
        return -0.0 if (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else 0.0
    (na, da), (nb, db) = _ratio(a), _ratio(b)
    num = na * db + nb * da
    if num == 0:
        return 0.0
    return round_exact(num, da * db, t)


def f_mul(a, b, t):
    if not (math.isfinite(a) and math.isfinite(b)):
        return round_float(a * b, t)
    if a == 0.0 or b == 0.0:
        return math.copysign(0.0, math.copysign(1, a) * math.copysign(1, b))
    (na, da), (nb, db) = _ratio(a), _ratio(b)
    return round_exact(na * nb, da * db, t)


def f_div(a, b, t):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    sign = math.copysign(1, a) * math.copysign(1, b)
    if b == 0.0:
        if a == 0.0:
            return math.nan
        return round_float(math.copysign(math.inf, sign), t)
    if math.isinf(a):
        return math.nan if math.isinf(b) else round_float(math.copysign(math.inf, sign), t)
    if math.isinf(b) or a == 0.0:
        return math.copysign(0.0, sign)
    (na, da), (nb, db) = _ratio(a), _ratio(b)
    num, den = na * db, da * nb
    if den < 0:
        num, den = -num, -den
    r = round_exact(num, den, t)
    return math.copysign(0.0, sign) if r == 0.0 else r


def f_floor(x):
    if not math.isfinite(x) or x == 0.0:
        return x
    v = float(math.floor(x))
    return math.copysign(0.0, x) if v == 0.0 else v


def f_floordiv(a, b, t):
    return f_floor(f_div(a, b, t))  # floor of a representable value is representable


def f_mod(a, b, t):
    # a - floor(a / b) * b, every step rounded to t
    return f_add(a, f_mul(f_floordiv(a, b, t), b, t), t, sub=True)


def f_min(a, b, is_max=False):
    # IEEE fmin / fmax: a NaN operand gives the other operand
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0.0:  # -0 below +0 (both are what fmin may give; see the report)
        neg = math.copysign(1, a) < 0 or math.copysign(1, b) < 0
        pos = math.copysign(1, a) > 0 or math.copysign(1, b) > 0
        if is_max:
            return 0.0 if pos else -0.0
        return -0.0 if neg else 0.0
    return max(a, b) if is_max else min(a, b)


def _int_result(v, t):
    lo, hi = int_range(t)
    if t in ("int32", "int64") and not lo <= v <= hi:
        raise ModelError(f"{t} overflow")
    return wrap(v, t)


def apply(op, a, b, t):
    """Binary op on values a, b already converted to type t (the common
    type); the result in result_type(op, t)."""
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        if is_float(t) and (math.isnan(a) or math.isnan(b)):
            return 1 if op == "ne" else 0
        return int({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op])
    if is_float(t):
        if op == "add":
            return f_add(a, b, t)
        if op == "sub":
            return f_add(a, b, t, sub=True)
        if op == "mul":
            return f_mul(a, b, t)
        if op == "div":
            return f_div(a, b, t)
        if op == "floordiv":
            return f_floordiv(a, b, t)
        if op == "mod":
            return f_mod(a, b, t)
        if op in ("min", "max"):
            return f_min(a, b, op == "max")
        raise ModelError(f"'{op}' on floats")
    # integers (bool included: & | ^ min max stay bool)
    if op in ("floordiv", "mod") and b == 0:
        raise ModelError("integer division by zero")
    if op in ("shl", "shr"):
        if not 0 <= b < bits_of(t):
            raise ModelError("shift count out of range")
        if op == "shr":
            return a >> b  # Python's >> is arithmetic; unsigned values are >= 0
        return wrap(a << b, t)  # left shift: two's complement (no overflow error)
    v = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
         "floordiv": lambda: a // b, "mod": lambda: a % b, "min": lambda: min(a, b),
         "max": lambda: max(a, b), "and": lambda: a & b, "or": lambda: a | b,
         "xor": lambda: a ^ b}[op]()
    if op == "div":
        raise ModelError("'/' on integers")
    return _int_result(v, t)


def binary(op, a, ta, b, tb):
    """op on typed operands: (value, dtype) of the result."""
    t = common_type(ta, tb, op)
    r = apply(op, convert(a, ta, t), convert(b, tb, t), t)
    return r, result_type(op, t)


def negate(a, t):
    if t == "bool":
        return -a, "int32"
    if is_float(t):
        return -a, t
    return _int_result(-a, t), t


def logical_not(a, t):
    return (0 if convert(a, t, "bool") else 1), "bool"


def select(c, a, ta, b, tb):
    t = common_type(ta, tb, "select")
    return convert(a if c else b, ta if c else tb, t), t


# ---- storage: bits of each dtype, .npy files ----

NPY_DESCR = {"float16": "<f2", "bfloat16": "<u2", "float32": "<f4", "float64": "<f8",
             "float8_e4m3fn": "|u1", "float8_e5m2": "|u1", "int8": "|i1", "uint8": "|u1",
             "int16": "<i2", "uint16": "<u2", "int32": "<i4", "uint32": "<u4", "int64": "<i8",
             "uint64": "<u8", "bool": "|b1"}
STRUCT = {"<f2": "e", "<f4": "f", "<f8": "d", "<u2": "H", "|u1": "B", "|i1": "b", "<i2": "h",
          "<i4": "i", "<u4": "I", "<i8": "q", "<u8": "Q", "|b1": "B"}


def encode_small(x, t):
    """The bits of a bfloat16 or float8 value (already in the format)."""
    f = FMT[t]
    sign = 1 if math.copysign(1, x) < 0 else 0
    if math.isnan(x):
        e, m = (1 << f.ebits) - 1, (1 << f.mbits) - 1
        return (sign << (f.nbits - 1)) | (e << f.mbits) | m if not f.ieee else \
            (e << f.mbits) | (1 << (f.mbits - 1))
    x = abs(x)
    if math.isinf(x):
        assert f.ieee
        return (sign << (f.nbits - 1)) | (((1 << f.ebits) - 1) << f.mbits)
    if x == 0.0:
        return sign << (f.nbits - 1)
    n, d = x.as_integer_ratio()
    e = n.bit_length() - d.bit_length()
    if (n << -e if e < 0 else n) < (d << e if e > 0 else d):
        e -= 1
    if e < f.emin:  # subnormal: x = m 2^(emin - mbits)
        m = n * (1 << (f.mbits - f.emin)) // d if f.mbits - f.emin >= 0 else n // (d << (f.emin - f.mbits))
        assert math.ldexp(m, f.emin - f.mbits) == x, (x, t)
        return (sign << (f.nbits - 1)) | m
    frac = x / math.ldexp(1.0, e) - 1.0
    m = int(frac * (1 << f.mbits))
    assert math.ldexp((1 << f.mbits) + m, e - f.mbits) == x, (x, t)
    return (sign << (f.nbits - 1)) | ((e + f.bias) << f.mbits) | m


def decode_small(bits, t):
    f = FMT[t]
    sign = -1.0 if bits >> (f.nbits - 1) & 1 else 1.0
    e = (bits >> f.mbits) & ((1 << f.ebits) - 1)
    m = bits & ((1 << f.mbits) - 1)
    if f.ieee and e == (1 << f.ebits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if not f.ieee and e == (1 << f.ebits) - 1 and m == (1 << f.mbits) - 1:
        return math.nan
    if e == 0:
        return sign * math.ldexp(m, f.emin - f.mbits)
    return sign * math.ldexp((1 << f.mbits) + m, e - f.bias - f.mbits)


def to_storage(x, t):
    """A value of dtype t as the number its .npy element holds."""
    if t in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        return encode_small(x, t)
    return x


def from_storage(s, t):
    if t in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        return decode_small(s, t)
    if t == "bool":
        return 1 if s else 0
    return s


def write_npy(path, t, values):
    descr = NPY_DESCR[t]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    body = struct.pack("<%d%s" % (len(values), STRUCT[descr]), *[to_storage(v, t) for v in values])
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + body)


def from_bytes(data, t):
    """The values of dtype t held in raw little-endian bytes (a tensor's storage)."""
    code = STRUCT[NPY_DESCR[t]]
    n = len(data) // struct.calcsize(code)
    return [from_storage(v, t) for v in struct.unpack("<%d%s" % (n, code), data[:n * struct.calcsize(code)])]


def npy_body(path):
    """The raw bytes of a .npy file's elements (version 1 or 2 header)."""
    with open(path, "rb") as f:
        data = f.read()
    start, hlen = (10, struct.unpack("<H", data[8:10])[0]) if data[6] == 1 else (12, struct.unpack("<I", data[8:12])[0])
    return data[start + hlen:]


def read_npy(path, t):
    """The values of a 1-D .npy file written for dtype t (its descr must be t's)."""
    import ast
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    descr = header["descr"].replace("=", "<")
    if descr != NPY_DESCR[t]:
        raise ValueError(f"{path}: holds {header['descr']}, not {t} ({NPY_DESCR[t]})")
    n = math.prod(header["shape"])
    body = data[start + hlen:]
    raw = struct.unpack("<%d%s" % (n, STRUCT[descr]), body[:n * struct.calcsize(STRUCT[descr])])
    return [from_storage(v, t) for v in raw]


def same(x, y, t):
    """Bit for bit, except that every NaN equals every NaN (a payload or sign
    of NaN is not part of the definition)."""
    if is_float(t):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return x == y and math.copysign(1, x) == math.copysign(1, y)
    return x == y


def show(x, t):
    if is_float(t):
        if math.isnan(x):
            return "nan"
        return repr(x) if t == "float64" else "%r" % x
    return str(x)


# ---- expressions (gen_matrix.py's trees) ----

PY_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
          "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
          "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
          "min": min, "max": max, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
          "xor": lambda a, b: a ^ b, "shl": lambda a, b: a << b, "shr": lambda a, b: a >> b}


def literal_dtype(v):
    """The dtype a Python literal is converted from."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    return "float64"


def eval_expr(e, env, types, i):
    """(value, dtype) of expression tree e at element i; dtype None for a
    Python value (a literal, or literals combined at compile time, which
    CPython computes).  env: input name -> values; types: name -> dtype."""
    k = e[0]
    if k == "in":
        return env[e[1]][i], types[e[1]]
    if k == "idx":
        return i, "int32"
    if k == "lit":
        return e[1], None
    if k == "typed":
        return literal_value(e[2], e[1]), e[1]
    if k == "cast":
        v, t = eval_expr(e[2], env, types, i)
        return convert(v if t else (int(v) if isinstance(v, bool) else v), t or literal_dtype(v), e[1]), e[1]
    if k == "neg":
        v, t = eval_expr(e[1], env, types, i)
        return (-v, None) if t is None else negate(v, t)
    if k == "not":
        v, t = eval_expr(e[1], env, types, i)
        return (not v, None) if t is None else logical_not(v, t)
    if k == "sel":
        c, tc = eval_expr(e[1], env, types, i)
        cond = bool(c) if tc is None else bool(convert(c, tc, "bool"))
        (a, ta), (b, tb) = eval_expr(e[2], env, types, i), eval_expr(e[3], env, types, i)
        if ta is None and tb is None:
            return (a if cond else b), None
        if ta is None or tb is None:
            typed_t, lit_v = (tb, a) if ta is None else (ta, b)
            t = literal_common(typed_t, lit_v, "select")
            if cond:
                return (literal_value(a, t) if ta is None else convert(a, ta, t)), t
            return (literal_value(b, t) if tb is None else convert(b, tb, t)), t
        return select(cond, a, ta, b, tb)
    if k == "bin":
        op = e[1]
        (a, ta), (b, tb) = eval_expr(e[2], env, types, i), eval_expr(e[3], env, types, i)
        if ta is None and tb is None:
            return PY_OPS[op](a, b), None
        if ta is None or tb is None:
            typed_t, lit_v = (tb, a) if ta is None else (ta, b)
            t = literal_common(typed_t, lit_v, op)
            x = literal_value(a, t) if ta is None else convert(a, ta, t)
            y = literal_value(b, t) if tb is None else convert(b, tb, t)
            return apply(op, x, y, t), result_type(op, t)
        return binary(op, a, ta, b, tb)
    raise ValueError(f"unknown expression {k}")


def store_value(v, t, dst):
    """A value (of dtype t, or a Python value when t is None) stored into a
    buffer of dtype dst."""
    if t is None:
        if isinstance(v, bool):
            v, t = int(v), "bool"
        else:
            t = literal_dtype(v)
    return convert(v, t, dst)


def run_kernel(kernel, inputs):
    """The outputs of a manifest kernel: {param: [values]}, from inputs
    {param: [values]}.  A statement the definition makes an error raises
    ModelError."""
    types = {p["name"]: p["dtype"] for p in kernel["params"]}
    n = kernel["n"]
    env = dict(inputs)
    outs = {}
    for s in kernel["stmts"]:
        kind, out, e = s
        vals = []
        for i in range(n):
            v, t = eval_expr(e, env, types, i)
            if kind == "augadd":
                acc = env[out][i]
                if t is None:
                    tt = literal_common(types[out], v, "add")
                    v, t = apply("add", convert(acc, types[out], tt), literal_value(v, tt), tt), tt
                else:
                    v, t = binary("add", acc, types[out], v, t)
            vals.append(store_value(v, t, types[out]))
        env[out] = vals
        outs[out] = vals
    return outs


# ---- the model's own checks: the definition's examples, and rounding
# against Python's struct (float16, float32) and against midpoints of every
# pair of neighbouring values (bfloat16, float8) ----

def _check_rounding(t):
    """Every pair of neighbouring positive values a < b of t: their midpoint
    rounds to the even one, just above it to b, just below to a."""
    f = FMT[t]
    vals = sorted(v for v in (decode_small(bits, t) for bits in range(1 << (f.nbits - 1))) if math.isfinite(v))
    for a, b in zip(vals, vals[1:]):
        na, da = a.as_integer_ratio()
        nb, db = b.as_integer_ratio()
        num, den = na * db + nb * da, 2 * da * db
        even = a if encode_small(a, t) % 2 == 0 else b
        if round_exact(num, den, t) != even:
            return f"{t}: midpoint of {a} and {b} gives {round_exact(num, den, t)}, not {even}"
        if round_exact(num * 1024 + 1, den * 1024, t) != b or round_exact(num * 1024 - 1, den * 1024, t) != a:
            return f"{t}: just beside the midpoint of {a} and {b}"
    top = vals[-1]
    over = round_float(top * 1.5, t)
    want = top if f.saturate else math.inf
    if over != want:
        return f"{t}: 1.5 * max gives {over}, not {want}"
    return None


def _check_struct(t, code, seed):
    x = seed
    for _ in range(20000):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        v = math.ldexp((x >> 11) | 1, -53) * (1 if x & 1 else -1)
        v = math.ldexp(v, (x >> 3) % 80 - 40 if t == "float16" else (x >> 3) % 300 - 150)
        try:
            want = struct.unpack("<" + code, struct.pack("<" + code, v))[0]
        except OverflowError:
            want = math.copysign(math.inf, v)
        got = round_float(v, t)
        if got != want or math.copysign(1, got) != math.copysign(1, want):
            return f"{t}: {v!r} rounds to {got!r}, struct says {want!r}"
    return None


def selftest():
    """[(ok, name, detail)]: the model against the definition's own examples."""
    out = []

    def check(name, got, want):
        ok = got == want and (not isinstance(want, float) or math.copysign(1, got) == math.copysign(1, want))
        out.append((ok, name, None if ok else f"got {got!r}, want {want!r}"))

    for t, code in (("float16", "e"), ("float32", "f")):
        err = _check_struct(t, code, 12345)
        out.append((err is None, f"model: {t} rounding equals Python's struct", err))
    for t in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        err = _check_rounding(t)
        out.append((err is None, f"model: {t} rounds to nearest even and {'saturates' if FMT[t].saturate else 'overflows to inf'}", err))
    f01 = round_float(0.1, "float32")
    cases = [
        ("int8 100 + 100", binary("add", 100, "int8", 100, "int8"), (-56, "int8")),
        ("uint8 1 - 2", binary("sub", 1, "uint8", 2, "uint8"), (255, "uint8")),
        ("True + True", binary("add", 1, "bool", 1, "bool"), (2, "int32")),
        ("-True", negate(1, "bool"), (-1, "int32")),
        ("True & True stays bool", binary("and", 1, "bool", 1, "bool"), (1, "bool")),
        ("float32 1.0 // 0.1", binary("floordiv", 1.0, "float32", f01, "float32"), (10.0, "float32")),
        ("float32 1.0 % 0.1", binary("mod", 1.0, "float32", f01, "float32"), (0.0, "float32")),
        ("int -7 // 2", binary("floordiv", -7, "int32", 2, "int32"), (-4, "int32")),
        ("int -7 % 2", binary("mod", -7, "int32", 2, "int32"), (1, "int32")),
        ("float16 200 to int8", convert(200.0, "float16", "int8"), 127),
        ("NaN to int32", convert(math.nan, "float32", "int32"), 0),
        ("NaN to bool", convert(math.nan, "float32", "bool"), 1),
        ("-1.5 to uint8", convert(-1.5, "float32", "uint8"), 0),
        ("1e10 to int32", convert(1e10, "float64", "int32"), 2**31 - 1),
        ("int 300 to int8 wraps", convert(300, "int32", "int8"), 44),
        ("inf to float8_e5m2", convert(math.inf, "float32", "float8_e5m2"), 57344.0),
        ("1000 to float8_e4m3fn", convert(1000.0, "float32", "float8_e4m3fn"), 448.0),
        ("NaN to float8_e4m3fn", math.isnan(convert(math.nan, "float32", "float8_e4m3fn")), True),
        ("float16 65520 overflows", convert(65520.0, "float32", "float16"), math.inf),
        ("float64 to float16 through float32", convert(1 + 2.0**-11 + 2.0**-40, "float64", "float16"), 1.0),
        ("int32 to bfloat16 through float32", convert(2**24 + 2**16 + 1, "int32", "bfloat16"), float(2**24)),
        ("fmin(NaN, 1)", binary("min", math.nan, "float32", 1.0, "float32"), (1.0, "float32")),
        ("NaN != NaN", binary("ne", math.nan, "float32", math.nan, "float32"), (1, "bool")),
        ("int8 -1 < uint8 1 in uint8", binary("lt", -1, "int8", 1, "uint8"), (0, "bool")),
        ("int8 -128 // -1 wraps", binary("floordiv", -128, "int8", -1, "int8"), (-128, "int8")),
        ("int8 -3 << 7 wraps", binary("shl", -3, "int8", 7, "int8"), (-128, "int8")),
        ("int8 -8 >> 1 is arithmetic", binary("shr", -8, "int8", 1, "int8"), (-4, "int8")),
    ]
    types = [
        (("bfloat16", "float16"), "float16"), (("float8_e4m3fn", "float16"), "float16"),
        (("int8", "float16"), "float16"), (("float16", "float32"), "float32"), (("bfloat16", "float8_e5m2"), "bfloat16"),
        (("bfloat16", "int32"), "bfloat16"), (("float8_e4m3fn", "int64"), "float8_e4m3fn"), (("bool", "int8"), "int8"),
        (("int8", "int32"), "int32"), (("int8", "uint8"), "uint8"), (("int32", "uint8"), "int32"),
        (("uint32", "int32"), "uint32"), (("int64", "uint32"), "int64"),
    ]
    for (a, b), want in types:
        cases.append((f"{a} with {b}", common_type(a, b, "add"), want))
    lits = [(("int8", 1), "int8"), (("int8", 1000), "int32"), (("uint8", -1), "int32"), (("int32", 2**40), "int64"),
            (("int32", 1.5), "float32"), (("bool", 1.5), "float32"), (("float16", 1.5), "float16"),
            (("float8_e4m3fn", 0.5), "float8_e4m3fn"), (("bfloat16", 3), "bfloat16"), (("int8", True), "int8")]
    for (t, v), want in lits:
        cases.append((f"{t} with the literal {v!r}", literal_common(t, v, "add"), want))
    for name, got, want in cases:
        check(f"model: {name}", got, want)
    try:
        common_type("float8_e4m3fn", "float8_e5m2", "add")
        out.append((False, "model: float8_e4m3fn with float8_e5m2 is an error", "no error"))
    except ModelError:
        out.append((True, "model: float8_e4m3fn with float8_e5m2 is an error", None))
    return out
