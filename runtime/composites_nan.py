"""NaN-ignoring reductions (``nansum nanmean nanmax nanmin``) over ``np.where``: a NaN
entry gets a zero derivative, as it has no part in the result."""
import numpy as np

from sstad.runtime.composites import composite
from sstad.runtime.composites_stats import refuse_reduction_args


def _refuse(name, dtype=None, out=None, initial=None, where=None):
    refuse_reduction_args(name, dtype, out, None)
    if where is not None:
        raise NotImplementedError(f"np.{name}: where= is not supported; use np.where before reducing")
    if initial is not None:
        raise NotImplementedError(f"np.{name}: initial= is not supported; combine with it after reducing")


@composite(np.nansum)
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """np.nansum: the sum, NaNs counted as 0."""
    _refuse("nansum", dtype, out, initial, where)
    if a.dtype.kind != "f" and a.dtype.kind != "c":       # no NaN: NumPy's sum, integers stay integers
        return np.sum(a, axis=axis, keepdims=keepdims)
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis, keepdims=keepdims)


@composite(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """np.nanmean: the mean of the entries that are not NaN (NaN where there are none)."""
    _refuse("nanmean", dtype, out, None, where)
    present = np.logical_not(np.isnan(a))
    total = np.sum(np.where(present, a, 0.0), axis=axis, keepdims=keepdims)
    return total / np.sum(present, axis=axis, keepdims=keepdims)


@composite(np.nanmax)
def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """np.nanmax: the largest entry that is not NaN (NaN where all are)."""
    _refuse("nanmax", None, out, initial, where)
    nan = np.isnan(a)
    m = np.max(np.where(nan, -np.inf, a), axis=axis, keepdims=keepdims)
    return np.where(np.all(nan, axis=axis, keepdims=keepdims), np.nan, m)


@composite(np.nanmin)
def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """np.nanmin: the smallest entry that is not NaN (NaN where all are)."""
    _refuse("nanmin", None, out, initial, where)
    nan = np.isnan(a)
    m = np.min(np.where(nan, np.inf, a), axis=axis, keepdims=keepdims)
    return np.where(np.all(nan, axis=axis, keepdims=keepdims), np.nan, m)
