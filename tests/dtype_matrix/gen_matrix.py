#!/usr/bin/env python3
"""gen_matrix.py - the dtype/operator matrix: TileLang kernels that compute
every operation of doc/language.md "Arithmetic" on every pair of dtypes,
their inputs, and a manifest that says what each output holds.

    gen_matrix.py OUTDIR

writes OUTDIR/matrix_<dtype>.tl (one file per left-hand dtype: a kernel per
ordered pair of dtypes, one with literals and unary operators, one with
the conversions from that dtype), OUTDIR/matrix_exact.tl (the named exact
cases, on run-time values and as constants for simplify to fold),
OUTDIR/inputs/<param>.npy (fixed inputs, the same on every run) and
OUTDIR/manifest.json.  Plain python3, no third-party modules.

Every kernel is one block of N threads over `for i in T.Parallel(N)`,
each output a tensor of its own: `o_<op>` of the operation's result type
(the definition's), and for narrow results `w_<op>`, the same value stored
into a wider tensor (int32, float32 or float64), which a printer computing
in a wider type than the definition shows up in.  Operations the definition
makes errors are left out here (tests/lit/dtype_matrix has them).

The manifest describes each kernel: its file, params (name, dtype, role
'in' or 'out'), and its statements as expression trees that model.py
evaluates:
    ["in", P] the element i of input P      ["idx"] i (int32)
    ["lit", v] a Python literal              ["typed", dt, v] T.<dt>(v)
    ["bin", op, x, y]  ["neg", x]  ["not", x]  ["cast", dt, x]
    ["sel", c, x, y] T.if_then_else
and statements ["store", OUT, e] (OUT[i] = e), ["augadd", OUT, e] (OUT[i] += e).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as M  # noqa: E402

N = 256  # elements per tensor, one thread each
N_EXACT = 32
DT = M.DTYPES
NARROW_INT = ("int8", "uint8", "int16", "uint16")
WIDE = {"float16": "float32", "bfloat16": "float32", "float8_e4m3fn": "float32", "float8_e5m2": "float32",
        "float32": "float64", "int8": "int32", "uint8": "int32", "int16": "int32", "uint16": "int32"}
BIN_SYM = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "eq": "==",
           "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "and": "&", "or": "|", "xor": "^",
           "shl": "<<", "shr": ">>"}
INTLIKE = ("int8", "uint8", "int32", "int64", "bool")


# ---- a deterministic generator (splitmix64): the same inputs on every Python ----

class Rng:
    def __init__(self, seed):
        self.s = seed & (2**64 - 1)

    def u64(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)

    def below(self, n):
        return self.u64() % n

    def between(self, lo, hi):  # inclusive
        return lo + self.below(hi - lo + 1)


def seed_of(name):
    h = 1469598103934665603
    for c in name.encode():
        h = ((h ^ c) * 1099511628211) & (2**64 - 1)
    return h


# ---- inputs ----

def random_float(rng, t, wide=False):
    """A nonzero finite value of float type t: random significand, an exponent
    mostly near 1 and sometimes anywhere in the format (overflow, underflow,
    subnormals)."""
    if t in M.FLOAT8:
        f = M.FMT[t]
        while True:
            v = M.decode_small(rng.below(256), t)
            if math.isfinite(v) and v != 0.0:
                return v
    f = M.FMT[t]
    if wide or rng.below(4) == 0:
        lo, hi = {"float16": (-24, 15), "bfloat16": (-133, 127), "float32": (-149, 127),
                  "float64": (-200, 200)}[t]
    else:
        lo, hi = -4, 6
    e = rng.between(lo, hi)
    sig = (1 << (f.p - 1)) | rng.below(1 << (f.p - 1))
    v = M.round_float(math.ldexp(sig, e - (f.p - 1)), t)
    if v == 0.0 or not math.isfinite(v):
        v = 1.0
    return -v if rng.below(2) else v


def random_int(rng, t):
    """Nonzero; int32 and int64 small enough that + - * cannot overflow."""
    lo, hi = {"int8": (-128, 127), "uint8": (1, 255), "int32": (-(2**15) + 1, 2**15 - 1),
              "int64": (-(2**31) + 1, 2**31 - 1), "bool": (0, 1)}[t]
    while True:
        v = rng.between(lo, hi)
        if v != 0 or t == "bool":
            return v


def random_value(rng, t):
    return random_float(rng, t) if M.is_float(t) else random_int(rng, t)


def arith_inputs(name, t):
    rng = Rng(seed_of(name))
    return [random_value(rng, t) for _ in range(N)]


def divisor_inputs(name, t):
    """For // and %: like random_value, and never 0 (bool: all True)."""
    vals = arith_inputs(name, t)
    return [1 if t == "bool" else v for v in vals]


