"""Damage is found once, when the view is built: each kind of damaged record or
DXT segment is set aside and counted, never reaches a figure, and the report
and the diagnosis say so (a notice; one damaged-log finding) with no NaN,
infinity or negative value in their output.  Upstream's -1 convention is not
damage."""
import json
import math
import re

import pytest

iolens = pytest.importorskip("iolens")
from iolens.diagnose.engine import diagnose_log  # noqa: E402
from iolens.diagnose.out_json import dumps as render_json  # noqa: E402
from iolens.report.page import render  # noqa: E402
from iolens.report.source import ReportData  # noqa: E402
from iolens.view import JobView  # noqa: E402
from view_logs import MiB, Segments, posix_row, write_log  # noqa: E402

GOOD = "/lus/run/good.dat"
BAD = "/lus/run/bad.dat"
GOOD_ROW = posix_row(reads=4, read_bytes=4 * MiB, read_time=2.0)

# kind -> (rank, POSIX counters of the damaged record)
RECORDS = {
    "rank": (4_500_000_000_000_000_000, posix_row(reads=1, read_bytes=MiB)),
    "bad-time": (0, posix_row(reads=1, read_bytes=MiB, read_time=-2662.0)),
    "after-run": (0, posix_row(reads=1, read_bytes=MiB, read_time=1e6)),
    "negative-count": (0, posix_row(reads=1, read_bytes=-5)),
    "bytes-no-ops": (1, posix_row(reads=0, read_bytes=MiB)),
    "one-access-extent": (0, posix_row(reads=1, read_bytes=4 * MiB,
                                       POSIX_MAX_BYTE_READ=MiB - 1)),
    "histogram": (0, posix_row(reads=3, read_bytes=MiB, POSIX_SIZE_READ_1K_10K=1)),
}


def damaged_log(tmp_path, kind):
    rank, row = RECORDS[kind]
    return write_log(tmp_path / f"{kind}.darshan", nprocs=4,
                     posix=[(GOOD, 0, GOOD_ROW), (BAD, rank, row)])


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_damaged_record_is_set_aside_and_counted(tmp_path, kind):
    with iolens.open(damaged_log(tmp_path, kind)) as log:
        v = JobView(log)
        assert v.damage.records["POSIX"].get(kind) == 1, v.damage.records
        assert v.damage.set_aside == {"POSIX": 1}
        assert list(v.records("POSIX")["name"]) == [GOOD]
        assert list(v.records("POSIX", columns=["POSIX_BYTES_READ"])["name"]) == [GOOD]
        perf = v.perf("POSIX")
        assert perf.bytes_read == 4 * MiB and perf.agg_time_by_slowest == 2.0
        assert v.job_bytes() == (4 * MiB, 0)


def test_not_monitored_is_not_damage(tmp_path):
    row = posix_row(reads=2, read_bytes=2 * MiB, read_time=1.0, POSIX_FASTEST_RANK=-1,
                    POSIX_F_CLOSE_START_TIMESTAMP=-1.0, POSIX_MAX_BYTE_WRITTEN=-1)
    path = write_log(tmp_path / "ok.darshan", posix=[(GOOD, -1, row)])
    with iolens.open(path) as log:
        v = JobView(log)
        assert not v.damage.any and len(v.records("POSIX")) == 1


SEGMENTS = {   # kind -> (offset, length, start, end)
    "bad-time": (0, 10, float("nan"), 1.0),
    "end-before-start": (0, 10, 2.0, 1.0),
    "after-run": (0, 10, 1.0, 1e9),
    "bad-offset": (-7, 10, 1.0, 1.5),
}


@pytest.mark.parametrize("kind", sorted(SEGMENTS))
def test_damaged_segment_is_set_aside_and_counted(tmp_path, kind):
    seg = Segments().add(GOOD, 0, "read", 0, MiB, 1.0, 2.0).add(GOOD, 0, "read",
                                                               *SEGMENTS[kind])
    path = write_log(tmp_path / f"s-{kind}.darshan", posix=[(GOOD, 0, GOOD_ROW)],
                     dxt_posix=seg)
    with iolens.open(path) as log:
        v = JobView(log)
        assert v.damage.segments["DXT_POSIX"].get(kind) == 1, v.damage.segments
        assert v.damage.set_aside == {"DXT_POSIX": 1}
        assert len(v.dxt("POSIX")) == 1
        assert v.intervals.operations == 1 and v.intervals.busy_seconds == pytest.approx(1.0)


def test_mpiio_offset_minus_one_is_not_damage(tmp_path):
    seg = Segments().add(GOOD, 0, "write", -1, 100, 1.0, 2.0)
    path = write_log(tmp_path / "m.darshan", dxt_mpiio=seg)
    with iolens.open(path) as log:
        assert not JobView(log).damage.any


def _numbers(text):
    return [float(x) for x in re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?", text)]


def every_kind_log(tmp_path):
    posix = [(GOOD, 0, GOOD_ROW)] + [(f"/lus/run/bad-{k}", r, row)
                                     for k, (r, row) in sorted(RECORDS.items())]
    seg = Segments().add(GOOD, 0, "read", 0, MiB, 1.0, 2.0)
    for k, s in sorted(SEGMENTS.items()):
        seg.add(GOOD, 0, "read", *s)
    return write_log(tmp_path / "all.darshan", nprocs=4, posix=posix, dxt_posix=seg)


def test_report_shows_a_notice_and_no_damaged_value(tmp_path):
    with iolens.open(every_kind_log(tmp_path)) as log:
        page = render(ReportData(log))
    notice = re.search(r'<section id="sec-damaged".*?</section>', page, re.S).group(0)
    assert "POSIX: 7 records set aside" in notice and "DXT_POSIX: 4 segments" in notice
    text = re.sub(r"<svg.*?</svg>", "", page, flags=re.S)    # figures: drawn from the same data
    text = re.sub(r"<[^>]+>", " ", text)
    assert not re.search(r"\b(nan|NaN|inf|Infinity)\b", text)
    assert "PiB" not in text and "2662" not in text and "-2" not in text


def test_diagnosis_gives_one_damaged_log_finding(tmp_path):
    with iolens.open(every_kind_log(tmp_path)) as log:
        d = diagnose_log(log)
    ids = [f.rule.id for f in d.findings]
    assert ids.count("damaged-log") == 1
    hit = next(f for f in d.findings if f.rule.id == "damaged-log")
    assert hit.hit.numbers["set_aside"] == 11
    out = json.loads(render_json(d))
    for f in out["findings"]:
        assert math.isfinite(f["time_lost_seconds"]) and f["time_lost_seconds"] >= 0
        for value in f["numbers"].values():
            assert math.isfinite(value) and value >= 0, f
    assert all(r in range(4) for f in out["findings"] for r in f["ranks"])
