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
tie) and numbered ``seq``.  The piece's begins and every end due by its last
start are merged in time order: ends at an instant come before begins at it,
ends at one instant close the later-opened slice first (higher seq), and a
zero-length slice closes right after it opens.  Ends after the piece's last
start wait for the next piece: what waits is the operations open at that
instant, never the trace.  Chrome JSON writes complete slices ("X": start
and duration), so it takes the pieces placed (``placed()``) without this merge.
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
        self._lane_tracks: Dict[int, int] = {}    # lane -> tracks it has so far
        self._placer = _core.TrackPlacer(len(lanes))
        self._seq = 0
        # ends not yet written, by (time, later-opened first): ts, seq, track
        self._wait = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int32))

    def batches(self, pieces) -> Iterator[Batch]:
        for piece in pieces:
            yield self._batch(*self._place(piece))
        ts, _, track = self._wait
        yield Batch({}, ts, np.zeros(len(ts), bool), np.full(len(ts), -1, np.int64), track, [])

    def placed(self, pieces) -> Iterator[Tuple[Dict[str, np.ndarray], List[Track]]]:
        """Each piece in processing order with start_ns, end_ns and track columns,
        and the tracks first used in it; no begin/end events.  For a format of
        complete slices (Chrome JSON "X" events), which needs neither the merge
        of begins and ends nor the ends that wait for later pieces."""
        for piece in pieces:
            yield self._place(piece)

    def _batch(self, ops: Dict[str, np.ndarray], new: List[Track]) -> Batch:
        start, end, track = ops["start_ns"], ops["end_ns"], ops["track"]
        n = len(start)
        seq = self._seq + np.arange(n, dtype=np.int64)
        self._seq += n
        zero = end == start
        # ends of slices with a duration, this piece's and those waiting, by (time,
        # later-opened first): a stable sort by time of rows in descending seq order
        # (every waiting seq is below this piece's)
        mine = np.flatnonzero(~zero)[::-1]
        w_ts, w_seq, w_trk = self._wait
        back = np.argsort(-w_seq, kind="stable")
        e_ts = np.concatenate([end[mine], w_ts[back]])
        e_seq = np.concatenate([seq[mine], w_seq[back]])
        e_trk = np.concatenate([track[mine], w_trk[back]])
        by_time = np.argsort(e_ts, kind="stable")
        e_ts, e_seq, e_trk = e_ts[by_time], e_seq[by_time], e_trk[by_time]
        due = int(np.searchsorted(e_ts, start[-1], side="right"))
        self._wait = (e_ts[due:], e_seq[due:], e_trk[due:])
        e_ts, e_trk = e_ts[:due], e_trk[:due]
        # merge: an end at a begin's time goes first; a zero-length slice's end
        # right after its begin
        units = np.zeros(n + 1, np.int64)
        np.cumsum(1 + zero, out=units[1:])
        at_begin = units[:-1] + np.searchsorted(e_ts, start, side="right")
        at_end = np.arange(due) + units[np.searchsorted(start, e_ts, side="left")]
        total = n + int(zero.sum()) + due
        ts = np.empty(total, np.int64)
        begin = np.zeros(total, bool)
        row = np.full(total, -1, np.int64)
        trk = np.empty(total, np.int32)
        ts[at_begin], begin[at_begin], row[at_begin], trk[at_begin] = start, True, \
            np.arange(n), track
        z = at_begin[zero] + 1
        ts[z], trk[z] = start[zero], track[zero]
        ts[at_end], trk[at_end] = e_ts, e_trk
        return Batch(ops, ts, begin, row, trk, new)

    def _place(self, piece: dict):
        """The piece in processing order with start_ns, end_ns and track columns;
        the tracks met for the first time."""
        start, end = to_ns(piece["start"]), to_ns(piece["end"])
        end = np.maximum(end, start)
        order = _processing_order(start, end, piece["mod"])
        if order is None:
            ops = dict(piece)
        else:
            ops = {k: v[order] for k, v in piece.items()}
            start, end = start[order], end[order]
        ops["start_ns"], ops["end_ns"] = start, end
        track = np.empty(len(start), np.int32)
        self._placer.place(np.ascontiguousarray(ops["lane"], np.int32), start, end,
                           np.ascontiguousarray(ops["mod"], np.int8), track)
        ops["track"] = track
        return ops, self._new_tracks(ops["lane"], track)

    def _new_tracks(self, lane: np.ndarray, track: np.ndarray) -> List[Track]:
        """The tracks first used in this piece: the placer numbers tracks in
        order of first use, so they are those numbered from len(self.tracks) on,
        each made in its lane after the lane's earlier tracks."""
        if not len(track) or int(track.max()) < len(self.tracks):
            return []
        fresh = np.flatnonzero(track >= len(self.tracks))
        ids, first = np.unique(track[fresh], return_index=True)
        new = []
        for t, code in zip(ids.tolist(), lane[fresh[first]].tolist()):
            assert t == len(self.tracks), "the placer numbers tracks in order of first use"
            number = self._lane_tracks.get(code, 0)
            self._lane_tracks[code] = number + 1
            ln = self.lanes[code]
            self.tracks.append(Track(uuid=1000 + t, rank=ln["rank"], thread=ln["thread"],
                                     number=number))
            new.append(self.tracks[t])
        return new


def _processing_order(start: np.ndarray, end: np.ndarray, mod: np.ndarray):
    """Order by (start, longer first, MPI-IO first) of rows already sorted by
    start (iolens._core.processing_order: a sort of each run of tied starts
    only); None when no two rows share a start (the order is theirs)."""
    order = np.empty(len(start), np.int64)
    if not _core.processing_order(start, end, np.ascontiguousarray(mod, np.int8), order):
        return None
    return order
