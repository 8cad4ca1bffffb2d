"""iolens.derived.parser_figures is `iolens parse --total --file --perf`, number for
number (issue 27): the figures come from the format library (iolens/metrics.h),
which the C tool prints and Python reads, so they cannot drift apart.

Checked for every log of the shared corpus (skipped with a reason when absent) and
for a log our runtime writes."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import iolens
from iolens import _core
from iolens.derived import parser_figures, summary_modules
from report_helpers import REPO, iolens_bin

sys.path.insert(0, str(REPO / "tests" / "compat"))
sys.path.insert(0, str(REPO / "tests" / "runtime"))
from compat_helpers import all_corpus_logs, log_id, run_iolens  # noqa: E402
from rt_helpers import find_runtime  # noqa: E402

PROGS = Path(__file__).resolve().parent / "progs"
SECTION = re.compile(r"^# (\S+) module data$")
TOTAL = re.compile(r"^total_(\w+): (\S+)$")
CATEGORY = re.compile(r"^# (total|read_only|write_only|read_write|unique|shared): "
                      r"(-?\d+) (-?\d+) (-?\d+)$")
PERF = re.compile(r"^# (?:unique files: |shared files: )?(\w+): (\S+)")
PERF_KEYS = {"total_bytes", "slowest_rank_io_time", "slowest_rank_meta_only_time",
             "slowest_rank_rw_only_time", "slowest_rank", "agg_time_by_slowest",
             "agg_perf_by_slowest"}


def printed_figures(text: str) -> dict:
    """{module: {"total": {name: text}, "files": {cat: (n, bytes, max)}, "perf": {key: text}}}
    read back from parse's --total/--file/--perf text."""
    out, cur = {}, None
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            cur = out.setdefault(m.group(1), {"total": {}, "files": {}, "perf": {}})
            continue
        if cur is None:
            continue
        if (m := TOTAL.match(line)):
            cur["total"][m.group(1)] = m.group(2)
        elif (m := CATEGORY.match(line)):
            cur["files"][m.group(1)] = tuple(int(v) for v in m.group(2, 3, 4))
        elif line.startswith("# shared files: time_by_slowest: "):
            cur["perf"]["shared_time_by_slowest"] = line.rsplit(" ", 1)[1]
        elif (m := PERF.match(line)) and m.group(1) in PERF_KEYS:
            cur["perf"][m.group(1)] = m.group(2)
    return {k: v for k, v in out.items() if v["total"] or v["files"] or v["perf"]}


def same_number(value, printed: str) -> bool:
    """value as C printed it: integers exactly, doubles as %f (glibc's nan is "-nan"
    for a negative NaN, Python's always "nan")."""
    if isinstance(value, int):
        return str(value) == printed
    if math.isnan(value):
        return printed in ("nan", "-nan")
    return f"{value:f}" == printed


def assert_figures_equal(log: Path, tool: Path):
    run = run_iolens(tool, ["parse", "--show-incomplete", "--total", "--file", "--perf", log])
    try:
        figures = parser_figures(log)
    except iolens.LogError:
        assert run.returncode != 0, "parse read a log that parser_figures could not"
        return
    assert run.returncode == 0, run.stderr
    printed = printed_figures(run.stdout.decode("utf-8", "surrogateescape"))
    assert set(figures) == set(printed), (list(figures), list(printed))
    for name, fig in figures.items():
        want = printed[name]
        assert list(want["total"]) == list(fig["total"]), name
        bad = [k for k, v in fig["total"].items() if not same_number(v, want["total"][k])]
        assert not bad, (name, bad[:5])
        assert {k: (c["count"], c["bytes"], c["max_offset"]) for k, c in fig["files"].items()} \
            == want["files"], name
        assert set(want["perf"]) == set(fig["perf"]), name
        bad = [k for k, v in fig["perf"].items() if not same_number(v, want["perf"][k])]
        assert not bad, (name, bad, fig["perf"], want["perf"])


def _tool():
    tool = iolens_bin()
    if tool is None:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    return tool


CORPUS = all_corpus_logs()


@pytest.mark.skipif(not CORPUS, reason="shared corpus not found at ../shared/corpus/logs")
@pytest.mark.parametrize("log", CORPUS, ids=[log_id(p) for p in CORPUS])
def test_corpus_figures_equal_parse(log):
    assert_figures_equal(log, _tool())


def test_runtime_log_figures_equal_parse(tmp_path):
    """A log our runtime writes: POSIX and STDIO records of a small serial job."""
    tool = _tool()
    runtime = find_runtime()
    cc = shutil.which("cc") or shutil.which("gcc")
    if runtime is None or cc is None:
        pytest.skip("the runtime (IOLENS_RUNTIME) or a C compiler is missing")
    prog = tmp_path / "paced_io"
    subprocess.run([cc, "-O2", "-o", str(prog), str(PROGS / "paced_io.c")], check=True,
                   timeout=120)
    (tmp_path / "data").mkdir()
    (tmp_path / "logs").mkdir()
    env = {"IOLENS_RUNTIME": str(runtime), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(tool), "run", "--logpath", str(tmp_path / "logs"), "--", str(prog),
                    str(tmp_path / "data"), "4", "0"], check=True, timeout=120, env=env)
    (log,) = sorted((tmp_path / "logs").glob("*.darshan"))
    assert "POSIX" in parser_figures(log)
    assert_figures_equal(log, tool)
    with iolens.open(log) as handle:      # the open Log gives the same figures
        assert parser_figures(handle, "POSIX") == parser_figures(log, "POSIX")


def test_which_modules_have_figures():
    """The modules.def summary column, not a Python list, names them."""
    assert summary_modules() == tuple(m.name for m in iolens.modules().values()
                                      if m.summaries)
    assert set(summary_modules()) == {"POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"}
    with pytest.raises(iolens.InvalidArgumentError):
        _core.derive(__file__, "H5F")
    with pytest.raises(iolens.UnknownModuleError):
        _core.derive(__file__, "NOPE")
