#!/usr/bin/env python3
"""row_pack.py DIR ROWS: Out.npy (ROWS x 4, float32) holds, in row t, the
values t * 10 + i for the i in [0, 8) with (t + i) % 3 == 0, in order, the
first doubled, then zeros (tests/lit/sim/parallel_row_private.tl)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_npy import read_npy  # noqa: E402

d, rows = sys.argv[1], int(sys.argv[2])
_, shape, got = read_npy(os.path.join(d, "Out.npy"))
want = []
for t in range(rows):
    row = [float(t * 10 + i) for i in range(8) if (t + i) % 3 == 0]
    row[0] *= 2
    want += row + [0.0] * (4 - len(row))
if list(shape) != [rows, 4] or list(got) != want:
    sys.exit(f"Out differs: got {list(got)[:12]}..., want {want[:12]}...")
