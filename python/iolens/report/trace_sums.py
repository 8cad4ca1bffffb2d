"""The report's DXT figures (heat map, per-thread activity and table) in
bounded memory: two streamed passes over each trace with the view's chunk
iterator (iolens.view.trace.chunks), never the whole trace in a DataFrame.

Pass 1 finds what binning needs before any bin is filled: the last end (the
bin width depends on it), the ranks, and per (rank, thread id) lane its sums;
pass 2 spreads each chunk's bytes over the bins.  Memory is one chunk plus
per-lane and per-rank sums, whatever the number of segments.

Threads are numbered within their rank by their first start over every
segment of the trace, as ``Log.dxt`` numbers them (so the figures equal the
whole-trace ones); the sums are over the undamaged segments of the report's
file."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

import numpy as np
import pandas as pd

from .._meta import record_id
from ..errors import LogError
from ..view.intervals import _Spread
from ..view.trace import CHUNK, TRACES, chunks, has_thread_ids

_READ_ERRORS = (LogError, KeyError, ValueError, OSError)
_LANE = ["rank", "thread_id"]


@dataclass
class TraceSums:
    """Pass 1 of one trace: undamaged segments of the report's file."""
    segments: int
    last_end: float
    ranks: np.ndarray                 # sorted
    lanes: Optional[pd.DataFrame]     # rank, thread, ops, bytes, first, last, busy; None: no ids
    lane_ids: Optional[pd.DataFrame]  # rank, thread_id -> lane (row of `lanes`)


def trace_sums(data, size: int = CHUNK) -> Dict[str, TraceSums]:
    """{"DXT_POSIX"/"DXT_MPIIO": TraceSums} of the traces present (pass 1);
    a trace that cannot be read is left out, as the view leaves it out."""
    out = {}
    for name in TRACES:
        if name in data.modules:
            try:
                out[name] = _first_pass(data, name, size)
            except _READ_ERRORS:
                continue
    return out


def _kept(data, seg, bad) -> np.ndarray:
    good = ~bad
    if data.file is not None:
        good &= seg["id"] == np.uint64(record_id(data.file))
    return good


def _first_pass(data, name: str, size: int) -> TraceSums:
    view, tids = data.view, has_thread_ids(data.view, name)
    n, last, ranks, firsts, sums = 0, -np.inf, np.zeros(0, np.int64), [], []
    for seg, bad, _ in chunks(view, name, size):
        good = _kept(data, seg, bad)
        n += int(good.sum())
        if good.any():
            last = max(last, float(seg["end"][good].max()))
            ranks = np.union1d(ranks, seg["rank"][good])
        if tids:
            lanes = pd.DataFrame({k: seg[k] for k in _LANE + ["start"]}, copy=False)
            firsts.append(lanes.groupby(_LANE, sort=False)["start"].min().reset_index())
            kept = pd.DataFrame({k: seg[k][good] for k in _LANE + ["start", "end", "length"]})
            sums.append(kept.assign(busy=kept["end"] - kept["start"]).groupby(_LANE).agg(
                ops=("length", "size"), bytes=("length", "sum"), first=("start", "min"),
                last=("end", "max"), busy=("busy", "sum")).reset_index())
            firsts, sums = _fold(firsts, sums)
    if not tids:
        return TraceSums(n, last, ranks, None, None)
    return TraceSums(n, last, ranks, *_numbered(firsts[0], sums[0]))


def _fold(firsts, sums):
    """The chunks' per-lane partial results folded into one (bounded by lanes)."""
    if len(firsts) > 1:
        firsts = [pd.concat(firsts).groupby(_LANE, sort=False)["start"].min().reset_index()]
        sums = [pd.concat(sums).groupby(_LANE).agg(
            ops=("ops", "sum"), bytes=("bytes", "sum"), first=("first", "min"),
            last=("last", "max"), busy=("busy", "sum")).reset_index()]
    return firsts, sums


def _numbered(firsts: pd.DataFrame, sums: pd.DataFrame):
    """(lanes, lane ids): each thread's number within its rank (0 for the one
    whose first operation came first), its kept sums sorted by rank and number."""
    firsts = firsts.copy()
    firsts["thread"] = firsts.sort_values(["rank", "start", "thread_id"]).groupby(
        "rank").cumcount()
    lanes = sums.merge(firsts[_LANE + ["thread"]], on=_LANE, how="left")
    lanes = lanes.sort_values(["rank", "thread"]).reset_index(drop=True)
    lane_ids = lanes[_LANE].assign(lane=np.arange(len(lanes)))
    cols = ["rank", "thread", "ops", "bytes", "first", "last", "busy"]
    return lanes[cols], lane_ids


def spread_pass(data, name: str, sums: TraceSums, width: float, nbins: int,
                size: int = CHUNK):
    """Pass 2: (read, write) bytes per rank (rows: sums.ranks) and, with thread
    ids, bytes per lane (rows: sums.lanes), per time bin of `width` seconds."""
    ops = {op: _Spread(width, nbins, len(sums.ranks)) for op in ("read", "write")}
    lanes = None if sums.lanes is None else _Spread(width, nbins, len(sums.lanes))
    for seg, bad, _ in chunks(data.view, name, size):
        good = _kept(data, seg, bad)
        if not good.any():
            continue
        seg = {k: v[good] for k, v in seg.items()}
        row = np.searchsorted(sums.ranks, seg["rank"])
        for op, mask in (("read", ~seg["write"]), ("write", seg["write"])):
            ops[op].add(row[mask], seg["start"][mask], seg["end"][mask], seg["length"][mask])
        if lanes is not None:
            lane = pd.DataFrame({k: seg[k] for k in _LANE}).merge(
                sums.lane_ids, on=_LANE, how="left")["lane"].to_numpy()
            lanes.add(lane, seg["start"], seg["end"], seg["length"])
    return (ops["read"].bins(), ops["write"].bins(),
            None if lanes is None else lanes.bins())
