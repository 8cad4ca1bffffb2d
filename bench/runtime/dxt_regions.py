#!/usr/bin/env python3
"""What the region of each DXT segment costs (docs/regions.md, "DXT segments"); by
hand, not part of the tests.  Extra instructions per traced call (callgrind,
--cg-n calls of each operation of opbench.c, tracing on, every segment within the
budget) of this runtime against --before (another build, e.g. main's before the
change), both outside every region and with every call inside one (IOLENS_REGION,
which also adds the REGION module's own attribution, in both builds).

usage: dxt_regions.py --before LIB [--runtime LIB] [--cg-n 20000]
"""
import argparse
import os
import tempfile
from pathlib import Path
import subprocess

import bench


def measure(exe, work, n, runtime, kib, region, tag):
    bench.TRACE_ENV.clear()
    if region:
        bench.TRACE_ENV["IOLENS_REGION"] = "phase"
    try:
        return bench.callgrind(exe, work, n, runtime, kib, tag)
    finally:
        bench.TRACE_ENV.clear()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runtime", default=os.environ.get(
        "IOLENS_RUNTIME", bench.REPO / "build/src/runtime/libiolens.so"))
    ap.add_argument("--before", required=True)
    ap.add_argument("--cg-n", type=int, default=20_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="iolens-bench-") as tmp:
        work = Path(tmp)
        exe = work / "opbench"
        subprocess.run(["cc", "-O2", "-o", str(exe), str(bench.HERE / "opbench.c")], check=True)
        kib = bench.run_budget_kib(args.cg_n)
        res = {(lib, region): measure(exe, work, args.cg_n, path, kib, region, f"{lib}{region}")
               for lib, path in (("before", args.before), ("after", args.runtime))
               for region in (False, True)}
        print(f"| operation | outside regions: before | after | inside a region: before | "
              f"after | ({args.cg_n} calls, callgrind, instructions per traced call) |")
        print("|---|---:|---:|---:|---:|")
        for op in bench.TRACED:
            row = [res[(lib, r)][op] for r in (False, True) for lib in ("before", "after")]
            print(f"| {op} | " + " | ".join(f"{v:.1f}" for v in row) + " |")


if __name__ == "__main__":
    main()
