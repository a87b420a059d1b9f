"""Programs from fields the other corpora do not cover, written the way their authors write
them (plain NumPy, loops, ``if`` on data, ``while`` with ``break``, helpers, closures,
``x[i] += v``, lists of arrays, dict and tuple parameters).  tests/test_user_programs_4.py
checks each against central finite differences.  Each ``make_args`` takes a Generator."""
import numpy as np

PROGRAMS = []


def program(make_args, order=1, modes=("fwd", "rev")):
    """Register ``fn`` with its arguments; ``order`` 2 also checks second derivatives;
    ``modes`` leaves out a mode the test file records as a known defect."""
    def register(fn):
        PROGRAMS.append((fn, make_args, order, modes))
        return fn
    return register


# --- astrophysics: n-body gravity, leapfrog steps with pairwise accelerations in a double loop

def _accelerations(pos, mass, soft):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            inv_r3 = (d @ d + soft ** 2) ** -1.5
            acc[i] += mass[j] * inv_r3 * d
            acc[j] -= mass[i] * inv_r3 * d
    return acc


@program(lambda r: (r.normal(size=(4, 2)), r.normal(size=(4, 2)) * 0.1, np.array([1.0, 0.5, 2.0, 0.8])))
def nbody_leapfrog(pos, vel, mass):
    dt, soft = 0.01, 0.1
    acc = _accelerations(pos, mass, soft)
    for _ in range(5):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = _accelerations(pos, mass, soft)
        vel = vel + 0.5 * dt * acc
    com = np.sum(mass[:, None] * pos, axis=0) / np.sum(mass)
    return np.sum((pos - com) ** 2) + 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))


# --- molecular dynamics: Lennard-Jones energy with a cutoff, pairs by np.triu_indices

@program(lambda r: (np.array([[0.0, 0.0, 0.0], [1.1, 0.1, 0.0], [0.2, 1.2, 0.1], [1.0, 1.1, 0.9], [2.3, 0.2, 0.4]])
                    + 0.02 * r.normal(size=(5, 3)), 1.0, 1.0), order=2)
def lennard_jones(positions, epsilon, sigma):
    i, j = np.triu_indices(positions.shape[0], k=1)
    r = np.linalg.norm(positions[i] - positions[j], axis=1)
    sr6 = (sigma / r) ** 6
    pair = 4 * epsilon * (sr6 ** 2 - sr6)
    return np.sum(np.where(r < 2.5 * sigma, pair, 0.0))


# --- numerical PDEs: a 2-d wave equation on a periodic grid with np.roll

@program(lambda r: (np.exp(-((np.arange(8)[:, None] - 3.5) ** 2 + (np.arange(8)[None, :] - 3.5) ** 2) / 4.0)
                    + 0.05 * r.normal(size=(8, 8)), 0.3))
def wave_equation_roll(u0, c):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(6):
        lap = (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
               + np.roll(u, -1, axis=1) - 4 * u)
        u_next = 2 * u - u_prev + c ** 2 * lap
        u_prev, u = u, u_next
    return np.sum(u[2:6, 2:6] ** 2)


# --- graphics/physics: a mass-spring cloth step, spring forces scattered with np.add.at

def _cloth_springs(n):
    edges = []
    for a in range(n):
        for b in range(n):
            k = a * n + b
            if b + 1 < n:
                edges.append((k, k + 1))
            if a + 1 < n:
                edges.append((k, k + n))
    return np.array(edges)


@program(lambda r: (np.stack(np.meshgrid(np.arange(3.0), np.arange(3.0)), -1).reshape(9, 2) * 1.1
                    + 0.05 * r.normal(size=(9, 2)), np.zeros((9, 2)), 10.0, _cloth_springs(3)))
def cloth_step(x, v, stiffness, springs):
    rest, dt = 1.0, 0.02
    for _ in range(4):
        d = x[springs[:, 1]] - x[springs[:, 0]]
        length = np.sqrt(np.sum(d ** 2, axis=1))
        f = stiffness * (length - rest)[:, None] * d / length[:, None]
        force = np.zeros_like(x)
        np.add.at(force, springs[:, 0], f)
        np.add.at(force, springs[:, 1], -f)
        force[:, 1] -= 9.81 * 0.1
        force[0] = 0.0                      # a pinned corner
        v = 0.99 * v + dt * force
        x = x + dt * v
    return np.sum(x[:, 1])


# --- imaging: total-variation denoising, a few gradient steps on 2-d slices

