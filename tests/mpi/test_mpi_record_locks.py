"""MPI-IO records have locks of their own (docs/runtime.md, "threads"): under
MPI_THREAD_MULTIPLE, threads with handles of their own, one record updated
through several handles, and handles opened and closed meanwhile lose no count.
The program is tests/mpi/progs/mpiio_threads.c."""
import pytest

from mpi_helpers import one_log, records

NTHREADS, PER = 4, 300


def test_mpiio_threads_exact_counts(mpi, progs_dir, tmp_path):
    np_ = 2
    exe = mpi.compile(progs_dir / "mpiio_threads.c", tmp_path / "mpiio_threads")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, work], logdir, np_, check=False, timeout=300)
    if r.returncode == 77 or "no MPI_THREAD_MULTIPLE" in r.stderr:
        pytest.skip(f"{mpi.name} does not provide MPI_THREAD_MULTIPLE here")
    assert r.returncode == 0, r.stderr
    recs, _ = records(one_log(logdir), "MPI-IO")
    for rank in range(np_):
        for t in range(NTHREADS):
            own = recs[(rank, str(work / f"own-{rank}-{t}.dat"))]
            got = {k: own["MPIIO_" + k] for k in
                   ("INDEP_OPENS", "INDEP_WRITES", "BYTES_WRITTEN", "SYNCS", "INDEP_READS",
                    "BYTES_READ")}
            assert got == dict(INDEP_OPENS=1, INDEP_WRITES=PER, BYTES_WRITTEN=64 * PER,
                               SYNCS=PER // 10, INDEP_READS=PER // 30,
                               BYTES_READ=64 * (PER // 30)), (rank, t)
            extra = recs[(rank, str(work / f"extra-{rank}-{t}.dat"))]
            assert (extra["MPIIO_INDEP_OPENS"], extra["MPIIO_INDEP_WRITES"],
                    extra["MPIIO_BYTES_WRITTEN"]) == (PER // 50, PER // 50, 16 * (PER // 50))
    shared = recs[(-1, str(work / "shared.dat"))]     # every process has it: reduced
    assert shared["MPIIO_INDEP_OPENS"] == np_ * NTHREADS
    assert shared["MPIIO_INDEP_WRITES"] == np_ * NTHREADS * PER
    assert shared["MPIIO_BYTES_WRITTEN"] == 32 * np_ * NTHREADS * PER
