#!/usr/bin/env python3
"""The dtype/operator matrix on the GPU: does the GPU compute what tlc-sim
computes, and both what doc/language.md "Arithmetic" defines?

tests/dtype_matrix/gen_matrix.py writes the kernels (every operation on
every ordered pair of dtypes, literals, conversions, the named exact cases)
and their fixed inputs.  Each file is built with `tlc --emit=so` for
cuda-sm90 (a file nvcc refuses is built again kernel by kernel, so that one
bad kernel hides no other) and every kernel is launched on the GPU on those
inputs, its outputs first filled with a sentinel byte; tlc-sim runs the
same kernels at the thread level on the same .npy inputs; model.py computes
every output in plain Python.  Every output element is compared bit for bit
(any NaN equals any NaN): GPU vs sim, GPU vs model, sim vs model.

The report (markdown) says the device, the commit, the counts, and for
every output where any two disagree, the expression, how many elements
differ and a few of them with their inputs and the three values.

Usage: run_dtype_matrix.py --tlc TLC [--out DIR] [--workdir DIR] [--nvcc NVCC] [--files F,...]
Exit status: 0 all agree; 1 a disagreement; 2 a kernel did not build
(and nothing disagreed); 77 skipped (no GPU or no torch).
"""
import argparse
import concurrent.futures
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dtype_matrix"))
import tlc_gpu  # noqa: E402
import gen_matrix  # noqa: E402
import model as M  # noqa: E402
import check_matrix  # noqa: E402

REPO = tlc_gpu.REPO
EXAMPLES = 4
SENTINEL = 0x7B  # written over every output byte before a launch: an element the kernel never writes shows


def launchers(header_text):
    """{kernel name: [Param]} from every `tlc-signature:` line of a header."""
    out = {}
    for m in re.finditer(r"tlc-signature:\s*(\w+).*$", header_text, re.M):
        name = m.group(1)
        shp = re.search(r"tlc-shapes:[ \t]*" + re.escape(name) + r"\b.*$", header_text, re.M)
        text = " * " + m.group(0) + "\n" + (" * " + shp.group(0) + "\n" if shp else "")
        out[name] = tlc_gpu.parse_header(text)[1]
    return out


def build_file(args, path, kernels):
    """{kernel: Kernel, or the text of its build error} for one matrix file."""
    import ctypes
    result = {}
    try:
        parts = [(tlc_gpu._build(path, None, None, args.target, args.tlc, args.nvcc, args.cache, (), False, ()),
                  kernels)]
    except tlc_gpu.BuildError:
        parts = []
        for k in kernels:  # one kernel at a time: which ones does it refuse?
            try:
                parts.append((tlc_gpu._build(path, k, None, args.target, args.tlc, args.nvcc, args.cache, (), False,
                                             ()), [k]))
            except tlc_gpu.BuildError as e:
                result[k] = str(e)
    for so, names in parts:
        with open(os.path.splitext(so)[0] + ".h") as f:
            sigs = launchers(f.read())
        lib = ctypes.CDLL(so)
        for k in names:
            result[k] = tlc_gpu.Kernel(lib, k, sigs[k], so)
    return result


def torch_dtype(torch, t):
    return getattr(torch, t)


def tensor_from_npy(torch, path, t):
    body = M.npy_body(path)
    return torch.frombuffer(bytearray(body), dtype=torch.uint8).view(torch_dtype(torch, t)).cuda()


def tensor_values(torch, x, t):
    raw = bytes(x.detach().cpu().contiguous().view(torch.uint8).tolist())
    return M.from_bytes(raw, t)


def run_gpu(torch, kernel, kobj, inputs_dir):
    """{output: [values]} of a kernel launched on the GPU."""
    args, outs = [], {}
    for p in kernel["params"]:
        if p["role"] == "in":
            args.append(tensor_from_npy(torch, os.path.join(inputs_dir, p["name"] + ".npy"), p["dtype"]))
        else:
            size = M.bits_of(p["dtype"]) // 8
            x = torch.full((kernel["n"] * size,), SENTINEL, dtype=torch.uint8, device="cuda")
            x = x.view(torch_dtype(torch, p["dtype"]))
            args.append(x)
            outs[p["name"]] = x
    tlc_gpu.call(kobj, *args)
    torch.cuda.synchronize()
    return {name: tensor_values(torch, x, next(p["dtype"] for p in kernel["params"] if p["name"] == name))
            for name, x in outs.items()}


