"""The view's parser figures (bytes, slowest-rank I/O time, bandwidth) and its
per-job I/O time equal `iolens parse --total --perf` for every corpus log and a
log our runtime writes, and equal PyDarshan's where it computes the same figure."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import iolens
from iolens.view import JobView
from report_helpers import corpus_logs, iolens_bin, log_id, need_corpus, parser_numbers, parser_text

LOGS = corpus_logs()
REPO = Path(__file__).resolve().parents[2]


def view_numbers(path) -> dict:
    """{module: {key: value printed as the parser prints it}} from the view."""
    out = {}
    with iolens.open(path) as log:
        v = JobView(log)
        assert not v.damage.any, v.damage.lines()     # corpus logs are healthy
        for module in ("POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"):
            p = v.perf(module)
            if p is None:
                continue
            t = v.io_time(module)
            assert t.job == pytest.approx(p.agg_time_by_slowest, rel=1e-12, abs=1e-12)
            out[module] = {"bytes_read": str(p.bytes_read), "bytes_written": str(p.bytes_written),
                           "total_bytes": str(p.total_bytes),
                           "agg_time_by_slowest": "%f" % p.agg_time_by_slowest,
                           "agg_perf_by_slowest": "%f" % p.agg_perf_by_slowest}
    return out


def report_numbers(path) -> dict:
    """{module: {key: value}} of the report's overview table (its data-values)."""
    from iolens.report import tables
    from iolens.report.source import ReportData
    with iolens.open(path) as log:
        table = tables.overview(ReportData(log))
    out = {}
    for cell in (c for row in table.rows for c in row if c.value is not None):
        module, key = cell.key.split(".", 1)
        out.setdefault(module, {})[key] = cell.value
    return out


def assert_equal_to_parse(path, report=False):
    if iolens_bin() is None:
        pytest.skip("C tool `iolens` not found ($IOLENS_BIN, build/src/tools/iolens, PATH)")
    text = parser_text(path, "--perf", "--total", "--show-incomplete")
    if text is None:
        pytest.skip(f"`iolens parse` failed on {log_id(path)}")
    want, got = parser_numbers(text), view_numbers(path)
    shown = report_numbers(path) if report else {}
    for module, numbers in want.items():
        for key, value in numbers.items():
            assert got[module][key] == value, (module, key)
            if report and key != "total_bytes":
                assert shown[module][key] == value, ("report", module, key)


@pytest.mark.parametrize("path", LOGS or [None], ids=[log_id(p) for p in LOGS] or ["none"])
def test_view_equals_iolens_parse_on_the_corpus(path):
    need_corpus()
    assert_equal_to_parse(path)


def test_view_equals_iolens_parse_on_a_runtime_log(tmp_path):
    tool = iolens_bin()
    runtime = os.environ.get("IOLENS_RUNTIME") or REPO / "build/src/runtime/libiolens.so"
    if tool is None or not Path(runtime).exists():
        pytest.skip("the iolens tool and runtime are not built (set IOLENS_BIN, IOLENS_RUNTIME)")
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(3 << 20))
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env["IOLENS_RUNTIME"] = str(runtime)
    run = subprocess.run([tool, "run", "--logpath", str(logs), "--", "dd", f"if={data}",
                          f"of={tmp_path / 'copy.bin'}", "bs=65536"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    (log,) = logs.glob("*.darshan")
    assert_equal_to_parse(log, report=True)
    with iolens.open(log) as handle:
        assert JobView(handle).perf("POSIX").total_bytes >= 2 * (3 << 20)


@pytest.mark.parametrize("path", LOGS[:12] or [None], ids=[log_id(p) for p in LOGS[:12]] or ["none"])
def test_view_equals_pydarshan_agg_perf(path):
    """PyDarshan's accumulated-record derived metrics (agg_perf_by_slowest,
    agg_time_by_slowest, total_bytes) are the same figures."""
    need_corpus()
    darshan = pytest.importorskip("darshan", reason="PyDarshan (pip darshan) not installed")
    from darshan.backend.cffi_backend import accumulate_records
    report = darshan.DarshanReport(str(path), read_all=True)
    with iolens.open(path) as log:
        v = JobView(log)
        checked = 0
        for module in ("POSIX", "MPI-IO", "STDIO"):
            if module not in report.records or v.perf(module) is None:
                continue
            acc = accumulate_records(report.records[module].to_df(), module,
                                     report.metadata["job"]["nprocs"])
            mine = v.perf(module)
            dm = acc.derived_metrics
            assert mine.total_bytes == dm.total_bytes
            assert mine.agg_time_by_slowest == pytest.approx(dm.agg_time_by_slowest, rel=1e-9)
            assert mine.agg_perf_by_slowest == pytest.approx(dm.agg_perf_by_slowest, rel=1e-9)
            checked += 1
    if not checked:
        pytest.skip(f"{log_id(path)}: no POSIX, MPI-IO or STDIO records PyDarshan reads")
