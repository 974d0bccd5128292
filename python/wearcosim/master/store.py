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
import os
import shutil
import sys
import zipfile
from array import array
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence


import numpy as np

try:    # ISA-L's deflate: the same zlib streams as zlib's, several times faster (deflated_chunk)
    from isal import isal_zlib as _zlib
except ImportError:     # (isal not installed: zlib writes the same format, slower)
    import zlib as _zlib

from ..atomic import atomic_path, named, write_bytes


class CheckpointError(RuntimeError):
    pass


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    write_bytes(path, data)


def save_checkpoint(path: str | os.PathLike[str], arrays: dict[str, Any], meta: dict[str, Any]) -> None:
    buf = io.BytesIO()
    np.savez(buf, **{k: np.asarray(v) for k, v in arrays.items()}, __meta__=np.frombuffer(
        json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8))
    payload = buf.getvalue()
    digest = hashlib.sha256(payload).hexdigest().encode()
    atomic_write_bytes(path, b"WCCK1\n" + digest + b"\n" + payload)


def load_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """(arrays, meta) of a checkpoint; :class:`CheckpointError` naming the file if it is not
    one, truncated or altered; an ``OSError`` naming it if it cannot be read."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise named(exc, path) from None
    if not raw.startswith(b"WCCK1\n") or len(raw) < 6 + 65:
        raise CheckpointError(f"{path}: not a wearcosim checkpoint (bad header)")
    digest = raw[6:6 + 64]
    payload = raw[6 + 65:]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        raise CheckpointError(f"{path}: checkpoint is corrupted (checksum mismatch); delete it to start over")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
            meta = json.loads(bytes(z["__meta__"]).decode())
    except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:   # checksum right, contents not ours
        raise CheckpointError(f"{path}: not a wearcosim checkpoint ({type(exc).__name__}); delete it to start over") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: not a wearcosim checkpoint (no metadata); delete it to start over")
    return arrays, meta


def _write_meta(f, meta: dict, attrs: dict = None):
    """/meta: the run's facts as attributes (JSON for anything but str/int/float); file attributes."""
    m = f.create_group("meta")
    for k, v in meta.items():
        m.attrs[k] = json.dumps(v) if not isinstance(v, (str, int, float)) else v
    for k, v in (attrs or {}).items():
        f.attrs[k] = v


def write_results(path: str | os.PathLike[str], meta: dict[str, Any], series: dict[str, Any],
                  profiles: dict[str, Any], attrs: dict[str, Any] | None = None) -> None:
    """One HDF5 file: /meta (JSON attributes), /series/<name>, /wear/<name>."""
    import h5py
    path = Path(path)
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as f:
            _write_meta(f, meta, attrs)
            g = f.create_group("series")
            for k, v in series.items():
                g.create_dataset(k, data=np.asarray(v), compression="gzip", compression_opts=4)
            w = f.create_group("wear")
            for k, v in profiles.items():
                w.create_dataset(k, data=np.asarray(v))
    return path


def _put(f: Any, data: memoryview) -> None:
    """All of ``data`` written to the unbuffered file ``f`` (a raw write may write part of it
    when the disk fills up: the rest is written, or its error raised)."""
    n = f.write(data)
    if n is not None and n < data.nbytes:
        rest = data.cast("B")[n:]
        while rest:
            n = f.write(rest)
            rest = rest[n:]


class _Rows:
    """The rows held for a group of streams (:meth:`Spool.rows`): ``buf[i, :fill]`` are the
    held values of ``names[i]``."""

    def __init__(self, names: tuple[str, ...], capacity: int) -> None:
        self.names = names
        self.buf = np.empty((len(names), capacity))
        self.fill = 0


