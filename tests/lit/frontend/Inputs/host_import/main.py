# The program of tests/lit/frontend/host_import.tl: it imports helpers from
# modules beside it (a module, a package with relative imports, a namespace
# package, a star import that follows __all__).
import tilelang
import tilelang.language as T
from kernel_utils import block_threads, accumulate, row_layout
import kernel_utils as ku
import counter
import tlpkg.helpers
from tlpkg import SCALE
from common_sizes import *
from nsdir.extra import EXTRA
from newer_syntax import describe  # read as an opaque host module: a warning

counter.calls.append("main")
# one module object per file, however often it is imported
assert counter.calls == ["kernel_utils", "main"], counter.calls
assert ku.BLOCK == 64 and SCALE == 3 and GRID == 7 and EXTRA == 5
assert tlpkg.helpers.twice(5) == 10 and tlpkg.consts.SCALE == 3


def kernel(n=128):
    @T.prim_func
    def main(A: T.Tensor((n, 32), "float32")):
        with T.Kernel(GRID * SCALE, threads=block_threads()) as bx:
            S = T.alloc_shared((n, 32), "float32")
            T.annotate_layout({S: row_layout(n)})
            accumulate(A, bx, tlpkg.helpers.twice(EXTRA))

    return main
