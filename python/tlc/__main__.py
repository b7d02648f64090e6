"""python -m tlc run PROGRAM.py [ARGS...]: run an unchanged TileLang program
with tlc as its compiler (`import tilelang` there is tlc's shim)."""
import os
import runpy
import sys

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
    runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
