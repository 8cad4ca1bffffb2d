"""DXT tracing (DXT_POSIX, DXT_MPIIO; runtime spec section 5) in the MPI runtime, with
every MPI built for (docs/mpi.md): the offsets and lengths of MPI-IO segments, a
trace that outgrows its memory budget, the small-I/O trigger, MPI_THREAD_MULTIPLE,
and tracing being off by default.  The programs are tests/mpi/progs/dxt_*.c; logs
are read with PyDarshan (and once with the project's reader)."""
from collections import Counter

import pytest

from mpi_helpers import one_log, records

darshan = pytest.importorskip("darshan")

ON = {"DXT_ENABLE_IO_TRACE": "1"}
BUDGET = 2 * 1024 * 1024       # each DXT module's memory, per process
FILE_COST = 104                # charged per traced file
SEG = 32                       # bytes per segment (DXT_POSIX 1 / DXT_MPIIO 2)
MAX_SEGS = (BUDGET - FILE_COST) // SEG
assert MAX_SEGS == 65532


@pytest.fixture
def build(mpi, progs_dir, tmp_path):
    return lambda name: mpi.compile(progs_dir / f"{name}.c", tmp_path / name)


def run(mpi, exe, tmp_path, nprocs, env, args=()):
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, work, *args], logdir, nprocs, env=env)
    return work, one_log(logdir)


def report(log):
    return darshan.DarshanReport(str(log), read_all=True)


def traces(rep, module, work, rows=None):
    """{(rank, file name under work): {"write": [(offset, length)], "read": [...]}}
    (rows: the module's to_df(), if already made)"""
    out = {}
    if module not in rep.records:
        return out
    run_time = rep.metadata["job"]["run_time"]
    prefix = str(work) + "/"
    for rec in rows if rows is not None else rep.records[module].to_df():
        name = rep.name_records.get(int(rec["id"]), "")
        if not name.startswith(prefix):
            continue
        key = (int(rec["rank"]), name[len(prefix):])
        assert key not in out, f"two {module} records for {key}"
        out[key] = {}
        for kind in ("write", "read"):
            segs = rec[f"{kind}_segments"]
            out[key][kind] = [] if len(segs) == 0 else list(zip(
                segs["offset"].astype(int).tolist(), segs["length"].astype(int).tolist()))
            if len(segs):   # seconds since the job started
                assert (segs["start_time"] >= 0).all() and (segs["start_time"] <= segs["end_time"]).all()
                assert (segs["end_time"] <= run_time + 1.0).all()
    return out


def dxt_modules(rep):
    return {m for m in rep.modules if m.startswith("DXT_")}


# ---------------------------------------------------------------- offsets
def expected_offsets(rank, real):
    """dxt_offsets.c's DXT_MPIIO segments of one process (see the program's
    comment): byte offsets if `real`, else -1; shared-pointer calls always -1."""
    def o(byte):
        return byte if real else -1

    def view(etypes):                  # displacement 1000, etype MPI_INT
        return o(1000 + 4 * etypes)

    return {
        "offsets.dat": {
            "write": [(view(10 + 100 * rank), 20), (view(500 + 7 * rank), 12),
                      (view(50 + 10 * rank), 8), (view(52 + 10 * rank), 8),
                      (view(54 + 10 * rank), 4), (view(300 + rank), 24),
                      (-1, 12), (-1, 16)],
            "read": [(view(10 + 100 * rank), 20), (view(50 + 10 * rank), 8)],
        },
        f"types-{rank}.dat": {"write": [(o(777), 48), (o(5000), 14)], "read": []},
    }


