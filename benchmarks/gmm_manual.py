"""ADBench GMM's gradient written by hand in vectorised NumPy: the peer that ADBench's
"Manual" (hand-written C++) tool stands for.

With xc_nk = x_n - mu_k, z_nk = Q_k xc_nk, main_nk = alpha_k + sum(q_k) - |z_nk|^2 / 2 and
P = softmax_k(main) (each point's responsibilities), the objective's derivatives are

    d/d main_nk  = P_nk                      d/d z_nk = -P_nk z_nk =: -w_nk
    d/d Q_k      = -sum_n w_nk xc_nk^T       d/d mu_k = Q_k^T sum_n w_nk
    d/d alpha_k  = sum_n P_nk - n softmax(alpha)_k
    d/d q_kj     = (dQ_k)_jj exp(q_kj) + sum_n P_nk + gamma^2 exp(2 q_kj) - m
    d/d L_k      = (dQ_k) strictly below the diagonal, + gamma^2 L_k      (the prior)

Every sum over points is one matrix product: z = Q x - Q mu for all components at once
((K d, d) @ (d, n)), and sum_n w_nk x_n^T is (K d, n) @ (n, d).
"""
import math

import numpy as np

from gmm import wishart_constant


def _factors(icf, d):
    """Q_k = diag(exp(q_k)) + L_k for every k, (K, d, d); L_k filled column by column."""
    K = icf.shape[0]
    rows, cols = np.triu_indices(d, 1)        # (j, i), j < i, in the order icf[k, d:] fills them
    Qs = np.zeros((K, d, d))
    Qs[:, cols, rows] = icf[:, d:]
    diag = np.arange(d)
    Qs[:, diag, diag] = np.exp(icf[:, :d])
    return Qs, (cols, rows)


def _responsibilities(alphas, icf, x, means, Qs):
    """z (K, d, n): z[k, :, n] = Q_k (x_n - mu_k); P (K, n): softmax over k of main; and
    sum_n logsumexp_k(main).  Points along the last axis, so that both products below are
    BLAS calls on C-ordered operands (OpenBLAS is 15x slower on x @ B with B Fortran-ordered)."""
    n, d = x.shape
    K = alphas.shape[0]
    z = (Qs.reshape(K * d, d) @ x.T).reshape(K, d, n)
    z -= np.einsum("kij,kj->ki", Qs, means)[:, :, None]
    main = (alphas + icf[:, :d].sum(1))[:, None] - 0.5 * np.einsum("kin,kin->kn", z, z)
    mx = main.max(0)
    e = np.exp(main - mx)
    s = e.sum(0)
    return z, e / s, np.sum(mx + np.log(s))


def _lse(v):
    mx = np.max(v)
    return mx + np.log(np.sum(np.exp(v - mx)))


def gmm_objective_vectorized(alphas, means, icf, x, gamma, m):
    """The objective by the same vectorised steps (what the gradient's cost compares with)."""
    n, d = x.shape
    K = alphas.shape[0]
    Qs, _ = _factors(icf, d)
    _, _, lse = _responsibilities(alphas, icf, x, means, Qs)
    q = icf[:, :d]
    prior = 0.5 * gamma * gamma * (np.sum(np.exp(2 * q)) + np.sum(icf[:, d:] ** 2)) - m * np.sum(q)
    return (-0.5 * n * d * math.log(2 * math.pi) + lse - n * _lse(alphas) + prior
            - K * wishart_constant(d, gamma, m))


def gmm_gradient(alphas, means, icf, x, gamma, m):
    """(d/d alphas, d/d means, d/d icf) of gmm.gmm_objective."""
    n, d = x.shape
    K = alphas.shape[0]
    Qs, lower = _factors(icf, d)
    z, P, _ = _responsibilities(alphas, icf, x, means, Qs)
    w = z                                                        # (K, d, n), in place: one big array
    w *= P[:, None, :]
    wsum = w.sum(2)                                              # (K, d)
    # dQ_k = -(sum_n w_nk x_n^T - wsum_k mu_k^T)
    dQ = -(w.reshape(K * d, n) @ x).reshape(K, d, d) + wsum[:, :, None] * means[:, None, :]
    dmeans = np.einsum("kij,ki->kj", Qs, wsum)
    Psum = P.sum(1)
    ea = np.exp(alphas - np.max(alphas))
    dalphas = Psum - n * ea / ea.sum()
    q = icf[:, :d]
    dicf = np.empty_like(icf)
    diag = np.arange(d)
    dicf[:, :d] = dQ[:, diag, diag] * np.exp(q) + Psum[:, None] + gamma * gamma * np.exp(2 * q) - m
    dicf[:, d:] = dQ[:, lower[0], lower[1]] + gamma * gamma * icf[:, d:]
    return dalphas, dmeans, dicf
