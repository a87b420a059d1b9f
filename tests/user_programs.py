"""Programs written the way people write NumPy: from papers, benchmarks and tutorials.

Each program is a plain function registered with ``@program(make_args)``; ``make_args(rng)``
draws its arguments (away from kinks).  tests/test_user_programs.py compiles each one with
sstad on both backends and checks the value against plain Python and the derivatives,
reverse and forward, against central finite differences (numpy_surface.run_checks).
Known defects are strict xfails in ``XFAIL`` below.
"""
import dataclasses
import functools
import math
import operator
from typing import NamedTuple

import numpy as np
import scipy.special

PROGRAMS = {}


class Program:
    def __init__(self, fn, make_args, note=""):
        self.fn, self.make_args, self.note = fn, make_args, note
        self.name = fn.__name__

    def args(self):
        return self.make_args(np.random.default_rng(sum(map(ord, self.name))))


def program(make_args, note=""):
    def register(fn):
        PROGRAMS[fn.__name__] = Program(fn, make_args, note)
        return fn
    return register


def normal(r, *shape, scale=1.0, dtype=np.float64):
    return (r.standard_normal(shape) * scale).astype(dtype)


def onehot(labels, k):
    out = np.zeros((len(labels), k))
    out[np.arange(len(labels)), labels] = 1.0
    return out


# --- neural networks ----------------------------------------------------------------------

def _mlp_args(r, dtype=np.float64):
    return (normal(r, 4, 8, scale=0.5, dtype=dtype), normal(r, 8, scale=0.1, dtype=dtype),
            normal(r, 8, 3, scale=0.5, dtype=dtype), normal(r, 3, scale=0.1, dtype=dtype),
            normal(r, 6, 4, dtype=dtype), onehot(r.integers(0, 3, 6), 3).astype(dtype))


@program(_mlp_args)
def mlp_relu_softmax_ce(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    logits = h @ W2 + b2
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(y * log_probs, axis=1))


@program(_mlp_args)
def mlp_tanh_softmax_ce(W1, b1, W2, b2, x, y):
    h = np.tanh(np.dot(x, W1) + b1)
    z = np.dot(h, W2) + b2
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    return -np.sum(y * np.log(p)) / x.shape[0]


