"""Issue 28, estimates checked against fixes: the time lost of random access and of
independent MPI-IO is measured against a better rate the same log shows, not
assumed to be the affected operations' whole time.  On the bench's local ext4
(docs/diagnosis.md) random reads cost what sorted ones did and collective I/O was
slower, so an estimate that counts the whole time promised savings no fix gave."""
from __future__ import annotations

import pytest

from diag_logs import MiB, build, rec
from iolens.diagnose import diagnose

NPROCS = 4


def hits(tmp_path, name, kwargs):
    diag = diagnose(build(str(tmp_path / f"{name}.darshan"), **kwargs))
    return {f.rule.id: f for f in diag.findings}


def random_beside_sequential(random_seconds, sequential=True):
    """Each rank reads 1 MiB of one file in 256 random 4 KiB pieces and, when
    `sequential`, the same amount of another file in order in 0.2 s."""
    out = []
    for r in range(NPROCS):
        out.append(rec(f"/scratch/random.{r}", r, POSIX_OPENS=1, POSIX_READS=256,
                       POSIX_SEQ_READS=0, POSIX_BYTES_READ=MiB,
                       POSIX_MAX_BYTE_READ=64 * MiB - 1, POSIX_F_READ_TIME=random_seconds))
        if sequential:
            out.append(rec(f"/scratch/sorted.{r}", r, POSIX_OPENS=1, POSIX_READS=256,
                           POSIX_SEQ_READS=255, POSIX_BYTES_READ=MiB,
                           POSIX_MAX_BYTE_READ=MiB - 1, POSIX_F_READ_TIME=0.2))
    return dict(nprocs=NPROCS, run_time=5, POSIX=out)


def test_random_reads_at_the_sequential_rate_lose_nothing(tmp_path):
    f = hits(tmp_path, "same", random_beside_sequential(0.2))["random-access"]
    assert f.hit.time_lost == pytest.approx(0.0, abs=1e-9)
    assert f.severity == "info"
    assert any("sequential reads in this log ran at 5.0 MiB/s" in line
               for line in f.hit.evidence)


def test_slow_random_reads_lose_their_time_above_the_sequential_rate(tmp_path):
    f = hits(tmp_path, "slow", random_beside_sequential(2.0))["random-access"]
    # per process: 255 of 256 reads random; 2.0 s taken where 1 MiB at 5 MiB/s is 0.2 s
    assert f.hit.time_lost == pytest.approx(255 / 256 * 1.8)
    assert "sequential" in f.hit.time_basis


def test_random_reads_without_a_sequential_reference_give_an_upper_bound(tmp_path):
    f = hits(tmp_path, "alone", random_beside_sequential(2.0, sequential=False))
    f = f["random-access"]
    assert f.hit.time_lost == pytest.approx(255 / 256 * 2.0)
    assert any("an upper bound" in line for line in f.hit.evidence)


def independent_beside(collective_seconds, independent_seconds=4.0):
    """One shared file written with 1,000 independent 4 KiB MPI-IO writes and,
    when collective_seconds is given, another written collectively at that cost."""
    mpi = [rec("/scratch/indep.dat", -1, MPIIO_INDEP_WRITES=1000,
               MPIIO_BYTES_WRITTEN=1000 * 4096, MPIIO_SIZE_WRITE_AGG_1K_10K=1000,
               MPIIO_F_WRITE_TIME=independent_seconds)]
    if collective_seconds is not None:
        mpi.append(rec("/scratch/coll.dat", -1, MPIIO_COLL_WRITES=4,
                       MPIIO_BYTES_WRITTEN=1000 * 4096, MPIIO_SIZE_WRITE_AGG_1M_4M=4,
                       MPIIO_F_WRITE_TIME=collective_seconds))
    return dict(nprocs=NPROCS, run_time=10, MPI_IO=mpi)


def test_independent_io_as_fast_as_collective_loses_nothing(tmp_path):
    f = hits(tmp_path, "fast", independent_beside(4.0))["no-collective"]
    assert f.hit.time_lost == pytest.approx(0.0, abs=1e-9)


def test_independent_io_slower_than_collective_loses_the_difference(tmp_path):
    f = hits(tmp_path, "slow", independent_beside(1.0))["no-collective"]
    # the same bytes: 4.0 s independent, 1.0 s collective, summed over 4 processes
    assert f.hit.time_lost == pytest.approx(3.0 / NPROCS)
    assert any("collective MPI-IO writes in this log ran at" in line
               for line in f.hit.evidence)


def test_independent_io_without_a_reference_is_not_estimated(tmp_path):
    f = hits(tmp_path, "alone", independent_beside(None))["no-collective"]
    assert f.hit.time_lost == 0
    assert any("not estimated" in line for line in f.hit.evidence)
