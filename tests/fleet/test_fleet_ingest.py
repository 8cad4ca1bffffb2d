"""Ingest: the whole corpus plus generated logs, incremental re-runs,
quarantine of damaged logs, and the jobs/files tables against our reader."""
from __future__ import annotations

import os

import numpy as np
import pytest

import iolens
from iolens.fleet.ingest import ingest
from iolens.fleet.query import connect
from iolens.fleet.store import read_manifest
from fleet_helpers import damaged_logs, fleet, need_corpus


@pytest.fixture(scope="module")
def store(tmp_path_factory, generated, config):
    logs = need_corpus()
    root = str(tmp_path_factory.mktemp("store") / "s")
    bad = damaged_logs(tmp_path_factory.mktemp("bad"), generated[1][0])
    run = fleet("ingest", os.path.dirname(logs[0]).rsplit("/logs/", 1)[0] + "/logs",
                generated[0], os.path.dirname(next(iter(bad))), "--store", root,
                "--config", config, "-j", "2", "--batch", "25")
    assert "logs/s" in run.stderr      # progress and rate are shown
    return root, logs, generated[1], bad


def test_every_log_once(store):
    root, corpus, gen, bad = store
    with connect(root) as con:
        keys = [r[0] for r in con.execute("SELECT log_key FROM jobs").fetchall()]
        qkeys = [r[0] for r in con.execute("SELECT log_key FROM quarantine").fetchall()]
    assert len(keys) == len(set(keys))
    assert set(keys) == {os.path.realpath(p) for p in corpus + gen}
    assert set(qkeys) == {os.path.realpath(p) for p in bad}
    assert len(read_manifest(root)["batches"]) >= 2


def test_quarantine_reasons(store):
    root, _, _, bad = store
    with connect(root) as con:
        rows = dict(con.execute("SELECT log_file, reason FROM quarantine").fetchall())
    assert set(rows) == set(bad.values())
    for name, reason in rows.items():
        # The reason names the library's error class and its message.
        assert reason.split(":")[0].endswith("Error"), (name, reason)
        assert len(reason.split(":", 1)[1].strip()) > 5, (name, reason)
    assert "Truncated" in rows["truncated.darshan"] or "truncat" in rows["truncated.darshan"].lower()


def test_incremental_skips_known_logs(store, generated, tmp_path):
    root = store[0]
    before = read_manifest(root)["batches"]
    res = ingest([generated[0]], root, workers=1, quiet=True)
    assert (res.ingested, res.quarantined, res.batches) == (0, 0, 0)
    assert res.skipped == len(generated[1])
    assert read_manifest(root)["batches"] == before
    # A new log is picked up on the next run, alone.
    from iolens.fleet.synth import write_job
    new = tmp_path / "new.darshan"
    write_job(str(new), np.random.default_rng(3), shape="fpp", nprocs=4,
              start_time=1_750_000_000, uid=5, app="newapp", jobid=42)
    res = ingest([generated[0], str(tmp_path)], root, workers=1, quiet=True)
    assert (res.ingested, res.batches) == (1, 1)
    with connect(root) as con:
        assert con.execute("SELECT count(*) FROM jobs WHERE app = 'newapp'").fetchone()[0] == 1


def _expected_job(path):
    """The jobs-table numbers computed from our reader's frames (report.perf,
    a separate implementation from the ingest's numpy one)."""
    from iolens.report.perf import perf
    from iolens.fleet.interfaces import interfaces
    out = {}
    with iolens.open(path) as log:
        out["uid"], out["nprocs"] = log.job["uid"], log.job["nprocs"]
        out["partial"] = log.partial_flag != 0
        for itf in interfaces():
            frame = log.records(itf.module)
            if not len(frame):
                out[itf.key] = None
                continue
            p = perf(frame, itf.prefix, log.job["nprocs"])
            out[itf.key] = (p.bytes_read, p.bytes_written, frame["id"].nunique(),
                            p.agg_time_by_slowest)
    return out


def test_jobs_table_matches_reader(store):
    root, corpus, gen, _ = store
    with connect(root) as con:
        jobs = con.execute("SELECT * FROM jobs").df().set_index("log_key")
    from iolens.fleet.interfaces import interfaces
    for path in corpus + gen[:20]:
        row = jobs.loc[os.path.realpath(path)]
        exp = _expected_job(path)
        assert (row["uid"], row["nprocs"], bool(row["partial"])) == \
            (exp["uid"], exp["nprocs"], exp["partial"]), path
        for itf in interfaces():
            k = itf.key
            if exp[k] is None:
                assert row[f"{k}_records"] == 0, (path, k)
                continue
            got = (row[f"{k}_bytes_read"], row[f"{k}_bytes_written"], row[f"{k}_files"])
            assert got == exp[k][:3], (path, k)
            assert row[f"{k}_time"] == pytest.approx(exp[k][3], rel=1e-12, abs=1e-12), (path, k)


