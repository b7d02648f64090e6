# tests/lit/errors/host_import.tl: an error inside a module of the program
import tilelang.language as T
import broken_sizes


def kernel():
    @T.prim_func
    def main(A: T.Tensor((128,), "float32")):
        with T.Kernel(broken_sizes.grid(4), threads=128) as bx:
            A[bx] = 0.0

    return main
