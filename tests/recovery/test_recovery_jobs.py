"""Multi-process jobs without MPI: Python multiprocessing (fork, spawn),
concurrent.futures, a shell pipeline, and a process group killed as a whole
followed by an epilog-style recovery.  Every process's I/O must be in the logs,
all logs of a job share its job id, and `iolens merge` makes one log of them."""
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from recovery_helpers import HERE, by_file, counters, dirs, env_for, logs, recover, safety_copies

PY = shutil.which("python3", path="/usr/bin:/bin") or sys.executable


def job_ids(tool, paths):
    return {counters(tool, p)[1]["jobid"] for p in paths}


def merged(tool, inputs, out, *opts):
    r = subprocess.run([str(tool), "merge", "-o", str(out), *opts] + [str(p) for p in inputs],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return counters(tool, out)


def worker_logs(tool, paths, data):
    return [p for p in paths
            if any(n.startswith(str(data / "w")) for (_, n, _) in counters(tool, p)[0])]


@pytest.mark.parametrize("how", ["fork", "spawn"])
def test_multiprocessing_four_workers(runtime, tool, tmp_path, how):
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run([PY, str(HERE / "progs" / "mpjob.py"), str(data), how],
                   env=env_for(runtime, logdir, mmapdir), check=True, timeout=120)
    all_logs = logs(logdir)
    assert len(job_ids(tool, all_logs)) == 1, "the logs of one job have one job id"
    workers = worker_logs(tool, all_logs, data)
    assert len(workers) == 4, [p.name for p in all_logs]
    for i in range(4):                         # each worker's file, in exactly one log
        recs = [r for p in workers for r in by_file(counters(tool, p)[0], "POSIX", str(data / f"w{i}"))]
        assert len(recs) == 1 and recs[0]["POSIX_WRITES"] == 10
        assert recs[0]["POSIX_BYTES_WRITTEN"] == 10000
    recs, head = merged(tool, workers, tmp_path / "merged.darshan")
    assert head["nprocs"] == "4"
    shared = by_file(recs, "POSIX", str(data / "shared"))
    assert [(r["POSIX_READS"], r["POSIX_BYTES_READ"], r["POSIX_OPENS"]) for r in shared] == [(12, 1200, 4)]
    assert [k[2] for k in recs if k[1] == str(data / "shared") and k[0] == "POSIX"] == [-1]
    for i in range(4):
        w = [k for k in recs if k[1] == str(data / f"w{i}") and k[0] == "POSIX"]
        assert len(w) == 1 and w[0][2] in range(4)
    recs, head = merged(tool, all_logs, tmp_path / "all.darshan", "--no-reduce")
    assert sum(r["POSIX_READS"] for r in by_file(recs, "POSIX", str(data / "shared"))) == 12


def test_concurrent_futures_pool(runtime, tool, tmp_path):
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    subprocess.run([PY, str(HERE / "progs" / "mpjob.py"), str(data), "futures"],
                   env=env_for(runtime, logdir, mmapdir), check=True, timeout=120)
    all_logs = logs(logdir)
    assert len(job_ids(tool, all_logs)) == 1
    assert safety_copies(mmapdir) == []
    recs, _ = merged(tool, all_logs, tmp_path / "merged.darshan")
    for i in range(4):
        w = by_file(recs, "POSIX", str(data / f"w{i}"))
        assert sum(r["POSIX_WRITES"] for r in w) == 10
    assert sum(r["POSIX_READS"] for r in by_file(recs, "POSIX", str(data / "shared"))) == 12


def test_shell_pipeline(runtime, tool, tmp_path):
    """`sh -c 'cat f | dd of=g'`: each member writes its log, with the job id of sh."""
    logdir, mmapdir = dirs(tmp_path)
    src, dst = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes(b"y" * 50000)
    subprocess.run(["/bin/sh", "-c", f"cat {src} | dd of={dst} bs=1000 status=none"],
                   env=env_for(runtime, logdir, mmapdir), check=True, timeout=60)
    assert dst.read_bytes() == src.read_bytes()
    all_logs = logs(logdir)
    names = [p.name for p in all_logs]
    assert any("_cat_" in n for n in names) and any("_dd_" in n for n in names), names
    assert len(job_ids(tool, all_logs)) == 1
    assert safety_copies(mmapdir) == []
    recs, _ = merged(tool, all_logs, tmp_path / "merged.darshan")
    assert sum(r["POSIX_BYTES_READ"] for r in by_file(recs, "POSIX", str(src))) == 50000
    assert sum(r["POSIX_BYTES_WRITTEN"] for r in by_file(recs, "POSIX", str(dst))) == 50000


def test_process_group_killed_then_epilog(runtime, tool, tmp_path):
    """`timeout -s KILL` kills a whole group (a shell and 3 busy writers) mid-run;
    the epilog recipe of docs/recovery.md then recovers and merges the job."""
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    writer = ("i=0; while :; do echo $i >> {d}/f$n; i=$((i+1)); "
              "if [ $i = 200 ]; then touch {d}/ready$n; fi; done")
    script = " ".join(f"n={n} sh -c '{writer.format(d=data)}' & " for n in range(3)) + "wait"
    r = subprocess.run(["timeout", "-s", "KILL", "3", "/bin/sh", "-c", script],
                       env=env_for(runtime, logdir, mmapdir), timeout=60)
    assert r.returncode in (-9, 137)
    subprocess.run(["sleep", "0.2"])        # the group members die with the leader's group
    for n in range(3):
        assert (data / f"ready{n}").exists()
    copies = safety_copies(mmapdir)
    assert len(copies) >= 4, copies
    out = recover(tool, copies, logdir)
    assert out.stdout.count("iolens: recovered") == len(copies) and safety_copies(mmapdir) == []
    recs, _ = merged(tool, logs(logdir), tmp_path / "job.darshan")
    for n in range(3):
        text = (data / f"f{n}").read_bytes()
        lines = text.splitlines(keepends=True)
        w = by_file(recs, "POSIX", str(data / f"f{n}"))
        writes = sum(r["POSIX_WRITES"] for r in w)
        nbytes = sum(r["POSIX_BYTES_WRITTEN"] for r in w)
        # Every append whose write() had returned is counted.  The kill is
        # asynchronous: the one write in flight may have reached the file but not
        # returned to the shell (then it is not a completed operation).
        if writes == len(lines):
            assert nbytes == len(text)
        else:
            assert writes == len(lines) - 1 and nbytes == len(text) - len(lines[-1])


def test_forkserver_pool_terminated_while_busy(runtime, tool, tmp_path):
    """Issue #21: Pool(4) with the forkserver start method, terminate() while the
    workers compute (numpy's BLAS threads running, when numpy is installed):
    every worker leaves a log or a safety copy, and recover + merge count each
    worker's write exactly once (no second log of any process), 3 times over."""
    exclude = ":".join(sorted({sys.prefix, sys.base_prefix, "/usr"}))
    for k in range(3):
        run = tmp_path / f"r{k}"
        run.mkdir()
        logdir, mmapdir = dirs(run)
        data = run / "data"
        data.mkdir()
        r = subprocess.run([sys.executable, str(HERE / "progs" / "poolterm.py"), str(data)],
                           env=env_for(runtime, logdir, mmapdir, {"DARSHAN_EXCLUDE_DIRS": exclude}),
                           capture_output=True, text=True, timeout=180)
        assert r.returncode == 0, r.stderr
        pids, how = r.stdout.split("\n")[:2]
        pids = pids.split()
        assert len(pids) == 4, r.stdout
        left = safety_copies(mmapdir)
        print(f"run {k}: workers busy with {how}; {len(left)} safety copies to recover")
        if how != "numpy" and k == 0:
            warnings.warn("numpy is not installed: the pool's workers ran plain Python loops, "
                          "without BLAS threads")
        if left:
            recover(tool, left, logdir)
        assert safety_copies(mmapdir) == []
        assert list(logdir.rglob("*.iolens_partial")) == [], "no partial log left"
        all_logs = logs(logdir)
        for pid in pids:                               # one log per worker holds its write
            holders = [p for p in all_logs
                       if by_file(counters(tool, p)[0], "POSIX", str(data / f"t{pid}"))]
            assert len(holders) == 1, (pid, [p.name for p in holders])
            assert f"-{pid}_" in holders[0].name, holders[0].name
        recs, _ = merged(tool, all_logs, run / "merged.darshan")
        for pid in pids:
            w = by_file(recs, "POSIX", str(data / f"t{pid}"))
            assert sum(x["POSIX_WRITES"] for x in w) == 1, (pid, w)
            assert sum(x["POSIX_BYTES_WRITTEN"] for x in w) == 100, (pid, w)
