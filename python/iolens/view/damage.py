"""Damage: values a healthy runtime cannot write, found once when the view is
built, so that no figure is ever computed from them (docs/metrics.md, "Damage").

A damaged record or DXT segment is *set aside*: counted here by kind and module,
and left out of every figure the view gives.  Upstream's documented conventions
are not damage: -1 means "not monitored" (a counter, a float counter, a rank of a
shared record, an MPI-IO offset the runtime did not know), 0 means "never
happened" for a timestamp.

Record checks (each a kind):
  rank            rank outside [-1, nprocs)
  bad-time        a time or timestamp that is NaN, infinite or negative (not -1)
  after-run       a timestamp above the run time by more than the margin, or a
                  per-process duration above it (a shared record's durations add
                  up every process's, so its bound is nprocs times the run time)
  negative-count  bytes or operation counts below -1
  bytes-no-ops    bytes read (written) with no read (write) operation
  one-access-extent  one access, and its bytes go past the largest offset + 1
  histogram       the access-size histogram does not sum to the operation count
                  (POSIX and MPI-IO, whose runtime updates both in one place)
DXT segment checks:
  bad-time        start or end NaN, infinite or negative
  end-before-start
  after-run       end above the run time by more than the margin
  bad-offset      an offset that is not possible: below -1 (MPI-IO, whose -1 is
                  "not known") or below 0 (POSIX), a negative length, or an end
                  (offset + length, or the length alone for offset -1) past
                  MAX_FILE_END = 2^60 bytes (1 EiB); this also catches every
                  offset + length that would overflow int64
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Tuple

import numpy as np

from .._meta import ModuleInfo

# The margin by which a time may pass the run time: the job's end time is
# stored in whole seconds (up to 1 s lost) and ranks' clocks differ a little.
MARGIN_SECONDS = 2.0
MARGIN_FRACTION = 0.05
# The end (offset + length) past which a DXT segment is damage: 2^60 bytes,
# 1 EiB.  No storage system holds that much (the largest are under 1 EiB), and
# the file systems HPC jobs write to stop lower (ext4 16 TiB, Lustre on ldiskfs
# about 31 PiB per file); only a sparse file on XFS, ZFS or btrfs could reach
# past it, and an application writing there is far rarer than a damaged offset
# (a flipped high bit, garbage near 2^62).  Kept below 2^63 so that offset +
# length is never computed where it could overflow int64 (docs/metrics.md).
MAX_FILE_END = 1 << 60

RECORD_KINDS = ("rank", "bad-time", "after-run", "negative-count", "bytes-no-ops",
                "one-access-extent", "histogram")
SEGMENT_KINDS = ("bad-time", "end-before-start", "after-run", "bad-offset")

# Float counters that hold seconds (the combine rule says what they are); the
# variance of per-rank times is seconds squared and is only checked for NaN/inf.
_TIME_COMBINES = ("sum", "min_nonzero", "max", "maxtime", "ranktime")
_OP_KINDS = ("", "INDEP_", "COLL_", "SPLIT_", "NB_")
_HISTOGRAM_MODULES = ("POSIX", "MPI-IO")
_SIZE_BINS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M",
              "10M_100M", "100M_1G", "1G_PLUS")


def margin(run_time: float) -> float:
    """Seconds a time may pass the run time before it is damage."""
    return MARGIN_SECONDS + MARGIN_FRACTION * max(run_time, 0.0)


@dataclass
class Damage:
    """What was set aside: counts per module and kind.  ``records`` and
    ``segments`` map module -> {kind: count}; a record with several kinds of
    damage is counted once per kind, and once in ``set_aside``."""
    records: Dict[str, Dict[str, int]] = field(default_factory=dict)
    segments: Dict[str, Dict[str, int]] = field(default_factory=dict)
    set_aside: Dict[str, int] = field(default_factory=dict)   # module -> records/segments

    @property
    def any(self) -> bool:
        return any(self.set_aside.values())

    @property
    def total(self) -> int:
        return int(sum(self.set_aside.values()))

    def add(self, module: str, kinds: Dict[str, int], n_bad: int, segments: bool) -> None:
        table = self.segments if segments else self.records
        mine = table.setdefault(module, {})
        for kind, n in kinds.items():
            if n:
                mine[kind] = mine.get(kind, 0) + int(n)
        if n_bad:
            self.set_aside[module] = self.set_aside.get(module, 0) + int(n_bad)
        if not mine:
            del table[module]

    def lines(self) -> List[str]:
        """One sentence per module: "POSIX: 3 records set aside (rank 2, bad-time 1)"."""
        out = []
        for module, n in self.set_aside.items():
            if not n:
                continue
            seg = module in self.segments
            kinds = (self.segments if seg else self.records).get(module, {})
            what = "segments" if seg else "records"
            detail = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            out.append(f"{module}: {n} {what} set aside ({detail})")
        return out

    def to_dict(self) -> dict:
        return {"set_aside": dict(self.set_aside), "records": self.records,
                "segments": self.segments}


# --------------------------------------------------------------- record checks
def _per_module(fn):
    """Memo of a function of a module's counter table, which never changes: the
    checks run on every module of every log of a fleet ingest, where finding
    the names again cost as much as the checks.  Lists are kept as tuples."""
    memo = {}

    @functools.wraps(fn)
    def cached(info: ModuleInfo, *args):
        key = (id(info), *args)          # a ModuleInfo holds dicts: not hashable
        if key not in memo:
            got = fn(info, *args)
            memo[key] = (info, tuple(got) if isinstance(got, list) else got)
        return memo[key][1]
    return cached


@_per_module
def needed_counters(info: ModuleInfo) -> Tuple[str, ...]:
    """The counters the record checks read for a module (a few columns, so the
    checks stream even a million-record module cheaply)."""
    names = set(_time_counters(info)) | set(_variance_counters(info))
    for op in ("READ", "WRITE"):
        names.update(_op_counters(info, op))
        names.update(c for c in (_bytes(info, op), _max_byte(info, op)) if c)
        names.update(_histogram(info, op))
    return sorted(names)


@_per_module
def _time_counters(info: ModuleInfo) -> Tuple[str, ...]:
    return [c for c in info.fcounters if info.combine.get(c) in _TIME_COMBINES]


@_per_module
def _variance_counters(info: ModuleInfo) -> Tuple[str, ...]:
    return [c for c in info.fcounters if info.combine.get(c) == "variance"]


@_per_module
def _op_counters(info: ModuleInfo, op: str) -> Tuple[str, ...]:
    names = [f"{info.prefix}{k}{op}S" for k in _OP_KINDS] + [f"{info.prefix}{op}XS"]
    return [n for n in names if n in info.descriptions]


@_per_module
def _bytes(info: ModuleInfo, op: str):
    name = f"{info.prefix}BYTES_{'READ' if op == 'READ' else 'WRITTEN'}"
    return name if name in info.descriptions else None


@_per_module
def _max_byte(info: ModuleInfo, op: str):
    name = f"{info.prefix}MAX_BYTE_{'READ' if op == 'READ' else 'WRITTEN'}"
    return name if name in info.descriptions else None


@_per_module
def _histogram(info: ModuleInfo, op: str) -> Tuple[str, ...]:
    if info.name not in _HISTOGRAM_MODULES:
        return []
    for mid in ("", "AGG_"):
        names = [f"{info.prefix}SIZE_{op}_{mid}{b}" for b in _SIZE_BINS]
        if all(n in info.descriptions for n in names):
            return names
    return []


def _col(frame, name: str) -> np.ndarray:
    return np.asarray(frame[name])


def record_checks(frame, info: ModuleInfo, nprocs: int,
                  run_time: float) -> Tuple[np.ndarray, Dict[str, int]]:
    """(bad mask, {kind: count}) of one module's records; `frame` (the decoded
    view.arrays.Arrays, or a DataFrame) holds at least rank and
    needed_counters(info)."""
    n = len(frame)
    rank = _col(frame, "rank")
    found = {"rank": (rank < -1) | (rank >= nprocs)}
    shared = rank == -1
    limit = run_time + margin(run_time)
    # every time counter at once (one matrix, records x counters): a few numpy
    # calls per module instead of a few per counter, which dominated small modules
    stamps, spans = _times(frame, info)
    both = np.concatenate([stamps, spans], axis=1)
    with np.errstate(invalid="ignore"):
        bad_time = (~np.isfinite(both) | ((both < 0) & (both != -1.0))).any(axis=1)
        late = np.zeros(n, bool)
        if run_time > 0:
            late = (stamps > limit).any(axis=1) | \
                (spans > np.where(shared, limit * max(nprocs, 1), limit)[:, None]).any(axis=1)
    for name in _variance_counters(info):
        if name in frame:
            bad_time |= ~np.isfinite(_col(frame, name).astype(np.float64))
    found["bad-time"] = bad_time
    found["after-run"] = late & ~bad_time
    _count_checks(frame, info, found)
    bad = np.zeros(n, bool)
    for mask in found.values():
        bad |= mask
    return bad, {k: int(m.sum()) for k, m in found.items()}


def _times(frame, info: ModuleInfo) -> Tuple[np.ndarray, np.ndarray]:
    """(timestamps, durations): the module's time counters the frame has, as
    float64 matrices of records x counters."""
    names = [c for c in _time_counters(info) if c in frame]
    stamp = [info.combine.get(c) in ("min_nonzero", "max") for c in names]
    cols = [_col(frame, c).astype(np.float64, copy=False) for c in names]

    def matrix(pick):
        chosen = [v for v, s in zip(cols, stamp) if s == pick]
        return np.stack(chosen, axis=1) if chosen else np.zeros((len(frame), 0))
    return matrix(True), matrix(False)


def _sum(frame, names: Iterable[str]) -> np.ndarray:
    out = np.zeros(len(frame), np.int64)
    for name in names:
        if name in frame:
            v = _col(frame, name)
            out = out + np.where(v > 0, v, 0)
    return out


def _count_checks(frame, info: ModuleInfo, found: dict) -> None:
    n = len(frame)
    negative, no_ops, extent, hist = (np.zeros(n, bool) for _ in range(4))
    for op in ("READ", "WRITE"):
        b_name, m_name = _bytes(info, op), _max_byte(info, op)
        op_names = [c for c in _op_counters(info, op) if c in frame]
        for name in op_names + ([b_name] if b_name in frame else []):
            negative |= _col(frame, name) < -1
        if b_name not in frame or not op_names:
            continue
        nbytes, ops = _col(frame, b_name), _sum(frame, op_names)
        no_ops |= (nbytes > 0) & (ops == 0)
        if m_name in frame:
            top = _col(frame, m_name)
            extent |= (ops == 1) & (top >= 0) & (nbytes > top + 1)
        bins = [c for c in _histogram(info, op) if c in frame]
        if bins and len(bins) == len(_SIZE_BINS):
            hist |= _sum(frame, bins) != ops
    found["negative-count"] = negative
    found["bytes-no-ops"] = no_ops & ~negative
    found["one-access-extent"] = extent & ~negative
    found["histogram"] = hist & ~negative


# --------------------------------------------------------------- segment checks
def segment_checks(start: np.ndarray, end: np.ndarray, offset: np.ndarray,
                   length: np.ndarray, run_time: float,
                   mpiio: bool) -> Tuple[np.ndarray, Dict[str, int]]:
    """(bad mask, {kind: count}) of a chunk of DXT segments."""
    with np.errstate(invalid="ignore"):
        bad_time = ~np.isfinite(start) | ~np.isfinite(end) | (start < 0) | (end < 0)
        backwards = ~bad_time & (end < start)
        late = ~bad_time & (end > run_time + margin(run_time)) if run_time > 0 else \
            np.zeros(len(start), bool)
    lowest = -1 if mpiio else 0
    # offset > MAX_FILE_END - length is offset + length > MAX_FILE_END without
    # the sum, which could overflow; a negative length is already damage.
    reach = np.maximum(length, 0)
    bad_offset = (offset < lowest) | (length < 0) | \
        (np.maximum(offset, 0) > MAX_FILE_END - reach)
    found = {"bad-time": bad_time, "end-before-start": backwards, "after-run": late,
             "bad-offset": bad_offset}
    bad = bad_time | backwards | late | bad_offset
    return bad, {k: int(m.sum()) for k, m in found.items()}
