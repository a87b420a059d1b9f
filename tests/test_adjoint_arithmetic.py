"""What the emitted gradient code does, counted: the passes that cut its arithmetic
(``slice_adjoints``, the shape proofs of ``broadcasts``), each checked against finite
differences on both backends."""
import numpy as np
import pytest

import sstad
from sstad.testing import check_grads
from sstad.frontend.lower import lower
from sstad.ir import nodes as ir
from sstad.passes.broadcasts import shape_classes


def code_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def gates(p, x):
    """An LSTM-like cell: each row of p read as slices of one length."""
    b = x.shape[0]
    total = 0.0
    for i in range(p.shape[0]):
        w = p[i]
        total = total + np.sum(np.tanh(x * w[:b]) * w[b:2 * b] + w[2 * b:] ** 2)
    return total


def rows_by_array(p, x, rows):
    """Rows chosen by an integer array: a copy, not a view of p's cotangent."""
    w = p[rows]
    return np.sum(np.tanh(w[:, :2] * x[:2])) + np.sum(w[:, 2:] ** 2)


def two_rows_read_between(p, x):
    """The same row read twice: its cotangents meet in one place."""
    w = p[1]
    v = p[1]
    return np.sum(w[:2] * x[:2]) + np.sum(np.sin(v[2:]) * w[2:])


ARGS = (np.linspace(-0.8, 0.9, 3 * 3 * 2).reshape(3, 6) * [[1.0], [0.5], [-0.7]], np.array([0.3, -0.2]))


def test_slices_add_into_a_view_of_the_parents_cotangent():
    text = sstad.dump(sstad.grad(gates), *ARGS, emit="python")
    lines = code_lines(text)
    assert not [line for line in lines if "np.zeros_like(w" in line], text
    views = [line for line in lines if line.startswith("dw") and "= dp" in line and "[" in line]
    assert len(views) == 1, text                   # dw is a row of dp, written in place
    assert not [line for line in lines if line.startswith("dp") and "+= dw" in line], text


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("fn, args", [(gates, ARGS), (two_rows_read_between, ARGS),
                                      (rows_by_array, ARGS + (np.array([0, 2, 0]),))])
def test_slice_adjoints_match_finite_differences(fn, args, backend):
    check_grads(fn, args, modes="rev", backend=backend)


def test_an_integer_array_index_keeps_its_zeroed_cotangent():
    text = sstad.dump(sstad.grad(rows_by_array), *ARGS, np.array([0, 2, 0]), emit="python")
    assert [line for line in code_lines(text) if "np.zeros_like(w" in line], text


def grows(x, n):
    y = x * 1.0
    z = x * 1.0
    for _ in range(n):
        y = y * 2.0
        z = z[1:]
    return y, z


def test_loop_carried_arrays_keep_their_class_only_if_every_iteration_does():
    module = lower(grows, (np.ones(3), 2))[0]
    fn = module.functions[0]
    classes = shape_classes(fn)
    loop = next(s for s in ir.walk(fn.body) if isinstance(s, ir.For))
    y_out, z_out = loop.outs[:2]
    x = fn.params[0]
    assert classes.get(y_out) == classes.get(x)
    assert classes.get(z_out) != classes.get(x)


def products(a, b, u, v):
    """Each kind of product without a batch axis: matrix-matrix, vector-matrix,
    matrix-vector, vector-vector."""
    return np.sum(np.tanh(a @ b)) + np.sum(np.sin(u @ b)) + np.sum((a @ v) ** 2) + np.cos(u @ u)


PRODUCTS = (np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.linspace(0.5, -0.7, 12).reshape(3, 4),
            np.array([0.3, -0.4, 0.2]), np.array([0.1, 0.6, -0.5]))


def test_unbatched_products_have_no_unbroadcast_and_no_reshaped_vectors():
    text = sstad.dump(sstad.grad(products, argnums=(0, 1, 2, 3)), *PRODUCTS, emit="python")
    lines = code_lines(text)
    assert not [line for line in lines if "unbroadcast(" in line and "@" in line], text
    assert not [line for line in lines if "[..., None]" in line or "[..., 0" in line], text
    assert sum(line.count(".T") + line.count("swapaxes(") for line in lines) == 2, text   # a @ b's two


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_unbatched_products_match_finite_differences(backend):
    check_grads(products, PRODUCTS, modes="rev", backend=backend)