@pytest.mark.parametrize("flag", [False, True], ids=["default", "IOLENS_DXT_MPIIO_OFFSETS"])
def test_mpiio_offsets_and_lengths(mpi, build, tmp_path, flag):
    np_ = 3
    # the empty value enables tracing too (upstream's regression test exports it so)
    env = {"DXT_ENABLE_IO_TRACE": "1", "IOLENS_DXT_MPIIO_OFFSETS": "1"} if flag else {"DXT_ENABLE_IO_TRACE": ""}
    work, log = run(mpi, build("dxt_offsets"), tmp_path, np_, env)
    rep = report(log)
    assert dxt_modules(rep) == {"DXT_POSIX", "DXT_MPIIO"}
    # MPICH builds record byte offsets always; Open MPI builds -1 unless asked
    real = mpi.name == "mpich" or flag
    got = traces(rep, "DXT_MPIIO", work)
    want = {(rank, f): segs for rank in range(np_) for f, segs in expected_offsets(rank, real).items()}
    assert got == want
    # POSIX segments carry the offsets POSIX saw, whatever the MPI
    posix = traces(rep, "DXT_POSIX", work)
    for rank in range(np_):
        assert posix[(rank, f"types-{rank}.dat")] == {"write": [(777, 48), (5000, 14)], "read": []}
    # the project's reader gives the same segments
    iolens = pytest.importorskip("iolens")
    frame = iolens.open(str(log)).dxt("MPIIO")
    frame = frame[frame["name"].astype(str).str.startswith(str(work) + "/")]
    assert len(frame) == sum(len(s["write"]) + len(s["read"]) for s in want.values())
    for (rank, f), segs in want.items():
        for kind in ("write", "read"):
            sel = frame[(frame["rank"] == rank) & (frame["name"].astype(str) == f"{work}/{f}")
                        & (frame["op"].astype(str) == kind)]
            assert list(zip(sel["offset"].astype(int), sel["length"].astype(int))) == segs[kind]


# ---------------------------------------------------------------- memory bound
def grants(n):
    """Segments granted to a direction holding n segments: 64, then doubling."""
    g = 64 if n else 0
    while g < n:
        g *= 2
    return g


