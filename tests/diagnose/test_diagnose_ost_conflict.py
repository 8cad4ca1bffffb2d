"""The slow-OST and conflicting-writes rules, both ways, on logs written with
iolens' own writer (real LUSTRE and DXT records)."""
from __future__ import annotations

import pytest

from diag_logs import MiB, build, rec, seg
from iolens.diagnose import diagnose, load_thresholds

NPROCS, NOSTS, SLOW = 16, 8, 5


def per_process(slow_seconds, fast=(10.0, 14.0), nbytes=256 * MiB, nprocs=NPROCS,
                nosts=NOSTS, slow=SLOW):
    """File-per-process log: rank r writes /scratch/out.r (one stripe) on OST
    r % nosts; the files on OST `slow` took `slow_seconds`, the others 10-14 s."""
    posix, lustre = [], []
    for r in range(nprocs):
        name = f"/scratch/out.{r}"
        ost = r % nosts
        t = slow_seconds if ost == slow else fast[0] + (fast[1] - fast[0]) * r / nprocs
        posix.append(rec(name, r, POSIX_OPENS=1, POSIX_WRITES=256, POSIX_BYTES_WRITTEN=nbytes,
                         POSIX_MAX_BYTE_WRITTEN=nbytes - 1, POSIX_SEQ_WRITES=256,
                         POSIX_SIZE_WRITE_1M_4M=256, POSIX_F_WRITE_TIME=t))
        lustre.append((name, 1 * MiB, [ost]))
    return dict(nprocs=nprocs, run_time=700, POSIX=posix, lustre=lustre)


def findings(tmp_path, name, **kwargs):
    diag = diagnose(build(str(tmp_path / f"{name}.darshan"), **kwargs))
    assert not diag.notes, diag.notes
    return {f.rule.id: f for f in diag.findings}


def test_slow_ost_named_with_its_files_and_ranks(tmp_path):
    found = findings(tmp_path, "slow", **per_process(546.0))
    assert "slow-ost" in found, sorted(found)
    hit = found["slow-ost"].hit
    assert hit.numbers["slow_osts"] == 1
    assert any(line.strip().startswith(f"OST {SLOW}:") for line in hit.evidence)
    assert sorted(hit.files) == sorted(f"/scratch/out.{r}" for r in (SLOW, SLOW + NOSTS))
    assert hit.ranks == [SLOW, SLOW + NOSTS]
    # the slowest rank lost about 546 s less what the others' rate gives (about 12 s)
    assert 500 < hit.time_lost < 546
    assert found["slow-ost"].severity == "critical"
    # the slow ranks' imbalance is the slow OST's doing: one root cause
    assert found["imbalance-ranks"].group == "slow-ost"


def test_equal_ost_times_are_silent(tmp_path):
    assert "slow-ost" not in findings(tmp_path, "even", **per_process(12.0))


@pytest.mark.parametrize("slow_seconds, fires", [(3.0, True), (0.6, False)])
def test_slow_ost_at_test_scale(tmp_path, slow_seconds, fires):
    """4 processes, 4 OSTs, seconds: rank 2's OST took 3 s for what the others
    wrote in about 0.5 s."""
    kw = per_process(slow_seconds, fast=(0.5, 0.6), nbytes=16 * MiB, nprocs=4, nosts=4, slow=2)
    found = findings(tmp_path, "small", **kw)
    assert ("slow-ost" in found) is fires
    if fires:
        assert found["slow-ost"].hit.ranks == [2]


@pytest.mark.parametrize("slow_seconds, fires", [(60.0, True), (12.0, False)])
def test_slow_ost_at_scale(tmp_path, slow_seconds, fires):
    """4,096 processes over 256 OSTs: one OST (16 files) 5x slower fires, equal
    times stay silent."""
    found = findings(tmp_path, "scale", **per_process(slow_seconds, nprocs=4096, nosts=256,
                                                     nbytes=64 * MiB))
    assert ("slow-ost" in found) is fires
    if fires:
        hit = found["slow-ost"].hit
        assert hit.numbers["slow_osts"] == 1 and len(hit.ranks) == 16
        assert all(r % 256 == SLOW for r in hit.ranks)