class Spool:
    """The recorded streams of a running wear run, on disk: one append-only file of raw
    float64 values per stream in ``folder``, written unbuffered in large pieces.  Memory stays
    bounded whatever the run's length; :meth:`sync` makes what was appended durable (flush +
    fsync) and is what a checkpoint waits for; a resumed run opens the spool with the lengths
    its checkpoint recorded and continues from exactly there (whatever a killed run appended
    after that is cut off).  At the end the results file is written from the streams chunk by
    chunk.  An I/O error (a full disk) names the stream's file.

    Appended values are held in memory and handed to their files when a stream holds
    :data:`HOLD_ROWS` of them (:meth:`append`: the profiles; :meth:`rows`, :meth:`append_rows`:
    a recorded cycle's series, held for a group of streams in one block) or :data:`HOLD`
    (:meth:`append_scalars`: the per-cycle summaries, one value per stream and cycle), and
    before anything reads, cuts, syncs or closes the streams: a value costs an
    ``array.append`` instead of a packing and a file write, a cycle's series one copy into the
    group's block instead of a write per stream.  What a checkpoint counts is on disk (:meth:`sync`
    hands everything over first); what a killed run held after it is lost like what it
    appended after it, and cut off on resume.  A full disk is reported when the held values go
    to their files: at the latest at the next checkpoint."""

    #: scalars held per stream before they go to its file
    HOLD = 512
    #: values held per stream (:meth:`append`, :meth:`append_rows`) before they go to its file
    #: (256 KiB: the demo's series of 64 cycles, one write per stream instead of 64)
    HOLD_ROWS = 1 << 15

    def __init__(self, folder: str | os.PathLike[str], names: Iterable[str],
                 lengths: dict[str, int] | None = None) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise named(exc, self.folder) from None
        self.names = list(names)
        self._files = {}
        self.lengths = {}
        self._held = {n: array("d") for n in self.names}
        self._groups: dict[tuple[str, ...], _Rows] = {}      # rows(): names -> their held block
        self._group_of: dict[str, _Rows] = {}
        for n in self.names:
            path = self._path(n)
            try:
                if lengths is None:
                    path.unlink(missing_ok=True)
                    size = 0
                else:
                    size = int(lengths.get(n, 0))
                    have = path.stat().st_size // 8 if path.exists() else 0
                    if have < size:
                        raise CheckpointError(f"{path}: holds {have} values but the checkpoint counts {size}; "
                                              f"the recorded streams are incomplete (start over with --restart)")
                f = open(path, "ab", buffering=0)      # (see _put)
                f.truncate(size * 8)
                f.seek(size * 8)
            except OSError as exc:
                self.close()
                raise named(exc, path) from None
            except BaseException:
                self.close()
                raise
            self._files[n] = f
            self.lengths[n] = size

    def _path(self, name):
        return self.folder / (name.replace("/", "%2F") + ".f64")

    def _release(self, names: Iterable[str] | None = None) -> None:
        """The held values of ``names`` (default all) written to their files."""
        for n in self.names if names is None else names:
            self._unrow(n)
            held = self._held[n]
            if held:
                if sys.byteorder != "little":
                    held.byteswap()
                try:
                    _put(self._files[n], memoryview(held))
                except OSError as exc:
                    raise named(exc, self._path(n)) from None
                del held[:]

    def _release_rows(self, g: "_Rows") -> None:
        """The rows held in the block ``g`` written to their streams' files."""
        buf = g.buf
        if sys.byteorder != "little":
            buf = buf.astype("<f8")
        for i, n in enumerate(g.names):
            try:
                _put(self._files[n], memoryview(buf[i, :g.fill]))
            except OSError as exc:
                raise named(exc, self._path(n)) from None
        g.fill = 0

    def _unrow(self, name: str) -> None:
        """Rows held for ``name`` written first: its values stay in order when it is appended
        to by :meth:`rows` and by another method."""
        g = self._group_of.get(name)
        if g is not None and g.fill:
            self._release_rows(g)

    def append(self, name: str, values: np.ndarray | Sequence[float] | float) -> None:
        """``values`` to the stream ``name`` (held, see the class's docstring)."""
        a = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
        self._unrow(name)
        self._held[name].frombytes(a.data.cast("B"))
        self.lengths[name] += a.shape[0]
        if len(self._held[name]) >= self.HOLD_ROWS:
            self._release((name,))

    def rows(self, names: Sequence[str], width: int) -> np.ndarray:
        """Room for ``width`` more values of each stream of ``names``: a (len(names), width)
        float64 array, row ``i`` for ``names[i]``, in the block held for this group of streams,
        which the caller fills in place (a recorded cycle's series, copied straight from the
        cycle's buffer).  The values count as appended now: fill them before anything reads,
        cuts, syncs or closes the streams (held, see the class's docstring)."""
        key = tuple(names)
        g = self._groups.get(key)
        if g is None:
            g = self._groups[key] = _Rows(key, max(self.HOLD_ROWS, width))
            for n in key:
                self._release((n,))           # (whatever was held for it goes first)
                self._group_of[n] = g
        else:
            for n in key:
                if self._held[n]:
                    self._release((n,))
        if g.fill + width > g.buf.shape[1]:
            if g.fill:
                self._release_rows(g)
            if width > g.buf.shape[1]:
                g.buf = np.empty((len(key), width))
        lengths = self.lengths
        for n in key:
            lengths[n] += width
        g.fill += width
        return g.buf[:, g.fill - width:g.fill]

    def append_rows(self, names: Sequence[str], block: np.ndarray) -> None:
        """Row ``i`` of the 2-D float64 array ``block`` to the stream ``names[i]`` (:meth:`rows`
        filled with ``block``)."""
        block = np.asarray(block, dtype=np.float64)
        self.rows(names, block.shape[1])[...] = block

    def append_scalars(self, names: Sequence[str], values: Sequence[float]) -> None:
        """One value to each stream of ``names`` (the per-cycle summaries: held, see the
        class's docstring)."""
        held, lengths, grouped = self._held, self.lengths, self._group_of
        for n, v in zip(names, values):
            if n in grouped:
                self._unrow(n)
            held[n].append(v)
            lengths[n] += 1
        if names and len(held[names[0]]) >= self.HOLD:
            self._release(names)

    def truncate(self, lengths: dict[str, int], keep: Iterable[str] = ()) -> None:
        """Cut every stream but those in ``keep`` back to ``lengths`` (a rejected step taken back)."""
        self._release()
        for n, f in self._files.items():
            if n in keep:
                continue
            size = int(lengths[n])
            if size > self.lengths[n]:
                raise ValueError(f"stream {n} holds {self.lengths[n]} values, cannot cut back to {size}")
            try:
                f.flush()
                f.truncate(size * 8)
            except OSError as exc:
                raise named(exc, self._path(n)) from None
            self.lengths[n] = size

    def sync(self) -> dict[str, int]:
        """Flush and fsync every stream; the lengths now durable."""
        self._release()
        for n, f in self._files.items():
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as exc:
                raise named(exc, self._path(n)) from None
        return dict(self.lengths)

    def chunks(self, name: str, size: int = 1 << 18) -> Iterator[np.ndarray]:
        """The stream's values in chunks of at most ``size``."""
        n = self.lengths[name]
        self._release((name,))
        try:
            self._files[name].flush()
            f = open(self._path(name), "rb")
        except OSError as exc:
            raise named(exc, self._path(name)) from None
        with f:
            done = 0
            while done < n:
                k = min(size, n - done)
                try:
                    data = f.read(8 * k)
                except OSError as exc:
                    raise named(exc, self._path(name)) from None
                if len(data) != 8 * k:
                    raise CheckpointError(f"{self._path(name)}: holds fewer values than recorded ({done + len(data) // 8} "
                                          f"of {n}); the stream was cut short by another program")
                yield np.frombuffer(data, dtype="<f8")
                done += k

    def read(self, name: str) -> np.ndarray:
        return np.concatenate(list(self.chunks(name))) if self.lengths[name] else np.zeros(0)

    def close(self) -> None:
        """Close the streams' files (what is still buffered is written if it can be: a full
        disk here leaves streams longer than a checkpoint counts at most, never shorter)."""
        for n in list(self._files):
            try:
                self._release((n,))
            except OSError:
                pass
        for f in self._files.values():
            try:
                f.close()
            except OSError:
                pass
        self._files = {}

    def remove(self) -> None:
        for held in self._held.values():      # (nothing of them is kept)
            del held[:]
        for g in self._groups.values():
            g.fill = 0
        self.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class MemorySpool:
    """The streams of a run kept in memory: :class:`Spool`'s interface without its files, for
    a study's case (a few cycles, no resume, no results file: :class:`WearMaster` with
    ``memory=True``).  Appended values are copied (the master reuses its cycle buffer)."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(names)
        self._data: dict[str, list] = {n: [] for n in self.names}
        self.lengths = {n: 0 for n in self.names}

    def append(self, name: str, values: np.ndarray | Sequence[float] | float) -> None:
        a = np.array(values, dtype="<f8").ravel()
        self._data[name].append(a)
        self.lengths[name] += a.size

    def append_scalars(self, names: Sequence[str], values: Sequence[float]) -> None:
        for n, v in zip(names, values):
            self._data[n].append(np.array([v], dtype="<f8"))
            self.lengths[n] += 1

    def append_rows(self, names: Sequence[str], block: np.ndarray) -> None:
        for n, row in zip(names, block):
            self.append(n, row)

    def rows(self, names: Sequence[str], width: int) -> np.ndarray:
        """:meth:`Spool.rows`: a new block whose rows are the streams' next values."""
        block = np.empty((len(names), width))
        for n, row in zip(names, block):
            self._data[n].append(row)
            self.lengths[n] += width
        return block

    def truncate(self, lengths: dict[str, int], keep: Iterable[str] = ()) -> None:
        keep = set(keep)
        for n in self.names:
            if n in keep:
                continue
            size = int(lengths[n])
            if size > self.lengths[n]:
                raise ValueError(f"stream {n} holds {self.lengths[n]} values, cannot cut back to {size}")
            self._data[n] = [self.read(n)[:size]]
            self.lengths[n] = size

    def sync(self) -> dict[str, int]:
        return dict(self.lengths)

    def chunks(self, name: str, size: int = 1 << 18) -> Iterator[np.ndarray]:
        data = self.read(name)
        for k in range(0, len(data), size):
            yield data[k:k + size]

    def read(self, name: str) -> np.ndarray:
        parts = self._data[name]
        return np.concatenate(parts) if parts else np.zeros(0)

    def close(self) -> None:
        pass

    def remove(self) -> None:
        self._data = {n: [] for n in self.names}


