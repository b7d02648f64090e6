"""tlc from Python: build a TileLang kernel file with the `tlc` program and call it.

    import tlc
    kernel = tlc.build("examples/gemm.tl", "matmul(1024, 1024, 1024)", out_idx=[-1])
    c = kernel(a, b)                  # torch tensors in; outputs (out_idx) allocated

`python -m tlc run my_kernel.py [args]` runs an unchanged TileLang program with
tlc as its compiler: `import tilelang` there resolves to the shim in
tlc/shim/tilelang (doc/python.md).

A build runs tlc for the target's source first; the generated source, the target and the
flags make the cache key, and only a new key runs `tlc --emit=so` (nvcc or
hipcc).  Libraries live in $TLC_CACHE_DIR (default ~/.cache/tlc).  The tlc
program is $TLC, else the one installed beside this package, else `tlc` in
PATH.  torch is needed only to call a kernel, not to build one.
"""
import ctypes
import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["TlcError", "LaunchError", "Kernel", "Param", "build", "find_tlc", "parse_header"]


class TlcError(RuntimeError):
    """tlc (or the device compiler it runs) refused the kernel; the message is its diagnostic."""


class LaunchError(RuntimeError):
    """A launcher returned an error code (a cudaError_t / hipError_t) other than 0."""

    def __init__(self, name, code, message):
        super().__init__(f"{name} returned {code}: {message}")
        self.code = code


class Param:
    """One launcher parameter: a tensor (shape: extents as Python expressions of
    the scalar parameters) or a scalar (a runtime size)."""

    def __init__(self, name, dtype, tensor, out=False, shape=None, scratch=False):
        self.name, self.dtype, self.tensor, self.out, self.shape = name, dtype, tensor, out, shape or []
        self.scratch = scratch  # T.alloc_global memory: allocated by the call, not returned

    def __repr__(self):
        return f"Param({self.name}: {self.dtype}{'*' if self.tensor else ''}{' out' if self.out else ''})"


# ---- finding tlc ----

def find_tlc():
    """The tlc program: $TLC, the one installed with this package, or tlc in PATH."""
    env = os.environ.get("TLC")
    if env:
        return env
    try:
        from . import _install  # written by `make install`
        path = os.path.join(_install.BINDIR, "tlc")
        if os.access(path, os.X_OK):
            return path
    except ImportError:
        pass
    path = shutil.which("tlc")
    if not path:
        raise TlcError("no tlc program: set TLC=/path/to/tlc, or put tlc in PATH")
    return path


def _cache_dir():
    d = os.environ.get("TLC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tlc")
    os.makedirs(d, exist_ok=True)
    return d


# ---- the header's machine-readable lines (doc/calling.md) ----

def parse_header(text):
    """(launcher name, [Param]) from the `tlc-signature:` and `tlc-shapes:` lines."""
    m = re.search(r"tlc-signature:\s*(\w+)((?:\s+\S+)*?)\s+stream\s*$", text, re.M)
    if not m:
        raise TlcError("the generated header has no tlc-signature line")
    name, params = m.group(1), []
    for word in m.group(2).split():
        pm = re.fullmatch(r"(\w+):(\w+)(\*)?(:out|:scratch)?", word)
        if not pm:
            raise TlcError(f"cannot read '{word}' in the tlc-signature line")
        params.append(Param(pm.group(1), pm.group(2), bool(pm.group(3)), pm.group(4) == ":out",
                            scratch=pm.group(4) == ":scratch"))
    s = re.search(r"tlc-shapes:[ \t]*" + re.escape(name) + r"((?:[ \t]+\S+)*)[ \t]*$", text, re.M)
    shapes = dict(w.split(":", 1) for w in s.group(1).split()) if s else {}
    for p in params:
        if p.tensor and p.name in shapes:
            p.shape = shapes[p.name].split(",")
    return name, params


# ---- building ----

def _run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise TlcError(r.stderr.strip() or f"{cmd[0]} exited with status {r.returncode}")
    return r


def build(path, entry=None, target=None, out_idx=None, defines=None, tlc_args=(), tlc=None, config_index=None):
    """Build kernel file `path` (its `entry` call, e.g. 'matmul(1024, 1024, 1024)')
    and return a Kernel.  Raises TlcError with tlc's diagnostic when it refuses."""
    tlc = tlc or find_tlc()
    base = [tlc, os.fspath(path)]
    if entry:
        base.append(f"--entry={entry}")
    if target:
        base.append(f"--target={target}")
    for k, v in (defines or {}).items():
        base += ["-D", f"{k}={v}"]
    if config_index is not None:
        base.append(f"--config-index={config_index}")
    base += list(tlc_args)
    with tempfile.TemporaryDirectory(prefix="tlc-py-") as tmp:
        src_path = os.path.join(tmp, "kernel.src")
        _run(base + ["-o", src_path])  # the target's source (CUDA or HIP): tlc's default --emit
        with open(src_path) as f:
            source = f.read()
    # the call is in the key too: two calls can generate the same source and
    # differ in the shapes of the header (a size no index uses: B of (rows, n)
    # written at row 0 only), which allocate a call's outputs
    call = [entry or "", str(config_index), repr(sorted((defines or {}).items()))]
    key = "\0".join([source, target or "", " ".join(map(str, tlc_args))] + call)
    key = hashlib.sha256(key.encode()).hexdigest()[:24]
    d = os.path.join(_cache_dir(), key)
    so, header = os.path.join(d, "libkernel.so"), os.path.join(d, "libkernel.h")
    if not (os.path.exists(so) and os.path.exists(header)):
        os.makedirs(d, exist_ok=True)
        tmp_dir = tempfile.mkdtemp(prefix="build-", dir=d)
        try:
            _run(base + ["--emit=so", "-o", os.path.join(tmp_dir, "libkernel.so")])
            with open(os.path.join(d, "kernel.src"), "w") as f:
                f.write(source)
            os.replace(os.path.join(tmp_dir, "libkernel.h"), header)
            os.replace(os.path.join(tmp_dir, "libkernel.so"), so)  # last: its presence means complete
        finally:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    with open(header) as f:
        header_text = f.read()
    return Kernel(so, header_text, source, out_idx)


