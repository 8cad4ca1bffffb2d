"""`iolens diff` of regions (issue 33; docs/regions.md, "Comparing runs"): two real
runs of tests/diagnose/progs/phases.c under the preloaded runtime that differ in
the amount written in one region ("checkpoint": 16 MiB or 64 MiB, in 1 MiB
writes; none at all with 0), the other region ("load batch") alike."""
import json
import subprocess

import pytest

from rt_helpers import REPO, logs_in, run_under
from test_diff_workloads import diff


@pytest.fixture(scope="module")
def phases(tmp_path_factory):
    exe = tmp_path_factory.mktemp("phases") / "phases"
    r = subprocess.run(["cc", "-O1", f"-I{REPO / 'include'}", "-o", str(exe),
                        str(REPO / "tests" / "diagnose" / "progs" / "phases.c")],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"no C compiler for phases.c: {r.stderr[-300:]}")
    return exe


@pytest.fixture(scope="module")
def runs(runtime, phases, tmp_path_factory):
    """{checkpoint MiB: its log}."""
    root = tmp_path_factory.mktemp("regionruns")
    out = {}
    for mib in (16, 64, 0):
        data, logdir = root / f"data{mib}", root / f"logs{mib}"
        data.mkdir()
        run_under(runtime, [phases, "split", data, mib], logdir)
        [out[mib]] = logs_in(logdir)
    return out


def section(text):
    """The regions section of the text output: {region: its lines}."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("regions (REGION records"))
    out, name = {}, None
    for line in lines[start + 1:]:
        if line.startswith("  `"):
            name = line.split("`")[1]
            out[name] = [line]
        else:
            out[name].append(line)
    return out


def test_changed_region_and_its_figures(runs):
    regions = section(diff(runs[16], runs[64]))
    assert list(regions) == ["checkpoint", "load batch"]        # changed first
    ckpt, load = regions["checkpoint"], regions["load batch"]
    assert ckpt[0].endswith(": changed")
    posix = next(l for l in ckpt if l.strip().startswith("POSIX:"))
    assert "bytes written 16.0 MiB -> 64.0 MiB (+48.0 MiB)" in posix
    assert "data ops 16 -> 64 (+48)" in posix and "meta ops 2," in posix
    assert "count 1," in ckpt[1]
    assert load[0].endswith(": unchanged")
    assert not any("(+" in l or "(-" in l for l in load), load
    assert "bytes read 8.0 MiB" in load[2] and "data ops 2,048" in load[2]


def test_regions_in_json(runs):
    doc = json.loads(diff(runs[16], runs[64], "--json"))
    regions = {r["region"]: r for r in doc["regions"]}
    ckpt, load = regions["checkpoint"], regions["load batch"]
    assert ckpt["changed"] and ckpt["in"] == "both"
    written = ckpt["layers"]["POSIX"]["bytes_written"]
    assert (written["a"], written["b"], written["delta"]) == (16 << 20, 64 << 20, 48 << 20)
    assert ckpt["count"] == {"a": 1, "b": 1, "delta": None, "changed": False}
    assert not load["changed"]
    assert all(not f["changed"] and f["delta"] is None
               for f in load["layers"]["POSIX"].values())


def test_region_only_in_one_run(runs):
    regions = section(diff(runs[16], runs[0]))
    assert regions["checkpoint"][0].endswith(": only in A")
    assert "bytes written 16.0 MiB" in regions["checkpoint"][2]
    doc = json.loads(diff(runs[0], runs[16], "--json"))
    [ckpt] = [r for r in doc["regions"] if r["region"] == "checkpoint"]
    assert ckpt["in"] == "b" and ckpt["count"]["a"] is None and ckpt["count"]["b"] == 1


def test_logs_without_regions_unchanged(runtime, tmp_path):
    """Two runs with no REGION records: no regions section, no regions key."""
    logs = []
    for count in (4, 8):
        logdir = tmp_path / f"dd{count}"
        run_under(runtime, ["dd", "if=/dev/zero", f"of={tmp_path / f'out{count}'}", "bs=1M",
                            f"count={count}", "status=none"], logdir)
        [log] = logs_in(logdir)
        logs.append(log)
    text = diff(*logs)
    assert "bytes written" in text and "regions" not in text
    assert "regions" not in json.loads(diff(*logs, "--json"))
