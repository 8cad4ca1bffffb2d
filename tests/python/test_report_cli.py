"""`iolens report` from the command line: HTML, PDF (Chromium and the
matplotlib fallback) and the per-file report."""
from __future__ import annotations

import html
import os
import re
import subprocess
import sys

import pytest

import iolens
from iolens.report.cli import main
from report_helpers import corpus_log, corpus_logs, log_id, need_corpus, page_facts

PDF_PAGE = re.compile(rb"/Type\s*/Page\b")


def run_cli(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "iolens.report.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600,
                          env={**os.environ, **(env or {})})


def test_default_output_in_current_directory(tmp_path):
    log = corpus_log("release_logs/mpi-io-test-x86_64-3.5.0")
    run = run_cli(log, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = tmp_path / "mpi-io-test-x86_64-3.5.0.report.html"
    assert out.is_file() and str(out) in run.stdout
    ids, _ = page_facts(out.read_text())
    assert {"overview-table", "fig-heatmap", "lustre-table"} <= ids


def test_pdf_with_chromium(tmp_path):
    log = corpus_log("imbalanced_io")
    pdf = tmp_path / "r.pdf"
    run = run_cli(log, "-o", tmp_path / "r.html", "--pdf", pdf)
    assert run.returncode == 0, run.stderr
    if "via chromium" not in run.stdout:
        pytest.skip("no Chromium here; the matplotlib fallback test covers the PDF")
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(PDF_PAGE.findall(data)) >= 3
    assert (tmp_path / "r.html").is_file()


def test_pdf_fallback_without_browser(tmp_path):
    log = corpus_log("partial_data_stdio")
    pdf = tmp_path / "only.pdf"
    run = run_cli(log, "--pdf", pdf, cwd=tmp_path, env={"IOLENS_CHROMIUM": ""})
    assert run.returncode == 0, run.stderr
    assert "via matplotlib" in run.stdout
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(PDF_PAGE.findall(data)) >= 5
    assert not list(tmp_path.glob("*.html")), "--pdf alone writes no HTML"


def test_file_report_restricts_to_one_file(tmp_path):
    log = corpus_log("mpi_io_test_with_dxt")
    with iolens.open(log) as handle:
        posix = handle.records("POSIX")
    target = posix.loc[posix["POSIX_BYTES_READ"].idxmax(), "name"]
    other = posix.loc[posix["POSIX_BYTES_READ"].idxmin(), "name"]
    assert target != other
    out = tmp_path / "one.html"
    assert main([str(log), "--file", target, "-o", str(out)]) == 0
    text = out.read_text()
    _, values = page_facts(text)
    mine = posix[posix["name"] == target]
    assert values["POSIX.bytes_read"] == str(int(mine["POSIX_BYTES_READ"].sum()))
    assert target in text and other not in text


def test_file_reports_add_up_to_the_job(tmp_path):
    """Per-file reports partition the job: their byte counts sum to the whole."""
    log = corpus_log("mpi_io_test_with_dxt")
    from iolens.report import tables
    from iolens.report.source import ReportData
    with iolens.open(log) as handle:
        def bytes_of(file=None):
            table = tables.overview(ReportData(handle, file=file))
            cells = {c.key: c.value for row in (table.rows if table else []) for c in row}
            return sum(int(v) for k, v in cells.items()
                       if k.startswith("POSIX.bytes_") and v is not None)
        names = handle.records("POSIX")["name"].dropna().unique()
        assert len(names) >= 2
        assert sum(bytes_of(n) for n in names) == bytes_of() > 0


def test_unknown_file_and_bad_log_fail_cleanly(tmp_path):
    log = corpus_log("release_logs/mpi-io-test-x86_64-3.5.0")
    run = run_cli(log, "--file", "/no/such/file", "-o", tmp_path / "x.html")
    assert run.returncode == 1 and "no records for file" in run.stderr
    junk = tmp_path / "junk.darshan"
    junk.write_bytes(b"not a log")
    run = run_cli(junk, "-o", tmp_path / "y.html")
    assert run.returncode == 1 and "Traceback" not in run.stderr


@pytest.mark.skipif(os.environ.get("IOLENS_LONG") != "1",
                    reason="all corpus logs x (HTML, per-file, PDF): set IOLENS_LONG=1")
@pytest.mark.parametrize("path", corpus_logs() or [None],
                         ids=[log_id(p) for p in corpus_logs()] or ["none"])
def test_every_output_for_every_corpus_log(path, tmp_path):
    need_corpus()
    run = run_cli(path, "-o", tmp_path / "r.html", "--pdf", tmp_path / "r.pdf")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    with iolens.open(path) as log:
        names = [n for n in log.names.values() if n]
    if not names:
        return
    run = run_cli(path, "--file", names[0], "-o", tmp_path / "f.html")
    assert run.returncode == 0, run.stderr
    assert html.escape(names[0]) in (tmp_path / "f.html").read_text()
