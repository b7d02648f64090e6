"""tilelang.quantize on the host, as `python -m tlc run` provides it: the
weight-packing helpers a program calls on torch tensors before it calls a
dequantizing kernel (utils.py).  The module's kernel-side names (the _tir_*
expression builders, get_lop3_intrin_group, get_mxfp_intrin_group) matter only
inside a kernel, which tlc compiles from the file with its own tilelang.quantize
(core/frontend/py/): here they are stand-ins."""
from .utils import general_compress, interleave_weight  # noqa: F401
from .._inert import Inert


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return Inert(f"{__name__}.{name}", warn=True)
