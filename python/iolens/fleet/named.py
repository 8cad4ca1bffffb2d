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


def _metric_expr(key: str) -> Dict[str, str]:
    return {"bytes": f"{key}_bytes_read + {key}_bytes_written",
            "files": f"{key}_files", "perf": f"{key}_perf"}


def _used(key: str) -> str:
    # A job uses an interface when it has records of it.  `<i>_files` (distinct
    # record ids, at least 1 whenever there are records) says the same as
    # `<i>_records > 0` and is read anyway, so the scan needs 7 columns fewer.
    return f"{key}_files > 0"


def _per_series(agg: Callable[[str], str], alias: str) -> str:
    """One scan of jobs with one aggregate per (interface, metric), unnested to
    rows: interface, metric, jobs (how many use the interface), <alias>.

    Values of jobs not using an interface become NULL, which aggregates skip.
    An aggregate FILTER clause would do the same, but DuckDB then copies a
    selection per aggregate: 2.9 s instead of 2.0 s of CPU for the 21
    quantile lists over 1,000,000 jobs."""
    aggs, rows = [], []
    for i in interfaces():
        aggs.append(f"count_if({_used(i.key)})::BIGINT AS n_{i.key}")
        for m, e in _metric_expr(i.key).items():
            aggs.append(f"{agg(f'CASE WHEN {_used(i.key)} THEN {e} END')} AS {i.key}_{m}")
            rows.append(f"{{'interface': '{i.module}', 'metric': '{m}', "
                        f"'jobs': n_{i.key}, '{alias}': {i.key}_{m}}}")
    return (f"SELECT r.interface, r.metric, r.jobs, r.{alias} FROM (SELECT unnest([{', '.join(rows)}]) "
            f"AS r FROM (SELECT {', '.join(aggs)} FROM jobs)) WHERE r.jobs > 0")


def percentiles(limit: int = 0) -> str:
    # quantile_cont with a list: one selection pass per series for all quantiles.
    qs = ", ".join(str(q) for q in QUANTILES)
    names = ", ".join(f"q[{n + 1}] AS p{int(round(q * 100))}" for n, q in enumerate(QUANTILES))
    return (f"SELECT interface, metric, jobs, {names} FROM "
            f"({_per_series(lambda e: f'quantile_cont({e}, [{qs}])', 'q')}) "
            f"ORDER BY interface, metric")


# The CDF's grid: 0, then 2^(i/4) for i = 0..256 (quarter octaves from 1 to 2^64),
# enough for bytes, files and bytes/s.  A value above the grid falls in the
# histogram's last bin, whose key is +inf.
CDF_STEPS_PER_OCTAVE = 4
CDF_GRID = (f"[0.0::DOUBLE] || list_transform(range(0, {64 * CDF_STEPS_PER_OCTAVE + 1}), "
            f"lambda i: pow(2.0, i / {CDF_STEPS_PER_OCTAVE}))")


def cdf(limit: int = 0) -> str:
    """The empirical CDF of each series at the grid points: fraction = the share
    of the interface's jobs whose value is <= value, exactly (a binned count, no
    interpolation).  Rows run from the first point with any job to the first
    with all of them.  Exact quantiles at 101 points would cost DuckDB 101
    selections per series (9 s of CPU at 1,000,000 jobs); counting into fixed bins is
    one parallel pass."""
    hist = _per_series(lambda e: f"histogram(({e})::DOUBLE, {CDF_GRID})", "h")
    return (f"WITH s AS ({hist}), "
            f"b AS (SELECT interface, metric, jobs, unnest(map_keys(h)) AS value, "
            f"unnest(map_values(h)) AS n FROM s), "
            f"c AS (SELECT *, sum(n) OVER w AS below, coalesce(sum(n) OVER w - n, 0) AS before "
            f"FROM b WINDOW w AS (PARTITION BY interface, metric ORDER BY value)) "
            f"SELECT interface, metric, value, below / jobs AS fraction FROM c "
            f"WHERE below > 0 AND before < jobs "
            f"ORDER BY interface, metric, value")


def top_share(limit: int = 0) -> str:
    # The top ceil(n/100) jobs by a top-N (heap) scan rather than a full sort.
    top = "greatest(1, ceil((SELECT count(*) FROM jobs) / 100.0))::BIGINT"
    return (f"WITH t AS (SELECT sum(total_bytes)::BIGINT AS top_bytes FROM "
            f"(SELECT total_bytes FROM jobs ORDER BY total_bytes DESC LIMIT {top})), "
            f"a AS (SELECT count(*) AS jobs, sum(total_bytes)::BIGINT AS all_bytes FROM jobs) "
            f"SELECT jobs, {top} AS top_jobs, top_bytes, all_bytes, "
            f"top_bytes::DOUBLE / nullif(all_bytes, 0) AS share FROM t, a")


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
    "cdf": (cdf, "CDF (quarter-octave grid) of bytes, files and performance per interface"),
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
