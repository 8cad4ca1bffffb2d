"""Thread ids in DXT traces (DXT_THREAD_IDS, docs/dxt.md "Thread ids"): with the
setting on, every traced operation carries the id of the thread that made it and the
log holds DXT_POSIX version 2 (40-byte segments, as upstream's development branch
writes); without it, the 3.5.0 version 1 that every deployed reader opens.

The program under test is progs/dxt_probe.c in its `threads` mode: T threads, each
N write()s then N read()s on a file of its own and N pwrite()s to one shared file;
it prints every thread's pthread_self() after joining them, so the expected thread
of every operation is known."""
import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from rt_helpers import logs_in, run_under

iolens = pytest.importorskip("iolens")

HERE = Path(__file__).resolve().parent
TRACE = {"DXT_ENABLE_IO_TRACE": "1"}
THREADS = {"DXT_ENABLE_IO_TRACE": "1", "DXT_THREAD_IDS": "1"}
NT, N = 4, 200


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("dxtthreads") / "dxt_probe"
    r = subprocess.run(["cc", "-O1", "-g", "-pthread", "-o", str(exe),
                        str(HERE / "progs" / "dxt_probe.c"), "-lrt"],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"no C compiler for the DXT probe: {r.stderr[-300:]}")
    return exe


def printed_threads(stdout):
    """{thread number: pthread id} from the probe's `thread T ID` lines."""
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"^thread (\d+) (\d+)$", stdout, re.M)}


def one_log(logdir):
    logs = logs_in(logdir)
    assert len(logs) == 1, logs
    return logs[0]


def check_threads(log, d, ids):
    """Every segment names the thread that made it: a thread's own file only that
    thread, the shared file every thread N times; `thread` numbers them 0..NT-1."""
    with iolens.open(log) as lg:
        seg = lg.dxt("POSIX")
        assert seg.attrs["stored_version"] == 2
    assert len(ids) == NT and len(set(ids.values())) == NT
    for t, tid in ids.items():
        own = seg[seg["name"] == str(d / f"thread-{t}.dat")]
        assert len(own) == 2 * N
        assert set(own["thread_id"].tolist()) == {tid}
        assert own["thread"].nunique() == 1
    shared = seg[seg["name"] == str(d / "shared.dat")]
    assert Counter(shared["thread_id"].tolist()) == {tid: N for tid in ids.values()}
    assert sorted(seg["thread"].unique().tolist()) == list(range(NT))
    # one number per id: the small numbers are a relabelling of the pthread ids
    assert seg.groupby("thread_id")["thread"].nunique().eq(1).all()
    return seg


def test_thread_ids_recorded(runtime, tool, probe, tmp_path):
    r = run_under(runtime, [probe, "threads", tmp_path, str(NT), str(N)], tmp_path / "logs",
                  THREADS)
    log = one_log(tmp_path / "logs")
    ids = printed_threads(r.stdout)
    check_threads(log, tmp_path, ids)
    # darshan-dxt-parser's text of the development branch: a thread count per record
    # and a Pthread-ID column holding the thread of each line
    txt = subprocess.run([str(tool), "dxt", str(log)], capture_output=True, text=True,
                         timeout=120)
    assert txt.returncode == 0, txt.stderr
    counts, column = {}, Counter()
    name = None
    for line in txt.stdout.splitlines():
        m = re.match(r"# DXT, file_name: (.*)$|# DXT, file_id: \d+, file_name: (.*)$", line)
        if m:
            name = m.group(1) or m.group(2)
        m = re.match(r"# DXT, number of threads: (\d+)$", line)
        if m:
            counts[name] = int(m.group(1))
        if line.startswith(" X_POSIX"):
            column[(name, int(line.split()[-1]))] += 1
    assert counts[str(tmp_path / "shared.dat")] == NT
    for t, tid in ids.items():
        own = str(tmp_path / f"thread-{t}.dat")
        assert counts[own] == 1 and column[(own, tid)] == 2 * N
        assert column[(str(tmp_path / "shared.dat"), tid)] == N


