"""The DAOS diagnosis rules (daos-small-io, daos-reopen; docs/diagnosis.md) on real
runs: progs/daos_patterns.c makes each pattern through the DAOS emulation under the
preloaded runtime, and its fixed form; the pattern's log gets the finding, with its
evidence and --explain values, and the fixed program's log does not."""
import json
import shutil
import subprocess

import pytest

from test_daos_runtime import HERE, REPO, emu_root, emulation, one_log
from rt_helpers import run_under

iolens = pytest.importorskip("iolens")


@pytest.fixture(scope="module")
def patterns(tmp_path_factory):
    rt, lib = emulation()
    if not shutil.which("cc"):
        pytest.skip("cc not found")
    out = tmp_path_factory.mktemp("daos_patterns") / "daos_patterns"
    r = subprocess.run(["cc", "-O1", "-g", f"-I{REPO / 'tests' / 'daos_emu' / 'include'}",
                        str(HERE / "progs" / "daos_patterns.c"), "-o", str(out), f"-L{lib}",
                        "-ldfs", "-ldaos", "-lgurt", "-luuid", "-lpthread",
                        f"-Wl,-rpath,{lib}"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return rt, out


def diagnosis(patterns, tmp_path, mode):
    """`iolens diagnose --json --explain` of one run of mode: (findings by rule, checks by rule)."""
    rt, prog = patterns
    logs = tmp_path / f"logs-{mode}"
    run_under(rt, [prog, emu_root(tmp_path, f"emu-{mode}"), mode], logs)
    r = subprocess.run(["iolens", "diagnose", "--json", "--explain", str(one_log(logs))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    out = json.loads(r.stdout)
    run = out["runs"][0] if "runs" in out else out
    return ({f["rule"]: f for f in run["findings"]},
            {c["rule"]: c for c in run.get("checks", [])})


def gates_of(check):
    """{label: "value op key (limit): yes|no"} of a rule's --explain lines."""
    return dict(t.split(" = ", 1) for t in check["tests"] if " = " in t)


@pytest.mark.parametrize("mode,word", [("dfs-small", "DFS reads"), ("daos-small", "DAOS fetches/reads")])
def test_small_transfers_found(patterns, tmp_path, mode, word):
    found, checks = diagnosis(patterns, tmp_path, mode)
    f = found["daos-small-io"]
    # 512 writes and 512 reads of 1 KiB: every one is small
    assert any(e.startswith(f"512 of 512 {word} (100.0 %)") and "1.0 KiB per call" in e
               for e in f["evidence"]), f["evidence"]
    assert f["time_lost_seconds"] > 0 and f["files"]
    assert ("DFS chunk size 1.0 MiB: a transfer of whole chunks fills each in one call"
            in f["evidence"]) == (mode == "dfs-small")
    t = gates_of(checks["daos-small-io"])
    assert t[f"small {word}"] == "512 >= small_io.min_count (100): yes"
    assert t[f"small {word} / {word}"] == "100 % > small_io.fraction (10 %): yes"


@pytest.mark.parametrize("mode", ["dfs-large", "daos-large"])
def test_large_transfers_not_found(patterns, tmp_path, mode):
    found, checks = diagnosis(patterns, tmp_path, mode)
    assert "daos-small-io" not in found
    module = mode.split("-")[0].upper()
    word = "reads" if module == "DFS" else "fetches/reads"
    t = gates_of(checks["daos-small-io"])
    assert t[f"small {module} {word}"] == "0 >= small_io.min_count (100): no"


@pytest.mark.parametrize("mode,module", [("dfs-reopen", "DFS"), ("daos-reopen", "DAOS")])
def test_reopened_objects_found(patterns, tmp_path, mode, module):
    found, checks = diagnosis(patterns, tmp_path, mode)
    f = found["daos-reopen"]
    assert any(e.startswith(f"1 {module} objects are opened more than 16 times") and
               "(200 opens in all)" in e for e in f["evidence"]), f["evidence"]
    assert any("200 opens per process" in e for e in f["evidence"])
    assert f["time_lost_seconds"] > 0
    t = gates_of(checks["daos-reopen"])
    assert t[f"opens of one {module} object by one process"] == \
        "200 > daos_open.opens_per_object (16): yes"
    assert t[f"{module} bytes moved per open (objects opened that often)"].endswith(
        "< daos_open.bytes_per_open (1.0 MiB): yes")


@pytest.mark.parametrize("mode", ["dfs-once", "daos-once"])
def test_objects_kept_open_not_found(patterns, tmp_path, mode):
    found, checks = diagnosis(patterns, tmp_path, mode)
    assert "daos-reopen" not in found
    module = mode.split("-")[0].upper()
    t = gates_of(checks["daos-reopen"])
    assert t[f"opens of one {module} object by one process"] == \
        "1 > daos_open.opens_per_object (16): no"
