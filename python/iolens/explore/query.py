"""What the timeline shows for one view: the segments themselves when few enough
are in view, otherwise counts binned per row and pixel column.

Rows: only the lanes in view (the ranks asked for) are answered.  When they
outnumber the ``rows`` the page can draw, adjacent lanes are grouped into
``rows`` rows; each row then names its busiest lane (most operations in view)
and its slowest lane (most I/O seconds in view, from each operation's start
and end clipped to the view), so a straggler is always named and drawn.

Long operations: an operation longer than ``meta["long_after"]`` (one pyramid
bin) is found through the index's list of long operations (``long_rows``), so
a window is widened only by that bin, never by the longest operation: zooming
into any time shows every operation in flight there.

Contract: views at least half as wide (in pyramid bins) as the timeline is in
pixels, holding more than max_spans operations of the lanes and operations
asked for, are answered from the pyramid alone (no segment is read).  Otherwise
the work and memory of one query are bounded by SCAN_CAP rows, except with a
file filter over a window holding more rows than that, which scans the window
in chunks (bounded memory, time proportional to the window).

Reply size is bounded whatever the trace: at most MAX_SPANS_CAP operations (the
server's cap on ``max``), or
rows x px cells (at most MAX_ROWS x MAX_PX) sent as base64 arrays (a count,
uint16 when every count fits, else uint32, and a uint8 dominant kind per cell:
at most about 4.1 MB of base64 at the caps, 2.5 MB with uint16 counts)."""
from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from typing import Optional, Set

import numpy as np

from .index import CHUNK, TraceIndex

SCAN_CAP = 1_000_000
MAX_SPANS = 20_000
MAX_SPANS_CAP = 50_000
MAX_PX = 2048
MAX_ROWS = 300
SEGMENT_FIELDS = ("start", "end", "lane", "op", "mod", "file", "offset", "length", "region")
KINDS = 4                  # cell kind = op (0 read, 1 write) + 2 * module (0 POSIX, 1 MPI-IO)


@dataclass
class View:
    t0: float = 0.0
    t1: float = math.inf
    rank0: int = -(1 << 62)
    rank1: int = 1 << 62
    ops: Optional[Set[int]] = None        # op codes (0 read, 1 write); None = all
    files: Optional[Set[int]] = None      # file codes; None = all
    regions: Optional[Set[int]] = None    # region codes (explore/regions.py); None = all
    px: int = 1000                        # pixel columns of the timeline
    rows: int = MAX_ROWS                  # rows the page can draw
    max_spans: int = MAX_SPANS
    lanes: np.ndarray = field(default=None, repr=False)      # filled by normalise()
    lane_row: np.ndarray = field(default=None, repr=False)   # lane -> row, -1 out of view

    def normalise(self, idx: TraceIndex) -> "View":
        span = float(idx.meta["span"])
        self.t0 = max(0.0, min(float(self.t0), span))
        self.t1 = min(float(self.t1), span) if math.isfinite(self.t1) else span
        if self.t1 <= self.t0:
            self.t1 = min(span, self.t0 + span * 1e-9) if span > self.t0 else self.t0 + 1e-9
        self.px = int(min(max(self.px, 16), MAX_PX))
        self.rows = int(min(max(self.rows, 1), MAX_ROWS))
        self.max_spans = int(min(max(self.max_spans, 1), 200_000))
        ranks = np.asarray([lane["rank"] for lane in idx.meta["lanes"]], np.int64)
        self.lanes = np.nonzero((ranks >= self.rank0) & (ranks <= self.rank1))[0]
        n = len(self.lanes)
        self.rows = min(self.rows, n) if n else 0
        self.lane_row = np.full(idx.nlanes, -1, np.int64)
        if n:
            self.lane_row[self.lanes] = np.arange(n, dtype=np.int64) * self.rows // n
        return self

    @property
    def filtered(self) -> bool:
        """Whether a filter the pyramid does not know (file, region) applies."""
        return self.files is not None or self.regions is not None

    @property
    def aggregated(self) -> bool:
        return len(self.lanes) > self.rows


