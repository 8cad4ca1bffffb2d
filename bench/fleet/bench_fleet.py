"""Fleet benchmark (not part of the test run; results go to docs/fleet.md).

    python bench/fleet/gen_logs.py /scratch/fleet-logs 100000
    python bench/fleet/bench_fleet.py --logs /scratch/fleet-logs --work /scratch/fleet-work

1. Per-core rate on a sample: iolens extraction vs PyDarshan job_stats' per-log
   work (darshan.cli.job_stats.process_logfile), interleaved rounds, medians.
2. Full ingest of every log with 2 local workers: wall time, logs/s/core, and
   peak RSS (largest process) for a tenth of the logs and for all of them.
3. Every named query over a synthetic store of --jobs jobs (and 2x as many
   file rows), median of 3 runs each.

    python bench/fleet/bench_fleet.py --queries-only --work /scratch/fleet-work

runs step 3 alone (no logs needed; about a minute to build the store of
1,000,000 jobs, then a few minutes of queries); add --skip build to reuse the
store of an earlier run.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa


def sample_rates(logs, rounds):
    from darshan.cli.job_stats import process_logfile
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    classes = StorageClasses()
    ours, theirs, theirs3 = [], [], []
    for _ in range(rounds):
        t = time.perf_counter()
        for p in logs:
            extract(p, classes, with_findings=False)
        ours.append(len(logs) / (time.perf_counter() - t))
        t = time.perf_counter()
        for p in logs:
            process_logfile(p, "POSIX", None, None)
        theirs.append(len(logs) / (time.perf_counter() - t))
        t = time.perf_counter()
        for p in logs:
            for m in ("POSIX", "MPI-IO", "STDIO"):
                process_logfile(p, m, None, None)
        theirs3.append(len(logs) / (time.perf_counter() - t))
    return statistics.median(ours), statistics.median(theirs), statistics.median(theirs3)


def run_ingest(sources, store, workers):
    """Wall time and peak RSS (KiB, largest process of the tree, GNU time's %M)."""
    shutil.rmtree(store, ignore_errors=True)
    t = time.perf_counter()
    run = subprocess.run(["/usr/bin/time", "-f", "maxrss %M", sys.executable, "-m",
                          "iolens.fleet.cli", "ingest", *sources, "--store", store,
                          "-j", str(workers), "-q", "--no-findings"],
                         check=True, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    peak = int(run.stderr.rsplit("maxrss ", 1)[1].split()[0])
    return elapsed, peak


def synth_store(store, n_jobs, seed=5):
    """A store holding n_jobs synthetic jobs and 2*n_jobs files rows."""
    from iolens.fleet.schema import schemas
    from iolens.fleet.store import Store
    shutil.rmtree(store, ignore_errors=True)
    rng = np.random.default_rng(seed)
    schema = schemas()["jobs"]
    cols = {}
    for f in schema:
        if pa.types.is_integer(f.type):
            cols[f.name] = rng.integers(0, 1 << 34, n_jobs)
        elif pa.types.is_floating(f.type):
            cols[f.name] = rng.lognormal(3, 2, n_jobs)
        elif pa.types.is_boolean(f.type):
            cols[f.name] = rng.random(n_jobs) < 0.03
    apps = np.array([f"app{i}" for i in range(500)], dtype=object)
    cols.update(log_key=np.array([f"/logs/{i}.darshan" for i in range(n_jobs)], dtype=object),
                app=apps[rng.integers(0, 500, n_jobs)], uid=rng.integers(1000, 6000, n_jobs))
    for name in ("log_file", "exe", "log_version", "metadata", "mounts"):
        cols[name] = np.full(n_jobs, "x", dtype=object)
    cols["class_bytes"] = [[("scratch", 1)]] * n_jobs
    cols["platform"] = [[("nnodes", "1")]] * n_jobs
    days = rng.integers(0, 365, n_jobs)
    dates = np.array([f"2025-{1 + d // 31:02d}-{1 + d % 28:02d}" for d in range(365)])[days]
    jobs = pa.table({f.name: pa.array(cols[f.name], type=f.type) for f in schema})
    jobs = jobs.append_column("date", pa.array(dates))
    nf = 2 * n_jobs
    owner = rng.integers(0, n_jobs, nf)
    fschema = schemas()["files"]
    files = {"log_key": cols["log_key"][owner], "log_file": np.full(nf, "x", dtype=object),
             "interface": np.array(["POSIX", "MPI-IO", "STDIO"], dtype=object)[rng.integers(0, 3, nf)],
             "file_id": rng.integers(0, 1 << 62, nf).astype(np.uint64),
             "file": np.full(nf, "/lus/f", dtype=object),
             "storage_class": np.array(["scratch", "home", "project", "node-local"],
                                       dtype=object)[rng.integers(0, 4, nf)],
             "partial": rng.random(nf) < 0.01}
    for f in fschema:
        if f.name not in files:
            files[f.name] = rng.integers(0, 1 << 30, nf) if pa.types.is_integer(f.type) \
                else rng.lognormal(0, 2, nf)
    files = pa.table({f.name: pa.array(files[f.name], type=f.type) for f in fschema})
    files = files.append_column("date", pa.array(dates[owner]))
    with Store(store) as st:
        st.commit_arrow({"jobs": jobs, "files": files}, {"logs": n_jobs})


def query_times(store, repeats=3):
    """Median wall and CPU time of each named query, each run on a fresh
    connection (as `iolens fleet query` does; connecting is timed too, and no
    run profits from the metadata an earlier one cached)."""
    from iolens.fleet import named
    from iolens.fleet.query import connect
    out = {}
    for name in named.NAMED:
        sql = named.sql(name, 20)
        wall, cpu = [], []
        for _ in range(repeats):
            t, c = time.perf_counter(), time.process_time()
            with connect(store) as con:
                con.execute(sql).fetchall()
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        # CPU time (all threads) is less disturbed by other load than wall time.
        out[name] = (statistics.median(wall), statistics.median(cpu))
    return out


def time_queries(a, skip):
    store = os.path.join(a.work, "store-synth")
    if "build" not in skip or not os.path.exists(os.path.join(store, "manifest.json")):
        t = time.perf_counter()
        synth_store(store, a.jobs)
        print(f"synthetic store of {a.jobs} jobs built in {time.perf_counter() - t:.1f} s")
    print(f"named queries, median of 3 (load average before: {os.getloadavg()[0]:.1f}):")
    for name, (wall, cpu) in query_times(store).items():
        print(f"  {name:16} wall {wall * 1000:8.1f} ms   cpu {cpu * 1000:8.1f} ms", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", help="directory of logs from gen_logs.py (not needed with --queries-only)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1_000_000)
    ap.add_argument("--queries-only", action="store_true",
                    help="only time the named queries over a synthetic store (step 3)")
    ap.add_argument("--skip", default="", help="comma list of steps to skip: rate,ingest,query,build "
                    "(build: reuse the synthetic store of an earlier run)")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    os.makedirs(a.work, exist_ok=True)
    if a.queries_only:
        time_queries(a, skip)
        return
    if not a.logs:
        ap.error("--logs is required unless --queries-only")
    from iolens.fleet.logfiles import find_logs
    logs = [path for path, _ in find_logs([a.logs])[0]]
    print(f"{len(logs)} logs")
    if "rate" not in skip:
        sample = logs[:: max(1, len(logs) // a.sample)][: a.sample]
        ours, theirs, theirs3 = sample_rates(sample, a.rounds)
        print(f"sample of {len(sample)} logs, 1 core, median of {a.rounds} interleaved rounds:")
        print(f"  iolens extract (all interfaces + files): {ours:.0f} logs/s")
        print(f"  PyDarshan job_stats POSIX only: {theirs:.0f} logs/s  ->  {ours / theirs:.1f}x")
        print(f"  PyDarshan job_stats POSIX+MPI-IO+STDIO: {theirs3:.0f} logs/s  ->  "
              f"{ours / theirs3:.1f}x")
    if "ingest" not in skip:
        shards = sorted(os.path.join(a.logs, d) for d in os.listdir(a.logs))
        tenth = shards[: max(1, len(shards) // 10)]
        n_tenth = len(find_logs(tenth))
        for label, src, n in (("tenth", tenth, n_tenth), ("all", [a.logs], len(logs))):
            elapsed, peak = run_ingest(src, os.path.join(a.work, f"store-{label}"), 2)
            print(f"ingest {n} logs, 2 workers: {elapsed:.1f} s, {n / elapsed:.0f} logs/s, "
                  f"{n / elapsed / 2:.0f} logs/s/core, peak RSS of largest process "
                  f"{(peak or 0) / 1024:.0f} MiB")
    if "query" not in skip:
        time_queries(a, skip)


if __name__ == "__main__":
    main()
