#!/usr/bin/env python3
r"""Thread scaling of the runtime (by hand, not part of the tests).

threadbench.c runs T threads, each making N pwrite calls of 1 byte (or, with
--op lseek, N lseek calls; with --op fwrite, N fwrite calls of 1 byte on its own
buffered FILE*) on its own file.  For T = 1, 2, 4, 8 this runs it
plain, under iolens (libiolens.so) and, when it is installed, under upstream
Darshan 3.5.0's libdarshan.so, interleaved (plain, iolens, upstream, plain, ...)
RUNS times, and prints the median operations per second of each (all threads'
calls / wall time) and the ratio to plain, then the median CPU time per call
(user + system of all threads), which leaves out the time a thread waits for a
core on a loaded machine, and the ratio of the fastest runs (the run that load
disturbed least, for each library).  Medians, because the machine is shared:
compare columns of one run.  The files are on /dev/shm unless --dir says
otherwise.  --size sets the pwrite size (default 1 byte, the
worst case: the runtime's fixed cost against the cheapest write).

Comparing two builds of iolens (e.g. before and after a change):

    mkdir /tmp/before && git archive <commit> | tar -x -C /tmp/before
    cmake -S /tmp/before -B /tmp/before/build -DBUILD_TESTING=OFF
    cmake --build /tmp/before/build -j2 --target iolens-runtime
    bench/runtime/threadscale.py --runtime build/src/runtime/libiolens.so \
        --also before=/tmp/before/build/src/runtime/libiolens.so --n 500000 --runs 9

Every library named (plain, --runtime, each --also, --upstream) runs once per
round, in the same round, so load changes hit them alike.  On a shared machine
use --n 500000 or more and 9 or more runs, and quote the load average; the
target is "iolens / plain" >= 0.90 at every thread count.

usage: threadscale.py [--runtime LIB] [--upstream LIB] [--also NAME=LIB]... [--runs 7]
                      [--n 200000] [--threads 1,2,4,8] [--op pwrite|lseek|fwrite]
                      [--size BYTES]
"""
import argparse
import os
import resource
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


def ops_per_s(exe, work, threads, n, lib, op="pwrite", size=1):
    """Operations per second of one run (threadbench prints ns per call per thread),
    and the CPU time (user + system, all threads) per operation in ns."""
    with tempfile.TemporaryDirectory(dir=work) as d:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([str(exe), d, str(threads), str(n), op, str(size)], env=env_for(lib, d),
                             capture_output=True, text=True, check=True, timeout=600).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    wall_ns_per_call = float(out.split(":")[1].split()[0])    # wall time / N
    return threads * 1e9 / wall_ns_per_call, cpu * 1e9 / (threads * n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("usage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", default=os.environ.get("IOLENS_RUNTIME",
                                                        REPO / "build/src/runtime/libiolens.so"),
                    help="the runtime measured as 'iolens' (default: $IOLENS_RUNTIME, "
                         "else build/src/runtime/libiolens.so)")
    ap.add_argument("--upstream", default=str(UPSTREAM) if UPSTREAM.exists() else "",
                    help=f"upstream Darshan's libdarshan.so, '' to leave it out "
                         f"(default: {UPSTREAM} when it exists)")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=LIB",
                    help="another runtime measured in the same rounds, e.g. "
                         "before=/tmp/before/build/src/runtime/libiolens.so (repeatable)")
    ap.add_argument("--runs", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--n", type=int, default=200_000,
                    help="pwrite calls per thread (default 200000)")
    ap.add_argument("--threads", default="1,2,4,8", help="thread counts (default 1,2,4,8)")
    ap.add_argument("--op", choices=["pwrite", "lseek", "fwrite"], default="pwrite",
                    help="the call each thread makes: pwrite of 1 byte (default), lseek, "
                         "whose cheaper system call makes the runtime's share larger, or "
                         "fwrite of 1 byte on the thread's own buffered FILE* (the STDIO "
                         "record step is most of its cost)")
    ap.add_argument("--size", type=int, default=1, help="bytes per pwrite (default 1)")
    ap.add_argument("--dir", default="/dev/shm" if Path("/dev/shm").is_dir() else None,
                    help="where the threads' files go (default /dev/shm: on a disk the "
                         "kernel's write-back of the page cache adds I/O waits that have "
                         "nothing to do with the runtime, and tmpfs writes are the "
                         "cheapest, so the runtime's share is the largest)")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    libs = [("plain", None), ("iolens", args.runtime)]
    libs += [tuple(a.split("=", 1)) for a in args.also]
    if args.upstream:
        libs.append(("upstream", args.upstream))
    with tempfile.TemporaryDirectory(prefix="iolens-threads-", dir=args.dir) as tmp:
        work = Path(tmp)
        exe = work / "threadbench"
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(exe), str(HERE / "threadbench.c")],
                       check=True)
        res = {(name, t): [] for name, _ in libs for t in threads}
        cpu = {(name, t): [] for name, _ in libs for t in threads}
        for _ in range(args.runs):
            for t in threads:
                for name, lib in libs:
                    ops, ns = ops_per_s(exe, work, t, args.n, lib, args.op, args.size)
                    res[(name, t)].append(ops)
                    cpu[(name, t)].append(ns)
    med = {k: statistics.median(v) for k, v in res.items()}
    cmed = {k: statistics.median(v) for k, v in cpu.items()}
    head = "| threads | " + " | ".join(f"{name} ops/s" for name, _ in libs)
    head += " | " + " | ".join(f"{name} / plain" for name, _ in libs[1:]) + " |"
    what = {"pwrite": f"pwrite calls of {args.size} byte{'s' if args.size > 1 else ''}",
            "lseek": "lseek calls",
            "fwrite": "fwrite calls of 1 byte (buffered)"}[args.op]
    print(f"{args.runs} interleaved runs of {args.n} {what} per thread; medians\n")
    print(head)
    print("|---:|" + "---:|" * (2 * len(libs) - 1))
    for t in threads:
        row = [f"{med[(name, t)]:,.0f}" for name, _ in libs]
        row += [f"{med[(name, t)] / med[('plain', t)]:.3f}" for name, _ in libs[1:]]
        print(f"| {t} | " + " | ".join(row) + " |")
    # CPU time leaves out the time a thread waits for a core (the load of a shared
    # machine) but not the time it spins or misses on a contended cache line.
    print("\nCPU time (user + system, all threads) per call, ns; medians\n")
    print("| threads | " + " | ".join(f"{name}" for name, _ in libs)
          + " | " + " | ".join(f"{name} extra" for name, _ in libs[1:]) + " |")
    print("|---:|" + "---:|" * (2 * len(libs) - 1))
    for t in threads:
        row = [f"{cmed[(name, t)]:,.0f}" for name, _ in libs]
        row += [f"{cmed[(name, t)] - cmed[('plain', t)]:+,.0f}" for name, _ in libs[1:]]
        print(f"| {t} | " + " | ".join(row) + " |")

    # The fastest run of each: the one that waited least for a core.
    best = {k: max(v) for k, v in res.items()}
    print("\nFastest run of each, ratio to plain's fastest\n")
    print("| threads | " + " | ".join(f"{name} / plain" for name, _ in libs[1:]) + " |")
    print("|---:|" + "---:|" * (len(libs) - 1))
    for t in threads:
        print(f"| {t} | " + " | ".join(f"{best[(name, t)] / best[('plain', t)]:.3f}"
                                       for name, _ in libs[1:]) + " |")


if __name__ == "__main__":
    main()