def kept(remaining):
    """Segments a direction gets out of `remaining` bytes: 64, then doubling,
    capped to what is left."""
    room = 0
    while True:
        want = min(room or 64, remaining // SEG)
        if want == 0:
            return room
        remaining -= want * SEG
        room += want


def test_trace_outgrows_budget(mpi, build, tmp_path):
    n, np_ = 100_000, 4
    work, log = run(mpi, build("dxt_overflow"), tmp_path, np_, ON, args=[n])   # one log
    rep = report(log)
    assert rep.modules["DXT_POSIX"]["partial_flag"] and rep.modules["DXT_MPIIO"]["partial_flag"]
    assert not rep.modules["POSIX"]["partial_flag"] and not rep.modules["MPI-IO"]["partial_flag"]
    posix_rows = rep.records["DXT_POSIX"].to_df()
    posix, mpiio = traces(rep, "DXT_POSIX", work, posix_rows), traces(rep, "DXT_MPIIO", work)
    real = mpi.name == "mpich"

    # rank 1: its only POSIX trace is the first 65532 write()s; shared.dat, opened
    # later, found no memory left for a trace
    assert [k for k in posix if k[0] == 1] == [(1, "big-posix.dat")]
    assert posix[(1, "big-posix.dat")] == {"write": [(i, 1) for i in range(MAX_SEGS)], "read": []}
    all_posix = {(int(r["rank"]), rep.name_records.get(int(r["id"]), "")): r
                 for r in posix_rows}
    assert [k for k in all_posix if k[0] == 1] == [(1, str(work / "big-posix.dat"))]
    # rank 2: the first 65532 MPI_File_write_at calls ...
    assert mpiio[(2, "big-mpiio.dat")] == {"write": [(i if real else -1, 1) for i in range(MAX_SEGS)],
                                           "read": []}
    assert [k for k in mpiio if k[0] == 2] == [(2, "big-mpiio.dat")]
    # ... and as many of the POSIX writes under them as the budget left after the
    # files the MPI library traced first on that process (Open MPI: its .sm file)
    others = [r for k, r in all_posix.items() if k[0] == 2 and k[1] != str(work / "big-mpiio.dat")]
    left = BUDGET - FILE_COST * (len(others) + 1) - SEG * sum(
        grants(len(r["write_segments"])) + grants(len(r["read_segments"])) for r in others)
    assert posix[(2, "big-mpiio.dat")] == {"write": [(i, 1) for i in range(kept(left))], "read": []}
    # the other processes' traces are complete
    for rank in (0, 3):
        assert posix[(rank, f"small-{rank}.dat")] == {"write": [(i, 1) for i in range(100)], "read": []}
    for rank in (0, 1, 3):
        assert mpiio[(rank, "shared.dat")] == {"write": [(rank * 4096 if real else -1, 4096)], "read": []}

    # every counter record, with exact counts
    prec, _ = records(log, "POSIX")
    assert prec[(1, str(work / "big-posix.dat"))]["POSIX_WRITES"] == n
    assert prec[(1, str(work / "big-posix.dat"))]["POSIX_BYTES_WRITTEN"] == n
    assert prec[(2, str(work / "big-mpiio.dat"))]["POSIX_WRITES"] == n
    for rank in (0, 3):
        assert prec[(rank, str(work / f"small-{rank}.dat"))]["POSIX_WRITES"] == 100
    assert any(name == str(work / "shared.dat") for _, name in prec)
    mrec, _ = records(log, "MPI-IO")
    assert set(mrec) == {(2, str(work / "big-mpiio.dat")), (-1, str(work / "shared.dat"))}
    assert mrec[(2, str(work / "big-mpiio.dat"))]["MPIIO_INDEP_WRITES"] == n
    assert mrec[(-1, str(work / "shared.dat"))]["MPIIO_COLL_WRITES"] == np_


# ---------------------------------------------------------------- triggers
def test_small_io_trigger_per_process(mpi, build, tmp_path):
    np_ = 4
    work, log = run(mpi, build("dxt_triggers"), tmp_path, np_,
                    {**ON, "DARSHAN_DXT_SMALL_IO_TRIGGER": "0.5"})
    rep = report(log)
    assert dxt_modules(rep) == {"DXT_POSIX", "DXT_MPIIO"}
    assert not rep.modules["DXT_POSIX"]["partial_flag"] and not rep.modules["DXT_MPIIO"]["partial_flag"]
    # a shared file every process writes small: kept by all (each judged on its
    # own record, not on a reduced one that only process 0 holds)
    kept_files = ({(r, f"small-{r}.dat") for r in range(np_)} | {(r, "allsmall.dat") for r in range(np_)}
                  | {(0, "mixed.dat")})
    for module in ("DXT_POSIX", "DXT_MPIIO"):
        got = traces(rep, module, work)
        assert set(got) == kept_files, module          # big-<r>.dat and ranks 1-3's mixed.dat dropped
        for r in range(np_):
            assert [l for _, l in got[(r, f"small-{r}.dat")]["write"]] == [10] * 200
            assert [l for _, l in got[(r, "allsmall.dat")]["write"]] == [10] * 4
        assert [l for _, l in got[(0, "mixed.dat")]["write"]] == [10] * 4
    posix = traces(rep, "DXT_POSIX", work)
    assert [o for o, _ in posix[(0, "mixed.dat")]["write"]] == [0, 10, 20, 30]
    for r in range(np_):
        assert [o for o, _ in posix[(r, "allsmall.dat")]["write"]] == [40 * r + 10 * i for i in range(4)]
    # the dropped files were recorded
    prec, _ = records(log, "POSIX")
    for r in range(np_):
        big = prec[(r, str(work / f"big-{r}.dat"))]
        assert big["POSIX_WRITES"] == 5 and big["POSIX_SIZE_WRITE_10K_100K"] == 4   # 102400 B: upper bin edge
    # judged on the job's reduced counters mixed.dat would fail everywhere: the
    # trigger uses each process's own
    mixed = prec[(-1, str(work / "mixed.dat"))]
    small = sum(mixed[f"POSIX_SIZE_{op}_{b}"] for op in ("READ", "WRITE") for b in ("0_100", "100_1K", "1K_10K"))
    assert mixed["POSIX_WRITES"] == 4 + 5 * (np_ - 1) and small / mixed["POSIX_WRITES"] < 0.5
    mrec, _ = records(log, "MPI-IO")
    assert mrec[(-1, str(work / "mixed.dat"))]["MPIIO_INDEP_WRITES"] == 4 + 5 * (np_ - 1)
    for r in range(np_):
        assert mrec[(r, str(work / f"big-{r}.dat"))]["MPIIO_INDEP_WRITES"] == 5


# ---------------------------------------------------------------- threads
def test_thread_multiple_mpiio_trace(mpi, build, tmp_path):
    np_, nthreads, per = 3, 4, 50
    exe = build("dxt_threads")
    work, logdir = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    r = mpi.run([exe, work], logdir, np_, env={**ON, "IOLENS_DXT_MPIIO_OFFSETS": "1"}, check=False)
    if r.returncode == 77 or "no MPI_THREAD_MULTIPLE" in r.stderr:
        pytest.skip(f"{mpi.name} does not provide MPI_THREAD_MULTIPLE here")
    assert r.returncode == 0, r.stderr
    log = one_log(logdir)
    rep = report(log)
    assert not rep.modules["DXT_MPIIO"]["partial_flag"]
    mpiio, posix = traces(rep, "DXT_MPIIO", work), traces(rep, "DXT_POSIX", work)
    assert set(mpiio) == {(rank, "threads.dat") for rank in range(np_)}
    for rank in range(np_):
        want = {t: [(4096 * ((rank * nthreads + t) * per + i), 256 * (t + 1)) for i in range(per)]
                for t in range(nthreads)}
        segs = mpiio[(rank, "threads.dat")]
        assert segs["read"] == [] and len(segs["write"]) == nthreads * per
        assert Counter(l for _, l in segs["write"]) == {256 * (t + 1): per for t in range(nthreads)}
        # each thread's calls, in its own order (the length tells the thread)
        for t in range(nthreads):
            assert [s for s in segs["write"] if s[1] == 256 * (t + 1)] == want[t]
        assert sorted(posix[(rank, "threads.dat")]["write"]) == sorted(sum(want.values(), []))
    mrec, _ = records(log, "MPI-IO")
    assert mrec[(-1, str(work / "threads.dat"))]["MPIIO_INDEP_WRITES"] == np_ * nthreads * per


# ---------------------------------------------------------------- off by default
@pytest.mark.parametrize("env", [{}, {"IOLENS_DXT_MPIIO_OFFSETS": "1", "DARSHAN_DXT_SMALL_IO_TRIGGER": "0.5"}],
                         ids=["nothing", "dxt-settings-without-enable"])
def test_tracing_off_by_default(mpi, build, tmp_path, env):
    work, log = run(mpi, build("dxt_offsets"), tmp_path, 2, env)
    rep = report(log)
    assert not dxt_modules(rep) and not [m for m in rep.records if m.startswith("DXT_")]
    assert not any(v["partial_flag"] for v in rep.modules.values())
    mrec, _ = records(log, "MPI-IO")
    off = mrec[(-1, str(work / "offsets.dat"))]
    # per process: write_at, 2 x write, write_shared; write_at_all, write_all,
    # write_ordered; iwrite_at
    assert (off["MPIIO_INDEP_WRITES"], off["MPIIO_COLL_WRITES"], off["MPIIO_NB_WRITES"]) == (8, 6, 2)
    prec, _ = records(log, "POSIX")
    assert prec[(0, str(work / "types-0.dat"))]["POSIX_WRITES"] == 2
