"""One log -> one jobs row, its files rows and (optionally) its findings.

This is the unit of work of an ingest: it runs in worker processes (local pool
or Dask workers), takes a path and returns plain Python data that pickles
cheaply.  A log that cannot be read gives a quarantine row with the reason
instead; nothing raised here ever stops an ingest.

Numbers follow the parser's `--perf` definitions (iolens.report.perf), which
are also what PyDarshan's job_stats/file_stats report: time by slowest = the
slowest process's summed I/O time plus the time of shared records, performance
by slowest = bytes / that time.
"""
from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone
from typing import Dict, List, Optional

import numpy as np
import pandas as pd

from ..errors import LogError
from ..log import open as open_log
from ..report.perf import MIB, perf, record_times
from .classes import StorageClasses
from .interfaces import Interface, interfaces

TIME_SUFFIXES = ("F_READ_TIME", "F_WRITE_TIME", "F_META_TIME", "F_SLOWEST_RANK_TIME")


def log_key(path: str) -> str:
    """The identity of a log in the store: its resolved absolute path."""
    return os.path.realpath(path)


def app_name(exe: str) -> str:
    """Application of a job: the base name of the command's first word."""
    first = exe.split(" ", 1)[0] if exe else ""
    return os.path.basename(first) or "unknown"


def day(epoch: int) -> str:
    try:
        return datetime.fromtimestamp(int(epoch), tz=timezone.utc).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return "1970-01-01"


def _columns(itf: Interface) -> List[str]:
    wanted = ["BYTES_READ", "BYTES_WRITTEN", *TIME_SUFFIXES]
    names = [itf.counter(s) for s in wanted]
    return [n for n in names if n] + list(itf.reads) + list(itf.writes)


def _op_sum(frame: pd.DataFrame, counters) -> np.ndarray:
    out = np.zeros(len(frame), dtype=np.int64)
    for c in counters:
        out = out + frame[c].to_numpy()
    return out


