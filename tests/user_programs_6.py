"""A sixth batch of programs as their authors write them, from fields the other batches do
not cover: adaptive ODE solving with step rejection (Runge-Kutta-Fehlberg on Lorenz),
structured prediction (a linear-chain CRF's forward algorithm, soft-DTW), probabilistic
regression (a mixture density network), energy-based models (an RBM's free energy, a modern
Hopfield network), sparse regression (elastic net by ISTA with np.sign), matrix functions
(expm by scaling and squaring), approximation theory (Chebyshev series by Clenshaw,
polynomial chaos by the Legendre recursion), geometric optics (Snell refraction with total
internal reflection by np.where), a physics-informed loss with finite differences by
slicing, object detection (GIoU and focal loss), contrastive learning (NT-Xent),
neuroscience (Hodgkin-Huxley), synchronisation (Kuramoto, a complex order parameter),
neural rendering (NeRF's volume rendering by np.cumprod), iterative solvers (conjugate
gradients until a tolerance, implicit Euler with Newton on a stiff system), spectral
normalisation by power iteration, Elo ratings, a natural cubic spline by np.searchsorted,
a Gumbel-softmax autoencoder, and batch normalisation with running statistics.

tests/test_user_programs_6.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np
from scipy.special import logsumexp

from program_registry import registry

PROGRAMS, program = registry()


# --- ODEs: Runge-Kutta-Fehlberg 4(5) with step rejection on the Lorenz system, the final
#     state fitted to a target (as in an adjoint-free parameter estimation tutorial)

def lorenz(t, y, params):
    sigma, rho, beta = params
    return np.array([sigma * (y[1] - y[0]),
                     y[0] * (rho - y[2]) - y[1],
                     y[0] * y[1] - beta * y[2]])


def rkf45(f, y0, t0, t1, params, tol=1e-6, h=0.05):
    t = t0
    y = y0.copy()
    n_rejected = 0
    while t < t1:
        h = min(h, t1 - t)
        k1 = f(t, y, params)
        k2 = f(t + h / 4, y + h * k1 / 4, params)
        k3 = f(t + 3 * h / 8, y + h * (3 * k1 + 9 * k2) / 32, params)
        k4 = f(t + 12 * h / 13, y + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197, params)
        k5 = f(t + h, y + h * (439 / 216 * k1 - 8 * k2 + 3680 / 513 * k3 - 845 / 4104 * k4), params)
        k6 = f(t + h / 2, y + h * (-8 / 27 * k1 + 2 * k2 - 3544 / 2565 * k3 + 1859 / 4104 * k4
                                   - 11 / 40 * k5), params)
        y4 = y + h * (25 / 216 * k1 + 1408 / 2565 * k3 + 2197 / 4104 * k4 - k5 / 5)
        y5 = y + h * (16 / 135 * k1 + 6656 / 12825 * k3 + 28561 / 56430 * k4 - 9 / 50 * k5 + 2 / 55 * k6)
        err = np.max(np.abs(y5 - y4))
        if err <= tol:
            t = t + h
            y = y5
        else:
            n_rejected += 1
        h = 0.9 * h * (tol / max(err, 1e-12)) ** 0.2
    return y, n_rejected


def _lorenz_args(r):
    return np.array([10.0, 28.0, 8.0 / 3.0]), np.array([1.0, 1.0, 1.0]), np.array([2.0, 3.0, 15.0])


@program(_lorenz_args)
def lorenz_fit(params, y0, target):
    y, n_rejected = rkf45(lorenz, y0, 0.0, 0.3, params)
    return np.sum((y - target) ** 2) + 0.0 * n_rejected


# --- structured prediction: the negative log-likelihood of a linear-chain CRF (the forward
#     algorithm in log space, the gold path's score by indexing), as in pytorch-crf

def _crf_args(r):
    return (0.5 * r.normal(size=(5, 4)), 0.3 * r.normal(size=(4, 4)), 0.1 * r.normal(size=4),
            0.1 * r.normal(size=4), r.normal(size=(7, 5)), np.array([0, 1, 1, 2, 3, 3, 0]))


@program(_crf_args)
def crf_nll(W_emit, transitions, start, end, features, tags):
    emissions = features @ W_emit                               # (T, K)
    T, K = emissions.shape
    score = start[tags[0]] + emissions[0, tags[0]]
    for t in range(1, T):
        score += transitions[tags[t - 1], tags[t]] + emissions[t, tags[t]]
    score += end[tags[-1]]
    alpha = start + emissions[0]
    for t in range(1, T):
        alpha = logsumexp(alpha[:, None] + transitions, axis=0) + emissions[t]
    log_Z = logsumexp(alpha + end)
    return log_Z - score


# --- time series: soft-DTW (Cuturi & Blondel 2017) between two multivariate series, the
#     recursion over a table started at infinity

def softmin3(a, b, c, gamma):
    vals = np.array([a, b, c]) / -gamma
    m = np.max(vals)
    return -gamma * (m + np.log(np.sum(np.exp(vals - m))))


def _sdtw_args(r):
    t = np.linspace(0, 2 * np.pi, 6)
    s = np.linspace(0, 2 * np.pi, 5)
    return np.stack([np.sin(t), np.cos(t)], axis=1), np.stack([np.sin(s + 0.3), np.cos(s)], axis=1)


@program(_sdtw_args)
def soft_dtw(x, y, gamma=0.5):
    D = ((x[:, None, :] - y[None, :, :]) ** 2).sum(axis=-1)
    n, m = D.shape
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            R[i, j] = D[i - 1, j - 1] + softmin3(R[i - 1, j - 1], R[i - 1, j], R[i, j - 1], gamma)
    return R[n, m]


# --- probabilistic regression: a mixture density network (Bishop 1994), its parameters in a
#     dict, the outputs split into mixture logits, means and log scales

def _mdn_args(r):
    params = {"W1": 0.5 * r.normal(size=(1, 8)), "b1": np.zeros(8),
              "W2": 0.3 * r.normal(size=(8, 9)), "b2": np.zeros(9)}
    x = np.linspace(-1, 1, 12)[:, None]
    y = np.sin(3 * x[:, 0]) + 0.1 * r.normal(size=12)
    return params, x, y


@program(_mdn_args)
def mdn_nll(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    logits, mu, log_sigma = np.split(out, 3, axis=1)
    log_pi = logits - logsumexp(logits, axis=1, keepdims=True)
    sigma = np.exp(log_sigma)
    log_prob = -0.5 * ((y[:, None] - mu) / sigma) ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_pi + log_prob, axis=1))


# --- energy-based models: the contrastive-divergence loss of a Bernoulli RBM (free energies
#     of the data and of fixed fantasy particles), and a modern Hopfield network's retrieval

def free_energy(v, W, b, c):
    return -v @ b - np.sum(np.logaddexp(0, v @ W + c), axis=1)


def _rbm_args(r):
    v_data = (r.uniform(size=(6, 5)) > 0.5).astype(float)
    v_model = (r.uniform(size=(6, 5)) > 0.5).astype(float)
    return 0.1 * r.normal(size=(5, 3)), 0.1 * r.normal(size=5), 0.1 * r.normal(size=3), v_data, v_model


@program(_rbm_args)
def rbm_cd_loss(W, b, c, v_data, v_model):
    return np.mean(free_energy(v_data, W, b, c)) - np.mean(free_energy(v_model, W, b, c))


def _hopfield_args(r):
    return r.normal(size=(4, 6)), r.normal(size=6), 2.0


@program(_hopfield_args)
def hopfield_retrieval(patterns, query, beta):
    xi = query
    for _ in range(3):
        a = beta * patterns @ xi
        p = np.exp(a - a.max())
        p /= p.sum()
        xi = patterns.T @ p
    M = np.max(np.linalg.norm(patterns, axis=1))
    energy = -logsumexp(beta * patterns @ xi) / beta + 0.5 * xi @ xi + np.log(len(patterns)) / beta + 0.5 * M ** 2
    return energy + np.sum((xi - patterns[0]) ** 2)


# --- sparse regression: elastic net fitted by ISTA (soft thresholding with np.sign, a step
#     from the spectral norm), stopped at a tolerance; the validation error as a function of
#     the penalty (hyperparameter tuning by gradient)

def soft_threshold(z, t):
    return np.sign(z) * np.maximum(np.abs(z) - t, 0.0)


def _enet_args(r):
    X = r.normal(size=(20, 6))
    w_true = np.array([1.5, 0.0, -2.0, 0.0, 0.0, 0.7])
    y = X @ w_true + 0.1 * r.normal(size=20)
    Xv = r.normal(size=(10, 6))
    return X, y, 0.2, 0.5, Xv, Xv @ w_true


@program(_enet_args)
def elastic_net_validation(X, y, alpha, l1_ratio, Xv, yv, max_iter=500, tol=1e-10):
    n, p = X.shape
    L = np.linalg.norm(X, ord=2) ** 2 / n + alpha * (1 - l1_ratio)
    step = 1.0 / L
    w = np.zeros(p)
    for it in range(max_iter):
        grad = X.T @ (X @ w - y) / n + alpha * (1 - l1_ratio) * w
        w_new = soft_threshold(w - step * grad, step * alpha * l1_ratio)
        if np.max(np.abs(w_new - w)) < tol:
            w = w_new
            break
        w = w_new
    return np.mean((Xv @ w - yv) ** 2)


# --- matrix functions: expm by scaling and squaring (a while loop halving the 1-norm, a
#     Taylor polynomial, repeated squaring), the solution of a linear ODE x' = A x

def expm_taylor(A, order=12):
    norm = np.linalg.norm(A, 1)
    s = 0
    while norm > 0.5:
        norm /= 2
        s += 1
    A = A / 2 ** s
    E = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, order + 1):
        term = term @ A / k
        E = E + term
    for _ in range(s):
        E = E @ E
    return E


def _expm_args(r):
    return np.array([0.5, 2.0, 0.3]), np.array([1.0, 0.0]), np.array([0.2, -0.4])


@program(_expm_args)
def damped_oscillator_expm(coeffs, x0, target):
    damping, stiffness, t = coeffs
    A = np.array([[0.0, 1.0], [-stiffness, -damping]])
    x_t = expm_taylor(A * 3.0 * t) @ x0
    return np.sum((x_t - target) ** 2)


# --- approximation theory: a Chebyshev series evaluated by Clenshaw's recurrence (the
#     textbook loop with tuple assignment), fitted at Chebyshev nodes

def chebval_clenshaw(c, x):
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for k in range(len(c) - 1, 0, -1):
        b1, b2 = 2 * x * b1 - b2 + c[k], b1
    return x * b1 - b2 + c[0]


def _cheb_args(r):
    n = 9
    nodes = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    return 0.3 * r.normal(size=6), nodes, 1.5


@program(_cheb_args)
def chebyshev_fit(c, nodes, k):
    target = np.exp(-k * nodes) * np.sin(3 * nodes)
    residual = chebval_clenshaw(c, nodes) - target
    smoothness = sum(j ** 2 * c[j] ** 2 for j in range(len(c)))
    return 0.5 * residual @ residual + 1e-3 * smoothness


# --- uncertainty quantification: polynomial chaos of a decay model with a uniform
#     parameter, Legendre polynomials by Bonnet's recursion, Gauss-Legendre quadrature

def legendre_table(x, degree):
    P = [np.ones_like(x), x]
    for n in range(1, degree):
        P.append(((2 * n + 1) * x * P[n] - n * P[n - 1]) / (n + 1))
    return np.stack(P[:degree + 1], axis=-1)


def _pce_args(r):
    nodes, weights = np.polynomial.legendre.leggauss(8)
    return 0.8, 0.3, nodes, weights


@program(_pce_args)
def pce_variance(k_mean, k_spread, nodes, weights, degree=5):
    y = np.exp(-(k_mean + k_spread * nodes) * 2.0)
    P = legendre_table(nodes, degree)
    norms = 2.0 / (2 * np.arange(degree + 1) + 1)
    coeffs = (weights * y) @ P / norms
    mean = coeffs[0]
    variance = np.sum(coeffs[1:] ** 2 * norms[1:]) / 2.0
    return mean + np.sqrt(variance)


# --- geometric optics: parallel rays through a glass sphere (ray-sphere intersection,
#     Snell's law in vector form, total internal reflection by np.where), the RMS spot size
#     on a screen as a function of the radius and the index

def refract(d, n, eta):
    cos_i = -np.sum(d * n, axis=-1, keepdims=True)
    sin2_t = eta ** 2 * (1.0 - cos_i ** 2)
    tir = sin2_t > 1.0
    cos_t = np.sqrt(np.maximum(1.0 - sin2_t, 0.0))
    refracted = eta * d + (eta * cos_i - cos_t) * n
    reflected = d + 2.0 * cos_i * n
    return np.where(tir, reflected, refracted)


def hit_sphere(o, d, center, radius, far):
    oc = o - center
    b = np.sum(oc * d, axis=-1)
    c = np.sum(oc * oc, axis=-1) - radius ** 2
    disc = np.sqrt(b ** 2 - c)
    t = -b + disc if far else -b - disc
    return o + t[:, None] * d


def _lens_args(r):
    heights = np.linspace(-0.6, 0.6, 7)
    return np.array([1.0, 1.5]), heights


@program(_lens_args)
def ball_lens_spot(lens, heights):
    radius, n_glass = lens
    o = np.stack([heights, np.full_like(heights, -5.0)], axis=1)
    d = np.tile(np.array([0.0, 1.0]), (len(heights), 1))
    center = np.zeros(2)
    p1 = hit_sphere(o, d, center, radius, far=False)
    d1 = refract(d, (p1 - center) / radius, 1.0 / n_glass)
    p2 = hit_sphere(p1, d1, center, radius, far=True)
    d2 = refract(d1, -(p2 - center) / radius, n_glass)
    t_screen = (3.0 - p2[:, 1]) / d2[:, 1]
    x_screen = p2[:, 0] + t_screen * d2[:, 0]
    return np.sqrt(np.mean((x_screen - x_screen.mean()) ** 2))


# --- scientific ML: a physics-informed loss for the heat equation, an MLP on a meshgrid,
#     its derivatives by finite differences on slices

def _pinn_args(r):
    return (0.8 * r.normal(size=(2, 10)), 0.1 * r.normal(size=10), 0.5 * r.normal(size=(10, 1)),
            np.zeros(1), np.linspace(0, 1, 9), np.linspace(0, 0.5, 7), 0.1)


@program(_pinn_args)
def pinn_heat_loss(W1, b1, W2, b2, x, t, alpha):
    X, T = np.meshgrid(x, t, indexing="ij")
    inputs = np.stack([X.reshape(-1), T.reshape(-1)], axis=1)
    u = (np.tanh(inputs @ W1 + b1) @ W2 + b2).reshape(X.shape)
    dx, dt = x[1] - x[0], t[1] - t[0]
    u_t = (u[1:-1, 2:] - u[1:-1, :-2]) / (2 * dt)
    u_xx = (u[2:, 1:-1] - 2 * u[1:-1, 1:-1] + u[:-2, 1:-1]) / dx ** 2
    residual = u_t - alpha * u_xx
    boundary = np.mean(u[0, :] ** 2) + np.mean(u[-1, :] ** 2)
    initial = np.mean((u[:, 0] - np.sin(np.pi * x)) ** 2)
    return np.mean(residual ** 2) + boundary + initial


# --- object detection: box regression decoded from anchors (RetinaNet's parametrisation),
#     the generalised IoU loss, and the sigmoid focal loss on the class logits

def decode(anchors, deltas):
    wa = anchors[:, 2] - anchors[:, 0]
    ha = anchors[:, 3] - anchors[:, 1]
    cxa = anchors[:, 0] + 0.5 * wa
    cya = anchors[:, 1] + 0.5 * ha
    cx = cxa + deltas[:, 0] * wa
    cy = cya + deltas[:, 1] * ha
    w = wa * np.exp(deltas[:, 2])
    h = ha * np.exp(deltas[:, 3])
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)


def giou_loss(pred, target):
    x1 = np.maximum(pred[:, 0], target[:, 0])
    y1 = np.maximum(pred[:, 1], target[:, 1])
    x2 = np.minimum(pred[:, 2], target[:, 2])
    y2 = np.minimum(pred[:, 3], target[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_p = (pred[:, 2] - pred[:, 0]) * (pred[:, 3] - pred[:, 1])
    area_t = (target[:, 2] - target[:, 0]) * (target[:, 3] - target[:, 1])
    union = area_p + area_t - inter
    iou = inter / union
    cx1 = np.minimum(pred[:, 0], target[:, 0])
    cy1 = np.minimum(pred[:, 1], target[:, 1])
    cx2 = np.maximum(pred[:, 2], target[:, 2])
    cy2 = np.maximum(pred[:, 3], target[:, 3])
    enclosing = (cx2 - cx1) * (cy2 - cy1)
    return 1.0 - (iou - (enclosing - union) / enclosing)


def sigmoid_focal_loss(logits, labels, alpha=0.25, gamma=2.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    ce = np.logaddexp(0.0, -logits) * labels + np.logaddexp(0.0, logits) * (1 - labels)
    p_t = p * labels + (1 - p) * (1 - labels)
    alpha_t = alpha * labels + (1 - alpha) * (1 - labels)
    return alpha_t * (1 - p_t) ** gamma * ce


def _det_args(r):
    anchors = np.array([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 4.0, 3.0], [2.0, 0.5, 3.0, 2.5]])
    gt = np.array([[0.3, 0.2, 2.1, 2.4], [1.5, 0.7, 4.2, 3.1], [2.2, 0.4, 3.4, 2.0]])
    labels = np.array([[1, 0], [0, 1], [0, 0]])
    return 0.1 * r.normal(size=(3, 4)), r.normal(size=(3, 2)), anchors, gt, labels


@program(_det_args)
def detection_loss(deltas, logits, anchors, gt_boxes, labels):
    boxes = decode(anchors, deltas)
    positive = labels.max(axis=1) > 0
    box_loss = giou_loss(boxes[positive], gt_boxes[positive]).sum()
    num_pos = max(1, positive.sum())
    return (sigmoid_focal_loss(logits, labels).sum() + box_loss) / num_pos


# --- contrastive learning: SimCLR's NT-Xent loss, the diagonal masked out, the positive
#     pair picked by fancy indexing

def _ntxent_args(r):
    return r.normal(size=(4, 3)), r.normal(size=(4, 3)), 0.5


@program(_ntxent_args)
def nt_xent(z1, z2, temperature):
    z = np.concatenate([z1, z2], axis=0)
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    sim = z @ z.T / temperature
    n = z1.shape[0]
    sim = np.where(np.eye(2 * n, dtype=bool), -np.inf, sim)
    targets = np.concatenate([np.arange(n, 2 * n), np.arange(n)])
    log_prob = sim - logsumexp(sim, axis=1, keepdims=True)
    return -log_prob[np.arange(2 * n), targets].mean()


# --- neuroscience: the Hodgkin-Huxley neuron by forward Euler under a step current, the
#     voltage trace fitted to a recording, spikes counted by threshold crossings

def alpha_n(V):
    return 0.01 * (V + 55) / (1 - np.exp(-(V + 55) / 10))


def beta_n(V):
    return 0.125 * np.exp(-(V + 65) / 80)


def alpha_m(V):
    return 0.1 * (V + 40) / (1 - np.exp(-(V + 40) / 10))


def beta_m(V):
    return 4.0 * np.exp(-(V + 65) / 18)


def alpha_h(V):
    return 0.07 * np.exp(-(V + 65) / 20)


def beta_h(V):
    return 1 / (1 + np.exp(-(V + 35) / 10))


def _hh_args(r):
    return np.array([120.0, 36.0, 0.3]), 10.0 * np.sin(np.linspace(0, 3, 400)) - 60.0


@program(_hh_args)
def hodgkin_huxley_fit(g, recording, I_ext=10.0, dt=0.025):
    g_Na, g_K, g_L = g
    E_Na, E_K, E_L, C_m = 50.0, -77.0, -54.387, 1.0
    V, m, h, n = -65.0, 0.05, 0.6, 0.32
    trace = np.zeros(len(recording))
    spikes = 0
    for i in range(len(recording)):
        I_Na = g_Na * m ** 3 * h * (V - E_Na)
        I_K = g_K * n ** 4 * (V - E_K)
        I_L = g_L * (V - E_L)
        V_new = V + dt * (I_ext - I_Na - I_K - I_L) / C_m
        m += dt * (alpha_m(V) * (1 - m) - beta_m(V) * m)
        h += dt * (alpha_h(V) * (1 - h) - beta_h(V) * h)
        n += dt * (alpha_n(V) * (1 - n) - beta_n(V) * n)
        if V < 0 <= V_new:
            spikes += 1
        V = V_new
        trace[i] = V
    return np.mean((trace - recording) ** 2) / 100.0 + 0.0 * spikes


# --- synchronisation: Kuramoto oscillators by Euler steps, the complex order parameter
#     r = |mean(exp(i theta))|

def _kuramoto_args(r):
    return r.uniform(0, 2 * np.pi, size=6), r.normal(size=6), 1.5


@program(_kuramoto_args)
def kuramoto_order(theta0, omega, K, dt=0.05, steps=40):
    theta = theta0.copy()
    N = len(theta)
    for _ in range(steps):
        coupling = np.sin(theta[None, :] - theta[:, None]).sum(axis=1)
        theta = theta + dt * (omega + K / N * coupling)
    z = np.mean(np.exp(1j * theta))
    return np.abs(z) + 0.1 * np.angle(z) ** 2


# --- neural rendering: NeRF's volume rendering (positional encoding, a small density/colour
#     MLP, alpha compositing with an exclusive np.cumprod), the photometric loss

def positional_encoding(x, L):
    freqs = 2.0 ** np.arange(L) * np.pi
    angles = x[..., None] * freqs
    return np.concatenate([x[..., None], np.sin(angles), np.cos(angles)], axis=-1)


def _nerf_args(r):
    return ({"W1": 0.5 * r.normal(size=(7, 16)), "b1": np.zeros(16),
             "W2": 0.3 * r.normal(size=(16, 4)), "b2": np.zeros(4)},
            np.linspace(2.0, 6.0, 12), r.uniform(size=(3, 3)), np.array([-0.5, 0.0, 0.4]))


@program(_nerf_args)
def nerf_render_loss(params, t_vals, target_rgb, ray_offsets):
    pts = ray_offsets[:, None] + 0.1 * t_vals[None, :]          # (rays, samples)
    enc = positional_encoding(pts, 3)
    h = np.maximum(enc @ params["W1"] + params["b1"], 0.0)
    raw = h @ params["W2"] + params["b2"]
    sigma = np.log1p(np.exp(raw[..., 0]))
    rgb = 1.0 / (1.0 + np.exp(-raw[..., 1:]))
    deltas = np.diff(t_vals)
    deltas = np.concatenate([deltas, [1e10]])
    alpha = 1.0 - np.exp(-sigma * deltas)
    T = np.cumprod(1.0 - alpha + 1e-10, axis=-1)
    T = np.concatenate([np.ones_like(T[:, :1]), T[:, :-1]], axis=-1)
    weights = alpha * T
    rgb_map = np.sum(weights[..., None] * rgb, axis=-2)
    depth = np.sum(weights * t_vals, axis=-1)
    return np.mean((rgb_map - target_rgb) ** 2) + 1e-3 * np.mean(depth)


# --- iterative solvers: conjugate gradients until the residual is small (a graph Laplacian
#     with conductances), the compliance b.x differentiated through the iterations

def conjugate_gradient(A, b, tol=1e-12, max_iter=100):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs_old = r @ r
    it = 0
    while np.sqrt(rs_old) > tol and it < max_iter:
        Ap = A @ p
        alpha = rs_old / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs_old) * p
        rs_old = rs_new
        it += 1
    return x


def _cg_args(r):
    return r.uniform(0.5, 2.0, size=5), r.normal(size=6)


@program(_cg_args)
def resistor_network_compliance(conductance, b):
    n = len(conductance) + 1
    L = np.eye(n) * 0.5
    for e, g in enumerate(conductance):
        i, j = e, e + 1
        L[i, i] += g
        L[j, j] += g
        L[i, j] -= g
        L[j, i] -= g
    x = conjugate_gradient(L, b)
    return b @ x


# --- stiff kinetics: Robertson's reactions by implicit Euler, each step a Newton iteration
#     with np.linalg.solve that breaks at a tolerance

def robertson_rhs(y, k):
    return np.array([-k[0] * y[0] + k[2] * y[1] * y[2],
                     k[0] * y[0] - k[1] * y[1] ** 2 - k[2] * y[1] * y[2],
                     k[1] * y[1] ** 2])


def robertson_jac(y, k):
    return np.array([[-k[0], k[2] * y[2], k[2] * y[1]],
                     [k[0], -2 * k[1] * y[1] - k[2] * y[2], -k[2] * y[1]],
                     [0.0, 2 * k[1] * y[1], 0.0]])


@program(lambda r: (np.array([0.04, 3e7, 1e4]),))
def robertson_implicit_euler(k, h=0.1, steps=10):
    y = np.array([1.0, 0.0, 0.0])
    for _ in range(steps):
        y_new = y.copy()
        for _newton in range(20):
            F = y_new - y - h * robertson_rhs(y_new, k)
            J = np.eye(3) - h * robertson_jac(y_new, k)
            delta = np.linalg.solve(J, F)
            y_new = y_new - delta
            if np.linalg.norm(delta) < 1e-13:
                break
        y = y_new
    return y[0] + 1e4 * y[1] + 2 * y[2]


# --- GAN training: spectral normalisation by power iteration (Miyato et al.), the
#     normalised layer applied to a batch

def _sn_args(r):
    return r.normal(size=(4, 5)), r.normal(size=4), r.normal(size=(3, 5))


@program(_sn_args)
def spectral_norm_layer(W, u0, x, n_power_iterations=5, eps=1e-12):
    u = u0 / np.linalg.norm(u0)
    for _ in range(n_power_iterations):
        v = W.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = W @ v
        u = u / (np.linalg.norm(u) + eps)
    sigma = u @ W @ v
    return np.sum(np.tanh(x @ (W / sigma).T) ** 2)


# --- sports ratings: Elo updates over a season of games (in-place updates at indices that
#     zip gives), the log-loss of the ratings' predictions on later games

def _elo_args(r):
    winners = np.array([0, 1, 2, 0, 3, 1, 2, 0])
    losers = np.array([1, 2, 3, 3, 1, 0, 0, 2])
    return np.array([1500.0, 1520.0, 1480.0, 1500.0]), 32.0, winners, losers, \
        np.array([[0, 3], [1, 2], [2, 0]]), np.array([1.0, 0.0, 1.0])


@program(_elo_args)
def elo_log_loss(initial, k, winners, losers, test_pairs, test_outcomes):
    ratings = initial.copy()
    for w, l in zip(winners, losers):
        expected = 1.0 / (1.0 + 10 ** ((ratings[l] - ratings[w]) / 400))
        ratings[w] += k * (1 - expected)
        ratings[l] -= k * (1 - expected)
    loss = 0.0
    for (a, b), outcome in zip(test_pairs, test_outcomes):
        p = 1.0 / (1.0 + 10 ** ((ratings[b] - ratings[a]) / 400))
        loss -= outcome * np.log(p) + (1 - outcome) * np.log(1 - p)
    return loss / len(test_outcomes)


# --- interpolation: a natural cubic spline (the tridiagonal system for the second
#     derivatives by np.linalg.solve, the interval by np.searchsorted)

def natural_spline_second_derivatives(x, y):
    n = len(x)
    h = np.diff(x)
    A = np.zeros((n, n))
    rhs = np.zeros(n)
    A[0, 0] = A[-1, -1] = 1.0
    for i in range(1, n - 1):
        A[i, i - 1] = h[i - 1]
        A[i, i] = 2 * (h[i - 1] + h[i])
        A[i, i + 1] = h[i]
        rhs[i] = 6 * ((y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1])
    return np.linalg.solve(A, rhs)


def spline_eval(x, y, M, xq):
    i = np.clip(np.searchsorted(x, xq) - 1, 0, len(x) - 2)
    h = x[i + 1] - x[i]
    a = (x[i + 1] - xq) / h
    b = (xq - x[i]) / h
    return a * y[i] + b * y[i + 1] + ((a ** 3 - a) * M[i] + (b ** 3 - b) * M[i + 1]) * h ** 2 / 6


def _spline_args(r):
    x = np.array([0.0, 0.7, 1.5, 2.2, 3.0, 4.1])
    return x, np.sin(x) + 0.1 * r.normal(size=6), np.array([0.3, 1.1, 1.9, 2.9, 3.7])


@program(_spline_args)
def spline_curve_energy(x, y, xq):
    M = natural_spline_second_derivatives(x, y)
    yq = spline_eval(x, y, M, xq)
    bending = np.sum(np.diff(x) * (M[:-1] ** 2 + M[:-1] * M[1:] + M[1:] ** 2) / 3)
    return np.sum(yq ** 2) + 0.1 * bending


# --- discrete latents: a Gumbel-softmax autoencoder with its noise drawn once outside (the
#     relaxed one-hot code, the reconstruction and the KL to a uniform prior)

def _gumbel_args(r):
    u = r.uniform(1e-3, 1 - 1e-3, size=(5, 4))
    return 0.5 * r.normal(size=(6, 4)), 0.5 * r.normal(size=(4, 6)), r.normal(size=(5, 6)), u, 0.7


@program(_gumbel_args)
def gumbel_softmax_autoencoder(W_enc, W_dec, x, u, tau):
    logits = x @ W_enc
    g = -np.log(-np.log(u))
    y = (logits + g) / tau
    y = np.exp(y - y.max(axis=-1, keepdims=True))
    y = y / y.sum(axis=-1, keepdims=True)
    recon = y @ W_dec
    q = np.exp(logits - logsumexp(logits, axis=-1, keepdims=True))
    K = logits.shape[-1]
    kl = np.sum(q * (np.log(q + 1e-20) - np.log(1.0 / K)), axis=-1)
    return np.mean(np.sum((recon - x) ** 2, axis=-1) + kl)


# --- batch normalisation with running statistics in a dict: two training batches update
#     the state with momentum, evaluation uses the running statistics

def batch_norm_train(x, params, state, momentum=0.1, eps=1e-5):
    mean = x.mean(axis=0)
    var = x.var(axis=0)
    n = x.shape[0]
    new_state = {"mean": (1 - momentum) * state["mean"] + momentum * mean,
                 "var": (1 - momentum) * state["var"] + momentum * var * n / (n - 1)}
    x_hat = (x - mean) / np.sqrt(var + eps)
    return params["gamma"] * x_hat + params["beta"], new_state


def batch_norm_eval(x, params, state, eps=1e-5):
    return params["gamma"] * (x - state["mean"]) / np.sqrt(state["var"] + eps) + params["beta"]


def _bn_args(r):
    params = {"W": 0.5 * r.normal(size=(3, 4)), "gamma": np.ones(4), "beta": np.zeros(4), "v": r.normal(size=4)}
    batches = [r.normal(size=(6, 3)), r.normal(size=(6, 3)) + 0.5]
    return params, batches, r.normal(size=(4, 3)), r.normal(size=4)


@program(_bn_args)
def batch_norm_running_stats(params, batches, x_val, y_val):
    state = {"mean": np.zeros(4), "var": np.ones(4)}
    train_loss = 0.0
    for xb in batches:
        h, state = batch_norm_train(xb @ params["W"], params, state)
        train_loss += np.mean(np.tanh(h) @ params["v"] ** 2)
    h_val = batch_norm_eval(x_val @ params["W"], params, state)
    return train_loss + np.mean((np.tanh(h_val) @ params["v"] - y_val) ** 2)
