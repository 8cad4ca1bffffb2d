"""The kill matrix: a workload with known I/O (progs/killprobe.c) stops after
exactly k completed steps, by SIGKILL at 20 seeded random points, SIGSEGV,
abort, SIGTERM, SIGINT, _exit and exec.  Afterwards a valid log must exist
(written by the runtime, or by `iolens recover` from the safety copy), no
safety copy may be left, the exit status must be the one the program chose,
and the counters must equal the completed operations exactly."""
import os
import random
import signal
import subprocess

import pytest

from recovery_helpers import build, by_file, counters, dirs, env_for, logs, recover, safety_copies

NSTEPS = 200
SEED = int(os.environ.get("IOLENS_KILL_SEED", "20261121"))
POINTS = sorted(random.Random(SEED).sample(range(NSTEPS), 20))

# mode -> (expected return code, the runtime writes the log itself)
MODES = {"kill9": (-9, False), "segv": (-11, False), "abort": (-6, False),
         "term": (-15, True), "int": (-2, True), "_exit": (3, True), "exec": (0, True),
         "none": (0, True)}

CASES = [("kill9", k) for k in POINTS] + [
    ("segv", 61), ("abort", 0), ("abort", 133), ("term", 47), ("int", 150), ("_exit", 99),
    ("exec", 12), ("none", NSTEPS)]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return build("killprobe.c", tmp_path_factory.mktemp("probe") / "killprobe")


