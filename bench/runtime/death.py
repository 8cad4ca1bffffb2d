#!/usr/bin/env python3
"""Time to die after SIGTERM, and how complete the log is, for a process whose
threads are busy writing (issue #34; results in docs/runtime.md and
docs/recovery.md).  By hand, not part of the tests.

tests/recovery/progs/edgeprobe.c `busy_term T`: T threads each pwrite 1 byte
in a loop to a file of their own and count, in a shared file mapping, every
write that returned.  After --busy seconds the process gets SIGTERM; the time
from the kill() to the end of waitpid() is its time to die.  Then the log (or
the recovered safety copy) is read with `iolens parse`: a completed write that
is missing from it is lost (the goal is none); the log may hold one more per
thread (recorded, not yet seen returning).

For each T in --threads, the runs are interleaved: plain, iolens, iolens with
DXT (`DXT_ENABLE_IO_TRACE=1`), --runs rounds; medians and maxima are printed
as a Markdown table, with the goal bound 2 x plain + 50 ms.

`--also NAME=LIB` adds another build (e.g. the one before a change), with and
without DXT, to the same interleaved rounds.

usage: death.py [--runtime LIB] [--tool IOLENS] [--threads 2,4,8] [--runs 9]
                [--busy 0.3] [--also NAME=LIB]...
"""
import argparse
import os
import shutil
import signal
import statistics
import struct
import subprocess
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "recovery" / "progs" / "edgeprobe.c"


def build(out):
    subprocess.run(["cc", "-O2", "-pthread", "-o", str(out), str(PROBE)], check=True)
    return out


def env_for(kind, runtime, run):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_", "LD_PRELOAD"))}
    kind, runtime = kind.split("@")[0], runtime if "@" not in kind else kind.split("@")[1]
    if kind != "plain":
        env.update({"LD_PRELOAD": str(runtime), "DARSHAN_ENABLE_NONMPI": "1",
                    "DARSHAN_LOGPATH": str(run / "logs"),
                    "DARSHAN_MMAP_LOGPATH": str(run / "mmap")})
    if kind.endswith("dxt"):
        env["DXT_ENABLE_IO_TRACE"] = "1"
    return env


def logged_writes(tool, run, nthreads):
    """POSIX_WRITES of each busy file, from the log (recovering a left copy)."""
    left = list((run / "mmap").glob("*_mmap-log-*.darshan"))
    if left:
        subprocess.run([str(tool), "recover", "--logdir", str(run / "logs")] + list(map(str, left)),
                       check=True, capture_output=True, timeout=120)
    found = list((run / "logs").rglob("*.darshan"))
    if len(found) != 1:
        return None
    out = subprocess.run([str(tool), "parse", str(found[0])], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    counts = [0] * nthreads
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) >= 6 and f[0] == "POSIX" and f[3] == "POSIX_WRITES":
            name = Path(f[5]).name
            if name.startswith("busy."):
                counts[int(name[5:])] = int(f[4])
    return counts, bool(left)


def wait_blocking(p, limit):
    """The exit status of p, from a blocking waitpid.  Popen.wait(timeout=...)
    polls with sleeps that double from 0.5 ms, which rounds every death up to
    0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5 ms...; a timer kills a hung probe."""
    guard = threading.Timer(limit, p.kill)
    guard.start()
    try:
        _, status = os.waitpid(p.pid, 0)
    finally:
        guard.cancel()
    p.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return p.returncode


def one_run(probe, kind, runtime, tool, nthreads, busy, top):
    run = Path(tempfile.mkdtemp(dir=top))
    (run / "logs").mkdir()
    (run / "mmap").mkdir()
    p = subprocess.Popen([str(probe), "busy_term", str(run), str(nthreads)],
                         stdout=subprocess.PIPE, env=env_for(kind, runtime, run), text=True)
    assert p.stdout.readline().split() == ["ready"]
    time.sleep(busy)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    rc = wait_blocking(p, 60)
    dt = time.monotonic() - t0
    assert rc == -signal.SIGTERM, rc
    data = (run / "counts").read_bytes()
    seen = list(struct.unpack(f"<{nthreads}Q", data[:8 * nthreads]))
    lost = None
    copy = False
    if kind != "plain":
        got = logged_writes(tool, run, nthreads)
        if got is None:
            lost, copy = 1.0, False
        else:
            logged, copy = got
            lost = sum(max(0, s - g) for s, g in zip(seen, logged)) / max(1, sum(seen))
    shutil.rmtree(run, ignore_errors=True)
    return dt, lost, copy


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get("IOLENS_RUNTIME",
                                                        ROOT / "build/src/runtime/libiolens.so"))
    ap.add_argument("--tool", default=os.environ.get("IOLENS_BIN", ROOT / "build/src/tools/iolens"))
    ap.add_argument("--threads", default="2,4,8")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--busy", type=float, default=0.3)
    ap.add_argument("--also", action="append", default=[], metavar="NAME=LIB")
    a = ap.parse_args()
    top = Path(tempfile.mkdtemp(prefix="iolens-death-"))
    probe = build(top / "edgeprobe")
    kinds = ["plain", "iolens", "dxt"]
    for spec in a.also:
        name, lib = spec.split("=", 1)
        kinds += [f"{name}@{lib}", f"{name} dxt@{lib}"]
    print("| threads | run | death median ms | death max ms | goal ms | "
          "completed writes lost: median / max | copies left |")
    print("|---|---|---|---|---|---|---|")
    try:
        for nt in [int(x) for x in a.threads.split(",")]:
            res = {k: [] for k in kinds}
            for _ in range(a.runs):
                for k in kinds:
                    res[k].append(one_run(probe, k, a.runtime, a.tool, nt, a.busy, top))
            plain = statistics.median(r[0] for r in res["plain"])
            for k in kinds:
                ds = [r[0] * 1e3 for r in res[k]]
                goal = f"{2 * plain * 1e3 + 50:.0f}" if k != "plain" else ""
                if k == "plain":
                    lost, copies = "", ""
                else:
                    ls = [r[1] for r in res[k]]
                    lost = f"{100 * statistics.median(ls):.2f} % / {100 * max(ls):.2f} %"
                    copies = str(sum(r[2] for r in res[k]))
                print(f"| {nt} | {k.split('@')[0]} | {statistics.median(ds):.1f} | {max(ds):.1f} | {goal} | "
                      f"{lost} | {copies} |")
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
