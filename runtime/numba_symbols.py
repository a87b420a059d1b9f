"""Numba's symbol names, made distinct across processes.

Numba names a compiled function's symbol after its qualified name, its argument types
and a counter of the process (``FunctionIdentity._unique_ids``, counting from 1), and
links every callee as ``linkonce_odr``: two symbols of one name are taken to be the same
code.  Closures break that across processes.  Each of ``_checker(name)``'s ``check``
functions (and each overload's ``impl``) has one qualified name; process A's check of a
broadcast and process B's check of an all-gather can get the same counter value, and
when B loads A's compiled function from the disk cache, the loader keeps the symbol B
already has: A's code then calls B's function, silently (numba/numba#10486).

Counting from a random 62-bit start per process keeps the counter increasing within a
process and makes two processes' counters meet with probability about n / 2**62.
Imported before anything compiles (first in ``sstad.runtime``).
"""
import itertools
import secrets

from numba.core.bytecode import FunctionIdentity

FunctionIdentity._unique_ids = itertools.count(secrets.randbits(62))
