"""Out-of-core stable sort of the explorer's segment columns by start time.

Rows arrive in pieces, in the log's order (DXT_POSIX, then DXT_MPIIO; records
and segments as stored), and leave in pieces sorted by ``start`` exactly as
``numpy.argsort(start, kind="stable")`` over all rows would order them.

How, with memory bounded by ``sort_rows`` (never by the trace):
- Until more than ``sort_rows`` rows have come, they are only kept; a trace that
  small is sorted in memory in one go.
- Beyond, the start times seen so far give up to FINE_BUCKETS - 1 bucket
  boundaries (quantiles of a sample).  Every piece becomes a *run* file:
  its rows ordered by bucket (a stable counting order) column after column, plus
  the row offset of each bucket, kept in memory.
- Buckets are then taken in order, as many adjacent ones together as fit in
  ``sort_rows`` rows; their slices of every run are read, concatenated and sorted
  in memory.  A bucket larger than ``sort_rows`` is split: its rows are streamed
  once for their minimum, maximum and a sample, and once more into new runs with
  boundaries from that sample, recursively.  A bucket whose rows all have the same
  start (or no start: NaN) is already in order and is copied through.

Why it is stable: a run keeps the log order within each bucket, runs are read
in the order they were written, and rows with equal start always share a
bucket; so equal keys reach each in-memory sort in log order, which the stable
sort keeps.  The NaN bucket is last, as numpy sorts NaN last.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import numpy as np

FINE_BUCKETS = 1024        # buckets per partition (bounded: counting order on uint16)
SAMPLE = 1 << 16           # start times sampled to place the boundaries

Cols = Dict[str, np.ndarray]


@dataclass
class Run:
    """One run file: ``n`` rows, each column's rows ordered by bucket;
    rows of bucket b are [off[b], off[b+1])."""

    path: Path
    n: int
    off: np.ndarray


def bucket_of(start: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Bucket of each start: the number of boundaries <= it; NaN goes to the
    extra last bucket len(bounds) + 1."""
    b = np.searchsorted(bounds, start, side="right").astype(np.uint16)
    b[np.isnan(start)] = len(bounds) + 1
    return b


