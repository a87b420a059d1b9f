"""A tenth batch of programs as their authors write them, from fields the other batches do
not cover: recommender systems (Bayesian personalised ranking over sampled triples), graph
attention (a GAT layer's softmax over neighbours masked by the adjacency), parametric
survival (a Weibull accelerated failure time model with right censoring), interatomic
potentials (Morse pairs by np.triu_indices with a shifted cutoff by np.where), robotics (a
Denavit-Hartenberg chain of 4x4 transforms, a pose loss by the rotation's trace), option
pricing by Fourier inversion (Heston's characteristic function in Albrecher's form,
Gil-Pelaez integrals over a complex grid), power systems (AC power flow mismatches,
S = V conj(Y V)), industrial organisation (BLP's share inversion by the contraction until
the change is small, then a GMM objective), data assimilation (strong-constraint 4D-Var on
Lorenz-96 by RK4 with np.roll), epidemiology (an SEIR model by Euler in a `while` loop,
weekly incidence fitted by a Poisson likelihood), splines (B-spline basis by the Cox-de Boor
recursion with clamped knots), distributional reinforcement learning (QR-DQN's quantile
Huber loss), geostatistics (ordinary kriging's leave-one-out error by a bordered system
built with np.block), ecology (a site-occupancy model with imperfect detection), and
structural dynamics (a shear frame integrated by Newmark's method, Rayleigh damping).

tests/test_user_programs_10.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np
from scipy.special import expit

from program_registry import registry

PROGRAMS, program = registry()


# --- recommender systems: BPR (Rendle et al. 2009) on a matrix factorisation with item
#     biases; (user, positive item, negative item) triples sampled outside; L2 on the rows used

def _bpr_args(r):
    n_users, n_items, k, n = 6, 9, 4, 20
    params = {"P": 0.3 * r.normal(size=(n_users, k)), "Q": 0.3 * r.normal(size=(n_items, k)),
              "b": 0.1 * r.normal(size=n_items)}
    return params, r.integers(0, n_users, size=n), r.integers(0, n_items, size=n), r.integers(0, n_items, size=n)


@program(_bpr_args)
def bpr_loss(params, users, pos, neg, reg=0.01):
    P, Q, b = params["P"], params["Q"], params["b"]
    pu, qi, qj = P[users], Q[pos], Q[neg]
    x_uij = np.sum(pu * (qi - qj), axis=1) + b[pos] - b[neg]
    log_sig = -np.logaddexp(0.0, -x_uij)
    penalty = reg * (np.sum(pu ** 2) + np.sum(qi ** 2) + np.sum(qj ** 2) + np.sum(b[pos] ** 2))
    return -np.sum(log_sig) + 0.5 * penalty


# --- graph attention: one GAT layer (Velickovic et al. 2018), two heads averaged, attention
#     logits masked by the adjacency (self loops added), softmax over neighbours, node
#     classification by cross entropy on the labelled nodes

def _gat_args(r):
    n, f, h, c = 7, 5, 4, 3
    A = r.random(size=(n, n)) < 0.35
    A = A | A.T
    heads = [(0.4 * r.normal(size=(f, c)), 0.5 * r.normal(size=c), 0.5 * r.normal(size=c)) for _ in range(2)]
    return heads, r.normal(size=(n, f)), A, r.integers(0, c, size=n), np.array([0, 1, 2, 4, 6])


def leaky_relu(x, slope=0.2):
    return np.where(x > 0, x, slope * x)


@program(_gat_args)
def gat_node_loss(heads, X, A, labels, train_idx):
    n = X.shape[0]
    adj = A | np.eye(n, dtype=bool)
    outs = []
    for W, a_src, a_dst in heads:
        H = X @ W
        e = leaky_relu((H @ a_src)[:, None] + (H @ a_dst)[None, :])
        e = np.where(adj, e, -np.inf)
        e = e - e.max(axis=1, keepdims=True)
        alpha = np.exp(e)
        alpha /= alpha.sum(axis=1, keepdims=True)
        outs.append(alpha @ H)
    logits = sum(outs) / len(outs)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[train_idx, labels[train_idx]])


# --- survival analysis: a Weibull accelerated failure time model, log T = X beta + sigma W
#     with W standard extreme-value; censored rows contribute the survival function

def _weibull_args(r):
    n, p = 25, 3
    X = np.column_stack([np.ones(n), r.normal(size=(n, p - 1))])
    t = np.exp(X @ np.array([1.0, 0.5, -0.3]) + 0.6 * np.log(r.exponential(size=n)))
    return np.array([0.8, 0.3, -0.2]), np.log(0.7), X, t, r.random(size=n) < 0.7


@program(_weibull_args)
def weibull_aft_nll(beta, log_sigma, X, t, event):
    sigma = np.exp(log_sigma)
    z = (np.log(t) - X @ beta) / sigma
    log_f = z - np.exp(z) - log_sigma - np.log(t)      # density of T
    log_S = -np.exp(z)                                  # survival of T
    return -np.sum(np.where(event, log_f, log_S))


# --- interatomic potentials: a Morse cluster, pairs by np.triu_indices, the energy shifted
#     to zero at the cutoff and pairs beyond it dropped by np.where

def _morse_args(r):
    g = np.array([[i, j, k] for i in range(2) for j in range(2) for k in range(2)], dtype=float)
    return 1.1 * g + 0.05 * r.normal(size=g.shape), 1.0, 1.5, 1.0


def morse(r, D, a, r0):
    return D * (1.0 - np.exp(-a * (r - r0))) ** 2 - D


@program(_morse_args)
def morse_cluster_energy(pos, D, a, r0, r_cut=1.7):
    i, j = np.triu_indices(len(pos), k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=-1)
    e = np.where(r < r_cut, morse(r, D, a, r0) - morse(r_cut, D, a, r0), 0.0)
    return e.sum()


# --- robotics: a six-joint arm by Denavit-Hartenberg parameters (standard convention), the
#     chain of homogeneous transforms multiplied in a loop; position error plus the
#     rotation angle's cosine error by the trace

def _dh_args(r):
    dh = [(0.3, 0.0, np.pi / 2), (0.0, 0.4, 0.0), (0.0, 0.35, 0.0), (0.2, 0.0, np.pi / 2),
          (0.0, 0.0, -np.pi / 2), (0.1, 0.0, 0.0)]
    T_goal = np.eye(4)
    T_goal[:3, 3] = [0.3, 0.2, 0.5]
    return 0.5 * r.normal(size=6), dh, T_goal


def dh_transform(theta, d, a, alpha):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


@program(_dh_args)
def dh_pose_loss(q, dh, T_goal, w_rot=0.5):
    T = np.eye(4)
    for k, (d, a, alpha) in enumerate(dh):
        T = T @ dh_transform(q[k], d, a, alpha)
    pos_err = T[:3, 3] - T_goal[:3, 3]
    cos_angle = (np.trace(T_goal[:3, :3].T @ T[:3, :3]) - 1) / 2
    return pos_err @ pos_err + w_rot * (1 - cos_angle)


# --- option pricing: Heston's characteristic function in Albrecher et al.'s "little trap"
#     form, calls by Gil-Pelaez's two integrals (trapezoid rule on a grid, strikes by
#     broadcasting), a squared error to quoted prices; parameters kept valid by exp/tanh

def _heston_args(r):
    strikes = np.array([80.0, 90.0, 100.0, 110.0, 120.0])
    quotes = np.array([21.8, 13.6, 7.0, 2.9, 1.0])
    return np.array([np.log(0.04), np.log(1.5), np.log(0.05), np.log(0.4), np.arctanh(-0.6)]), strikes, quotes


def heston_cf(u, S0, r, T, v0, kappa, theta, sigma, rho):
    xi = kappa - rho * sigma * 1j * u
    d = np.sqrt(xi ** 2 + sigma ** 2 * (u ** 2 + 1j * u))
    g = (xi - d) / (xi + d)
    edt = np.exp(-d * T)
    C = r * 1j * u * T + kappa * theta / sigma ** 2 * ((xi - d) * T - 2 * np.log((1 - g * edt) / (1 - g)))
    D = (xi - d) / sigma ** 2 * (1 - edt) / (1 - g * edt)
    return np.exp(C + D * v0 + 1j * u * np.log(S0))


@program(_heston_args)
def heston_calibration(params, strikes, quotes, S0=100.0, r=0.02, T=0.5, n_grid=120, u_max=60.0):
    v0, kappa, theta, sigma = np.exp(params[:4])
    rho = np.tanh(params[4])
    u = np.linspace(1e-4, u_max, n_grid)
    du = u[1] - u[0]
    lnK = np.log(strikes)[:, None]
    cf = heston_cf(u, S0, r, T, v0, kappa, theta, sigma, rho)
    cf_shift = heston_cf(u - 1j, S0, r, T, v0, kappa, theta, sigma, rho) / (S0 * np.exp(r * T))
    f1 = np.real(np.exp(-1j * u * lnK) * cf_shift / (1j * u))
    f2 = np.real(np.exp(-1j * u * lnK) * cf / (1j * u))
    trap = lambda f: du * (f.sum(axis=1) - 0.5 * (f[:, 0] + f[:, -1]))
    P1 = 0.5 + trap(f1) / np.pi
    P2 = 0.5 + trap(f2) / np.pi
    calls = S0 * P1 - strikes * np.exp(-r * T) * P2
    return np.sum((calls - quotes) ** 2)


# --- power systems: AC power flow on a 4-bus ring, admittances from the line list,
#     complex voltages from magnitudes and angles, the squared mismatch to scheduled P and Q

def _power_flow_args(r):
    lines = [(0, 1, 0.02, 0.06), (1, 2, 0.03, 0.09), (2, 3, 0.01, 0.05), (3, 0, 0.02, 0.08)]
    n = 4
    Y = np.zeros((n, n), dtype=complex)
    for a, b, R, X in lines:
        y = 1 / (R + 1j * X)
        Y[a, a] += y
        Y[b, b] += y
        Y[a, b] -= y
        Y[b, a] -= y
    return 1 + 0.02 * r.normal(size=n), 0.05 * r.normal(size=n), Y.real.copy(), Y.imag.copy(), \
        np.array([0.5, -0.3, -0.4, 0.2]), np.array([0.1, -0.1, -0.15, 0.05])


@program(_power_flow_args)
def power_flow_mismatch(vm, va, G, B, P_sched, Q_sched):
    Y = G + 1j * B
    V = vm * np.exp(1j * va)
    S = V * np.conj(Y @ V)
    dP = S.real - P_sched
    dQ = S.imag - Q_sched
    return 0.5 * (np.sum(dP[1:] ** 2) + np.sum(dQ[1:] ** 2)) + 0.5 * (vm[0] - 1.0) ** 2 + 0.5 * va[0] ** 2


# --- industrial organisation: BLP (Berry, Levinsohn & Pakes 1995) random-coefficient logit
#     on one market; mean utilities by the share contraction until the sup-norm change is
#     below tol, then linear IV by np.linalg.solve and the GMM objective

def _blp_args(r):
    J, ns = 5, 30
    x = r.normal(size=J)
    X = np.column_stack([np.ones(J), x])
    Z = np.column_stack([np.ones(J), x, r.normal(size=J)])
    s = np.exp(0.3 * r.normal(size=J) - 1.5)
    s = 0.7 * s / s.sum()
    return np.array(0.6), x, X, Z, s, r.normal(size=ns)


def predicted_shares(delta, mu):
    u = np.exp(delta[None, :] + mu)
    return np.mean(u / (1.0 + u.sum(axis=1, keepdims=True)), axis=0)


@program(_blp_args)
def blp_gmm(sigma, x, X, Z, shares, nu, tol=1e-13, max_iter=2000):
    mu = sigma * nu[:, None] * x[None, :]
    delta = np.log(shares) - np.log(1 - shares.sum())
    it = 0
    while it < max_iter:
        delta_new = delta + np.log(shares) - np.log(predicted_shares(delta, mu))
        if np.max(np.abs(delta_new - delta)) < tol:
            break
        delta = delta_new
        it += 1
    ZX, Zd = Z.T @ X, Z.T @ delta_new
    W = np.linalg.inv(Z.T @ Z)
    beta = np.linalg.solve(ZX.T @ W @ ZX, ZX.T @ W @ Zd)
    g = Z.T @ (delta_new - X @ beta)
    return g @ W @ g


# --- data assimilation: strong-constraint 4D-Var on Lorenz-96 (8 variables), RK4 steps,
#     every 5th step observed at half the variables; background and observation terms

def _l96_args(r):
    n = 8
    xb = 8.0 + r.normal(size=n)
    obs = 8.0 + 2.0 * r.normal(size=(4, n // 2))
    return xb + 0.2 * r.normal(size=n), xb, obs, 8.0


def l96(x, F):
    return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + F


def rk4_step(x, F, dt):
    k1 = l96(x, F)
    k2 = l96(x + 0.5 * dt * k1, F)
    k3 = l96(x + 0.5 * dt * k2, F)
    k4 = l96(x + dt * k3, F)
    return x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


@program(_l96_args)
def l96_4dvar_cost(x0, xb, obs, F, dt=0.01, every=5, sigma_b=1.0, sigma_o=0.5):
    J_b = 0.5 * np.sum((x0 - xb) ** 2) / sigma_b ** 2
    J_o = 0.0
    x = x0.copy()
    for k in range(len(obs)):
        for _ in range(every):
            x = rk4_step(x, F, dt)
        J_o += 0.5 * np.sum((x[::2] - obs[k]) ** 2) / sigma_o ** 2
    return J_b + J_o


# --- epidemiology: SEIR by forward Euler in a `while` loop over days, new infections
#     summed per week, a Poisson likelihood of reported weekly counts with a reporting rate

def _seir_args(r):
    return np.array([np.log(0.5), np.log(1 / 4.0), np.log(1 / 6.0), -1.0]), \
        np.array([3.0, 9.0, 25.0, 60.0, 110.0, 150.0, 140.0, 100.0])


@program(_seir_args)
def seir_weekly_nll(log_params, counts, N=1e4, I0=5.0, dt=0.25):
    beta, sigma, gamma = np.exp(log_params[:3])
    rho = expit(log_params[3])
    S, E, I, R = N - I0, 0.0, I0, 0.0
    weekly = []
    new_cases = 0.0
    t, T_end = 0.0, 7.0 * len(counts)
    steps_per_week = int(round(7 / dt))
    step = 0
    while t < T_end - 1e-9:
        inf = beta * S * I / N
        onset = sigma * E
        rec = gamma * I
        S, E, I, R = S - dt * inf, E + dt * (inf - onset), I + dt * (onset - rec), R + dt * rec
        new_cases += dt * onset
        step += 1
        t += dt
        if step % steps_per_week == 0:
            weekly.append(new_cases)
            new_cases = 0.0
    lam = rho * np.array(weekly)
    return np.sum(lam - counts * np.log(lam))


# --- splines: a clamped cubic B-spline, its basis by the Cox-de Boor recursion (zero-width
#     knot spans guarded by np.where), least squares to noisy data plus a roughness penalty

def _bspline_args(r):
    x = np.sort(r.uniform(0.02, 0.98, size=30))
    return 0.5 * r.normal(size=8), x, np.sin(2 * np.pi * x) + 0.1 * r.normal(size=30)


def bspline_basis(x, knots, degree):
    B = ((knots[None, :-1] <= x[:, None]) & (x[:, None] < knots[None, 1:])).astype(float)
    for k in range(1, degree + 1):
        left_den = knots[k:-1] - knots[:-k - 1]
        right_den = knots[k + 1:] - knots[1:-k]
        left = (x[:, None] - knots[None, :-k - 1]) / np.where(left_den > 0, left_den, 1.0) * B[:, :-1]
        right = (knots[None, k + 1:] - x[:, None]) / np.where(right_den > 0, right_den, 1.0) * B[:, 1:]
        B = left + right
    return B


@program(_bspline_args)
def bspline_fit(coefs, x, y, degree=3, lam=1e-2):
    n_inner = len(coefs) - degree + 1
    knots = np.concatenate([np.zeros(degree), np.linspace(0.0, 1.0, n_inner), np.ones(degree)])
    B = bspline_basis(x, knots, degree)
    resid = B @ coefs - y
    return np.mean(resid ** 2) + lam * np.sum(np.diff(coefs, n=2) ** 2)


# --- distributional RL: QR-DQN's quantile Huber loss (Dabney et al. 2018), every predicted
#     quantile against every target sample, weighted by |tau - 1{u < 0}|

def _qr_args(r):
    batch, n_q = 4, 6
    return r.normal(size=(batch, n_q)), r.normal(size=(batch, n_q)) + 0.3


@program(_qr_args)
def quantile_huber_loss(theta, target, kappa=1.0):
    n_q = theta.shape[1]
    taus = (np.arange(n_q) + 0.5) / n_q
    u = target[:, None, :] - theta[:, :, None]           # (batch, predicted, target)
    abs_u = np.abs(u)
    huber = np.where(abs_u <= kappa, 0.5 * u ** 2, kappa * (abs_u - 0.5 * kappa))
    weight = np.abs(taus[None, :, None] - (u < 0))
    return np.mean(np.sum(np.mean(weight * huber / kappa, axis=2), axis=1))


# --- geostatistics: ordinary kriging with an exponential covariance plus nugget, each site
#     left out in turn and predicted by the bordered system (weights summing to one) built
#     with np.block; the mean squared leave-one-out error

def _kriging_args(r):
    n = 9
    X = r.uniform(0, 10, size=(n, 2))
    z = np.sin(X[:, 0] / 3) + np.cos(X[:, 1] / 4) + 0.1 * r.normal(size=n)
    return np.array([np.log(1.0), np.log(3.0), np.log(0.05)]), X, z


@program(_kriging_args)
def kriging_loo_error(log_params, X, z):
    sill, rng, nugget = np.exp(log_params)
    n = len(z)
    D = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1) + 1e-12)   # sqrt(0) has no slope
    C = sill * np.exp(-D / rng) + nugget * np.eye(n)
    errs = []
    for i in range(n):
        keep = np.arange(n) != i
        K = C[keep][:, keep]
        ones = np.ones((n - 1, 1))
        A = np.block([[K, ones], [ones.T, np.zeros((1, 1))]])
        rhs = np.append(C[keep, i], 1.0)
        w = np.linalg.solve(A, rhs)[:-1]
        errs.append(w @ z[keep] - z[i])
    return np.mean(np.array(errs) ** 2)


# --- ecology: a single-season site-occupancy model (MacKenzie et al. 2002), occupancy and
#     detection by logistic regressions; a site never detected is either unoccupied or missed

def _occupancy_args(r):
    sites, visits = 15, 4
    site_cov = r.normal(size=sites)
    visit_cov = r.normal(size=(sites, visits))
    occupied = r.random(size=sites) < 0.6
    y = (r.random(size=(sites, visits)) < 0.5) & occupied[:, None]
    return np.array([0.2, 0.5]), np.array([-0.1, 0.4]), site_cov, visit_cov, y.astype(int)


@program(_occupancy_args)
def occupancy_nll(alpha, beta, site_cov, visit_cov, y):
    psi = expit(alpha[0] + alpha[1] * site_cov)
    p = expit(beta[0] + beta[1] * visit_cov)
    detected = y.any(axis=1)
    lik_hist = np.prod(np.where(y == 1, p, 1 - p), axis=1)
    lik = np.where(detected, psi * lik_hist, psi * lik_hist + (1 - psi))
    return -np.sum(np.log(lik))


# --- structural dynamics: a two-storey shear frame under ground shaking, integrated by
#     Newmark's average-acceleration method (np.linalg.solve each step), Rayleigh damping
#     from two modal damping ratios; storey stiffnesses fitted to measured roof drift

def _newmark_args(r):
    n_steps = 40
    t = 0.02 * np.arange(n_steps + 1)
    ground = 0.3 * np.sin(2 * np.pi * 1.5 * t) * np.exp(-t)
    measured = 0.01 * np.sin(2 * np.pi * 1.2 * t) + 0.001 * r.normal(size=n_steps + 1)
    return np.log(np.array([400.0, 300.0])), np.array([1.0, 0.8]), ground, measured


@program(_newmark_args)
def newmark_frame_fit(log_k, masses, ground, measured, dt=0.02, zeta=0.05, beta=0.25, gamma=0.5):
    k1, k2 = np.exp(log_k)
    M = np.diag(masses)
    K = np.array([[k1 + k2, -k2], [-k2, k2]])
    M_isqrt = np.diag(1 / np.sqrt(masses))
    w = np.sqrt(np.linalg.eigvalsh(M_isqrt @ K @ M_isqrt))                  # natural frequencies
    a0, a1 = np.linalg.solve(np.array([[1 / (2 * w[0]), w[0] / 2], [1 / (2 * w[1]), w[1] / 2]]), [zeta, zeta])
    C = a0 * M + a1 * K
    f = -np.outer(ground, masses)
    u, v = np.zeros(2), np.zeros(2)
    a = np.linalg.solve(M, f[0] - C @ v - K @ u)
    K_eff = K + gamma / (beta * dt) * C + M / (beta * dt ** 2)
    roof = [u[1]]
    for n in range(len(ground) - 1):
        rhs = f[n + 1] + M @ (u / (beta * dt ** 2) + v / (beta * dt) + (0.5 / beta - 1) * a) \
            + C @ (gamma / (beta * dt) * u + (gamma / beta - 1) * v + dt * (0.5 * gamma / beta - 1) * a)
        u_new = np.linalg.solve(K_eff, rhs)
        a_new = (u_new - u) / (beta * dt ** 2) - v / (beta * dt) - (0.5 / beta - 1) * a
        v = v + dt * ((1 - gamma) * a + gamma * a_new)
        u, a = u_new, a_new
        roof.append(u[1])
    return np.mean((np.array(roof) - measured) ** 2) * 1e4
