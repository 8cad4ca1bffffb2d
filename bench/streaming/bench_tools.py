#!/usr/bin/env python3
"""Interleaved timings of `iolens parse`/`iolens dxt` against upstream's
darshan-parser/darshan-dxt-parser (and optionally another iolens build, e.g. main's)
on the same logs, with peak memory.  Each round runs every command once, in
turn, so machine load hits all of them alike; medians are reported.

    python bench/streaming/bench_tools.py --logdir DIR [--rounds 5] [--baseline OLD_IOLENS]

DIR holds logs made by gen_stream_log (bench/streaming/README.md):
posix300k.darshan, posix1m.darshan, dxt3m.darshan (others are skipped if absent).
Output goes to /dev/null; times come from GNU time (/usr/bin/time): wall seconds,
CPU seconds (user + system: what load does not inflate) and peak RSS."""
import argparse
import os
import statistics
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UPSTREAM = Path("/opt/upstream-3.5.0/bin")

CASES = [  # (log, label, upstream argv, iolens argv)
    ("posix300k", "parse", ["darshan-parser"], ["parse"]),
    ("posix300k", "parse --total", ["darshan-parser", "--total"], ["parse", "--total"]),
    ("posix300k", "parse --total --file --perf", ["darshan-parser", "--total", "--file",
                                                  "--perf"],
     ["parse", "--total", "--file", "--perf"]),
    ("posix1m", "parse", ["darshan-parser"], ["parse"]),
    ("posix1m", "parse --total --file --perf", ["darshan-parser", "--total", "--file",
                                                "--perf"],
     ["parse", "--total", "--file", "--perf"]),
    ("dxt3m", "dxt", ["darshan-dxt-parser"], ["dxt"]),
]


def run(argv):
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    res = subprocess.run(["/usr/bin/time", "-f", "T %e %U %S %M", *argv],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         timeout=3600)
    line = [x for x in res.stderr.decode().splitlines() if x.startswith("T ")][-1]
    wall, user, sys_, rss = line.split()[1:]
    return float(wall), float(user) + float(sys_), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logdir", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iolens", type=Path, default=REPO / "build/src/tools/iolens")
    ap.add_argument("--baseline", type=Path, help="another iolens binary to compare")
    ap.add_argument("--only", help="run only cases whose log name contains this")
    args = ap.parse_args()
    tools = [("upstream", None), ("iolens", args.iolens)]
    if args.baseline:
        tools.insert(1, ("baseline", args.baseline))
    print("| log | command | tool | wall s (median) | CPU s (median) | peak RSS MiB |")
    print("|---|---|---|---:|---:|---:|")
    for log, label, up, ours in CASES:
        path = args.logdir / f"{log}.darshan"
        if not path.is_file() or (args.only and args.only not in log):
            continue
        samples = {name: [] for name, _ in tools}
        for _ in range(args.rounds):
            for name, binary in tools:
                argv = ([str(UPSTREAM / up[0]), *up[1:]] if binary is None
                        else [str(binary), *ours]) + [str(path)]
                samples[name].append(run(argv))
        for name, _ in tools:
            s = samples[name]
            print(f"| {log} | {label} | {name} | {statistics.median(x[0] for x in s):.2f} | "
                  f"{statistics.median(x[1] for x in s):.2f} | {max(x[2] for x in s):.1f} |",
                  flush=True)


if __name__ == "__main__":
    main()
