"""`iolens fleet report`: a self-contained page with every named query and the
per-application history, the latest run flagged when it is out of range."""
from __future__ import annotations

import re

import numpy as np

import iolens
from iolens.fleet.dashboard import history
from iolens.fleet.named import NAMED
from iolens.fleet.query import connect
from fleet_helpers import fleet


def write_run(path, start, io_time, app):
    info = iolens.module_info("POSIX")
    ints = np.zeros((1, len(info.counters)), np.int64)
    flts = np.zeros((1, len(info.fcounters)), np.float64)
    ints[0, info.counters.index("POSIX_BYTES_READ")] = 1 << 20
    # one 1 MiB read, consistently recorded (the view sets inconsistent records aside)
    ints[0, info.counters.index("POSIX_READS")] = 1
    ints[0, info.counters.index("POSIX_SIZE_READ_1M_4M")] = 1
    ints[0, info.counters.index("POSIX_MAX_BYTE_READ")] = (1 << 20) - 1
    flts[0, info.fcounters.index("POSIX_F_READ_TIME")] = io_time
    name = f"/lus/scratch/{app}/{start}.dat"
    with iolens.Writer(str(path)) as w:
        w.set_job(uid=7, start_time_sec=start, end_time_sec=start + 100, nprocs=1, jobid=start,
                  exe=f"/apps/{app} -x", mounts=[("/lus/scratch", "lustre")])
        w.add_names([iolens.record_id(name)], [name])
        w.put_records("POSIX", [iolens.record_id(name)], [0], ints, flts)


def test_report_page(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    day = 86400
    # "steady": 6 runs within 10 %; "regressed": the same, then a run 5x slower.
    for i, t in enumerate([10, 11, 9.5, 10.5, 10.2, 9.8]):
        write_run(logs / f"steady{i}.darshan", 1_700_000_000 + i * day, t, "steady")
    for i, t in enumerate([20, 21, 19, 20.5, 20.2, 100]):
        write_run(logs / f"regressed{i}.darshan", 1_700_000_000 + i * day, t, "regressed")
    store = tmp_path / "store"
    fleet("ingest", logs, "--store", store, "-q", "-j", "1")
    with connect(str(store)) as con:
        hist, _ = history(con)
    flags = dict(zip(hist["app"], hist["outside"]))
    assert flags == {"steady": False, "regressed": True}

    out = tmp_path / "fleet.html"
    run = fleet("report", store, "-o", out)
    assert str(out) in run.stdout
    page = out.read_text()
    for name in NAMED:
        assert f"id='{name}'" in page
    assert "id='history'" in page and page.count("<svg") >= 4   # CDF, coverage, 2 histories
    assert "<td class='out'>True</td>" in page
    # Self-contained: nothing is fetched (no scripts, links, images or imports).
    assert not re.search(r"<(script|link|img|iframe)\b|@import|url\((?!#)", page)  # url(#id): in-page
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", page)
