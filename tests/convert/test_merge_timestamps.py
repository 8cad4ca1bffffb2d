"""A merged log counts every time from the job's start (docs/convert.md, "What merge
does to times"; docs/deviations.md): each process's log counts its timestamps and
DXT segments from its own start, so `iolens merge` and `iolens run`'s job log move
those of a process that started later by how much later it started, as they move
its heat map.

The job is real: under `iolens run --trace`, a Python parent writes a file, sleeps
about a second, then starts a child (in the region "child step", IOLENS_REGION)
that writes another.  The child's times must come out about a second after the
job's start; the shift each check uses is computed from the process logs' start
fields, never assumed."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conv_helpers import run, start_shifts

iolens = pytest.importorskip("iolens")

SLEEP = 1.2
PARENT = """
import os, subprocess, sys, time
d = sys.argv[1]
with open(os.path.join(d, "parent.dat"), "w") as f:
    f.write("p" * 4096)
time.sleep({sleep})
env = dict(os.environ, IOLENS_REGION="child step")
subprocess.run([sys.executable, "-c", {child!r}, d], env=env, check=True)
"""
CHILD = """
import os, sys
with open(os.path.join(sys.argv[1], "child.dat"), "w") as f:
    f.write("c" * 65536)
"""


@pytest.fixture(scope="module")
def late_child(tool, runtime, tmp_path_factory):
    """{"job": the job log, "parent"/"child": the two Python processes' logs,
    "shift": the child's start after the parent's, from their logs, "dir": ...}."""
    d = tmp_path_factory.mktemp("late")
    logs, data = d / "logs", d / "data"
    logs.mkdir()
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_"))}
    env["IOLENS_RUNTIME"] = str(runtime)
    script = PARENT.format(sleep=SLEEP, child=CHILD)
    r = subprocess.run([str(tool), "run", "--trace", "--logpath", str(logs),
                        "--keep-process-logs", "--", sys.executable, "-c", script, str(data)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    job = next(logs.glob("*_job.darshan"))
    procs = [p for p in logs.glob("*.darshan") if p != job]
    writer = {}
    for p in procs:
        with iolens.open(p) as lg:
            names = set(lg.records("POSIX")["name"])
        for who in ("parent", "child"):
            if any(str(n).endswith(f"{who}.dat") for n in names):
                writer[who] = p
    assert set(writer) == {"parent", "child"}, (procs, r.stderr)
    shifts = start_shifts(procs)
    return {"job": job, "procs": procs, "dir": d, **writer,
            "shift": shifts[procs.index(writer["child"])] - shifts[procs.index(writer["parent"])]}


def posix_row(path, suffix):
    with iolens.open(path) as lg:
        df = lg.records("POSIX")
    rows = df[df["name"].astype(str).str.endswith(suffix)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def dxt_times(path, suffix):
    with iolens.open(path) as lg:
        d = lg.dxt("POSIX")
    d = d[d["name"].astype(str).str.endswith(suffix)]
    assert len(d), f"no DXT segment of {suffix}"
    return sorted(zip(d["start"].tolist(), d["end"].tolist()))


def region_times(path, name):
    with iolens.open(path) as lg:
        df = lg.records("REGION")
    rows = df[df["name"].astype(str) == name]
    assert len(rows) == 1, rows
    r = rows.iloc[0]
    return r["REGION_F_START_TIMESTAMP"], r["REGION_F_END_TIMESTAMP"]


def moved(t, shift):
    return t + shift if t != 0 else 0.0


def merged_logs(tool, late_child):
    out = late_child["dir"] / "merged.darshan"
    if not out.exists():
        run(tool, "merge", "-o", out, *late_child["procs"])
    return [late_child["job"], out]


def test_the_child_started_late(late_child):
    """What the checks below rely on: the child started about SLEEP s after the
    parent, and its own log counts its write from its own start (near 0)."""
    assert late_child["shift"] >= SLEEP * 0.9
    child = posix_row(late_child["child"], "child.dat")
    assert 0 < child["POSIX_F_WRITE_START_TIMESTAMP"] < late_child["shift"]


@pytest.mark.parametrize("which", [0, 1], ids=["job-log", "merge"])
def test_counter_timestamps_count_from_the_job_start(tool, late_child, which):
    """Every timestamp counter of the child's record is moved by its start's
    offset (a counter that is 0, "never", stays 0); the parent's are unchanged."""
    path = merged_logs(tool, late_child)[which]
    shift = late_child["shift"]
    src, got = posix_row(late_child["child"], "child.dat"), posix_row(path, "child.dat")
    stamps = [c for c in src.index if c.endswith("_TIMESTAMP")]
    assert "POSIX_F_WRITE_START_TIMESTAMP" in stamps
    for c in stamps:
        assert got[c] == moved(src[c], shift), c
    assert got["POSIX_F_WRITE_START_TIMESTAMP"] >= SLEEP * 0.9
    assert got["POSIX_F_READ_START_TIMESTAMP"] == 0          # never read: still "never"
    others = [c for c in src.index if c.startswith("POSIX_") and c not in stamps]
    assert [got[c] for c in others] == [src[c] for c in others]
    parent, gotp = posix_row(late_child["parent"], "parent.dat"), posix_row(path, "parent.dat")
    assert [gotp[c] for c in stamps] == [parent[c] for c in stamps]


@pytest.mark.parametrize("which", [0, 1], ids=["job-log", "merge"])
def test_dxt_segments_count_from_the_job_start(tool, late_child, which):
    path = merged_logs(tool, late_child)[which]
    shift = late_child["shift"]
    want = [(s + shift, e + shift) for s, e in dxt_times(late_child["child"], "child.dat")]
    assert dxt_times(path, "child.dat") == want
    assert min(s for s, _ in want) >= SLEEP * 0.9
    assert dxt_times(path, "parent.dat") == dxt_times(late_child["parent"], "parent.dat")


@pytest.mark.parametrize("which", [0, 1], ids=["job-log", "merge"])
def test_region_timestamps_count_from_the_job_start(tool, late_child, which):
    path = merged_logs(tool, late_child)[which]
    shift = late_child["shift"]
    start, end = region_times(late_child["child"], "child step")
    assert region_times(path, "child step") == (moved(start, shift), moved(end, shift))
    assert moved(start, shift) >= SLEEP * 0.9


def test_heat_map_bytes_stay_where_they_were(tool, late_child):
    """The heat map was already moved onto the job's grid (merge_heatmap) and is
    as before: the child's written bytes are all in bins that end after its start."""
    path = merged_logs(tool, late_child)[0]
    rank = posix_row(path, "child.dat")["rank"]
    with iolens.open(path) as lg:
        hm = lg.heatmap()
    mine = hm[(hm["api"] == "POSIX") & (hm["rank"] == rank)]
    assert mine["write_bytes"].sum() >= 65536
    ends = (mine["bin"] + 1) * mine["width"]
    assert mine.loc[ends <= late_child["shift"], "write_bytes"].sum() == 0
