"""Explorer benchmark (not part of the test run): one-time indexing cost, memory,
and the time of each zoom step on a large DXT log.

    python bench/explore/bench_explore.py [--segments N] [--log LOG] [--workdir DIR]

Without --log it generates a log of N DXT_POSIX segments (default 100,000,000)
with build/bench/gen_big_log.  Indexing and serving each run in a child process,
so their peak resident memory (ru_maxrss) is measured separately.  The work
directory (log and index) is removed afterwards unless --keep is given."""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

INDEX_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import iolens
from iolens.explore import index_build, index_sort
from iolens.explore.index import index_for
sorts = []
class Recording(index_sort.ExternalSort):      # to report what the out-of-core sort did
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        sorts.append(self)
index_build.ExternalSort = Recording
t = time.perf_counter()
with iolens.open(sys.argv[1]) as log:
    idx = index_for(log, Path(sys.argv[2]))
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"index_s": time.perf_counter() - t, "index_cpu_s": ru.ru_utime + ru.ru_stime,
                  "chunk_rows": index_build.CHUNK_ROWS, "sort_rows": index_build.SORT_ROWS,
                  "sort": sorts[0].stats if sorts else None,
                  "nseg": idx.nseg,
                  "lanes": idx.nlanes, "bins": int(idx.pyr_count.shape[2]),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

SERVE_CHILD = r"""
import json, resource, statistics, sys, time
from pathlib import Path
import iolens
from iolens.explore.index import index_for
from iolens.explore.views import summary
from iolens.explore.query import View, query
t = time.perf_counter()
with iolens.open(sys.argv[1]) as log:
    idx = index_for(log, Path(sys.argv[2]))
    data = summary(log, idx)
open_s = time.perf_counter() - t
def rss_now():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024
rss_open = rss_now()
span, steps = idx.meta["span"], []
t0, t1 = 0.0, span
for k in range(30):                       # zoom in by 2x around 37% of the view
    t = time.perf_counter()
    r = query(idx, View(t0=t0, t1=t1, px=1200))
    steps.append({"width_s": t1 - t0, "ms": (time.perf_counter() - t) * 1e3,
                  "kind": r["kind"], "source": r.get("source", ""), "n": r["n"],
                  "reply_kb": len(json.dumps(r)) / 1024})
    c = t0 + 0.37 * (t1 - t0)
    w = (t1 - t0) / 2
    t0, t1 = c - 0.37 * w, c + 0.63 * w
pans = []
w = t1 - t0
for k in range(20):                       # pan at a detailed zoom level
    a = span * 0.1 + k * w
    t = time.perf_counter()
    query(idx, View(t0=a, t1=a + w, px=1200))
    pans.append((time.perf_counter() - t) * 1e3)
print(json.dumps({"open_s": open_s, "rss_after_open_mb": rss_open, "steps": steps,
                  "zoom_ms_median": statistics.median(s["ms"] for s in steps),
                  "zoom_ms_max": max(s["ms"] for s in steps),
                  "pan_ms_median": statistics.median(pans),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_after_zooms_mb": rss_now(),
                  "summary_kb": len(json.dumps(data)) / 1024}))
"""


def child(code: str, *args) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                         text=True, timeout=7200)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=100_000_000)
    ap.add_argument("--log")
    ap.add_argument("--workdir", default="/tmp/iolens-bench-explore")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    try:
        result = {}
        log = Path(args.log) if args.log else work / "big_dxt.darshan"
        if not args.log:
            gen = REPO / "build" / "bench" / "gen_big_log"
            t = time.perf_counter()
            subprocess.run([str(gen), "-n", "10", "-m", str(args.segments), str(work)],
                           check=True, timeout=7200)
            result["generate_s"] = time.perf_counter() - t
        result["log_mb"] = log.stat().st_size / 2 ** 20
        result["index"] = child(INDEX_CHILD, log, work / "cache")
        result["index_mb"] = sum(f.stat().st_size for f in (work / "cache").rglob("*")
                                 if f.is_file()) / 2 ** 20
        result["serve"] = child(SERVE_CHILD, log, work / "cache")
        print(json.dumps(result, indent=1))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
