from .consts import SCALE
from . import helpers
