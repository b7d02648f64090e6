# tests/lit/errors/host_import.tl: a real error after host code at the top
# level of a module is an error of the import, not a skipped statement
import torch

X = torch.zeros(3)
Y = 1 // 0
