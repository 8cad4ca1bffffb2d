"""The report's DXT figures (heat map, per-thread activity and its table) are
streamed over the trace in chunks (report.trace_sums, with the view's chunk
iterator), so peak memory does not grow with the number of segments:

- on small traces they equal the whole-trace computation the report used
  before (written out here from the view's whole-trace frame, ``JobView.dxt``),
  in one chunk exactly and in chunks of a few segments to rounding;
- a report of a trace of a few million segments (written with our writer)
  peaks well below what loading the whole trace takes (resource.getrusage in
  a subprocess)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

iolens = pytest.importorskip("iolens")
from iolens.report import activity  # noqa: E402
from iolens.report.source import ReportData  # noqa: E402
from iolens.report.trace_sums import spread_pass, trace_sums  # noqa: E402
from iolens.view.intervals import spread  # noqa: E402
from report_helpers import corpus_logs, traced_dd  # noqa: E402
from view_logs import MiB, Segments, posix_row, write_log  # noqa: E402



# ------------------------------------------------ the whole-trace computation
def whole_bins(seg, data):
    span = max(float(seg["end"].max()), data.run_time, 1e-9)
    width = activity.bin_width(span)
    return width, max(int(np.ceil(span / width)), 1)


def whole_heatmap(data, module):
    seg = data.view.dxt(module)
    if seg is None or not len(seg):
        return None
    width, nbins = whole_bins(seg, data)
    ranks, idx = np.unique(seg["rank"].to_numpy(), return_inverse=True)
    mats = [spread(idx[m], seg["start"].to_numpy()[m], seg["end"].to_numpy()[m],
                   seg["length"].to_numpy()[m], width, nbins, len(ranks))
            for m in ((seg["op"] == op).to_numpy() for op in ("read", "write"))]
    return width, mats[0], mats[1], ranks


def whole_threads(data, module):
    seg = data.view.dxt(module)
    if seg is None or "thread_id" not in seg or not len(seg):
        return None
    g = seg.assign(busy=seg["end"] - seg["start"]).groupby(["rank", "thread"], sort=True)
    return g.agg(ops=("length", "size"), bytes=("length", "sum"), first=("start", "min"),
                 last=("end", "max"), busy=("busy", "sum")).reset_index()


def whole_thread_bins(data, module):
    seg = data.view.dxt(module)
    if seg is None or "thread_id" not in seg or not len(seg):
        return None
    width, nbins = whole_bins(seg, data)
    lanes = seg[["rank", "thread"]].astype("int64").drop_duplicates().sort_values(
        ["rank", "thread"])
    lane_of = {k: i for i, k in enumerate(lanes.itertuples(index=False, name=None))}
    rows = np.array([lane_of[k] for k in zip(seg["rank"].tolist(),
                                             seg["thread"].astype("int64").tolist())])
    return width, spread(rows, seg["start"].to_numpy(), seg["end"].to_numpy(),
                         seg["length"].to_numpy(), width, nbins, len(lanes))


# ------------------------------------------------ sources
def synthetic(path):
    """Four ranks on two files, reads and writes of different lengths and
    durations, a damaged segment (set aside by both computations)."""
    seg = Segments()
    for k in range(40):
        start = 0.37 * k
        seg.add(f"/lus/run/f{k % 2}", k % 4, "read" if k % 3 else "write", k * MiB,
                (k % 5 + 1) * MiB, start, start + 0.05 * (k % 7))
    seg.add("/lus/run/f1", 2, "read", 0, MiB, float("nan"), 1.0)
    posix = [("/lus/run/f0", 0, posix_row(reads=2, writes=2, read_bytes=MiB, written=MiB))]
    return write_log(path, nprocs=4, run_time=20, posix=posix, dxt_posix=seg)


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("traces")
    out = {"synthetic": synthetic(tmp / "synthetic.darshan")}
    made = traced_dd(tmp, block=4096, DXT_THREAD_IDS="1")   # a trace with thread ids
    if made is not None:
        out["threads"] = made
    for p in corpus_logs():
        if "dxt" in p.parts[-2] and len(out) < 6:
            out[p.parts[-2]] = p
    return out


def each(traces, need_threads=False):
    if need_threads and "threads" not in traces:
        pytest.skip("no trace with thread ids (the runtime is not built)")
    for name, path in traces.items():
        with iolens.open(path) as log:
            yield name, ReportData(log)


# ------------------------------------------------ tests
def test_streamed_heat_map_equals_whole_trace(traces):
    for name, data in each(traces):
        got = activity.dxt_heatmap(data)
        for module in ("DXT_POSIX", "DXT_MPIIO"):
            want = whole_heatmap(data, module)
            api = "POSIX" if module == "DXT_POSIX" else "MPI-IO"
            assert (api in got) == (want is not None), (name, module)
            if want is not None:
                width, read, write, ranks = got[api]
                assert width == want[0], name
                assert np.array_equal(read, want[1]) and np.array_equal(write, want[2]), name
                assert np.array_equal(ranks, want[3]), name


def test_streamed_thread_figures_equal_whole_trace(traces):
    for name, data in each(traces, need_threads=True):
        table = activity.dxt_threads(data)
        for module in ("DXT_POSIX", "DXT_MPIIO"):
            want = whole_threads(data, module)
            bins = activity.dxt_thread_bins(data, module)
            if want is None:
                assert bins is None, (name, module)
                continue
            mine = table[table["module"] == ("POSIX" if module == "DXT_POSIX" else "MPI-IO")]
            pd.testing.assert_frame_equal(mine.drop(columns="module").reset_index(drop=True),
                                          want, check_dtype=False)
            width, mat = whole_thread_bins(data, module)
            assert bins[0] == width and np.array_equal(bins[1], mat), name
            assert bins[2] == [f"rank {r} thread {t}" for r, t in
                               zip(want["rank"].tolist(), want["thread"].tolist())]


def test_small_chunks_give_the_same_figures(traces):
    """Chunks of 7 segments: the sums folded across chunks equal the whole
    trace's (to rounding: partial sums are added in another order)."""
    for name, data in each(traces):
        one, small = trace_sums(data), trace_sums(data, size=7)
        for module, sums in one.items():
            tiny = small[module]
            assert (tiny.segments, tiny.last_end) == (sums.segments, sums.last_end), name
            assert np.array_equal(tiny.ranks, sums.ranks), name
            if sums.lanes is not None:
                pd.testing.assert_frame_equal(tiny.lanes, sums.lanes, check_dtype=False)
            if not sums.segments:
                continue
            width, nbins = whole_bins(data.view.dxt(module), data)
            for a, b in zip(spread_pass(data, module, sums, width, nbins),
                            spread_pass(data, module, tiny, width, nbins, size=7)):
                assert (a is None and b is None) or np.allclose(a, b, rtol=1e-12), name


