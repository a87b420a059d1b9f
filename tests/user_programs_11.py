"""An eleventh batch of programs as their authors write them, from fields the other batches
do not cover: sound synthesis (a Karplus-Strong plucked string with a circular buffer plus
an FM tone, a spectral-envelope loss by np.convolve), crystallography (structure factors as
complex sums over atoms by np.einsum, the R-factor after the best scale), atmospheric
radiative transfer (the Schwarzschild equation layer by layer, Planck's law by np.expm1,
brightness temperatures by np.log1p), satellite navigation (GPS point positioning by
Gauss-Newton on pseudoranges until the step is small, the GDOP from the last geometry),
hydrology (an HBV-like soil bucket with min/max and an `if` on the state, Muskingum
routing), transport (traffic assignment by the method of successive averages, all-or-nothing
loading by np.argmin over each OD pair's paths, BPR link costs), queueing (an open Jackson
network of M/M/c stations by Erlang C, an unstable station penalised on its own branch),
sports ratings (Elo with home advantage and a margin-of-victory multiplier in a loop over
games; a batch rating period by np.add.at / np.subtract.at), batteries (a Thevenin 2RC cell
with hysteresis, its OCV by np.polyval, the voltages collected in a list and np.stack-ed),
chemical equilibrium (the carbonate system by Newton's method on log concentrations in a
`while True` loop, the step clipped), population genetics (a Wright-Fisher HMM with
selection and mutation, binomial transitions by gammaln, the forward algorithm scaled),
econometrics (2SLS then two-step efficient GMM with a heteroskedasticity-robust weight,
Hansen's J, differentiated with respect to the data), marketing mix models (geometric and
delayed adstock, Hill saturation, a ROI hinge), thin-film optics (the transfer-matrix
method, complex 2x2 products per wavelength in a list comprehension), finite elements (a bar
of quadratic elements by Gauss quadrature, assembly by np.ix_), camera calibration
(Rodrigues rotations, radial-tangential distortion, a Huber reprojection error), heat
exchanger networks (effectiveness-NTU by arrangement, a fixed point on a recycle
temperature), agent-based markets (fundamentalists and chartists, clearing by np.sort),
room acoustics (the image-source method, fractional delays by np.add.at, Schroeder's decay
curve fitted over a mask), paired comparisons (Bradley-Terry-Davidson with ties; Hunter's
MM iteration), and geodesy (geodetic to ECEF and back by the iterated latitude, a baseline
network adjustment).

tests/test_user_programs_11.py checks each: the value under ``sstad.jit`` against NumPy, and
the derivatives against central finite differences, on both backends.  Each ``make_args``
takes a Generator."""
import math

import numpy as np
from scipy.special import gammaln

from program_registry import registry

PROGRAMS, program = registry()


# --- sound synthesis: a Karplus-Strong plucked string (circular delay line, averaging
#     low-pass with decay) plus an FM tone; a moving-average envelope matched to a decay

KARPLUS_N_SAMPLES = 200
KARPLUS_T = np.arange(KARPLUS_N_SAMPLES) / 8000.0


def _karplus_args(r):
    params = {"gain": 0.8, "decay": 0.97, "fc": 440.0, "fm": 110.0, "index": 2.0}
    return params, r.uniform(-1, 1, 23)


def karplus_strong(excitation, decay, n_out):
    buf = excitation.copy()
    n = buf.shape[0]
    out = np.zeros(n_out)
    prev = 0.0
    for i in range(n_out):
        j = i % n
        cur = buf[j]
        out[i] = cur
        buf[j] = decay * 0.5 * (cur + prev)
        prev = cur
    return out


def fm_tone(fc, fm, index, amp=1.0):
    return amp * np.sin(2 * np.pi * fc * KARPLUS_T + index * np.sin(2 * np.pi * fm * KARPLUS_T))


@program(_karplus_args)
def karplus_loss(params, excitation):
    ks = karplus_strong(excitation * params["gain"], params["decay"], KARPLUS_N_SAMPLES)
    fm = fm_tone(params["fc"], params["fm"], params["index"], amp=0.3)
    y = ks + fm
    env = np.abs(y)
    smooth = np.convolve(env, np.ones(5) / 5.0, mode="same")
    target = 0.5 * np.exp(-KARPLUS_T * 20.0)
    return np.mean((smooth - target) ** 2)


# --- crystallography: structure factors F(hkl) = sum_atoms occ f(s) exp(-B s^2) exp(2 pi i
#     h.x), Cromer-Mann-like form factors of two Gaussians; the R-factor after the best scale

CRYSTAL_HKL = np.array([[h, k, l] for h in range(-2, 3) for k in range(0, 3) for l in range(0, 2)
                        if not (h == 0 and k == 0 and l == 0)], dtype=float)
CRYSTAL_CELL = np.array([5.0, 6.0, 7.0])
CRYSTAL_A = np.array([[2.0, 1.0], [3.0, 1.5], [2.5, 0.5], [2.0, 1.0], [3.0, 1.5], [2.5, 0.5]])
CRYSTAL_B = np.array([[10.0, 1.0], [12.0, 2.0], [8.0, 0.5], [10.0, 1.0], [12.0, 2.0], [8.0, 0.5]])
CRYSTAL_F_OBS = np.abs(np.random.default_rng(0).normal(5, 2, CRYSTAL_HKL.shape[0]))


def _crystal_args(r):
    n_atoms = 6
    return r.uniform(0, 1, (n_atoms, 3)), r.uniform(1, 3, n_atoms), np.ones(n_atoms) * 0.9


def form_factor(s2, a, b):
    # s2: (nref,), a,b: (natoms, ngauss) -> (nref, natoms)
    return np.sum(a[None, :, :] * np.exp(-b[None, :, :] * s2[:, None, None]), axis=-1)


def structure_factor(xyz, B, occ):
    s2 = np.sum((CRYSTAL_HKL / CRYSTAL_CELL) ** 2, axis=1) / 4.0
    f = form_factor(s2, CRYSTAL_A, CRYSTAL_B)
    dw = np.exp(-np.outer(s2, B))
    phase = 2 * np.pi * np.einsum("rk,ak->ra", CRYSTAL_HKL, xyz)
    F = np.sum(occ * f * dw * np.exp(1j * phase), axis=1)
    return F


@program(_crystal_args)
def r_factor(xyz, B, occ, scale=1.0):
    Fc = np.abs(structure_factor(xyz, B, occ))
    k = np.sum(CRYSTAL_F_OBS * Fc) / np.sum(Fc * Fc)
    resid = CRYSTAL_F_OBS - scale * k * Fc
    return np.sum(resid ** 2) / np.sum(CRYSTAL_F_OBS ** 2)


