#!/usr/bin/env python3
"""What the H5D module adds to H5Dwrite and H5Dread (docs/performance.md, "HDF5").

Builds h5bench.c against Debian's serial HDF5 (h5cc -shlib), then
  - extra instructions per call: callgrind, --cg-n calls of each loop, with the
    runtime preloaded minus without (the runtime's POSIX record of HDF5's own
    pwrite/pread is included: it is what a user pays);
  - wall ns per call: --runs alternating runs of --n calls, plain and with the
    runtime; medians.
usage: run.py [--runtime LIB] [--n 20000] [--cg-n 5000] [--runs 7]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def env(runtime, logdir):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    if runtime:
        e.update(LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=str(logdir))
    return e


def timed(exe, work, n, runtime):
    out = subprocess.run([str(exe), str(work), str(n)], env=env(runtime, work),
                         capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines())}


def callgrind(exe, work, n, runtime, tag):
    out = work / f"cg.{tag}"
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(exe),
                    str(work), str(n)], env=env(runtime, work), capture_output=True, check=True)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                          capture_output=True, text=True).stdout
    res = {}
    for op in ("write", "read"):
        m = re.search(r"^\s*([\d,]+) .*:bench_" + op + r" ", text, re.M)
        res[op] = int(m.group(1).replace(",", "")) / n if m else float("nan")
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get(
        "IOLENS_RUNTIME", REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--cg-n", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="iolens-h5bench-") as tmp:
        work = Path(tmp)
        exe = work / "h5bench"
        subprocess.run(["h5cc", "-shlib", "-O2", "-o", str(exe), str(HERE / "h5bench.c")],
                       check=True, cwd=work)      # h5cc leaves its object in the cwd
        base = callgrind(exe, work, args.cg_n, None, "base")
        rt = callgrind(exe, work, args.cg_n, args.runtime, "rt")
        wall = {None: [], args.runtime: []}
        for _ in range(args.runs):
            for lib in wall:
                wall[lib].append(timed(exe, work, args.n, lib))
        print(f"| call | instructions plain | extra with iolens ({args.cg_n} calls, callgrind) "
              f"| wall ns plain | wall ns with iolens | extra ns |")
        print("|---|---:|---:|---:|---:|---:|")
        for op in ("write", "read"):
            p = statistics.median(r[op] for r in wall[None])
            w = statistics.median(r[op] for r in wall[args.runtime])
            print(f"| H5D{op} (one 64-byte row, hyperslab) | {base[op]:.0f} | {rt[op] - base[op]:+.0f} "
                  f"| {p:.0f} | {w:.0f} | {w - p:+.0f} |")


if __name__ == "__main__":
    main()
