"""The shared corpus: every log is diagnosed without an exception, and the logs
whose README pages describe a problem give that finding."""
from __future__ import annotations

from pathlib import Path

import pytest

from iolens.diagnose import diagnose

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "logs"
LOGS = sorted(CORPUS.rglob("*.darshan")) if CORPUS.is_dir() else []

needs_corpus = pytest.mark.skipif(not LOGS, reason=f"shared corpus not found at {CORPUS}")


def corpus_log(subdir, pattern="*.darshan"):
    found = sorted((CORPUS / subdir).glob(pattern))
    if not found:
        pytest.skip(f"corpus log {subdir}/{pattern} not found under {CORPUS}")
    return found[0]


def findings(path):
    diag = diagnose(path)
    assert not [n for n in diag.notes if "could not run" in n], diag.notes
    return {f.rule.id: f for f in diag.findings}


@needs_corpus
@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name[:60])
def test_every_corpus_log_diagnosed(log):
    diag = diagnose(log)
    assert not [n for n in diag.notes if "could not run" in n], diag.notes
    for f in diag.findings:
        assert f.hit.message and f.hit.time_lost >= 0


def test_imbalanced_io():
    """README: balanced at MPI-IO, heavily imbalanced at POSIX because the file is
    striped over a single OST; and POSIX data is partial (over 1024 files on rank 0)."""
    found = findings(corpus_log("imbalanced_io"))
    stripe = found["lustre-striping"]
    assert stripe.severity == "critical"
    assert any("3981085427" in f for f in stripe.hit.files)
    assert any("1 OST" in line for line in stripe.hit.evidence)
    shared = found["imbalance-shared"]
    assert any("3981085427 (POSIX)" in line for line in shared.hit.evidence)
    assert "POSIX" in " ".join(found["partial-log"].hit.evidence)
    assert "MAX_RECORDS" in found["partial-log"].snippet


def test_partial_data_stdio():
    found = findings(corpus_log("partial_data_stdio"))
    assert found["partial-log"].hit.evidence[0].startswith("STDIO")


def test_partial_data_dxt():
    found = findings(corpus_log("partial_data_dxt"))
    text = " ".join(found["partial-log"].hit.evidence)
    assert "DXT_POSIX" in text and "DXT_MPIIO" in text
    assert "DXT_POSIX" in found["partial-log"].snippet


def test_mpi_io_test_with_dxt():
    """README: 32 processes, coll = 0 (independent MPI-IO), write times 2.7-7.6 s."""
    found = findings(corpus_log("mpi_io_test_with_dxt"))
    assert found["no-collective"].hit.evidence[0].startswith("128 of 128 MPI-IO reads")
    assert "imbalance-ranks" in found
    assert "collective-used" not in found


def test_skew_io():
    """README: skew heuristic, slowest MPI-IO time far above the POSIX time."""
    found = findings(corpus_log("skew_io", "skew-app*.darshan"))
    assert "mpiio-skew" in found


def test_ior_hdf5_independent():
    found = findings(corpus_log("ior_pnetcdf_hdf5", "*HDF5*.darshan"))
    assert "hdf5-collective" in found


@pytest.mark.parametrize("log", ["hdf5_diagonal_write_1_byte_dxt.darshan",
                                 "hdf5_file_opens_only.darshan"])
def test_tiny_hdf5_runs_raise_no_alarm(log):
    """A few bytes per process: nothing is worth a warning."""
    found = findings(corpus_log("hdf5_diagonal_write_only", log))
    assert not [f for f in found.values() if f.severity in ("critical", "warning")], found


def test_diagonal_heatmap_log_is_clean():
    """README: 32 ranks write one byte each on staggered delays: no problem to report."""
    assert findings(corpus_log("runtime_and_dxt_heatmaps_diagonal_write_only")) == {}