# --- atmospheric radiative transfer: a plane-parallel column, the upward radiance by the
#     Schwarzschild equation layer by layer from the surface, brightness temperatures in a
#     few bands fitted in a temperature retrieval with a smoothness penalty

RAD_N_LAYERS = 12
RAD_WN = np.linspace(500.0, 1500.0, 5)          # cm^-1
RAD_P_EDGES = np.linspace(1000.0, 100.0, RAD_N_LAYERS + 1)
RAD_T_OBS = 250.0 + np.random.default_rng(0).normal(0, 1.0, 5)
RAD_C1, RAD_C2 = 1.191042e-5, 1.4387770


def _radiative_args(r):
    T0 = np.linspace(288.0, 220.0, RAD_N_LAYERS) + r.normal(0, 1, RAD_N_LAYERS)
    return T0, 290.0, np.log(np.full(5, 0.3))


def planck(wn, T):
    return RAD_C1 * wn[:, None] ** 3 / np.expm1(RAD_C2 * wn[:, None] / T[None, :])


def brightness_temperature(wn, I):
    return RAD_C2 * wn / np.log1p(RAD_C1 * wn ** 3 / I)


def toa_radiance(T_layers, T_surf, kappa, mu=0.6, emissivity=0.98):
    dp = -np.diff(RAD_P_EDGES)
    tau = kappa[:, None] * dp[None, :] / 100.0          # (bands, layers)
    trans = np.exp(-tau / mu)
    B = planck(RAD_WN, T_layers)
    Bs = planck(RAD_WN, np.array([T_surf]))[:, 0]
    I = emissivity * Bs
    for k in range(RAD_N_LAYERS):
        I = I * trans[:, k] + B[:, k] * (1.0 - trans[:, k])
    return I


@program(_radiative_args)
def retrieval_cost(T_layers, T_surf, log_kappa, lam=1e-3):
    kappa = np.exp(log_kappa)
    I = toa_radiance(T_layers, T_surf, kappa)
    Tb = brightness_temperature(RAD_WN, I)
    smooth = np.sum(np.diff(T_layers, n=2) ** 2)
    return np.mean((Tb - RAD_T_OBS) ** 2) + lam * smooth


# --- satellite navigation: GPS point positioning (km), Gauss-Newton on pseudoranges with a
#     receiver clock bias until the step is small; position error plus the GDOP of the
#     last geometry matrix

GPS_R_E = 6371.0
GPS_TRUTH = np.array([GPS_R_E * 0.6, GPS_R_E * 0.3, GPS_R_E * np.sqrt(1 - 0.45)])


def _gps_sats():
    rng = np.random.default_rng(0)
    sats = []
    for k in range(7):
        th, ph = rng.uniform(0, 2 * np.pi), rng.uniform(0.3, 1.3)
        sats.append(26560.0 * np.array([np.cos(th) * np.cos(ph), np.sin(th) * np.cos(ph), np.sin(ph)]))
    return np.array(sats)


GPS_SATS = _gps_sats()


def _gps_args(r):
    rho = np.linalg.norm(GPS_SATS - GPS_TRUTH, axis=1) + 3.0 + r.normal(0, 0.005, 7)
    return rho, np.ones(7) + 0.1 * r.uniform(size=7)


def solve_position(pseudo, weights, x0=None, max_iter=20, tol=1e-9):
    x = np.zeros(4) if x0 is None else x0.copy()
    W = np.diag(weights)
    for it in range(max_iter):
        diff = x[:3] - GPS_SATS
        r = np.linalg.norm(diff, axis=1)
        pred = r + x[3]
        G = np.hstack([diff / r[:, None], np.ones((len(r), 1))])
        dx = np.linalg.solve(G.T @ W @ G, G.T @ W @ (pseudo - pred))
        x = x + dx
        if np.linalg.norm(dx) < tol:
            break
    return x, G


@program(_gps_args)
def dop_and_error(pseudo, weights):
    x, G = solve_position(pseudo, weights, x0=np.array([GPS_R_E, 0.0, 0.0, 0.0]))
    Q = np.linalg.inv(G.T @ np.diag(weights) @ G)
    gdop = np.sqrt(np.trace(Q))
    return np.sum((x[:3] - GPS_TRUTH) ** 2) + 0.1 * x[3] ** 2 + gdop


# --- hydrology: an HBV-like soil-moisture bucket (Python min/max and an `if` on the state,
#     a list of daily flows) routed by Muskingum; Nash-Sutcliffe loss after a warm-up

HYDRO_N_DAYS = 60


def _hydro_data():
    rng = np.random.default_rng(0)
    rain = np.maximum(rng.gamma(0.6, 8.0, HYDRO_N_DAYS) - 2.0, 0.0)
    pet = 2.0 + np.sin(np.arange(HYDRO_N_DAYS) / 58.0 * 2 * np.pi)
    q_obs = np.convolve(rain, np.exp(-np.arange(10) / 3.0) / 3.0)[:HYDRO_N_DAYS] + 0.5
    return rain, pet, q_obs


HYDRO_RAIN, HYDRO_PET, HYDRO_Q_OBS = _hydro_data()


def _hydro_args(r):
    return 60.0, 2.0, 0.3, 0.05, 1.5, 1.5, 0.2


def bucket(params, rain, pet):
    fc, beta, k_fast, k_slow, perc = params["fc"], params["beta"], params["k_fast"], params["k_slow"], params["perc"]
    sm, uz, lz = 0.5 * fc, 0.0, 5.0
    q = []
    for t in range(len(rain)):
        recharge = rain[t] * (sm / fc) ** beta
        sm = sm + rain[t] - recharge
        et = pet[t] * min(sm / (0.7 * fc), 1.0)
        sm = max(sm - et, 0.0)
        if sm > fc:
            recharge += sm - fc
            sm = fc
        uz = uz + recharge
        p = min(perc, uz)
        uz -= p
        lz += p
        q_fast = k_fast * uz
        q_slow = k_slow * lz
        uz -= q_fast
        lz -= q_slow
        q.append(q_fast + q_slow)
    return np.array(q)


def muskingum(inflow, K, X, dt=1.0):
    denom = 2 * K * (1 - X) + dt
    c0 = (dt - 2 * K * X) / denom
    c1 = (dt + 2 * K * X) / denom
    c2 = (2 * K * (1 - X) - dt) / denom
    out = np.empty_like(inflow)
    out[0] = inflow[0]
    for t in range(1, inflow.shape[0]):
        out[t] = c0 * inflow[t] + c1 * inflow[t - 1] + c2 * out[t - 1]
    return out


