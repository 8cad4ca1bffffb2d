"""`iolens run` at the edges of a job (issues #26 and #34; docs/cli.md, `iolens
run`): the signals a job script or a workflow engine sends to run reach the
program once and the job log is still written; after a SIGKILL of the whole job
the documented epilog (docs/recovery.md) finds the run's safety copies; a run
inside another run's job gives one log, without the tools' own I/O; and run ends
with one line per partial module, naming the setting that avoids it.

Every process is waited for with a timeout; a program left running by a failure
is killed by its pid (written by the program itself) when the test ends."""
import os
import re
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rt_helpers import REPO
from test_run_job import PY, clean_env, totals, view

WORKLOAD = r"""
import os, subprocess, sys, time
d = sys.argv[1]
handle = len(sys.argv) > 2
if handle:                        # count the TERMs, then end with status 3
    import signal
    got = []
    signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
child = subprocess.Popen([sys.executable, "-c",
    "import sys, time; open(sys.argv[1] + '/b', 'w').write('b'); "
    "open(sys.argv[1] + '/ready_b', 'w').close(); time.sleep(20)", d])
open(d + "/a", "w").write("a")
with open(d + "/pids", "a") as f:
    f.write(f"{os.getpid()} {child.pid}\n")
while not os.path.exists(d + "/ready_b"):
    time.sleep(0.01)
open(d + "/ready", "w").close()
end = time.time() + 20
while time.time() < end and not (handle and got):
    time.sleep(0.02)
if handle:
    time.sleep(0.3)               # a second TERM would come in this time
    open(d + "/terms", "w").write(str(len(got)))
    child.terminate()
    child.wait(10)
    sys.exit(3)
"""


@pytest.fixture
def job(tmp_path):
    """(data dir, logs dir, workload script); kills what a failure left running."""
    data, logs = tmp_path / "data", tmp_path / "logs"
    data.mkdir(), logs.mkdir()
    script = tmp_path / "workload.py"
    script.write_text(WORKLOAD)
    yield data, logs, script
    for line in (data / "pids").read_text().split() if (data / "pids").exists() else []:
        try:
            os.kill(int(line), signal.SIGKILL)
        except ProcessLookupError:
            pass


def wait_for(path, timeout=30):
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


def signals_at_default():
    """Before run starts: the signals the tests send at their default, as a batch
    system or a workflow engine starts a job, even when the tests themselves run
    with one ignored (`&` in a script ignores SIGINT, nohup SIGHUP).  run leaves a
    signal it was started ignoring ignored, and does not pass it on."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def start_run(tool, runtime, tmp_path, argv, logs, **env):
    """`iolens run` in a session of its own; its stderr goes to a file (a pipe
    would stay open as long as any process of the program does)."""
    cmd = [str(tool), "run", "--logpath", str(logs), "--"] + [str(a) for a in argv]
    with open(tmp_path / "run.err", "w") as err:
        return subprocess.Popen(cmd, env=clean_env(runtime, tmp_path, **env), text=True,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                                preexec_fn=signals_at_default)


def ended(run, tmp_path, timeout):
    """run's exit status and stderr, once it has ended (at most timeout seconds)."""
    run.wait(timeout=timeout)
    return run.returncode, (tmp_path / "run.err").read_text()


def job_log_of(stderr):
    written = re.findall(r"^iolens: log written to (.+)$", stderr, re.M)
    assert len(written) == 1, stderr
    return Path(written[0])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signal_to_run_reaches_the_program_and_the_job_log_is_written(tool, runtime, tmp_path,
                                                                      job, sig):
    """A workflow engine signals run's pid: the program (and the process it
    started) get the signal, run writes the job log of both and exits with the
    program's status, 128+N."""
    data, logs, script = job
    run = start_run(tool, runtime, tmp_path, [PY, script, data], logs)
    wait_for(data / "ready")
    os.kill(run.pid, sig)
    rc, err = ended(run, tmp_path, 60)
    assert rc == 128 + sig, err
    nprocs, recs, _ = view(job_log_of(err))
    t = totals([recs])
    assert t[str(data / "a")]["POSIX_BYTES_WRITTEN"] == 1
    assert t[str(data / "b")]["POSIX_BYTES_WRITTEN"] == 1
    assert nprocs == 2
    assert list((tmp_path / "mmap").iterdir()) == []


