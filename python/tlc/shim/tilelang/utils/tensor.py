"""tilelang.utils.tensor: tlc's versions of its helpers (tlc/supply.py)."""
from tlc.supply import (TensorSupplyType, get_tensor_supply, map_torch_type, supply,  # noqa: F401
                        torch_assert_close)