# ------------------------------------------------ memory
def flat_trace(path: Path, nseg: int, nprocs: int = 64, files: int = 4) -> Path:
    """`nseg` segments over nprocs ranks x files records in a 600 s run, written
    with our writer from numpy columns (no per-segment Python)."""
    from iolens._meta import record_id
    from iolens.write import Writer
    names = [f"/lus/big/f{k}" for k in range(files)]
    recs = [(n, r) for r in range(nprocs) for n in names]
    per = nseg // len(recs)
    n = per * len(recs)
    start = np.sort(np.random.default_rng(1).random(n)) * 599.0
    with Writer(str(path)) as w:
        w.set_job(nprocs=nprocs, start_time_sec=1000, end_time_sec=1600, exe="flat")
        w.add_names([record_id(x) for x in names], names)
        w.put_dxt("DXT_POSIX", [record_id(x) for x, _ in recs], [r for _, r in recs],
                  ["node0"] * len(recs), [per // 2] * len(recs), [per - per // 2] * len(recs),
                  np.arange(n, dtype=np.int64) % 4096 * (1 << 16),
                  np.full(n, 1 << 16, np.int64), start, start + 0.01)
    return path


# The child's peak resident size: VmHWM, which exec resets.  getrusage's
# ru_maxrss is not used: a child forked from pytest keeps pytest's larger peak.
PEAK_CHILD = r"""
import sys
import iolens
from iolens.report import activity
from iolens.report.source import ReportData
with iolens.open(sys.argv[1]) as log:
    if sys.argv[2] == "whole":
        log.dxt("POSIX")
    else:
        data = ReportData(log)
        heat = activity.dxt_heatmap(data)["POSIX"]
        assert heat[1].sum() + heat[2].sum() > 0
        activity.dxt_threads(data)
with open("/proc/self/status") as f:
    print(next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024)
"""


def peak_mib(path: Path, what: str) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK_CHILD, str(path), what],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return float(out.stdout.split()[-1])


def test_report_dxt_figures_memory_does_not_grow_with_the_trace(tmp_path):
    """3 M segments: the report's DXT figures (view build included) peak within
    60 MiB of those of 300 K segments, and below loading the whole trace
    (measured: ~200 MiB against ~350 MiB; the figures before streaming peaked at
    ~510 MiB, since they built the whole-trace frame)."""
    small = flat_trace(tmp_path / "small.darshan", 300_000)
    big = flat_trace(tmp_path / "big.darshan", 3_000_000)
    peaks = {"small": peak_mib(small, "figures"), "big": peak_mib(big, "figures"),
             "whole": peak_mib(big, "whole")}
    big.unlink()                                      # ~40 MB: not left for pytest's tmp
    assert peaks["big"] < peaks["small"] + 60, peaks
    assert peaks["big"] < peaks["whole"] - 60, peaks
