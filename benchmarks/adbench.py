"""Loaders for ADBench instance files (GMM, LSTM) and their reference values.

The data lives outside the repository, in `shared/data/adbench` beside it (read-only);
set ADBENCH_DIR to use another copy. The formats are described in that folder's README.
"""
import os
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent


def data_dir():
    """The ADBench data folder, or None where it is not there."""
    candidates = [os.environ.get("ADBENCH_DIR")]
    candidates += [str(p / "shared" / "data" / "adbench")
                   for p in (_HERE.parent.parent, _HERE.parent)]
    for c in candidates:
        if c and Path(c, "README.md").is_file():
            return Path(c)
    return None


def path(relative):
    root = data_dir()
    if root is None:
        raise FileNotFoundError("ADBench data not found: set ADBENCH_DIR or put it in "
                                "../shared/data/adbench")
    return root / relative


def load_gmm(relative):
    """`(alphas (K,), means (K,d), icf (K, d(d+1)/2), x (n,d), gamma, m)` from a GMM file."""
    tokens = path(relative).read_text().split()
    d, k, n = (int(t) for t in tokens[:3])
    values = np.array(tokens[3:], dtype=np.float64)
    tri = d * (d + 1) // 2
    pos = 0

    def take(count, shape):
        nonlocal pos
        out = values[pos:pos + count].reshape(shape)
        pos += count
        return out.copy()

    alphas = take(k, (k,))
    means = take(k * d, (k, d))
    icf = take(k * tri, (k, tri))
    x = take(n * d, (n, d))
    gamma, m = values[pos], values[pos + 1]
    assert pos + 2 == values.size, f"{relative}: {values.size - pos} values left over"
    return alphas, means, icf, x, float(gamma), float(m)


def load_lstm(relative):
    """`(main_params (2l, 4b), extra_params (3, b), state (2l, b), sequence (c, b))`."""
    text = path(relative).read_text()
    rows = [line.split() for line in text.splitlines() if line.strip()]
    layers, c, b = (int(t) for t in rows[0])
    rows = [np.array(r, dtype=np.float64) for r in rows[1:]]
    main = np.stack(rows[:2 * layers])
    extra = np.stack(rows[2 * layers:2 * layers + 3])
    state = np.stack(rows[2 * layers + 3:4 * layers + 3])
    sequence = np.stack(rows[4 * layers + 3:])
    assert main.shape == (2 * layers, 4 * b) and extra.shape == (3, b)
    assert state.shape == (2 * layers, b) and sequence.shape == (c, b)
    return main, extra, state, sequence


def load_vector(relative):
    return np.array(path(relative).read_text().split(), dtype=np.float64)


# Reference values quoted in the data folder's README (gmm/test.txt).
GMM_TEST_OBJECTIVE = 8.07380408004975791
GMM_TEST_GRADIENT = np.array([
    0.108662855508652456, -0.741270039523898472, 0.632607184015246071, 1.11692576532787013,
    0.163333013551455269, -0.0219989824071193142, 0.227778292254236098, 1.20963025612832187,
    -0.0606375920733956339, 2.58529994051162237, 0.112632694524213789, 0.385744309849611777,
    0.0735180573182305508, 5.41836362715595232, -0.321494409677446469, 1.71892309775004937,
    0.860091090790866875, -0.994640930466322848,
])
LSTM_L2_C1024_LOSS = 0.66666518  # 8 digits
