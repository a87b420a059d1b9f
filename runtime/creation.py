"""Array creation: zeros, ones, full, arange, linspace, eye, array and the *_like family."""
import numpy as np

from sstad.runtime.primitive import numpy_primitive

CREATION_FUNCTIONS = """zeros ones empty full zeros_like ones_like empty_like full_like arange
linspace eye identity array asarray""".split()

for _name in CREATION_FUNCTIONS:
    numpy_primitive(_name, getattr(np, _name))
