"""Inputs as TileLang's profiler makes them (tilelang.TensorSupplyType), torch
dtypes by name and a comparison that tolerates a share of mismatches."""
import enum


class TensorSupplyType(enum.Enum):
    Integer = 1
    Uniform = 2
    Normal = 3
    Randn = 4
    Zero = 5
    One = 6
    Auto = 7


def map_torch_type(name):
    """The torch dtype of a TileLang dtype name ("float16", "float8_e4m3", ...)."""
    import torch
    from . import _TORCH_DTYPES
    name = str(name)
    return getattr(torch, _TORCH_DTYPES.get(name, name))


def supply(shape, dtype, kind=TensorSupplyType.Auto, device="cuda"):
    """A tensor of `shape` and torch `dtype` filled as `kind` says, as
    TileLang's profiler fills its inputs: Integer draws from {-2..2} ({0..2}
    unsigned, {0, 1} bool, {-128..127} for float8), Uniform from
    [-1, 1), Normal from N(-1, 1), Randn from N(0, 1); Auto is Uniform for
    float16, bfloat16 and float32 and Integer otherwise; int8 asked for
    Uniform or Normal gets ones."""
    import torch
    kind = supply_kind(kind)
    name = str(dtype).replace("torch.", "")
    float8 = name.startswith("float8")
    if kind == TensorSupplyType.Auto:
        kind = TensorSupplyType.Uniform if name in ("float16", "bfloat16", "float32") else TensorSupplyType.Integer
    if name == "int8" and kind in (TensorSupplyType.Uniform, TensorSupplyType.Normal):
        kind = TensorSupplyType.One
    if kind == TensorSupplyType.Zero:
        return torch.zeros(shape, dtype=dtype, device=device)
    if kind == TensorSupplyType.One:
        return torch.ones(shape, dtype=dtype, device=device)
    if kind == TensorSupplyType.Integer:
        if float8:
            return torch.randint(-128, 128, shape, dtype=torch.int8, device=device).to(dtype)
        low, high = (0, 2) if name == "bool" else (0, 3) if name.startswith("uint") else (-2, 3)
        return torch.randint(low, high, shape, device=device).to(dtype)
    if kind == TensorSupplyType.Randn:
        return torch.randn(shape, device=device).to(dtype)
    # drawn in the dtype itself where torch can (as TileLang does: a float16
    # uniform stays below 1), else in float32 and converted
    native = name in ("float16", "bfloat16", "float32", "float64")
    t = torch.empty(shape, dtype=dtype if native else torch.float32, device=device)
    if kind == TensorSupplyType.Uniform:
        t.uniform_(-1.0, 1.0)
    else:
        t.normal_(-1.0, 1.0)
    return t.to(dtype)


def supply_kind(kind):
    """The TensorSupplyType that `kind` is: a member, its name ("Normal") or
    its number; TypeError for anything else (TileLang's get_tensor_supply
    raises NotImplementedError on a kind it does not know, rather than
    drawing some other distribution)."""
    if isinstance(kind, TensorSupplyType):
        return kind
    if isinstance(kind, enum.Enum) and kind.name in TensorSupplyType.__members__:
        return TensorSupplyType[kind.name]  # an enum of the same names (TileLang's own)
    if isinstance(kind, str) and kind in TensorSupplyType.__members__:
        return TensorSupplyType[kind]
    if isinstance(kind, int) and not isinstance(kind, bool):
        try:
            return TensorSupplyType(kind)
        except ValueError:
            pass
    names = ", ".join(TensorSupplyType.__members__)
    raise TypeError(f"tensor_supply_type must be a tilelang.TensorSupplyType ({names}), not {kind!r}")


def get_tensor_supply(kind=TensorSupplyType.Integer):
    """A function of a kernel parameter (anything with .shape and a torch
    .dtype) that makes its input tensor as `kind` says."""
    return lambda param: supply(tuple(int(d) for d in param.shape), param.dtype, kind)


def torch_assert_close(a, b, rtol=1e-2, atol=1e-3, max_mismatched_ratio=0.001, verbose=False, equal_nan=True,
                       check_device=True, check_dtype=False, base_name="LHS", ref_name="RHS", **_):
    """Raise AssertionError when more than max_mismatched_ratio of the
    elements of a and b differ by more than atol + rtol * |b| (in float32)."""
    import torch
    if check_device and a.device != b.device:
        raise AssertionError(f"{base_name} is on {a.device}, {ref_name} on {b.device}")
    if check_dtype and a.dtype != b.dtype:
        raise AssertionError(f"{base_name} is {a.dtype}, {ref_name} is {b.dtype}")
    if tuple(a.shape) != tuple(b.shape):
        raise AssertionError(f"{base_name} has shape {tuple(a.shape)}, {ref_name} {tuple(b.shape)}")
    x, y = a.float(), b.float()
    bad = ~torch.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
    n = bad.sum().item()
    total = max(bad.numel(), 1)
    if n > max_mismatched_ratio * total:
        diff = (x - y).abs()
        raise AssertionError(f"{n} of {total} elements ({n / total:.2%}) of {base_name} and {ref_name} differ "
                             f"by more than atol={atol} + rtol={rtol} x |{ref_name}| (allowed: "
                             f"{max_mismatched_ratio:.2%}); largest difference {diff.max().item():.4g}")
    if verbose:
        print(f"{base_name} and {ref_name}: {n} of {total} elements differ (allowed {max_mismatched_ratio:.2%})")
