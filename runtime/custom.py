"""Pieces of user-defined rules that generated code and the rule inliner use."""
from sstad.runtime.primitive import NUMPY_FUNCTIONS, Primitive, nondiff


def stop_gradient(x):
    """``x``, with no derivative flowing through it (in any mode, at any order)."""
    return x


Primitive("stop_gradient", stop_gradient, lambda avals, params: avals[0], lambda args, params, avals: args[0])
NUMPY_FUNCTIONS[id(stop_gradient)] = "stop_gradient"
nondiff("stop_gradient")


# Reverse rules that run the user's fwd for the residuals, then their bwd, by arity.
def vjp_rule(fwd, bwd, arity):
    if arity == 1:
        def rule(a, out, dout):
            return bwd(fwd(a)[1], dout)
    elif arity == 2:
        def rule(a, b, out, dout):
            return bwd(fwd(a, b)[1], dout)
    elif arity == 3:
        def rule(a, b, c, out, dout):
            return bwd(fwd(a, b, c)[1], dout)
    elif arity == 4:
        def rule(a, b, c, d, out, dout):
            return bwd(fwd(a, b, c, d)[1], dout)
    else:
        raise TypeError("custom rules take at most 4 arguments")
    return rule


def jvp_rule(jvp, arity):
    """``(a..., da...) -> tangent_out`` from the user's ``jvp(primals, tangents)``."""
    if arity == 1:
        def rule(a, da):
            return jvp((a,), (da,))[1]
    elif arity == 2:
        def rule(a, b, da, db):
            return jvp((a, b), (da, db))[1]
    elif arity == 3:
        def rule(a, b, c, da, db, dc):
            return jvp((a, b, c), (da, db, dc))[1]
    elif arity == 4:
        def rule(a, b, c, d, da, db, dc, dd):
            return jvp((a, b, c, d), (da, db, dc, dd))[1]
    else:
        raise TypeError("custom rules take at most 4 arguments")
    return rule


from sstad.runtime.primitive import declare  # noqa: E402

declare("stop_gradient", may_alias=True)
