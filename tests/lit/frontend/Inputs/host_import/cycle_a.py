import cycle_b
A = 1
