# tests/lit/errors/host_import.tl: a package without the name
from tlpkg import missing_helper
