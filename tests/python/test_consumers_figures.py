"""Known answers for the figures fleet, the explorer and export take from the view
(issue 27's bugs): the explorer's bandwidth and phase bytes count one layer, its
idle gaps and phases come from operations' start and end, its per-OST bytes use
every layout component, split multi-stripe operations and give an MPI-IO offset
of -1 no OST; fleet stores no negative time and counts what it set aside."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import iolens
from view_logs import MiB, Segments, posix_row, write_log

NPROCS = 4


def trace_log(path) -> Path:
    """4 ranks each read 1 MiB of /lus/a for 0.9 s (1.0 to 1.9 s) and write 1 MiB
    from 5.0 to 5.5 s, through MPI-IO (the same bytes in DXT_MPIIO, slightly
    longer).  /lus/a has a PFL layout: [0, 4 MiB) on OSTs 3 and 5 (1 MiB stripes),
    the rest on OST 7.  /lus/b is written through MPI-IO only, offset -1."""
    posix, mpiio = Segments(), Segments()
    for r in range(NPROCS):
        posix.add("/lus/a", r, "read", r * MiB, MiB, 1.0, 1.9)
        mpiio.add("/lus/a", r, "read", r * MiB, MiB, 0.98, 1.92)
        posix.add("/lus/a", r, "write", (4 + r) * MiB, MiB, 5.0, 5.5)
        mpiio.add("/lus/a", r, "write", (4 + r) * MiB, MiB, 4.98, 5.52)
    mpiio.add("/lus/b", 0, "write", -1, 2 * MiB, 5.0, 5.2)
    layout = [dict(stripe_size=MiB, stripe_count=2, ext_start=0, ext_end=4 * MiB, osts=[3, 5]),
              dict(stripe_size=MiB, stripe_count=1, ext_start=4 * MiB, ext_end=-1, osts=[7])]
    return write_log(path, nprocs=NPROCS, run_time=10, lustre=[("/lus/a", layout)],
                     dxt_posix=posix, dxt_mpiio=mpiio)


@pytest.fixture
def explored(tmp_path):
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    path = trace_log(tmp_path / "trace.darshan")
    with iolens.open(path) as log:
        return summary(log, index_for(log, tmp_path / "cache"))


def test_explorer_bandwidth_counts_one_layer(explored):
    bw = explored["bandwidth"]
    assert bw["source"] == "DXT_POSIX"
    # 8 MiB moved by POSIX in 0.9 + 0.5 busy seconds; the MPI-IO bytes are the same data
    assert bw["busy_seconds"] == pytest.approx(1.4, abs=1e-3)
    assert bw["mean"] == pytest.approx(8 * MiB / 1.4, rel=1e-3)
    moved = (sum(bw["read"]) + sum(bw["write"])) * bw["width"]
    assert moved == pytest.approx(8 * MiB, rel=1e-6)


def test_explorer_gaps_and_phases_from_start_and_end(explored):
    gaps = explored["gaps"]["global"]
    # the only idle stretch is 1.9 -> 5.0: the 0.9 s reads are busy time, not idle
    assert len(gaps) == 1
    assert gaps[0] == pytest.approx([1.9, 5.0], abs=1e-3)
    phases = explored["phases"]
    assert [(p["t0"], p["t1"]) for p in phases] == [pytest.approx((1.0, 1.9), abs=1e-3),
                                                    pytest.approx((5.0, 5.5), abs=1e-3)]
    assert [p["bytes"] for p in phases] == [pytest.approx(4 * MiB), pytest.approx(4 * MiB)]
    assert all(p["processes"] == NPROCS for p in phases)


def test_explorer_osts_every_component_split_stripes_no_invented_ost(explored):
    osts = {o["ost"]: o for o in explored["osts"]}
    # reads: ranks 0-3 at [r, r+1) MiB of component 0 -> stripes alternate OSTs 3 and 5;
    # writes at [4, 8) MiB -> component 1 (OST 7); /lus/b (offset -1) on no OST
    assert set(osts) == {3, 5, 7}
    assert osts[3]["bytes_read"] == osts[5]["bytes_read"] == 2 * MiB
    assert osts[7]["bytes_written"] == 4 * MiB and osts[7]["bytes_read"] == 0
    assert osts[3]["read_time"] == pytest.approx(2 * 0.9)
    assert sum(o["bytes"] for o in explored["osts"]) == 8 * MiB


def test_explorer_and_export_skip_damaged_segments_and_say_so(tmp_path, capsys):
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    from iolens.export.cli import main as export_main
    seg = Segments()
    seg.add("/lus/a", 0, "read", 0, MiB, 1.0, 2.0)
    seg.add("/lus/a", 1, "read", 0, MiB, float("nan"), 2.0)      # damaged
    seg.add("/lus/a", 1, "read", 0, MiB, 3.0, 2.5)               # end before start
    path = write_log(tmp_path / "d.darshan", nprocs=2, run_time=10, dxt_posix=seg)
    with iolens.open(path) as log:
        idx = index_for(log, tmp_path / "cache")
        data = summary(log, idx)
    assert idx.nseg == 1
    assert data["damage"]["segments"] == {"DXT_POSIX": {"bad-time": 1, "end-before-start": 1}}
    assert data["damage"]["lines"] and data["bandwidth"]["busy_seconds"] == pytest.approx(1.0)
    out = tmp_path / "t.json"
    assert export_main([str(path), "--format", "json", "-o", str(out),
                        "--cache", str(tmp_path / "cache")]) == 0
    assert "2 damaged segments skipped" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    assert "2 damaged segments skipped" in doc["metadata"]["damage"]
    assert sum(1 for e in doc["traceEvents"] if e["ph"] == "X") == 1


def test_fleet_stores_no_negative_time_and_counts_damage(tmp_path):
    """A STDIO record with -2,662 s of write time (a public log had one): set
    aside, so stdio_time and io_time are not negative and `damaged` counts it."""
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    stdio = [("/home/u/out.txt", 0, {"STDIO_WRITES": 2, "STDIO_BYTES_WRITTEN": 200,
                                     "STDIO_MAX_BYTE_WRITTEN": 199, "STDIO_F_WRITE_TIME": -2662.0}),
             ("/home/u/log.txt", 0, {"STDIO_WRITES": 1, "STDIO_BYTES_WRITTEN": 10,
                                     "STDIO_MAX_BYTE_WRITTEN": 9, "STDIO_F_WRITE_TIME": 0.25})]
    posix = [("/lus/a", 0, posix_row(reads=2, read_bytes=2048, read_time=0.5))]
    path = write_log(tmp_path / "neg.darshan", nprocs=1, run_time=100, posix=posix, stdio=stdio)
    job = extract(str(path), StorageClasses(), with_findings=False)["job"]
    assert job["damaged"] == 1
    assert job["stdio_time"] == pytest.approx(0.25) and job["stdio_bytes_written"] == 10
    assert job["io_time"] == pytest.approx(0.75)
    assert job["posix_time"] == pytest.approx(0.5)

