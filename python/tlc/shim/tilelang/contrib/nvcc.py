"""tilelang.contrib.nvcc: the GPU's compute capability, from torch."""


def get_target_compute_version(target=None):
    import torch
    major, minor = torch.cuda.get_device_capability()
    return f"{major}.{minor}"


def parse_compute_version(version):
    major, minor = str(version).split(".")[:2]
    return int(major), int(minor)


def have_tensorcore(compute_version=None, target=None):
    major, _ = parse_compute_version(compute_version or get_target_compute_version())
    return major >= 7


def __getattr__(name):
    """What the shim does not provide here is a stand-in (tilelang/_inert.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from tilelang._inert import Inert
    return Inert(f"{__name__}.{name}", warn=True)
