"""Column arithmetic the rules share: size-histogram sums, per-process times,
top files, number formatting.  Everything works on whole columns."""
from __future__ import annotations

import numpy as np

from .._meta import file_system_layers, module_info, modules, trace_modules
from .._ranks import RankSums
from ..view.parser import record_times, seq_sum
from ..view.times import record_seconds
from .context import col

# Upper bound (bytes) of each access-size histogram bin, by the bin's name suffix.
_BIN_UPPER = {"0_100": 100, "100_1K": 1 << 10, "1K_10K": 10 << 10, "10K_100K": 100 << 10,
              "100K_1M": 1 << 20, "1M_4M": 4 << 20, "4M_10M": 10 << 20,
              "10M_100M": 100 << 20, "100M_1G": 1 << 30, "1G_PLUS": float("inf")}

# Module lists the rules share, from the module table (modules.def).
# File-system layers, whose times add up: each is a separate path to storage
# (fread/fwrite's own system calls are not intercepted, so STDIO time is not
# inside POSIX time; DFS and DAOS calls never reach the kernel).
FS_LAYERS = file_system_layers()
TRACES = trace_modules()               # DXT modules, in id order: POSIX's first

# Counter name prefix (without its "_") of each I/O module, from the module table.
PREFIX = {m.name: m.symbol for m in modules().values() if m.role == "io"}


def size_bins(module: str, op: str) -> list:
    """Histogram counter names of a module for op "READ"/"WRITE", in size order."""
    p = PREFIX[module]
    # MPI-IO, HDF5 and PnetCDF name theirs SIZE_<op>_AGG_*; POSIX, DFS and DAOS do not
    mid = "AGG_" if f"{p}_SIZE_{op}_AGG_0_100" in module_info(module).counters else ""
    return [f"{p}_SIZE_{op}_{mid}{suffix}" for suffix in _BIN_UPPER]


def small_bins(module: str, op: str, limit: int) -> list:
    return [name for name, upper in zip(size_bins(module, op), _BIN_UPPER.values())
            if upper <= limit]


def ops(module: str, op: str) -> list:
    """Counters counting data operations of one kind."""
    p = PREFIX[module]
    if module == "MPI-IO":
        return [f"MPIIO_{k}_{op}S" for k in ("INDEP", "COLL", "SPLIT", "NB")]
    return [f"{p}_{op}S"]


def total(frame, names) -> np.ndarray:
    out = np.zeros(len(frame)) if frame is not None else np.zeros(0)
    for name in names:
        out = out + col(frame, name)
    return out


def io_time(frame, module: str) -> np.ndarray:
    """Each record's read + write + metadata seconds (the view's reading)."""
    return record_seconds(frame, module_info(module).prefix)


def view_seconds(ctx, modules=("POSIX",), meta: bool = False, keep=None) -> RankSums:
    """Seconds per process from the view (iolens.view io_time), summed over
    modules that do not contain each other (POSIX and STDIO): I/O seconds of each
    process's own records plus the shared records' slowest-process time, which
    every process took part in; with meta, the metadata seconds of its own records.
    keep: {module: boolean mask of its records} to count only those records (the
    view's per-record arithmetic, iolens.view.parser.record_times)."""
    ranks, sums, shared = [np.zeros(0, np.int64)], [np.zeros(0)], 0.0
    for module in modules:
        mask = (keep or {}).get(module)
        if mask is not None:
            r, v, s = _kept_seconds(ctx, module, mask, meta)
            ranks.append(r)
            sums.append(v)
            shared += s
            continue
        t = ctx.io_time(module) if module in ctx.modules else None
        if t is None:
            continue
        part = t.meta if meta else t.per_process
        ranks.append(part.ranks)
        sums.append(part.sums)
        shared += 0.0 if meta else t.shared
    out = RankSums(np.concatenate(ranks), np.concatenate(sums), ctx.nprocs, spread=False)
    out.sums = out.sums + shared
    out.rest = out.rest + shared
    return out


