"""The checkpoint file: a safetensors file whose metadata says how to trust and rebuild it.

safetensors is an 8-byte little-endian header length, a JSON header (each tensor's dtype,
shape and byte offsets, and ``__metadata__``: a map of strings), then the raw little-endian
bytes.  Nothing in it executes on load.  sstad writes one metadata key, ``"sstad"``, whose
value is a JSON object (one key, so the same checkpoint always gives the same bytes):

``version``        ``1``
``sha256``         ``{tensor name: SHA-256 of its bytes, hex}``, checked on every load
``header_sha256``  SHA-256 of the header's content (see :func:`header_digest`)
``tree``           ``{"params": skeleton, "opt_state": skeleton}`` (see ``tree.py``)
``meta``           the user's metadata: step, epoch, schedule, loss scale, RNG state...
``partition``      ``{"rule": "array_split", "axes": {tensor name: axis or null}}``
``shard``          in a rank's shard only: ``{"rank": r, "world_size": n}``
"""
import hashlib
import json
import os

import numpy as np
import safetensors

from sstad.checkpoint.durable import atomic_write
from sstad.checkpoint.errors import CheckpointError

VERSION = 1
KEY = "sstad"

# safetensors' dtype codes and the NumPy dtypes that hold them (bfloat16 and float8 from ml_dtypes)
DTYPES = {
    "BOOL": np.dtype(bool), "U8": np.dtype(np.uint8), "I8": np.dtype(np.int8),
    "U16": np.dtype(np.uint16), "I16": np.dtype(np.int16), "U32": np.dtype(np.uint32),
    "I32": np.dtype(np.int32), "U64": np.dtype(np.uint64), "I64": np.dtype(np.int64),
    "F16": np.dtype(np.float16), "F32": np.dtype(np.float32), "F64": np.dtype(np.float64),
    "C64": np.dtype(np.complex64),
}
try:
    import ml_dtypes
    DTYPES.update(BF16=np.dtype(ml_dtypes.bfloat16), F8_E4M3=np.dtype(ml_dtypes.float8_e4m3fn),
                  F8_E5M2=np.dtype(ml_dtypes.float8_e5m2))
except ImportError:                      # bfloat16 and float8 need ml_dtypes; the rest does not
    pass
CODES = {dtype.name: code for code, dtype in DTYPES.items()}
STORABLE = set(CODES)


def checksum(array):
    """SHA-256 of a C-contiguous array's bytes (seen as bytes: bfloat16 has no buffer format)."""
    return hashlib.sha256(array.reshape(-1).view(np.uint8).data).hexdigest()


