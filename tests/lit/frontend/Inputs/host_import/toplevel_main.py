# tests/lit/errors/host_import.tl: a relative import of a module that is not there
import tlpkg.broken_rel
