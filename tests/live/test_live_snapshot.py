"""Torn reads (issue 30): threads update records while a reader snapshots the
safety copy in a loop; every snapshot is internally consistent and no counter
goes backwards between snapshots."""
import os
import subprocess
import time

import numpy as np
import pytest

import iolens
from iolens.live.copies import find_copies
from iolens.live.snapshot import CopyReader, NotReady

THREADS = 4
POSIX = iolens.module_info("POSIX")


def col(name):
    """Word index of a POSIX counter in a record (after id and rank)."""
    if name in POSIX.counters:
        return 2 + POSIX.counters.index(name)
    return 2 + len(POSIX.counters) + POSIX.fcounters.index(name)


WRITES, BYTES, ACCESS1 = col("POSIX_WRITES"), col("POSIX_BYTES_WRITTEN"), col("POSIX_ACCESS1_COUNT")
BINS = [col(n) for n in POSIX.counters if n.startswith("POSIX_SIZE_WRITE_")]
END, WTIME = col("POSIX_F_WRITE_END_TIMESTAMP"), col("POSIX_F_WRITE_TIME")


def _wait_copy(d, proc, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        for c in find_copies([str(d)]):
            try:
                return CopyReader(c, keep_records=True)
            except NotReady:
                pass
        time.sleep(0.01)
    pytest.fail("no safety copy appeared")


def check_record(name, rec):
    """The invariants of one hammer record (a torn read breaks one of them)."""
    w = rec[WRITES]
    k = 3 if name.endswith("shared") else 1 + 7 * int(name.rsplit("-", 1)[1])
    assert rec[BYTES] == w * k, f"torn {name}: {w} writes, {rec[BYTES]} bytes (K={k})"
    assert sum(rec[b] for b in BINS) == w, f"torn {name}: {w} writes, size bins {rec[BINS]}"
    assert rec[ACCESS1] == w, f"torn {name}: {w} writes, ACCESS1_COUNT {rec[ACCESS1]}"


def test_hammer_snapshots_consistent(runtime, progs, tmp_path):
    d = tmp_path / "copies"
    d.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(d), DARSHAN_LOGPATH=str(tmp_path))
    proc = subprocess.Popen([str(progs("hammer")), str(tmp_path), str(THREADS), "5"], env=env)
    try:
        reader = _wait_copy(d, proc)
        assert reader.checked, "the copy has no live trailer"
        previous = {}
        snapshots = changes = 0
        while proc.poll() is None:
            reader.snapshot(time.time())
            recs = reader.records("posix")
            if recs is None:
                continue
            snapshots += 1
            for rec in recs:
                name = reader.name_of(int(np.uint64(rec[0])))
                if "live-hammer-" not in name:
                    continue
                check_record(name, rec)
                # the write time never decreases, even on the shared file where
                # 4 threads' calls overlap (a call ending inside time already
                # counted adds nothing: docs/deviations.md)
                now = (rec[WRITES], rec[BYTES], rec[[WTIME]].view(np.float64)[0])
                if not name.endswith("shared"):
                    # (the shared file's end timestamp is the last recorded call's
                    # end, and the threads take the record's lock in another order
                    # than their clock readings, as upstream's)
                    now += (rec[[END]].view(np.float64)[0],)
                before = previous.get(name)
                if before is not None:
                    assert all(a <= b for a, b in zip(before, now)), \
                        f"{name} went backwards: {before} -> {now}"
                    changes += before != now
                previous[name] = now
        reader.close()
    finally:
        proc.kill()
        proc.wait()
    # the loop must have watched the records change many times, or it proved nothing
    assert snapshots > 50 and changes > 50, (snapshots, changes)


def test_a_round_that_fails_part_way_loses_nothing(runtime, tmp_path):
    """A round of the reader fails after it read the first layer (the last layer's
    map entry points before the pool: BadRegionError).  The first layer's records
    were read in that round, so their seq words match the next round: unless the
    reader forgets what it read, their writes never reach the sums.  After the
    entry is mended, the snapshot has the process's 2 writes of 11 bytes."""
    from iolens.live.snapshot import OFF_MODS
    d, mine, data = tmp_path / "copies", tmp_path / "mine", tmp_path / "f"
    d.mkdir(), mine.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(d), DARSHAN_LOGPATH=str(tmp_path))
    proc = subprocess.Popen(["sh", "-c", f"echo hello > {data}; echo more >> {data}; "
                             f"touch {tmp_path}/done; sleep 20"], env=env)
    try:
        end = time.monotonic() + 20
        while not (tmp_path / "done").exists():
            assert time.monotonic() < end and proc.poll() is None, "the writer never wrote"
            time.sleep(0.01)
        [shell] = [c for c in find_copies([str(d)]) if "_sh_" in c.path]
        copy = mine / os.path.basename(shell.path)       # a still image of it
        copy.write_bytes(open(shell.path, "rb").read())
    finally:
        proc.kill()
        proc.wait()
    [c] = find_copies([str(mine)])
    reader = CopyReader(c)
    modid, words, _ = reader._layout[-1]
    entry = OFF_MODS + 16 * modid
    with open(copy, "r+b") as f:
        f.seek(entry)
        good = f.read(16)
        f.seek(entry)
        f.write(np.array([8, 2 * 8 * words], np.uint64).tobytes())
    with pytest.raises(iolens.LogError):
        reader.snapshot(time.time())
    with open(copy, "r+b") as f:
        f.seek(entry)
        f.write(good)
    posix = reader.snapshot(time.time()).layers["posix"].totals
    assert (posix["writes"], posix["bytes_written"]) == (2, 11), posix
