"""Issue #34, "never harm the job, at the edges of the process"
(progs/edgeprobe.c): a program that forbids fork with seccomp, a non-dumpable
process whose threads are in malloc, two threads calling exit() at once, and
SIGTERM to a process whose threads are busy writing.  Each must end with the
program's own status, and leave a log (or a copy `iolens recover` turns into
one) that holds every operation the program saw complete.  Every process is
waited for with a bound: a process still alive after it is a hang."""
import os
from pathlib import Path
import shutil
import signal
import struct
import subprocess
import tempfile
import time

import pytest

from recovery_helpers import by_file, dirs, env_for, one_log_with_all_files, safety_copies

WAIT = 15          # seconds; the non-dumpable case took 20 s before issue #34


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    return build_probe(tmp_path_factory.mktemp("probe") / "edgeprobe")


def build_probe(out):
    subprocess.run(["cc", "-O1", "-pthread", "-o", str(out),
                    str(Path(__file__).resolve().parent / "progs" / "edgeprobe.c")], check=True)
    return out


def wait_bounded(p, what="the process"):
    try:
        return p.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail(f"{what} was still alive {WAIT} s later (hang)")


def start(probe, mode, run, env, *extra, **popen):
    p = subprocess.Popen([str(probe), mode, str(run), *extra], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, text=True, **popen)
    line = p.stdout.readline().split()
    assert line == ["ready"], (line, p.stderr.read() if p.poll() is not None else "")
    return p


def seccomp_or_skip(probe, tmp_path):
    """The probe's filter must be installable here (it is in a normal
    container; a kernel without seccomp, or a filter forbidding prctl, is not)."""
    r = subprocess.run([str(probe), "seccomp_exit", str(tmp_path)], capture_output=True,
                       timeout=30)
    if r.returncode == 99:
        pytest.skip(f"cannot install a seccomp filter here: {r.stderr.decode().strip()}")


def test_seccomp_forbidding_fork_exit(runtime, tool, probe, tmp_path):
    """_exit(0) after a filter that kills the process on fork: status 0 (not
    159, SIGSYS), and the records are kept for `iolens recover` (said on
    stderr)."""
    seccomp_or_skip(probe, tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    logdir, mmapdir = dirs(run)
    p = subprocess.Popen([str(probe), "seccomp_exit", str(run)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env_for(runtime, logdir, mmapdir), text=True)
    rc = wait_bounded(p)
    err = p.stderr.read()
    assert rc == 0, f"exit status {rc} (-31 is SIGSYS): {err}"
    assert "iolens recover" in err, err
    one_log_with_all_files(tool, run, logdir, mmapdir)


def test_seccomp_forbidding_fork_sigterm(runtime, tool, probe, tmp_path):
    """Default SIGTERM after the same filter: death by SIGTERM, not SIGSYS."""
    seccomp_or_skip(probe, tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    logdir, mmapdir = dirs(run)
    p = start(probe, "seccomp_term", run, env_for(runtime, logdir, mmapdir))
    p.send_signal(signal.SIGTERM)
    rc = wait_bounded(p)
    assert rc == -signal.SIGTERM, f"exit status {rc} (-31 is SIGSYS)"
    one_log_with_all_files(tool, run, logdir, mmapdir)


def as_nobody():
    """preexec_fn: run as an unprivileged user (root may read any /proc file,
    so the case only exists for a normal user)."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def test_non_dumpable_sigterm_while_threads_malloc(runtime, tool):
    """PR_SET_DUMPABLE 0, MALLOC_ARENA_MAX=1 and 4 threads in malloc, as a
    normal user: SIGTERM kills it promptly (it took 20 s: the futex check
    could not read /proc of the non-dumpable copy), with a log or a copy."""
    if os.geteuid() == 0 and not hasattr(os, "setgroups"):
        pytest.skip("cannot drop root here")
    # A directory the unprivileged user can reach (pytest's are root's, 0700).
    # The runtime is copied there too: the build tree may be in root's home.
    top = Path(tempfile.mkdtemp(prefix="iolens-nodump-"))
    try:
        os.chmod(top, 0o755)
        probe = build_probe(top / "edgeprobe")
        lib = top / "libiolens.so"
        shutil.copy(runtime, lib)
        os.chmod(lib, 0o755)
        for k in range(3):
            run = top / f"r{k}"
            run.mkdir()
            logdir, mmapdir = dirs(run)
            for d in (run, logdir, mmapdir):
                if os.geteuid() == 0:
                    os.chown(d, 65534, 65534)     # the user's own directories
            env = env_for(lib, logdir, mmapdir, {"MALLOC_ARENA_MAX": "1", "HOME": str(run)})
            p = start(probe, "nodump_term", run, env, preexec_fn=as_nobody)
            time.sleep(0.05)
            p.send_signal(signal.SIGTERM)
            rc = wait_bounded(p, f"run {k}: the non-dumpable process")
            assert rc == -signal.SIGTERM, f"run {k}: exit status {rc}"
            one_log_with_all_files(tool, run, logdir, mmapdir)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_two_threads_exit_at_once(runtime, tool, probe, tmp_path):
    """Two threads call exit(0) at the same moment: one log every time, no
    partial file, no safety copy (the exit of the process owns the write, not
    the first thread to call exit)."""
    for k in range(10):
        run = tmp_path / f"r{k}"
        run.mkdir()
        logdir, mmapdir = dirs(run)
        p = subprocess.Popen([str(probe), "exit_race", str(run)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env_for(runtime, logdir, mmapdir))
        rc = wait_bounded(p)
        assert rc == 0, f"run {k}: exit status {rc}"
        assert list(logdir.rglob("*.iolens_partial")) == [], f"run {k}: partial file left"
        assert safety_copies(mmapdir) == [], f"run {k}: safety copy left"
        one_log_with_all_files(tool, run, logdir, mmapdir)


def read_counts(run, n):
    data = (run / "counts").read_bytes()
    return list(struct.unpack(f"<{n}Q", data[:8 * n]))


@pytest.mark.parametrize("dxt", [False, True], ids=["counters", "dxt"])
def test_sigterm_busy_threads_every_completed_write(runtime, tool, probe, tmp_path, dxt):
    """SIGTERM while 4 threads write in a loop: every write the program saw
    return is in the log (or in the recovered copy); at most the one in flight
    per thread more (recorded, not yet seen by the program)."""
    nthreads = 4
    extra = {"DXT_ENABLE_IO_TRACE": "1"} if dxt else {}
    for k in range(4):
        run = tmp_path / f"r{k}"
        run.mkdir()
        logdir, mmapdir = dirs(run)
        p = start(probe, "busy_term", run, env_for(runtime, logdir, mmapdir, extra),
                  str(nthreads))
        time.sleep(0.1 + 0.05 * k)
        p.send_signal(signal.SIGTERM)
        rc = wait_bounded(p)
        assert rc == -signal.SIGTERM, f"run {k}: exit status {rc}"
        seen = read_counts(run, nthreads)
        recs = one_log_with_all_files(tool, run, logdir, mmapdir)
        for t in range(nthreads):
            r = by_file(recs, "POSIX", str(run / f"busy.{t}"))
            logged = r[0]["POSIX_WRITES"] if r else 0
            assert seen[t] <= logged <= seen[t] + 1, \
                f"run {k}, thread {t}: {seen[t]} writes returned, {logged} in the log"
