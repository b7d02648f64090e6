"""The profiler of a built kernel (TileLang's kernel.get_profiler()): random
inputs of the kernel's shapes, a comparison against a reference program,
and timing with CUDA events (median of the runs after warm-up)."""
import statistics


def median_ms(fn, warmup, runs):
    """Median time of fn() in milliseconds: CUDA events around each call on
    torch's current stream, after `warmup` untimed calls."""
    return medians_in_turn_ms([fn], warmup, runs)[0]


def medians_in_turn_ms(fns, warmup, runs):
    """The median times of several functions in milliseconds, timed in turn
    (one call of each, `runs` times over, after `warmup` untimed rounds), so
    that a drift of clocks or temperature moves them all alike."""
    from . import _torch
    torch = _torch()
    for _ in range(warmup):
        for fn in fns:
            fn()
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, out in zip(fns, times):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            out.append(start.elapsed_time(end))
    return [statistics.median(t) for t in times]


class Profiler:
    def __init__(self, kernel, tensor_supply_type=None):
        self.kernel = kernel
        if tensor_supply_type is not None:  # refused here, not at the first input drawn
            from .supply import supply_kind
            tensor_supply_type = supply_kind(tensor_supply_type)
        self.supply_type = tensor_supply_type  # None: tlc's own inputs (randn, small integers)

    def __call__(self, *args, **kwargs):
        """TileLang's profiler(*tensors) runs its kernel."""
        return self.kernel(*args, **kwargs)

    def _inputs(self, sizes=None):
        from . import _torch
        torch = _torch()
        sizes = dict(sizes or {})
        out = []
        for p in self.kernel.params:
            if not p.tensor or p.out or p.scratch:
                continue
            try:
                shape = [int(eval(e, {"__builtins__": {}}, sizes)) for e in p.shape]
            except NameError as e:
                raise TypeError(f"{self.kernel.name}: the profiler needs the runtime sizes ({e}): "
                                f"pass them as sizes={{...}}") from None
            dt = self.kernel._torch_dtype(torch, p)
            if self.supply_type is not None:  # a TensorSupplyType: TileLang's rule (supply.py)
                from .supply import supply
                t = supply(shape, dt, self.supply_type)
            elif dt.is_floating_point:
                t = torch.randn(shape, device="cuda").to(dt)
            else:
                t = torch.randint(-4, 5, shape, device="cuda").to(dt)
            out.append(t)
        return out

    def assert_allclose(self, reference_program, atol=1e-2, rtol=1e-2, max_mismatched_ratio=None, sizes=None,
                        input_tensors=None):
        """Run the kernel and reference_program on the same random inputs and
        check every output: |out - ref| <= atol + rtol |ref| (in float32) for
        all but max_mismatched_ratio of the elements (0 by default; TileLang's
        0.01 when the profiler came from get_profiler(tensor_supply_type=...))."""
        if max_mismatched_ratio is None:
            max_mismatched_ratio = 0.0 if self.supply_type is None else 0.01
        from . import _torch
        torch = _torch()
        ins = input_tensors if input_tensors is not None else self._inputs(sizes)
        outs = self.kernel(*ins)
        refs = reference_program(*ins)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        refs = refs if isinstance(refs, (list, tuple)) else [refs]
        for i, (o, r) in enumerate(zip(outs, refs)):
            bad = ~torch.isclose(o.float(), r.float(), atol=atol, rtol=rtol)
            ratio = bad.float().mean().item()
            if ratio > max_mismatched_ratio:
                err = (o.float() - r.float()).abs().max().item()
                raise AssertionError(f"output {i}: {ratio:.2%} of the elements differ from the reference "
                                     f"(largest difference {err:.4g}, atol {atol}, rtol {rtol})")

    def do_bench(self, func=None, warmup=25, rep=100, n_warmup=None, n_repeat=None, input_tensors=None, sizes=None,
                 **_):
        """Median time of one call in ms (CUDA events), after warm-up."""
        ins = input_tensors if input_tensors is not None else self._inputs(sizes)
        fn = (lambda: func(*ins)) if func is not None else (lambda: self.kernel(*ins))
        return median_ms(fn, n_warmup or warmup, n_repeat or rep)