def shift_inputs(name, t, common):
    """Counts in [0, bits) of the type the shift runs in; for int32 and int64
    small enough that x << s stays in range (|x| < 2^15 and 2^31)."""
    rng = Rng(seed_of(name))
    cap = {"int8": 8, "uint8": 8, "int32": 16, "int64": 32}[common]
    if t == "bool":
        cap = 2
    return [rng.below(cap) for _ in range(N)]


def stress_floats(t):
    """Values that conversions out of t must get right (rounded to t)."""
    two = math.ldexp
    vals = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999, -0.99999,
            1.0, -1.0, 127.0, 127.5, 127.9, 128.0, -128.0, -128.5, -129.0, 200.0, -200.0, 255.0, 255.5, 256.0,
            -1.0, 300.0, -300.0, 1000.0, 32767.5, -32768.75, 65504.0, 65519.0, 65520.0, -65520.0, 70000.0,
            two(1, 24) + 1, two(1, 31), -two(1, 31), two(1, 31) - 64, two(1, 31) - 0.5, -two(1, 31) - 0.5, two(1, 32),
            two(1, 63), -two(1, 63), two(1, 64), 1e19, -1e19, 1e38, -3.4e38, 1e300, -1e300, 1e-300, 1e-40,
            two(1, -149), two(1, -24), two(1, -25), two(3, -26), two(1, -9), two(1, -10), two(3, -11), two(1, -16),
            two(1, -17), two(1, -133), 448.0, 449.0, 464.0, 465.0, 480.0, 500.0, -500.0, 57344.0, 61440.0,
            61441.0, -61441.0, 65536.0, 0.1, -0.1, 0.3, 3.14159, 1 / 3]
    # exactly between two values of each narrow format, plus a little: a
    # float64 source rounded to float32 first lands on the tie (then even),
    # straight to the narrow format it would round up
    for p in (11, 8, 4, 3):
        vals += [1 + two(1, -p) + two(1, -40), -(1 + two(1, -p) + two(1, -40)), 1 + two(1, -p), 1 + two(3, -p)]
    out = []
    for v in vals:
        r = M.round_float(v, t) if t != "float64" else v
        out.append(r)
    return out


def stress_ints(t):
    lo, hi = M.int_range(t)
    vals = [0, 1, -1, 2, -2, lo, hi, lo + 1, hi - 1, 7, -7, 100, -100, 127, 128, -128, -129, 200, 255, 256, 257,
            -255, 448, 464, 465, 500, 1000, -1000, 2049, 2051, 4097, 32767, -32768, 65504, 65519, 65520, -65520,
            70000, 57344, 61440, 61441, 2**24 + 1, 2**24 + 3, 2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**31 - 1,
            -(2**31), 2**31 - 65, 2**31 - 64, 2**53 + 1, 2**62 + 2**38 + 1, 2**63 - 1, -(2**63)]
    return [v for v in vals if lo <= v <= hi]


def conversion_inputs(name, t):
    rng = Rng(seed_of(name))
    if t == "bool":
        return [rng.below(2) for _ in range(N)]
    if M.is_float(t):
        if t in M.FLOAT8:  # every code point, NaN and infinities included
            vals = [M.decode_small(b, t) for b in range(256)]
            return vals[:N]
        vals = stress_floats(t)
        while len(vals) < N:
            vals.append(random_float(rng, t, wide=rng.below(2) == 0))
        return vals[:N]
    vals = stress_ints(t)
    lo, hi = M.int_range(t)
    while len(vals) < N:
        vals.append(rng.between(lo, hi))
    return vals[:N]


