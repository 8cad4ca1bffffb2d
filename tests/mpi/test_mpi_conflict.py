"""conflicting-writes on a real run: ranks pwrite one shared file under the MPI
runtime with DXT on (tests/mpi/progs/conflict_writes.c), then the log is
diagnosed.  Overlapping unordered writes are a finding; disjoint ranges, and
overlapping writes ordered by fsync + close + barrier, are not."""
import pytest

from mpi_helpers import one_log
from iolens.diagnose import diagnose

ON = {"DXT_ENABLE_IO_TRACE": "1"}


@pytest.mark.parametrize("mode, conflict", [("overlap", True), ("disjoint", False),
                                            ("ordered", False)])
def test_conflicting_writes_real_run(mpi, progs_dir, tmp_path, mode, conflict):
    exe = mpi.compile(progs_dir / "conflict_writes.c", tmp_path / "conflict_writes")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    mpi.run([exe, work, mode], logdir, nprocs=2, env=ON)
    diag = diagnose(str(one_log(logdir)))
    found = {f.rule.id: f for f in diag.findings}
    assert ("conflicting-writes" in found) is conflict, sorted(found)
    if conflict:
        hit = found["conflicting-writes"].hit
        assert hit.files == [str(work / "shared.dat")] and hit.ranks == [0, 1]
        assert hit.numbers["bytes"] == (1 << 20) // 2
