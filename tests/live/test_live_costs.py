"""The live readers' resident size (issue 30 cost goal: under 64 MiB for 256
processes x 1,000 files; bench/live/bench_live.py measures it, docs/live.md
"Costs").  These tests hold the two contracts that keep it down: what the
reader keeps per record, and what the exporter imports."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from iolens.live.copies import find_copies
from iolens.live.snapshot import CopyReader, NotReady

# seq word 4 + eight float64 figures 64 + bytes moved 8 (shown for the busiest
# files); the seq word's index is computed in C (live_read_copy), not kept (it
# was 4 more); before that main kept 93 (also the ids, a flag and a timestamp)
BYTES_PER_RECORD = 76


def _hammer_reader(runtime, progs, tmp_path):
    """(the hammer program running under the runtime, a reader of its copy)."""
    d = tmp_path / "copies"
    d.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(d), DARSHAN_LOGPATH=str(tmp_path))
    proc = subprocess.Popen([str(progs("hammer")), str(tmp_path), "4", "2"], env=env)
    reader, end = None, time.monotonic() + 10
    while reader is None and time.monotonic() < end and proc.poll() is None:
        for c in find_copies([str(d)]):
            try:
                reader = CopyReader(c)
            except NotReady:
                pass
        time.sleep(0.05)
    if reader is None:
        proc.kill()
        proc.wait()
    assert reader is not None, "no safety copy appeared"
    return proc, reader


def test_reader_keeps_few_bytes_per_record(runtime, progs, tmp_path):
    proc, reader = _hammer_reader(runtime, progs, tmp_path)
    try:
        time.sleep(0.5)
        snap = reader.snapshot(time.time())
        n = len(snap.layers["posix"].moved)
        assert n >= 5                                # 4 threads' files + the shared one
        cache = reader.cache["posix"]
        kept = sum(v.nbytes for v in vars(cache).values()
                   if isinstance(v, np.ndarray) and len(v) == n)      # per record
        assert kept <= BYTES_PER_RECORD * n, f"{kept / n:.0f} bytes kept per record"
        names = {reader.name_of(snap.layers["posix"].record_id(i)) for i in range(n)}
        assert any(name.endswith("shared") for name in names), names
        reader.close()
    finally:
        proc.kill()
        proc.wait()


def test_exporter_imports_no_http_server():
    """http.server brings ssl and email: 8 MiB of resident size."""
    code = ("import sys, iolens.live.exporter; "
            "print(' '.join(m for m in ('http.server', 'ssl', 'email', 'pandas') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == ""


def _layer(seq, figs, moved=None, module=1, words=4):
    """A live_read_copy layer: figure 0 is word 2 (an int counter)."""
    terms = np.array([[2, 0, 0]], np.uint32).tobytes()
    return (module, words, 1, terms, b"", seq, figs, None, moved)


def _copy_with_region(path, off, length, size=8192):
    """A file with a 3.41 header naming module 1's region at off (length bytes)."""
    data = bytearray(size)
    data[48 + 16:48 + 32] = np.array([off, length], np.uint64).tobytes()
    path.write_bytes(bytes(data))


def test_copy_reader_refuses_a_cut_copy(tmp_path):
    """iolens._core.live_read_copy on a copy shorter than its head, and with a
    region past its end: an error the view skips (the first), no records (the
    second: the size given is the copy's when opened), never a crash; arrays of
    the wrong shape: ValueError.  (The C function's own hostile cases:
    tests/c/test_live_read.c.)"""
    from iolens import _core
    seq, figs = np.ones(10, np.uint32), np.zeros((10, 8))
    head, out = bytearray(1384), np.zeros((1, 12))
    path = tmp_path / "cut.darshan"
    path.write_bytes(b"\0" * 1000)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(_core.TruncatedLogError):
            _core.live_read_copy(fd, 1000, (_layer(seq, figs),), 0, 0, 0, 0, 8, head, out)
    finally:
        os.close(fd)
    _copy_with_region(path, 4096, 10 * 32)
    fd = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(ValueError):
            _core.live_read_copy(fd, 8192, (_layer(seq, np.zeros((9, 8))),), 0, 0, 0, 0, 8,
                                 head, out)
        with pytest.raises(ValueError):            # out: one row per layer
            _core.live_read_copy(fd, 8192, (_layer(seq, figs),), 0, 0, 0, 0, 8, head,
                                 np.zeros((2, 12)))
        # a region past the size given: no records
        assert _core.live_read_copy(fd, 4096 + 100, (_layer(seq, figs),), 0, 0, 0, 0, 8,
                                    head, out) == (0, 0, (0,))
        # more records than kept: grow first (-1, with the records needed)
        assert _core.live_read_copy(fd, 8192, (_layer(seq[:5], figs[:5]),), 0, 0, 0, 0, 8,
                                    head, out) == (-1, 0, (10,))
        moved = np.zeros(10)
        assert _core.live_read_copy(fd, 8192, (_layer(seq, figs, moved),), 0, 0, 0, 0, 8,
                                    head, out) == (1, 0, (10,))
    finally:
        os.close(fd)


