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


class IntervalScan:
    """Busy union and bytes in flight, fed chunk by chunk; ``source`` names
    where the operations came from ("DXT_POSIX", "DXT_MPIIO" or "counters")."""

    def __init__(self, span: float, source: str):
        self.source = source
        self.resolution = resolution_for(span)
        self.nbins = max(int(np.ceil(max(span, self.resolution) / self.resolution)), 1)
        self.busy_start = np.zeros(0)
        self.busy_end = np.zeros(0)
        # per bin: sums of rate and rate*time for operations starting (s) or ending (e)
        self._acc = {k: np.zeros((4, self.nbins)) for k in ("read", "write")}
        self._instant = {k: np.zeros(self.nbins) for k in ("read", "write")}
        self.operations = 0
        self.bytes = {"read": 0.0, "write": 0.0}

    def _bin(self, t: np.ndarray) -> np.ndarray:
        return np.clip((t / self.resolution).astype(np.int64), 0, self.nbins - 1)

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
        dur = e - s
        flat = dur <= 0
        np.add.at(self._instant[kind], self._bin(s[flat]), b[flat])
        s, e, b, dur = s[~flat], e[~flat], b[~flat], dur[~flat]
        rate = b / dur
        acc = self._acc[kind]
        # F(x) = sum rate*(x - s) over s < x  -  sum rate*(x - e) over e < x
        np.add.at(acc[0], self._bin(s), rate)
        np.add.at(acc[1], self._bin(s), rate * s)
        np.add.at(acc[2], self._bin(e), rate)
        np.add.at(acc[3], self._bin(e), rate * e)

    # ------------------------------------------------------------ results
    def in_flight(self) -> pd.DataFrame:
        """Per bin: start (s), width (s), read_bytes, write_bytes moved in it."""
        edges = np.arange(self.nbins + 1) * self.resolution
        cols = {"start": edges[:-1], "width": np.full(self.nbins, self.resolution)}
        for kind in ("read", "write"):
            acc = self._acc[kind]
            c = np.zeros((4, self.nbins + 1))
            c[:, 1:] = np.cumsum(acc, axis=1)        # c[:, k] = sums over bins < k
            moved = edges * c[0] - c[1] - (edges * c[2] - c[3])
            per_bin = np.diff(moved) + self._instant[kind]
            # What ends after the last edge stays in the last bin (never lost).
            per_bin[-1] += max(self.bytes[kind] - float(per_bin.sum()), 0.0)
            cols[f"{kind}_bytes"] = np.maximum(per_bin, 0.0)
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
