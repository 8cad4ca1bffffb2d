"""The runtime's clock (docs/runtime.md, "clock"): where the kernel keeps time
with the TSC, calls are timed with rdtsc on a line fitted to CLOCK_MONOTONIC and
refined as the run goes on; otherwise (IOLENS_NO_TSC, or another clocksource)
with clock_gettime.  Either way a call's traced start and end must lie between
the program's own CLOCK_MONOTONIC readings just before and just after it, up to
one constant offset (the runtime counts from its init), over a run of seconds.

progs/clock_probe.c makes the calls and prints the program's readings; DXT gives
the runtime's reading of every call."""
import subprocess
from pathlib import Path

import pytest

import iolens
from rt_helpers import compile_prog, logs_in, run_under

N_OPS = 30
GAP_MS = 80          # ~2.4 s in all: the first line (~200 us) is refined ~13 times


def kernel_clocksource():
    p = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    return p.read_text().strip() if p.exists() else ""


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return compile_prog(tmp_path_factory, "clock_probe.c")


def run_probe(runtime, probe, tmp_path, env):
    data = tmp_path / "clock.dat"
    r = run_under(runtime, [probe, data, N_OPS, GAP_MS], tmp_path / "logs",
                  {"DXT_ENABLE_IO_TRACE": "1", **env})
    prog = [tuple(int(x) * 1e-9 for x in line.split()) for line in r.stdout.splitlines()]
    assert len(prog) == N_OPS
    (log,) = logs_in(tmp_path / "logs")
    with iolens.open(log) as lg:
        seg = lg.dxt("POSIX")
        seg = seg[seg["name"] == str(data)]
        traced = sorted(zip(seg["start"].tolist(), seg["end"].tolist()))
        posix = lg.records("POSIX")
    assert len(traced) == N_OPS, "every call is traced"
    return prog, traced, posix


def offset_window(prog, traced):
    """The offsets o for which every traced call lies within the program's
    bracket: before + o <= start <= end <= after + o.  Returns (lo, hi): such an
    o exists iff lo <= hi."""
    lo = max(end - after for (_, after), (_, end) in zip(prog, traced))
    hi = min(start - before for (before, _), (start, _) in zip(prog, traced))
    return lo, hi


def check_against_program(prog, traced, tolerance):
    for (s1, e1), (s2, _) in zip(traced, traced[1:]):
        assert s1 <= e1 <= s2, "times never go back"
    lo, hi = offset_window(prog, traced)
    assert lo <= hi + tolerance, (
        f"no single offset puts every call inside the program's readings: "
        f"off by {(lo - hi) * 1e6:.1f} us (tolerance {tolerance * 1e6:.0f} us)")
    # Elapsed time over the run, as the counters have it, against the program's.
    span_prog = prog[-1][1] - prog[0][0]
    span_traced = traced[-1][1] - traced[0][0]
    assert abs(span_traced - span_prog) <= span_prog * 1e-4 + tolerance, (span_traced, span_prog)


@pytest.mark.skipif(kernel_clocksource() != "tsc", reason="the kernel does not keep time with "
                    f"the TSC here (clocksource {kernel_clocksource() or 'unknown'}), so the "
                    "runtime uses clock_gettime (tested below)")
def test_tsc_clock_follows_monotonic(runtime, probe, tmp_path):
    prog, traced, _ = run_probe(runtime, probe, tmp_path, {})
    # Each refinement may leave a few tens of ns of offset; 20 us is far above
    # that and far below what a wrong slope (1e-4 over 2.4 s = 240 us) gives.
    check_against_program(prog, traced, 20e-6)


@pytest.mark.skipif(kernel_clocksource() != "tsc", reason="no TSC clock here")
def test_tsc_clock_without_heatmaps(runtime, probe, tmp_path):
    """With heat maps off the data path's line is refined only by other steps
    (here the open; docs/runtime.md): the first line's slope, measured over
    ~200 us, must still be good to a few parts in 10^4."""
    prog, traced, posix = run_probe(runtime, probe, tmp_path, {"DARSHAN_MOD_DISABLE": "HEATMAP"})
    check_against_program(prog, traced, 3e-4 * (prog[-1][1] - prog[0][0]) + 20e-6)


def test_clock_gettime_mode_is_exact(runtime, probe, tmp_path):
    prog, traced, _ = run_probe(runtime, probe, tmp_path, {"IOLENS_NO_TSC": "1"})
    # The runtime reads CLOCK_MONOTONIC itself: exact up to DXT's nanoseconds.
    check_against_program(prog, traced, 2e-9)
