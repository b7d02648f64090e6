"""tilelang.language (T) in Python: what a TileLang program evaluates itself
when it runs.  @T.prim_func records the function (tlc compiles the file);
the annotations of its parameters (T.Tensor((M, K), dtype)) and any other
T.* a program touches outside a kernel body are inert stand-ins.  Kernel
bodies are never run by Python."""
from tlc.jit import prim_func  # noqa: F401

from ._inert import DTYPES as _DTYPES, DType as _DType, Inert as _Inert


def macro(func=None, **_):
    return func if func is not None else (lambda f: f)



class _Size:
    """T.dynamic("n") / T.symbolic("n") made in Python: a size left open.
    Passed to a kernel factory, it is written into the --entry call as it
    was made, and tlc makes it a runtime parameter of the kernel (taken from
    the tensors' shapes when the kernel runs)."""

    def __init__(self, maker, name, dtype):
        self.name, self.dtype = name, dtype
        self.tlc_literal = f"T.{maker}({name!r}, {dtype!r})"

    def __repr__(self):
        return self.tlc_literal

    def _expr(self, *_):
        """an expression of the size (`(m * 2, 64)` in an annotation): only
        tlc, compiling the file, computes it"""
        return _Inert(self.name)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _expr
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = _expr
    __pow__ = __neg__ = __lshift__ = __rshift__ = _expr


def _sizes(maker, names, dtype="int32"):
    dtype = str(dtype)
    if "," in names:
        parts = [p.strip() for p in names.split(",")]
    else:
        parts = names.split()
    made = tuple(_Size(maker, p, dtype) for p in parts)
    return made if len(made) > 1 else made[0]


def dynamic(name, dtype="int32"):
    return _sizes("dynamic", name, dtype)


def symbolic(name, dtype="int32"):
    return _sizes("symbolic", name, dtype)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _DType(name) if name in _DTYPES and name != "float" else _Inert(name)
