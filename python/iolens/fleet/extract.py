"""One log -> one jobs row, its files rows and (optionally) its findings.

This is the unit of work of an ingest: it runs in worker processes (local pool
or Dask workers), takes a path and returns plain Python data that pickles
cheaply.  A log that cannot be read gives a quarantine row with the reason
instead; nothing raised here ever stops an ingest.

Every figure comes from the one view of the log (iolens.view.JobView):
damaged records are set aside there (the jobs row's `damaged` column counts
them), and the job numbers are the view's darshan-parser `--perf` figures,
which are also what PyDarshan's job_stats/file_stats report: time by slowest =
the slowest process's summed I/O time plus the time of shared records,
performance by slowest = bytes / that time.  `total_bytes` and `io_time` add
the file-system layers (POSIX, STDIO, DFS, DAOS: different files, never the
MPI-IO or HDF5 bytes above them, which are the same data).
"""
from __future__ import annotations

import functools
import json
import os
import re
import time
import warnings
from datetime import datetime, timezone
from typing import Dict, List, Optional, Tuple

import numpy as np

from .._text import printable
from ..log import open as open_log
from ..view import JobView
from .._meta import module_info
from ..view.parser import MIB, perf as parser_perf, perf_counters
from .classes import StorageClasses
from .columns import check_summable, file_numbers
from .interfaces import interfaces
from .logfiles import log_key, regular_file
from .names import NameFilter

NUMERIC = ("file_id", "bytes_read", "bytes_written", "reads", "writes", "total_bytes",
           "time_by_slowest", "perf_by_slowest")
FILE_COLUMNS = ("interface", "file", "storage_class", "partial") + NUMERIC
_OPENED_AS = re.compile(r"^/proc/self/fd/\d+: ")


def app_name(exe: str) -> str:
    """Application of a job: the base name of the command's first word."""
    first = exe.split(" ", 1)[0] if exe else ""
    return os.path.basename(first) or "unknown"


def day(epoch: int) -> str:
    try:
        return datetime.fromtimestamp(int(epoch), tz=timezone.utc).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return "1970-01-01"


class _Classifier:
    """StorageClasses.classify over a job's file names, with a per-directory
    cache (files of a job share few directories).  Prefixes match whole
    components, so every file of a directory has the directory's class, except
    a file that is itself a prefix or mount point: those are classified
    directly."""

    def __init__(self, classes: StorageClasses, mounts):
        self.classes, self.mounts, self.cache = classes, mounts, {}
        self.exact = {p for p, _ in classes.prefixes} | {m for m, _ in mounts}

    def many(self, names: List[str]) -> List[str]:
        # Runs once per file of every log: the cache key is the text before the
        # last "/" (a C string method), of which os.path.dirname is a function.
        out, cache, exact = [], self.cache, self.exact
        for name in names:
            if name in exact or not name.startswith("/"):
                out.append(self.classes.classify(name, self.mounts))
                continue
            d = name.rpartition("/")[0]
            got = cache.get(d)
            if got is None:
                got = cache[d] = self.classes.classify(os.path.dirname(name) + "/", self.mounts)
            out.append(got)
        return out


def _stored_names(names: List[str]) -> List[str]:
    """printable() of each name; one encode of them all when every one is UTF-8."""
    try:
        "\0".join(names).encode("utf-8")
        return names
    except UnicodeEncodeError:
        return [printable(n) for n in names]


def _findings(path: str) -> Optional[List[dict]]:
    """Findings of the diagnosis engine, when it is installed (None otherwise).
    Each finding is stored as rule, severity and its fields as JSON."""
    try:
        from .. import diagnose  # noqa: F401  (optional, built separately)
    except ImportError:
        return None
    run = getattr(diagnose, "diagnose", None)
    if run is None:
        return None
    out = []
    try:
        for f in run(path) or ():
            d = _as_dict(f)
            out.append({"rule": str(d.get("rule", d.get("id", d.get("code", "")))),
                        "severity": str(d.get("severity", d.get("level", ""))),
                        "detail": json.dumps(d, default=str, sort_keys=True)})
    except Exception as e:  # noqa: BLE001 - a diagnosis failure must not lose the job
        out.append({"rule": "diagnose-error", "severity": "error",
                    "detail": json.dumps({"error": f"{type(e).__name__}: {e}"})})
    return out


