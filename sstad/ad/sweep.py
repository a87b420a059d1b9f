"""What forward and reverse mode share: the builder a derivative is written into."""
from sstad.frontend.lower import Lowerer
from sstad.frontend.scope import Scope
from sstad.ir import nodes as ir
from sstad.runtime import abstract as A


def detached_lowerer(name):
    """A builder with a scope of its own (derivatives and rules are lowered into it)."""
    lowerer = Lowerer()
    scope = Scope({}, set(), name)
    scope.declared_global = set()
    lowerer.scopes, lowerer.scope = [scope], scope
    return lowerer


class Sweep:
    def __init__(self, lowerer, name):
        self.L = lowerer
        self.scope = Scope({}, set(), name)
        self.scope.declared_global = set()
        lowerer.scopes, lowerer.scope = [self.scope], self.scope

    def collect(self, thunk):
        return self.L.collect(thunk)

    def zeros(self, var, primal):
        """A zero derivative of ``var``'s type (``primal`` gives an array's shape)."""
        if isinstance(var.type, A.Array):
            return self.L.zeros_like(primal, "d" + var.hint)
        return ir.Const(A.prototype(A.Scalar(var.type.dtype, var.type.weak)) * 0, var.type)
