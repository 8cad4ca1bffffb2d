#!/usr/bin/env python3
"""Runtime overhead benchmark (by hand, not part of the tests).

Builds opbench.c, then for each operation reports
  - the median extra wall time per call over RUNS runs of N calls, with and without
    the preloaded runtime (noisy on a shared machine: the median helps, not fully);
  - the extra instructions per call measured by callgrind on CG_N calls (exact and
    repeatable; this is the number compared with upstream);
  - the peak resident memory of a 1500-file run (w04-like) with and without the runtime.

usage: bench.py [--runtime LIB] [--runs 5] [--n 1000000] [--cg-n 20000]
(--runs 0 skips the wall-time runs: instructions and memory only.)
Prints a Markdown table for docs/performance.md.
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OPS = ["pwrite_1B", "pread_1B", "write_4KiB", "read_4KiB", "lseek", "stat", "open+close",
       "fwrite_1B", "fread_1B"]
FUNCS = {"pwrite_1B": "bench_pwrite1", "pread_1B": "bench_pread1", "write_4KiB": "bench_write4k",
         "read_4KiB": "bench_read4k", "lseek": "bench_lseek", "stat": "bench_stat",
         "open+close": "bench_openclose", "fwrite_1B": "bench_fwrite1", "fread_1B": "bench_fread1"}
UPSTREAM = {"pwrite_1B": 1150, "pread_1B": 1150, "lseek": 330, "fwrite_1B": 550, "open+close": 2800}


def env_for(runtime, logdir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DARSHAN_")}
    if runtime:
        env.update(LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=str(logdir))
    return env


def timed_run(exe, work, n, runtime):
    out = subprocess.run([str(exe), str(work), str(n)], env=env_for(runtime, work),
                         capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: float(line.split()[1]) for line in out.splitlines()}


def callgrind(exe, work, n, runtime):
    out = work / f"cg.{'rt' if runtime else 'base'}"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe), str(work), str(n)],
                   env=env_for(runtime, work), capture_output=True, check=True)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                          capture_output=True, text=True).stdout
    res = {}
    for op, fn in FUNCS.items():
        m = re.search(r"^\s*([\d,]+) .*:" + fn + r" \[", text, re.M)
        res[op] = int(m.group(1).replace(",", "")) / n if m else float("nan")
    return res


def peak_rss(cmd, env):
    """Peak resident KiB of cmd, measured in a fresh interpreter (ru_maxrss of
    children is a running maximum, so each measurement needs its own parent)."""
    probe = ("import resource,subprocess,sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run(["python3", "-c", probe, *cmd], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get("IOLENS_RUNTIME", REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--cg-n", type=int, default=20_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="iolens-bench-") as tmp:
        work = Path(tmp)
        exe = work / "opbench"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(HERE / "opbench.c")], check=True)
        base, rt = {op: [] for op in OPS}, {op: [] for op in OPS}
        for _ in range(args.runs):
            for res, lib in ((base, None), (rt, args.runtime)):
                for op, ns in timed_run(exe, work, args.n, lib).items():
                    res[op].append(ns)
        cg_base = callgrind(exe, work, args.cg_n, None)
        cg_rt = callgrind(exe, work, args.cg_n, args.runtime)
        print("| operation | base ns | extra ns (median) | extra instructions | upstream extra | ratio |")
        print("|---|---:|---:|---:|---:|---:|")
        for op in OPS:
            # --runs 0: instructions only (about a minute)
            b = statistics.median(base[op]) if base[op] else float("nan")
            r = statistics.median(rt[op]) if rt[op] else float("nan")
            extra_i = cg_rt[op] - cg_base[op]
            up = UPSTREAM.get(op)
            ratio = f"{extra_i / up:.2f}" if up else ""
            print(f"| {op} | {b:.0f} | {r - b:.0f} | {extra_i:.0f} | {up or ''} | {ratio} |")
        # memory: 1500 files (more than the default 1024 POSIX records) with default limits
        many = work / "many"
        many.mkdir()
        cmd = [str(exe), str(many), "1500", "files"]
        m_base, m_rt = peak_rss(cmd, env_for(None, work)), peak_rss(cmd, env_for(args.runtime, work))
        print(f"\npeak RSS, 1500 files: {m_base} KiB without, {m_rt} KiB with the runtime "
              f"(+{m_rt - m_base} KiB)")


if __name__ == "__main__":
    main()
