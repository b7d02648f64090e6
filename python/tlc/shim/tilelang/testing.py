"""tilelang.testing: what example programs call from it."""
import random
import sys

from tlc.supply import torch_assert_close  # noqa: F401


def set_random_seed(seed=42):
    random.seed(seed)
    try:
        import numpy
        numpy.random.seed(seed)
    except ImportError:
        pass
    import torch
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def main():
    """Run the calling module's test_* functions in order (TileLang runs the
    file under pytest); the first failure ends the run with its exception."""
    module = sys.modules.get(sys._getframe(1).f_globals.get("__name__"))
    tests = [(n, f) for n, f in vars(module).items() if n.startswith("test") and callable(f)]
    for name, fn in tests:
        print(f"{name} ...", flush=True)
        fn()
    print(f"{len(tests)} passed")


def _compute_version():
    import torch
    return torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)


def requires_cuda(func):
    return func


def requires_cuda_compute_version(major, minor=0, mode="ge"):
    """A decorator: the test runs only where the GPU's compute capability
    compares to (major, minor) as mode says; elsewhere it is skipped."""
    want = (major, minor)
    ops = {"ge": lambda h: h >= want, "gt": lambda h: h > want, "le": lambda h: h <= want,
           "lt": lambda h: h < want, "eq": lambda h: h == want}
    if mode not in ops:
        raise ValueError(f"mode must be one of {', '.join(ops)}, not {mode!r}")

    def wrap(func):
        def run(*args, **kwargs):
            have = _compute_version()
            if not ops[mode](have):
                print(f"skipped {func.__name__}: needs compute capability {mode} {want}, have {have}")
                return None
            return func(*args, **kwargs)
        run.__name__ = func.__name__
        return run
    return wrap


def requires_cuda_compute_version_ge(major, minor=0):
    return requires_cuda_compute_version(major, minor, "ge")


def requires_cuda_compute_version_gt(major, minor=0):
    return requires_cuda_compute_version(major, minor, "gt")


def requires_cuda_compute_version_eq(major, minor=0):
    return requires_cuda_compute_version(major, minor, "eq")


def requires_cuda_compute_version_le(major, minor=0):
    return requires_cuda_compute_version(major, minor, "le")


def requires_cuda_compute_version_lt(major, minor=0):
    return requires_cuda_compute_version(major, minor, "lt")
