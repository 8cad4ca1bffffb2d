#!/usr/bin/env python3
"""Sizes of a generated 1,000-process file-per-process log with one compressed
stream per process (as an MPI job writes it) and after `iolens convert --condense`
(one stream per module), for docs/convert.md.

usage: condense_sizes.py [--nprocs 1000] [--tool build/src/tools/iolens]"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "convert"))
import iolens  # noqa: E402
from fpp_log import write_fpp_log  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=1000)
    ap.add_argument("--tool", default=str(HERE.parents[1] / "build" / "src" / "tools" / "iolens"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        write_fpp_log(d / "gen.darshan", args.nprocs)
        rows = []
        for label, opts in (("per process", []), ("condensed", ["--condense"]),
                            ("uncompressed", ["--none"])):
            out = d / f"{label}.darshan"
            subprocess.run([args.tool, "convert", *opts, str(d / "gen.darshan"), str(out)],
                           check=True, timeout=300)
            with iolens.open(out) as log:
                rows.append((label, out.stat().st_size,
                             {m: v["length"] for m, v in log.modules.items()}))
        base = rows[0][1]
        print(f"{'layout':14s} {'file bytes':>11s} {'vs per-process':>15s}  module regions")
        for label, size, mods in rows:
            print(f"{label:14s} {size:11d} {100 * (size / base - 1):+14.1f}%  {mods}")


if __name__ == "__main__":
    main()
