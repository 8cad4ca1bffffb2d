"""The view's pass over the DXT trace, and the interval and per-OST inputs
taken from counters when there is no trace.

The trace is streamed in chunks (``Log._c.dxt_reader``), so a trace of 10^8
segments costs one chunk of memory plus the bounded interval and OST sums."""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
import pandas as pd

from .. import _frames
from .._meta import file_system_layers, module_info, record_id, trace_modules
from ..errors import LogError
from . import damage as dmg
from .columns import amount
from .intervals import IntervalScan
from .ost import OstScan

# Segments per chunk.  A chunk's columns and the temporaries of the checks and
# sums over it cost about 200 bytes a segment (measured: a 3 M-segment trace
# peaked 180 MiB above the imports with 1 Mi-segment chunks), so 256 Ki keeps a
# pass near 50 MiB whatever the trace's length; numpy's per-call overhead is
# still negligible at this size.
CHUNK = 1 << 18
TRACES = trace_modules()


def _span(view) -> float:
    return max(view.run_time + dmg.margin(view.run_time), 1.0)


def scan(view) -> Tuple[Optional[IntervalScan], OstScan]:
    """Segment damage into view.damage; the intervals of the POSIX trace (else
    the MPI-IO one; None without segments) and the per-OST sums."""
    ost = OstScan(view.lustre())
    found = {}
    only = np.uint64(record_id(view.file)) if view.file is not None else None
    for name in TRACES:
        if name not in view.modules:
            continue
        found[name] = IntervalScan(_span(view), name)
        try:
            _scan_module(view, name, found[name], ost, only)
        except (LogError, ValueError, OSError) as err:
            view.notes.append(f"The {name} trace could not be read ({err}); "
                              "the figures use the part read before the error.")
    for name in TRACES:
        if name in found and found[name].operations:
            return found[name], ost
    return None, ost


def _scan_module(view, name, intervals: IntervalScan, ost: OstScan, only) -> None:
    for seg, bad, kinds in chunks(view, name):
        view.damage.add(name, kinds, int(bad.sum()), segments=True)
        good = ~bad if only is None else ~bad & (seg["id"] == only)
        start, end, length, write = (seg[k][good] for k in ("start", "end", "length", "write"))
        intervals.add(start, end, length, write)
        ost.add(name, seg["id"][good], seg["offset"][good], length, start, end, write)


def has_thread_ids(view, name: str) -> bool:
    """Whether the stored trace records each segment's thread: the versions
    after the table's (DXT_POSIX 2, DXT_MPIIO 3; src/format/decode_dxt.c)."""
    return view.modules[name]["version"] > module_info(name).version


def chunks(view, name: str, size: int = CHUNK):
    """The trace `name` ("DXT_POSIX", "DXT_MPIIO") streamed in chunks of at most
    `size` segments, in stored order: (columns, bad, kinds) per chunk, where
    columns are id, rank, start, end, offset, length, write (bool) and
    thread_id (0 without thread ids) of every segment, and bad/kinds its damage
    (damage.segment_checks).  One chunk is held at a time (plus one id and rank
    per record): the one pass over a trace every figure of it uses."""
    reader = view.log._c.dxt_reader(module_info(name).id)
    ids, ranks = np.zeros(0, np.uint64), np.zeros(0, np.int64)
    while (d := reader.read(size)) is not None:
        ids = np.concatenate([ids, _frames.view(d["id"], np.uint64)])
        ranks = np.concatenate([ranks, _frames.view(d["rank"], np.int64)])
        if not d["nseg"]:
            continue
        rec = _frames.view(d["seg_rec"], np.int64)
        seg = {"id": ids[rec], "rank": ranks[rec],
               "start": _frames.view(d["start"], np.float64),
               "end": _frames.view(d["end"], np.float64),
               "offset": _frames.view(d["offset"], np.int64),
               "length": _frames.view(d["length"], np.int64),
               "write": _frames.view(d["seg_write"], np.int8).astype(bool),
               "thread_id": _frames.view(d["thread_id"], np.uint64)}
        del d
        bad, kinds = dmg.segment_checks(seg["start"], seg["end"], seg["offset"],
                                        seg["length"], view.run_time, name == "DXT_MPIIO")
        yield seg, bad, kinds


def from_counters(view) -> IntervalScan:
    """Intervals from each record's first-start and last-end read and write
    timestamps at the file-system layers, bytes spread over that span (an
    upper bound on busy time: the counters keep no gaps within it)."""
    out = IntervalScan(_span(view), "counters")
    for module in file_system_layers():
        info = module_info(module)
        p = info.prefix
        for op, key, is_write in (("READ", "BYTES_READ", False),
                                  ("WRITE", "BYTES_WRITTEN", True)):
            names = [p + f"F_{op}_START_TIMESTAMP", p + f"F_{op}_END_TIMESTAMP", p + key]
            if not all(n in info.descriptions for n in names) or module not in view.modules:
                continue
            frame = view.records(module, columns=names)
            if frame is None or not len(frame):
                continue
            s, e = amount(frame, names[0]), amount(frame, names[1])
            happened = e > 0
            s = np.where(happened & (s <= 0), e, s)   # a start of 0 reads "not recorded"
            out.add(s[happened], e[happened], amount(frame, names[2])[happened],
                    np.full(int(happened.sum()), is_write))
    return out


def posix_per_file(view) -> pd.DataFrame:
    """Per POSIX record: id, bytes_read, bytes_written, read_time, write_time and
    extent (largest offset + 1): what the per-OST estimate spreads."""
    names = ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_F_READ_TIME",
             "POSIX_F_WRITE_TIME", "POSIX_MAX_BYTE_READ", "POSIX_MAX_BYTE_WRITTEN"]
    frame = view.records("POSIX", columns=names) if "POSIX" in view.modules else None
    if frame is None or not len(frame):
        return None
    return pd.DataFrame({
        "id": frame["id"].to_numpy(),
        "bytes_read": amount(frame, names[0]), "bytes_written": amount(frame, names[1]),
        "read_time": amount(frame, names[2]), "write_time": amount(frame, names[3]),
        "extent": np.maximum(amount(frame, names[4]), amount(frame, names[5])) + 1})
