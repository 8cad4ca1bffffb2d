"""The named queries that ship with `iolens fleet query`.

Each is plain SQL over the views of query.connect; per-interface queries are
generated from the interface list.  Job totals (`total_bytes`, `io_time`) count
the base layers only (POSIX, STDIO, DFS, DAOS), because MPI-IO, HDF5 and PnetCDF
traffic reaches storage through them.  Ties are broken by key so results are
deterministic.
"""
from __future__ import annotations

from typing import Callable, Dict, Tuple

from .interfaces import interfaces

GIB = 1 << 30
QUANTILES = (0.5, 0.75, 0.9, 0.99)


def _top(group: str, metric: str, limit: int) -> str:
    if group == "job":
        return (f"SELECT log_key, job_id, uid, app, nprocs, start_time, total_bytes, io_time "
                f"FROM jobs ORDER BY {metric} DESC, log_key LIMIT {limit}")
    return (f"SELECT {group}, count(*) AS jobs, sum(total_bytes)::BIGINT AS total_bytes, "
            f"sum(io_time) AS io_time FROM jobs GROUP BY {group} "
            f"ORDER BY {metric} DESC, {group} LIMIT {limit}")


def _per_interface(select: Callable[[str, str], str]) -> str:
    parts = [select(i.key, i.module) for i in interfaces()]
    return " UNION ALL ".join(parts)


def _metric_expr(key: str) -> Dict[str, str]:
    return {"bytes": f"{key}_bytes_read + {key}_bytes_written",
            "files": f"{key}_files", "perf": f"{key}_perf"}


def percentiles(limit: int = 0) -> str:
    qs = ", ".join(str(q) for q in QUANTILES)
    names = ", ".join(f"q[{n + 1}] AS p{int(round(q * 100))}" for n, q in enumerate(QUANTILES))

    def one(key, module):
        return " UNION ALL ".join(
            f"SELECT '{module}' AS interface, '{m}' AS metric, count(*) AS jobs, "
            f"quantile_cont({e}, [{qs}]) AS q FROM jobs WHERE {key}_records > 0"
            for m, e in _metric_expr(key).items())
    return (f"SELECT interface, metric, jobs, {names} FROM ({_per_interface(one)}) "
            f"WHERE jobs > 0 ORDER BY interface, metric")


def cdf(limit: int = 0) -> str:
    points = ", ".join(f"{i / 100:.2f}" for i in range(101))

    def one(key, module):
        return " UNION ALL ".join(
            f"SELECT '{module}' AS interface, '{m}' AS metric, "
            f"quantile_cont({e}, [{points}]) AS v FROM jobs WHERE {key}_records > 0 "
            f"HAVING count(*) > 0"
            for m, e in _metric_expr(key).items())
    return (f"SELECT interface, metric, unnest(range(0, 101)) / 100.0 AS fraction, "
            f"unnest(v) AS value FROM ({_per_interface(one)}) ORDER BY interface, metric, fraction")


def top_share(limit: int = 0) -> str:
    return ("WITH r AS (SELECT total_bytes, row_number() OVER (ORDER BY total_bytes DESC, log_key) "
            "AS rn, count(*) OVER () AS n FROM jobs) "
            "SELECT any_value(n) AS jobs, greatest(1, ceil(any_value(n) / 100.0))::BIGINT AS top_jobs, "
            "sum(total_bytes) FILTER (WHERE rn <= greatest(1, ceil(n / 100.0))) AS top_bytes, "
            "sum(total_bytes)::BIGINT AS all_bytes, "
            "sum(total_bytes) FILTER (WHERE rn <= greatest(1, ceil(n / 100.0)))::DOUBLE "
            "/ nullif(sum(total_bytes), 0) AS share FROM r")


def interface_class(limit: int = 0) -> str:
    return ("SELECT interface, storage_class, sum(total_bytes)::BIGINT AS total_bytes, "
            "sum(bytes_read)::BIGINT AS bytes_read, sum(bytes_written)::BIGINT AS bytes_written, "
            "count(*) AS files, count(DISTINCT log_key) AS jobs FROM files "
            "GROUP BY interface, storage_class ORDER BY interface, total_bytes DESC, storage_class")


def slow_mpiio(limit: int = 20) -> str:
    return (f"SELECT log_key, job_id, uid, app, nprocs, "
            f"mpiio_bytes_read + mpiio_bytes_written AS mpiio_bytes, mpiio_time, mpiio_perf "
            f"FROM jobs WHERE mpiio_bytes_read + mpiio_bytes_written > {GIB} "
            f"ORDER BY mpiio_perf, log_key LIMIT {limit}")


def partial_rate(limit: int = 0) -> str:
    return ("SELECT count(*) AS logs, count(*) FILTER (WHERE partial) AS partial_logs, "
            "avg(partial::INTEGER) AS partial_rate, "
            "(SELECT count(*) FROM quarantine) AS quarantined FROM jobs")


def coverage(limit: int = 0) -> str:
    return ("SELECT date, count(*) AS logs, sum(total_bytes)::BIGINT AS total_bytes "
            "FROM jobs GROUP BY date ORDER BY date")


NAMED: Dict[str, Tuple[Callable[[int], str], str]] = {
    "top-users-bytes": (lambda n=20: _top("uid", "total_bytes", n), "users moving the most bytes"),
    "top-users-time": (lambda n=20: _top("uid", "io_time", n), "users with the most I/O time"),
    "top-apps-bytes": (lambda n=20: _top("app", "total_bytes", n), "applications moving the most bytes"),
    "top-apps-time": (lambda n=20: _top("app", "io_time", n), "applications with the most I/O time"),
    "top-jobs-bytes": (lambda n=20: _top("job", "total_bytes", n), "jobs moving the most bytes"),
    "top-jobs-time": (lambda n=20: _top("job", "io_time", n), "jobs with the most I/O time"),
    "top1pct-share": (top_share, "share of all bytes moved by the top 1 % of jobs"),
    "percentiles": (percentiles, "p50/p75/p90/p99 of bytes, files and performance per interface"),
    "cdf": (cdf, "CDF (101 points) of bytes, files and performance per interface"),
    "interface-class": (interface_class, "bytes per interface and storage class"),
    "slow-mpiio": (slow_mpiio, "slowest MPI-IO jobs moving more than 1 GiB"),
    "partial-rate": (partial_rate, "rate of partial logs (and quarantined count)"),
    "coverage": (coverage, "logs per day"),
}


def sql(name: str, limit: int = 20) -> str:
    try:
        make, _ = NAMED[name]
    except KeyError:
        raise KeyError(f"unknown named query {name!r}; known: {', '.join(NAMED)}") from None
    return make(limit)
