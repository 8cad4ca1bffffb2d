"""Access-pattern checks: request sizes, alignment, redundant and random access."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .checks_mounts import off_node_local
from .context import col
from .measure import (file_lines, ops, pct, per_process, rate, seconds_above_rate, size,
                      small_share_seconds,
                      small_bins, top, total)
from .model import Hit

# The layers the small-request rules judge, in the order the application calls them
# (MPI-IO when used, else POSIX); their size histograms are named differently in
# each table (SIZE_READ_* / SIZE_READ_AGG_*): knowledge of these two modules.
SMALL_IO_MODULES = ("MPI-IO", "POSIX")

TIME_BASIS = ("time spent in the affected operations (their share of the operation count "
              "times the read/write time), summed over processes and divided by the process "
              "count: an upper bound of what fixing it saves")


def _small(ctx, module: str, shared_only: bool):
    frame = ctx.frame(module)
    if frame is None or not len(frame):
        return None
    th, limit = ctx.th["small_io"], ctx.th["sizes"]["small_request"]
    mask = frame["rank"].to_numpy() < 0 if shared_only else np.ones(len(frame), bool)
    if shared_only and ctx.nprocs < 2:
        ctx.skip("one process: no file is shared")
        return None
    lines, numbers, time_lost, files = [], {}, 0.0, []
    p = "MPIIO" if module == "MPI-IO" else module
    for op, word in (("READ", "reads"), ("WRITE", "writes")):
        small = total(frame, small_bins(module, op, limit)) * mask
        count = total(frame, ops(module, op)) * mask
        n_small, n_all = small.sum(), count.sum()
        what = f"{module} {'shared-file ' if shared_only else ''}{word}"
        seconds = small_share_seconds(ctx, small, count, col(frame, f"{p}_F_{op}_TIME") * mask,
                                      what)
        if seconds is None:
            continue
        time_lost += per_process(seconds, ctx.nprocs)
        numbers[f"small_{word}"] = n_small
        numbers[f"{word}"] = n_all
        where = "shared files" if shared_only else "all files"
        lines.append(f"{int(n_small):,} of {int(n_all):,} {module} {word} on {where} "
                     f"({pct(n_small, n_all)}) are smaller than {size(limit)}")
        worst = top(frame, small, ctx, 3, small > 0)
        lines += file_lines(worst, lambda v: f"{int(v):,} small {word}")
        files += [w[0] for w in worst]
    if not lines:
        return None
    dxt_time = _dxt_small_time(ctx, module, limit, shared_only)
    basis = TIME_BASIS
    if dxt_time is not None:
        time_lost, basis = dxt_time, ("DXT: summed duration of the traced accesses below "
                                      "the size limit, divided by the process count")
    what = "shared-file " if shared_only else ""
    return Hit(f"Many small {what}{module} accesses (below {size(limit)})", lines,
               time_lost, basis, numbers, sorted(set(files)))


def _dxt_small_time(ctx, module, limit, shared_only):
    if shared_only or module not in ("POSIX", "MPI-IO"):
        return None
    seg = ctx.dxt(module)
    if seg is None:
        return None
    small = seg["length"].to_numpy() < limit
    dur = (seg["end"].to_numpy() - seg["start"].to_numpy())[small]
    return per_process(float(np.clip(dur, 0, None).sum()), ctx.nprocs)


def small_io(ctx):
    """Small requests at the layer the application called (MPI-IO when used), else POSIX."""
    hits = [_small(ctx, m, False) for m in SMALL_IO_MODULES if ctx.has(m)]
    return _merge([h for h in hits if h])


def small_shared(ctx):
    hits = [_small(ctx, m, True) for m in SMALL_IO_MODULES if ctx.has(m)]
    return _merge([h for h in hits if h])


def _merge(hits):
    if not hits:
        return None
    first = hits[0]
    for h in hits[1:]:
        first.evidence += h.evidence
        first.numbers.update({f"posix_{k}": v for k, v in h.numbers.items()})
        first.files = sorted(set(first.files + h.files))
        first.time_lost = max(first.time_lost, h.time_lost)
    return first


def _alignment_unit(ctx, frame):
    """Per record: the alignment the accesses should respect (Lustre stripe size when
    the log has it for that file, else the file-system block size the runtime used)."""
    unit = col(frame, "POSIX_FILE_ALIGNMENT")
    source = np.array(["file-system block size"] * len(frame), dtype=object)
    lus = ctx.lustre
    if lus is not None and len(lus):
        stripe = pd.Series(lus["stripe_size"].to_numpy(), index=lus["id"].to_numpy())
        stripe = stripe[~stripe.index.duplicated()]
        known = pd.Series(frame["id"].to_numpy()).map(stripe).fillna(0).to_numpy()
        unit = np.where(known > 0, known, unit)
        source[known > 0] = "Lustre stripe size"
    return unit, source


def misaligned_counts(ctx, counter: str, mask=None, where: str = ""):
    """(frame, accesses, misaligned) per POSIX record when `counter` passes the
    alignment thresholds (over the records in mask), else None.  `where` names
    the records in mask in the tests --explain shows."""
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    keep = np.ones(len(frame)) if mask is None else mask
    count = total(frame, ["POSIX_READS", "POSIX_WRITES"]) * keep
    bad = col(frame, counter) * keep
    moved = total(frame, ["POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN"])
    many = ctx.gate(f"misaligned accesses{where}", bad.sum(), ">=", "alignment.min_count")
    most = ctx.gate(f"misaligned / accesses{where}",
                    bad.sum() / count.sum() if count.sum() else 0.0, ">", "alignment.fraction")
    big = ctx.gate(f"bytes of the files with misaligned accesses{where}", moved[bad > 0].sum(),
                   ">=", "alignment.min_bytes")
    if not (many and most and big):
        return None
    return frame, count, bad


def misaligned_file(ctx):
    # Alignment costs on servers shared by nodes.  When the log says which mounts
    # are node-local (mntfs), their files are judged apart: misaligned accesses
    # there are reported as info with no time (a developer's test on a local disk
    # still learns of the pattern before it reaches the parallel file system).
    off = off_node_local(ctx, ctx.frame("POSIX"))
    found = misaligned_counts(ctx, "POSIX_FILE_NOT_ALIGNED", off,
                              "" if off is None else " (shared storage)")
    if found is None and off is not None:
        local = misaligned_counts(ctx, "POSIX_FILE_NOT_ALIGNED", 1 - off, " (node-local)")
        return None if local is None else _misaligned_local(ctx, *local)
    if found is None:
        return None
    frame, count, bad = found
    unit, source = _alignment_unit(ctx, frame)
    rw = col(frame, "POSIX_F_READ_TIME") + col(frame, "POSIX_F_WRITE_TIME")
    share = np.divide(bad, count, out=np.zeros_like(bad), where=count > 0)
    worst = top(frame, bad, ctx, 3, bad > 0)
    i = int(np.argmax(bad))
    block = col(frame, "POSIX_FILE_ALIGNMENT")[i]
    lines = [f"{int(bad.sum()):,} of {int(count.sum()):,} POSIX accesses "
             f"({pct(bad.sum(), count.sum())}) start at a file offset that is not a multiple "
             f"of the alignment the runtime checked ({size(block)})"]
    if source[i] == "Lustre stripe size":
        lines.append(f"the worst file's Lustre stripe size is {size(unit[i])}; an access "
                     "misaligned to the block is misaligned to the stripe too")
    lines += file_lines(worst, lambda v: f"{int(v):,} misaligned accesses")
    snippet = None
    if source[i] == "Lustre stripe size":
        snippet = (f"# align HDF5 objects / MPI-IO file domains to the {size(unit[i])} stripe\n"
                   f"H5Pset_alignment(fapl, 0, {int(unit[i])});\n"
                   f"MPI_Info_set(info, \"striping_unit\", \"{int(unit[i])}\");")
    return Hit("Accesses are misaligned with the file system", lines,
               per_process(float((rw * share).sum()), ctx.nprocs), TIME_BASIS,
               {"misaligned": bad.sum(), "accesses": count.sum(), "alignment": unit[i]},
               [w[0] for w in worst], snippet=snippet)


def _misaligned_local(ctx, frame, count, bad):
    worst = top(frame, bad, ctx, 3, bad > 0)
    block = col(frame, "POSIX_FILE_ALIGNMENT")[int(np.argmax(bad))]
    lines = [f"{int(bad.sum()):,} of {int(count.sum()):,} POSIX accesses to files on "
             f"node-local mounts ({pct(bad.sum(), count.sum())}) start at an offset that is "
             f"not a multiple of the {size(block)} block: cheap here, but on a parallel file "
             "system each would straddle a block or stripe boundary"]
    lines += file_lines(worst, lambda v: f"{int(v):,} misaligned accesses")
    return Hit("Misaligned accesses on node-local storage", lines, 0.0,
               "not estimated: node-local storage has no shared server to pay for them",
               {"misaligned": bad.sum(), "accesses": count.sum(), "alignment": block},
               [w[0] for w in worst])


def misaligned_memory(ctx):
    found = misaligned_counts(ctx, "POSIX_MEM_NOT_ALIGNED")
    if found is None:
        return None
    frame, count, bad = found
    unit = col(frame, "POSIX_MEM_ALIGNMENT")
    worst = top(frame, bad, ctx, 3, bad > 0)
    lines = [f"{int(bad.sum()):,} of {int(count.sum()):,} POSIX accesses "
             f"({pct(bad.sum(), count.sum())}) use a buffer not aligned to "
             f"{size(unit.max())}"] + file_lines(worst, lambda v: f"{int(v):,} accesses")
    return Hit("Memory buffers are misaligned", lines, 0.0,
               "not estimated: the cost is an extra copy, hidden inside the read/write time",
               {"misaligned": bad.sum(), "accesses": count.sum()}, [w[0] for w in worst])


def _redundant(ctx, op: str):
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    th = ctx.th["redundant"]
    word = "read" if op == "READ" else "written"
    moved = col(frame, f"POSIX_BYTES_{'READ' if op == 'READ' else 'WRITTEN'}")
    extent = col(frame, f"POSIX_MAX_BYTE_{'READ' if op == 'READ' else 'WRITTEN'}") + 1
    # A shared record sums every process; many processes reading the same bytes is
    # the read-by-all rule's case, so only per-process records are judged here.
    own = (frame["rank"].to_numpy() >= 0) & (moved > 0)
    excess = np.where(own & (moved > th["ratio"] * extent), moved - extent, 0.0)
    ctx.measure(f"largest bytes {word} / extent of one file by one process",
                float(np.max(np.divide(moved, extent, out=np.zeros_like(moved),
                                       where=own & (extent > 0)), initial=0.0)))
    if not ctx.gate(f"bytes {word} beyond {th['ratio']}x a file's extent", excess.sum(), ">=",
                    "redundant.min_excess_bytes"):
        return None
    op_time = col(frame, f"POSIX_F_{op}_TIME")
    share = np.divide(excess, moved, out=np.zeros_like(excess), where=moved > 0)
    worst = top(frame, excess, ctx, 3, excess > 0)
    lines = [f"{size(excess.sum())} {word} beyond each file's extent: processes "
             f"{'read' if op == 'READ' else 'wrote'} the same bytes more than once "
             f"({size(moved[excess > 0].sum())} {word} from files spanning "
             f"{size(extent[excess > 0].sum())})"]
    lines += file_lines(worst, lambda v: f"{size(v)} re-{word}")
    return Hit(f"Redundant {'reads' if op == 'READ' else 'writes'}", lines,
               per_process(float((op_time * share).sum()), ctx.nprocs),
               "time of the repeated bytes: their share of the bytes times the "
               f"{word} time, summed over processes and divided by the process count",
               {"excess_bytes": excess.sum()}, [w[0] for w in worst])


def redundant_reads(ctx):
    return _redundant(ctx, "READ")


def redundant_writes(ctx):
    return _redundant(ctx, "WRITE")


RANDOM_BASIS = ("time the non-sequential accesses took beyond what their bytes need at the "
                "rate of the sequential ones in the same log (records at most random.fraction "
                "non-sequential): for each record, its non-sequential share of the read/write "
                "time less that share of its bytes at the sequential rate; summed over "
                "processes and divided by the process count.  With no sequential "
                "accesses of the kind in the log, the non-sequential ones' whole time: an "
                "upper bound")


def random_access(ctx):
    """Non-sequential accesses after each file's first.  The runtime compares each
    access with the end of the previous one, starting from 0, so a first access at
    offset 0 is never sequential (runtime-behavior spec, POSIX_SEQ_*): one access
    per process record (each process's, nprocs for a shared record) is left out.
    The time lost is measured, not assumed: the non-sequential accesses' time above
    what the same bytes take at the job's sequential rate (_random_time)."""
    frame = ctx.frame("POSIX")
    if frame is None or not len(frame):
        return None
    lines, numbers, lost, files = [], {}, 0.0, []
    firsts = np.where(frame["rank"].to_numpy() < 0, ctx.nprocs, 1)
    for op, word in (("READ", "reads"), ("WRITE", "writes")):
        count = col(frame, f"POSIX_{op}S")
        later = np.clip(count - firsts, 0, None)
        rand = np.clip(count - col(frame, f"POSIX_SEQ_{op}S") - firsts, 0, None)
        rand = np.minimum(rand, later)
        many = ctx.gate(f"POSIX {word} after a file's first that are not sequential",
                        rand.sum(), ">=", "random.min_count")
        most = ctx.gate(f"their share of the {word} after a file's first",
                        rand.sum() / later.sum() if later.sum() else 0.0, ">",
                        "random.fraction")
        if not (many and most):
            continue
        seconds, line = _random_time(ctx, frame, op, word, count, later, rand)
        lost += seconds
        numbers[f"random_{word}"] = rand.sum()
        lines.append(f"{int(rand.sum()):,} of the {int(later.sum()):,} POSIX {word} that follow "
                     f"a file's first ({pct(rand.sum(), later.sum())}) do not continue at or "
                     "after the end of the access before them (not sequential)")
        lines.append(line)
        worst = top(frame, rand, ctx, 3, rand > 0)
        lines += file_lines(worst, lambda v: f"{int(v):,} non-sequential {word}")
        files += [w[0] for w in worst]
    if not lines:
        return None
    return Hit("Random (non-sequential) access", lines, lost, RANDOM_BASIS, numbers,
               sorted(set(files)))


def _random_time(ctx, frame, op, word, count, later, rand):
    """(seconds lost per process, evidence line).  Random access costs what it costs
    beyond sequential access of the same bytes; where seeks are free (a local
    disk cached by its host, an SSD) that is ~0, and counting the random accesses'
    whole time would promise a saving no reordering can give."""
    nbytes = col(frame, f"POSIX_BYTES_{'READ' if op == 'READ' else 'WRITTEN'}")
    seconds = col(frame, f"POSIX_F_{op}_TIME")
    sequential = (count > 0) & (rand <= ctx.th["random"]["fraction"] * later)
    reference = rate(nbytes, seconds, sequential)
    share = np.divide(rand, count, out=np.zeros_like(rand), where=count > 0)
    taken = per_process(float((seconds * share).sum()), ctx.nprocs)
    if reference is None:   # reading the same bytes in order never costs more: a bound
        return taken, (f"no mostly sequential POSIX {word} with measurable time in the log to "
                       f"compare with: the non-sequential ones' whole {taken:.3f} s per "
                       "process is the estimate, an upper bound")
    lost = per_process(seconds_above_rate(nbytes, seconds, share, reference), ctx.nprocs)
    return lost, (f"sequential {word} in this log ran at {size(reference)}/s; the "
                  f"non-sequential ones took {taken:.3f} s per process, {lost:.3f} s more "
                  "than their bytes need at that rate")