def test_term_to_runs_whole_group_is_passed_on_once(tool, runtime, tmp_path, job):
    """The whole process group run was started in gets SIGTERM (a job script's
    cleanup, `kill -TERM -PGID`): run is not killed by it, the program gets it once
    (from run: it has a group of its own), and the job log is written."""
    data, logs, script = job
    run = start_run(tool, runtime, tmp_path, [PY, script, data, "handle"], logs)
    wait_for(data / "ready")
    os.killpg(run.pid, signal.SIGTERM)
    rc, err = ended(run, tmp_path, 60)
    assert rc == 3, err                      # the program's own status
    assert (data / "terms").read_text() == "1"
    _, recs, _ = view(job_log_of(err))
    t = totals([recs])
    assert str(data / "a") in t and str(data / "b") in t


def test_wait_after_a_signal_is_bounded(tool, runtime, tmp_path, job):
    """A program that ignores SIGTERM: run waits IOLENS_RUN_WAIT seconds after
    passing it on, then says so, writes what it has and exits 128+15."""
    data, logs, _ = job
    prog = (f"trap '' TERM; echo x > {data}/a; echo $$ >> {data}/pids; "
            f"touch {data}/ready; i=0; while [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done")
    run = start_run(tool, runtime, tmp_path, ["sh", "-c", prog], logs, IOLENS_RUN_WAIT="0.5")
    wait_for(data / "ready")
    os.kill(run.pid, signal.SIGTERM)
    rc, err = ended(run, tmp_path, 15)
    assert rc == 128 + signal.SIGTERM, err
    assert "was passed signal 15 (Terminated) and still ran after IOLENS_RUN_WAIT" in err


COUNT_INTS = r"""
import signal, sys, time
d = sys.argv[1]
got = []
signal.signal(signal.SIGINT, lambda s, f: got.append(s))
open(d + "/ready", "w").close()
end = time.time() + 20
while time.time() < end and not got:
    time.sleep(0.02)
time.sleep(1.0)                   # goes on, longer than IOLENS_RUN_WAIT
open(d + "/ints", "w").write(str(len(got)))
sys.exit(5)
"""


def test_terminal_interrupt_is_the_programs(tool, runtime, tmp_path, job):
    """run in the foreground of a terminal (a pseudo-terminal here): ^C reaches
    the program from the terminal, and run neither passes it on nor counts it as
    a signal of its own: a program that handles it and goes on (a REPL) is waited
    for as long as it runs, past IOLENS_RUN_WAIT."""
    import fcntl
    import pty
    import termios
    data, logs, _ = job
    prog = tmp_path / "count_ints.py"
    prog.write_text(COUNT_INTS)
    master, slave = pty.openpty()

    def controlling_terminal():   # run: session leader, the terminal's foreground
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    try:
        run = subprocess.Popen([str(tool), "run", "--logpath", str(logs), "--", PY, str(prog),
                                str(data)], stdin=slave, stdout=slave, stderr=slave,
                               env=clean_env(runtime, tmp_path, IOLENS_RUN_WAIT="0.3"),
                               preexec_fn=controlling_terminal)
        wait_for(data / "ready")
        os.write(master, b"\x03")
        assert run.wait(timeout=60) == 5
    finally:
        os.close(slave)
        os.close(master)
    assert (data / "ints").read_text() == "1"