@program(_hydro_args)
def nse_loss(fc, beta, k_fast, k_slow, perc, K, X):
    params = dict(fc=fc, beta=beta, k_fast=k_fast, k_slow=k_slow, perc=perc)
    q = muskingum(bucket(params, HYDRO_RAIN, HYDRO_PET), K, X)
    warm = 10
    num = np.sum((q[warm:] - HYDRO_Q_OBS[warm:]) ** 2)
    den = np.sum((HYDRO_Q_OBS[warm:] - np.mean(HYDRO_Q_OBS[warm:])) ** 2)
    return num / den


# --- transport: user-equilibrium traffic assignment by the method of successive averages,
#     BPR link costs, all-or-nothing loading by np.argmin over each OD pair's paths (a
#     boolean mask and np.nonzero); total system travel time plus a capacity cost

TRAFFIC_PATHS = [np.array([0, 2]), np.array([1, 3]), np.array([0, 4, 3]),
                 np.array([2, 5]), np.array([4, 5]), np.array([1, 5])]
TRAFFIC_OD_OF_PATH = np.array([0, 0, 0, 1, 1, 1])
TRAFFIC_DELTA = np.zeros((6, len(TRAFFIC_PATHS)))
for _p, _links in enumerate(TRAFFIC_PATHS):
    TRAFFIC_DELTA[_links, _p] = 1.0
TRAFFIC_DEMAND = np.array([120.0, 90.0])
TRAFFIC_T0 = np.array([10.0, 12.0, 9.0, 11.0, 4.0, 8.0])


def _traffic_args(r):
    return (np.array([80.0, 70.0, 90.0, 60.0, 50.0, 100.0]),)


def bpr(flow, cap, alpha=0.15, beta=4.0):
    return TRAFFIC_T0 * (1.0 + alpha * (flow / cap) ** beta)


def all_or_nothing(path_cost):
    y = np.zeros(len(TRAFFIC_OD_OF_PATH))
    for od in range(TRAFFIC_DEMAND.shape[0]):
        mask = TRAFFIC_OD_OF_PATH == od
        idx = np.nonzero(mask)[0]
        best = idx[np.argmin(path_cost[mask])]
        y[best] = TRAFFIC_DEMAND[od]
    return y


def assign(cap, n_iter=30):
    h = all_or_nothing(TRAFFIC_DELTA.T @ TRAFFIC_T0)
    gaps = []
    for k in range(1, n_iter):
        x = TRAFFIC_DELTA @ h
        c = TRAFFIC_DELTA.T @ bpr(x, cap)
        y = all_or_nothing(c)
        gaps.append(np.dot(c, h - y))
        h = h + (y - h) / (k + 1)
    return h, gaps


@program(_traffic_args)
def system_cost(cap, toll_weight=0.01):
    h, gaps = assign(cap)
    x = TRAFFIC_DELTA @ h
    tstt = np.sum(x * bpr(x, cap))
    return tstt + toll_weight * np.sum(cap ** 2) + 0.0 * gaps[-1]


# --- queueing: an open Jackson network of M/M/c stations, arrival rates by the traffic
#     equations (np.linalg.solve), Erlang C in a loop; a station with utilisation >= 1 (the
#     fourth, at these rates) is penalised on its own branch

QUEUE_GAMMA = np.array([2.0, 1.0, 0.5, 0.0])           # external arrivals
QUEUE_P = np.array([[0.0, 0.5, 0.3, 0.1],
                    [0.0, 0.0, 0.6, 0.2],
                    [0.1, 0.0, 0.0, 0.7],
                    [0.0, 0.2, 0.0, 0.0]])
QUEUE_SERVERS = (1, 2, 3, 1)
QUEUE_COST_PER_RATE = np.array([1.0, 0.8, 0.6, 1.2])


def _queue_args(r):
    return (np.array([4.0, 2.0, 1.5, 2.5]),)


def erlang_c(lam, mu, c):
    a = lam / mu
    rho = a / c
    if rho >= 1.0:
        return 1.0, rho
    term = 1.0
    s = 1.0
    for k in range(1, c):
        term = term * a / k
        s += term
    last = term * a / c
    pc = last / (1.0 - rho) / (s + last / (1.0 - rho))
    return pc, rho


def station_sojourn(lam, mu, c):
    pc, rho = erlang_c(lam, mu, c)
    if rho >= 1.0:
        return 1e6 * (rho - 0.99) ** 2 + 100.0
    wq = pc / (c * mu - lam)
    return wq + 1.0 / mu


@program(_queue_args)
def network_cost(mu, w_time=10.0):
    lam = np.linalg.solve(np.eye(4) - QUEUE_P.T, QUEUE_GAMMA)
    L = 0.0
    for i in range(4):
        L += lam[i] * station_sojourn(lam[i], mu[i], QUEUE_SERVERS[i])
    throughput = np.sum(QUEUE_GAMMA)
    return w_time * L / throughput + np.dot(QUEUE_COST_PER_RATE, mu)


# --- sports ratings: Elo with home-field advantage and a margin-of-victory multiplier,
#     ratings updated game by game (r[h] += delta), the predictions scored by log loss; and
#     one batch rating period by np.add.at / np.subtract.at

def _elo_games():
    rng = np.random.default_rng(0)
    n_teams, n_games = 6, 50
    home = rng.integers(0, n_teams, n_games)
    away = (home + rng.integers(1, n_teams, n_games)) % n_teams
    margin = rng.integers(-3, 4, n_games).astype(float)
    outcome = np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))
    return n_games, home, away, margin, outcome


ELO_N_GAMES, ELO_HOME, ELO_AWAY, ELO_MARGIN, ELO_OUTCOME = _elo_games()


def _elo_season_args(r):
    return 1500.0 + r.normal(0, 30, 6), 20.0, 50.0


def _elo_batch_args(r):
    return 1500.0 + r.normal(0, 30, 6), 20.0


def expected(ra, rb, scale=400.0):
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / scale))


def run_elo(r0, K, hfa, mov_exp=0.5):
    r = r0.copy()
    preds = np.zeros(ELO_N_GAMES)
    for g in range(ELO_N_GAMES):
        h, a = ELO_HOME[g], ELO_AWAY[g]
        e = expected(r[h] + hfa, r[a])
        preds[g] = e
        mult = (np.abs(ELO_MARGIN[g]) + 1.0) ** mov_exp
        delta = K * mult * (ELO_OUTCOME[g] - e)
        r[h] += delta
        r[a] -= delta
    return r, preds


