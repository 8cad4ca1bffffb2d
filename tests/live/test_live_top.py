"""`iolens top --once --json` on running jobs (issue 30): each process's (or
rank's) bytes as the final log has them, for an `iolens run` tree without MPI
and for an MPI job; dead processes shown as dead with the recover command."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import iolens

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi"))
from mpi_helpers import MPIS, find_mpi_runtime  # noqa: E402

WAIT = 30.0


def top_json(tool, shm, interval=0.2):
    r = subprocess.run([str(tool), "top", "--once", "--json", "--interval", str(interval),
                        "--dir", str(shm)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def wait_for(tool, shm, ready):
    """top's snapshot once ready(jobs) holds (bounded)."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        snap = top_json(tool, shm)
        if ready(snap["jobs"]):
            return snap
        time.sleep(0.2)
    pytest.fail(f"top never showed the expected job: {snap}")


def written(proc):
    return sum(t["bytes_written"] for t in proc["totals"].values())


def log_bytes_by_rank(log):
    df = iolens.open(str(log)).records("POSIX")
    df = df[df["name"].str.contains("steady-", na=False)]
    return df.groupby("rank")["POSIX_BYTES_WRITTEN"].sum().to_dict()


def test_top_run_tree(tool, runtime, progs, tmp_path):
    shm, logs, work = tmp_path / "shm", tmp_path / "logs", tmp_path / "work"
    for d in (shm, logs, work):
        d.mkdir()
    steady = progs("steady")
    sizes = {"a": 12345, "b": 54321, "c": 777}
    script = " & ".join(f"{steady} {work} {t} {n}" for t, n in sizes.items()) + " & wait"
    env = dict(os.environ, IOLENS_RUNTIME=str(runtime), DARSHAN_MMAP_LOGPATH=str(shm))
    run = subprocess.Popen([str(tool), "run", "--logpath", str(logs), "--", "sh", "-c", script],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        snap = wait_for(tool, shm, lambda jobs: any(
            sorted(written(p) for p in j["processes_detail"] if written(p)) == sorted(sizes.values())
            for j in jobs))
    finally:
        (work / "go").touch()
        out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    (job,) = [j for j in snap["jobs"] if j["processes"] >= 3]
    assert job["exe"] and all(p["state"] == "running" for p in job["processes_detail"])
    assert all(p["last_io_ago"] is not None for p in job["processes_detail"] if written(p))
    (log,) = logs.rglob("*_job.darshan")
    final = sorted(log_bytes_by_rank(log).values())
    assert final == sorted(written(p) for p in job["processes_detail"] if written(p))
    top_files = {Path(f["file"]).name for f in job["busiest_files"]}
    assert {"steady-a", "steady-b", "steady-c"} <= top_files


def test_top_dead_process(tool, runtime, progs, tmp_path):
    """A process killed by SIGKILL: its copy is shown dead, with the command
    that recovers it; the command works and gives the bytes top showed."""
    shm, work = tmp_path / "shm", tmp_path / "work"
    shm.mkdir()
    work.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(shm), DARSHAN_LOGPATH=str(tmp_path))
    p = subprocess.Popen([str(progs("steady")), str(work), "k", "4242"], env=env)
    wait_for(tool, shm, lambda jobs: any(written(q) == 4242 for j in jobs
                                         for q in j["processes_detail"]))
    p.send_signal(signal.SIGKILL)
    p.wait()
    snap = top_json(tool, shm)
    (proc,) = [q for j in snap["jobs"] for q in j["processes_detail"]]
    assert proc["state"] == "dead" and not proc["alive"]
    assert proc["recover"] == f"iolens recover {proc['copy']}"
    cmd = proc["recover"].split()
    r = subprocess.run([str(tool)] + cmd[1:] + ["--logdir", str(tmp_path)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    (log,) = tmp_path.glob("*_recovered.darshan")
    assert list(log_bytes_by_rank(log).values()) == [4242]
    assert top_json(tool, shm)["jobs"] == []


MPI = "openmpi"


@pytest.mark.skipif(find_mpi_runtime(MPI) is None, reason="libiolens-mpi.so for Open MPI not built")
def test_top_mpi_job(tool, progs, tmp_path):
    info = MPIS[MPI]
    exe = tmp_path / "steady_mpi"
    r = subprocess.run([info["cc"], "-O1", "-o", str(exe), str(Path(__file__).parent / "progs" /
                                                                 "steady_mpi.c")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    shm, logs, work = tmp_path / "shm", tmp_path / "logs", tmp_path / "work"
    for d in (shm, logs, work):
        d.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(find_mpi_runtime(MPI)), DARSHAN_MMAP_LOGPATH=str(shm),
               DARSHAN_LOGPATH=str(logs), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [info["run"], "-n", "2", "--oversubscribe"]
    cmd += [a for k in ("LD_PRELOAD", "DARSHAN_MMAP_LOGPATH", "DARSHAN_LOGPATH") for a in ("-x", k)]
    job = subprocess.Popen(cmd + [str(exe), str(work), "3000"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        snap = wait_for(tool, shm, lambda jobs: any(
            sorted((p["rank"], written(p)) for p in j["processes_detail"]) == [(0, 3000), (1, 6000)]
            for j in jobs))
    finally:
        (work / "go").touch()
        out, err = job.communicate(timeout=120)
    assert job.returncode == 0, err
    (j,) = snap["jobs"]
    assert j["nprocs"] == 2 and j["processes"] == 2
    (log,) = logs.rglob("*.darshan")
    assert log_bytes_by_rank(log) == {p["rank"]: written(p) for p in j["processes_detail"]}
