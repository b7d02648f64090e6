"""TileLang's Python surface on top of tlc: @tilelang.jit, tilelang.compile
and @T.prim_func as a TileLang program calls them (the `tilelang` shim in
tlc/shim re-exports these).

tlc compiles kernel *files*: the shim turns a call of a jit-decorated kernel
factory into `--entry 'factory(args...)'` on the factory's source file, so
the factory's own decorators, out_idx and pass_configs in the file are what
tlc reads.  A T.prim_func made by running a factory in Python remembers that
factory call (from its frame) for tilelang.compile.
"""
import inspect
import os


from . import TlcError, build, ir_text

# the target when neither jit(target=) nor $TLC_TARGET names one
DEFAULT_TARGET = None  # tlc's own default (cuda-sm90)

_TARGETS = {"cuda": None, "auto": None, "hip": "hip-gfx942", "rocm": "hip-gfx942"}


def _target(t):
    t = t or os.environ.get("TLC_TARGET")
    if t is None:
        return DEFAULT_TARGET
    t = str(t)
    return _TARGETS.get(t, t)


def literal(v):
    """Python source for an --entry argument; TypeError for a value tlc cannot read."""
    if v is None or isinstance(v, (bool, int, float)):
        return repr(v)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(literal(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(literal(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(x)}" for k, x in v.items()) + "}"
    name = getattr(v, "tlc_dtype", None)
    if name:
        return repr(name)
    made = getattr(v, "tlc_literal", None)  # T.symbolic("n"): the kernel's runtime size
    if isinstance(made, str):
        return made
    mod = type(v).__module__
    if mod.startswith("torch") and type(v).__name__ == "dtype":  # torch.float16 -> "float16"
        return repr(str(v).split(".", 1)[1])
    # no repr of the value: a CUDA tensor's is slow (a copy to the host), and
    # record_calls meets tensors on every call of a reference program
    shape = getattr(v, "shape", None)
    what = f" of shape {tuple(shape)}" if shape is not None else ""
    raise TypeError(f"tlc cannot pass a {type(v).__name__}{what} to a kernel factory at compile time")


def _arguments(args, kwargs):
    """The arguments of a call as Python source: `1, 'x', block=64`."""
    return ", ".join([literal(a) for a in args] + [f"{k}={literal(v)}" for k, v in kwargs.items()])


def _entry(func, args, kwargs):
    return f"{func.__name__}({_arguments(args, kwargs)})"


def _source_file(func):
    if func.__qualname__ != func.__name__:
        raise TlcError(f"tlc builds kernel factories defined at a file's top level; "
                       f"'{func.__qualname__}' is nested in another function or class")
    path = inspect.getsourcefile(func)
    if not path or not os.path.exists(path):
        raise TlcError(f"no source file for '{func.__name__}': tlc compiles kernel files")
    return path


class PrimFunc:
    """What @T.prim_func makes in Python: the function, and the call of the
    factory that made it: a top-level factory and its arguments (from its
    frame), or the whole chain of calls that `python -m tlc run` recorded
    (`flashattn(8, 32)(block_M=64)`: see record_calls)."""

    def __init__(self, func, factory=None, factory_args=None, entry=None, path=None):
        self.func, self.factory, self.factory_args = func, factory, factory_args
        self.entry, self.path = entry, path
        self.__name__ = func.__name__

    def script(self, show_meta=False, **_):
        """TVMScript's printed form of a prim_func in TileLang; here tlc's
        printed tile IR of the kernel as written, before any pass (tlc
        --emit=ir --passes=), or, when tlc refuses
        the kernel or its factory call is unknown, the function's Python
        source under a comment that says why."""
        import textwrap
        try:
            entry, path = self._entry_and_file()
            return ir_text(path, entry, target=_target(None), lowered=False)
        except (TlcError, OSError) as e:
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
        try:
            src = textwrap.dedent(inspect.getsource(self.func))
        except (OSError, TypeError):
            src = f"def {self.__name__}(...): ...\n"
        return f"# tlc: no IR of '{self.__name__}' ({why}); its source:\n{src}"

    def show(self, *args, **kwargs):
        print(self.script(*args, **kwargs))

    def _entry_and_file(self):
        if self.entry is not None:
            return self.entry, self.path
        if self.factory is None:  # a prim_func at the top level of its file
            return self.func.__name__, _source_file(self.func)
        return _entry(self.factory, (), self.factory_args), _source_file(self.factory)


# The calls of the program's top-level functions that are under way, innermost
# last: (entry, path).  A prim_func made inside one of them, however deep in
# nested helpers, is that call's kernel.
_active_calls = []


def record_calls(func, path, prefix=None):
    """Wrap a function of the program run by `python -m tlc run` (file
    `path`) so that its calls are known as tlc entries: `f(args)` for a
    top-level function, `prefix(args)` for a function that such a call
    returned (a closure: `flashattn(8, 32)` returns `kernel`, and calling it
    is `flashattn(8, 32)(block_M=64)`).  Arguments without a literal form
    (tensors) make the call unknown; it still runs."""
    import functools

    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            if any(_is_tensor(a) for a in args) or any(_is_tensor(v) for v in kwargs.values()):
                raise TypeError("a tensor argument")  # a call at run time, not a kernel's factory
            head = prefix if prefix is not None else func.__name__
            entry = f"{head}({_arguments(args, kwargs)})"
        except TypeError:
            entry = None
        _active_calls.append((entry, path, func.__code__))
        try:
            result = func(*args, **kwargs)
        finally:
            _active_calls.pop()
        if entry is not None and inspect.isfunction(result) and result.__qualname__ != result.__name__:
            return record_calls(result, path, entry)
        if entry is not None and isinstance(result, (JitFactory, Autotuned)) and result.entry_prefix is None:
            result.entry_prefix, result.path = entry, path  # a nested @tilelang.jit factory
        return result
    return call


def _recorded_entry(frame):
    """(entry, path) of the innermost recorded call under way, when it alone
    decides the prim_func made in `frame`: no function between the two is
    one that the recorded call defined (such a function's own arguments,
    e.g. an autotuner's config, would be missing from the entry)."""
    if not _active_calls or _active_calls[-1][0] is None:
        return None
    entry, path, code = _active_calls[-1]
    inside = code.co_qualname + ".<locals>."
    while frame is not None and frame.f_code is not code:
        if frame.f_code.co_qualname.startswith(inside):
            return None
        frame = frame.f_back
    return (entry, path) if frame is not None else None


def prim_func(func=None, **_):
    if func is None:
        return prim_func
    frame = inspect.currentframe().f_back
    code = frame.f_code
    factory = frame.f_globals.get(code.co_name) if code.co_name != "<module>" else None
    factory = getattr(factory, "__wrapped__", factory)
    if factory is None or getattr(factory, "__code__", None) is not code:
        entry = _recorded_entry(frame)
        if entry is not None:
            return PrimFunc(func, entry=entry[0], path=entry[1])
        return PrimFunc(func)
    nargs = code.co_argcount + code.co_kwonlyargcount
    args = {n: frame.f_locals[n] for n in code.co_varnames[:nargs] if n in frame.f_locals}
    return PrimFunc(func, factory, args)


def _tensor_annotations(func):
    """{tensor: [extent name or None, ...]} from the annotations
    `A: T.Tensor((M, K), dtype)` of an eager kernel's body."""
    import ast
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and
                isinstance(node.annotation, ast.Call) and node.annotation.args):
            continue
        shape = node.annotation.args[0]
        if isinstance(shape, (ast.Tuple, ast.List)):
            out[node.target.id] = [e.id if isinstance(e, ast.Name) else None for e in shape.elts]
    return out


def _builds_a_kernel(func):
    """Whether func's body writes a kernel: a `with T.Kernel(...)` frame or a
    nested @T.prim_func.  TileLang programs also put @tilelang.jit on plain
    torch functions (a reference GEMM called with tensors); those run as
    Python."""
    import ast
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return True

    def last(node):
        return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)

    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            for item in node.items:
                e = item.context_expr
                if isinstance(e, ast.Call) and last(e.func) in ("Kernel", "PersistentKernel", "ScopeKernel"):
                    return True
        if isinstance(node, ast.FunctionDef) and node is not tree.body[0]:
            for d in node.decorator_list:
                if last(d.func if isinstance(d, ast.Call) else d) == "prim_func":
                    return True
    return False