def _kept_seconds(ctx, module, mask, meta):
    frame = ctx.frame(module)
    if frame is None or not len(frame):
        return np.zeros(0, np.int64), np.zeros(0), 0.0
    times = record_times(frame, module_info(module).prefix)
    own = ~times.shared & mask
    values = times.meta if meta else times.io
    shared = 0.0 if meta else seq_sum(times.io[times.shared & mask])
    return frame["rank"].to_numpy()[own], values[own], shared


def small_share_seconds(ctx, small: np.ndarray, count: np.ndarray, op_time: np.ndarray,
                        what: str) -> float | None:
    """The small-transfer rule of every layer: None when the per-record `small`
    calls (of `count`) are too few or too small a share (the `small_io` gates,
    reported under `what`), else the seconds they cost, summed over records: each
    record's op time times its small share."""
    n_small, n_all = float(small.sum()), float(count.sum())
    many = ctx.gate(f"small {what}", n_small, ">=", "small_io.min_count")
    most = ctx.gate(f"small {what} / {what}", n_small / n_all if n_all else 0.0, ">",
                    "small_io.fraction")
    if not (many and most):
        return None
    share = np.divide(small, count, out=np.zeros_like(small, dtype=float), where=count > 0)
    return float((op_time * share).sum())


def rate(nbytes: np.ndarray, seconds: np.ndarray, mask) -> float | None:
    """Bytes per second of the records in mask (their bytes over their seconds);
    None when they moved nothing or took no measurable time: no reference."""
    nbytes, seconds = nbytes[mask], seconds[mask]
    total_bytes, total_seconds = float(nbytes.sum()), float(seconds.sum())
    if total_bytes <= 0 or total_seconds <= 0:
        return None
    return total_bytes / total_seconds


def seconds_above_rate(nbytes, seconds, share, reference: float | None) -> float:
    """Summed seconds by which each record's affected share took longer than its
    bytes need at the reference rate (measured in the same log): what the
    pattern cost beyond the job's own better way of moving those bytes.  0 with
    no reference; a record faster than the reference adds nothing."""
    if not reference:
        return 0.0
    excess = np.clip(seconds - nbytes / reference, 0, None)
    return float((excess * share).sum())


def rank_map(sums: RankSums, limit: int = 4096):
    """{rank: seconds} of a per-process figure, for Hit.rank_seconds; None when
    ranks without records hold a value too, or there are too many to list."""
    if len(sums.ranks) > limit or (sums.unnamed and sums.rest > 0):
        return None
    return {int(r): float(v) for r, v in zip(sums.ranks, sums.sums) if v > 0}


def per_process(seconds: float, nprocs: int) -> float:
    """Summed seconds spread over the processes: the wall-clock share of one."""
    return seconds / max(nprocs, 1)


def per_rank(frame, values: np.ndarray, nprocs: int) -> RankSums:
    """values summed per rank; a shared record (rank -1) is spread evenly over all
    ranks, because the log keeps only its total.  Held per rank that has a record,
    not per claimed process (iolens._ranks)."""
    return RankSums(frame["rank"].to_numpy(), values, nprocs)


def top(frame, values: np.ndarray, ctx, k: int = 3, mask=None) -> list:
    """(name, rank, value) of the k largest values (among mask)."""
    idx = np.arange(len(values))
    if mask is not None:
        idx = idx[mask]
    if not len(idx):
        return []
    if len(idx) > k:   # partial selection: O(n), not a full sort of a million values
        idx = idx[np.argpartition(-values[idx], k)[:k]]
    order = idx[np.argsort(-values[idx], kind="stable")]
    ids, ranks = frame["id"].to_numpy(), frame["rank"].to_numpy()
    names = frame["name"].to_numpy() if "name" in frame else [None] * len(frame)
    return [(names[i] or ctx.name(ids[i]), int(ranks[i]), float(values[i])) for i in order]


def size(n: float) -> str:
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def pct(a: float, b: float) -> str:
    return f"{100.0 * a / b:.1f} %" if b else "n/a"


def who(rank: int) -> str:
    return "all processes (shared record)" if rank < 0 else f"rank {rank}"


def file_lines(entries, fmt) -> list:
    return [f"  {name} ({who(rank)}): {fmt(value)}" for name, rank, value in entries]
