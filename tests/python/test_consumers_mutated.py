"""Property test on mutated logs, for every verb: whatever values a damaged log
holds, no output of parse --perf, report, diagnose --json, diff, fleet
job-stats, the explorer summary or export holds NaN, an infinity, a negative
duration or byte count, or a rank outside the job.

Mutants are written with the project's writer (iolens.write.Writer) from the
decoded records of three kinds of source: a synthetic log of our own writer
(POSIX, MPI-IO, STDIO and both DXT traces), a log our runtime wrote (when the
runtime is built) and corpus logs.  Each mutant sets a few counters to hostile
values (NaN, infinities, negative or huge times, negative or huge counts), a
rank outside the job, and damages a few DXT segments (NaN or negative times,
an end before its start, impossible offsets and lengths).

What is checked, per verb:
  parse --perf   the derived lines (total_bytes, slowest-rank times,
                 agg_time_by_slowest, agg_perf_by_slowest, slowest rank)
                 (the --base/--total counter dumps print the log's own values,
                 as darshan-parser does, and are not derived figures)
  report         every data-value of the page (as the view's own test)
  diagnose       time lost and numbers of every finding, their ranks
  others         every number of the JSON they give (diff --json's changes,
                 fleet's jobs and files rows, the explorer's summary, the
                 exported Chrome JSON): finite; durations, bytes and counts
                 (keys naming them) not negative; ranks in [-1, nprocs).

A few dozen mutants by default; IOLENS_LONG=1 runs five times more."""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import iolens
from iolens._meta import module_info
from iolens.write import Writer
from report_helpers import corpus_logs, iolens_bin, page_facts, traced_dd
from view_logs import MiB, Segments, posix_row, write_log

LONG = os.environ.get("IOLENS_LONG") == "1"
SEEDS = range(40 if LONG else 8)
EVIL_F = [-2662.0, float("nan"), float("inf"), -float("inf"), 1e300, -7.0, 4.5e18]
EVIL_I = [-5, -(1 << 62), 1 << 62, 4_500_000_000_000_000_000, -2]
COUNTER_MODULES = ("POSIX", "MPI-IO", "STDIO")
# keys of JSON numbers that are durations, byte counts or counts
NON_NEGATIVE = re.compile(r"(bytes|time|seconds|busy|dur|width|bandwidth|perf|count|"
                          r"files|records|size|nseg|damaged|total|read|write|ops|ts$)", re.I)


# ------------------------------------------------------------ sources
LAYOUT = [dict(stripe_size=MiB, stripe_count=2, ext_start=0, ext_end=4 * MiB, osts=[3, 5]),
          dict(stripe_size=MiB, stripe_count=1, ext_start=4 * MiB, ext_end=-1, osts=[7])]


def synthetic_source(path) -> Path:
    posix = [(f"/lus/run/f{k}", k % 4, posix_row(reads=4, writes=2, read_bytes=4 * MiB,
                                                written=2 * MiB, read_time=1.0 + k,
                                                write_time=0.5)) for k in range(4)]
    mpiio = [("/lus/run/f0", -1, {"MPIIO_INDEP_READS": 4, "MPIIO_BYTES_READ": 4 * MiB,
                                  "MPIIO_SIZE_READ_AGG_1M_4M": 4, "MPIIO_F_READ_TIME": 2.0})]
    stdio = [("/lus/run/log.txt", 0, {"STDIO_WRITES": 3, "STDIO_BYTES_WRITTEN": 300,
                                      "STDIO_MAX_BYTE_WRITTEN": 299, "STDIO_F_WRITE_TIME": 0.1})]
    seg, mseg = Segments(), Segments()
    for k in range(16):
        start = 0.5 * k
        seg.add("/lus/run/f0", k % 4, "read" if k % 2 else "write", k * MiB, MiB, start,
                start + 0.3)
        mseg.add("/lus/run/f0", k % 4, "read" if k % 2 else "write", -1 if k == 3 else k * MiB,
                 MiB, start, start + 0.35)
    return write_log(path, nprocs=4, run_time=20, posix=posix, mpiio=mpiio, stdio=stdio,
                     lustre=[("/lus/run/f0", LAYOUT)],
                     dxt_posix=seg, dxt_mpiio=mseg)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """kind -> source logs, made once per module run (in pytest's tmp directory)."""
    made = {}

    def get(kind: str, seed: int):
        if kind not in made:
            tmp = tmp_path_factory.mktemp(kind)
            if kind == "synthetic":
                made[kind] = [synthetic_source(tmp / "synthetic.darshan")]
            elif kind == "runtime":
                made[kind] = [p for p in [traced_dd(tmp)] if p is not None]
            else:
                made[kind] = [p for p in corpus_logs()
                              if any(m in p.parts[-2] for m in ("dxt", "imbalanced", "stdio"))]
        if not made[kind]:
            pytest.skip(f"no {kind} source log (runtime not built, or ../shared/corpus absent)")
        return made[kind][seed % len(made[kind])]
    return get


