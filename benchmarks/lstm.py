"""ADBench LSTM: a diagonal (element-wise) LSTM language-model loss (see the data README).

`lstm_objective` is the user's NumPy code: loops over time and layers, the state updated in
place. sstad compiles and differentiates exactly this function. PyTorch and autograd run
`lstm_functional` (the same loops, the state kept in a list instead of written in place,
since neither differentiates in-place writes); JAX runs `lstm_jax`, a `lax.scan` over time
(a Python loop would be unrolled 1023 times at trace time).
"""
import adbench
import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_objective(main_params, extra_params, state, sequence):
    layers = state.shape[0] // 2
    b = state.shape[1]
    c = sequence.shape[0]
    state = state.copy()
    total = 0.0
    for t in range(c - 1):
        x = sequence[t] * extra_params[0]
        for i in range(layers):
            w = main_params[2 * i]
            bias = main_params[2 * i + 1]
            h = state[2 * i]
            s = state[2 * i + 1]
            forget = sigmoid(x * w[:b] + bias[:b])
            ingate = sigmoid(h * w[b:2 * b] + bias[b:2 * b])
            outgate = sigmoid(x * w[2 * b:3 * b] + bias[2 * b:3 * b])
            change = np.tanh(h * w[3 * b:] + bias[3 * b:])
            s = s * forget + ingate * change
            h = outgate * np.tanh(s)
            state[2 * i] = h
            state[2 * i + 1] = s
            x = h
        y = x * extra_params[1] + extra_params[2]
        ynorm = y - np.log(2.0 + np.sum(np.exp(y)))
        total = total + np.sum(sequence[t + 1] * ynorm)
    return -total / ((c - 1) * b)


def _cell(xp, x, w, bias, h, s, b):
    forget = 1.0 / (1.0 + xp.exp(-(x * w[:b] + bias[:b])))
    ingate = 1.0 / (1.0 + xp.exp(-(h * w[b:2 * b] + bias[b:2 * b])))
    outgate = 1.0 / (1.0 + xp.exp(-(x * w[2 * b:3 * b] + bias[2 * b:3 * b])))
    change = xp.tanh(h * w[3 * b:] + bias[3 * b:])
    s = s * forget + ingate * change
    return outgate * xp.tanh(s), s


def lstm_functional(ops, main_params, extra_params, state, sequence):
    """PyTorch / autograd version: the same loops, the state in a list."""
    xp = ops.xp
    layers, b, c = state.shape[0] // 2, state.shape[1], sequence.shape[0]
    hs = [state[2 * i] for i in range(layers)]
    ss = [state[2 * i + 1] for i in range(layers)]
    total = 0.0
    for t in range(c - 1):
        x = sequence[t] * extra_params[0]
        for i in range(layers):
            hs[i], ss[i] = _cell(xp, x, main_params[2 * i], main_params[2 * i + 1], hs[i], ss[i], b)
            x = hs[i]
        y = x * extra_params[1] + extra_params[2]
        ynorm = y - xp.log(2.0 + xp.sum(xp.exp(y)))
        total = total + xp.sum(sequence[t + 1] * ynorm)
    return -total / ((c - 1) * b)


def lstm_jax(ops, main_params, extra_params, state, sequence):
    """JAX version: lax.scan over time, a Python loop over layers (unrolled)."""
    jnp, lax = ops.xp, ops.jax.lax
    layers, b, c = state.shape[0] // 2, state.shape[1], sequence.shape[0]

    def step(carry, xs):
        st, total = carry
        cur, nxt = xs
        x = cur * extra_params[0]
        new = []
        for i in range(layers):
            h, s = _cell(jnp, x, main_params[2 * i], main_params[2 * i + 1], st[2 * i],
                         st[2 * i + 1], b)
            new += [h, s]
            x = h
        y = x * extra_params[1] + extra_params[2]
        ynorm = y - jnp.log(2.0 + jnp.sum(jnp.exp(y)))
        return (jnp.stack(new), total + jnp.sum(nxt * ynorm)), None

    (_, total), _ = lax.scan(step, (state, jnp.float64(0.0)), (sequence[:-1], sequence[1:]))
    return -total / ((c - 1) * b)


def l2_reference():
    main, extra, _, _ = adbench.load_lstm("lstm/lstm_l2_c1024.txt")
    flat = adbench.load_vector("lstm/lstm_l2_c1024_ref_grad.txt")
    grads = (flat[:main.size].reshape(main.shape), flat[main.size:].reshape(extra.shape))
    return adbench.LSTM_L2_C1024_LOSS, grads


def check_lstm_reference(backend="numba"):
    """sstad's loss and gradient on lstm_l2_c1024 against the ADBench reference (8-digit loss,
    266 gradient values); raises AssertionError on a mismatch."""
    import sstad
    args = adbench.load_lstm("lstm/lstm_l2_c1024.txt")
    loss = sstad.jit(lstm_objective, backend=backend)(*args)
    assert abs(loss - adbench.LSTM_L2_C1024_LOSS) < 1e-8, loss
    grads = sstad.jit(sstad.grad(lstm_objective, argnums=(0, 1)), backend=backend)(*args)
    flat = np.concatenate([np.ravel(g) for g in grads])
    ref = adbench.load_vector("lstm/lstm_l2_c1024_ref_grad.txt")
    assert flat.shape == ref.shape, flat.shape
    np.testing.assert_allclose(flat, ref, rtol=1e-7, atol=1e-12)


def cases():
    from peers import Case
    out = []
    for name, rel, quick in (("lstm l2 c1024", "lstm/lstm_l2_c1024.txt", True),
                             ("lstm l4 c1024", "lstm/lstm_l4_c1024.txt", False)):
        out.append(Case(
            name=name, objective=lstm_objective, args=adbench.load_lstm(rel), argnums=(0, 1),
            jax=lstm_jax, torch=lstm_functional, autograd=lstm_functional,
            reference=l2_reference if "l2" in rel else None,
            reference_note="ADBench reference gradient (lstm_l2_c1024_ref_grad.txt)",
            quick=quick, slow_peers=("sstad-python",)))
    return out
