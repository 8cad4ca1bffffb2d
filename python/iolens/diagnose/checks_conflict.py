"""Conflicting writes: different processes writing the same bytes of one file
with nothing that orders them (docs/diagnosis.md, "Conflicting writes").

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

Bounded memory: a first pass reads only the DXT record headers to find files
written by two or more ranks; then the trace is streamed once per group of
those files, keeping only their write segments, at most ``budget_segments`` at
a time.  A file with more writes than that is split into offset windows (from
its POSIX largest written byte), one pass each; a pair is judged in the window
holding the start of its overlap, so none is counted twice."""
from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

import numpy as np

from .. import _frames
from .._meta import module_info
from ..errors import LogError
from ..view import damage as dmg
from .context import col
from .measure import size
from .model import Hit

CHUNK = 1 << 20
# one pass: (file ids, offset window [lo, hi) or None for the whole file)
Pass = Tuple[np.ndarray, Tuple[float, float] | None]


def conflicting_writes(ctx):
    if "DXT_POSIX" not in ctx.modules:
        ctx.skip("no DXT_POSIX trace (run with DXT_ENABLE_IO_TRACE=1)")
        return None
    th = ctx.th["conflict"]
    counts = _shared_writes(ctx)
    if not counts:
        ctx.skip("no traced file written by two or more processes outside MPI-IO")
        return None
    closes = _closes(ctx)
    found: Dict[int, dict] = {}
    for ids, window in _passes(ctx, counts, th["budget_segments"]):
        segs = _write_segments(ctx, ids, window)
        for rid in np.unique(segs[0]):
            mine = segs[0] == rid
            _judge_file(int(rid), [a[mine] for a in segs[1:]], window, closes, th, found)
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


def _passes(ctx, counts: Dict[int, int], budget: int) -> Iterator[Pass]:
    """Groups of files whose writes fit the budget; a bigger file alone, in
    offset windows."""
    extent = _write_extent(ctx)
    group: List[int] = []
    held = 0
    for rid, n in sorted(counts.items()):
        if n > budget:
            k = -(-n // budget)
            top = max(extent.get(rid, 0.0), 1.0)
            for w in range(k):
                hi = float("inf") if w == k - 1 else top * (w + 1) / k
                yield np.array([rid], np.uint64), (top * w / k if w else 0.0, hi)
            continue
        if held + n > budget and group:
            yield np.array(group, np.uint64), None
            group, held = [], 0
        group.append(rid)
        held += n
    if group:
        yield np.array(group, np.uint64), None


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
def _write_segments(ctx, ids: np.ndarray, window) -> tuple:
    """(id, rank, lo, hi, start, end) of the undamaged write segments of `ids`
    (touching `window`), streamed chunk by chunk."""
    reader = ctx.log._c.dxt_reader(module_info("DXT_POSIX").id)
    rec_ids, rec_ranks = np.zeros(0, np.uint64), np.zeros(0, np.int64)
    parts = []
    while (d := reader.read(CHUNK)) is not None:
        rec_ids = np.concatenate([rec_ids, _frames.view(d["id"], np.uint64)])
        rec_ranks = np.concatenate([rec_ranks, _frames.view(d["rank"], np.int64)])
        if not d["nseg"]:
            continue
        rec = _frames.view(d["seg_rec"], np.int64)
        start, end = _frames.view(d["start"], np.float64), _frames.view(d["end"], np.float64)
        offset, length = _frames.view(d["offset"], np.int64), _frames.view(d["length"], np.int64)
        write = _frames.view(d["seg_write"], np.int8).astype(bool)
        bad, _ = dmg.segment_checks(start, end, offset, length, ctx.run_time, False)
        keep = write & ~bad & (length > 0) & np.isin(rec_ids[rec], ids)
        lo, hi = offset.astype(np.float64), (offset + length).astype(np.float64)
        if window is not None:
            keep &= (hi > window[0]) & (lo < window[1])
        parts.append((rec_ids[rec][keep], rec_ranks[rec][keep], lo[keep], hi[keep],
                      start[keep], end[keep]))
        del d
    if not parts:
        return tuple(np.zeros(0) for _ in range(6))
    return tuple(np.concatenate(c) for c in zip(*parts))


# ------------------------------------------------------------------ judging
def _closes(ctx) -> Dict[Tuple[int, int], tuple]:
    """(file id, rank) -> (opens, syncs, first close start, last close end); rank
    -1 for a shared record."""
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return {}
    cols = (col(frame, "POSIX_OPENS"), col(frame, "POSIX_FSYNCS") + col(frame, "POSIX_FDSYNCS"),
            col(frame, "POSIX_F_CLOSE_START_TIMESTAMP"), col(frame, "POSIX_F_CLOSE_END_TIMESTAMP"))
    return {(int(i), int(r)): v for i, r, *v in zip(frame["id"].to_numpy(),
                                                  frame["rank"].to_numpy(), *cols)}


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


def _judge_file(rid, seg, window, closes_all, th, found) -> None:
    """Sweep one file's writes in offset order, comparing each with the earlier
    (by offset) writes of OTHER ranks that still cover its start."""
    rank, lo, hi, start, end = seg
    order = np.argsort(lo, kind="stable")
    rank, lo, hi, start, end = (a[order] for a in (rank, lo, hi, start, end))
    closes = {r: v for (i, r), v in closes_all.items() if i == rid}
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
    lines = [f"{len(files)} files hold bytes written by several processes with no close or "
             "sync between the writes that the log can place; which data is in the file "
             "depends on timing:"]
    for rid in files[:5]:
        f = found[rid]
        ra, rb, a, b, ta, tb, conc = f["example"]
        lines.append(f"  {ctx.name(rid)}: {f['pairs']} overlapping write pairs "
                     f"({size(f['bytes'])}) from ranks {sorted(f['ranks'])[:8]}; e.g. ranks "
                     f"{ra} and {rb} both wrote bytes {int(a)}-{int(b) - 1} at {ta:.3f} s and "
                     f"{tb:.3f} s{' (at the same time)' if conc else ''}")
    return Hit("Conflicting writes: the file's content may be wrong", lines, 0.0,
               "no time lost: a correctness problem",
               {"files": len(files), "pairs": sum(f["pairs"] for f in found.values()),
                "concurrent_pairs": concurrent,
                "bytes": sum(f["bytes"] for f in found.values())},
               [ctx.name(r) for r in files[:16]],
               sorted(set().union(*(f["ranks"] for f in found.values())))[:64],
               severity="critical" if concurrent else None)
