#!/usr/bin/env python3
"""Cost of the live view (by hand, not a test; docs/live.md, "Costs").

Starts PROCS processes (livework.c) under the runtime, each with FILES files,
touching 10 of them every 100 ms, their copies in a private directory.  Then
measures, each for DURATION seconds:
  - `iolens top --interval 1` in a pseudo-terminal;
  - `iolens exporter`, scraped once a second;
their CPU time over the window (utime + stime from /proc, after a warm-up of the
first round) as a share of one core, and their peak resident size (VmHWM).

usage: bench_live.py [--procs 256] [--files 1000] [--duration 30]
                     [--variant LABEL=PYTHONPATH ...] [--repeat N]
--variant: measure the iolens package found at PYTHONPATH too (e.g. a copy of
main's installed package, for "before" figures); --repeat: measure every
variant N times, interleaved, on the same processes (the load of the machine
then weighs on each alike; the setup of 256,000 files is paid once).
Prints a Markdown table for docs/live.md (CPU % of one core, peak MiB, the
load average at the end of each measurement).
"""
import argparse
import os
import pty
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
IOLENS = Path(os.environ.get("IOLENS_TOOL", REPO / "build/src/tools/iolens"))
RUNTIME = Path(os.environ.get("IOLENS_RUNTIME", REPO / "build/src/runtime/libiolens.so"))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of pid and its waited-for children."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def leaf(pid):
    """The Python process behind `iolens VERB` (the C tool execs it)."""
    return pid


def measure(proc, duration, each_second=None):
    # startup and the first full round (which reads every record of every
    # copy): out of the window, for top and the exporter alike (the exporter
    # reads at a scrape: scraped here too)
    for _ in range(3):
        if each_second:
            each_second()
        time.sleep(1.0)
    c0, t0 = cpu_seconds(proc.pid), time.monotonic()
    end = t0 + duration
    while time.monotonic() < end:
        if each_second:
            each_second()
        time.sleep(1.0)
    c1, t1 = cpu_seconds(proc.pid), time.monotonic()
    return (c1 - c0) / (t1 - t0) * 100, peak_kib(proc.pid) / 1024


def measure_both(args, shm, env):
    """`top` then the exporter, each for args.duration: rows of (reader, CPU %,
    peak MiB, load average at the end)."""
    rows = []
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(str(IOLENS), [str(IOLENS), "top", "--interval", "1", "--dir", str(shm)],
                  dict(env, TERM="xterm"))

    class P:
        pass
    top = P()
    top.pid = pid

    def drain():
        try:
            while True:
                r, _, _ = select.select([fd], [], [], 0)
                if not r:
                    break
                os.read(fd, 65536)
        except OSError:
            pass
    cpu, mib = measure(top, args.duration, drain)
    os.kill(pid, 15)
    os.waitpid(pid, 0)
    os.close(fd)
    rows.append(("iolens top --interval 1", cpu, mib, os.getloadavg()[0]))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exporter = subprocess.Popen([str(IOLENS), "exporter", "--listen", f"127.0.0.1:{port}",
                                 "--dir", str(shm)], stderr=subprocess.DEVNULL, env=env)
    size = [0]

    def scrape():
        try:
            size[0] = len(urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                                 timeout=5).read())
        except OSError:
            pass
    cpu, mib = measure(exporter, args.duration, scrape)
    exporter.terminate()
    exporter.wait()
    rows.append((f"iolens exporter, scraped every 1 s ({size[0] // 1024} KiB a scrape)", cpu, mib,
                 os.getloadavg()[0]))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=256)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL=PYTHONPATH")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    variants = [tuple(v.split("=", 1)) for v in args.variant] or [("this tree", "")]
    # (not in /dev/shm: the runtime does not record files under /dev)
    work = Path(tempfile.mkdtemp(prefix="iolens-live-bench-"))
    shm = Path(tempfile.mkdtemp(prefix="iolens-live-bench-", dir="/dev/shm"))
    exe = work / "livework"
    subprocess.run(["cc", "-O1", "-o", str(exe), str(HERE / "livework.c")], check=True)
    env = dict(os.environ, LD_PRELOAD=str(RUNTIME), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(shm), DARSHAN_LOGPATH=str(work))
    lifetime = 2 * (args.duration + 10) * len(variants) * args.repeat + 30
    procs = [subprocess.Popen([str(exe), str(work), str(args.files), str(lifetime)], env=env)
             for _ in range(args.procs)]
    try:
        while len(list(shm.glob("*.darshan"))) < args.procs:
            time.sleep(0.5)
        time.sleep(5)                   # every process has opened its files
        rows = []
        for _ in range(args.repeat):
            for label, path in variants:
                env_v = dict(os.environ, PYTHONPATH=path) if path else dict(os.environ)
                for row in measure_both(args, shm, env_v):
                    rows.append((label,) + row)
        print(f"{args.procs} processes x {args.files} files, {args.duration:.0f} s, "
              f"load average {os.getloadavg()[0]:.1f}\n")
        print("| variant | reader | CPU, % of one core | peak RSS MiB | load |\n"
              "|---|---|---:|---:|---:|")
        for label, name, cpu, mib, load in rows:
            print(f"| {label} | {name} | {cpu:.2f} | {mib:.1f} | {load:.1f} |", flush=True)
    finally:                            # (deleting 256,000 files takes minutes)
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
