"""Values summed per process, held for the ranks the records name.

A log's nprocs is a claim nobody can check: 1.8 KB can say 134 million processes.
An array of nprocs values would cost gigabytes for it, so per-rank sums keep one
value per rank that has a record (memory follows the log's content) and one value,
``rest``, shared by every other rank: a shared record's (rank -1) even share, or 0.
The statistics below are those of the full nprocs-long array, computed without it.
"""
from __future__ import annotations

import numpy as np


class RankSums:
    """``values`` summed per rank over a job of ``nprocs`` processes.  Records of
    rank -1 (shared) are spread evenly over all ranks when ``spread``; records
    of ranks outside [0, nprocs) are otherwise ignored."""

    def __init__(self, ranks, values, nprocs: int, spread: bool = True):
        ranks = np.asarray(ranks, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        self.nprocs = max(int(nprocs), 1)
        own = (ranks >= 0) & (ranks < self.nprocs)
        self.ranks, where = np.unique(ranks[own], return_inverse=True)
        # bincount adds in input order, as np.add.at over a dense array did
        sums = np.bincount(where.reshape(-1), weights=values[own], minlength=len(self.ranks))
        self.rest = float(values[ranks < 0].sum()) / self.nprocs if spread else 0.0
        self.sums = sums + self.rest
        self.unnamed = self.nprocs - len(self.ranks)   # ranks holding just `rest`

    def _with_rest(self):
        """(distinct values, how many ranks hold each)."""
        if not self.unnamed:
            return self.sums, np.ones(len(self.sums), dtype=np.int64)
        return (np.append(self.sums, self.rest),
                np.append(np.ones(len(self.sums), dtype=np.int64), self.unnamed))

    def max(self) -> float:
        return float(self._with_rest()[0].max())

    def min(self) -> float:
        return float(self._with_rest()[0].min())

    def _first_unnamed(self) -> int:
        """The lowest rank without a record (ranks is sorted and distinct)."""
        gaps = np.flatnonzero(self.ranks != np.arange(len(self.ranks)))
        return int(gaps[0]) if len(gaps) else len(self.ranks)

    def _first_rank_at(self, value: float) -> int:
        named = self.ranks[self.sums == value]
        best = int(named[0]) if len(named) else self.nprocs
        if self.unnamed and self.rest == value:
            best = min(best, self._first_unnamed())
        return best

    def argmax(self) -> int:
        """The lowest rank holding the largest value (as np.argmax)."""
        return self._first_rank_at(self.max())

    def argmin(self) -> int:
        return self._first_rank_at(self.min())

    def median(self) -> float:
        vals, counts = self._with_rest()
        order = np.argsort(vals, kind="stable")
        vals, cum = vals[order], np.cumsum(counts[order])
        lo = vals[np.searchsorted(cum, (self.nprocs - 1) // 2, side="right")]
        hi = vals[np.searchsorted(cum, self.nprocs // 2, side="right")]
        return float((lo + hi) / 2)

    def at(self, rank: int) -> float:
        """The value of one rank."""
        hit = np.flatnonzero(self.ranks == rank)
        return float(self.sums[hit[0]]) if len(hit) else self.rest

    def mean(self) -> float:
        return float((self.sums.sum() + self.rest * self.unnamed) / self.nprocs)

    def at_least(self, limit: float, k: int = 16):
        """(how many ranks hold >= limit, the lowest k of them)."""
        named = self.ranks[self.sums >= limit]
        if not (self.unnamed and self.rest >= limit):
            return len(named), [int(r) for r in named[:k]]
        taken, extra, r = set(self.ranks.tolist()), [], 0
        while len(extra) < k and r < self.nprocs:   # the lowest unnamed ranks
            if r not in taken:
                extra.append(r)
            r += 1
        lowest = sorted([int(x) for x in named[:k]] + extra)[:k]
        return len(named) + self.unnamed, lowest
