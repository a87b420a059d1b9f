"""sstad demo: compile a NumPy RK4 integrator, check it against plain Python, show the IR,
the emitted Python and the speed-up; then differentiate it in reverse mode, through its
data-dependent `while` loop, and check the gradient against finite differences.

    python examples/demo.py
    sstad dump examples/demo.py:pendulum --args "0.5, 0.0, 0.1, 1e-3, 10.0" --emit python
"""
import statistics
import time

import numpy as np

import sstad


def rhs(theta, omega, damping):
    """Damped pendulum, theta'' = -sin(theta) - damping * theta'."""
    return omega, -np.sin(theta) - damping * omega


def pendulum(theta0, omega0, damping, dt, t_end):
    """Integrate the damped pendulum with RK4 from t = 0 to t_end.

    Returns the final angle, the final angular velocity and how many times the pendulum
    swung through the bottom (theta changed sign).
    """
    t = 0.0
    theta = theta0
    omega = omega0
    crossings = 0
    while t < t_end:
        k1t, k1w = rhs(theta, omega, damping)
        k2t, k2w = rhs(theta + 0.5 * dt * k1t, omega + 0.5 * dt * k1w, damping)
        k3t, k3w = rhs(theta + 0.5 * dt * k2t, omega + 0.5 * dt * k2w, damping)
        k4t, k4w = rhs(theta + dt * k3t, omega + dt * k3w, damping)
        new_theta = theta + dt / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t)
        omega = omega + dt / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
        if new_theta * theta < 0.0:
            crossings = crossings + 1
        theta = new_theta
        t = t + dt
    return theta, omega, crossings


def final_angle(damping, theta0):
    """The quantity to differentiate: where the pendulum ends up."""
    theta, omega, crossings = pendulum(theta0, 0.0, damping, 1e-3, 5.0)
    return theta


def median_seconds(f, args, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    args = (2.0, 0.0, 0.05, 1e-3, 20.0)
    runners = {
        "plain Python": pendulum,
        "sstad python backend": sstad.jit(pendulum, backend="python"),
        "sstad numba backend": sstad.jit(pendulum, backend="numba"),
    }

    expected = pendulum(*args)
    for name, f in runners.items():
        got = f(*args)  # the first call also compiles; it is not timed
        assert np.allclose(got[:2], expected[:2]) and got[2] == expected[2], (name, got, expected)
    theta, omega, crossings = expected
    print(f"pendulum{args}: theta {theta:.6f}, omega {omega:.6f}, {crossings} crossings"
          " (all runners agree)\n")

    print("---- IR ----")
    print(sstad.dump(pendulum, *args, emit="ir"))
    print("---- emitted Python ----")
    print(sstad.dump(pendulum, *args, emit="python"))

    print("---- time per call (median of 5, compile excluded) ----")
    base = median_seconds(pendulum, args)
    for name, f in runners.items():
        seconds = base if f is pendulum else median_seconds(f, args)
        print(f"{name:<22} {seconds * 1e3:10.3f} ms {base / seconds:8.1f}x")

    print("\n---- reverse mode through the while loop ----")
    point = (0.05, 2.0)
    grad = sstad.jit(sstad.grad(final_angle, argnums=(0, 1)))
    d_damping, d_theta0 = grad(*point)
    eps = 1e-6
    fd_damping = (final_angle(point[0] + eps, point[1]) - final_angle(point[0] - eps, point[1])) / (2 * eps)
    fd_theta0 = (final_angle(point[0], point[1] + eps) - final_angle(point[0], point[1] - eps)) / (2 * eps)
    print(f"d theta / d damping = {d_damping:.8f}   (finite differences: {fd_damping:.8f})")
    print(f"d theta / d theta0  = {d_theta0:.8f}   (finite differences: {fd_theta0:.8f})")
    assert np.allclose([d_damping, d_theta0], [fd_damping, fd_theta0], rtol=1e-5)
    f = sstad.jit(final_angle)
    tf, tg = median_seconds(f, point), median_seconds(grad, point)
    print(f"function {tf * 1e3:.3f} ms, gradient {tg * 1e3:.3f} ms: grad/f = {tg / tf:.1f}")

    print("\n---- forward mode and second order through the same loop ----")
    _, along_damping = sstad.jit(sstad.pushforward(final_angle))(*point, 1.0, 0.0)
    print(f"jvp along damping   = {along_damping:.8f}   (reverse mode: {d_damping:.8f})")
    hessian = sstad.hessian(final_angle, argnums=0, backend="numba")(*point)
    fd_second = (grad(point[0] + eps, point[1])[0] - grad(point[0] - eps, point[1])[0]) / (2 * eps)
    print(f"d2 theta / d damping2 = {float(hessian):.6f}   (differences of the gradient: {fd_second:.6f})")
    assert np.isclose(along_damping, d_damping, rtol=1e-10) and np.isclose(hessian, fd_second, rtol=1e-4)


if __name__ == "__main__":
    main()
