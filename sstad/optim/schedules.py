"""Learning-rate schedules: functions of the step count (the number of updates done).

Each is plain Python over numbers, so it runs on the host (the optimizers call it once per
step) and also compiles inside your own ``sstad.jit`` functions.  Compose them with
``then``: ``linear_warmup(1e-3, 100, then=cosine_decay(1e-3, 900))``.
"""
import math


def constant(value):
    """``value`` at every step.

    >>> constant(0.1)(1000)
    0.1
    """
    value = float(value)

    def schedule(count):
        return value
    return schedule


def linear_warmup(peak, warmup_steps, then=None, init=0.0):
    """From ``init`` to ``peak`` linearly over ``warmup_steps`` steps, then ``then(count -
    warmup_steps)`` (or ``peak`` if ``then`` is None).

    >>> s = linear_warmup(1.0, 4)
    >>> [s(k) for k in range(6)]
    [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
    """
    _positive(warmup_steps, "warmup_steps")
    peak, init = float(peak), float(init)

    def schedule(count):
        if count < warmup_steps:
            return init + (peak - init) * count / warmup_steps
        if then is None:
            return peak
        return then(count - warmup_steps)
    return schedule


def cosine_decay(init, decay_steps, alpha=0.0):
    """Half a cosine from ``init`` down to ``alpha * init`` over ``decay_steps`` steps, then
    constant (Loshchilov & Hutter's SGDR without restarts; optax's ``cosine_decay_schedule``).

    >>> s = cosine_decay(1.0, 10)
    >>> s(0), s(5), s(10), s(20)
    (1.0, 0.5, 0.0, 0.0)
    """
    _positive(decay_steps, "decay_steps")
    init, alpha = float(init), float(alpha)

    def schedule(count):
        t = min(count, decay_steps) / decay_steps
        return init * ((1.0 - alpha) * 0.5 * (1.0 + math.cos(math.pi * t)) + alpha)
    return schedule


def step_decay(init, step_size, gamma=0.1):
    """``init`` multiplied by ``gamma`` every ``step_size`` steps (PyTorch's ``StepLR``).

    >>> s = step_decay(1.0, 10, gamma=0.5)
    >>> s(9), s(10), s(25)
    (1.0, 0.5, 0.25)
    """
    _positive(step_size, "step_size")
    init, gamma = float(init), float(gamma)

    def schedule(count):
        return init * gamma ** (count // step_size)
    return schedule


def _positive(n, name):
    if not (isinstance(n, int) and n > 0):
        raise ValueError(f"{name} must be a positive int, not {n!r}")
