"""The explorer's out-of-core indexer (index_build.py, index_sort.py) and the
chunked DXT reader under it (Log._c.dxt_reader).

With deliberately tiny budgets (a few dozen segments per decoded chunk, a few
hundred rows sorted in memory at a time) the index of a generated trace must
use every out-of-core path - several chunks and run files, several bucket
groups, a bucket split by a second partition, a bucket of equal start times
copied through - and still equal, bit for bit, the index built the simple way
in memory (inmemory_index.py): every column, the pyramid and meta.json."""
from __future__ import annotations

import numpy as np
import pytest

import iolens
from explore_helpers import CORPUS, corpus_dxt_logs, traced_log
from inmemory_index import build_in_memory
from iolens._meta import module_info
from iolens.explore import index as ix, index_build, index_sort
from iolens.write import Writer


# ------------------------------------------------------------ a trace with every hard case
def _segments(rng, n, t0, t1):
    start = rng.uniform(t0, t1, n)
    return {"offset": rng.integers(0, 1 << 30, n), "length": rng.integers(0, 1 << 22, n),
            "start": start, "end": start + rng.uniform(0, 0.01, n)}


def _module(rng, records):
    """records: (rank, name index, writes, reads, t0, t1) -> put_dxt arguments."""
    cols = {"offset": [], "length": [], "start": [], "end": []}
    for _, _, nw, nr, t0, t1 in records:
        for k, v in _segments(rng, nw + nr, t0, t1).items():
            cols[k].append(v)
    return ([r for r, *_ in records], [f"nid{r % 3:02d}" for r, *_ in records],
            [w for _, _, w, *_ in records], [r for _, _, _, r, *_ in records],
            {k: np.concatenate(v) for k, v in cols.items()})


def write_trace(path, mpiio_segments=True):
    """DXT_POSIX and DXT_MPIIO over 6 ranks and 9 files (one without a name).
    The first records' operations all start in [0, 1): the bucket boundaries,
    taken from the rows seen before the first spill, leave the later [1, 60)
    in the last bucket, which must be split.  700 operations start at exactly
    2.5 (a bucket that cannot be split), a few at NaN, +inf and -inf."""
    rng = np.random.default_rng(16)
    names = [f"/scratch/run/file{i}.dat" for i in range(8)]
    ids = [iolens.record_id(n) for n in names] + [0xDEADBEEF]      # the last has no name
    posix = [(r, (r + k) % 9, 40 + 7 * k, 30 + 5 * r, 0.0, 1.0) for k in range(2) for r in range(6)]
    posix += [(r, (2 * r + k) % 9, 120 + 11 * r, 90 + 3 * k, 1.0, 60.0)
              for k in range(3) for r in (5, 0, 3, 1, 4, 2)]
    ranks, hosts, wc, rc, seg = _module(rng, posix)
    flat = seg["start"]
    flat[-1300:-600] = 2.5
    seg["end"][-1300:-600] = 2.5 + rng.uniform(0, 0.01, 700)
    flat[[5, 77, 900]] = [np.nan, np.inf, -np.inf]
    seg["end"][[6, 78]] = [np.nan, np.inf]
    mp = [(r, r % 9, 25 + r, 15, 0.5, 58.0) for r in (3, 1, 0, 2, 5)] + [(4, 7, 0, 0, 0, 0)]
    if not mpiio_segments:
        mp = [(r, k, 0, 0, 0, 0) for r, k, *_ in mp]
    mranks, mhosts, mwc, mrc, mseg = _module(rng, mp)
    with Writer(path) as w:
        w.set_job(nprocs=6, jobid=16, end_time_sec=60, exe="/bin/trace")
        w.add_names(ids[:-1], names)
        w.put_dxt("DXT_POSIX", [ids[i] for _, i, *_ in posix], ranks, hosts, wc, rc, **seg)
        w.put_dxt("DXT_MPIIO", [ids[i] for _, i, *_ in mp], mranks, mhosts, mwc, mrc, **mseg)
    return path


