"""The checkpoint the MPI tests shard: uneven row counts, several dtypes, replicated scalars."""
import ml_dtypes
import numpy as np

from sstad import optim


def reference():
    """``(params, opt_state, meta)``, the same in every process."""
    rng = np.random.default_rng(5)
    params = {"embed": rng.standard_normal((7, 3)), "layers": [
        {"W": rng.standard_normal((11, 4)).astype(np.float32), "b": np.arange(5, dtype=np.int32)},
        {"W": rng.standard_normal((2, 3)).astype(ml_dtypes.bfloat16), "b": np.array([True, False, True])}],
        "scale": 0.5}
    state = optim.AdamState(4, params, {"embed": np.ones((7, 3)), "layers": params["layers"], "scale": 1.5})
    return params, state, {"step": 4, "epoch": 1, "rng": np.random.default_rng(9)}
