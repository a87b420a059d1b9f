"""A fifth batch of programs as their authors write them, from fields the other batches do
not cover: state estimation (an extended Kalman filter), optimisation inside the objective
(L-BFGS's two-loop recursion over lists, IRLS until convergence), signal processing (a
biquad filter, a 1-d CNN by np.correlate, a Gaussian blur with Sobel edges), control (a
finite-horizon LQR by the backward Riccati recursion), pharmacokinetics, traffic, weather
verification (CRPS), astronomy (Kepler's equation by Newton), quantitative finance (a
binomial American put, a backtest with costs), NLP (GloVe), clustering (EM for a Gaussian
mixture with np.einsum), tax brackets by np.piecewise / np.select, optical flow
(Horn-Schunck with np.gradient), Levenberg-Marquardt, and a particle filter.

tests/test_user_programs_5.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np

from program_registry import registry

PROGRAMS, program = registry()


# --- state estimation: an extended Kalman filter tracking a pendulum, the log-likelihood of
#     the innovations (the objective of EKF parameter fitting)

def _pendulum_f(x, dt, g_over_l):
    theta, omega = x[0], x[1]
    return np.array([theta + dt * omega, omega - dt * g_over_l * np.sin(theta)])


def _pendulum_jacobian(x, dt, g_over_l):
    return np.array([[1.0, dt], [-dt * g_over_l * np.cos(x[0]), 1.0]])


def _ekf_args(r):
    zs = np.sin(0.4 + 0.3 * np.arange(8)) * 0.5 + 0.05 * r.normal(size=8)
    return np.array([0.3, 0.0]), np.log(9.81), np.log(1e-3), np.log(0.01), zs


@program(_ekf_args)
def ekf_log_likelihood(x0, log_g, log_q, log_r, zs):
    dt = 0.1
    g_over_l = np.exp(log_g)
    Q = np.exp(log_q) * np.eye(2)
    R = np.exp(log_r)
    H = np.array([[1.0, 0.0]])
    x, P = x0.copy(), 0.1 * np.eye(2)
    loglik = 0.0
    innovations = []
    for z in zs:
        F = _pendulum_jacobian(x, dt, g_over_l)
        x = _pendulum_f(x, dt, g_over_l)
        P = F @ P @ F.T + Q
        y = z - (H @ x)[0]
        S = (H @ P @ H.T)[0, 0] + R
        K = (P @ H.T)[:, 0] / S
        x = x + K * y
        P = (np.eye(2) - np.outer(K, H[0])) @ P
        loglik -= 0.5 * (np.log(2 * np.pi * S) + y ** 2 / S)
        innovations.append(y)
    return -loglik + 0.1 * np.sum(np.array(innovations) ** 2)


# --- optimisation inside the objective: logistic regression fitted by L-BFGS (the two-loop
#     recursion over lists of s and y), the validation loss differentiated with respect to
#     the regularisation weight

def _logreg_grad(w, X, y, lam):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (p - y) / X.shape[0] + lam * w


def _two_loop(g, s_list, y_list):
    q = g.copy()
    alphas = []
    for i in range(len(s_list) - 1, -1, -1):
        rho = 1.0 / (y_list[i] @ s_list[i])
        a = rho * (s_list[i] @ q)
        q = q - a * y_list[i]
        alphas.append(a)
    gamma = (s_list[-1] @ y_list[-1]) / (y_list[-1] @ y_list[-1]) if len(s_list) > 0 else 1.0
    r = gamma * q
    for i in range(len(s_list)):
        rho = 1.0 / (y_list[i] @ s_list[i])
        b = rho * (y_list[i] @ r)
        r = r + s_list[i] * (alphas[len(s_list) - 1 - i] - b)
    return r


def _lbfgs_args(r):
    X = r.normal(size=(12, 3))
    y = (X @ np.array([1.0, -2.0, 0.5]) + 0.3 * r.normal(size=12) > 0).astype(np.float64)
    Xv = r.normal(size=(6, 3))
    yv = (Xv @ np.array([1.0, -2.0, 0.5]) > 0).astype(np.float64)
    return 0.1, X, y, Xv, yv


@program(_lbfgs_args)
def lbfgs_validation_loss(lam, X, y, Xv, yv):
    w = np.zeros(X.shape[1])
    g = _logreg_grad(w, X, y, lam)
    s_list, y_list = [], []
    for _ in range(6):
        d = -_two_loop(g, s_list, y_list)
        w_new = w + 0.5 * d
        g_new = _logreg_grad(w_new, X, y, lam)
        s_list.append(w_new - w)
        y_list.append(g_new - g)
        w, g = w_new, g_new
    z = Xv @ w
    return np.mean(np.logaddexp(0.0, z) - yv * z)


# --- NLP: cross-attention with a key padding mask (np.where to -1e9), softmax with keepdims

def _attention_args(r):
    mask = np.array([[True, True, True, False, False], [True, True, True, True, True]])
    return r.normal(size=(2, 3, 4)), r.normal(size=(2, 5, 4)), r.normal(size=(2, 5, 4)), mask


@program(_attention_args)
def masked_cross_attention(queries, keys, values, key_mask):
    d = queries.shape[-1]
    scores = queries @ np.swapaxes(keys, -1, -2) / np.sqrt(d)          # (b, q, k)
    scores = np.where(key_mask[:, None, :], scores, -1e9)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= np.sum(weights, axis=-1, keepdims=True)
    context = np.einsum("bqk,bkd->bqd", weights, values)
    return np.sum(np.tanh(context) ** 2) + np.mean(weights[:, :, 0])


# --- signal processing: a two-channel 1-d CNN by np.correlate(mode="valid"), ReLU, max
#     pooling by reshape, a linear read-out

def _cnn_args(r):
    return r.normal(size=(2, 3)) * 0.5, np.array([0.1, -0.1]), r.normal(size=2), r.normal(size=17)


@program(_cnn_args)
def cnn1d_correlate(kernels, biases, w_out, signal):
    features = []
    for c in range(kernels.shape[0]):
        h = np.correlate(signal, kernels[c], mode="valid") + biases[c]   # (15,)
        h = np.maximum(h, 0.0)
        pooled = h[: (h.size // 3) * 3].reshape(-1, 3).max(axis=1)       # (5,)
        features.append(pooled)
    feats = np.stack(features, axis=0)                                   # (2, 5)
    score = w_out @ feats.mean(axis=1)
    smooth = np.convolve(signal, np.ones(3) / 3.0, mode="same")
    return score ** 2 + 0.01 * np.sum(smooth ** 2)


# --- numerical ODEs: Heun-Euler (RK12) with an adaptive step, rejected steps retried, a
#     while loop until the final time

@program(lambda r: (np.array([1.0, 0.2]) + 0.05 * r.normal(size=2), 0.7, 1.3))
def adaptive_heun_oscillator(y0, damping, stiffness):
    t, t_end, h = 0.0, 2.0, 0.1
    y = y0.copy()
    tol = 1e-4
    n_steps = 0
    while t < t_end and n_steps < 200:
        h = min(h, t_end - t)
        k1 = np.array([y[1], -stiffness * y[0] - damping * y[1]])
        y_euler = y + h * k1
        k2 = np.array([y_euler[1], -stiffness * y_euler[0] - damping * y_euler[1]])
        y_heun = y + 0.5 * h * (k1 + k2)
        err = np.max(np.abs(y_heun - y_euler))
        if err <= tol:
            t += h
            y = y_heun
        n_steps += 1
        h = 0.9 * h * min(2.0, max(0.2, np.sqrt(tol / (err + 1e-16))))
    return y[0] ** 2 + y[1]


# --- economics: a progressive tax by np.piecewise and benefits by np.select, clipped

def _tax_args(r):
    return np.array([5.0, 15.0, 33.0, 70.0, 120.0]) + r.uniform(0.5, 1.0, size=5), np.array([0.1, 0.25, 0.4])


@program(_tax_args)
def tax_piecewise(incomes, rates):
    tax = np.piecewise(incomes, [incomes < 10.0, (incomes >= 10.0) & (incomes < 50.0), incomes >= 50.0],
                       [lambda x: 0.0 * x,
                        lambda x: rates[0] * (x - 10.0),
                        lambda x: rates[0] * 40.0 + rates[1] * (x - 50.0)])
    return np.sum(tax)


@program(_tax_args)
def benefits_select(incomes, rates):
    conditions = [incomes < 20.0, incomes < 60.0]
    choices = [rates[2] * (20.0 - incomes), rates[1] * np.sqrt(incomes)]
    benefit = np.select(conditions, choices, default=0.0)
    net = incomes - np.clip(rates[1] * incomes, 2.0, 25.0) + benefit
    return np.sum(np.log(net))


# --- curve fitting: least squares on a Vandermonde matrix, np.polyval at new points

def _vander_args(r):
    x = np.linspace(-1.0, 1.0, 9)
    return x, np.cos(2 * x) + 0.05 * r.normal(size=9), np.array([-0.5, 0.25, 0.9])


@program(_vander_args)
def vander_lstsq_fit(x, y, x_new):
    V = np.vander(x, N=4, increasing=False)
    coeffs, *_ = np.linalg.lstsq(V, y, rcond=None)
    fitted = np.polyval(coeffs, x_new)
    return np.sum(fitted ** 2) + np.sum((V @ coeffs - y) ** 2)


# --- quantitative finance: a backtest of a momentum-tilted portfolio, transaction costs on
#     turnover, the cumulative wealth by np.cumprod and the Sharpe ratio

def _backtest_args(r):
    return np.array([0.4, 0.35, 0.25]), 2.0, 0.01 + 0.02 * r.normal(size=(10, 3))


@program(_backtest_args)
def backtest_sharpe(base_weights, tilt, returns):
    T, n = returns.shape
    momentum = np.cumsum(returns, axis=0)
    scores = base_weights[None, :] * np.exp(tilt * momentum)
    weights = scores / scores.sum(axis=1, keepdims=True)                 # (T, n)
    held = np.vstack([base_weights[None, :], weights[:-1]])              # trade at the close
    turnover = np.sum(np.abs(np.diff(held, axis=0, prepend=held[:1])), axis=1)
    portfolio = np.sum(held * returns, axis=1) - 0.001 * turnover
    wealth = np.cumprod(1.0 + portfolio)
    sharpe = portfolio.mean() / portfolio.std(ddof=1) * np.sqrt(252)
    return wealth[-1] + 0.1 * sharpe


# --- weather verification: the CRPS of an ensemble forecast from a linear post-processing
#     model (the "energy form": mean |x - y| - 0.5 mean |x_i - x_j|)

def _crps_args(r):
    return np.array([0.1, 0.9]), 0.3, r.normal(size=(6, 5)), r.normal(size=6)


@program(_crps_args)
def ensemble_crps(coef, log_spread, raw_members, observed):
    members = coef[0] + coef[1] * raw_members
    centred = members - members.mean(axis=1, keepdims=True)
    members = members.mean(axis=1, keepdims=True) + np.exp(log_spread) * centred
    skill = np.mean(np.abs(members - observed[:, None]), axis=1)
    spread = np.mean(np.abs(members[:, :, None] - members[:, None, :]), axis=(1, 2))
    return np.mean(skill - 0.5 * spread)


# --- robust statistics: Tukey's biweight regression by iteratively reweighted least squares,
#     a while loop until the coefficients settle

def _irls_args(r):
    X = np.column_stack([np.ones(15), np.linspace(0.0, 1.0, 15)])
    y = X @ np.array([0.5, 2.0]) + 0.05 * r.normal(size=15)
    y[3] += 2.0
    return X, y, 0.8


@program(_irls_args)
def tukey_irls(X, y, c):
    beta = np.linalg.solve(X.T @ X, X.T @ y)
    it = 0
    while True:
        resid = y - X @ beta
        scale = np.median(np.abs(resid)) / 0.6745
        u = resid / (c * scale)
        w = np.where(np.abs(u) < 1.0, (1.0 - u ** 2) ** 2, 0.0)
        WX = X * w[:, None]
        beta_new = np.linalg.solve(X.T @ WX, WX.T @ y)
        it += 1
        if np.max(np.abs(beta_new - beta)) < 1e-10 or it >= 50:
            beta = beta_new
            break
        beta = beta_new
    return beta[0] + 3.0 * beta[1]


# --- pharmacokinetics: a two-compartment model with repeated doses at given times, Euler
#     steps, a dose added when the clock reaches it, log-normal error at the sample times

def _pk_args(r):
    observed = np.array([2.0, 3.5, 2.8, 4.0, 3.1]) * np.exp(0.05 * r.normal(size=5))
    return np.log(np.array([0.3, 0.15, 0.1])), np.log(5.0), observed


@program(_pk_args)
def pk_two_compartment(log_rates, log_volume, observed):
    k10, k12, k21 = np.exp(log_rates)
    V = np.exp(log_volume)
    dose_times = (0.0, 12.0, 24.0)
    sample_times = (2.0, 6.0, 14.0, 26.0, 30.0)
    dt = 0.25
    central, peripheral = 0.0, 0.0
    next_dose, next_sample = 0, 0
    sq = 0.0
    for step in range(int(32.0 / dt)):
        t = step * dt
        if next_dose < len(dose_times) and t >= dose_times[next_dose]:
            central += 20.0
            next_dose += 1
        if next_sample < len(sample_times) and t >= sample_times[next_sample]:
            sq += (np.log(central / V) - np.log(observed[next_sample])) ** 2
            next_sample += 1
        d_central = -(k10 + k12) * central + k21 * peripheral
        d_peripheral = k12 * central - k21 * peripheral
        central, peripheral = central + dt * d_central, peripheral + dt * d_peripheral
    return sq


# --- clustering: EM for a Gaussian mixture with full covariances, np.einsum for the
#     Mahalanobis terms and the weighted covariances, unrolled iterations

def _em_args(r):
    x = np.vstack([r.normal(size=(6, 2)) * 0.5 + [2.0, 0.0], r.normal(size=(6, 2)) * 0.5 - [2.0, 0.0]])
    return x, np.array([[1.5, 0.3], [-1.5, -0.2]])


@program(_em_args)
def em_gaussian_mixture(x, means):
    n, d = x.shape
    k = means.shape[0]
    covs = np.stack([np.eye(d)] * k)
    log_pi = np.log(np.full(k, 1.0 / k))
    for _ in range(3):
        diff = x[:, None, :] - means[None, :, :]                          # (n, k, d)
        prec = np.linalg.inv(covs)
        maha = np.einsum("nki,kij,nkj->nk", diff, prec, diff)
        _, logdet = np.linalg.slogdet(covs)
        log_r = log_pi - 0.5 * (maha + logdet + d * np.log(2 * np.pi))
        log_norm = np.log(np.sum(np.exp(log_r - log_r.max(axis=1, keepdims=True)), axis=1, keepdims=True)) \
            + log_r.max(axis=1, keepdims=True)
        resp = np.exp(log_r - log_norm)                                   # (n, k)
        nk = resp.sum(axis=0)
        means = resp.T @ x / nk[:, None]
        diff = x[:, None, :] - means[None, :, :]
        covs = np.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk[:, None, None] + 1e-3 * np.eye(d)
        log_pi = np.log(nk / n)
    return np.sum(log_norm)


# --- astronomy: a radial-velocity curve, Kepler's equation E - e sin E = M solved by Newton
#     with an early break once every phase has converged

def _rv_args(r):
    t = np.linspace(0.0, 10.0, 12)
    return np.array([0.3, 4.0, 1.0, 0.5]), t, 5.0 * np.sin(t) + 0.3 * r.normal(size=12)


@program(_rv_args)
def radial_velocity_kepler(params, t, rv_obs):
    ecc, period, amplitude, omega = params
    M = 2 * np.pi * t / period
    E = M.copy()
    for _ in range(30):
        delta = (E - ecc * np.sin(E) - M) / (1.0 - ecc * np.cos(E))
        E = E - delta
        if np.max(np.abs(delta)) < 1e-13:
            break
    nu = 2.0 * np.arctan2(np.sqrt(1 + ecc) * np.sin(E / 2), np.sqrt(1 - ecc) * np.cos(E / 2))
    model = amplitude * (np.cos(nu + omega) + ecc * np.cos(omega))
    return 0.5 * np.sum((model - rv_obs) ** 2)


# --- audio DSP: a biquad low-pass (direct form I), the recurrence written sample by sample
#     with y[n] = ... - a1 y[n-1] - a2 y[n-2]

def _biquad_args(r):
    return 0.2, 0.8, r.normal(size=20)


@program(_biquad_args)
def biquad_lowpass_energy(cutoff, q, x):
    w0 = np.pi * cutoff
    alpha = np.sin(w0) / (2.0 * q)
    cosw = np.cos(w0)
    a0 = 1.0 + alpha
    b = np.array([(1 - cosw) / 2, 1 - cosw, (1 - cosw) / 2]) / a0
    a1, a2 = -2 * cosw / a0, (1 - alpha) / a0
    y = np.zeros_like(x)
    for n in range(len(x)):
        acc = b[0] * x[n]
        if n >= 1:
            acc += b[1] * x[n - 1] - a1 * y[n - 1]
        if n >= 2:
            acc += b[2] * x[n - 2] - a2 * y[n - 2]
        y[n] = acc
    return np.sum(y[5:] ** 2)


# --- control: a finite-horizon LQR, the gains by the backward Riccati recursion into a list,
#     then the closed-loop cost of a rollout

def _lqr_args(r):
    A = np.array([[1.0, 0.1], [0.0, 1.0]]) + 0.01 * r.normal(size=(2, 2))
    B = np.array([[0.0], [0.1]])
    return A, B, np.log(np.array([1.0, 0.1])), np.log(0.5), np.array([1.0, -0.5])


@program(_lqr_args)
def lqr_closed_loop_cost(A, B, log_q, log_r, x0):
    Q = np.diag(np.exp(log_q))
    R = np.exp(log_r) * np.eye(1)
    horizon = 8
    P = Q.copy()
    gains = []
    for _ in range(horizon):
        K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
        P = Q + A.T @ P @ (A - B @ K)
        gains.append(K)
    gains = gains[::-1]                                 # computed backwards in time
    x = x0
    cost = 0.0
    for t in range(horizon):
        u = -gains[t] @ x
        cost += x @ Q @ x + u @ R @ u
        x = A @ x + B @ u
    return cost + x @ P @ x


# --- NLP: the GloVe loss over a sparse co-occurrence list, embeddings looked up by index

def _glove_args(r):
    rows = np.array([0, 0, 1, 2, 3, 3, 1])
    cols = np.array([1, 2, 3, 0, 1, 2, 2])
    counts = np.array([10.0, 3.0, 150.0, 1.0, 7.0, 40.0, 2.0])
    return r.normal(size=(4, 3)) * 0.3, r.normal(size=(4, 3)) * 0.3, np.zeros(4), np.zeros(4), rows, cols, counts


@program(_glove_args)
def glove_loss(W, C, bw, bc, rows, cols, counts):
    x_max, power = 100.0, 0.75
    weight = np.minimum((counts / x_max) ** power, 1.0)
    dots = np.sum(W[rows] * C[cols], axis=1)
    err = dots + bw[rows] + bc[cols] - np.log(counts)
    return np.sum(weight * err ** 2) + 1e-2 * (np.sum(W ** 2) + np.sum(C ** 2))


# --- quantitative finance: an American put on a Cox-Ross-Rubinstein tree, backward
#     induction with early exercise by np.maximum

@program(lambda r: (100.0, 100.0 + r.uniform(-3, 3), 0.25, 0.03, 1.0))
def american_put_binomial(spot, strike, vol, rate, maturity):
    steps = 20
    dt = maturity / steps
    up = np.exp(vol * np.sqrt(dt))
    down = 1.0 / up
    p = (np.exp(rate * dt) - down) / (up - down)
    disc = np.exp(-rate * dt)
    j = np.arange(steps + 1)
    prices = spot * up ** (steps - j) * down ** j
    values = np.maximum(strike - prices, 0.0)
    for i in range(steps - 1, -1, -1):
        prices = prices[:-1] * down
        continuation = disc * (p * values[:-1] + (1 - p) * values[1:])
        values = np.maximum(continuation, strike - prices)
    return values[0]


# --- traffic: the Intelligent Driver Model, a platoon following a braking leader

def _idm_args(r):
    return np.array([30.0, 20.0, 10.0, 0.0]) + r.uniform(-1, 1, size=4), np.full(4, 10.0), \
        np.log(np.array([1.5, 2.0, 1.2]))


@program(_idm_args)
def idm_platoon(positions, speeds, log_params):
    a_max, b_comf, T_head = np.exp(log_params)
    v0, s0, dt = 15.0, 2.0, 0.2
    x, v = positions.copy(), speeds.copy()
    min_gap = np.inf
    for step in range(25):
        leader_acc = -2.0 if step < 10 else 0.5
        gap = x[:-1] - x[1:] - 5.0
        dv = v[1:] - v[:-1]
        s_star = s0 + np.maximum(0.0, v[1:] * T_head + v[1:] * dv / (2 * np.sqrt(a_max * b_comf)))
        acc = np.empty_like(v)
        acc[0] = leader_acc
        acc[1:] = a_max * (1 - (v[1:] / v0) ** 4 - (s_star / gap) ** 2)
        v = np.maximum(v + dt * acc, 0.0)
        x = x + dt * v
        min_gap = min(min_gap, np.min(gap))
    return np.sum(v ** 2) + min_gap


# --- numerical PDEs: 2-d heat diffusion, the five-point stencil on interior slices, insulated
#     edges by np.pad(mode="edge"), written in place

def _heat2d_args(r):
    u0 = np.zeros((7, 7))
    u0[2:5, 2:5] = 1.0
    return u0 + 0.1 * r.uniform(size=(7, 7)), 0.2


@program(_heat2d_args)
def heat2d_insulated(u0, kappa):
    u = u0.copy()
    for _ in range(8):
        p = np.pad(u, 1, mode="edge")
        lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
        u += kappa * lap
    return np.sum(u[1:-1, 1:-1] ** 3) / np.sum(u)


# --- image processing: a separable Gaussian blur over reflected borders, then the Sobel
#     gradient magnitude, an edge-energy loss

def _blur_args(r):
    img = np.zeros((8, 8))
    img[:, 4:] = 1.0
    return img + 0.1 * r.normal(size=(8, 8)), 1.0


@program(_blur_args)
def blur_sobel_energy(image, sigma):
    offsets = np.arange(-2, 3)
    g = np.exp(-offsets ** 2 / (2 * sigma ** 2))
    g = g / g.sum()
    p = np.pad(image, 2, mode="reflect")
    rows = sum(g[k] * p[:, k:k + image.shape[1]] for k in range(5))              # (12, 8)
    blurred = sum(g[k] * rows[k:k + image.shape[0], :] for k in range(5))         # (8, 8)
    dx = blurred[:, 2:] - blurred[:, :-2]                                        # (8, 6)
    dy = blurred[2:, :] - blurred[:-2, :]                                        # (6, 8)
    gx = dx[:-2] + 2 * dx[1:-1] + dx[2:]                                         # (6, 6)
    gy = dy[:, :-2] + 2 * dy[:, 1:-1] + dy[:, 2:]
    magnitude = np.sqrt(gx ** 2 + gy ** 2 + 1e-6)
    return np.mean(magnitude) + np.var(blurred, ddof=0)


# --- computer vision: Horn-Schunck optical flow, image derivatives by np.gradient, the flow
#     smoothed by np.roll averages in a fixed number of Jacobi sweeps

def _flow_args(r):
    blob = np.exp(-((np.arange(8)[:, None] - 3.0) ** 2 + (np.arange(8)[None, :] - 4.0) ** 2) / 6.0)
    return blob, np.roll(blob, 1, axis=1) + 0.01 * r.normal(size=(8, 8)), 0.5


@program(_flow_args)
def horn_schunck_flow(frame0, frame1, alpha):
    Iy, Ix = np.gradient(frame0)
    It = frame1 - frame0
    u = np.zeros_like(frame0)
    v = np.zeros_like(frame0)
    average = lambda f: 0.25 * (np.roll(f, 1, 0) + np.roll(f, -1, 0) + np.roll(f, 1, 1) + np.roll(f, -1, 1))  # noqa: E731
    for _ in range(10):
        u_bar, v_bar = average(u), average(v)
        common = (Ix * u_bar + Iy * v_bar + It) / (alpha ** 2 + Ix ** 2 + Iy ** 2)
        u = u_bar - Ix * common
        v = v_bar - Iy * common
    return np.mean(u ** 2 + v ** 2)


# --- curve fitting: Levenberg-Marquardt on an exponential decay, the damping raised on a
#     rejected step and lowered on an accepted one, a break once the cost stops falling

def _lm_args(r):
    t = np.linspace(0.0, 2.0, 10)
    return t, 2.0 * np.exp(-1.3 * t) + 0.01 * r.normal(size=10), np.array([1.0, 1.0])


@program(_lm_args)
def levenberg_marquardt(t, y, theta0):
    theta = theta0.copy()
    lam = 1e-2

    def resid(th):
        return th[0] * np.exp(-th[1] * t) - y
    cost = 0.5 * np.sum(resid(theta) ** 2)
    for _ in range(50):
        r = resid(theta)
        J = np.stack([np.exp(-theta[1] * t), -theta[0] * t * np.exp(-theta[1] * t)], axis=1)
        A = J.T @ J
        step = np.linalg.solve(A + lam * np.diag(np.diag(A)), -J.T @ r)
        new_cost = 0.5 * np.sum(resid(theta + step) ** 2)
        if new_cost < cost:
            theta = theta + step
            lam = lam / 3.0
            if cost - new_cost < 1e-14:
                break
            cost = new_cost
        else:
            lam = lam * 2.0
    return theta[0] + theta[1]


# --- state-space models: a bootstrap particle filter's log-likelihood with fixed noise,
#     systematic resampling by np.searchsorted on the weights' CDF

def _pf_args(r):
    return np.log(0.5), r.normal(size=5), r.normal(size=(5, 6)), r.uniform(size=5)


@program(_pf_args)
def particle_filter_loglik(log_sigma, obs, noise, uniforms):
    n = noise.shape[1]
    particles = np.zeros(n)
    loglik = 0.0
    sigma = np.exp(log_sigma)
    for t in range(obs.shape[0]):
        particles = 0.9 * particles + sigma * noise[t]
        logw = -0.5 * (obs[t] - particles) ** 2
        m = logw.max()
        w = np.exp(logw - m)
        loglik += m + np.log(w.mean())
        cdf = np.cumsum(w) / w.sum()
        idx = np.minimum(np.searchsorted(cdf, (uniforms[t] + np.arange(n)) / n), n - 1)
        particles = particles[idx]
    return loglik
