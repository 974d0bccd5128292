"""Durable files of a wear run: the results (HDF5) and the checkpoint.

Both are written to a temporary file in the destination directory, flushed, fsync'ed and
renamed into place (then the directory is fsync'ed), so a crash at any point leaves either
the previous complete file or the new complete file.

A checkpoint is one ``.npz`` archive whose member ``payload`` carries every array of the
run's state and whose member ``sha256`` is the checksum of the payload bytes: a truncated
or altered checkpoint is detected and reported, never silently used.
"""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np

from ..atomic import atomic_path, write_bytes


class CheckpointError(RuntimeError):
    pass


def atomic_write_bytes(path, data: bytes):
    write_bytes(path, data)


def save_checkpoint(path, arrays: dict, meta: dict):
    buf = io.BytesIO()
    np.savez(buf, **{k: np.asarray(v) for k, v in arrays.items()}, __meta__=np.frombuffer(
        json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8))
    payload = buf.getvalue()
    digest = hashlib.sha256(payload).hexdigest().encode()
    atomic_write_bytes(path, b"WCCK1\n" + digest + b"\n" + payload)


def load_checkpoint(path):
    path = Path(path)
    raw = path.read_bytes()
    if not raw.startswith(b"WCCK1\n") or len(raw) < 6 + 65:
        raise CheckpointError(f"{path}: not a wearcosim checkpoint (bad header)")
    digest = raw[6:6 + 64]
    payload = raw[6 + 65:]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        raise CheckpointError(f"{path}: checkpoint is corrupted (checksum mismatch); delete it to start over")
    with np.load(io.BytesIO(payload), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if k != "__meta__"}
        meta = json.loads(bytes(z["__meta__"]).decode())
    return arrays, meta


def write_results(path, meta: dict, series: dict, profiles: dict, attrs: dict = None):
    """One HDF5 file: /meta (JSON attributes), /series/<name>, /wear/<name>."""
    import h5py
    path = Path(path)
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as f:
            m = f.create_group("meta")
            for k, v in meta.items():
                m.attrs[k] = json.dumps(v) if not isinstance(v, (str, int, float)) else v
            for k, v in (attrs or {}).items():
                f.attrs[k] = v
            g = f.create_group("series")
            for k, v in series.items():
                g.create_dataset(k, data=np.asarray(v), compression="gzip", compression_opts=4)
            w = f.create_group("wear")
            for k, v in profiles.items():
                w.create_dataset(k, data=np.asarray(v))
    return path


class ResultsError(ValueError):
    pass


def read_results(path):
    """(meta, series, wear) of a results file; :class:`ResultsError` naming the file if it is
    missing or not one."""
    import h5py
    path = Path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results file")
    try:
        with h5py.File(path, "r") as f:
            meta = {k: _maybe_json(v) for k, v in f["meta"].attrs.items()}
            series = {k: f["series"][k][()] for k in f["series"]}
            wear = {k: f["wear"][k][()] for k in f["wear"]}
    except OSError as exc:
        raise ResultsError(f"{path}: not an HDF5 file ({' '.join(str(exc).split())})") from None
    except KeyError as exc:
        raise ResultsError(f"{path}: not a wearcosim results file (no {exc})") from None
    return meta, series, wear


def _maybe_json(v):
    if isinstance(v, (bytes, str)):
        s = v.decode() if isinstance(v, bytes) else v
        try:
            return json.loads(s)
        except ValueError:
            return s
    return v
