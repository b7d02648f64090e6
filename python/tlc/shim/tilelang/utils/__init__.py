"""tilelang.utils: what programs import from it (tensor helpers)."""
from .tensor import TensorSupplyType, map_torch_type, torch_assert_close  # noqa: F401
