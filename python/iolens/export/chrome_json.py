"""Chrome trace-event JSON (the format chrome://tracing and Perfetto's UI open):
"X" complete events per operation (pid = rank + 1, tid = track), "C" counter
events, "M" metadata events naming processes and threads, and the job metadata
under the top-level "metadata" key.  Times are microseconds since job start."""
from __future__ import annotations

import json
from typing import TextIO

from .model import TraceModel
from .perfetto import pid_of

COUNTER_PID = 0


def write(model: TraceModel, out: TextIO) -> None:
    out.write('{"displayTimeUnit":"ns","metadata":')
    out.write(json.dumps(model.metadata))
    out.write(',"traceEvents":[\n')
    first = True

    def emit(ev: dict):
        nonlocal first
        out.write(("" if first else ",\n") + json.dumps(ev, separators=(",", ":")))
        first = False

    for rank, name in sorted(model.ranks.items()):
        emit({"ph": "M", "name": "process_name", "pid": pid_of(rank), "args": {"name": name}})
    for k, t in enumerate(model.tracks):
        emit({"ph": "M", "name": "thread_name", "pid": pid_of(t.rank), "tid": k,
              "args": {"name": t.name}})
    emit({"ph": "M", "name": "process_name", "pid": COUNTER_PID, "args": {"name": "job counters"}})
    for name, (unit, times, values) in model.counters.items():
        for ts, v in zip(times.tolist(), values.tolist()):
            emit({"ph": "C", "name": name, "pid": COUNTER_PID, "ts": ts / 1e3,
                  "args": {unit: v}})
    c, files = model.cols, model.files
    for ts, begin, i, t in model.events():
        if not begin:
            continue
        emit({"ph": "X", "name": model.slice_name(i), "cat": "io",
              "pid": pid_of(model.tracks[t].rank), "tid": t,
              "ts": ts / 1e3, "dur": (int(model.end_ns[i]) - ts) / 1e3,
              "args": {"file": files[c["file"][i]], "offset": int(c["offset"][i]),
                       "size": int(c["length"][i])}})
    out.write("\n]}\n")
