"""Issue 28: patterns caught at the scale where developers test (4 processes, a
few seconds) and on large generated logs (1,024 processes), with severity from
cost and a stated projection; --explain; root causes whose time never exceeds a
process's I/O time; the corrected rules (random access after a file's first,
node-local alignment, aggregators, read-by-all of a file the job wrote)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import iolens
from diag_logs import MiB, build, rec
from iolens.diagnose import diagnose, diagnose_log
from iolens.diagnose.cli import main
from iolens.diagnose.grouping import OTHERS
from iolens.diagnose.out_json import dumps
from iolens.view import JobView
from test_diagnose_rules import LOCAL_MOUNTS, SCENARIOS

SMALL_SCALE, LARGE_SCALE = 4, 1024
RUN = 3                                    # seconds: a developer's test run


def others(n, **c):
    """Every rank but 0 reads a 4 KiB configuration file (so each has a record)."""
    return [rec("/scratch/config.txt", r, POSIX_OPENS=1, POSIX_READS=1, POSIX_BYTES_READ=4096,
                POSIX_MAX_BYTE_READ=4095, POSIX_F_READ_TIME=0.001, **c) for r in range(1, n)]


def rank0_writes_all(n):
    data = 16 * MiB * n                    # 64 MiB at 4 processes
    return dict(nprocs=n, run_time=RUN if n == SMALL_SCALE else 30, POSIX=[
        rec("/scratch/out.dat", 0, POSIX_OPENS=1, POSIX_WRITES=data // MiB, POSIX_SEQ_WRITES=data // MiB,
            POSIX_BYTES_WRITTEN=data, POSIX_MAX_BYTE_WRITTEN=data - 1,
            POSIX_F_WRITE_TIME=0.05 * n / SMALL_SCALE)] + others(n))


def each_writes_its_share(n):
    return dict(nprocs=n, run_time=RUN, POSIX=[
        rec(f"/scratch/out.{r}", r, POSIX_OPENS=1, POSIX_WRITES=16, POSIX_SEQ_WRITES=16,
            POSIX_BYTES_WRITTEN=16 * MiB, POSIX_MAX_BYTE_WRITTEN=16 * MiB - 1,
            POSIX_F_WRITE_TIME=0.0125) for r in range(n)])


def all_read_input(n, whole=True):
    """Rank 0 writes the input, then every process reads it whole (or its part)."""
    size = 8 * MiB
    part = size if whole else size // n
    reads = [rec("/scratch/in.dat", r, POSIX_OPENS=1, POSIX_READS=part // MiB or 1,
                 POSIX_SEQ_READS=part // MiB or 1, POSIX_BYTES_READ=part,
                 POSIX_MAX_BYTE_READ=(size if whole else part * (r + 1)) - 1,
                 POSIX_F_READ_TIME=0.02,
                 **({"POSIX_BYTES_WRITTEN": size, "POSIX_WRITES": 8,
                     "POSIX_MAX_BYTE_WRITTEN": size - 1, "POSIX_SEQ_WRITES": 8}
                    if r == 0 else {})) for r in range(n)]
    return dict(nprocs=n, run_time=RUN, POSIX=reads)


def random_reads(n, seq=128):
    return dict(nprocs=n, run_time=RUN, POSIX=[
        rec("/scratch/data", r, POSIX_OPENS=1, POSIX_READS=256, POSIX_SEQ_READS=seq,
            POSIX_BYTES_READ=256 * 4096, POSIX_MAX_BYTE_READ=64 * MiB - 1,
            POSIX_F_READ_TIME=0.2) for r in range(n)])


def files_read_once(n, files):
    """Each file read once at offset 0: the runtime counts that first read as not
    sequential (runtime-behavior spec), but nothing was out of order."""
    return dict(nprocs=n, run_time=RUN, POSIX=[
        rec(f"/scratch/f/{i}", i % n, POSIX_OPENS=1, POSIX_READS=1, POSIX_SEQ_READS=0,
            POSIX_BYTES_READ=4096, POSIX_MAX_BYTE_READ=4095, POSIX_F_READ_TIME=0.0001)
        for i in range(files)])


def unaligned_1m(n, bad=16):
    return dict(nprocs=n, run_time=RUN, POSIX=[
        rec("/scratch/out.dat", r, POSIX_OPENS=1, POSIX_WRITES=16, POSIX_SEQ_WRITES=16,
            POSIX_BYTES_WRITTEN=16 * MiB, POSIX_MAX_BYTE_WRITTEN=16 * MiB * n + 511,
            POSIX_FILE_NOT_ALIGNED=bad, POSIX_FILE_ALIGNMENT=4096, POSIX_F_WRITE_TIME=0.1)
        for r in range(n)])


# rule -> (pattern, the same job without it): each built at 4 and at 1,024 processes
PATTERNS = {
    "rank0-io": (rank0_writes_all, each_writes_its_share),
    "read-by-all": (all_read_input, lambda n: all_read_input(n, whole=False)),
    "random-access": (random_reads, lambda n: random_reads(n, seq=255)),
    "misaligned-file": (unaligned_1m, lambda n: unaligned_1m(n, bad=0)),
}


def found(tmp_path, name, kwargs):
    diag = diagnose(build(str(tmp_path / f"{name}.darshan"), **kwargs))
    assert not diag.notes, diag.notes
    return diag, {f.rule.id: f for f in diag.findings}


@pytest.mark.parametrize("n", [SMALL_SCALE, LARGE_SCALE])
@pytest.mark.parametrize("rule", sorted(PATTERNS))
def test_pattern_found_at_any_scale(tmp_path, rule, n):
    yes, no = PATTERNS[rule]
    _, hits = found(tmp_path, "yes", yes(n))
    assert rule in hits, sorted(hits)
    f = hits[rule]
    assert f.projection is not None and f.projection.processes == LARGE_SCALE
    if f.hit.time_lost <= 0.005:
        assert f.severity == "info"
    _, hits = found(tmp_path, "no", no(n))
    assert rule not in hits, sorted(hits)


def test_rank0_projection_stated(tmp_path):
    """The issue's example: rank 0 writes all 64 MiB at 4 processes in 0.05 s:
    cheap now (info), with the cost at 1,024 processes stated."""
    _, hits = found(tmp_path, "r0", rank0_writes_all(SMALL_SCALE))
    f = hits["rank0-io"]
    assert f.severity == "info"
    assert "rank 0 wrote 64.0 MiB of 64.0 MiB" in f.hit.evidence[0]
    # 0.05 s of rank 0's I/O, 3/4 of it lost; x 1024/4 at scale
    assert f.hit.time_lost == pytest.approx(0.0375)
    assert f.projection.seconds == pytest.approx(0.0375 * 256)
    assert "with the same data per process at 1,024 processes, about 9.60 s" in f.projection.text


def test_rank0_at_scale_is_costly_and_contains_its_imbalance(tmp_path):
    diag, hits = found(tmp_path, "r0big", rank0_writes_all(LARGE_SCALE))
    assert hits["rank0-io"].severity in ("warning", "critical")
    assert "imbalance-ranks" in hits
    assert hits["imbalance-ranks"].group == "rank0-io"
    roots = [g.root.rule.id for g in diag.groups]
    assert "imbalance-ranks" not in roots


def test_zero_cost_is_never_a_warning(tmp_path):
    diag, _ = found(tmp_path, "cheap", files_read_once(SMALL_SCALE, 400))
    for f in diag.findings:
        if f.rule.costed and f.hit.time_lost <= 0.005:
            assert f.severity == "info", f.rule.id


@pytest.mark.parametrize("files", [400, 20000])
def test_files_read_once_at_offset_zero_are_not_random(tmp_path, files):
    _, hits = found(tmp_path, "once", files_read_once(SMALL_SCALE, files))
    assert "random-access" not in hits


def test_random_text_says_not_sequential(tmp_path):
    _, hits = found(tmp_path, "rnd", random_reads(SMALL_SCALE))
    text = " ".join(hits["random-access"].hit.evidence)
    assert "backwards" not in text and "not sequential" in text
    # 256 reads per process, 128 sequential, the first of each not counted
    assert hits["random-access"].hit.numbers["random_reads"] == 4 * 127


def test_read_by_all_counts_a_file_the_job_wrote(tmp_path):
    _, hits = found(tmp_path, "rba", all_read_input(SMALL_SCALE))
    assert "/scratch/in.dat" in hits["read-by-all"].hit.files


def explain(args, capsys):
    code = main([str(a) for a in args] + ["--explain", "--color", "never"])
    assert code == 0
    return capsys.readouterr().out


def test_explain_shows_a_silent_rule_with_values_and_thresholds(tmp_path, capsys):
    log = build(str(tmp_path / "once.darshan"), **files_read_once(SMALL_SCALE, 400))
    out = explain([log], capsys)
    block = out.split("[random-access] silent")[1].split("\n  [")[0]
    assert "condition: more than 20 % of the POSIX reads (or writes) after each file's first " \
           "access, at least 64" in block
    assert "POSIX reads after a file's first that are not sequential = 0 >= " \
           "random.min_count (64): no" in block
    # thresholds in force: the condition text is generated from them
    th = tmp_path / "th.toml"
    th.write_text("[random]\nmin_count = 7\nfraction = 0.5\n")
    out = explain([log, "--thresholds", th], capsys)
    block = out.split("[random-access] silent")[1].split("\n  [")[0]
    assert "more than 50 % of the POSIX reads" in block and "at least 7," in block
    assert "random.min_count (7): no" in block


def test_explain_in_json(tmp_path, capsys):
    log = build(str(tmp_path / "once.darshan"), **files_read_once(SMALL_SCALE, 40))
    main([log, "--json", "--explain"])
    doc = json.loads(capsys.readouterr().out)
    checks = {c["rule"]: c for c in doc["checks"]}
    assert checks["random-access"]["status"] == "silent"
    assert any("random.min_count" in t for t in checks["random-access"]["tests"])
    # a rule whose data is not in the log says so
    assert checks["hdf5-chunking"]["tests"] == ["not applicable: the log has no H5D records"]
    assert checks["damaged-log"]["tests"] == ["records and trace segments set aside = 0"]


def test_node_local_misalignment_is_info_and_explained(tmp_path, capsys):
    log = build(str(tmp_path / "local.darshan"), metadata="mntfs=l4K,s1M,l4K\n",
                mounts=LOCAL_MOUNTS, **{k: v for k, v in unaligned_1m(SMALL_SCALE).items()
                                        if k != "POSIX"},
                POSIX=[dict(r, name="/local/ssd/out.dat") for r in unaligned_1m(4)["POSIX"]])
    f = {f.rule.id: f for f in diagnose(log).findings}["misaligned-file"]
    assert f.severity == "info" and "node-local" in f.hit.evidence[0]
    out = explain([log], capsys)
    block = out.split("[misaligned-file] fired")[1].split("\n  [")[0]
    assert "misaligned accesses (shared storage) = 0 >= alignment.min_count (16): no" in block
    assert "misaligned accesses (node-local) = 64 >= alignment.min_count (16): yes" in block


def collective_job(nodes, aggregators, metadata=""):
    return dict(nprocs=nodes, run_time=RUN, metadata=f"nnodes={nodes}\n{metadata}",
                MPI_IO=[rec("/scratch/out.dat", -1, MPIIO_COLL_WRITES=nodes * 10,
                            MPIIO_BYTES_WRITTEN=nodes * 10 * MiB, MPIIO_F_WRITE_TIME=nodes * 0.5)],
                POSIX=[rec("/scratch/out.dat", r, POSIX_WRITES=10 * nodes // aggregators,
                           POSIX_SEQ_WRITES=10 * nodes // aggregators,
                           POSIX_BYTES_WRITTEN=10 * MiB * nodes // aggregators,
                           POSIX_F_WRITE_TIME=0.4 * nodes / aggregators)
                       for r in range(aggregators)])


def test_aggregators_use_the_jobs_nodes_not_the_log_hint(tmp_path, capsys):
    """64 nodes, 64 ranks each writing their share collectively: no aggregator
    advice, even with the runtime's own 'h=...cb_nodes=4' log hint; and the
    aggregators' larger POSIX share is not reported as imbalance."""
    job = collective_job(64, 64, "h=romio_no_indep_rw=true;cb_nodes=4\n")
    _, hits = found(tmp_path, "agg64", job)
    assert "aggregators" not in hits
    _, hits = found(tmp_path, "agg8", collective_job(64, 8, "h=romio_no_indep_rw=true;cb_nodes=64\n"))
    assert "8 aggregators" in hits["aggregators"].hit.evidence[0]
    assert "imbalance-ranks" not in hits and "rank0-io" not in hits
    log = build(str(tmp_path / "shared.darshan"), **dict(
        collective_job(64, 1, "h=romio_no_indep_rw=true;cb_nodes=4\n"),
        POSIX=[rec("/scratch/out.dat", -1, POSIX_WRITES=640, POSIX_BYTES_WRITTEN=640 * MiB)]))
    out = explain([log], capsys)
    assert "'h=' hints are the runtime's own" in out.split("[aggregators]")[1].split("\n  [")[0]