def literal_inputs(name, t):
    """Random values, a few zeros, and for floats -0.0, +-inf and NaN."""
    vals = arith_inputs(name, t)
    specials = [0, 0, 1]
    if M.is_float(t):
        specials += [-0.0, math.inf, -math.inf, math.nan, 0.5, -0.5, 2.5, 1.0]
        if t in M.FLOAT8:
            specials = [v if not math.isinf(v) else math.copysign(M.FMT[t].maxfinite, v) for v in specials]
            specials += [M.FMT[t].maxfinite, -M.FMT[t].maxfinite]
        else:
            specials += [65504.0 if t == "float16" else 1e30, -2.0**14]
    if t in ("int8", "uint8"):
        specials += [M.int_range(t)[0], M.int_range(t)[1], 100]
    for k, v in enumerate(specials):
        vals[3 + 7 * k] = M.round_float(float(v), t) if M.is_float(t) else v
    return vals


# ---- expressions ----

def ex_in(p):
    return ["in", p]


def ex_bin(op, x, y):
    return ["bin", op, x, y]


def lit(v):
    return ["lit", v]


def src(e):
    """The TileLang source of an expression tree."""
    k = e[0]
    if k == "in":
        return f"{e[1]}[i]"
    if k == "idx":
        return "i"
    if k == "lit":
        v = e[1]
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("no literal for inf or NaN")
        return repr(v) if not (isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0) else f"({v!r})"
    if k == "typed":
        return f"T.{e[1]}({e[2]!r})"
    if k == "bin":
        if e[1] in ("min", "max"):
            return f"T.{e[1]}({src(e[2])}, {src(e[3])})"
        return f"({src(e[2])} {BIN_SYM[e[1]]} {src(e[3])})"
    if k == "neg":
        return f"(-{src(e[1])})"
    if k == "not":
        return f"(not {src(e[1])})"
    if k == "cast":
        return f'T.cast({src(e[2])}, "{e[1]}")'
    if k == "sel":
        return f"T.if_then_else({src(e[1])}, {src(e[2])}, {src(e[3])})"
    raise ValueError(k)


def expr_type(e, types):
    """The dtype of a typed expression (model.eval_expr on a dummy element)."""
    env = {p: [1 if not M.is_float(t) else 1.0] for p, t in types.items()}
    return M.eval_expr(e, env, types, 0)[1]


# ---- kernels ----

class Kernel:
    def __init__(self, name, file, n=N):
        self.name, self.file, self.n = name, file, n
        self.params = []  # (name, dtype, role)
        self.types = {}
        self.stmts = []
        self.inputs = {}  # param -> values

    def add_input(self, suffix, dtype, values):
        p = f"{self.name}_{suffix}"
        self.params.append((p, dtype, "in"))
        self.types[p] = dtype
        self.inputs[p] = values
        return p

    def add_out(self, name, dtype):
        self.params.append((name, dtype, "out"))
        self.types[name] = dtype
        return name

    def store(self, op, e, wide=True, dtype=None):
        """o_<op> = e in e's own type (or dtype), and w_<op> in a wider one."""
        t = dtype or expr_type(e, self.types)
        out = self.add_out(f"o_{op}", t)
        self.stmts.append(["store", out, e])
        if wide and t in WIDE:
            w = self.add_out(f"w_{op}", WIDE[t])
            self.stmts.append(["store", w, e])

    def source(self):
        lines = ["@T.prim_func", f"def {self.name}("]
        lines += [f'    {p}: T.Tensor(({self.n},), "{t}"),' for p, t, _ in self.params]
        lines += ["):", f"    with T.Kernel(1, threads={self.n}) as bx:", f"        for i in T.Parallel({self.n}):"]
        for s in self.stmts:
            if s[0] == "store":
                lines.append(f"            {s[1]}[i] = {src(s[2])}")
            else:
                lines.append(f"            {s[1]}[i] += {src(s[2])}")
        return "\n".join(lines) + "\n"

    def manifest(self):
        return {"name": self.name, "file": self.file, "n": self.n,
                "params": [{"name": p, "dtype": t, "role": r} for p, t, r in self.params],
                "stmts": self.stmts}