def write_results_streamed(path: str | os.PathLike[str], meta: dict[str, Any], spool: Spool,
                           series_names: Sequence[str], profiles: dict[str, Any], attrs: dict[str, Any] | None = None,
                           summary_names: Sequence[str] = (), units: dict[str, str] | None = None,
                           extra: dict[str, Any] | None = None) -> None:
    """:func:`write_results` with the series taken from ``spool`` chunk by chunk (compressed
    datasets: memory bounded by the chunk size, whatever the run's length); ``summary_names``
    (streams of one value per cycle) go to /summary with the cycle index as their dimension
    scale; /series/time is the series' dimension scale; ``units``: name -> unit attribute;
    ``extra``: group -> {"streams": {dataset: stream}, "data": {dataset: array}, "attrs": {...}}."""
    import h5py
    path = Path(path)
    with atomic_path(path) as tmp:
        with h5py.File(tmp, "w") as f:
            _write_meta(f, meta, attrs)
            units = units or {}
            groups = [("series", series_names), ("summary", summary_names)] if summary_names else [("series", series_names)]
            for group, names in groups:
                _streamed_group(f, group, names, spool, units)
            if "time" in f["series"]:
                f["series/time"].make_scale("time")
                for k in series_names:
                    if k != "time" and f[f"series/{k}"].shape == f["series/time"].shape:
                        f[f"series/{k}"].dims[0].attach_scale(f["series/time"])
            if summary_names:
                cyc = f["summary"].create_dataset("cycle", data=np.arange(spool.lengths[summary_names[0]]))
                cyc.make_scale("cycle")
                for k in summary_names:
                    f[f"summary/{k}"].dims[0].attach_scale(cyc)
            w = f.create_group("wear")
            for k, v in profiles.items():
                w.create_dataset(k, data=np.asarray(v))
                if k in units:
                    w[k].attrs["units"] = units[k]
            _wear_scales(w)
            for group, spec in (extra or {}).items():
                g = f.create_group(group)
                for k, stream in spec.get("streams", {}).items():
                    g.create_dataset(k, data=spool.read(stream))
                for k, v in spec.get("data", {}).items():
                    g.create_dataset(k, data=np.asarray(v))
                for k, v in spec.get("attrs", {}).items():
                    g.attrs[k] = v
                for k in list(g):
                    if units.get(k):
                        g[k].attrs["units"] = units[k]
                _index_scale(g, "jump", [k for k in spec.get("streams", {})])
                if "error_bound" in g and "sector_centres" in w:
                    sec = g.create_dataset("sector", data=w["sector_centres"][()])
                    sec.attrs["units"] = w["sector_centres"].attrs.get("units", "")
                    sec.make_scale("sector")
                    g["error_bound"].dims[0].attach_scale(sec)
    return path


