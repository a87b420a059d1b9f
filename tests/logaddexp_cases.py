"""Log-space recursions through states that are still at -inf (tests/test_logaddexp_infinities.py)."""
import numpy as np


def unreachable_state(x):
    a = -np.inf + x[0]              # a forward variable of a state not yet reachable
    b = np.logaddexp(a, a)          # -inf as well
    return np.logaddexp(b, x[1])


def forward_algorithm(log_emissions):
    """Three left-to-right states that start in the first: the others are -inf at first."""
    T, S = log_emissions.shape
    alpha = np.full(S, -np.inf)
    alpha[0] = log_emissions[0, 0]
    for t in range(1, T):
        stay = alpha + np.log(0.6)
        move = np.concatenate(([-np.inf], alpha[:-1])) + np.log(0.4)
        alpha = np.logaddexp(stay, move) + log_emissions[t]
    return alpha[-1]