@program(_elo_season_args)
def elo_season_loss(r0, K, hfa):
    r, p = run_elo(r0, K, hfa)
    p = np.clip(p, 1e-6, 1 - 1e-6)
    ll = -np.mean(ELO_OUTCOME * np.log(p) + (1 - ELO_OUTCOME) * np.log(1 - p))
    # keep ratings centred, penalise spread
    return ll + 1e-6 * np.sum((r - r.mean()) ** 2) + 1e-4 * (np.mean(r0) - 1500.0) ** 2


@program(_elo_batch_args)
def elo_batch_update(r0, K):
    # one "rating period": all games against pre-period ratings, scatter-add
    e = expected(r0[ELO_HOME], r0[ELO_AWAY])
    delta = K * (ELO_OUTCOME - e)
    r = r0.copy()
    np.add.at(r, ELO_HOME, delta)
    np.subtract.at(r, ELO_AWAY, delta)
    return np.sum(np.log1p(np.exp(-(r[ELO_HOME] - r[ELO_AWAY]) / 200.0)))


# --- batteries: a Thevenin 2RC equivalent circuit with one-state hysteresis, the SOC by
#     coulomb counting (np.cumsum, np.clip), the OCV by np.polyval; the terminal voltages
#     appended to a list and np.stack-ed, an RMS error to measurements

BATTERY_DT = 1.0
BATTERY_OCV_COEFFS = np.array([0.5, -1.2, 1.1, 0.6, 3.3])   # high-order first (np.polyval)