def _as_dict(f) -> dict:
    if isinstance(f, dict):
        return f
    for attr in ("to_dict", "_asdict"):
        if hasattr(f, attr):
            return dict(getattr(f, attr)())
    try:
        import dataclasses
        if dataclasses.is_dataclass(f):
            return dataclasses.asdict(f)
    except TypeError:
        pass
    return dict(vars(f)) if hasattr(f, "__dict__") else {"text": str(f)}


def reason(error: BaseException, path: str = "") -> str:
    """Why a log is quarantined: the error's class and message, without the
    path the reader was given (the row names the log; that path was
    /proc/self/fd/N)."""
    if isinstance(error, OSError) and error.strerror:   # no "[Errno N] ...: 'path'"
        text = error.strerror
    else:
        text = _OPENED_AS.sub("", str(error), count=1)
    if path and text.startswith(path + ": "):
        text = text[len(path) + 2:]
    return printable(f"{type(error).__name__}: {text}")


def quarantine_row(path: str, error: BaseException) -> dict:
    try:
        st = os.stat(path)   # never opens: a FIFO or device can't block here
        size, mtime, dev, ino = st.st_size, st.st_mtime, st.st_dev, st.st_ino
    except OSError:
        size, mtime, dev, ino = -1, 0.0, None, None
    return {"log_key": log_key(path), "log_file": printable(os.path.basename(path)),
            "reason": reason(error, path), "size": size, "mtime": mtime, "dev": dev, "ino": ino,
            "ingested_at": time.time(), "date": day(mtime)}


def extract(path: str, classes: StorageClasses, with_findings: bool = True,
            name_filter: Optional[NameFilter] = None) -> dict:
    """{"job": row, "files": rows, "findings": rows} or {"quarantine": row}.
    `name_filter` keeps only the records whose names pass it (job-stats/file-stats)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # numpy's overflow warnings on a hostile log's values (in the
            # diagnosis rules) would print once per log of an ingest
            warnings.simplefilter("ignore", RuntimeWarning)
            return _extract(path, classes, with_findings, name_filter)
    except Exception as e:  # noqa: BLE001 - any failure on one log quarantines it
        return {"quarantine": quarantine_row(path, e)}


class _Totals:
    """What the job row adds up over the file-system layers."""

    def __init__(self, classify: _Classifier):
        self.classify = classify
        self.bytes, self.io_time = 0, 0.0
        self.class_bytes: Dict[str, int] = {}


def _records(view: JobView, itf, name_filter: Optional[NameFilter]):
    """The view's undamaged records of one interface, those `name_filter` keeps:
    decoded numpy columns (view.arrays), only the counters the fleet reads."""
    if itf.module not in view.modules:
        return None
    frame = view.arrays(itf.module, _counters(itf))
    if frame is not None and name_filter is not None:
        keep = np.array([name_filter.keeps(n or "") for n in frame["name"].tolist()], bool)
        frame = frame.take(keep)
    return frame


@functools.lru_cache(maxsize=None)
def _counters(itf) -> Tuple[str, ...]:
    """What the jobs and files rows read: the --perf counters, reads, writes."""
    return perf_counters(module_info(itf.module)) + itf.reads + itf.writes


def _perf(view: JobView, itf, frame, name_filter: Optional[NameFilter]):
    """The view's --perf figures of the interface; over the kept names only when
    a filter is given (the same formula, view.parser.perf)."""
    if name_filter is None:
        return view.perf(itf.module)
    return parser_perf(frame, itf.prefix, view.nprocs)


def _interface(view: JobView, itf, name_filter, row: dict, files: dict, totals: _Totals):
    """The interface's job columns into `row`, its files into `files`."""
    k = itf.key
    frame = _records(view, itf, name_filter)
    n = 0 if frame is None else len(frame)
    if n:
        check_summable(frame, itf.module, (itf.prefix + "BYTES_READ",
                                           itf.prefix + "BYTES_WRITTEN", *itf.reads, *itf.writes))
    row[f"{k}_records"] = n
    row[f"{k}_partial"] = bool(itf.module in view.modules
                               and view.modules[itf.module]["partial"])
    if n == 0:
        for c in ("bytes_read", "bytes_written", "files"):
            row[f"{k}_{c}"] = 0
        row[f"{k}_time"] = row[f"{k}_perf"] = 0.0
        return
    p = _perf(view, itf, frame, name_filter)
    fr = file_numbers(frame, itf.prefix, view.nprocs, itf.reads, itf.writes)
    row[f"{k}_bytes_read"], row[f"{k}_bytes_written"] = p.bytes_read, p.bytes_written
    row[f"{k}_time"] = p.agg_time_by_slowest
    row[f"{k}_perf"] = p.agg_perf_by_slowest * MIB          # bytes/s, as PyDarshan's job_stats
    row[f"{k}_files"] = len(fr["file_id"])
    lookup = view.log.names   # record id -> name, what log.name() reads
    names = _stored_names([lookup.get(i) or "" for i in fr["file_id"].tolist()])
    cls = _stored_names(totals.classify.many(names))
    nf = len(names)
    files["interface"] += [itf.module] * nf
    files["file"] += names
    files["storage_class"] += cls
    files["partial"] += [row[f"{k}_partial"]] * nf
    for c in NUMERIC:   # numpy arrays: cheap to pickle and to turn into Arrow
        files[c].append(fr[c])
    if itf.base:
        totals.bytes += p.bytes_read + p.bytes_written
        totals.io_time += p.agg_time_by_slowest
        for c, b in zip(cls, fr["total_bytes"].tolist()):
            totals.class_bytes[c] = totals.class_bytes.get(c, 0) + b


