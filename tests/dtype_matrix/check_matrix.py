#!/usr/bin/env python3
"""check_matrix.py - the dtype/operator matrix against the definition of
kernel arithmetic (doc/language.md "Arithmetic"), without a GPU.  TAP
output.

    check_matrix.py --tlc TLC [--nvcc NVCC] [--hipcc HIPCC] [--workdir DIR]
                    [--jobs N] [--census] [--files F,...]

1. gen_matrix.py writes the kernels, their fixed inputs and a manifest
   into the work directory.
2. Every file is compiled by tlc for cuda-sm90 and by nvcc
   (-gencode=arch=compute_90a,code=sm_90a -c), and the files without
   float8 for hip-gfx90a and by hipcc (--offload-arch=gfx90a); each must
   compile.  Without --nvcc / --hipcc (or with TLC_MATRIX_DEVCC=0) that
   part is skipped.  --census: when a device compiler refuses a file, the
   refused statements are commented out one round after another until it
   compiles, so that every refused output is named (slow; for reports).
3. tlc-sim runs every file at the tile level (--passes=) and at the thread
   level (cuda-sm90's pipeline) on those inputs; model.py computes every
   output from the same inputs; each kernel's outputs must equal the
   model's bit for bit (any NaN equals any NaN).  A file the simulator
   refuses is run again kernel by kernel to say which kernels it refuses.

Exit status 0 when every check passes.  The last line sums it up.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_matrix  # noqa: E402
import model as M  # noqa: E402

EXAMPLES = 3  # mismatching elements shown per output


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, name, detail=None, skip=None):
        self.n += 1
        if skip:
            print(f"ok {self.n} - {name} # SKIP {skip}", flush=True)
            return
        print(f"{'ok' if ok else 'not ok'} {self.n} - {name}", flush=True)
        if not ok:
            self.failed += 1
        if detail and not ok:
            for line in detail.rstrip("\n").split("\n")[:40]:
                print("#   " + line)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ---- device compilers ----

def err_line_re(source):
    """nvcc's `FILE(LINE): error` and clang's `FILE:LINE:COL: error` in source itself."""
    name = re.escape(os.path.basename(source))
    return re.compile(r"^(?:.*/)?" + name + r"(?:\((\d+)\)|:(\d+):\d+): (?:fatal )?error", re.M)
STMT = re.compile(r"^\s*(\w+)\[i\] = ")
KERNEL = re.compile(r"__global__ void .*?(\w+)_kernel\(")


def refused_outputs(source, source_lines, log):
    """(kernel, output) of each line of source that a compiler log names in an error."""
    found, lines = set(), set()
    for m in err_line_re(source).finditer(log):
        ln = int(m.group(1) or m.group(2))
        lines.add(ln)
    for ln in sorted(lines):
        if not 1 <= ln <= len(source_lines):
            continue
        sm = STMT.match(source_lines[ln - 1])
        kernel = None
        for back in range(ln - 1, -1, -1):
            km = KERNEL.search(source_lines[back])
            if km:
                kernel = km.group(1)
                break
        found.add((kernel, sm.group(1) if sm else f"line {ln}"))
    return found, lines


def device_compile(cmd_for, source, census):
    """Compile source with cmd_for(path, obj): (ok, log, refused set, rounds)."""
    cmd = cmd_for(source, source + ".o")
    r = run(cmd)
    log = r.stdout + r.stderr
    if r.returncode == 0:
        return True, log, set(), 1
    refused, lines = refused_outputs(source, open(source).read().split("\n"), log)
    if not census:
        return False, log, refused, 1
    text = open(source).read().split("\n")
    rounds = 1
    work = source + ".census" + os.path.splitext(source)[1]
    while lines and rounds < 40:
        for ln in lines:
            if STMT.match(text[ln - 1]):
                text[ln - 1] = "// " + text[ln - 1]
            else:
                lines = None
                break
        if lines is None:
            break
        with open(work, "w") as f:
            f.write("\n".join(text))
        r = run(cmd_for(work, work + ".o"))
        rounds += 1
        if r.returncode == 0:
            break
        more, lines = refused_outputs(work, text, r.stdout + r.stderr)
        refused |= more
    return False, log, refused, rounds


def nvcc_cmd(nvcc):
    return lambda src, obj: [nvcc, "-gencode=arch=compute_90a,code=sm_90a", "-c", src, "-o", obj]


def hipcc_cmd(hipcc):
    return lambda src, obj: [hipcc, "--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-O3",
                             "-c", src, "-o", obj]


def first_errors(log, n=12):
    lines = [ln for ln in log.split("\n") if "error" in ln]
    more = len(lines) - n
    return "\n".join(lines[:n]) + (f"\n... {more} more error lines" if more > 0 else "")


# ---- the simulator ----

def sim_args(manifest, names, inputs_dir):
    args = []
    for k in manifest["kernels"]:
        if k["name"] in names:
            for p in k["params"]:
                if p["role"] == "in":
                    args.append(f"--input={p['name']}={os.path.join(inputs_dir, p['name'] + '.npy')}")
    return args


def run_sim(tlc, path, level, outdir, args, entry=None, target="cuda-sm90"):
    """tlc-sim on a matrix file: the tile level (no passes) or the thread level (target's pipeline)."""
    cmd = [tlc, "--run", path, "-o", outdir] + args
    cmd += ["--passes="] if level == "tile" else [f"--target={target}"]
    if entry:
        cmd.append(f"--entry={entry}")
    return run(cmd)


def compare_kernel(kernel, expected, simdir, prefix):
    """Mismatch text for a kernel's outputs in simdir (empty when all agree),
    and the number of outputs that differ."""
    types = {p["name"]: p["dtype"] for p in kernel["params"]}
    lines, bad = [], 0
    for p in kernel["params"]:
        if p["role"] != "out":
            continue
        name, t = p["name"], p["dtype"]
        path = os.path.join(simdir, (kernel["name"] + "." if prefix else "") + name + ".npy")
        try:
            got = M.read_npy(path, t)
        except (OSError, ValueError) as e:
            lines.append(f"{name}: {e}")
            bad += 1
            continue
        want = expected[name]
        diff = [i for i in range(kernel["n"]) if not M.same(got[i], want[i], t)]
        if diff:
            bad += 1
            stmts = [s for s in kernel["stmts"] if s[1] == name]
            used = sorted({q for s in stmts for q in inputs_of(s[2]) if q in _INPUTS})
            text = "; ".join(f"{name}[i] {'=' if s[0] == 'store' else '+='} {gen_matrix.src(s[2])}" for s in stmts)
            lines.append(f"{text} ({t}): {len(diff)} of {kernel['n']} differ")
            for i in diff[:EXAMPLES]:
                ins = ", ".join(f"{q}={M.show(_INPUTS[q][i], types[q])}" for q in used)
                lines.append(f"    [{i}] {ins}: sim {M.show(got[i], t)}, model {M.show(want[i], t)}")
    return "\n".join(lines), bad


_INPUTS = {}


def inputs_of(e):
    """The tensors an expression tree reads."""
    if not isinstance(e, list):
        return set()
    if e and e[0] == "in":
        return {e[1]}
    return set().union(*(inputs_of(c) for c in e[1:])) if len(e) > 1 else set()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tlc", required=True)
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--hipcc", default="")
    ap.add_argument("--workdir")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TLC_MATRIX_JOBS", "0")) or os.cpu_count() or 2)
    ap.add_argument("--census", action="store_true")
    ap.add_argument("--files", help="only these files (comma-separated names of matrix_*.tl)")
    args = ap.parse_args()
    if os.environ.get("TLC_MATRIX_DEVCC", "1") == "0":
        args.nvcc = args.hipcc = ""
        devcc_skip = "TLC_MATRIX_DEVCC=0"
    else:
        devcc_skip = None
    t0 = time.time()
    work = args.workdir or tempfile.mkdtemp(prefix="tlc-dtype-matrix.")
    os.makedirs(work, exist_ok=True)
    manifest = gen_matrix.write(work)
    inputs_dir = os.path.join(work, "inputs")
    files = manifest["files"]
    if args.files:
        want = set(args.files.split(","))
        files = {f: v for f, v in files.items() if f in want}
    kernels = {k["name"]: k for k in manifest["kernels"] if k["file"] in files}
    nout = sum(1 for k in kernels.values() for p in k["params"] if p["role"] == "out")
    print(f"# {len(files)} files, {len(kernels)} kernels, {nout} outputs in {work}")
    tap = Tap()
    for ok, name, detail in M.selftest():
        tap.result(ok, name, detail)
    stats = {"nvcc_refused": set(), "hipcc_refused": set(), "sim_bad": {}, "sim_refused": {}}

    # 1. tlc emits, the device compilers compile (in parallel: the slow part)
    jobs = []
    for f, info in files.items():
        stem = os.path.join(work, os.path.splitext(f)[0])
        targets = [("cuda-sm90", stem + ".cu", args.nvcc and nvcc_cmd(args.nvcc), "nvcc")]
        if info["hip"]:
            targets.append(("hip-gfx90a", stem + ".hip", args.hipcc and hipcc_cmd(args.hipcc), "hipcc"))
        for target, out, cmd_for, cc in targets:
            r = run([args.tlc, os.path.join(work, f), f"--target={target}", "-o", out])
            tap.result(r.returncode == 0, f"tlc --target={target} {f}", r.stderr)
            if r.returncode == 0 and cmd_for:
                jobs.append((f, out, cmd_for, cc))
            elif r.returncode == 0:
                tap.result(True, f"{cc} {f}", skip=devcc_skip or f"{cc} not found")

    def compile_one(job):
        f, out, cmd_for, cc = job
        return job, device_compile(cmd_for, out, args.census)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for (f, out, _, cc), (ok, log, refused, rounds) in pool.map(compile_one, jobs):
            detail = first_errors(log)
            if refused:
                by_kernel = {}
                for kname, o in sorted(refused, key=lambda x: (x[0] or "", x[1])):
                    by_kernel.setdefault(kname, []).append(o)
                detail += "\nrefused statements" + (" (all, --census)" if args.census else " (first errors)") + ":"
                detail += "".join(f"\n  {k}: {' '.join(v)}" for k, v in by_kernel.items())
                stats[cc + "_refused"] |= {(f, k, o) for k, o in refused}
            tap.result(ok, f"{cc} {f}", detail)

    # 2. the model: every output of every kernel
    for k in kernels.values():
        for p in k["params"]:
            if p["role"] == "in":
                _INPUTS[p["name"]] = M.read_npy(os.path.join(inputs_dir, p["name"] + ".npy"), p["dtype"])
    expected = {}
    for name, k in kernels.items():
        expected[name] = M.run_kernel(k, {q: _INPUTS[q] for q in (p["name"] for p in k["params"]
                                                                  if p["role"] == "in")})

    # 3. tlc-sim at both levels against the model
    def sim_file(job):
        f, level = job
        names = files[f]["kernels"]
        simdir = os.path.join(work, f"sim-{level}-" + os.path.splitext(f)[0])
        shutil.rmtree(simdir, ignore_errors=True)
        r = run_sim(args.tlc, os.path.join(work, f), level, simdir, sim_args(manifest, set(names), inputs_dir))
        per_kernel = {}
        if r.returncode != 0:  # which kernels does it refuse?
            for kn in names:
                kdir = os.path.join(simdir, kn)
                rk = run_sim(args.tlc, os.path.join(work, f), level, kdir, sim_args(manifest, {kn}, inputs_dir),
                             entry=kn)
                per_kernel[kn] = (rk.returncode, rk.stderr, kdir)
        return job, r, simdir, per_kernel

    sim_jobs = [(f, level) for f in files for level in ("tile", "thread")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for (f, level), r, simdir, per_kernel in pool.map(sim_file, sim_jobs):
            tap.result(r.returncode == 0, f"tlc-sim {level} level runs {f}", r.stderr)
            for kn in files[f]["kernels"]:
                k = kernels[kn]
                if per_kernel:
                    rc, err, kdir = per_kernel[kn]
                    if rc != 0:
                        stats["sim_refused"][(level, kn)] = err
                        tap.result(False, f"{level} level {kn}: tlc-sim refuses it", err)
                        continue
                    text, bad = compare_kernel(k, expected[kn], kdir, False)
                else:
                    text, bad = compare_kernel(k, expected[kn], simdir, True)
                if bad:
                    stats["sim_bad"][(level, kn)] = bad
                tap.result(not bad, f"{level} level {kn}: tlc-sim equals the model", text)

    print(f"1..{tap.n}")
    bad_out = {lvl: sum(v for (lv, _), v in stats["sim_bad"].items() if lv == lvl) for lvl in ("tile", "thread")}
    def refused(cc, have):
        if not have:
            return f"{cc} skipped"
        r = stats[cc + "_refused"]
        return (f"{cc} refused {len(r)} statements of {len({(f, k) for f, k, _ in r})} kernels"
                + ("" if args.census else " (first errors only; --census for all)"))

    print(f"# {len(kernels)} kernels, {nout} outputs; {refused('nvcc', args.nvcc)}, {refused('hipcc', args.hipcc)}; "
          f"outputs differing from the model: tile level {bad_out['tile']}, "
          f"thread level {bad_out['thread']}; kernels tlc-sim refused: {len(stats['sim_refused'])}; "
          f"{tap.failed} of {tap.n} checks failed; {time.time() - t0:.0f} s")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