def _battery_data():
    rng = np.random.default_rng(0)
    n = 120
    current = np.where((np.arange(n) // 20) % 2 == 0, 2.0, -1.0) + 0.1 * rng.normal(size=n)
    v_meas = 3.6 - 0.02 * np.cumsum(np.sign(current)) / 10 + 0.01 * rng.normal(size=n)
    return current, v_meas


BATTERY_CURRENT, BATTERY_V_MEAS = _battery_data()


def _battery_args(r):
    return (np.array([0.05, 0.02, 500.0, 0.03, 5000.0, 0.01, 0.05]),)


def simulate_cell(theta, i_load, soc0=0.8, capacity_ah=2.5):
    R0, R1, C1, R2, C2, M, kh = theta
    soc = soc0 - np.cumsum(i_load) * BATTERY_DT / (3600.0 * capacity_ah)
    soc = np.clip(soc, 0.0, 1.0)
    a1, a2 = np.exp(-BATTERY_DT / (R1 * C1)), np.exp(-BATTERY_DT / (R2 * C2))
    v1 = v2 = h = 0.0
    out = []
    for k in range(i_load.shape[0]):
        ik = i_load[k]
        v1 = a1 * v1 + R1 * (1 - a1) * ik
        v2 = a2 * v2 + R2 * (1 - a2) * ik
        s = 1.0 if ik > 0 else (-1.0 if ik < 0 else 0.0)
        decay = np.exp(-abs(kh * ik * BATTERY_DT))
        h = decay * h - (1 - decay) * s
        out.append(np.polyval(BATTERY_OCV_COEFFS, soc[k]) + M * h - v1 - v2 - R0 * ik)
    return np.stack(out)


@program(_battery_args)
def battery_fit_loss(theta):
    v = simulate_cell(theta, BATTERY_CURRENT)
    err = v - BATTERY_V_MEAS
    return np.sqrt(np.mean(err ** 2))


# --- chemical equilibrium: the carbonate system with calcium by Newton's method on the
#     components' log concentrations (mmol/L), electroneutrality in place of the proton
#     balance, the step clipped, a `while True` loop left by `break`; a pH target and the
#     calcite saturation index

CHEM_A = np.array([[1, 0, 0],
                   [-1, 0, 0],
                   [2, 1, 0],
                   [1, 1, 0],
                   [0, 1, 0],
                   [0, 0, 1]], dtype=float)
CHEM_CHARGE = np.array([1, -1, 0, -1, -2, 2], dtype=float)


def _chemeq_args(r):
    # log10 K of H+, OH-, H2CO3, HCO3-, CO3--, Ca++ from the components H+, CO3--, Ca++, in
    # mmol/L (Kw = 1e-14 M^2 is 1e-8 mM^2, and so on); totals of CO3 and Ca in mmol/L
    return np.log(10.0) * np.array([0.0, -8.0, 10.68, 7.33, 0.0, 0.0]), np.array([0.0, 2.0, 1.0])


def species(logc_comp, logK):
    return np.exp(CHEM_A @ logc_comp + logK)


def residual(logc_comp, logK, totals):
    c = species(logc_comp, logK)
    r = np.empty(3)
    r[0] = CHEM_CHARGE @ c                        # electroneutrality replaces H+ balance
    r[1:] = CHEM_A[:, 1:].T @ c - totals[1:]
    return r, c


def solve_equilibrium(logK, totals, tol=1e-12, max_iter=100):
    x = np.array([np.log(1e-4), np.log(totals[1] * 0.5), np.log(totals[2])])
    it = 0
    while True:
        r, c = residual(x, logK, totals)
        J = (CHEM_A * c[:, None]).T @ CHEM_A         # d r_j / d x_k (with charge row fixed below)
        J[0, :] = (CHEM_CHARGE * c) @ CHEM_A
        step = np.linalg.solve(J, -r)
        step = np.clip(step, -2.0, 2.0)
        x += step
        it += 1
        if np.max(np.abs(step)) < tol or it >= max_iter:
            break
    return x, c


@program(_chemeq_args)
def ph_objective(logK, totals, target_pH=8.2):
    x, c = solve_equilibrium(logK, totals)
    pH = 3.0 - x[0] / np.log(10.0)                         # [H+] in mmol/L
    saturation = np.log10(c[4] * c[5] / 10 ** -2.48)        # Ksp = 10^-8.48 M^2
    return (pH - target_pH) ** 2 + 0.1 * saturation ** 2


# --- population genetics: a Wright-Fisher HMM over allele counts with diploid selection
#     and mutation, binomial transitions by gammaln, sampled counts as emissions; the
#     forward algorithm rescaled each generation (alpha /= c), an `if` on the sample index

POPGEN_N = 20                       # diploid population -> 2N allele copies
POPGEN_N_GEN = 8
POPGEN_SAMPLE_SIZES = np.array([30, 30, 30, 30])
POPGEN_SAMPLE_COUNTS = np.array([6, 9, 14, 17])
POPGEN_SAMPLE_GENS = (1, 3, 5, 7)


def _popgen_args(r):
    return (np.array([0.1, 0.5, np.log(1e-3)]),)


def log_binom(n, k, p):
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + k * np.log(p) + (n - k) * np.log1p(-p)


def selection_mutation(p, s, h, mu):
    q = 1.0 - p
    w11, w12, w22 = 1.0 + s, 1.0 + h * s, 1.0
    wbar = p * p * w11 + 2 * p * q * w12 + q * q * w22
    p_sel = (p * p * w11 + p * q * w12) / wbar
    return p_sel * (1 - mu) + (1 - p_sel) * mu


def transition_matrix(s, h, mu):
    M = 2 * POPGEN_N
    i = np.arange(M + 1)
    p_next = selection_mutation(i / M, s, h, mu)
    j = np.arange(M + 1)
    logT = log_binom(float(M), j[None, :].astype(float), p_next[:, None])
    return np.exp(logT)


@program(_popgen_args)
def wright_fisher_nll(theta):
    s, h, log_mu = theta[0], theta[1], theta[2]
    T = transition_matrix(s, h, np.exp(log_mu))
    M = 2 * POPGEN_N
    freqs = np.arange(M + 1) / M
    alpha = np.full(M + 1, 1.0 / (M + 1))
    ll = 0.0
    k = 0
    for g in range(POPGEN_N_GEN):
        alpha = alpha @ T
        if k < len(POPGEN_SAMPLE_GENS) and g == POPGEN_SAMPLE_GENS[k]:
            emis = np.exp(log_binom(float(POPGEN_SAMPLE_SIZES[k]), float(POPGEN_SAMPLE_COUNTS[k]), freqs))
            alpha = alpha * emis
            c = alpha.sum()
            ll += np.log(c)
            alpha /= c
            k += 1
    return -ll


# --- econometrics: 2SLS, then two-step efficient GMM with the heteroskedasticity-robust
#     weight (np.linalg.inv of the moment covariance), Hansen's J; differentiated with
#     respect to the data (outcome and instruments; the regressors too)

def _gmm_args(r):
    n, k_z = 80, 4
    Z = np.column_stack([np.ones(n), r.normal(size=(n, k_z - 1))])
    v = r.normal(size=n)
    x_endog = Z[:, 1] + 0.5 * Z[:, 2] + v
    X = np.column_stack([np.ones(n), x_endog])
    y = 1.0 + 2.0 * x_endog + 0.8 * v + r.normal(size=n)
    return y, Z, X


def tsls(y, X, Z):
    PZ = Z @ np.linalg.solve(Z.T @ Z, Z.T)
    Xhat = PZ @ X
    return np.linalg.solve(Xhat.T @ X, Xhat.T @ y)


def gmm_step(y, X, Z, W):
    ZX = Z.T @ X
    Zy = Z.T @ y
    A = ZX.T @ W @ ZX
    return np.linalg.solve(A, ZX.T @ W @ Zy)


def efficient_gmm(y, X, Z, n_steps=2):
    beta = tsls(y, X, Z)
    nobs = y.shape[0]
    for _ in range(n_steps):
        u = y - X @ beta
        g_i = Z * u[:, None]
        S = g_i.T @ g_i / nobs
        W = np.linalg.inv(S)
        beta = gmm_step(y, X, Z, W)
    u = y - X @ beta
    gbar = Z.T @ u / nobs
    J = nobs * gbar @ W @ gbar
    return beta, J


@program(_gmm_args)
def gmm_objective(y, Z, X, weights=np.array([1.0, 1.0])):
    beta, J = efficient_gmm(y, X, Z)
    sign, logdet = np.linalg.slogdet(Z.T @ Z / y.shape[0])
    return weights[0] * beta[1] ** 2 + weights[1] * J + 0.01 * logdet


# --- marketing mix models: geometric adstock by np.convolve and delayed adstock by shifted
#     slices, Hill saturation, the channels' contributions np.stack-ed; squared error plus
#     a hinge on each channel's ROI (np.maximum)

def _mmm_data():
    rng = np.random.default_rng(0)
    n_weeks, n_ch = 52, 3
    spend = rng.gamma(2.0, 50.0, (n_weeks, n_ch))
    spend[rng.uniform(size=(n_weeks, n_ch)) < 0.2] = 0.0
    season = np.sin(2 * np.pi * np.arange(n_weeks) / 52.0)
    sales = 1000 + 200 * season + rng.normal(0, 30, n_weeks)
    return spend, season, sales


MMM_SPEND, MMM_SEASON, MMM_SALES = _mmm_data()


def _mmm_args(r):
    return (np.array([0.5, 0.6, 0.3]), np.array([100.0, 80.0, 60.0]), np.array([80.0, 100.0, 70.0]),
            np.array([1.5, 2.0, 1.2]), 950.0, 1.5)


def geometric_adstock(x, decay, max_lag=8, normalize=True):
    w = decay ** np.arange(max_lag)
    if normalize:
        w = w / w.sum()
    return np.convolve(x, w)[: x.shape[0]]


def delayed_adstock(x, decay, delay, max_lag=8):
    lags = np.arange(max_lag, dtype=float)
    w = decay ** ((lags - delay) ** 2)
    out = np.zeros_like(x)
    for lag in range(max_lag):
        out[lag:] += w[lag] * x[: x.shape[0] - lag]
    return out / np.sum(w)


def hill(x, half_sat, slope):
    return x ** slope / (x ** slope + half_sat ** slope)


def predict_sales(params, spend):
    contrib = []
    for c in range(spend.shape[1]):
        if c == 0:
            ad = delayed_adstock(spend[:, c], params["decay"][c], params["delay"])
        else:
            ad = geometric_adstock(spend[:, c], params["decay"][c])
        contrib.append(params["beta"][c] * hill(ad, params["K"][c], params["S"][c]))
    media = np.stack(contrib, axis=1)
    return params["base"] + params["gamma"] * MMM_SEASON + media.sum(axis=1), media


@program(_mmm_args)
def mmm_loss(decay, beta, K, S, base, delay):
    params = {"decay": decay, "beta": beta, "K": K, "S": S, "base": base,
              "gamma": 200.0, "delay": delay}
    pred, media = predict_sales(params, MMM_SPEND)
    resid = MMM_SALES - pred
    roi = media.sum(axis=0) / np.maximum(MMM_SPEND.sum(axis=0), 1.0)
    return np.mean(resid ** 2) + 10.0 * np.sum(np.maximum(0.05 - roi, 0.0) ** 2)


# --- thin-film optics: a multilayer's reflectance by the transfer-matrix method, complex
#     2x2 characteristic matrices built by np.array and multiplied in a loop, one spectrum
#     point per wavelength in a list comprehension; fitted to a dichroic target

TMM_WAVELENGTHS = np.linspace(450.0, 750.0, 7)
TMM_N_SUB = 1.52
TMM_N_AMB = 1.0
TMM_TARGET = np.where(TMM_WAVELENGTHS < 600.0, 0.05, 0.6)


def _tmm_args(r):
    return np.array([60.0, 95.0, 62.0, 90.0, 58.0]), np.array([2.35, 1.46, 2.35, 1.46, 2.35])


def layer_matrix(n, d, lam, theta0=0.0):
    delta = 2.0 * np.pi * n * d / lam
    eta = n
    M = np.array([[np.cos(delta), 1j * np.sin(delta) / eta],
                  [1j * eta * np.sin(delta), np.cos(delta)]])
    return M


def reflectance(n_layers, d_layers, lam):
    M = np.eye(2, dtype=complex)
    for k in range(n_layers.shape[0]):
        M = M @ layer_matrix(n_layers[k], d_layers[k], lam)
    B = M[0, 0] + M[0, 1] * TMM_N_SUB
    C = M[1, 0] + M[1, 1] * TMM_N_SUB
    r = (TMM_N_AMB * B - C) / (TMM_N_AMB * B + C)
    return np.abs(r) ** 2


@program(_tmm_args)
def tmm_merit(d_layers, n_layers):
    R = np.array([reflectance(n_layers, d_layers, lam) for lam in TMM_WAVELENGTHS])
    return np.sum((R - TMM_TARGET) ** 2)


# --- finite elements: an axially loaded bar of quadratic elements, element matrices by
#     3-point Gauss quadrature (np.outer), assembly by K[np.ix_(dofs, dofs)] +=, the fixed
#     end dropped; compliance plus a displacement match and a volume term

FEM_N_EL = 6
FEM_NODES = np.linspace(0.0, 1.0, 2 * FEM_N_EL + 1)
FEM_CONN = np.array([[2 * e, 2 * e + 1, 2 * e + 2] for e in range(FEM_N_EL)])
FEM_GAUSS_X = np.array([-np.sqrt(3 / 5), 0.0, np.sqrt(3 / 5)])
FEM_GAUSS_W = np.array([5 / 9, 8 / 9, 5 / 9])
FEM_U_TARGET = np.linspace(0.0, 1.0, 2 * FEM_N_EL + 1) ** 2 * 1e-3


def _fem_args(r):
    return np.full(FEM_N_EL, 200.0) * (1 + 0.1 * np.arange(FEM_N_EL)), np.linspace(3.0, 1.0, FEM_N_EL)


def shape_derivs(xi):
    return np.array([xi - 0.5, -2.0 * xi, xi + 0.5])


def element_stiffness(E, A, x_e):
    ke = np.zeros((3, 3))
    fe = np.zeros(3)
    for g in range(3):
        xi = FEM_GAUSS_X[g]
        dN = shape_derivs(xi)
        J = dN @ x_e
        B = dN / J
        N = np.array([0.5 * xi * (xi - 1), 1 - xi * xi, 0.5 * xi * (xi + 1)])
        ke += E * A * np.outer(B, B) * J * FEM_GAUSS_W[g]
        fe += N * (N @ x_e) * J * FEM_GAUSS_W[g]          # distributed load q(x) = x
    return ke, fe


def solve_bar(E, A, tip_load=1.0):
    ndof = FEM_NODES.shape[0]
    K = np.zeros((ndof, ndof))
    F = np.zeros(ndof)
    for e in range(FEM_N_EL):
        dofs = FEM_CONN[e]
        ke, fe = element_stiffness(E[e], A[e], FEM_NODES[dofs])
        K[np.ix_(dofs, dofs)] += ke
        F[dofs] += fe
    F[-1] += tip_load
    free = np.arange(1, ndof)
    u = np.zeros(ndof)
    u[free] = np.linalg.solve(K[1:, 1:], F[free])
    return u, F


@program(_fem_args)
def fem_objective(E, A, w=1e6):
    u, F = solve_bar(E, A)
    compliance = F @ u
    return compliance + w * np.sum((u - FEM_U_TARGET) ** 2) + 1e-3 * np.sum(A * np.diff(FEM_NODES[::2]))


# --- camera calibration (Zhang-style): Rodrigues rotations with a small-angle branch, a
#     pinhole with radial-tangential distortion, intrinsics as a tuple unpacked; views by
#     zip over rotation and translation arrays, a Huber reprojection error by np.where

def _camera_data():
    rng = np.random.default_rng(0)
    gx, gy = np.meshgrid(np.arange(5.0), np.arange(4.0))
    board = np.stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)], axis=1) * 0.03
    return board, rng.uniform(200, 440, (3, board.shape[0], 2))


