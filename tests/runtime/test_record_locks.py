"""Record locks of STDIO (and POSIX) under threads and signal handlers
(issue 12, section 5; docs/runtime.md, "threads").  The program is
tests/runtime/progs/lockprobe.c; logs are read with `iolens parse`."""
import subprocess

import pytest

from rt_helpers import compile_prog, logs_in, run_under

SPER = 3000   # lockprobe.c: rounds per thread in "streams"


@pytest.fixture(scope="module")
def lockprobe(tmp_path_factory):
    return compile_prog(tmp_path_factory, "lockprobe.c", "-pthread")


def counters(tool, logdir, prog="lockprobe"):
    """{(file, counter): int} of every record in the one log of prog."""
    logs = [p for p in logs_in(logdir) if prog in p.name]
    assert len(logs) == 1, logs
    r = subprocess.run([str(tool), "parse", str(logs[0])], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if not line.startswith("#") and len(f) >= 6:
            out[(f[5], f[3])] = int(float(f[4])) if "_F_" not in f[3] else float(f[4])
    return out


def check_streams(c, d, n):
    """The exact counts of lockprobe's "streams" mode with n threads in d."""
    for t in range(n):
        own = f"{d}/stream-{t}.dat"
        got = {k: c[(own, "STDIO_" + k)] for k in
               ("OPENS", "WRITES", "BYTES_WRITTEN", "FLUSHES", "SEEKS", "READS", "BYTES_READ")}
        assert got == dict(OPENS=1, WRITES=SPER, BYTES_WRITTEN=64 * SPER, FLUSHES=SPER // 10,
                           SEEKS=SPER // 100 + 1, READS=SPER, BYTES_READ=64 * SPER), f"thread {t}"
        extra = f"{d}/stream-extra-{t}.dat"
        assert (c[(extra, "STDIO_OPENS")], c[(extra, "STDIO_WRITES")],
                c[(extra, "STDIO_BYTES_WRITTEN")]) == (SPER // 50, SPER // 50, 10 * SPER // 50)
    shared = f"{d}/stream-shared.dat"
    assert c[(shared, "STDIO_OPENS")] == n
    assert c[(shared, "STDIO_WRITES")] == n * SPER
    assert c[(shared, "STDIO_BYTES_WRITTEN")] == 16 * n * SPER
    # the record's one offset restarts at each fopen (upstream's model), so the
    # highest byte depends on when the streams were opened
    assert 16 * SPER - 1 <= c[(shared, "STDIO_MAX_BYTE_WRITTEN")] <= 16 * n * SPER - 1


@pytest.mark.parametrize("nthreads", [8, 40])
def test_stream_threads_exact_counts(runtime, tool, lockprobe, tmp_path, nthreads):
    """Threads with FILE*s of their own, one record shared by all their streams,
    and streams opened and closed meanwhile: every count is exact."""
    run_under(runtime, [lockprobe, "streams", tmp_path, nthreads], tmp_path / "logs")
    check_streams(counters(tool, tmp_path / "logs"), tmp_path, nthreads)


@pytest.mark.parametrize("how,iters", [("fd", 1_500_000), ("stream", 3_000_000)])
def test_cross_thread_signal_handlers_finish(runtime, tool, lockprobe, tmp_path, how, iters):
    """Two threads each write their own file while signals make each one's
    handler write the other's file.  Before record locks stopped waiting inside
    a held lock, the fd variant hung within seconds (both threads interrupted
    inside their own record's update, each handler waiting for the other's
    record).  Now it finishes; every loop write is counted, and a handler write
    is counted or dropped (only when the other record was busy and this thread
    inside an update), never counted twice."""
    try:
        r = run_under(runtime, [lockprobe, "xsignal", tmp_path, how, iters], tmp_path / "logs")
    except subprocess.TimeoutExpired:
        pytest.fail("deadlock: the cross-thread signal handlers never finished")
    loops = [int(x) for x in r.stdout.split()[:2]]
    handled = [int(x) for x in r.stdout.split()[2:4]]
    assert loops == [iters, iters]
    assert sum(handled) > 100, f"too few signals handled to test anything: {handled}"
    c = counters(tool, tmp_path / "logs")
    key = "POSIX_WRITES" if how == "fd" else "STDIO_WRITES"
    for i in range(2):
        writes = c[(f"{tmp_path}/x-{i}.dat", key)]
        assert iters <= writes <= iters + handled[i], (i, writes, handled)
    # nearly all of the handlers' writes are recorded: drops need a busy record
    assert sum(c[(f"{tmp_path}/x-{i}.dat", key)] - iters for i in range(2)) >= sum(handled) // 2