def test_slow_ost_from_the_trace(tmp_path):
    """With DXT the time per OST comes from the segments (view.ost source 'trace')."""
    kw = per_process(12.0)
    segs = []
    for r in range(NPROCS):
        dur = 300.0 if r % NOSTS == SLOW else 6.0
        segs += [seg(f"/scratch/out.{r}", r, "write", k * dur / 4, (k + 1) * dur / 4,
                     offset=k * 64 * MiB, length=64 * MiB) for k in range(4)]
    found = findings(tmp_path, "traced", dxt={"POSIX": segs}, **kw)
    assert "slow-ost" in found and found["slow-ost"].hit.numbers["slow_osts"] == 1


def test_a_slow_majority_is_not_a_few_slow_osts(tmp_path):
    """Half the OSTs slow is a slow file system (or job), not a slow target."""
    kw = per_process(12.0)
    for r, p in enumerate(kw["POSIX"]):
        if r % NOSTS < NOSTS // 2:
            p["counters"]["POSIX_F_WRITE_TIME"] = 546.0
    assert "slow-ost" not in findings(tmp_path, "majority", **kw)


# ------------------------------------------------------------------ conflicts
SHARED = "/scratch/shared.dat"


def writer(rank, opens=1, syncs=0, close=(9.0, 9.5)):
    return rec(SHARED, rank, POSIX_OPENS=opens, POSIX_WRITES=1, POSIX_BYTES_WRITTEN=MiB,
               POSIX_MAX_BYTE_WRITTEN=2 * MiB, POSIX_FSYNCS=syncs,
               POSIX_F_CLOSE_START_TIMESTAMP=close[0], POSIX_F_CLOSE_END_TIMESTAMP=close[1])


def two_writers(offset1, t0=(1.0, 1.5), t1=(1.2, 1.7), **rank0):
    return dict(nprocs=2, run_time=10, POSIX=[writer(0, **rank0), writer(1)],
                dxt={"POSIX": [seg(SHARED, 0, "write", *t0, offset=0, length=MiB),
                               seg(SHARED, 1, "write", *t1, offset=offset1, length=MiB)]})


