"""Ingest is all-or-quarantine per log: no single log (values no column holds,
names that are not UTF-8, FIFOs, devices, links, a dead worker) stops it, each
real file counts once, the run ends with its counts and a re-run changes nothing.
Every run is the real command in a subprocess, with a bounded wait."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from iolens.fleet.query import connect
from iolens.fleet.store import read_manifest
from fleet_helpers import fleet, write_log, write_non_utf8_log

SUMMARY = "ingest: {} ingested, {} quarantined, {} already present"


def rows(store, sql):
    with connect(str(store)) as con:
        return con.execute(sql).fetchall()


def reasons(store):
    return dict(rows(store, "SELECT log_file, reason FROM quarantine"))


def test_value_no_column_holds_is_quarantined_not_fatal(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    write_log(logs / "good.darshan")
    write_log(logs / "negative-jobid.darshan", jobid=-1)             # job_id is unsigned
    write_log(logs / "huge-sums.darshan", bytes_read=1 << 62, names=("/a", "/b"))
    run = fleet("ingest", logs, "--store", tmp_path / "s", "-j", "1")
    assert "Traceback" not in run.stderr
    assert SUMMARY.format(1, 2, 0) in run.stderr
    assert [r[0] for r in rows(tmp_path / "s", "SELECT log_file FROM jobs")] == ["good.darshan"]
    why = reasons(tmp_path / "s")
    assert why["negative-jobid.darshan"].startswith("ValueOutOfRangeError: jobs.job_id = -1")
    assert "more than 64-bit sums can hold" in why["huge-sums.darshan"]


def test_partial_flag_with_bit_63_is_stored(tmp_path):
    log = write_log(tmp_path / "p.darshan", partial=1 << 63)
    fleet("ingest", log, "--store", tmp_path / "s", "-j", "1")
    assert rows(tmp_path / "s", "SELECT partial_flag, partial FROM jobs") == [(1 << 63, True)]


def test_non_utf8_names_are_stored_escaped(tmp_path):
    d = os.fsencode(str(tmp_path / "logs"))
    os.mkdir(d)
    path = os.fsdecode(d + b"/job-\xfe.darshan")   # the log's own path is not UTF-8 either
    write_non_utf8_log(path)
    write_log(tmp_path / "logs" / "plain.darshan")
    run = fleet("ingest", tmp_path / "logs", "--store", tmp_path / "s", "-j", "1")
    assert SUMMARY.format(2, 0, 0) in run.stderr
    jobs = dict(rows(tmp_path / "s", "SELECT log_file, exe FROM jobs"))
    assert jobs["job-\\xfe.darshan"] == "/opt/bad\\xffexe -x"
    files = [r[0] for r in rows(tmp_path / "s", "SELECT file FROM files")]
    assert "/lus/scratch/u1/bad\\xffname" in files
    keys = [r[0] for r in rows(tmp_path / "s", "SELECT log_key FROM jobs")]
    assert str(tmp_path / "logs" / "job-\\xfe.darshan") in keys
    # and the next run knows it is there
    assert SUMMARY.format(0, 0, 2) in fleet("ingest", tmp_path / "logs", "--store",
                                            tmp_path / "s", "-j", "1").stderr


def test_special_files_are_quarantined_without_blocking(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    write_log(logs / "good.darshan")
    os.mkfifo(logs / "fifo.darshan")
    os.symlink("/dev/zero", logs / "zero.darshan")
    os.symlink("loop.darshan", logs / "loop.darshan")
    os.symlink("nowhere", logs / "dangling.darshan")
    run = fleet("ingest", logs, "--store", tmp_path / "s", "-j", "2", timeout=120)
    assert SUMMARY.format(1, 4, 0) in run.stderr
    why = reasons(tmp_path / "s")
    assert why["fifo.darshan"] == "NotRegularFileError: a FIFO, not a regular file"
    assert why["zero.darshan"] == "NotRegularFileError: a character device, not a regular file"
    assert "Too many levels of symbolic links" in why["loop.darshan"]
    assert "No such file or directory" in why["dangling.darshan"]


def test_links_to_one_log_count_once(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    write_log(logs / "a.darshan")
    os.symlink("a.darshan", logs / "b-link.darshan")
    os.link(logs / "a.darshan", logs / "c-hard.darshan")
    run = fleet("ingest", logs, "--store", tmp_path / "s", "-j", "2")
    assert SUMMARY.format(1, 0, 2) in run.stderr
    assert rows(tmp_path / "s", "SELECT count(*) FROM jobs") == [(1,)]
    # A later run that finds the log under a new name (a new hard link) knows it.
    more = tmp_path / "more"
    more.mkdir()
    os.link(logs / "a.darshan", more / "d.darshan")
    run = fleet("ingest", more, "--store", tmp_path / "s", "-j", "1")
    assert SUMMARY.format(0, 0, 1) in run.stderr
    assert rows(tmp_path / "s", "SELECT count(*) FROM jobs") == [(1,)]


def _tables(store):
    return {t: sorted(map(repr, rows(store, f"SELECT * EXCLUDE (ingested_at) FROM {t}"
                                     if t == "quarantine" else f"SELECT * FROM {t}")))
            for t in ("jobs", "files", "quarantine")}


def test_rerun_is_idempotent(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(3):
        write_log(logs / f"g{i}.darshan", jobid=i)
    write_log(logs / "neg.darshan", jobid=-5)
    (logs / "garbage.darshan").write_bytes(b"not a log\n" * 50)
    os.mkfifo(logs / "fifo.darshan")
    store = tmp_path / "s"
    assert SUMMARY.format(3, 3, 0) in fleet("ingest", logs, "--store", store, "-j", "2").stderr
    before, manifest = _tables(store), read_manifest(str(store))
    for _ in range(2):
        run = fleet("ingest", logs, "--store", store, "-j", "2")
        assert SUMMARY.format(0, 0, 6) in run.stderr
        assert _tables(store) == before
        assert read_manifest(str(store)) == manifest


def _children(pid):
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _busy_worker(pid, store):
    """A worker process of the ingest `pid` once the ingest has committed a
    batch (the workers are then past their start-up and have chunks queued)."""
    if not os.path.exists(os.path.join(store, "manifest.json")):
        return None
    # the workers are the children of the forkserver, a child of the ingest
    return next((w for child in _children(pid) for w in _children(child)), None)


def test_a_dead_worker_does_not_hang_or_lose_logs(tmp_path):
    """The out-of-memory killer (here SIGKILL) takes a worker in the middle of
    an ingest: the ingest still ends, with every log ingested once."""
    from iolens.fleet.synth import generate
    logs = generate(str(tmp_path / "logs"), 300, seed=5, max_procs=64)
    store = str(tmp_path / "s")
    cmd = [sys.executable, "-m", "iolens.fleet.cli", "ingest", str(tmp_path / "logs"),
           "--store", store, "-j", "2", "--batch", "10", "--no-findings"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    killed, deadline = None, time.monotonic() + 120
    while killed is None and proc.poll() is None and time.monotonic() < deadline:
        killed = _busy_worker(proc.pid, store)
        if killed is not None:
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.002)
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert killed is not None, "the ingest ended before a worker could be killed"
    assert proc.returncode == 0, err
    assert SUMMARY.format(len(logs), 0, 0) in err
    got = [r[0] for r in rows(store, "SELECT log_key FROM jobs")]
    assert sorted(got) == sorted(os.path.realpath(p) for p in logs)


def test_stats_name_every_unusable_log_and_exit_1(tmp_path):
    good = write_log(tmp_path / "good.darshan")
    damaged = tmp_path / "damaged.darshan"
    damaged.write_bytes(Path(good).read_bytes()[:300])
    fifo = tmp_path / "fifo.darshan"
    os.mkfifo(fifo)
    missing = tmp_path / "missing.darshan"
    for verb in ("job-stats", "file-stats"):
        run = fleet(verb, good, damaged, fifo, missing, "--csv", check=False, timeout=120)
        assert run.returncode == 1, run.stderr
        assert len(run.stdout.strip().splitlines()) == 2, run.stdout   # header + good log's row
        err = run.stderr.splitlines()
        assert len(err) == 3, err
        # what went wrong, in words: the error classes stay in the store's quarantine table
        assert re.search(f"^iolens fleet {verb}: {re.escape(str(damaged))}: [a-z]", run.stderr, re.M)
        assert f"iolens fleet {verb}: {fifo}: a FIFO" in run.stderr
        assert "Error:" not in run.stderr
        assert f"iolens fleet {verb}: {missing}: no such file or directory" in run.stderr
        ok = fleet(verb, good, "--csv")
        assert ok.returncode == 0 and ok.stderr == "" and ok.stdout == run.stdout


def test_missing_source_is_one_line_and_makes_no_store(tmp_path):
    run = fleet("ingest", tmp_path / "nowhere", "--store", tmp_path / "s", check=False)
    assert run.returncode == 1
    assert run.stderr == f"iolens fleet ingest: {tmp_path / 'nowhere'}: no such log or directory\n"
    assert not (tmp_path / "s").exists()
