"""tilelang.autotuner: @autotune(configs=...) builds the file's first config
(tlc --config-index=0), and AutoTuner.from_kernel(...).run() builds and
times the first config: tlc does not tune."""
import contextlib
import inspect

from tlc import TlcError
from tlc.jit import autotune, compile, jit  # noqa: F401

__all__ = ["autotune", "jit", "AutoTuner", "AutotuneResult", "set_autotune_inputs"]


class AutotuneResult:
    def __init__(self, latency, config, ref_latency, kernel):
        self.latency, self.config, self.ref_latency, self.kernel = latency, config, ref_latency, kernel
        self.func = kernel
        self.libcode = kernel.get_kernel_source()


class AutoTuner:
    """TileLang's AutoTuner API.  run() builds the first config only (it
    prints that it did not tune), checks it against ref_prog when one is
    given, and times it."""

    def __init__(self, fn, configs):
        self.fn, self.configs = fn, list(configs)
        self.compile_args = {}
        self.profile_args = {}

    @classmethod
    def from_kernel(cls, kernel, configs):
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target="auto", **_):
        self.compile_args = {"out_idx": out_idx, "target": target}
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30, supply_type=None, ref_prog=None, rtol=1e-2,
                         atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, **_):
        self.profile_args = dict(warmup=warmup, rep=rep, supply_type=supply_type, ref_prog=ref_prog, rtol=rtol,
                                 atol=atol, max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check)
        return self

    def run(self, warmup=None, rep=None, timeout=None):
        if not self.configs:
            raise TlcError("AutoTuner.run: no configs")
        config = self.configs[0]
        if not isinstance(config, dict):  # a tuple of values in the order of the function's parameters
            config = dict(zip(inspect.signature(self.fn).parameters, config))
        config = dict(config)
        config.pop("pass_configs", None)  # tlc reads a config's pass_configs from the file
        print(f"tlc does not tune: building the first of {len(self.configs)} configs, {config}")
        fn = getattr(self.fn, "__wrapped__", self.fn)
        made = self.fn(**config)
        if not hasattr(made, "get_profiler") and getattr(made, "entry", None) is None and \
                getattr(made, "factory", None) is None and fn.__qualname__ != fn.__name__:
            raise TlcError(f"AutoTuner.from_kernel: tlc builds a kernel by calling a function of the file from "
                           f"the top level, and '{fn.__qualname__}' is defined inside another function: define "
                           f"the kernel factory at the file's top level (or use @autotune on it)")
        kernel = made if hasattr(made, "get_profiler") else compile(made, **self.compile_args)
        pa = self.profile_args
        profiler = kernel.get_profiler(pa.get("supply_type"))
        ref = pa.get("ref_prog")
        if ref is not None and not pa.get("skip_check"):
            profiler.assert_allclose(ref, atol=pa["atol"], rtol=pa["rtol"],
                                     max_mismatched_ratio=pa["max_mismatched_ratio"])
        warmup = warmup if warmup is not None else pa.get("warmup", 25)
        rep = rep if rep is not None else pa.get("rep", 100)
        latency = profiler.do_bench(warmup=warmup, rep=rep)
        ref_latency = profiler.do_bench(ref, warmup=warmup, rep=rep) if ref is not None else None
        return AutotuneResult(latency, config, ref_latency, kernel)


@contextlib.contextmanager
def set_autotune_inputs(*args, **kwargs):
    """The inputs an autotuner would time with: tlc does not tune."""
    yield