# ------------------------------------------------------------ comparing two indexes
def assert_same_index(a, b):
    assert (a / "meta.json").read_text() == (b / "meta.json").read_text()
    for name, dtype in ix.COLUMNS.items():
        fa, fb = a / f"{name}.npy", b / f"{name}.npy"
        assert fa.exists() == fb.exists(), name
        if fa.exists():
            x, y = np.load(fa), np.load(fb)
            assert x.dtype == y.dtype == np.dtype(dtype), name
            assert x.tobytes() == y.tobytes(), f"column {name} differs"
    pa, pb = np.load(a / "pyramid.npz"), np.load(b / "pyramid.npz")
    for k in ("count", "bytes", "busy", "mpi"):
        assert pa[k].dtype == pb[k].dtype and pa[k].tobytes() == pb[k].tobytes(), k
    la, lb = np.load(a / "long.npy"), np.load(b / "long.npy")
    assert la.astype(np.int64).tobytes() == lb.astype(np.int64).tobytes(), "long operations"


@pytest.fixture
def sorts(monkeypatch):
    """The ExternalSort objects the builder creates, to read their stats."""
    made = []

    class Recording(index_sort.ExternalSort):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(index_build, "ExternalSort", Recording)
    return made


def build_both(log_path, tmp_path, chunk_rows, sort_rows):
    with iolens.open(log_path) as log:
        build_in_memory(log, tmp_path / "ref")
        ix.build(log, tmp_path / "ooc", chunk_rows=chunk_rows, sort_rows=sort_rows)
        ix.build(log, tmp_path / "dflt")               # the default budget: sorted in memory
    assert_same_index(tmp_path / "ref", tmp_path / "ooc")
    assert_same_index(tmp_path / "ref", tmp_path / "dflt")
    return ix.open_index(tmp_path / "ooc")


def test_tiny_budget_uses_every_out_of_core_path_and_equals_in_memory(tmp_path, sorts):
    log = write_trace(tmp_path / "trace.darshan")
    idx = build_both(log, tmp_path, chunk_rows=97, sort_rows=450)
    st = sorts[0].stats
    assert st["runs"] >= 20 and st["groups"] >= 3, st
    assert st["splits"] >= 1, st                      # the [1, 60) bucket
    assert st["copied"] >= 700, st                    # the 700 starts at 2.5
    assert sorts[1].stats == {"runs": 0, "groups": 1, "splits": 0, "copied": 0}
    assert not list(tmp_path.glob("ooc*/runs")) and not list(tmp_path.glob("ooc.*"))
    # the trace itself: both modules, out-of-order starts; the segments with a
    # NaN or infinite start or end are damage (iolens.view): skipped and counted
    start = np.asarray(idx.cols["start"])
    assert set(np.unique(idx.cols["mod"])) == {0, 1}
    assert np.isfinite(start).all() and np.isfinite(np.asarray(idx.cols["end"])).all()
    assert (np.diff(start) >= 0).all()
    assert idx.meta["damage"] == {"set_aside": {"DXT_POSIX": 5},
                                  "segments": {"DXT_POSIX": {"bad-time": 5}}}
    assert "<record 0xdeadbeef>" in idx.meta["files"]
    assert [lane["rank"] for lane in idx.meta["lanes"]] == list(range(6))
    assert idx.meta["lanes"][4]["host"] == "nid01"


def test_records_of_a_module_without_segments_do_not_count(tmp_path, sorts):
    log = write_trace(tmp_path / "trace.darshan", mpiio_segments=False)
    idx = build_both(log, tmp_path, chunk_rows=301, sort_rows=1000)
    assert set(np.unique(idx.cols["mod"])) == {0}
    assert idx.meta["modules"] == ["DXT_POSIX", "DXT_MPIIO"]
    assert sorts[0].stats["runs"] >= 5


@pytest.mark.parametrize("log", corpus_dxt_logs())
def test_corpus_logs_index_the_same_out_of_core(log, tmp_path):
    with iolens.open(log) as lg:
        n = sum(lg.dxt_records(m)[["write_count", "read_count"]].to_numpy().sum()
                for m in ("POSIX", "MPIIO"))
    build_both(log, tmp_path, chunk_rows=max(1, int(n) // 6), sort_rows=max(2, int(n) // 3))


def thread_id_logs() -> list:
    """corpus-next logs whose DXT segments carry thread ids (DXT_POSIX v2,
    DXT_MPIIO v3): their lanes are (rank, thread) pairs."""
    d = CORPUS.parent.parent / "corpus-next" / "logs" / "dxt_thread_ids"
    logs = sorted(d.glob("*.darshan")) if d.is_dir() else []
    if not logs:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"logs with DXT thread ids not found at {d} (needs ../shared beside the repo)"))]
    return [pytest.param(p, id=p.name) for p in logs]


