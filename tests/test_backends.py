"""The backend seam is real: a third backend plugs in through the Backend object alone."""
import numpy as np
import pytest

import backend_cases as bc
import sstad
from sstad.backend.base import BACKENDS, Backend, get_backend, register
from sstad.runtime.primitive import LOWERINGS


class LoggedBackend(Backend):
    """Runs the emitted NumPy with every primitive call logged: ``_log(name, value)``."""
    name = "logged"

    def __init__(self):
        self.calls = []

    def lower(self, prim):
        plain = super().lower(prim)
        if prim.mutates or prim.name == "list.new":
            return plain
        return lambda args, params, avals: f"_log({prim.name!r}, {plain(args, params, avals)})"

    def load(self, source, module, label):
        def log(name, value):
            self.calls.append(name)
            return value
        namespace = {"_log": log}
        exec(compile(source, f"<logged {label}>", "exec"), namespace)
        return namespace[module.entry.name]


class DeviceArray:
    """An array in another memory: it has a dtype and a rank, and the backend that owns it
    moves it (here: it only wraps a NumPy array)."""

    def __init__(self, data):
        self.data = data
        self.dtype, self.ndim = data.dtype, data.ndim


class DeviceBackend(LoggedBackend):
    name = "device"
    array_types = (DeviceArray,)

    def call(self, fn, leaves):
        return fn(*(v.data if isinstance(v, DeviceArray) else v for v in leaves))


@pytest.fixture(scope="module")
def logged():
    backend = register(LoggedBackend())
    yield backend
    BACKENDS.pop(backend.name)


def test_a_third_backend_runs_the_same_ir(logged):
    x = np.array([0.3, -1.2, 0.5])
    assert sstad.jit(bc.loss, backend="logged")(0.7, x) == pytest.approx(bc.loss(0.7, x), rel=1e-14)
    assert {"op.mul", "sin", "getitem"} <= set(logged.calls), logged.calls


def test_a_third_backend_runs_derivatives_and_is_dumped(logged):
    x = np.array([0.3, -1.2, 0.5])
    logged.calls.clear()
    expected = sstad.jit(sstad.grad(bc.loss), backend="python")(0.7, x)
    assert sstad.jit(sstad.grad(bc.loss), backend=logged)(0.7, x) == pytest.approx(expected, rel=1e-14)
    assert "cos" in logged.calls                # the rule of sin ran on this backend
    assert "_log('sin'" in sstad.dump(bc.loss, 0.7, x, emit="logged")


def test_each_backend_lowers_through_its_own_table():
    """Numba's workarounds live in the numba table; the python backend prints NumPy."""
    assert "flip" in LOWERINGS["numba"] and "flip" not in LOWERINGS.get("python", {})
    x = np.arange(6.0).reshape(2, 3)

    def flipped(x):
        return np.flip(x, axis=1)
    source = {name: sstad.dump(bc.chain, x, emit=name) for name in ("python", "numba")}
    assert "np.exp" in source["python"]
    assert source["numba"].count("\n") < source["python"].count("\n")      # fused into one line
    assert get_backend("numba").fuse and not get_backend("python").fuse


def test_an_unknown_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="backend must be one of"):
        sstad.jit(bc.chain, backend="tpu")


def test_a_backends_own_arrays_are_run_time_arguments():
    """Device arrays are arguments of the compiled code, not compile-time constants."""
    backend = register(DeviceBackend())
    try:
        f = sstad.jit(bc.chain, backend="device")
        for x in (np.arange(3.0), np.linspace(-1.0, 1.0, 3)):
            assert f(DeviceArray(x)) == pytest.approx(bc.chain(x), rel=1e-14)
        assert len(f._compiled) == 1                     # one signature: f64[:]
    finally:
        BACKENDS.pop(backend.name)
