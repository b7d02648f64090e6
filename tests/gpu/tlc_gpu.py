"""tlc_gpu: build a tile-language kernel with `tlc --emit=so` and call it from Python.

    import tlc_gpu
    add = tlc_gpu.compile("examples/elementwise_add.tl", entry="elementwise_add(1024, 1024)")
    tlc_gpu.call(add, a, b, c)                      # tensors, then runtime sizes
    ok, abs_err, rel_err = tlc_gpu.check(c, a.float() + b.float())

compile() returns a Kernel: a ctypes function whose argtypes come from the
`tlc-signature` line of the generated header (doc/calling.md), with the
parameter list beside it. Libraries are cached under a key made of the
generated CUDA source, the target and the nvcc flags, so an unchanged kernel
is built once. torch is needed only by call()/bind()/check(); compile() works
without it.
"""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
import tlc as _tlc  # noqa: E402  (the header's parser)
from tlc import profiler as _tlc_profiler  # noqa: E402

# tolerances of check() by output dtype: (atol, rtol). float16 rounds to 2^-11
# relative, bfloat16 to 2^-8; float32 leaves room for a different summation
# order in reductions. Tests state their own where they know better.
DEFAULT_TOL = {
    "float64": (1e-12, 1e-12),
    "float32": (1e-5, 1e-5),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
}

_SCALAR_CTYPES = {
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64, "bool": ctypes.c_bool, "float32": ctypes.c_float, "float64": ctypes.c_double,
}

class BuildError(RuntimeError):
    """tlc (or the nvcc it runs) failed; the message holds its stderr."""


# the tlc package's: a launcher's error, and one parameter of it (name,
# dtype, tensor, out, shape)
LaunchError = _tlc.LaunchError
Param = _tlc.Param


class Kernel:
    """A loaded launcher: fn (ctypes, argtypes set), params, error_string(code)."""

    def __init__(self, lib, name, params, so_path):
        self.lib, self.name, self.params, self.so_path = lib, name, params, so_path
        self.fn = getattr(lib, name)
        self.fn.argtypes = [ctypes.c_void_p if p.tensor else _scalar_ctype(p) for p in params] + [ctypes.c_void_p]
        self.fn.restype = ctypes.c_int
        self._err = getattr(lib, name + "_error_string", None)
        if self._err is not None:
            self._err.argtypes = [ctypes.c_int]
            self._err.restype = ctypes.c_char_p

    def error_string(self, code):
        if self._err is None:
            return f"CUDA error {code}"
        s = self._err(code)
        return s.decode() if s else f"CUDA error {code}"

    def __call__(self, *args, **named):
        return call(self, *args, **named)

    def __repr__(self):
        return f"Kernel({self.name}({', '.join(map(repr, self.params))}, stream) from {self.so_path})"


def _scalar_ctype(p):
    if p.dtype not in _SCALAR_CTYPES:
        raise BuildError(f"parameter {p.name}: no ctypes type for scalar dtype {p.dtype}")
    return _SCALAR_CTYPES[p.dtype]


# ---- reading the header ----

def parse_header(text):
    """The first launcher of a generated header: (name, [Param]), read from its
    `tlc-signature:` line by the tlc package's parser (python/tlc)."""
    try:
        name, params = _tlc.parse_header(text)
    except _tlc.TlcError as e:
        raise BuildError(str(e)) from None
    return name, params


# ---- building ----

def setup_env(tlc):
    """TLC_PLUGIN_PATH / TLC_CONFIG for an uninstalled build of `tlc`, unless already set."""
    build = os.path.dirname(os.path.abspath(tlc))
    if os.path.isdir(os.path.join(build, ".libs")):
        os.environ.setdefault("TLC_PLUGIN_PATH", os.path.join(build, ".libs"))
    os.environ.setdefault("TLC_CONFIG", os.path.join(REPO, "etc", "tlc.ini"))


def default_tlc():
    return os.environ.get("TLC") or shutil.which("tlc") or os.path.join(REPO, "build", "tlc")


def default_cache_dir():
    return os.environ.get("TLC_GPU_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tlc-gpu")


def _run(cmd, verbose):
    if verbose:
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"{' '.join(cmd)}\nexit status {r.returncode}\n{r.stderr}")
    if verbose and r.stderr:
        sys.stderr.write(r.stderr)
    return r


