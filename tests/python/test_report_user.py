"""The report as a new user meets it (issue 19): a short job, a longer job, an
empty log and a small MPI job, each made by our runtime, plus a few logs from
our writer where a test needs exact numbers.

Each test names the rough edge it guards: heat maps of short jobs, visible
timeline spans, user-facing names, navigation without empty sections, counts
in words, the standard streams and MPI-internal files kept apart, standard
deviations in units, PDF headings kept with their content, progress on a
terminal only, and the diagnosis reusing the report's frames."""
from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import iolens
from iolens.report import activity, figures, page
from iolens.report.registry import sections
from iolens.report.source import ReportData
from iolens.report.special import MPI_INTERNAL, STREAM, kind_of
from report_helpers import REPO, iolens_bin, page_facts

sys.path.insert(0, str(REPO / "tests" / "runtime"))
sys.path.insert(0, str(REPO / "tests" / "mpi"))
from rt_helpers import find_runtime  # noqa: E402

PROGS = Path(__file__).resolve().parent / "progs"
EXAMPLES = REPO / "examples"


# ----------------------------------------------------------------- logs
def _run_logged(tmp: Path, argv, env=None) -> Path:
    """Run argv under `iolens run`; the one log it wrote."""
    tool = iolens_bin()
    if tool is None or find_runtime() is None:
        pytest.skip("the iolens tool and runtime are not built (set IOLENS_BIN, IOLENS_RUNTIME)")
    logs = tmp / "logs"
    logs.mkdir()
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    full.update(env or {})
    full.setdefault("IOLENS_RUNTIME", str(find_runtime()))
    run = subprocess.run([tool, "run", "--logpath", str(logs), "--", *map(str, argv)],
                         capture_output=True, text=True, timeout=120, env=full)
    assert run.returncode == 0, run.stderr
    found = sorted(logs.glob("*.darshan"))
    assert len(found) == 1, (run.stdout, run.stderr)
    return found[0]


