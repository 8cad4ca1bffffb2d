"""Conflicting writes: different processes writing the same bytes of one file
with nothing that orders them (docs/diagnosis.md, "Slow storage targets and
conflicting writes").

What the log can say about "ordered".  DXT segments carry no close or sync, so
the rule uses the POSIX record of the first writer (its file, its rank):
  * it called fsync/fdatasync on the file (count > 0; no timestamp is kept)
    -> assumed ordered (a sync may sit between the writes);
  * its first close started after its write and before the other's write
    -> ordered;
  * it opened the file several times and its closes span the gap (first close
    start before the later write, last close end after its own write)
    -> a close may sit between them: assumed ordered;
  * otherwise (one open and its close outside the gap, or no record) -> conflict.
When the runtime reduced the file to one shared record (rank -1; every process
opened it), the per-rank figures are gone: its counts and its first close /
last close are those of all processes, so a sync or close by ANY process is
taken as one by the first writer (weaker: fewer conflicts are reported).
Writes that overlap in time are conflicts whatever the closes say.  The rule
therefore misses conflicts hidden behind an unplaced sync or close; what it
reports did happen.

Files written through MPI-IO are not judged: ROMIO's data sieving and two-phase
collective buffering rewrite byte ranges at the POSIX layer under their own
locks, and DXT's MPI-IO segments give an offset and a length, not the shape of
a file view, so neither layer shows the application's bytes exactly.

Bounded memory: the DXT record headers (no segments) give the files written by
two or more ranks and their write counts.  Those files are put in buckets of at
most ``budget_segments`` writes; a file with more is cut into offset windows
of its POSIX written extent, a bucket each.  The trace is streamed once, chunk
by chunk, and each write of a candidate file is appended to its bucket's file
in a temporary directory (48 bytes a write); then the buckets are judged one at
a time.  (The extent comes from the file's POSIX records; without them, from
one extra pass over the trace.)  A pair is judged in the window holding the
start of its overlap, so none is counted twice.  Memory: one chunk of the trace
plus one bucket (more only when a file's writes crowd into one window of its
extent)."""
from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Tuple

import numpy as np

from .. import _frames
from .._meta import module_info
from ..errors import LogError
from ..view import damage as dmg
from .context import col
from .measure import size
from .model import Hit

CHUNK = 1 << 20
SLICE = 1 << 18         # segments of a chunk worked on at once
SOURCE = (("seg_rec", np.int64), ("start", np.float64), ("end", np.float64),
          ("offset", np.int64), ("length", np.int64), ("seg_write", np.int8))


def conflicting_writes(ctx):
    if "DXT_POSIX" not in ctx.modules:
        ctx.skip("no DXT_POSIX trace (run with DXT_ENABLE_IO_TRACE=1)")
        return None
    th = ctx.th["conflict"]
    counts = _shared_writes(ctx)
    if not counts:
        ctx.skip("no traced file written by two or more processes outside MPI-IO")
        return None
    closes = _closes(ctx, counts)
    found: Dict[int, dict] = {}
    plan = Buckets(counts, _extents(ctx, counts, th["budget_segments"]),
                   th["budget_segments"])
    with tempfile.TemporaryDirectory(prefix="iolens-conflict-") as spill:
        paths = _spill(ctx, plan, spill)
        for b, path in paths.items():
            segs = np.fromfile(path, dtype=SEGMENT)
            window = plan.window(b)
            for rid in np.unique(segs["id"]):
                mine = segs[segs["id"] == rid]
                _judge_file(int(rid), [mine[k] for k in SEGMENT.names[1:]], window, closes,
                            th, found)
            del segs
    overlap = np.array([v["bytes"] for v in found.values()])
    keep = ctx.gate_each("bytes of a file written by several processes with nothing "
                         "ordering the writes", overlap if len(overlap) else [0.0], ">=",
                         "conflict.min_bytes")
    found = {k: v for k, ok in zip(found, keep) for v in [found[k]] if ok}
    return _hit(ctx, found) if found else None


# ------------------------------------------------------------------ which files
def _mpiio_files(ctx) -> set:
    out = set()
    frame = ctx.frame("MPI-IO")
    if frame is not None:
        out.update(int(i) for i in frame["id"].to_numpy())
    if "DXT_MPIIO" in ctx.modules:
        try:
            out.update(int(i) for i in ctx.log.dxt_records("MPI-IO")["id"].to_numpy())
        except (LogError, ValueError):
            pass
    return out


