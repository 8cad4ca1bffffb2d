"""Fidelity under MPI: w05_mpiio and w06_posix_shared on 4 processes against upstream's
golden logs, judged by ../shared/tools/compare-logs with the project's allow file.
Open MPI (the MPI the golden logs were made with): 0 differences.  MPICH: the
MPI-IO records and the workload's own POSIX records must agree; POSIX records of
files the MPI library itself opens (ROMIO's lock tests, its own writes) may differ."""
import subprocess
import sys

import pytest

from mpi_helpers import REPO, one_log, records

GOLDEN = ["w05_mpiio", "w06_posix_shared"]


@pytest.fixture(scope="module")
def allow_file(shared, tmp_path_factory):
    path = tmp_path_factory.mktemp("allow") / "allowed.txt"
    text = (shared / "golden" / "allowed-deviations.txt").read_text()
    text += "\n" + (REPO / "tests" / "runtime" / "allowed-deviations.txt").read_text()
    path.write_text(text)
    return path


def build_workload(mpi, shared, name, out):
    r = subprocess.run(["make", "-s", "-C", str(shared / "workloads"), f"OUT={out}",
                        f"MPICC={mpi.info['cc']}", str(out / name)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot build {name} with {mpi.info['cc']}: {r.stderr[-300:]}")
    return out / name


def compare(shared, ours, golden, allow):
    r = subprocess.run([sys.executable, str(shared / "tools" / "compare-logs"), str(ours),
                        str(golden), "--allow", str(allow)], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r


@pytest.mark.parametrize("name", GOLDEN)
def test_workload_matches_golden(name, mpi, shared, allow_file, tmp_path):
    pytest.importorskip("darshan")
    (tmp_path / "bin").mkdir()
    exe = build_workload(mpi, shared, name, tmp_path / "bin")
    work, logdir = tmp_path / name, tmp_path / "logs"
    work.mkdir()
    mpi.run([exe, work], logdir)
    r = compare(shared, one_log(logdir), shared / "golden" / "runtime" / f"{name}.darshan", allow_file)
    if name == "w06_posix_shared":
        # float counter compare-logs skips: process r moved 12 (r+1) x 64 KiB, so the
        # population variance of bytes is 786432^2 x 1.25 (upstream's value too)
        recs, _ = records(one_log(logdir), "POSIX")
        assert recs[(-1, str(work / "shared.posix"))]["POSIX_F_VARIANCE_RANK_BYTES"] == 773094113280.0
    if mpi.name == "openmpi":
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
        return
    # MPICH: only differences in POSIX records (files ROMIO opens) and the heat
    # maps that count them are acceptable, and for w06 (plain POSIX) none at all.
    diffs = [l for l in r.stdout.splitlines()
             if l and not l.startswith("note:") and "allowed:" not in l and " differences" not in l]
    mpiio = [l for l in diffs if "MPI-IO" in l]
    assert not mpiio, "\n".join(mpiio)
    if name == "w06_posix_shared":
        assert r.returncode == 0 and " 0 differences" in r.stdout, r.stdout
    else:
        assert all(l.startswith(("POSIX ", "missing record ('POSIX'", "extra record ('POSIX'",
                                 "HEATMAP ('POSIX'")) for l in diffs), "\n".join(diffs)
