"""Time intervals of I/O, built from each operation's start AND end (never from
the bin its start falls in): busy time, idle gaps, phases, bytes in flight and
bandwidth (docs/metrics.md, "Intervals").

Operations arrive in chunks (a DXT trace of any length is streamed), so memory
is bounded by the resolution, not by the trace:
- the busy set is kept as a sorted list of disjoint intervals; intervals closer
  than `resolution` are joined, so the list never holds more than
  span / resolution + 1 intervals and gaps shorter than `resolution` are not seen;
- bytes in flight are kept per bin of width `resolution`, each operation's
  bytes spread evenly over its own duration, so a bin gets exactly the share of
  each operation that overlaps it (an operation of zero duration puts its bytes
  in the bin of its start)."""
from __future__ import annotations

import numpy as np
import pandas as pd

# Bins over the run: the resolution is the run time / STEPS (at least 1 µs).
STEPS = 200_000
MIN_RESOLUTION = 1e-6


def resolution_for(span: float) -> float:
    return max(float(span) / STEPS, MIN_RESOLUTION)


def union(starts: np.ndarray, ends: np.ndarray, join: float = 0.0):
    """Disjoint sorted union of intervals; those closer than `join` become one."""
    if not len(starts):
        return starts, ends
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1] + join
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(s)) - 1
    return s[first], reach[last]


def spread(keys: np.ndarray, start: np.ndarray, end: np.ndarray, nbytes: np.ndarray,
           width: float, nbins: int, nkeys: int) -> np.ndarray:
    """(nkeys, nbins) bytes per key (e.g. a rank index) and time bin of `width`
    seconds: each operation's bytes spread evenly over [start, end), so a bin gets
    exactly the share that overlaps it; an operation of zero duration puts its
    bytes in the bin of its start; what lies past the last bin stays in it."""
    acc = _Spread(width, nbins, nkeys)
    acc.add(keys, start, end, nbytes)
    return acc.bins()


class _Spread:
    """Accumulators of ``spread``, fed in chunks: per (key, bin) the sums of
    rate and rate*time of operations starting (s) and ending (e) in the bin, so
    that the bytes moved before a bin edge x are
    sum rate*(x - s) over s < x  -  sum rate*(x - e) over e < x."""

    def __init__(self, width: float, nbins: int, nkeys: int = 1):
        self.width, self.nbins = float(width), int(nbins)
        self.acc = np.zeros((4, nkeys, self.nbins))
        self.instant = np.zeros((nkeys, self.nbins))
        self.total = np.zeros(nkeys)

    def _bin(self, t: np.ndarray) -> np.ndarray:
        return np.clip((t / self.width).astype(np.int64), 0, self.nbins - 1)

    def add(self, keys, s, e, b) -> None:
        keys = np.asarray(keys, np.int64)
        s, e, b = (np.asarray(x, np.float64) for x in (s, e, b))
        np.add.at(self.total, keys, b)
        flat = (e - s) <= 0
        np.add.at(self.instant, (keys[flat], self._bin(s[flat])), b[flat])
        keys, s, e, b = keys[~flat], s[~flat], e[~flat], b[~flat]
        rate = b / (e - s)
        for row, (t, w) in enumerate(((s, rate), (s, rate * s), (e, rate), (e, rate * e))):
            np.add.at(self.acc[row], (keys, self._bin(t)), w)

    def bins(self) -> np.ndarray:
        edges = np.arange(self.nbins + 1) * self.width
        c = np.zeros(self.acc.shape[:2] + (self.nbins + 1,))
        c[..., 1:] = np.cumsum(self.acc, axis=2)          # c[..., k] = sums over bins < k
        moved = edges * c[0] - c[1] - (edges * c[2] - c[3])
        out = np.diff(moved, axis=1) + self.instant
        out[:, -1] += np.maximum(self.total - out.sum(axis=1), 0.0)
        return np.maximum(out, 0.0)