def test_storage_classes_from_config(store):
    root = store[0]
    with connect(root) as con:
        got = dict(con.execute(
            "SELECT file, storage_class FROM files WHERE log_file LIKE 'job%' ").fetchall())
    assert got, "generated logs have files"
    for name, cls in got.items():
        want = ("scratch" if name.startswith("/lus/scratch/") else
                "home" if name.startswith("/home/") else
                "node-local" if name.startswith("/tmp/") else "other")
        assert cls == want, name


def test_bad_sql_is_a_clear_error(store):
    run = fleet("query", store[0], "SELECT nope FROM jobs", check=False)
    assert run.returncode == 1 and "nope" in run.stderr and "Traceback" not in run.stderr
    run = fleet("query", "/nonexistent/store", "SELECT 1", check=False)
    assert run.returncode == 1 and "not a fleet store" in run.stderr


def test_sparse_huge_ranks_do_not_allocate(tmp_path):
    """A damaged job with nprocs 2^40 and a record of rank 2^39: the slowest-rank
    sum must not allocate an array per rank (it would need 4 TiB)."""
    from iolens.fleet.classes import StorageClasses
    from iolens.fleet.extract import extract
    info = iolens.module_info("POSIX")
    ints = np.zeros((2, len(info.counters)), np.int64)
    flts = np.zeros((2, len(info.fcounters)), np.float64)
    flts[:, info.fcounters.index("POSIX_F_READ_TIME")] = [2.5, 1.0]
    path = tmp_path / "huge.darshan"
    with iolens.Writer(str(path)) as w:
        w.set_job(nprocs=1 << 40, start_time_sec=1, end_time_sec=2)
        w.add_names([1, 2], ["/a", "/b"])
        w.put_records("POSIX", [1, 2], [1 << 39, 3], ints, flts)
    r = extract(str(path), StorageClasses())
    assert "job" in r, r.get("quarantine")
    assert r["job"]["posix_time"] == 2.5 and r["job"]["posix_files"] == 2


def test_platform_facts_are_a_column(tmp_path):
    """A log the runtime wrote carries the machine's facts (Log.platform); the
    jobs table holds them as a map, so `platform['cores']` is plain SQL."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    repo = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(repo / "tests" / "runtime"))
    from rt_helpers import find_runtime
    tool = os.environ.get("IOLENS_BIN") or shutil.which("iolens")
    if not tool or find_runtime() is None:
        pytest.skip("the iolens tool and runtime are not built (set IOLENS_BIN, IOLENS_RUNTIME)")
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.setdefault("IOLENS_RUNTIME", str(find_runtime()))
    out = tmp_path / "copy.txt"
    run = subprocess.run([tool, "run", "--logpath", str(logs), "--", "cp", __file__, str(out)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    log = next(logs.glob("*.darshan"))
    with iolens.open(log) as opened:
        facts = opened.platform
    assert facts.get("cores") == str(os.cpu_count()), facts
    root = str(tmp_path / "store")
    ingest([str(logs)], root, workers=1, with_findings=False, quiet=True)
    with connect(root) as con:
        got = con.execute("SELECT platform['cores'] AS cores, platform FROM jobs").fetchall()
    assert len(got) == 1
    cores = got[0][0]
    cores = cores[0] if isinstance(cores, list) else cores     # DuckDB < 1.1 gives a list
    assert cores == facts["cores"]
    assert dict(got[0][1]) == facts


def test_store_of_an_older_schema_reads_by_column_name(tmp_path, generated):
    """A store made before a column was added (its batches lack it and carry no
    or another schema tag) takes new batches, and queries see every job: the old
    rows with NULL in the new column, the new rows with their values."""
    import json
    import shutil
    import pyarrow.parquet as pq
    logs = generated[1]
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    shutil.copy(logs[0], first)
    shutil.copy(logs[1], second)
    root = str(tmp_path / "store")
    ingest([str(first)], root, workers=1, with_findings=False, quiet=True)
    manifest = read_manifest(root)
    for batch in manifest["batches"]:                  # as an older version wrote it
        batch.pop("schema", None)
        for rel in batch["files"]:
            if rel.startswith("jobs/"):
                path = os.path.join(root, rel)
                pq.write_table(pq.read_table(path).drop_columns(["platform"]), path)
    with open(os.path.join(root, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(manifest, fh)
    ingest([str(second)], root, workers=1, with_findings=False, quiet=True)
    with connect(root) as con:
        rows = con.execute("SELECT log_file, platform IS NULL FROM jobs "
                           "ORDER BY log_file").fetchall()
    assert [os.path.basename(r[0]) for r in rows] == sorted(
        os.path.basename(p) for p in logs[:2])
    old = {os.path.basename(r[0]): r[1] for r in rows}
    assert old[os.path.basename(logs[0])] is True
    assert old[os.path.basename(logs[1])] is False