def _tv_grad(u, f, lam, eps):
    dx = np.zeros_like(u)
    dy = np.zeros_like(u)
    dx[:, :-1] = u[:, 1:] - u[:, :-1]
    dy[:-1, :] = u[1:, :] - u[:-1, :]
    mag = np.sqrt(dx ** 2 + dy ** 2 + eps)
    px, py = dx / mag, dy / mag
    div = np.zeros_like(u)
    div[:, 1:] += px[:, :-1]
    div[:, :-1] -= px[:, :-1]
    div[1:, :] += py[:-1, :]
    div[:-1, :] -= py[:-1, :]
    return (u - f) - lam * div


@program(lambda r: (np.kron(np.array([[0.0, 1.0], [1.0, 0.0]]), np.ones((3, 3))) + 0.1 * r.normal(size=(6, 6)),
                    0.2))
def tv_denoise(noisy, lam):
    u = noisy.copy()
    for _ in range(5):
        u = u - 0.2 * _tv_grad(u, noisy, lam, 1e-2)
    return np.sum(u[:3, :3]) - np.sum(u[3:, 3:])


# --- vision: bilinear sampling of an image at floating points (a spatial transformer)

def bilinear(img, ys, xs):
    h, w = img.shape
    y0 = np.clip(np.floor(ys).astype(int), 0, h - 2)
    x0 = np.clip(np.floor(xs).astype(int), 0, w - 2)
    wy = ys - y0
    wx = xs - x0
    top = img[y0, x0] * (1 - wx) + img[y0, x0 + 1] * wx
    bottom = img[y0 + 1, x0] * (1 - wx) + img[y0 + 1, x0 + 1] * wx
    return top * (1 - wy) + bottom * wy


@program(lambda r: (r.normal(size=(5, 6)), 0.3, np.array([0.4, 0.2]), np.array([1.3, 2.7, 3.1]),
                    np.array([0.6, 2.2, 4.4])))
def spatial_transformer(img, angle, shift, ys, xs):
    c, s = np.cos(angle), np.sin(angle)
    cy, cx = 2.0, 2.5
    yr = c * (ys - cy) - s * (xs - cx) + cy + shift[0]
    xr = s * (ys - cy) + c * (xs - cx) + cx + shift[1]
    return np.sum(bilinear(img, yr, xr) ** 2)


# --- robotics: quaternion and Rodrigues rotations of a point cloud

