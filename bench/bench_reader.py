#!/usr/bin/env python3
"""Reader benchmark: iolens (C tool and Python frames) against PyDarshan 3.5.0.

Run by hand (minutes), not by the tests:

    .venv/bin/python bench/bench_reader.py [--workdir DIR] [--records N] [--segments M]

It makes (or reuses) two logs with bench/gen_big_log - N POSIX records (default
1,000,000) and M DXT_POSIX segments (default 10,000,000) - then measures, each in
a fresh subprocess, wall time and peak RSS (wait4 rusage) of:
  * `iolens parse LOG > /dev/null` (the C tool)
  * `iolens.open(LOG).records("POSIX")` / `.dxt("POSIX")`
  * PyDarshan `DarshanReport(LOG, read_all=True)` then `.records[MOD].to_df()`
PyDarshan runs under an address-space cap (--cap-gb) and a timeout so it cannot
exhaust the shared machine; a run stopped by either is reported as such.
With --repeat R every measurement runs R times (interleaved, so that a burst of
load on the shared machine hits all of them alike) and the medians are printed,
with each run's time.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SNIPPETS = {
    "iolens records": "import iolens; df = iolens.open({log!r}).records('POSIX'); print(len(df))",
    "iolens dxt": "import iolens; df = iolens.open({log!r}).dxt('POSIX'); print(len(df))",
    "pydarshan records": (
        "import darshan, logging; logging.disable(logging.WARNING)\n"
        "r = darshan.DarshanReport({log!r}, read_all=True)\n"
        "d = r.records['POSIX'].to_df(); print(len(d['counters']))"),
    "pydarshan dxt": (
        "import darshan, logging; logging.disable(logging.WARNING)\n"
        "r = darshan.DarshanReport({log!r}, read_all=True)\n"
        "d = r.records['DXT_POSIX'].to_df()\n"
        "print(sum(len(x['write_segments']) + len(x['read_segments']) for x in d))"),
}


def find_tool(name: str, env: str, built: Path):
    if os.environ.get(env):
        return os.environ[env]
    if built.is_file():
        return str(built)
    return shutil.which(name)


def run(cmd, timeout: float, cap_bytes=None, stdout=subprocess.DEVNULL):
    """Run cmd; return (seconds, peak RSS MiB, status text, CPU seconds).  CPU time
    (user + system) is less sensitive than wall time to other load on the machine."""
    def limit():
        if cap_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, preexec_fn=limit)
    status = "ok"
    deadline = t0 + timeout
    while True:
        pid, wstatus, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, wstatus, usage = os.wait4(proc.pid, 0)
            status = f"killed after {timeout:.0f} s timeout"
            break
        time.sleep(0.05)
    secs = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    err = proc.stderr.read().decode(errors="replace")
    if status == "ok" and proc.returncode not in (0,):
        last = err.strip().splitlines()[-1:] or [""]
        status = f"failed (exit {proc.returncode}): {last[0][:120]}"
    return secs, usage.ru_maxrss / 1024, status, usage.ru_utime + usage.ru_stime


def make_logs(workdir: Path, records: int, segments: int) -> None:
    posix, dxt = workdir / "big_posix.darshan", workdir / "big_dxt.darshan"
    stamp = workdir / f"made-{records}-{segments}"
    if posix.is_file() and dxt.is_file() and stamp.is_file():
        return
    gen = find_tool("gen_big_log", "IOLENS_GEN_BIG_LOG", REPO / "build" / "bench" / "gen_big_log")
    if not gen:
        sys.exit("bench_reader: bench/gen_big_log not built (cmake --build build), "
                 "or set IOLENS_GEN_BIG_LOG")
    subprocess.run([gen, "-n", str(records), "-m", str(segments), str(workdir)], check=True)
    stamp.touch()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/iolens-bench-reader"))
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--segments", type=int, default=10_000_000)
    ap.add_argument("--cap-gb", type=float, default=10.0, help="address-space cap for PyDarshan")
    ap.add_argument("--timeout", type=float, default=1200.0, help="seconds per measurement")
    ap.add_argument("--skip-pydarshan", action="store_true")
    ap.add_argument("--only", default="", help="run only measurements whose label contains this")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement (medians shown)")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    make_logs(args.workdir, args.records, args.segments)
    posix, dxt = args.workdir / "big_posix.darshan", args.workdir / "big_dxt.darshan"
    tool = find_tool("iolens", "IOLENS_BIN", REPO / "build" / "src" / "tools" / "iolens")
    py = sys.executable
    cap = int(args.cap_gb * 2**30)

    plan = []
    if tool:
        plan.append(("iolens parse (C)", posix, [tool, "parse", str(posix)], None))
        plan.append(("iolens dxt (C)", dxt, [tool, "dxt", str(dxt)], None))
    plan.append(("iolens records('POSIX')", posix,
                 [py, "-c", SNIPPETS["iolens records"].format(log=str(posix))], None))
    plan.append(("iolens dxt('POSIX')", dxt,
                 [py, "-c", SNIPPETS["iolens dxt"].format(log=str(dxt))], None))
    if not args.skip_pydarshan:
        plan.append(("PyDarshan records POSIX to_df", posix,
                     [py, "-c", SNIPPETS["pydarshan records"].format(log=str(posix))], cap))
        plan.append(("PyDarshan DXT_POSIX to_df", dxt,
                     [py, "-c", SNIPPETS["pydarshan dxt"].format(log=str(dxt))], cap))

    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, "
          f"{os.cpu_count()} cpus, {platform.processor() or platform.machine()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"# {posix.name}: {posix.stat().st_size / 2**20:.1f} MiB, "
          f"{dxt.name}: {dxt.stat().st_size / 2**20:.1f} MiB")
    plan = [p for p in plan if args.only in p[0]]
    results = {what: [] for what, *_ in plan}
    for rep in range(max(1, args.repeat)):
        for what, log, cmd, cap_bytes in plan:
            results[what].append(run(cmd, args.timeout, cap_bytes))
            if args.repeat > 1:
                secs, rss, status, cpu = results[what][-1]
                print(f"# run {rep + 1}: {what}: {secs:.2f} s (cpu {cpu:.2f} s), {rss:,.0f} MiB, "
                      f"{status}, load {os.getloadavg()[0]:.1f}", flush=True)
    print("| what | log | wall time (s) | CPU time (s) | peak RSS (MiB) | runs (s) | status |")
    print("|---|---|---:|---:|---:|---|---|")
    for what, log, cmd, cap_bytes in plan:
        runs = results[what]
        secs = statistics.median(r[0] for r in runs)
        rss = statistics.median(r[1] for r in runs)
        cpu = statistics.median(r[3] for r in runs)
        status = "; ".join(sorted({r[2] for r in runs}))
        each = " ".join(f"{r[0]:.1f}" for r in runs)
        print(f"| {what} | {log.name} | {secs:.1f} | {cpu:.1f} | {rss:,.0f} | {each} | {status} |",
              flush=True)


if __name__ == "__main__":
    main()
