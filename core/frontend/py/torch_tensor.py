# tlc's model of torch tensors at compile time (frontend_torch.c embeds this
# file): programs make tensors at module level (A = torch.randn(M, K, ...))
# and take kernel sizes from them (M, K = A.shape).  tlc cannot run torch,
# so a tensor here is its shape and dtype only: a dict with "shape" (a tuple
# of ints), "dtype" (torch's dtype, an opaque host value such as
# torch.float16) and "device" (a str).  frontend_torch.c makes the dict an
# object whose method NAME is Tensor__NAME below (called with the object
# first) and whose attribute NAME is the dict's entry or Tensor__NAME's
# result for the properties (T, ndim, mT).  Anything that needs the values
# (indexing, reductions, item(), comparisons) is not here: its use is an
# error that says so.
import torch


def _dtype(d):
    # torch's other names of a dtype, and None (torch's default float32)
    if d is None:
        return torch.float32
    if d == torch.half:
        return torch.float16
    if d == torch.float:
        return torch.float32
    if d == torch.double:
        return torch.float64
    if d == torch.int:
        return torch.int32
    if d == torch.long:
        return torch.int64
    if d == torch.short:
        return torch.int16
    return d


def _device(d):
    if d is None:
        return "cpu"
    return str(d)


def _sizes(size, what):
    # torch.randn(2, 3) and torch.randn((2, 3)) / torch.randn([2, 3])
    if len(size) == 1 and (isinstance(size[0], tuple) or isinstance(size[0], list)):
        size = size[0]
    out = []
    for s in size:
        if not isinstance(s, int):
            raise TypeError(what + "(): a size must be an int, not " + str(type(s)))
        if s < 0:
            raise ValueError(what + "(): negative size " + str(s))
        out.append(s)
    return tuple(out)


def _tensor(shape, dtype, device):
    return {"shape": tuple(shape), "dtype": dtype, "device": device}


def _make(what, size, dtype, device):
    return _tensor(_sizes(size, what), _dtype(dtype), _device(device))


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None, layout=None,
          pin_memory=False):
    return _make("torch.randn", size, dtype, device)


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None, layout=None,
         pin_memory=False):
    return _make("torch.rand", size, dtype, device)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False,
          memory_format=None):
    return _make("torch.empty", size, dtype, device)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    return _make("torch.zeros", size, dtype, device)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    return _make("torch.ones", size, dtype, device)


