"""Per-file numbers of the fleet's files table, from the view's records
(its decoded numpy columns, view.arrays; a DataFrame reads the same).

The job numbers (bytes, time by slowest, performance by slowest) are the view's
``perf`` (iolens.view: darshan-parser's ``--perf``, from the format library when
no record was set aside).  The files table needs the same figures per file,
which is the ``--perf`` formula restricted to one file's records; it is done
here for all files at once, with the view's per-record times
(``iolens.view.parser.record_times``), so the I/O time has one definition.
PyDarshan's file_stats reports the same per-file figures (tests/fleet)."""
from __future__ import annotations

from typing import Dict

import numpy as np

from ..view.columns import counter
from ..view.parser import MIB, record_times

# Sums are int64 (numpy wraps silently past 2^63).  While the absolute values
# summed stay below 2^62, no partial sum, and no read + write total of two of
# them, can leave the int64 range; past it the log is refused, not misstated.
SUM_LIMIT = float(1 << 62)


class ValueOutOfRangeError(ValueError):
    """A log's values are too large for the store's 64-bit columns."""


def check_summable(frame, module: str, names) -> None:
    """Raise ValueOutOfRangeError unless the counters `names` (those the frame
    has) can be summed over every record, and added together, in int64."""
    cols = [n for n in names if n in frame.columns]
    if not cols or not len(frame):
        return
    total = sum(float(np.abs(counter(frame, n).astype(np.float64)).sum()) for n in cols)
    if total >= SUM_LIMIT:
        raise ValueOutOfRangeError(
            f"{module} counters {', '.join(cols)} add up to "
            f"{total:.4g} in absolute value, more than 64-bit sums can hold (2^62)")


def _group_sum(inv: np.ndarray, n: int, values: np.ndarray) -> np.ndarray:
    """Sum per group, exact for int64 (np.add.at, not a float bincount)."""
    out = np.zeros(n, dtype=values.dtype)
    np.add.at(out, inv, values)
    return out


def _ints(frame, names) -> np.ndarray:
    total = np.zeros(len(frame), np.int64)
    for name in names:
        total = total + counter(frame, name, 0).astype(np.int64)
    return total


def file_numbers(frame, prefix: str, nprocs: int, reads, writes
                 ) -> Dict[str, np.ndarray]:
    """Per distinct record id (sorted by id) of the view's undamaged records:
    bytes, reads and writes (summed over the `reads`/`writes` counters), time by
    slowest (the slowest process's time on that file plus its shared records'
    time) and performance by slowest (bytes/s)."""
    times = record_times(frame, prefix)
    t, shared = times.io, times.shared
    rank_all = np.asarray(frame["rank"])
    ids, inv = np.unique(np.asarray(frame["id"]), return_inverse=True)
    inv = inv.reshape(-1)
    n = len(ids)
    out = {"file_id": ids}
    for name, values in (("bytes_read", _ints(frame, [prefix + "BYTES_READ"])),
                         ("bytes_written", _ints(frame, [prefix + "BYTES_WRITTEN"])),
                         ("reads", _ints(frame, reads)), ("writes", _ints(frame, writes))):
        out[name] = _group_sum(inv, n, values)
    shared_time = _group_sum(inv, n, np.where(shared, t, 0.0))
    # Summed time per (file, rank), then the slowest rank of each file.  Ranks
    # are numbered densely first (a job may claim a huge nprocs), so the pair
    # key file * ranks + rank stays below records^2: no overflow, and one 1-D
    # np.unique instead of a slow one over rows.
    mine = ~shared
    slow = np.zeros(n)
    if mine.any():
        ranks, rank_inv = np.unique(rank_all[mine], return_inverse=True)
        key = inv[mine].astype(np.int64) * len(ranks) + rank_inv.reshape(-1)
        pair, pair_inv = np.unique(key, return_inverse=True)
        per_pair = _group_sum(pair_inv.reshape(-1), len(pair), t[mine])
        np.maximum.at(slow, pair // len(ranks), per_pair)
    out["time_by_slowest"] = slow + shared_time
    out["total_bytes"] = out["bytes_read"] + out["bytes_written"]
    tt = out["time_by_slowest"]
    with np.errstate(divide="ignore", invalid="ignore"):
        mibs = np.where(tt > 0, (out["total_bytes"] / MIB) / tt, 0.0)
    out["perf_by_slowest"] = mibs * MIB
    return out