@pytest.mark.parametrize("log", thread_id_logs())
def test_thread_id_logs_index_the_same_out_of_core(log, tmp_path, sorts):
    idx = build_both(log, tmp_path, chunk_rows=13, sort_rows=40)
    lanes = [(lane["rank"], lane["thread"]) for lane in idx.meta["lanes"]]
    assert all(t is not None for _, t in lanes) and lanes == sorted(lanes)
    assert sorts[0].stats["runs"] > 1


def test_own_traced_log_indexes_the_same_out_of_core(tmp_path, sorts):
    idx = build_both(traced_log(tmp_path), tmp_path, chunk_rows=13, sort_rows=40)
    assert idx.nseg > 40 and sorts[0].stats["runs"] > 1


# ------------------------------------------------------------ the chunked reader
def test_dxt_reader_chunks_equal_the_whole_decode(tmp_path):
    path = write_trace(tmp_path / "trace.darshan")
    with iolens.open(path) as log:
        for mod in ("DXT_POSIX", "DXT_MPIIO"):
            mid = module_info(mod).id
            whole = log._c.dxt(mid)
            for size in (1, 64, 10 ** 6):
                r = log._c.dxt_reader(mid)
                parts = []
                while (d := r.read(size)) is not None:
                    assert d["nseg"] <= size
                    parts.append(d)
                assert r.read(size) is None
                for key, dt in (("seg_rec", np.int64), ("seg_write", np.int8),
                                ("offset", np.int64), ("length", np.int64),
                                ("start", np.float64), ("end", np.float64)):
                    got = np.concatenate([np.frombuffer(p[key], dt) for p in parts])
                    assert got.tobytes() == np.frombuffer(whole[key], dt).tobytes(), (mod, key)
                for key in ("id", "rank", "write_count", "read_count"):
                    got = b"".join(p[key] for p in parts)
                    assert got == bytes(whole[key]), (mod, key)
                assert [h for p in parts for h in p["hostnames"]] == \
                    [whole["hostnames"][c] for c in np.frombuffer(whole["host_code"], np.int32)]
                firsts = [p["rec_first"] for p in parts]
                counts = [len(bytes(p["id"])) // 8 for p in parts]
                assert firsts == list(np.cumsum([0] + counts[:-1]))
            h = log._c.dxt_reader(mid).headers()          # records only, segments skipped
            assert h["nseg"] == 0 and h["rec_first"] == 0
            for key in ("id", "rank", "write_count", "read_count"):
                assert bytes(h[key]) == bytes(whole[key]), (mod, key)
            assert h["hostnames"] == \
                [whole["hostnames"][c] for c in np.frombuffer(whole["host_code"], np.int32)]
            r = log._c.dxt_reader(mid)
            first = r.read(1)                             # headers() goes on from there
            rest = r.headers()
            assert rest["rec_first"] == 1 and bytes(first["id"]) + bytes(rest["id"]) == bytes(whole["id"])
            assert r.read(5) is None and bytes(r.headers()["id"]) == b""


def test_dxt_reader_refuses_bad_use(tmp_path):
    path = write_trace(tmp_path / "trace.darshan")
    log = iolens.open(path)
    r = log._c.dxt_reader(module_info("DXT_POSIX").id)
    with pytest.raises(ValueError):
        r.read(0)
    assert r.read(10)["nseg"] == 10
    log.close()                                   # closes the reader's iterator first
    with pytest.raises(ValueError, match="closed"):
        r.read(10)
    with pytest.raises(iolens.LogError):
        iolens.open(path)._c.dxt_reader(module_info("POSIX").id)


# ------------------------------------------------------------ memory does not grow with the trace
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the forking parent
INDEX_CHILD = r"""
import sys
from pathlib import Path
import iolens
from iolens.explore import index as ix
with iolens.open(sys.argv[1]) as log:
    ix.build(log, Path(sys.argv[2]), chunk_rows=50_000, sort_rows=200_000)
with open("/proc/self/status") as f:
    print(next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024)
"""


def write_flat_trace(path, nseg, nrec=64):
    rng = np.random.default_rng(nseg)
    start = rng.uniform(0, 100, nseg)
    per = np.full(nrec, nseg // nrec)
    per[: nseg % nrec] += 1
    ids = [iolens.record_id(f"/scratch/flat{i}") for i in range(nrec)]
    with Writer(path) as w:
        w.set_job(nprocs=16, end_time_sec=100)
        w.add_names(ids, [f"/scratch/flat{i}" for i in range(nrec)])
        w.put_dxt("DXT_POSIX", ids, np.arange(nrec) % 16, ["n"] * nrec, per // 2, per - per // 2,
                  offset=rng.integers(0, 1 << 30, nseg), length=rng.integers(1, 1 << 20, nseg),
                  start=start, end=start + 0.001)
    return path


def test_indexing_memory_does_not_grow_with_the_trace(tmp_path):
    """Five times the segments under the same budget: the peak may not follow
    (decoding whole, as before, needed ~60 bytes per segment: +288 MB here).
    Both traces exceed the summariser's block (1M rows), a fixed cost."""
    import shutil
    import subprocess
    import sys
    peaks = {}
    for n in (1_200_000, 6_000_000):
        log = write_flat_trace(tmp_path / f"flat{n}.darshan", n)
        out = subprocess.run([sys.executable, "-c", INDEX_CHILD, str(log), str(tmp_path / f"i{n}")],
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        peaks[n] = float(out.stdout.split()[-1])
        assert ix.open_index(tmp_path / f"i{n}").nseg == n
        log.unlink()                                  # ~300 MB: not left for pytest's tmp
        shutil.rmtree(tmp_path / f"i{n}")
    assert peaks[6_000_000] < peaks[1_200_000] + 40, peaks


def test_a_corrupt_trace_fails_cleanly_mid_build(tmp_path):
    """A record claiming more segments than its region holds is found only after
    several chunks have gone to run files: a clear LogError, and nothing left
    behind that could pass for an index."""
    path = tmp_path / "bad.darshan"
    rng = np.random.default_rng(7)
    n = 5000
    start = rng.uniform(0, 10, n)
    ids = [iolens.record_id("/a"), iolens.record_id("/b")]
    with Writer(path, compression="none") as w:
        w.set_job(nprocs=2, end_time_sec=10)
        w.add_names(ids, ["/a", "/b"])
        w.put_dxt("DXT_POSIX", ids, [0, 1], ["n0", "n1"], [2000, 1000], [500, 1500],
                  offset=np.zeros(n, np.int64), length=np.ones(n, np.int64),
                  start=start, end=start + 0.1)
    with iolens.open(path) as log:
        at = log.modules["DXT_POSIX"]["offset"] + 104 + 2500 * 32 + 88   # record 2's write_count
    raw = bytearray(path.read_bytes())
    raw[at:at + 8] = (10 ** 6).to_bytes(8, "little")
    path.write_bytes(bytes(raw))
    cache = tmp_path / "cache"
    with iolens.open(path) as log:
        with pytest.raises(iolens.LogError, match="segments"):
            ix.build(log, cache / "idx", chunk_rows=300, sort_rows=1000)
    assert list(cache.iterdir()) == []
    # A reader that met the damage keeps saying so: never a clean end after it.
    with iolens.open(path) as log:
        r = log._c.dxt_reader(module_info("DXT_POSIX").id)
        with pytest.raises(iolens.LogError, match="segments"):
            while r.read(1000) is not None:
                pass
        for again in (lambda: r.read(10), r.headers):
            with pytest.raises(iolens.LogError, match="segments"):
                again()


def test_dxt_records_are_writable_frames(tmp_path):
    """Log.dxt_records() (record headers through the reader) gives a frame a user
    can change, like every other frame of the reader."""
    with iolens.open(write_trace(tmp_path / "trace.darshan")) as log:
        df = log.dxt_records("POSIX")
    assert len(df) > 1
    df.loc[0, "rank"] = 7
    df.loc[1, "write_count"] += 1
    assert df.loc[0, "rank"] == 7