def sample_bounds(starts: List[np.ndarray], nb: int, lo=None) -> np.ndarray:
    """Up to nb - 1 distinct boundaries at the quantiles of an evenly spaced
    sample of the (non-NaN) start times; only those above ``lo`` when given."""
    total = sum(len(s) for s in starts)
    step = max(1, total // SAMPLE)
    pick = np.concatenate([s[::step] for s in starts]) if starts else np.zeros(0)
    pick = np.sort(pick[~np.isnan(pick)])
    if not len(pick):
        return pick
    at = (np.arange(1, nb) * len(pick)) // nb
    bounds = np.unique(pick[at])
    return bounds if lo is None else bounds[bounds > lo]


class ExternalSort:
    """Feed pieces with add() in log order, then iterate sorted() once."""

    def __init__(self, workdir: Path, columns: Dict[str, type], sort_rows: int,
                 chunk_rows: int):
        self.dir = workdir
        self.dtypes = {k: np.dtype(v) for k, v in columns.items()}
        self.sort_rows = max(1, int(sort_rows))
        self.chunk_rows = max(1, int(chunk_rows))
        self.kept: List[Cols] = []
        self.nkept = 0
        self.runs: List[Run] = []
        self.bounds = None
        self.files = 0
        # what the sort did (read by tests and benchmarks): run files written,
        # groups sorted in memory, buckets split, rows copied through in order
        self.stats = {"runs": 0, "groups": 0, "splits": 0, "copied": 0}

    # ------------------------------------------------------------ input
    def add(self, cols: Cols) -> None:
        n = len(cols["start"])
        if not n:
            return
        self.kept.append(cols)
        self.nkept += n
        if self.runs or self.nkept > self.sort_rows:
            self._spill()

    def _spill(self) -> None:
        if self.bounds is None:
            self.bounds = sample_bounds([c["start"] for c in self.kept], FINE_BUCKETS)
        while self.kept:
            self.runs.append(self._write_run(self.kept.pop(0), self.bounds))
        self.nkept = 0

    def _write_run(self, cols: Cols, bounds: np.ndarray) -> Run:
        b = bucket_of(cols["start"], bounds)
        order = np.argsort(b, kind="stable")
        counts = np.bincount(b, minlength=len(bounds) + 2)
        del b
        self.files += 1
        self.stats["runs"] += 1
        path = self.dir / f"run{self.files:06d}.bin"
        with open(path, "wb") as f:
            for name, dt in self.dtypes.items():
                np.take(np.asarray(cols[name], dt), order).tofile(f)
        off = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=off[1:])
        return Run(path, len(order), off)

    # ------------------------------------------------------------ output
    def sorted(self) -> Iterator[Cols]:
        """The rows in stable start order, in pieces of at most sort_rows rows."""
        if not self.runs:
            parts, self.kept = self.kept, []
            if parts:
                self.stats["groups"] += 1
                yield _sort_in_memory(_concat(parts))
            return
        yield from self._sort_runs(self.runs, len(self.bounds) + 2)

    def _sort_runs(self, runs: List[Run], nb: int) -> Iterator[Cols]:
        totals = np.zeros(nb, np.int64)
        for r in runs:
            totals += np.diff(r.off)
        b = 0
        while b < nb:
            if totals[b] > self.sort_rows:
                yield from self._split(runs, b)
                b += 1
                continue
            e, rows = b, 0
            while e < nb and rows + totals[e] <= self.sort_rows:
                rows += int(totals[e])
                e += 1
            if rows:
                self.stats["groups"] += 1
                yield _sort_in_memory(self._read(_slices(runs, b, e), rows, self.dtypes))
            b = e
        for r in runs:
            os.unlink(r.path)

    def _split(self, runs: List[Run], b: int) -> Iterator[Cols]:
        """Bucket b of runs holds more than sort_rows rows."""
        src = _slices(runs, b, b + 1)
        lo, hi, sample = np.inf, -np.inf, []
        step = max(1, sum(s[2] - s[1] for s in src) // SAMPLE)
        for piece in self._stream(src, {"start": self.dtypes["start"]}):
            s = piece["start"]
            if not np.isnan(s[0]):          # a bucket is all NaN or has none
                lo, hi = min(lo, float(s.min())), max(hi, float(s.max()))
                sample.append(s[::step].copy())
        if not lo < hi:                     # one start value (or NaN): in order already
            for piece in self._stream(src, self.dtypes):
                self.stats["copied"] += len(piece["start"])
                yield piece
            return
        self.stats["splits"] += 1
        bounds = sample_bounds(sample, FINE_BUCKETS, lo)
        if not len(bounds) or bounds[-1] < hi:
            bounds = np.append(bounds, hi)  # lo and hi land in different buckets
        sub = [self._write_run(piece, bounds) for piece in self._stream(src, self.dtypes)]
        yield from self._sort_runs(sub, len(bounds) + 2)

    def _stream(self, src, dtypes) -> Iterator[Cols]:
        """The rows of slices src in order, in pieces of at most chunk_rows."""
        batch, rows = [], 0
        for run, a, z in src:
            while a < z:
                take = min(z - a, self.chunk_rows - rows)
                batch.append((run, a, a + take))
                rows += take
                a += take
                if rows == self.chunk_rows:
                    yield self._read(batch, rows, dtypes)
                    batch, rows = [], 0
        if rows:
            yield self._read(batch, rows, dtypes)

    def _column_base(self, run: Run, name: str) -> int:
        """Byte offset of column ``name`` in a run file (columns in self.dtypes order)."""
        base = 0
        for k, dt in self.dtypes.items():
            if k == name:
                return base
            base += run.n * dt.itemsize
        raise KeyError(name)

    def _read(self, src, rows: int, dtypes) -> Cols:
        """Concatenation of slices (run, first row, end row) of the runs."""
        out = {k: np.empty(rows, dt) for k, dt in dtypes.items()}
        handles = {}
        try:
            for name, dt in dtypes.items():
                pos = 0
                for run, a, z in src:
                    f = handles.get(run.path) or handles.setdefault(run.path, open(run.path, "rb"))
                    f.seek(self._column_base(run, name) + a * dt.itemsize)
                    want = (z - a) * dt.itemsize
                    if f.readinto(memoryview(out[name][pos:pos + z - a]).cast("B")) != want:
                        raise OSError(f"explorer index: run file {run.path} is short")
                    pos += z - a
        finally:
            for f in handles.values():
                f.close()
        return out


def _slices(runs: List[Run], b: int, e: int) -> List[Tuple[Run, int, int]]:
    return [(r, int(r.off[b]), int(r.off[e])) for r in runs if r.off[e] > r.off[b]]


def _concat(parts: List[Cols]) -> Cols:
    """One dict of columns; each source column is dropped once it is copied."""
    if len(parts) == 1:
        return parts.pop()
    return {k: np.concatenate([p.pop(k) for p in parts]) for k in list(parts[0])}


def _sort_in_memory(cols: Cols) -> Cols:
    order = np.argsort(cols["start"], kind="stable")
    out = {}
    for k in list(cols):
        out[k] = np.take(cols.pop(k), order)    # each source column freed once gathered
    return out
