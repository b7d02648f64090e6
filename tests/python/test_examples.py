"""Every bundled example through the tilelang shim, compile-only (no GPU):
each file is run as a module (not as __main__, so its main() does not run)
with `import tilelang` resolving to the shim and a fake torch; then every
@tilelang.jit function in it is called (kernel factories with their
defaults, eager kernels with fake tensors of a size their annotations
accept), and every other top-level function that makes a T.prim_func is
called with its defaults and given to tilelang.compile.  Each must build a
kernel with tlc and nvcc.  TAP output.

Environment: TLC, TLC_SRCDIR; nvcc in PATH or NVCC."""
import glob
import inspect
import os
import runpy
import sys
import tempfile

SRC = os.environ["TLC_SRCDIR"]
sys.path.insert(0, os.path.join(SRC, "python"))
sys.path.insert(0, os.path.join(SRC, "python", "tlc", "shim"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_torch  # noqa: E402

fake_torch.install()
os.environ["TLC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tlc-cache-")
if os.environ.get("NVCC"):
    os.environ["PATH"] = os.path.dirname(os.environ["NVCC"]) + os.pathsep + os.environ["PATH"]

import tilelang  # noqa: E402  (the shim)
import tlc  # noqa: E402
from tlc.jit import JitFactory, PrimFunc  # noqa: E402

results = []
for path in sorted(glob.glob(os.path.join(SRC, "examples", "*.tl"))):
    name = os.path.basename(path)
    try:
        module = runpy.run_path(path, run_name="tlc_compile_only")
    except Exception as e:  # noqa: BLE001 - any failure is the test's
        results.append((f"{name}: runs as a module", False, repr(e)))
        continue
    factories = [(n, v) for n, v in module.items() if isinstance(v, JitFactory)]
    plain = [(n, v) for n, v in module.items() if inspect.isfunction(v) and "@T.prim_func" in inspect.getsource(v)]
    if not factories and not plain:
        results.append((f"{name}: has a kernel factory", False, "none found"))
    for fname, fn in plain:
        try:
            pf = fn()
            k = tilelang.compile(pf) if isinstance(pf, PrimFunc) else None
            ok, detail = isinstance(k, tlc.Kernel), "" if k else f"{fname}() returned {pf!r}"
        except Exception as e:  # noqa: BLE001
            ok, detail = False, str(e)
        results.append((f"{name}: {fname}(), a factory, builds through tilelang.compile", ok, detail))
    for fname, factory in factories:
        required = [p for p in inspect.signature(factory.func).parameters.values()
                    if p.default is inspect.Parameter.empty]
        args = [fake_torch.empty((256, 256), fake_torch.float16) for _ in required]
        launched = []
        orig = tlc.Kernel._launcher
        tlc.Kernel._launcher = lambda self: (lambda *a: launched.append(a) or 0)
        try:
            r = factory(*args)
            ok = isinstance(r, tlc.Kernel) or (required and launched)
            detail = ""
        except Exception as e:  # noqa: BLE001
            ok, detail = False, str(e)
        finally:
            tlc.Kernel._launcher = orig
        kind = "n eager kernel with fake tensors" if required else " factory with its defaults"
        results.append((f"{name}: {fname}, a{kind}, builds", ok, detail))

print(f"1..{len(results)}")
for i, (name, ok, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {name}")
    if not ok and detail:
        print("# " + str(detail).replace("\n", "\n# "))