def full(size, fill_value, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    if dtype is None:
        # torch infers the dtype from the fill value
        if isinstance(fill_value, bool):
            dtype = torch.bool
        elif isinstance(fill_value, int):
            dtype = torch.int64
    return _make("torch.full", (size,), dtype, device)


def randint(*args, size=None, dtype=None, device=None, requires_grad=False, generator=None, out=None,
            low=None, high=None):
    # randint(high, size) and randint(low, high, size)
    args = list(args)
    if size is None:
        if len(args) == 0:
            raise TypeError("torch.randint() needs a size")
        size = args[-1]
    return _make("torch.randint", (size,), torch.int64 if dtype is None else dtype, device)


def arange(*args, dtype=None, device=None, requires_grad=False, out=None, start=None, end=None, step=None):
    args = list(args)
    if end is not None:
        args = [0 if start is None else start, end] + ([] if step is None else [step])
    if len(args) == 1:
        args = [0, args[0], 1]
    elif len(args) == 2:
        args = [args[0], args[1], 1]
    if len(args) != 3:
        raise TypeError("torch.arange() takes end, or start, end[, step]")
    lo, hi, st = args[0], args[1], args[2]
    if st == 0:
        raise ValueError("torch.arange(): step must be nonzero")
    floats = isinstance(lo, float) or isinstance(hi, float) or isinstance(st, float)
    n = (hi - lo) / st
    count = int(n)
    if count < n:
        count = count + 1
    if count < 0:
        count = 0
    if dtype is None:
        dtype = torch.float32 if floats else torch.int64
    return _tensor((count,), _dtype(dtype), _device(device))


def _like(t, dtype, device):
    return _tensor(t["shape"], t["dtype"] if dtype is None else _dtype(dtype),
                   t["device"] if device is None else _device(device))


def empty_like(t, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


def zeros_like(t, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


def ones_like(t, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


def rand_like(t, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


def randn_like(t, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


def full_like(t, fill_value, dtype=None, device=None, **kw):
    return _like(t, dtype, device)


# ---- the methods and properties of a tensor ----


def Tensor__size(self, dim=None):
    if dim is None:
        return self["shape"]
    n = len(self["shape"])
    if dim < -n or dim >= n:
        raise IndexError("Tensor.size(): dimension " + str(dim) + " out of range for " + str(n) +
                         " dimensions")
    return self["shape"][dim]


def Tensor__dim(self):
    return len(self["shape"])


def Tensor__ndim(self):
    return len(self["shape"])


def Tensor__numel(self):
    n = 1
    for s in self["shape"]:
        n = n * s
    return n


def Tensor__nelement(self):
    return Tensor__numel(self)


def Tensor__element_size(self):
    d = self["dtype"]
    if d == torch.float64 or d == torch.int64:
        return 8
    if d == torch.float32 or d == torch.int32:
        return 4
    if d == torch.float16 or d == torch.bfloat16 or d == torch.int16:
        return 2
    return 1


def _transposed(self, d0, d1):
    shape = list(self["shape"])
    n = len(shape)
    if d0 < 0:
        d0 = d0 + n
    if d1 < 0:
        d1 = d1 + n
    if d0 < 0 or d0 >= n or d1 < 0 or d1 >= n:
        raise IndexError("Tensor.transpose(): dimension out of range")
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return _tensor(shape, self["dtype"], self["device"])


def Tensor__T(self):
    # torch's .T reverses all the dimensions
    return _tensor(tuple(reversed(self["shape"])), self["dtype"], self["device"])


def Tensor__mT(self):
    return _transposed(self, -2, -1)


def Tensor__t(self):
    if len(self["shape"]) > 2:
        raise ValueError("Tensor.t() expects a tensor of at most 2 dimensions")
    return Tensor__T(self)


def Tensor__transpose(self, dim0, dim1):
    return _transposed(self, dim0, dim1)


def Tensor__permute(self, *dims):
    if len(dims) == 1 and (isinstance(dims[0], tuple) or isinstance(dims[0], list)):
        dims = dims[0]
    shape = self["shape"]
    if len(dims) != len(shape):
        raise ValueError("Tensor.permute(): the number of dimensions does not match")
    return _tensor(tuple(shape[d] for d in dims), self["dtype"], self["device"])


def Tensor__unsqueeze(self, dim):
    shape = tuple(self["shape"])
    if dim < 0:
        dim = dim + len(shape) + 1
    if dim < 0 or dim > len(shape):
        raise IndexError("Tensor.unsqueeze(): dimension out of range")
    return _tensor(shape[:dim] + (1,) + shape[dim:], self["dtype"], self["device"])


def Tensor__view(self, *shape):
    if len(shape) == 1 and (isinstance(shape[0], tuple) or isinstance(shape[0], list)):
        shape = shape[0]
    if len(shape) == 1 and not isinstance(shape[0], int):
        # view(dtype): a reinterpretation of the elements
        return Tensor__to(self, shape[0])
    total = Tensor__numel(self)
    known = 1
    free = -1
    out = []
    for i, s in enumerate(shape):
        if s == -1:
            if free >= 0:
                raise ValueError("Tensor.view(): only one dimension can be -1")
            free = i
        else:
            known = known * s
        out.append(s)
    if free >= 0:
        if known == 0 or total % known != 0:
            raise ValueError("Tensor.view(): shape " + str(tuple(shape)) + " is invalid for " +
                             str(total) + " elements")
        out[free] = total // known
    elif known != total:
        raise ValueError("Tensor.view(): shape " + str(tuple(shape)) + " is invalid for " + str(total) +
                         " elements")
    return _tensor(out, self["dtype"], self["device"])


def Tensor__reshape(self, *shape):
    return Tensor__view(self, *shape)


def Tensor__flatten(self):
    return _tensor((Tensor__numel(self),), self["dtype"], self["device"])


def Tensor__to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    # to(dtype), to(device), to(device, dtype), to(other_tensor)
    for a in args:
        if isinstance(a, dict):
            dtype, device = a["dtype"], a["device"]
        elif isinstance(a, str):
            device = a
        elif dtype is None and str(a).startswith("torch.") and str(a) != "torch.device":
            dtype = a
        else:
            device = a
    return _like(self, dtype, device)


def Tensor__type(self, dtype=None):
    if dtype is None:
        raise TypeError("Tensor.type() without a dtype names the tensor's type: tlc models only "
                        "the shape and dtype of torch tensors")
    return _like(self, dtype, None)


def Tensor__half(self):
    return _like(self, torch.float16, None)


def Tensor__float(self):
    return _like(self, torch.float32, None)


def Tensor__double(self):
    return _like(self, torch.float64, None)


def Tensor__bfloat16(self):
    return _like(self, torch.bfloat16, None)


def Tensor__int(self):
    return _like(self, torch.int32, None)


def Tensor__long(self):
    return _like(self, torch.int64, None)


def Tensor__bool(self):
    return _like(self, torch.bool, None)


def Tensor__cuda(self, device=None, non_blocking=False):
    return _like(self, None, "cuda")


def Tensor__cpu(self):
    return _like(self, None, "cpu")


def Tensor__contiguous(self, memory_format=None):
    return self


def Tensor__clone(self, memory_format=None):
    return _like(self, None, None)


def Tensor__detach(self):
    return self


def Tensor__requires_grad_(self, requires_grad=True):
    return self


# in-place fills: they set values, which tlc does not keep
def Tensor__normal_(self, mean=0.0, std=1.0, generator=None):
    return self


def Tensor__uniform_(self, a=0.0, b=1.0, generator=None):
    return self


def Tensor__fill_(self, value):
    return self


def Tensor__zero_(self):
    return self


def Tensor__random_(self, *args, generator=None):
    return self


# ---- arithmetic: the shape by broadcasting, the dtype by promotion ----

_FLOATS = ["torch.bfloat16", "torch.float16", "torch.float32", "torch.float64"]


def _broadcast(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError("the shapes " + str(a) + " and " + str(b) + " do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(out)


def _promote(a, b):
    if a == b:
        return a
    sa, sb = str(a), str(b)
    if sa in _FLOATS and sb in _FLOATS:
        if (sa == "torch.bfloat16" and sb == "torch.float16") or \
                (sa == "torch.float16" and sb == "torch.bfloat16"):
            return torch.float32
        return a if _FLOATS.index(sa) > _FLOATS.index(sb) else b
    if sa in _FLOATS:
        return a
    if sb in _FLOATS:
        return b
    return torch.int64


def binop(op, a, b):
    # a tensor (dict) with a tensor or a Python number, either side
    if isinstance(a, dict) and isinstance(b, dict):
        return _tensor(_broadcast(a["shape"], b["shape"]), _promote(a["dtype"], b["dtype"]), a["device"])
    t = a if isinstance(a, dict) else b
    n = b if isinstance(a, dict) else a
    if not (isinstance(n, int) or isinstance(n, float) or isinstance(n, bool)):
        raise TypeError("unsupported operand for '" + op + "' with a torch tensor at compile time: " +
                        str(type(n)))
    dtype = t["dtype"]
    if op == "/" and str(dtype) not in _FLOATS:
        dtype = torch.float32
    elif isinstance(n, float) and not isinstance(n, bool) and str(dtype) not in _FLOATS:
        dtype = torch.float32
    return _tensor(t["shape"], dtype, t["device"])


def matmul(a, b):
    # the shape of a @ b (1-D operands as torch treats them)
    sa, sb = a["shape"], b["shape"]
    if len(sa) == 0 or len(sb) == 0:
        raise ValueError("matmul: both operands need at least one dimension")
    if len(sa) == 1 and len(sb) == 1:
        if sa[0] != sb[0]:
            raise ValueError("matmul: sizes " + str(sa) + " and " + str(sb) + " do not match")
        return _tensor((), _promote(a["dtype"], b["dtype"]), a["device"])
    xa = (1,) + tuple(sa) if len(sa) == 1 else tuple(sa)
    xb = tuple(sb) + (1,) if len(sb) == 1 else tuple(sb)
    if xa[-1] != xb[-2]:
        raise ValueError("matmul: shapes " + str(sa) + " and " + str(sb) + " cannot be multiplied")
    batch = _broadcast(xa[:-2], xb[:-2])
    shape = batch + ((xa[-2],) if len(sa) > 1 else ()) + ((xb[-1],) if len(sb) > 1 else ())
    return _tensor(shape, _promote(a["dtype"], b["dtype"]), a["device"])