def _compile(src: Path, out: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    subprocess.run([cc, "-O2", "-o", str(out), str(src)], check=True, timeout=120)
    return out


@pytest.fixture(scope="module")
def short_log(tmp_path_factory):
    """paced_io without pauses: a serial job of a few milliseconds, well under
    three of the heat map's 0.1 s bins."""
    tmp = tmp_path_factory.mktemp("short")
    prog = _compile(PROGS / "paced_io.c", tmp / "paced_io")
    (tmp / "data").mkdir()
    log = _run_logged(tmp, [prog, tmp / "data", 4, 0])
    with iolens.open(log) as handle:
        assert handle.job["run_time"] < 0.3, "the job is meant to be short"
    return log


@pytest.fixture(scope="module")
def long_log(tmp_path_factory):
    """paced_io: 30 blocks 50 ms apart (about 1.5 s, many heat-map bins), traced."""
    tmp = tmp_path_factory.mktemp("long")
    prog = _compile(PROGS / "paced_io.c", tmp / "paced_io")
    (tmp / "data").mkdir()
    return _run_logged(tmp, [prog, tmp / "data", 30, 50], env={"DXT_ENABLE_IO_TRACE": "1"})


@pytest.fixture(scope="module")
def empty_log(tmp_path_factory):
    """A program that does no I/O: a log with a job record and no module data."""
    tmp = tmp_path_factory.mktemp("empty")
    true = shutil.which("true")
    log = _run_logged(tmp, [true])
    with iolens.open(log) as handle:
        assert not handle.modules
    return log


@pytest.fixture(scope="module")
def mpi_log(tmp_path_factory):
    """sample_mpi on 4 Open MPI ranks with DXT: writes <STDOUT>, a session directory
    and lock-probe files besides the program's own."""
    from mpi_helpers import Mpi, find_mpi_runtime
    runtime = find_mpi_runtime("openmpi")
    if runtime is None or shutil.which("mpicc.openmpi") is None:
        pytest.skip("the Open MPI runtime (libiolens-mpi.so) or mpicc.openmpi is not available")
    mpi = Mpi("openmpi", runtime)
    tmp = tmp_path_factory.mktemp("mpi")
    prog = mpi.compile(EXAMPLES / "sample_mpi.c", tmp / "sample_mpi")
    (tmp / "data").mkdir()
    mpi.run([prog, tmp / "data"], tmp / "logs", nprocs=4, env={"DXT_ENABLE_IO_TRACE": "1"})
    logs = sorted((tmp / "logs").glob("*.darshan"))
    assert len(logs) == 1
    return logs[0]


def _shared_log(path: Path, variance_time: float, variance_bytes: float) -> Path:
    """One POSIX file reduced across 8 ranks, with the given variances."""
    info = iolens.module_info("POSIX")
    ic = {n: k for k, n in enumerate(info.counters)}
    fc = {n: k for k, n in enumerate(info.fcounters)}
    ints = np.zeros((1, len(info.counters)), np.int64)
    flts = np.zeros((1, len(info.fcounters)), np.float64)
    ints[0, ic["POSIX_WRITES"]], ints[0, ic["POSIX_BYTES_WRITTEN"]] = 8, 8 << 20
    ints[0, ic["POSIX_SIZE_WRITE_1M_4M"]] = 8      # a healthy record: histogram = writes
    ints[0, ic["POSIX_FASTEST_RANK"]], ints[0, ic["POSIX_SLOWEST_RANK"]] = 3, 5
    ints[0, ic["POSIX_FASTEST_RANK_BYTES"]] = ints[0, ic["POSIX_SLOWEST_RANK_BYTES"]] = 1 << 20
    flts[0, fc["POSIX_F_WRITE_TIME"]] = 0.8
    flts[0, fc["POSIX_F_FASTEST_RANK_TIME"]], flts[0, fc["POSIX_F_SLOWEST_RANK_TIME"]] = 0.05, 0.2
    flts[0, fc["POSIX_F_VARIANCE_RANK_TIME"]] = variance_time
    flts[0, fc["POSIX_F_VARIANCE_RANK_BYTES"]] = variance_bytes
    flts[0, fc["POSIX_F_OPEN_START_TIMESTAMP"]], flts[0, fc["POSIX_F_CLOSE_END_TIMESTAMP"]] = 1.0, 2.0
    name = "/scratch/shared.dat"
    ids = np.array([iolens.record_id(name)], np.uint64)
    with iolens.Writer(path) as w:
        w.set_job(nprocs=8, jobid=7, start_time_sec=1_700_000_000, end_time_sec=1_700_000_010,
                  exe="/apps/writer", mounts=[("/scratch", "lustre")])
        w.add_names(ids, [name])
        w.put_records("POSIX", ids, np.array([-1]), ints, flts)
    return path


def _spans_log(path: Path, spans) -> Path:
    """A POSIX log with one file per rank, open from start to end: spans = [(start, end)]."""
    info = iolens.module_info("POSIX")
    fc = {n: k for k, n in enumerate(info.fcounters)}
    n = len(spans)
    ints = np.zeros((n, len(info.counters)), np.int64)
    ints[:, info.counters.index("POSIX_OPENS")] = 1
    flts = np.zeros((n, len(info.fcounters)), np.float64)
    flts[:, fc["POSIX_F_OPEN_START_TIMESTAMP"]] = [s for s, _ in spans]
    flts[:, fc["POSIX_F_CLOSE_END_TIMESTAMP"]] = [e for _, e in spans]
    names = [f"/scratch/rank{r}.dat" for r in range(n)]
    ids = np.array([iolens.record_id(x) for x in names], np.uint64)
    with iolens.Writer(path) as w:
        w.set_job(nprocs=n, jobid=9, start_time_sec=1_700_000_000, end_time_sec=1_700_000_600,
                  exe="/apps/spans", mounts=[("/scratch", "lustre")])
        w.add_names(ids, names)
        w.put_records("POSIX", ids, np.arange(n), ints, flts)
    return path


def render(path) -> str:
    with iolens.open(path) as log:
        return page.render(ReportData(log))


def section_html(text: str, section: str) -> str:
    sid = page._sec_id(section)
    assert f'<section id="{sid}">' in text, section
    return text.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]


def figure_html(text: str, fid: str) -> str:
    assert f'<figure id="{fid}"' in text, fid
    return text.split(f'<figure id="{fid}"', 1)[1].split("</figure>", 1)[0]