CUT_HEADER = r"""
import os, sys, time
from iolens.live.view import LiveView
d, path = sys.argv[1], sys.argv[2]
view = LiveView([d])
print(len(view.poll()))
for size in (1000, 0):              # less than the header; nothing
    os.truncate(path, size)
    try:
        view.readers[path].snapshot(time.time())
        print("read")
    except Exception as e:
        print(type(e).__name__)
    print(len(view.poll()))         # the view skips it
"""


def test_reader_refuses_a_copy_cut_below_its_header(runtime, progs, tmp_path):
    """A copy cut under the reader to less than its header (a cleaned
    directory, a full tmpfs): the header and job record are read with pread,
    so the round is a TruncatedLogError that the view skips, not a SIGBUS (as
    when they were read through the map).  In a child: a SIGBUS would end
    pytest."""
    proc, reader = _hammer_reader(runtime, progs, tmp_path)
    try:
        d = tmp_path / "cut"
        d.mkdir()
        cut = d / os.path.basename(reader.name.path)
        shutil.copyfile(reader.name.path, cut)
        reader.close()
    finally:
        proc.kill()
        proc.wait()
    out = subprocess.run([sys.executable, "-c", CUT_HEADER, str(d), str(cut)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"reader ended by {out.returncode}: {out.stderr}"
    assert out.stdout.split() == ["1", "TruncatedLogError", "0", "TruncatedLogError", "0"]


def _written(text: str, job_rank: str) -> int:
    """iolens_bytes_written_total of one process's POSIX layer in a scrape."""
    for line in text.splitlines():
        if line.startswith("iolens_bytes_written_total{") and job_rank in line \
                and 'layer="posix"' in line:
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError(f"no bytes written series for {job_rank}")


def test_exporter_serves_idle_and_busy_processes(runtime, progs, tmp_path):
    """Scrape after scrape, an idle process (`steady`, waiting: its layers'
    objects kept from the round before) and a writing one (`paced`) are served
    with their figures of the round (the text is made family by family over all
    processes)."""
    from iolens.live.exporter import Metrics
    d = tmp_path / "copies"
    d.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(d), DARSHAN_LOGPATH=str(tmp_path))
    procs = [subprocess.Popen([str(progs("steady")), str(tmp_path), "a", "5000"], env=env),
             subprocess.Popen([str(progs("paced")), str(tmp_path), "4000000", "0", "4"], env=env)]
    try:
        m = Metrics([str(d)])
        end = time.monotonic() + 10
        while len(m.view.poll()) < 2 and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(0.5)                      # steady has written; paced writes for 4 s
        by_pid = {s.pid: s.path for s in m.view.poll().values()}
        idle, busy = by_pid[procs[0].pid], by_pid[procs[1].pid]
        first = m.render(False)
        idle_layers = m.view.now[idle].layers
        time.sleep(0.5)
        second = m.render(False)
        assert m.view.now[idle].layers is idle_layers        # nothing read again
        assert m.view.now[busy].layers is not m.view.prev[busy].layers
        assert _written(second, f'rank="{procs[0].pid}"') == 5000
        now = int(m.view.now[busy].layers["posix"].totals["bytes_written"])
        assert _written(second, f'rank="{procs[1].pid}"') == now
        assert now > _written(first, f'rank="{procs[1].pid}"')
    finally:
        for p in procs:
            p.kill()
            p.wait()


def test_listings_see_every_change(tmp_path):
    """The directory listings a view keeps between rounds (copies.Listings):
    listed again after a file is created or removed, and after a listing made
    in the same second as the directory's last change; kept otherwise."""
    from iolens.live.copies import Listings
    listing, d = Listings(), str(tmp_path)

    def names():
        return sorted(e.name for e in listing(d))
    assert names() == []
    (tmp_path / "a").write_bytes(b"")
    assert names() == ["a"]
    os.utime(tmp_path, ns=(10**9, 10**9))    # an old change: the listing is kept
    assert names() == ["a"]
    kept = listing.kept[d][2]
    assert names() == ["a"] and listing.kept[d][2] is kept
    (tmp_path / "b").write_bytes(b"")
    assert names() == ["a", "b"]
    (tmp_path / "a").unlink()
    assert names() == ["b"]
    os.utime(tmp_path, ns=(10**9, 10**9))
    names()
    (tmp_path / "c").write_bytes(b"")        # the same old time: a racy clock
    os.utime(tmp_path, ns=(10**9, 10**9))
    assert names() == ["b"]                  # (kept: the time says unchanged)
    now = time.time_ns()                     # a change in the listing's own tick:
    os.utime(tmp_path, ns=(now, now))
    assert names() == ["b", "c"]
    (tmp_path / "d").write_bytes(b"")        # ... then another in that same tick
    os.utime(tmp_path, ns=(now, now))
    assert names() == ["b", "c", "d"]        # listed again: the time was too recent to trust
    listing.round_done()
    listing.round_done()
    assert listing.kept == {}                # not listed in the last round: forgotten
