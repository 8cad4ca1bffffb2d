"""Chrome trace-event JSON (the format chrome://tracing and Perfetto's UI open),
streamed: "X" complete events per operation (pid = rank + 1, tid = track), "C"
counter events, "M" metadata events naming processes and threads as they first
appear, and the job metadata under the top-level "metadata" key (written first,
so a reader knows the partial flag and the damage before the events).  Times
are microseconds since job start.  JSON has no string table and no deltas: each
event carries its file name."""
from __future__ import annotations

import json
from typing import TextIO

import numpy as np

from .. import _core

from .perfetto import SLICE_NAMES, pid_of

COUNTER_PID = 0
FORMAT_ROWS = 1 << 16       # events formatted at a time: bounds the strings held


def write(export, out: TextIO) -> None:
    out.write('{"displayTimeUnit":"ns","metadata":')
    out.write(json.dumps(export.metadata))
    out.write(',"traceEvents":[\n')
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    lines = [dumps({"ph": "M", "name": "process_name", "pid": COUNTER_PID,
                    "args": {"name": "job counters"}})]
    for name, (unit, times, values) in export.counters().items():
        lines += [dumps({"ph": "C", "name": name, "pid": COUNTER_PID, "ts": ts / 1e3,
                         "args": {unit: v}}) for ts, v in zip(times.tolist(), values.tolist())]
    out.write(",\n".join(lines))
    # file names as JSON strings (ASCII: escapes for the rest, and for the bytes of a
    # name that is not UTF-8, as json.dumps writes lone surrogates)
    file_arg = [dumps(f).encode("ascii") for f in export.files]
    ranks_seen = set()
    for batch in export.placement.batches(export.source.pieces()):
        lines = []
        for t in batch.new_tracks:
            if t.rank not in ranks_seen:
                ranks_seen.add(t.rank)
                lines.append(dumps({"ph": "M", "name": "process_name", "pid": pid_of(t.rank),
                                    "args": {"name": export.process_name(t.rank)}}))
            lines.append(dumps({"ph": "M", "name": "thread_name", "pid": pid_of(t.rank),
                                "tid": t.uuid, "args": {"name": t.name}}))
        if lines:
            out.write(",\n" + ",\n".join(lines))
        for a in range(0, len(batch.ops.get("start_ns", ())), FORMAT_ROWS):
            part = {k: v[a:a + FORMAT_ROWS] for k, v in batch.ops.items()}
            out.write(",\n" + _slices(export, part, file_arg))
    out.write("\n]}\n")


def _slices(export, ops, file_arg) -> str:
    """The "X" events of operations ``ops`` (iolens._core.encode_json_slices)."""
    tracks = export.placement.tracks
    pid = np.asarray([pid_of(t.rank) for t in tracks], np.int64)[ops["track"]]
    tid = np.asarray([t.uuid for t in tracks], np.int64)[ops["track"]]
    name = (2 * ops["mod"].astype(np.int8) + ops["op"].astype(np.int8)).astype(np.int8)
    text = _core.encode_json_slices(
        pid, tid, name, ops["start_ns"], ops["end_ns"],
        np.ascontiguousarray(ops["file"], np.int32), ops["offset"].astype(np.int64),
        ops["length"].astype(np.int64), _NAMES, file_arg)
    return text.decode("utf-8", "surrogateescape")


_NAMES = [json.dumps(n).encode() for n in SLICE_NAMES]
