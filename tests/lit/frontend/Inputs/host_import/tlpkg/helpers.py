from .consts import SCALE


def twice(n):
    return n * SCALE - n