def ir_text(path, entry=None, target=None, tlc=None, config_index=None, lowered=True):
    """tlc's printed tile IR of kernel file `path` (its `entry` call) after
    the pipeline (`tlc --emit=ir`), or as the program wrote it, before any
    pass (lowered=False: what PrimFunc.script() shows, as TileLang prints
    the prim_func before lowering)."""
    tlc = tlc or find_tlc()
    cmd = [tlc, os.fspath(path), "--emit=ir"] + ([] if lowered else ["--passes="])
    if entry:
        cmd.append(f"--entry={entry}")
    if target:
        cmd.append(f"--target={target}")
    if config_index is not None:
        cmd.append(f"--config-index={config_index}")
    with tempfile.TemporaryDirectory(prefix="tlc-py-") as tmp:
        out = os.path.join(tmp, "kernel.ir")
        _run(cmd + ["-o", out])
        with open(out) as f:
            return f.read()


# ---- calling ----

_TORCH_DTYPES = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
                 "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "uint8": "uint8",
                 "bool": "bool", "float8_e4m3": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
                 "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
                 "float": "float32",
                 # the names TileLang 0.1 and BitBLAS programs use
                 "e4m3_float8": "float8_e4m3fn", "e5m2_float8": "float8_e5m2"}
_SCALAR_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
                  "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
                  "uint64": ctypes.c_uint64, "bool": ctypes.c_bool, "float32": ctypes.c_float,
                  "float64": ctypes.c_double}


def _torch():
    import torch
    return torch


def _current_stream():
    """torch's current CUDA stream, or None (the default stream) without torch."""
    try:
        torch = _torch()
    except ImportError:
        return None
    return torch.cuda.current_stream().cuda_stream


class _SourceModule:
    def __init__(self, source):
        self._source = source

    def get_source(self, fmt=None):
        return self._source


