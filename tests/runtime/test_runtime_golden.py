"""Fidelity: the reference workloads under our runtime must give the same counters
as upstream Darshan 3.5.0's golden logs (../shared/golden), judged by the shared
compare-logs tool with the allowed deviations of golden and of this project."""
import subprocess
import sys
from pathlib import Path

import pytest

from rt_helpers import logs_in, run_under

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def allow_file(shared, tmp_path_factory):
    path = tmp_path_factory.mktemp("allow") / "allowed.txt"
    text = (shared / "golden" / "allowed-deviations.txt").read_text()
    text += "\n" + (HERE / "allowed-deviations.txt").read_text()
    path.write_text(text)
    return path


def compare(shared, ours, golden, allow):
    tool = shared / "tools" / "compare-logs"
    r = subprocess.run([sys.executable, str(tool), str(ours), str(golden), "--allow", str(allow)],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"compare-logs {ours.name} vs {golden.name}:\n{r.stdout}{r.stderr}"
    assert " 0 differences" in r.stdout
    return r.stdout


@pytest.mark.parametrize("name", ["w01_posix_basic", "w02_posix_patterns", "w03_stdio",
                                  "w04_many_files"])
def test_workload_matches_golden(name, runtime, shared, workloads, allow_file, tmp_path):
    pytest.importorskip("darshan")
    work, logdir = tmp_path / name, tmp_path / "logs"
    work.mkdir()
    logdir.mkdir()
    run_under(runtime, [workloads / name, work], logdir)
    logs = logs_in(logdir)
    assert len(logs) == 1, logs
    compare(shared, logs[0], shared / "golden" / "runtime" / f"{name}.darshan", allow_file)


def test_fork_parent_and_child_logs(runtime, shared, workloads, allow_file, tmp_path):
    pytest.importorskip("darshan")
    import darshan
    work, logdir = tmp_path / "w07_fork", tmp_path / "logs"
    work.mkdir()
    logdir.mkdir()
    run_under(runtime, [workloads / "w07_fork", work], logdir)
    logs = logs_in(logdir)
    assert len(logs) == 2, logs
    meta = {p: darshan.DarshanReport(str(p), read_all=False).metadata["job"]["metadata"] for p in logs}
    child = [p for p in logs if "fork_parent" in meta[p]]
    parent = [p for p in logs if "fork_parent" not in meta[p]]
    assert len(child) == 1 and len(parent) == 1
    golden = shared / "golden" / "runtime"
    compare(shared, parent[0], golden / "w07_fork.parent.darshan", allow_file)
    compare(shared, child[0], golden / "w07_fork.child.darshan", allow_file)
    # the child's job id is the original process's pid, as upstream's
    pid = parent[0].name.split("_id")[1].split("-")[0]
    assert child[0].name.split("_id")[1].split("-")[0] == pid
    assert int(meta[child[0]]["fork_parent"]) == int(pid)


@pytest.mark.parametrize("name", ["w01_posix_basic", "w03_stdio"])
def test_fortified_build_matches_golden(name, runtime, shared, allow_file, tmp_path):
    """Built with -D_FORTIFY_SOURCE=2 (the default of several distributions), the
    program calls __fprintf_chk/__printf_chk/__read_chk...; the counters must not
    change (upstream misses these entry points)."""
    pytest.importorskip("darshan")
    exe = tmp_path / name
    r = subprocess.run(["cc", "-O2", "-D_FORTIFY_SOURCE=2", "-o", str(exe),
                        str(shared / "workloads" / f"{name}.c")], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot build {name}: {r.stderr[-300:]}")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    run_under(runtime, [exe, work], logdir)
    logs = logs_in(logdir)
    assert len(logs) == 1
    compare(shared, logs[0], shared / "golden" / "runtime" / f"{name}.darshan", allow_file)
