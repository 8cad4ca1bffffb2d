"""Where the time goes: metadata, opens, and how the work is spread over processes."""
from __future__ import annotations

import numpy as np

from .._ranks import RankSums
from .context import col
from .measure import (PREFIX, file_lines, io_time, pct, per_process, per_rank, size, top,
                      total)
from .model import Hit

def _meta_per_rank(ctx):
    """Metadata seconds of each process, summed over POSIX and STDIO (the calls that
    reach the file system; MPI-IO metadata time contains them again)."""
    ranks, seconds = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
    for module in ("POSIX", "STDIO"):
        frame = ctx.frame(module)
        if frame is not None and len(frame):
            ranks.append(frame["rank"].to_numpy())
            seconds.append(col(frame, f"{PREFIX[module]}_F_META_TIME"))
    return RankSums(np.concatenate(ranks), np.concatenate(seconds), ctx.nprocs)


def metadata_time(ctx):
    th = ctx.th["metadata"]
    meta = _meta_per_rank(ctx)
    worst = meta.max()
    limit = min(th["per_process_seconds"],
                max(th["run_fraction"] * ctx.run_time, th["min_seconds"])) \
        if ctx.run_time else th["per_process_seconds"]
    if worst < max(limit, th["min_seconds"]):
        return None
    slow, lowest = meta.at_least(limit)
    lines = [f"{slow} of {ctx.nprocs} processes spend more than {limit:.1f} s in "
             f"metadata calls (open, close, stat, seek, sync); the most, rank "
             f"{meta.argmax()}, {worst:.2f} s"
             + (f" of a {ctx.run_time:.0f} s run ({pct(worst, ctx.run_time)})"
                if ctx.run_time else "")]
    frame = ctx.frame("POSIX")
    if frame is not None and len(frame):
        t = col(frame, "POSIX_F_META_TIME")
        lines += file_lines(top(frame, t, ctx, 3, t > 0), lambda v: f"{v:.2f} s metadata")
    return Hit("High metadata time per process", lines, worst,
               "metadata seconds of the slowest process (per-process records summed per "
               "rank; shared records spread evenly)",
               {"max_meta_seconds": worst, "processes_over": slow},
               ranks=lowest,
               severity="critical" if worst > th["per_process_seconds"] else None)


def open_close(ctx):
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    th = ctx.th["open_close"]
    opens = col(frame, "POSIX_OPENS")
    meta = col(frame, "POSIX_F_META_TIME")
    rw = col(frame, "POSIX_F_READ_TIME") + col(frame, "POSIX_F_WRITE_TIME")
    ranks = frame["rank"].to_numpy()
    per_proc_opens = np.where(ranks < 0, opens / ctx.nprocs, opens)
    reopen = per_proc_opens > th["opens_per_file"]
    meta_pp = per_process(float(meta.sum()), ctx.nprocs)
    lines = []
    if reopen.any() and per_process(float(meta[reopen].sum()), ctx.nprocs) >= th["min_seconds"]:
        lines.append(f"{int(reopen.sum())} files are opened more than {th['opens_per_file']} "
                     "times by one process")
        lines += file_lines(top(frame, per_proc_opens, ctx, 3, reopen),
                            lambda v: f"{int(v):,} opens per process")
    if meta_pp >= th["min_seconds"] and meta.sum() > th["meta_fraction"] * (meta.sum() + rw.sum()):
        lines.append(f"open/close/stat/seek take {pct(meta.sum(), meta.sum() + rw.sum())} of "
                     f"the POSIX I/O time ({meta_pp:.2f} s per process; "
                     f"{int(opens.sum()):,} opens)")
    if not lines:
        return None
    return Hit("Time lost in open and close", lines, meta_pp,
               "POSIX metadata seconds summed over processes divided by the process count",
               {"opens": opens.sum(), "meta_seconds_per_process": meta_pp})


def _shared_imbalance(ctx, module):
    frame = ctx.frame(module)
    if frame is None or not len(frame):
        return []
    th, p = ctx.th["imbalance"], PREFIX[module]
    shared = frame["rank"].to_numpy() < 0
    slow_b, fast_b = col(frame, f"{p}_SLOWEST_RANK_BYTES"), col(frame, f"{p}_FASTEST_RANK_BYTES")
    slow_t, fast_t = col(frame, f"{p}_F_SLOWEST_RANK_TIME"), col(frame, f"{p}_F_FASTEST_RANK_TIME")
    moved = total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"])
    db = np.divide(slow_b - fast_b, slow_b, out=np.zeros_like(slow_b), where=slow_b > 0)
    dt = np.divide(slow_t - fast_t, slow_t, out=np.zeros_like(slow_t), where=slow_t > 0)
    big = shared & (moved >= th["min_bytes"])
    bad_b = big & (np.abs(db) > th["fraction"])
    bad_t = big & (slow_t >= th["min_seconds"]) & (dt > th["fraction"])
    out = []
    ids = frame["id"].to_numpy()
    for i in np.flatnonzero(bad_b | bad_t)[:50]:
        out.append((float(slow_t[i] - fast_t[i]),
                    f"  {ctx.name(ids[i])} ({module}): slowest rank "
                    f"{int(col(frame, f'{p}_SLOWEST_RANK')[i])} moved {size(slow_b[i])} in "
                    f"{slow_t[i]:.2f} s, fastest rank {int(col(frame, f'{p}_FASTEST_RANK')[i])} "
                    f"{size(fast_b[i])} in {fast_t[i]:.2f} s", ctx.name(ids[i])))
    return out