# ------------------------------------------------------------ mutation
def mutate(src: Path, dst: Path, seed: int) -> Path:
    """`src`'s job, names, counter records and DXT traces, written to `dst` with
    a few values made hostile."""
    rng = np.random.default_rng(seed)
    with iolens.open(src) as log:
        job, names = log.job, dict(log.names)
        nprocs = max(int(job["nprocs"]), 1)
        records = {m: log.records(m) for m in COUNTER_MODULES if m in log.modules}
        traces = {m: log.dxt(m) for m in ("DXT_POSIX", "DXT_MPIIO") if m in log.modules}
        exe = log.exe
    with Writer(str(dst)) as w:
        w.set_job(uid=int(job["uid"]), start_time_sec=int(job["start_time_sec"]),
                  end_time_sec=int(job["end_time_sec"]), nprocs=nprocs,
                  jobid=int(job["jobid"]), exe=exe)
        w.add_names(list(names), list(names.values()))
        for module in sorted(records, key=lambda m: module_info(m).id):
            _put_records(w, module, records[module], rng, nprocs)
        for module, frame in traces.items():
            _put_trace(w, module, frame, rng)
    return dst


def _put_records(w, module, frame, rng, nprocs):
    info = module_info(module)
    ints = frame[list(info.counters)].to_numpy(np.int64, copy=True)
    flts = frame[list(info.fcounters)].to_numpy(np.float64, copy=True)
    ranks = frame["rank"].to_numpy(np.int64, copy=True)
    n = len(frame)
    for _ in range(int(rng.integers(1, 4)) if n else 0):
        i = int(rng.integers(0, n))
        if rng.random() < 0.5:
            flts[i, int(rng.integers(0, flts.shape[1]))] = float(rng.choice(EVIL_F))
        else:
            ints[i, int(rng.integers(0, ints.shape[1]))] = int(rng.choice(EVIL_I))
    if n and rng.random() < 0.5:
        ranks[int(rng.integers(0, n))] = int(rng.choice([nprocs, nprocs + 7, 1 << 40, -3]))
    w.put_records(module, frame["id"].to_numpy(np.uint64).tolist(), ranks.tolist(), ints, flts)


def _put_trace(w, module, frame, rng):
    if not len(frame):
        return
    frame = frame.copy()
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(0, len(frame)))
        col = str(rng.choice(["start", "end", "offset", "length"]))
        if col in ("start", "end"):
            frame.loc[i, col] = float(rng.choice(EVIL_F[:4] + [-1.0]))
        else:
            frame.loc[i, col] = int(rng.choice([-9, -1, 1 << 62]))
    ids, ranks, hosts, wc, rc, segs = [], [], [], [], [], []
    for (rid, rank), g in frame.groupby(["id", "rank"], sort=False):
        writes, reads = g[g["op"].astype(str) == "write"], g[g["op"].astype(str) == "read"]
        ids.append(int(rid))
        ranks.append(int(rank))
        hosts.append(str(g["hostname"].iloc[0]) if "hostname" in g else "node")
        wc.append(len(writes))
        rc.append(len(reads))
        segs.append(writes)
        segs.append(reads)
    allsegs = [s for s in segs if len(s)]
    cols = {k: np.concatenate([s[k].to_numpy() for s in allsegs]) for k in
            ("offset", "length", "start", "end")}
    w.put_dxt(module, ids, ranks, hosts, wc, rc, cols["offset"].astype(np.int64),
              cols["length"].astype(np.int64), cols["start"].astype(np.float64),
              cols["end"].astype(np.float64))


