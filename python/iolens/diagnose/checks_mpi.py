"""Interface choice: MPI-IO collective and nonblocking use, aggregators, STDIO."""
from __future__ import annotations

import re

import numpy as np

from .context import col
from .measure import file_lines, io_time, pct, per_process, size, top, total
from .model import Hit


def _mpiio(ctx):
    frame = ctx.frame("MPI-IO")
    return frame if frame is not None and len(frame) else None


def no_collective(ctx):
    frame = _mpiio(ctx)
    if frame is None or ctx.nprocs < 2:
        return None
    th = ctx.th["collective"]
    lines, lost, files = [], 0.0, []
    for op, word in (("READ", "reads"), ("WRITE", "writes")):
        indep = col(frame, f"MPIIO_INDEP_{op}S")
        allops = total(frame, [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")])
        if indep.sum() < th["min_count"] or indep.sum() <= th["independent_fraction"] * allops.sum():
            continue
        share = np.divide(indep, allops, out=np.zeros_like(indep), where=allops > 0)
        lost += per_process(float((col(frame, f"MPIIO_F_{op}_TIME") * share).sum()), ctx.nprocs)
        lines.append(f"{int(indep.sum()):,} of {int(allops.sum()):,} MPI-IO {word} "
                     f"({pct(indep.sum(), allops.sum())}) are independent; none or few are "
                     "collective")
        worst = top(frame, indep, ctx, 3, indep > 0)
        lines += file_lines(worst, lambda v: f"{int(v):,} independent {word}")
        files += [w[0] for w in worst]
    if not lines:
        return None
    return Hit("Independent MPI-IO where collective I/O would help", lines, lost,
               "time of the independent operations (share of the MPI-IO read/write time), "
               "per process: an upper bound", {}, sorted(set(files)))


def collective_used(ctx):
    frame = _mpiio(ctx)
    if frame is None:
        return None
    coll = total(frame, ["MPIIO_COLL_READS", "MPIIO_COLL_WRITES"]).sum()
    allops = total(frame, [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")
                           for op in ("READ", "WRITE")]).sum()
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
    if nb > 0 or blocking_ops == 0 or not ctx.run_time or \
            rw < ctx.th["blocking"]["io_fraction"] * ctx.run_time:
        return None
    return Hit("Only blocking MPI-IO, and it takes a large share of the run",
               [f"{int(blocking_ops):,} blocking MPI-IO data operations and no nonblocking "
                f"ones; they take {rw:.2f} s per process, {pct(rw, ctx.run_time)} of the "
                f"{ctx.run_time:.0f} s run"],
               rw, "MPI-IO read+write seconds per process: the most that overlapping I/O "
               "with computation can hide", {"blocking_ops": blocking_ops, "seconds": rw})


def _hint(ctx, key):
    """A hint value from job metadata ("key=value;..." under "h" or a top-level key)."""
    for text in (ctx.metadata.get(key), ctx.metadata.get("h")):
        if text is None:
            continue
        if "=" not in str(text):
            return str(text), key
        m = re.search(rf"(?:^|;){re.escape(key)}=([^;]*)", str(text))
        if m:
            return m.group(1), "h"
    return None, None


def aggregators(ctx):
    """cb_nodes versus the node count, compared as integers; never calls sacct."""
    if _mpiio(ctx) is None or ctx.nprocs < ctx.th["aggregators"]["min_procs"]:
        return None
    value, where = _hint(ctx, "cb_nodes")
    nodes, node_source = ctx.nodes
    try:
        cb = int(value)
    except (TypeError, ValueError):
        return None
    if not nodes or cb == nodes:
        return None
    caveat = (" (from the log's 'h=' metadata: the hints the runtime used to write its "
              "own log, which match the application's only when it sets none)"
              if where == "h" else "")
    direction = "fewer" if cb < nodes else "more"
    return Hit(f"MPI-IO aggregators ({cb}) are {direction} than the nodes ({nodes})",
               [f"cb_nodes={cb}{caveat}; {nodes} nodes ({node_source}); "
                f"{ctx.nprocs} processes"],
               0.0, "not estimated: needs the collective buffering timings",
               {"cb_nodes": cb, "nodes": nodes}, severity="warning" if cb < nodes else "info",
               snippet=f'MPI_Info_set(info, "cb_nodes", "{nodes}");  /* one aggregator per node */\n'
                       f'export ROMIO_HINTS=romio-hints  # file with the line: cb_nodes {nodes}')


def stdio_heavy(ctx):
    th = ctx.th["stdio"]
    frame = ctx.frame("STDIO")
    if frame is None or not len(frame):
        return None
    s = total(frame, ["STDIO_BYTES_READ", "STDIO_BYTES_WRITTEN"])
    # The C library's own read/write calls inside fread/fwrite are not intercepted,
    # so STDIO bytes are not in the POSIX counters: the two add up.
    posix = ctx.frame("POSIX")
    allb = s.sum() + total(posix, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"]).sum()
    if s.sum() < th["min_bytes"] or s.sum() <= th["fraction"] * allb:
        return None
    t = io_time(frame, "STDIO")
    return Hit("Heavy use of STDIO",
               [f"STDIO moved {size(s.sum())} of {size(allb)} ({pct(s.sum(), allb)})"]
               + file_lines(top(frame, s, ctx, 3, s > 0), size),
               per_process(float(t.sum()), ctx.nprocs),
               "STDIO I/O seconds summed over processes divided by the process count",
               {"stdio_bytes": s.sum(), "bytes": allb})


def no_mpiio(ctx):
    th = ctx.th["no_mpiio"]
    if ctx.nprocs < th["min_procs"] or "MPI-IO" in ctx.modules:
        return None
    moved, t = 0.0, 0.0
    for module in ("POSIX", "STDIO"):
        frame = ctx.frame(module)
        if frame is not None and len(frame):
            p = "POSIX" if module == "POSIX" else "STDIO"
            moved += total(frame, [f"{p}_BYTES_READ", f"{p}_BYTES_WRITTEN"]).sum()
            t += io_time(frame, module).sum()
    if moved < th["min_bytes"]:
        return None
    return Hit("No MPI-IO in a many-process job",
               [f"{ctx.nprocs} processes moved {size(moved)} through POSIX/STDIO only"],
               per_process(t, ctx.nprocs),
               "POSIX+STDIO I/O seconds per process: an upper bound",
               {"nprocs": ctx.nprocs, "bytes": moved})