def imbalance_shared(ctx):
    if ctx.nprocs < ctx.th["imbalance"]["min_procs"]:
        return None
    items = []
    for module in ("POSIX", "MPI-IO", "STDIO"):
        items += _shared_imbalance(ctx, module)
    if not items:
        return None
    items.sort(key=lambda x: -x[0])
    lines = [f"{len(items)} shared file records are imbalanced across processes (bytes or "
             f"time differ by more than {pct(ctx.th['imbalance']['fraction'], 1)})"]
    lines += [line for _, line, _ in items[:5]]
    return Hit("Imbalanced I/O on shared files", lines, max(x[0] for x in items),
               "the largest gap between the slowest and the fastest process on one shared "
               "file: the time the others wait",
               {"files": len(items)}, sorted({x[2] for x in items[:5]}))


def imbalance_ranks(ctx):
    th = ctx.th["imbalance"]
    if ctx.nprocs < th["min_procs"]:
        return None
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    moved = total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"])
    t = io_time(frame, "POSIX")
    b_rank, t_rank = per_rank(frame, moved, ctx.nprocs), per_rank(frame, t, ctx.nprocs)
    lines, lost = [], 0.0
    if b_rank.max() >= th["min_bytes"] and t_rank.max() >= th["min_seconds"] and \
            (b_rank.max() - b_rank.min()) > th["fraction"] * b_rank.max():
        lines.append(f"bytes per process range from {size(b_rank.min())} (rank "
                     f"{b_rank.argmin()}) to {size(b_rank.max())} (rank "
                     f"{b_rank.argmax()}); median {size(b_rank.median())}")
    if t_rank.max() >= th["min_seconds"] and \
            (t_rank.max() - t_rank.median()) > th["fraction"] * t_rank.max():
        lost = float(t_rank.max() - t_rank.median())
        lines.append(f"POSIX I/O time per process ranges from {t_rank.min():.2f} s to "
                     f"{t_rank.max():.2f} s (rank {t_rank.argmax()}); median "
                     f"{t_rank.median():.2f} s")
    if not lines:
        return None
    return Hit("Imbalanced I/O across processes", lines, lost,
               "slowest process's POSIX I/O time minus the median process's",
               {"max_bytes": b_rank.max(), "min_bytes": b_rank.min(),
                "max_seconds": t_rank.max(), "median_seconds": t_rank.median()},
               ranks=[t_rank.argmax(), b_rank.argmax()])


def rank0_io(ctx):
    th = ctx.th["rank0"]
    if ctx.nprocs < th["min_procs"]:
        return None
    moved_all, moved_0, t0 = 0.0, 0.0, 0.0
    for module in ("POSIX", "STDIO"):
        frame = ctx.frame(module)
        if frame is None or not len(frame):
            continue
        p = PREFIX[module]
        moved = total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"])
        ranks = frame["rank"].to_numpy()
        moved_all += moved.sum()
        moved_0 += moved[ranks == 0].sum()
        t0 += io_time(frame, module)[ranks == 0].sum()
    if moved_all < ctx.th["sizes"]["min_bytes"] or moved_0 < th["fraction"] * moved_all \
            or t0 < th["min_seconds"]:
        return None
    return Hit("Rank 0 does (almost) all the I/O",
               [f"rank 0 moved {size(moved_0)} of {size(moved_all)} ({pct(moved_0, moved_all)}) "
                f"in a {ctx.nprocs}-process job; its I/O took {t0:.2f} s while the other "
                f"processes waited"],
               t0, "rank 0's POSIX+STDIO I/O time: the others wait for it",
               {"rank0_bytes": moved_0, "bytes": moved_all, "rank0_seconds": t0}, ranks=[0])


def _slowest_shared(frame, p) -> float:
    t = col(frame, f"{p}_F_SLOWEST_RANK_TIME")[frame["rank"].to_numpy() < 0]
    return float(t.max()) if t.size else 0.0


def mpiio_skew(ctx):
    """Time inside MPI-IO far above the POSIX time under it: processes wait in
    collective calls for late arrivals (load skew), not for the file system."""
    th = ctx.th["skew"]
    mpi, posix = ctx.frame("MPI-IO"), ctx.frame("POSIX")
    if mpi is None or not len(mpi) or posix is None or not len(posix) or ctx.nprocs < 2:
        return None
    m_rank = per_rank(mpi, io_time(mpi, "MPI-IO"), ctx.nprocs)
    p_rank = per_rank(posix, io_time(posix, "POSIX"), ctx.nprocs)
    # A shared record's slowest process is known exactly; the even spread is a floor.
    m = max(m_rank.max(), _slowest_shared(mpi, "MPIIO"))
    p = max(p_rank.max(), _slowest_shared(posix, "POSIX"))
    gap = m - p
    if m < th["ratio"] * p or gap < max(th["min_seconds"], th["run_fraction"] * ctx.run_time):
        return None
    return Hit("MPI-IO time far exceeds the POSIX time beneath it",
               [f"slowest process: {m:.2f} s in MPI-IO calls but at most {p:.2f} s in the POSIX "
                f"calls they make ({m / max(p, 1e-9):.1f}x): the rest is waiting inside "
                "collective calls for other processes"],
               gap, "slowest process's MPI-IO seconds minus the largest POSIX seconds of any "
               "process (per-process records summed per rank; a shared record counts its "
               "slowest process's time)",
               {"mpiio_seconds": m, "posix_seconds": p}, ranks=[m_rank.argmax()])