def stored_form(name, value):
    """``value`` as a C-contiguous little-endian array safetensors can hold."""
    array = np.asarray(value)
    if array.dtype.name not in STORABLE:
        raise CheckpointError(f"tensor `{name}` has the dtype {array.dtype.name}, which safetensors "
                              f"cannot hold (it holds {', '.join(sorted(STORABLE))})",
                              hint="cast it, e.g. complex128 to two float64 arrays")
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def write(path, tensors, metadata):
    """Write ``{name: array}`` with ``metadata`` (a dict of JSON values: ``tree``, ``meta``,
    ``partition``, ``shard``) durably to ``path``; the checksums are computed here."""
    arrays = {name: stored_form(name, value) for name, value in tensors.items()}
    metadata = dict(metadata, version=VERSION, sha256={name: checksum(a) for name, a in arrays.items()})
    metadata["header_sha256"] = header_digest({name: [CODES[a.dtype.name], list(a.shape)]
                                               for name, a in arrays.items()}, metadata)
    specs = {name: safetensors.TensorSpec(dtype=a.dtype.name, shape=a.shape, data_ptr=a.ctypes.data,
                                          data_len=a.nbytes) for name, a in arrays.items()}
    # `arrays` stays alive while safetensors reads the memory the specs point to.  The file's
    # bytes are built in memory (serialize_file would leave temporaries of its own on a crash)
    atomic_write(path, safetensors.serialize(specs, metadata={KEY: canonical(metadata)}))


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def read(path):
    """``(tensors, metadata)`` of a checkpoint file, every tensor checked against its checksum.
    Raises :class:`CheckpointError` naming the file (and the tensor) when the file is not a
    safetensors file, is truncated or corrupted, or was not written by sstad."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read the checkpoint: {error.strerror}") from None
    header = parse_header(path, data)
    try:
        views = safetensors.deserialize(data)
    except safetensors.SafetensorError as error:
        raise CheckpointError(f"{path}: not a valid safetensors file ({error})") from None
    metadata = sstad_metadata(path, header)
    sums = metadata["sha256"]
    unknown = sorted(name for name, _ in views if name not in sums)
    if unknown:
        raise CheckpointError(f"{path}: the tensors {', '.join(unknown)} have no checksum: the header "
                              "is corrupted or was altered")
    check_header(path, metadata, views)
    tensors = {}
    for name, view in views:
        if view["dtype"] not in DTYPES:
            raise CheckpointError(f"{path}: tensor `{name}` has the dtype {view['dtype']}, which sstad "
                                  f"does not read (it reads {', '.join(DTYPES)})")
        array = np.frombuffer(view["data"], dtype=DTYPES[view["dtype"]]).reshape(view["shape"])
        if checksum(array) != sums[name]:
            raise CheckpointError(f"{path}: tensor `{name}` does not match its checksum: the file is "
                                  "corrupted", hint="load an earlier checkpoint")
        tensors[name] = array
    absent = sorted(set(sums) - set(tensors))
    if absent:
        raise CheckpointError(f"{path}: the tensors {', '.join(absent)} have checksums but are not in "
                              "the file: the header is corrupted or was altered")
    return tensors, metadata


def header_digest(entries, metadata):
    """SHA-256 (hex) of ``{"tensors": {name: [dtype code, shape]}, "metadata": sstad's
    metadata without header_sha256}`` as JSON with sorted keys and no spaces: it covers every
    name, dtype, shape and metadata value (the byte offsets are covered by the tensors'
    own checksums)."""
    content = {"tensors": entries, "metadata": {k: v for k, v in metadata.items() if k != "header_sha256"}}
    return hashlib.sha256(canonical(content).encode()).hexdigest()


def check_header(path, metadata, views):
    entries = {name: [view["dtype"], list(view["shape"])] for name, view in views}
    if metadata.get("header_sha256") != header_digest(entries, metadata):
        raise CheckpointError(f"{path}: the header (tensor names, dtypes, shapes, metadata) does not match "
                              "its checksum: the file is corrupted", hint="load an earlier checkpoint")


def read_metadata(path):
    """The sstad metadata of a checkpoint, from its header alone (tensors not checked)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        start = f.read(8)
        length = int.from_bytes(start, "little") if len(start) == 8 else 0
        data = start + f.read(min(length, os.fstat(f.fileno()).st_size))
    return sstad_metadata(path, parse_header(path, data, whole_file=False))


def parse_header(path, data, whole_file=True):
    """The JSON header, read as safetensors defines it, with an error that says what is
    wrong: too short, not safetensors, or truncated (naming the tensors cut off)."""
    if len(data) < 8:
        raise CheckpointError(f"{path}: not a safetensors file (only {len(data)} bytes)")
    length = int.from_bytes(data[:8], "little")
    if 8 + length > len(data):
        raise CheckpointError(f"{path}: not a safetensors file, or truncated: the header claims "
                              f"{length} bytes and the file has {len(data)}")
    try:
        header = json.loads(data[8:8 + length])
        assert isinstance(header, dict)
    except (ValueError, AssertionError):
        raise CheckpointError(f"{path}: not a safetensors file, or its header is corrupted (the header "
                              "is not a JSON object)") from None
    if whole_file:
        size = len(data) - 8 - length
        cut = [name for name, entry in header.items() if name != "__metadata__" and end_of(entry) > size]
        if cut:
            raise CheckpointError(f"{path}: truncated: the tensors {', '.join(sorted(cut))} end past "
                                  f"the end of the file ({size} bytes of data)",
                                  hint="load an earlier checkpoint")
    return header


def end_of(entry):
    """Where a header entry says its bytes end (0 when the entry is malformed: safetensors
    itself reports that)."""
    offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
    if isinstance(offsets, list) and all(type(x) is int for x in offsets):
        return max(offsets, default=0)
    return 0


def sstad_metadata(path, header):
    raw = (header.get("__metadata__") or {}).get(KEY)
    if raw is None:
        raise CheckpointError(f"{path}: a safetensors file without sstad's metadata: another tool wrote "
                              "it, or its header is corrupted", hint="read another tool's file with "
                              "safetensors.numpy.load_file")
    try:
        metadata = json.loads(raw)
        assert isinstance(metadata, dict)
    except (TypeError, ValueError, AssertionError):
        raise CheckpointError(f"{path}: sstad's metadata is not a JSON object: the header is corrupted") from None
    if metadata.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint format version {metadata.get('version')!r}; this sstad "
                              f"reads version {VERSION}")
    for key, kind in (("sha256", dict), ("tree", dict), ("meta", dict), ("partition", dict)):
        if not isinstance(metadata.get(key), kind):
            raise CheckpointError(f"{path}: sstad's metadata lacks `{key}`: the header is corrupted")
    return metadata
