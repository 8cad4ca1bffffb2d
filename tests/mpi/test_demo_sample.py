"""The demo's MPI sample (examples/sample_mpi.c, scripts/demo.sh) must be a correct
MPI-IO program: its independent reads come after the collective write has reached
the file (sync, barrier, sync), so every run counts the same bytes and operations,
and POSIX reads exactly what MPI-IO reads."""
from collections import defaultdict
from pathlib import Path

import pytest

from mpi_helpers import one_log, records

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample_mpi.c"
NPROCS, MIB = 4, 1 << 20
SHARED_BYTES = NPROCS * 8 * MIB          # BLOCK (1 MiB) x STEPS (8) per process

# Counters that describe what the program did, not when or how fast.
DETERMINISTIC = ("BYTES_READ", "BYTES_WRITTEN", "READS", "WRITES", "OPENS")


def counters_of_run(mpi, exe, tmp_path, run):
    work, logdir = tmp_path / f"work{run}", tmp_path / f"logs{run}"
    work.mkdir()
    r = mpi.run([exe, work], logdir, NPROCS)
    assert "sample_mpi: done" in r.stdout, r.stdout + r.stderr
    log = one_log(logdir)
    totals = defaultdict(int)   # (module, file name under work, counter) -> sum over ranks
    for module, prefix in (("POSIX", "POSIX_"), ("MPI-IO", "MPIIO_")):
        recs, _ = records(log, module)
        for (_rank, name), row in recs.items():
            if not name.startswith(str(work) + "/"):
                continue
            for c in DETERMINISTIC:
                key = prefix + ("INDEP_" + c if module == "MPI-IO" and c in ("READS", "WRITES")
                                else c)
                if key in row:
                    totals[(module, name[len(str(work)) + 1:], key)] += int(row[key])
    return dict(totals)


def test_two_demo_runs_agree(mpi, tmp_path):
    exe = mpi.compile(EXAMPLE, tmp_path / "sample_mpi")
    first = counters_of_run(mpi, exe, tmp_path, 1)
    second = counters_of_run(mpi, exe, tmp_path, 2)
    assert first == second
    assert first[("MPI-IO", "shared.dat", "MPIIO_BYTES_WRITTEN")] == SHARED_BYTES
    assert first[("MPI-IO", "shared.dat", "MPIIO_BYTES_READ")] == SHARED_BYTES
    # Every block read back in full at the POSIX level too (the bug: 30 or 31 MiB).
    assert first[("POSIX", "shared.dat", "POSIX_BYTES_READ")] == SHARED_BYTES
    assert first[("POSIX", "shared.dat", "POSIX_BYTES_WRITTEN")] == SHARED_BYTES
