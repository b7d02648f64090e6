"""tilelang.math: the integer helpers kernel factories call at compile time."""


def next_power_of_2(x):
    """The smallest power of two >= x, for x >= 1 (as TileLang computes it:
    1 << (x - 1).bit_length(), which is 2 for 0)."""
    return 1 << (x - 1).bit_length()


def cdiv(a, b):
    """a / b rounded up, for integers."""
    return -(-a // b)
