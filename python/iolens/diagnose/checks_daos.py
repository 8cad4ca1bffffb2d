"""DAOS checks: small DFS/DAOS transfers and objects opened over and over.

DFS and DAOS calls never reach the kernel, so the POSIX rules do not see them;
these read the DFS and DAOS modules' own counters (docs/daos-modules.md)."""
from __future__ import annotations

import numpy as np

from .context import col
from .measure import (PREFIX, file_lines, pct, per_process, size, size_bins, small_bins,
                      small_share_seconds, top, total)
from .model import Hit

# Calls that make a handle for an object, per module: each one a lookup in the
# namespace (DFS) or a layout computation and handle (DAOS).
OPEN_COUNTERS = {"DFS": ("DFS_OPENS", "DFS_LOOKUPS", "DFS_DUPS", "DFS_GLOBAL_OPENS"),
                 "DAOS": ("DAOS_OBJ_OPENS", "DAOS_ARRAY_OPENS", "DAOS_KV_OPENS")}
WORDS = {"DFS": ("reads", "writes"), "DAOS": ("fetches/reads", "updates/writes")}


def _small_op(ctx, module, frame, op, word, limit):
    """(lines, seconds summed over processes, files) of one op's small transfers.
    Every DFS/DAOS data call is counted in the module's size histogram, so the
    histogram's sum is the data-call count."""
    small = total(frame, small_bins(module, op, limit))
    count = total(frame, size_bins(module, op))
    n_small, n_all = float(small.sum()), float(count.sum())
    seconds = small_share_seconds(ctx, small, count, col(frame, f"{PREFIX[module]}_F_{op}_TIME"),
                                  f"{module} {word}")
    if seconds is None:
        return [], 0.0, []
    moved = col(frame, f"{PREFIX[module]}_BYTES_{'READ' if op == 'READ' else 'WRITTEN'}")
    mean = float(moved.sum()) / n_all if n_all else 0.0
    what = f"{module} {word}"
    lines = [f"{int(n_small):,} of {int(n_all):,} {what} ({pct(n_small, n_all)}) are smaller "
             f"than {size(limit)}; {size(mean)} per call on average"]
    worst = top(frame, small, ctx, 3, small > 0)
    lines += file_lines(worst, lambda v: f"{int(v):,} small {word}")
    return lines, seconds, [w[0] for w in worst]


def daos_small_io(ctx):
    limit = ctx.th["sizes"]["small_request"]
    lines, seconds, files, modules = [], 0.0, [], []
    for module in ("DFS", "DAOS"):
        frame = ctx.frame(module)
        if frame is None or not len(frame):
            ctx.skip(f"no {module} records")
            continue
        for op, word in zip(("READ", "WRITE"), WORDS[module]):
            got, secs, names = _small_op(ctx, module, frame, op, word, limit)
            lines += got
            seconds += secs
            files += names
            if got and module not in modules:
                modules.append(module)
        chunk = float(col(frame, "DFS_CHUNK_SIZE").max()) if module == "DFS" else 0.0
        if module in modules and chunk > 0:
            lines.append(f"DFS chunk size {size(chunk)}: a transfer of whole chunks fills "
                         "each in one call")
    if not lines:
        return None
    return Hit(f"Many small {'/'.join(modules)} transfers (below {size(limit)})", lines,
               per_process(seconds, ctx.nprocs),
               "time spent in the small DFS/DAOS transfers (their share of the calls times "
               "the read/write time), summed over processes and divided by the process count",
               {"small_seconds_summed": seconds}, sorted(set(files)))


def _reopens(ctx, module, frame):
    """(lines, seconds summed over processes, files) of objects opened again and again."""
    opens = total(frame, OPEN_COUNTERS[module])
    ranks = frame["rank"].to_numpy()
    per_proc = np.where(ranks < 0, opens / max(ctx.nprocs, 1), opens)
    p = PREFIX[module]
    moved = col(frame, f"{p}_BYTES_READ") + col(frame, f"{p}_BYTES_WRITTEN")
    per_open = np.divide(moved, opens, out=np.zeros_like(moved), where=opens > 0)
    busy = ctx.gate_each(f"opens of one {module} object by one process", per_proc, ">",
                         "daos_open.opens_per_object")
    if not busy.any():
        return [], 0.0, []
    little = ctx.gate_each(f"{module} bytes moved per open (objects opened that often)",
                           per_open[busy], "<", "daos_open.bytes_per_open")
    hit = busy.copy()
    hit[busy] = little
    if not hit.any():
        return [], 0.0, []
    # Each open past a process's first is avoidable; the metadata time (opens,
    # closes, lookups, size queries) is what it can have cost at most.
    avoidable = np.divide(per_proc - 1, per_proc, out=np.zeros_like(per_proc), where=per_proc > 0)
    seconds = float((col(frame, f"{p}_F_META_TIME") * avoidable)[hit].sum())
    lines = [f"{int(hit.sum())} {module} objects are opened more than "
             f"{ctx.th['daos_open']['opens_per_object']} times by one process, moving "
             f"{size(moved[hit].sum() / max(opens[hit].sum(), 1))} per open "
             f"({int(opens[hit].sum()):,} opens in all)"]
    worst = top(frame, per_proc, ctx, 3, hit)
    lines += file_lines(worst, lambda v: f"{int(v):,} opens per process")
    return lines, seconds, [w[0] for w in worst]


def daos_reopen(ctx):
    lines, seconds, files = [], 0.0, []
    for module in ("DFS", "DAOS"):
        frame = ctx.frame(module)
        if frame is None or not len(frame):
            ctx.skip(f"no {module} records")
            continue
        got, secs, names = _reopens(ctx, module, frame)
        lines += got
        seconds += secs
        files += names
    if not lines:
        return None
    return Hit("DFS/DAOS objects opened and closed over and over", lines,
               per_process(seconds, ctx.nprocs),
               "metadata time of the reopened objects times the share of their opens past "
               "each process's first, summed over processes and divided by the process count",
               {"reopen_seconds_summed": seconds}, sorted(set(files)))