def errors_for(ta, tb, op):
    try:
        M.common_type(ta, tb, op)
        return False
    except M.ModelError:
        return True


def pair_kernel(a, b, file):
    k = Kernel(f"p_{M.SHORT[a]}_{M.SHORT[b]}", file)
    pa = k.add_input("a", a, arith_inputs(f"p_{a}_{b}_a", a))
    pb = k.add_input("b", b, arith_inputs(f"p_{a}_{b}_b", b))
    x, y = ex_in(pa), ex_in(pb)
    yd = y
    if b == "bool":
        yd = ex_in(k.add_input("d", b, divisor_inputs(f"p_{a}_{b}_d", b)))
    ints = a in INTLIKE and b in INTLIKE
    ys = None
    if ints and not (a == "bool" and b == "bool"):
        common = M.common_type(a, b, "shl")
        ys = ex_in(k.add_input("s", b, shift_inputs(f"p_{a}_{b}_s", b, common)))
    for op in ("add", "sub", "mul", "div"):
        if not errors_for(a, b, op):
            k.store(op, ex_bin(op, x, y))
    for op in ("floordiv", "mod"):
        k.store(op, ex_bin(op, x, yd))
    for op in ("min", "max"):
        k.store(op, ex_bin(op, x, y))
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        k.store(op, ex_bin(op, x, y))
    k.store("lt_i32", ex_bin("lt", x, y), dtype="int32")
    cond = ex_bin("eq", ex_bin("mod", ["idx"], lit(3)), lit(0))
    k.store("sel", ["sel", cond, x, y])
    # acc[i] += b[i]: the sum in the common type, stored back into acc's
    acc = k.add_out("o_acc", a)
    k.stmts.append(["store", acc, x])
    k.stmts.append(["augadd", acc, y])
    if ints:
        for op in ("and", "or", "xor"):
            k.store(op, ex_bin(op, x, y))
        if ys is not None:
            for op in ("shl", "shr"):
                k.store(op, ex_bin(op, x, ys))
    return k


# literal operations: (name, expression builder of x, applies to dtype t?)
def literal_ops(t):
    x = ["in", None]
    f = M.is_float(t)
    intlike = t in INTLIKE
    narrow_p = {"float16": 11, "bfloat16": 8, "float8_e4m3fn": 4, "float8_e5m2": 3}.get(t, 11)
    tie = 1 + math.ldexp(1, -narrow_p) + math.ldexp(1, -40)
    ops = [
        ("neg", ["neg", x]),
        ("not", ["not", x]),
        ("add1", ex_bin("add", x, lit(1))),
        ("rsub5", ex_bin("sub", lit(5), x)),
        ("mul3", ex_bin("mul", x, lit(3))),
        ("fdiv2", ex_bin("floordiv", x, lit(2))),
        ("mod3", ex_bin("mod", x, lit(3))),
        ("add1000", ex_bin("add", x, lit(1000))),
        ("addm1", ex_bin("add", x, lit(-1))),
        ("addbig", ex_bin("add", x, lit(3000000000))),
        ("addf", ex_bin("add", x, lit(1.5))),
        ("mulf", ex_bin("mul", x, lit(0.1))),
        ("divf", ex_bin("div", x, lit(2.0))),
        ("rdivf", ex_bin("div", lit(0.5), x)),
        ("lt1", ex_bin("lt", x, lit(1))),
        ("eqf", ex_bin("eq", x, lit(0.5))),
        ("gem1", ex_bin("ge", x, lit(-1))),
        ("ne0", ex_bin("ne", x, lit(0))),
        ("min3", ex_bin("min", x, lit(3))),
        ("maxf", ex_bin("max", x, lit(-0.5))),
        ("addtie", ex_bin("add", x, lit(tie))),
        ("addf32", ex_bin("add", x, ["typed", "float32", 0.5])),
        ("addi64", ex_bin("add", x, ["typed", "int64", 5])),
        ("mulf16", ex_bin("mul", x, ["typed", "float16", 1.5])),
        ("addbf16", ex_bin("add", x, ["typed", "bfloat16", 2.5])),
        ("self", ["sel", ex_bin("eq", ex_bin("mod", ["idx"], lit(2)), lit(0)), x, lit(2.5)]),
        ("seli", ["sel", ex_bin("eq", ex_bin("mod", ["idx"], lit(2)), lit(0)), x, lit(7)]),
    ]
    if f:
        ops.append(("div2", ex_bin("div", x, lit(2))))
    if t in M.FLOAT8:
        ops.append(("add8", ex_bin("add", x, ["typed", t, 0.75])))
        ops.append(("mul8", ex_bin("mul", x, ["typed", t, 0.3])))
    if intlike:
        ops += [("addT", ex_bin("add", x, lit(True))), ("and7", ex_bin("and", x, lit(7))),
                ("or256", ex_bin("or", x, lit(256))), ("xorm1", ex_bin("xor", x, lit(-1))),
                ("shl2", ex_bin("shl", x, lit(2))), ("shr1", ex_bin("shr", x, lit(1)))]
    return ops