def compile(tl_path, entry=None, defines=None, target="cuda-sm90", tlc=None, nvcc=None, cache_dir=None,
            nvcc_args=(), verbose=True, tlc_args=()):
    """Build tl_path with `tlc --emit=so` (cached) and load it: a Kernel.

    entry: the --entry call; defines: {NAME: value} for -D; nvcc: passed as
    --nvcc (default: tlc's own search); cache_dir: where libraries are kept
    (default $TLC_GPU_CACHE, else ~/.cache/tlc-gpu); tlc_args: more tlc
    options (e.g. --pass-arg=warp-specialize.enable=false). Raises BuildError."""
    so = _build(tl_path, entry, defines, target, tlc, nvcc, cache_dir, nvcc_args, verbose, tlc_args)
    header = os.path.splitext(so)[0] + ".h"
    with open(header) as f:
        name, params = parse_header(f.read())
    return Kernel(ctypes.CDLL(so), name, params, so)


def _build(tl_path, entry, defines, target, tlc, nvcc, cache_dir, nvcc_args, verbose, tlc_args):
    """The cached library of compile()'s kernel, built if missing: its path."""
    tlc = tlc or default_tlc()
    setup_env(tlc)
    common = [tlc, os.path.abspath(tl_path), f"--target={target}"] + list(tlc_args)
    if entry:
        common.append(f"--entry={entry}")
    for k, v in sorted((defines or {}).items()):
        common += ["-D", f"{k}={v}"]
    cache_dir = cache_dir or default_cache_dir()
    os.makedirs(cache_dir, exist_ok=True)
    # the key is the generated source: a changed tlc that emits the same code reuses the library
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        cu = os.path.join(tmp, "k.cu")
        _run(common + ["--emit=cu", "-o", cu], verbose=False)
        with open(cu, "rb") as f:
            key = hashlib.sha256(f.read() + repr((target, list(nvcc_args))).encode()).hexdigest()[:24]
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(tl_path))[0])
    so = os.path.join(cache_dir, key, f"lib{stem}.so")
    header = os.path.splitext(so)[0] + ".h"
    if not (os.path.exists(so) and os.path.exists(header)):
        os.makedirs(os.path.dirname(so), exist_ok=True)
        cmd = common + ["--emit=so", "-o", so] + (["--nvcc=" + nvcc] if nvcc else [])
        _run(cmd + ["-Xnvcc=" + a for a in nvcc_args], verbose)
    return so


def prebuild(jobs, tlc=None, nvcc=None, cache_dir=None, workers=None):
    """Build many kernels at once into the cache (nothing is loaded) before
    any is timed: jobs are (tl_path, entry, tlc_args).  Errors are left for
    the compile() call that uses the kernel to report."""
    import concurrent.futures
    jobs = list(dict.fromkeys((p, e, tuple(a)) for p, e, a in jobs))  # one build per distinct job
    workers = workers or os.cpu_count() or 1

    def one(job):
        try:
            _build(job[0], job[1], None, "cuda-sm90", tlc, nvcc, cache_dir, (), False, job[2])
        except (BuildError, OSError):
            pass

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, jobs))


# ---- calling ----

def _torch():
    import torch
    return torch


def _arg_value(torch, p, v):
    if p.tensor:
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"parameter {p.name} is a tensor, got {type(v).__name__}")
        if not v.is_cuda or not v.is_contiguous():
            raise TypeError(f"parameter {p.name} needs a contiguous CUDA tensor")
        want = getattr(torch, p.dtype, None)
        if want is not None and v.dtype != want:
            raise TypeError(f"parameter {p.name} is {p.dtype}, got {v.dtype}")
        return ctypes.c_void_p(v.data_ptr())
    if isinstance(v, torch.Tensor):
        raise TypeError(f"parameter {p.name} is a scalar {p.dtype}, got a tensor")
    return _scalar_ctype(p)(v)


