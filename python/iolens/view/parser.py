"""Parser-equivalent numbers: the `--perf` estimate (format spec 9.7) and the
`--file` categories (9.6), computed column-wise so that the report's overview
prints exactly what `iolens parse --perf --total --file` prints.

Float sums follow the parser's order (file order, left to right), because
pairwise or compensated summation would change the last printed digit."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Tuple

import numpy as np
import pandas as pd

from .._ranks import RankSums
from .columns import counter as col

MIB = 1048576.0


def seq_sum(values) -> float:
    """Left-to-right float sum, like a C accumulation loop."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


@dataclass
class Times:
    io: np.ndarray     # per record: io time as the parser defines it
    meta: np.ndarray
    rw: np.ndarray
    shared: np.ndarray  # bool: record aggregates all ranks (rank -1)


def perf_counters(info) -> Tuple[str, ...]:
    """The counters perf() and record_times() read (those the module has)."""
    return _perf_counters(info.name)


@functools.lru_cache(maxsize=None)
def _perf_counters(module: str) -> Tuple[str, ...]:
    # per module name: asked for every module of every log of a fleet ingest
    from .._meta import module_info
    info = module_info(module)
    names = [info.prefix + s for s in ("BYTES_READ", "BYTES_WRITTEN", "F_READ_TIME",
                                       "F_WRITE_TIME", "F_META_TIME", "F_SLOWEST_RANK_TIME")]
    return tuple(n for n in names if n in info.counters or n in info.fcounters)


def record_times(frame, prefix: str) -> Times:
    """Per record I/O, metadata and read+write time; `frame` is a DataFrame or
    the view's decoded Arrays."""
    read = col(frame, prefix + "F_READ_TIME", 0.0).astype(np.float64)
    write = col(frame, prefix + "F_WRITE_TIME", 0.0).astype(np.float64)
    meta = col(frame, prefix + "F_META_TIME", 0.0).astype(np.float64)
    per_rank_io = (meta + read) + write
    slowest = col(frame, prefix + "F_SLOWEST_RANK_TIME", per_rank_io)
    shared = np.asarray(frame["rank"]) < 0
    return Times(io=np.where(shared, slowest, per_rank_io),
                 meta=np.where(shared, 0.0, meta),
                 rw=np.where(shared, 0.0, read + write), shared=shared)


@dataclass
class Perf:
    bytes_read: int
    bytes_written: int
    total_bytes: int
    slowest_rank: int
    slowest_rank_io_time: float
    slowest_rank_meta_only_time: float
    slowest_rank_rw_only_time: float
    time_by_slowest: float       # shared files
    agg_time_by_slowest: float
    agg_perf_by_slowest: float   # MiB/s


def perf(frame, prefix: str, nprocs: int) -> Perf:
    bytes_read = int(col(frame, prefix + "BYTES_READ").sum())
    bytes_written = int(col(frame, prefix + "BYTES_WRITTEN").sum())
    total = bytes_read + bytes_written
    times = record_times(frame, prefix)
    shared_time = seq_sum(times.io[times.shared])
    ranks = np.asarray(frame["rank"])
    mine = ~times.shared
    # sums in input order, matching the parser's loop; held per rank that has a
    # record, not per claimed process (iolens._ranks)
    sums = [RankSums(ranks[mine], t[mine], nprocs, spread=False)
            for t in (times.io, times.meta, times.rw)]
    slow = sums[0].argmax() if sums[0].max() > 0 else 0
    io, meta, rw = (s.at(slow) for s in sums)
    agg_time = io + shared_time
    agg_perf = (total / MIB) / agg_time if agg_time != 0 else 0.0
    return Perf(bytes_read, bytes_written, total, slow, io, meta, rw,
                shared_time, agg_time, agg_perf)


def perf_from_figures(figures: dict) -> Perf:
    """Perf of the format library's figures (iolens.derived.parser_figures)."""
    p, total = figures["perf"], figures["total"]
    from .._meta import module_info
    prefix = module_info(figures["module"]).prefix
    return Perf(int(total.get(prefix + "BYTES_READ", 0)),
                int(total.get(prefix + "BYTES_WRITTEN", 0)), int(p["total_bytes"]),
                int(p["slowest_rank"]), p["slowest_rank_io_time"],
                p["slowest_rank_meta_only_time"], p["slowest_rank_rw_only_time"],
                p["shared_time_by_slowest"], p["agg_time_by_slowest"],
                p["agg_perf_by_slowest"])


CATEGORIES = ("total", "read_only", "write_only", "read_write", "unique",
              "shared")


def per_file(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """One row per distinct record id (first-appearance order): bytes read r,
    written w, max offset m and process count p, folded as `--file` folds."""
    n = len(frame)
    shared = frame["rank"].to_numpy() < 0
    ids = frame["id"].to_numpy()
    has_offset = prefix + "MAX_BYTE_READ" in frame.columns
    m = (np.maximum(col(frame, prefix + "MAX_BYTE_READ"),
                    col(frame, prefix + "MAX_BYTE_WRITTEN"))
         if has_offset else np.full(n, -1))
    pos = np.arange(n)
    work = pd.DataFrame({
        "id": ids, "r": col(frame, prefix + "BYTES_READ"),
        "w": col(frame, prefix + "BYTES_WRITTEN"), "m": m,
        "shared": shared, "pos": pos, "shared_pos": np.where(shared, pos, -1)})
    groups = work.groupby("id", sort=False)
    # A shared record resets the process count to -1; later per-rank
    # records count up from there (the parser's quirk, kept on purpose).
    last_shared = groups["shared_pos"].transform("max").to_numpy()
    work["after"] = (~shared) & (pos > last_shared)
    out = groups.agg(r=("r", "sum"), w=("w", "sum"), m=("m", "max"),
                     any_shared=("shared", "any"), after=("after", "sum"))
    out["p"] = out["after"] - out["any_shared"].astype(np.int64)
    if not has_offset:
        out["m"] = -1
    return out[["r", "w", "m", "p"]]


def file_categories(files: pd.DataFrame) -> pd.DataFrame:
    """Count, bytes and max offset per category, as the parser's `--file`
    block (the `shared` row includes partially shared files)."""
    r, w = files["r"], files["w"]
    masks = {
        "total": np.ones(len(files), bool),
        "read_only": (r > 0) & (w == 0), "write_only": (w > 0) & (r == 0),
        "read_write": (r > 0) & (w > 0), "unique": files["p"] == 1,
    }
    rows = {k: _category(files, mask) for k, mask in masks.items()}
    part = (files["p"] != 1) & (files["p"] != -1)
    a, b = _category(files, files["p"] == -1), _category(files, part)
    rows["shared"] = (a[0] + b[0], a[1] + b[1], a[2] + b[2])
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=["files", "bytes", "max_offset"])


def _category(files, mask):
    sel = files[np.asarray(mask)]
    if not len(sel):
        return (0, 0, 0)
    m = -1 if (sel["m"] == -1).any() else max(0, int(sel["m"].max()))
    return (len(sel), int(sel["r"].sum() + sel["w"].sum()), m)
