"""A module's records as bare numpy arrays, and the parser's `--perf` numbers
computed on them.

Ingest reads hundreds of thousands of small logs, where building a pandas
frame per module costs more than decoding the log.  This reads the C core's
buffers directly (the same buffers iolens.Log.records() wraps) and computes
the job and per-file numbers with numpy alone.  The definitions are those of
format spec 9.7 (as iolens.report.perf computes them on frames); the fleet
tests check the results against PyDarshan's job_stats and file_stats.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np

from .._frames import view
from .._meta import ModuleInfo

MIB = 1048576.0
# Sums are int64 (numpy wraps silently past 2^63).  While the absolute values
# summed stay below 2^62, no partial sum, and no read + write total of two of
# them, can leave the int64 range; past it the log is refused, not misstated.
SUM_LIMIT = float(1 << 62)


class ValueOutOfRangeError(ValueError):
    """A log's values are too large for the store's 64-bit columns."""


@dataclass
class Arrays:
    ids: np.ndarray      # uint64
    rank: np.ndarray     # int64, negative = shared record
    ints: np.ndarray     # (n, len(info.counters)) int64
    flts: np.ndarray     # (n, len(info.fcounters)) float64
    info: ModuleInfo

    def int(self, name: str) -> np.ndarray:
        """An integer counter's column; zeros when this module has no such counter."""
        try:
            return self.ints[:, self.info.counters.index(name)]
        except ValueError:
            return np.zeros(len(self.ids), np.int64)

    def subset(self, keep: np.ndarray) -> "Arrays":
        """The records where `keep` (a boolean mask) is true."""
        return Arrays(self.ids[keep], self.rank[keep], self.ints[keep], self.flts[keep], self.info)

    def flt(self, name: str, default: Optional[np.ndarray] = None) -> np.ndarray:
        try:
            return self.flts[:, self.info.fcounters.index(name)]
        except ValueError:
            return np.zeros(len(self.ids)) if default is None else default


