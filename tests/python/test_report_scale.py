"""Report size and memory stay bounded as logs grow.

The quick test renders a 20,000-record log; with IOLENS_LONG=1 a
1,000,000-record log is rendered in a child process whose time and peak
memory are printed (docs/performance.md records them)."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

import numpy as np
import pytest

import iolens
from report_helpers import page_facts

NRANKS = 1024


def make_log(path, nrecords: int, seed: int = 7):
    """A synthetic POSIX log: nrecords distinct files spread over NRANKS ranks."""
    rng = np.random.default_rng(seed)
    info = iolens.module_info("POSIX")
    names = [f"/lus/scratch/job/rank{r:04d}/part.{i:07d}"
             for i, r in enumerate(np.arange(nrecords) % NRANKS)]
    ids = np.array([iolens.record_id(n) for n in names], dtype=np.uint64)
    ints = np.zeros((nrecords, len(info.counters)), dtype=np.int64)
    flts = np.zeros((nrecords, len(info.fcounters)), dtype=np.float64)
    ic = {n: k for k, n in enumerate(info.counters)}
    fc = {n: k for k, n in enumerate(info.fcounters)}
    reads, writes = rng.integers(0, 64, nrecords), rng.integers(1, 64, nrecords)
    ints[:, ic["POSIX_OPENS"]] = 1
    ints[:, ic["POSIX_READS"]], ints[:, ic["POSIX_WRITES"]] = reads, writes
    ints[:, ic["POSIX_BYTES_READ"]], ints[:, ic["POSIX_BYTES_WRITTEN"]] = reads * 4096, writes * 4096
    ints[:, ic["POSIX_MAX_BYTE_WRITTEN"]] = writes * 4096 - 1
    ints[:, ic["POSIX_MAX_BYTE_READ"]] = np.maximum(reads * 4096 - 1, 0)
    ints[:, ic["POSIX_SIZE_READ_1K_10K"]], ints[:, ic["POSIX_SIZE_WRITE_1K_10K"]] = reads, writes
    ints[:, ic["POSIX_SEQ_WRITES"]] = ints[:, ic["POSIX_CONSEC_WRITES"]] = writes - 1
    ints[:, ic["POSIX_ACCESS1_ACCESS"]], ints[:, ic["POSIX_ACCESS1_COUNT"]] = 4096, reads + writes
    start = rng.uniform(0, 500, nrecords)
    flts[:, fc["POSIX_F_OPEN_START_TIMESTAMP"]] = start
    flts[:, fc["POSIX_F_CLOSE_END_TIMESTAMP"]] = start + rng.uniform(0.1, 50, nrecords)
    flts[:, fc["POSIX_F_READ_TIME"]] = reads * 1e-4
    flts[:, fc["POSIX_F_WRITE_TIME"]] = writes * 2e-4
    flts[:, fc["POSIX_F_META_TIME"]] = 1e-3
    with iolens.Writer(path) as w:
        w.set_job(uid=1000, start_time_sec=1_700_000_000, end_time_sec=1_700_000_600,
                  nprocs=NRANKS, jobid=42, metadata="lib_ver=3.5.0\n",
                  exe="/apps/bigio --files 1000000", mounts=[("/lus", "lustre"), ("/", "ext4")])
        w.add_names(ids, names)
        w.put_records("POSIX", ids, np.arange(nrecords) % NRANKS, ints, flts)
    return path


def render_in_child(log, out):
    """Run `iolens report` in a child; returns (seconds, peak RSS in MiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "iolens.report.cli", str(log), "-o", str(out)],
                         capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - t0
    assert run.returncode == 0, run.stderr
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def test_many_records_bounded_page(tmp_path):
    log = make_log(tmp_path / "big.darshan", 20_000)
    out = tmp_path / "big.html"
    seconds, peak = render_in_child(log, out)
    text = out.read_text()
    ids, values = page_facts(text)
    assert {"overview-table", "fig-timeline", "top-bytes-table", "fig-mounts"} <= ids
    with iolens.open(log) as handle:
        assert values["POSIX.bytes_read"] == str(int(handle.records("POSIX")["POSIX_BYTES_READ"].sum()))
    top = text.split('id="top-bytes-table"', 1)[1].split("</table>", 1)[0]
    assert top.count("<tr>") == 1 + 10          # header + TOP_N rows, not one per file
    assert len(text) < 3_000_000, "page size must not grow with the record count"
    print(f"\n20k records: {seconds:.1f} s, peak {peak:.0f} MiB, page {len(text) / 1e6:.2f} MB")


@pytest.mark.skipif(os.environ.get("IOLENS_LONG") != "1", reason="1M-record run: set IOLENS_LONG=1")
def test_million_records(tmp_path):
    t0 = time.perf_counter()
    log = make_log(tmp_path / "huge.darshan", 1_000_000)
    made = time.perf_counter() - t0
    out = tmp_path / "huge.html"
    seconds, peak = render_in_child(log, out)
    size = out.stat().st_size
    print(f"\n1M records: log {log.stat().st_size / 1e6:.1f} MB written in {made:.0f} s; "
          f"report {seconds:.1f} s, peak RSS {peak:.0f} MiB, page {size / 1e6:.2f} MB")
    assert peak < 4096 and size < 3_000_000
