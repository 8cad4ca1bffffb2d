"""Labelled runs at test scale (issue 28): four processes under the MPI runtime
(Open MPI), each pattern and its fixed twin (progs/patterns.c), a few seconds at
most.  The rule fires on the pattern and stays silent on the twin, from real
counters: sequence, alignment, histogram and time counters as the runtime wrote
them, not as a test wrote them."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[0] / "mpi"))
from mpi_helpers import Mpi, find_mpi_runtime, one_log  # noqa: E402
from iolens.diagnose import diagnose  # noqa: E402

NPROCS = 4
# rule -> (mode with the pattern, mode without it)
PAIRS = {"rank0-io": ("rank0", "shares"), "read-by-all": ("readall", "readpart"),
         "random-access": ("random", "sorted"), "misaligned-file": ("unaligned", "aligned"),
         "small-io": ("small", "large"), "open-close": ("reopen", "once"),
         "tiny-files": ("tiny", "packed")}


@pytest.fixture(scope="module")
def openmpi():
    runtime = find_mpi_runtime("openmpi")
    if runtime is None:
        pytest.skip("libiolens-mpi.so for Open MPI not built (IOLENS_MPI_RUNTIME_OPENMPI)")
    return Mpi("openmpi", runtime)


@pytest.fixture(scope="module")
def patterns(openmpi, tmp_path_factory):
    return openmpi.compile(HERE / "progs" / "patterns.c",
                           tmp_path_factory.mktemp("bin") / "patterns")


def run(openmpi, patterns, tmp_path, mode):
    work, logs = tmp_path / mode, tmp_path / f"{mode}-logs"
    work.mkdir()
    openmpi.run([patterns, mode, work], logs, nprocs=NPROCS)
    diag = diagnose(one_log(logs))
    return diag, {f.rule.id: f for f in diag.findings}


@pytest.mark.parametrize("rule", sorted(PAIRS))
def test_real_pattern_both_ways(openmpi, patterns, tmp_path, rule):
    bad, good = PAIRS[rule]
    diag, hits = run(openmpi, patterns, tmp_path, bad)
    explain = {c["rule"]: c for c in diag.checks}[rule]
    assert rule in hits, explain
    assert hits[rule].projection is not None and "1,024 processes" in hits[rule].projection.text
    _, hits = run(openmpi, patterns, tmp_path, good)
    assert rule not in hits, hits.get(rule)
