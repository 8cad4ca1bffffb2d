"""The runtime's SIGTERM/SIGINT/SIGHUP handlers must not change what the program
sees or does: it is shown SIG_DFL, Python still installs KeyboardInterrupt, a
handler the program installs replaces ours, SIG_DFL set by the program keeps the
log, and an ignored signal stays ignored."""
import signal
import subprocess
import textwrap

from recovery_helpers import counters, dirs, env_for, logs, safety_copies
from test_recovery_jobs import PY


def run_py(runtime, tmp_path, code):
    """Run `code` from a file (a newline in the command line would end up in the
    log's exe string)."""
    logdir, mmapdir = dirs(tmp_path)
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    # SIGINT at its default, as in a terminal, even when the tests run in a job a
    # script started with `&` (which ignores it).
    r = subprocess.run([PY, str(script)], env=env_for(runtime, logdir, mmapdir),
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return r, logdir, mmapdir


def ignored_here(sig) -> bool:
    """Whether this process ignores `sig` (SIGHUP under nohup): the child inherits
    that disposition, and the runtime must leave it as it is."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    raise AssertionError("no SigIgn line in /proc/self/status")


def test_python_sees_default_and_keeps_keyboardinterrupt(runtime, tool, tmp_path):
    # SIGHUP as the tests were started (ignored under nohup); SIGINT at its default
    # (run_py), as in a terminal, so KeyboardInterrupt is always checked.
    hup_default = not ignored_here(signal.SIGHUP)
    r, logdir, mmapdir = run_py(runtime, tmp_path, f"""
        import signal
        print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
              signal.getsignal(signal.SIGHUP) == signal.SIG_DFL)
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        with open("{tmp_path}/f", "w") as f:
            f.write("x" * 10)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)   # explicit default keeps the log
        signal.raise_signal(signal.SIGTERM)
        print("not reached")
        """)
    assert r.returncode == -15
    assert r.stdout.split("\n")[:2] == [f"True {hup_default}", "KeyboardInterrupt"]
    assert safety_copies(mmapdir) == [] and len(logs(logdir)) == 1
    recs, _ = counters(tool, logs(logdir)[0])
    assert recs[("POSIX", f"{tmp_path}/f", 0)]["POSIX_BYTES_WRITTEN"] == 10


def test_inherited_sighup_ignore_is_kept(runtime, tool, tmp_path):
    """As under nohup: SIGHUP ignored before exec stays ignored, whatever the
    disposition of the process running the tests."""
    logdir, mmapdir = dirs(tmp_path)
    code = "import signal; print(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN)"
    r = subprocess.run(["/bin/sh", "-c", "trap '' HUP; exec " + PY + " -c '" + code + "'"],
                       env=env_for(runtime, logdir, mmapdir), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr


def test_program_handler_replaces_ours(runtime, tool, tmp_path):
    r, logdir, mmapdir = run_py(runtime, tmp_path, """
        import os, signal, sys
        def h(sig, frame):
            print("handled", sig)
            sys.exit(7)
        old = signal.signal(signal.SIGTERM, h)
        print(old == signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        """)
    assert r.returncode == 7 and r.stdout.split("\n")[:2] == ["True", "handled 15"]
    assert safety_copies(mmapdir) == [] and len(logs(logdir)) == 1


def test_ignored_signal_stays_ignored(runtime, tool, tmp_path):
    logdir, mmapdir = dirs(tmp_path)
    r = subprocess.run(["/bin/sh", "-c", "trap '' TERM; exec " + PY + " -c "
                        "'import os,signal; os.kill(os.getpid(), signal.SIGTERM); print(\"alive\")'"],
                       env=env_for(runtime, logdir, mmapdir), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "alive"
    assert safety_copies(mmapdir) == []
