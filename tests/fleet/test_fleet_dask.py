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
