"""Region bands on the report's timelines (docs/report.md, "Region bands"): a real
job in three phases (progs/region_phases.py) under `iolens run --trace`, and the
same I/O with no region; a log of the project's writer with more regions than are
drawn."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from rt_helpers import REPO, logs_in
from test_regions_python import excluded_dirs

iolens = pytest.importorskip("iolens")
PROG = REPO / "tests" / "runtime" / "progs" / "region_phases.py"
TIMELINES = ("fig-timeline", "fig-heatmap", "fig-dxt-heatmap", "fig-dxt-threads")
PHASES = ("load", "checkpoint", "flush")


def phases_log(tool, tmp_path, *extra):
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(DARSHAN_EXCLUDE_DIRS=excluded_dirs(), DXT_THREAD_IDS="1")
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([str(tool), "run", "--trace", "--logpath", str(logs), "--", sys.executable,
                        str(PROG), str(data), *extra], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    [log] = logs_in(logs)
    return log


def figures_of(log, tmp_path):
    """{figure id: its HTML} of the report on `log`."""
    from iolens.report.cli import main
    out = tmp_path / "report.html"
    assert main([str(log), "-o", str(out)]) == 0
    page = out.read_text()
    return {m.group(1): m.group(0) for m in
            re.finditer(r'<figure id="([\w-]+)".*?</figure>', page, re.S)}


def test_bands_on_every_timeline(tool, tmp_path):
    """Each timeline figure names every region in its legend ("region: NAME") and on its
    band (the name alone, as SVG text)."""
    log = phases_log(tool, tmp_path)
    with iolens.open(log) as lg:
        assert set(lg.regions().region) == set(PHASES)
    figs = figures_of(log, tmp_path)
    for fid in TIMELINES:
        assert "<svg" in figs[fid], f"{fid} was not drawn"
        for name in PHASES:
            assert f"region: {name}" in figs[fid], (fid, name)
            assert re.search(rf">\s*{name}\s*<", figs[fid]), (fid, name)
    # figures that are not timelines get no band
    assert "region:" not in figs["fig-op-counts"]
    # the outer region of the nesting (flush inside checkpoint) is the lighter one
    from iolens.report import region_bands
    from iolens.report.source import ReportData
    with iolens.open(log) as lg:
        assert region_bands.bands(ReportData(lg)).outer == {"checkpoint"}


def test_no_regions_no_bands(tool, tmp_path):
    log = phases_log(tool, tmp_path, "plain")
    with iolens.open(log) as lg:
        assert "REGION" not in lg.modules
    figs = figures_of(log, tmp_path)
    for fid in TIMELINES:
        assert "<svg" in figs[fid] and "region:" not in figs[fid], fid
        assert 'class="note"' not in figs[fid]


def test_bands_are_bounded(tmp_path):
    """More regions than MAX_REGIONS: the ones with the most time are drawn, the note
    names the others."""
    from iolens.report import region_bands
    many = region_bands.MAX_REGIONS + 3
    names = ["/data/f"] + [f"phase {k:02d}" for k in range(many)]
    ids = np.array([iolens.record_id(n) for n in names], np.uint64)
    posix, region = iolens.module_info("POSIX"), iolens.module_info("REGION")
    pc, pf = np.zeros((1, len(posix.counters)), np.int64), np.zeros((1, len(posix.fcounters)))
    for k, v in (("OPENS", 1), ("WRITES", 1), ("BYTES_WRITTEN", 10), ("MAX_BYTE_WRITTEN", 9),
                 ("SIZE_WRITE_0_100", 1), ("ACCESS1_ACCESS", 10), ("ACCESS1_COUNT", 1)):
        pc[0, posix.counters.index(f"POSIX_{k}")] = v
    for k, v in (("OPEN_START", 0.5), ("WRITE_START", 1.0), ("WRITE_END", 2.0),
                 ("CLOSE_END", float(many + 2))):
        pf[0, posix.fcounters.index(f"POSIX_F_{k}_TIMESTAMP")] = v
    rc = np.ones((many, len(region.counters)), np.int64)
    rf = np.zeros((many, len(region.fcounters)))
    for k in range(many):   # phase k runs from k+1 to k+1.5 s; the later, the longer
        rf[k, region.fcounters.index("REGION_F_TOTAL_TIME")] = 0.5 + k
        rf[k, region.fcounters.index("REGION_F_START_TIMESTAMP")] = k + 1.0
        rf[k, region.fcounters.index("REGION_F_END_TIMESTAMP")] = k + 1.5
    log = tmp_path / "many.darshan"
    with iolens.Writer(log) as w:
        w.set_job(nprocs=1, jobid=5, end_time_sec=many + 3, exe="/bin/phases")
        w.add_names(ids, names)
        w.put_records("POSIX", ids[:1], np.array([0]), pc, pf)
        w.put_records("REGION", ids[1:], np.zeros(many, np.int64), rc, rf)
    fig = figures_of(log, tmp_path)["fig-timeline"]
    drawn = sorted(set(re.findall(r"region: (phase \d\d)", fig)))
    assert drawn == [f"phase {k:02d}" for k in range(3, many)]
    note = re.search(r'<p class="note">(.*?)</p>', fig).group(1)
    assert all(f"phase {k:02d}" in note for k in range(3)) and "phase 03" not in note


def test_bands_per_rank(tmp_path):
    """A rank's record shades that rank's row; a shared record (rank -1) the whole
    height; without rows (a figure with no ranks) every region is one job-wide span."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba
    from iolens.report import region_bands
    from iolens.report.source import ReportData
    names = ["a", "b", "c"]
    ids = np.array([iolens.record_id(n) for n in names], np.uint64)
    region = iolens.module_info("REGION")
    rc = np.ones((3, len(region.counters)), np.int64)
    rf = np.zeros((3, len(region.fcounters)))
    for k, (start, end) in enumerate(((1.0, 2.0), (3.0, 4.0), (5.0, 6.0))):
        rf[k, region.fcounters.index("REGION_F_TOTAL_TIME")] = end - start
        rf[k, region.fcounters.index("REGION_F_START_TIMESTAMP")] = start
        rf[k, region.fcounters.index("REGION_F_END_TIMESTAMP")] = end
    log = tmp_path / "ranks.darshan"
    with iolens.Writer(log) as w:
        w.set_job(nprocs=2, jobid=6, end_time_sec=7, exe="/bin/ranks")
        w.add_names(ids, names)
        w.put_records("REGION", ids, np.array([0, 1, -1]), rc, rf)
    with iolens.open(log) as lg:
        b = region_bands.bands(ReportData(lg))

    def boxes(rows):
        fig, ax = plt.subplots()
        ax.set_xlim(0, 7), ax.set_ylim(-0.5, 1.5)
        region_bands.draw(ax, b, rows)
        fig.canvas.draw()
        out = {}
        for p in ax.patches:
            name = next(n for n in names if to_rgba(b.colors[n])[:3] == p.get_facecolor()[:3])
            x0, y0, x1, y1 = p.get_window_extent().transformed(ax.transData.inverted()).extents
            out.setdefault(name, []).append(tuple(round(v, 2) for v in (x0, x1, y0, y1)))
        plt.close(fig)
        return out

    assert boxes({0: [0], 1: [1]}) == {"a": [(1.0, 2.0, -0.5, 0.5)], "b": [(3.0, 4.0, 0.5, 1.5)],
                                       "c": [(5.0, 6.0, -0.5, 1.5)]}
    assert boxes(None) == {"a": [(1.0, 2.0, -0.5, 1.5)], "b": [(3.0, 4.0, -0.5, 1.5)],
                           "c": [(5.0, 6.0, -0.5, 1.5)]}
