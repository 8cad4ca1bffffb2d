"""Arrow schemas of the store's tables.

Every batch file of a table written by this version has exactly this schema;
each batch records its digest (``schema_tag``), so that readers of a store that
holds batches of an older schema (a column added since) scan by column name.  The partition column ``date`` (the job's start day,
UTC; for quarantine rows the log file's modification day) is not in the files:
it is the ``date=YYYY-MM-DD`` directory of the Hive-style layout.
"""
from __future__ import annotations

import functools
import hashlib
from typing import Dict

import pyarrow as pa

from .interfaces import interfaces

TABLES = ("jobs", "files", "quarantine", "findings")


@functools.lru_cache(maxsize=None)
def schemas() -> Dict[str, pa.Schema]:
    jobs = [("log_key", pa.string()), ("log_file", pa.string()), ("log_size", pa.int64()),
            ("log_mtime", pa.float64()), ("log_dev", pa.uint64()), ("log_ino", pa.uint64()),
            ("job_id", pa.uint64()), ("uid", pa.int64()),
            ("exe", pa.string()), ("app", pa.string()), ("nprocs", pa.int64()),
            ("start_time", pa.int64()), ("end_time", pa.int64()), ("run_time", pa.float64()),
            ("log_version", pa.string()), ("partial_flag", pa.uint64()),
            ("partial", pa.bool_()), ("metadata", pa.string()), ("mounts", pa.string())]
    for itf in interfaces():
        k = itf.key
        jobs += [(f"{k}_records", pa.int64()), (f"{k}_partial", pa.bool_()),
                 (f"{k}_bytes_read", pa.int64()), (f"{k}_bytes_written", pa.int64()),
                 (f"{k}_files", pa.int64()), (f"{k}_time", pa.float64()),
                 (f"{k}_perf", pa.float64())]
    jobs += [("total_bytes", pa.int64()), ("io_time", pa.float64()),
             # records and trace segments the view set aside as damage (iolens.view)
             ("damaged", pa.int64()),
             ("class_bytes", pa.map_(pa.string(), pa.int64())),
             # the runtime's platform facts (Log.platform): nnodes, ppn, cpu, ...
             ("platform", pa.map_(pa.string(), pa.string()))]
    files = [("log_key", pa.string()), ("log_file", pa.string()), ("interface", pa.string()),
             ("file_id", pa.uint64()), ("file", pa.string()), ("storage_class", pa.string()),
             ("bytes_read", pa.int64()), ("bytes_written", pa.int64()), ("reads", pa.int64()),
             ("writes", pa.int64()), ("total_bytes", pa.int64()),
             ("time_by_slowest", pa.float64()), ("perf_by_slowest", pa.float64()),
             ("partial", pa.bool_())]
    quarantine = [("log_key", pa.string()), ("log_file", pa.string()), ("reason", pa.string()),
                  ("size", pa.int64()), ("mtime", pa.float64()), ("dev", pa.uint64()),
                  ("ino", pa.uint64()), ("ingested_at", pa.float64())]
    findings = [("log_key", pa.string()), ("rule", pa.string()), ("severity", pa.string()),
                ("detail", pa.string())]
    return {"jobs": pa.schema(jobs), "files": pa.schema(files),
            "quarantine": pa.schema(quarantine), "findings": pa.schema(findings)}


@functools.lru_cache(maxsize=None)
def schema_tag() -> str:
    """A digest of every table's columns and types, stored with each batch."""
    text = ";".join(f"{t}:{schemas()[t].to_string(show_schema_metadata=False)}"
                    for t in TABLES)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