# ------------------------------------------------------------------ grouping and the cap
def view_io_seconds(path) -> dict:
    """Each process's I/O time straight from the view (JobView.io_time): POSIX and
    STDIO add up, a layer above contains them."""
    out, times = {}, {}
    with iolens.open(path) as log:
        v = JobView(log)
        for m in ("POSIX", "STDIO", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR",
                  "DFS", "DAOS", "MDHIM"):
            if m in log.modules:
                t = v.io_time(m)
                if t is not None:
                    times[m] = t
        ranks = set()
        for t in times.values():
            ranks.update(int(r) for r in t.per_process.ranks)

        def of(r):
            def one(m):
                t = times.get(m)
                return 0.0 if t is None else (t.shared if r == OTHERS else t.of(r))
            return max([one("POSIX") + one("STDIO")] +
                       [one(m) for m in times if m not in ("POSIX", "STDIO")])
        for r in list(ranks) + [OTHERS]:
            out[r] = of(r)
    return out


def check_cap(path):
    with iolens.open(path) as log:
        diag = diagnose_log(log)
    io = view_io_seconds(path)
    for proc, (lost, _) in diag.lost_by_process.items():
        assert lost <= io.get(proc, io[OTHERS]) * (1 + 1e-9) + 1e-9, (path, proc, lost)
    for g in diag.groups:
        assert g.time_lost <= max(io.values()) * (1 + 1e-9) + 1e-9
        assert all(m.group == g.root.rule.id for m in g.members)
    return diag


