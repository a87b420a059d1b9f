"""NumPy functions defined in NumPy: written here over primitives, inlined like user code.

A composite needs no rules of its own: the compiler inlines its body, so its derivatives
(any order, both modes) and its lowering for every backend come from the primitives it
calls.  Register one with ``@composite(np.name)``; the body must follow NumPy's
signature (parameter names and defaults) and refuse what it does not handle with a
``TypeError`` raised at compile time (a branch on a static value).
"""
COMPOSITES: dict = {}        # id(numpy function) -> its definition here


def composite(*functions):
    """Define the NumPy ``functions`` by the decorated Python function."""
    def register(definition):
        for fn in functions:
            COMPOSITES[id(fn)] = definition
        return definition
    return register
