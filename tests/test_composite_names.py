"""Errors from sstad's definitions of NumPy and SciPy functions (``runtime/composites*.py``)
name the function as the user's code does: ``scipy.linalg.solve_triangular``,
``scipy.stats.norm.logpdf``, ``np.linalg.matrix_power``, never ``np.solve_triangular``."""
import inspect

import numpy as np
import pytest
import scipy.linalg  # noqa: F401  (the names below are resolved from these modules)
import scipy.special  # noqa: F401
import scipy.stats  # noqa: F401

import sstad
from sstad.errors import SstadError
from sstad.runtime import composites
from sstad.runtime.composites import key_of, public_name

sstad.runtime.composites.definition_of(scipy.stats.norm.logpdf)      # registers the lazy families
NAMES = sorted(set(composites.NAMES.values()))


def resolve(name):
    module, *path = name.split(".")
    obj = {"np": np, "scipy": scipy}[module]
    for part in path:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", NAMES)
def test_each_public_name_is_the_function_itself(name):
    assert composites.NAMES[key_of(resolve(name))] == name


def calls_with_a_keyword_it_does_not_take(fn):
    def call(x):
        return fn(x, sstad_bogus=1)
    return call


CALL_LINE = inspect.getsourcelines(calls_with_a_keyword_it_does_not_take)[1] + 2


@pytest.mark.parametrize("name", NAMES)
def test_an_argument_error_names_the_function_as_written(name):
    fn = resolve(name)
    with pytest.raises(SstadError) as info:
        sstad.jit(calls_with_a_keyword_it_does_not_take(fn), backend="python")(np.ones(3))
    message = str(info.value)
    assert f"test_composite_names.py:{CALL_LINE}:" in message                  # the user's line
    takes_any = inspect.getfullargspec(composites.definition_of(fn)).varkw is not None
    if takes_any:                                  # a refusal of every call (np.linalg.eig)
        assert f"{name.rsplit('.', 1)[1]} is not supported" in message
    else:
        assert f"{name}() got an unexpected or repeated argument `sstad_bogus`" in message


def solve_upper(a, b):
    return scipy.linalg.solve_triangular(a, b, unit_diagonal=True, trans="X")


def test_an_error_inside_the_definition_names_the_scipy_function():
    with pytest.raises(SstadError, match=r"scipy.linalg.solve_triangular: trans must be"):
        sstad.jit(solve_upper, backend="python")(np.eye(2), np.ones(2))


def test_names_of_functions_methods_and_ufuncs():
    assert public_name(scipy.linalg.solve) == "scipy.linalg.solve"
    assert public_name(scipy.special.ndtr) == "scipy.special.ndtr"
    assert public_name(scipy.stats.multivariate_normal.logpdf) == "scipy.stats.multivariate_normal.logpdf"
    assert public_name(np.linalg.matrix_power) == "np.linalg.matrix_power"
    assert public_name(np.logaddexp2) == "np.logaddexp2"


def solve_triangular_of_a_vector(a, b):
    return np.sum(scipy.linalg.solve_triangular(a, b))


def cho_solve_of_a_vector(a, b):
    return np.sum(scipy.linalg.cho_solve((a, True), b))


@pytest.mark.parametrize("fn,name", [(solve_triangular_of_a_vector, "solve_triangular"),
                                     (cho_solve_of_a_vector, "cho_solve")])
def test_a_vector_is_refused_as_scipy_does(fn, name):
    # np.triu of a vector is a square matrix: without the check it would be solved
    with pytest.raises(SstadError, match=rf"test_composite_names.py:\d+:.*scipy.linalg.{name}: expected a square matrix"):
        sstad.jit(sstad.grad(fn), backend="python")(np.ones(3), np.ones(3))
