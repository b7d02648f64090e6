# tests/lit/errors/host_import.tl: __all__ decides what a star import brings
from common_sizes import *
X = HIDDEN
