"""A small multilayer perceptron's loss: tanh hidden layer, softmax cross-entropy.

`mlp_loss` is the user's NumPy code; `mlp_loss_grad` is the backward pass written by hand;
`mlp_loss_xp` is the JAX / PyTorch / autograd version (their own logsumexp).

`python benchmarks/mlp.py [ROUNDS]` times sstad-numba, NumPy and JAX jit on it side by side,
in interleaved rounds (a shared machine's load then weighs on every peer alike), and prints
each one's median and the ratios.
"""
if __name__ == "__main__":
    from run import THREAD_VARS  # importing run pins the thread pools before NumPy loads

import sys

import numpy as np


def mlp_loss(W1, b1, W2, b2, x, labels):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    mx = np.max(logits, axis=1, keepdims=True)
    logp = logits - mx - np.log(np.sum(np.exp(logits - mx), axis=1, keepdims=True))
    return -np.sum(logp * labels) / x.shape[0]


def mlp_loss_grad(W1, b1, W2, b2, x, labels):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    p = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    p /= np.sum(p, axis=1, keepdims=True)
    dlogits = (p * np.sum(labels, axis=1, keepdims=True) - labels) / x.shape[0]
    dh = (dlogits @ W2.T) * (1.0 - h * h)
    return x.T @ dh, np.sum(dh, axis=0), h.T @ dlogits, np.sum(dlogits, axis=0)


def mlp_loss_xp(ops, W1, b1, W2, b2, x, labels):
    xp = ops.xp
    logits = xp.tanh(x @ W1 + b1) @ W2 + b2
    logp = logits - ops.logsumexp(logits, 1, keepdims=True)
    return -xp.sum(logp * labels) / x.shape[0]


def cases():
    from peers import Case
    rng = np.random.default_rng(1)
    batch, n_in, hidden, n_out = 256, 64, 128, 10
    args = (rng.standard_normal((n_in, hidden)) / np.sqrt(n_in), np.zeros(hidden),
            rng.standard_normal((hidden, n_out)) / np.sqrt(hidden), np.zeros(n_out),
            rng.standard_normal((batch, n_in)),
            np.eye(n_out)[rng.integers(0, n_out, batch)])
    return [Case("mlp 256x64-128-10", mlp_loss, args, (0, 1, 2, 3), jax=mlp_loss_xp,
                 torch=mlp_loss_xp, autograd=mlp_loss_xp, numpy_grad=mlp_loss_grad)]


def side_by_side(rounds=7, budget_s=0.3):
    """Medians (ms) of ``rounds`` interleaved samples of each peer's objective and gradient."""
    import peers
    import sstad
    args = cases()[0].args
    calls = {"numpy f": lambda: mlp_loss(*args), "numpy grad": lambda: mlp_loss_grad(*args)}
    f, g = sstad.jit(mlp_loss), sstad.jit(sstad.grad(mlp_loss, argnums=(0, 1, 2, 3)))
    calls.update({"sstad-numba f": lambda: f(*args), "sstad-numba grad": lambda: g(*args)})
    try:
        jax, ops = peers.framework("jax")
        jf = jax.jit(lambda *a: mlp_loss_xp(ops, *a))
        jg = jax.jit(jax.grad(lambda *a: mlp_loss_xp(ops, *a), argnums=(0, 1, 2, 3)))
        calls.update({"jax-jit f": lambda: jf(*args).block_until_ready(),
                      "jax-jit grad": lambda: jax.block_until_ready(jg(*args))})
    except ImportError as exc:
        print(f"jax skipped: {exc}")
    want = mlp_loss_grad(*args)
    for name in ("sstad-numba grad", "jax-jit grad"):      # checked before timed
        if name in calls and not all(np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(calls[name](), want)):
            raise AssertionError(f"{name} differs from the hand-written gradient")
    samples = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            samples[name].append(peers.median_ms(call, budget_s)[0])
    return {name: float(np.median(ms)) for name, ms in samples.items()}


if __name__ == "__main__":
    print(f"one thread each ({', '.join(THREAD_VARS)}, XLA's); medians of interleaved rounds")
    ms = side_by_side(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    for name, t in ms.items():
        print(f"{name:<18}{t:8.3f} ms")
    print(f"sstad f / numpy f {ms['sstad-numba f'] / ms['numpy f']:.2f}; sstad grad / numpy grad "
          f"{ms['sstad-numba grad'] / ms['numpy grad']:.2f}" + (
              f"; sstad grad / jax grad {ms['sstad-numba grad'] / ms['jax-jit grad']:.2f}"
              if "jax-jit grad" in ms else ""))