def quat_mul(q, r):
    w1, x1, y1, z1 = q
    w2, x2, y2, z2 = r
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_to_matrix(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def rodrigues(rvec):
    theta = np.linalg.norm(rvec)
    if theta < 1e-8:
        return np.eye(3)
    k = rvec / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * (K @ K)


@program(lambda r: (np.array([0.9, 0.1, -0.2, 0.3]), np.array([0.2, -0.4, 0.3]), r.normal(size=(6, 3)),
                    r.normal(size=(6, 3))), order=2)
def pose_alignment(q, rvec, points, targets):
    q2 = quat_mul(q, np.array([np.cos(0.1), 0.0, 0.0, np.sin(0.1)]))
    R = quat_to_matrix(q2) @ rodrigues(rvec)
    return np.mean(np.sum((points @ R.T - targets) ** 2, axis=1))


# --- language models: a pre-norm transformer block with a causal mask, params in a dict

def _layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def transformer_block(params, x, n_heads):
    """nanoGPT's layout: heads as a leading axis, batched matmuls, a causal mask."""
    T, d = x.shape
    hd = d // n_heads
    h = _layer_norm(x, params["ln1_g"], params["ln1_b"])
    q, k, v = np.split(h @ params["w_qkv"], 3, axis=-1)
    q = q.reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = k.reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = v.reshape(T, n_heads, hd).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    mask = np.triu(np.ones((T, T)), k=1).astype(bool)
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att = att / att.sum(axis=-1, keepdims=True)
    y = (att @ v).transpose(1, 0, 2).reshape(T, d)
    x = x + y @ params["w_o"]
    h = _layer_norm(x, params["ln2_g"], params["ln2_b"])
    return x + _gelu(h @ params["w_1"]) @ params["w_2"]


def transformer_heads_listed(params, x, n_heads):
    """The same block with heads in a list, each a slice(...) of the projections."""
    T, d = x.shape
    hd = d // n_heads
    h = _layer_norm(x, params["ln1_g"], params["ln1_b"])
    q, k, v = np.split(h @ params["w_qkv"], 3, axis=-1)
    mask = np.triu(np.ones((T, T)), k=1).astype(bool)
    heads = []
    for i in range(n_heads):
        sl = slice(i * hd, (i + 1) * hd)
        scores = np.where(mask, -np.inf, q[:, sl] @ k[:, sl].T / np.sqrt(hd))
        att = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append(att / att.sum(axis=-1, keepdims=True) @ v[:, sl])
    x = x + np.concatenate(heads, axis=-1) @ params["w_o"]
    h = _layer_norm(x, params["ln2_g"], params["ln2_b"])
    return x + _gelu(h @ params["w_1"]) @ params["w_2"]


def _transformer_args(r):
    d = 4
    params = {"ln1_g": 1 + 0.1 * r.normal(size=d), "ln1_b": 0.1 * r.normal(size=d),
              "w_qkv": 0.5 * r.normal(size=(d, 3 * d)), "w_o": 0.5 * r.normal(size=(d, d)),
              "ln2_g": 1 + 0.1 * r.normal(size=d), "ln2_b": 0.1 * r.normal(size=d),
              "w_1": 0.5 * r.normal(size=(d, 8)), "w_2": 0.5 * r.normal(size=(8, d))}
    return params, r.normal(size=(5, d)), r.integers(0, d, 5)


def next_token_nll(logits, targets):
    logits = logits - np.max(logits, axis=-1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
    return -np.mean(logp[np.arange(len(targets)), targets])


@program(_transformer_args)
def transformer_next_token_loss(params, x, targets):
    return next_token_nll(transformer_block(params, x, 2), targets)


@program(_transformer_args)
def transformer_heads_in_a_list(params, x, targets):
    return next_token_nll(transformer_heads_listed(params, x, 2), targets)


# --- reinforcement learning: soft value iteration until convergence, then a greedy max

@program(lambda r: (r.normal(size=(4, 2)), r.dirichlet(np.ones(4), size=(4, 2)), 0.9))
def value_iteration(rewards, P, gamma):
    n_states = rewards.shape[0]
    V = np.zeros(n_states)
    for it in range(200):
        Q = rewards + gamma * P @ V
        V_new = np.max(Q, axis=1)
        if np.max(np.abs(V_new - V)) < 1e-10:
            break
        V = V_new
    return np.sum(V_new)


# --- reinforcement learning: REINFORCE surrogate, actions sampled beforehand, returns by a reversed loop

@program(lambda r: (0.5 * r.normal(size=(3, 3)), r.normal(size=(6, 3)), r.integers(0, 3, 6),
                    r.normal(size=6), 0.95))
def policy_gradient_surrogate(theta, states, actions, rewards, gamma):
    G = 0.0
    returns = np.zeros_like(rewards)
    for t in reversed(range(len(rewards))):
        G = rewards[t] + gamma * G
        returns[t] = G
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    logits = states @ theta
    logits = logits - logits.max(axis=1, keepdims=True)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    chosen = log_probs[np.arange(len(actions)), actions]
    entropy = -np.sum(np.exp(log_probs) * log_probs, axis=1)
    return -np.mean(chosen * returns) - 0.01 * np.mean(entropy)


# --- quantitative finance: Heston paths with given normals (full truncation), an Asian call

@program(lambda r: ((100.0, 0.04, 1.5, 0.04, 0.3, -0.7), r.normal(size=(12, 8)), r.normal(size=(12, 8)), 100.0),
         modes=("rev",))
def heston_asian_call(params, z1, z2, strike):
    s0, v0, kappa, theta, xi, rho = params
    n_steps, n_paths = z1.shape
    dt = 1.0 / n_steps
    s = np.full(n_paths, s0)
    v = np.full(n_paths, v0)
    running = np.zeros(n_paths)
    for t in range(n_steps):
        vp = np.maximum(v, 0.0)
        w2 = rho * z1[t] + np.sqrt(1 - rho ** 2) * z2[t]
        s = s * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * z1[t])
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * w2
        running += s
    payoff = np.maximum(running / n_steps - strike, 0.0)
    return np.exp(-0.02) * np.mean(payoff)


# --- bilevel optimisation: Newton's method inside the objective, `while` + `break`

def _newton_solve(a, b):
    """The root of x^3 + a x - b, elementwise, by Newton's method."""
    x = np.ones_like(b)
    it = 0
    while True:
        fx = x ** 3 + a * x - b
        x = x - fx / (3 * x ** 2 + a)
        it += 1
        if np.max(np.abs(fx)) < 1e-13 or it >= 50:
            break
    return x


@program(lambda r: (np.array([1.5, 2.0, 0.7]), np.array([0.3, -1.2, 2.0]), np.array([0.5, -0.4, 1.0])), order=2)
def implicit_layer(a, b, target):
    x = _newton_solve(a, b)
    return np.sum((x - target) ** 2)


# --- numerical ODEs: the shooting method for y'' = -k y (1 + y^2), y(0) = 0, y(1) = target

def _integrate(k, slope, n=20):
    h = 1.0 / n
    y = np.array([0.0, slope])

    def rhs(s):
        return np.array([s[1], -k * s[0] * (1 + s[0] ** 2)])
    for _ in range(n):
        k1 = rhs(y)
        k2 = rhs(y + 0.5 * h * k1)
        k3 = rhs(y + 0.5 * h * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0]


@program(lambda r: (2.0, 0.8))
def shooting_bvp(k, target):
    s0, s1 = 0.5, 1.5
    f0 = _integrate(k, s0) - target
    for _ in range(30):
        f1 = _integrate(k, s1) - target
        if abs(f1) < 1e-12:
            break
        s0, s1, f0 = s1, s1 - f1 * (s1 - s0) / (f1 - f0), f1
    return s1


# --- robust statistics: losses through sorting, quantiles and medians

@program(lambda r: (r.normal(size=4) * 0.5, r.normal(size=(15, 4)), r.standard_t(3, size=15)))
def quantile_regression(w, X, y):
    resid = y - X @ w
    tau = np.array([0.1, 0.5, 0.9])
    pinball = np.maximum(tau[:, None] * resid, (tau[:, None] - 1) * resid)
    trimmed = np.sort(np.abs(resid))[2:-2]
    mad = np.median(np.abs(resid - np.median(resid)))
    spread = np.quantile(resid, 0.75) - np.quantile(resid, 0.25)
    return np.mean(pinball) + np.mean(trimmed ** 2) + mad + 0.1 * spread + 0.01 * np.percentile(resid, 90)


@program(lambda r: (r.normal(size=(7, 3)),))
def quantiles_by_axis(x):
    q = np.quantile(x, [0.2, 0.5, 0.8], axis=0)
    p = np.percentile(x, 30, axis=1, keepdims=True)
    m = np.median(x, axis=0)
    return np.sum(q * np.arange(1.0, 4.0)[:, None]) + np.sum((x - p) ** 2) + np.sum(m ** 3)


# --- graph pooling: node features summed into their graphs by np.bincount and np.add.at

@program(lambda r: (r.normal(size=(3, 2)), r.normal(size=(8, 3)), np.array([0, 0, 1, 1, 1, 2, 2, 0]),
                    np.array([1.0, -1.0, 0.5])))
def graph_readout(W, node_x, graph_of_node, graph_target):
    h = np.tanh(node_x @ W)
    n_graphs = graph_target.shape[0]
    pooled = np.zeros((n_graphs, h.shape[1]))
    np.add.at(pooled, graph_of_node, h)
    counts = np.bincount(graph_of_node, minlength=n_graphs)
    score = np.bincount(graph_of_node, weights=h[:, 0] * h[:, 1], minlength=n_graphs)
    pred = pooled.sum(axis=1) / counts + score
    return np.sum((pred - graph_target) ** 2)


# --- portfolio risk: maximum drawdown of a strategy's equity curve

@program(lambda r: (np.array([0.6, 0.3, 0.1]), 0.01 * r.normal(size=(25, 3)) + 0.001))
def max_drawdown(weights, returns):
    w = weights / np.sum(weights)
    equity = np.cumprod(1 + returns @ w)
    peak = np.maximum.accumulate(equity)
    drawdown = (peak - equity) / peak
    return np.max(drawdown) + 0.5 * np.mean(drawdown)


# --- epidemiology: an SIR model fitted to counts, parameters as a tuple, early `return`

@program(lambda r: ((0.4, 0.1), 0.01, np.array([5.0, 9.0, 15.0, 25.0, 38.0, 55.0, 70.0]) / 1000))
def sir_fit(rates, i0, observed):
    beta, gamma = rates
    if beta <= 0 or gamma <= 0:
        return np.inf
    s, i = 1.0 - i0, i0
    infected = []
    for day in range(len(observed)):
        for _ in range(10):
            new = beta * s * i * 0.1
            s, i = s - new, i + new - gamma * i * 0.1
        infected.append(i)
    return np.sum((np.log(np.array(infected)) - np.log(observed)) ** 2)
