"""Programs as users in other fields write them, each checked against finite differences
(reverse and forward mode) with sstad.testing.check_grads: a 1-d finite-element bar
(assembled by slices and by ``np.ix_``), a Gaussian process through ``cho_factor``, an
HMM forward pass, Black-Scholes prices, Sinkhorn optimal transport, a two-link arm,
a neural ODE integrated by RK4 in a ``while``, a Cox partial likelihood, GARCH(1,1),
matrix factorisation with integer-array indexing, a graph convolution and a
zero-inflated Poisson likelihood.  Python backend in ``make test``; a few on Numba
(slow)."""
import numpy as np
import pytest
import scipy.linalg
import scipy.special
import scipy.stats

from sstad.testing import check_grads

R = np.random.default_rng(20261202)


# --- structural mechanics: a bar of 1-d linear elements, assembled with K[i:i+2, i:i+2] += ke

def fem_bar_compliance(log_stiffness, load):
    """Compliance f^T u of a bar fixed at its left end, element stiffness exp(log_stiffness)."""
    n = log_stiffness.shape[0]
    K = np.zeros((n + 1, n + 1))
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for e in range(n):
        K[e:e + 2, e:e + 2] += np.exp(log_stiffness[e]) * n * ke
    u = np.zeros(n + 1)
    u[1:] = np.linalg.solve(K[1:, 1:], load[1:])
    return load @ u


def fem_args():
    return R.normal(size=5) * 0.3, np.linspace(0.1, 1.0, 6)


def fem_bar_connectivity(log_stiffness, load, connectivity):
    """The same bar assembled the textbook way: K[np.ix_(dofs, dofs)] += ke per element."""
    n = log_stiffness.shape[0]
    K = np.zeros((n + 1, n + 1))
    for e in range(n):
        dofs = connectivity[e]
        K[np.ix_(dofs, dofs)] += np.exp(log_stiffness[e]) * n * np.array([[1.0, -1.0], [-1.0, 1.0]])
    free = np.arange(1, n + 1)
    u = np.linalg.solve(K[np.ix_(free, free)], load[free])
    return load[free] @ u


def fem_connectivity_args():
    return R.normal(size=5) * 0.3, np.linspace(0.1, 1.0, 6), np.stack([np.arange(5), np.arange(1, 6)], axis=1)


# --- speech/biology: an HMM's log-likelihood by the forward algorithm in log space

def hmm_log_likelihood(log_pi, log_A, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, obs.shape[0]):
        alpha = scipy.special.logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return scipy.special.logsumexp(alpha)


def hmm_args():
    k, m = 3, 4
    return (R.normal(size=k), R.normal(size=(k, k)), R.normal(size=(k, m)), R.integers(0, m, 7))


# --- geostatistics: a Gaussian-process marginal likelihood through cho_factor / cho_solve

def gp_cho_factor(log_ell, log_noise, x, y):
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2 * log_ell)) + np.exp(log_noise) * np.eye(x.shape[0])
    factor = scipy.linalg.cho_factor(K, lower=True)
    alpha = scipy.linalg.cho_solve(factor, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(factor[0])))


def gp_args():
    x = np.linspace(0.0, 2.0, 7)
    return -0.3, -2.0, x, np.sin(2 * x) + 0.1 * R.normal(size=7)


# --- finance: Black-Scholes call prices of a book of options, with norm.cdf

def black_scholes_book(spot, vol, rate, strikes, maturities, weights):
    sq = vol * np.sqrt(maturities)
    d1 = (np.log(spot / strikes) + (rate + 0.5 * vol ** 2) * maturities) / sq
    d2 = d1 - sq
    calls = spot * scipy.stats.norm.cdf(d1) - strikes * np.exp(-rate * maturities) * scipy.stats.norm.cdf(d2)
    return np.sum(weights * calls)


def black_scholes_args():
    return (100.0, 0.25, 0.03, np.array([80.0, 95.0, 100.0, 110.0, 130.0]),
            np.array([0.25, 0.5, 1.0, 2.0, 0.75]), np.array([1.0, -2.0, 0.5, 1.5, 3.0]))


# --- optimal transport: entropic cost by Sinkhorn iterations

def sinkhorn_cost(x, y, a, b):
    C = (x[:, None] - y[None, :]) ** 2
    K = np.exp(-C / 0.5)
    v = np.ones_like(b)
    for _ in range(30):
        u = a / (K @ v)
        v = b / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def sinkhorn_args():
    return (R.normal(size=4), R.normal(size=5), np.full(4, 0.25), np.full(5, 0.2))


# --- robotics: a planar arm's end point and the distance to a target

def arm_reach(angles, lengths, target):
    absolute = np.cumsum(angles)
    tip = np.array([np.sum(lengths * np.cos(absolute)), np.sum(lengths * np.sin(absolute))])
    return np.sum((tip - target) ** 2) + 0.01 * np.sum(angles ** 2)


def arm_args():
    return np.array([0.3, -0.5, 0.8]), np.array([1.0, 0.7, 0.4]), np.array([0.9, 1.1])


# --- machine learning: a neural ODE, RK4 with `while t < t_end`

def _mlp_field(z, W1, b1, W2):
    return np.tanh(z @ W1 + b1) @ W2