CAMERA_BOARD, CAMERA_OBS = _camera_data()


def _camera_args(r):
    n_views = 3
    rvecs = r.normal(0, 0.2, (n_views, 3))
    tvecs = np.column_stack([r.normal(0, 0.02, (n_views, 2)), np.full(n_views, 0.5)])
    return (800.0, 790.0, 320.0, 240.0), np.array([-0.1, 0.01, 1e-3, -1e-3]), rvecs, tvecs


def rodrigues(rvec):
    theta = np.linalg.norm(rvec)
    if theta < 1e-12:
        return np.eye(3)
    k = rvec / theta
    Kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * Kx + (1 - np.cos(theta)) * (Kx @ Kx)


def project(points, rvec, tvec, intr, dist):
    fx, fy, cx, cy = intr
    k1, k2, p1, p2 = dist[0], dist[1], dist[2], dist[3]
    Xc = points @ rodrigues(rvec).T + tvec
    x = Xc[:, 0] / Xc[:, 2]
    y = Xc[:, 1] / Xc[:, 2]
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 ** 2
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.stack([fx * xd + cx, fy * yd + cy], axis=-1)


@program(_camera_args)
def reprojection_rms(intr, dist, rvecs, tvecs, huber=5.0):
    total = 0.0
    count = 0
    for v, (rv, tv) in enumerate(zip(rvecs, tvecs)):
        e = project(CAMERA_BOARD, rv, tv, intr, dist) - CAMERA_OBS[v]
        r = np.linalg.norm(e, axis=1)
        rho = np.where(r <= huber, 0.5 * r ** 2, huber * (r - 0.5 * huber))
        total += rho.sum()
        count += r.shape[0]
    return np.sqrt(total / count)


# --- heat exchanger networks: effectiveness-NTU by flow arrangement (a string per
#     exchanger, branches on it and on the capacity ratio), a train of exchangers on the
#     cold stream, a fixed point on the recycle temperature left by `break`; area cost,
#     a heater by np.maximum, duty credit