def _is_tensor(v):
    # the shim's stand-ins (T.GemmWarpPolicy.Square) answer every attribute: not tensors
    return hasattr(v, "data_ptr") and hasattr(v, "shape") and not getattr(type(v), "tlc_stand_in", False)


class JitFactory:
    """A function decorated with @tilelang.jit.  A kernel factory (called with
    sizes and options): the call builds the kernel with tlc (cached) and
    returns it.  An eager kernel (called with tensors, its sizes T.const):
    the call builds it for the tensors' shapes and runs it, returning its
    output."""

    def __init__(self, func, out_idx=None, target=None, **options):
        self.func, self.out_idx, self.target, self.options = func, out_idx, target, options
        self.__wrapped__ = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._eager = {}  # (options, shapes) -> kernel
        # a factory nested in a function: the recorded call that returned it
        # (record_calls), so that calling it is the entry `prefix(args...)`
        self.entry_prefix, self.path = None, None

    def route(self, args, kwargs, caller):
        """(file, entry) that builds the kernel of the call f(*args, **kwargs)
        made in frame `caller`."""
        if self.entry_prefix is not None:
            return self.path, f"{self.entry_prefix}({_arguments(args, kwargs)})"
        recorded = _recorded_entry(caller)
        if recorded is not None and self.func.__qualname__ != self.func.__name__:
            # a nested factory called by a recorded call, which returns its kernel
            return recorded[1], recorded[0]
        return _source_file(self.func), _entry(self.func, args, kwargs)

    def build(self, path, entry, config_index=None):
        return build(path, entry, target=_target(self.target), out_idx=self.out_idx, config_index=config_index)

    def __call__(self, *args, **kwargs):
        bound = inspect.signature(self.func).bind_partial(*args, **kwargs)
        tensors = {n: v for n, v in bound.arguments.items() if _is_tensor(v)}
        if not tensors:
            return self.build(*self.route(args, kwargs, inspect.currentframe().f_back))
        if not _builds_a_kernel(self.func):
            return self.func(*args, **kwargs)
        rest = {n: v for n, v in bound.arguments.items() if n not in tensors}
        key = (_entry(self.func, (), rest), tuple((n, tuple(v.shape)) for n, v in tensors.items()))
        kernel = self._eager.get(key)
        if kernel is None:
            # the sizes: each tensor's annotation `A: T.Tensor((M, K), ...)` in
            # the body names its extents
            sizes = {}
            for name, dims in _tensor_annotations(self.func).items():
                for d, dim in enumerate(dims if name in tensors else []):
                    if dim is not None and d < len(tensors[name].shape):
                        sizes[dim] = int(tensors[name].shape[d])
            kernel = build(_source_file(self.func), _entry(self.func, (), {**rest, **sizes}),
                           target=_target(self.target), out_idx=self.out_idx)
            self._eager[key] = kernel
        return kernel(*[tensors[p.name] for p in kernel.params if p.tensor and not p.out])


