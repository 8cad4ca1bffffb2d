"""Per-process and per-job I/O time of one module.

The formula is darshan-parser's (``--perf``, format spec 9.7), and PyDarshan
reports the same figure (``agg_time_by_slowest``) through the same arithmetic:
a process's I/O time is the read + write + metadata seconds of its own records;
a shared record (rank -1) keeps only the time of its slowest process, which is
added to every process's time, since all of them took part.  The job's I/O time
is the slowest process's time plus that shared time.  We keep it because it is
what users compare with darshan-parser and PyDarshan, and because it never
counts concurrent processes' seconds twice (a sum over processes would).

Per-process values are ``RankSums`` (iolens._ranks): one value per rank that has
a record, so a log claiming millions of processes costs what its records cost."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._ranks import RankSums
from .columns import amount
from .parser import record_times, seq_sum


@dataclass
class IoTime:
    per_process: RankSums     # seconds per rank, own records only
    meta: RankSums            # seconds of metadata per rank
    shared: float             # seconds: the shared records' slowest-process times
    slowest_rank: int
    job: float                # seconds: slowest process + shared

    def of(self, rank: int) -> float:
        """I/O seconds of one process, shared files included."""
        return self.per_process.at(rank) + self.shared


def record_seconds(frame: pd.DataFrame, prefix: str) -> np.ndarray:
    """Each record's read + write + metadata seconds ("not monitored" as 0); a
    shared record's are every process's added up."""
    return (amount(frame, prefix + "F_READ_TIME") + amount(frame, prefix + "F_WRITE_TIME")
            + amount(frame, prefix + "F_META_TIME"))


def io_time(frame: pd.DataFrame, prefix: str, nprocs: int) -> IoTime:
    times = record_times(frame, prefix)
    ranks = frame["rank"].to_numpy()
    mine = ~times.shared
    per = RankSums(ranks[mine], times.io[mine], nprocs, spread=False)
    meta = RankSums(ranks[mine], times.meta[mine], nprocs, spread=False)
    shared = seq_sum(times.io[times.shared])
    slow = per.argmax() if per.max() > 0 else 0
    return IoTime(per, meta, shared, slow, per.at(slow) + shared)
