#!/usr/bin/env python3
"""What thread ids in DXT traces cost (DXT_THREAD_IDS=1, docs/dxt.md), on top of
tracing without them; by hand, not part of the tests.

  - extra instructions per traced call (callgrind, --cg-n calls of each operation of
    opbench.c, every segment within the budget): tracing with thread ids minus
    tracing without;
  - log bytes per traced operation with and without thread ids (--dxt-n pwrites);
  - --pairs alternating runs of --n pwrites alone, thread ids off then on: medians
    of the paired wall and thread-CPU differences per call.

usage: dxt_threads.py [--runtime LIB] [--cg-n 20000] [--dxt-n 100000] [--n 1000000]
                      [--pairs 15]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import bench

ON = {"DXT_THREAD_IDS": "1"}


def with_threads(on, fn, *a):
    bench.TRACE_ENV.clear()
    if on:
        bench.TRACE_ENV.update(ON)
    try:
        return fn(*a)
    finally:
        bench.TRACE_ENV.clear()


def pwrite_run(exe, work, n, runtime, kib, threads):
    d = Path(tempfile.mkdtemp(prefix="pair-", dir=work))
    env = with_threads(threads, bench.env_for, runtime, d, kib)
    out = subprocess.run([str(exe), str(d), str(n), "only", "pwrite_1B"], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    for f in d.iterdir():
        f.unlink()
    d.rmdir()
    return float(out[1]), float(out[2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get(
        "IOLENS_RUNTIME", bench.REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--cg-n", type=int, default=20_000)
    ap.add_argument("--dxt-n", type=int, default=100_000)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--pairs", type=int, default=15)
    args = ap.parse_args()
    med = statistics.median
    with tempfile.TemporaryDirectory(prefix="iolens-bench-") as tmp:
        work = Path(tmp)
        exe = work / "opbench"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(bench.HERE / "opbench.c")], check=True)
        kib = bench.run_budget_kib(args.cg_n)
        cg_off = with_threads(False, bench.callgrind, exe, work, args.cg_n, args.runtime, kib, "off")
        cg_on = with_threads(True, bench.callgrind, exe, work, args.cg_n, args.runtime, kib, "on")
        print(f"| operation | extra instructions per traced call with thread ids "
              f"({args.cg_n} calls, callgrind) |")
        print("|---|---:|")
        for op in bench.TRACED:
            print(f"| {op} | {cg_on[op] - cg_off[op]:+.1f} |")
        k = bench.run_budget_kib(args.dxt_n, ["pwrite_1B"])
        sizes = {}
        for on in (False, True):
            runs = [with_threads(on, bench.log_size, exe, work, args.dxt_n, "pwrite_1B",
                                 args.runtime, k) for _ in range(3)]
            sizes[on] = (med([r[0] for r in runs]), runs[0][2])
        off_log = med([bench.log_size(exe, work, args.dxt_n, "pwrite_1B", args.runtime, None)[0]
                       for _ in range(3)])
        for on, (size, segs) in sizes.items():
            print(f"log bytes per traced pwrite, thread ids {'on' if on else 'off'}: "
                  f"{(size - off_log) / segs:.2f} ({segs} segments, raw {40 if on else 32})")
        if args.pairs:
            k = bench.run_budget_kib(args.n, ["pwrite_1B"])
            dw, dc = [], []
            for _ in range(args.pairs):
                a = pwrite_run(exe, work, args.n, args.runtime, k, False)
                b = pwrite_run(exe, work, args.n, args.runtime, k, True)
                dw.append(b[0] - a[0])
                dc.append(b[1] - a[1])
            print(f"pwrite, {args.pairs} alternating runs of {args.n}: median paired difference "
                  f"wall {med(dw):+.1f} ns, thread-CPU {med(dc):+.1f} ns per call")


if __name__ == "__main__":
    main()
