#!/usr/bin/env python3
"""Cost of the safety copy (by hand, not part of the tests; docs/performance.md).

Runs bench/runtime/opbench.c under the runtime with the safety copy (default) and
without it (IOLENS_NO_SAFETY_COPY=1):
  - per operation: callgrind instructions per call (exact) and the median wall
    time per call over RUNS runs;
  - per process (init + shutdown): median wall time of `opbench DIR 1000 files`
    (create 1,000 files: 1,000 records and names) and of /bin/true, RUNS2 runs each.

usage: bench_safety.py [--runtime LIB] [--runs 5] [--n 300000] [--runs2 30]
                       [--process-only] [--mmap-dir DIR]"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OPS = ["pwrite_1B", "pread_1B", "write_4KiB", "lseek", "stat", "open+close", "fwrite_1B"]
FUNCS = {"pwrite_1B": "bench_pwrite1", "pread_1B": "bench_pread1", "write_4KiB": "bench_write4k",
         "lseek": "bench_lseek", "stat": "bench_stat", "open+close": "bench_openclose",
         "fwrite_1B": "bench_fwrite1"}


MMAP_DIR = None     # --mmap-dir; default: the runtime's default (/dev/shm)


def env(runtime, work, safety):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "IOLENS_"))}
    if runtime:
        e.update(LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=str(work))
        if MMAP_DIR:
            e["DARSHAN_MMAP_LOGPATH"] = MMAP_DIR
        if not safety:
            e["IOLENS_NO_SAFETY_COPY"] = "1"
    return e


def per_op(exe, work, n, runtime, safety):
    out = subprocess.run([str(exe), str(work), str(n)], env=env(runtime, work, safety),
                         capture_output=True, text=True, check=True).stdout
    return {l.split()[0]: float(l.split()[1]) for l in out.splitlines()}


def instr(exe, work, n, runtime, safety):
    out = work / f"cg.{safety}"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe),
                    str(work), str(n)], env=env(runtime, work, safety), capture_output=True, check=True)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                          capture_output=True, text=True).stdout
    res = {}
    for op, fn in FUNCS.items():
        m = re.search(r"^\s*([\d,]+) .*:" + fn + r" \[", text, re.M)
        res[op] = int(m.group(1).replace(",", "")) / n if m else float("nan")
    return res


def process_times(argv, work, runtime, runs):
    """Median wall ms of argv: plain, runtime without copy, with copy.  The three
    run interleaved, so that load changes on a shared machine hit them alike."""
    ts = {k: [] for k in ("plain", "nocopy", "copy")}
    for i in range(runs):
        for k, rt, safety in (("plain", None, True), ("nocopy", runtime, False),
                              ("copy", runtime, True)):
            d = Path(tempfile.mkdtemp(dir=work))
            t = time.perf_counter()
            subprocess.run([str(a).replace("{d}", str(d)) for a in argv],
                           env=env(rt, work, safety), check=True, capture_output=True)
            ts[k].append(time.perf_counter() - t)
    return [statistics.median(ts[k]) * 1e3 for k in ("plain", "nocopy", "copy")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=REPO / "build" / "src" / "runtime" / "libiolens.so")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=300000)
    ap.add_argument("--runs2", type=int, default=30)
    ap.add_argument("--process-only", action="store_true")
    ap.add_argument("--mmap-dir", help="DARSHAN_MMAP_LOGPATH for the runs with the copy")
    a = ap.parse_args()
    global MMAP_DIR
    MMAP_DIR = a.mmap_dir
    with tempfile.TemporaryDirectory(dir="/tmp") as t:
        work = Path(t)
        exe = work / "opbench"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(REPO / "bench/runtime/opbench.c")], check=True)
        if not a.process_only:
            per_op_table(exe, work, a)
        print("| process | plain ms | runtime without copy ms | with copy ms |")
        print("|---|---:|---:|---:|")
        for name, argv in (("/bin/true", ["/bin/true"]),
                           ("create 1,000 files", [exe, "{d}", "1000", "files"])):
            p, r0, r1 = process_times(argv, work, a.runtime, a.runs2)
            print(f"| {name} | {p:.2f} | {r0:.2f} | {r1:.2f} |")


def per_op_table(exe, work, a):
    ins = {s: instr(exe, work, 20000, a.runtime, s) for s in (True, False)}
    wall = {s: [per_op(exe, work, a.n, a.runtime, s) for _ in range(a.runs)] for s in (True, False)}
    print("| operation | instructions without copy | with copy | extra | ns without (median) | ns with (median) |")
    print("|---|---:|---:|---:|---:|---:|")
    for op in OPS:
        w0 = statistics.median(r[op] for r in wall[False])
        w1 = statistics.median(r[op] for r in wall[True])
        print(f"| {op} | {ins[False][op]:.0f} | {ins[True][op]:.0f} | "
              f"{ins[True][op] - ins[False][op]:+.0f} | {w0:.0f} | {w1:.0f} |")
    print()


if __name__ == "__main__":
    main()