def _wear_scales(w):
    """Named axes of /wear (netCDF/xarray dimensions): the profiles' real cycles and the
    sectors' centres."""
    if "cycles" in w and "depth" in w and w["depth"].ndim == 2 and w["depth"].shape[0] == w["cycles"].shape[0]:
        w["cycles"].make_scale("cycles")
        w["cycles"].attrs["units"] = "1"
        w["cycles"].attrs["long_name"] = "real cycles"
        w["depth"].dims[0].attach_scale(w["cycles"])
        if "simulated_cycles" in w:
            w["simulated_cycles"].dims[0].attach_scale(w["cycles"])
    if "sector_centres" in w:
        w["sector_centres"].make_scale("sector")
        for k in ("depth", "final"):
            if k in w and w[k].shape[-1] == w["sector_centres"].shape[0]:
                w[k].dims[w[k].ndim - 1].attach_scale(w["sector_centres"])


def _index_scale(g, name, names):
    """A 0..n-1 index as the dimension scale ``name`` of the 1-D datasets ``names`` of ``g``."""
    names = [k for k in names if k in g and g[k].ndim == 1]
    if not names:
        return
    idx = g.create_dataset(name, data=np.arange(g[names[0]].shape[0]))
    idx.make_scale(name)
    for k in names:
        if g[k].shape == idx.shape:
            g[k].dims[0].attach_scale(idx)


