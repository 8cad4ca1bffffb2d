"""`iolens fleet job-stats` / `file-stats` print what PyDarshan 3.5.0's
`python -m darshan job_stats` / `file_stats` print, on the same logs."""
from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd
import pytest

from fleet_helpers import fleet, need_corpus

pytest.importorskip("darshan", reason="PyDarshan (darshan==3.5.0) is the oracle")


# PyDarshan's file_stats takes seconds per log with many records (17 s for
# imbalanced-io, 30 s for partial_data_stdio); its file-level comparison skips those to keep the run short.
SLOW_FOR_FILE_STATS = ("imbalanced_io", "dlio_logs", "hdf5_diagonal_write_only",
                       "partial_data_stdio")


@pytest.fixture(scope="module")
def logs(generated, tmp_path_factory):
    paths = need_corpus() + generated[1]
    d = tmp_path_factory.mktemp("list")
    listing, file_listing = d / "logs.txt", d / "file-logs.txt"
    listing.write_text("\n".join(paths) + "\n")
    file_listing.write_text("\n".join(p for p in paths
                                      if not any(s in p for s in SLOW_FOR_FILE_STATS)) + "\n")
    store = tmp_path_factory.mktemp("pystore") / "s"
    fleet("ingest", "--store", store, "-j", "2", "-q", *paths)
    return str(listing), str(store), str(file_listing)


def pydarshan(command, listing, module):
    run = subprocess.run([sys.executable, "-m", "darshan", command, "--log_paths_file",
                          listing, "-m", module, "--csv"], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    return run.stdout


def compare(ours: str, theirs: str, key):
    a, b = pd.read_csv(io.StringIO(ours)), pd.read_csv(io.StringIO(theirs))
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b) and len(a) > 0
    a = a.sort_values(key, kind="stable").reset_index(drop=True)
    b = b.sort_values(key, kind="stable").reset_index(drop=True)
    for col in a.columns:
        if a[col].dtype.kind == "f" or b[col].dtype.kind == "f":
            # file_stats sums floats over jobs; the summation order may differ.
            assert a[col].to_numpy() == pytest.approx(b[col].to_numpy(), rel=1e-9, abs=1e-12), col
        else:
            assert a[col].tolist() == b[col].tolist(), col


@pytest.mark.parametrize("module", ["POSIX", "MPI-IO", "STDIO"])
def test_job_stats_equal_pydarshan(logs, module):
    listing, store, _ = logs
    ours = fleet("job-stats", store, "-m", module, "--csv").stdout
    compare(ours, pydarshan("job_stats", listing, module), ["log_file", "start_time"])


@pytest.mark.parametrize("module", ["POSIX", "MPI-IO", "STDIO"])
def test_file_stats_equal_pydarshan(logs, module):
    _, _, listing = logs
    ours = fleet("file-stats", "--log_paths_file", listing, "-m", module, "--csv").stdout
    compare(ours, pydarshan("file_stats", listing, module), ["file"])


def test_stats_straight_from_logs(logs):
    """Existing scripts pass log files, not a store: the same rows come out,
    in PyDarshan's order (descending by the order column) and limit."""
    listing, store, _ = logs
    from_store = fleet("job-stats", store, "--csv", "-o", "total_files", "-l", "7").stdout
    from_logs = fleet("job-stats", "--log_paths_file", listing, "--csv", "-o", "total_files",
                      "-l", "7").stdout
    assert from_store == from_logs
    df = pd.read_csv(io.StringIO(from_logs))
    assert len(df) == 7 and df["total_files"].is_monotonic_decreasing


NAME_FILTERS = [("-i", ["^/lus/"]), ("-e", [r"\.log$", "STDOUT"])]


@pytest.mark.parametrize("flag,patterns", NAME_FILTERS)
@pytest.mark.parametrize("command", ["job_stats", "file_stats"])
def test_name_filters_equal_pydarshan(generated, tmp_path, command, flag, patterns):
    """--include_names / --exclude_names keep the records PyDarshan keeps, and
    the job totals are computed over those records only."""
    listing = tmp_path / "logs.txt"
    listing.write_text("\n".join(generated[1][:10]) + "\n")
    args = [a for p in patterns for a in (flag, p)]
    changed = []
    for module in ("POSIX", "STDIO"):
        ours = fleet(command.replace("_", "-"), "--log_paths_file", listing, "-m", module,
                     "--csv", *args).stdout
        run = subprocess.run([sys.executable, "-m", "darshan", command, "--log_paths_file",
                              str(listing), "-m", module, "--csv", *args],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        unfiltered = fleet(command.replace("_", "-"), "--log_paths_file", listing, "-m", module,
                           "--csv").stdout
        changed.append(ours != unfiltered)
        if not run.stdout.strip():      # the filter left nothing of this module
            assert not ours.strip()
            continue
        compare(ours, run.stdout, ["log_file", "start_time"] if command == "job_stats" else ["file"])
    assert any(changed)     # the filter made a difference somewhere


def test_name_filters_on_a_store(logs):
    """A store holds per-file rows, so file-stats filters them; job totals over a
    subset of records need the logs, and job-stats says so."""
    _, store, _ = logs
    kept = fleet("file-stats", store, "--csv", "-i", "^/lus/").stdout
    files = pd.read_csv(io.StringIO(kept))["file"]
    assert len(files) > 0 and all(f.startswith("/lus/") for f in files)
    run = fleet("job-stats", store, "-i", "^/lus/", check=False)
    assert run.returncode != 0 and "not a store" in run.stderr
    run = fleet("job-stats", store, "-i", "a", "-e", "b", check=False)
    assert run.returncode != 0 and "not both" in run.stderr
