"""Semantic comparison of two runs (`iolens diff A B`).

Each log is summarised per interface (the modules with darshan-parser figures:
POSIX, MPI-IO, STDIO, DFS, DAOS), from its one view (iolens.view), into a few aspects
of how the application does I/O: volume, operation counts, access sizes, access
pattern, collective use, file layout (shared vs per-process files), imbalance
between ranks and time.  Every aspect that differs becomes a change with an impact
score, and changes are ranked by it (docs/convert.md, "iolens diff").

Impact = weight of the aspect x size of the change, with sizes on one scale:
  - a ratio r counts as min(|log2 r|, 10) / 10 (a 2x change 0.1, 1024x and more 1);
  - a fraction (collective share, shared-file share, sequential share) counts as
    its absolute difference (0..1);
  - files that appeared or vanished count as their share of the bytes moved.
Weights put the causes a user chooses (file layout, collective I/O: 3; access
size, volume: 2) above their consequences (time 1.5; operation counts, pattern,
imbalance, files that appeared or vanished: 1), so that e.g. a changed transfer size is reported before the
operation counts that follow from it.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Dict, List, Optional

from ._meta import module_info
from ._ranks import RankSums
from ._text import bytes_by_name
from .derived import summary_modules
from .log import Log
from .view import JobView
from .view.columns import amount

WEIGHTS = {"layout": 3.0, "collective": 3.0, "access size": 2.0, "volume": 2.0,
           "files": 1.0, "time": 1.5, "operations": 1.0, "pattern": 1.0, "imbalance": 1.0}

STREAMS = ("<STDIN>", "<STDOUT>", "<STDERR>")


@dataclass
class Change:
    aspect: str          # a key of WEIGHTS
    interface: str       # POSIX, MPI-IO, STDIO, or "" for the job
    metric: str
    a: Optional[float]
    b: Optional[float]
    score: float
    text: str


def _op_counters(info) -> List[str]:
    """The module's operation counts (ModuleInfo.operation_counters), by their
    name after the module prefix."""
    return [name[len(info.prefix):] for name in info.operation_counters()]


def _sum(df, name) -> float:
    return float(amount(df, name).sum())


def summarize(log: Log) -> Dict[str, dict]:
    """Per interface present (the modules with darshan-parser figures): the
    metrics the comparison uses, from the one view of the log (iolens.view):
    damaged records set aside, bytes and I/O time as ``iolens parse --perf``."""
    view = JobView(log)
    out = {}
    for iface in summary_modules():
        df = view.records(iface)
        if df is None or not len(df):
            continue
        out[iface] = _interface(view, iface, df)
    return out


def _interface(view: JobView, iface: str, df) -> dict:
    info = module_info(iface)
    p = info.prefix
    perf = view.perf(iface)
    rd, wr = perf.bytes_read, perf.bytes_written
    ops = _op_counters(info)
    nio = sum(_sum(df, p + k) for k in ops if k.endswith(("READS", "WRITES")))
    s = {"bytes_read": rd, "bytes_written": wr, "io_ops": nio,
         "mean_access": (rd + wr) / nio if nio else 0.0,
         "ops": {k: _sum(df, p + k) for k in ops},
         "time": view.io_time(iface).job}
    if info.has_counter("SEQ_READS"):
        seq = _sum(df, p + "SEQ_READS") + _sum(df, p + "SEQ_WRITES")
        s["sequential"] = seq / nio if nio else 0.0
    if info.has_counter("ACCESS1_ACCESS"):
        s["common_access"] = _common_access(df, p)
    if info.has_counter("COLL_READS"):
        coll = _sum(df, p + "COLL_READS") + _sum(df, p + "COLL_WRITES")
        s["collective"] = coll / nio if nio else 0.0
    # layout: bytes in files that several ranks use (shared records, rank -1)
    moved = amount(df, p + "BYTES_READ") + amount(df, p + "BYTES_WRITTEN")
    shared = df["rank"].to_numpy() < 0
    total_b = float(moved.sum())
    s["shared"] = float(moved[shared].sum()) / total_b if total_b else 0.0
    # files that moved data (a run's probes, lock files and the standard streams,
    # opened by every process, are not its data)
    s["files"] = _relative({n: b for n, b in bytes_by_name(df["name"], moved).items()
                            if b > 0 and n not in STREAMS})
    # imbalance: bytes per rank (a shared record's bytes spread evenly), max / mean
    # (held per rank that has a record: a log may claim millions of processes)
    ranks = RankSums(df["rank"].to_numpy(), moved, view.nprocs)
    mean = ranks.mean()
    s["imbalance"] = ranks.max() / mean if mean else 1.0
    return s


def _relative(files: Dict[str, float]) -> Dict[str, float]:
    """Absolute names relative to the deepest directory holding all of them, so that
    two runs of one workload in different directories name the same files alike."""
    dirs = [os.path.dirname(n) for n in files if n.startswith("/")]
    if not dirs:
        return files
    top = os.path.commonpath(dirs)
    cut = len(top.rstrip("/")) + 1
    return {(n[cut:] if n.startswith("/") else n): b for n, b in files.items()}


def _common_access(df, p: str) -> float:
    """The access size most used across records (<P>ACCESS1..4 weighted by count)."""
    counts: Dict[int, float] = {}
    for k in range(1, 5):
        a, c = f"{p}ACCESS{k}_ACCESS", f"{p}ACCESS{k}_COUNT"
        if a not in df.columns or c not in df.columns:
            continue
        a, c = df[a], df[c]
        for size, n in zip(a, c):
            if n > 0:
                counts[int(size)] = counts.get(int(size), 0) + float(n)
    return float(max(counts, key=counts.get)) if counts else 0.0


def ratio_size(a: float, b: float) -> float:
    """How far b is from a: min(|log2 b/a|, 10) / 10; 1 when one of them is 0."""
    if a == b:
        return 0.0
    if a <= 0 or b <= 0:
        return 1.0
    return min(abs(math.log2(b / a)), 10.0) / 10.0


def _human(v: float, unit: str = "") -> str:
    if unit == "B":
        for u in ("B", "KiB", "MiB", "GiB", "TiB"):
            if abs(v) < 1024 or u == "TiB":
                return f"{v:.0f} {u}" if u == "B" else f"{v:.1f} {u}"
            v /= 1024
    if unit == "s":
        return f"{v:.3g} s"
    if unit == "%":
        return f"{100 * v:.0f} %"
    return f"{v:.4g}"


def _ratio_change(out, aspect, iface, metric, a, b, unit, what, floor=0.0):
    size = ratio_size(a, b)
    if size <= floor:
        return
    factor = (b / a) if a > 0 and b > 0 else None
    how = f"{factor:.3g}x" if factor else ("appeared" if a == 0 else "vanished")
    out.append(Change(aspect, iface, metric, a, b, round(WEIGHTS[aspect] * size, 4),
                      f"{iface} {what}: {_human(a, unit)} -> {_human(b, unit)} ({how})"))


def _frac_change(out, aspect, iface, metric, a, b, what, floor=0.02):
    d = abs(b - a)
    if d <= floor:
        return
    out.append(Change(aspect, iface, metric, a, b, round(WEIGHTS[aspect] * d, 4),
                      f"{iface} {what}: {_human(a, '%')} -> {_human(b, '%')}"))


# A ratio below 10 % (|log2| < 0.14) is noise between two runs of one program.
_NOISE = 0.014
# For times, below a factor of sqrt(2) (|log2| < 0.5): run-to-run jitter is larger.
TIME_NOISE = 0.05


def compare(a: Dict[str, dict], b: Dict[str, dict]) -> List[Change]:
    """Changes from summary a to summary b, highest impact first."""
    out: List[Change] = []
    for iface in sorted(set(a) | set(b)):
        sa, sb = a.get(iface), b.get(iface)
        if sa is None or sb is None:
            moved = (sb or sa)["bytes_read"] + (sb or sa)["bytes_written"]
            out.append(Change("volume", iface, "interface", None if sa is None else 1,
                              None if sb is None else 1, WEIGHTS["volume"],
                              f"{iface} {'used only in B' if sa is None else 'not used in B'} "
                              f"({_human(moved, 'B')})"))
            continue
        _ratio_change(out, "volume", iface, "bytes_written", sa["bytes_written"],
                      sb["bytes_written"], "B", "bytes written", _NOISE)
        _ratio_change(out, "volume", iface, "bytes_read", sa["bytes_read"], sb["bytes_read"],
                      "B", "bytes read", _NOISE)
        _ratio_change(out, "access size", iface, "mean_access", sa["mean_access"],
                      sb["mean_access"], "B", "mean access size", _NOISE)
        if "common_access" in sa:
            _ratio_change(out, "access size", iface, "common_access", sa["common_access"],
                          sb["common_access"], "B", "most common access size", _NOISE)
        for op in sa["ops"]:
            _ratio_change(out, "operations", iface, op, sa["ops"][op], sb["ops"][op], "",
                          op.lower().replace("_", " "), _NOISE)
        _ratio_change(out, "time", iface, "time", sa["time"], sb["time"], "s",
                      "I/O time (slowest process + shared files)", TIME_NOISE)
        if "collective" in sa:
            _frac_change(out, "collective", iface, "collective", sa["collective"],
                         sb["collective"], "share of collective operations")
        if "sequential" in sa:
            _frac_change(out, "pattern", iface, "sequential", sa["sequential"],
                         sb["sequential"], "share of sequential accesses")
        _frac_change(out, "layout", iface, "shared", sa["shared"], sb["shared"],
                     "share of bytes in files shared by all ranks")
        _ratio_change(out, "imbalance", iface, "imbalance", sa["imbalance"], sb["imbalance"],
                      "", "bytes per rank, max/mean", 0.05)
        _files_change(out, iface, sa["files"], sb["files"])
    out.sort(key=lambda c: (-c.score, c.aspect, c.interface, c.metric))
    return out


def _files_change(out, iface, fa: Dict[str, float], fb: Dict[str, float]):
    total = sum(fa.values()) + sum(fb.values())
    gone = sorted(set(fa) - set(fb))
    new = sorted(set(fb) - set(fa))
    for names, label, src in ((new, "appeared", fb), (gone, "vanished", fa)):
        if not names:
            continue
        share = sum(src[n] for n in names) / total if total else 0.0
        shown = ", ".join(names[:3]) + (f", ... ({len(names)} files)" if len(names) > 3 else "")
        out.append(Change("files", iface, f"files_{label}", len(fa), len(fb),
                          round(WEIGHTS["files"] * max(share, 0.01), 4),
                          f"{iface} files {label}: {shown}"))


def diff_logs(path_a, path_b) -> List[Change]:
    with Log(path_a) as la, Log(path_b) as lb:
        return compare(summarize(la), summarize(lb))


def as_json(path_a, path_b, changes: List[Change], regions=None) -> dict:
    """`regions`: diff_regions' list, added only when either run has regions."""
    out = {"a": str(path_a), "b": str(path_b), "changes": [asdict(c) for c in changes]}
    if regions is not None:
        out["regions"] = [r.to_dict() for r in regions]
    return out
