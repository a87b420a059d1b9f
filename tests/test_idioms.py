"""NumPy and Python as people write it (tests/idiom_cases.py), on both backends: the primal
against Python, reverse and forward mode against finite differences."""
import inspect
import re

import numpy as np
import pytest

import idiom_cases as ic
import sstad
from sstad.errors import SstadError
from sstad.testing import check_grads

RNG = np.random.default_rng(11)
a, b, c = (RNG.normal(size=3) for _ in range(3))
A, B = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))
X = RNG.normal(size=(4, 3))

CASES = [
    (ic.list_of_tuple, (a,)),
    (ic.tuple_of_list, (a,)),
    (ic.list_of_static_range, (a,)),
    (ic.list_of_runtime_range, (a,)),
    (ic.list_of_array_rows, (X,)),
    (ic.copied_list_grows_alone, (a, b)),
    (ic.list_of_enumerate_and_zip, (a, b)),
    (ic.dict_of_keywords, (a, b)),
    (ic.dict_of_pairs, (a, b)),
    (ic.np_sum_of_literal, (a, b)),
    (ic.np_sum_of_literal_axis0, (a, b, c)),
    (ic.sum_of_literal, (a, b, c)),
    (ic.np_mean_and_max_of_literals, (a, b)),
    (ic.np_sum_of_appended, (0.7, X)),
    (ic.sum_of_appended, (0.7, X)),
    (ic.np_sum_of_appended_scalars, (0.7, X)),
    (ic.layers_in_a_loop, (a, RNG.normal(size=(4, 3)), RNG.normal(size=(2, 4)), RNG.normal(size=(3, 2)))),
    (ic.layer_pairs_in_a_loop, (a, RNG.normal(size=(4, 3)), b[:1].repeat(4), RNG.normal(size=(2, 4)), c[:2])),
    (ic.negative_runtime_index, (a, b, c)),
    (ic.scalars_indexed_at_run_time, (0.8, RNG.normal(size=4))),
    (ic.many_items_indexed, (a,)),
    (ic.r_of_arrays_and_numbers, (a, b[:2], 0.3)),
    (ic.r_with_ranges, (a,)),
    (ic.c_of_columns, (a, b, c)),
    (ic.c_of_matrix_and_column, (RNG.normal(size=(3, 2)), a)),
    (ic.star_arguments, (a, 0.4, -0.7)),
    (ic.star_keywords, (a, b)),
    (ic.star_lambda, (a, b)),
    (ic.star_entry, (a, b)),
    (ic.reduce_with_operators, (a, b, c, A, B)),
    (ic.reduce_with_functions, (a, b, c)),
    (ic.reduce_over_range, (a,)),
    (ic.reduce_over_rows, (X, a)),
    (ic.operator_functions, (a, b, A)),
]


def ids(case):
    return case[0].__name__


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("fn, args", CASES, ids=[ids(case) for case in CASES])
def test_idiom_compiles_and_differentiates(fn, args, backend):
    check_grads(fn, args, backend=backend)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("k", [0, 3, -1, -5])
def test_a_literal_indexed_by_an_argument(k, backend):
    check_grads(ic.indexed_by_an_argument, (a, k), backend=backend)


@pytest.mark.parametrize("backend", ["python", pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("k", [5, -6])
def test_a_literal_index_out_of_range_raises(k, backend):
    f = sstad.jit(ic.indexed_by_an_argument, backend=backend)
    with pytest.raises(IndexError, match="out of range"):
        f(a, k)


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if f"# ERR {marker}" in text)


@pytest.mark.parametrize("fn, args, marker, message", [
    (ic.tuple_of_array, (a,), "tuple", "its length is known only at run time"),
    (ic.mixed_items_at_run_time, (a, A), "mixed", "needs items of one type and structure"),
    (ic.reduce_over_array_without_initial, (a,), "reduce", "needs an initial value"),
    (ic.star_of_runtime_list, (a,), "star", "length is known at compile time"),
    (ic.recursive_star, (a, 1.0), "recursive", "a recursive or custom-rule function cannot take them"),
    (ic.r_of_mixed_ranks, (a, A), "ranks", "joins arrays of one rank"),
])
def test_refused_idioms_name_the_line(fn, args, marker, message):
    with pytest.raises(SstadError) as info:
        sstad.jit(fn, backend="python")(*args)
    assert message in str(info.value)
    assert re.search(rf"idiom_cases\.py:{line_of(fn, marker)}:\d+: ", str(info.value)), str(info.value)
