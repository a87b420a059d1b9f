"""sstad.optim: each update against an independent reference written from the paper's
formula, over 10 steps, to 1e-12; Adam, AdamW and Nesterov against numbers from PyTorch."""
import math

import numpy as np
import pytest

import sstad
from sstad import optim

STEPS = 10


def make_params():
    rng = np.random.default_rng(0)
    return {"layer": (rng.normal(size=(3, 2)), rng.normal(size=2)), "scale": 0.7}


def grad_of(params):
    """A nonlinear gradient field, so that every step sees a new gradient."""
    W, b = params["layer"]
    return {"layer": (0.5 * W + np.sin(3.0 * W) + 0.1, b ** 3 - 0.2), "scale": math.cos(params["scale"])}


def leaves(params):
    return [params["layer"][0], params["layer"][1], np.float64(params["scale"])]


def grads_of_leaves(ps):
    g = grad_of({"layer": (ps[0], ps[1]), "scale": float(ps[2])})
    return leaves(g)


def run(opt, steps=STEPS):
    params = make_params()
    state = opt.init(params)
    for _ in range(steps):
        params, state = opt.update(grad_of(params), state, params)
    return leaves(params), state


def assert_close(ours, reference):
    for a, b in zip(ours, reference):
        assert np.max(np.abs(np.asarray(a) - b)) <= 1e-12, (a, b)


# References: one array per leaf, each formula as its paper writes it.

def sgd_reference(lr, weight_decay=0.0, lr_at=None):
    theta = leaves(make_params())
    for t in range(STEPS):
        eta = lr if lr_at is None else lr_at(t)
        theta = [p - eta * (g + weight_decay * p) for p, g in zip(theta, grads_of_leaves(theta))]
    return theta


def heavy_ball_reference(eps, mu):
    """Polyak's momentum as Sutskever et al. (2013) eq. (1)-(2) write it."""
    theta = leaves(make_params())
    v = [np.zeros_like(p) for p in theta]
    for _ in range(STEPS):
        v = [mu * vi - eps * g for vi, g in zip(v, grads_of_leaves(theta))]
        theta = [p + vi for p, vi in zip(theta, v)]
    return theta


def nesterov_reference(eps, mu):
    """Nesterov's accelerated gradient, Sutskever et al. (2013) eq. (3)-(4): the gradient is
    taken at the look-ahead point θ + μv.  The optimizer holds that look-ahead point."""
    theta = leaves(make_params())
    v = [np.zeros_like(p) for p in theta]
    for _ in range(STEPS):
        ahead = [p + mu * vi for p, vi in zip(theta, v)]
        v = [mu * vi - eps * g for vi, g in zip(v, grads_of_leaves(ahead))]
        theta = [p + vi for p, vi in zip(theta, v)]
    return [p + mu * vi for p, vi in zip(theta, v)]


def adam_reference(alpha, beta1, beta2, epsilon, l2=0.0, decoupled=0.0, alpha_at=None):
    """Kingma & Ba (2015), Algorithm 1; ``l2`` adds λθ to the gradient and ``decoupled``
    subtracts λθ from the step, as Loshchilov & Hutter (2019), Algorithm 2 (η_t = 1)."""
    theta = leaves(make_params())
    m = [np.zeros_like(p) for p in theta]
    v = [np.zeros_like(p) for p in theta]
    for t in range(1, STEPS + 1):
        a = alpha if alpha_at is None else alpha_at(t - 1)
        g = [gi + l2 * p for gi, p in zip(grads_of_leaves(theta), theta)]
        m = [beta1 * mi + (1 - beta1) * gi for mi, gi in zip(m, g)]
        v = [beta2 * vi + (1 - beta2) * gi ** 2 for vi, gi in zip(v, g)]
        m_hat = [mi / (1 - beta1 ** t) for mi in m]
        v_hat = [vi / (1 - beta2 ** t) for vi in v]
        theta = [p - (a * mh / (np.sqrt(vh) + epsilon) + decoupled * p)
                 for p, mh, vh in zip(theta, m_hat, v_hat)]
    return theta


def test_sgd_matches_the_formula():
    assert_close(run(optim.sgd(0.1, backend="python"))[0], sgd_reference(0.1))