HX_CP_HOT = np.array([3.0, 2.0, 4.0])       # kW/K per stream
HX_CP_COLD = np.array([2.5, 3.5, 2.0])
HX_T_HOT_IN = np.array([420.0, 390.0, 450.0])
HX_T_COLD_IN = 300.0
HX_ARRANGEMENTS = ("counter", "parallel", "shell")


def _hx_args(r):
    return (np.array([4.0, 3.0, 5.0]),)


def effectiveness(NTU, Cr, kind="counter"):
    if Cr < 1e-9:
        return 1.0 - np.exp(-NTU)
    if kind == "counter":
        if abs(1.0 - Cr) < 1e-6:
            return NTU / (1.0 + NTU)
        e = np.exp(-NTU * (1.0 - Cr))
        return (1.0 - e) / (1.0 - Cr * e)
    elif kind == "parallel":
        return (1.0 - np.exp(-NTU * (1.0 + Cr))) / (1.0 + Cr)
    else:
        s = np.sqrt(1.0 + Cr * Cr)
        ex = np.exp(-NTU * s)
        return 2.0 / (1.0 + Cr + s * (1.0 + ex) / (1.0 - ex))


def exchanger(UA, C_h, C_c, Th, Tc, kind):
    Cmin, Cmax = min(C_h, C_c), max(C_h, C_c)
    eps = effectiveness(UA / Cmin, Cmin / Cmax, kind)
    q = eps * Cmin * (Th - Tc)
    return q, Th - q / C_h, Tc + q / C_c


def network(UA, recycle=0.3, tol=1e-10):
    T_mix = HX_T_COLD_IN
    T_out = HX_T_COLD_IN
    for it in range(200):
        Tc = T_mix
        duties = []
        for i, kind in enumerate(HX_ARRANGEMENTS):
            q, Th_out, Tc = exchanger(UA[i], HX_CP_HOT[i], HX_CP_COLD[i], HX_T_HOT_IN[i], Tc, kind)
            duties.append(q)
        T_new = (1 - recycle) * HX_T_COLD_IN + recycle * Tc
        if abs(T_new - T_mix) < tol:
            T_out = Tc
            break
        T_mix = T_new
        T_out = Tc
    return np.array(duties), T_out


@program(_hx_args)
def hx_total_cost(UA, T_target=400.0):
    duties, T_out = network(UA)
    heater = np.maximum(T_target - T_out, 0.0) * HX_CP_COLD[-1]
    area_cost = np.sum(1000.0 * (UA / 0.5) ** 0.6)
    return area_cost + 80.0 * heater - 5.0 * duties.sum()


# --- agent-based markets: fundamentalists and chartists with fixed noise draws, the
#     price history a growing list read by hist[-1] - hist[-2], orders cleared by np.sort
#     and np.cumsum; simulated moments (std, autocorrelation) matched, a Gini-like term

ABM_N_AGENTS, ABM_N_STEPS = 30, 15
_abm_rng = np.random.default_rng(0)
ABM_EPS = _abm_rng.normal(size=(ABM_N_STEPS, ABM_N_AGENTS))
ABM_KIND = _abm_rng.integers(0, 2, ABM_N_AGENTS)          # 0 fundamentalist, 1 chartist
ABM_P_FUND = 100.0


def _abm_args(r):
    return 0.5, 2.0, 0.8, 0.05


def demand(price, hist, w_f, w_c, noise_sd, t):
    trend = hist[-1] - hist[-2] if len(hist) > 1 else 0.0
    d_f = w_f * (ABM_P_FUND - price)
    d_c = w_c * trend
    d = np.where(ABM_KIND == 0, d_f, d_c) + noise_sd * ABM_EPS[t]
    return np.tanh(d / 5.0)


