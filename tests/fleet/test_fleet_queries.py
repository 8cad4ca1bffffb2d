"""Every named query against values computed here, independently, with pandas
over our reader (iolens.open + iolens.report.perf), not over the store."""
from __future__ import annotations

import math
import os
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import pytest

import iolens
from iolens.fleet import named
from iolens.fleet.interfaces import interfaces
from iolens.fleet.query import connect
from iolens.report.perf import perf
from fleet_helpers import fleet, need_corpus

BASE = ("POSIX", "STDIO", "DFS", "DAOS")


def _job(path):
    with iolens.open(path) as log:
        j = log.job
        row = {"log_key": os.path.realpath(path), "uid": j["uid"],
               "app": os.path.basename(log.exe.split(" ", 1)[0]) if log.exe else "unknown",
               "partial": log.partial_flag != 0, "start": j["start_time_sec"],
               "total_bytes": 0, "io_time": 0.0}
        row["app"] = row["app"] or "unknown"
        for itf in interfaces():
            frame = log.records(itf.module)
            row[itf.module] = None
            if len(frame):
                p = perf(frame, itf.prefix, j["nprocs"])
                row[itf.module] = {"bytes": p.total_bytes, "files": frame["id"].nunique(),
                                   "perf": p.agg_perf_by_slowest * 1024 ** 2,
                                   "time": p.agg_time_by_slowest}
                if itf.module in BASE:
                    row["total_bytes"] += p.total_bytes
                    row["io_time"] += p.agg_time_by_slowest
    return row


@pytest.fixture(scope="module")
def world(generated, tmp_path_factory):
    paths = need_corpus() + generated[1]
    store = tmp_path_factory.mktemp("qstore") / "s"
    fleet("ingest", "--store", store, "-j", "2", "-q", *paths)
    expected = pd.DataFrame([_job(p) for p in paths])
    con = connect(str(store))
    yield con, expected
    con.close()


def q(con, name, limit=20):
    return con.execute(named.sql(name, limit)).df()


@pytest.mark.parametrize("group,metric", [("uid", "total_bytes"), ("uid", "io_time"),
                                          ("app", "total_bytes"), ("app", "io_time")])
def test_top_users_and_apps(world, group, metric):
    con, exp = world
    name = {"uid": "top-users", "app": "top-apps"}[group] + \
        {"total_bytes": "-bytes", "io_time": "-time"}[metric]
    got = q(con, name, 5)
    want = exp.groupby(group).agg(jobs=("log_key", "size"), total_bytes=("total_bytes", "sum"),
                                  io_time=("io_time", "sum")).reset_index()
    want = want.sort_values([metric, group], ascending=[False, True]).head(5)
    assert got[group].tolist() == want[group].tolist()
    assert got["total_bytes"].tolist() == want["total_bytes"].tolist()
    assert got["io_time"].to_numpy() == pytest.approx(want["io_time"].to_numpy(), rel=1e-9)


@pytest.mark.parametrize("metric", ["total_bytes", "io_time"])
def test_top_jobs(world, metric):
    con, exp = world
    got = q(con, "top-jobs-bytes" if metric == "total_bytes" else "top-jobs-time", 10)
    want = exp.sort_values([metric, "log_key"], ascending=[False, True]).head(10)
    assert got["log_key"].tolist() == want["log_key"].tolist()


def test_top_one_percent_share(world):
    con, exp = world
    got = q(con, "top1pct-share").iloc[0]
    n = len(exp)
    top = max(1, math.ceil(n / 100))
    b = np.sort(exp["total_bytes"].to_numpy())[::-1]
    assert got["jobs"] == n and got["top_jobs"] == top
    assert got["share"] == pytest.approx(b[:top].sum() / b.sum(), rel=1e-12)


def _series(exp, module, metric):
    vals = [r[metric] for r in exp[module] if r is not None]
    return pd.Series(vals, dtype=float)


# The CDF's grid as the docs state it: 0, then quarter octaves from 1 to 2^64.
CDF_GRID = np.array([0.0] + [2.0 ** (i / 4) for i in range(257)])


