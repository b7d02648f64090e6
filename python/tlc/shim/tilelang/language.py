"""tilelang.language (T) in Python: what a TileLang program evaluates itself
when it runs.  @T.prim_func records the function (tlc compiles the file);
the annotations of its parameters (T.Tensor((M, K), dtype)) and any other
T.* a program touches outside a kernel body are inert stand-ins.  Kernel
bodies are never run by Python."""
from tlc.jit import prim_func  # noqa: F401


def macro(func=None, **_):
    return func if func is not None else (lambda f: f)


class _Inert:
    """Any T.* value Python meets outside a kernel body: callable,
    subscriptable, with any attribute; a dtype name when it is one."""

    def __init__(self, name):
        self.tlc_dtype = name if name in _DTYPES else None
        self._name = name

    def __call__(self, *args, **kwargs):
        return _Inert(self._name)

    def __getitem__(self, item):
        return _Inert(self._name)

    def __getattr__(self, name):
        return _Inert(f"{self._name}.{name}")

    def __repr__(self):
        return f"T.{self._name}"

    def _same(self, *_):
        return _Inert(self._name)

    # symbolic sizes in annotations: T.dynamic("m") * 2, m + 1, ...
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = _same
    __pow__ = __rpow__ = __neg__ = __lshift__ = __rshift__ = __and__ = __or__ = _same

    def __iter__(self):
        return iter(())


_DTYPES = {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "bool", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz",
           "float8_e5m2fnuz", "float"}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Inert(name)