#: values per chunk of a series dataset (512 KiB of float64)
SERIES_CHUNK = 1 << 16


def deflated_chunk(values: np.ndarray, chunk: int) -> bytes:
    """One chunk of a float64 dataset as HDF5's shuffle and deflate filters store it (level
    1): the little-endian values padded with zeros to ``chunk`` (the edge chunk), their bytes
    shuffled (all first bytes, then all second bytes, ...) and compressed into a zlib stream.
    Any HDF5 reader inflates it with its standard filters; ISA-L's deflate (``isal``, when
    installed) writes it ~8x faster than zlib's at level 1, in a file ~4 % larger."""
    a = np.ascontiguousarray(values, "<f8")     # (no copy for a whole chunk of the spool's values)
    if a.size < chunk:
        a = np.concatenate([a, np.zeros(chunk - a.size, "<f8")])
    return _zlib.compress(a.view(np.uint8).reshape(chunk, 8).T.tobytes(), 1)


def _streamed_group(f, group, names, spool, units):
    """Group ``group`` of ``f`` with one dataset per stream, chunk by chunk: gzip (readable by
    every HDF5 tool) at level 1 after the byte shuffle, each chunk compressed here and written
    as it is stored (:func:`deflated_chunk`)."""
    g = f.create_group(group)
    for k in names:
        n = spool.lengths[k]
        c = min(n, SERIES_CHUNK)
        ds = g.create_dataset(k, shape=(n,), dtype="<f8", chunks=(c,), compression="gzip", compression_opts=1,
                              shuffle=True) if n else g.create_dataset(k, shape=(0,), dtype="<f8")
        done = 0
        for part in spool.chunks(k, c or 1):
            ds.id.write_direct_chunk((done,), deflated_chunk(part, c))
            done += part.size
        if units.get(k):
            ds.attrs["units"] = units[k]


class ResultsError(ValueError):
    pass


def read_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray], dict[str, np.ndarray]]:
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


def read_summary(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The per-cycle summaries of a results file (/summary: cycle, recorded, peak_Fn, mean_Fn,
    max_depth, worn_volume); empty for a file of an older layout."""
    import h5py
    try:
        with h5py.File(Path(path), "r") as f:
            return {k: f["summary"][k][()] for k in f["summary"]} if "summary" in f else {}
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read the summaries ({' '.join(str(exc).split())[:200]})") from None


def read_extrapolation(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The extrapolation history of a results file (/extrapolation: its datasets, and its
    attributes under "attrs"); empty for a file of an older layout."""
    import h5py
    try:
        with h5py.File(Path(path), "r") as f:
            if "extrapolation" not in f:
                return {}
            g = f["extrapolation"]
            out = {k: g[k][()] for k in g}
            out["attrs"] = {k: (v.item() if hasattr(v, "item") else v) for k, v in g.attrs.items()}
            return out
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read the extrapolation history ({' '.join(str(exc).split())[:200]})") from None


def _maybe_json(v):
    if isinstance(v, (bytes, str)):
        s = v.decode() if isinstance(v, bytes) else v
        try:
            return json.loads(s)
        except ValueError:
            return s
    return v
