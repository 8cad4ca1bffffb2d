"""Where the time goes: metadata, opens, and how the work is spread over processes.
Per-process seconds come from the view (measure.view_seconds: iolens.view io_time)."""
from __future__ import annotations

import numpy as np

from .context import col
from .measure import (FS_LAYERS, PREFIX, file_lines, pct, per_process, per_rank, rank_map,
                      size, top, total, view_seconds)
from .model import Hit

COLLECTIVE = ("MPIIO_COLL_READS", "MPIIO_COLL_WRITES")
ALL_MPIIO = tuple(f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")
                  for op in ("READ", "WRITE"))


def collective_ids(ctx) -> set:
    """Record ids of files accessed mostly collectively through MPI-IO: their POSIX
    bytes sit on the aggregators by design, so their imbalance is no problem."""
    frame = ctx.frame("MPI-IO")
    if frame is None or not len(frame):
        return set()
    coll, every = total(frame, COLLECTIVE), total(frame, ALL_MPIIO)
    return set(frame["id"].to_numpy()[(coll > 0) & (coll >= 0.5 * every)].tolist())


def metadata_time(ctx):
    th = ctx.th["metadata"]
    # the file-system layers whose metadata calls reach the servers (MPI-IO's
    # metadata time contains them again)
    meta = view_seconds(ctx, FS_LAYERS, meta=True)
    worst = meta.max()
    share = worst / ctx.run_time if ctx.run_time else 1.0
    floor = ctx.gate("metadata seconds of the slowest process", worst, ">=",
                     "metadata.min_seconds")
    big = ctx.gate("metadata seconds of the slowest process", worst, ">",
                   "metadata.per_process_seconds")
    long = ctx.gate("its share of the run", share, ">", "metadata.run_fraction")
    if not (floor and (big or long)):
        return None
    limit = min(th["per_process_seconds"], max(th["run_fraction"] * ctx.run_time,
                                               th["min_seconds"]))
    slow, lowest = meta.at_least(limit)
    lines = [f"{slow} of {ctx.nprocs} processes spend more than {limit:.2f} s in "
             f"metadata calls (open, close, stat, seek, sync); the most, rank "
             f"{meta.argmax()}, {worst:.2f} s"
             + (f" of a {ctx.run_time:.0f} s run ({pct(worst, ctx.run_time)})"
                if ctx.run_time else "")]
    frame = ctx.frame("POSIX")
    if frame is not None and len(frame):
        t = col(frame, "POSIX_F_META_TIME")
        lines += file_lines(top(frame, t, ctx, 3, t > 0), lambda v: f"{v:.2f} s metadata")
    return Hit("High metadata time per process", lines, worst,
               "metadata seconds of the slowest process (the view's per-process metadata "
               "time of POSIX and STDIO)",
               {"max_meta_seconds": worst, "processes_over": slow},
               ranks=lowest, rank_seconds=rank_map(meta))


def open_close(ctx):
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    th = ctx.th["open_close"]
    opens = col(frame, "POSIX_OPENS")
    meta = col(frame, "POSIX_F_META_TIME")
    ranks = frame["rank"].to_numpy()
    per_proc_opens = np.where(ranks < 0, opens / ctx.nprocs, opens)
    reopen = per_proc_opens > th["opens_per_file"]
    meta_rank = view_seconds(ctx, ("POSIX",), meta=True)
    io_rank = view_seconds(ctx, ("POSIX",))
    meta_pp = meta_rank.mean()
    io_all = io_rank.mean()
    lines = []
    reopen_cost = per_process(float(meta[reopen].sum()), ctx.nprocs)
    # Reopening one file in a loop is a shape, caught however cheap it is now (its
    # severity says what it costs); a high metadata share needs a floor of time.
    if ctx.gate("most opens of one file by one process",
                float(per_proc_opens.max()) if len(per_proc_opens) else 0.0, ">",
                "open_close.opens_per_file"):
        lines.append(f"{int(reopen.sum())} files are opened more than {th['opens_per_file']} "
                     f"times by one process ({reopen_cost:.3f} s of metadata per process)")
        lines += file_lines(top(frame, per_proc_opens, ctx, 3, reopen),
                            lambda v: f"{int(v):,} opens per process")
    costly = ctx.gate("metadata seconds per process", meta_pp, ">=", "open_close.min_seconds")
    heavy = ctx.gate("metadata share of the POSIX I/O time", meta_pp / io_all if io_all else 0.0,
                     ">", "open_close.meta_fraction")
    if costly and heavy:
        lines.append(f"open/close/stat/seek take {pct(meta_pp, io_all)} of the POSIX I/O time "
                     f"({meta_pp:.2f} s per process; {int(opens.sum()):,} opens)")
    if not lines:
        return None
    return Hit("Time lost in open and close", lines, max(meta_pp, reopen_cost),
               "POSIX metadata seconds per process (the view's per-process metadata time, "
               "averaged over the processes)",
               {"opens": opens.sum(), "meta_seconds_per_process": meta_pp},
               rank_seconds=rank_map(meta_rank))


