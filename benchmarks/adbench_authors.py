"""ADBench GMM and LSTM objectives written the way ADBench's own Python versions write them.

`gmm.py` and `lstm.py` were written for sstad. These are written as the benchmark's authors
write NumPy (their autograd / NumPy objectives): `scipy.special.multigammaln` for the
Wishart constant, the triangular factors filled through `np.triu_indices` with fancy
assignment, quadratic forms with `np.einsum`, logsumexp spelled out (or
`scipy.special.logsumexp`); the LSTM with its parameters and state as lists of arrays,
updated layer by layer (`cell[i] = cell[i] * forget + ingate * change`).
`tests/test_adbench_authors.py` compiles them with sstad and checks the ADBench references.
"""
import math

import numpy as np
import scipy.special


# --- GMM ---------------------------------------------------------------------------------

def logsumexp(x):
    mx = np.max(x)
    return mx + np.log(np.sum(np.exp(x - mx)))


def logsumexpvec(x):
    """logsumexp of each row of ``x``."""
    mx = np.max(x, axis=1)
    return mx + np.log(np.sum(np.exp(x - mx[:, np.newaxis]), axis=1))


def log_wishart_prior(p, wishart_gamma, wishart_m, sum_qs, Qdiags, icf):
    n = p + wishart_m + 1
    k = icf.shape[0]
    out = np.sum(0.5 * wishart_gamma * wishart_gamma
                 * (np.sum(Qdiags ** 2, axis=1) + np.sum(icf[:, p:] ** 2, axis=1))
                 - wishart_m * sum_qs)
    C = n * p * (math.log(wishart_gamma) - 0.5 * math.log(2)) - scipy.special.multigammaln(0.5 * n, p)
    return out - k * C


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    """All components at once: the lower triangles of the Q matrices through
    ``np.triu_indices`` (transposed, so that ``icf[k, d:]`` fills them column by column)."""
    n = x.shape[0]
    d = x.shape[1]
    k = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    cols, rows = np.triu_indices(d, 1)
    Ls = np.zeros((k, d, d))
    Ls[:, rows, cols] = icf[:, d:]
    xcentered = x[:, np.newaxis, :] - means[np.newaxis, :, :]          # (n, k, d)
    Lxcentered = Qdiags * xcentered + np.einsum('kij,nkj->nki', Ls, xcentered)
    sqsum_Lxcentered = np.sum(Lxcentered ** 2, axis=2)
    inner_term = alphas + sum_qs - 0.5 * sqsum_Lxcentered
    slse = np.sum(logsumexpvec(inner_term))
    CONSTANT = -n * d * 0.5 * math.log(2 * math.pi)
    return CONSTANT + slse - n * logsumexp(alphas) \
        + log_wishart_prior(d, wishart_gamma, wishart_m, sum_qs, Qdiags, icf)


def gmm_objective_loop(alphas, means, icf, x, wishart_gamma, wishart_m):
    """One component at a time: ``Q = np.diag(np.exp(...))`` then ``Q[lower] = ...``; the
    logsumexps from ``scipy.special``."""
    n, d = x.shape
    k = alphas.shape[0]
    upper = np.triu_indices(d, 1)
    lower = (upper[1], upper[0])
    inner_term = np.zeros((n, k))
    for ik in range(k):
        Q = np.diag(np.exp(icf[ik, :d]))
        Q[lower] = icf[ik, d:]
        xc = x - means[ik]
        Qx = np.einsum('ij,nj->ni', Q, xc)
        inner_term[:, ik] = alphas[ik] + np.sum(icf[ik, :d]) - 0.5 * np.einsum('ni,ni->n', Qx, Qx)
    slse = np.sum(scipy.special.logsumexp(inner_term, axis=1))
    CONSTANT = -n * d * 0.5 * math.log(2 * math.pi)
    return CONSTANT + slse - n * scipy.special.logsumexp(alphas) \
        + log_wishart_prior(d, wishart_gamma, wishart_m, np.sum(icf[:, :d], axis=1),
                            np.exp(icf[:, :d]), icf)


# --- LSTM --------------------------------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, _input):
    gates = np.concatenate((_input, hidden, _input, hidden)) * weight + bias
    hsize = hidden.shape[0]
    forget = sigmoid(gates[0:hsize])
    ingate = sigmoid(gates[hsize:2 * hsize])
    outgate = sigmoid(gates[2 * hsize:3 * hsize])
    change = np.tanh(gates[3 * hsize:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_objective(main_params, extra_params, state, sequence):
    """``main_params``: 2l arrays (weight, bias of each layer); ``extra_params``: input
    weight, output weight, output bias; ``state``: 2l arrays (hidden, cell of each layer);
    ``sequence``: a (c, b) array.  The lists hold arrays of length b (4b for main_params)."""
    n_layers = len(main_params) // 2
    hidden = [state[2 * i] for i in range(n_layers)]
    cell = [state[2 * i + 1] for i in range(n_layers)]
    total = 0.0
    count = 0
    for t in range(len(sequence) - 1):
        x = sequence[t] * extra_params[0]
        for i in range(n_layers):
            weight = main_params[2 * i]
            bias = main_params[2 * i + 1]
            hsize = hidden[i].shape[0]
            gates = np.concatenate((x, hidden[i], x, hidden[i])) * weight + bias
            forget = sigmoid(gates[0:hsize])
            ingate = sigmoid(gates[hsize:2 * hsize])
            outgate = sigmoid(gates[2 * hsize:3 * hsize])
            change = np.tanh(gates[3 * hsize:])
            cell[i] = cell[i] * forget + ingate * change
            hidden[i] = outgate * np.tanh(cell[i])
            x = hidden[i]
        ypred = x * extra_params[1] + extra_params[2]
        ynorm = ypred - np.log(sum(np.exp(ypred), 2))
        ygold = sequence[t + 1]
        total += sum(ygold * ynorm)
        count += ygold.shape[0]
    return -total / count


def lstm_objective_model(main_params, extra_params, state, sequence):
    """The same loss through a cell function returning ``(hidden, cell)``."""
    n_layers = len(main_params) // 2
    hidden = [state[2 * i] for i in range(n_layers)]
    cell = [state[2 * i + 1] for i in range(n_layers)]
    total = 0.0
    count = 0
    for t in range(len(sequence) - 1):
        x = sequence[t] * extra_params[0]
        for i in range(n_layers):
            hidden[i], cell[i] = lstm_model(main_params[2 * i], main_params[2 * i + 1], hidden[i], cell[i], x)
            x = hidden[i]
        ypred = x * extra_params[1] + extra_params[2]
        ynorm = ypred - np.log(sum(np.exp(ypred), 2))
        ygold = sequence[t + 1]
        total += sum(ygold * ynorm)
        count += ygold.shape[0]
    return -total / count