def _shared_writes(ctx) -> Dict[int, int]:
    """File id -> traced writes, for files written by two or more ranks (headers
    only: no segment is read) and not written through MPI-IO."""
    try:
        heads = ctx.log.dxt_records("POSIX")
    except (LogError, ValueError) as err:
        ctx.notes.append(f"DXT_POSIX headers could not be read: {err}")
        return {}
    heads = heads[heads["write_count"] > 0]
    by_file = heads.groupby("id").agg(ranks=("rank", "nunique"), writes=("write_count", "sum"))
    by_file = by_file[by_file["ranks"] >= 2]
    skip = _mpiio_files(ctx)
    return {int(i): int(n) for i, n in by_file["writes"].items() if int(i) not in skip}


class Buckets:
    """Where each candidate file's write segments go: files with few writes share
    a bucket (up to ``budget`` writes); a file with more is cut into equal offset
    windows of its written extent, one bucket each.  Bucket b of a windowed file
    covers offsets [lo, hi) (``window(b)``); a shared bucket has no window."""

    def __init__(self, counts: Dict[int, int], extent: Dict[int, float], budget: int):
        self.ids = np.array(sorted(counts), np.uint64)
        n = len(self.ids)
        self.base, self.k, self.width = np.zeros(n, np.int64), np.ones(n, np.int64), np.zeros(n)
        self.windows: Dict[int, Tuple[float, float]] = {}
        bucket, held = 0, 0
        for i, rid in enumerate(self.ids.tolist()):
            writes = counts[rid]
            if writes > budget:
                k = -(-writes // budget)
                top = max(extent.get(rid, 0.0), 1.0)
                bucket += held > 0
                self.base[i], self.k[i], self.width[i] = bucket, k, top / k
                for w in range(k):
                    self.windows[bucket + w] = (w * top / k, top * (w + 1) / k
                                                if w < k - 1 else float("inf"))
                bucket, held = bucket + k, 0
                continue
            if held and held + writes > budget:
                bucket, held = bucket + 1, 0
            self.base[i], self.width[i] = bucket, np.inf
            held += writes

    def window(self, b: int):
        return self.windows.get(b)

    def of(self, ids: np.ndarray, lo: np.ndarray, hi: np.ndarray):
        """(candidate mask, first bucket, last bucket) of each segment."""
        if not len(self.ids):
            return np.zeros(len(ids), bool), None, None
        pos = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        mine = self.ids[pos] == ids
        pos = pos[mine]
        width, top = self.width[pos], self.k[pos] - 1
        first = np.clip(np.floor_divide(lo[mine], width), 0, top).astype(np.int64)
        last = np.clip(np.floor_divide(np.maximum(hi[mine] - 1, lo[mine]), width), 0,
                       top).astype(np.int64)
        return mine, self.base[pos] + first, self.base[pos] + last


def _extents(ctx, counts: Dict[int, int], budget: int) -> Dict[int, float]:
    """Written extent (largest written byte + 1) of the files too big for one
    bucket: from their POSIX records, else from one extra pass over the trace."""
    big = [rid for rid, n in counts.items() if n > budget]
    if not big:
        return {}
    known = _write_extent(ctx)
    missing = np.array([rid for rid in big if known.get(rid, 0.0) <= 0], np.uint64)
    if len(missing):
        known.update(_trace_extent(ctx, np.sort(missing)))
    return known


def _trace_extent(ctx, ids: np.ndarray) -> Dict[int, float]:
    top = np.zeros(len(ids))
    reader = ctx.log._c.dxt_reader(module_info("DXT_POSIX").id)
    rec_ids = np.zeros(0, np.uint64)
    while (d := reader.read(CHUNK)) is not None:
        rec_ids = np.concatenate([rec_ids, _frames.view(d["id"], np.uint64)])
        if d["nseg"]:
            seg_ids = rec_ids[_frames.view(d["seg_rec"], np.int64)]
            ends = _frames.view(d["offset"], np.int64) + _frames.view(d["length"], np.int64)
            pos = np.minimum(np.searchsorted(ids, seg_ids), len(ids) - 1)
            mine = (ids[pos] == seg_ids) & _frames.view(d["seg_write"], np.int8).astype(bool)
            np.maximum.at(top, pos[mine], ends[mine])
        del d
    return {int(i): float(t) for i, t in zip(ids, top)}


def _write_extent(ctx) -> Dict[int, float]:
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame) or "POSIX_MAX_BYTE_WRITTEN" not in frame:
        return {}
    top = col(frame, "POSIX_MAX_BYTE_WRITTEN") + 1
    out: Dict[int, float] = {}
    for rid, t in zip(frame["id"].to_numpy(), top):
        out[int(rid)] = max(out.get(int(rid), 0.0), float(t))
    return out