def bind_x(e, p):
    if isinstance(e, list):
        if e == ["in", None]:
            return ["in", p]
        return [bind_x(c, p) for c in e]
    return e


def literal_kernel(t, file):
    k = Kernel(f"l_{M.SHORT[t]}", file)
    pa = k.add_input("a", t, literal_inputs(f"l_{t}_a", t))
    for name, e in literal_ops(t):
        e = bind_x(e, pa)
        try:
            expr_type(e, k.types)
        except M.ModelError:
            continue  # an error by the definition (tests/lit/dtype_matrix)
        if name in ("not", "ne0"):
            k.store(name, e)
            k.store(name + "_i32", e, wide=False, dtype="int32")
        else:
            k.store(name, e)
    return k


def cast_kernel(s, file, targets, prefix):
    k = Kernel(f"{prefix}_{M.SHORT[s]}", file)
    px = k.add_input("x", s, conversion_inputs(f"c_{s}_x", s))
    x = ex_in(px)
    for t in targets:
        k.store(f"cast_{M.SHORT[t]}", ["cast", t, x], wide=False, dtype=t)
        k.store(f"store_{M.SHORT[t]}", x, wide=False, dtype=t)
        if t in WIDE:
            k.store(f"castw_{M.SHORT[t]}", ["cast", t, x], wide=False, dtype=WIDE[t])
    return k


def uses_float8(e, types):
    if not isinstance(e, list):
        return False
    if e[0] == "in":
        return types[e[1]] in M.FLOAT8
    if e[0] in ("typed", "cast") and e[1] in M.FLOAT8:
        return True
    return any(uses_float8(c, types) for c in e[1:])


class Split:
    """Two kernels, name and name_f8: a case goes to the second when it
    touches float8 (hip-gfx90a has none)."""

    def __init__(self, name, file):
        self.k = Kernel(name, file, N_EXACT)
        self.k8 = Kernel(name + "_f8", file, N_EXACT)

    def inp(self, suffix, t, v):
        k = self.k8 if t in M.FLOAT8 else self.k
        return ex_in(k.add_input(suffix, t, [v] * N_EXACT))

    def case(self, name, e, *extra):
        k = self.k8 if uses_float8(e, {**self.k.types, **self.k8.types}) else self.k
        if expr_type(e, k.types) is not None:  # else a Python value: stored only into extra's types
            k.store(name, e)
        for t in extra:
            k.store(f"{name}_{M.SHORT[t]}", e, wide=False, dtype=t)

    def kernels(self):
        return [k for k in (self.k, self.k8) if k.params]