GENERATED = {f"{rule}-{way}": kw for rule, pair in SCENARIOS.items()
             for way, kw in zip(("yes", "no"), pair)}
GENERATED.update({f"{rule}-{n}-{way}": fn(n) for rule, pair in PATTERNS.items()
                  for n in (SMALL_SCALE, LARGE_SCALE) for way, fn in zip(("yes", "no"), pair)})


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_time_lost_within_io_time_generated(tmp_path, name):
    check_cap(build(str(tmp_path / f"{name}.darshan"), **GENERATED[name]))


CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "logs"
CORPUS_LOGS = sorted(CORPUS.rglob("*.darshan")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_LOGS, reason=f"shared corpus not found at {CORPUS}")
@pytest.mark.parametrize("log", CORPUS_LOGS, ids=lambda p: p.name[:60])
def test_time_lost_within_io_time_corpus(log):
    check_cap(log)


def test_imbalanced_io_no_longer_claims_more_than_the_run():
    """The issue's case: per-process time lost added up to twice the 1,479 s run."""
    path = CORPUS / "imbalanced_io" / "imbalanced-io.darshan"
    if not path.is_file():
        pytest.skip(f"corpus log not found at {path}")
    diag = check_cap(path)
    run = float(diag.job["run_time"])
    assert all(lost <= run for lost, _ in diag.lost_by_process.values())
    doc = json.loads(dumps(diag))
    assert doc["time_lost_by_process"]
    assert all(r["lost_seconds"] <= r["io_seconds"] + 1e-9 for r in doc["time_lost_by_process"])


