"""Chrome trace-event JSON (the format chrome://tracing and Perfetto's UI open),
streamed to a binary file: "X" complete events per operation (pid = rank + 1,
tid = track), "C" counter events, "M" metadata events naming processes and
threads as they first appear, and the job metadata under the top-level
"metadata" key (written first, so a reader knows the partial flag and the damage
before the events).  Times are microseconds since job start, with the fewest
digits that keep every nanosecond.  JSON has no string table and no deltas: each
event carries its file name.

A complete event needs no begin/end merge: the operations come placed on their
tracks in start order (placement.Placement.placed), are encoded in C many at a
time (iolens._core.encode_json_slices) and written 1 MiB at a time (sink.py)."""
from __future__ import annotations

import json
from typing import BinaryIO

import numpy as np

from .. import _core

from .perfetto import SLICE_NAMES, pid_of
from .sink import write_in_slices

COUNTER_PID = 0
FORMAT_ROWS = 1 << 18       # events encoded at a time: bounds the bytes held (~40 MiB)

_dumps = json.JSONEncoder(separators=(",", ":")).encode     # ASCII: escapes the rest


def write(export, out: BinaryIO) -> None:
    """Write the whole trace of ``export`` (model.Export) to the binary file ``out``."""
    out.write(b'{"displayTimeUnit":"ns","metadata":' + json.dumps(export.metadata).encode()
              + b',"traceEvents":[\n')
    lines = [_event("process_name", COUNTER_PID, None, "job counters")]
    for name, (unit, times, values) in export.counters().items():
        lines += [_dumps({"ph": "C", "name": name, "pid": COUNTER_PID, "ts": ts / 1e3,
                          "args": {unit: v}}) for ts, v in zip(times.tolist(), values.tolist())]
    out.write(",\n".join(lines).encode())
    # file names as JSON strings (ASCII: escapes for the rest, and for the bytes of a
    # name that is not UTF-8, as json.dumps writes lone surrogates)
    file_arg = [_dumps(f).encode("ascii") for f in export.files]
    tracks = _TrackColumns(export.placement.tracks)
    ranks_seen = set()
    for ops, new_tracks in export.placement.placed(export.source.pieces()):
        lines = []
        for t in new_tracks:
            if t.rank not in ranks_seen:
                ranks_seen.add(t.rank)
                lines.append(_event("process_name", pid_of(t.rank), None,
                                    export.process_name(t.rank)))
            lines.append(_event("thread_name", pid_of(t.rank), t.uuid, t.name))
        if lines:
            out.write(b",\n" + ",\n".join(lines).encode())
        if new_tracks:
            tracks.update()
        for a in range(0, len(ops["start_ns"]), FORMAT_ROWS):
            part = {k: v[a:a + FORMAT_ROWS] for k, v in ops.items()}
            out.write(b",\n")
            write_in_slices(out, _slices(part, tracks, file_arg))
    out.write(b"\n]}\n")


def _event(kind: str, pid: int, tid, name: str) -> str:
    ev = {"ph": "M", "name": kind, "pid": pid}
    if tid is not None:
        ev["tid"] = tid
    ev["args"] = {"name": name}
    return _dumps(ev)


class _TrackColumns:
    """pid and tid of every track so far, as arrays indexed by track (update()
    after new tracks appear)."""

    def __init__(self, tracks):
        self._tracks = tracks
        self.pid = self.tid = np.zeros(0, np.int64)

    def update(self) -> None:
        self.pid = np.asarray([pid_of(t.rank) for t in self._tracks], np.int64)
        self.tid = np.asarray([t.uuid for t in self._tracks], np.int64)


def _slices(ops, tracks: _TrackColumns, file_arg) -> bytes:
    """The "X" events of operations ``ops`` (iolens._core.encode_json_slices)."""
    track = ops["track"]
    name = 2 * ops["mod"].astype(np.int8) + ops["op"].astype(np.int8)
    return _core.encode_json_slices(
        tracks.pid[track], tracks.tid[track], name.astype(np.int8, copy=False),
        ops["start_ns"], ops["end_ns"], np.ascontiguousarray(ops["file"], np.int32),
        np.ascontiguousarray(ops["offset"], np.int64),
        np.ascontiguousarray(ops["length"], np.int64), _NAMES, file_arg)


_NAMES = [json.dumps(n).encode() for n in SLICE_NAMES]
