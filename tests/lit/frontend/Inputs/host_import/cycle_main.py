# tests/lit/errors/host_import.tl: a cycle of imports
import cycle_a
