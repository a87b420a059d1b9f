"""Train an MLP on the handwritten digits that ship with scikit-learn (8x8 images, 10
classes, no download), in plain NumPy: gradients by sstad.jit(sstad.value_and_grad(loss))
on the numba backend, Adam with a warmup and cosine schedule, a checkpoint each epoch
(--resume continues from the latest one, exactly), a progress bar and a plot of the loss
and accuracy curves.

    make train                                   # installs the `train` extra, then runs this
    python examples/train_digits.py --epochs 40 --out build/train_digits
    python examples/train_digits.py --resume     # continue from the latest checkpoint
    python examples/train_digits.py --precision float16

--precision float16 computes the forward and backward passes in float16 (the loss in
float32, as autocast does) with dynamic loss scaling, keeping float32 master weights.
Numba has no float16 on the CPU, so that pass runs on sstad's python backend.
"""
import argparse
import os
import time
import warnings

import numpy as np
from numba.core.errors import NumbaPerformanceWarning

import sstad
from sstad import checkpoint, optim


def forward(params, x):
    """The logits of a ReLU MLP; ``params`` is a list of layers ``{"W": ..., "b": ...}``."""
    h = x
    for layer in params[:-1]:
        h = np.maximum(h @ layer["W"] + layer["b"], 0.0)
    return h @ params[-1]["W"] + params[-1]["b"]


def cross_entropy(logits, onehot):
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_p = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(log_p * onehot) / logits.shape[0]


def loss(params, x, onehot, scale):
    """The mean cross-entropy times ``scale`` (the loss scale; 1 in float32).  The softmax
    runs in float32 whatever the compute dtype."""
    return cross_entropy(forward(params, x).astype(np.float32), onehot) * scale


def evaluate(params, x, onehot, labels):
    logits = forward(params, x).astype(np.float32)
    return cross_entropy(logits, onehot), np.mean(np.argmax(logits, axis=1) == labels)


