__all__ = ["GRID"]
GRID = 7
HIDDEN = 1