def _shared_imbalance(ctx, module, skip_ids):
    frame = ctx.frame(module)
    if frame is None or not len(frame):
        return []
    th, p = ctx.th["imbalance"], PREFIX[module]
    shared = frame["rank"].to_numpy() < 0
    ids = frame["id"].to_numpy()
    if skip_ids:
        shared &= ~np.isin(ids, np.array(sorted(skip_ids), dtype=ids.dtype))
    slow_b, fast_b = col(frame, f"{p}_SLOWEST_RANK_BYTES"), col(frame, f"{p}_FASTEST_RANK_BYTES")
    slow_t, fast_t = col(frame, f"{p}_F_SLOWEST_RANK_TIME"), col(frame, f"{p}_F_FASTEST_RANK_TIME")
    moved = total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"])
    db = np.divide(slow_b - fast_b, slow_b, out=np.zeros_like(slow_b), where=slow_b > 0)
    dt = np.divide(slow_t - fast_t, slow_t, out=np.zeros_like(slow_t), where=slow_t > 0)
    big = shared & (moved >= th["min_bytes"])
    bad_b = big & (np.abs(db) > th["fraction"])
    bad_t = big & (slow_t >= th["min_seconds"]) & (dt > th["fraction"])
    out = []
    slow_rank = col(frame, f"{p}_SLOWEST_RANK")
    for i in np.flatnonzero(bad_b | bad_t)[:50]:
        out.append((float(slow_t[i] - fast_t[i]),
                    f"  {ctx.name(ids[i])} ({module}): slowest rank "
                    f"{int(slow_rank[i])} moved {size(slow_b[i])} in "
                    f"{slow_t[i]:.2f} s, fastest rank {int(col(frame, f'{p}_FASTEST_RANK')[i])} "
                    f"{size(fast_b[i])} in {fast_t[i]:.2f} s", ctx.name(ids[i]),
                    int(slow_rank[i])))
    return out


def imbalance_shared(ctx):
    if not ctx.gate("processes", ctx.nprocs, ">=", "imbalance.min_procs"):
        return None
    # POSIX records of collectively written files: the aggregators carry the data
    # by design; the same files are judged at the MPI-IO layer.
    skip = collective_ids(ctx)
    items = []
    for module in ("POSIX", "MPI-IO", "STDIO"):
        items += _shared_imbalance(ctx, module, skip if module == "POSIX" else set())
    ctx.measure("shared-file records over the thresholds", len(items))
    if not items:
        return None
    items.sort(key=lambda x: -x[0])
    lines = [f"{len(items)} shared file records are imbalanced across processes (bytes or "
             f"time differ by more than {pct(ctx.th['imbalance']['fraction'], 1)})"]
    if skip:
        lines.append(f"({len(skip)} files accessed collectively through MPI-IO are judged "
                     "at the MPI-IO layer: their aggregators carry the POSIX data by design)")
    lines += [line for _, line, _, _ in items[:5]]
    worst = items[0]
    return Hit("Imbalanced I/O on shared files", lines, worst[0],
               "the largest gap between the slowest and the fastest process on one shared "
               "file: the time the others wait",
               {"files": len(items)}, sorted({x[2] for x in items[:5]}),
               ranks=sorted({x[3] for x in items[:5] if x[3] >= 0}),
               rank_seconds={worst[3]: worst[0]} if worst[3] >= 0 else None)


def imbalance_ranks(ctx):
    """Bytes and I/O time per process.  Files accessed collectively through MPI-IO
    are left out: their aggregators carry the POSIX data by design."""
    if not ctx.gate("processes", ctx.nprocs, ">=", "imbalance.min_procs"):
        return None
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        ctx.skip("no POSIX records")
        return None
    coll = collective_ids(ctx)
    ids = frame["id"].to_numpy()
    keep = ~np.isin(ids, np.array(sorted(coll), dtype=ids.dtype)) if coll else None
    moved = total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"])
    b_rank = per_rank(frame, moved if keep is None else moved * keep, ctx.nprocs)
    t_rank = view_seconds(ctx, ("POSIX",), keep=None if keep is None else {"POSIX": keep})
    if coll:
        ctx.measure("files accessed collectively through MPI-IO, left out", len(coll))
    lines, lost = [], 0.0
    slow_enough = ctx.gate("POSIX I/O seconds of the slowest process", t_rank.max(), ">=",
                           "imbalance.min_seconds")
    spread_b = (b_rank.max() - b_rank.min()) / b_rank.max() if b_rank.max() else 0.0
    spread_t = (t_rank.max() - t_rank.median()) / t_rank.max() if t_rank.max() else 0.0
    enough_b = ctx.gate("POSIX bytes of the busiest process", b_rank.max(), ">=",
                        "imbalance.min_bytes")
    if ctx.gate("(most - least bytes) / most", spread_b, ">", "imbalance.fraction") and \
            enough_b and slow_enough:
        lines.append(f"bytes per process range from {size(b_rank.min())} (rank "
                     f"{b_rank.argmin()}) to {size(b_rank.max())} (rank "
                     f"{b_rank.argmax()}); median {size(b_rank.median())}")
    if ctx.gate("(slowest - median seconds) / slowest", spread_t, ">", "imbalance.fraction") \
            and slow_enough:
        lost = float(t_rank.max() - t_rank.median())
        lines.append(f"POSIX I/O time per process ranges from {t_rank.min():.2f} s to "
                     f"{t_rank.max():.2f} s (rank {t_rank.argmax()}); median "
                     f"{t_rank.median():.2f} s")
    if not lines:
        return None
    if coll:
        lines.append(f"({len(coll)} files accessed collectively through MPI-IO are left out: "
                     "their aggregators carry the data by design)")
    return Hit("Imbalanced I/O across processes", lines, lost,
               "slowest process's POSIX I/O time minus the median process's (the view's "
               "per-process I/O time)",
               {"max_bytes": b_rank.max(), "min_bytes": b_rank.min(),
                "max_seconds": t_rank.max(), "median_seconds": t_rank.median()},
               ranks=sorted({t_rank.argmax(), b_rank.argmax()}),
               rank_seconds={t_rank.argmax(): lost})


