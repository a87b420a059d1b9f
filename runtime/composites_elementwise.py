"""Elementwise composites: angle conversions, sinc, nan_to_num, clip, select, piecewise."""
import numpy as np

from sstad.runtime.composites import composite, static_range


def plain_ufunc_call(name, out, where, dtype):
    """Refuse the ufunc parameters these composites do not take."""
    if out is not None:
        raise NotImplementedError(f"np.{name}: out= is not supported; use the returned array")
    if where is not None:
        raise NotImplementedError(f"np.{name}: where= is not supported; use np.where on the result")
    if dtype is not None:
        raise NotImplementedError(f"np.{name}: dtype= is not supported; convert with .astype")


@composite(np.deg2rad, np.radians)
def deg2rad(x, out=None, *, where=None, dtype=None):
    """np.deg2rad and np.radians: degrees to radians."""
    plain_ufunc_call("deg2rad", out, where, dtype)
    return x * (np.pi / 180.0)


@composite(np.rad2deg, np.degrees)
def rad2deg(x, out=None, *, where=None, dtype=None):
    """np.rad2deg and np.degrees: radians to degrees."""
    plain_ufunc_call("rad2deg", out, where, dtype)
    return x * (180.0 / np.pi)


@composite(np.float_power)
def float_power(x1, x2, out=None, *, where=None, dtype=None):
    """np.float_power: ``x1 ** x2`` computed in float64 whatever the inputs' types
    (integers and float32 are promoted first)."""
    plain_ufunc_call("float_power", out, where, dtype)
    if np.atleast_1d(x1).dtype.kind == "c" or np.atleast_1d(x2).dtype.kind == "c":
        raise NotImplementedError("np.float_power of complex values is not supported")
    return np.power(as_float64(x1), as_float64(x2))


def as_float64(x):
    return x.astype(np.float64) if np.ndim(x) > 0 else np.float64(x)


@composite(np.sinc)
def sinc(x):
    """np.sinc: sin(pi x) / (pi x), 1 at 0; a Taylor series near 0 keeps every derivative right."""
    y = np.pi * x
    small = np.abs(y) < 1e-2
    safe = np.where(small, 1.0, y)                 # no 0/0 in the branch not taken
    return np.where(small, 1.0 - y * y / 6.0 + y * y * y * y / 120.0, np.sin(safe) / safe)


@composite(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """np.nan_to_num: nan, +inf and -inf replaced (by default by 0 and the largest finite floats)."""
    if not copy:
        raise NotImplementedError("np.nan_to_num: copy=False (in place) is not supported; "
                                  "use the returned array")
    if np.ndim(x) > 0 and x.dtype.kind != "f":
        return x      # integers, booleans and ml_dtypes' floats (NumPy too): no nan or inf replaced
    big = 3.4028234663852886e38 if np.ndim(x) > 0 and x.dtype == np.float32 else 1.7976931348623157e308
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    x = np.where(np.isnan(x), nan, x)
    x = np.where(x == np.inf, posinf, x)
    return np.where(x == -np.inf, neginf, x)


@composite(np.clip)
def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """np.clip with ``a_min``/``a_max`` or NumPy 2's ``min``/``max``; None means no bound
    (no bound at all: a copy, as NumPy 2.1 on)."""
    if out is not None:
        raise NotImplementedError("np.clip: out= is not supported; use the returned array")
    if a_min is not None and min is not None or a_max is not None and max is not None:
        raise TypeError("np.clip: give a_min or min (a_max or max), not both")
    low = min if a_min is None else a_min
    high = max if a_max is None else a_max
    if low is None and high is None:
        return np.copy(a)
    if low is not None:
        a = np.maximum(a, low)
    if high is not None:
        a = np.minimum(a, high)
    return a


@composite(np.select)
def select(condlist, choicelist, default=0):
    """np.select: the first true condition picks its choice, by np.where from the last one
    back (each choice gets the cotangent where it was picked)."""
    if len(condlist) != len(choicelist):
        raise ValueError("np.select: list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("np.select: select with an empty condition list is not possible")
    result = default
    for k in reversed(static_range(len(condlist))):
        if np.asarray(condlist[k]).dtype != np.bool_:
            raise TypeError(f"np.select: invalid entry {k} in condlist: should be boolean ndarray")
        result = np.where(condlist[k], choicelist[k], result)
    return result


@composite(np.piecewise)
def piecewise(x, condlist, funclist, *args):
    """np.piecewise of a list of boolean arrays: each function sees only the items of its
    condition (as in NumPy, so a branch's NaN or infinite slope elsewhere never leaks); one
    function more than conditions is the 'otherwise' case.  Extra positional arguments go
    to the functions; keyword ones are refused by name (pass them by a closure).  One
    boolean array (or bool) for ``condlist`` is one condition, as NumPy reads it."""
    if np.ndim(condlist) == 0 or np.ndim(x) > 0 and np.ndim(condlist[0]) == 0:
        condlist = [condlist]
    if len(funclist) != len(condlist) and len(funclist) != len(condlist) + 1:
        raise ValueError(f"np.piecewise: with {len(condlist)} condition(s), either {len(condlist)} or "
                         f"{len(condlist) + 1} functions are expected")
    y = np.zeros_like(x)
    hit = False                                 # where a condition held so far
    for k in static_range(len(funclist)):
        cond = condlist[k] if k < len(condlist) else np.logical_not(hit)
        hit = hit | cond
        if np.ndim(x) == 0:                     # a number: the chosen function only is called
            if cond:
                y = funclist[k](x, *args) if callable(funclist[k]) else funclist[k] + y
        elif callable(funclist[k]):
            y[cond] = funclist[k](x[cond], *args)
        else:
            y[cond] = funclist[k]
    return y

