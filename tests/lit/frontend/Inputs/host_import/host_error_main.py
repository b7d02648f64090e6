# tests/lit/errors/host_import.tl: see host_then_error.py
import host_then_error
