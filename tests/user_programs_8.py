"""An eighth batch of programs as their authors write them, from fields the other batches do
not cover: finite elements (a 1-D bar, element matrices added with K[e:e + 2, e:e + 2] +=),
survival analysis (Cox's partial likelihood with a reversed cumulative sum), paired
comparisons (Bradley-Terry with a home advantage, Plackett-Luce over race results), word
embeddings (word2vec's negative sampling, a hand-written SGD step scattered by np.add.at),
robotics (a planar arm's inverse kinematics by damped least squares), optimal transport
(log-domain Sinkhorn until the marginals match), point processes (a Hawkes process's
likelihood by Ozaki's recursion), volatility (GARCH(1,1)), visualisation (t-SNE's KL with
van der Maaten's perplexity search), sparse models (a top-k mixture of experts with
np.take_along_axis and boolean-mask updates), thin-film optics (the transfer-matrix
method, complex 2x2 products), navigation (a GPS fix by Gauss-Newton), differentiable
rendering (sphere tracing a smooth union of spheres), econometrics (mixed logit with
simulation draws, a Tobit model by scipy.stats.norm), style transfer (Gram matrices of a
two-layer CNN, one layer by sliding_window_view and one by loops), graph learning (a GCN on
a graph given by its edges), link analysis (PageRank until the change is small),
forecasting (additive Holt-Winters with its seasons in a list) and GAN training (WGAN-GP's
gradient penalty, sstad.grad inside the loss).

tests/test_user_programs_8.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import expit, logsumexp
from scipy.stats import norm

import sstad
from program_registry import registry

PROGRAMS, program = registry()


# --- finite elements: a bar fixed at x = 0 under a distributed load, linear elements, the
#     stiffness assembled element by element into overlapping 2x2 blocks; the compliance
#     plus a material cost, as a function of the log stiffness of each element

def _fem_args(r):
    return 0.2 * r.normal(size=8), 1.0 + 0.3 * r.uniform(size=9)


@program(_fem_args)
def fem_bar_compliance(log_EA, f_nodes, L=1.0):
    n_el = len(log_EA)
    h = L / n_el
    EA = np.exp(log_EA)
    n_nodes = n_el + 1
    K = np.zeros((n_nodes, n_nodes))
    F = np.zeros(n_nodes)
    for e in range(n_el):
        ke = EA[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        K[e:e + 2, e:e + 2] += ke
        F[e:e + 2] += f_nodes[e:e + 2].mean() * h / 2
    u = np.zeros(n_nodes)
    u[1:] = np.linalg.solve(K[1:, 1:], F[1:])          # the node at x = 0 is fixed
    return F @ u + 0.01 * EA.sum() * h


# --- survival analysis: the Cox proportional hazards model's negative partial log-likelihood
#     (Breslow, no ties), the risk sets by a cumulative sum over the times sorted in reverse,
#     as lifelines and many tutorials write it

def _cox_args(r):
    n, p = 14, 3
    X = r.normal(size=(n, p))
    times = r.exponential(size=n)
    events = (r.uniform(size=n) < 0.7).astype(int)
    return 0.3 * r.normal(size=p), X, times, events


@program(_cox_args)
def cox_partial_likelihood(beta, X, times, events, l2=0.1):
    order = np.argsort(times)
    X, events = X[order], events[order]
    eta = X @ beta
    risk = np.cumsum(np.exp(eta)[::-1])[::-1]          # sum over everyone still at risk
    log_lik = np.sum(events * (eta - np.log(risk)))
    return -log_lik / events.sum() + l2 * beta @ beta


# --- paired comparisons: Bradley-Terry strengths (centred) with a home advantage fitted to
#     game results, and Plackett-Luce over the finishing orders of races

def _bt_args(r):
    n_teams, n_games = 6, 20
    home = r.integers(0, n_teams, size=n_games)
    away = (home + r.integers(1, n_teams, size=n_games)) % n_teams
    home_won = (r.uniform(size=n_games) < 0.55).astype(float)
    return 0.5 * r.normal(size=n_teams), 0.3, home, away, home_won


@program(_bt_args)
def bradley_terry_nll(strength, home_adv, home, away, home_won, l2=0.5):
    s = strength - strength.mean()
    d = s[home] - s[away] + home_adv
    nll = np.sum(home_won * np.logaddexp(0, -d) + (1 - home_won) * np.logaddexp(0, d))
    return nll + l2 * np.sum(s ** 2)


def _pl_args(r):
    n_drivers = 6
    races = np.array([r.permutation(n_drivers)[:4] for _ in range(5)])   # the first four home
    return 0.5 * r.normal(size=n_drivers), races


@program(_pl_args)
def plackett_luce_nll(theta, finishing_orders):
    ll = 0.0
    for race in finishing_orders:
        s = theta[race]
        for j in range(len(race) - 1):
            ll += s[j] - logsumexp(s[j:])
    return -ll + 0.1 * np.sum(theta ** 2)


# --- word embeddings: skip-gram with negative sampling (Mikolov et al. 2013), one SGD step
#     written by hand as in the original C code (the updates scattered by np.add.at, repeated
#     words adding up), then the loss after the step, as a function of the embeddings

def _w2v_args(r):
    V, d, n, k = 10, 4, 12, 3
    return (0.3 * r.normal(size=(V, d)), 0.3 * r.normal(size=(V, d)), r.integers(0, V, size=n),
            r.integers(0, V, size=n), r.integers(0, V, size=(n, k)))


def log_sigmoid(x):
    return -np.logaddexp(0, -x)


def sgns_loss(W_in, W_out, centers, contexts, negatives):
    v = W_in[centers]
    u_pos = W_out[contexts]
    u_neg = W_out[negatives]                            # (n, k, d)
    pos = log_sigmoid(np.sum(v * u_pos, axis=1))
    neg = log_sigmoid(-np.einsum("nkd,nd->nk", u_neg, v)).sum(axis=1)
    return -np.mean(pos + neg)


@program(_w2v_args)
def word2vec_after_sgd_step(W_in, W_out, centers, contexts, negatives, lr=0.5):
    v = W_in[centers]
    u_pos = W_out[contexts]
    u_neg = W_out[negatives]
    g_pos = expit(np.sum(v * u_pos, axis=1)) - 1.0
    g_neg = expit(np.einsum("nkd,nd->nk", u_neg, v))
    grad_v = g_pos[:, None] * u_pos + np.einsum("nk,nkd->nd", g_neg, u_neg)
    W_in_new = W_in.copy()
    W_out_new = W_out.copy()
    np.add.at(W_in_new, centers, -lr * grad_v)
    np.add.at(W_out_new, contexts, -lr * g_pos[:, None] * v)
    np.add.at(W_out_new, negatives, -lr * g_neg[:, :, None] * v[:, None, :])
    return sgns_loss(W_in_new, W_out_new, centers, contexts, negatives)


# --- robotics: a planar arm's forward kinematics by cumulative sums of the joint angles, its
#     inverse kinematics by damped least squares (the Jacobian column by column), the reach
#     error and posture cost as a function of the link lengths and the start posture

def forward_kinematics(angles, lengths):
    phi = np.cumsum(angles)
    x = np.cumsum(lengths * np.cos(phi))
    y = np.cumsum(lengths * np.sin(phi))
    return np.stack([x, y], axis=1)


def arm_jacobian(angles, lengths):
    phi = np.cumsum(angles)
    n = len(angles)
    J = np.zeros((2, n))
    for i in range(n):
        J[0, i] = -np.sum(lengths[i:] * np.sin(phi[i:]))
        J[1, i] = np.sum(lengths[i:] * np.cos(phi[i:]))
    return J


def _ik_args(r):
    return np.array([1.0, 0.8, 0.6]), np.array([0.3, 0.4, 0.2]) + 0.05 * r.normal(size=3), np.array([1.2, 1.1])


@program(_ik_args)
def arm_inverse_kinematics(lengths, angles0, target, damping=0.3, iters=12):
    q = angles0.copy()
    for _ in range(iters):
        e = target - forward_kinematics(q, lengths)[-1]
        if np.linalg.norm(e) < 1e-13:
            break
        J = arm_jacobian(q, lengths)
        q = q + J.T @ np.linalg.solve(J @ J.T + damping ** 2 * np.eye(2), e)
    end = forward_kinematics(q, lengths)[-1]
    return np.sum((end - target) ** 2) + 0.05 * np.sum(q ** 2)


# --- optimal transport: entropic OT between two weighted point clouds, the log-domain
#     Sinkhorn iterations run until the row marginals match, the transport cost of the plan

def _ot_args(r):
    return r.normal(size=(5, 2)), r.normal(size=(4, 2)) + 0.5, r.normal(size=5), r.normal(size=4)


@program(_ot_args)
def sinkhorn_cost(x, y, a_logits, b_logits, eps=0.5, tol=1e-10, max_iter=1000):
    a = np.exp(a_logits) / np.exp(a_logits).sum()
    b = np.exp(b_logits) / np.exp(b_logits).sum()
    C = np.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
    f = np.zeros(len(a))
    g = np.zeros(len(b))
    err, it = np.inf, 0
    while err > tol and it < max_iter:
        f = eps * np.log(a) - eps * logsumexp((g[None, :] - C) / eps, axis=1)
        g = eps * np.log(b) - eps * logsumexp((f[:, None] - C) / eps, axis=0)
        P = np.exp((f[:, None] + g[None, :] - C) / eps)
        err = np.abs(P.sum(axis=1) - a).sum()
        it += 1
    return np.sum(P * C)


# --- point processes: the negative log-likelihood of a univariate Hawkes process with an
#     exponential kernel on [0, T], the intensity at each event by Ozaki's O(n) recursion

def _hawkes_args(r):
    times = np.cumsum(r.exponential(0.6, size=15))
    return np.log(np.array([0.8, 0.5, 1.5])), times, float(times[-1] + 0.5)


@program(_hawkes_args)
def hawkes_nll(log_params, times, T):
    mu, alpha, beta = np.exp(log_params)
    n = len(times)
    A = np.zeros(n)
    for i in range(1, n):
        A[i] = np.exp(-beta * (times[i] - times[i - 1])) * (1 + A[i - 1])
    log_lik = np.sum(np.log(mu + alpha * A))
    log_lik -= mu * T + alpha / beta * np.sum(1 - np.exp(-beta * (T - times)))
    return -log_lik


# --- volatility: the Gaussian GARCH(1,1) negative log-likelihood, the conditional variances
#     filled in a loop from the sample variance (the "backcast"), as the arch package does

def _garch_args(r):
    return np.array([0.02, 0.1, 0.1, 0.8]), 0.05 + r.standard_t(6, size=40) * 0.8


@program(_garch_args)
def garch11_nll(params, returns):
    mu, omega, alpha, beta = params
    eps = returns - mu
    sigma2 = np.empty_like(returns)
    sigma2[0] = eps.var()
    for t in range(1, len(returns)):
        sigma2[t] = omega + alpha * eps[t - 1] ** 2 + beta * sigma2[t - 1]
    return 0.5 * np.sum(np.log(2 * np.pi) + np.log(sigma2) + eps ** 2 / sigma2)


# --- visualisation: t-SNE's objective KL(P || Q) (van der Maaten's tsne.py): the input
#     affinities by a bisection on each point's precision until its perplexity matches,
#     the Student-t affinities of the embedding with the diagonal zeroed by
#     num[range(n), range(n)] = 0; of the embedding of count data (the counts are data: the
#     bisection's precisions are a staircase in X, flat to sstad, sloped to finite differences)

def Hbeta(D, beta=1.0):
    P = np.exp(-D.copy() * beta)
    sumP = sum(P)
    H = np.log(sumP) + beta * np.sum(D * P) / sumP
    P = P / sumP
    return H, P


def x2p(X, tol=1e-5, perplexity=3.0):
    (n, d) = X.shape
    sum_X = np.sum(np.square(X), 1)
    D = np.add(np.add(-2 * np.dot(X, X.T), sum_X).T, sum_X)
    P = np.zeros((n, n))
    beta = np.ones(n)
    logU = np.log(perplexity)
    for i in range(n):
        betamin = -np.inf
        betamax = np.inf
        others = np.concatenate((np.r_[0:i], np.r_[i + 1:n]))
        Di = D[i, others]
        (H, thisP) = Hbeta(Di, beta[i])
        Hdiff = H - logU
        tries = 0
        while np.abs(Hdiff) > tol and tries < 50:
            if Hdiff > 0:
                betamin = beta[i]
                if betamax == np.inf or betamax == -np.inf:
                    beta[i] = beta[i] * 2.
                else:
                    beta[i] = (beta[i] + betamax) / 2.
            else:
                betamax = beta[i]
                if betamin == np.inf or betamin == -np.inf:
                    beta[i] = beta[i] / 2.
                else:
                    beta[i] = (beta[i] + betamin) / 2.
            (H, thisP) = Hbeta(Di, beta[i])
            Hdiff = H - logU
            tries += 1
        P[i, others] = thisP
    return P


def _tsne_args(r):
    return r.normal(size=(7, 2)), r.poisson(3.0, size=(7, 5))


@program(_tsne_args)
def tsne_kl(Y, counts, perplexity=3.0):
    X = np.log1p(counts)
    n = X.shape[0]
    P = x2p(X, 1e-5, perplexity)
    P = P + np.transpose(P)
    P = P / np.sum(P)
    P = np.maximum(P, 1e-12)
    sum_Y = np.sum(np.square(Y), 1)
    num = -2. * np.dot(Y, Y.T)
    num = 1. / (1. + np.add(np.add(num, sum_Y).T, sum_Y))
    num[range(n), range(n)] = 0.
    Q = num / np.sum(num)
    Q = np.maximum(Q, 1e-12)
    return np.sum(P * np.log(P / Q))


# --- sparse models: a mixture of experts with top-k gating (Shazeer et al. 2017): the k
#     largest gate logits by argsort and np.take_along_axis, a softmax over them, each
#     expert applied to the rows routed to it (a boolean mask, out[mask] +=), plus the
#     importance (load-balancing) loss

def _moe_args(r):
    n, d, E, d_out = 10, 3, 4, 2
    experts = [0.5 * r.normal(size=(d, d_out)) for _ in range(E)]
    return r.normal(size=(d, E)), experts, r.normal(size=(n, d)), r.normal(size=(n, d_out))


@program(_moe_args)
def moe_top2_loss(W_gate, experts, x, y, k=2, w_aux=0.01):
    logits = x @ W_gate
    top = np.argsort(logits, axis=1)[:, -k:]
    top_logits = np.take_along_axis(logits, top, axis=1)
    gates = np.exp(top_logits - top_logits.max(axis=1, keepdims=True))
    gates /= gates.sum(axis=1, keepdims=True)
    out = np.zeros((x.shape[0], y.shape[1]))
    for j in range(k):
        for e, W in enumerate(experts):
            mask = top[:, j] == e
            out[mask] += gates[mask, j:j + 1] * np.tanh(x[mask] @ W)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    importance = probs.sum(axis=0)
    cv2 = importance.var() / importance.mean() ** 2
    return np.mean((out - y) ** 2) + w_aux * cv2


# --- thin-film optics: a two-layer anti-reflection coating by the transfer-matrix method
#     (each layer's characteristic matrix, complex, multiplied in order), the mean
#     reflectance over the visible band as a function of the thicknesses and indices

def _tmm_args(r):
    return np.array([95.0, 120.0]), np.array([1.38, 2.0]), np.linspace(420.0, 680.0, 6)


@program(_tmm_args)
def coating_reflectance(d, n_layers, wavelengths, n_sub=1.52, n0=1.0):
    R = []
    for lam in wavelengths:
        M = np.eye(2, dtype=complex)
        for dj, nj in zip(d, n_layers):
            delta = 2 * np.pi * nj * dj / lam
            Mj = np.array([[np.cos(delta), 1j * np.sin(delta) / nj],
                           [1j * nj * np.sin(delta), np.cos(delta)]])
            M = M @ Mj
        B, C = M @ np.array([1.0, n_sub])
        r = (n0 * B - C) / (n0 * B + C)
        R.append(np.abs(r) ** 2)
    return np.mean(np.array(R))


# --- navigation: a GPS fix (position and clock bias) from pseudoranges by Gauss-Newton,
#     each step by np.linalg.lstsq, stopped once the step is tiny; in Earth radii

def _gps_args(r):
    sats = r.normal(size=(6, 3))
    sats = 4.2 * sats / np.linalg.norm(sats, axis=1, keepdims=True)
    receiver = np.array([0.6, 0.5, 0.62])
    ranges = np.linalg.norm(sats - receiver, axis=1) + 0.01 + 1e-3 * r.normal(size=6)
    return sats, ranges, np.zeros(4)


@program(_gps_args)
def gps_gauss_newton(sat_pos, pseudoranges, x0):
    x = x0.copy()
    for it in range(20):
        diff = x[:3] - sat_pos
        rho = np.linalg.norm(diff, axis=1)
        residual = pseudoranges - (rho + x[3])
        J = np.hstack([diff / rho[:, None], np.ones((len(rho), 1))])
        dx, *_ = np.linalg.lstsq(J, residual, rcond=None)
        x = x + dx
        if np.linalg.norm(dx) < 1e-14:
            break
    return x


# --- differentiable rendering: sphere tracing a smooth union of spheres (polynomial smooth
#     minimum, Inigo Quilez's), one ray per pixel marched until the distance is tiny; the
#     depths against a target depth map

def smooth_min(a, b, k=0.3):
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b * (1 - h) + a * h - k * h * (1 - h)


def scene_sdf(p, centers, radii):
    d = np.linalg.norm(p - centers[0]) - radii[0]
    for c, r in zip(centers[1:], radii[1:]):
        d = smooth_min(d, np.linalg.norm(p - c) - r)
    return d


def _trace_args(r):
    centers = np.array([[0.0, 0.0, 3.0], [0.6, 0.2, 3.3]])
    radii = np.array([0.6, 0.5])
    u = np.linspace(-0.15, 0.2, 4)
    directions = np.array([[a, b, 1.0] for a in u for b in (-0.1, 0.05)])
    directions = directions / np.linalg.norm(directions, axis=1, keepdims=True)
    return centers, radii, np.zeros((8, 3)), directions, 2.5 + 0.1 * r.uniform(size=8)


@program(_trace_args)
def sphere_trace_depths(centers, radii, origins, directions, target, max_steps=200, t_max=10.0):
    depths = np.zeros(len(origins))
    for i in range(len(origins)):
        t = 0.0
        steps = 0
        while steps < max_steps:
            d = scene_sdf(origins[i] + t * directions[i], centers, radii)
            if d < 1e-13:
                break
            t += d
            if t > t_max:
                t = t_max
                break
            steps += 1
        depths[i] = t
    return np.sum((depths - target) ** 2)


# --- econometrics: a mixed logit's simulated log-likelihood (random coefficients from fixed
#     normal draws, the chosen alternative picked by P[np.arange(n), :, choices]); a Tobit
#     model censored at zero by scipy.stats.norm's logcdf and logpdf

def _mixed_logit_args(r):
    n, J, K, R = 8, 3, 2, 5
    return (np.array([0.5, -0.3]), np.log(np.array([0.4, 0.7])), r.normal(size=(n, J, K)),
            r.integers(0, J, size=n), r.normal(size=(R, K)))


@program(_mixed_logit_args)
def mixed_logit_nll(beta_mean, log_beta_sd, X, choices, draws):
    n = X.shape[0]
    beta = beta_mean + np.exp(log_beta_sd) * draws           # (R, K)
    V = np.einsum("njk,rk->nrj", X, beta)
    V = V - V.max(axis=2, keepdims=True)
    P = np.exp(V) / np.exp(V).sum(axis=2, keepdims=True)    # (n, R, J)
    P_chosen = P[np.arange(n), :, choices]                   # (n, R)
    return -np.sum(np.log(P_chosen.mean(axis=1)))


def _tobit_args(r):
    X = np.column_stack([np.ones(12), r.normal(size=(12, 2))])
    y_star = X @ np.array([0.3, 1.0, -0.5]) + 0.7 * r.normal(size=12)
    censored = y_star <= 0.0
    return np.array([0.2, 0.8, -0.4]), np.log(0.8), X, np.maximum(y_star, 0.0), censored


@program(_tobit_args)
def tobit_nll(beta, log_sigma, X, y, censored, left=0.0):
    sigma = np.exp(log_sigma)
    xb = X @ beta
    ll = np.where(censored, norm.logcdf((left - xb) / sigma), norm.logpdf(y, loc=xb, scale=sigma))
    return -ll.sum()


# --- style transfer: a two-layer CNN (the first convolution by sliding_window_view and
#     einsum, the second by loops over output pixels, 2x2 max pooling by reshape), the
#     content loss and the style loss between Gram matrices, as a function of the image

def conv2d_windows(x, w, b):
    windows = sliding_window_view(x, w.shape[2:], axis=(1, 2))      # (C, H', W', kh, kw)
    return np.einsum("chwij,fcij->fhw", windows, w) + b[:, None, None]


def conv2d_loops(x, w, b):
    F, C, kh, kw = w.shape
    H, W = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((F, H, W))
    for i in range(H):
        for j in range(W):
            patch = x[:, i:i + kh, j:j + kw]
            out[:, i, j] = np.sum(w * patch, axis=(1, 2, 3)) + b
    return out


def gram(features):
    C = features.shape[0]
    flat = features.reshape(C, -1)
    return flat @ flat.T / flat.shape[1]


def _style_args(r):
    return (r.uniform(size=(2, 10, 10)), r.uniform(size=(2, 10, 10)), r.uniform(size=(2, 10, 10)),
            {"w1": 0.5 * r.normal(size=(3, 2, 3, 3)), "b1": 0.1 * r.normal(size=3),
             "w2": 0.5 * r.normal(size=(4, 3, 2, 2)), "b2": 0.1 * r.normal(size=4)})


@program(_style_args)
def style_transfer_loss(image, content, style, net, alpha=1.0, beta=10.0):
    def features(x):
        h1 = np.tanh(conv2d_windows(x, net["w1"], net["b1"]))       # (3, 8, 8)
        C, H, W = h1.shape
        pooled = h1.reshape(C, H // 2, 2, W // 2, 2).max(axis=(2, 4))
        h2 = np.tanh(conv2d_loops(pooled, net["w2"], net["b2"]))   # (4, 3, 3)
        return [h1, h2]
    fi, fc, fs = features(image), features(content), features(style)
    content_loss = np.mean((fi[1] - fc[1]) ** 2)
    style_loss = sum(np.sum((gram(a) - gram(s)) ** 2) for a, s in zip(fi, fs))
    return alpha * content_loss + beta * style_loss


# --- graph learning: a two-layer GCN (Kipf & Welling 2017), the adjacency built from an
#     edge list, symmetric normalisation with self-loops, the cross-entropy on the labelled
#     nodes picked by a boolean mask

def _gcn_args(r):
    n, d, h, c = 8, 4, 5, 3
    src = np.array([0, 1, 2, 3, 4, 5, 6, 0, 2, 5])
    dst = np.array([1, 2, 3, 4, 5, 6, 7, 4, 6, 7])
    labels = r.integers(0, c, size=n)
    train_mask = np.array([True, False, True, True, False, True, False, True])
    return (0.5 * r.normal(size=(d, h)), 0.5 * r.normal(size=(h, c)), r.normal(size=(n, d)),
            src, dst, labels, train_mask)


@program(_gcn_args)
def gcn_node_classification(W1, W2, X, src, dst, labels, train_mask, weight_decay=5e-4):
    n = X.shape[0]
    A = np.zeros((n, n))
    A[src, dst] = 1.0
    A[dst, src] = 1.0
    A_hat = A + np.eye(n)
    deg = A_hat.sum(axis=1)
    D_inv_sqrt = np.diag(deg ** -0.5)
    A_norm = D_inv_sqrt @ A_hat @ D_inv_sqrt
    H = np.maximum(A_norm @ X @ W1, 0)
    logits = A_norm @ H @ W2
    log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
    nll = -log_probs[train_mask, labels[train_mask]].mean()
    return nll + weight_decay * np.sum(W1 ** 2)


# --- link analysis: personalised PageRank on a weighted graph (the weights' logs as
#     parameters), the dangling node's mass sent by the teleport vector, power iteration
#     until the L1 change is small; the scores returned.  (The teleport vector is
#     normalised first: otherwise the total mass converges at rate alpha, far slower than
#     the scores, and the unrolled loop's derivative, exact for its iteration count, is not
#     yet the converged one that finite differences see.)

def _pagerank_args(r):
    src = np.array([0, 0, 1, 2, 2, 3, 4, 4])
    dst = np.array([1, 2, 2, 0, 3, 4, 0, 1])                  # node 5 has no out-links
    return 0.3 * r.normal(size=8), src, dst, np.array([0.3, 0.1, 0.1, 0.2, 0.1, 0.2])


@program(_pagerank_args)
def personalised_pagerank(log_w, src, dst, teleport, alpha=0.85, tol=1e-12):
    n = len(teleport)
    teleport = teleport / teleport.sum()
    W = np.zeros((n, n))
    W[dst, src] = np.exp(log_w)
    out_weight = W.sum(axis=0)
    dangling = out_weight == 0
    M = W / np.where(dangling, 1.0, out_weight)
    r = np.full(n, 1.0 / n)
    while True:
        r_new = alpha * (M @ r + r[dangling].sum() * teleport) + (1 - alpha) * teleport
        if np.abs(r_new - r).sum() < tol:
            break
        r = r_new
    return r_new


# --- forecasting: additive Holt-Winters smoothing (the smoothing constants as logits), the
#     seasonal components in a list written at t % m, the mean squared one-step error

def _hw_args(r):
    t = np.arange(24)
    y = 10 + 0.2 * t + 2.0 * np.sin(2 * np.pi * t / 4) + 0.3 * r.normal(size=24)
    return np.array([0.0, -1.5, -0.5]), y


@program(_hw_args)
def holt_winters_mse(params, y, m=4):
    alpha, beta, gamma = 1 / (1 + np.exp(-params))
    level = y[:m].mean()
    trend = (y[m:2 * m].mean() - y[:m].mean()) / m
    season = list(y[:m] - level)
    sse = 0.0
    for t in range(len(y)):
        s = season[t % m]
        err = y[t] - (level + trend + s)
        sse += err ** 2
        new_level = alpha * (y[t] - s) + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        season[t % m] = gamma * (y[t] - new_level) + (1 - gamma) * s
        level = new_level
    return sse / len(y)


# --- GAN training: the WGAN-GP critic loss (Gulrajani et al. 2017), the critic's gradient at
#     points between real and fake samples by sstad.grad inside the loss, its norm pushed
#     towards 1

def critic(params, x):
    return np.tanh(x @ params["W1"] + params["b1"]) @ params["w2"]


def _wgan_args(r):
    params = {"W1": 0.7 * r.normal(size=(2, 5)), "b1": 0.1 * r.normal(size=5), "w2": r.normal(size=5)}
    return params, r.normal(size=(6, 2)), r.normal(size=(6, 2)) + 1.0, r.uniform(size=6)


@program(_wgan_args)
def wgan_gp_critic_loss(params, real, fake, eps, lam=10.0):
    interp = eps[:, None] * real + (1 - eps[:, None]) * fake
    grads = sstad.grad(lambda x: np.sum(critic(params, x)))(interp)
    slopes = np.sqrt(np.sum(grads ** 2, axis=1))
    penalty = np.mean((slopes - 1.0) ** 2)
    return np.mean(critic(params, fake)) - np.mean(critic(params, real)) + lam * penalty
