"""A DXT segment at an offset that is not possible (docs/metrics.md, "Damage":
an end past 2^60 bytes, or an offset + length that would overflow int64) is set
aside as `bad-offset` by every verb: report, diagnose, the explorer summary,
export and fleet show exactly the figures of the same trace without it, and
their damage counts name it.

The traces are written with the project's writer (view_logs.write_log)."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest

iolens = pytest.importorskip("iolens")
from iolens.view import JobView  # noqa: E402
from iolens.view.damage import MAX_FILE_END, segment_checks  # noqa: E402
from report_helpers import page_facts  # noqa: E402
from view_logs import MiB, Segments, posix_row, write_log  # noqa: E402

# (offset, length) of segments a healthy runtime cannot write
NOT_POSSIBLE = {"2^62": (1 << 62, MiB),                     # past 1 EiB, no overflow
                "overflow": ((1 << 63) - 2, 4),             # offset + length > 2^63 - 1
                "huge-length": (MiB, 1 << 62)}


def trace_log(path, bad=None):
    """Two ranks reading and writing one Lustre file in the first 4 s of a 20 s
    run; `bad` adds one read at (offset, length) at 6-7 s, when nothing else runs,
    so any figure built on it (bytes, busy time, gaps, phases, extents) differs."""
    seg = Segments()
    for k in range(8):
        seg.add("/lus/run/f0", k % 2, "read" if k % 2 else "write", k * MiB, MiB,
                0.5 * k, 0.5 * k + 0.3)
    if bad is not None:
        seg.add("/lus/run/f0", 1, "read", bad[0], bad[1], 6.0, 7.0)
    posix = [("/lus/run/f0", k, posix_row(reads=2, writes=2, read_bytes=2 * MiB,
                                          written=2 * MiB, read_time=0.6, write_time=0.6))
             for k in range(2)]
    return write_log(path, nprocs=2, run_time=20, posix=posix, dxt_posix=seg)


def every_verb(path, tmp):
    """What each verb shows of the log at `path`: the report's page values and
    text, diagnose --json, the explorer summary, the exported Chrome JSON and
    fleet's rows."""
    from iolens.diagnose.engine import diagnose_log
    from iolens.diagnose.out_json import dumps
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    from iolens.export import chrome_json, model
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    from iolens.report import render_html
    with iolens.open(path) as log:
        page = render_html(log)
        idx = index_for(log, tmp / "cache")
        out = io.BytesIO()
        chrome_json.write(model.Export(log), out)
        shown = {"page": page, "report": page_facts(page)[1],
                 "diagnose": json.loads(dumps(diagnose_log(log))),
                 "summary": summary(log, idx), "export": json.loads(out.getvalue())}
    shown["fleet"] = extract(str(path), StorageClasses(), with_findings=False)
    return shown


def _without_damage(shown):
    """The figures of every verb, with what names the log file or its damage left out."""
    diagnose = [f for f in shown["diagnose"]["findings"] if f["rule"] != "damaged-log"]
    summary = {k: v for k, v in shown["summary"].items() if k not in ("damage", "findings")}
    summary["job"] = {k: v for k, v in summary["job"].items() if k != "log"}
    summary["findings"] = [f for f in shown["summary"]["findings"] if f["kind"] != "damaged-log"]
    export = dict(shown["export"])
    export["metadata"] = {k: v for k, v in export["metadata"].items() if k != "damage"}
    job = {k: v for k, v in shown["fleet"]["job"].items()
           if k != "damaged" and not k.startswith("log_")}
    files = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
             for k, v in shown["fleet"]["files"].items() if k not in ("log_key", "log_file")}
    return {"report": shown["report"], "diagnose": diagnose, "summary": summary,
            "export": export, "fleet job": job, "fleet files": files}


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("healthy")
    return _without_damage(every_verb(trace_log(tmp / "healthy.darshan"), tmp))


@pytest.mark.parametrize("kind", sorted(NOT_POSSIBLE))
def test_no_verb_builds_a_figure_on_an_impossible_offset(tmp_path, healthy, kind):
    path = trace_log(tmp_path / "bad.darshan", NOT_POSSIBLE[kind])
    with iolens.open(path) as log:
        assert JobView(log).damage.segments == {"DXT_POSIX": {"bad-offset": 1}}
    shown = every_verb(path, tmp_path)
    figures = _without_damage(shown)
    for verb in healthy:
        assert figures[verb] == healthy[verb], verb
    # ... and each verb's damage count names it
    assert "bad-offset 1" in shown["page"]
    damaged = [f for f in shown["diagnose"]["findings"] if f["rule"] == "damaged-log"]
    assert len(damaged) == 1 and "bad-offset" in json.dumps(damaged[0])
    assert shown["summary"]["damage"]["segments"] == {"DXT_POSIX": {"bad-offset": 1}}
    assert "bad-offset 1" in shown["export"]["metadata"]["damage"]
    assert shown["fleet"]["job"]["damaged"] == 1


def test_the_offset_bound():
    """Ends up to 2^60 bytes are possible, one byte more is not; MPI-IO's -1
    ("offset not known") is not damage, and no sum overflows."""
    top = MAX_FILE_END
    offset = np.array([top - MiB, top - MiB + 1, -1, -1, 0, (1 << 63) - 1], np.int64)
    length = np.array([MiB, MiB, MiB, top + 1, (1 << 63) - 1, 1], np.int64)
    n = len(offset)
    with np.errstate(over="raise"):
        bad, kinds = segment_checks(np.zeros(n), np.ones(n), offset, length, 10.0, mpiio=True)
    assert bad.tolist() == [False, True, False, True, True, True]
    assert kinds["bad-offset"] == 4
