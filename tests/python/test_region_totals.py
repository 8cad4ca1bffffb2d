"""Region totals are computed once (iolens.region_frame.region_runs and
region_layer_sums) and read by the report's per-phase table, `iolens diff` and the
diagnosis by region: each must show the same figures for a log of known regions,
including two records that share a region and a rank (processes that each were
rank 0, merged), which are two sets of runs, not one."""
import numpy as np
import pytest

iolens = pytest.importorskip("iolens")
from iolens.region_frame import region_layer_sums, region_runs  # noqa: E402

# (region, rank, count, total_time, max_time, POSIX bytes read, POSIX data ops,
#  STDIO bytes written)
RECORDS = [("load", 0, 2, 3.0, 2.0, 100, 2, 0),
           ("load", 1, 1, 1.5, 1.5, 50, 1, 0),
           ("save", 0, 1, 0.5, 0.5, 0, 0, 70),
           ("save", 0, 3, 0.25, 0.125, 0, 0, 30)]


@pytest.fixture
def log(tmp_path):
    info = iolens.module_info("REGION")
    c = np.zeros((len(RECORDS), len(info.counters)), np.int64)
    f = np.zeros((len(RECORDS), len(info.fcounters)))
    col = info.counters.index
    fcol = info.fcounters.index
    for i, (_, _, count, total, longest, rd, ops, wr) in enumerate(RECORDS):
        c[i, col("REGION_COUNT")] = count
        c[i, col("REGION_POSIX_BYTES_READ")] = rd
        c[i, col("REGION_POSIX_DATA_OPS")] = ops
        c[i, col("REGION_STDIO_BYTES_WRITTEN")] = wr
        c[i, col("REGION_STDIO_DATA_OPS")] = 1 if wr else 0
        f[i, fcol("REGION_F_TOTAL_TIME")] = total
        f[i, fcol("REGION_F_MAX_TIME")] = longest
        f[i, fcol("REGION_F_START_TIMESTAMP")] = 1.0
        f[i, fcol("REGION_F_END_TIMESTAMP")] = 1.0 + total
    ids = np.array([iolens.record_id(r[0]) for r in RECORDS], np.uint64)
    path = tmp_path / "regions.darshan"
    with iolens.Writer(path) as w:
        w.set_job(nprocs=2, jobid=7, end_time_sec=10, exe="/bin/phases")
        names = {iolens.record_id(r[0]): r[0] for r in RECORDS}
        w.add_names(np.array(list(names), np.uint64), list(names.values()))
        w.put_records("REGION", ids, np.array([r[1] for r in RECORDS]), c, f)
    return path


def expected():
    out = {}
    for name, _, count, total, longest, rd, ops, wr in RECORDS:
        e = out.setdefault(name, dict(count=0, total_time=0.0, max_time=0.0, read=0, ops=0, wr=0))
        e["count"] += count
        e["total_time"] += total
        e["max_time"] = max(e["max_time"], longest)
        e["read"] += rd
        e["ops"] += ops
        e["wr"] += wr
    return out


def test_the_one_computation(log):
    with iolens.open(log) as lg:
        frame = lg.regions()
    assert len(frame[frame.layer == "POSIX"]) == len(RECORDS)   # both "save" records read
    runs, sums = region_runs(frame), region_layer_sums(frame)
    for name, e in expected().items():
        assert runs.loc[name, "count"] == e["count"]
        assert runs.loc[name, "total_time"] == pytest.approx(e["total_time"])
        assert runs.loc[name, "max_time"] == pytest.approx(e["max_time"])
        assert sums.loc[(name, "POSIX"), "bytes_read"] == e["read"]
        assert sums.loc[(name, "POSIX"), "data_ops"] == e["ops"]
        assert sums.loc[(name, "STDIO"), "bytes_written"] == e["wr"]


def test_report_diff_and_diagnosis_agree(log):
    from iolens.diff_regions import region_summary
    from iolens.report.phases import breakdown
    from iolens.report.source import ReportData
    from iolens.report.tables import seconds
    want = expected()
    with iolens.open(log) as lg:
        table = breakdown(ReportData(lg))
        summary = region_summary(lg)
    rows = {(r[0], r[4]): r for r in table.rows}
    for name, e in want.items():
        layer = "POSIX" if e["read"] else "STDIO"
        row = rows[(name, layer)]
        assert row[1] == e["count"] and row[2] == seconds(e["total_time"])
        assert row[3] == seconds(e["max_time"])
        assert row[5] == e["read"] and row[6] == e["wr"]
        s = summary[name]
        assert s["count"] == e["count"] and s["total_time"] == pytest.approx(e["total_time"])
        assert s["layers"][layer]["bytes_read"] == e["read"]
        assert s["layers"][layer]["bytes_written"] == e["wr"]