@program(lambda r: _mlp_args(r, np.float32))
def mlp_tanh_float32(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return np.mean(np.sum(y * (lse - logits), axis=1))


@program(lambda r: _mlp_args(r, np.float32))
def mlp_relu_float32(W1, b1, W2, b2, x, y):
    h = np.maximum(x @ W1 + b1, 0.0)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


@program(lambda r: ({"W1": normal(r, 4, 8, scale=0.5), "b1": np.zeros(8), "W2": normal(r, 8, 1, scale=0.5)},
                    normal(r, 5, 4), normal(r, 5, 1)))
def mlp_params_dict(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    pred = h @ params["W2"]
    return 0.5 * np.mean((pred - y) ** 2)


@program(lambda r: ([(normal(r, 4, 6, scale=0.5), normal(r, 6, scale=0.1)),
                     (normal(r, 6, 6, scale=0.5), normal(r, 6, scale=0.1)),
                     (normal(r, 6, 2, scale=0.5), normal(r, 2, scale=0.1))], normal(r, 5, 4)))
def mlp_layer_list(layers, x):
    for W, b in layers[:-1]:
        x = np.tanh(x @ W + b)
    W, b = layers[-1]
    out = x @ W + b
    return np.sum(out ** 2)


@program(lambda r: (normal(r, 5), 0.3, normal(r, 20, 5), (r.uniform(size=20) > 0.5).astype(np.float64)))
def logistic_regression(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


@program(lambda r: (normal(r, 5), normal(r, 20, 5), np.where(r.uniform(size=20) > 0.5, 1.0, -1.0)))
def logistic_regression_log1p(w, X, y):
    margins = y * (X @ w)
    return np.sum(np.log1p(np.exp(-margins))) + 0.01 * np.dot(w, w)


@program(lambda r: (normal(r, 6, 4), r.integers(0, 4, 6)))
def cross_entropy_arange_labels(logits, labels):
    n = logits.shape[0]
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -logp[np.arange(n), labels].mean()


@program(lambda r: (normal(r, 6, 4, dtype=np.float32), r.integers(0, 4, 6)))
def cross_entropy_float32(logits, labels):
    logp = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
    return -np.mean(logp[np.arange(len(labels)), labels])


@program(lambda r: (normal(r, 4, 6), 1.0 + normal(r, 6, scale=0.1), normal(r, 6, scale=0.1)))
def layer_norm(x, gamma, beta):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    y = gamma * xhat + beta
    return np.sum(np.tanh(y))


@program(lambda r: (normal(r, 4, 6, dtype=np.float32), (1.0 + normal(r, 6, scale=0.1)).astype(np.float32),
                    normal(r, 6, scale=0.1, dtype=np.float32)))
def layer_norm_float32(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    sd = x.std(axis=-1, keepdims=True)
    return np.sum(np.sin(gamma * (x - mu) / (sd + 1e-5) + beta))


@program(lambda r: (normal(r, 8, 3), np.ones(3), np.zeros(3)))
def batch_norm(x, gamma, beta):
    mean = x.mean(axis=0)
    var = ((x - mean) ** 2).mean(axis=0)
    out = gamma * (x - mean) / np.sqrt(var + 1e-5) + beta
    return np.sum(out[:, 0] * out[:, 1]) + np.sum(out ** 3)


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@program(lambda r: (normal(r, 2, 5, 4), normal(r, 2, 5, 4), normal(r, 2, 5, 4)))
def attention(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d)
    weights = softmax(scores, axis=-1)
    out = weights @ V
    return np.sum(out ** 2)


@program(lambda r: (normal(r, 5, 8), normal(r, 8, 8, scale=0.3), normal(r, 8, 8, scale=0.3), normal(r, 8, 8, scale=0.3)))
def multi_head_attention(x, Wq, Wk, Wv):
    n, dm = x.shape
    h = 2
    dh = dm // h
    q = (x @ Wq).reshape(n, h, dh).transpose(1, 0, 2)
    k = (x @ Wk).reshape(n, h, dh).transpose(1, 0, 2)
    v = (x @ Wv).reshape(n, h, dh).transpose(1, 0, 2)
    att = softmax(q @ k.transpose(0, 2, 1) / math.sqrt(dh))
    out = (att @ v).transpose(1, 0, 2).reshape(n, dm)
    return np.sum(np.sin(out))


@program(lambda r: (normal(r, 4, 4, scale=0.4), normal(r, 3, 4, scale=0.4), normal(r, 5, 3)))
def rnn_stack(Wh, Wx, xs):
    h = np.zeros(4)
    hs = []
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + xs[t] @ Wx)
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H ** 2)


@program(lambda r: (normal(r, 4, 4, scale=0.4), normal(r, 3, 4, scale=0.4), normal(r, 5, 3)))
def rnn_array(Wh, Wx, xs):
    h = np.zeros(4)
    hs = []
    for x in xs:
        h = np.tanh(Wh @ h + x @ Wx)
        hs.append(h)
    return np.sum(np.array(hs) * np.arange(20.0).reshape(5, 4))


@program(lambda r: (normal(r, 4, 4, scale=0.4), normal(r, 3, 4, scale=0.4), normal(r, 5, 3)))
def rnn_index_list(Wh, Wx, xs):
    h = np.zeros(4)
    hs = []
    for t in range(len(xs)):
        h = np.tanh(Wh @ h + xs[t] @ Wx)
        hs.append(h)
    total = 0.0
    for t in range(len(hs)):
        total = total + np.sum(hs[t] * (t + 1))
    return total


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@program(lambda r: (normal(r, 2, 4, 12, scale=0.4), normal(r, 2, 12, scale=0.1), normal(r, 5, 4)))
def lstm_cell_list(W, b, xs):
    """The ADBench LSTM's style: per-layer hidden and cell states in Python lists, written in place."""
    layers = W.shape[0]
    hidden = [np.zeros(4) for _ in range(layers)]
    cell = [np.zeros(4) for _ in range(layers)]
    total = 0.0
    for t in range(xs.shape[0]):
        inp = xs[t]
        for i in range(layers):
            gates = (inp + hidden[i]) @ W[i] + b[i]
            f = sigmoid(gates[0:4])
            ig = sigmoid(gates[4:8])
            g = np.tanh(gates[8:12])
            cell[i] = cell[i] * f + ig * g
            hidden[i] = np.tanh(cell[i])
            inp = hidden[i]
        total = total + np.sum(inp)
    return total


@program(lambda r: (normal(r, 7, 16, scale=0.3), normal(r, 16, scale=0.1), normal(r, 6, 3)))
def lstm_split_gates(W, b, xs):
    h = np.zeros(4)
    c = np.zeros(4)
    for x in xs:
        z = np.concatenate([x, h]) @ W + b
        i, f, o, g = np.split(z, 4)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
    return np.sum(h) + np.sum(c ** 2)


@program(lambda r: (normal(r, 3, 3, scale=0.4), normal(r, 3, 3, scale=0.4), normal(r, 3, 3, scale=0.4),
                    normal(r, 4, 3)))
def gru(Wz, Wr, Wh, xs):
    h = np.zeros(3)
    for x in xs:
        z = sigmoid(Wz @ (x + h))
        rr = sigmoid(Wr @ (x + h))
        hh = np.tanh(Wh @ (x + rr * h))
        h = (1 - z) * h + z * hh
    return np.sum(h)


# --- statistics -----------------------------------------------------------------------------

def logsumexp(x, axis=None):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))