def test_default_is_the_release_version(runtime, tool, probe, tmp_path):
    """Without the setting: DXT_POSIX 1, no Pthread-ID column, `thread` unknown."""
    run_under(runtime, [probe, "threads", tmp_path, str(NT), "20"], tmp_path / "logs", TRACE)
    log = one_log(tmp_path / "logs")
    with iolens.open(log) as lg:
        seg = lg.dxt("POSIX")
    assert seg.attrs["stored_version"] == 1
    assert "thread_id" not in seg and len(seg) == NT * 20 * 3
    assert seg["thread"].isna().all()
    txt = subprocess.run([str(tool), "dxt", str(log)], capture_output=True, text=True,
                         timeout=120).stdout
    assert "Pthread-ID" not in txt and "number of threads" not in txt


def test_config_file_key(runtime, probe, tmp_path):
    cfg = tmp_path / "iolens.conf"
    cfg.write_text("DXT_THREAD_IDS\n")
    r = run_under(runtime, [probe, "threads", tmp_path, str(NT), str(N)], tmp_path / "logs",
                  {**TRACE, "DARSHAN_CONFIG_PATH": str(cfg)})
    check_threads(one_log(tmp_path / "logs"), tmp_path, printed_threads(r.stdout))


def test_off_value_keeps_release_version(runtime, probe, tmp_path):
    run_under(runtime, [probe, "threads", tmp_path, "2", "10"], tmp_path / "logs",
              {**TRACE, "DXT_THREAD_IDS": "0"})
    with iolens.open(one_log(tmp_path / "logs")) as lg:
        assert lg.dxt("POSIX").attrs["stored_version"] == 1


def test_fork_child_numbers_its_own_threads(runtime, probe, tmp_path):
    """A fork child's trace starts a table of its own: its thread is known (a stale
    per-thread index from the parent would point past the child's empty table and
    read back as id 0)."""
    run_under(runtime, [probe, "fork", tmp_path], tmp_path / "logs", THREADS)
    logs = logs_in(tmp_path / "logs")
    assert len(logs) == 2
    for log in logs:
        with iolens.open(log) as lg:
            seg = lg.dxt("POSIX")
        assert len(seg) > 0 and (seg["thread_id"] != 0).all()
        assert seg["thread"].tolist() == [0] * len(seg)