def visible_text(fragment: str) -> str:
    """Text a reader sees: tags and SVG path data dropped."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))


# ------------------------------------------------------- short jobs, heat maps
def test_short_job_heatmap_becomes_per_process_bars_with_a_sentence(short_log):
    text = render(short_log)
    fig = figure_html(text, "fig-heatmap")
    assert "cannot show change over time" in fig
    assert re.search(r"The job ran \d+(\.\d+)? ms, less than 3 of the runtime heat "
                     r"map(&#x27;|')s 100 ms time bins", fig)
    assert "<svg" in fig and "Data moved per process: POSIX" in fig
    assert "Heat map: POSIX" not in fig


def test_long_job_heatmap_shows_bins_over_time(long_log):
    text = render(long_log)
    fig = figure_html(text, "fig-heatmap")
    assert "cannot show change over time" not in fig
    # One process: bars over time (one per bin), not a one-row colour band.
    assert "Heat map: POSIX (rank 0)" in fig and "data moved (KiB)" in fig
    dxt = figure_html(text, "fig-dxt-heatmap")
    assert "DXT heat map: POSIX (rank 0)" in dxt


@pytest.mark.parametrize("span", [0.004, 0.08, 0.372, 1.5, 600.0, 36_000.0])
def test_heat_bins_follow_the_job_length(span):
    width = activity.bin_width(span)
    mantissa = width / 10 ** np.floor(np.log10(width))
    assert round(mantissa, 6) in (1.0, 2.0, 5.0), width
    nbins = int(np.ceil(span / width - 1e-9))
    assert 20 <= nbins <= activity.MAX_BINS, (span, width, nbins)


def test_dxt_heatmap_of_a_short_job_has_many_bins(mpi_log):
    with iolens.open(mpi_log) as log:
        data = ReportData(log)
        maps = activity.dxt_heatmap(data)
    assert set(maps) == {"POSIX", "MPI-IO"}
    for width, read, write, ranks in maps.values():
        assert read.shape[1] >= 20 and width * read.shape[1] >= data.run_time - width
        assert list(ranks) == [0, 1, 2, 3]


def test_heatmap_without_data_is_a_sentence(tmp_path):
    class Stub(ReportData):   # the real ReportData, with a heat map of zero bytes
        def heatmap(self):
            zeros = np.zeros((2, 30))
            return {"POSIX": (0.1, zeros, zeros, np.array([0, 1]))}
    with iolens.open(_spans_log(tmp_path / "s.darshan", [(0, 5), (1, 2)])) as log:
        assert figures.heatmap(Stub(log)) == "The runtime heat map recorded no data moved."


# ------------------------------------------------------------------ timeline
def test_timeline_spans_have_a_minimum_width_and_are_marked(tmp_path):
    spans = [(0.5, 600.0), (10.0, 10.001), (300.0, 300.0), (450.0, 520.0)]
    with iolens.open(_spans_log(tmp_path / "t.darshan", spans)) as log:
        fig = figures.timeline(ReportData(log))
    ax = fig.axes[0]
    filled = [p for p in ax.patches if p.get_fill()]
    outlined = [p for p in ax.patches if not p.get_fill()]
    min_width = figures.MIN_SPAN_SHARE * 600.0
    assert len(filled) == 4 and all(p.get_width() >= min_width - 1e-12 for p in filled)
    assert len(outlined) == 2       # the two spans shorter than the minimum are marked
    assert sorted(round(p.get_x(), 6) for p in outlined) == [10.0, 300.0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["POSIX", "< 3.6 s, widened"]


# --------------------------------------------------------------------- names
def test_heatmap_titles_say_mpi_io(mpi_log):
    text = render(mpi_log)
    for fid in ("fig-heatmap", "fig-dxt-heatmap"):
        fig = figure_html(text, fid)
        assert "MPI-IO" in fig and not re.search(r"\bMPIIO\b", visible_text(fig)), fid


def test_navigation_lists_only_sections_with_content(mpi_log, empty_log):
    for log in (mpi_log, empty_log):
        text = render(log)
        nav = text.split("<nav>", 1)[1].split("</nav>", 1)[0]
        linked = re.findall(r'href="#(sec-[a-z0-9-]+)"', nav)
        present = re.findall(r'<section id="(sec-[a-z0-9-]+)">', text)
        assert linked == [s for s in present if s != "sec-notes"]
        for sid in linked:
            chunk = text.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]
            assert "<svg" in chunk or "<table" in chunk or 'class="nodata"' in chunk
        missing = [s for s in sections() if page._sec_id(s) not in linked]
        if missing:
            line = text.split('id="empty-sections">', 1)[1].split("</p>", 1)[0]
            assert all(s in line for s in missing)
    assert "Module notes" not in render(mpi_log).split("</nav>", 1)[0]


def test_empty_log_report(empty_log):
    text = render(empty_log)
    ids, _ = page_facts(text)
    assert "job-table" in ids and "overview-table" not in ids
    nav = text.split("<nav>", 1)[1].split("</nav>", 1)[0]
    # the runtime recorded the machine (docs/runtime.md, "Platform data") even so
    assert re.findall(r">([^<]+)</a>", nav) == ["Job", "Platform", "Diagnosis"]
    assert "No module recorded anything" in figure_html(text, "modules-table")
    line = text.split('id="empty-sections">', 1)[1].split("</p>", 1)[0]
    assert "Overall I/O" in line and "Time" in line


def test_counts_agree_with_their_nouns(short_log, mpi_log):
    assert "1 process," in render(short_log) and "1 processes" not in render(short_log)
    assert "4 processes," in render(mpi_log)


# ------------------------------------------------------- streams, MPI files
def test_special_files_are_classified():
    names = pd.Series(["<STDOUT>", "<STDERR>", "/tmp/ompi.node1.1000/pid.42/1/f_cid-0-1.sm",
                       "/var/tmp/prte.node1.1000/dvm/x", "/dev/shm/vader_segment.node1.1.0",
                       "/data/out.dat.locktest.3", "/data/.out.dat.shfp.1234",
                       "/data/out.dat", "/home/u/ompi.txt", "/dev/shm/mydata", None])
    assert list(kind_of(names)) == [STREAM, STREAM] + [MPI_INTERNAL] * 5 + [""] * 4


def test_streams_and_mpi_files_are_shown_apart(mpi_log):
    text = render(mpi_log)
    noise = re.compile(r"&lt;STDOUT&gt;|/tmp/ompi\.|\.locktest\.")
    for fid in ("top-time-table", "top-bytes-table", "shared-table"):
        table = figure_html(text, fid)
        assert "shared.dat" in table and not noise.search(table), fid
    special = figure_html(text, "special-files-table")
    rows = re.findall(r"<tr><td>([^<]+)</td><td>[^<]+</td><td>([^<]+)</td>", special)
    kinds = {name: kind for kind, name in rows}
    assert kinds["&lt;STDOUT&gt;"] == STREAM
    assert any(n.startswith("/tmp/ompi.") and k == MPI_INTERNAL for n, k in kinds.items())
    assert all(k in (STREAM, MPI_INTERNAL) for k in kinds.values())
    # The mount chart shows the program's files only; the table lists the others last.
    assert "(standard streams)" not in figure_html(text, "fig-mounts")
    mounts = re.findall(r"<tr><td>[^<]+</td><td>([^<]+)</td>", figure_html(text, "mount-table"))
    special_rows = [i for i, m in enumerate(mounts) if m.startswith("(")]
    assert special_rows and special_rows == list(range(len(mounts) - len(special_rows), len(mounts)))


# --------------------------------------------------------------------- units
def test_standard_deviations_carry_units(tmp_path):
    log = _shared_log(tmp_path / "v.darshan", variance_time=0.0004, variance_bytes=float(1 << 40))
    text = render(log)
    table = figure_html(text, "shared-table")
    assert "std. dev. of I/O time" in table and "std. dev. of bytes" in table
    assert "variance" not in visible_text(table).split("</figcaption>")[-1]
    cells = re.findall(r"<td>([^<]*)</td>", table)
    assert "20 ms" in cells and "1.00 MiB" in cells   # sqrt(0.0004 s²), sqrt(2^40 B²)


# ----------------------------------------------------------------------- PDF
def _section_headings_at_page_bottom(pdf: Path, headings) -> list:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, timeout=120, check=True).stdout
    bad = []
    for number, page_text in enumerate(text.split("\f"), 1):
        lines = [ln.strip() for ln in page_text.splitlines() if ln.strip()]
        # A heading is alone when nothing but at most its first item's title follows it.
        for tail in lines[-2:]:
            if tail in headings:
                bad.append((number, tail))
    return bad


def test_pdf_keeps_headings_with_their_content(mpi_log, long_log, tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    from iolens.report.pdf import find_browser
    if find_browser() is None:
        pytest.skip("no Chromium: the PDF comes from the matplotlib fallback")
    for name, log in (("mpi", mpi_log), ("long", long_log)):
        pdf = tmp_path / f"{name}.pdf"
        run = subprocess.run([sys.executable, "-m", "iolens.report.cli", str(log), "--pdf",
                              str(pdf)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and "via chromium" in run.stdout, run.stderr
        headings = set(sections())
        assert _section_headings_at_page_bottom(pdf, headings) == []
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                              timeout=120, check=True).stdout
        # Every heading shown is followed on its page by its first entry's title.
        html_text = render(log)
        for section in re.findall(r'<section id="sec-[^"]+"><div class="keep"><h2>([^<]+)</h2>'
                                  r'<figure id="[^"]+"[^>]*><figcaption><h3>([^<]+)</h3>',
                                  html_text):
            head, first = (s.replace("&amp;", "&") for s in section)
            pages = [p for p in text.split("\f") if re.search(rf"^{re.escape(head)}$", p, re.M)]
            assert pages and first in pages[0], (name, head)


def test_pdf_fallback_draws_the_short_job(short_log, tmp_path):
    """The matplotlib PDF takes the (sentence, figure) of a short job's heat map too."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    from iolens.report.pdf import write_pdf_matplotlib
    pdf = tmp_path / "fallback.pdf"
    with iolens.open(short_log) as log:
        write_pdf_matplotlib(ReportData(log), pdf)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          timeout=120, check=True).stdout
    assert "cannot show change over time" in re.sub(r"\s+", " ", text)