def query(idx: TraceIndex, view: View) -> dict:
    view.normalise(idx)
    if idx.nseg == 0 or len(view.lanes) == 0:
        return _spans_reply(idx, view, {k: np.empty(0) for k in idx.cols}, _LaneSums(idx))
    start = idx.cols["start"]
    i0 = int(np.searchsorted(start, view.t0 - idx.meta["long_after"], "left"))
    i1 = int(np.searchsorted(start, view.t1, "right"))
    # The pyramid answers wide views at (nearly) pixel resolution without reading
    # a single segment; segments are read when zoomed in past its bins, or when
    # the pyramid says the lanes and operations asked for hold few enough.
    pyramid_fine_enough = (view.t1 - view.t0) / idx.bin_width >= view.px / 2
    if not view.filtered and i1 - i0 > view.max_spans and pyramid_fine_enough:
        counts, kinds, sums = _pyramid_counts(idx, view)
        if sums.total > view.max_spans or i1 - i0 > SCAN_CAP:
            return _bins_reply(idx, view, counts, kinds, sums, "pyramid")
    if i1 - i0 <= SCAN_CAP:
        rows = _select(idx, view, i0, i1)
        sums = _LaneSums(idx).add(view, rows)
        if len(rows["start"]) <= view.max_spans:
            return _spans_reply(idx, view, rows, sums)
        counts, kinds = _histogram(view, rows)
        return _bins_reply(idx, view, counts, kinds, sums, "scan")
    if not view.filtered:
        counts, kinds, sums = _pyramid_counts(idx, view)
        return _bins_reply(idx, view, counts, kinds, sums, "pyramid")
    counts = np.zeros((KINDS, view.rows, view.px), np.int64)
    sums = _LaneSums(idx)
    for lo in range(i0, i1, CHUNK):
        rows = _select(idx, view, lo, min(i1, lo + CHUNK), with_long=lo == i0)
        counts += _kind_counts(view, rows)
        sums.add(view, rows)
    return _bins_reply(idx, view, counts.sum(axis=0), _dominant(counts), sums, "scan")


class _LaneSums:
    """Per lane in view: operations and I/O seconds within the view."""

    def __init__(self, idx: TraceIndex):
        self.count = np.zeros(idx.nlanes, np.int64)
        self.busy = np.zeros(idx.nlanes)

    @property
    def total(self) -> int:
        return int(self.count.sum())

    def add(self, view: View, rows: dict) -> "_LaneSums":
        lane = rows["lane"].astype(np.int64)
        clipped = np.minimum(rows["end"], view.t1) - np.maximum(rows["start"], view.t0)
        self.count += np.bincount(lane, minlength=len(self.count))
        self.busy += np.bincount(lane, weights=np.clip(clipped, 0.0, None),
                                 minlength=len(self.busy))
        return self


def _select(idx: TraceIndex, view: View, i0: int, i1: int, with_long: bool = True) -> dict:
    """Rows of [i0, i1) not longer than long_after, plus (``with_long``) every
    long operation, that overlap the view and pass its filters; by start."""
    short = {name: np.asarray(col[i0:i1]) for name, col in idx.cols.items()}
    keep = short["end"] - short["start"] <= idx.meta["long_after"]
    c = {name: col[keep] for name, col in short.items()}
    if with_long and len(idx.long_rows):
        hit = idx.long_rows[(idx.long_start <= view.t1) & (idx.long_end >= view.t0)]
        if len(hit):
            extra = {name: np.asarray(col[hit]) for name, col in idx.cols.items()}
            order = np.argsort(np.concatenate([c["start"], extra["start"]]), kind="stable")
            c = {name: np.concatenate([c[name], extra[name]])[order] for name in c}
    keep = (c["end"] >= view.t0) & (c["start"] <= view.t1)
    keep &= view.lane_row[c["lane"]] >= 0
    if view.ops is not None:
        keep &= np.isin(c["op"], list(view.ops))
    if view.files is not None:
        keep &= np.isin(c["file"], list(view.files))
    if view.regions is not None:
        keep &= np.isin(c["region"], list(view.regions))
    return {name: col[keep] for name, col in c.items()}