def _extract(path: str, classes: StorageClasses, with_findings: bool,
             name_filter: Optional[NameFilter]) -> dict:
    with regular_file(path) as (opened, st):
        return _extract_open(path, opened, st, classes, with_findings, name_filter)


def _extract_open(path: str, opened: str, st: os.stat_result, classes: StorageClasses,
                  with_findings: bool, name_filter: Optional[NameFilter]) -> dict:
    """_extract on a checked regular file that `opened` names."""
    key = log_key(path)
    with open_log(opened) as log:
        job = log.job
        nprocs = int(job["nprocs"])
        mounts = log.mounts
        date = day(job["start_time_sec"])
        exe = printable(log.exe)
        row = {"log_key": key, "log_file": printable(os.path.basename(path)),
               "log_size": st.st_size, "log_mtime": st.st_mtime, "log_dev": st.st_dev,
               "log_ino": st.st_ino, "date": date, "job_id": int(job["jobid"]),
               "uid": int(job["uid"]), "exe": exe, "app": app_name(exe),
               "nprocs": nprocs, "start_time": int(job["start_time_sec"]),
               "end_time": int(job["end_time_sec"]), "run_time": float(job["run_time"]),
               "log_version": log.version, "partial_flag": int(log.partial_flag),
               "partial": bool(log.partial_flag),
               "metadata": json.dumps(job["metadata"], sort_keys=True),
               "mounts": json.dumps([list(m) for m in mounts]),
               "platform": sorted((printable(k), printable(v))
                                  for k, v in log.platform.items())}
        files: Dict[str, list] = {c: [] for c in FILE_COLUMNS}
        view = JobView(log)
        row["damaged"] = view.damage.total
        totals = _Totals(_Classifier(classes, mounts))
        for itf in interfaces():
            _interface(view, itf, name_filter, row, files, totals)
        row["total_bytes"] = totals.bytes
        row["io_time"] = totals.io_time
        row["class_bytes"] = sorted(totals.class_bytes.items())
    nf = len(files["file"])
    if nf:
        files.update({c: np.concatenate(files[c]) for c in NUMERIC})
        files.update(log_key=[key] * nf, log_file=[row["log_file"]] * nf, date=date)
    out = {"job": row, "files": files if nf else {}}
    if with_findings:
        found = _findings(opened)
        if found is not None:
            out["findings"] = [{"log_key": key, "date": date, **f} for f in found]
    return out
