"""`iolens fleet job-stats` / `file-stats`: PyDarshan 3.5.0's `job_stats` and
`file_stats` CSV columns, computed from the store.

job-stats: one row per job with records of the module: log_file, job_id, uid,
nprocs, start_time, end_time, run_time, perf_by_slowest (bytes/s),
time_by_slowest, total_bytes, total_files, partial_flag.

file-stats: one row per file name over all jobs: file, perf_by_slowest,
time_by_slowest, total_bytes, bytes_read, bytes_written, reads, writes (sums
over the jobs) and total_jobs (distinct log file names, as PyDarshan counts).
"""
from __future__ import annotations

import pandas as pd

from .interfaces import by_name

JOB_ORDER = ("perf_by_slowest", "time_by_slowest", "total_bytes", "total_files")
FILE_ORDER = ("perf_by_slowest", "time_by_slowest", "total_bytes", "bytes_read",
              "bytes_written", "reads", "writes", "total_jobs")


def job_stats(con, module: str = "POSIX") -> pd.DataFrame:
    k = by_name(module).key
    return con.execute(
        f"SELECT log_file, job_id, uid, nprocs, start_time, end_time, run_time, "
        f"{k}_perf AS perf_by_slowest, {k}_time AS time_by_slowest, "
        f"{k}_bytes_read + {k}_bytes_written AS total_bytes, {k}_files AS total_files, "
        f"{k}_partial AS partial_flag FROM jobs WHERE {k}_records > 0 "
        f"ORDER BY log_key").df()


def file_stats(con, module: str = "POSIX") -> pd.DataFrame:
    itf = by_name(module)
    return con.execute(
        "SELECT file, sum(perf_by_slowest) AS perf_by_slowest, "
        "sum(time_by_slowest) AS time_by_slowest, sum(total_bytes)::BIGINT AS total_bytes, "
        "sum(bytes_read)::BIGINT AS bytes_read, sum(bytes_written)::BIGINT AS bytes_written, "
        "sum(reads)::BIGINT AS reads, sum(writes)::BIGINT AS writes, count(DISTINCT log_file) AS total_jobs "
        "FROM files WHERE interface = ? GROUP BY file ORDER BY file",
        [itf.module]).df()


def order(df: pd.DataFrame, by: str, limit: int) -> pd.DataFrame:
    """Descending by one column (stable, so ties keep the store order), then the first
    `limit` rows (all when negative), as the PyDarshan commands do."""
    df = df.sort_values(by=[by], ascending=False, kind="stable")
    return df.head(limit) if limit >= 0 else df
