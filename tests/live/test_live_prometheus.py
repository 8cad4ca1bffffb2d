"""A real Prometheus scraping `iolens exporter` (issue 30): while an
instrumented program writes a known number of bytes, the HTTP API's
increase(iolens_bytes_written_total[...]) equals it, and once the program has
ended (its copy removed) the series are stale.  Skipped with the reason when the
`prometheus` binary (Debian package `prometheus`) is not installed."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

PROMETHEUS = shutil.which("prometheus")
BYTES = 1234567
pytestmark = pytest.mark.skipif(PROMETHEUS is None,
                                reason="prometheus not installed (apt-get install prometheus)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=5):
    return urllib.request.urlopen(url, timeout=timeout).read().decode()


def until(what, fn, timeout=40.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            v = fn()
            if v:
                return v
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what}")


def query(port, q, at=None):
    args = {"query": q}
    if at is not None:
        args["time"] = repr(at)
    doc = json.loads(get(f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode(args)))
    assert doc["status"] == "success", doc
    return doc["data"]["result"]


def test_prometheus_increase_and_staleness(tool, runtime, progs, tmp_path):
    shm, work, data = tmp_path / "shm", tmp_path / "work", tmp_path / "tsdb"
    for d in (shm, work):
        d.mkdir()
    eport, pport = free_port(), free_port()
    exporter = subprocess.Popen([str(tool), "exporter", "--listen", f"127.0.0.1:{eport}",
                                 "--dir", str(shm)], stderr=subprocess.DEVNULL)
    cfg = tmp_path / "prometheus.yml"
    cfg.write_text("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                   "scrape_configs:\n  - job_name: iolens\n    honor_labels: true\n"
                   f"    static_configs:\n      - targets: ['127.0.0.1:{eport}']\n")
    prom = subprocess.Popen([PROMETHEUS, f"--config.file={cfg}", f"--storage.tsdb.path={data}",
                             f"--web.listen-address=127.0.0.1:{pport}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prog = None
    try:
        until("prometheus ready", lambda: "Ready" in get(f"http://127.0.0.1:{pport}/-/ready"))
        until("a successful scrape of the exporter", lambda: [
            r for r in query(pport, 'up{job="iolens"}') if r["value"][1] == "1"])
        env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
                   DARSHAN_MMAP_LOGPATH=str(shm), DARSHAN_LOGPATH=str(tmp_path))
        prog = subprocess.Popen([str(progs("paced")), str(work), str(BYTES), "4", "3"], env=env)
        job = str(prog.pid)             # without MPI the job id is the first process's pid
        series = f'iolens_bytes_written_total{{job="{job}",layer="posix"}}'
        # scraped at its final value three times: the writes are over
        until("the final value scraped", lambda: len([
            v for v in query(pport, f"{series}[10s]")[0]["values"] if float(v[1]) == BYTES]
        ) >= 3 if query(pport, f"{series}[10s]") else False, timeout=60)
        first = query(pport, f"{series}[5m]")[0]["values"][0]
        assert float(first[1]) == 0.0, "the series began before the writes, at 0"
        t_last = float(query(pport, f"timestamp({series})")[0]["value"][1])
        (inc,) = query(pport, f"increase({series}[5m])", at=t_last)
        assert float(inc["value"][1]) == pytest.approx(BYTES, rel=1e-9)
        (work / "go").touch()
        assert prog.wait(timeout=60) == 0
        until("the series to go stale", lambda: query(pport, series) == [])
        assert query(pport, f'iolens_job_bytes_written_total{{job="{job}"}}') == []
    finally:
        (work / "go").touch()
        for p in (prog, prom, exporter):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