class Kernel:
    """A built kernel: call it with torch tensors.

    kernel(*inputs): the tensor parameters that are not outputs, in order, then
    any runtime size that no tensor's shape gives; the outputs (out_idx, or the
    parameters marked out in the source) are allocated and returned (one
    tensor, or a list).  Called with every tensor, it writes the outputs given.
    """

    def __init__(self, so_path, header_text, source, out_idx=None):
        self.library_path, self.header, self.source = so_path, header_text, source
        self.name, self.params = parse_header(header_text)
        self.mark_outputs(out_idx)
        self._lib = None
        self._launch = None  # the ctypes launcher (tests may put a Python function here)
        # what an autotuner chose (TileLang's JITKernel after tuning)
        self.config = self.latency = self.ref_latency = None

    def mark_outputs(self, out_idx):
        """Mark the parameters out_idx (an index or a list; negative from the
        end) as outputs, which a call allocates and returns.  As in TileLang,
        the indices count the prim_func's parameters, scalars included, but
        not the runtime sizes that tensor shapes give (T.dynamic)."""
        if out_idx is None:
            return
        declared = self._declared()
        for i in [out_idx] if isinstance(out_idx, int) else list(out_idx):
            if not -len(declared) <= i < len(declared):
                raise TlcError(f"out_idx {i} is not a parameter of {self.name} ({len(declared)} parameters)")
            if not declared[i].tensor:
                raise TlcError(f"out_idx {i} is the scalar parameter '{declared[i].name}' of {self.name}: "
                               "only a tensor can be an output")
            declared[i].out = True

    def _shape_sizes(self):
        """The scalars that some tensor's shape names: runtime sizes, which a
        call takes from the tensors it is given."""
        names = set()
        for p in self.params:
            if p.tensor:
                for e in p.shape:
                    names.update(re.findall(r"[A-Za-z_]\w*", e))
        return names

    def _declared(self):
        """The parameters a TileLang call names, in order: tensors (not the
        scratch memory tlc allocates) and the scalars no shape gives."""
        sizes = self._shape_sizes()
        return [p for p in self.params if not p.scratch and (p.tensor or p.name not in sizes)]

    def get_kernel_source(self):
        return self.source

    @property
    def result_idx(self):
        """TileLang's JITKernel.result_idx: the indices of the outputs among
        the tensor parameters."""
        return [i for i, p in enumerate([p for p in self.params if p.tensor and not p.scratch]) if p.out]

    @property
    def imported_modules(self):
        """TileLang 0.1's `mod.imported_modules[0].get_source()` (the module
        tilelang.lower returned): the generated source."""
        return [_SourceModule(self.source)]

    def get_profiler(self, tensor_supply_type=None):
        from .profiler import Profiler
        return Profiler(self, tensor_supply_type)

    def _launcher(self):
        if self._launch is None:
            self._lib = ctypes.CDLL(self.library_path)
            fn = getattr(self._lib, self.name)
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p if p.tensor else _SCALAR_CTYPES[p.dtype] for p in self.params] + [
                ctypes.c_void_p]
            self._launch = fn
        return self._launch

    def _error_string(self, code):
        if self._lib is None:
            return "error"
        f = getattr(self._lib, f"{self.name}_error_string")
        f.restype = ctypes.c_char_p
        f.argtypes = [ctypes.c_int]
        return f(code).decode()

    def _check_tensors(self, params, values):
        """The kernel reads each tensor as its parameter's dtype and static
        shape: another dtype or extent would be read wrong (an int64 tensor
        as int32) or out of bounds, so it is refused, as TileLang's adapter
        does."""
        torch = None
        for p in params:
            v = values[p.name]
            if not (hasattr(v, "dtype") and hasattr(v, "shape")):
                continue
            torch = torch or _torch()
            want = self._torch_dtype(torch, p)
            if v.dtype != want:
                raise TypeError(f"{self.name}: tensor '{p.name}' is {p.dtype} in the kernel, "
                                f"got a tensor of {v.dtype}")
            # extent by extent; a kernel that reads a tensor through a layout
            # (T.annotate_layout of a global tensor) takes it flat: then the
            # element count
            shape, fixed = tuple(v.shape), list(p.shape)
            if len(shape) == len(fixed):
                bad = any(e.isdigit() and int(e) != n for e, n in zip(fixed, shape))
            else:
                numel = 1
                for n in shape:
                    numel *= int(n)
                bad = all(e.isdigit() for e in fixed) and math.prod(int(e) for e in fixed) != numel
            if bad:
                raise TypeError(f"{self.name}: tensor '{p.name}' has shape ({', '.join(fixed)}) in the "
                                f"kernel, got {list(shape)}")

    def _torch_dtype(self, torch, p):
        return getattr(torch, _TORCH_DTYPES.get(p.dtype, p.dtype))

    def __call__(self, *args, stream=None):
        # TileLang's order: the declared parameters that are not outputs
        # (or all of them, outputs included, to write those given), then any
        # runtime size that no tensor's shape gives
        tensors = [p for p in self.params if p.tensor and not p.scratch]
        scratch = [p for p in self.params if p.scratch]
        scalars = [p for p in self.params if not p.tensor]
        declared = self._declared()
        inputs = [p for p in declared if not p.out]
        given_all = len(args) >= len(declared) and all(
            hasattr(a, "data_ptr") for a, p in zip(args, declared) if p.tensor)
        named = declared if given_all else inputs
        if len(args) < len(named):
            raise TypeError(f"{self.name} expects {len(inputs)} inputs "
                            f"({', '.join(p.name for p in inputs)}), got {len(args)}")
        values = dict(zip((p.name for p in named), args))
        tensor_params = [p for p in named if p.tensor]
        self._check_tensors(tensor_params, values)
        extra = list(args[len(named):])
        # a pointer parameter (T.ptr: a 64-bit scalar) takes a tensor's address
        sizes = {p.name: getattr(values[p.name], "data_ptr", lambda v=values[p.name]: v)()
                 for p in named if not p.tensor}
        for p in tensor_params:  # runtime sizes from the shapes of the tensors given
            for d, e in enumerate(p.shape):
                if re.fullmatch(r"[A-Za-z_]\w*", e) and any(s.name == e for s in scalars):
                    sizes[e] = int(values[p.name].shape[d])
        for s in scalars:
            if s.name not in sizes:
                if not extra:
                    raise TypeError(f"{self.name}: no value for the runtime size '{s.name}'")
                sizes[s.name] = int(extra.pop(0))
        outputs = []
        made = [p for p in tensors if p.out and not given_all] + scratch
        if made:
            torch = _torch()
            device = next((a.device for a in args if hasattr(a, "device")), "cuda")
            for p in made:
                shape = [int(eval(e, {"__builtins__": {}}, dict(sizes))) for e in p.shape]
                values[p.name] = torch.empty(shape, dtype=self._torch_dtype(torch, p), device=device)
                if p.out:
                    outputs.append(values[p.name])
        if stream is None:
            stream = _current_stream()
        call_args = [values[p.name].data_ptr() if p.tensor else sizes[p.name] for p in self.params]
        code = self._launcher()(*call_args, stream)
        if code != 0:
            raise LaunchError(self.name, code, self._error_string(code))
        if given_all:
            return None
        return outputs[0] if len(outputs) == 1 else outputs