def test_sgd_with_weight_decay_matches_the_formula():
    assert_close(run(optim.sgd(0.1, weight_decay=0.05, backend="python"))[0], sgd_reference(0.1, 0.05))


def test_momentum_matches_polyak_heavy_ball():
    assert_close(run(optim.momentum(0.05, beta=0.9, backend="python"))[0], heavy_ball_reference(0.05, 0.9))


def test_nesterov_matches_sutskever_nag():
    assert_close(run(optim.momentum(0.05, beta=0.9, nesterov=True, backend="python"))[0],
                 nesterov_reference(0.05, 0.9))


def test_adam_matches_kingma_ba_algorithm_1():
    ours, state = run(optim.adam(0.01, b1=0.8, b2=0.99, eps=1e-6, backend="python"))
    assert_close(ours, adam_reference(0.01, 0.8, 0.99, 1e-6))
    assert state.count == STEPS


def test_adam_l2_weight_decay_matches_the_formula():
    ours, _ = run(optim.adam(0.01, weight_decay=0.1, backend="python"))
    assert_close(ours, adam_reference(0.01, 0.9, 0.999, 1e-8, l2=0.1))


def test_adamw_matches_loshchilov_hutter_algorithm_2():
    # The decay is multiplied by lr (optax, PyTorch): the paper's λ is lr * weight_decay.
    ours, _ = run(optim.adamw(0.01, weight_decay=0.1, backend="python"))
    assert_close(ours, adam_reference(0.01, 0.9, 0.999, 1e-8, decoupled=0.01 * 0.1))


def test_adam_with_a_schedule_uses_the_rate_of_each_step():
    schedule = optim.linear_warmup(0.02, 4, then=optim.cosine_decay(0.02, 6))
    ours, _ = run(optim.adam(schedule, backend="python"))
    assert_close(ours, adam_reference(0.02, 0.9, 0.999, 1e-8, alpha_at=schedule))
    assert_close(run(optim.sgd(schedule, backend="python"))[0], sgd_reference(0.0, lr_at=schedule))


# After 3 steps, from PyTorch 2.13.0 (CPU), produced by
#   w = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
#   opt = torch.optim.Adam([w], lr=0.1, betas=(0.9, 0.999), eps=1e-8)
#   opt = torch.optim.AdamW([w], lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.5)
#   opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
#   for _ in range(3): opt.zero_grad(); (w ** 4 / 4 + w).sum().backward(); opt.step()
#   print(w.tolist())
TORCH = {
    "adam": [0.2005705729380095, -1.2075784347830651, 1.7021435202264865],
    "adamw": [0.14409322725139523, -1.0208220542916036, 1.435288035842711],
    "nesterov": [-0.35667115701274327, -0.7187343018398479, -1.5192201171905066],
}
MAKE = {
    "adam": lambda: optim.adam(0.1, backend="python"),
    "adamw": lambda: optim.adamw(0.1, weight_decay=0.5, backend="python"),
    "nesterov": lambda: optim.momentum(0.1, beta=0.9, nesterov=True, weight_decay=0.01, backend="python"),
}


@pytest.mark.parametrize("name", sorted(TORCH))
def test_matches_pytorch(name):
    opt = MAKE[name]()
    w = np.array([0.5, -1.5, 2.0])
    state = opt.init(w)
    for _ in range(3):
        w, state = opt.update(w ** 3 + 1.0, state, w)
    np.testing.assert_allclose(w, TORCH[name], rtol=0, atol=1e-14)


NUMBA_CASES = {
    "adam": lambda b: optim.adam(0.01, clip_norm=1.0, backend=b),
    "sgd": lambda b: optim.sgd(0.1, weight_decay=0.01, clip_norm=1.0, backend=b),
    "nesterov": lambda b: optim.momentum(0.05, nesterov=True, backend=b),
    "adamw": lambda b: optim.adamw(optim.cosine_decay(0.01, 10), backend=b),
}


# Numba compiles each update in a few seconds: Adam (used by examples/train_digits.py) in
# `make test`, the others in `make test-slow`.
@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n == "adam" else pytest.mark.slow)
                                  for n in NUMBA_CASES])
def test_numba_agrees_with_python(name):
    make = NUMBA_CASES[name]
    assert_close(run(make("numba"))[0], run(make("python"))[0])


