"""Platform facts of an MPI job (docs/runtime.md, "Platform data"): the node count,
processes per node and host names come from the processes themselves (grouped by
shared memory at MPI_Finalize), not from the scheduler's variables."""
import socket

import pytest

import iolens
from iolens.platform import expand_hostlist
from mpi_helpers import one_log

NP = 3


def test_nodes_from_mpi(mpi, progs_dir, tmp_path):
    exe = mpi.compile(progs_dir / "mpiprobe.c", tmp_path / "mpiprobe")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    # The scheduler says 8 nodes; the processes know better: all run on this host.
    mpi.run([exe, "basic", work], logdir, NP,
            env={"SLURM_JOB_ID": "31", "SLURM_JOB_NUM_NODES": "8",
                 "SLURM_JOB_NODELIST": "nid[001-008]", "SLURM_TASKS_PER_NODE": "1(x8)"})
    log = one_log(logdir)
    with iolens.open(log) as lg:
        p = lg.platform
        nprocs = lg.job["nprocs"]
    assert nprocs == NP
    assert p["nnodes"] == "1" and p["ppn"] == str(NP)
    assert expand_hostlist(p["hosts"]) == [socket.gethostname()[:63]]
    assert p["sched"] == "slurm"
    darshan = pytest.importorskip("darshan")
    job = darshan.DarshanReport(str(log), read_all=True).metadata["job"]
    assert job["metadata"]["ppn"] == str(NP)