def exact_kernels(file):
    """The cases the definition names, on run-time values (exact) and as
    typed constants that simplify folds (fold)."""
    x = Split("exact", file)
    inp, case = x.inp, x.case
    i8_100 = inp("i8_100", "int8", 100)
    case("i8_100_plus_100", ex_bin("add", i8_100, i8_100), "int32")
    u8_1, u8_2 = inp("u8_1", "uint8", 1), inp("u8_2", "uint8", 2)
    case("u8_1_minus_2", ex_bin("sub", u8_1, u8_2), "int32")
    b_t = inp("b_true", "bool", 1)
    case("true_plus_true", ex_bin("add", b_t, b_t))
    case("neg_true", ["neg", b_t])
    case("true_and_true", ex_bin("and", b_t, b_t), "int32")
    f32_1 = inp("f32_1", "float32", 1.0)
    f32_01 = inp("f32_01", "float32", M.round_float(0.1, "float32"))
    case("f32_1_fdiv_01", ex_bin("floordiv", f32_1, f32_01))
    case("f32_1_mod_01", ex_bin("mod", f32_1, f32_01))
    case("f32_1_fdiv_lit01", ex_bin("floordiv", f32_1, lit(0.1)))
    f64_1 = inp("f64_1", "float64", 1.0)
    case("f64_1_fdiv_lit01", ex_bin("floordiv", f64_1, lit(0.1)))
    case("f64_1_mod_lit01", ex_bin("mod", f64_1, lit(0.1)))
    f16_200 = inp("f16_200", "float16", 200.0)
    case("f16_200_cast_i8", ["cast", "int8", f16_200], "int32")
    x.k.store("f16_200_store_i8", f16_200, wide=False, dtype="int8")
    e4_448 = inp("e4m3_448", "float8_e4m3fn", 448.0)
    case("e4m3_448_plus_448", ex_bin("add", e4_448, e4_448))
    e5_max = inp("e5m2_max", "float8_e5m2", 57344.0)
    case("e5m2_max_times_2", ex_bin("mul", e5_max, lit(2)))
    e4_3 = inp("e4m3_3", "float8_e4m3fn", 3.0)
    case("e4m3_3_times_01", ex_bin("mul", e4_3, lit(0.1)))
    case("e4m3_3_div_7", ex_bin("div", e4_3, lit(7)))
    case("e4m3_3_plus_c03", ex_bin("add", e4_3, ["typed", "float8_e4m3fn", 0.3]))
    e4_nan = inp("e4m3_nan", "float8_e4m3fn", math.nan)
    case("e4m3_nan_plus_1", ex_bin("add", e4_nan, lit(1)))
    case("e4m3_nan_cast_i32", ["cast", "int32", e4_nan])
    case("e4m3_nan_cast_bool", ["cast", "bool", e4_nan])
    i8_m128 = inp("i8_m128", "int8", -128)
    i8_m1 = inp("i8_m1", "int8", -1)
    case("i8_m128_fdiv_m1", ex_bin("floordiv", i8_m128, i8_m1), "int32")
    case("i8_neg_m128", ["neg", i8_m128], "int32")
    i8_m7, i8_2 = inp("i8_m7", "int8", -7), inp("i8_2", "int8", 2)
    case("i8_m7_fdiv_2", ex_bin("floordiv", i8_m7, i8_2))
    case("i8_m7_mod_2", ex_bin("mod", i8_m7, i8_2))
    i32_m7, i32_m2 = inp("i32_m7", "int32", -7), inp("i32_m2", "int32", -2)
    case("i32_m7_fdiv_2", ex_bin("floordiv", i32_m7, lit(2)))
    case("i32_m7_mod_2", ex_bin("mod", i32_m7, lit(2)))
    case("i32_7_mod_m2", ex_bin("mod", lit(7), i32_m2))
    case("i32_m7_shr_1", ex_bin("shr", i32_m7, lit(1)))
    case("i32_m7_shl_3", ex_bin("shl", i32_m7, lit(3)))
    u8_200 = inp("u8_200", "uint8", 200)
    case("u8_200_plus_100", ex_bin("add", u8_200, lit(100)), "int32")
    case("i8_m1_lt_u8_1", ex_bin("lt", i8_m1, u8_1))
    case("max_i8_m1_u8_1", ex_bin("max", i8_m1, u8_1), "int32")
    case("u8_1_gt_m1", ex_bin("gt", u8_1, lit(-1)))
    f32_nan = inp("f32_nan", "float32", math.nan)
    case("fmin_nan_1", ex_bin("min", f32_nan, f32_1))
    case("fmax_1_nan", ex_bin("max", f32_1, f32_nan))
    f16_max = inp("f16_65504", "float16", 65504.0)
    case("f16_65504_plus_16", ex_bin("add", f16_max, lit(16)))
    bf16_x = inp("bf16_1p", "bfloat16", 1 + 2.0**-7)
    f16_y = inp("f16_tiny", "float16", 2.0**-11)
    case("bf16_plus_f16", ex_bin("add", bf16_x, f16_y))
    i32_big = inp("i32_16842753", "int32", 2**24 + 2**16 + 1)
    case("i32_to_bf16", ["cast", "bfloat16", i32_big])
    case("i32_plus_bf16", ex_bin("add", i32_big, ["typed", "bfloat16", 0.0]))
    f64_tie = inp("f64_tie", "float64", 1 + 2.0**-11 + 2.0**-40)
    case("f64_tie_to_f16", ["cast", "float16", f64_tie])
    kernels = x.kernels()

    # the same as constants: simplify folds them (and the frontend evaluates
    # expressions of Python literals alone with CPython's arithmetic)
    c = Split("fold", file)
    c.k.add_input("unused", "int32", [1] * N_EXACT)
    c.k8.add_input("unused", "int32", [1] * N_EXACT)
    fold = c.case
    ty = lambda t, v: ["typed", t, v]  # noqa: E731
    fold("i8_100_plus_100", ex_bin("add", ty("int8", 100), ty("int8", 100)), "int32")
    fold("u8_1_minus_2", ex_bin("sub", ty("uint8", 1), ty("uint8", 2)), "int32")
    fold("true_plus_true", ex_bin("add", ty("bool", True), ty("bool", True)))
    fold("f32_1_fdiv_01", ex_bin("floordiv", ty("float32", 1.0), ty("float32", 0.1)))
    fold("f32_1_mod_01", ex_bin("mod", ty("float32", 1.0), ty("float32", 0.1)))
    fold("f64_1_fdiv_01", ex_bin("floordiv", ty("float64", 1.0), ty("float64", 0.1)))
    fold("f16_200_cast_i8", ["cast", "int8", ty("float16", 200.0)], "int32")
    fold("e4m3_448_plus_448", ex_bin("add", ty("float8_e4m3fn", 448.0), ty("float8_e4m3fn", 448.0)))
    fold("e4m3_c1000", ty("float8_e4m3fn", 1000.0))
    fold("e4m3_c03", ty("float8_e4m3fn", 0.3))
    fold("e5m2_c03_times_3", ex_bin("mul", ty("float8_e5m2", 0.3), lit(3)))
    fold("i8_m128_fdiv_m1", ex_bin("floordiv", ty("int8", -128), ty("int8", -1)), "int32")
    fold("i32_m7_fdiv_2", ex_bin("floordiv", ty("int32", -7), lit(2)))
    fold("i32_m7_mod_2", ex_bin("mod", ty("int32", -7), lit(2)))
    fold("u8_200_plus_100", ex_bin("add", ty("uint8", 200), lit(100)), "int32")
    fold("i8_m1_lt_u8_1", ex_bin("lt", ty("int8", -1), ty("uint8", 1)))
    fold("cast_1000_i8", ["cast", "int8", lit(1000)], "int32")
    fold("cast_300p7_u8", ["cast", "uint8", lit(300.7)], "int32")
    fold("cast_m1e10_i32", ["cast", "int32", lit(-1e10)])
    fold("cast_m1p5_u8", ["cast", "uint8", lit(-1.5)], "int32")
    fold("cast_tie_f16", ["cast", "float16", lit(1 + 2.0**-11 + 2.0**-40)])
    fold("cast_big_bf16", ["cast", "bfloat16", lit(2**24 + 2**16 + 1)])
    fold("f16_65504_plus_16", ex_bin("add", ty("float16", 65504.0), lit(16)))
    # Python literals alone: CPython's values (1.0 // 0.1 == 9.0), then stored
    fold("py_1_fdiv_01", ex_bin("floordiv", lit(1.0), lit(0.1)), "float32")
    fold("py_true_plus_true", ex_bin("add", lit(True), lit(True)), "int8")
    fold("py_100_plus_100", ex_bin("add", lit(100), lit(100)), "int8", "uint8")
    fold("py_m7_fdiv_2", ex_bin("floordiv", lit(-7), lit(2)), "int32")
    return kernels + c.kernels()