@program(lambda r: (normal(r, 3, scale=0.5), normal(r, 3, 2), normal(r, 3, 2, scale=0.3), normal(r, 3, 1, scale=0.3),
                    normal(r, 5, 2)))
def gmm_triu_indices(alphas, means, icf_diag, icf_off, x):
    """GMM log-likelihood (ADBench style): Q from log-diagonal and off-diagonal entries."""
    k, d = means.shape
    rows, cols = np.triu_indices(d, 1)
    Q = np.zeros((k, d, d))
    Q[:, np.arange(d), np.arange(d)] = np.exp(icf_diag)
    Q[:, rows, cols] = icf_off
    sum_qs = np.sum(icf_diag, axis=1)
    xc = x[:, None, :] - means[None, :, :]
    Qxc = np.einsum("kij,nkj->nki", Q, xc)
    main = alphas + sum_qs - 0.5 * np.sum(Qxc ** 2, axis=2)
    return np.sum(logsumexp(main, axis=1)) - x.shape[0] * logsumexp(alphas)


@program(lambda r: (normal(r, 3, scale=0.5), normal(r, 3, 2), normal(r, 3, 2, scale=0.3), normal(r, 6, 2)))
def gmm_diagonal(log_w, means, log_sd, x):
    diff = (x[:, None, :] - means[None]) / np.exp(log_sd)[None]
    logp = -0.5 * np.sum(diff ** 2, axis=-1) - np.sum(log_sd, axis=-1) - x.shape[1] * 0.5 * np.log(2 * np.pi)
    log_w = log_w - logsumexp(log_w)
    return np.sum(logsumexp(logp + log_w, axis=1))


