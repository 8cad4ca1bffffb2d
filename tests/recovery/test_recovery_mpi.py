"""MPI jobs that do not finish: 4 processes, one killed mid-run (SIGKILL), and
`mpiexec` taking the job down after MPI_Abort.  No process writes a log; each
leaves its safety copy, and `iolens recover` + `iolens merge` give one log with
every process's completed I/O (and the common file reduced to one record)."""
import subprocess
import sys
from pathlib import Path

import pytest

from recovery_helpers import by_file, counters, dirs, logs, recover, safety_copies, wait_gone

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mpi"))
from mpi_helpers import Mpi, find_mpi_runtime  # noqa: E402

STEPS = 25


@pytest.fixture(scope="module")
def mpi():
    rt = find_mpi_runtime("openmpi")
    if rt is None:
        pytest.skip("libiolens-mpi.so for Open MPI not built (-DIOLENS_WITH_MPI=ON)")
    if b"_mmap-log-" not in Path(rt).read_bytes():
        pytest.skip(f"{rt} was built before the safety copy existed: rebuild it")
    return Mpi("openmpi", rt)


@pytest.mark.parametrize("how", ["kill", "abort"])
def test_mpi_job_killed_then_recovered(mpi, tool, tmp_path, how):
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    exe = mpi.compile(Path(__file__).parent / "progs" / "mpikill.c", tmp_path / "mpikill")
    r = mpi.run([exe, data, STEPS, how], logdir, nprocs=4, check=False, timeout=120,
                env={"DARSHAN_MMAP_LOGPATH": str(mmapdir)})
    assert r.returncode != 0
    assert logs(logdir) == [], "no process reached MPI_Finalize"
    copies = safety_copies(mmapdir)
    assert len(copies) == 4, copies
    wait_gone(copies)
    recover(tool, copies, logdir)
    rec = logs(logdir)
    assert len(rec) == 4 and safety_copies(mmapdir) == []
    for p in rec:
        assert counters(tool, p)[1]["nprocs"] == "4"
    out = tmp_path / "job.darshan"
    m = subprocess.run([str(tool), "merge", "-o", str(out)] + [str(p) for p in rec],
                       capture_output=True, text=True)
    assert m.returncode == 0, m.stderr
    recs, head = counters(tool, out)
    assert head["nprocs"] == "4"
    for rank in range(4):
        own = [(k, v) for k, v in recs.items() if k[0] == "POSIX" and k[1] == str(data / f"r{rank}")]
        assert len(own) == 1 and own[0][0][2] == rank
        assert own[0][1]["POSIX_WRITES"] == STEPS and own[0][1]["POSIX_BYTES_WRITTEN"] == 1000 * STEPS
    shared = [(k, v) for k, v in recs.items() if k[0] == "POSIX" and k[1] == str(data / "shared")]
    assert [k[2] for k, _ in shared] == [-1]
    assert shared[0][1]["POSIX_WRITES"] == 4 * STEPS and shared[0][1]["POSIX_OPENS"] == 4