def has_float8(k):
    return any(t in M.FLOAT8 for _, t, _ in k.params)


def build():
    """Every kernel, grouped by file: {file: [Kernel]}.  hip-gfx90a has no
    OCP float8, so every kernel that touches float8_e4m3fn or float8_e5m2
    lives in a file of its own (FLOAT8_FILES), which only CUDA compiles."""
    files = {}
    plain = [t for t in DT if t not in M.FLOAT8]
    for a in plain:
        file = f"matrix_{M.SHORT[a]}.tl"
        ks = [pair_kernel(a, b, file) for b in plain]
        ks.append(literal_kernel(a, file))
        ks.append(cast_kernel(a, file, plain, "c"))
        files[file] = ks
    exact = exact_kernels("matrix_exact.tl")
    files["matrix_exact.tl"] = [k for k in exact if not has_float8(k)]
    for f8 in M.FLOAT8:
        file = f"matrix_{M.SHORT[f8]}.tl"
        ks = [pair_kernel(f8, b, file) for b in DT if not (b in M.FLOAT8 and b != f8)]
        ks.append(literal_kernel(f8, file))
        ks.append(cast_kernel(f8, file, DT, "c"))
        files[file] = ks
    for f8 in M.FLOAT8:
        file = f"matrix_to_{M.SHORT[f8]}.tl"
        ks = [pair_kernel(a, f8, file) for a in plain]
        ks += [cast_kernel(a, file, [f8], f"c{M.SHORT[f8]}") for a in plain]
        files[file] = ks
    files["matrix_exact_f8.tl"] = [k for k in exact if has_float8(k)]
    for k in files["matrix_exact_f8.tl"]:
        k.file = "matrix_exact_f8.tl"
    for k in files["matrix_exact.tl"]:
        assert not has_float8(k)
    return files


HEADER = """# Generated by tests/dtype_matrix/gen_matrix.py: do not edit.
# The dtype/operator matrix (doc/language.md "Arithmetic"); model.py says
# what each output holds.
import tilelang.language as T
"""


def write(outdir):
    files = build()
    os.makedirs(os.path.join(outdir, "inputs"), exist_ok=True)
    manifest = {"n": N, "files": {}, "kernels": []}
    for file, ks in files.items():
        text = HEADER + "".join("\n\n" + k.source() for k in ks)
        with open(os.path.join(outdir, file), "w") as f:
            f.write(text)
        # hip-gfx90a compiles the files without float8
        manifest["files"][file] = {"kernels": [k.name for k in ks], "hip": not any(map(has_float8, ks))}
        for k in ks:
            for p, values in k.inputs.items():
                M.write_npy(os.path.join(outdir, "inputs", p + ".npy"), k.types[p], values)
            manifest["kernels"].append(k.manifest())
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)
    return manifest


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    m = write(argv[1])
    nout = sum(1 for k in m["kernels"] for p in k["params"] if p["role"] == "out")
    print(f"{len(m['files'])} files, {len(m['kernels'])} kernels, {nout} outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