def test_percentiles_and_cdf(world):
    con, exp = world
    got = q(con, "percentiles").set_index(["interface", "metric"])
    cdf = q(con, "cdf")
    seen = 0
    for itf in interfaces():
        for metric in ("bytes", "files", "perf"):
            s = _series(exp, itf.module, metric)
            c = cdf[(cdf["interface"] == itf.module) & (cdf["metric"] == metric)]
            if s.empty:
                assert (itf.module, metric) not in got.index and c.empty
                continue
            row = got.loc[(itf.module, metric)]
            assert row["jobs"] == len(s)
            for qv in named.QUANTILES:
                assert row[f"p{int(round(qv * 100))}"] == pytest.approx(s.quantile(qv), rel=1e-9)
            _check_cdf(c, s.to_numpy(), 1e-9 if metric == "perf" else 0.0)
            seen += 1
    assert seen >= 9


def _check_cdf(c, values, rel):
    """The CDF rows of one series are consecutive grid points, from the first
    with any job to the first with all, and each fraction is the share of values
    at or below its point: exactly for bytes and files (integers), and for perf
    (computed here by a separate implementation, equal to 1e-9) between the
    shares at or below the point -/+ that tolerance."""
    points, frac = c["value"].to_numpy(), c["fraction"].to_numpy()
    first = int(np.argmin(np.abs(CDF_GRID - points[0])))
    assert points == pytest.approx(CDF_GRID[first:first + len(points)], rel=1e-12)
    for p, f in zip(points, frac):
        lo, hi = (values <= p * (1 - rel)).mean(), (values <= p * (1 + rel)).mean()
        assert lo <= f <= hi, (p, f, lo, hi)
    assert frac[-1] == 1.0 and (len(frac) == 1 or frac[-2] < 1.0)
    assert frac[0] > 0 and (first == 0 or (values <= CDF_GRID[first - 1] * (1 + rel)).mean() == 0)


def test_interface_by_storage_class(world):
    con, exp = world
    got = q(con, "interface-class")
    # Independent: per interface, bytes per mount file-system type (no config).
    want = {}
    for path in exp["log_key"]:
        with iolens.open(path) as log:
            mounts = log.mounts
            for itf in interfaces():
                frame = log.records(itf.module)
                for name, b in zip(frame["name"], frame[itf.prefix + "BYTES_READ"]
                                   + frame[itf.prefix + "BYTES_WRITTEN"]):
                    cls = next((t for m, t in mounts if name and (name == m or
                                name.startswith(m.rstrip("/") + "/"))), "other")
                    key = (itf.module, cls)
                    want[key] = want.get(key, 0) + int(b)
    have = {(r.interface, r.storage_class): r.total_bytes for r in got.itertuples()}
    assert have == want


def test_slow_mpiio(world):
    con, exp = world
    got = q(con, "slow-mpiio", 50)
    rows = [(r["MPI-IO"]["perf"], r["log_key"]) for _, r in exp.iterrows()
            if r["MPI-IO"] is not None and r["MPI-IO"]["bytes"] > 1 << 30]
    want = [k for _, k in sorted(rows)][:50]
    assert got["log_key"].tolist() == want and len(want) > 0


def test_partial_rate_and_coverage(world):
    con, exp = world
    got = q(con, "partial-rate").iloc[0]
    assert got["logs"] == len(exp) and got["partial_logs"] == exp["partial"].sum()
    assert got["partial_rate"] == pytest.approx(exp["partial"].mean())
    cov = q(con, "coverage")
    days = exp["start"].map(lambda t: datetime.fromtimestamp(t, tz=timezone.utc).date())
    want = days.value_counts().sort_index()
    assert [pd.Timestamp(d).date() for d in cov["date"]] == list(want.index)
    assert cov["logs"].tolist() == want.tolist()


def test_query_cli_lists_named():
    run = fleet("query", "/unused", "--list")
    assert all(name in run.stdout for name in named.NAMED)


def test_iolens_fleet_verb():
    """`iolens fleet ...` runs the iolens-fleet entry point (src/tools/main.c)."""
    import shutil
    import subprocess
    from fleet_helpers import REPO
    tool = os.environ.get("IOLENS_BIN") or str(REPO / "build" / "src" / "tools" / "iolens")
    if not os.access(tool, os.X_OK) or shutil.which("iolens-fleet") is None:
        pytest.skip("needs the built iolens tool and the installed iolens-fleet entry point")
    run = subprocess.run([tool, "fleet", "query", "unused", "--list"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "top1pct-share" in run.stdout
