"""tilelang.profiler: do_bench and the Profiler class name."""
from tlc.profiler import Profiler as _Profiler, median_ms


class Profiler(_Profiler):
    """tilelang.Profiler(module, params, out_idx, supply_type), TileLang
    0.1's profiler of what tilelang.lower returned (a kernel built by tlc)."""

    def __init__(self, mod, params=None, result_idx=None, supply_type=None):
        mod.mark_outputs(result_idx)
        super().__init__(mod, supply_type)

    @property
    def func(self):
        return self.kernel


def do_bench(fn, warmup=25, rep=100, _n_warmup=0, _n_repeat=0, quantiles=None, return_mode="mean", **_):
    """Time fn() in milliseconds: the median of the timed runs after warm-up
    (tlc reports the median whatever return_mode asks; quantiles are not
    computed)."""
    return median_ms(fn, _n_warmup or warmup, _n_repeat or rep)
