"""`--dask ADDRESS` on a Dask LocalCluster (2 worker processes) gives the same
tables as the local run."""
from __future__ import annotations

import pandas as pd
import pytest

from iolens.fleet.ingest import ingest
from iolens.fleet.query import connect
from fleet_helpers import damaged_logs, need_corpus

distributed = pytest.importorskip("distributed", reason="dask[distributed] is a test dependency")


def tables(store):
    out = {}
    with connect(store) as con:
        for t, key in (("jobs", ["log_key"]), ("files", ["log_key", "interface", "file_id"]),
                       ("quarantine", ["log_key"])):
            df = con.execute(f"SELECT * FROM {t}").df()
            df = df.drop(columns=["ingested_at"], errors="ignore")
            out[t] = df.sort_values(key).reset_index(drop=True)
    return out


def test_dask_equals_local(generated, tmp_path):
    corpus = need_corpus()
    bad = list(damaged_logs(tmp_path / "bad", generated[1][0]))
    sources = corpus[:20] + [generated[0]] + bad
    ingest(sources, str(tmp_path / "local"), workers=1, quiet=True, batch=40)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, death_timeout=60) as cluster:
        res = ingest(sources, str(tmp_path / "dask"), dask=cluster.scheduler_address,
                     quiet=True, batch=40, chunk=8)
    assert res.ingested == 20 + len(generated[1]) and res.quarantined == len(bad)
    a, b = tables(str(tmp_path / "local")), tables(str(tmp_path / "dask"))
    for t in a:
        assert len(a[t]) > 0, t
        pd.testing.assert_frame_equal(a[t], b[t], check_exact=True, obj=t)


def _worker_pids(cluster):
    """Process ids of the cluster's worker processes (children of its nannies)."""
    out = []
    for nanny in cluster.workers.values():
        pid = getattr(getattr(nanny, "process", None), "pid", None)
        if pid:
            out.append(pid)
    return out


def test_dask_killed_worker_loses_no_log(tmp_path):
    """With no failure allowed, a worker killed in the middle of a chunk makes
    the scheduler give up on it (KilledWorker): its logs are read again one per
    task and every log is ingested once."""
    import os
    import signal
    import threading
    import time

    import dask
    from iolens.fleet.synth import generate
    logs = generate(str(tmp_path / "logs"), 300, seed=8, max_procs=64)
    store = str(tmp_path / "s")
    killed = []

    def kill_one(cluster, stop):
        # once a batch is committed the workers are busy with queued chunks
        while not stop.is_set() and not killed:
            if os.path.exists(os.path.join(store, "manifest.json")):
                pids = _worker_pids(cluster)
                if pids:
                    os.kill(pids[0], signal.SIGKILL)
                    killed.append(pids[0])
            time.sleep(0.002)

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None, death_timeout=60) as cluster:
        stop = threading.Event()
        killer = threading.Thread(target=kill_one, args=(cluster, stop))
        killer.start()
        try:
            res = ingest([str(tmp_path / "logs")], store, dask=cluster.scheduler_address,
                         quiet=True, batch=10, chunk=10, with_findings=False)
        finally:
            stop.set()
            killer.join(timeout=30)
    assert killed, "the ingest ended before a worker could be killed"
    assert (res.ingested, res.quarantined) == (len(logs), 0)
    with connect(store) as con:
        keys = [r[0] for r in con.execute("SELECT log_key FROM jobs").fetchall()]
    assert sorted(keys) == sorted(os.path.realpath(p) for p in logs)
