"""Activity over time: per-process access spans and DXT heat map bins."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .interfaces import PREFIX, TIMELINE_MODULES, api_name
from ..view.columns import counter as col
from .trace_sums import spread_pass, trace_sums

def timeline(data) -> pd.DataFrame:
    """First and last access per (module, rank); rank -1 = shared records."""
    parts = []
    for module, frame in data.frames(TIMELINE_MODULES):
        prefix = PREFIX[module]
        starts = [col(frame, f"{prefix}F_{k}_START_TIMESTAMP", 0.0) for k in ("OPEN", "READ", "WRITE")]
        ends = [col(frame, f"{prefix}F_{k}_END_TIMESTAMP", 0.0) for k in ("CLOSE", "READ", "WRITE", "OPEN")]
        # Zero means "never happened"; ignore it when taking the minimum.
        start = np.min([np.where(s > 0, s, np.inf) for s in starts], axis=0)
        end = np.max(ends, axis=0)
        ok = np.isfinite(start) & (end >= start)
        if not ok.any():
            continue
        part = pd.DataFrame({"rank": frame["rank"].to_numpy()[ok],
                             "start": start[ok], "end": end[ok]})
        part = part.groupby("rank").agg(start=("start", "min"), end=("end", "max")).reset_index()
        part.insert(0, "module", module)
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# Bins of a heat map binned here (from DXT segments): a round number of seconds
# (1, 2 or 5 times a power of ten), the smallest that gives at most MAX_BINS bins,
# so 24 to 60 bins whether the job ran 0.08 s or 10 hours.
MAX_BINS = 60


def bin_width(span: float) -> float:
    """The smallest round width that cuts `span` seconds into at most MAX_BINS bins."""
    raw = max(float(span), 1e-9) / MAX_BINS
    power = 10.0 ** np.floor(np.log10(raw))
    return float(next(step * power for step in (1, 2, 5, 10) if step * power >= raw))


def _bins_of(sums, data):
    """(width, number of bins) for a trace whose last end is sums.last_end."""
    span = max(float(sums.last_end), data.run_time, 1e-9)
    width = bin_width(span)
    return width, max(int(np.ceil(span / width)), 1)


def _sums(data):
    """Pass 1 over each trace (report.trace_sums), once per report."""
    return data.memo(trace_sums)


def _binned(data):
    """{module: (width, read, write, lane bins)}: pass 2 over each trace with
    segments, once per report (the heat map and the per-thread figure share it)."""
    return data.memo(_bin_traces)


def _bin_traces(data):
    out = {}
    for module, sums in _sums(data).items():
        if sums.segments:
            width, nbins = _bins_of(sums, data)
            out[module] = (width, *spread_pass(data, module, sums, width, nbins))
    return out


def dxt_heatmap(data):
    """Bytes per rank per time bin from DXT segments: {api: (width, read,
    write, ranks)}; each segment's bytes are spread over the bins its start-to-end
    span overlaps (iolens.view.intervals.spread), never put in its start's bin.
    Streamed over the trace in chunks (report.trace_sums)."""
    sums = _sums(data)
    return {api_name(module): (width, read, write, sums[module].ranks)
            for module, (width, read, write, _) in _binned(data).items()}


NO_THREAD_IDS = ("The trace has no thread ids (the DXT versions of Darshan 3.5.0); run with "
                 "DXT_THREAD_IDS=1 to record the thread of every traced operation.")


def dxt_threads(data) -> pd.DataFrame | None:
    """Per module, rank and thread (numbered within the rank by first operation):
    operations, bytes, first start, last end and busy seconds (sum of durations).
    None when no DXT module has thread ids; empty when there are no segments."""
    parts, any_ids = [], False
    for module, sums in _sums(data).items():
        if sums.lanes is None:
            continue
        any_ids = True
        if len(sums.lanes):
            parts.append(sums.lanes.assign(module=api_name(module))[
                ["module"] + list(sums.lanes.columns)])
    if not any_ids:
        return None
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def dxt_thread_bins(data, module: str):
    """Bytes per (rank, thread) lane per time bin of one DXT module's segments with
    thread ids: (width, matrix, lane labels), or None."""
    sums = _sums(data).get(module)
    binned = _binned(data).get(module)
    if sums is None or sums.lanes is None or binned is None:
        return None
    labels = [f"rank {r} thread {t}" for r, t in
              zip(sums.lanes["rank"].tolist(), sums.lanes["thread"].tolist())]
    return binned[0], binned[3], labels


def dxt_lane_ranks(data, module: str) -> list:
    """The rank of each lane of dxt_thread_bins(data, module), in its order."""
    return [int(r) for r in _sums(data)[module].lanes["rank"].tolist()]