def clear(orders, price, impact):
    srt = np.sort(orders)
    cum = np.cumsum(srt)
    excess = cum[-1]
    median_order = 0.5 * (srt[ABM_N_AGENTS // 2 - 1] + srt[ABM_N_AGENTS // 2])
    return price * np.exp(impact * excess / ABM_N_AGENTS + 0.01 * median_order)


def simulate_market(theta):
    w_f, w_c, noise_sd, impact = theta["w_f"], theta["w_c"], theta["noise"], theta["impact"]
    price = 100.0
    hist = [price]
    wealth = np.zeros(ABM_N_AGENTS)
    for t in range(ABM_N_STEPS):
        orders = demand(price, hist, w_f, w_c, noise_sd, t)
        new_price = clear(orders, price, impact)
        wealth += orders * (new_price - price)
        price = new_price
        hist.append(price)
    return np.array(hist), wealth


@program(_abm_args)
def msm_loss(w_f, w_c, noise_sd, impact, target=np.array([0.02, 0.3, 0.1])):
    prices, wealth = simulate_market({"w_f": w_f, "w_c": w_c, "noise": noise_sd, "impact": impact})
    r = np.diff(np.log(prices))
    ac1 = np.sum((r[1:] - r.mean()) * (r[:-1] - r.mean())) / np.sum((r - r.mean()) ** 2)
    moments = np.array([r.std(), ac1, np.mean(np.abs(r)) * 10])
    gini_like = np.mean(np.abs(wealth[:, None] - wealth[None, :])) / (np.mean(np.abs(wealth)) + 1e-3)
    return np.sum((moments - target) ** 2) + 1e-3 * gini_like


# --- room acoustics: a shoebox room's image sources (three nested loops, a `continue`,
#     np.where on parity), a room impulse response with fractional delays by np.floor and
#     np.add.at, Schroeder's backward-integrated decay in dB, its slope over a mask fitted

ROOM_FS = 4000.0
ROOM_C = 343.0
ROOM_DIMS = np.array([5.0, 4.0, 3.0])
ROOM_MIC = np.array([3.6, 2.1, 1.6])
ROOM_N_IR = 800
ROOM_ORDER = 3


def _room_args(r):
    return 0.7, np.array([1.2, 1.5, 1.4])


def image_sources(src, room, order):
    imgs, refl = [], []
    for nx in range(-order, order + 1):
        for ny in range(-order, order + 1):
            for nz in range(-order, order + 1):
                if abs(nx) + abs(ny) + abs(nz) > order:
                    continue
                n = np.array([nx, ny, nz], dtype=float)
                pos = np.where(n % 2 == 0, n * room + src, (n + 1) * room - src)
                imgs.append(pos)
                refl.append(float(abs(nx) + abs(ny) + abs(nz)))
    return np.stack(imgs), np.array(refl)


def rir(beta, src):
    imgs, nrefl = image_sources(src, ROOM_DIMS, ROOM_ORDER)
    d = np.linalg.norm(imgs - ROOM_MIC, axis=1)
    amp = beta ** nrefl / (4 * np.pi * d)
    t = d / ROOM_C * ROOM_FS
    i0 = np.floor(t).astype(np.int64)
    frac = t - i0
    h = np.zeros(ROOM_N_IR)
    keep = i0 + 1 < ROOM_N_IR
    np.add.at(h, i0[keep], amp[keep] * (1 - frac[keep]))
    np.add.at(h, i0[keep] + 1, amp[keep] * frac[keep])
    return h


def schroeder_db(h):
    edc = np.cumsum((h ** 2)[::-1])[::-1]
    return 10.0 * np.log10(edc / edc[0] + 1e-12)


@program(_room_args)
def room_loss(beta, src, target_slope=-60.0 / 0.4):
    h = rir(beta, src)
    edc = schroeder_db(h)
    t = np.arange(ROOM_N_IR) / ROOM_FS
    mask = (edc <= -5.0) & (edc >= -25.0)
    tt, ee = t[mask], edc[mask]
    slope = np.sum((tt - tt.mean()) * (ee - ee.mean())) / np.sum((tt - tt.mean()) ** 2)
    return (slope / target_slope - 1.0) ** 2 + 1e-3 * np.sum(h ** 2)


# --- paired comparisons: a Bradley-Terry model with Davidson's ties (nested np.where on
#     the result), a Gaussian prior; and Hunter's MM iteration for plain Bradley-Terry
#     strengths until the L1 change is small, from a wins matrix

def _bt_games():
    rng = np.random.default_rng(0)
    n_players, n_games = 5, 40
    i_idx = rng.integers(0, n_players, n_games)
    j_idx = (i_idx + rng.integers(1, n_players, n_games)) % n_players
    res = rng.choice([1.0, 0.5, 0.0], n_games, p=[0.45, 0.1, 0.45])
    return n_players, i_idx, j_idx, res


BT_N_PLAYERS, BT_I, BT_J, BT_RES = _bt_games()


def _bt_args(r):
    return 0.3 * r.normal(size=BT_N_PLAYERS), 0.3


def _bt_mm_args(r):
    W = np.zeros((BT_N_PLAYERS, BT_N_PLAYERS))
    np.add.at(W, (BT_I, BT_J), (BT_RES == 1.0) * 1.0 + 0.5 * (BT_RES == 0.5))
    np.add.at(W, (BT_J, BT_I), (BT_RES == 0.0) * 1.0 + 0.5 * (BT_RES == 0.5))
    return (W + 0.1,)


@program(_bt_args)
def bt_neg_log_post(theta, nu=0.3, prior_sd=1.0):
    s = theta[BT_I] - theta[BT_J]
    a, b = np.exp(0.5 * s), np.exp(-0.5 * s)
    denom = a + b + nu
    logp = np.where(BT_RES == 1.0, np.log(a / denom),
                    np.where(BT_RES == 0.0, np.log(b / denom), np.log(nu / denom)))
    return -np.sum(logp) + 0.5 * np.sum(theta ** 2) / prior_sd ** 2


def mm_strengths(wins, games, tol=1e-10, max_iter=500):
    # Hunter's MM algorithm for plain BT strengths (wins matrix, games count matrix)
    p = np.ones(wins.shape[0])
    w = wins.sum(axis=1)
    for it in range(max_iter):
        denom = np.sum(games / (p[:, None] + p[None, :]), axis=1)
        p_new = w / denom
        p_new /= p_new.sum()
        if np.linalg.norm(p_new - p, ord=1) < tol:
            p = p_new
            break
        p = p_new
    return p


@program(_bt_mm_args)
def bt_mm_loss(wins):
    games = wins + wins.T
    p = mm_strengths(wins, games)
    return np.sum(np.log(p) * np.arange(1.0, BT_N_PLAYERS + 1))


# --- geodesy: geodetic to ECEF by math.sin/cos and back by the iterated latitude (a `while
#     True` loop left by `break`, math.atan2 and math.hypot), a baseline network adjusted by
#     weighted residuals; all lengths in km (the station offsets of tens of metres)

GEO_A_WGS = 6378.137                  # km
GEO_F_WGS = 1 / 298.257223563
GEO_E2 = GEO_F_WGS * (2 - GEO_F_WGS)
GEO_STATIONS = [(0.7, 0.2, 0.1), (0.71, 0.21, 0.15), (0.705, 0.19, 0.08)]
GEO_BASE_OBS = np.random.default_rng(0).normal(0, 0.01, (3, 3))


def _geodesy_args(r):
    return r.normal(0, 0.02, 9), np.array([0.01, 0.02, 0.015])


def geodetic_to_ecef(lat, lon, h):
    N = GEO_A_WGS / math.sqrt(1 - GEO_E2 * math.sin(lat) ** 2)
    return np.array([(N + h) * math.cos(lat) * math.cos(lon),
                     (N + h) * math.cos(lat) * math.sin(lon),
                     (N * (1 - GEO_E2) + h) * math.sin(lat)])


def ecef_to_geodetic(xyz, tol=1e-12):
    x, y, z = xyz[0], xyz[1], xyz[2]
    lon = math.atan2(y, x)
    p = math.hypot(x, y)
    lat = math.atan2(z, p * (1 - GEO_E2))
    while True:
        N = GEO_A_WGS / math.sqrt(1 - GEO_E2 * math.sin(lat) ** 2)
        h = p / math.cos(lat) - N
        lat_new = math.atan2(z, p * (1 - GEO_E2 * N / (N + h)))
        if abs(lat_new - lat) < tol:
            lat = lat_new
            break
        lat = lat_new
    return lat, lon, h


@program(_geodesy_args)
def baseline_adjustment(coords, sigmas):
    X = [geodetic_to_ecef(c[0], c[1], c[2]) for c in GEO_STATIONS]
    X = np.stack(X) + coords.reshape(3, 3)
    pairs = ((0, 1), (1, 2), (0, 2))
    r = []
    for k, (i, j) in enumerate(pairs):
        r.append((X[j] - X[i]) - (np.array(geodetic_to_ecef(*GEO_STATIONS[j])) - geodetic_to_ecef(*GEO_STATIONS[i]))
                 - GEO_BASE_OBS[k])
    r = np.concatenate(r) / np.repeat(sigmas, 3)
    lat, lon, h = ecef_to_geodetic(X[0])
    return np.sum(r ** 2) + (h - 0.1) ** 2 + 1e6 * (lat - 0.7) ** 2