def test_small_io_shared_and_no_collective_are_one_cause(tmp_path):
    """The same 80,000 independent 4 KiB writes: one root cause, one time."""
    kw = dict(nprocs=8, MPI_IO=[rec("/scratch/ior.dat", -1, MPIIO_INDEP_WRITES=80000,
                                    MPIIO_SIZE_WRITE_AGG_1K_10K=80000,
                                    MPIIO_F_WRITE_TIME=40.0, MPIIO_BYTES_WRITTEN=80000 * 4096)],
              POSIX=[rec("/scratch/ior.dat", -1, POSIX_WRITES=80000, POSIX_SEQ_WRITES=80000,
                         POSIX_SIZE_WRITE_1K_10K=80000, POSIX_F_WRITE_TIME=38.0)])
    diag, hits = found(tmp_path, "ior", kw)
    assert hits["small-io-shared"].group == "small-io" and hits["no-collective"].group == "small-io"
    group = next(g for g in diag.groups if g.root.rule.id == "small-io")
    assert {m.rule.id for m in group.members} >= {"small-io-shared", "no-collective"}


def test_tiny_files_contain_their_metadata_time(tmp_path):
    kw = dict(nprocs=4, run_time=1000,
              POSIX=[rec(f"/scratch/m/{i}", 0, POSIX_OPENS=1, POSIX_F_META_TIME=0.02)
                     for i in range(3000)])
    diag, hits = found(tmp_path, "tiny", kw)
    assert hits["metadata-time"].group == "tiny-files"
    assert [g.root.rule.id for g in diag.groups].count("tiny-files") == 1