def test_concurrent_overlapping_writes_conflict(tmp_path):
    found = findings(tmp_path, "race", **two_writers(MiB // 2))
    assert "conflicting-writes" in found, sorted(found)
    f = found["conflicting-writes"]
    assert f.severity == "critical" and f.hit.files == [SHARED] and f.hit.ranks == [0, 1]
    assert f.hit.numbers["bytes"] == MiB // 2


def test_disjoint_ranges_do_not_conflict(tmp_path):
    assert "conflicting-writes" not in findings(tmp_path, "disjoint", **two_writers(MiB))


def test_sequential_overwrite_without_close_conflicts(tmp_path):
    """Rank 0 writes at 1 s and closes at 9 s; rank 1 overwrites at 3 s."""
    found = findings(tmp_path, "late", **two_writers(0, t0=(1.0, 1.5), t1=(3.0, 3.5)))
    assert found["conflicting-writes"].severity == "warning"


def test_close_between_orders_the_writes(tmp_path):
    """Rank 0 closed at 2 s, before rank 1's overwrite at 3 s: ordered, silent."""
    kw = two_writers(0, t0=(1.0, 1.5), t1=(3.0, 3.5), close=(2.0, 2.1))
    assert "conflicting-writes" not in findings(tmp_path, "closed", **kw)


def test_a_sync_orders_the_writes(tmp_path):
    kw = two_writers(0, t0=(1.0, 1.5), t1=(3.0, 3.5), syncs=1)
    assert "conflicting-writes" not in findings(tmp_path, "synced", **kw)


@pytest.mark.parametrize("posix", [True, False])
def test_big_trace_streams_in_windows(tmp_path, posix):
    """A budget far below the trace forces offset windows (of the POSIX written
    extent, or without POSIX records of the trace's); each conflicting pair is
    still counted once."""
    segs = []
    for k in range(200):          # ranks 0 and 1 each write 200 blocks; block 150 twice
        segs.append(seg(SHARED, 0, "write", 1 + k * 0.01, 1.005 + k * 0.01, offset=k * MiB))
        off = 150 * MiB if k == 150 else (200 + k) * MiB
        segs.append(seg(SHARED, 1, "write", 1 + k * 0.01, 1.005 + k * 0.01, offset=off))
    records = [rec(SHARED, r, POSIX_OPENS=1, POSIX_WRITES=200, POSIX_BYTES_WRITTEN=200 * MiB,
                 POSIX_MAX_BYTE_WRITTEN=400 * MiB - 1, POSIX_F_CLOSE_START_TIMESTAMP=9.0,
                 POSIX_F_CLOSE_END_TIMESTAMP=9.1) for r in (0, 1)]
    th = load_thresholds()
    th["conflict"]["budget_segments"] = 50
    kw = {"POSIX": records} if posix else {}
    path = build(str(tmp_path / "big.darshan"), nprocs=2, run_time=10, dxt={"POSIX": segs}, **kw)
    found = {f.rule.id: f for f in diagnose(path, th).findings}
    f = found["conflicting-writes"]
    assert f.hit.numbers["pairs"] == 1 and f.hit.numbers["bytes"] == MiB


@pytest.mark.parametrize("mpiio", [True, False])
def test_files_written_through_mpiio_are_not_judged(tmp_path, mpiio):
    kw = two_writers(MiB // 2)
    if mpiio:
        kw["MPI_IO"] = [rec(SHARED, -1, MPIIO_INDEP_WRITES=2, MPIIO_BYTES_WRITTEN=2 * MiB)]
    assert ("conflicting-writes" in findings(tmp_path, "mpi", **kw)) is not mpiio


def test_report_shows_time_per_ost_beside_bytes(tmp_path):
    """Equal bytes per OST, one OST's files far slower: the report's time-per-OST
    figure sits next to the data-per-OST one, and the OST table has the seconds."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from report_helpers import page_facts
    import iolens
    from iolens.report import render_html
    path = build(str(tmp_path / "slow.darshan"), **per_process(546.0))
    with iolens.open(path) as log:
        page = render_html(log)
    ids, values = page_facts(page)
    assert {"fig-ost-spread", "fig-ost-time", "ost-table"} <= ids
    assert page.index('id="fig-ost-spread"') < page.index('id="fig-ost-time"')
    byte_values = {float(values[f"ost.{o}.bytes"]) for o in range(NOSTS)}
    assert byte_values == {512.0 * MiB}
    assert float(values[f"ost.{SLOW}.write_time"]) == pytest.approx(2 * 546.0)
    assert all(float(values[f"ost.{o}.write_time"]) < 30 for o in range(NOSTS) if o != SLOW)


def test_drishti_finds_neither(tmp_path):
    """docs/diagnosis.md's Drishti 0.8 comparison: on the slow-OST log and a
    conflicting-writes trace Drishti reports only job descriptions (its DXT
    insights on); we report the slow OST and the conflict."""
    from drishti_compare import drishti_bin, drishti_codes
    if not drishti_bin():
        pytest.skip("drishti (drishti-io==0.8) not installed")
    for name, kw, rule in (("slow", per_process(546.0), "slow-ost"),
                           ("conflict", two_writers(MiB // 2), "conflicting-writes")):
        assert rule in findings(tmp_path, name, **kw)
        codes = drishti_codes(str(tmp_path / f"{name}.darshan"))
        assert codes <= {"M01", "P01", "P02", "P03", "P04", "P14"}, codes


@pytest.mark.parametrize("stray", [True, False])
def test_four_processes_one_stray_write(tmp_path, stray):
    """4 processes each write their own MiB of a shared file; rank 3 also writes
    a 4 KiB piece into rank 1's MiB (stray) or into its own (not)."""
    segs = [seg(SHARED, r, "write", 1 + r * 0.1, 1.05 + r * 0.1, offset=r * MiB)
            for r in range(4)]
    segs.append(seg(SHARED, 3, "write", 2.0, 2.01, offset=(1 if stray else 3) * MiB + 4096,
                    length=4096))
    found = findings(tmp_path, "four", nprocs=4, run_time=10, dxt={"POSIX": segs},
                     POSIX=[writer(r) for r in range(4)])
    assert ("conflicting-writes" in found) is stray
    if stray:
        hit = found["conflicting-writes"].hit
        assert hit.ranks == [1, 3] and hit.numbers["bytes"] == 4096
