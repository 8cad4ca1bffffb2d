"""What the timeline shows for one view: the segments themselves when few enough
are in view, otherwise counts binned per lane and pixel column.

Contract: views at least half as wide (in pyramid bins) as the timeline is in
pixels, holding more than max_spans operations of the lanes and operations asked
for, are answered from the pyramid alone (no segment is read).  Otherwise the work and memory of one query are bounded by
SCAN_CAP rows (the rows whose start lies in the window, widened by the longest
segment), except with a file filter over a window holding more rows than that,
which scans the window in chunks (bounded memory, time proportional to the
window)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Set

import numpy as np

from .index import CHUNK, TraceIndex

SCAN_CAP = 1_000_000
MAX_SPANS = 20_000


@dataclass
class View:
    t0: float = 0.0
    t1: float = math.inf
    rank0: int = -(1 << 62)
    rank1: int = 1 << 62
    ops: Optional[Set[int]] = None        # op codes (0 read, 1 write); None = all
    files: Optional[Set[int]] = None      # file codes; None = all
    px: int = 1000                        # pixel columns of the timeline
    max_spans: int = MAX_SPANS
    lanes: np.ndarray = field(default=None, repr=False)   # filled by normalise()

    def normalise(self, idx: TraceIndex) -> "View":
        span = float(idx.meta["span"])
        self.t0 = max(0.0, min(float(self.t0), span))
        self.t1 = min(float(self.t1), span) if math.isfinite(self.t1) else span
        if self.t1 <= self.t0:
            self.t1 = min(span, self.t0 + span * 1e-9) if span > self.t0 else self.t0 + 1e-9
        self.px = int(min(max(self.px, 16), 4096))
        self.max_spans = int(min(max(self.max_spans, 1), 200_000))
        ranks = np.asarray([lane["rank"] for lane in idx.meta["lanes"]], np.int64)
        self.lanes = np.nonzero((ranks >= self.rank0) & (ranks <= self.rank1))[0]
        return self


def query(idx: TraceIndex, view: View) -> dict:
    view.normalise(idx)
    if idx.nseg == 0 or len(view.lanes) == 0:
        return _spans_reply(idx, view, {k: np.empty(0) for k in idx.cols})
    start = idx.cols["start"]
    i0 = int(np.searchsorted(start, view.t0 - idx.meta["max_dur"], "left"))
    i1 = int(np.searchsorted(start, view.t1, "right"))
    # The pyramid answers wide views at (nearly) pixel resolution without reading
    # a single segment; segments are read when zoomed in past its bins, or when
    # the pyramid says the lanes and operations asked for hold few enough.
    pyramid_fine_enough = (view.t1 - view.t0) / idx.bin_width >= view.px / 2
    if view.files is None and i1 - i0 > view.max_spans and pyramid_fine_enough:
        counts = _pyramid_counts(idx, view)
        in_view = int(counts[view.lanes].sum())
        if in_view > view.max_spans or i1 - i0 > SCAN_CAP:
            return _bins_reply(idx, view, counts, in_view, "pyramid")
    if i1 - i0 <= SCAN_CAP:
        rows = _select(idx, view, i0, i1)
        if len(rows["start"]) <= view.max_spans:
            return _spans_reply(idx, view, rows)
        return _bins_reply(idx, view, _histogram(idx, view, rows), len(rows["start"]), "scan")
    if view.files is None:
        return _pyramid_reply(idx, view)
    counts, n = np.zeros((idx.nlanes, view.px), np.int64), 0
    for lo in range(i0, i1, CHUNK):
        rows = _select(idx, view, lo, min(i1, lo + CHUNK))
        counts += _histogram(idx, view, rows)
        n += len(rows["start"])
    return _bins_reply(idx, view, counts, n, "scan")


def _select(idx: TraceIndex, view: View, i0: int, i1: int) -> dict:
    c = {name: np.asarray(col[i0:i1]) for name, col in idx.cols.items()}
    keep = (c["end"] >= view.t0) & (c["start"] <= view.t1)
    lane_ok = np.zeros(idx.nlanes, bool)
    lane_ok[view.lanes] = True
    keep &= lane_ok[c["lane"]]
    if view.ops is not None:
        keep &= np.isin(c["op"], list(view.ops))
    if view.files is not None:
        keep &= np.isin(c["file"], list(view.files))
    return {name: col[keep] for name, col in c.items()}


def _histogram(idx: TraceIndex, view: View, rows: dict) -> np.ndarray:
    """Segments per (lane, pixel column), each counted in every column it covers
    up to 4 columns (a long segment still shows as a run, cheaply)."""
    scale = view.px / (view.t1 - view.t0)
    c0 = np.clip(((rows["start"] - view.t0) * scale).astype(np.int64), 0, view.px - 1)
    c1 = np.clip(((rows["end"] - view.t0) * scale).astype(np.int64), 0, view.px - 1)
    out = np.zeros(idx.nlanes * view.px, np.int64)
    lane = rows["lane"].astype(np.int64) * view.px
    for k in range(4):
        m = c0 + k <= c1 if k else np.ones(len(c0), bool)
        out += np.bincount(lane[m] + c0[m] + k, minlength=out.size)
    return out.reshape(idx.nlanes, view.px)


def _pyramid_reply(idx: TraceIndex, view: View) -> dict:
    counts = _pyramid_counts(idx, view)
    return _bins_reply(idx, view, counts, int(counts[view.lanes].sum()), "pyramid")


def _pyramid_counts(idx: TraceIndex, view: View) -> np.ndarray:
    """Counts from the pyramid, regrouped to pixel columns (each pyramid bin goes
    to the column holding its middle)."""
    count = idx.pyr_count
    if view.ops is not None:
        count = count[sorted(view.ops)]
    per_lane = count.sum(axis=0, dtype=np.int64)             # [lane, bin]
    w = idx.bin_width
    b0 = int(view.t0 // w)
    b1 = min(per_lane.shape[1], int(math.ceil(view.t1 / w)))
    mids = (np.arange(b0, b1) + 0.5) * w
    col = np.clip(((mids - view.t0) / (view.t1 - view.t0) * view.px).astype(np.int64),
                  0, view.px - 1)
    out = np.zeros((idx.nlanes, view.px), np.int64)
    np.add.at(out.T, col, per_lane[:, b0:b1].T)
    return out


def _spans_reply(idx: TraceIndex, view: View, rows: dict) -> dict:
    out = {"kind": "spans", "t0": view.t0, "t1": view.t1, "n": int(len(rows["start"]))}
    for name in ("start", "end", "lane", "op", "mod", "file", "offset", "length"):
        col = rows[name]
        out[name] = col.tolist() if len(col) else []
    return out


def _bins_reply(idx: TraceIndex, view: View, counts: np.ndarray, n: int, source: str) -> dict:
    """``n`` is the number of segments in view (columns count a segment once per
    column it covers, so their sum can be larger)."""
    return {"kind": "bins", "t0": view.t0, "t1": view.t1, "px": view.px, "source": source,
            "n": n, "lanes": view.lanes.tolist(),
            "count": counts[view.lanes].tolist()}