def file_rows(frame: pd.DataFrame, itf: Interface, nprocs: int) -> pd.DataFrame:
    """Per distinct record id: the file_stats numbers of that file alone
    (the job-level `perf` restricted to the file's records)."""
    p = itf.prefix
    times = record_times(frame, p)
    rank = frame["rank"].to_numpy()
    ids = frame["id"].to_numpy()
    rd = frame[p + "BYTES_READ"].to_numpy()
    wr = frame[p + "BYTES_WRITTEN"].to_numpy()
    work = pd.DataFrame({
        "id": ids, "bytes_read": rd, "bytes_written": wr,
        "reads": _op_sum(frame, itf.reads), "writes": _op_sum(frame, itf.writes),
        "shared_time": np.where(times.shared, times.io, 0.0)})
    g = work.groupby("id", sort=False)
    out = g[["bytes_read", "bytes_written", "reads", "writes"]].sum()
    out["shared_time"] = g["shared_time"].sum()
    # The slowest process of this file: per (id, rank) I/O time, maximum per id;
    # ranks outside [0, nprocs) are ignored as the parser ignores them.
    mine = ~times.shared & (rank < nprocs)
    per_rank = pd.DataFrame({"id": ids[mine], "rank": rank[mine], "t": times.io[mine]})
    slow = per_rank.groupby(["id", "rank"], sort=False)["t"].sum().groupby(level=0).max()
    out["slow_time"] = slow.reindex(out.index).fillna(0.0).clip(lower=0.0)
    out["time_by_slowest"] = out["slow_time"] + out["shared_time"]
    out["total_bytes"] = out["bytes_read"] + out["bytes_written"]
    t = out["time_by_slowest"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        mibs = np.where(t != 0, (out["total_bytes"].to_numpy() / MIB) / t, 0.0)
    out["perf_by_slowest"] = mibs * 1024 ** 2
    out.index.name = "file_id"
    return out.drop(columns=["shared_time", "slow_time"]).reset_index()


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


def quarantine_row(path: str, error: BaseException) -> dict:
    try:
        st = os.stat(path)
        size, mtime = st.st_size, st.st_mtime
    except OSError:
        size, mtime = -1, 0.0
    return {"log_key": log_key(path), "log_file": os.path.basename(path),
            "reason": f"{type(error).__name__}: {error}", "size": size, "mtime": mtime,
            "ingested_at": time.time(), "date": day(mtime)}


def extract(path: str, classes: StorageClasses, with_findings: bool = True) -> dict:
    """{"job": row, "files": rows, "findings": rows} or {"quarantine": row}."""
    try:
        return _extract(path, classes, with_findings)
    except (LogError, OSError, ValueError, KeyError, MemoryError, OverflowError) as e:
        return {"quarantine": quarantine_row(path, e)}


def _extract(path: str, classes: StorageClasses, with_findings: bool) -> dict:
    st = os.stat(path)
    key = log_key(path)
    with open_log(path) as log:
        job = log.job
        nprocs = int(job["nprocs"])
        mounts = log.mounts
        date = day(job["start_time_sec"])
        row = {"log_key": key, "log_file": os.path.basename(path), "log_size": st.st_size,
               "log_mtime": st.st_mtime, "date": date, "job_id": int(job["jobid"]),
               "uid": int(job["uid"]), "exe": log.exe, "app": app_name(log.exe),
               "nprocs": nprocs, "start_time": int(job["start_time_sec"]),
               "end_time": int(job["end_time_sec"]), "run_time": float(job["run_time"]),
               "log_version": log.version, "partial_flag": int(log.partial_flag),
               "partial": bool(log.partial_flag),
               "metadata": json.dumps(job["metadata"], sort_keys=True),
               "mounts": json.dumps([list(m) for m in mounts])}
        files: List[pd.DataFrame] = []
        class_bytes: Dict[str, int] = {}
        total_bytes, io_time = 0, 0.0
        for itf in interfaces():
            k = itf.key
            present = itf.module in log.modules
            frame = log.records(itf.module, columns=_columns(itf)) if present else None
            n = 0 if frame is None else len(frame)
            row[f"{k}_records"] = n
            row[f"{k}_partial"] = bool(present and log.modules[itf.module]["partial"])
            if n == 0:
                for c in ("bytes_read", "bytes_written", "files"):
                    row[f"{k}_{c}"] = 0
                row[f"{k}_time"] = row[f"{k}_perf"] = 0.0
                continue
            pf = perf(frame, itf.prefix, nprocs)
            fr = file_rows(frame, itf, nprocs)
            row[f"{k}_bytes_read"] = pf.bytes_read
            row[f"{k}_bytes_written"] = pf.bytes_written
            row[f"{k}_files"] = len(fr)
            row[f"{k}_time"] = pf.agg_time_by_slowest
            row[f"{k}_perf"] = pf.agg_perf_by_slowest * 1024 ** 2
            fr.insert(0, "interface", itf.module)
            fr["file"] = [log.name(i) or "" for i in fr["file_id"]]
            fr["storage_class"] = [classes.classify(f, mounts) for f in fr["file"]]
            fr["partial"] = row[f"{k}_partial"]
            files.append(fr)
            if itf.base:
                total_bytes += pf.total_bytes
                io_time += pf.agg_time_by_slowest
                for c, b in fr.groupby("storage_class")["total_bytes"].sum().items():
                    class_bytes[c] = class_bytes.get(c, 0) + int(b)
        row["total_bytes"] = total_bytes
        row["io_time"] = io_time
        row["class_bytes"] = sorted(class_bytes.items())
    out = {"job": row, "files": _files_dict(files, key, row["log_file"], date)}
    if with_findings:
        found = _findings(path)
        if found is not None:
            out["findings"] = [{"log_key": key, "date": date, **f} for f in found]
    return out


def _files_dict(frames: List[pd.DataFrame], key: str, log_file: str, date: str) -> dict:
    if not frames:
        return {}
    df = pd.concat(frames, ignore_index=True)
    df.insert(0, "log_key", key)
    df.insert(1, "log_file", log_file)
    out = {c: df[c].tolist() for c in df.columns}
    out["date"] = date   # one partition per log: a scalar, unlike the columns
    return out