def bind(kernel, *args, stream=None, **named):
    """A zero-argument function that launches kernel and returns its error code.

    Arguments go in the launcher's order (tensors, then sizes), or by
    parameter name; the stream defaults to torch's current stream. The
    ctypes values are made once, so timing loops pay only for the call."""
    torch = _torch()
    if len(args) > len(kernel.params):
        raise TypeError(f"{kernel.name} takes {len(kernel.params)} arguments, got {len(args)}")
    values = []
    for i, p in enumerate(kernel.params):
        if i < len(args):
            v = args[i]
        elif p.name in named:
            v = named.pop(p.name)
        else:
            raise TypeError(f"{kernel.name}: no value for parameter {p.name}")
        values.append(_arg_value(torch, p, v))
    if named:
        raise TypeError(f"{kernel.name}: unknown parameters {sorted(named)}")
    s = torch.cuda.current_stream().cuda_stream if stream is None else stream
    values.append(ctypes.c_void_p(s))
    fn = kernel.fn
    return lambda: fn(*values)


def call(kernel, *args, stream=None, **named):
    """Launch kernel on torch's current stream (or `stream`); raises LaunchError on a non-zero code."""
    rc = bind(kernel, *args, stream=stream, **named)()
    if rc != 0:
        raise LaunchError(kernel.name, rc, kernel.error_string(rc))


# ---- checking ----

def check(out, ref, atol=None, rtol=None):
    """Compare out with a reference: (ok, max_abs_err, max_rel_err).

    ok: no NaN in out (where ref has none) and |out - ref| <= atol + rtol*|ref|
    everywhere (torch.allclose's rule), with DEFAULT_TOL[out's dtype] unless
    given; atol = rtol = 0 asks for equality. Errors are computed in float64;
    the relative error divides by max(|ref|, atol), or by |ref| where atol is
    0, so that references near zero do not dominate it."""
    torch = _torch()
    name = str(out.dtype).replace("torch.", "")
    d_atol, d_rtol = DEFAULT_TOL.get(name, (1e-5, 1e-5))
    atol = d_atol if atol is None else atol
    rtol = d_rtol if rtol is None else rtol
    got, want = out.double(), ref.double()
    if got.shape != want.shape:
        raise ValueError(f"shape {tuple(got.shape)} against reference {tuple(want.shape)}")
    if got.numel() == 0:
        return True, 0.0, 0.0
    diff = (got - want).abs()
    nan_bad = bool((torch.isnan(got) & ~torch.isnan(want)).any().item())
    diff = torch.where(torch.isnan(got) & torch.isnan(want), torch.zeros_like(diff), diff)
    floor = atol if atol > 0 else torch.finfo(torch.float64).tiny
    rel = diff / want.abs().clamp_min(floor)
    within = diff <= atol + rtol * want.abs()
    within = within | (torch.isnan(got) & torch.isnan(want))
    ok = not nan_bad and bool(within.all().item())
    max_abs = diff.max().item()
    max_rel = rel.max().item()
    return ok, float(max_abs), float(max_rel)


# ---- timing ----

def check_only():
    """True when TLC_GPU_CHECK_ONLY is set (not empty, not 0): the scripts run
    each numeric check once and time nothing, so that a run under
    compute-sanitizer (run_all.sh) launches every kernel once, not hundreds
    of times.  The timing helpers below then return NaN without calling."""
    return os.environ.get("TLC_GPU_CHECK_ONLY", "") not in ("", "0")


def median_ms(fn, warmup=5, runs=30):
    """Median time of fn() in milliseconds (CUDA events around each call on
    torch's current stream, after `warmup` untimed calls); NaN, fn never
    called, under check_only()."""
    if check_only():
        return float("nan")
    return _tlc_profiler.median_ms(fn, warmup, runs)


def paired_median_ms(fn_a, fn_b, warmup=5, runs=30):
    """Median times of fn_a() and fn_b() in milliseconds, timed in turn (a, b,
    a, b, ...), so that both see the same clocks and temperature: a drift
    during the runs moves both medians, not their ratio.  NaN, NaN under
    check_only()."""
    if check_only():
        return float("nan"), float("nan")
    t_a, t_b = _tlc_profiler.medians_in_turn_ms([fn_a, fn_b], warmup, runs)
    return t_a, t_b


def gpu_torch():
    """torch when it is installed and sees a CUDA device, else None (after
    saying why on stderr): the scripts then exit with 77, "skipped"."""
    try:
        import torch
    except ImportError:
        print("torch is not installed: skipping", file=sys.stderr)
        return None
    if not torch.cuda.is_available():
        print("no CUDA device: skipping", file=sys.stderr)
        return None
    return torch
