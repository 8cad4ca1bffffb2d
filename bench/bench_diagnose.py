#!/usr/bin/env python3
"""Diagnosis speed and memory on a 1,000,000-record log (target: under 10 s).

    .venv/bin/python bench/bench_diagnose.py [--workdir DIR] [--records N] [--repeat R]

Makes (or reuses) bench/gen_big_log's big_posix.darshan, then measures in fresh
subprocesses, interleaved R times (medians printed), wall time, CPU time and
peak RSS of:
  * diagnose     iolens.diagnose.diagnose(LOG): every rule, declared columns only
  * all counters iolens.open(LOG).records("POSIX"): every counter decoded, the
                 baseline a diagnosis that read whole records would start from
Results are recorded in docs/diagnosis.md."""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reader import make_logs, run  # noqa: E402  (shared generator and runner)

SNIPPETS = {
    "diagnose": "from iolens.diagnose import diagnose; d = diagnose({log!r}); "
                "print(len(d.findings), d.notes)",
    "all counters": "import iolens; print(len(iolens.open({log!r}).records('POSIX')))",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/iolens-bench-reader"))
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    make_logs(args.workdir, args.records, 1000)
    log = str(args.workdir / "big_posix.darshan")
    results = {k: [] for k in SNIPPETS}
    for _ in range(args.repeat):
        for label, code in SNIPPETS.items():
            secs, rss, status, cpu = run([sys.executable, "-c", code.format(log=log)],
                                         args.timeout)
            if status != "ok":
                sys.exit(f"{label}: {status}")
            results[label].append((secs, cpu, rss))
    print(f"{args.records:,} POSIX records, {args.repeat} interleaved runs, medians:")
    for label, rows in results.items():
        secs, cpu, rss = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"  {label:13s} wall {secs:6.2f} s  cpu {cpu:6.2f} s  peak RSS {rss:7.0f} MiB"
              f"   (wall per run: {', '.join(f'{r[0]:.2f}' for r in rows)})")


if __name__ == "__main__":
    main()
