"""Thread ids in the MPI runtime's traces (DXT_THREAD_IDS=1, docs/dxt.md): under
MPI_THREAD_MULTIPLE, every DXT_MPIIO (version 3) and DXT_POSIX (version 2) segment
names the thread that made it.  The program is tests/mpi/progs/dxt_threads.c: 4
threads per process, thread t writes 256 (t+1) bytes per call, so a segment's
length tells its thread.  Read with the project's reader (PyDarshan 3.5.0 does not
open these versions) and with `iolens dxt`."""
import subprocess

import pytest

from mpi_helpers import one_log
from rt_helpers import find_tool

iolens = pytest.importorskip("iolens")

NTHREADS, PER = 4, 50
ENV = {"DXT_ENABLE_IO_TRACE": "1", "DXT_THREAD_IDS": "1", "IOLENS_DXT_MPIIO_OFFSETS": "1"}


def test_thread_ids_per_rank(mpi, progs_dir, tmp_path):
    np_ = 3
    exe = mpi.compile(progs_dir / "dxt_threads.c", tmp_path / "dxt_threads")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, work], logdir, np_, env=ENV, check=False)
    if r.returncode == 77 or "no MPI_THREAD_MULTIPLE" in r.stderr:
        pytest.skip(f"{mpi.name} does not provide MPI_THREAD_MULTIPLE here")
    assert r.returncode == 0, r.stderr
    log = one_log(logdir)
    name = str(work / "threads.dat")
    with iolens.open(log) as lg:
        m = lg.dxt("MPIIO")
        p = lg.dxt("POSIX")
    assert m.attrs["stored_version"] == 3 and p.attrs["stored_version"] == 2
    m = m[m["name"] == name]
    for rank in range(np_):
        mine = m[m["rank"] == rank]
        assert len(mine) == NTHREADS * PER
        # one thread per length, one length per thread: the ids follow the calls
        assert mine.groupby("length")["thread_id"].nunique().eq(1).all()
        assert mine.groupby("thread_id")["length"].nunique().eq(1).all()
        assert mine["thread_id"].nunique() == NTHREADS and (mine["thread_id"] != 0).all()
        assert sorted(mine["thread"].unique().tolist()) == list(range(NTHREADS))
        # the POSIX writes the MPI library made for a thread carry that thread's id
        posix = p[(p["rank"] == rank) & (p["name"] == name)]
        by_len = dict(zip(mine["length"], mine["thread_id"]))
        assert len(posix) == NTHREADS * PER
        assert all(by_len[ln] == t for ln, t in zip(posix["length"], posix["thread_id"]))
    tool = find_tool()
    assert tool is not None, "the iolens tool is not built"
    txt = subprocess.run([str(tool), "dxt", str(log)], capture_output=True, text=True, timeout=120)
    assert txt.returncode == 0, txt.stderr
    assert txt.stdout.count(f"# DXT, number of threads: {NTHREADS}") >= np_
