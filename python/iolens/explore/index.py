"""The explorer's one-time index of a log's DXT traces.

The index is a directory of column files (numpy ``.npy``, opened as memory maps)
holding every DXT segment of both modules (DXT_POSIX and DXT_MPIIO) sorted by
start time, plus a binned pyramid (per lane and operation: count, MPI-IO count,
bytes, busy seconds per time bin), ``long.npy`` (the rows of the operations
longer than one pyramid bin, so queries need not widen their window by the
longest operation) and a ``meta.json`` with the lanes, files and summary views.
The directory lives in the private, size-capped cache of ``cache.py``.

Contracts:
- build() never holds the trace: it streams the log and sorts out of core
  (``index_build.py``, ``index_sort.py``); its memory is bounded by its chunk
  and sort sizes, whatever the number of segments.
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
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional

import numpy as np

from .._meta import trace_modules
from . import cache as cache_store

INDEX_VERSION = 5      # 2: damaged segments skipped (meta damage), one layer per file/lane total
                       # 3: long operations listed (long.npy), MPI-IO share in the pyramid
                       # 4: segments ending past 2^60 bytes skipped as bad-offset
                       # 5: the region column (explore/regions.py) and meta["regions"]
COLUMNS = {"start": np.float64, "end": np.float64, "lane": np.int32, "op": np.int8,
           "mod": np.int8, "file": np.int32, "offset": np.int64, "length": np.int64,
           "region": np.int32}
MODULES = trace_modules()                # mod code = position (id order: DXT_POSIX, DXT_MPIIO)
OPS = ("read", "write")                  # op code = position (DXT's seg_write flag)
PYRAMID_CELLS = 1 << 20                  # lanes * bins per operation, bounds pyramid memory
MAX_BINS = 16384
CHUNK = 8_000_000                        # rows per pass over a column: bounds query memory


def cache_root() -> Path:
    return cache_store.root()


def cache_key(path: str) -> str:
    real = os.path.realpath(path)
    st = os.stat(real)
    text = f"{INDEX_VERSION}\0{real}\0{st.st_size}\0{st.st_mtime_ns}"
    # a path that is not UTF-8 comes as surrogateescape: hashed as its bytes
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:24]


@dataclass
class TraceIndex:
    """An opened index: ``cols`` (name -> read-only memmap), ``meta`` (dict),
    ``pyr_count``/``pyr_bytes``/``pyr_busy``/``pyr_mpi`` (arrays [op, lane, bin];
    ``pyr_mpi`` counts the MPI-IO operations among ``pyr_count``), ``long_rows``
    (rows of the operations longer than ``meta["long_after"]``, one pyramid bin)
    with their ``long_start``/``long_end``."""

    root: Path
    meta: dict
    cols: Dict[str, np.ndarray]
    pyr_count: np.ndarray
    pyr_bytes: np.ndarray
    pyr_busy: np.ndarray
    pyr_mpi: np.ndarray
    long_rows: np.ndarray
    long_start: np.ndarray
    long_end: np.ndarray

    @property
    def nseg(self) -> int:
        return int(self.meta["nseg"])

    @property
    def nlanes(self) -> int:
        return len(self.meta["lanes"])

    @property
    def bin_width(self) -> float:
        return self.meta["span"] / self.pyr_count.shape[2]


def read_rows(col: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows [lo, hi) of a column, read from its file rather than through the
    memory map: a pass over the whole trace then leaves no mapped pages in this
    process's resident memory (the page cache keeps them, shared)."""
    hi = min(hi, len(col))
    if not isinstance(col, np.memmap) or hi <= lo:
        return np.asarray(col[lo:hi])
    with open(col.filename, "rb") as f:
        f.seek(col.offset + lo * col.dtype.itemsize)
        return np.fromfile(f, col.dtype, hi - lo)


def open_index(root: Path) -> TraceIndex:
    meta = json.loads((root / "meta.json").read_text())
    cols = {}
    for name in COLUMNS:
        f = root / f"{name}.npy"
        cols[name] = np.load(f, mmap_mode="r") if meta["nseg"] else np.empty(0, COLUMNS[name])
    pyr = np.load(root / "pyramid.npz")
    rows = np.load(root / "long.npy")
    start = np.asarray(cols["start"][rows]) if len(rows) else np.zeros(0)
    end = np.asarray(cols["end"][rows]) if len(rows) else np.zeros(0)
    return TraceIndex(root, meta, cols, pyr["count"], pyr["bytes"], pyr["busy"], pyr["mpi"],
                      rows, start, end)


def index_for(log, cache: Optional[Path] = None) -> TraceIndex:
    """The index of an open ``iolens.Log``, built on first use and reused after
    (in the directory ``cache``, default ``cache_root()``; private and
    size-capped, see ``cache.py``).  When the cache cannot be used the index is built in a
    temporary directory removed at exit, with a note on stderr."""
    base = cache or cache_root()
    try:
        cache_store.private_dir(base)
    except OSError as err:
        print(f"iolens: index cache {base} unusable ({err.strerror or err}); "
              "indexing in a temporary directory", file=sys.stderr)
        base = cache_store.temporary_root()
    root = base / cache_key(log.path)
    if not (root / "meta.json").is_file():
        build(log, root)
        cache_store.prune(base, root, cache_store.limit())
    cache_store.touch(root)
    return open_index(root)


# ---------------------------------------------------------------- building
def build(log, root: Path, chunk_rows: Optional[int] = None,
          sort_rows: Optional[int] = None) -> None:
    """Index ``log`` into ``root`` (written to a temporary sibling, then renamed,
    so a crash never leaves a half index that looks complete).  Memory is bounded
    by ``chunk_rows`` (segments decoded at a time) and ``sort_rows`` (rows sorted in
    memory at a time), see ``index_build.py``; None takes the defaults."""
    from . import index_build
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=root.name + ".", dir=root.parent))
    try:
        index_build.build_into(log, tmp, MODULES, COLUMNS,
                               chunk_rows or index_build.CHUNK_ROWS,
                               sort_rows or index_build.SORT_ROWS)
        cache_store.make_private(tmp)
        if root.exists():
            shutil.rmtree(root, ignore_errors=True)
        os.replace(tmp, root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def write_pyramid(root: Path, count, nbytes, busy, mpi) -> None:
    np.savez(root / "pyramid.npz", count=count, bytes=nbytes, busy=busy, mpi=mpi)


def bins_for(nlanes: int) -> int:
    """Pyramid bins per lane: as many as fit in PYRAMID_CELLS, a power of two."""
    limit = max(64, PYRAMID_CELLS // max(1, nlanes))
    return int(min(MAX_BINS, 1 << (limit.bit_length() - 1)))