def rank0_io(ctx):
    """Rank 0 moves (almost) all the data at the layer the application called: with
    collective MPI-IO the aggregators' POSIX share is by design, so MPI-IO bytes
    are judged when the job has them."""
    if not ctx.gate("processes", ctx.nprocs, ">=", "rank0.min_procs"):
        return None
    layers = ("MPI-IO",) if ctx.has("MPI-IO") else FS_LAYERS
    moved_all, moved_0 = 0.0, 0.0
    for module in layers:
        frame = ctx.frame(module)
        if frame is None or not len(frame):
            continue
        p = PREFIX[module]
        moved = total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"])
        moved_all += moved.sum()
        moved_0 += moved[frame["rank"].to_numpy() == 0].sum()
    enough = ctx.gate(f"{'/'.join(layers)} bytes of the job", moved_all, ">=", "rank0.min_bytes")
    most = ctx.gate("rank 0's share of the bytes", moved_0 / moved_all if moved_all else 0.0,
                    ">=", "rank0.fraction")
    if not (enough and most):
        return None
    t0 = view_seconds(ctx, layers).at(0)
    n = ctx.nprocs
    lost = t0 * (n - 1) / n
    verb = _verb(ctx, layers)
    return Hit("Rank 0 does (almost) all the I/O",
               [f"rank 0 {verb} {size(moved_0)} of {size(moved_all)} "
                f"({pct(moved_0, moved_all)}) at the {'/'.join(layers)} layer in a "
                f"{n}-process job; its I/O took {t0:.2f} s while the other processes waited; "
                f"spread over all {n} processes it would take about {t0 / n:.2f} s"],
               lost, "rank 0's I/O seconds (the view's per-process time) less its share "
               "if the data were spread over every process",
               {"rank0_bytes": moved_0, "bytes": moved_all, "rank0_seconds": t0}, ranks=[0],
               rank_seconds={0: lost})


def _verb(ctx, layers) -> str:
    read = written = 0.0
    for module in layers:
        frame = ctx.frame(module)
        if frame is not None and len(frame):
            p = PREFIX[module]
            read += col(frame, f"{p}_BYTES_READ").sum()
            written += col(frame, f"{p}_BYTES_WRITTEN").sum()
    return "wrote" if written >= 9 * read else "read" if read >= 9 * written else "moved"


def mpiio_skew(ctx):
    """Time inside MPI-IO far above the POSIX time under it: processes wait in
    collective calls for late arrivals (load skew), not for the file system."""
    if not ctx.has("MPI-IO") or not ctx.has("POSIX") or ctx.nprocs < 2:
        ctx.skip("needs MPI-IO and POSIX records in a multi-process job")
        return None
    m_rank, p_rank = view_seconds(ctx, ("MPI-IO",)), view_seconds(ctx, ("POSIX",))
    m, p = m_rank.max(), p_rank.max()
    gap = m - p
    ratio = ctx.gate("slowest MPI-IO seconds / slowest POSIX seconds", m / p if p else
                     (float("inf") if m else 0.0), ">=", "skew.ratio")
    floor = ctx.gate("their difference", gap, ">=", "skew.min_seconds")
    share = ctx.gate("the difference's share of the run", gap / ctx.run_time if ctx.run_time
                     else 0.0, ">=", "skew.run_fraction")
    if not (ratio and floor and share):
        return None
    return Hit("MPI-IO time far exceeds the POSIX time beneath it",
               [f"slowest process: {m:.2f} s in MPI-IO calls but at most {p:.2f} s in the POSIX "
                f"calls they make ({m / max(p, 1e-9):.1f}x): the rest is waiting inside "
                "collective calls for other processes"],
               gap, "slowest process's MPI-IO seconds minus the largest POSIX seconds of any "
               "process (the view's per-process I/O time, shared files included)",
               {"mpiio_seconds": m, "posix_seconds": p}, ranks=[m_rank.argmax()],
               rank_seconds={m_rank.argmax(): gap})
