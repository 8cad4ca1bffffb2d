"""Every tool shows the same totals and performance figures for the same log.

For corpus logs, the figures that the report, `fleet job-stats` (the jobs row
it reads), diff and the explorer summary show equal those of `iolens parse
--total --perf`, which the format library computes (iolens.derived.parser_figures),
and equal PyDarshan's where it computes the same figure.

Figures compared, per module with darshan-parser figures (POSIX, MPI-IO,
STDIO, DFS, DAOS):
  bytes read, bytes written         (parse: total_<P>BYTES_READ/WRITTEN)
  I/O time by the slowest process   (parse: agg_time_by_slowest, seconds)
  bandwidth by the slowest process  (parse: agg_perf_by_slowest, MiB/s;
                                     fleet stores bytes/s, as PyDarshan's job_stats)
Against PyDarshan: total_bytes, agg_time_by_slowest and agg_perf_by_slowest of
``darshan.backend.cffi_backend.accumulate_records`` (what its summary and
job_stats report) for POSIX, MPI-IO and STDIO.

By default a sample of the corpus (every 4th log, so all directories' shapes
appear); IOLENS_LONG=1 checks every log."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

import iolens
from iolens.derived import parser_figures
from report_helpers import corpus_logs, log_id, need_corpus, page_facts

LONG = os.environ.get("IOLENS_LONG") == "1"
ALL = corpus_logs()
LOGS = ALL if LONG else ALL[::4]
MIB = 1048576.0
REL = 1e-9


def expected(path) -> dict:
    """{module: (bytes_read, bytes_written, agg_time_by_slowest, agg_perf_by_slowest)}."""
    out = {}
    for module, f in (parser_figures(str(path)) or {}).items():
        if not f["records"]:
            continue
        prefix = iolens.module_info(module).prefix
        out[module] = (int(f["total"].get(prefix + "BYTES_READ", 0)),
                       int(f["total"].get(prefix + "BYTES_WRITTEN", 0)),
                       f["perf"]["agg_time_by_slowest"], f["perf"]["agg_perf_by_slowest"])
    return out


def same(got, want, what):
    """Equal bytes, and times and bandwidths equal to the printed precision or better."""
    assert int(got[0]) == want[0] and int(got[1]) == want[1], (what, got, want)
    assert float(got[2]) == pytest.approx(want[2], rel=REL, abs=1e-6), (what, "time", got, want)
    assert float(got[3]) == pytest.approx(want[3], rel=REL, abs=1e-6), (what, "perf", got, want)


def fleet_figures(path) -> dict:
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    from iolens.fleet.interfaces import interfaces
    row = extract(str(path), StorageClasses(), with_findings=False)
    assert "job" in row, row.get("quarantine")
    job = row["job"]
    return {i.module: (job[f"{i.key}_bytes_read"], job[f"{i.key}_bytes_written"],
                       job[f"{i.key}_time"], job[f"{i.key}_perf"] / MIB)
            for i in interfaces() if job[f"{i.key}_records"]}


def diff_figures(log) -> dict:
    from iolens.diff import summarize
    return {m: (s["bytes_read"], s["bytes_written"], s["time"], None)
            for m, s in summarize(log).items()}


def explorer_figures(log) -> dict:
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    with tempfile.TemporaryDirectory() as cache:
        data = summary(log, index_for(log, Path(cache)))
    return {m: (p["bytes_read"], p["bytes_written"], p["agg_time_by_slowest"],
                p["agg_perf_by_slowest"]) for m, p in data["perf"].items()}


def report_figures(log, modules) -> dict:
    from iolens.report import render_html
    _, values = page_facts(render_html(log))
    out = {}
    for m in modules:
        keys = [f"{m}.{k}" for k in ("bytes_read", "bytes_written", "agg_time_by_slowest",
                                     "agg_perf_by_slowest")]
        if all(k in values for k in keys):
            out[m] = tuple(values[k] for k in keys)
    return out


@pytest.mark.parametrize("path", LOGS or [None], ids=[log_id(p) for p in LOGS] or ["none"])
def test_every_tool_shows_the_parser_figures(path):
    need_corpus()
    want = expected(path)
    with iolens.open(path) as log:
        tools = {"fleet job-stats": fleet_figures(path), "diff": diff_figures(log),
                 "explorer summary": explorer_figures(log),
                 "report": report_figures(log, want)}
    for tool, figures in tools.items():
        assert set(figures) >= set(want), (tool, set(figures), set(want))
        for module, numbers in want.items():
            if module not in figures:
                continue
            got = figures[module]
            if got[3] is None:           # diff shows no bandwidth
                got = got[:3] + (numbers[3],)
            same(got, numbers, f"{tool} {module}")
    assert tools["report"] or not want, "the report shows the overview figures"


@pytest.mark.parametrize("path", LOGS or [None], ids=[log_id(p) for p in LOGS] or ["none"])
def test_every_tool_equals_pydarshan(path):
    """PyDarshan's accumulated derived metrics: total_bytes, agg_time_by_slowest,
    agg_perf_by_slowest (POSIX, MPI-IO, STDIO)."""
    need_corpus()
    darshan = pytest.importorskip("darshan", reason="PyDarshan (pip darshan) not installed")
    from darshan.backend.cffi_backend import accumulate_records
    report = darshan.DarshanReport(str(path), read_all=True)
    with iolens.open(path) as log:
        tools = {"fleet job-stats": fleet_figures(path), "diff": diff_figures(log),
                 "explorer summary": explorer_figures(log)}
    checked = 0
    for module in ("POSIX", "MPI-IO", "STDIO"):
        if module not in report.records or not len(report.records[module]):
            continue
        dm = accumulate_records(report.records[module].to_df(), module,
                                report.metadata["job"]["nprocs"]).derived_metrics
        for tool, figures in tools.items():
            if module not in figures:
                continue
            got = figures[module]
            assert int(got[0]) + int(got[1]) == dm.total_bytes, (tool, module)
            assert got[2] == pytest.approx(dm.agg_time_by_slowest, rel=REL, abs=1e-12), (tool, module)
            if got[3] is not None:
                assert got[3] == pytest.approx(dm.agg_perf_by_slowest, rel=REL), (tool, module)
            checked += 1
    if not checked:
        pytest.skip(f"{log_id(path)}: no POSIX, MPI-IO or STDIO records PyDarshan reads")