@program(lambda r: (normal(r, 3, 2), normal(r, 8, 2), 0.7))
def kmeans_soft_assign(centers, x, temperature):
    d2 = np.sum((x[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    resp = softmax(-d2 / temperature, axis=1)
    return np.sum(resp * d2)


def _gp_args(r):
    x = np.linspace(0.0, 3.0, 6)
    return (np.log(0.8), np.log(1.2), np.log(0.1), x, np.sin(x) + 0.1 * normal(r, 6))


@program(_gp_args)
def gp_marginal_likelihood(log_ell, log_sf, log_sn, x, y):
    ell, sf2, sn2 = np.exp(log_ell), np.exp(2 * log_sf), np.exp(2 * log_sn)
    d = x[:, None] - x[None, :]
    K = sf2 * np.exp(-0.5 * d ** 2 / ell ** 2) + sn2 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(x) * np.log(2 * np.pi)


@program(_gp_args)
def gp_slogdet(log_ell, log_sf, log_sn, x, y):
    K = np.exp(2 * log_sf) * np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / np.exp(2 * log_ell))
    K = K + np.exp(2 * log_sn) * np.identity(x.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.inv(K) @ y + 0.5 * logdet


@program(lambda r: (normal(r, 10, 3), normal(r, 10), 0.5))
def ridge_regression(X, y, lam):
    w = np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)
    resid = y - X @ w
    return resid @ resid + lam * w @ w


@program(lambda r: (normal(r, 4), np.linspace(-1, 1, 7), normal(r, 7)))
def polyfit_polyval(coeffs, x, y):
    pred = np.polyval(coeffs, x)
    return np.mean((pred - y) ** 2)


@program(lambda r: (normal(r, 4), np.linspace(-1, 1, 7), normal(r, 7)))
def polyfit_horner(coeffs, x, y):
    pred = np.zeros_like(x)
    for c in coeffs:
        pred = pred * x + c
    return np.mean((pred - y) ** 2)


@program(lambda r: (normal(r, 8), normal(r, 3)))
def convolve_np(signal, kernel):
    out = np.convolve(signal, kernel, mode="valid")
    return np.sum(out ** 2)


@program(lambda r: (normal(r, 8), normal(r, 3)))
def convolve_loops(signal, kernel):
    n, k = len(signal), len(kernel)
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        out[i] = np.sum(signal[i:i + k] * kernel[::-1])
    return np.sum(out ** 2)


def _kalman_args(r):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    return (normal(r, 2), np.eye(2) * 0.5 + 0.1, F, np.array([[1.0, 0.0]]), 0.05, 0.2, 1.3)


@program(_kalman_args)
def kalman_step(x, P, F, H, q, r_var, z):
    x_pred = F @ x
    P_pred = F @ P @ F.T + q * np.eye(2)
    S = H @ P_pred @ H.T + r_var
    K = P_pred @ H.T @ np.linalg.inv(S)
    x_new = x_pred + K @ (np.array([z]) - H @ x_pred)
    P_new = (np.eye(2) - K @ H) @ P_pred
    return np.sum(x_new ** 2) + np.trace(P_new)


@program(lambda r: (normal(r, 3), np.array([[1.0, 0.2, 0.1], [0.2, 2.0, 0.3], [0.1, 0.3, 1.5]]), normal(r, 3)))
def gaussian_logpdf(x, Sigma, mu):
    d = x - mu
    sign, logdet = np.linalg.slogdet(Sigma)
    return -0.5 * (d @ np.linalg.solve(Sigma, d) + logdet + len(x) * np.log(2 * np.pi))


@program(lambda r: (normal(r, 4), normal(r, 4, scale=0.3)))
def vae_kl(mu, log_var):
    return -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))


@program(lambda r: (normal(r, 5), normal(r, 12, 5), r.poisson(2.0, 12).astype(np.float64)))
def poisson_regression(w, X, counts):
    eta = X @ w * 0.3
    return np.sum(np.exp(eta) - counts * eta)


@program(lambda r: (normal(r, 4), normal(r, 4), normal(r, 4)))
def triplet_loss(anchor, pos, neg):
    dp = np.linalg.norm(anchor - pos)
    dn = np.linalg.norm(anchor - neg)
    return np.maximum(dp - dn + 5.0, 0.0)


@program(lambda r: (normal(r, 6), normal(r, 6)))
def cosine_similarity(a, b):
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


@program(lambda r: (normal(r, 10), normal(r, 10)))
def huber_loss(pred, target):
    err = pred - target + 0.01
    delta = 1.0
    quad = 0.5 * err ** 2
    lin = delta * (np.abs(err) - 0.5 * delta)
    return np.mean(np.where(np.abs(err) <= delta, quad, lin))


@program(lambda r: (normal(r, 5), normal(r, 12, 5), np.where(r.uniform(size=12) > 0.5, 1.0, -1.0)))
def hinge_loss(w, X, y):
    return np.mean(np.maximum(0.0, 1.0 - y * (X @ w))) + 0.1 * np.sum(w ** 2)


@program(lambda r: (normal(r, 4), normal(r, 4, 4) + 4 * np.eye(4)))
def mahalanobis(x, A):
    S = A @ A.T
    return np.sqrt(x @ np.linalg.inv(S) @ x)


