"""The explorer's one-time index of a log's DXT traces.

The index is a directory of column files (numpy ``.npy``, opened as memory maps)
holding every DXT segment of both modules (DXT_POSIX and DXT_MPIIO) sorted by
start time, plus a binned pyramid (per lane and operation: count, bytes, busy
seconds per time bin) and a ``meta.json`` with the lanes, files and summary views.

Contracts:
- After build() returns, open() needs memory for the pyramid and the metadata
  only; segment columns stay on disk and queries read just the rows in view.
- A lane is one (rank, thread id) pair; logs without thread ids get one lane per
  rank.  MPI-IO and POSIX segments of a rank share its lane (the page draws the
  MPI-IO row above the POSIX row).
- The cache key is the log's real path, size and modification time, so an edited
  log is indexed again.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np

from .. import _frames
from .._meta import module_info

INDEX_VERSION = 1
COLUMNS = {"start": np.float64, "end": np.float64, "lane": np.int32, "op": np.int8,
           "mod": np.int8, "file": np.int32, "offset": np.int64, "length": np.int64}
MODULES = ("DXT_POSIX", "DXT_MPIIO")     # mod code = position
OPS = ("read", "write")                  # op code = position (DXT's seg_write flag)
PYRAMID_CELLS = 1 << 20                  # lanes * bins per operation, bounds pyramid memory
MAX_BINS = 16384
CHUNK = 8_000_000                        # rows per pass over a column: bounds build memory


def cache_root() -> Path:
    env = os.environ.get("IOLENS_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "iolens" / "explore"


def cache_key(path: str) -> str:
    real = os.path.realpath(path)
    st = os.stat(real)
    text = f"{INDEX_VERSION}\0{real}\0{st.st_size}\0{st.st_mtime_ns}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class TraceIndex:
    """An opened index: ``cols`` (name -> read-only memmap), ``meta`` (dict),
    ``pyr_count``/``pyr_bytes``/``pyr_busy`` (arrays [op, lane, bin])."""

    root: Path
    meta: dict
    cols: Dict[str, np.ndarray]
    pyr_count: np.ndarray
    pyr_bytes: np.ndarray
    pyr_busy: np.ndarray

    @property
    def nseg(self) -> int:
        return int(self.meta["nseg"])

    @property
    def nlanes(self) -> int:
        return len(self.meta["lanes"])

    @property
    def bin_width(self) -> float:
        return self.meta["span"] / self.pyr_count.shape[2]


def open_index(root: Path) -> TraceIndex:
    meta = json.loads((root / "meta.json").read_text())
    cols = {}
    for name in COLUMNS:
        f = root / f"{name}.npy"
        cols[name] = np.load(f, mmap_mode="r") if meta["nseg"] else np.empty(0, COLUMNS[name])
    pyr = np.load(root / "pyramid.npz")
    return TraceIndex(root, meta, cols, pyr["count"], pyr["bytes"], pyr["busy"])


def index_for(log, cache: Optional[Path] = None) -> TraceIndex:
    """The index of an open ``iolens.Log``, built on first use and reused after."""
    root = (cache or cache_root()) / cache_key(log.path)
    if not (root / "meta.json").is_file():
        build(log, root)
    return open_index(root)


# ---------------------------------------------------------------- building
def _module_arrays(log, mod_code: int) -> Optional[dict]:
    """Raw per-segment arrays of one DXT module straight from the C decoder
    (no pandas frame: at 10^8 segments every copy counts)."""
    info = module_info(MODULES[mod_code])
    if info.name not in log.modules:
        return None
    d = log._c.dxt(info.id)
    rec = _frames.view(d["seg_rec"], np.int64)
    if len(rec) == 0:
        return None
    names = log._name_lookup[_frames.view(d["name_code"], np.int32)]
    out = {"rec": rec, "rank_of_rec": _frames.view(d["rank"], np.int64),
           "host_of_rec": [d["hostnames"][c] if 0 <= c < len(d["hostnames"]) else ""
                           for c in _frames.view(d["host_code"], np.int32)],
           "name_of_rec": [n if isinstance(n, str) else f"<record {i:#x}>"
                           for n, i in zip(names, _frames.view(d["id"], np.uint64))],
           "op": _frames.view(d["seg_write"], np.int8),
           "offset": _frames.view(d["offset"], np.int64),
           "length": _frames.view(d["length"], np.int64),
           "start": _frames.view(d["start"], np.float64),
           "end": _frames.view(d["end"], np.float64),
           "thread": (_frames.view(d["thread_id"], np.uint64)
                      if d["thread_id"] is not None else None)}
    return out


def _cat(arrays: List[np.ndarray]) -> np.ndarray:
    """Concatenate without a copy when there is one part (10^8 rows: 800 MB saved)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _lane_keys(parts: List[dict]):
    """Per-segment (rank, thread) lane codes and the lane table.  Without thread
    ids lanes come from the (few) records, not the (many) segments."""
    hosts = {}
    for p in parts:
        for r, h in zip(p["rank_of_rec"], p["host_of_rec"]):
            hosts.setdefault(int(r), h)
    threaded = any(p["thread"] is not None and p["thread"].any() for p in parts)
    if not threaded:
        lane_ranks = np.unique(np.concatenate([p["rank_of_rec"] for p in parts]))
        lane = _cat([np.searchsorted(lane_ranks, p["rank_of_rec"]).astype(np.int32)[p["rec"]]
                     for p in parts])
        lane_threads = [None] * len(lane_ranks)
    else:
        ranks = _cat([p["rank_of_rec"][p["rec"]] for p in parts])
        threads = _cat([p["thread"] if p["thread"] is not None
                        else np.zeros(len(p["rec"]), np.uint64) for p in parts])
        pairs = np.stack([ranks.astype(np.uint64), threads], axis=1)
        del ranks, threads
        keys, lane = np.unique(pairs, axis=0, return_inverse=True)
        lane = lane.astype(np.int32).ravel()
        lane_ranks, lane_threads = keys[:, 0].astype(np.int64), [int(t) for t in keys[:, 1]]
    lanes = [{"rank": int(r), "thread": t, "host": hosts.get(int(r), "")}
             for r, t in zip(lane_ranks, lane_threads)]
    return lane, lanes


