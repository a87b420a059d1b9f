"""Loop-heavy scalar code: classical RK4 written the way a user writes it, with plain Python
floats, tuple-returning helpers and `for` loops."""


def lorenz_rhs(x, y, z):
    sigma = 10.0
    rho = 28.0
    beta = 8.0 / 3.0
    return sigma * (y - x), x * (rho - z) - y, x * y - beta * z


def lorenz(x, y, z, dt, n):
    """n RK4 steps of the Lorenz system; returns the final state."""
    for i in range(n):
        k1x, k1y, k1z = lorenz_rhs(x, y, z)
        k2x, k2y, k2z = lorenz_rhs(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, z + 0.5 * dt * k1z)
        k3x, k3y, k3z = lorenz_rhs(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, z + 0.5 * dt * k2z)
        k4x, k4y, k4z = lorenz_rhs(x + dt * k3x, y + dt * k3y, z + dt * k3z)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
        z = z + dt / 6.0 * (k1z + 2.0 * k2z + 2.0 * k3z + k4z)
    return x, y, z


def cases():
    # Lorenz is chaotic: 20 time units keep any rounding difference far below the check's
    # tolerance while leaving enough work to time.
    return [("rk4.lorenz", lorenz, (1.0, 1.0, 1.0, 1e-3, 20_000))]
