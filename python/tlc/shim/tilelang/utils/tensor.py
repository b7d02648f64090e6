"""tilelang.utils.tensor: tlc's versions of its helpers (tlc/supply.py)."""
from tlc.supply import TensorSupplyType, map_torch_type, supply, torch_assert_close  # noqa: F401