@program(lambda r: (normal(r, 3), normal(r, 3, 3) * 0.3 + np.eye(3)))
def portfolio_variance(w, L):
    Sigma = L @ L.T
    w = w / np.sum(np.abs(w))
    return w @ Sigma @ w


@program(lambda r: (normal(r, 3), normal(r, 3, 4), normal(r, 4)))
def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y) + np.einsum("ij,ij", A, A)


@program(lambda r: (normal(r, 2, 3, 4), normal(r, 3, 4, 2)))
def tensordot_contract(a, b):
    return np.sum(np.tensordot(a, b, axes=2) ** 2) + np.sum(np.tensordot(a, b, axes=([1, 2], [0, 1])))


@program(lambda r: (r.permutation(9) * 0.3 + r.uniform(0, 0.1, 9),))
def trimmed_mean(x):
    s = np.sort(x)
    return np.mean(s[2:-2]) + s[-1]


@program(lambda r: (normal(r, 5, 2),))
def polynomial_features(x):
    feats = np.concatenate([x, x ** 2, x[:, :1] * x[:, 1:]], axis=1)
    return np.sum(np.tanh(feats))


@program(lambda r: (normal(r, 3), normal(r, 2)))
def kron_outer(a, b):
    return np.sum(np.kron(a, b) ** 2) + np.sum(np.outer(a, b) * 0.5)


@program(lambda r: (normal(r, 6) * 2,))
def clip_gradient_style(x):
    g = np.clip(x, -1.0, 1.0)
    return np.sum(g * x)


@program(lambda r: (normal(r, 8) * 0.1,))
def cumulative_returns(r):
    wealth = np.cumprod(1.0 + r)
    return wealth[-1] - np.max(np.cumsum(r))


@program(lambda r: (normal(r, 2),))
def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@program(lambda r: (normal(r, 6),))
def rosenbrock_nd(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@program(lambda r: (normal(r, 3, 4),))
def logsumexp_trick(a):
    m = a.max(axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.exp(a - m).sum(axis=1)))


@program(lambda r: (normal(r, 6), normal(r, 6)))
def where_piecewise(x, y):
    return np.sum(np.where(x > 0.0, np.sqrt(x * x + 1e-3) * y, np.exp(x) * y))


@program(lambda r: (normal(r, 5),))
def softplus_mean(x):
    return np.mean(np.logaddexp(0.0, x)) + np.mean(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0))


# --- ODEs, physics, iterations ------------------------------------------------------------------

@program(lambda r: (0.8, 1.3))
def ode_euler_while(k, y0):
    t, y, dt = 0.0, y0, 0.01
    while t < 1.0:
        y = y + dt * (-k * y + np.sin(t))
        t = t + dt
    return y


@program(lambda r: (np.array([1.0, 0.0]), 0.7))
def ode_rk4(y0, omega):
    def f(y):
        return np.array([y[1], -omega ** 2 * y[0]])
    y, h = y0, 0.1
    for _ in range(20):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] + y[1]


@program(lambda r: (0.9, 1.1, 0.5))
def pendulum(theta0, length, damping):
    g, dt = 9.81, 0.01
    theta, omega, t = theta0, 0.0, 0.0
    while t < 1.0:
        alpha = -g / length * np.sin(theta) - damping * omega
        omega = omega + dt * alpha
        theta = theta + dt * omega
        t += dt
    return theta


@program(lambda r: (np.linspace(0, 4, 5) + 0.1 * normal(r, 5), np.ones(5), 2.0))
def spring_chain(x0, masses, k):
    x = x0.copy()
    v = np.zeros_like(x)
    dt = 0.05
    for _ in range(30):
        stretch = x[1:] - x[:-1] - 1.0
        f = np.zeros_like(x)
        f[:-1] += k * stretch
        f[1:] -= k * stretch
        v = v + dt * f / masses
        x = x + dt * v
    return np.sum(x ** 2)


