"""Property test on mutated logs: whatever values a damaged log holds (ranks,
times, counts, DXT segments), the view's figures, the report's values and the
diagnosis hold no NaN, no infinity, no negative duration or byte count and no
rank outside the job."""
import json
import math

import numpy as np
import pytest

iolens = pytest.importorskip("iolens")
from iolens._meta import module_info  # noqa: E402
from iolens.diagnose.engine import diagnose_log  # noqa: E402
from iolens.diagnose.out_json import dumps  # noqa: E402
from iolens.report import render_html  # noqa: E402
from iolens.view import JobView  # noqa: E402
from report_helpers import page_facts  # noqa: E402
from view_logs import MiB, Segments, posix_row, write_log  # noqa: E402

NPROCS = 4
EVIL = [-2662.0, float("nan"), float("inf"), -float("inf"), 1e300, -7.0, 4.5e18]
EVIL_INT = [-5, -(1 << 62), 1 << 62, 4_500_000_000_000_000_000, 3]
POSIX = module_info("POSIX")


def mutated_log(path, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(6):
        row = posix_row(reads=4, writes=2, read_bytes=4 * MiB, written=2 * MiB,
                        read_time=1.0 + k, write_time=0.5,
                        POSIX_F_READ_START_TIMESTAMP=1.0, POSIX_F_READ_END_TIMESTAMP=2.0 + k)
        for _ in range(rng.integers(0, 3)):
            if rng.random() < 0.5:
                row[str(rng.choice(POSIX.fcounters))] = float(rng.choice(EVIL))
            else:
                row[str(rng.choice(POSIX.counters))] = int(rng.choice(EVIL_INT))
        rank = int(rng.choice([-1, 0, 1, 2, 3] + ([int(rng.choice(EVIL_INT))] if k == 5 else [])))
        rows.append((f"/lus/run/f{k}", rank, row))
    seg = Segments()
    for k in range(12):
        start = float(k) * 0.5
        seg.add("/lus/run/f0", k % NPROCS, "read" if k % 2 else "write", k * MiB, MiB,
                start, start + 0.25)
    for _ in range(3):                          # damaged segments
        seg.add("/lus/run/f1", 0, "read", int(rng.choice([-9, 0, 1 << 62])),
                int(rng.choice([-1, 10, 1 << 62])), float(rng.choice(EVIL[:4] + [1.0])),
                float(rng.choice(EVIL[:4] + [0.5])))
    return write_log(path, nprocs=NPROCS, run_time=20, posix=rows, dxt_posix=seg)


def finite_non_negative(values, where):
    for v in values:
        assert math.isfinite(v) and v >= 0, (where, v)


@pytest.mark.parametrize("seed", range(12))
def test_no_damaged_value_reaches_an_output(tmp_path, seed):
    path = mutated_log(tmp_path / f"m{seed}.darshan", seed)
    with iolens.open(path) as log:
        v = JobView(log)
        p = v.perf("POSIX")
        if p is not None:
            finite_non_negative([p.bytes_read, p.bytes_written, p.agg_time_by_slowest,
                                 p.agg_perf_by_slowest], "perf")
            assert 0 <= p.slowest_rank < NPROCS
        iv = v.intervals
        finite_non_negative([iv.busy_seconds, iv.bandwidth()], "intervals")
        finite_non_negative(iv.gaps()["seconds"], "gaps")
        finite_non_negative(iv.in_flight()[["read_bytes", "write_bytes"]].to_numpy().ravel(),
                            "in flight")
        finite_non_negative(v.job_bytes(), "job bytes")
        _, values = page_facts(render_html(log))
        diag = diagnose_log(log)
        diagnosis = json.loads(dumps(diag))
    # root causes: finite times, never more per process than its I/O time
    for lost, io in diag.lost_by_process.values():
        finite_non_negative([lost, io], "time lost per process")
        assert lost <= io * (1 + 1e-9) + 1e-9
    for g in diagnosis["groups"]:
        finite_non_negative([g["time_lost_seconds"]], f"group {g['root']}")
    for key, value in values.items():
        try:
            number = float(value)
        except ValueError:
            continue
        assert math.isfinite(number), (key, value)
        if key.endswith(("bytes", "bytes_read", "bytes_written", "time", "seconds",
                         "agg_time_by_slowest", "agg_perf_by_slowest")):
            assert number >= 0, (key, value)
    for f in diagnosis["findings"]:
        finite_non_negative([f["time_lost_seconds"]] + list(f["numbers"].values()), f["rule"])
        if f["projection"]:
            finite_non_negative([f["projection"]["seconds"]], f"{f['rule']} at scale")
        assert all(0 <= r < NPROCS for r in f["ranks"]), f
