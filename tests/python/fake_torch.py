"""A stand-in for torch in tests without a GPU: tensors that only have a
shape, a dtype, a device and a made-up data pointer.  install() puts it in
sys.modules as torch (with empty torch.nn and torch.nn.functional, which
example files import at their top)."""
import itertools
import sys
import types

_addresses = itertools.count(0x10000, 0x1000)


class dtype:
    def __init__(self, name, floating):
        self.name, self.is_floating_point = name, floating

    def __repr__(self):
        return f"torch.{self.name}"


for _n in ("float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"):
    globals()[_n] = dtype(_n, True)
for _n in ("int8", "int16", "int32", "int64", "uint8", "bool"):
    globals()[_n] = dtype(_n, False)


class Tensor:
    def __init__(self, shape, dtype, device="cuda"):
        self.shape, self.dtype, self.device = tuple(shape), dtype, device
        self._ptr = next(_addresses)

    def data_ptr(self):
        return self._ptr


def empty(shape, dtype=None, device="cuda"):
    return Tensor(shape, dtype or float32, device)


class _Stream:
    cuda_stream = 0xabc


class cuda:
    @staticmethod
    def current_stream():
        return _Stream()


def install():
    me = sys.modules[__name__]
    nn = types.ModuleType("torch.nn")
    nn.functional = types.ModuleType("torch.nn.functional")
    me.nn = nn
    me.__path__ = []  # a package, for `import torch.nn.functional as F`
    sys.modules.update({"torch": me, "torch.nn": nn, "torch.nn.functional": nn.functional})
