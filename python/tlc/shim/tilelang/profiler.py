"""tilelang.profiler: do_bench and the Profiler class name."""
from tlc.profiler import Profiler, median_ms  # noqa: F401


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None, return_mode="mean", **_):
    """Time fn() in milliseconds: the median of the timed runs after warm-up
    (tlc reports the median whatever return_mode asks; quantiles are not
    computed)."""
    return median_ms(fn, _n_warmup or warmup, _n_repeat or rep)
