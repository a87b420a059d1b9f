"""A ninth batch of programs as their authors write them, from fields the other batches do
not cover: normalizing flows (Rezende and Mohamed's planar flows against a two-moon energy,
RealNVP's affine coupling layers with alternating masks), diffusion models (DDPM's noise
prediction loss over sampled timesteps), implicit layers (a deep equilibrium layer iterated
until the change is small), capsule networks (squash and routing by agreement), time series
(ARIMA(1,1,1) by conditional sum of squares), option smiles (Merton's jump-diffusion prices
inverted to implied volatilities by Newton's method), count models (a hurdle Poisson GLM
with exposure offsets by np.expm1), combinatorial optimisation (a pointer network's
log-likelihood of a tour, visited cities masked by -inf), metric learning (the batch-hard
triplet loss), audio synthesis (DDSP's harmonic oscillator bank), splatting (2-D Gaussians
composited front to back), geometry processing (a closed mesh's volume and area by
np.cross), knowledge graphs (RotatE's complex rotations with self-adversarial negatives),
ordinal regression (proportional odds with infinite outer cut points), sequence labelling
(label-smoothed cross entropy with PyTorch's ignore_index), materials (an embedded-atom
potential), hydrology (the GR4J rainfall-runoff model's stores, scored by Nash-Sutcliffe),
meta-learning (MAML's inner step by sstad.grad, the fast weights by a dict comprehension); a
VAE's ELBO by Monte Carlo with its noise drawn inside the loss is refused (np.random).

tests/test_user_programs_9.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np
from scipy.special import expit, log_softmax, logsumexp, gammaln
from scipy.stats import norm

import sstad

from program_registry import registry

PROGRAMS, program = registry()


# --- normalizing flows: K planar flows (Rezende & Mohamed 2015) fitted by reverse KL to the
#     paper's "U1" ring energy; z0 is given base noise, each layer a (u, w, b) tuple

def _planar_args(r):
    K, d = 4, 2
    layers = [(0.5 * r.normal(size=d), 0.5 * r.normal(size=d), 0.1 * r.normal()) for _ in range(K)]
    return layers, r.normal(size=(16, d))


def ring_energy(z):
    r = np.linalg.norm(z, axis=1)
    u = 0.5 * ((r - 2.0) / 0.4) ** 2
    return u - np.log(np.exp(-0.5 * ((z[:, 0] - 2) / 0.6) ** 2) + np.exp(-0.5 * ((z[:, 0] + 2) / 0.6) ** 2))


@program(_planar_args)
def planar_flow_free_energy(layers, z0):
    z = z0
    log_q = -0.5 * np.sum(z0 ** 2, axis=1) - np.log(2 * np.pi)
    for u, w, b in layers:
        wu = w @ u
        u_hat = u + (np.log1p(np.exp(wu)) - 1 - wu) * w / np.sum(w ** 2)   # keeps it invertible
        a = np.tanh(z @ w + b)
        psi = (1 - a ** 2)[:, None] * w
        log_q = log_q - np.log(np.abs(1 + psi @ u_hat))
        z = z + u_hat * a[:, None]
    return np.mean(log_q + ring_energy(z))


# --- normalizing flows: RealNVP (Dinh et al. 2017) affine couplings with alternating
#     checkerboard masks, s and t from one-hidden-layer nets in a dict per layer; the
#     negative log-likelihood of data under a standard normal base

def _realnvp_args(r):
    d, h = 4, 8
    masks = [np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1]), np.array([1, 0, 1, 0])]
    layers = [{"W": 0.3 * r.normal(size=(d, h)), "b": np.zeros(h), "Ws": 0.2 * r.normal(size=(h, d)),
               "Wt": 0.2 * r.normal(size=(h, d))} for _ in masks]
    return layers, masks, r.normal(size=(12, d))


@program(_realnvp_args)
def realnvp_nll(layers, masks, x):
    z = x
    log_det = np.zeros(x.shape[0])
    for p, mask in zip(layers, masks):
        z_masked = z * mask
        h = np.maximum(z_masked @ p["W"] + p["b"], 0.01 * (z_masked @ p["W"] + p["b"]))   # leaky relu
        s = np.tanh(h @ p["Ws"]) * (1 - mask)
        t = (h @ p["Wt"]) * (1 - mask)
        z = z_masked + (1 - mask) * (z * np.exp(s) + t)
        log_det += s.sum(axis=1)
    log_pz = -0.5 * np.sum(z ** 2, axis=1) - 0.5 * z.shape[1] * np.log(2 * np.pi)
    return -np.mean(log_pz + log_det)


# --- diffusion models: DDPM's simplified loss (Ho et al. 2020), a linear beta schedule,
#     alpha-bar by np.cumprod, sinusoidal time embeddings, an MLP predicting the noise;
#     timesteps and noise drawn outside

def _ddpm_args(r):
    d, h, e = 3, 16, 8
    params = {"W1": 0.3 * r.normal(size=(d + e, h)), "b1": np.zeros(h),
              "W2": 0.3 * r.normal(size=(h, d)), "b2": np.zeros(d)}
    n = 10
    return params, r.normal(size=(n, d)), r.integers(0, 100, size=n), r.normal(size=(n, d))


def time_embedding(t, dim=8, max_period=10000.0):
    half = dim // 2
    freqs = np.exp(-np.log(max_period) * np.arange(half, dtype=np.float64) / half)
    args = t[:, None].astype(np.float64) * freqs[None, :]
    return np.concatenate([np.cos(args), np.sin(args)], axis=-1)


@program(_ddpm_args)
def ddpm_loss(params, x0, t, noise, T=100):
    betas = np.linspace(1e-4, 0.02, T)
    alphas_bar = np.cumprod(1.0 - betas)
    ab = alphas_bar[t][:, None]
    x_t = np.sqrt(ab) * x0 + np.sqrt(1 - ab) * noise
    inp = np.concatenate([x_t, time_embedding(t)], axis=1)
    h = np.tanh(inp @ params["W1"] + params["b1"])
    eps_pred = h @ params["W2"] + params["b2"]
    return np.mean((eps_pred - noise) ** 2)


# --- implicit layers: a deep equilibrium layer (Bai et al. 2019) by naive fixed-point
#     iteration, stopped when the relative change is below tol (with an iteration cap),
#     then a linear read-out and a squared error

def _deq_args(r):
    h, d, n = 6, 3, 8
    W = r.normal(size=(h, h))
    W *= 0.5 / np.linalg.norm(W, 2)                    # a contraction
    return W, 0.5 * r.normal(size=(d, h)), 0.1 * r.normal(size=h), r.normal(size=h), r.normal(size=(n, d)), r.normal(size=n)


@program(_deq_args)
def deq_regression(W, U, b, w_out, X, y, tol=1e-12, max_iter=200):
    z = np.zeros((X.shape[0], W.shape[0]))
    for it in range(max_iter):
        z_new = np.tanh(z @ W.T + X @ U + b)
        if np.linalg.norm(z_new - z) / (1e-8 + np.linalg.norm(z_new)) < tol:
            break
        z = z_new
    pred = z_new @ w_out
    return 0.5 * np.mean((pred - y) ** 2)


# --- capsule networks: squash and three iterations of routing by agreement (Sabour et al.
#     2017) from 6 primary capsules to 3 class capsules, then the margin loss

def _capsule_args(r):
    n_in, d_in, n_out, d_out = 6, 4, 3, 5
    return r.normal(size=(n_in, n_out, d_out, d_in)) * 0.5, r.normal(size=(n_in, d_in)), np.array([0.0, 1.0, 0.0])


def squash(s, axis=-1, eps=1e-9):
    sq = np.sum(s ** 2, axis=axis, keepdims=True)
    return sq / (1 + sq) * s / np.sqrt(sq + eps)


@program(_capsule_args)
def capsule_margin_loss(W, u, target, iters=3, m_pos=0.9, m_neg=0.1, lam=0.5):
    u_hat = np.einsum("ijkl,il->ijk", W, u)            # (in, out, d_out)
    b = np.zeros(u_hat.shape[:2])
    for r in range(iters):
        c = np.exp(b) / np.exp(b).sum(axis=1, keepdims=True)
        s = (c[:, :, None] * u_hat).sum(axis=0)
        v = squash(s)
        if r < iters - 1:
            b = b + np.einsum("ijk,jk->ij", u_hat, v)
    lengths = np.linalg.norm(v, axis=-1)
    L = target * np.maximum(0, m_pos - lengths) ** 2 + lam * (1 - target) * np.maximum(0, lengths - m_neg) ** 2
    return L.sum()


# --- time series: ARIMA(1,1,1) by conditional sum of squares (Box & Jenkins), the
#     residuals by the recursion over the differenced series, the Gaussian profile
#     likelihood; phi and theta through tanh to stay stationary and invertible

def _arima_args(r):
    n = 40
    e = r.normal(size=n + 1)
    w = np.zeros(n)
    for t in range(1, n):
        w[t] = 0.1 + 0.5 * w[t - 1] + e[t] + 0.3 * e[t - 1]
    return np.array([0.3, 0.2, 0.05]), np.cumsum(np.r_[5.0, w])


@program(_arima_args)
def arima_css(params, y):
    phi, theta = np.tanh(params[0]), np.tanh(params[1])
    c = params[2]
    w = np.diff(y)
    n = len(w)
    e = np.zeros(n)
    for t in range(1, n):
        e[t] = w[t] - c - phi * w[t - 1] - theta * e[t - 1]
    css = np.sum(e[1:] ** 2)
    sigma2 = css / (n - 1)
    return 0.5 * (n - 1) * (np.log(2 * np.pi * sigma2) + 1)


# --- option smiles: Merton's jump-diffusion call prices (a Poisson-weighted series of
#     Black-Scholes prices), each inverted to a Black-Scholes implied volatility by Newton's
#     method until the price matches; the squared error to market implied vols

def _merton_args(r):
    strikes = np.array([80.0, 90.0, 100.0, 110.0, 120.0])
    market_iv = np.array([0.29, 0.25, 0.22, 0.21, 0.215])
    return np.array([np.log(0.18), np.log(0.5), -0.1, np.log(0.15)]), strikes, market_iv


def bs_call(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2)


def merton_call(S, K, T, r, sigma, lam, mu_j, delta, n_terms=15):
    k = np.exp(mu_j + 0.5 * delta ** 2) - 1
    lam_p = lam * (1 + k)
    price = 0.0
    weight = np.exp(-lam_p * T)
    for n in range(n_terms):
        if n > 0:
            weight = weight * lam_p * T / n
        sigma_n = np.sqrt(sigma ** 2 + n * delta ** 2 / T)
        r_n = r - lam * k + n * np.log(1 + k) / T
        price += weight * bs_call(S, K, T, r_n, sigma_n)
    return price


def implied_vol(price, S, K, T, r, sigma=0.3, tol=1e-12):
    for _ in range(50):
        d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
        vega = S * norm.pdf(d1) * np.sqrt(T)
        diff = bs_call(S, K, T, r, sigma) - price
        if abs(diff) < tol:
            break
        sigma = sigma - diff / vega
    return sigma


@program(_merton_args)
def merton_smile_fit(params, strikes, market_iv, S=100.0, T=0.5, r=0.02):
    sigma, lam, mu_j, delta = np.exp(params[0]), np.exp(params[1]), params[2], np.exp(params[3])
    err = 0.0
    for K, iv in zip(strikes, market_iv):
        price = merton_call(S, K, T, r, sigma, lam, mu_j, delta)
        err += (implied_vol(price, S, K, T, r) - iv) ** 2
    return err / len(strikes)


# --- count models: a hurdle Poisson GLM with exposure offsets (insurance claims): a
#     logistic model for any claim, a zero-truncated Poisson for how many, log(1 - e^-mu)
#     by np.log(-np.expm1(-mu))

def _hurdle_args(r):
    n, p = 30, 3
    X = np.c_[np.ones(n), r.normal(size=(n, p - 1))]
    exposure = r.uniform(0.5, 2.0, size=n)
    claims = r.poisson(1.2, size=n) * (r.uniform(size=n) < 0.6)
    return 0.2 * r.normal(size=p), 0.2 * r.normal(size=p), X, exposure, claims


@program(_hurdle_args)
def hurdle_poisson_nll(beta_zero, beta_count, X, exposure, claims):
    offset = np.log(exposure)
    p_any = expit(X @ beta_zero + offset)
    mu = np.exp(X @ beta_count + offset)
    positive = claims > 0
    ll_zero = np.log1p(-p_any[~positive]).sum()
    y, m = claims[positive], mu[positive]
    ll_pos = np.sum(np.log(p_any[positive]) + y * np.log(m) - m - np.log(-np.expm1(-m)) - gammaln(y + 1))
    return -(ll_zero + ll_pos) / len(claims)


# --- combinatorial optimisation: a pointer network's decoder (Vinyals et al. 2015) scoring
#     a given tour: additive attention over the encoded cities, cities already visited
#     masked to -inf before the log-softmax, a tanh RNN state fed the last city

def _pointer_args(r):
    n, d = 6, 5
    params = {"W_ref": 0.4 * r.normal(size=(d, d)), "W_q": 0.4 * r.normal(size=(d, d)), "v": r.normal(size=d),
              "W_h": 0.4 * r.normal(size=(d, d)), "W_x": 0.4 * r.normal(size=(d, d))}
    return params, r.normal(size=(n, d)), r.permutation(n)


@program(_pointer_args)
def pointer_tour_nll(params, enc, tour):
    n = enc.shape[0]
    visited = np.zeros(n, dtype=bool)
    h = enc.mean(axis=0)
    ref = enc @ params["W_ref"]
    nll = 0.0
    for city in tour:
        u = np.tanh(ref + h @ params["W_q"]) @ params["v"]
        u = np.where(visited, -np.inf, u)
        nll -= log_softmax(u)[city]
        visited[city] = True
        h = np.tanh(h @ params["W_h"] + enc[city] @ params["W_x"])
    return nll


# --- metric learning: the batch-hard triplet loss (Hermans et al. 2017), pairwise distances
#     from the Gram matrix, the hardest positive by a masked max and the hardest negative by
#     a max added to the non-negatives, the soft-margin form

def _triplet_args(r):
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    return r.normal(size=(8, 4)) + labels[:, None], labels


@program(_triplet_args)
def batch_hard_triplet(emb, labels, margin=0.3):
    sq = np.sum(emb ** 2, axis=1)
    d2 = sq[:, None] - 2 * emb @ emb.T + sq[None, :]
    dist = np.sqrt(np.maximum(d2, 1e-12))
    same = labels[:, None] == labels[None, :]
    pos_mask = same & ~np.eye(len(labels), dtype=bool)
    hardest_pos = np.max(dist * pos_mask, axis=1)
    max_d = np.max(dist, axis=1, keepdims=True)
    hardest_neg = np.min(dist + max_d * same, axis=1)
    return np.mean(np.log1p(np.exp(hardest_pos - hardest_neg + margin)))


# --- audio synthesis: DDSP's harmonic oscillator bank (Engel et al. 2020), f0 and the
#     harmonic amplitudes per frame upsampled by np.repeat, the phase by np.cumsum,
#     harmonics above Nyquist silenced; a framed RMS envelope compared in decibels

def _ddsp_args(r):
    frames, n_harm = 6, 5
    return 220.0 + 20 * r.normal(size=frames), 0.3 * r.normal(size=(frames, n_harm)), 0.1 + r.uniform(size=frames)


@program(_ddsp_args)
def ddsp_envelope_loss(f0, harm_logits, target_rms, sr=2000, hop=32):
    n_harm = harm_logits.shape[1]
    amps = np.exp(harm_logits) / np.exp(harm_logits).sum(axis=1, keepdims=True)
    f0_up = np.repeat(f0, hop)
    amps_up = np.repeat(amps, hop, axis=0)
    k = np.arange(1, n_harm + 1)
    freqs = f0_up[:, None] * k[None, :]
    amps_up = np.where(freqs < sr / 2, amps_up, 0.0)
    phase = 2 * np.pi * np.cumsum(freqs, axis=0) / sr
    audio = np.sum(amps_up * np.sin(phase), axis=1)
    rms = np.sqrt(np.mean(audio.reshape(-1, hop) ** 2, axis=1) + 1e-7)
    return np.mean((20 * np.log10(rms) - 20 * np.log10(target_rms)) ** 2)


# --- splatting: 2-D Gaussian splats (as in 3D Gaussian Splatting's rasteriser), each a
#     mean, log-scales, a rotation angle, an opacity logit and a colour, sorted by a fixed
#     depth and alpha-composited front to back on a pixel grid

def _splat_args(r):
    n = 5
    return (r.uniform(0, 8, size=(n, 2)), np.log(r.uniform(0.8, 2.0, size=(n, 2))), r.uniform(0, np.pi, size=n),
            r.normal(size=n), r.uniform(size=(n, 3)), r.uniform(size=n), r.uniform(size=(8, 8, 3)))


@program(_splat_args)
def splat_render_loss(means, log_scales, angles, opacity_logits, colors, depths, target):
    H, W = target.shape[:2]
    ys, xs = np.meshgrid(np.arange(H) + 0.5, np.arange(W) + 0.5, indexing="ij")
    pix = np.stack([xs.ravel(), ys.ravel()], axis=1)
    order = np.argsort(depths)
    image = np.zeros((H * W, 3))
    transmittance = np.ones(H * W)
    for g in order:
        c, s = np.cos(angles[g]), np.sin(angles[g])
        R = np.array([[c, -s], [s, c]])
        S = np.diag(np.exp(log_scales[g]))
        cov = R @ S @ S @ R.T
        inv = np.linalg.inv(cov)
        d = pix - means[g]
        power = -0.5 * np.einsum("pi,ij,pj->p", d, inv, d)
        alpha = np.minimum(0.99, expit(opacity_logits[g]) * np.exp(power))
        image += (transmittance * alpha)[:, None] * colors[g]
        transmittance = transmittance * (1 - alpha)
    return np.mean((image.reshape(H, W, 3) - target) ** 2)


# --- geometry processing: a closed triangle mesh (an octahedron) pushed towards a target
#     volume with small area and uniform-Laplacian smoothness terms; volume by the signed
#     tetrahedra sum, neighbours accumulated with np.add.at over the edges

OCTAHEDRON_FACES = np.array([[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4],
                             [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]])


def _mesh_args(r):
    V = np.array([[1.0, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]])
    return V + 0.1 * r.normal(size=V.shape), OCTAHEDRON_FACES


@program(_mesh_args)
def mesh_volume_energy(V, F, target_volume=2.0, w_area=0.05, w_smooth=0.1):
    v0, v1, v2 = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    volume = np.einsum("ij,ij->i", v0, np.cross(v1, v2)).sum() / 6.0
    area = 0.5 * np.linalg.norm(np.cross(v1 - v0, v2 - v0), axis=1).sum()
    edges = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    nbr_sum = np.zeros_like(V)
    degree = np.zeros(len(V))
    np.add.at(nbr_sum, edges[:, 0], V[edges[:, 1]])
    np.add.at(degree, edges[:, 0], 1)
    lap = V - nbr_sum / degree[:, None]
    return (volume - target_volume) ** 2 + w_area * area + w_smooth * np.sum(lap ** 2)


# --- knowledge graphs: RotatE (Sun et al. 2019), entities as complex vectors, relations as
#     phases, the distance |h * e^{i phase} - t| summed over dimensions; negatives weighted
#     by self-adversarial sampling

def _rotate_args(r):
    n_ent, n_rel, d = 7, 3, 4
    return (r.normal(size=(n_ent, d)), r.normal(size=(n_ent, d)), r.uniform(-np.pi, np.pi, size=(n_rel, d)),
            np.array([[0, 0, 1], [2, 1, 3], [4, 2, 5]]), np.array([[6, 5, 3], [0, 4, 2], [1, 6, 0]]))


@program(_rotate_args)
def rotate_loss(ent_re, ent_im, rel_phase, triples, neg_tails, gamma=6.0, adv_temp=1.0):
    ent = ent_re + 1j * ent_im
    h, r, t = triples[:, 0], triples[:, 1], triples[:, 2]
    rot = np.exp(1j * rel_phase[r])
    pos_dist = np.abs(ent[h] * rot - ent[t]).sum(axis=1)
    neg_dist = np.abs((ent[h] * rot)[:, None, :] - ent[neg_tails]).sum(axis=2)
    neg_score = gamma - neg_dist
    weights = np.exp(adv_temp * neg_score) / np.exp(adv_temp * neg_score).sum(axis=1, keepdims=True)
    pos_term = np.log(expit(gamma - pos_dist))
    neg_term = (weights * np.log(expit(-neg_score))).sum(axis=1)
    return -(pos_term + neg_term).mean()


# --- ordinal regression: the proportional-odds (cumulative logit) model, ordered cut points
#     by a cumulative sum of exponentials, padded with -inf and +inf so every class is a
#     difference of two expits

def _ordinal_args(r):
    n, p, K = 20, 3, 4
    return 0.3 * r.normal(size=p), np.array([-1.0, np.log(1.0), np.log(1.2)]), r.normal(size=(n, p)), r.integers(0, K, size=n)


@program(_ordinal_args)
def ordinal_logit_nll(beta, cut_params, X, y):
    cuts = np.cumsum(np.concatenate([cut_params[:1], np.exp(cut_params[1:])]))
    cuts = np.concatenate([[-np.inf], cuts, [np.inf]])
    eta = X @ beta
    p = expit(cuts[y + 1] - eta) - expit(cuts[y] - eta)
    return -np.sum(np.log(p))


# --- sequence labelling: a token classifier's loss as PyTorch computes it, padding tokens
#     labelled -100 (ignore_index), label smoothing, per-class weights

def _tagging_args(r):
    n, d, k = 12, 5, 4
    labels = r.integers(0, k, size=n)
    labels[[3, 7, 11]] = -100
    return 0.5 * r.normal(size=(d, k)), np.zeros(k), r.normal(size=(n, d)), labels, np.array([1.0, 2.0, 1.0, 0.5])


@program(_tagging_args)
def smoothed_tagging_loss(W, b, H, labels, class_weight, smoothing=0.1, ignore_index=-100):
    logits = H @ W + b
    logp = logits - logsumexp(logits, axis=-1, keepdims=True)
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    nll = -np.take_along_axis(logp, safe[:, None], axis=1)[:, 0] * class_weight[safe]
    smooth = -(logp * class_weight).mean(axis=-1)
    per_token = (1 - smoothing) * nll + smoothing * smooth
    return per_token[valid].sum() / class_weight[safe][valid].sum()


# --- materials: an embedded-atom potential (Daw & Baskes), each atom's electron density a
#     sum of exponentials over its neighbours within the cut-off, the embedding energy
#     -sqrt(rho), a Morse pair term; pairs from np.triu_indices, densities by np.add.at

def _eam_args(r):
    g = np.arange(3) * 2.5
    pos = np.array([[x, y, 0.0] for x in g for y in g]) + 0.1 * r.normal(size=(9, 3))
    return pos, np.array([1.0, 1.3])


@program(_eam_args)
def eam_energy(pos, morse, A=1.0, beta=1.2, r_cut=4.0, r0=2.5):
    n = len(pos)
    i, j = np.triu_indices(n, k=1)
    rij = np.linalg.norm(pos[i] - pos[j], axis=1)
    within = rij < r_cut
    i, j, rij = i[within], j[within], rij[within]
    f = A * np.exp(-beta * (rij - r0))
    rho = np.zeros(n)
    np.add.at(rho, i, f)
    np.add.at(rho, j, f)
    D, a = morse
    phi = D * (np.exp(-2 * a * (rij - r0)) - 2 * np.exp(-a * (rij - r0)))
    return np.sum(-np.sqrt(rho)) + np.sum(phi)


# --- hydrology: the GR4J rainfall-runoff model (Perrin et al. 2003)'s production and
#     routing stores day by day (a fixed unit hydrograph by np.convolve), scored by
#     1 - Nash-Sutcliffe efficiency against observed flow

def _gr4j_args(r):
    days = 30
    rain = r.gamma(0.6, 8.0, size=days)
    pet = 2.0 + np.sin(np.arange(days) / 5.0)
    return np.log(np.array([300.0, 80.0])), 0.5, rain, pet, 1.0 + r.uniform(size=days)


@program(_gr4j_args)
def gr4j_nse(log_x, x2, rain, pet, q_obs):
    x1, x3 = np.exp(log_x)
    S, R = 0.5 * x1, 0.5 * x3
    uh = np.array([0.1, 0.4, 0.3, 0.2])
    pr = np.zeros(len(rain))
    for t in range(len(rain)):
        if rain[t] >= pet[t]:
            pn, en = rain[t] - pet[t], 0.0
        else:
            pn, en = 0.0, pet[t] - rain[t]
        tp = np.tanh(pn / x1)
        ps = x1 * (1 - (S / x1) ** 2) * tp / (1 + S / x1 * tp)
        te = np.tanh(en / x1)
        es = S * (2 - S / x1) * te / (1 + (1 - S / x1) * te)
        S = S + ps - es
        perc = S * (1 - (1 + (4 / 9 * S / x1) ** 4) ** -0.25)
        S = S - perc
        pr[t] = perc + pn - ps
    routed = np.convolve(pr, uh)[:len(rain)]
    q = np.zeros(len(rain))
    for t in range(len(rain)):
        F = x2 * (R / x3) ** 3.5
        R = max(0.0, R + 0.9 * routed[t] + F)
        qr = R * (1 - (1 + (R / x3) ** 4) ** -0.25)
        R = R - qr
        q[t] = qr + max(0.0, 0.1 * routed[t] + F)
    return np.sum((q - q_obs) ** 2) / np.sum((q_obs - q_obs.mean()) ** 2)


# --- meta-learning: MAML (Finn et al. 2017), one inner SGD step on the support set by
#     sstad.grad inside the loss, the fast weights by a dict comprehension over the
#     parameters, the query loss averaged over a list of tasks

def _maml_args(r):
    params = {"W": 0.5 * r.normal(size=(1, 8)), "b": 0.1 * r.normal(size=8), "v": 0.5 * r.normal(size=8)}
    tasks = []
    for amp, phase in [(1.0, 0.3), (0.6, 1.2), (1.4, -0.5)]:
        xs, xq = r.uniform(-3, 3, size=(5, 1)), r.uniform(-3, 3, size=(5, 1))
        tasks.append((xs, amp * np.sin(xs[:, 0] + phase), xq, amp * np.sin(xq[:, 0] + phase)))
    return params, tasks


def regression_loss(params, x, y):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.mean((h @ params["v"] - y) ** 2)


@program(_maml_args)
def maml_query_loss(params, tasks, inner_lr=0.05):
    total = 0.0
    for x_s, y_s, x_q, y_q in tasks:
        grads = sstad.grad(regression_loss)(params, x_s, y_s)
        fast = {name: w - inner_lr * grads[name] for name, w in params.items()}
        total += regression_loss(fast, x_q, y_q)
    return total / len(tasks)


# --- variational inference: a VAE's negative ELBO by Monte Carlo over several samples of
#     the reparameterised latent, the noise drawn inside the loss after seeding NumPy's
#     global generator (as many course notebooks do, for reproducibility).  Not in PROGRAMS:
#     sstad refuses np.random in compiled code (the seed ran once, at compile time: the value
#     was not NumPy's); tests/test_user_programs_9.py checks the refusal

def _mc_vae_args(r):
    d, k, h = 4, 2, 6
    params = {"enc_W": 0.4 * r.normal(size=(d, h)), "mu_W": 0.4 * r.normal(size=(h, k)),
              "logvar_W": 0.2 * r.normal(size=(h, k)), "dec_W": 0.4 * r.normal(size=(k, d))}
    return params, r.normal(size=(5, d))


def mc_vae_negative_elbo(params, x, n_samples=3, seed=0):
    np.random.seed(seed)
    h = np.tanh(x @ params["enc_W"])
    mu, log_var = h @ params["mu_W"], h @ params["logvar_W"]
    recon = 0.0
    for _ in range(n_samples):
        eps = np.random.standard_normal(mu.shape)
        z = mu + np.exp(0.5 * log_var) * eps
        x_hat = z @ params["dec_W"]
        recon += 0.5 * np.sum((x - x_hat) ** 2) / n_samples
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return (recon + kl) / x.shape[0]
