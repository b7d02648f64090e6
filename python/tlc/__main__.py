"""python -m tlc run PROGRAM.py [ARGS...]: run an unchanged TileLang program
with tlc as its compiler (`import tilelang` there is tlc's shim)."""
import ast
import inspect
import os
import sys
import types

USAGE = "usage: python -m tlc run PROGRAM.py [ARGS...]"


def main(argv):
    if len(argv) < 2 or argv[0] != "run":
        print(USAGE, file=sys.stderr)
        return 2
    program = argv[1]
    if not os.path.exists(program):
        print(f"python -m tlc: no such file: {program}", file=sys.stderr)
        return 2
    shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shim")
    for name in [m for m in sys.modules if m == "tilelang" or m.startswith("tilelang.")]:
        del sys.modules[name]
    sys.path.insert(0, shim)
    sys.path.insert(1, os.path.dirname(os.path.abspath(program)))
    sys.argv = [program] + argv[2:]
    # TileLang's environment has tvm importable before tilelang is imported
    # (`from tvm import DataType` first): the shim's stand-ins serve it
    import tilelang  # noqa: F401
    run_program(os.path.abspath(program))
    return 0


def run_program(path):
    """Run the program as __main__, with each of its top-level functions
    wrapped by tlc.jit.record_calls right after its `def`: a kernel that
    nested factories make (`flashattn(8, 32)(block_M=64)`) is then built
    from the calls that made it."""
    from .jit import record_calls
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    body = []
    for node in tree.body:
        body.append(node)
        if isinstance(node, ast.FunctionDef):
            wrap = ast.parse(f"{node.name} = __tlc_record_calls__({node.name})").body[0]
            body.append(ast.fix_missing_locations(ast.copy_location(wrap, node)))
    tree.body = body
    code = compile(tree, path, "exec")
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__

    def record(fn):
        if inspect.isfunction(fn) and fn.__code__.co_filename == path:
            return record_calls(fn, path)
        return fn
    main.__tlc_record_calls__ = record
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
