#!/usr/bin/env python3
"""The arithmetic cases of tests/lit/sim/arith_values.tl on the GPU.

That lit test runs one kernel in tlc-sim on inputs chosen to tell the
language's arithmetic (doc/language.md, "Arithmetic") from what C++ or
Python would compute, and checks every output against values worked out by
hand.  This script reads the same inputs and the same expected values from
the test's RUN lines (one source of truth), runs the kernel built with
`tlc --emit=so` on the GPU, and checks its outputs against them bit for bit
(NaN matches NaN).

    python3 tests/gpu/run_arith_values.py --tlc build/tlc --out bench/results

Exit status: 0 when every output matches, 1 otherwise, 77 without a GPU or torch.
"""
import argparse
import datetime
import math
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tlc_gpu  # noqa: E402

LIT = os.path.join(tlc_gpu.REPO, "tests", "lit", "sim", "arith_values.tl")


def runs(path):
    """(inputs {name: (dtype, values)}, expected {name: (dtype, values)}) from the RUN lines."""
    inputs, expected = {}, {}
    for line in open(path):
        m = re.match(r"# RUN: %python %S/Inputs/check_npy.py (write|values) (.*)", line)
        if not m:
            continue
        words = shlex.split(m.group(2))
        if m.group(1) == "write":
            name = os.path.splitext(os.path.basename(words[0]))[0]
            inputs[name] = (words[1], [float(v) if any(c in v for c in ".ein") else int(v) for v in words[2:]])
        elif words[0].endswith("/sm90"):
            expected[words[1]] = (words[2], [float(v) if any(c in v for c in ".ein") else int(v) for v in words[3:]])
    return inputs, expected


def torch_tensor(torch, dtype, values):
    t = {"bool": torch.bool, "int8": torch.int8, "uint8": torch.uint8, "int32": torch.int32, "int64": torch.int64,
         "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
         "float8_e4m3fn": torch.float8_e4m3fn}[dtype]
    if dtype == "float8_e4m3fn":
        return torch.tensor(values, dtype=torch.float32).to(t).cuda()
    return torch.tensor(values, dtype=t).cuda()


def same(got, want):
    if isinstance(want, float):
        if want != want:
            return got != got
        return got == want and math.copysign(1, got) == math.copysign(1, want)  # -0.0 is not 0.0
    return got == want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlc", default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    inputs, expected = runs(LIT)
    kern = tlc_gpu.compile(LIT, target="cuda-sm90", tlc=args.tlc, verbose=False)
    tensors = []
    for p in kern.params:
        if p.name in inputs:
            tensors.append(torch_tensor(torch, *inputs[p.name]))
        else:
            # outputs start poisoned (NaN, or -99 for integers): an element
            # the kernel never writes fails
            n = len(next(iter(inputs.values()))[1])
            dt = expected[p.name][0] if p.name in expected else p.dtype
            if dt == "bool":
                poison = [0] * n
            elif dt.startswith("float") or dt == "bfloat16":
                poison = [float("nan")] * n
            else:
                poison = [-99] * n
            tensors.append(torch_tensor(torch, dt, poison))
    tlc_gpu.call(kern, *tensors)
    torch.cuda.synchronize()
    rows, bad = [], 0
    for p, t in zip(kern.params, tensors):
        if p.name not in expected:
            continue
        dt, want = expected[p.name]
        got = t.float().cpu().tolist() if dt.startswith("float") or dt == "bfloat16" else t.cpu().tolist()
        ok = all(same(g, w) for g, w in zip(got, want))
        bad += not ok
        rows.append((p.name, dt, want, got, ok))
    device = torch.cuda.get_device_name()
    commit = os.environ.get("TLC_COMMIT") or subprocess.run(
        ["git", "-C", tlc_gpu.REPO, "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
    lines = [f"# Arithmetic values on the GPU, {datetime.date.today()}", "",
             f"Device: {device}; commit {commit}; kernel tests/lit/sim/arith_values.tl (cuda-sm90), its inputs and "
             "hand-computed expected values read from the lit test's RUN lines; bit for bit.", "",
             "| output | dtype | expected | GPU | result |", "|---|---|---|---|---|"]
    for name, dt, want, got, ok in rows:
        lines.append(f"| {name} | {dt} | {want} | {got} | {'PASS' if ok else 'FAIL'} |")
    lines.append("")
    lines.append(f"{len(rows) - bad} of {len(rows)} outputs as defined.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"arith-values-{datetime.date.today()}.md"), "w") as f:
            f.write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
