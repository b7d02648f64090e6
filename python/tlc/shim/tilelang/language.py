"""tilelang.language (T) in Python: what a TileLang program evaluates itself
when it runs.  @T.prim_func records the function (tlc compiles the file);
the annotations of its parameters (T.Tensor((M, K), dtype)) and any other
T.* a program touches outside a kernel body are inert stand-ins.  Kernel
bodies are never run by Python."""
from tlc.jit import prim_func  # noqa: F401

from ._inert import DTYPES as _DTYPES, DType as _DType, Inert as _Inert


def macro(func=None, **_):
    return func if func is not None else (lambda f: f)



def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _DType(name) if name in _DTYPES and name != "float" else _Inert(name)
