"""tilelang.autotuner: @autotune(configs=...) builds the file's first config
(tlc --config-index=0); tlc does not tune."""
from tlc.jit import autotune  # noqa: F401

__all__ = ["autotune"]
