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

from .perfetto import SLICE_NAMES, pid_of

COUNTER_PID = 0


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
    file_arg = [dumps(f) for f in export.files]
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
        ops = batch.ops
        if len(ops):
            lines += _slices(export, ops, file_arg)
        if lines:
            out.write(",\n" + ",\n".join(lines))
    out.write("\n]}\n")


def _slices(export, ops, file_arg):
    """One "X" event per operation of the batch (begins only: X has a duration)."""
    tracks = export.placement.tracks
    heads = [f'{{"ph":"X","cat":"io","pid":{pid_of(t.rank)},"tid":{t.uuid},"name":"'
             for t in tracks]
    name = (2 * ops["mod"].astype("int64") + ops["op"]).tolist()
    start, end = ops["start_ns"].tolist(), ops["end_ns"].tolist()
    return [f'{heads[t]}{SLICE_NAMES[k]}","ts":{s / 1e3!r},"dur":{(e - s) / 1e3!r},'
            f'"args":{{"file":{file_arg[f]},"offset":{o},"size":{z}}}}}'
            for t, k, s, e, f, o, z in zip(ops["track"].tolist(), name, start, end,
                                           ops["file"].tolist(), ops["offset"].tolist(),
                                           ops["length"].tolist())]