def neural_ode(W1, b1, W2, z0, target):
    z, t, h = z0, 0.0, 0.1
    while t < 1.0 - 1e-9:
        k1 = _mlp_field(z, W1, b1, W2)
        k2 = _mlp_field(z + 0.5 * h * k1, W1, b1, W2)
        k3 = _mlp_field(z + 0.5 * h * k2, W1, b1, W2)
        k4 = _mlp_field(z + h * k3, W1, b1, W2)
        z = z + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t = t + h
    return np.mean((z - target) ** 2)


def neural_ode_args():
    return (R.normal(size=(2, 8)) * 0.5, R.normal(size=8) * 0.1, R.normal(size=(8, 2)) * 0.5,
            R.normal(size=(5, 2)), R.normal(size=(5, 2)))


# --- survival analysis: Cox partial likelihood (times sorted, descending risk sets by cumsum)

def cox_partial_log_likelihood(beta, X, event):
    eta = X @ beta
    # times sorted ascending: the risk set of i is i..n-1, a reversed cumulative sum
    risk = np.log(np.cumsum(np.exp(eta)[::-1])[::-1])
    return np.sum(np.where(event, eta - risk, 0.0))


def cox_args():
    return R.normal(size=3) * 0.3, R.normal(size=(8, 3)), R.uniform(size=8) < 0.7


# --- econometrics: GARCH(1,1) negative log-likelihood, a recursion over time

def garch_nll(omega, alpha, beta, returns):
    sigma2 = np.var(returns)
    nll = 0.0
    for t in range(returns.shape[0]):
        nll = nll + 0.5 * (np.log(2 * np.pi * sigma2) + returns[t] ** 2 / sigma2)
        sigma2 = omega + alpha * returns[t] ** 2 + beta * sigma2
    return nll


def garch_args():
    return 0.05, 0.1, 0.85, R.normal(size=20) * 0.4


# --- recommender systems: matrix factorisation over observed (user, item) pairs

def matrix_factorisation(U, V, users, items, ratings, lam):
    pred = np.sum(U[users] * V[items], axis=1)
    return np.mean((pred - ratings) ** 2) + lam * (np.sum(U ** 2) + np.sum(V ** 2))


def mf_args():
    return (R.normal(size=(4, 3)) * 0.5, R.normal(size=(5, 3)) * 0.5, np.array([0, 1, 1, 3, 2, 0, 3]),
            np.array([4, 0, 2, 2, 1, 4, 3]), R.normal(size=7), 0.1)


# --- graph learning: two graph-convolution layers, D^-1/2 (A + I) D^-1/2

def gcn(W1, W2, A, X, labels):
    A_hat = A + np.eye(A.shape[0])
    d = 1.0 / np.sqrt(A_hat.sum(axis=1))
    norm = d[:, None] * A_hat * d[None, :]
    h = np.maximum(norm @ X @ W1, 0.0)
    logits = norm @ h @ W2
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(logp[np.arange(labels.shape[0]), labels])


def gcn_args():
    A = (R.uniform(size=(6, 6)) < 0.4).astype(float)
    A = np.triu(A, 1) + np.triu(A, 1).T
    return R.normal(size=(3, 4)), R.normal(size=(4, 2)), A, R.normal(size=(6, 3)), R.integers(0, 2, 6)


# --- ecology/insurance: zero-inflated Poisson likelihood, masks by np.where

def zero_inflated_poisson_nll(w, logit_pi, X, counts):
    log_lam = X @ w
    lam = np.exp(log_lam)
    log_pi = -np.logaddexp(0.0, -logit_pi)           # log sigmoid
    log_not_pi = -np.logaddexp(0.0, logit_pi)
    zero = np.logaddexp(log_pi, log_not_pi - lam)
    positive = log_not_pi + counts * log_lam - lam - scipy.special.gammaln(counts + 1.0)
    return -np.sum(np.where(counts == 0, zero, positive))


def zip_args():
    return R.normal(size=3) * 0.3, 0.4, R.normal(size=(10, 3)), np.array([0, 0, 1, 3, 0, 2, 0, 5, 1, 0])


PROGRAMS = [
    (fem_bar_compliance, fem_args), (hmm_log_likelihood, hmm_args), (black_scholes_book, black_scholes_args),
    (sinkhorn_cost, sinkhorn_args), (arm_reach, arm_args), (neural_ode, neural_ode_args),
    (cox_partial_log_likelihood, cox_args), (garch_nll, garch_args), (matrix_factorisation, mf_args),
    (gcn, gcn_args), (zero_inflated_poisson_nll, zip_args), (fem_bar_connectivity, fem_connectivity_args),
    (gp_cho_factor, gp_args),
]


@pytest.mark.parametrize("fn,make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_on_python(fn, make_args):
    check_grads(fn, make_args(), backend="python")


NUMBA = (1, 5, 7, 9, 11)      # HMM, neural ODE, GARCH, GCN, FEM by np.ix_


@pytest.mark.slow
@pytest.mark.parametrize("fn,make_args", [PROGRAMS[k] for k in NUMBA], ids=[PROGRAMS[k][0].__name__ for k in NUMBA])
def test_on_numba(fn, make_args):
    check_grads(fn, make_args(), backend="numba")