def test_ema_matches_the_formula():
    ema = optim.ema(0.9, backend="python")
    params = make_params()
    state = ema.init(params)
    reference = leaves(params)
    for _ in range(STEPS):
        params = {"layer": tuple(p - 0.1 * g for p, g in zip(params["layer"], grad_of(params)["layer"])),
                  "scale": params["scale"] * 0.9}
        state = ema.update(params, state)
        reference = [0.9 * a + 0.1 * p for a, p in zip(reference, leaves(params))]
    assert state.count == STEPS
    assert_close(leaves(state.average), reference)


def test_clip_by_global_norm():
    g = grad_of(make_params())
    norm = np.sqrt(sum(np.sum(np.square(x)) for x in leaves(g)))
    assert abs(optim.global_norm(g, backend="python") - norm) <= 1e-12
    clipped = optim.clip_by_global_norm(g, 0.5, backend="python")
    assert_close(leaves(clipped), [x * 0.5 / norm for x in leaves(g)])
    assert abs(optim.global_norm(clipped, backend="python") - 0.5) <= 1e-12
    same = optim.clip_by_global_norm(g, 2 * norm, backend="python")
    assert_close(leaves(same), leaves(g))


def test_clip_norm_clips_before_the_update():
    ours, _ = run(optim.sgd(0.1, clip_norm=0.5, backend="python"), steps=1)
    g = leaves(grad_of(make_params()))
    norm = np.sqrt(sum(np.sum(np.square(x)) for x in g))
    assert_close(ours, [p - 0.1 * x * 0.5 / norm for p, x in zip(leaves(make_params()), g)])


def test_schedules_follow_their_formulas():
    warm = optim.linear_warmup(1.0, 10, init=0.1)
    assert [warm(k) for k in (0, 5, 10, 50)] == [0.1, 0.1 + 0.9 * 0.5, 1.0, 1.0]
    cos = optim.cosine_decay(2.0, 100, alpha=0.1)
    for k in (0, 30, 100, 150):
        assert abs(cos(k) - 2.0 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(k, 100) / 100)) + 0.1)) <= 1e-15
    step = optim.step_decay(1.0, 3, gamma=0.5)
    assert [step(k) for k in range(7)] == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25]
    assert optim.constant(0.3)(123) == 0.3
    with pytest.raises(ValueError, match="decay_steps must be a positive int"):
        optim.cosine_decay(1.0, 0)


RATE = optim.linear_warmup(1.0, 4, then=optim.step_decay(1.0, 2, gamma=0.5))


def rate_at(count):
    return RATE(count)


def test_schedules_compile_inside_sstad_jit():
    compiled = sstad.jit(rate_at, backend="python")
    assert [compiled(k) for k in range(9)] == [rate_at(k) for k in range(9)]


def test_state_has_named_leaves_shaped_like_the_params():
    params = make_params()
    state = optim.adam(backend="python").init(params)
    assert state._fields == ("count", "mu", "nu") and state.count == 0
    assert state.mu["layer"][0].shape == (3, 2) and state.nu["scale"] == 0.0
    assert optim.momentum(0.1, backend="python").init(params)._fields == ("count", "velocity")
    assert optim.sgd(0.1, backend="python").init(params)._fields == ("count",)


def test_float32_params_stay_float32():
    opt = optim.adam(0.1, backend="python")
    w = np.ones(3, np.float32)
    state = opt.init(w)
    w, state = opt.update(np.full(3, 0.5, np.float32), state, w)
    assert w.dtype == state.mu.dtype == state.nu.dtype == np.float32


def test_bad_input_gives_clear_errors():
    opt = optim.adam(backend="python")
    params = make_params()
    state = opt.init(params)
    with pytest.raises(ValueError, match="grads does not have the structure of the params"):
        opt.update({"layer": params["layer"]}, state, params)
    with pytest.raises(TypeError, match="adam expects its own state"):
        opt.update(grad_of(params), optim.sgd(0.1).init(params), params)
    with pytest.raises(TypeError, match="an optimizer updates floating-point leaves only"):
        opt.init({"w": np.ones(2), "n": 3})
    with pytest.raises(ValueError, match="weight_decay must be a finite number"):
        optim.sgd(0.1, weight_decay=-1.0)
    with pytest.raises(ValueError, match="clip_norm must be > 0"):
        optim.adam(clip_norm=0.0)
