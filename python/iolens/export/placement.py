"""Tracks and event order of the exported operations, piece by piece.

Both viewers need the slices of one track to nest: a slice either ends before
the next one starts or contains it.  DXT operations of one lane (a process, or
a thread of it) may overlap (asynchronous or threaded I/O), so each gets a
track number within its lane (``iolens._core.TrackPlacer``, in C: it sees every
operation):
- a POSIX operation inside the time of an open MPI-IO operation of the same
  lane goes on that operation's track, as its child (the MPI-IO call caused it);
- any other overlap goes to the lane's first free track (``overlap k``).

Perfetto's begin/end events must come in time order on one sequence (its
timestamps are deltas).  Pieces arrive sorted by start; within a piece the
operations are put in processing order (start, longer first, MPI-IO first at a
tie) and numbered ``seq``.  Every begin and every end due by the piece's last
start is then sorted by (time, ends before begins, ...): ends at one instant
close the later-opened slice first (-seq), a zero-length slice closes right
after it opens.  Ends after the piece's last start wait for the next piece:
what waits is the operations open at that instant, never the trace.
Times are integer nanoseconds, so containment is exact."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Tuple

import numpy as np

from .. import _core


@dataclass
class Track:
    uuid: int
    rank: int
    thread: object
    number: int          # track within its lane (0 = first)

    @property
    def name(self) -> str:
        base = f"thread {self.thread}" if self.thread is not None else "I/O"
        return base if self.number == 0 else f"{base} (overlap {self.number})"


@dataclass
class Batch:
    """One piece's operations in processing order (``ops``: columns with start_ns,
    end_ns and track added) and its events in output order: ``ts`` ns, ``begin``
    (bool), ``row`` (into ops for begins, -1 for ends), ``track`` (index into
    Placement.tracks).  ``new_tracks``: tracks first used in this batch."""

    ops: Dict[str, np.ndarray]
    ts: np.ndarray
    begin: np.ndarray
    row: np.ndarray
    track: np.ndarray
    new_tracks: List[Track]


def to_ns(seconds: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(seconds, np.float64) * 1e9).astype(np.int64)


class Placement:
    """Feed pieces in start order with batches(); each yields one Batch, and a
    last Batch flushes the ends still open."""

    def __init__(self, lanes: List[dict]):
        self.lanes = lanes
        self.tracks: List[Track] = []
        self._track_of: Dict[Tuple[int, int], int] = {}
        self._placer = _core.TrackPlacer(len(lanes))
        self._seq = 0
        # ends not yet written: ts, class (0 = end of a slice with a duration), key, track
        self._wait = (np.zeros(0, np.int64),) * 3 + (np.zeros(0, np.int32),)

    def batches(self, pieces) -> Iterator[Batch]:
        for piece in pieces:
            yield self._batch(piece)
        ts, _, _, track = self._wait
        order = np.lexsort((self._wait[2], self._wait[1], ts))
        yield Batch({}, ts[order], np.zeros(len(ts), bool), np.full(len(ts), -1, np.int64),
                    track[order], [])

    def _batch(self, piece: dict) -> Batch:
        start, end = to_ns(piece["start"]), to_ns(piece["end"])
        end = np.maximum(end, start)
        order = np.lexsort((-piece["mod"].astype(np.int16), -end, start))
        ops = {k: np.ascontiguousarray(v[order]) for k, v in piece.items()}
        ops["start_ns"], ops["end_ns"] = start[order], end[order]
        number = np.empty(len(order), np.int32)
        self._placer.place(ops["lane"].astype(np.int32), ops["start_ns"], ops["end_ns"],
                           ops["mod"].astype(np.int8), number)
        track, new = self._tracks_of(ops["lane"], number)
        ops["track"] = track
        n = len(order)
        seq = self._seq + np.arange(n, dtype=np.int64)
        self._seq += n
        zero = ops["end_ns"] == ops["start_ns"]
        # begins: class 1, key 2*seq; ends: class 0 key -seq, or (zero length) class 1 key 2*seq+1
        ts = np.concatenate([ops["start_ns"], ops["end_ns"], self._wait[0]])
        cls = np.concatenate([np.ones(n, np.int64), zero.astype(np.int64), self._wait[1]])
        key = np.concatenate([2 * seq, np.where(zero, 2 * seq + 1, -seq), self._wait[2]])
        trk = np.concatenate([track, track, self._wait[3]])
        row = np.concatenate([np.arange(n, dtype=np.int64), np.full(n + len(self._wait[0]), -1)])
        last = ops["start_ns"][-1]
        due = ts <= last
        later = ~due
        self._wait = (ts[later], cls[later], key[later], trk[later])
        ts, cls, key, trk, row = ts[due], cls[due], key[due], trk[due], row[due]
        out = np.lexsort((key, cls, ts))
        return Batch(ops, ts[out], row[out] >= 0, row[out], trk[out], new)

    def _tracks_of(self, lane: np.ndarray, number: np.ndarray):
        """Track index per operation; the tracks met for the first time."""
        pair = lane.astype(np.int64) << 32 | number.astype(np.int64)
        uniq, inv = np.unique(pair, return_inverse=True)
        new = []
        index = np.empty(len(uniq), np.int32)
        for j, p in enumerate(uniq.tolist()):
            t = self._track_of.get(p)
            if t is None:
                ln = self.lanes[p >> 32]
                t = self._track_of[p] = len(self.tracks)
                self.tracks.append(Track(uuid=1000 + t, rank=ln["rank"], thread=ln["thread"],
                                         number=p & 0xFFFFFFFF))
                new.append(self.tracks[t])
            index[j] = t
        return index[inv.ravel()], new