# ------------------------------------------------------------------ streaming
# one write segment as spilled to its bucket's file
SEGMENT = np.dtype([("id", np.uint64), ("rank", np.int64), ("lo", np.float64),
                    ("hi", np.float64), ("start", np.float64), ("end", np.float64)])


def _spill(ctx, plan: Buckets, spill: str) -> Dict[int, str]:
    """Stream the trace once, chunk by chunk, appending the undamaged write
    segments of the candidate files to their buckets' files in `spill`; a
    segment that spans several windows goes to each.  Returns bucket -> path."""
    reader = ctx.log._c.dxt_reader(module_info("DXT_POSIX").id)
    rec_ids, rec_ranks = np.zeros(0, np.uint64), np.zeros(0, np.int64)
    paths: Dict[int, str] = {}
    while (d := reader.read(CHUNK)) is not None:
        rec_ids = np.concatenate([rec_ids, _frames.view(d["id"], np.uint64)])
        rec_ranks = np.concatenate([rec_ranks, _frames.view(d["rank"], np.int64)])
        if not d["nseg"]:
            continue
        cols = [_frames.view(d[k], t) for k, t in SOURCE]
        # a chunk holds whole records (one rank's segments of a file), so it can be
        # large: it is worked on in slices to keep the copies below small
        for at in range(0, int(d["nseg"]), SLICE):
            part = [c[at:at + SLICE] for c in cols]
            _spill_slice(ctx, plan, rec_ids, rec_ranks, part, spill, paths)
        del d, cols
    return paths


def _spill_slice(ctx, plan, rec_ids, rec_ranks, part, spill, paths) -> None:
    rec, start, end, offset, length, write = part
    write = write.astype(bool)
    bad, _ = dmg.segment_checks(start, end, offset, length, ctx.run_time, False)
    keep = np.flatnonzero(write & ~bad & (length > 0))
    mine, first, last = plan.of(rec_ids[rec[keep]], offset[keep].astype(np.float64),
                                (offset[keep] + length[keep]).astype(np.float64))
    keep = keep[mine]
    seg = np.empty(len(keep), SEGMENT)
    seg["id"], seg["rank"] = rec_ids[rec[keep]], rec_ranks[rec[keep]]
    seg["lo"], seg["hi"] = offset[keep], offset[keep] + length[keep]
    seg["start"], seg["end"] = start[keep], end[keep]
    _append(seg, first, last, spill, paths)


def _append(seg: np.ndarray, first: np.ndarray, last: np.ndarray, spill: str, paths) -> None:
    """Append each segment to its buckets' files (first .. last)."""
    for shift in range(int((last - first).max()) + 1 if len(seg) else 0):
        at = first + shift
        sel = at <= last
        order = np.argsort(at[sel], kind="stable")
        rows, where = seg[sel][order], at[sel][order]
        cuts = np.flatnonzero(np.diff(where)) + 1
        for part, b in zip(np.split(rows, cuts), where[np.r_[0, cuts]] if len(where) else []):
            path = paths.setdefault(int(b), os.path.join(spill, f"{int(b)}.seg"))
            with open(path, "ab") as fh:
                part.tofile(fh)


# ------------------------------------------------------------------ judging
def _closes(ctx, files: Dict[int, int]) -> Dict[int, Dict[int, tuple]]:
    """For the candidate `files`: file id -> {rank: (opens, syncs, first close
    start, last close end)}; rank -1 for a shared record."""
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return {}
    ids = frame["id"].to_numpy().astype(np.uint64)
    on = np.flatnonzero(np.isin(ids, np.fromiter(files, np.uint64, len(files))))
    cols = (col(frame, "POSIX_OPENS"), col(frame, "POSIX_FSYNCS") + col(frame, "POSIX_FDSYNCS"),
            col(frame, "POSIX_F_CLOSE_START_TIMESTAMP"), col(frame, "POSIX_F_CLOSE_END_TIMESTAMP"))
    ranks = frame["rank"].to_numpy()
    out: Dict[int, Dict[int, tuple]] = {}
    for k in on:
        out.setdefault(int(ids[k]), {})[int(ranks[k])] = tuple(c[k] for c in cols)
    return out


