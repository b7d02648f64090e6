# lit configuration for tlc's golden tests.  Never pipe a test file into
# FileCheck as its own input: the RUN line must produce the checked text.
import os
import shutil
import sys

import lit.formats

config.name = "tlc"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tl", ".test", ".ini"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tlc_obj_root, "tests", "lit")

config.environment["TLC_PLUGIN_PATH"] = config.tlc_plugin_dir
config.environment["TLC_CONFIG"] = os.path.join(config.tlc_src_root, "etc", "tlc.ini")
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%test_plugins", config.tlc_test_plugin_dir))
config.substitutions.append(("%tlc", config.tlc_bin))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%examples", os.path.join(config.tlc_src_root, "examples")))
config.substitutions.append(("%nvcc", config.nvcc or "false"))
# the Python that runs lit, for checkers of tlc-sim's .npy outputs (standard library only)
config.substitutions.append(("%python", sys.executable))
if config.nvcc:
    config.available_features.add("nvcc")
if config.hipcc:
    config.available_features.add("hipcc")
# cuobjdump (SASS): the toolkit's, or PyPI's nvidia-cuda-cuobjdump (CI), when there is one
cuobjdump = shutil.which("cuobjdump")
if not cuobjdump and config.nvcc:
    cand = os.path.join(os.path.dirname(os.path.realpath(config.nvcc)), "cuobjdump")
    cuobjdump = cand if os.access(cand, os.X_OK) else None
if not cuobjdump:
    import glob
    for d in sys.path:
        found = sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", "cuobjdump")))
        if found:
            cuobjdump = found[-1]
            break
if config.nvcc and cuobjdump:
    config.available_features.add("cuobjdump")
config.substitutions.append(("%cuobjdump", cuobjdump or "false"))
config.substitutions.append(("%hipcc", config.hipcc or "false"))
config.substitutions.append(("%gfx942_arch", config.hip_gfx942_arch or "gfx942"))
# an llvm-objdump that disassembles AMDGPU code objects (the LLVM of hipcc)
amdgpu_objdump = None
for cand in ["/opt/rocm/llvm/bin/llvm-objdump", "/usr/lib/llvm-15/bin/llvm-objdump",
             shutil.which("llvm-objdump-15") or "", shutil.which("llvm-objdump") or ""]:
    if cand and os.access(cand, os.X_OK):
        amdgpu_objdump = cand
        break
if config.hipcc and amdgpu_objdump:
    config.available_features.add("amdgpu-objdump")
config.substitutions.append(("%amdgpu_objdump", amdgpu_objdump or "false"))
# llvm's `not` (beside FileCheck): succeeds when the command exits non-zero, fails on a crash.
llvm_bin = os.path.dirname(os.path.realpath(config.filecheck))
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])