# ------------------------------------------------------------------ progress
def _cli(log, out, stderr_tty: bool):
    """Run the report CLI; stderr to a pseudo-terminal or a pipe. (rc, stderr text)."""
    cmd = [sys.executable, "-m", "iolens.report.cli", str(log), "-o", str(out)]
    if not stderr_tty:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return run.returncode, run.stderr
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks, deadline = [], time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:   # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    rc = proc.wait(timeout=60)
    return rc, b"".join(chunks).decode("utf-8", "replace")


def test_progress_on_a_terminal_only(mpi_log, tmp_path):
    rc, err = _cli(mpi_log, tmp_path / "tty.html", stderr_tty=True)
    assert rc == 0
    assert re.search(r"\[#+-*\] \d+/\d+ +\d+\.\d s  Files: Top files by I/O time", err), err[:500]
    assert "reading the POSIX records" in err
    assert re.search(r"iolens report: done \(\d+\.\d s\)", err)
    rc, err = _cli(mpi_log, tmp_path / "pipe.html", stderr_tty=False)
    assert rc == 0 and err == ""
    assert (tmp_path / "tty.html").read_text() == (tmp_path / "pipe.html").read_text()


# -------------------------------------------------------------------- memory
def test_diagnosis_reuses_the_report_frames(mpi_log):
    """The Diagnosis section reads the report's frames themselves (through the
    report's own view): no second decode, no copy of the columns the rules declare
    (hundreds of MB at 1M records), and no second damage check."""
    from iolens.diagnose.context import Context
    from iolens.diagnose.engine import _needs, default_thresholds
    from iolens.diagnose.rules import RULES
    with iolens.open(mpi_log) as log:
        data = ReportData(log)
        ctx = Context(log, default_thresholds(), _needs(RULES), view=data.view)
        assert ctx.view is data.view
        assert ctx.frame("POSIX") is data.frame("POSIX")
        # A module the log lacks is absent, not an empty decode.
        assert ctx.frame("H5D") is None
