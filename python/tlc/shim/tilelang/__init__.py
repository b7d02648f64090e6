"""tilelang, as `python -m tlc run` provides it: TileLang's Python surface
with tlc as the compiler (doc/python.md).  Not TileLang: only what a
program that builds and calls kernels needs."""
from tlc import TlcError, LaunchError  # noqa: F401
from tlc.jit import autotune, compile, jit, lower  # noqa: F401

from . import _inert
from . import language  # noqa: F401
from . import autotuner  # noqa: F401
from . import carver, contrib, math, profiler, testing, utils  # noqa: F401
from .math import cdiv, next_power_of_2  # noqa: F401
from .utils import TensorSupplyType  # noqa: F401

# TensorSupplyType under the name some of TileLang's examples use
# (examples/linear_attention's retnet: get_profiler(tilelang.TensorDistribution.Normal));
# TileLang 0.1 itself has no such name, so those programs stop there under it
TensorDistribution = TensorSupplyType
from .profiler import Profiler  # noqa: F401

__version__ = "0.0.0+tlc"

_inert.install()


def __getattr__(name):
    """tilelang.X that the shim does not provide: tilelang.tvm, tilelang.tools, ..."""
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib
    return importlib.import_module(f"{__name__}.{name}")


class PassConfigKey:
    """Names of pass configs (tlc reads the ones the kernel file gives)."""

    def __getattr__(self, name):
        return "tl." + name.lower().replace("tl_", "", 1)


PassConfigKey = PassConfigKey()


def disable_cache():
    """TileLang's kernel cache switch: tlc's cache is keyed by the generated
    source, so a stale entry cannot be hit; nothing to do."""


def enable_cache():
    """The other half of disable_cache(): nothing to do either."""


def is_cache_enabled():
    return True


def set_log_level(level):
    pass
