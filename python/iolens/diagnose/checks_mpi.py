"""Interface choice: MPI-IO collective and nonblocking use, aggregators, STDIO."""
from __future__ import annotations

import numpy as np

from .checks_time import collective_ids
from .context import col
from .measure import (FS_LAYERS, file_lines, pct, per_process, rate, seconds_above_rate, size,
                      top, total, view_seconds)
from .model import Hit


def _mpiio(ctx):
    frame = ctx.frame("MPI-IO")
    return frame if frame is not None and len(frame) else None


NO_COLLECTIVE_BASIS = (
    "time the independent MPI-IO operations took beyond what their bytes need at a rate "
    "measured in the same log: that of the job's collective MPI-IO operations of the kind, "
    "else that of its large POSIX requests (mean at least sizes.small_request, which leaves "
    "out collective buffering's exchange: an upper bound); per record, the independent share "
    "of the MPI-IO read/write time less that share of its bytes at the rate, summed and "
    "divided by the process count.  0 when the log has neither to compare with")


def no_collective(ctx):
    """Independent MPI-IO where collective calls could merge requests.  What
    collective I/O saves depends on the file system (on a local one it can be a
    loss), so the time lost is measured against a better rate seen in the same
    log, not assumed to be the independent operations' whole time."""
    frame = _mpiio(ctx)
    if frame is None or ctx.nprocs < 2:
        ctx.skip("needs MPI-IO records in a multi-process job")
        return None
    lines, lost, files = [], 0.0, []
    for op, word in (("READ", "reads"), ("WRITE", "writes")):
        indep = col(frame, f"MPIIO_INDEP_{op}S")
        allops = total(frame, [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")])
        many = ctx.gate(f"independent MPI-IO {word}", indep.sum(), ">=", "collective.min_count")
        most = ctx.gate(f"independent / all MPI-IO {word}",
                        indep.sum() / allops.sum() if allops.sum() else 0.0, ">",
                        "collective.independent_fraction")
        if not (many and most):
            continue
        seconds, line = _independent_time(ctx, frame, op, word, indep, allops)
        lost += seconds
        lines.append(f"{int(indep.sum()):,} of {int(allops.sum()):,} MPI-IO {word} "
                     f"({pct(indep.sum(), allops.sum())}) are independent; none or few are "
                     "collective")
        lines.append(line)
        worst = top(frame, indep, ctx, 3, indep > 0)
        lines += file_lines(worst, lambda v: f"{int(v):,} independent {word}")
        files += [w[0] for w in worst]
    if not lines:
        return None
    return Hit("Independent MPI-IO where collective I/O would help", lines, lost,
               NO_COLLECTIVE_BASIS, {}, sorted(set(files)))


def _better_rate(ctx, frame, op, allops):
    """(bytes per second, what it is) of the better way the same log shows: its
    mostly collective MPI-IO records, else its large POSIX requests; None without."""
    key = "READ" if op == "READ" else "WRITTEN"
    coll = col(frame, f"MPIIO_COLL_{op}S")
    mostly = (allops > 0) & (coll * 2 >= allops)
    found = rate(col(frame, f"MPIIO_BYTES_{key}"), col(frame, f"MPIIO_F_{op}_TIME"), mostly)
    if found is not None:
        return found, "collective MPI-IO"
    posix = ctx.frame("POSIX")
    if posix is None or not len(posix):
        return None, ""
    nbytes, count = col(posix, f"POSIX_BYTES_{key}"), col(posix, f"POSIX_{op}S")
    large = (count > 0) & (nbytes >= count * ctx.th["sizes"]["small_request"])
    found = rate(nbytes, col(posix, f"POSIX_F_{op}_TIME"), large)
    return found, f"POSIX requests of {size(ctx.th['sizes']['small_request'])} or more"


def _independent_time(ctx, frame, op, word, indep, allops):
    """(seconds lost per process, evidence line)."""
    reference, what = _better_rate(ctx, frame, op, allops)
    if reference is None:
        return 0.0, (f"the log has no collective MPI-IO or large POSIX {word} to compare "
                     "with: the time lost is not estimated")
    key = "READ" if op == "READ" else "WRITTEN"
    seconds = col(frame, f"MPIIO_F_{op}_TIME")
    share = np.divide(indep, allops, out=np.zeros_like(indep), where=allops > 0)
    lost = per_process(seconds_above_rate(col(frame, f"MPIIO_BYTES_{key}"), seconds, share,
                                          reference), ctx.nprocs)
    return lost, (f"{what} {word} in this log ran at {size(reference)}/s; the independent "
                  f"ones took {lost:.3f} s per process more than their bytes need at that rate")


def collective_used(ctx):
    frame = _mpiio(ctx)
    if frame is None:
        return None
    coll = total(frame, ["MPIIO_COLL_READS", "MPIIO_COLL_WRITES"]).sum()
    allops = total(frame, [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")
                           for op in ("READ", "WRITE")]).sum()
    ctx.measure("collective / all MPI-IO data operations (most: at least half)",
                coll / allops if allops else 0.0)
    if coll == 0 or coll < 0.5 * allops:
        return None
    return Hit("Collective MPI-IO is used",
               [f"{int(coll):,} of {int(allops):,} MPI-IO data operations are collective"],
               0.0, "nothing lost", {"collective": coll})


def blocking(ctx):
    frame = _mpiio(ctx)
    if frame is None:
        return None
    nb = total(frame, ["MPIIO_NB_READS", "MPIIO_NB_WRITES"]).sum()
    blocking_ops = total(frame, [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT")
                                 for op in ("READ", "WRITE")]).sum()
    rw = per_process(float((col(frame, "MPIIO_F_READ_TIME") +
                            col(frame, "MPIIO_F_WRITE_TIME")).sum()), ctx.nprocs)
    ctx.measure("nonblocking MPI-IO operations", nb)
    if nb > 0 or blocking_ops == 0 or not ctx.run_time:
        return None
    if not ctx.gate("MPI-IO read+write seconds per process / run time", rw / ctx.run_time, ">=",
                    "blocking.io_fraction"):
        return None
    return Hit("Only blocking MPI-IO, and it takes a large share of the run",
               [f"{int(blocking_ops):,} blocking MPI-IO data operations and no nonblocking "
                f"ones; they take {rw:.2f} s per process, {pct(rw, ctx.run_time)} of the "
                f"{ctx.run_time:.0f} s run"],
               rw, "MPI-IO read+write seconds per process: the most that overlapping I/O "
               "with computation can hide", {"blocking_ops": blocking_ops, "seconds": rw})


def aggregators(ctx):
    """Fewer aggregators than nodes in collective MPI-IO: some nodes' links idle.
    The aggregators are counted from the data (the ranks doing the POSIX I/O of
    collectively accessed files), else taken from the application's cb_nodes in
    job metadata.  The log's "h=" hints are the runtime's own, for writing the
    log, and never stand for the application's.  That aggregators carry more
    data than the other processes is collective buffering working, not a problem."""
    if _mpiio(ctx) is None or not ctx.gate("processes", ctx.nprocs, ">=",
                                           "aggregators.min_procs"):
        return None
    ids = collective_ids(ctx)
    if not ids:
        ctx.skip("no file is accessed collectively through MPI-IO")
        return None
    nodes, node_source = ctx.nodes
    if not nodes:
        ctx.skip("the log does not say how many nodes the job ran on (job metadata nnodes, "
                 "DXT host names)")
        return None
    if not ctx.gate("nodes", nodes, ">=", "aggregators.min_nodes"):
        return None
    count, source = _aggregators(ctx, ids)
    if count is None:
        ctx.skip("the aggregator count is unknown: the POSIX records of the collectively "
                 "accessed files are shared ones, and job metadata has no cb_nodes (the "
                 "'h=' hints are the runtime's own, for its log)")
        return None
    if not ctx.gate("aggregators per node", count / nodes, "<", "aggregators.per_node"):
        return None
    return Hit(f"MPI-IO aggregators ({count}) are fewer than the nodes ({nodes})",
               [f"{count} aggregators ({source}) for {nodes} nodes ({node_source}) and "
                f"{ctx.nprocs} processes: during collective I/O the network links of "
                f"{nodes - count} nodes carry no file data"],
               0.0, "not estimated: needs the collective buffering timings",
               {"aggregators": count, "nodes": nodes},
               snippet=f'MPI_Info_set(info, "cb_nodes", "{nodes}");  /* one aggregator per node */\n'
                       f'export ROMIO_HINTS=romio-hints  # file with the line: cb_nodes {nodes}')


def _aggregators(ctx, ids):
    """(aggregator count, where it came from) or (None, None)."""
    posix = ctx.frame("POSIX")
    if posix is not None and len(posix):
        rid = posix["id"].to_numpy()
        on = np.isin(rid, np.array(sorted(ids), dtype=rid.dtype)) & \
            (total(posix, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"]) > 0)
        ranks = posix["rank"].to_numpy()[on]
        if on.any() and (ranks >= 0).all():
            return int(len(np.unique(ranks))), ("processes that did the POSIX I/O of the "
                                                "collectively accessed files")
    value = ctx.metadata.get("cb_nodes")
    try:
        return int(str(value).strip()), "the application's cb_nodes in job metadata"
    except (TypeError, ValueError):
        return None, None


def stdio_heavy(ctx):
    frame = ctx.frame("STDIO")
    if frame is None or not len(frame):
        return None
    s = total(frame, ["STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN"])
    # The C library's own read/write calls inside fread/fwrite are not intercepted,
    # so STDIO bytes are not in the POSIX counters: the two add up.
    posix = ctx.frame("POSIX")
    allb = s.sum() + total(posix, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"]).sum()
    big = ctx.gate("STDIO bytes", s.sum(), ">=", "stdio.min_bytes")
    most = ctx.gate("STDIO bytes / all bytes", s.sum() / allb if allb else 0.0, ">",
                    "stdio.fraction")
    if not (big and most):
        return None
    return Hit("Heavy use of STDIO",
               [f"STDIO moved {size(s.sum())} of {size(allb)} ({pct(s.sum(), allb)})"]
               + file_lines(top(frame, s, ctx, 3, s > 0), size),
               view_seconds(ctx, ("STDIO",)).mean(),
               "STDIO I/O seconds per process (the view's per-process time), averaged",
               {"stdio_bytes": s.sum(), "bytes": allb})


def no_mpiio(ctx):
    if not ctx.gate("processes", ctx.nprocs, ">=", "no_mpiio.min_procs"):
        return None
    if "MPI-IO" in ctx.modules:
        ctx.skip("the job uses MPI-IO")
        return None
    moved = 0.0
    for module in FS_LAYERS:
        frame = ctx.frame(module)
        if frame is not None and len(frame):
            moved += total(frame, [f"{module}_BYTES_READ", f"{module}_BYTES_WRITTEN"]).sum()
    if not ctx.gate("POSIX+STDIO bytes", moved, ">=", "no_mpiio.min_bytes"):
        return None
    return Hit("No MPI-IO in a many-process job",
               [f"{ctx.nprocs} processes moved {size(moved)} through POSIX/STDIO only"],
               view_seconds(ctx, FS_LAYERS).mean(),
               "POSIX+STDIO I/O seconds per process (the view's per-process time), "
               "averaged: an upper bound",
               {"nprocs": ctx.nprocs, "bytes": moved})
