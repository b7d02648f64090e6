"""tilelang.carver: only its device queries (arch.driver)."""
from . import arch  # noqa: F401