def test_damaged_values_replaced_by_one_finding(tmp_path):
    """Records a healthy run cannot write (a rank outside the job, a huge
    metadata time, a negative write time with petabytes) would raise metadata,
    rank-0 and imbalance findings; the view sets them aside, so the diagnosis is
    the clean log's plus the one damaged-log finding."""
    clean = each_writes_its_share(SMALL_SCALE)
    damaged = dict(clean, POSIX=clean["POSIX"] + [
        rec("/scratch/evil.0", 9, POSIX_OPENS=1, POSIX_F_META_TIME=1e6),
        rec("/scratch/evil.1", 0, POSIX_WRITES=1, POSIX_BYTES_WRITTEN=1 << 60,
            POSIX_F_WRITE_TIME=-2662.0),
        rec("/scratch/evil.2", 1, POSIX_OPENS=3, POSIX_F_META_TIME=float("nan"))])
    diag_clean, _ = found(tmp_path, "clean", clean)
    diag = diagnose(build(str(tmp_path / "damaged.darshan"), **damaged))
    ids = [f.rule.id for f in diag.findings]
    assert "damaged-log" in ids
    rest = {f.rule.id: f.hit.evidence for f in diag.findings if f.rule.id != "damaged-log"}
    assert rest == {f.rule.id: f.hit.evidence for f in diag_clean.findings}
    assert "3 records" in diag.findings[ids.index("damaged-log")].hit.evidence[0]


# ------------------------------------------------------------------ every rule, large
K = 64          # 4 processes -> 256, 8 -> 512, 16 -> 1,024


def scaled(kwargs, k=K):
    """The same job on k times the processes, each new process doing what its
    counterpart did (rank r's records again for r + n, r + 2n, ...; the same file
    names, so files shared stay shared): fractions and shapes stay, counts grow.
    A shared record (rank -1) stands for every process: its counts, bytes and
    summed times grow k times, its slowest/fastest-process figures stay."""
    n = kwargs.get("nprocs", 4)
    out = dict(kwargs, nprocs=n * k)
    if "metadata" in kwargs:
        out["metadata"] = re.sub(r"nnodes=(\d+)", lambda m: f"nnodes={int(m.group(1)) * k}",
                                 kwargs["metadata"])
    for module, records in kwargs.items():
        if module in ("mounts", "lustre") or not isinstance(records, list):   # layouts stay
            continue
        grown = []
        for r in records:
            if r["rank"] < 0:
                c = {key: (v * k if _summed(key) else v) for key, v in r["counters"].items()}
                grown.append(dict(r, counters=c))
            else:
                grown += [dict(r, rank=r["rank"] + n * j) for j in range(k)]
        out[module] = grown
    if kwargs.get("dxt"):
        out["dxt"] = {m: [dict(s, rank=s["rank"] + n * j) for s in segs for j in range(k)]
                      for m, segs in kwargs["dxt"].items()}
    return out


def _summed(counter: str) -> bool:
    """A shared record's counter that adds up over processes."""
    kept = ("SLOWEST", "FASTEST", "MAX_BYTE", "ALIGNMENT", "ACCESS", "STRIDE", "MODE",
            "TIMESTAMP", "VARIANCE", "DATASPACE", "DATATYPE", "CHUNK", "USE_MPIIO",
            "MAX_READ_TIME", "MAX_WRITE_TIME")
    return not any(word in counter for word in kept)


# rules whose scenario is about one process among few (or one process's file),
# which copying processes changes on purpose; rank0-io has its large test in PATTERNS
NOT_SCALED = {
    "rank0-io": "copies give other ranks rank 0's data; PATTERNS has it at 1,024",
    "imbalance-ranks": "copies of the slow rank make many slow ranks: the median moves",
    "dxt-stragglers": "copies of the straggler make the median a straggler",
    "damaged-log": "the out-of-job rank 9 is copied into the job",
    "node-local-shared": "the silent case's per-process file becomes one name written by many",
    "conflicting-writes": "copies of a process write its bytes again: the silent case conflicts; "
                          "test_diagnose_ost_conflict.py has it on a windowed large trace",
}


@pytest.mark.parametrize("rule", sorted(set(SCENARIOS) - set(NOT_SCALED)))
def test_rule_both_ways_on_a_large_log(tmp_path, rule):
    yes, no = SCENARIOS[rule]
    _, hits = found(tmp_path, "yes", scaled(yes))
    assert rule in hits, sorted(hits)
    _, hits = found(tmp_path, "no", scaled(no))
    assert rule not in hits, sorted(hits)