@program(lambda r: (normal(r, 4, 2), np.array([1.0, 2.0, 1.5, 0.5])))
def nbody_energy(pos, mass):
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(diff ** 2, axis=-1) + np.eye(len(mass))
    inv_r = 1.0 / np.sqrt(r2)
    pot = -0.5 * np.sum(np.triu(mass[:, None] * mass[None, :] * inv_r, 1))
    return pot


@program(lambda r: (2.0,))
def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


@program(lambda r: (2.0, 0.5))
def newton_cubic_for(a, b):
    x = 1.0
    for _ in range(30):
        fx = x ** 3 + a * x - b
        x = x - fx / (3 * x ** 2 + a)
    return x


@program(lambda r: (normal(r, 10) * 0.5 + np.sin(np.linspace(0, 3, 10)), 0.2))
def heat_equation(u0, alpha):
    u = u0.copy()
    for _ in range(10):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


@program(lambda r: (1.0, 0.5, 1.2, 0.4))
def lotka_volterra(prey0, pred0, a, b):
    x, y = prey0, pred0
    dt = 0.01
    for _ in range(100):
        dx = a * x - b * x * y
        dy = -y + 0.3 * x * y
        x, y = x + dt * dx, y + dt * dy
    return x + 2 * y


@program(lambda r: (3.2, 0.3))
def logistic_map(rate, x0):
    x = x0
    for _ in range(8):
        x = rate * x * (1 - x)
    return x


@program(lambda r: (normal(r, 2), normal(r, 2, 2) * 0.2 + np.eye(2)))
def gradient_descent_unrolled(x0, A):
    Q = A @ A.T
    x = x0
    for _ in range(10):
        g = Q @ x
        x = x - 0.1 * g
    return 0.5 * x @ Q @ x


@program(lambda r: (normal(r, 3),))
def adam_unrolled(x0):
    x, m, v = x0, np.zeros(3), np.zeros(3)
    b1, b2, lr = 0.9, 0.999, 0.05
    for t in range(1, 6):
        g = 2 * x + np.cos(x)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        x = x - lr * mhat / (np.sqrt(vhat) + 1e-8)
    return np.sum(x ** 2)


@program(lambda r: (normal(r, 20), 0.3))
def monte_carlo_fixed_noise(noise, sigma):
    samples = 1.0 + sigma * noise
    return np.mean(np.exp(samples))


# --- control flow, helpers, Python idioms ---------------------------------------------------------

@program(lambda r: (normal(r, 5),))
def early_return(x):
    s = np.sum(x ** 2)
    if s > 100.0:
        return s
    for i in range(len(x)):
        if x[i] > 10.0:
            return x[i]
    return np.sum(np.sin(x)) * s


@program(lambda r: (normal(r, 6) * 0.2,))
def loop_break(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] ** 2
        if total > 1e6:
            break
    k = 0
    while True:
        total = total * 1.1
        k += 1
        if k >= 3:
            break
    return total


def _scale(v, s):
    return v * s


@program(lambda r: (normal(r, 4), 1.5))
def helpers_and_closures(x, c):
    def inner(y):
        return np.sin(y) * c
    def twice(f, y):
        return f(f(y))
    return np.sum(twice(inner, _scale(x, 2.0)))


def make_model(n_hidden):
    def forward(W, x):
        h = np.tanh(x @ W[:, :n_hidden])
        return np.sum(h ** 2)
    return forward


_model = make_model(3)


@program(lambda r: (normal(r, 4, 5), normal(r, 2, 4)))
def closure_factory(W, x):
    return _model(W, x) + 1.0


@program(lambda r: (normal(r, 5), normal(r, 3)))
def indexed_augmented_assign(x, v):
    y = x.copy()
    for i in range(3):
        y[i] += v[i] * y[i + 1]
    y[-1] *= 2.0
    return np.sum(y ** 2)


@dataclasses.dataclass(frozen=True)
class Config:
    scale: np.ndarray
    shift: float


@program(lambda r: (normal(r, 4), Config(scale=np.array([1.0, 2.0, 0.5, 1.5]), shift=0.3)))
def dataclass_config_arg(x, cfg):
    return np.sum(np.tanh(x * cfg.scale + cfg.shift))


