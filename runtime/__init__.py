"""What generated code calls: primitives with their rules, grouped by family.

Importing this package registers every primitive.  Nothing here imports the compiler.
"""
from sstad.runtime import numba_symbols  # noqa: F401  (first: before anything compiles)
from sstad.runtime.primitive import PRIMITIVES, Primitive, lookup  # noqa: F401
from sstad.runtime import (  # noqa: F401  (registration side effects)
    elementwise, reduce, shape, index, creation, linalg, containers, helpers, broadcast, extern, custom, composites,
    composites_elementwise, composites_shape, composites_stats, composites_numeric, composites_index, composites_special,
    composites_linalg, composites_nan, composites_ufunc, composites_polynomial, partition, collectives, tapes,
    complex_parts)
from sstad.runtime.helpers import *  # noqa: F401,F403  (names the emitted code uses as rt.*)
from sstad.runtime.linalg_numba import *  # noqa: F401,F403
from sstad.runtime.broadcast import unbroadcast  # noqa: F401
from sstad.runtime.index import add_along_axis, index_add, index_add_at, mask_add, mask_put, mask_take  # noqa: F401
from sstad.runtime.containers import stack_list  # noqa: F401
from sstad.runtime.tapes import tape_nbytes, tape_nbytes_since  # noqa: F401
from sstad.runtime.einsum import einsum  # noqa: F401  (rt.einsum, with its Numba lowering)
from sstad.runtime.extern import extern_function  # noqa: F401
from sstad.runtime import special  # noqa: F401  (scipy.special primitives, emitted as rt.special.*)
# composites_distributions (scipy.stats) registers when a program that imported scipy.stats
# first calls a function sstad has no definition of (composites.definition_of)
from sstad.runtime import bessel  # noqa: F401  (Bessel functions, emitted as rt.bessel.*)
from sstad.runtime import ufunc_loops  # noqa: F401  (NumPy's inner loops, emitted as rt.ufunc_loops.*)
from sstad.runtime import svml  # noqa: F401  (SVML sin/cos in compiled loops, emitted as rt.svml.*)