def _kind_counts(view: View, rows: dict) -> np.ndarray:
    """Operations in flight per (kind, row, pixel column) (see _plane_counts)."""
    counts, kinds = _plane_counts(view, rows)
    out = np.zeros((KINDS, view.rows, view.px), np.int64)
    out[kinds] = counts
    return out


def _plane_counts(view: View, rows: dict):
    """Operations in flight per (plane, row, pixel column), one plane per kind
    present in ``rows`` (most traces hold one or two of the four), and the kind
    of each plane.  Each operation counts in every column from its start to its
    end (a difference array, so a long operation costs no more than a short one)."""
    scale = view.px / (view.t1 - view.t0)
    c0 = np.clip(((rows["start"] - view.t0) * scale).astype(np.int64), 0, view.px - 1)
    c1 = np.clip(((rows["end"] - view.t0) * scale).astype(np.int64), 0, view.px - 1)
    kind = (rows["op"].astype(np.int64) & 1) + 2 * (rows["mod"].astype(np.int64) & 1)
    kinds = np.flatnonzero(np.bincount(kind, minlength=KINDS))
    plane = np.searchsorted(kinds, kind)
    base = (plane * view.rows + view.lane_row[rows["lane"]]) * (view.px + 1)
    size = len(kinds) * view.rows * (view.px + 1)
    diff = np.bincount(base + c0, minlength=size)
    diff -= np.bincount(base + c1 + 1, minlength=size)
    diff = diff.reshape(len(kinds), view.rows, view.px + 1)
    np.cumsum(diff, axis=2, out=diff)
    return diff[:, :, :view.px], kinds


def _histogram(view: View, rows: dict):
    counts, kinds = _plane_counts(view, rows)
    if not len(kinds):
        return np.zeros((view.rows, view.px), np.int64), np.zeros((view.rows, view.px), np.uint8)
    total = counts.sum(axis=0)
    dominant = kinds.astype(np.uint8)[_dominant(counts)]
    dominant[total == 0] = 0            # an empty cell's kind is 0, as over all four kinds
    return total, dominant


def _dominant(counts: np.ndarray) -> np.ndarray:
    """Per cell, the kind with the most operations (the first on ties), as
    argmax over the first axis gives it, in a few passes over whole planes
    (that argmax copies the array and reduces cell by cell: several times
    slower at 300 x 2,048 cells)."""
    best = counts[0].copy()
    kind = np.zeros(best.shape, np.uint8)
    for k in range(1, len(counts)):
        kind[counts[k] > best] = k
        np.maximum(best, counts[k], out=best)
    return kind


