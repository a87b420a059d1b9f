"""A compiled call keeps no reference to its arguments or results: large arrays are freed
as soon as the caller drops them, not at the next garbage collection (which can take a
fraction of a second on a large heap, in the middle of someone else's timing)."""
import gc
import weakref

import numpy as np
import pytest

import sstad


def model(params, x):
    return {"y": np.tanh(x @ params["w"]) + params["b"], "n": [np.sum(x), x * 2.0]}


@pytest.mark.parametrize("transform", [lambda f: f, lambda f: sstad.grad(lambda p, x: np.sum(f(p, x)["y"]))])
def test_arguments_and_results_are_freed_without_the_garbage_collector(transform):
    fn = sstad.jit(transform(model), backend="python")
    params = {"w": np.ones((3, 2)), "b": np.zeros(2)}
    fn(params, np.ones((4, 3)))                  # compiled; the cache holds no arrays
    gc.collect()
    gc.disable()
    try:
        x = np.ones((4, 3))
        out = fn(params, x)
        refs = [weakref.ref(x)] + [weakref.ref(a) for a in sstad.tree.leaves(out) if isinstance(a, np.ndarray)]
        del x, out
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        gc.enable()
