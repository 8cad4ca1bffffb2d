#!/usr/bin/env python3
"""The view's memory stays flat as the DXT trace grows (docs/performance.md).

    .venv/bin/python bench/bench_view.py [--segments N ...] [--workdir DIR]

For each N, writes a DXT_POSIX trace of N segments (64 records, random start
times over a 1000 s run) with iolens.Writer in one process, then in another builds
JobView and asks for its intervals, gaps, bytes in flight and per-OST sums,
printing wall time and peak RSS; the same for Log.dxt (the whole trace as one
frame) for comparison."""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import iolens
from iolens.write import Writer

RECORDS = 64
MEASURE = """
import resource, sys, time, iolens
from iolens.view import JobView
t = time.perf_counter()
with iolens.open(sys.argv[1]) as log:
    if sys.argv[2] == "view":
        v = JobView(log); iv = v.intervals; iv.gaps(); iv.in_flight(); v.ost
    else:
        log.dxt("POSIX")
print(f"{time.perf_counter() - t:.1f} s, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
"""


def write_trace(path: Path, n: int) -> None:
    names = [f"/lus/f{i}" for i in range(RECORDS)]
    ids = [iolens.record_id(x) for x in names]
    start = np.random.default_rng(1).uniform(0, 1000, n)
    with Writer(path) as w:
        w.set_job(nprocs=RECORDS, start_time_sec=0, end_time_sec=1000, exe="bench")
        w.add_names(ids, names)
        w.put_dxt("DXT_POSIX", ids, list(range(RECORDS)), ["h"] * RECORDS,
                  [n // RECORDS] * RECORDS, [0] * RECORDS, np.arange(n) * 4096,
                  np.full(n, 4096), start, start + 0.001)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, nargs="+", default=[4_000_000, 12_000_000])
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--write", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write:
        write_trace(Path(args.write[1]), int(args.write[0]))
        return
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for n in args.segments:
            n -= n % RECORDS
            log = Path(tmp) / f"trace{n}.darshan"
            # written by its own process: a child forked from a process that wrote
            # a large log inherits its peak RSS in ru_maxrss
            subprocess.run([sys.executable, __file__, "--write", str(n), str(log)], check=True)
            for what in ("view", "Log.dxt"):
                out = subprocess.run([sys.executable, "-c", MEASURE, str(log), what],
                                     capture_output=True, text=True, check=True).stdout
                print(f"{n:>12,} segments  {what:8} {out.strip()}")
            log.unlink()


if __name__ == "__main__":
    main()