# ------------------------------------------------------------ checks
def walk(value, key="", out=None, skip=()):
    """(key, number) of every number in a JSON-like value (the nearest dict key),
    leaving out the values under the keys `skip`."""
    out = [] if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            if str(k) not in skip:
                walk(v, str(k), out, skip)
    elif isinstance(value, (list, tuple)):
        for v in value:
            walk(v, key, out, skip)
    elif isinstance(value, np.ndarray):
        walk(value.tolist(), key, out, skip)
    elif isinstance(value, (bool, np.bool_)):
        pass
    elif isinstance(value, (int, float, np.integer, np.floating)):
        out.append((key, float(value)))
    return out


def check_numbers(value, nprocs, where, skip=()):
    for key, number in walk(value, skip=skip):
        assert math.isfinite(number), (where, key, number)
        if key in ("rank", "ranks", "slowest_rank"):
            assert -1 <= number < nprocs, (where, key, number)
        elif NON_NEGATIVE.search(key):
            assert number >= 0, (where, key, number)


_PERF_LINE = re.compile(r"# ((?:shared files: )?(?:total_bytes|slowest_rank\w*|time_by_slowest|"
                        r"agg_time_by_slowest|agg_perf_by_slowest)): (\S+)")


def check_parse(path, nprocs):
    tool = iolens_bin()
    if tool is None:
        return
    run = subprocess.run([tool, "parse", "--perf", str(path)], capture_output=True, text=True,
                         timeout=120)
    for line in run.stdout.splitlines():
        m = _PERF_LINE.match(line)
        if not m:
            continue
        number = float(m.group(2))
        assert math.isfinite(number) and number >= 0, ("parse --perf", line)
        if "slowest_rank:" in line:
            assert number < nprocs, ("parse --perf", line)


def check_every_verb(path, original, tmp: Path):
    from iolens.diagnose.engine import diagnose_log
    from iolens.diagnose.out_json import dumps
    from iolens.diff import as_json, diff_logs
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    from iolens.export import chrome_json, model
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    from iolens.report import render_html
    with iolens.open(path) as log:
        nprocs = max(int(log.job["nprocs"]), 1)
        _, values = page_facts(render_html(log))
        diagnosis = json.loads(dumps(diagnose_log(log)))
        idx = index_for(log, tmp / "cache")
        check_numbers(summary(log, idx), nprocs, "explore summary",
                      skip=("t", "offset", "lane", "file", "op", "thread", "start", "end",
                            "t0", "t1", "first", "last", "version", "jobid",
                            "damage"))   # damage: counts per kind ("rank": 2 records)
        if idx.nseg:
            out = tmp / "trace.json"
            with open(out, "wb") as f:
                chrome_json.write(model.Export(log), f)
            doc = json.loads(out.read_text())
            check_numbers(doc["traceEvents"], nprocs, "export", skip=("pid", "tid", "id",
                                                                      "offset"))
    for key, value in values.items():
        try:
            number = float(value)
        except ValueError:
            continue
        assert math.isfinite(number), ("report", key, value)
    for f in diagnosis["findings"]:
        check_numbers([f["time_lost_seconds"]] + list(f["numbers"].values()), nprocs,
                      f"diagnose {f['rule']}")
        assert all(0 <= r < nprocs for r in f["ranks"]), f
    changes = as_json(path, original, diff_logs(path, original))["changes"]
    check_numbers([{k: c[k] for k in ("a", "b", "score") if c[k] is not None}
                   for c in changes], nprocs, "diff")
    row = extract(str(path), StorageClasses(), with_findings=False)
    if "job" in row:            # a log no column can hold is quarantined, which is fine
        check_numbers({k: v for k, v in row["job"].items()
                       if k not in ("job_id", "uid", "log_dev", "log_ino", "log_mtime",
                                    "start_time", "end_time", "partial_flag")},
                      nprocs, "fleet job")
        check_numbers({k: v for k, v in row["files"].items() if k != "file_id"}, nprocs,
                      "fleet files")
    check_parse(path, nprocs)


@pytest.mark.parametrize("kind", ["synthetic", "runtime", "corpus"])
@pytest.mark.parametrize("seed", SEEDS)
def test_no_verb_shows_a_damaged_value(tmp_path, sources, kind, seed):
    original = sources(kind, seed)
    mutant = mutate(original, tmp_path / "mutant.darshan", seed)
    check_every_verb(mutant, original, tmp_path)
