"""Drishti 0.8 side by side, on a corpus log and a generated one: the points where
both must agree, and the issue's known Drishti errors that we must not repeat."""
from __future__ import annotations

from pathlib import Path

import pytest

from diag_logs import build, rec
from drishti_compare import drishti_bin, drishti_rules, iolens_rules

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "logs"

pytestmark = pytest.mark.skipif(not drishti_bin(), reason="drishti (drishti-io==0.8) not installed")


def test_agree_on_small_shared_io(tmp_path):
    """A shared file read in 4 KiB pieces: both report small (shared-file) reads."""
    log = build(str(tmp_path / "small.darshan"), nprocs=4,
                POSIX=[rec("/scratch/in.dat", -1, POSIX_OPENS=4, POSIX_READS=20000,
                           POSIX_SEQ_READS=20000, POSIX_CONSEC_READS=20000,
                           POSIX_SIZE_READ_1K_10K=20000, POSIX_BYTES_READ=20000 * 4096,
                           POSIX_MAX_BYTE_READ=20000 * 4096 - 1, POSIX_F_READ_TIME=30.0)])
    theirs, ours = drishti_rules(log), iolens_rules(log)
    assert {"small-io", "small-io-shared"} <= theirs & ours
    # Drishti calls this 4-process POSIX-only job one that should use MPI-IO; it moves
    # 78 MiB, below the size at which we say so.
    assert "no-mpiio" in theirs and "no-mpiio" not in ours


def test_agree_on_imbalanced_io_and_find_the_cause():
    log = CORPUS / "imbalanced_io" / "imbalanced-io.darshan"
    if not log.is_file():
        pytest.skip(f"corpus log {log} not found")
    theirs, ours = drishti_rules(str(log)), iolens_rules(str(log))
    agreed = {"small-io", "small-io-shared", "misaligned-file", "imbalance-shared",
              "blocking-mpiio", "collective-used"}
    assert agreed <= theirs & ours
    # the README's cause and the partial data: only we report them
    assert {"lustre-striping", "partial-log"} <= ours - theirs