def _file_codes(parts: List[dict]):
    names = sorted({n for p in parts for n in p["name_of_rec"]})
    code = {n: i for i, n in enumerate(names)}
    per_seg = _cat([np.asarray([code[n] for n in p["name_of_rec"]], np.int32)[p["rec"]]
                    for p in parts])
    return per_seg, names


def build(log, root: Path) -> None:
    """Index ``log`` into ``root`` (written to a temporary sibling, then renamed,
    so a crash never leaves a half index that looks complete)."""
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=root.name + ".", dir=root.parent))
    try:
        _build_into(log, tmp)
        if root.exists():
            shutil.rmtree(root, ignore_errors=True)
        os.replace(tmp, root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _build_into(log, root: Path) -> None:
    parts = [(m, p) for m, p in ((m, _module_arrays(log, m)) for m in range(len(MODULES)))
             if p is not None]
    meta = {"version": INDEX_VERSION, "log": os.path.realpath(log.path), "nseg": 0,
            "lanes": [], "files": [], "span": 1.0, "max_dur": 0.0,
            "modules": [MODULES[m] for m in range(len(MODULES))
                        if _module_present(log, m)]}
    if not parts:
        _write_pyramid(root, np.zeros((2, 0, 1), np.uint32), np.zeros((2, 0, 1)),
                       np.zeros((2, 0, 1)))
        (root / "meta.json").write_text(json.dumps(meta))
        return
    mod = _cat([np.full(len(p["rec"]), m, np.int8) for m, p in parts])
    parts = [p for _, p in parts]
    lane, meta["lanes"] = _lane_keys(parts)
    file_code, meta["files"] = _file_codes(parts)
    meta["span"] = max([_finite_max(p["end"]) for p in parts] + [1e-9])
    start = _cat([p["start"] for p in parts])
    order = np.argsort(start, kind="stable")
    n = len(order)
    meta["nseg"] = n
    _save(root, "start", start[order])
    del start
    _save(root, "lane", lane[order])
    del lane
    _save(root, "file", file_code[order])
    del file_code
    _save(root, "mod", mod[order])
    del mod
    for name in ("end", "op", "offset", "length"):
        col = _cat([p[name] for p in parts])
        _save(root, name, col[order])
        del col
    del parts, order
    idx_cols = {name: np.load(root / f"{name}.npy", mmap_mode="r") for name in COLUMNS}
    _summarise(idx_cols, meta, root)
    (root / "meta.json").write_text(json.dumps(meta))


def _finite_max(a: np.ndarray) -> float:
    """Largest finite value (hostile logs may hold NaN or infinite times)."""
    top = float(np.nanmax(a)) if len(a) else 0.0
    if not np.isfinite(top):
        fin = a[np.isfinite(a)]
        top = float(fin.max()) if len(fin) else 0.0
    return top


def _module_present(log, m: int) -> bool:
    return module_info(MODULES[m]).name in log.modules


def _save(root: Path, name: str, arr: np.ndarray) -> None:
    np.save(root / f"{name}.npy", np.ascontiguousarray(arr, dtype=COLUMNS[name]))


def _write_pyramid(root: Path, count, nbytes, busy) -> None:
    np.savez(root / "pyramid.npz", count=count, bytes=nbytes, busy=busy)


def _chunks(n: int):
    for lo in range(0, n, CHUNK):
        yield lo, min(n, lo + CHUNK)


def _summarise(cols: Dict[str, np.ndarray], meta: dict, root: Path) -> None:
    """One chunked pass over the sorted columns: the pyramid, per-lane and
    per-file totals, the transfer-size histogram and an offset sample."""
    from .summary_build import Summariser   # kept apart: this file only lays out columns
    s = Summariser(meta, len(meta["lanes"]), len(meta["files"]))
    for lo, hi in _chunks(meta["nseg"]):
        s.add({name: np.asarray(col[lo:hi]) for name, col in cols.items()}, lo)
    count, nbytes, busy = s.pyramid()
    _write_pyramid(root, count, nbytes, busy)
    meta.update(s.views())


def bins_for(nlanes: int) -> int:
    """Pyramid bins per lane: as many as fit in PYRAMID_CELLS, a power of two."""
    limit = max(64, PYRAMID_CELLS // max(1, nlanes))
    return int(min(MAX_BINS, 1 << (limit.bit_length() - 1)))