def module_arrays(log, info: ModuleInfo) -> Arrays:
    """Records of a module present in `log` (an iolens.Log).  Uses the log's C
    handle, as iolens.log does; the arrays view the decoded buffers."""
    d = log._c.records(info.id)
    n = d["count"]
    if "rows" in d:   # stored layout: id, rank, ints, flts per row
        rows = view(d["rows"], np.int64, (n, d["row_size"] // 8))
        ni = d["n_int"]
        return Arrays(rows[:, 0].view(np.uint64), rows[:, 1], rows[:, 2:2 + ni],
                      rows.view(np.float64)[:, 2 + ni:], info)
    return Arrays(view(d["id"], np.uint64), view(d["rank"], np.int64),
                  view(d["ints"], np.int64, (n, d["n_int"])),
                  view(d["flts"], np.float64, (n, d["n_flt"])), info)


def check_summable(a: Arrays, names) -> None:
    """Raise ValueOutOfRangeError unless the counters `names` (those the module
    has) can be summed over every record, and added together, in int64."""
    cols = [a.info.counters.index(n) for n in names if n in a.info.counters]
    if not cols or not len(a.ids):
        return
    total = float(np.abs(a.ints[:, cols].astype(np.float64)).sum())
    if total >= SUM_LIMIT:
        raise ValueOutOfRangeError(
            f"{a.info.name} counters {', '.join(a.info.counters[c] for c in cols)} add up to "
            f"{total:.4g} in absolute value, more than 64-bit sums can hold (2^62)")


def io_times(a: Arrays, prefix: str):
    """Per record I/O time as the parser counts it, and the shared mask: a
    shared record counts its slowest rank's time, others read + write + meta."""
    own = (a.flt(prefix + "F_META_TIME") + a.flt(prefix + "F_READ_TIME")) \
        + a.flt(prefix + "F_WRITE_TIME")
    shared = a.rank < 0
    return np.where(shared, a.flt(prefix + "F_SLOWEST_RANK_TIME", own), own), shared


def _slowest(rank: np.ndarray, t: np.ndarray) -> float:
    """Summed time of the slowest rank (rank 0's when no time is positive)."""
    if not len(rank):
        return 0.0
    if rank.max() > 4 * len(rank) + 1024:   # sparse ranks (damaged logs): no huge array
        ranks, rank = np.unique(rank, return_inverse=True)
        sums = np.bincount(rank.reshape(-1), weights=t)
        if sums.max() > 0:
            return float(sums[int(np.argmax(sums))])
        return float(sums[0]) if ranks[0] == 0 else 0.0
    sums = np.bincount(rank, weights=t)   # accumulates in input order, like the parser
    return float(sums[int(np.argmax(sums))] if sums.max() > 0 else sums[0])


def job_numbers(a: Arrays, prefix: str, nprocs: int) -> Dict[str, float]:
    """bytes_read, bytes_written, time (agg_time_by_slowest) and perf (bytes/s)."""
    rd = int(a.int(prefix + "BYTES_READ").sum())
    wr = int(a.int(prefix + "BYTES_WRITTEN").sum())
    t, shared = io_times(a, prefix)
    st = t[shared]
    shared_time = float(np.cumsum(st)[-1]) if len(st) else 0.0
    mine = ~shared & (a.rank < nprocs)
    agg = _slowest(a.rank[mine], t[mine]) + shared_time
    perf = ((rd + wr) / MIB) / agg if agg != 0 else 0.0
    return {"bytes_read": rd, "bytes_written": wr, "time": agg, "perf": perf * 1024 ** 2}


def _group_sum(inv: np.ndarray, n: int, values: np.ndarray) -> np.ndarray:
    """Sum per group, exact for int64 (np.add.at, not a float bincount)."""
    out = np.zeros(n, dtype=values.dtype)
    np.add.at(out, inv, values)
    return out


def file_numbers(a: Arrays, prefix: str, nprocs: int, reads, writes) -> Dict[str, np.ndarray]:
    """Per distinct record id (sorted by id): the job numbers restricted to that
    file's records, plus reads and writes summed over `reads`/`writes` counters."""
    t, shared = io_times(a, prefix)
    ids, inv = np.unique(a.ids, return_inverse=True)
    inv = inv.reshape(-1)
    n = len(ids)
    out = {"file_id": ids}
    ops = {"reads": reads, "writes": writes}
    for name in ("bytes_read", "bytes_written", "reads", "writes"):
        if name in ops:
            values = np.zeros(len(inv), np.int64)
            for c in ops[name]:
                values = values + a.int(c)
        else:
            values = a.int(prefix + name.upper())
        out[name] = _group_sum(inv, n, values)
    shared_time = _group_sum(inv, n, np.where(shared, t, 0.0))
    # Summed time per (file, rank), then the slowest rank of each file.  A pair
    # is one int64 key (file index * (largest rank + 1) + rank; ranks here are
    # 0 <= rank < nprocs), since np.unique over the rows of a 2-D array costs
    # several times more; sums still accumulate in record order.
    mine = ~shared & (a.rank < nprocs)
    rank = a.rank[mine]
    width = int(rank.max()) + 1 if len(rank) else 1
    if width * max(n, 1) < 1 << 62:
        pair, pair_inv = np.unique(inv[mine].astype(np.int64) * width + rank, return_inverse=True)
        pair_file = pair // width
    else:   # ranks too large for one key (damaged logs)
        pair, pair_inv = np.unique(np.stack([inv[mine], rank]), axis=1, return_inverse=True)
        pair_file = pair[0]
    per_pair = _group_sum(pair_inv.reshape(-1), len(pair_file), t[mine])
    slow = np.zeros(n)
    np.maximum.at(slow, pair_file, per_pair)
    out["time_by_slowest"] = slow + shared_time
    out["total_bytes"] = out["bytes_read"] + out["bytes_written"]
    tt = out["time_by_slowest"]
    with np.errstate(divide="ignore", invalid="ignore"):
        mibs = np.where(tt != 0, (out["total_bytes"] / MIB) / tt, 0.0)
    out["perf_by_slowest"] = mibs * 1024 ** 2
    return out
