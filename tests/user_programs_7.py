"""A seventh batch of programs as their authors write them, from fields the other batches do
not cover: speech recognition (CTC's forward algorithm over the blank-extended labels),
learning to rank (NeuralSort's relaxed permutation, an NDCG loss), MCMC (Hamiltonian Monte
Carlo's leapfrog, the expected squared jump distance), psychometrics (a 2PL item response
model), molecular mechanics (bonds, angles by np.arccos, dihedrals by np.arctan2), volatility
smiles (Hagan's SABR formula, its at-the-money series by np.where), control (a PID loop with
anti-windup and saturation), ecology (a Leslie matrix's growth rate by power iteration),
computational fluid dynamics (Burgers' equation by an upwind scheme with np.roll), soft
rasterisation (SoftRas's silhouette), count regression (negative binomial by gammaln), a
variational autoencoder's whole ELBO, truss design (a stiffness matrix assembled with
np.ix_), calibration (temperature scaling beside the expected calibration error),
reinforcement learning (PPO's clipped objective with GAE), quantum computing (a two-qubit
variational eigensolver, complex state vectors by np.kron), factorisation machines,
phylogenetics (Felsenstein's pruning under JC69), hyperelasticity (a neo-Hookean energy with
batched np.linalg.det and inv), image quality (SSIM by integral images) and geometry (Bezier
curves by de Casteljau).

tests/test_user_programs_7.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import numpy as np
from scipy.special import gammaln, logsumexp

from program_registry import registry

PROGRAMS, program = registry()


# --- speech: the CTC loss (Graves et al. 2006), the forward variables in log space over
#     the labels with blanks between them, as in the textbook (and many tutorials) loop

def _ctc_args(r):
    return r.normal(size=(8, 4)), np.array([1, 2, 2, 3])


@program(_ctc_args)
def ctc_loss(logits, labels, blank=0):
    T, C = logits.shape
    log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
    ext = [blank]
    for l in labels:
        ext.append(l)
        ext.append(blank)
    ext = np.array(ext)
    S = len(ext)
    alpha = np.full((T, S), -np.inf)
    alpha[0, 0] = log_probs[0, blank]
    alpha[0, 1] = log_probs[0, ext[1]]
    for t in range(1, T):
        for s in range(S):
            a = alpha[t - 1, s]
            if s >= 1:
                a = np.logaddexp(a, alpha[t - 1, s - 1])
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[t - 1, s - 2])
            alpha[t, s] = a + log_probs[t, ext[s]]
    return -np.logaddexp(alpha[T - 1, S - 1], alpha[T - 1, S - 2])


# --- learning to rank: NeuralSort (Grover et al. 2019), the relaxed sorting permutation of
#     a linear scorer's scores, and the NDCG of the relevances it sorts

def neural_sort(s, tau):
    n = s.shape[0]
    one = np.ones((n, 1))
    A_s = np.abs(s[:, None] - s[None, :])
    B = A_s @ one @ one.T
    scaling = (n + 1 - 2 * (np.arange(n) + 1)).astype(float)
    C = s[:, None] * scaling[None, :]
    P_max = (C - B).T
    P_max = P_max / tau
    P_max = P_max - P_max.max(axis=-1, keepdims=True)
    P = np.exp(P_max)
    return P / P.sum(axis=-1, keepdims=True)


def _rank_args(r):
    X = r.normal(size=(6, 3))
    relevance = np.array([3, 0, 1, 2, 0, 1])           # graded labels (ties: sorting them has kinks)
    return r.normal(size=3), X, relevance


@program(_rank_args)
def neuralsort_ndcg(w, X, relevance, tau=0.5):
    scores = X @ w
    P_hat = neural_sort(scores, tau)
    sorted_rel = P_hat @ relevance
    discounts = 1.0 / np.log2(np.arange(len(relevance)) + 2.0)
    dcg = np.sum((2 ** sorted_rel - 1) * discounts)
    ideal = np.sum((2 ** np.sort(relevance)[::-1] - 1) * discounts)
    return 1.0 - dcg / ideal


# --- MCMC: Hamiltonian Monte Carlo on a banana-shaped density (the hand-written gradient of
#     the potential, Neal's leapfrog), the expected squared jumping distance as a function of
#     the step size and the start (as in adaptive HMC papers), over fixed momenta

def potential(q, b=0.5):
    return 0.5 * q[0] ** 2 / 4.0 + 0.5 * (q[1] - b * q[0] ** 2) ** 2


def grad_potential(q, b=0.5):
    r = q[1] - b * q[0] ** 2
    return np.array([q[0] / 4.0 - 2 * b * q[0] * r, r])


def leapfrog(q, p, eps, L):
    p = p - 0.5 * eps * grad_potential(q)
    for i in range(L):
        q = q + eps * p
        if i != L - 1:
            p = p - eps * grad_potential(q)
    p = p - 0.5 * eps * grad_potential(q)
    return q, -p


def _hmc_args(r):
    return np.log(0.15), np.array([0.5, -0.3]), r.normal(size=(5, 2))


@program(_hmc_args)
def hmc_expected_jump(log_eps, q0, momenta, L=8):
    eps = np.exp(log_eps)
    total = 0.0
    for p0 in momenta:
        q1, p1 = leapfrog(q0, p0, eps, L)
        H0 = potential(q0) + 0.5 * p0 @ p0
        H1 = potential(q1) + 0.5 * p1 @ p1
        accept = min(1.0, np.exp(H0 - H1))
        total += accept * np.sum((q1 - q0) ** 2)
    return total / len(momenta)


# --- psychometrics: the two-parameter logistic item response model (abilities, log
#     discriminations, difficulties) fitted by penalised maximum likelihood to long-format
#     responses

def _irt_args(r):
    n_students, n_items, n_obs = 5, 4, 16
    students = r.integers(0, n_students, size=n_obs)
    items = r.integers(0, n_items, size=n_obs)
    responses = (r.uniform(size=n_obs) > 0.5).astype(float)
    return (r.normal(size=n_students), 0.2 * r.normal(size=n_items), r.normal(size=n_items),
            students, items, responses)


@program(_irt_args)
def irt_2pl_nll(theta, log_a, b, students, items, responses):
    a = np.exp(log_a)
    logits = a[items] * (theta[students] - b[items])
    nll = np.sum(np.logaddexp(0, logits) - responses * logits)
    prior = 0.5 * np.sum(theta ** 2) + 0.5 * np.sum(log_a ** 2) + 0.5 * np.sum(b ** 2) / 4
    return nll + prior


# --- molecular mechanics: a force field's bonded energy (harmonic bonds and angles, a
#     periodic dihedral by the atan2 formula with cross products), as in MD tutorials

def _mm_args(r):
    coords = np.array([[0.0, 0.0, 0.0], [1.5, 0.0, 0.0], [2.0, 1.4, 0.0], [3.4, 1.6, 0.7],
                       [4.0, 2.9, 0.9]]) + 0.05 * r.normal(size=(5, 3))
    bonds = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
    angles = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4]])
    dihedrals = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    params = {"kb": 300.0, "r0": 1.5, "ka": 50.0, "theta0": 1.91, "kd": 1.4}
    return coords, params, bonds, angles, dihedrals


@program(_mm_args)
def bonded_energy(coords, params, bonds, angles, dihedrals, periodicity=3):
    r = coords[bonds[:, 1]] - coords[bonds[:, 0]]
    d = np.linalg.norm(r, axis=1)
    e_bond = np.sum(params["kb"] * (d - params["r0"]) ** 2)

    v1 = coords[angles[:, 0]] - coords[angles[:, 1]]
    v2 = coords[angles[:, 2]] - coords[angles[:, 1]]
    cos_theta = np.sum(v1 * v2, axis=1) / (np.linalg.norm(v1, axis=1) * np.linalg.norm(v2, axis=1))
    theta = np.arccos(np.clip(cos_theta, -1.0, 1.0))
    e_angle = np.sum(params["ka"] * (theta - params["theta0"]) ** 2)

    b0 = coords[dihedrals[:, 1]] - coords[dihedrals[:, 0]]
    b1 = coords[dihedrals[:, 2]] - coords[dihedrals[:, 1]]
    b2 = coords[dihedrals[:, 3]] - coords[dihedrals[:, 2]]
    n1 = np.cross(b0, b1)
    n2 = np.cross(b1, b2)
    m1 = np.cross(n1, b1 / np.linalg.norm(b1, axis=1, keepdims=True))
    x = np.sum(n1 * n2, axis=1)
    y = np.sum(m1 * n2, axis=1)
    phi = np.arctan2(y, x)
    e_dihedral = np.sum(params["kd"] * (1 + np.cos(periodicity * phi)))
    return e_bond + e_angle + e_dihedral


# --- volatility smiles: Hagan et al.'s SABR implied volatility, the z / x(z) factor set to
#     its series at the money by np.where (the other branch kept finite there), calibrated to
#     a smile that includes the forward

def sabr_vol(F, K, T, alpha, beta, rho, nu):
    log_fk = np.log(F / K)
    fk_beta = (F * K) ** ((1 - beta) / 2)
    z = nu / alpha * fk_beta * log_fk
    small = np.abs(z) < 1e-7
    z_safe = np.where(small, 1.0, z)          # z / x(z) is 0 / 0 at the money: its slope too, even unused
    x_z = np.log((np.sqrt(1 - 2 * rho * z_safe + z_safe ** 2) + z_safe - rho) / (1 - rho))
    zeta = np.where(small, 1.0 - 0.5 * rho * z, z_safe / x_z)     # its series there
    A = alpha / (fk_beta * (1 + (1 - beta) ** 2 / 24 * log_fk ** 2
                           + (1 - beta) ** 4 / 1920 * log_fk ** 4))
    B = 1 + ((1 - beta) ** 2 / 24 * alpha ** 2 / fk_beta ** 2
             + rho * beta * nu * alpha / (4 * fk_beta) + (2 - 3 * rho ** 2) / 24 * nu ** 2) * T
    return A * zeta * B


def _sabr_args(r):
    strikes = np.array([0.02, 0.025, 0.03, 0.035, 0.04])
    market = np.array([0.24, 0.215, 0.20, 0.195, 0.198])
    return np.array([0.035, -0.2, 0.4]), 0.03, strikes, 1.5, market


@program(_sabr_args)
def sabr_calibration(params, F, strikes, T, market_vols, beta=0.7):
    alpha, rho, nu = params
    vols = sabr_vol(F, strikes, T, alpha, beta, rho, nu)
    return np.sum((vols - market_vols) ** 2)


# --- control: a discrete PID loop on a mass-spring-damper, the integrator clamped against
#     windup and the actuator saturated by np.clip; the integrated squared error and effort

def _pid_args(r):
    return np.array([8.0, 2.0, 1.5]), 1.0


@program(_pid_args)
def pid_cost(gains, setpoint, dt=0.02, steps=150, u_max=6.0):
    kp, ki, kd = gains
    x, v = 0.0, 0.0
    integral = 0.0
    prev_error = setpoint - x
    errors = []
    efforts = []
    for k in range(steps):
        error = setpoint - x
        integral = np.clip(integral + error * dt, -2.0, 2.0)
        derivative = (error - prev_error) / dt
        u = np.clip(kp * error + ki * integral + kd * derivative, -u_max, u_max)
        a = u - 0.8 * v - 4.0 * x
        v = v + a * dt
        x = x + v * dt
        prev_error = error
        errors.append(error)
        efforts.append(u)
    errors = np.array(errors)
    efforts = np.array(efforts)
    return np.sum(errors ** 2) * dt + 1e-3 * np.sum(efforts ** 2) * dt


# --- ecology: a Leslie matrix's asymptotic growth rate by power iteration until the
#     estimate settles, and the stable age distribution's reproductive value

def _leslie_args(r):
    return np.array([0.0, 1.2, 1.8, 0.9]), np.array([0.6, 0.75, 0.5])


@program(_leslie_args)
def leslie_growth(fecundity, survival, tol=1e-13, max_iter=500):
    n = len(fecundity)
    L = np.zeros((n, n))
    L[0, :] = fecundity
    L[np.arange(1, n), np.arange(n - 1)] = survival
    v = np.ones(n) / n
    lam = 0.0
    for it in range(max_iter):
        w = L @ v
        lam_new = w.sum()
        v = w / lam_new
        if abs(lam_new - lam) < tol:
            break
        lam = lam_new
    return np.log(lam_new) + 0.1 * v @ np.arange(n)


# --- fluid dynamics: the viscous Burgers equation on a periodic grid, first-order upwind
#     for the advection (the side chosen by the sign of u) and central diffusion

def _burgers_args(r):
    x = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    u0 = 0.6 * np.sin(x + 0.3) + 0.2
    target = 0.5 * np.sin(x - 0.2) + 0.2
    return u0, 0.05, target


@program(_burgers_args)
def burgers_upwind(u0, nu, target, steps=30):
    nx = u0.shape[0]
    dx = 2 * np.pi / nx
    dt = 0.02
    u = u0.copy()
    for n in range(steps):
        up = np.roll(u, -1)
        um = np.roll(u, 1)
        advection = np.where(u > 0, u * (u - um) / dx, u * (up - u) / dx)
        u = u - dt * advection + nu * dt * (up - 2 * u + um) / dx ** 2
    return np.mean((u - target) ** 2)


# --- soft rasterisation: SoftRas's silhouette of 2-D triangles (a sigmoid of the edge
#     functions, the faces composed by 1 - prod(1 - D)) and its IoU loss against a mask

def edge_function(a, b, p):
    return (p[:, 0] - a[0]) * (b[1] - a[1]) - (p[:, 1] - a[1]) * (b[0] - a[0])


def _raster_args(r):
    verts = np.array([[0.2, 0.2], [0.8, 0.25], [0.5, 0.8], [0.85, 0.7]]) + 0.02 * r.normal(size=(4, 2))
    faces = np.array([[0, 1, 2], [1, 3, 2]])
    ys, xs = np.meshgrid(np.linspace(0, 1, 12), np.linspace(0, 1, 12), indexing="ij")
    target = ((xs - 0.5) ** 2 + (ys - 0.5) ** 2 < 0.1).astype(float)
    return verts, faces, target


@program(_raster_args)
def softras_silhouette_iou(verts, faces, target, sigma=1e-3):
    H, W = target.shape
    ys, xs = np.meshgrid(np.linspace(0, 1, H), np.linspace(0, 1, W), indexing="ij")
    pixels = np.stack([xs.ravel(), ys.ravel()], axis=1)
    background = np.ones(H * W)
    for f in faces:
        a, b, c = verts[f[0]], verts[f[1]], verts[f[2]]
        area = edge_function(a, b, c[None, :])[0]
        w0 = edge_function(b, c, pixels) / area
        w1 = edge_function(c, a, pixels) / area
        w2 = edge_function(a, b, pixels) / area
        D = 1 / (1 + np.exp(-w0 / sigma ** 0.5)) / (1 + np.exp(-w1 / sigma ** 0.5)) / (1 + np.exp(-w2 / sigma ** 0.5))
        background *= 1 - D
    silhouette = (1 - background).reshape(H, W)
    intersection = np.sum(silhouette * target)
    union = np.sum(silhouette + target - silhouette * target)
    return 1 - intersection / union


# --- count regression: the negative binomial (NB2) log-likelihood with an exposure offset,
#     as statsmodels writes it with gammaln

def _nb_args(r):
    X = np.column_stack([np.ones(15), r.normal(size=(15, 2))])
    exposure = r.uniform(0.5, 2.0, size=15)
    y = r.poisson(3.0, size=15).astype(float)
    return np.array([1.0, 0.3, -0.2]), np.log(0.5), X, y, exposure


@program(_nb_args)
def negative_binomial_nll(beta, log_alpha, X, y, exposure):
    mu = exposure * np.exp(X @ beta)
    alpha = np.exp(log_alpha)
    size = 1.0 / alpha
    ll = (gammaln(y + size) - gammaln(size) - gammaln(y + 1)
          + size * np.log(size / (size + mu)) + y * np.log(mu / (size + mu)))
    return -ll.sum()


# --- variational autoencoders: the ELBO of a Bernoulli VAE with one hidden layer each way,
#     the noise of the reparameterisation fixed, the parameters in a dict

def _vae_args(r):
    d, h, k = 6, 5, 2
    params = {"enc_W": 0.4 * r.normal(size=(d, h)), "enc_b": np.zeros(h),
              "enc_out": 0.4 * r.normal(size=(h, 2 * k)),
              "dec_W": 0.4 * r.normal(size=(k, h)), "dec_b": np.zeros(h),
              "dec_out": 0.4 * r.normal(size=(h, d)), "dec_out_b": np.zeros(d)}
    x = (r.uniform(size=(4, d)) > 0.5).astype(float)
    return params, x, r.normal(size=(4, k))


@program(_vae_args)
def vae_negative_elbo(params, x, eps):
    latent = eps.shape[1]
    h = np.maximum(0, x @ params["enc_W"] + params["enc_b"])
    stats = h @ params["enc_out"]
    mu, log_var = stats[:, :latent], stats[:, latent:]
    z = mu + np.exp(0.5 * log_var) * eps
    h_dec = np.tanh(z @ params["dec_W"] + params["dec_b"])
    logits = h_dec @ params["dec_out"] + params["dec_out_b"]
    recon = np.sum(x * logits - np.logaddexp(0, logits), axis=1)
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var), axis=1)
    return -np.mean(recon - kl)


# --- structural design: a plane truss's compliance f.u, the global stiffness assembled
#     member by member with K[np.ix_(dofs, dofs)] += k, supports removed by the free dofs

def _truss_args(r):
    nodes = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
    members = np.array([[0, 1], [1, 2], [0, 3], [1, 3], [1, 4], [2, 4], [3, 4]])
    areas = r.uniform(0.5, 1.5, size=len(members))
    load = np.zeros(10)
    load[3] = -1.0
    load[8] = 0.3
    free = np.array([2, 3, 4, 6, 7, 8, 9])
    return areas, nodes, members, load, free


@program(_truss_args)
def truss_compliance(areas, nodes, members, load, free, E=100.0):
    n_dof = 2 * len(nodes)
    K = np.zeros((n_dof, n_dof))
    for e, (i, j) in enumerate(members):
        dx, dy = nodes[j] - nodes[i]
        L = np.hypot(dx, dy)
        c, s = dx / L, dy / L
        k = E * areas[e] / L * np.array([[c * c, c * s, -c * c, -c * s],
                                         [c * s, s * s, -c * s, -s * s],
                                         [-c * c, -c * s, c * c, c * s],
                                         [-c * s, -s * s, c * s, s * s]])
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        K[np.ix_(dofs, dofs)] += k
    u = np.zeros(n_dof)
    u[free] = np.linalg.solve(K[np.ix_(free, free)], load[free])
    return load @ u


# --- calibration: temperature scaling (Guo et al. 2017), the NLL of logits / T beside the
#     accuracy by argmax and the expected calibration error over equal-width bins

def _calib_args(r):
    logits = 2.0 * r.normal(size=(30, 4))
    labels = r.integers(0, 4, size=30)
    return 0.3, logits, labels


@program(_calib_args)
def temperature_scaling(log_T, logits, labels, n_bins=5):
    T = np.exp(log_T)
    z = logits / T
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    nll = -np.mean(log_p[np.arange(len(labels)), labels])
    probs = np.exp(log_p)
    confidence = probs.max(axis=1)
    accuracy = (probs.argmax(axis=1) == labels).astype(float)
    edges = np.linspace(0, 1, n_bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (confidence > lo) & (confidence <= hi)
        if in_bin.any():
            ece += abs(accuracy[in_bin].mean() - confidence[in_bin].mean()) * in_bin.mean()
    return nll, ece, accuracy.mean()


# --- reinforcement learning: PPO's clipped surrogate with generalised advantage estimates
#     (computed from the rollout's old values, a loop backwards over time), a value loss and
#     an entropy bonus, for a linear softmax policy and a linear critic

def gae(rewards, values, dones, gamma=0.99, lam=0.95):
    T = len(rewards)
    advantages = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * values[t + 1] * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        advantages[t] = last
    return advantages, advantages + values[:-1]


def _ppo_args(r):
    T, d, n_actions = 10, 3, 3
    states = r.normal(size=(T + 1, d))
    theta = 0.5 * r.normal(size=(d, n_actions))
    actions = r.integers(0, n_actions, size=T)
    logits = states[:-1] @ theta
    old_log_probs = (logits - logsumexp(logits, axis=1, keepdims=True))[np.arange(T), actions]
    old_log_probs = old_log_probs + 0.1 * r.normal(size=T)
    dones = np.zeros(T)
    dones[6] = 1.0
    return (theta, 0.3 * r.normal(size=d), states, actions, old_log_probs,
            r.normal(size=T), r.normal(size=T + 1), dones)


@program(_ppo_args)
def ppo_loss(theta, w_value, states, actions, old_log_probs, rewards, old_values, dones,
             clip_eps=0.2, vf_coef=0.5, ent_coef=0.01):
    advantages, returns = gae(rewards, old_values, dones)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    logits = states[:-1] @ theta
    log_pi = logits - logsumexp(logits, axis=1, keepdims=True)
    log_probs = log_pi[np.arange(len(actions)), actions]
    ratio = np.exp(log_probs - old_log_probs)
    surr1 = ratio * advantages
    surr2 = np.clip(ratio, 1 - clip_eps, 1 + clip_eps) * advantages
    policy_loss = -np.minimum(surr1, surr2).mean()
    value_loss = np.mean((states[:-1] @ w_value - returns) ** 2)
    entropy = -np.sum(np.exp(log_pi) * log_pi, axis=1).mean()
    return policy_loss + vf_coef * value_loss - ent_coef * entropy


# --- quantum computing: a two-qubit variational eigensolver (RY RZ layers, a CNOT) on the
#     state vector, the Hamiltonian a sum of Pauli strings built by np.kron

I2 = np.eye(2, dtype=complex)
PAULI_X = np.array([[0, 1], [1, 0]], dtype=complex)
PAULI_Y = np.array([[0, -1j], [1j, 0]])
PAULI_Z = np.array([[1, 0], [0, -1]], dtype=complex)
CNOT = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]], dtype=complex)


def ry(theta):
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    return np.array([[c, -s], [s, c]], dtype=complex)


def rz(phi):
    return np.array([[np.exp(-0.5j * phi), 0], [0, np.exp(0.5j * phi)]])


def _vqe_args(r):
    # the H2 molecule's coefficients at its bond length (O'Malley et al. 2016)
    return r.uniform(0, np.pi, size=(2, 4)), np.array([-0.4804, 0.3435, -0.4347, 0.5716, 0.0910, 0.0910])


@program(_vqe_args)
def vqe_energy(params, g):
    H = (g[0] * np.kron(I2, I2) + g[1] * np.kron(PAULI_Z, I2) + g[2] * np.kron(I2, PAULI_Z)
         + g[3] * np.kron(PAULI_Z, PAULI_Z) + g[4] * np.kron(PAULI_X, PAULI_X)
         + g[5] * np.kron(PAULI_Y, PAULI_Y))
    psi = np.zeros(4, dtype=complex)
    psi[0] = 1.0
    for layer in params:
        U = np.kron(rz(layer[1]) @ ry(layer[0]), rz(layer[3]) @ ry(layer[2]))
        psi = CNOT @ (U @ psi)
    return np.real(np.conj(psi) @ H @ psi)


# --- recommender systems: a factorisation machine (Rendle 2010) with the O(kn) pairwise
#     term, the log loss with L2 penalties

def _fm_args(r):
    X = (r.uniform(size=(12, 6)) > 0.6) * r.uniform(0.5, 1.5, size=(12, 6))
    y = (r.uniform(size=12) > 0.5).astype(float)
    return 0.1, 0.1 * r.normal(size=6), 0.3 * r.normal(size=(6, 3)), X, y


@program(_fm_args)
def factorization_machine(w0, w, V, X, y, lam=0.01):
    linear = w0 + X @ w
    pairwise = 0.5 * np.sum((X @ V) ** 2 - (X ** 2) @ (V ** 2), axis=1)
    score = linear + pairwise
    log_loss = np.mean(np.logaddexp(0, score) - y * score)
    return log_loss + lam * (np.sum(w ** 2) + np.sum(V ** 2))


# --- phylogenetics: Felsenstein's pruning algorithm under Jukes-Cantor on a four-taxon
#     tree (nodes in post-order as a tuple of (parent, left, right)), the log-likelihood of
#     the alignment as a function of the log branch lengths

TREE = ((4, 0, 1), (5, 2, 3), (6, 4, 5))


def jc69(t):
    P = np.full((4, 4), 0.25 - 0.25 * np.exp(-4.0 * t / 3.0))
    np.fill_diagonal(P, 0.25 + 0.75 * np.exp(-4.0 * t / 3.0))
    return P


def _phylo_args(r):
    seqs = r.integers(0, 4, size=(4, 10))
    seqs[1] = np.where(r.uniform(size=10) < 0.7, seqs[0], seqs[1])
    seqs[3] = np.where(r.uniform(size=10) < 0.7, seqs[2], seqs[3])
    return np.log(r.uniform(0.05, 0.3, size=6)), seqs


@program(_phylo_args)
def felsenstein_loglik(log_branch, tip_seqs):
    n_tips = tip_seqs.shape[0]
    partial = []                                  # the nodes' partial likelihoods, in TREE's order
    for i in range(n_tips):
        partial.append(np.eye(4)[tip_seqs[i]])
    for parent, left, right in TREE:
        P_left = jc69(np.exp(log_branch[left]))
        P_right = jc69(np.exp(log_branch[right]))
        partial.append((partial[left] @ P_left.T) * (partial[right] @ P_right.T))
    root = TREE[-1][0]
    site_likelihoods = partial[root] @ np.full(4, 0.25)
    return np.sum(np.log(site_likelihoods))


# --- hyperelasticity: the stored energy of a compressible neo-Hookean solid on linear
#     tetrahedra (deformation gradients F = Ds Dm^-1 of all elements at once), plus gravity

def _neo_args(r):
    rest = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
                     [1.0, 1.0, 1.0]])
    tets = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])
    x = rest * np.array([1.1, 0.95, 1.0]) + 0.03 * r.normal(size=rest.shape)
    return x, rest, tets, 1.0, 5.0


@program(_neo_args)
def neo_hookean_energy(x, rest, tets, mu, lam, rho_g=0.1):
    def edges(p):
        return np.stack([p[tets[:, 1]] - p[tets[:, 0]], p[tets[:, 2]] - p[tets[:, 0]],
                         p[tets[:, 3]] - p[tets[:, 0]]], axis=-1)
    Dm = edges(rest)
    Ds = edges(x)
    F = Ds @ np.linalg.inv(Dm)
    J = np.linalg.det(F)
    I1 = np.einsum("eij,eij->e", F, F)
    log_J = np.log(J)
    psi = 0.5 * mu * (I1 - 3) - mu * log_J + 0.5 * lam * log_J ** 2
    volume = np.abs(np.linalg.det(Dm)) / 6.0
    return np.sum(volume * psi) + rho_g * np.sum(x[:, 2])


# --- image quality: 1 - SSIM with box windows by an integral image (np.pad then cumsum
#     along both axes), an estimate of a clean image against a reference

def box_mean(img, r):
    k = 2 * r + 1
    S = np.cumsum(np.cumsum(np.pad(img, ((1, 0), (1, 0))), axis=0), axis=1)
    return (S[k:, k:] - S[:-k, k:] - S[k:, :-k] + S[:-k, :-k]) / k ** 2


def _ssim_args(r):
    ys, xs = np.mgrid[0:12, 0:12] / 11.0
    reference = 0.5 + 0.4 * np.sin(4 * xs) * np.cos(3 * ys)
    return reference + 0.1 * r.normal(size=(12, 12)), reference


@program(_ssim_args)
def ssim_loss(x, y, r=2, C1=0.01 ** 2, C2=0.03 ** 2):
    mu_x = box_mean(x, r)
    mu_y = box_mean(y, r)
    sigma_xx = box_mean(x * x, r) - mu_x ** 2
    sigma_yy = box_mean(y * y, r) - mu_y ** 2
    sigma_xy = box_mean(x * y, r) - mu_x * mu_y
    ssim_map = ((2 * mu_x * mu_y + C1) * (2 * sigma_xy + C2)
                / ((mu_x ** 2 + mu_y ** 2 + C1) * (sigma_xx + sigma_yy + C2)))
    return 1.0 - ssim_map.mean()


# --- geometry: a Bezier curve by de Casteljau's algorithm (a list of points reduced level
#     by level), fitted to samples, with a penalty on its polygon's length

def de_casteljau(points, t):
    pts = [p for p in points]
    n = len(pts)
    for r in range(1, n):
        pts = [(1 - t) * pts[i] + t * pts[i + 1] for i in range(n - r)]
    return pts[0]


def _bezier_args(r):
    control = np.array([[0.0, 0.0], [0.3, 1.0], [0.7, 1.2], [1.0, 0.1]]) + 0.05 * r.normal(size=(4, 2))
    ts = np.linspace(0, 1, 7)
    samples = np.stack([ts, np.sin(np.pi * ts)], axis=1)
    return control, ts, samples


@program(_bezier_args)
def bezier_fit(control, ts, samples):
    curve = np.array([de_casteljau(control, t) for t in ts])
    polygon = np.sum(np.linalg.norm(np.diff(control, axis=0), axis=1))
    return np.sum((curve - samples) ** 2) + 0.01 * polygon