def session_pids(sid):
    """Every process of session sid, from /proc."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[3]) == sid:
                out.append(int(d.name))
    return out


def documented_epilog(logs):
    """The SLURM epilog of docs/recovery.md, its site log directory set to logs."""
    text = (REPO / "docs" / "recovery.md").read_text()
    section = text[text.index("## SLURM: an epilog"):]
    script = re.search(r"```sh\n(#!/bin/sh\n.*?)```", section, re.S).group(1)
    script, n = re.subn(r"^LOGS=\S+", f"LOGS='{logs}'", script, flags=re.M)
    assert n == 1
    return script


@pytest.mark.skipif(os.geteuid() != 0, reason="the documented epilog runs as root (su)")
def test_sigkill_of_the_whole_job_then_the_documented_epilog(tool, runtime, tmp_path, job):
    """SIGKILL to every process of the job, run included (a scheduler's kill):
    the documented epilog finds the run's safety copies, recovers each, and leaves
    neither a copy nor the run's directory behind."""
    data, logs, script = job
    jobid = str(700000 + os.getpid() % 100000)
    run = start_run(tool, runtime, tmp_path, [PY, script, data], logs,
                    DARSHAN_JOBID="SLURM_JOB_ID", SLURM_JOB_ID=jobid)
    wait_for(data / "ready")
    for pid in session_pids(run.pid):
        os.kill(pid, signal.SIGKILL)
    run.wait(timeout=30)
    mmap = tmp_path / "mmap"
    assert list(mmap.rglob("*_mmap-log-*.darshan")), "the copies of the killed processes"
    recovered = tmp_path / "recovered"
    recovered.mkdir()
    path = f"{Path(tool).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    r = subprocess.run(["sh", "-c", documented_epilog(recovered)], capture_output=True,
                       text=True, timeout=120,
                       env={"PATH": path, "SLURM_JOB_ID": jobid, "DARSHAN_MMAP_LOGPATH": str(mmap),
                            "IOLENS_RUNTIME": str(runtime)})
    assert r.returncode == 0, r.stderr
    got = list(recovered.rglob("*_recovered.darshan"))
    t = totals([view(p)[1] for p in got])
    assert t[str(data / "a")]["POSIX_BYTES_WRITTEN"] == 1
    assert t[str(data / "b")]["POSIX_BYTES_WRITTEN"] == 1
    assert list(mmap.iterdir()) == []


def files(recs):
    """The files of POSIX records (not the standard streams, which `cat` itself
    touches)."""
    return {name for name, _ in recs if not name.startswith("<")}


def test_nested_run_gives_one_log_without_the_tools_io(tool, runtime, tmp_path):
    """`iolens run -- iolens run -- CMD`: one job log, holding CMD's I/O and none
    of the inner run's (its report file, the logs it would read and merge)."""
    logs, out = tmp_path / "logs", tmp_path / "out"
    logs.mkdir()
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", str(tool), "run", "--",
                        "sh", "-c", f"echo one > {out}; cat {out} > {out}.2"],
                       capture_output=True, text=True, timeout=120,
                       env=clean_env(runtime, tmp_path))
    assert r.returncode == 0, r.stderr
    job = job_log_of(r.stderr)
    assert sorted(logs.rglob("*.darshan")) == [job]
    _, recs, _ = view(job)
    assert files(recs) == {str(out), f"{out}.2"}


def test_tools_record_none_of_their_own_io(tool, runtime, tmp_path):
    """An `iolens` verb inside a run's job (or with the runtime preloaded by hand)
    reads and writes unrecorded: `iolens parse LOG` adds nothing of LOG."""
    logs, first = tmp_path / "logs", tmp_path / "first"
    logs.mkdir(), first.mkdir()
    r = subprocess.run([str(tool), "run", "--logpath", str(first), "--", "sh", "-c",
                        f"echo x > {tmp_path}/x"], capture_output=True, text=True, timeout=60,
                       env=clean_env(runtime, tmp_path))
    log = job_log_of(r.stderr)
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", "sh", "-c",
                        f"{tool} parse {log} > /dev/null; {tool} convert {log} {tmp_path}/c.darshan;"
                        f" echo y > {tmp_path}/y"],
                       capture_output=True, text=True, timeout=120, env=clean_env(runtime, tmp_path))
    assert r.returncode == 0, r.stderr
    _, recs, _ = view(job_log_of(r.stderr))
    assert files(recs) == {str(tmp_path / "y")}


