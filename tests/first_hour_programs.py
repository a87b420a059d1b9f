"""Programs a NumPy user writes in the first hour with sstad: tutorial models ported as they
stand, the call forms JAX users reach for, and the usual mistakes.  tests/test_first_hour.py
checks them (values against NumPy, derivatives against finite differences, errors)."""
import functools

import numpy as np

import sstad


# --- tutorial models -------------------------------------------------------------------

def softmax_cross_entropy(logits, labels):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * log_probs, axis=1))


def mlp_loss(params, x, labels):
    h = np.tanh(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    return softmax_cross_entropy(logits, labels)


def ridge_loss(w, b, X, y, lam=0.1):
    r = X @ w + b - y
    return np.mean(r ** 2) + lam * np.sum(w ** 2)


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1.0 - y) * np.log(1.0 - p + eps))


def train_logistic(X, y, steps, lr):
    """Gradient descent in a Python loop calling the compiled gradient (not compiled)."""
    grad_fn = sstad.jit(sstad.grad(logistic_loss))
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        w = w - lr * grad_fn(w, X, y)
    return w


def falling_ball(v0, drag, tol):
    """Height reached by a ball thrown up with drag, integrated until the speed is tiny."""
    dt = 1e-3
    v, h = v0, 0.0
    while v > tol:
        v = v - dt * (9.81 + drag * v * v)
        h = h + dt * v
    return h


def relax(x, tol):
    """Jacobi relaxation of a 1-d Laplace problem to a tolerance, at most 500 sweeps (with
    tol=0 it always runs 500: the trip count does not change within a finite difference)."""
    u = x.copy()
    err = 1.0
    it = 0
    while err > tol and it < 500:
        new = u.copy()
        new[1:-1] = 0.5 * (u[:-2] + u[2:])
        err = np.max(np.abs(new - u))
        u = new
        it += 1
    return np.sum(u * x)


def falling_ball_to_rest(v0, drag):
    return falling_ball(v0, drag, 1e-3)


def relax_500_sweeps(x):
    return relax(x, 0.0)


# --- call forms --------------------------------------------------------------------------

def with_defaults(x, scale=2.0, shift=0.5):
    return np.sum(np.sin(scale * x + shift))


def three_args(a, b, c):
    return np.sum(a * b ** 2) + np.sum(np.cos(c) * a)


def loss_with_aux(w, x):
    pred = np.tanh(x @ w)
    loss = np.sum(pred ** 2)
    return loss, {"pred": pred, "norm": np.sqrt(np.sum(w ** 2))}


def returns_tuple(x):
    return np.sum(x ** 2), np.prod(x)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, w, x):
        return np.sum((x @ w) ** 2) * self.scale


CONFIG = {"lam": 0.3, "power": 3}


def make_closure_loss(config):
    def loss(w):
        return np.sum(np.abs(w) ** config["power"]) * config["lam"]
    return loss


def closure_over_global_config(w):
    return np.sum(w ** CONFIG["power"]) * CONFIG["lam"]


def scaled_loss(w, x, scale):
    return scale * np.sum(np.sin(w * x))


partial_loss = functools.partial(scaled_loss, scale=3.0)


square_sum = lambda x: np.sum(x ** 2)  # noqa: E731 (what users write)


def noisy_loss(w, rng):
    noise = rng.normal(size=w.shape)
    return np.sum((w + noise) ** 2)


def noise_given(w, noise):
    return np.sum((w + noise) ** 2)


def power_int(x, n):
    return np.sum(x ** n)


def indexed_by_int(x, i):
    return x[i] ** 2 + np.sum(x)


def scalar_fn(x):
    return x ** 3 + np.sin(x)


def sum_of_list(xs):
    s = 0.0
    for x in xs:
        s = s + np.sum(x ** 2)
    return s


def energy(x):
    return np.sum(x ** 4) + np.sum(x[:-1] * x[1:])


def vector_fn(x):
    return np.array([x[0] * x[1], np.sin(x[2]), x[0] ** 2])


def elementwise_fn(x):
    return np.tanh(x) * x


def hvp_by_nested_grad(x, v):
    g = sstad.grad(energy)
    return sstad.jvp(g, (x,), (v,))[1]


# --- mistakes ------------------------------------------------------------------------------

def vector_output(x):
    return np.sin(x)


def shape_mismatch(x):
    return np.sum(x + np.ones(4))


def matmul_mismatch(W, x):
    return np.sum(W @ x)


def doubled_then_mismatched(x, y):
    x *= 2.0
    return np.sum(x + y)


def uses_try(x):
    try:
        y = np.log(x)
    except ValueError:
        y = x
    return np.sum(y)


def uses_generator(x):
    return sum(v * v for v in x)


def uses_yield(x):
    for v in x:
        yield v


COUNTER = 1.0


def reads_mutable_global(x):
    return np.sum(x) * COUNTER


def prints_inside(x):
    print("x is", x)
    return np.sum(x ** 2)


def sums_list_argument(x):
    return np.sum(x * 2.0)


def array_method_on_list(x):
    return x.sum()


def cube(x):
    return x ** 3


def hvp_inside(x, v):
    return sstad.jvp(sstad.grad(energy), (x,), (v,))[1]


def hvp_by_name_inside(x, v):
    return sstad.hvp(energy, (x,), (v,))


def directional_inside(x, v):
    out, slope = sstad.jvp(energy, (x,), (v,))
    return out + 2.0 * slope


def keyword_only(x, *, scale=2.0):
    return np.sum(scale * x ** 2)


def noise_of_constant_size(w, rng):
    return np.sum((w + rng.normal(size=3)) ** 2)


def noise_of_a_seeded_generator(w):
    rng = np.random.default_rng(7)
    return np.sum((w + rng.normal(size=3)) ** 2)


def noise_of_numpys_global_generator(w):
    return np.sum((w + np.random.normal(size=3)) ** 2)


def noisy_steps(w, rng):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(w * rng.normal(size=w.shape)))
    return s


def noisy_steps_given(w, noise):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(w * noise[i]))
    return s


MODEL = Model(2.0)


def calls_a_global_models_method(w, x):
    return MODEL.loss(w, x)


def calls_an_argument_models_method(model, w, x):
    return model.loss(w, x)


def numpy_of_a_list(x):
    return np.sum(np.sin(x)) + np.mean(np.asarray(x) ** 2)


def sin_of_a_list(x):
    return np.sum(np.sin(x))


def star_args(x, scale=1.0, *rest):
    s = scale * np.sum(x ** 2)
    for r in rest:
        s = s + np.sum(r * x)
    return s