def load_data(seed=0):
    """Pixels scaled to [0, 1] and one-hot labels, split 80/20 (stratified)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(x, digits.target, test_size=0.2,
                                                        stratify=digits.target, random_state=seed)
    onehot = np.eye(10, dtype=np.float32)
    return (x_train, onehot[y_train], y_train), (x_test, onehot[y_test], y_test)


def init_params(rng, sizes):
    """He-initialised layers, float32."""
    return [{"W": (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
             "b": np.zeros(n_out, np.float32)} for n_in, n_out in zip(sizes[:-1], sizes[1:])]


class Progress:
    """tqdm when it is installed, one line per epoch otherwise."""

    def __init__(self, total, initial, enabled):
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        self.bar = tqdm(total=total, initial=initial, unit="step") if enabled and tqdm else None
        self.enabled = enabled

    def step(self):
        if self.bar is not None:
            self.bar.update()

    def epoch(self, epoch, record):
        text = f"loss {record['train_loss']:.4f}  test loss {record['test_loss']:.4f}  " \
               f"test accuracy {100 * record['test_accuracy']:.2f}%"
        if self.bar is not None:
            self.bar.set_description(f"epoch {epoch}")
            self.bar.set_postfix_str(text)
        elif self.enabled:
            print(f"epoch {epoch:3d}  {text}", flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def train(epochs=40, batch_size=64, hidden=(128,), lr=3e-3, precision="float32", seed=0,
          checkpoint_dir=None, resume=False, backend="numba", progress=True, data=None):
    """Train and return ``{"params", "opt_state", "history", "test_accuracy", "seconds"}``;
    ``history`` has one record per epoch.  With ``checkpoint_dir`` a checkpoint is saved
    each epoch (parameters, optimizer state, history and the shuffling RNG); ``resume``
    continues from the latest one, giving bitwise the same result as an uninterrupted run.
    ``data``: ``(train, test)`` as :func:`load_data` returns them (the digits by default)."""
    start = time.perf_counter()
    (x_train, y_train, labels_train), (x_test, y_test, labels_test) = data or load_data()
    rng = np.random.default_rng(seed)
    params = init_params(rng, (x_train.shape[1], *hidden, y_train.shape[1]))
    steps_per_epoch = -(-len(x_train) // batch_size)
    schedule = optim.linear_warmup(lr, steps_per_epoch,
                                   then=optim.cosine_decay(lr, max(1, (epochs - 1) * steps_per_epoch)))
    opt = optim.adam(schedule, backend=backend)
    if precision == "float16":
        opt = optim.mixed_precision(opt, "float16")
        cast, loss_scale, compute_backend = opt.cast, (lambda state: state.loss_scale), "python"
    else:
        cast, loss_scale, compute_backend = (lambda p: p), (lambda state: 1.0), backend
    x_train, x_test = x_train.astype(precision), x_test.astype(precision)
    value_and_grad = sstad.jit(sstad.value_and_grad(loss), backend=compute_backend)
    measure = sstad.jit(evaluate, backend=compute_backend)
    state, history, first_epoch = opt.init(params), [], 0

    manager = checkpoint.CheckpointManager(checkpoint_dir, keep_max=3) if checkpoint_dir else None
    if resume and manager is not None and manager.latest() is not None:
        saved = manager.restore(like=checkpoint.Checkpoint(params, state))
        params, state, history = saved.params, saved.opt_state, saved.meta["history"]
        rng, first_epoch = checkpoint.rng_from_state(saved.meta["rng"]), saved.meta["epoch"]

    bar = Progress(epochs * steps_per_epoch, first_epoch * steps_per_epoch, progress)
    for epoch in range(first_epoch, epochs):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), batch_size):
            batch = order[i:i + batch_size]
            _, grads = value_and_grad(cast(params), x_train[batch], y_train[batch], loss_scale(state))
            params, state = opt.update(grads, state, params)
            bar.step()
        compute = cast(params)
        train_loss, train_accuracy = measure(compute, x_train, y_train, labels_train)
        test_loss, test_accuracy = measure(compute, x_test, y_test, labels_test)
        history.append({"epoch": epoch + 1, "train_loss": float(train_loss), "test_loss": float(test_loss),
                        "train_accuracy": float(train_accuracy), "test_accuracy": float(test_accuracy)})
        bar.epoch(epoch + 1, history[-1])
        if manager is not None:
            manager.save(epoch + 1, params, state, meta={"epoch": epoch + 1, "rng": rng, "history": history,
                                                         "precision": precision, "lr": lr})
    bar.close()
    if manager is not None:
        manager.close()
    return {"params": params, "opt_state": state, "history": history,
            "test_accuracy": history[-1]["test_accuracy"] if history else None,
            "seconds": time.perf_counter() - start}


def plot(history, path):
    """Train/test loss and test accuracy per epoch, written to ``path`` (a PNG)."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no plot (pip install -e '.[train]')")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [r["epoch"] for r in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, [r["train_loss"] for r in history], label="train")
    left.plot(epochs, [r["test_loss"] for r in history], label="test")
    left.set(xlabel="epoch", ylabel="cross-entropy", yscale="log", title="loss")
    left.legend()
    right.plot(epochs, [100 * r["train_accuracy"] for r in history], label="train")
    right.plot(epochs, [100 * r["test_accuracy"] for r in history], label="test")
    right.set(xlabel="epoch", ylabel="accuracy (%)", title="accuracy", ylim=(80, 100.5))
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main():
    # Numba notes that the backward matmuls take a transposed (non-contiguous) operand;
    # at these sizes it costs nothing measurable.
    warnings.filterwarnings("ignore", category=NumbaPerformanceWarning)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden", type=int, nargs="*", default=[128], help="hidden layer sizes")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument("--precision", choices=("float32", "float16"), default="float32")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="build/train_digits", help="folder for checkpoints and the plot")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --out")
    args = parser.parse_args()

    run = os.path.join(args.out, args.precision)
    result = train(args.epochs, args.batch_size, tuple(args.hidden), args.lr, args.precision, args.seed,
                   checkpoint_dir=os.path.join(run, "checkpoints"), resume=args.resume)
    last = result["history"][-1]
    print(f"{args.precision}: test accuracy {100 * last['test_accuracy']:.2f}% after {last['epoch']} epochs, "
          f"{result['seconds']:.1f} s (compilation included)")
    path = plot(result["history"], os.path.join(run, "loss.png"))
    if path:
        print(f"plot: {path}")
    print(f"checkpoints: {os.path.join(run, 'checkpoints')}")


if __name__ == "__main__":
    main()
