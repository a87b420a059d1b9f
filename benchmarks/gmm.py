"""ADBench GMM: Gaussian-mixture log-likelihood with a Wishart prior (see the data README).

`gmm_objective` is written once, the way a NumPy user writes it: a loop over components
that fills each component's triangular factor in place, one matrix product per component,
a row-wise logsumexp. sstad compiles and differentiates exactly this function; the JAX,
PyTorch and autograd peers share `gmm_vectorized` below (all components at once with
einsum, the way ADBench's own Python versions are written).
"""
import math

import adbench
import numpy as np


def log_gamma_distrib(a, p):
    """log of the multivariate gamma function Γ_p(a)."""
    out = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        out = out + math.lgamma(a + 0.5 * (1 - j))
    return out


def wishart_constant(d, gamma, m):
    nn = d + m + 1
    return nn * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * nn, d)


def gmm_objective(alphas, means, icf, x, gamma, m):
    n, d = x.shape
    K = alphas.shape[0]
    main = np.zeros((n, K))
    prior = 0.0
    for k in range(K):
        q = icf[k, :d]
        # Q = diag(exp(q)) + strictly lower part, filled column by column from icf[k, d:]
        Q = np.diag(np.exp(q))
        idx = d
        for j in range(d):
            for i in range(j + 1, d):
                Q[i, j] = icf[k, idx]
                idx += 1
        z = (x - means[k]) @ Q.T
        main[:, k] = alphas[k] + np.sum(q) - 0.5 * np.sum(z * z, axis=1)
        prior = prior + 0.5 * gamma * gamma * (np.sum(np.exp(2 * q)) + np.sum(icf[k, d:] ** 2)) \
            - m * np.sum(q)
    mx = np.max(main, axis=1)
    lse = mx + np.log(np.sum(np.exp(main - mx[:, None]), axis=1))
    amx = np.max(alphas)
    lse_alphas = amx + np.log(np.sum(np.exp(alphas - amx)))
    return (-0.5 * n * d * math.log(2 * math.pi) + np.sum(lse) - n * lse_alphas + prior
            - K * wishart_constant(d, gamma, m))


def _scatter(d):
    """(d(d-1)/2, d*d) 0/1 matrix taking icf[k, d:] to the flattened L_k (column by column)."""
    S = np.zeros((d * (d - 1) // 2, d * d))
    idx = 0
    for j in range(d):
        for i in range(j + 1, d):
            S[idx, i * d + j] = 1.0
            idx += 1
    return S


def gmm_vectorized(ops, alphas, means, icf, x, gamma, m):
    """JAX / PyTorch / autograd version: every component at once, no in-place writes."""
    xp = ops.xp
    n, d = x.shape
    K = alphas.shape[0]
    qs = icf[:, :d]
    Ls = xp.reshape(icf[:, d:] @ xp.asarray(_scatter(d)), (K, d, d))
    xc = x[:, None, :] - means[None, :, :]                        # (n, K, d)
    z = xp.exp(qs)[None, :, :] * xc + xp.einsum("kij,nkj->nki", Ls, xc)
    main = alphas[None, :] + xp.sum(qs, 1)[None, :] - 0.5 * xp.sum(z * z, 2)
    prior = 0.5 * gamma * gamma * (xp.sum(xp.exp(2 * qs)) + xp.sum(icf[:, d:] ** 2)) \
        - m * xp.sum(qs)
    return (-0.5 * n * d * math.log(2 * math.pi) + xp.sum(ops.logsumexp(main, 1))
            - n * ops.logsumexp(alphas) + prior - K * wishart_constant(d, gamma, m))


def test_reference():
    return adbench.GMM_TEST_OBJECTIVE, _split(adbench.GMM_TEST_GRADIENT, 3, 2)


def _split(flat, K, d):
    """The ADBench gradient order (alphas, means row-major, icf row-major) as three arrays."""
    tri = d * (d + 1) // 2
    return flat[:K], flat[K:K + K * d].reshape(K, d), flat[K + K * d:].reshape(K, tri)


def check_gmm_reference(backend="numba"):
    """sstad's objective and gradient on gmm/test.txt against the ADBench reference values;
    raises AssertionError on a mismatch."""
    import sstad
    args = adbench.load_gmm("gmm/test.txt")
    value = sstad.jit(gmm_objective, backend=backend)(*args)
    assert np.isclose(value, adbench.GMM_TEST_OBJECTIVE, rtol=1e-12, atol=0), value
    grads = sstad.jit(sstad.grad(gmm_objective, argnums=(0, 1, 2)), backend=backend)(*args)
    flat = np.concatenate([np.ravel(g) for g in grads])
    assert flat.shape == adbench.GMM_TEST_GRADIENT.shape, flat.shape
    np.testing.assert_allclose(flat, adbench.GMM_TEST_GRADIENT, rtol=1e-10, atol=1e-12)


def cases():
    from gmm_manual import gmm_gradient      # the numpy peer's gradient, written by hand
    from peers import Case
    out = []
    for name, rel, quick in (("gmm test d2 K3", "gmm/test.txt", True),
                             ("gmm 1k d10 K25", "gmm/1k/gmm_d10_K25.txt", True),
                             ("gmm 10k d10 K25", "gmm/10k/gmm_d10_K25.txt", False)):
        out.append(Case(
            name=name, objective=gmm_objective, args=adbench.load_gmm(rel), argnums=(0, 1, 2),
            jax=gmm_vectorized, torch=gmm_vectorized, autograd=gmm_vectorized, numpy_grad=gmm_gradient,
            reference=test_reference if rel == "gmm/test.txt" else None,
            reference_note="ADBench reference values (data README)", quick=quick))
    return out
