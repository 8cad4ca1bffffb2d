#!/usr/bin/env python3
"""Added cost per ncmpi_put_vara_int_all of the MPI runtime (docs/performance.md,
## PnetCDF).  One process (an Open MPI singleton, no mpiexec):

* instructions: callgrind totals of N1 and N2 calls with and without the runtime
  preloaded; extra per call = ((rt(N2) - rt(N1)) - (plain(N2) - plain(N1))) / (N2 - N1),
  so start-up and shutdown cancel out;
* time: RUNS interleaved plain/runtime runs of TIME_N calls; medians of the
  program's own ns per call.

usage: bench/mpi/pnetcdf_bench.py [BUILD_DIR]   (default build/; takes 2-4 minutes)"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUILD = Path(sys.argv[1] if len(sys.argv) > 1 else HERE.parents[1] / "build").resolve()
RUNTIME = BUILD / "src" / "runtime" / "libiolens-mpi.so"
N1, N2, TIME_N, RUNS = 200, 1200, 20000, 5


def env(runtime, logdir):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "LD_PRELOAD"))}
    e.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
              "DARSHAN_LOGPATH": str(logdir)})
    if runtime:
        e["LD_PRELOAD"] = str(RUNTIME)
    return e


def instructions(exe, work, n, runtime):
    out = work / f"cg.{n}.{int(runtime)}"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe),
                    str(work / "b.nc"), str(n)], env=env(runtime, work), check=True,
                   capture_output=True, timeout=900)
    m = re.search(r"^totals:\s+(\d+)", out.read_text(), re.M)
    return int(m.group(1))


def ns_per_call(exe, work, runtime):
    r = subprocess.run([str(exe), str(work / "b.nc"), str(TIME_N)], env=env(runtime, work),
                       check=True, capture_output=True, text=True, timeout=600)
    return float(re.search(r"ns_per_call ([\d.]+)", r.stdout).group(1))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = work / "pnetcdf_cost"
        subprocess.run(["mpicc.openmpi", "-O2", "-o", str(exe), str(HERE / "pnetcdf_cost.c"),
                        "-lpnetcdf"], check=True)
        ir = {(n, rt): instructions(exe, work, n, rt) for n in (N1, N2) for rt in (False, True)}
        extra = ((ir[N2, True] - ir[N1, True]) - (ir[N2, False] - ir[N1, False])) / (N2 - N1)
        plain_per_call = (ir[N2, False] - ir[N1, False]) / (N2 - N1)
        print(f"instructions per call: plain {plain_per_call:.0f}, added by the runtime {extra:.0f}")
        times = {False: [], True: []}
        for _ in range(RUNS):
            for rt in (False, True):
                times[rt].append(ns_per_call(exe, work, rt))
        p, r = statistics.median(times[False]), statistics.median(times[True])
        print(f"ns per call (median of {RUNS}, {TIME_N} calls): plain {p:.0f}, "
              f"with runtime {r:.0f}, added {r - p:.0f} ({100 * (r - p) / p:.1f} %)")


if __name__ == "__main__":
    main()