def _ordered(first: tuple, later_start: float, closes) -> bool:
    """Whether the log shows (or cannot exclude) a close or sync by the first
    writer between its write (ending first[1]) and the later write."""
    rank, end = first
    info = closes.get(rank, closes.get(-1))
    if info is None:
        return False
    opens, syncs, close_start, close_end = info
    if syncs > 0:
        return True
    if end <= close_start <= later_start:
        return True
    return opens > 1 and close_start < later_start and close_end > end


def _judge_file(rid, seg, window, closes_of, th, found) -> None:
    """Sweep one file's writes in offset order, comparing each with the earlier
    (by offset) writes of OTHER ranks that still cover its start."""
    rank, lo, hi, start, end = seg
    order = np.argsort(lo, kind="stable")
    rank, lo, hi, start, end = (a[order] for a in (rank, lo, hi, start, end))
    closes = closes_of.get(rid, {})
    # only writes that overlap another one (a neighbour in offset order) can
    # conflict: a vectorised test keeps the Python sweep to those
    before = np.maximum.accumulate(hi)
    overlaps_earlier = np.r_[False, lo[1:] < before[:-1]]
    overlaps_later = np.r_[hi[:-1] > lo[1:], False]
    active: List[int] = []
    limit = th["pairs_per_write"]
    for j in np.flatnonzero(overlaps_earlier | overlaps_later):
        active = [i for i in active if hi[i] > lo[j]]
        if window is None or window[0] <= lo[j] < window[1]:
            for i in active[-limit:]:
                if rank[i] != rank[j]:
                    _pair(rid, i, j, rank, lo, hi, start, end, closes, found)
        active.append(j)


def _pair(rid, i, j, rank, lo, hi, start, end, closes, found) -> None:
    overlap = min(hi[i], hi[j]) - lo[j]
    concurrent = start[i] < end[j] and start[j] < end[i]
    if not concurrent:
        a, b = (i, j) if end[i] <= start[j] else (j, i)
        if _ordered((int(rank[a]), end[a]), start[b], closes):
            return
    f = found.setdefault(rid, {"bytes": 0.0, "pairs": 0, "concurrent": 0, "ranks": set(),
                               "example": None})
    f["bytes"] += overlap
    f["pairs"] += 1
    f["concurrent"] += int(concurrent)
    f["ranks"].update((int(rank[i]), int(rank[j])))
    if f["example"] is None or (concurrent and not f["example"][-1]):
        f["example"] = (int(rank[i]), int(rank[j]), lo[j], lo[j] + overlap,
                        start[i], start[j], concurrent)


def _hit(ctx, found: Dict[int, dict]) -> Hit:
    files = sorted(found, key=lambda k: -found[k]["bytes"])
    concurrent = sum(f["concurrent"] for f in found.values())
    many = len(files) != 1
    lines = [f"{len(files)} file{'s hold' if many else ' holds'} bytes written by several "
             "processes with no close or sync between the writes that the log can place; "
             "which data is in the file depends on timing:"]
    for rid in files[:5]:
        f = found[rid]
        ra, rb, a, b, ta, tb, conc = f["example"]
        pairs = f"{f['pairs']} overlapping write pair" + ("s" if f["pairs"] != 1 else "")
        lines.append(f"  {ctx.name(rid)}: {pairs} ({size(f['bytes'])}) from ranks "
                     f"{sorted(f['ranks'])[:8]}; e.g. ranks {ra} and {rb} both wrote bytes "
                     f"{int(a)}-{int(b) - 1} at {ta:.3f} s and {tb:.3f} s"
                     f"{' (at the same time)' if conc else ''}")
    return Hit("Conflicting writes: the file's content may be wrong", lines, 0.0,
               "no time lost: a correctness problem",
               {"files": len(files), "pairs": sum(f["pairs"] for f in found.values()),
                "concurrent_pairs": concurrent,
                "bytes": sum(f["bytes"] for f in found.values())},
               [ctx.name(r) for r in files[:16]],
               sorted(set().union(*(f["ranks"] for f in found.values())))[:64],
               severity="critical" if concurrent else None)