def test_recovered_trace_keeps_thread_ids(runtime, tool, probe, tmp_path):
    """SIGKILL after the I/O: `iolens recover` turns the safety copy and the trace
    store beside it into a log whose segments still name their threads."""
    shm = tmp_path / "shm"
    shm.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DARSHAN_", "DXT_"))}
    env.update(THREADS, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_LOGPATH=str(tmp_path / "logs"), DARSHAN_MMAP_LOGPATH=str(shm))
    (tmp_path / "logs").mkdir()
    p = subprocess.Popen([str(probe), "threads", str(tmp_path), str(NT), str(N), "hold"],
                         env=env, stdout=subprocess.PIPE, text=True)
    lines = []
    deadline = time.monotonic() + 60
    while len(lines) < NT and time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        if line.startswith("thread "):
            lines.append(line)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert len(lines) == NT, "the probe did not finish its I/O"
    copies = sorted(shm.glob("*_mmap-log-*.darshan"))
    assert len(copies) == 1
    (tmp_path / "rec").mkdir()
    r = subprocess.run([str(tool), "recover", "--logdir", str(tmp_path / "rec"), str(copies[0])],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    check_threads(one_log(tmp_path / "rec"), tmp_path, printed_threads("".join(lines)))


def test_pydarshan_release_on_thread_id_log(runtime, probe, tmp_path, capfd):
    """What PyDarshan 3.5.0 does with the new version (docs/dxt.md): it reads every
    other module, and leaves DXT_POSIX without records after printing an error."""
    darshan = pytest.importorskip("darshan")
    run_under(runtime, [probe, "threads", tmp_path, "2", "10"], tmp_path / "logs", THREADS)
    rep = darshan.DarshanReport(str(one_log(tmp_path / "logs")), read_all=True)
    assert len(rep.records["POSIX"]) == 3
    assert "DXT_POSIX" in rep.modules
    assert len(rep.records.get("DXT_POSIX", [])) == 0
    assert "Invalid DXT POSIX module version number (got 2)" in "".join(capfd.readouterr())


def report_html(log, tmp_path):
    from iolens.report.cli import main
    out = tmp_path / "report.html"
    assert main([str(log), "-o", str(out)]) == 0
    return out.read_text()


def test_report_shows_threads(runtime, probe, tmp_path):
    """The job report counts the threads of each process and draws one lane per
    thread; without thread ids it says how to get them."""
    run_under(runtime, [probe, "threads", tmp_path, str(NT), "50"], tmp_path / "logs", THREADS)
    html = report_html(one_log(tmp_path / "logs"), tmp_path)
    table = html[html.index('id="dxt-threads-table"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr><td>POSIX</td><td>0</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>",
                      table)
    assert sorted(int(t) for t, _, _ in rows) == list(range(NT))
    assert {int(n) for _, n, _ in rows} == {NT}
    assert sum(int(o) for *_, o in rows) == NT * 50 * 3
    fig = html[html.index('id="fig-dxt-threads"'):]
    assert "<svg" in fig[:fig.index("</figure>")]

    (tmp_path / "x").mkdir()
    run_under(runtime, [probe, "threads", tmp_path / "x", "2", "5"], tmp_path / "logs2", TRACE)
    html = report_html(one_log(tmp_path / "logs2"), tmp_path)
    fig = html[html.index('id="fig-dxt-threads"'):]
    assert "DXT_THREAD_IDS=1" in fig[:fig.index("</figure>")]


def test_no_op_dropped_under_contention(runtime, probe, tmp_path):
    """Threads tracing files of their own append under their record's lock alone,
    taking the store's lock only to start a file's trace or grow it: with 8 threads
    and thousands of operations each, every operation is in the trace, once, with
    its thread, and the trace is complete (not partial)."""
    nt, n = 8, 3000
    cfg = tmp_path / "iolens.conf"
    cfg.write_text("MAX_RECORDS 8192 DXT_POSIX\n")      # 8 MiB: room for every segment
    r = run_under(runtime, [probe, "threads", tmp_path, str(nt), str(n)], tmp_path / "logs",
                  {**THREADS, "DARSHAN_CONFIG_PATH": str(cfg)})
    ids = printed_threads(r.stdout)
    assert len(ids) == nt
    with iolens.open(one_log(tmp_path / "logs")) as lg:
        assert "DXT_POSIX" not in lg.partial
        seg = lg.dxt("POSIX")
    assert len(seg) == 3 * nt * n
    for t, tid in ids.items():
        own = seg[seg["name"] == str(tmp_path / f"thread-{t}.dat")]
        ops = own["op"].astype(str)
        assert (ops == "write").sum() == n and (ops == "read").sum() == n
        assert set(own["thread_id"].tolist()) == {tid}
        w, rd = own[ops == "write"], own[ops == "read"]
        # sequential: each write starts where the one before it ended, reads likewise
        assert (w["offset"].iloc[1:].to_numpy() ==
                (w["offset"] + w["length"]).iloc[:-1].to_numpy()).all()
        assert w["offset"].iloc[0] == 0 and rd["offset"].iloc[0] == 0
        assert w["length"].tolist() == rd["length"].tolist()
    shared = seg[seg["name"] == str(tmp_path / "shared.dat")]
    assert sorted(shared["offset"].tolist()) == [16 * i for i in range(nt * n)]
    assert Counter(shared["thread_id"].tolist()) == {tid: n for tid in ids.values()}
