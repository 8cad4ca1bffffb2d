"""`iolens run` leaves one log per job (docs/cli.md, docs/runtime.md "Ranks from
launchers"): the logs of every process of the program's tree, with the safety
copies of killed processes recovered, merged into one job log; processes that a
launcher gave a rank (RANK/WORLD_SIZE) keep it and their common file is reduced to
one shared record (rank -1).  Every job log must be read by PyDarshan 3.5.0 and
upstream's darshan-parser."""
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from rt_helpers import REPO

HERE = Path(__file__).resolve().parent
PY = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
MPJOB = REPO / "tests" / "recovery" / "progs" / "mpjob.py"
SUMMED = ("POSIX_OPENS", "POSIX_READS", "POSIX_WRITES", "POSIX_BYTES_READ",
          "POSIX_BYTES_WRITTEN")


@pytest.fixture(scope="module")
def rankio(tmp_path_factory):
    exe = tmp_path_factory.mktemp("rankio") / "rankio"
    r = subprocess.run(["cc", "-O1", "-o", str(exe), str(HERE / "progs" / "rankio.c")],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        pytest.skip(f"no C compiler for the rank program: {r.stderr[-300:]}")
    return exe


def darshan_parser():
    for p in (os.environ.get("IOLENS_DARSHAN_PARSER"), "/opt/upstream-3.5.0/bin/darshan-parser",
              shutil.which("darshan-parser")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def clean_env(runtime, tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_"))}
    for k in ("RANK", "WORLD_SIZE", "SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "PALS_RANKID",
              "OMPI_COMM_WORLD_RANK"):
        env.pop(k, None)
    mmap = tmp_path / "mmap"
    mmap.mkdir(exist_ok=True)
    env.update({"IOLENS_RUNTIME": str(runtime), "LD_PRELOAD": "",
                "DARSHAN_MMAP_LOGPATH": str(mmap)})
    env.update(extra)
    return env


def run_job(tool, runtime, tmp_path, argv, keep=False, timeout=120, trace=False, **env):
    """`iolens run` -> (result, job log, process logs listed with --keep-process-logs)."""
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    cmd = [str(tool), "run", "--logpath", str(logs)] + (["--keep-process-logs"] if keep else [])
    cmd += ["--trace"] if trace else []
    r = subprocess.run(cmd + ["--"] + [str(a) for a in argv], capture_output=True, text=True,
                       timeout=timeout, env=clean_env(runtime, tmp_path, **env))
    assert r.returncode == 0, r.stderr
    written = re.findall(r"^iolens: log written to (.+)$", r.stderr, re.M)
    assert len(written) == 1, r.stderr
    # the logs merged, then those of processes that recorded nothing (not merged)
    procs = [Path(p) for p in re.findall(r"^iolens: process log (\S+)$", r.stderr, re.M)]
    empty = [Path(p) for p in re.findall(r"^iolens: process log (\S+) \(nothing recorded\)$",
                                         r.stderr, re.M)]
    assert all(p.exists() for p in procs + empty)
    assert all(view(p)[1] == {} for p in empty)
    # no safety copy or private directory of the run is left behind
    assert list((tmp_path / "mmap").iterdir()) == []
    return r, Path(written[0]), procs


def view(log):
    """(nprocs, {(file, rank): {counter: value}} of POSIX, metadata) read by PyDarshan."""
    import darshan
    with darshan.DarshanReport(str(log), read_all=True) as rep:
        nprocs = rep.metadata["job"]["nprocs"]
        meta = rep.metadata["job"].get("metadata", {})
        recs = {}
        if "POSIX" in rep.records:
            df = rep.records["POSIX"].to_df()["counters"]
            for row in df.to_dict("records"):
                recs[(rep.name_records[row["id"]], int(row["rank"]))] = row
    return nprocs, recs, meta


def totals(recs_list):
    """{file: {counter: sum}} over any number of record dicts."""
    out = defaultdict(lambda: defaultdict(int))
    for recs in recs_list:
        for (name, _), row in recs.items():
            for c in SUMMED:
                out[name][c] += int(row[c])
    return {k: dict(v) for k, v in out.items()}


def upstream_reads(log, nprocs):
    """darshan-parser 3.5.0 reads the job log; it sees the same process count.
    Called last in a test: without the parser the test ends there, skipped with
    the reason, after every other check has passed."""
    parser = darshan_parser()
    if parser is None:
        pytest.skip("upstream darshan-parser not found (/opt/upstream-3.5.0/bin, "
                    "IOLENS_DARSHAN_PARSER); its check was not run")
    r = subprocess.run([parser, str(log)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"# nprocs: {nprocs}\n" in r.stdout


def check_against_process_logs(job, procs):
    """The job log holds every process: nprocs is their number and every file's
    summed counters are theirs; a file every process has is one rank -1 record."""
    nprocs, recs, _ = view(job)
    per = [view(p) for p in procs]
    assert nprocs == len(procs) and all(p[0] == 1 for p in per)
    assert totals([recs]) == totals([p[1] for p in per])
    common = set.intersection(*({n for n, _ in p[1]} for p in per))
    for name in common:
        assert [rk for n, rk in recs if n == name] == [-1], name
    assert {rk for _, rk in recs} - {-1} <= set(range(nprocs))
    assert heat_totals(job) == sum_dicts(heat_totals(p) for p in procs)   # on one grid
    return nprocs, recs


def heat_totals(log):
    """{(module, op): bytes} of the HEATMAP records, read by PyDarshan (which
    refuses a log whose heatmap records differ in bin width or count)."""
    import darshan
    with darshan.DarshanReport(str(log), read_all=True) as rep:
        return {(mod, op): int(hm.to_df(ops=[op]).to_numpy().sum())
                for mod, hm in rep.heatmaps.items() for op in ("read", "write")}


def sum_dicts(dicts):
    out = defaultdict(int)
    for d in dicts:
        for k, v in d.items():
            out[k] += v
    return dict(out)


@pytest.mark.parametrize("how", ["fork", "spawn"])
def test_multiprocessing_one_job_log(tool, runtime, tmp_path, how):
    data = tmp_path / "data"
    data.mkdir()
    r, job, procs = run_job(tool, runtime, tmp_path, [PY, MPJOB, data, how], keep=True)
    assert len(procs) >= 5 and all(p.exists() for p in procs)    # parent + 4 workers
    assert f"one log of the program's {len(procs)} processes" in r.stderr
    nprocs, recs = check_against_process_logs(job, procs)
    ranks = []
    for i in range(4):                  # each worker's file: one record, its own rank
        (key,) = [k for k in recs if k[0] == str(data / f"w{i}")]
        assert recs[key]["POSIX_WRITES"] == 10 and recs[key]["POSIX_BYTES_WRITTEN"] == 10000
        ranks.append(key[1])
    assert len(set(ranks)) == 4 and 0 not in ranks    # rank 0: the parent, started first
    shared = totals([recs])[str(data / "shared")]
    assert (shared["POSIX_READS"], shared["POSIX_BYTES_READ"]) == (12, 1200)
    if how == "fork":                   # parent and 4 workers, all of which opened it
        assert nprocs == 5 and [k for k in recs if k[0] == str(data / "shared")] == [
            (str(data / "shared"), -1)]
    upstream_reads(job, nprocs)


def test_process_pool_leaves_only_the_job_log(tool, runtime, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    r, job, procs = run_job(tool, runtime, tmp_path, [PY, MPJOB, data, "futures"])
    assert procs == [] and sorted((tmp_path / "logs").rglob("*.darshan")) == [job]
    assert job.name.endswith("_job.darshan") and "_python3_" in job.name
    nprocs, recs, meta = view(job)
    m = re.search(r"one log of the program's (\d+) processes", r.stderr)
    assert m and int(m.group(1)) == nprocs >= 2
    t = totals([recs])
    for i in range(4):
        assert t[str(data / f"w{i}")]["POSIX_BYTES_WRITTEN"] == 10000
    assert t[str(data / "shared")]["POSIX_READS"] == 12
    upstream_reads(job, nprocs)


def test_shell_pipeline(tool, runtime, tmp_path):
    src, dst = tmp_path / "in.txt", tmp_path / "out.gz"
    src.write_bytes(b"pipeline " * 20000)
    r, job, procs = run_job(tool, runtime, tmp_path,
                            ["sh", "-c", f"cat {src} | gzip -1 | dd of={dst} bs=512 status=none"],
                            keep=True)
    nprocs, recs = check_against_process_logs(job, procs)
    assert nprocs >= 2                  # cat and dd (gzip only moves pipe data)
    t = totals([recs])
    assert t[str(src)]["POSIX_BYTES_READ"] == src.stat().st_size
    assert t[str(dst)]["POSIX_BYTES_WRITTEN"] == dst.stat().st_size > 0
    upstream_reads(job, nprocs)


def test_launcher_ranks_merged_by_iolens_merge(tool, runtime, rankio, tmp_path):
    """4 processes started with RANK/WORLD_SIZE, as torchrun starts them: each log
    says rank r of 4; `iolens merge` gives nprocs 4, the shared file as one rank
    -1 record, every own file at its rank."""
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir(), logs.mkdir()
    procs = []
    for rank in range(4):
        env = clean_env(runtime, tmp_path, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
                        DARSHAN_LOGPATH=str(logs), RANK=str(rank), WORLD_SIZE="4")
        procs.append(subprocess.Popen([str(rankio), str(data)], env=env))
    assert [p.wait(timeout=60) for p in procs] == [0] * 4
    per = sorted(logs.rglob("*.darshan"))
    assert len(per) == 4
    for p in per:
        nprocs, recs, meta = view(p)
        assert nprocs == 4 and len({rk for _, rk in recs}) == 1
        assert meta.get("rank_from") == "RANK"
    out = tmp_path / "job.darshan"
    r = subprocess.run([str(tool), "merge", "-o", str(out)] + [str(p) for p in per],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    nprocs, recs, _ = view(out)
    assert nprocs == 4
    assert [k[1] for k in recs if k[0] == str(data / "shared")] == [-1]
    s = recs[(str(data / "shared"), -1)]
    assert (s["POSIX_OPENS"], s["POSIX_WRITES"], s["POSIX_BYTES_WRITTEN"]) == (4, 4, 400)
    for rank in range(4):
        assert [k[1] for k in recs if k[0] == str(data / f"own{rank}")] == [rank]
        assert recs[(str(data / f"own{rank}"), rank)]["POSIX_BYTES_WRITTEN"] == 1000
    # 3 of the 4 ranks: nothing is shared by all ranks, so nothing is reduced
    part = tmp_path / "part.darshan"
    r = subprocess.run([str(tool), "merge", "-o", str(part)] + [str(p) for p in per[:3]],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    nprocs, recs, _ = view(part)
    assert nprocs == 4 and len([k for k in recs if k[0] == str(data / "shared")]) == 3
    assert -1 not in {k[1] for k in recs}
    upstream_reads(out, 4)


def launch_4_ranks(rankio, data, *args):
    """A shell that starts 4 ranks as torchrun would (RANK/WORLD_SIZE) and waits."""
    return " ".join(f"RANK={r} WORLD_SIZE=4 {rankio} {data} {' '.join(args)} &"
                    for r in range(4)) + " wait"


@pytest.mark.parametrize("fork", [False, True])
def test_launcher_ranks_under_iolens_run(tool, runtime, rankio, tmp_path, fork):
    """The same 4 ranks started by a shell under `iolens run`: one job log; the
    ranks keep their numbers, any process without a rank (the shell) comes after
    them.  With fork, each rank forks a worker that inherits RANK=r: the first
    process of a rank (the one the launcher started) keeps it, the worker is
    numbered after the job's ranks, and the shared file is still reduced."""
    data = tmp_path / "data"
    data.mkdir()
    script = launch_4_ranks(rankio, data, *(["fork"] if fork else []))
    r, job, procs = run_job(tool, runtime, tmp_path, ["sh", "-c", script], keep=True)
    nprocs, recs, _ = view(job)
    # the 4 ranks (and their workers); the shell and its fork children before
    # their exec recorded nothing, so they are not processes of the job log
    assert nprocs == len(procs) == (8 if fork else 4)
    assert "_sh_" in job.name           # named after the command run, which recorded nothing
    assert re.search(r"^iolens: one log of the program's \d+ processes \(\d+ more recorded "
                     r"nothing\)", r.stderr, re.M), r.stderr
    assert [k[1] for k in recs if k[0] == str(data / "shared")] == [-1]
    assert recs[(str(data / "shared"), -1)]["POSIX_BYTES_WRITTEN"] == 400
    for rank in range(4):
        assert [k[1] for k in recs if k[0] == str(data / f"own{rank}")] == [rank]
    forked = [k[1] for k in recs if k[0].startswith(str(data / "forked"))]
    assert len(forked) == len(set(forked)) == (4 if fork else 0)
    assert all(rank >= 4 for rank in forked)
    assert totals([recs]) == totals([view(p)[1] for p in procs])
    upstream_reads(job, nprocs)


def test_traces_follow_their_processes_ranks(tool, runtime, rankio, tmp_path):
    """`iolens run --trace`: each process's DXT trace is renumbered with its
    records, so a rank's own file is traced at that rank."""
    data = tmp_path / "data"
    data.mkdir()
    r, job, _ = run_job(tool, runtime, tmp_path, ["sh", "-c", launch_4_ranks(rankio, data, "fork")],
                        trace=True)
    nprocs, recs, _ = view(job)
    import darshan
    with darshan.DarshanReport(str(job), read_all=True) as rep:
        traced = {(rep.name_records[t["id"]], int(t["rank"])): len(t["write_segments"])
                  for t in rep.records["DXT_POSIX"].to_df()}
    for rank in range(4):
        assert traced[(str(data / f"own{rank}"), rank)] == 1
        (fk,) = [k for k in recs if k[0] == str(data / f"forked{rank}")]
        assert traced[fk] == 1 and fk[1] >= 4      # the forked worker's rank
    assert sum(n for (name, _), n in traced.items() if name == str(data / "shared")) == 4
    upstream_reads(job, nprocs)


def test_killed_child_is_recovered_into_the_job_log(tool, runtime, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    script = f"echo one > {a}; sh -c 'echo two > {b}; kill -KILL $$'; exit 0"
    r, job, procs = run_job(tool, runtime, tmp_path, ["sh", "-c", script])
    nprocs, recs, _ = view(job)
    t = totals([recs])
    assert t[str(a)]["POSIX_BYTES_WRITTEN"] == 4
    assert t[str(b)]["POSIX_BYTES_WRITTEN"] == 4         # from the killed shell's copy
    assert nprocs == 2
    upstream_reads(job, nprocs)


def test_background_process_outliving_the_program(tool, runtime, tmp_path):
    """A process the program leaves running is waited for (we are its subreaper)."""
    late = tmp_path / "late"
    r, job, _ = run_job(tool, runtime, tmp_path,
                        ["sh", "-c", f"(sleep 0.3; echo x > {late}) & echo started"])
    assert late.exists()
    _, recs, _ = view(job)
    assert totals([recs])[str(late)]["POSIX_BYTES_WRITTEN"] == 2


def test_process_still_running_after_the_wait_is_named(tool, runtime, tmp_path):
    """The wait for left-over processes is bounded (IOLENS_RUN_WAIT): a process
    still running is named, and the others' job log is written without it."""
    logs, a, stop = tmp_path / "logs", tmp_path / "a", tmp_path / "stop"
    logs.mkdir()
    script = f"echo one > {a}; (while [ ! -e {stop} ]; do sleep 0.05; done) >/dev/null 2>&1 & exit 0"
    try:
        r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", "sh", "-c", script],
                           capture_output=True, text=True, timeout=60,
                           env=clean_env(runtime, tmp_path, IOLENS_RUN_WAIT="0.3"))
    finally:
        stop.touch()                    # the left-over loop ends, whatever happened
    assert r.returncode == 0, r.stderr
    # the loop's subshell, and the sleep it may be in
    assert re.search(r"^iolens run: [12] process(es)? started by the program (is|are) still "
                     r"running after the wait \(IOLENS_RUN_WAIT seconds, default 10\)",
                     r.stderr, re.M), r.stderr
    (job,) = re.findall(r"^iolens: log written to (.+)$", r.stderr, re.M)
    _, recs, _ = view(job)
    assert totals([recs])[str(a)]["POSIX_BYTES_WRITTEN"] == 4


def test_nothing_recorded_says_so(tool, runtime, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", "sh", "-c", "exit 3"],
                       capture_output=True, text=True, timeout=60,
                       env=clean_env(runtime, tmp_path, DARSHAN_DISABLE="1"))
    assert r.returncode == 3
    assert r.stderr.splitlines() == [
        f"iolens: no log was written to {logs} (is DARSHAN_DISABLE set, or the program "
        "statically linked?)"]
    assert list(logs.iterdir()) == [] and list((tmp_path / "mmap").iterdir()) == []
