"""``scipy.stats`` distributions' methods (``norm.logpdf``, ``t.logpdf``, ``chi2.logpdf``, ``poisson.logpmf``,
``multivariate_normal.logpdf``, ...) written over primitives with rules.

``stats.norm.logpdf`` is a bound method of a distribution object; the registry keys it by
the object and the method's name (:func:`sstad.runtime.composites.key_of`).  Parameters
follow SciPy's (``loc``, ``scale`` by position or keyword); values outside the support
are ``-inf`` (log densities) or 0, and a scale that is not positive gives NaN, as SciPy
does.  Frozen distributions (``norm(0, 1).logpdf``) are not covered."""
import numpy as np
import scipy.special as sc
import scipy.stats as st

from sstad.runtime.composites import composite

HALF_LOG_2PI = 0.9189385332046727
LOG_2PI = 1.8378770664093453


def standardized(x, loc, scale):
    """(x - loc) / scale, and log(scale) with NaN where scale <= 0 (SciPy's answer there)."""
    log_scale = np.where(scale > 0, np.log(np.where(scale > 0, scale, 1.0)), np.nan)
    return (x - loc) / scale, log_scale


def outside_is(value, inside, fill):
    """``value`` where ``inside``, else ``fill`` (a constant: derivative 0 there)."""
    return np.where(inside, value, fill)


@composite(st.norm.logpdf)
def norm_logpdf(x, loc=0, scale=1):
    """scipy.stats.norm.logpdf."""
    z, log_scale = standardized(x, loc, scale)
    return -0.5 * z * z - HALF_LOG_2PI - log_scale


@composite(st.norm.pdf)
def norm_pdf(x, loc=0, scale=1):
    """scipy.stats.norm.pdf."""
    return np.exp(norm_logpdf(x, loc, scale))


@composite(st.norm.cdf)
def norm_cdf(x, loc=0, scale=1):
    """scipy.stats.norm.cdf."""
    z, log_scale = standardized(x, loc, scale)
    return sc.ndtr(z) + log_scale * 0.0


@composite(st.norm.logcdf)
def norm_logcdf(x, loc=0, scale=1):
    """scipy.stats.norm.logcdf."""
    z, log_scale = standardized(x, loc, scale)
    return sc.log_ndtr(z) + log_scale * 0.0


@composite(st.norm.sf)
def norm_sf(x, loc=0, scale=1):
    """scipy.stats.norm.sf."""
    z, log_scale = standardized(x, loc, scale)
    return sc.ndtr(-z) + log_scale * 0.0


@composite(st.norm.logsf)
def norm_logsf(x, loc=0, scale=1):
    """scipy.stats.norm.logsf."""
    z, log_scale = standardized(x, loc, scale)
    return sc.log_ndtr(-z) + log_scale * 0.0


@composite(st.norm.ppf)
def norm_ppf(q, loc=0, scale=1):
    """scipy.stats.norm.ppf: loc + scale * ndtri(q) (NaN outside [0, 1] or where scale <= 0)."""
    _, log_scale = standardized(0.0, loc, scale)
    return loc + scale * sc.ndtri(q) + log_scale * 0.0


@composite(st.norm.isf)
def norm_isf(q, loc=0, scale=1):
    """scipy.stats.norm.isf: loc - scale * ndtri(q) (precise for a small q)."""
    _, log_scale = standardized(0.0, loc, scale)
    return loc - scale * sc.ndtri(q) + log_scale * 0.0


@composite(st.t.logpdf)
def t_logpdf(x, df, loc=0, scale=1):
    """scipy.stats.t.logpdf (Student's t)."""
    z, log_scale = standardized(x, loc, scale)
    half = (df + 1.0) * 0.5
    return (sc.gammaln(half) - sc.gammaln(df * 0.5) - 0.5 * np.log(df * np.pi)
            - half * np.log1p(z * z / df) - log_scale)


@composite(st.t.pdf)
def t_pdf(x, df, loc=0, scale=1):
    """scipy.stats.t.pdf."""
    return np.exp(t_logpdf(x, df, loc, scale))


@composite(st.gamma.logpdf)
def gamma_logpdf(x, a, loc=0, scale=1):
    """scipy.stats.gamma.logpdf: -inf below loc."""
    z, log_scale = standardized(x, loc, scale)
    inside = z >= 0
    zs = np.where(inside, z, 1.0)
    return outside_is(sc.xlogy(a - 1.0, zs) - zs - sc.gammaln(a) - log_scale, inside, -np.inf)


@composite(st.gamma.pdf)
def gamma_pdf(x, a, loc=0, scale=1):
    """scipy.stats.gamma.pdf."""
    return np.exp(gamma_logpdf(x, a, loc, scale))