def test_users_own_libiolens_named_preload_reaches_the_program(tool, runtime, tmp_path):
    """The tools leave only the runtimes out of their own preload: a library of
    the user's that merely starts with "libiolens" (the Lustre test shim is one)
    stays in the program's LD_PRELOAD."""
    zlib = next((p for p in ("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1",
                             "/lib64/libz.so.1", "/usr/lib64/libz.so.1") if os.path.exists(p)), None)
    if zlib is None:
        pytest.skip("no libz.so.1 to preload under another name")
    mine = tmp_path / "libiolens-users-own.so"
    shutil.copy(zlib, mine)
    env = clean_env(runtime, tmp_path)
    env["LD_PRELOAD"] = str(mine)
    r = subprocess.run([str(tool), "run", "--logpath", str(tmp_path), "--", "sh", "-c",
                        'echo "$LD_PRELOAD"'], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    seen = r.stdout.strip().replace(" ", ":").split(":")
    assert str(mine) in seen, r.stdout
    assert any(os.path.basename(p) == "libiolens.so" for p in seen), r.stdout


def test_run_ends_with_a_line_per_partial_module(tool, runtime, tmp_path):
    """POSIX (a record limit of 5, 9 files) and DXT_POSIX (a 1 KiB trace budget,
    200 writes) partial in a job log of two processes: run's last lines name each
    module and its setting, the lines `iolens parse`/`dxt` print for that log."""
    cfg, logs, work = tmp_path / "cfg", tmp_path / "logs", tmp_path / "work"
    cfg.write_text("MAX_RECORDS 5 POSIX\nMAX_RECORDS 1 DXT_POSIX\n")
    logs.mkdir(), work.mkdir()
    prog = (f"for i in 1 2 3 4 5 6 7 8 9; do echo > {work}/f$i; done; "
            f"i=0; while [ $i -lt 200 ]; do echo x; i=$((i+1)); done > {work}/g; cat {work}/g > /dev/null")
    r = subprocess.run([str(tool), "run", "--trace", "--logpath", str(logs), "--", "sh", "-c", prog],
                       capture_output=True, text=True, timeout=120,
                       env=clean_env(runtime, tmp_path, DARSHAN_CONFIG_PATH=str(cfg)))
    assert r.returncode == 0, r.stderr
    log = job_log_of(r.stderr)
    assert view(log)[0] == 2
    lines = r.stderr.splitlines()
    assert lines[-2].startswith(f"iolens run: {log}: the POSIX data is partial: ")
    assert lines[-1].startswith(f"iolens run: {log}: the DXT_POSIX data is partial: ")
    parse = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True,
                           timeout=60)
    dxt = subprocess.run([str(tool), "dxt", str(log)], capture_output=True, text=True, timeout=60)
    said = [ln.replace("iolens parse:", "iolens run:").replace("iolens dxt:", "iolens run:")
            for ln in (parse.stderr + dxt.stderr).splitlines() if ln.startswith("iolens ")]
    assert lines[-2:] == said
    assert "MAX_RECORDS 20 POSIX" in lines[-2] and "MAX_RECORDS 8192 DXT_POSIX" in lines[-1]


def test_run_of_a_complete_log_adds_no_partial_line(tool, runtime, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    r = subprocess.run([str(tool), "run", "--logpath", str(logs), "--", "sh", "-c",
                        f"echo x > {tmp_path}/x"], capture_output=True, text=True, timeout=60,
                       env=clean_env(runtime, tmp_path))
    assert r.returncode == 0 and "partial" not in r.stderr, r.stderr