class Params(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def apply_params(p, x):
    return np.tanh(x @ p.W + p.b)


@program(lambda r: (normal(r, 3, 2), normal(r, 2), normal(r, 4, 3)))
def namedtuple_built_inside(W, b, x):
    p = Params(W=W, b=b)
    return np.sum(apply_params(p, x) ** 2)


@program(lambda r: (normal(r, 3, 2), normal(r, 2), normal(r, 4, 3)))
def namedtuple_positional(W, b, x):
    p = Params(W, b)
    W2, b2 = p
    return np.sum(apply_params(p, x)) + np.sum(W2) * b2[0]


@program(lambda r: ([normal(r, 3) for _ in range(4)],))
def functools_reduce(xs):
    total = functools.reduce(operator.add, xs)
    prod = functools.reduce(lambda a, b: a * b, xs)
    return np.sum(total ** 2) + np.sum(prod)


@program(lambda r: (normal(r, 3), normal(r, 3)))
def operator_functions(a, b):
    return np.sum(operator.mul(operator.add(a, b), operator.sub(a, b))) + operator.truediv(np.sum(a), 2.0)


def add_all(*arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = out + a
    return out


@program(lambda r: (normal(r, 3), normal(r, 3), normal(r, 3)))
def star_args_helper(a, b, c):
    return np.sum(np.sin(add_all(a, b, c)))


@program(lambda r: ((normal(r, 3), normal(r, 3)), normal(r, 3)))
def list_tuple_dict(pair, x):
    items = list(pair)
    items.append(x)
    t = tuple(items)
    d = dict(a=t[0], b=t[1])
    d["c"] = t[2]
    return np.sum(d["a"] * d["b"] + d["c"])


@program(lambda r: (normal(r, 3, 2),))
def sum_of_list_of_arrays(x):
    parts = [x[i] * (i + 1) for i in range(3)]
    return np.sum(np.sum(parts, axis=0)) + np.sum(sum(parts))


def apply_fn(f, x):
    return f(x) + f(2.0 * x)


@program(lambda r: (normal(r, 4),))
def lambda_to_helper(x):
    return np.sum(apply_fn(lambda v: np.sin(v) * v, x))


@program(lambda r: (normal(r, 4),))
def two_lambdas_one_line(x):
    f, g = lambda v: np.sin(v), lambda v: v ** 3
    return np.sum(f(x) + g(x))


@program(lambda r: (normal(r, 6), 1))
def view_chosen_at_join(y, flag):
    y = y.copy()
    z = y[::2] if flag > 0 else y[1::2]
    z *= 2.0
    return np.sum(y ** 2)


@program(lambda r: (normal(r, 3, 3), normal(r, 3)))
def view_transpose_at_join(y, v):
    y = y.copy()
    t = y.T if y.ndim == 2 else y
    for i in range(3):
        t[i] = t[i] * v[i]
    return np.sum(np.sin(y))


@program(lambda r: (normal(r, 6),))
def view_basic_slice_write(x):
    y = x.copy()
    z = y[1:4]
    z[0] = 5.0 * z[1]
    return np.sum(y * x)


def rec_pow(x, n):
    return 1.0 if n == 0 else x * rec_pow(x, n - 1)


@program(lambda r: (1.3,))
def recursive_helper(x):
    return rec_pow(x, 4) + np.sin(x)


@program(lambda r: (normal(r, 4, 3),))
def masked_assignment(x):
    y = x.copy()
    y[y < 0.0] = 0.0
    return np.sum(y * x)


@program(lambda r: ({"a": normal(r, 3), "b": normal(r, 3)}, normal(r, 3)))
def dict_items_loop(params, x):
    total = 0.0
    for name, p in params.items():
        total = total + np.sum(p * x)
    for k in params:
        total = total + np.sum(params[k] ** 2)
    return total


@program(lambda r: ([normal(r, 3) for _ in range(3)], [0.5, 1.0, 2.0]))
def enumerate_zip(ws, coefs):
    total = 0.0
    for i, (w, c) in enumerate(zip(ws, coefs)):
        total = total + c * np.sum(w ** 2) * (i + 1)
    return total


@program(lambda r: (normal(r, 5),))
def list_literal_runtime_index(x):
    k = int(np.argmax(x)) % 3
    options = [np.sin(x), np.cos(x), x ** 2]
    return np.sum(options[k])


@program(lambda r: (normal(r, 4),))
def scipy_special_active(x):
    return np.sum(scipy.special.expit(x)) + scipy.special.logsumexp(x)


@program(lambda r: (1.5,))
def scipy_multigammaln_constant(a):
    return a * scipy.special.multigammaln(3.0, 2)


@program(lambda r: (normal(r, 4),))
def math_module_scalars(x):
    s = 0.0
    for i in range(len(x)):
        s += math.exp(-x[i] ** 2) * math.cos(x[i])
    return s


@program(lambda r: (normal(r, 3, 3),))
def triu_tril_indices(A):
    iu = np.triu_indices(3)
    il = np.tril_indices(3, -1)
    return np.sum(A[iu] ** 2) + np.sum(np.sin(A[il]))


@program(lambda r: (normal(r, 4),))
def r_and_c_(x):
    y = np.r_[x, x[:2]]
    return np.sum(y ** 2)


@program(lambda r: (normal(r, 5),))
def diff_and_pad(x):
    d = np.diff(x)
    p = np.pad(d, 1)
    return np.sum(p ** 2)


@program(lambda r: (normal(r, 6),))
def var_std_ddof(x):
    return np.var(x, ddof=1) + np.std(x, ddof=1)


@program(lambda r: (normal(r, 4, 3),))
def eigh_spectrum(A):
    S = A.T @ A + np.eye(3)
    w, V = np.linalg.eigh(S)
    return np.sum(np.log(w))


@program(lambda r: (normal(r, 3), normal(r, 4)))
def stack_repeat_tile(a, b):
    m = np.vstack([a, a * 2]) @ np.tile(b[:3], (3, 1))
    return np.sum(np.repeat(m, 2, axis=1) ** 2) + np.sum(np.hstack([a, b]))


@program(lambda r: (normal(r, 3, 4),))
def transpose_method_axes(x):
    y = x.reshape(3, 2, 2).transpose((1, 0, 2))
    return np.sum(y[0] * y[1]) + np.sum(x.T @ x)


# --- known defects: strict xfails -----------------------------------------------------------------
# program name (optionally " @python" / " @numba") -> what is wrong today.
XFAIL = {
}


def _main(argv):
    """``python tests/user_programs.py [--backend numba] [--out f.json]``: run every program, print
    outcomes; ``--table py.json [nb.json]`` prints an XFAIL table."""
    import argparse
    import collections
    import json
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import numpy_surface as ns
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="python")
    parser.add_argument("--out", default="")
    parser.add_argument("--only", default="")
    parser.add_argument("--table", nargs="*")
    args = parser.parse_args(argv)
    if args.table:
        py = {r["id"]: r for r in json.load(open(args.table[0]))}
        nb = {r["id"]: r for r in json.load(open(args.table[1]))} if len(args.table) > 1 else {}
        print("XFAIL = {")
        for name in PROGRAMS:
            p, n = py.get(name), nb.get(name)
            pbad = p is not None and p["outcome"] in ("wrong", "crash")
            nbad = n is not None and n["outcome"] in ("wrong", "crash")
            if pbad and (nbad or n is None):
                print(f"    {name!r}: {ns.reason_of(p)!r},")
            elif pbad:
                print(f"    {name + ' @python'!r}: {ns.reason_of(p)!r},")
            elif nbad:
                print(f"    {name + ' @numba'!r}: {ns.reason_of(n)!r},")
        print("}")
        return
    file = os.path.abspath(__file__)
    rows, counts = [], collections.Counter()
    for name, prog in PROGRAMS.items():
        if args.only not in name:
            continue
        outcome, msgs = ns.run_checks(prog.fn, prog.args, args.backend, file)
        counts[outcome] += 1
        rows.append({"func": name, "id": name, "outcome": outcome, "msgs": msgs})
        first = "; ".join(f"{k}: {m.splitlines()[0][:160]}" for k, m in msgs.items())
        print(f"{outcome:8s} {name}  {first}", flush=True)
    print(dict(counts))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    import sys as _sys
    _main(_sys.argv[1:])
