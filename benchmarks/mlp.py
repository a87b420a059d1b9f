"""A small multilayer perceptron's loss: tanh hidden layer, softmax cross-entropy.

`mlp_loss` is the user's NumPy code; `mlp_loss_grad` is the backward pass written by hand;
`mlp_loss_xp` is the JAX / PyTorch / autograd version (their own logsumexp).
"""
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
