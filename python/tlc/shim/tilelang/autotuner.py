"""tilelang.autotuner: @autotune(configs=...) and AutoTuner.from_kernel(...)
.run() build every config with tlc and, on a GPU, time each as TileLang's
autotuner does (a check against ref_prog first when one is given; a config
that fails to build or check is skipped) and keep the fastest.  Without a
GPU to time on, the first config is built, and a note says so."""
import ast
import contextlib
import inspect
import os
import tempfile

from tlc import TlcError
from tlc.jit import PrimFunc, autotune, compile, jit, literal  # noqa: F401

__all__ = ["autotune", "jit", "AutoTuner", "AutotuneResult", "set_autotune_inputs", "tune"]

_inputs = []  # set_autotune_inputs: the tensors to time with


class AutotuneResult:
    def __init__(self, latency, config, ref_latency, kernel):
        self.latency, self.config, self.ref_latency, self.kernel = latency, config, ref_latency, kernel
        self.func = kernel
        self.libcode = kernel.get_kernel_source()


def _can_time():
    try:
        import torch
        return bool(torch.cuda.is_available())
    except (ImportError, AttributeError, RuntimeError):
        return False


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _build_all(candidates, jobs):
    """Each candidate's make() run in `jobs` threads at once: (kernel, None) or
    (None, exception) in the order of candidates.  Only for makes that are
    builds (tlc and the compiler in their own processes, so threads overlap
    them): a make that runs the program's Python is not safe in threads."""
    import concurrent.futures

    def one(make):
        try:
            return make(), None
        except Exception as e:  # noqa: BLE001 - reported per config by tune
            return None, e
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, [make for _, make in candidates]))


def _jobs():
    """Builds at once while tuning: TLC_TUNE_JOBS, else one per processor."""
    v = os.environ.get("TLC_TUNE_JOBS")
    if v:
        try:
            return max(1, int(v))
        except ValueError:
            raise ValueError(f"TLC_TUNE_JOBS={v!r}: expected a number of builds at once") from None
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def tune(candidates, name, warmup=25, rep=100, supply_type=None, ref_prog=None, supply_prog=None, rtol=1e-2,
         atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, manual_check_prog=None, parallel_builds=False,
         **_):
    """The fastest of candidates [(config, make_kernel), ...]: each is built,
    checked against ref_prog (unless skip_check), and timed on inputs drawn
    as supply_type says (TileLang's default: Auto); the kernel returned has
    .config, .latency and .ref_latency.  With parallel_builds (makes that
    only build) all are built first, several at once (_jobs), then checked
    and timed one after another, as TileLang's autotuner compiles its
    configs in a thread pool.  With no GPU the first config is built and
    returned untimed."""
    from tilelang.utils import TensorSupplyType
    if not candidates:
        raise ValueError(f"autotune '{name}': no configs to tune")
    if not _can_time():
        config, make = candidates[0]
        print(f"tlc: no GPU to time the {len(candidates)} configs of '{name}' on: building the first one, "
              f"{config}, untuned")
        kernel = make()
        kernel.config = config
        return kernel
    best, ref_latency, failures = None, None, []
    built = _build_all(candidates, _jobs()) if parallel_builds and len(candidates) > 1 else None
    for n, (config, make) in enumerate(candidates):
        try:
            if built is None:
                kernel = make()
            else:
                kernel, error = built[n]
                if error is not None:
                    raise error
            profiler = kernel.get_profiler(TensorSupplyType.Auto if supply_type is None else supply_type)
            if _inputs:
                ins = list(_inputs[-1])
            elif supply_prog is not None:
                ins = supply_prog([p for p in kernel.params if p.tensor and not p.out and not p.scratch])
            else:
                ins = profiler._inputs()
            if ref_prog is not None and not skip_check:
                if manual_check_prog is not None:
                    outs = kernel(*ins)
                    refs = ref_prog(*ins)
                    manual_check_prog(outs if isinstance(outs, (list, tuple)) else [outs],
                                      refs if isinstance(refs, (list, tuple)) else [refs])
                else:
                    profiler.assert_allclose(ref_prog, atol=atol, rtol=rtol,
                                             max_mismatched_ratio=max_mismatched_ratio, input_tensors=ins)
            latency = profiler.do_bench(warmup=warmup, rep=rep, input_tensors=ins)
            if ref_prog is not None and ref_latency is None:
                ref_latency = profiler.do_bench(ref_prog, warmup=warmup, rep=rep, input_tensors=ins)
        except (TlcError, AssertionError, RuntimeError, TypeError, ValueError) as e:
            # TileLang's autotuner logs a failing config and goes on
            failures.append((config, e))
            print(f"tlc: autotune '{name}': config {config} skipped: {_first_line(e)}")
            continue
        print(f"tlc: autotune '{name}': config {config}: {latency:.4f} ms")
        if best is None or latency < best[0]:
            best = (latency, config, kernel)
    if best is None:
        config, e = failures[0]
        raise RuntimeError(f"Auto-tuning failed: no configuration of '{name}' compiled and passed "
                           f"benchmarking/validation (the first, {config}: {_first_line(e)})")
    latency, config, kernel = best
    kernel.config, kernel.latency, kernel.ref_latency = config, latency, ref_latency
    return kernel


# ---- a kernel factory defined inside a function ----

