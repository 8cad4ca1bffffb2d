#!/usr/bin/env python3
"""Thread scaling of the runtime (by hand, not part of the tests).

threadbench.c runs T threads, each making N pwrite calls of 1 byte on its own
file.  For T = 1, 2, 4, 8 this runs it plain, under iolens (libiolens.so) and,
when it is installed, under upstream Darshan 3.5.0's libdarshan.so, interleaved
(plain, iolens, upstream, plain, ...) RUNS times, and prints the median
operations per second of each (all threads' calls / wall time) and the ratio to
plain.  Medians, because the machine is shared: compare columns of one run.

usage: threadscale.py [--runtime LIB] [--upstream LIB] [--also NAME=LIB]... [--runs 7]
                      [--n 200000] [--threads 1,2,4,8]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
UPSTREAM = Path("/opt/upstream-3.5.0/lib/libdarshan.so")


def env_for(lib, logdir):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_LOG", "LD_PRELOAD"))}
    if lib:
        env.update(LD_PRELOAD=str(lib), DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=str(logdir))
    return env


def ops_per_s(exe, work, threads, n, lib):
    """Operations per second of one run (threadbench prints ns per call per thread)."""
    with tempfile.TemporaryDirectory(dir=work) as d:
        out = subprocess.run([str(exe), d, str(threads), str(n)], env=env_for(lib, d),
                             capture_output=True, text=True, check=True, timeout=600).stdout
    wall_ns_per_call = float(out.split(":")[1].split()[0])    # wall time / N
    return threads * 1e9 / wall_ns_per_call                    # threads * N / wall time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get("IOLENS_RUNTIME",
                                                        REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--upstream", default=str(UPSTREAM) if UPSTREAM.exists() else "")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=LIB",
                    help="another runtime to compare, e.g. before=/tmp/old/libiolens.so")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--threads", default="1,2,4,8")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    libs = [("plain", None), ("iolens", args.runtime)]
    libs += [tuple(a.split("=", 1)) for a in args.also]
    if args.upstream:
        libs.append(("upstream", args.upstream))
    with tempfile.TemporaryDirectory(prefix="iolens-threads-") as tmp:
        work = Path(tmp)
        exe = work / "threadbench"
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(exe), str(HERE / "threadbench.c")],
                       check=True)
        res = {(name, t): [] for name, _ in libs for t in threads}
        for _ in range(args.runs):
            for t in threads:
                for name, lib in libs:
                    res[(name, t)].append(ops_per_s(exe, work, t, args.n, lib))
    med = {k: statistics.median(v) for k, v in res.items()}
    head = "| threads | " + " | ".join(f"{name} ops/s" for name, _ in libs)
    head += " | " + " | ".join(f"{name} / plain" for name, _ in libs[1:]) + " |"
    print(f"{args.runs} interleaved runs of {args.n} pwrite calls of 1 byte per thread; medians\n")
    print(head)
    print("|---:|" + "---:|" * (2 * len(libs) - 1))
    for t in threads:
        row = [f"{med[(name, t)]:,.0f}" for name, _ in libs]
        row += [f"{med[(name, t)] / med[('plain', t)]:.3f}" for name, _ in libs[1:]]
        print(f"| {t} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