def default_int_and_term():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def expected(k):
    return {"a": {"POSIX_OPENS": 1, "POSIX_WRITES": k, "POSIX_BYTES_WRITTEN": 100 * k,
                  "POSIX_READS": k, "POSIX_BYTES_READ": 50 * k},
            "b": {"STDIO_OPENS": 1, "STDIO_WRITES": k, "STDIO_BYTES_WRITTEN": 10 * k},
            "c": {"POSIX_OPENS": k // 5}}


@pytest.mark.parametrize("mode,k", CASES, ids=[f"{m}-at-{k}" for m, k in CASES])
def test_kill_matrix(runtime, tool, probe, tmp_path, mode, k):
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    # The probe stops itself with the signal of its mode: start it with that signal
    # at its default, as a program in a terminal has it, even when the tests run
    # with it ignored (nohup ignores SIGHUP; `&` in a script ignores SIGINT).
    r = subprocess.run([str(probe), str(data), str(NSTEPS), str(k), mode],
                       env=env_for(runtime, logdir, mmapdir), capture_output=True, text=True,
                       timeout=60, preexec_fn=default_int_and_term)
    rc, clean = MODES[mode]
    assert r.returncode == rc, f"seed {SEED}: exit status {r.returncode}, stderr {r.stderr}"
    copies = safety_copies(mmapdir)
    if clean:
        assert copies == [], f"a clean exit path ({mode}) left a safety copy"
    else:
        assert len(copies) == 1, f"seed {SEED}, {mode} at {k}: {copies}"
        recover(tool, copies, logdir)
        assert safety_copies(mmapdir) == []
    mine = [p for p in logs(logdir) if "_killprobe_" in p.name]
    assert len(mine) == 1, [p.name for p in logs(logdir)]
    recs, head = counters(tool, mine[0])
    if not clean:
        assert "recovered = 1" in head["metadata"]
    for f, want in expected(k).items():
        got = by_file(recs, "POSIX" if "POSIX_OPENS" in want else "STDIO", str(data / f))
        if k // 5 == 0 and f == "c":
            assert got == [], "a file never opened has a record"
            continue
        assert len(got) == 1, f"seed {SEED}, {mode} at {k}: records of {f}: {got}"
        for c, v in want.items():
            assert got[0][c] == v, f"seed {SEED}, {mode} after {k} steps: {f} {c} = {got[0][c]}, want {v}"


def test_recovered_log_reads_in_pydarshan(runtime, tool, probe, tmp_path):
    """A recovered log is a normal log for PyDarshan too."""
    darshan = pytest.importorskip("darshan")
    logdir, mmapdir = dirs(tmp_path)
    subprocess.run([str(probe), str(tmp_path), "50", "17", "kill9"],
                   env=env_for(runtime, logdir, mmapdir), timeout=60)
    recover(tool, safety_copies(mmapdir), logdir)
    rep = darshan.DarshanReport(str(logs(logdir)[0]), read_all=True)
    df = rep.records["POSIX"].to_df()["counters"]
    assert sorted(df["POSIX_WRITES"].tolist()) == [0, 17]


def test_safety_copy_disabled(runtime, tool, probe, tmp_path):
    """IOLENS_NO_SAFETY_COPY=1: no file, and a clean exit still writes the log."""
    logdir, mmapdir = dirs(tmp_path)
    env = env_for(runtime, logdir, mmapdir, {"IOLENS_NO_SAFETY_COPY": "1"})
    r = subprocess.run([str(probe), str(tmp_path), "10", "5", "kill9"], env=env, timeout=60)
    assert r.returncode == -9 and safety_copies(mmapdir) == []
    r = subprocess.run([str(probe), str(tmp_path), "10", "10", "none"], env=env, timeout=60)
    assert r.returncode == 0 and len(logs(logdir)) == 1


def test_recover_refuses_running_and_finished(runtime, tool, probe, tmp_path):
    """recover leaves a copy whose process still runs, and rejects a finished log."""
    logdir, mmapdir = dirs(tmp_path)
    p = subprocess.Popen(["sleep", "30"], env=env_for(runtime, logdir, mmapdir))
    try:
        for _ in range(100):
            if safety_copies(mmapdir):
                break
            subprocess.run(["sleep", "0.05"])
        copies = safety_copies(mmapdir)
        assert len(copies) == 1
        subprocess.run(["sleep", "0.3"])   # init ends (handlers) just after the copy exists
        r = subprocess.run([str(tool), "recover", "--logdir", str(logdir), str(copies[0])],
                           capture_output=True, text=True)
        assert r.returncode == 1 and "still running" in r.stderr and copies[0].exists()
    finally:
        p.terminate()
        p.wait()
    assert p.returncode == -15
    assert safety_copies(mmapdir) == [] and len(logs(logdir)) == 1     # SIGTERM wrote the log
    r = subprocess.run([str(tool), "recover", str(logs(logdir)[0])], capture_output=True, text=True)
    assert r.returncode == 1 and "not a safety copy" in r.stderr


def expected_after_ops(d):
    """Counters after the first d operations of killprobe's sequence returned."""
    n = {"w": 0, "r": 0, "f": 0, "o": 0}
    i = 0
    while d > 0:
        for op in ["w", "r", "f"] + (["o", "c"] if i % 5 == 4 else []):
            if d == 0:
                break
            d -= 1
            if op in n:
                n[op] += 1
        i += 1
    return {"a": {"POSIX_WRITES": n["w"], "POSIX_BYTES_WRITTEN": 100 * n["w"],
                  "POSIX_READS": n["r"], "POSIX_BYTES_READ": 50 * n["r"]},
            "b": {"STDIO_WRITES": n["f"], "STDIO_BYTES_WRITTEN": 10 * n["f"]},
            "c": {"POSIX_OPENS": n["o"]}}


ASYNC = [round(random.Random(SEED + 1).uniform(0.05, 0.6), 3) for _ in range(5)]


@pytest.mark.parametrize("delay", ASYNC, ids=[f"after-{d}s" for d in ASYNC])
def test_external_sigkill_at_random_time(runtime, tool, probe, tmp_path, delay):
    """SIGKILL from outside at a seeded random moment.  The program counts the
    operations that returned (in a mapped file); the recovered counters must be
    exactly those, give or take the one operation that was in flight (recorded
    by the runtime, not yet returned to the program)."""
    import signal
    import time
    logdir, mmapdir = dirs(tmp_path)
    data = tmp_path / "data"
    data.mkdir()
    prog = tmp_path / "progress"
    prog.write_bytes(b"\0" * 8)
    p = subprocess.Popen([str(probe), str(data), "1000000000", "-1", "none", str(prog)],
                         env=env_for(runtime, logdir, mmapdir))
    while int.from_bytes(prog.read_bytes(), "little") == 0 and p.poll() is None:
        time.sleep(0.005)
    time.sleep(delay)
    p.send_signal(signal.SIGKILL)
    assert p.wait() == -9
    done = int.from_bytes(prog.read_bytes(), "little")
    recover(tool, safety_copies(mmapdir), logdir)
    recs, _ = counters(tool, logs(logdir)[0])
    got = {}
    for f, mod in (("a", "POSIX"), ("b", "STDIO"), ("c", "POSIX")):
        r = by_file(recs, mod, str(data / f))
        got[f] = {c: (r[0][c] if r else 0) for c in expected_after_ops(0)[f]}
    assert got in (expected_after_ops(done), expected_after_ops(done + 1)), \
        f"seed {SEED}, killed after {delay}s, {done} operations returned: {got}"
