"""examples/train_digits.py: its training function on small synthetic data (quick, python
backend), exact resume in a new process, and the digits on the numba backend (slow)."""
import importlib.util
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_digits.py"


def example():
    spec = importlib.util.spec_from_file_location("train_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


td = example()


def blobs(seed=0, n_train=240, n_test=120, features=16, classes=4):
    """Gaussian clusters: small enough to train in a second, separable enough to learn."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(classes, features))

    def draw(n):
        labels = rng.integers(0, classes, n)
        x = (centers[labels] + 0.3 * rng.normal(size=(n, features))).astype(np.float32)
        return x, np.eye(classes, dtype=np.float32)[labels], labels
    return draw(n_train), draw(n_test)


SMALL = dict(epochs=4, batch_size=32, hidden=(16,), lr=1e-2, backend="python", progress=False)


def test_training_learns_on_small_data():
    result = td.train(data=blobs(), **SMALL)
    history = result["history"]
    assert [r["epoch"] for r in history] == [1, 2, 3, 4]
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert result["test_accuracy"] >= 0.95
    assert result["params"][0]["W"].dtype == np.float32 and result["opt_state"].count == 4 * 8


def test_float16_training_matches_float32_on_small_data():
    f32 = td.train(data=blobs(), **SMALL)
    f16 = td.train(data=blobs(), precision="float16", **SMALL)
    assert f16["params"][0]["W"].dtype == np.float32               # master weights
    assert f16["opt_state"].skipped == 0 and f16["opt_state"].inner.count == 4 * 8
    assert abs(f16["test_accuracy"] - f32["test_accuracy"]) <= 0.01


RESUME = textwrap.dedent("""
    import importlib.util, sys
    import numpy as np
    spec = importlib.util.spec_from_file_location("train_digits", sys.argv[1])
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    saved = np.load(sys.argv[3])
    data = tuple((saved[f"{s}_x"], saved[f"{s}_y"], saved[f"{s}_labels"]) for s in ("train", "test"))
    result = td.train(data=data, checkpoint_dir=sys.argv[2], resume=True, precision=sys.argv[4], **%r)
    np.savez(sys.argv[3] + ".out.npz", *[a for layer in result["params"] for a in (layer["W"], layer["b"])])
""" % SMALL)


# float16 (whose state holds Adam's and the loss scale's) in `make test`, float32 in test-slow.
@pytest.mark.parametrize("precision", [pytest.param("float32", marks=pytest.mark.slow), "float16"])
def test_resume_in_a_new_process_is_bitwise_exact(tmp_path, precision):
    data = blobs()
    full = td.train(data=data, checkpoint_dir=tmp_path / "ckpt", precision=precision, **SMALL)
    for epoch in (3, 4):                         # as if the run had died after epoch 2
        (tmp_path / "ckpt" / f"ckpt-{epoch:08d}.safetensors").unlink()
    arrays = tmp_path / "data.npz"
    np.savez(arrays, **{f"{s}_{k}": a for s, part in zip(("train", "test"), data)
                        for k, a in zip(("x", "y", "labels"), part)})
    subprocess.run([sys.executable, "-c", RESUME, str(EXAMPLE), str(tmp_path / "ckpt"), str(arrays), precision],
                   check=True, timeout=300)
    resumed = np.load(str(arrays) + ".out.npz")
    ours = [a for layer in full["params"] for a in (layer["W"], layer["b"])]
    assert len(resumed.files) == len(ours)
    for k, a in enumerate(ours):
        assert np.array_equal(resumed[f"arr_{k}"], a)


def test_the_digits_split():
    pytest.importorskip("sklearn")
    (x_train, y_train, labels_train), (x_test, _, labels_test) = td.load_data()
    assert x_train.shape == (1437, 64) and x_test.shape == (360, 64) and x_train.dtype == np.float32
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert np.array_equal(np.argmax(y_train, axis=1), labels_train)
    assert set(labels_test) == set(range(10))


def test_the_plot_is_skipped_with_a_message_without_matplotlib(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    history = [{"epoch": 1, "train_loss": 1.0, "test_loss": 1.0, "train_accuracy": 0.5, "test_accuracy": 0.5}]
    assert td.plot(history, tmp_path / "loss.png") is None
    assert "matplotlib is not installed" in capsys.readouterr().out


def test_the_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    history = [{"epoch": e, "train_loss": 1.0 / e, "test_loss": 1.2 / e, "train_accuracy": 0.9,
                "test_accuracy": 0.88} for e in (1, 2, 3)]
    path = td.plot(history, tmp_path / "loss.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_digits_reach_97_percent_and_float16_is_within_a_point():
    pytest.importorskip("sklearn")
    f32 = td.train(progress=False)
    assert f32["test_accuracy"] >= 0.97
    f16 = td.train(precision="float16", progress=False)
    assert abs(f16["test_accuracy"] - f32["test_accuracy"]) <= 0.01