def jit(func=None, *, out_idx=None, target=None, pass_configs=None, execution_backend=None, verbose=False,
        compile_flags=None, debug_root_path=None, **_):
    """@tilelang.jit and @tilelang.jit(out_idx=..., ...)."""
    def wrap(f):
        if isinstance(f, PrimFunc):
            return compile(f, out_idx=out_idx, target=target)
        return JitFactory(f, out_idx=out_idx, target=target)
    return wrap(func) if func is not None else wrap


def compile(func, out_idx=None, target=None, pass_configs=None, execution_backend=None, **_):
    """tilelang.compile(prim_func, out_idx=...): the prim_func a factory returned."""
    if not isinstance(func, PrimFunc):
        raise TlcError(f"tilelang.compile needs a T.prim_func, got {type(func).__name__}")
    entry, path = func._entry_and_file()
    return build(path, entry, target=_target(target), out_idx=out_idx)


class Autotuned:
    """@autotune(configs=...) on a @tilelang.jit factory.  A call that
    leaves tuned parameters open builds every config (tlc --config-index=i
    on the call's entry: tlc applies config i where the entry, or the tuned
    factory a recorded call runs, leaves them open), times each on a GPU as
    TileLang's autotuner does and returns the fastest kernel, with .config,
    .latency and .ref_latency (tlc/shim/tilelang/autotuner.py's tune).  A
    call that gives them all is built as it is."""

    def __init__(self, jit_factory, configs, profile):
        self.jit, self.configs, self.profile = jit_factory, configs, profile
        self.__wrapped__ = jit_factory.func
        self.__name__ = jit_factory.__name__
        self.__doc__ = jit_factory.__doc__

    @property
    def entry_prefix(self):
        return self.jit.entry_prefix

    @entry_prefix.setter
    def entry_prefix(self, v):
        self.jit.entry_prefix = v

    @property
    def path(self):
        return self.jit.path

    @path.setter
    def path(self, v):
        self.jit.path = v

    def __call__(self, *args, **kwargs):
        from tilelang.autotuner import tune  # the shim's
        bound = inspect.signature(self.jit.func).bind_partial(*args, **kwargs)
        if any(_is_tensor(v) for v in bound.arguments.values()):
            return self.jit(*args, **kwargs)
        configs = self.configs
        if callable(configs):
            configs = configs(*args, **kwargs) if inspect.signature(configs).parameters else configs()
        configs = list(configs or [])
        if not configs:
            raise ValueError(f"@autotune on '{self.__name__}': no configs to tune")
        keys = set().union(*(c.keys() for c in configs)) - {"pass_configs"}
        path, entry = self.jit.route(args, kwargs, inspect.currentframe().f_back)
        if keys and keys <= set(bound.arguments):  # TileLang: all given, no tuning
            return self.jit.build(path, entry)
        candidates = [(dict(c), (lambda i=i: self.jit.build(path, entry, config_index=i)))
                      for i, c in enumerate(configs)]
        # each make is tlc and the compiler in processes of their own: built at once
        return tune(candidates, self.__name__, parallel_builds=True, **self.profile)


def autotune(func=None, *, configs=None, warmup=25, rep=100, timeout=100, supply_type=None, ref_prog=None,
             supply_prog=None, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01, skip_check=False,
             manual_check_prog=None, cache_input_tensors=False, **_):
    """@autotune(configs=...) on a @tilelang.jit factory (Autotuned)."""
    profile = dict(warmup=warmup, rep=rep, supply_type=supply_type, ref_prog=ref_prog, supply_prog=supply_prog,
                   rtol=rtol, atol=atol, max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
                   manual_check_prog=manual_check_prog)

    def wrap(f):
        return Autotuned(f, configs, profile) if isinstance(f, JitFactory) else f
    return wrap(func) if func is not None else wrap




def lower(func, target=None, **_):
    """tilelang.lower(prim_func) of TileLang 0.1: (module, params).  tlc's
    module is the built kernel, no outputs marked; tilelang.Profiler(module,
    params, out_idx, supply_type) marks them."""
    kernel = compile(func, target=target)
    return kernel, kernel.params