class IntervalScan:
    """Busy union and bytes in flight, fed chunk by chunk; ``source`` names
    where the operations came from ("DXT_POSIX", "DXT_MPIIO" or "counters")."""

    def __init__(self, span: float, source: str):
        self.source = source
        self.resolution = resolution_for(span)
        self.nbins = max(int(np.ceil(max(span, self.resolution) / self.resolution)), 1)
        self.busy_start = np.zeros(0)
        self.busy_end = np.zeros(0)
        self._flight = {k: _Spread(self.resolution, self.nbins) for k in ("read", "write")}
        self.operations = 0
        self.bytes = {"read": 0.0, "write": 0.0}

    def add(self, start: np.ndarray, end: np.ndarray, nbytes: np.ndarray,
            write: np.ndarray) -> None:
        """Operations [start, end) moving nbytes; `write` says which are writes.
        The caller has set damaged ones aside (finite, start <= end)."""
        start = np.asarray(start, np.float64)
        end = np.asarray(end, np.float64)
        if not len(start):
            return
        self.operations += len(start)
        s, e = union(start, end, self.resolution)
        s, e = union(np.concatenate([self.busy_start, s]),
                      np.concatenate([self.busy_end, e]), self.resolution)
        self.busy_start, self.busy_end = s, e
        nbytes = np.asarray(nbytes, np.float64)
        write = np.asarray(write, bool)
        for kind, mask in (("read", ~write), ("write", write)):
            self._spread(kind, start[mask], end[mask], nbytes[mask])

    def _spread(self, kind: str, s: np.ndarray, e: np.ndarray, b: np.ndarray) -> None:
        self.bytes[kind] += float(b.sum())
        self._flight[kind].add(np.zeros(len(s), np.int64), s, e, b)

    # ------------------------------------------------------------ results
    def in_flight(self) -> pd.DataFrame:
        """Per bin: start (s), width (s), read_bytes, write_bytes moved in it."""
        edges = np.arange(self.nbins + 1) * self.resolution
        cols = {"start": edges[:-1], "width": np.full(self.nbins, self.resolution)}
        for kind in ("read", "write"):
            cols[f"{kind}_bytes"] = self._flight[kind].bins()[0]
        return pd.DataFrame(cols)

    @property
    def busy_seconds(self) -> float:
        return float((self.busy_end - self.busy_start).sum())

    def busy(self) -> pd.DataFrame:
        """The disjoint intervals in which at least one operation ran."""
        return pd.DataFrame({"start": self.busy_start, "end": self.busy_end})

    def gaps(self) -> pd.DataFrame:
        """Idle intervals between the first and the last operation, longest first:
        start, end, seconds (none shorter than the resolution)."""
        s, e = self.busy_start[1:], self.busy_end[:-1]
        out = pd.DataFrame({"start": e, "end": s, "seconds": s - e})
        return out.sort_values(["seconds", "start"], ascending=[False, True],
                               kind="stable").reset_index(drop=True)

    def phases(self, min_gap: float) -> pd.DataFrame:
        """Stretches of I/O separated by idle gaps of at least `min_gap` seconds:
        start, end, seconds, read_bytes, write_bytes (bytes from the bins they cover)."""
        s, e = union(self.busy_start, self.busy_end, max(min_gap, self.resolution))
        flight = self.in_flight()
        cum = {k: np.concatenate([[0.0], np.cumsum(flight[f"{k}_bytes"].to_numpy())])
               for k in ("read", "write")}
        lo = np.clip((s / self.resolution).astype(np.int64), 0, self.nbins)
        hi = np.clip(np.ceil(e / self.resolution).astype(np.int64), 0, self.nbins)
        hi = np.maximum(hi, np.minimum(lo + 1, self.nbins))
        out = pd.DataFrame({"start": s, "end": e, "seconds": e - s})
        for k in ("read", "write"):
            out[f"{k}_bytes"] = cum[k][hi] - cum[k][lo]
        return out

    def bandwidth(self) -> float:
        """Bytes per second of busy time (0 when nothing ran)."""
        busy = self.busy_seconds
        total = self.bytes["read"] + self.bytes["write"]
        return total / busy if busy > 0 else 0.0
