from .nothere import x
