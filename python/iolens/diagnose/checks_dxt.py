"""Rules that need DXT traces: stragglers, I/O phases, reads overlapping writes."""
from __future__ import annotations

import numpy as np

from .._ranks import RankSums
from ..view.intervals import union
from .model import Hit


def _segments(ctx):
    """DXT segments of POSIX (else MPI-IO), with the module name."""
    for module in ("POSIX", "MPI-IO"):
        seg = ctx.dxt(module)
        if seg is not None:
            return module, seg
    return None, None


def stragglers(ctx):
    module, seg = _segments(ctx)
    if seg is None or ctx.nprocs < 2:
        ctx.skip("no DXT trace, or one process")
        return None
    th = ctx.th["dxt"]
    dur = np.clip(seg["end"].to_numpy() - seg["start"].to_numpy(), 0, None)
    # summed per traced rank (not per claimed process: iolens._ranks)
    per = RankSums(seg["rank"].to_numpy(), dur, ctx.nprocs, spread=False)
    busy = per.sums
    active = busy[busy > 0]
    if len(active) < 2:
        return None
    med = float(np.median(active))
    ctx.gate("slowest traced seconds / median", float(busy.max()) / med if med else 0.0, ">",
             "dxt.straggler_ratio")
    ctx.gate("slowest - median traced seconds", float(busy.max()) - med, ">=",
             "dxt.straggler_min_seconds")
    slow = np.flatnonzero((busy > th["straggler_ratio"] * med) &
                          (busy - med >= th["straggler_min_seconds"]))
    if not len(slow):
        return None
    order = slow[np.argsort(-busy[slow])]
    lines = [f"{len(slow)} processes spend over {th['straggler_ratio']}x the median "
             f"{module} I/O time ({med:.2f} s) in traced I/O"]
    lines += [f"  rank {int(per.ranks[i])}: {busy[i]:.2f} s" for i in order[:5]]
    return Hit("Straggling processes (DXT)", lines, float(busy.max() - med),
               "DXT: slowest process's summed segment time minus the median process's",
               {"median_seconds": med, "max_seconds": float(busy.max()),
                "stragglers": len(slow)}, ranks=[int(per.ranks[i]) for i in order[:16]])


def phases(ctx):
    """Phases from the view's busy intervals (each operation's start and end;
    the POSIX trace, else the MPI-IO one)."""
    iv = ctx.view.intervals
    if iv.source == "counters" or not iv.operations:
        ctx.skip("no DXT trace in the log")
        return None
    th = ctx.th["dxt"]
    s, e = iv.busy_start, iv.busy_end
    span = float(e.max() - s.min())
    if span <= 0 or not ctx.gate("seconds with I/O in flight", iv.busy_seconds, ">=",
                                 "dxt.phase_min_seconds"):
        return None          # hardly any I/O in flight: phases do not matter
    module = "POSIX" if iv.source == "DXT_POSIX" else "MPI-IO"
    gaps = s[1:] - e[:-1]
    cut = gaps > th["phase_gap_fraction"] * max(span, ctx.run_time)
    n = int(cut.sum()) + 1
    if not ctx.gate("phases", n, ">=", "dxt.phase_min"):
        return None
    bounds = np.concatenate([[0], np.flatnonzero(cut) + 1, [len(s)]])
    lines = [f"{n} separate I/O phases in the {module} trace, separated by idle gaps of "
             f"{gaps[cut].min():.2f}-{gaps[cut].max():.2f} s"]
    for a, b in list(zip(bounds[:-1], bounds[1:]))[:6]:
        lines.append(f"  {s[a]:.2f}-{e[b - 1]:.2f} s")
    return Hit("Distinct I/O phases (DXT)", lines, 0.0,
               "no time lost: phases are where asynchronous I/O or burst buffers can hide I/O",
               {"phases": n, "idle_seconds": float(gaps[cut].sum())})


def rw_overlap(ctx):
    module, seg = _segments(ctx)
    if seg is None:
        ctx.skip("no DXT trace in the log")
        return None
    th = ctx.th["dxt"]
    ops = seg["op"].astype(str).to_numpy()
    ids = seg["id"].to_numpy()
    start, end = seg["start"].to_numpy(), seg["end"].to_numpy()
    found = []
    for rid in np.unique(ids):
        m = ids == rid
        r, w = m & (ops == "read"), m & (ops == "write")
        if not r.any() or not w.any():
            continue
        rs, re_ = union(start[r], end[r])
        ws, we = union(start[w], end[w])
        overlap = _overlap(rs, re_, ws, we)
        if overlap >= th["overlap_min_seconds"]:
            found.append((overlap, rid))
    ctx.measure("files read and written during overlapping periods", len(found))
    if not found:
        return None
    found.sort(reverse=True)
    lines = [f"{len(found)} files are read and written at the same time ({module} trace)"]
    lines += [f"  {ctx.name(rid)}: {t:.2f} s of overlap" for t, rid in found[:5]]
    return Hit("Reads overlap writes on the same file (DXT)", lines, 0.0,
               "not estimated: the cost is lock contention on the file system's side",
               {"files": len(found)}, [ctx.name(r) for _, r in found[:5]])


def _overlap(a_s, a_e, b_s, b_e) -> float:
    """Total length where two sorted unions of intervals overlap."""
    i = j = 0
    total = 0.0
    while i < len(a_s) and j < len(b_s):
        lo, hi = max(a_s[i], b_s[j]), min(a_e[i], b_e[j])
        if hi > lo:
            total += hi - lo
        if a_e[i] < b_e[j]:
            i += 1
        else:
            j += 1
    return total
