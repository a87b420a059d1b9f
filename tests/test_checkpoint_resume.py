"""Resume is exact: training 2N steps gives bit for bit the parameters, optimizer state and
RNG state of training N steps, saving, loading in a new process and training N more.

Run as a script (``python tests/test_checkpoint_resume.py CHECKPOINT OUT``), this file is
the new process: it resumes from CHECKPOINT, trains N steps and saves to OUT.
"""
import os
import subprocess
import sys

import numpy as np

import sstad
from sstad import optim
from sstad.checkpoint import Checkpoint, load, rng_from_state, save

N = 6


def loss(params, x, y):
    h = np.tanh(x @ params["hidden"]["W"] + params["hidden"]["b"])
    out = h @ params["out"]["W"] + params["out"]["b"]
    return np.mean((out - y) ** 2)


def data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 4))
    return x, np.sin(x.sum(axis=1, keepdims=True))


def initial():
    rng = np.random.default_rng(0)
    params = {"hidden": {"W": 0.5 * rng.standard_normal((4, 8)), "b": np.zeros(8)},
              "out": {"W": 0.5 * rng.standard_normal((8, 1)), "b": np.zeros(1)}}
    opt = optim.adam(lr=1e-2, backend="python")
    return params, opt.init(params), opt


def train(params, state, opt, rng, steps):
    """Minibatches and input noise drawn from ``rng``: resuming needs its state too."""
    value_and_grad = sstad.jit(sstad.value_and_grad(loss), backend="python")
    x, y = data()
    for _ in range(steps):
        batch = rng.integers(0, len(x), 16)
        noisy = x[batch] + 0.01 * rng.standard_normal((16, x.shape[1]))
        _, grads = value_and_grad(params, noisy, y[batch])
        params, state = opt.update(grads, state, params)
    return params, state


def resume(checkpoint, out):
    params, state, opt = initial()
    ckpt = load(checkpoint, like=Checkpoint(params, state))
    rng = rng_from_state(ckpt.meta["rng"])
    params, state = train(ckpt.params, ckpt.opt_state, opt, rng, N)
    save(out, params, state, meta={"step": ckpt.step + N, "rng": rng})


def same_bits(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same_bits(a[k], b[k])
    elif isinstance(a, tuple):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same_bits(x, y)
    else:
        assert type(a) is type(b)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes() and np.shape(a) == np.shape(b)


def test_training_2n_steps_equals_n_saved_loaded_in_a_new_process_and_n_more(tmp_path):
    params, state, opt = initial()
    rng = np.random.default_rng(123)
    straight_params, straight_state = train(params, state, opt, rng, 2 * N)

    params, state, opt = initial()
    resumed_rng = np.random.default_rng(123)
    params, state = train(params, state, opt, resumed_rng, N)
    save(tmp_path / "half.safetensors", params, state, meta={"step": N, "rng": resumed_rng})
    subprocess.run([sys.executable, os.path.abspath(__file__), str(tmp_path / "half.safetensors"),
                    str(tmp_path / "end.safetensors")], check=True, timeout=300)

    end = load(tmp_path / "end.safetensors", like=Checkpoint(*initial()[:2]))
    assert end.step == 2 * N and end.opt_state.count == 2 * N
    same_bits(end.params, straight_params)
    same_bits(end.opt_state, straight_state)
    assert end.meta["rng"] == rng.bit_generator.state
    assert not np.array_equal(straight_params["out"]["W"], initial()[0]["out"]["W"])    # it trained


if __name__ == "__main__":
    resume(*sys.argv[1:])
