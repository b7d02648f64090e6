"""tilelang.contrib: the device queries programs make (nvcc)."""
from . import nvcc  # noqa: F401