def run_sim(args, manifest, file, names, work):
    """{kernel: {output: [values]}} of tlc-sim's thread level, or {kernel: error text}."""
    inputs_dir = os.path.join(work, "inputs")
    simdir = os.path.join(work, "gpu-sim-" + os.path.splitext(file)[0])
    path = os.path.join(work, file)
    r = check_matrix.run_sim(args.tlc, path, "thread", simdir, check_matrix.sim_args(manifest, set(names), inputs_dir),
                             target=args.target)
    dirs = {k: (simdir, True) for k in names}
    errors = {}
    if r.returncode != 0:
        dirs = {}
        for k in names:
            kdir = os.path.join(simdir, k)
            rk = check_matrix.run_sim(args.tlc, path, "thread", kdir,
                                      check_matrix.sim_args(manifest, {k}, inputs_dir), entry=k, target=args.target)
            if rk.returncode:
                errors[k] = rk.stderr.strip()
            else:
                dirs[k] = (kdir, False)
    kernels = {k["name"]: k for k in manifest["kernels"]}
    out = dict(errors)
    for k, (d, prefix) in dirs.items():
        out[k] = {p["name"]: M.read_npy(os.path.join(d, (k + "." if prefix else "") + p["name"] + ".npy"), p["dtype"])
                  for p in kernels[k]["params"] if p["role"] == "out"}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tlc", default=tlc_gpu.default_tlc())
    ap.add_argument("--target", default="cuda-sm90")
    ap.add_argument("--nvcc")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "results"), help="directory of the report")
    ap.add_argument("--workdir")
    ap.add_argument("--cache", help="library cache (default: tlc_gpu's)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--files", help="only these matrix files (comma-separated, e.g. matrix_exact.tl)")
    args = ap.parse_args()
    torch = tlc_gpu.gpu_torch()
    if torch is None:
        return 77
    tlc_gpu.setup_env(args.tlc)
    work = args.workdir or tempfile.mkdtemp(prefix="tlc-dtype-matrix-gpu.")
    os.makedirs(work, exist_ok=True)
    manifest = gen_matrix.write(work)
    inputs_dir = os.path.join(work, "inputs")
    files = manifest["files"]
    if args.files:
        files = {f: v for f, v in files.items() if f in args.files.split(",")}
    kernels = {k["name"]: k for k in manifest["kernels"] if k["file"] in files}
    inputs = {}
    for k in kernels.values():
        for p in k["params"]:
            if p["role"] == "in":
                inputs[p["name"]] = M.read_npy(os.path.join(inputs_dir, p["name"] + ".npy"), p["dtype"])

    # build every file (in parallel: nvcc is the slow part) and simulate it
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        built = dict(zip(files, pool.map(lambda f: build_file(args, os.path.join(work, f), files[f]["kernels"]),
                                         files)))
        simmed = dict(zip(files, pool.map(lambda f: run_sim(args, manifest, f, files[f]["kernels"], work), files)))

    build_errors, sim_errors, rows = {}, {}, []
    counts = {"outputs": 0, "gpu_sim": 0, "gpu_model": 0, "sim_model": 0, "compared": 0}
    for f in files:
        for kn in files[f]["kernels"]:
            k = kernels[kn]
            kobj, sim = built[f].get(kn), simmed[f].get(kn)
            expected = M.run_kernel(k, {p["name"]: inputs[p["name"]] for p in k["params"] if p["role"] == "in"})
            nout = sum(1 for p in k["params"] if p["role"] == "out")
            counts["outputs"] += nout
            if isinstance(sim, str):
                sim_errors[kn] = sim
                sim = None
            if not isinstance(kobj, tlc_gpu.Kernel):
                build_errors[kn] = kobj or "not built"
                continue
            try:
                gpu = run_gpu(torch, k, kobj, inputs_dir)
            except Exception as e:  # a launch error is reported; the other kernels still run
                build_errors[kn] = f"launch: {e}"
                continue
            types = {p["name"]: p["dtype"] for p in k["params"]}
            for p in k["params"]:
                if p["role"] != "out":
                    continue
                name, t = p["name"], p["dtype"]
                g, m = gpu[name], expected[name]
                s = sim[name] if sim else None
                counts["compared"] += 1
                d_gs = [i for i in range(k["n"]) if s is not None and not M.same(g[i], s[i], t)]
                d_gm = [i for i in range(k["n"]) if not M.same(g[i], m[i], t)]
                d_sm = [i for i in range(k["n"]) if s is not None and not M.same(s[i], m[i], t)]
                counts["gpu_sim"] += s is not None and not d_gs
                counts["gpu_model"] += not d_gm
                counts["sim_model"] += s is not None and not d_sm
                if d_gs or d_gm or d_sm:
                    stmts = [st for st in k["stmts"] if st[1] == name]
                    used = sorted({q for st in stmts for q in check_matrix.inputs_of(st[2])})
                    text = "; ".join(f"{name}[i] {'=' if st[0] == 'store' else '+='} {gen_matrix.src(st[2])}"
                                     for st in stmts)
                    bad = sorted(set(d_gs) | set(d_gm) | set(d_sm))
                    ex = []
                    for i in bad[:EXAMPLES]:
                        ins = ", ".join(f"{q}={M.show(inputs[q][i], types[q])}" for q in used)
                        ex.append((i, ins, M.show(g[i], t), M.show(s[i], t) if s is not None else "-",
                                   M.show(m[i], t)))
                    rows.append((kn, name, t, text, len(d_gs), len(d_gm), len(d_sm), k["n"], ex))

    dev = torch.cuda.get_device_name()
    commit = os.environ.get("TLC_COMMIT") or subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    nvcc_v = subprocess.run([args.nvcc or "nvcc", "--version"], capture_output=True, text=True).stdout.strip()
    nvcc_v = nvcc_v.split("\n")[-1] if nvcc_v else "?"
    today = datetime.date.today()
    lines = [f"# The dtype matrix on the GPU, {today}", "",
             f"Device: {dev}; commit {commit}{'-dirty' if dirty else ''}; target {args.target}; nvcc {nvcc_v}; "
             f"torch {torch.__version__}; CPU for tlc-sim: {platform.processor() or platform.machine()}.", "",
             "Kernels from `tests/dtype_matrix/gen_matrix.py` on its fixed inputs: the `.so` of `tlc --emit=so` on "
             "the GPU, `tlc --run` (thread level) on the CPU, and `tests/dtype_matrix/model.py` (doc/language.md "
             "\"Arithmetic\" in plain Python), compared bit for bit (any NaN equals any NaN).", "",
             f"{len(files)} files, {len(kernels)} kernels, {counts['outputs']} outputs; "
             f"{len(build_errors)} kernels did not build or launch, {len(sim_errors)} tlc-sim refused.", "",
             "| agreement | outputs equal | of |", "|---|---|---|",
             f"| GPU = tlc-sim | {counts['gpu_sim']} | {counts['compared']} |",
             f"| GPU = model | {counts['gpu_model']} | {counts['compared']} |",
             f"| tlc-sim = model | {counts['sim_model']} | {counts['compared']} |", ""]
    if build_errors:
        lines += ["## Kernels that did not build or launch", ""]
        for kn, err in sorted(build_errors.items()):
            first = [ln for ln in err.split("\n") if "error" in ln][:3] or err.split("\n")[:3]
            lines.append(f"- `{kn}`: " + " / ".join(f"`{ln.strip()[:200]}`" for ln in first))
        lines.append("")
    if sim_errors:
        lines += ["## Kernels tlc-sim refused", ""]
        lines += [f"- `{kn}`: `{err.splitlines()[0][:300] if err else '?'}`" for kn, err in sorted(sim_errors.items())]
        lines.append("")
    if rows:
        lines += ["## Disagreements", "",
                  "Per output: elements where GPU and sim differ, GPU and model, sim and model (of n).", ""]
        for kn, name, t, text, gs, gm, sm, n, ex in rows:
            lines += [f"### `{kn}` `{name}` ({t}): GPU≠sim {gs}, GPU≠model {gm}, sim≠model {sm} of {n}", "",
                      f"`{text}`", "", "| i | inputs | GPU | sim | model |", "|---|---|---|---|---|"]
            lines += [f"| {i} | {ins} | {g} | {s} | {m} |" for i, ins, g, s, m in ex]
            lines.append("")
    text = "\n".join(lines) + "\n"
    os.makedirs(args.out, exist_ok=True)
    report = os.path.join(args.out, f"dtype-matrix-{today}.md")
    with open(report, "w") as f:
        f.write(text)
    print("\n".join(lines[:16]))
    print(f"{len(rows)} outputs disagree somewhere; report: {report}")
    if rows:
        return 1
    return 2 if build_errors or sim_errors else 0


if __name__ == "__main__":
    sys.exit(main())
