"""Findings per region (issue 33; docs/diagnosis.md, "Per region"), from real runs of
progs/phases.c under the preloaded runtime: region "load batch" reads in 4 KiB
requests; region "checkpoint" writes in 1 MiB requests ("split") or in 4 KiB
requests too ("alike"); or "load batch" opens and closes its file for each of 200
reads ("reopen"), or reads its pieces in a scrambled order ("random", with DXT).
A finding names the region its pattern is in and the one it is not in, in every
output, and only when they differ; its cost and the root causes stay those of the
diagnosis without regions."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "runtime"))
sys.path.insert(0, str(HERE.parents[0] / "mpi"))
from mpi_helpers import Mpi, find_mpi_runtime, one_log  # noqa: E402
from rt_helpers import REPO, logs_in, run_under, runtime  # noqa: E402,F401  (fixture)
from iolens.diagnose import diagnose  # noqa: E402
from iolens.diagnose import out_json, out_sarif, out_text  # noqa: E402
from iolens.diagnose.by_region import random_shares  # noqa: E402
from iolens.diagnose.rules import RULES  # noqa: E402
import iolens  # noqa: E402


@pytest.fixture(scope="module")
def phases(tmp_path_factory):
    exe = tmp_path_factory.mktemp("phases") / "phases"
    r = subprocess.run(["cc", "-O1", f"-I{REPO / 'include'}", "-o", str(exe),
                        str(HERE / "progs" / "phases.c")], capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"no C compiler for progs/phases.c: {r.stderr[-300:]}")
    return exe


def phases_log(runtime, phases, tmp_path, mode, env=None):
    data, logdir = tmp_path / f"{mode}-data", tmp_path / f"{mode}-logs"
    data.mkdir()
    run_under(runtime, [phases, mode, data], logdir, extra_env=env)
    [log] = logs_in(logdir)
    return log


def small_io(diag):
    [finding] = [f for f in diag.findings if f.rule.id == "small-io"]
    return finding


def test_finding_names_the_region_it_is_in(runtime, phases, tmp_path):
    log = phases_log(runtime, phases, tmp_path, "split")
    diag = diagnose(log)
    finding = small_io(diag)
    split = finding.regions
    assert [f.region for f in split.shown] == ["load batch"]
    assert [f.region for f in split.absent] == ["checkpoint"]
    assert split.shown[0].data_ops == 2048 and split.shown[0].mean_request == 4096
    assert split.absent[0].data_ops == 16 and split.absent[0].mean_request == 1 << 20
    assert finding.hit.message.endswith("in region `load batch`, not in `checkpoint`")

    text = out_text.render(diag, explain=True)
    assert "in `load batch`: POSIX 2,048 data operations averaging 4.0 KiB, 2 metadata" in text
    assert "not in `checkpoint`: POSIX 16 data operations averaging 1.0 MiB" in text
    assert "region `checkpoint`: POSIX mean request size = 1.0 MiB < sizes.small_request" \
        in text                                                     # --explain's values
    doc = out_json.to_dict(diag, explain=True)
    jsonschema.validate(doc, out_json.schema())
    [regions] = [f["regions"] for f in doc["findings"] if f["rule"] == "small-io"]
    assert [r["region"] for r in regions["in"]] == ["load batch"]
    assert [r["region"] for r in regions["not_in"]] == ["checkpoint"]
    sarif = out_sarif.to_dict([diag])
    jsonschema.validate(sarif, json.loads((HERE / "sarif_required.json").read_text()))
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "small-io"]
    assert result["properties"]["regions"]["pattern"] == "small"
    assert "not in `checkpoint`" in result["message"]["text"]


def test_attribution_leaves_costs_and_causes_alone(runtime, phases, tmp_path):
    """The same log diagnosed with no rule naming a region pattern: the same
    findings, times, groups and per-process losses."""
    log = phases_log(runtime, phases, tmp_path, "split")
    plain = tuple(dataclasses.replace(r, region_pattern="") for r in RULES)
    with_regions, without = diagnose(log), diagnose(log, rules=plain)
    assert without.findings and all(f.regions is None for f in without.findings)
    assert [(f.rule.id, f.hit.time_lost, f.severity, f.group) for f in with_regions.findings] \
        == [(f.rule.id, f.hit.time_lost, f.severity, f.group) for f in without.findings]
    assert [g.time_lost for g in with_regions.groups] == [g.time_lost for g in without.groups]
    assert with_regions.lost_by_process == without.lost_by_process


def test_no_split_when_every_region_shows_it(runtime, phases, tmp_path):
    log = phases_log(runtime, phases, tmp_path, "alike")
    diag = diagnose(log)
    finding = small_io(diag)
    assert finding.regions is None
    assert "region" not in finding.hit.message
    assert not any("by region" in line for line in finding.hit.evidence)
    doc = out_json.to_dict(diag)
    assert all("regions" not in f for f in doc["findings"])
    tests = {c["rule"]: c["tests"] for c in diag.checks}["small-io"]
    assert any(t.startswith("regions with I/O showing small requests, of 2") and t.endswith("= 2")
               for t in tests), tests


def test_metadata_finding_names_its_region(runtime, phases, tmp_path):
    """open-close (one file opened 200 times) split by the regions' share of
    metadata operations: 400 of 600 in "load batch", 2 of 18 in "checkpoint"."""
    diag = diagnose(phases_log(runtime, phases, tmp_path, "reopen"))
    [finding] = [f for f in diag.findings if f.rule.id == "open-close"]
    split = finding.regions
    assert split.pattern == "metadata"
    [load], [ckpt] = split.shown, split.absent
    assert (load.region, load.meta_ops, load.data_ops) == ("load batch", 400, 200)
    assert (ckpt.region, ckpt.meta_ops, ckpt.data_ops) == ("checkpoint", 2, 16)
    assert "in `load batch`: POSIX+STDIO 200 data operations averaging 4.0 KiB, 400 metadata " \
        "operations (66.7 %)" in out_text.render(diag)


DXT = {"DXT_ENABLE_IO_TRACE": "1"}


def test_random_access_split_by_the_segments_regions(runtime, phases, tmp_path):
    """random-access is split by region from the DXT segments' own region
    (log.dxt()'s ``region`` column, the DXT_REGION module): scrambled reads in
    `load batch`, sequential writes in `checkpoint`."""
    log = phases_log(runtime, phases, tmp_path, "random", DXT)
    diag = diagnose(log)
    [finding] = [f for f in diag.findings if f.rule.id == "random-access"]
    with iolens.open(log) as lg:
        assert lg.dxt("POSIX")["region"].notna().any()
    assert [f.region for f in finding.regions.shown] == ["load batch"]
    assert [f.region for f in finding.regions.absent] == ["checkpoint"]
    assert finding.regions.shown[0].random_share > 0.4


def test_random_shares_of_a_real_trace(runtime, phases, tmp_path):
    """random_shares on the run's real DXT segments and their own region column:
    the scrambled reads are about half not sequential (piece i * 997 mod 2048
    falls back 996 times in 2047), the checkpoint's writes never; the input
    written before any region is in none."""
    log = phases_log(runtime, phases, tmp_path, "random", DXT)
    with iolens.open(log) as lg:
        seg = lg.dxt("POSIX")
    shares = random_shares(seg)
    assert sorted(shares.index) == ["checkpoint", "load batch"]
    assert (shares.loc["load batch", "later"], shares.loc["load batch", "random"]) == (2047, 996)
    assert (shares.loc["checkpoint", "later"], shares.loc["checkpoint", "random"]) == (15, 0)


def test_log_without_regions_as_before(runtime, tmp_path):
    """A small-io finding in a log with no REGION records: no split, no region
    line in any output, no region test in --explain."""
    logdir = tmp_path / "logs"
    run_under(runtime, ["dd", "if=/dev/zero", f"of={tmp_path / 'out'}", "bs=4k", "count=200",
                        "status=none"], logdir)
    [log] = logs_in(logdir)
    diag = diagnose(log)
    assert small_io(diag).regions is None
    text = out_text.render(diag, explain=True)      # (the log's path names the test)
    assert "region `" not in text and "by region" not in text and "in region" not in text
    assert all("regions" not in f for f in out_json.to_dict(diag, explain=True)["findings"])
    results = out_sarif.to_dict([diag])["runs"][0]["results"]
    assert all("regions" not in r["properties"] and "by region" not in r["message"]["text"]
               for r in results)


def test_split_in_an_mpi_job(tmp_path):
    """Four processes under the MPI runtime (Open MPI): each region's records of
    every rank are reduced into one shared record, and the split holds on the sums."""
    runtime = find_mpi_runtime("openmpi")
    if runtime is None:
        pytest.skip("libiolens-mpi.so for Open MPI not built (IOLENS_MPI_RUNTIME_OPENMPI)")
    openmpi = Mpi("openmpi", runtime)
    exe = openmpi.compile(HERE / "progs" / "phases.c", tmp_path / "phases",
                          extra=("-DPHASES_MPI", f"-I{REPO / 'include'}"))
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir()
    openmpi.run([exe, "split", data], logs, nprocs=4)
    split = small_io(diagnose(one_log(logs))).regions
    [load], [ckpt] = split.shown, split.absent
    assert (load.region, load.data_ops, load.mean_request) == ("load batch", 4 * 2048, 4096)
    assert (ckpt.region, ckpt.data_ops, ckpt.mean_request) == ("checkpoint", 4 * 16, 1 << 20)
