#!/usr/bin/env python3
"""What thread ids in DXT traces cost (DXT_THREAD_IDS=1, docs/dxt.md), on top of
tracing without them; by hand, not part of the tests.

  - extra instructions per traced call (callgrind, --cg-n calls of each operation of
    opbench.c, every segment within the budget): tracing with thread ids minus
    tracing without;
  - log bytes per traced operation with and without thread ids (--dxt-n pwrites);
  - --pairs alternating runs of --n pwrites alone, thread ids off then on: medians
    of the paired wall and thread-CPU differences per call;
  - tracing under contention (--scale-threads, e.g. 1,2,4,8; DXT on, thread ids
    off): threadbench.c's T threads each making --scale-n pwrites of 1 byte to a
    file of its own, run plain, under --runtime and under each --also NAME=LIB
    (another build, e.g. the one before a change), interleaved in each of
    --scale-runs rounds; medians of operations per second (all threads' calls /
    wall time) and of CPU time per call (user + system, all threads).  The budget
    holds every segment, so no run drops any.  --scale-only skips the rest.

usage: dxt_threads.py [--runtime LIB] [--cg-n 20000] [--dxt-n 100000] [--n 1000000]
                      [--pairs 15] [--scale-threads 1,2,4,8] [--scale-n 200000]
                      [--scale-runs 7] [--also NAME=LIB]... [--scale-only]
"""
import argparse
import os
import resource
import shutil
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


def scale_run(tb, work, threads, n, runtime, kib):
    """(operations per second, CPU ns per call) of one threadbench run with DXT on
    (runtime None: plain)."""
    d = Path(tempfile.mkdtemp(prefix="scale-", dir=work))
    env = bench.env_for(runtime, d, kib if runtime else None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([str(tb), str(d), str(threads), str(n), "pwrite"], env=env,
                         capture_output=True, text=True, check=True, timeout=900).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(d)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    wall_ns_per_call = float(out.split(":")[1].split()[0])    # wall time / n
    return threads * 1e9 / wall_ns_per_call, cpu * 1e9 / (threads * n)


def scale(args, work):
    med = statistics.median
    tb = work / "threadbench"
    subprocess.run(["cc", "-O2", "-pthread", "-o", str(tb), str(bench.HERE / "threadbench.c")],
                   check=True)
    threads = [int(t) for t in args.scale_threads.split(",")]
    libs = [("plain", None), ("iolens", args.runtime)]
    libs += [tuple(a.split("=", 1)) for a in args.also]
    # per thread one file: its first pwrite plus n, one lane each
    kib = {t: bench.dxt_budget_kib([args.scale_n + 1] * t) + t for t in threads}
    ops = {(name, t): [] for name, _ in libs for t in threads}
    cpu = {(name, t): [] for name, _ in libs for t in threads}
    for _ in range(args.scale_runs):
        for t in threads:
            for name, lib in libs:
                o, c = scale_run(tb, work, t, args.scale_n, lib, kib[t])
                ops[(name, t)].append(o)
                cpu[(name, t)].append(c)
    print(f"\nDXT on, {args.scale_runs} interleaved rounds of {args.scale_n} pwrites of 1 byte "
          f"per thread, each thread its own file; medians; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end\n")
    names = [name for name, _ in libs]
    print("| threads | " + " | ".join(f"{n} ops/s" for n in names) + " | "
          + " | ".join(f"{n} CPU ns/call" for n in names) + " |")
    print("|---:|" + "---:|" * (2 * len(names)))
    for t in threads:
        row = [f"{med(ops[(n, t)]):,.0f}" for n in names]
        row += [f"{med(cpu[(n, t)]):.0f}" for n in names]
        print(f"| {t} | " + " | ".join(row) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get(
        "IOLENS_RUNTIME", bench.REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--cg-n", type=int, default=20_000)
    ap.add_argument("--dxt-n", type=int, default=100_000)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--scale-threads", default="")
    ap.add_argument("--scale-n", type=int, default=200_000)
    ap.add_argument("--scale-runs", type=int, default=7)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=LIB")
    ap.add_argument("--scale-only", action="store_true")
    args = ap.parse_args()
    med = statistics.median
    with tempfile.TemporaryDirectory(prefix="iolens-bench-") as tmp:
        work = Path(tmp)
        if args.scale_threads:
            scale(args, work)
        if args.scale_only:
            return
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
