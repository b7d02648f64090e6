"""Stand-ins for the parts of TileLang that a program's Python touches but
that only matter inside a kernel (which tlc compiles from the file) or that
tlc does not have: T.* outside a kernel body (parameter annotations), and
the modules of tilelang (and tvm) that the shim does not provide.  A stand-in
is callable, subscriptable and has any attribute.  Calling one from a module
the shim does not provide prints, once per name, that it does nothing."""
import importlib.abc
import importlib.machinery
import sys
import types

DTYPES = {"float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "float8_e4m3", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2fnuz", "float", "tfloat32", "int4", "uint4", "float4_e2m1fn"}

_warned = set()


class Inert:
    """A T.* value (name "float16", "Tensor", ...) or, with a module prefix, a
    name from a module the shim does not provide ("tilelang.tools.Analyzer")."""

    tlc_stand_in = True  # answers every attribute, data_ptr and shape too: no tensor

    def __init__(self, name, warn=False):
        self.tlc_dtype = name if name in DTYPES else None
        self._name = name
        self._warn = warn

    def __call__(self, *args, **kwargs):
        if self._warn and self._name not in _warned:
            _warned.add(self._name)
            print(f"tlc: {self._name} is a stand-in in tlc's tilelang shim: calling it does nothing",
                  file=sys.stderr)
        return Inert(self._name, self._warn)

    def __getitem__(self, item):
        return Inert(self._name, self._warn)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "tlc_literal":
            # a T.* value passed to a kernel factory (policy=T.GemmWarpPolicy.Square)
            # is the same expression in the --entry tlc evaluates in the program's module
            return None if self._warn else f"T.{self._name}"
        return Inert(f"{self._name}.{name}", self._warn)

    def __repr__(self):
        return self._name if self._warn else f"T.{self._name}"

    def __str__(self):
        # str(T.float16) is the dtype's name, as in TileLang
        return self.tlc_dtype if self.tlc_dtype else repr(self)

    def __eq__(self, other):
        if self.tlc_dtype and isinstance(other, (str, Inert)):
            return self.tlc_dtype == str(other)
        return self is other

    def __hash__(self):
        return hash(self.tlc_dtype or id(self))

    def _same(self, *_):
        return Inert(self._name, self._warn)

    # symbolic sizes in annotations: T.dynamic("m") * 2, m + 1, ...
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = __mod__ = __rmod__ = _same
    __pow__ = __rpow__ = __neg__ = __lshift__ = __rshift__ = __and__ = __or__ = _same

    def __iter__(self):
        return iter(())


class DType(str):
    """A T.* dtype (T.float16): the string of its name, as in TileLang
    (getattr(torch, T.bfloat16) works), also callable as a stand-in."""

    @property
    def tlc_dtype(self):
        return str(self)

    def __call__(self, *args, **kwargs):
        return Inert(str(self))


class InertModule(types.ModuleType):
    """A module of tilelang (or tvm) that the shim does not provide."""

    def __init__(self, name):
        super().__init__(name, f"{name}: a stand-in of tlc's tilelang shim")
        self.__path__ = []  # a package: its submodules are stand-ins too

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Inert(f"{self.__name__}.{name}", warn=True)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: tilelang.* and tvm(.*) modules found nowhere
    else are InertModules."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("tilelang.") or name == "tvm" or name.startswith("tvm."):
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        return InertModule(spec.name)

    def exec_module(self, module):
        pass


def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
