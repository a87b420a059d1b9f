"""Calls into library code: the user's code is compiled, library code is not.

Functions defined outside the user's files (the standard library, site-packages) are never
lowered: on compile-time constants they run at compile time; on run-time values the python
backend calls them and the numba backend refuses them at the user's line; on values being
differentiated they need a rule (docs/architecture.md, decision 9).
"""
import importlib.util
import math
import os.path
import statistics
import sys

import numpy as np
import pytest
import scipy.special
import scipy.stats

import sstad
import sstad.runtime.reduce
from sstad.errors import BackendError, SstadTypeError, UnsupportedSyntaxError
from sstad.frontend.source import is_library_function, is_user_function

BACKENDS = ["python", "numba"]


def helper(x):
    return x * 2.0


def test_library_functions_are_not_user_code():
    assert not is_user_function(scipy.special.multigammaln)      # site-packages
    assert not is_user_function(statistics.fmean)                # the standard library
    assert not is_user_function(os.path.join)                    # a frozen stdlib module
    assert is_library_function(scipy.stats.zscore)
    assert is_user_function(helper)
    assert is_user_function(lambda x: x)
    assert is_user_function(sstad.runtime.reduce.restore_axis)   # sstad's rules stay inlined


# --- on compile-time constants: run at compile time -----------------------------------
def gmm_prior(x):
    return np.sum(x * x) - scipy.special.multigammaln(3.5, 2) + statistics.fmean([1.0, 2.0, 4.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_multigammaln_and_fmean_on_constants(backend):
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(sstad.jit(gmm_prior, backend=backend)(x), gmm_prior(x), rtol=1e-15)
    np.testing.assert_allclose(sstad.jit(sstad.grad(gmm_prior), backend=backend)(x), 2 * x, rtol=1e-15)


def keywords_on_constants(x):
    w = statistics.fmean([1.0, 2.0, 6.0], weights=[1.0, 1.0, 2.0])
    return x * w + scipy.special.logsumexp([1.0, 2.0], b=[0.5, 2.0]) + math.fsum([0.1] * 10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_keyword_arguments_on_constants(backend):
    assert sstad.jit(keywords_on_constants, backend=backend)(1.5) == pytest.approx(
        keywords_on_constants(1.5), rel=1e-15)
    assert sstad.jit(sstad.grad(keywords_on_constants), backend=backend)(1.5) == pytest.approx(3.75, rel=1e-15)


def constant_array(x):
    table = scipy.special.gammaln([1.5, 2.5, 3.5])   # an array computed at compile time
    return np.sum(table * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_array_result_is_an_input_of_the_compiled_code(backend):
    x = np.array([1.0, 2.0, 3.0])
    table = scipy.special.gammaln([1.5, 2.5, 3.5])
    assert sstad.jit(constant_array, backend=backend)(x) == pytest.approx(np.sum(table * x), rel=1e-15)
    np.testing.assert_allclose(sstad.jit(sstad.grad(constant_array), backend=backend)(x), table, rtol=1e-15)


def fails_at_compile_time(x):
    return x * statistics.stdev([1.0])       # needs two data points


def test_a_library_error_at_compile_time_names_the_line():
    with pytest.raises(SstadTypeError) as err:
        sstad.jit(fails_at_compile_time, backend="python")(1.0)
    text = str(err.value)
    assert "test_library_calls.py:" in text and "statistics.stdev" in text and "failed at compile time" in text


LIBRARY_SOURCE = '''
def robust_scale(values, power=2):
    try:                      # outside the compiled subset: never compiled, only run
        import statistics
        return statistics.pstdev(values) ** power
    except ValueError:
        return 1.0
'''


@pytest.fixture(scope="module")
def installed_library(tmp_path_factory):
    """A module imported from a site-packages folder, as an installed library is."""
    folder = tmp_path_factory.mktemp("env") / "lib" / "site-packages"
    folder.mkdir(parents=True)
    (folder / "fake_stats_lib.py").write_text(LIBRARY_SOURCE)
    spec = importlib.util.spec_from_file_location("fake_stats_lib", folder / "fake_stats_lib.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["fake_stats_lib"] = module
    yield module
    del sys.modules["fake_stats_lib"]


def test_a_function_from_site_packages_runs_and_is_never_compiled(installed_library):
    scale = installed_library.robust_scale
    assert not is_user_function(scale)

    def f(x):
        return x / scale([1.0, 2.0, 3.0, 4.0], power=1)
    expected = 2.0 / statistics.pstdev([1.0, 2.0, 3.0, 4.0])
    for backend in BACKENDS:
        assert sstad.jit(f, backend=backend)(2.0) == pytest.approx(expected, rel=1e-15)


# --- on run-time values that are not differentiated -----------------------------------
def standardized_loss(w, data):
    z = scipy.stats.zscore(data, ddof=1)     # data: an argument, not differentiated
    return np.sum(w * z)


def test_library_call_on_inactive_values_runs_under_python():
    w, data = np.array([0.5, 1.0, -2.0]), np.array([1.0, 4.0, 2.0])
    z = scipy.stats.zscore(data, ddof=1)
    f = sstad.jit(standardized_loss, backend="python")
    assert f(w, data) == pytest.approx(np.sum(w * z), rel=1e-15)
    np.testing.assert_allclose(sstad.jit(sstad.grad(standardized_loss), backend="python")(w, data), z,
                               rtol=1e-15)
    data2 = np.array([3.0, -1.0, 0.0])       # run-time: a new argument gives a new value
    assert f(w, data2) == pytest.approx(np.sum(w * scipy.stats.zscore(data2, ddof=1)), rel=1e-15)


@pytest.mark.parametrize("transform", [lambda f: f, sstad.grad])
def test_library_call_on_run_time_values_is_refused_by_numba_at_the_users_line(transform):
    w, data = np.array([0.5, 1.0, -2.0]), np.array([1.0, 4.0, 2.0])
    with pytest.raises(BackendError) as err:
        sstad.jit(transform(standardized_loss), backend="numba")(w, data)
    text = str(err.value)
    line = standardized_loss.__code__.co_firstlineno + 1
    assert f"test_library_calls.py:{line}:" in text
    assert "scipy.stats.zscore" in text and "library code" in text
    assert "outside the compiled function" in text and "backend='python'" in text


def ufunc_on_data(x, data):
    return np.sum(x * scipy.special.spence(data))     # a SciPy ufunc without a rule


def test_scipy_ufunc_without_rule_on_inactive_values():
    x, data = np.array([1.0, 2.0]), np.array([0.3, 1.4])
    np.testing.assert_allclose(sstad.grad(ufunc_on_data)(x, data), scipy.special.spence(data), rtol=1e-15)
    with pytest.raises(BackendError, match="scipy.special.spence"):
        sstad.jit(ufunc_on_data)(x, data)


# --- on differentiated values: a rule, or a clear error --------------------------------
def zscore_of_weights(w):
    return np.sum(scipy.stats.zscore(w) ** 3)


@pytest.mark.parametrize("transform", [sstad.grad, lambda f: (lambda w: sstad.jvp(f, (w,), (w,)))])
def test_library_call_on_active_values_says_to_write_a_rule(transform):
    with pytest.raises(UnsupportedSyntaxError) as err:
        transform(zscore_of_weights)(np.array([1.0, 2.0, 4.0]))
    text = str(err.value)
    line = zscore_of_weights.__code__.co_firstlineno + 1
    assert f"test_library_calls.py:{line}:" in text
    assert "scipy.stats.zscore" in text and "custom_vjp" in text


def not_an_array(x):
    return np.sum(x) + len(repr(statistics.NormalDist(x[0], 1.0)))


def test_a_library_result_that_is_not_an_array_is_refused_clearly():
    with pytest.raises(UnsupportedSyntaxError) as err:
        sstad.jit(not_an_array, backend="python")(np.ones(2))
    text = str(err.value)
    assert "test_library_calls.py:" in text and "statistics.NormalDist" in text
