"""Issue #21, case 1: an MPI rank that returns from main without MPI_Finalize
while the others wait in MPI_Barrier.  Without the runtime the launcher ends
the job in a second or two; with it the job must end about as fast (no
collective may start outside MPI_Finalize), and `iolens recover` + `iolens
merge` must give every rank's I/O from the safety copies, all with the job's
id."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recovery_helpers import counters, dirs, logs, recover, safety_copies

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi"))
from mpi_helpers import MPIS, Mpi, available_mpis, find_mpi_runtime  # noqa: E402

STEPS = 25
NPROCS = 4
LIMIT = 60          # seconds; a job still running after this hangs


def run_job(mpi, exe, data, logdir, mmapdir, preload):
    """Run the job in its own session; kill the whole session on a hang.
    Returns (exit status, seconds)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_LOG", "SLURM_", "PBS_", "LSB_"))}
    env.update({"DARSHAN_LOGPATH": str(logdir), "DARSHAN_MMAP_LOGPATH": str(mmapdir),
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    env.pop("LD_PRELOAD", None)
    names = ["DARSHAN_LOGPATH", "DARSHAN_MMAP_LOGPATH"]
    if preload:
        env["LD_PRELOAD"] = str(mpi.runtime)
        names.append("LD_PRELOAD")
    cmd = [MPIS[mpi.name]["run"], "-n", str(NPROCS)]
    if mpi.name == "openmpi":
        cmd += ["--oversubscribe"] + [a for k in names for a in ("-x", k)]
    else:
        cmd += [a for k in names for a in ("-genv", k, env[k])]
    cmd += [str(exe), str(data), str(STEPS), "return"]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        rc = p.wait(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        pytest.fail(f"the job was still running after {LIMIT} s (hang)")
    return rc, time.monotonic() - t0


@pytest.mark.parametrize("name", available_mpis())
def test_rank_returns_without_finalize(name, tool, tmp_path):
    mpi = Mpi(name, find_mpi_runtime(name))
    exe = mpi.compile(Path(__file__).parent / "progs" / "mpikill.c", tmp_path / "mpikill")
    plain = tmp_path / "plain"
    plain.mkdir()
    plain_dirs = dirs(plain)
    data = tmp_path / "data"
    data.mkdir()
    _, plain_t = run_job(mpi, exe, data, *plain_dirs, preload=False)
    run = tmp_path / "ours"
    run.mkdir()
    logdir, mmapdir = dirs(run)
    _, ours_t = run_job(mpi, exe, data, logdir, mmapdir, preload=True)
    assert ours_t < plain_t + 10, (plain_t, ours_t)       # generous: the machine is shared
    assert logs(logdir) == [], "no collective log without MPI_Finalize"
    copies = safety_copies(mmapdir)
    assert len(copies) == NPROCS, copies
    ids = {c.name.split("_id", 1)[1].split("-", 1)[0] for c in copies}
    assert len(ids) == 1, f"every rank's copy carries the job's id: {ids}"
    recover(tool, copies, logdir)
    rec = logs(logdir)
    assert len(rec) == NPROCS
    out = tmp_path / "job.darshan"
    m = subprocess.run([str(tool), "merge", "-o", str(out)] + [str(p) for p in rec],
                       capture_output=True, text=True, timeout=120)
    assert m.returncode == 0, m.stderr
    assert "job id" not in m.stderr.lower(), m.stderr
    recs, head = counters(tool, out)
    assert head["nprocs"] == str(NPROCS)
    for rank in range(NPROCS):
        own = [v for k, v in recs.items() if k[0] == "POSIX" and k[1] == str(data / f"r{rank}")]
        assert len(own) == 1 and own[0]["POSIX_WRITES"] == STEPS, (rank, own)
