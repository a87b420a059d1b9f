"""sstad.checkpoint: round trips of pytrees and dtypes, strict and non-strict loads, the
errors of damaged files, the manager (rotation, best, async saves from a snapshot)."""
import dataclasses
import json
import os
import threading
import time
import types
from typing import NamedTuple

import ml_dtypes
import numpy as np
import pytest
import safetensors.numpy

from sstad.checkpoint import Checkpoint, CheckpointError, CheckpointManager, load, partition, rng_from_state, save
from sstad.checkpoint import fileformat


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass
class Model:
    layers: list
    scale: float
    activation: str = dataclasses.field(default="tanh", metadata={"static": True})


DTYPES = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint64, np.bool_, np.complex64, ml_dtypes.float8_e4m3fn]


def model(rng):
    return Model([Layer(rng.standard_normal((3, 4)), rng.standard_normal(4).astype(np.float32)),
                  Layer(rng.standard_normal((4, 2)).astype(ml_dtypes.bfloat16), np.zeros(2, np.float16))], 0.5)


def adam_state(params):
    return {"count": 3, "mu": params, "nu": (np.ones(2), types.SimpleNamespace(v=np.int64(7)))}


def same(a, b):
    """Equal trees, leaf types included, compared bit for bit."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif dataclasses.is_dataclass(a) or isinstance(a, types.SimpleNamespace):
        same(vars(a), vars(b))
    else:
        assert a == b or (a != a and b != b)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_dtypes_round_trip_bit_for_bit(tmp_path, dtype):
    rng = np.random.default_rng(0)
    values = rng.standard_normal((5, 3)) * 10
    if np.dtype(dtype).kind == "c":
        values = values + 1j * values[::-1]
    array = values.astype(dtype)
    if np.dtype(dtype).kind == "f":
        array[0, :3] = np.array([np.nan, np.inf, -0.0]).astype(dtype)
    params = {"a": array, "scalar": array[1, 1], "empty": np.zeros((0, 3), dtype), "T": array.T}
    path = save(tmp_path / "x.safetensors", params)
    ckpt = load(path)
    same(ckpt.params, {"a": array, "scalar": array[1, 1], "empty": params["empty"], "T": np.ascontiguousarray(array.T)})
    same(load(path, like=params).params["T"], np.ascontiguousarray(array.T))


def test_big_endian_arrays_are_stored_little_endian(tmp_path):
    big = np.arange(6, dtype=">f8").reshape(2, 3)
    path = save(tmp_path / "x.safetensors", {"w": big})
    assert np.array_equal(safetensors.numpy.load_file(path)["params/w"], big)
    assert np.array_equal(load(path).params["w"], big)


def test_nested_pytrees_round_trip_with_a_template(tmp_path):
    rng = np.random.default_rng(1)
    params = model(rng)
    state = adam_state({"w": rng.standard_normal(3), 1: [np.float32(2.0), True]})
    path = save(tmp_path / "x.safetensors", params, state, meta={"step": 5})
    ckpt = load(path, like=Checkpoint(model(np.random.default_rng(9)), adam_state({"w": np.zeros(3), 1: [np.float32(0), False]})))
    same(ckpt.params, params)
    same(ckpt.opt_state, state)
    assert ckpt.step == 5 and not ckpt.report


def test_without_a_template_the_recorded_structure_comes_back(tmp_path):
    rng = np.random.default_rng(2)
    params = model(rng)
    state = adam_state({"w": rng.standard_normal(3), 1: [np.float32(2.0), True], "a/b%c": np.ones(1)})
    path = save(tmp_path / "x.safetensors", params, state)
    ckpt = load(path)
    same(ckpt.params, {"layers": [{"W": layer.W, "b": layer.b} for layer in params.layers],   # objects as dicts
                       "scale": 0.5, "activation": "tanh"})
    same(ckpt.opt_state["nu"], (np.ones(2), {"v": np.int64(7)}))
    assert ckpt.opt_state["count"] == 3 and type(ckpt.opt_state["count"]) is int
    same(ckpt.opt_state["mu"], state["mu"])                   # an int key stays an int; '/' in a key
    assert "opt_state/mu/a%2Fb%25c" in safetensors.numpy.load_file(path)


def test_any_safetensors_reader_opens_the_file(tmp_path):
    params = {"layer0": {"w": np.arange(6.0).reshape(2, 3)}}
    path = save(tmp_path / "x.safetensors", params, {"mu": {"layer0": {"w": np.ones((2, 3))}}}, meta={"epoch": 2})
    tensors = safetensors.numpy.load_file(path)
    assert sorted(tensors) == ["opt_state/mu/layer0/w", "params/layer0/w"]
    assert np.array_equal(tensors["params/layer0/w"], params["layer0"]["w"])
    with safetensors.safe_open(path, framework="np") as f:
        metadata = f.metadata()
    assert json.loads(metadata["sstad"])["meta"] == {"epoch": 2}
    assert json.loads(metadata["sstad"])["tree"]["params"] == {"dict": [["layer0", {"dict": [["w", "array"]]}]]}


def test_strict_load_lists_every_difference(tmp_path):
    path = save(tmp_path / "x.safetensors", {"w": np.zeros((2, 3)), "b": np.zeros(3), "extra": np.zeros(1),
                                            "n": np.zeros(2, np.int32)})
    like = {"w": np.zeros((3, 2)), "b": np.zeros(3), "missing": np.zeros(4), "n": np.zeros(2, np.int64)}
    with pytest.raises(CheckpointError) as info:
        load(path, like=like)
    message = str(info.value)
    assert str(path) in message
    assert "missing (in the template, not in the file): params/missing" in message
    assert "unexpected (in the file, not in the template): params/extra" in message
    assert "mismatched `params/w`: the file holds float64[2, 3], the template wants float64[3, 2]" in message
    assert "mismatched `params/n`: the file holds int32[2], the template wants int64[2]" in message

    ckpt = load(path, like=like, strict=False)
    assert ckpt.report.missing == ["params/missing"] and ckpt.report.unexpected == ["params/extra"]
    assert [m[0] for m in ckpt.report.mismatched] == ["params/w", "params/n"]
    assert ckpt.params["w"] is like["w"] and ckpt.params["missing"] is like["missing"]  # the template's values
    assert np.array_equal(ckpt.params["b"], np.zeros(3))


def test_unsupported_values_are_refused_at_save(tmp_path):
    with pytest.raises(CheckpointError, match="`params/z`.*complex128"):
        save(tmp_path / "x.safetensors", {"z": np.zeros(2, complex)})
    with pytest.raises(CheckpointError, match="`params/s` holds a set"):
        save(tmp_path / "x.safetensors", {"s": {1, 2}})
    with pytest.raises(CheckpointError, match=r"meta\['f'\] is a function"):
        save(tmp_path / "x.safetensors", {}, meta={"f": lambda: 0})
    assert os.listdir(tmp_path) == []


def test_rng_state_and_numpy_metadata_round_trip(tmp_path):
    rng = np.random.default_rng(42)
    rng.standard_normal(10)
    meta = {"step": np.int64(7), "loss_scale": np.float32(1024.0), "rng": rng, "schedule": {"warmup": 10},
            "history": np.array([0.5, 0.25])}
    path = save(tmp_path / "x.safetensors", {"w": np.ones(1)}, meta=meta)
    expected = rng.standard_normal(5)
    loaded = load(path).meta
    assert loaded["step"] == 7 and loaded["loss_scale"] == 1024.0 and loaded["history"] == [0.5, 0.25]
    assert np.array_equal(rng_from_state(loaded["rng"]).standard_normal(5), expected)
    with pytest.raises(CheckpointError, match="not the state of a NumPy bit generator"):
        rng_from_state({"bit_generator": "os.system"})


# --- damaged files -------------------------------------------------------------------
def written(tmp_path):
    params = {"a": np.arange(64.0), "b": np.arange(32, dtype=np.int32), "c": np.ones(16, np.float32)}
    path = save(tmp_path / "x.safetensors", params, meta={"step": 1})
    data = open(path, "rb").read()
    header_end = 8 + int.from_bytes(data[:8], "little")
    header = json.loads(data[8:header_end])
    spans = {name: (header_end + e["data_offsets"][0], header_end + e["data_offsets"][1])
             for name, e in header.items() if name != "__metadata__"}
    return path, data, header_end, spans, params


def test_every_flipped_byte_is_an_error_naming_the_file(tmp_path):
    path, data, header_end, spans, params = written(tmp_path)
    rng = np.random.default_rng(3)
    positions = sorted(set(rng.integers(0, len(data), 300)) | set(range(8)) | {header_end - 1, len(data) - 1})
    for position in positions:
        damaged = bytearray(data)
        damaged[position] ^= int(rng.integers(1, 256))
        with open(path, "wb") as f:
            f.write(damaged)
        owner = next((name for name, (lo, hi) in spans.items() if lo <= position < hi), None)
        try:
            ckpt = load(path)
        except CheckpointError as error:
            assert str(path) in str(error)
            if owner is not None:
                assert f"tensor `{owner}` does not match its checksum" in str(error)
            continue
        # only a change JSON cannot see (spaces in the header's padding) may load, and unchanged
        assert owner is None and data[position] in b" \t\r\n" and damaged[position] in b" \t\r\n", position
        same(ckpt.params, params)


@pytest.mark.parametrize("keep", [0, 5, 8, 100, "header", "tensor"])
def test_a_truncated_file_names_what_is_cut_off(tmp_path, keep):
    path, data, header_end, spans, _ = written(tmp_path)
    if keep == "header":
        keep = header_end - 10
    elif keep == "tensor":
        keep = spans["params/b"][0] + 3
    with open(path, "wb") as f:
        f.write(data[:keep])
    with pytest.raises(CheckpointError) as info:
        load(path)
    message = str(info.value)
    assert str(path) in message
    if keep == spans["params/b"][0] + 3:
        assert "truncated: the tensors params/a, params/b end past the end of the file" in message \
            or "truncated: the tensors params/b" in message
        assert "params/b" in message
    else:
        assert "not a safetensors file" in message


@pytest.mark.parametrize("content", [b"", b"hello world, not a checkpoint\n", b"\x80\x04\x95" + b"\x00" * 64,
                                     (16).to_bytes(8, "little") + b"[1, 2, 3]       "])
def test_a_file_that_is_not_safetensors_is_refused(tmp_path, content):
    path = tmp_path / "x.safetensors"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=f"{path}: not a safetensors file"):
        load(path)


def test_a_foreign_safetensors_file_and_a_missing_file(tmp_path):
    path = tmp_path / "foreign.safetensors"
    safetensors.numpy.save_file({"w": np.ones(2)}, path)
    with pytest.raises(CheckpointError, match="without sstad's metadata: another tool wrote it"):
        load(path)
    with pytest.raises(CheckpointError, match="cannot read the checkpoint: No such file"):
        load(tmp_path / "absent.safetensors")


def test_a_changed_dtype_in_the_header_is_caught(tmp_path):
    path, data, *_ = written(tmp_path)
    damaged = data.replace(b'"dtype":"I32"', b'"dtype":"U32"')
    assert damaged != data
    with open(path, "wb") as f:
        f.write(damaged)
    with pytest.raises(CheckpointError, match="the header .* does not match its checksum"):
        load(path)


# --- sharding rule -------------------------------------------------------------------
def test_load_takes_this_ranks_part(tmp_path):
    params = {"w": np.arange(10.0).reshape(5, 2), "b": np.arange(3.0), "s": 2.0}
    path = save(tmp_path / "x.safetensors", params, axes=lambda name, a: 1 if name == "params/w" else 0 if a.ndim else None)
    for rank in range(3):
        part = load(path, rank=rank, world_size=3).params
        assert np.array_equal(part["w"], np.array_split(params["w"], 3, axis=1)[rank])
        assert np.array_equal(part["b"], params["b"][rank:rank + 1]) and part["s"] == 2.0
    same(partition(params, 1, 2), {"w": params["w"][3:], "b": params["b"][2:], "s": 2.0})
    with pytest.raises(CheckpointError, match="rank 3 of world size 3"):
        load(path, rank=3, world_size=3)


# --- the manager -----------------------------------------------------------------------
def test_manager_rotates_and_keeps_the_best(tmp_path):
    losses = {2: 0.5, 4: 0.1, 6: 0.3, 8: 0.4, 10: 0.2}
    with CheckpointManager(tmp_path, keep_max=2, every_steps=2, best_metric="loss") as manager:
        saved = [step for step in range(1, 11) if manager.save(step, {"w": np.full(2, float(step))},
                                                             metrics={"loss": losses.get(step)})]
    assert saved == [2, 4, 6, 8, 10]
    assert manager.steps() == [4, 8, 10] and manager.latest() == 10 and manager.best() == 4
    assert manager.restore("best").params["w"][0] == 4.0 and manager.restore().meta["metrics"] == {"loss": 0.2}
    again = CheckpointManager(tmp_path, keep_max=2, best_metric="accuracy", best_mode="max")
    assert again.best() is None and again.latest() == 10                  # no step has that metric


def test_manager_ignores_and_cleans_temporaries_of_dead_processes(tmp_path):
    manager = CheckpointManager(tmp_path, async_save=False)
    manager.save(1, {"w": np.ones(2)})
    dead = tmp_path / ".ckpt-00000002.safetensors.tmp-999999999-abcd"
    dead.write_bytes(b"partial")
    (tmp_path / "ckpt-3.safetensors.partial").write_bytes(b"x")
    assert manager.steps() == [1]
    CheckpointManager(tmp_path)
    assert not dead.exists()


def test_async_save_holds_the_values_of_its_step_while_training_goes_on(tmp_path):
    w = np.zeros(4_000_000)                       # 32 MB: the write takes a while
    state = {"count": 0, "m": np.zeros(3)}
    manager = CheckpointManager(tmp_path, every_steps=10, async_save=True)
    steps_while_saving = 0
    for step in range(1, 20):
        w += 1.0                                   # training mutates the arrays in place
        state["m"][:] = step
        state["count"] = step
        saving = manager.thread is not None and manager.thread.is_alive()
        manager.save(step, {"w": w}, state)        # due at step 10 only; never waits otherwise
        if saving and manager.thread is not None and manager.thread.is_alive():
            steps_while_saving += 1
            time.sleep(0.002)
    manager.wait()
    assert steps_while_saving > 0
    ckpt = manager.restore()
    assert ckpt.step == 10 and np.all(ckpt.params["w"] == 10.0) and np.all(ckpt.opt_state["m"] == 10.0)
    assert ckpt.opt_state["count"] == 10 and np.all(w == 19.0)


def test_a_background_error_is_raised_at_the_next_call(tmp_path):
    folder = tmp_path / "run"
    manager = CheckpointManager(folder, async_save=True)
    os.rmdir(folder)                               # the background write cannot create its file
    assert manager.save(1, {"w": np.ones(3)}) is True
    manager.thread.join()
    with pytest.raises(CheckpointError, match="the background save to .* failed: FileNotFoundError"):
        manager.steps()
    os.makedirs(folder)
    assert manager.save(2, {"w": np.ones(3)}) and manager.wait() is None and manager.steps() == [2]


def test_a_bad_leaf_is_refused_at_the_call_not_in_the_background(tmp_path):
    manager = CheckpointManager(tmp_path, async_save=True)
    with pytest.raises(CheckpointError, match="`params/z`"):
        manager.save(1, {"z": np.zeros(2, complex)})
    assert threading.active_count() >= 1 and manager.thread is None


def test_read_metadata_reads_the_header_only(tmp_path):
    path = save(tmp_path / "x.safetensors", {"w": np.ones(3)}, meta={"step": 4})
    assert fileformat.read_metadata(path)["meta"] == {"step": 4}