def _nested_file(fn, config):
    """(synthetic file, entry) that builds fn(**config) where fn is a factory
    defined inside another function (`def get_best_config(M, N, K): def
    kernel(block_M=None, ...): ...`).  The file is fn's own, with fn made a
    top-level function on its own lines (so diagnostics keep their line
    numbers) and the rest of the function around it blanked, and the values
    fn closes over (M, N, K: TileLang's AutoTuner requires them to be plain
    values) set at the end.  None, message when that cannot be done."""
    fn = getattr(fn, "__wrapped__", fn)
    try:
        path = inspect.getsourcefile(fn)
        lines, start = inspect.getsourcelines(fn)
        with open(path) as f:
            text = f.read()
    except (OSError, TypeError) as e:
        return None, f"no source of '{fn.__qualname__}' ({e})"
    end = start + len(lines) - 1
    outer = None
    for node in ast.parse(text).body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        if first <= start and end <= node.end_lineno:
            outer = (first, node.end_lineno)
    if outer is None:
        return None, f"'{fn.__qualname__}' is not inside a top-level statement"
    indent = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
    file_lines = text.splitlines(keepends=True)
    for i in range(outer[0], outer[1] + 1):
        line = file_lines[i - 1]
        if start <= i <= end:
            if line.strip() and not line.startswith(indent):
                return None, f"the source of '{fn.__qualname__}' is not indented as one block"
            file_lines[i - 1] = line[len(indent):] if line.strip() else "\n"
        else:
            file_lines[i - 1] = "\n"
    closure = []
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure.append(f"{name} = {literal(cell.cell_contents)}\n")
        except (TypeError, ValueError):
            return None, (f"'{fn.__qualname__}' uses '{name}' of the function around it, a "
                          f"{type(cell.cell_contents).__name__} that tlc cannot write as a value")
    text = "".join(file_lines)
    if not text.endswith("\n"):
        text += "\n"
    text += f"# tlc: the values '{fn.__qualname__}' closes over\n" + "".join(closure)
    args = ", ".join(f"{k}={literal(v)}" for k, v in config.items())
    return (text, f"{fn.__name__}({args})", path), None


def _build_nested(fn, config, compile_args):
    made, why = _nested_file(fn, config)
    if made is None:
        raise TlcError(f"AutoTuner.from_kernel: '{fn.__qualname__}' is defined inside another function and "
                       f"{why}: define the kernel factory at the file's top level")
    text, entry, path = made
    from tlc import build
    from tlc.jit import _target
    # beside the program, so that its own imports resolve as they do for it
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tlc-nested-", suffix=".py", dir=d)
    except OSError:
        fd, tmp = tempfile.mkstemp(prefix="tlc-nested-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return build(tmp, entry, target=_target(compile_args.get("target")), out_idx=compile_args.get("out_idx"))
    except TlcError as e:
        raise TlcError(str(e).replace(tmp, path)) from None
    finally:
        os.unlink(tmp)


class AutoTuner:
    """TileLang's AutoTuner API: run() builds each config (the factory called
    with it), checks it against ref_prog when given, times it on a GPU and
    returns the fastest (tune)."""

    def __init__(self, fn, configs):
        self.fn, self.configs = fn, configs
        self.compile_args = {}
        self.profile_args = {}

    @classmethod
    def from_kernel(cls, kernel, configs):
        return cls(kernel, configs)

    def set_compile_args(self, out_idx=None, target="auto", **_):
        self.compile_args = {"out_idx": out_idx, "target": target}
        return self

    def set_profile_args(self, warmup=25, rep=100, timeout=30, supply_type=None, ref_prog=None, supply_prog=None,
                         rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01, skip_check=False, manual_check_prog=None,
                         **_):
        self.profile_args = dict(warmup=warmup, rep=rep, supply_type=supply_type, ref_prog=ref_prog,
                                 supply_prog=supply_prog, rtol=rtol, atol=atol,
                                 max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
                                 manual_check_prog=manual_check_prog)
        return self

    def set_kernel_parameters(self, *_, **__):
        return self

    def _prepare(self, config):
        """The factory called with config (the program's Python: here, one
        config after another), and what builds its kernel (tlc and the
        compiler only: tune runs these several at once)."""
        fn = getattr(self.fn, "__wrapped__", self.fn)
        try:
            made = self.fn(**config)
        except Exception as e:  # noqa: BLE001 - tune reports it as this config's failure
            def fail(e=e):
                raise e
            return fail
        if hasattr(made, "get_profiler"):
            return lambda: made
        if isinstance(made, PrimFunc) and made.entry is None and made.factory is None and \
                fn.__qualname__ != fn.__name__:
            return lambda: _build_nested(fn, config, self.compile_args)
        return lambda: compile(made, out_idx=self.compile_args.get("out_idx"),
                               target=self.compile_args.get("target"))

    def run(self, warmup=None, rep=None, timeout=None):
        configs = self.configs() if callable(self.configs) else self.configs
        configs = list(configs or [])
        if not configs:
            raise ValueError("No configurations to tune, please check your `@autotune` decorator")
        names = list(inspect.signature(self.fn).parameters)
        candidates = []
        for c in configs:
            c = dict(c) if isinstance(c, dict) else dict(zip(names, c))  # a tuple in parameter order
            c.pop("pass_configs", None)  # tlc reads a config's pass_configs from the file
            candidates.append((c, self._prepare(c)))
        pa = dict(self.profile_args)
        if warmup is not None:
            pa["warmup"] = warmup
        if rep is not None:
            pa["rep"] = rep
        name = getattr(self.fn, "__name__", "kernel")
        kernel = tune(candidates, name, parallel_builds=True, **pa)
        return AutotuneResult(kernel.latency, kernel.config, kernel.ref_latency, kernel)


@contextlib.contextmanager
def set_autotune_inputs(*args, **kwargs):
    """The inputs the autotuner times with (TileLang's): tensors, or one list of them."""
    inputs = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    _inputs.append(inputs)
    try:
        yield
    finally:
        _inputs.pop()
