"""Kill an ingest midway (SIGKILL), look at the store, restart: every log
exactly once, nothing half-written ever visible."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq

from iolens.fleet.query import connect
from iolens.fleet.store import read_manifest, table_files
from iolens.fleet.synth import generate


def check_consistent(store):
    """Every committed file is readable and no log appears twice."""
    manifest = read_manifest(store)
    for table in ("jobs", "files", "quarantine"):
        for path in table_files(store, table, manifest):
            pq.read_table(path)
    with connect(store) as con:
        keys = [r[0] for r in con.execute("SELECT log_key FROM jobs").fetchall()]
    assert len(keys) == len(set(keys))
    return set(keys)


def test_kill_and_restart(tmp_path):
    logs = generate(str(tmp_path / "logs"), 150, seed=11, max_procs=64)
    store = str(tmp_path / "store")
    cmd = [sys.executable, "-m", "iolens.fleet.cli", "ingest", str(tmp_path / "logs"),
           "--store", store, "-j", "1", "--batch", "1", "-q"]
    kills = 0
    for delay in (0.05, 0.013, 0.031):   # kill at different points of the commit cycle
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        start = len(read_manifest(store)["batches"]) if os.path.exists(store) else 0
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(os.path.join(store, "manifest.json")) and \
                    len(read_manifest(store)["batches"]) >= start + 2:
                time.sleep(delay)
                break
            time.sleep(0.005)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
        seen = check_consistent(store)
        assert 0 < len(seen) <= len(logs)
    assert kills >= 1, "ingest finished before it could be killed"
    assert len(seen) < len(logs)
    run = subprocess.run(cmd[:-3] + ["--batch", "50"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    final = check_consistent(store)
    assert final == {os.path.realpath(p) for p in logs}
    staging = os.path.join(store, "_staging")
    assert not os.path.isdir(staging) or not os.listdir(staging)
