"""Issue #34, "never harm the job" at the edges of the process: resource limits
(RLIMIT_FSIZE, RLIMIT_AS), a program's own SIGCHLD handler, and a report file
that another user made (progs/limitprobe.c).  In each case the program must
behave as it does without the runtime, and the log must be complete or say
what it misses."""
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from recovery_helpers import HERE, by_file, counters, dirs, env_for, logs, safety_copies

WAIT = 60          # seconds; a process still running after this is a hang
NFILES = 16
MIB = 1 << 20


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe") / "limitprobe"
    subprocess.run(["cc", "-O1", "-o", str(out), str(HERE / "progs" / "limitprobe.c")],
                   check=True, timeout=120)
    return out


def with_limit(which, soft):
    """A preexec_fn setting one soft limit (the hard one is kept)."""
    def set_it():
        hard = resource.getrlimit(which)[1]
        resource.setrlimit(which, (soft, hard))
    return set_it


def run(probe, mode, out, env, limit=None):
    return subprocess.run([str(probe), mode, str(out)], env=env, capture_output=True, text=True,
                          timeout=WAIT, preexec_fn=limit)


def isolated_env(runtime, tmp_path, logdir, mmapdir, extra=None):
    """The runtime's fallback directories (home, $TMPDIR) inside tmp_path."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = env_for(runtime, logdir, mmapdir, {"HOME": str(home), "TMPDIR": str(home), **(extra or {})})
    env.pop("XDG_STATE_HOME", None)
    return env


def all_files_once(tool, log, outdir):
    recs, head = counters(tool, log)
    for i in range(NFILES):
        r = by_file(recs, "POSIX", str(outdir / f"data.{i}"))
        assert len(r) == 1 and r[0]["POSIX_OPENS"] == 1 and r[0]["POSIX_BYTES_WRITTEN"] == 10, (i, r)
    return head


# ---------------------------------------------------------------- RLIMIT_FSIZE
def test_file_size_limit_below_the_safety_copy(runtime, tool, probe, tmp_path):
    """`ulimit -f` of 1 MiB, below the 5 MiB copy: the program exits 0 (it was
    killed by SIGXFSZ before main), its log is complete, no copy was made (not
    even an empty one), and the log says there was none."""
    logdir, mmapdir = dirs(tmp_path)
    r = run(probe, "io", tmp_path, env_for(runtime, logdir, mmapdir),
            with_limit(resource.RLIMIT_FSIZE, MIB))
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stderr == "", r.stderr
    assert list(mmapdir.iterdir()) == []
    found = logs(logdir)
    assert len(found) == 1, found
    head = all_files_once(tool, found[0], tmp_path)
    assert "no_safety_copy = RLIMIT_FSIZE" in head["metadata"].split("\n"), head["metadata"]


def test_programs_own_write_past_the_file_size_limit_still_gets_sigxfsz(runtime, probe, tmp_path):
    """The runtime leaves SIGXFSZ as it found it: the program's own write past
    the limit kills it with SIGXFSZ, as without the runtime."""
    logdir, mmapdir = dirs(tmp_path)
    plain = run(probe, "bigwrite", tmp_path, {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"},
                with_limit(resource.RLIMIT_FSIZE, MIB))
    assert plain.returncode == -signal.SIGXFSZ, plain
    r = run(probe, "bigwrite", tmp_path, env_for(runtime, logdir, mmapdir),
            with_limit(resource.RLIMIT_FSIZE, MIB))
    assert r.returncode == -signal.SIGXFSZ, (r.returncode, r.stderr)


@pytest.mark.parametrize("mode", ["io", "io_exit"])
def test_log_larger_than_the_file_size_limit(runtime, probe, tmp_path, mode):
    """A limit of 512 bytes, smaller than any log: the log write fails with
    EFBIG in every directory (said once on stderr) instead of killing the
    program with SIGXFSZ, from exit and from _exit (the forked writer); no
    partial file is left anywhere."""
    logdir, mmapdir = dirs(tmp_path)
    env = isolated_env(runtime, tmp_path, logdir, mmapdir)
    r = run(probe, mode, tmp_path, env, with_limit(resource.RLIMIT_FSIZE, 512))
    assert r.returncode == 0, (r.returncode, r.stderr)
    # (from _exit the forked writer says it, on the same stderr)
    assert "could not write the log anywhere (File too large)" in r.stderr, r.stderr
    assert logs(tmp_path) == []
    assert list(tmp_path.rglob("*.iolens_partial")) == []
    assert list(mmapdir.iterdir()) == []


# ---------------------------------------------------------------- RLIMIT_AS
@pytest.mark.parametrize("mib", [8, 10, 12, 14, 16, 20])
def test_small_address_space_leaves_no_stray_safety_copy(runtime, probe, tmp_path, mib):
    """`ulimit -v` at or below what the runtime needs: the program runs as
    without it, and a safety copy stays only when the log could not be written
    (said on stderr; the copy is then recoverable).  One used to stay for
    every process that ran with instrumentation disabled."""
    logdir, mmapdir = dirs(tmp_path)
    r = run(probe, "io", tmp_path, env_for(runtime, logdir, mmapdir),
            with_limit(resource.RLIMIT_AS, mib * MIB))
    assert r.returncode == 0, (r.returncode, r.stderr)
    if "could not write the log" not in r.stderr:
        assert list(mmapdir.iterdir()) == [], r.stderr
    assert len(logs(logdir)) <= 1


@pytest.mark.parametrize("mode", ["io", "io_exit"])
def test_log_written_within_a_small_address_space(runtime, tool, probe, tmp_path, mode):
    """16 MiB of address space (the program alone needs about 3): the runtime's
    memory grows with use instead of being reserved for the worst case at
    start, so there is room for it and for the log write, from exit and from
    _exit (the forked writer has the same limit).  The log is complete and no
    copy is left."""
    logdir, mmapdir = dirs(tmp_path)
    r = run(probe, mode, tmp_path, env_for(runtime, logdir, mmapdir),
            with_limit(resource.RLIMIT_AS, 16 * MIB))
    assert r.returncode == 0, (r.returncode, r.stderr)
    found = logs(logdir)
    assert len(found) == 1, (found, r.stderr)
    all_files_once(tool, found[0], tmp_path)
    assert list(mmapdir.iterdir()) == []


def test_runtime_memory_refused_sets_the_partial_bit(runtime, tool, probe, tmp_path):
    """The program lowers its address-space limit to what it uses, then does
    I/O that succeeds: the runtime cannot map the POSIX module's tables, so
    that I/O is not in the log, and the log must say so (the POSIX partial
    bit; memory_failures in the metadata) instead of reading as a clean log of
    a program that did no POSIX I/O."""
    logdir, mmapdir = dirs(tmp_path)
    r = run(probe, "aslimit", tmp_path, env_for(runtime, logdir, mmapdir))
    assert r.returncode == 0, (r.returncode, r.stderr)
    found = logs(logdir)
    assert len(found) == 1, found
    p = subprocess.run([str(tool), "parse", str(found[0])], capture_output=True, text=True,
                       timeout=WAIT)
    assert p.returncode == 255, "a partial log must fail plain parse, as darshan-parser"
    assert "The POSIX module contains incomplete data!" in p.stderr, p.stderr
    assert "could not get memory" in p.stderr, p.stderr
    shown = subprocess.run([str(tool), "parse", "--show-incomplete", str(found[0])],
                           capture_output=True, text=True, timeout=WAIT)
    assert "# metadata: memory_failures = " in shown.stdout


# ---------------------------------------------------------------- SIGCHLD
def reaped_and_children(stdout):
    reaped = [int(line.split()[1]) for line in stdout.splitlines() if line.startswith("reaped ")]
    own = [int(line.split()[1]) for line in stdout.splitlines() if line.startswith("child ")]
    return reaped, own


def main_log(found, pid):
    """The log of process `pid` (the program's fork child writes one too)."""
    mine = [f for f in found if f"-{pid}_" in f.name]
    assert len(mine) == 1, found
    return mine[0]


def test_sigchld_handler_never_sees_the_exit_writer(runtime, tool, probe, tmp_path):
    """A program whose SIGCHLD handler reaps every child (waitpid(-1) in a
    loop) and which leaves with _exit: the handler reaps only the program's
    own child (the writer's copy sends no SIGCHLD and is not a child that
    waitpid(-1) returns), and the log, written by that copy, is complete."""
    logdir, mmapdir = dirs(tmp_path)
    p = subprocess.Popen([str(probe), "sigchld", str(tmp_path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env_for(runtime, logdir, mmapdir), text=True)
    try:
        out, err = p.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("the program did not finish (hang)")
    assert p.returncode == 0, (p.returncode, err)
    reaped, own = reaped_and_children(out)
    assert len(own) == 1 and reaped == own, out
    all_files_once(tool, main_log(logs(logdir), p.pid), tmp_path)
    assert safety_copies(mmapdir) == []


def test_sigchld_handler_and_sigterm(runtime, tool, probe, tmp_path):
    """The same program killed by SIGTERM (default action): it dies from the
    signal, its handler saw only its own child, and the log is complete."""
    logdir, mmapdir = dirs(tmp_path)
    p = subprocess.Popen([str(probe), "sigchld_term", str(tmp_path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env_for(runtime, logdir, mmapdir), text=True)
    lines = []
    try:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line or line == "ready\n":
                break
            lines.append(line)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("the program did not die (hang)")
    assert p.returncode == -signal.SIGTERM, (p.returncode, err)
    reaped, own = reaped_and_children("".join(lines) + out)
    assert len(own) == 1 and reaped == own, lines + [out]
    all_files_once(tool, main_log(logs(logdir), p.pid), tmp_path)
    assert safety_copies(mmapdir) == []


# ---------------------------------------------------------------- IOLENS_LOG_REPORT
NOBODY = 65534


def as_nobody(cmd):
    """Run a shell command as a second, unprivileged uid (setpriv, no account
    needed); skips when that is not possible here."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as a second user")
    r = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                        "sh", "-c", cmd], capture_output=True, text=True, timeout=WAIT)
    if r.returncode != 0:
        pytest.skip(f"cannot run as uid {NOBODY} here: {r.stderr.strip()}")


@pytest.fixture
def reachable(tmp_path):
    """A directory the second user can reach (pytest's own is 0700 at its
    top), removed afterwards."""
    d = Path(tempfile.mkdtemp(prefix="iolens-limits-", dir="/tmp"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_report_file_of_another_user_is_not_written(runtime, probe, tmp_path, reachable):
    """Another user created the report file first (in a sticky, world-writable
    directory, as /tmp is): the runtime writes its log but appends nothing to
    that file; the same name of our own gets the log's path."""
    shared = reachable / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    report = shared / "report"
    as_nobody(f"printf 'planted\\n' > {report} && chmod 666 {report}")
    assert report.stat().st_uid == NOBODY
    logdir, mmapdir = dirs(tmp_path)
    env = env_for(runtime, logdir, mmapdir, {"IOLENS_LOG_REPORT": str(report)})
    r = run(probe, "io", tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert len(logs(logdir)) == 1
    assert report.read_text() == "planted\n", "appended to another user's file"
    report.unlink()
    mine = shared / "mine"
    mine.write_text("")
    mine.chmod(0o600)
    env["IOLENS_LOG_REPORT"] = str(mine)
    before = set(logs(logdir))
    r = run(probe, "io", tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert mine.read_text().split() == [str(f) for f in set(logs(logdir)) - before]


def test_report_file_in_another_users_directory_is_not_made(runtime, probe, tmp_path, reachable):
    """IOLENS_LOG_REPORT names a file in a directory that another user owns
    (world-writable, so we could create it): no file is made there (that user
    could read or swap it), and the log is written as usual."""
    theirs = reachable / "theirs"
    theirs.mkdir()
    os.chown(theirs, NOBODY, NOBODY)
    theirs.chmod(0o777)
    as_nobody(f"test -w {theirs}")
    logdir, mmapdir = dirs(tmp_path)
    env = env_for(runtime, logdir, mmapdir, {"IOLENS_LOG_REPORT": str(theirs / "report")})
    r = run(probe, "io", tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert len(logs(logdir)) == 1
    assert list(theirs.iterdir()) == []


def test_report_fifo_is_never_opened(runtime, probe, tmp_path):
    """A FIFO at the report name (ours, even): the runtime never blocks on it
    and never writes into it; the program exits at once with its log."""
    fifo = tmp_path / "report"
    os.mkfifo(fifo)
    logdir, mmapdir = dirs(tmp_path)
    env = env_for(runtime, logdir, mmapdir, {"IOLENS_LOG_REPORT": str(fifo)})
    r = run(probe, "io", tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert len(logs(logdir)) == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
