"""Export benchmark (not part of the test run): wall and CPU time and peak RSS
of `iolens export` (Perfetto protobuf and Chrome JSON) on a large DXT log.

    python bench/export/bench_export.py --log LOG [--runs 3] [--formats perfetto,json]
    python bench/export/bench_export.py --generate 15000000 [--workdir DIR] [--keep]
    python bench/export/bench_export.py --log LOG --pythonpath OLD/python   # another tree

--generate N (explicit: it writes a log of N DXT_POSIX segments, 64 ranks,
1,000 files, with build/bench/gen_big_log, i.e. our log writer) is needed
without --log.  Each export runs in its own child process; its peak resident
memory is that child's ru_maxrss (RUSAGE_CHILDREN around one run).
--pythonpath runs the export of another source tree (e.g. `git archive` of an
older commit with a built iolens/_core*.so copied in) for before/after
figures.  Prints one JSON object with every run and the medians."""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHILD = "import sys\nfrom iolens.export.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def run_once(log: Path, fmt: str, out: Path, pythonpath=None, cache=None) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    args = [sys.executable, "-c", CHILD, str(log), "--format", fmt, "-o", str(out)]
    if cache:                                  # the index-based export needed a cache
        args += ["--cache", str(cache)]
        shutil.rmtree(cache, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=7200)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        raise SystemExit(r.stderr)
    result = {"format": fmt, "wall_s": round(wall, 2),
              "cpu_s": round(after.ru_utime + after.ru_stime
                             - before.ru_utime - before.ru_stime, 2),
              "peak_rss_mib": round(after.ru_maxrss / 1024, 1),
              "output_mib": round(out.stat().st_size / 2 ** 20, 1),
              "load_avg": os.getloadavg()[0]}
    if after.ru_maxrss <= before.ru_maxrss and before.ru_maxrss:
        result["peak_rss_mib"] = None      # hidden by an earlier, larger child
    out.unlink()
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--log")
    ap.add_argument("--generate", type=int, metavar="N",
                    help="generate a log of N DXT_POSIX segments first (explicit)")
    ap.add_argument("--workdir", default="/tmp/iolens-bench-export")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--formats", default="perfetto,json")
    ap.add_argument("--pythonpath", help="run the export of this source tree instead")
    ap.add_argument("--old-cache", action="store_true",
                    help="pass --cache (fresh each run) as the index-based export needed")
    args = ap.parse_args()
    if not args.log and not args.generate:
        ap.error("give --log LOG, or --generate N to write a log of N segments")
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = {}
        log = Path(args.log) if args.log else work / "big_dxt.darshan"
        if args.generate:
            gen = REPO / "build" / "bench" / "gen_big_log"
            subprocess.run([str(gen), "-n", "1", "-m", str(args.generate), str(work)],
                           check=True, timeout=7200)
        result["log_mib"] = round(log.stat().st_size / 2 ** 20, 1)
        cache = work / "cache" if args.old_cache else None
        for fmt in args.formats.split(","):
            runs = [run_once(log, fmt, work / f"out.{fmt}", args.pythonpath, cache)
                    for _ in range(args.runs)]
            result[fmt] = {"runs": runs}
            for key in ("wall_s", "cpu_s"):
                result[fmt][f"median_{key}"] = statistics.median(r[key] for r in runs)
            peaks = [r["peak_rss_mib"] for r in runs if r["peak_rss_mib"] is not None]
            result[fmt]["max_peak_rss_mib"] = max(peaks) if peaks else None
            print(json.dumps({fmt: result[fmt]}), file=sys.stderr)
        print(json.dumps(result, indent=1))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
