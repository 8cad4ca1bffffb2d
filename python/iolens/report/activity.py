"""Activity over time: per-process access spans and DXT heat map bins."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .interfaces import PREFIX, TIMELINE_MODULES, TRACE_MODULES, api_name
from ..view.columns import counter as col
from ..view.intervals import spread

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


def _bins_of(seg, data):
    """(width, number of bins) for a trace."""
    span = max(float(seg["end"].max()), data.run_time, 1e-9)
    width = bin_width(span)
    return width, max(int(np.ceil(span / width)), 1)


def dxt_heatmap(data):
    """Bytes per rank per time bin from DXT segments: {api: (width, read,
    write, ranks)}; each segment's bytes are spread over the bins its start-to-end
    span overlaps (iolens.view.intervals.spread), never put in its start's bin."""
    out = {}
    for module in TRACE_MODULES:
        seg = data.dxt(module)
        if seg is None or not len(seg):
            continue
        width, nbins = _bins_of(seg, data)
        ranks, idx = np.unique(seg["rank"].to_numpy(), return_inverse=True)
        mats = {}
        for op in ("read", "write"):
            mask = (seg["op"] == op).to_numpy()
            mats[op] = spread(idx[mask], seg["start"].to_numpy()[mask],
                              seg["end"].to_numpy()[mask], seg["length"].to_numpy()[mask],
                              width, nbins, len(ranks))
        out[api_name(module)] = (width, mats["read"], mats["write"], ranks)
    return out


NO_THREAD_IDS = ("The trace has no thread ids (the DXT versions of Darshan 3.5.0); run with "
                 "DXT_THREAD_IDS=1 to record the thread of every traced operation.")


def dxt_threads(data) -> pd.DataFrame | None:
    """Per module, rank and thread (numbered within the rank by first operation):
    operations, bytes, first start, last end and busy seconds (sum of durations).
    None when no DXT module has thread ids; empty when there are no segments."""
    parts, any_ids = [], False
    for module in TRACE_MODULES:
        api = api_name(module)
        seg = data.dxt(module)
        if seg is None or "thread_id" not in seg:
            continue
        any_ids = True
        if not len(seg):
            continue
        g = seg.assign(busy=seg["end"] - seg["start"]).groupby(["rank", "thread"], sort=True)
        part = g.agg(ops=("length", "size"), bytes=("length", "sum"), first=("start", "min"),
                     last=("end", "max"), busy=("busy", "sum")).reset_index()
        part.insert(0, "module", api)
        parts.append(part)
    if not any_ids:
        return None
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def dxt_thread_bins(data, module: str):
    """Bytes per (rank, thread) lane per time bin of one DXT module's segments with
    thread ids: (width, matrix, lane labels), or None."""
    seg = data.dxt(module)
    if seg is None or "thread_id" not in seg or not len(seg):
        return None
    width, nbins = _bins_of(seg, data)
    lanes = seg[["rank", "thread"]].astype("int64").drop_duplicates().sort_values(["rank", "thread"])
    labels = [f"rank {r} thread {t}" for r, t in lanes.itertuples(index=False)]
    lane_of = {k: i for i, k in enumerate(lanes.itertuples(index=False, name=None))}
    rows = np.array([lane_of[k] for k in zip(seg["rank"].tolist(), seg["thread"].astype("int64").tolist())])
    mat = spread(rows, seg["start"].to_numpy(), seg["end"].to_numpy(),
                 seg["length"].to_numpy(), width, nbins, len(labels))
    return width, mat, labels