@composite(st.chi2.logpdf)
def chi2_logpdf(x, df, loc=0, scale=1):
    """scipy.stats.chi2.logpdf: the gamma density of shape df / 2 at twice the scale."""
    return gamma_logpdf(x, df / 2.0, loc, 2.0 * scale)


@composite(st.chi2.pdf)
def chi2_pdf(x, df, loc=0, scale=1):
    """scipy.stats.chi2.pdf."""
    return np.exp(chi2_logpdf(x, df, loc, scale))


@composite(st.beta.logpdf)
def beta_logpdf(x, a, b, loc=0, scale=1):
    """scipy.stats.beta.logpdf: -inf outside [loc, loc + scale]."""
    z, log_scale = standardized(x, loc, scale)
    inside = (z >= 0) & (z <= 1)
    zs = np.where(inside, z, 0.5)
    value = sc.xlogy(a - 1.0, zs) + sc.xlog1py(b - 1.0, -zs) - sc.betaln(a, b) - log_scale
    return outside_is(value, inside, -np.inf)


@composite(st.beta.pdf)
def beta_pdf(x, a, b, loc=0, scale=1):
    """scipy.stats.beta.pdf."""
    return np.exp(beta_logpdf(x, a, b, loc, scale))


@composite(st.poisson.logpmf)
def poisson_logpmf(k, mu, loc=0):
    """scipy.stats.poisson.logpmf: -inf where k - loc is not a count."""
    n = k - loc
    inside = (n >= 0) & (np.floor(n) == n)
    ns = np.where(inside, n, 0.0)
    return outside_is(sc.xlogy(ns, mu) - mu - sc.gammaln(ns + 1.0), inside, -np.inf)


@composite(st.poisson.pmf)
def poisson_pmf(k, mu, loc=0):
    """scipy.stats.poisson.pmf."""
    return np.exp(poisson_logpmf(k, mu, loc))


@composite(st.dirichlet.logpdf)
def dirichlet_logpdf(x, alpha):
    """scipy.stats.dirichlet.logpdf of one point ``x`` (components on its only axis)."""
    if np.ndim(x) != 1 or np.ndim(alpha) != 1:
        raise NotImplementedError("scipy.stats.dirichlet.logpdf: x and alpha of one dimension only")
    return (sc.gammaln(np.sum(alpha)) - np.sum(sc.gammaln(alpha))
            + np.sum(sc.xlogy(alpha - 1.0, x)))


@composite(st.dirichlet.pdf)
def dirichlet_pdf(x, alpha):
    """scipy.stats.dirichlet.pdf."""
    return np.exp(dirichlet_logpdf(x, alpha))


@composite(st.multivariate_normal.logpdf)
def multivariate_normal_logpdf(x, mean=None, cov=1, allow_singular=False):
    """scipy.stats.multivariate_normal.logpdf for points ``x`` (d,) or (n, d) and a full
    covariance matrix (or a number: that times the identity; with no vector ``mean``,
    SciPy then takes every element of ``x`` as a point of dimension 1)."""
    if allow_singular:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular=True is not supported")
    if np.ndim(x) == 0 or np.ndim(x) > 2 or np.ndim(cov) == 1 or np.ndim(cov) > 2:
        raise NotImplementedError("multivariate_normal.logpdf: x of shape (d,) or (n, d) and cov a "
                                  "number or a (d, d) matrix only")
    centred = x if mean is None else x - mean
    if np.ndim(cov) == 0 and np.ndim(mean) == 0:     # SciPy: points of dimension 1
        return -0.5 * (LOG_2PI + np.log(cov) + centred * centred / cov)
    d = x.shape[-1]
    if np.ndim(cov) == 0:
        quad = np.sum(centred * centred, axis=-1) / cov
        logdet = d * np.log(cov)
    else:       # SciPy reads the lower triangle only (eigh with lower=True)
        cov = np.tril(cov) + np.swapaxes(np.tril(cov, -1), -1, -2)
        solved = np.linalg.solve(cov, np.swapaxes(np.atleast_2d(centred), -1, -2))
        quad = np.sum(np.swapaxes(solved, -1, -2) * np.atleast_2d(centred), axis=-1)
        quad = quad[0] if np.ndim(x) == 1 else quad
        logdet = np.linalg.slogdet(cov)[1]
    return -0.5 * (d * LOG_2PI + logdet + quad)


@composite(st.multivariate_normal.pdf)
def multivariate_normal_pdf(x, mean=None, cov=1, allow_singular=False):
    """scipy.stats.multivariate_normal.pdf."""
    return np.exp(multivariate_normal_logpdf(x, mean, cov, allow_singular))