def _pyramid_counts(idx: TraceIndex, view: View):
    """Counts from the pyramid, regrouped to rows and pixel columns (each pyramid
    bin goes to the column holding its middle), with the long operations drawn
    over every column they cover; the dominant kind per cell; per-lane sums."""
    ops = sorted(view.ops) if view.ops is not None else [0, 1]
    w, nb = idx.bin_width, idx.pyr_count.shape[2]
    b0 = min(int(view.t0 // w), nb - 1)
    b1 = max(b0 + 1, min(nb, int(math.ceil(view.t1 / w))))
    lanes = view.lanes
    mids = (np.arange(b0, b1) + 0.5) * w
    col = np.clip(((mids - view.t0) / (view.t1 - view.t0) * view.px).astype(np.int64),
                  0, view.px - 1)
    groups = np.flatnonzero(np.r_[True, np.diff(view.lane_row[lanes]) != 0])
    kinds = np.zeros((KINDS, view.rows, view.px), np.int64)
    sums = _LaneSums(idx)
    for op in ops:
        count = idx.pyr_count[op][lanes, b0:b1].astype(np.int64)      # [lane in view, bin]
        mpi = idx.pyr_mpi[op][lanes, b0:b1].astype(np.int64)
        sums.count[lanes] += count.sum(axis=1)
        sums.busy[lanes] += idx.pyr_busy[op][lanes, b0:b1].sum(axis=1)
        for k, part in ((op, count - mpi), (op + 2, mpi)):
            per_row = np.add.reduceat(part, groups, axis=0)             # [row, bin]
            np.add.at(kinds[k].T, col, per_row.T)
    long_rows = _long_in_view(idx, view)
    if len(long_rows["start"]):
        kinds += _kind_counts(view, long_rows)
        sums.add(view, long_rows)
    return kinds.sum(axis=0), _dominant(kinds), sums


def _long_in_view(idx: TraceIndex, view: View) -> dict:
    """The long operations in flight in the view that started before it (the
    pyramid already counts those that start inside it)."""
    hit = idx.long_rows[(idx.long_start < view.t0) & (idx.long_end >= view.t0)]
    c = {name: np.asarray(col[hit]) for name, col in idx.cols.items()}
    keep = view.lane_row[c["lane"]] >= 0 if len(hit) else np.zeros(0, bool)
    if view.ops is not None:
        keep &= np.isin(c["op"], list(view.ops))
    return {name: col[keep] for name, col in c.items()}


def _row_summary(idx: TraceIndex, view: View, sums: _LaneSums) -> dict:
    """Per row: its first and last lane, its busiest and slowest lane in view."""
    lanes = view.lanes
    rows = view.lane_row[lanes]
    first = np.flatnonzero(np.r_[True, np.diff(rows) != 0])
    last = np.r_[first[1:] - 1, len(lanes) - 1]
    busiest = lanes[_first_max(sums.count[lanes], rows, first)]
    slowest = lanes[_first_max(sums.busy[lanes], rows, first)]
    return {"first": lanes[first].tolist(), "last": lanes[last].tolist(),
            "busiest": busiest.tolist(), "slowest": slowest.tolist(),
            "busy": sums.busy[slowest].astype(float).tolist(),
            "aggregated": view.aggregated, "lanes_in_view": int(len(lanes))}


def _first_max(values: np.ndarray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per row (``rows`` ascending, ``first`` each row's first position): the
    position of its largest value, the first one on ties (argmax row by row, in
    one pass: at 300 rows the loop was a tenth of the query)."""
    values = np.where(np.isnan(values), np.inf, values)     # argmax takes a NaN as the largest
    peak = np.maximum.reduceat(values, first)
    at = np.flatnonzero(values == peak[rows - rows[0]])
    return at[np.unique(rows[at], return_index=True)[1]]


def _base(idx: TraceIndex, view: View, kind: str, n: int, sums: _LaneSums) -> dict:
    return {"kind": kind, "t0": view.t0, "t1": view.t1, "n": n,
            "rows": _row_summary(idx, view, sums) if len(view.lanes) else
            {"first": [], "last": [], "busiest": [], "slowest": [], "busy": [],
             "aggregated": False, "lanes_in_view": 0}}


def _spans_reply(idx: TraceIndex, view: View, rows: dict, sums: _LaneSums) -> dict:
    out = _base(idx, view, "spans", int(len(rows["start"])), sums)
    for name in SEGMENT_FIELDS:
        col = rows[name]
        out[name] = col.tolist() if len(col) else []
    return out


def _b64(a: np.ndarray, dtype) -> str:
    return base64.b64encode(np.ascontiguousarray(a, dtype).tobytes()).decode("ascii")


def _bins_reply(idx: TraceIndex, view: View, counts: np.ndarray, kinds: np.ndarray,
                sums: _LaneSums, source: str) -> dict:
    """``n`` is the number of operations in view; a cell counts the operations in
    flight in its row and column, ``kind`` is the kind most of them are
    (op + 2 * module).  Both are little-endian base64 arrays [rows, px]; the
    count is uint16 when the largest fits (``count_bytes`` 2), else uint32 (4):
    half the reply and the page's decoding at thousands of ranks."""
    out = _base(idx, view, "bins", sums.total, sums)
    counts = np.minimum(counts, np.iinfo(np.uint32).max)
    peak = int(counts.max()) if counts.size else 0
    width = 2 if peak <= np.iinfo(np.uint16).max else 4
    out.update({"px": view.px, "source": source, "max": peak, "count_bytes": width,
                "count": _b64(counts, f"<u{width}"), "cell_kind": _b64(kinds, "u1")})
    return out
