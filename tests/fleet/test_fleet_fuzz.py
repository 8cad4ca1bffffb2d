"""Fuzzing `iolens fleet ingest` with mutated logs (tests/fleet/fleet_fuzz.py):
the run must finish with exit 0 and no traceback, every mutated log must end in
exactly one of jobs or quarantine (with a reason), and a re-run must add
nothing.  The smoke round (60 logs) is part of the default run; IOLENS_LONG=1
runs rounds of 400 for IOLENS_FUZZ_SECONDS (default 600).  Each ingest runs
as the real command, with its address space capped (4 GiB) so that a log
that makes the reader allocate without bound shows as a quarantined log
(MemoryError, or a worker that died), not as a machine out of memory."""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time

import pytest

from iolens.fleet.query import connect
from fleet_fuzz import seeds, write_round

MEMORY_CAP = 4 << 30
SUMMARY = re.compile(r"ingest: (\d+) ingested, (\d+) quarantined, (\d+) already present")


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def ingest(logs, store, timeout):
    run = subprocess.run([sys.executable, "-m", "iolens.fleet.cli", "ingest", str(logs),
                          "--store", str(store), "-j", "2", "--batch", "16"],
                         capture_output=True, text=True, timeout=timeout, preexec_fn=_capped)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    found = SUMMARY.search(run.stderr)
    assert found, run.stderr[-3000:]
    return tuple(int(g) for g in found.groups())


def fuzz_round(tmp_path, pool, count, seed, timeout=600):
    logs = tmp_path / f"round{seed}"
    paths = write_round(str(logs), pool, count, seed)
    store = tmp_path / f"store{seed}"
    ingested, quarantined, present = ingest(logs, store, timeout)
    assert (ingested + quarantined, present) == (count, 0), f"seed {seed}"
    with connect(str(store)) as con:
        jobs = [r[0] for r in con.execute("SELECT log_key FROM jobs").fetchall()]
        bad = dict(con.execute("SELECT log_key, reason FROM quarantine").fetchall())
    assert len(jobs) == ingested and len(bad) == quarantined, f"seed {seed}"
    assert set(jobs) | set(bad) == {os.path.realpath(p) for p in paths}, f"seed {seed}"
    for key, why in bad.items():
        assert re.match(r"\w+(Error|Exception): \S", why), (seed, key, why)
    assert ingest(logs, store, timeout) == (0, 0, count), f"seed {seed}: re-run added logs"
    return ingested, quarantined


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    return seeds(str(tmp_path_factory.mktemp("fuzzseeds")), 8, seed=3)


def test_fuzz_smoke(tmp_path, pool):
    ingested, quarantined = fuzz_round(tmp_path, pool, 60, seed=2)
    # the mutations both damage logs and leave some readable
    assert ingested > 0 and quarantined > 0


@pytest.mark.skipif(os.environ.get("IOLENS_LONG") != "1",
                    reason="long ingest fuzzing: set IOLENS_LONG=1 (IOLENS_FUZZ_SECONDS)")
def test_fuzz_long(tmp_path, pool):
    end = time.monotonic() + float(os.environ.get("IOLENS_FUZZ_SECONDS", "600"))
    seed, totals = 1000, [0, 0]
    while time.monotonic() < end:
        got = fuzz_round(tmp_path, pool, 400, seed)
        totals = [a + b for a, b in zip(totals, got)]
        for p in (tmp_path / f"round{seed}").iterdir():   # keep the disk use flat
            p.unlink()
        seed += 1
    print(f"ingest fuzz: {seed - 1000} rounds, {totals[0]} logs ingested, "
          f"{totals[1]} quarantined")
