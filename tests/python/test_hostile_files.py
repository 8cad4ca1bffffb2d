"""What the Python reader and verbs open (issue 26): the format library's rule
reaches them (docs/cli.md, "What a log may be").  A FIFO, /dev/zero, a link to it
and a link loop fail at once with NotARegularFileError (a LogIOError, so an
OSError) or LogIOError, and every Python verb prints one line for them: before, a
FIFO blocked and /dev/zero was read until memory ran out.  Waits are bounded
(a FIFO that blocked would time out) and each verb runs under a memory limit."""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

import iolens
from iolens.errors import LogIOError, NotARegularFileError


@pytest.fixture
def hostile(tmp_path):
    fifo = tmp_path / "fifo.darshan"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.darshan"
    zero.symlink_to("/dev/zero")
    loop = tmp_path / "loop.darshan"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    return {"fifo": fifo, "zero": zero, "dev": "/dev/zero", "loop": loop}


@pytest.mark.parametrize("kind", ["fifo", "zero", "dev"])
def test_the_reader_refuses_what_is_not_a_file(hostile, kind):
    with pytest.raises(NotARegularFileError) as err:
        iolens.open(hostile[kind])
    assert isinstance(err.value, OSError) and isinstance(err.value, LogIOError)
    assert "not a regular log file" in str(err.value)


def test_a_link_loop_is_an_io_error(hostile):
    with pytest.raises(LogIOError):
        iolens.open(hostile["loop"])


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


VERBS = {"report": ("iolens.report.cli", ["-o", "{tmp}/r.html"]),
         "diagnose": ("iolens.diagnose.cli", []),
         "diff": ("iolens.diff_cli", ["{log}"]),
         "explore": ("iolens.explore.cli", ["--cache", "{tmp}/c", "-o", "{tmp}/e.html"]),
         "export": ("iolens.export.cli", ["--cache", "{tmp}/c", "-o", "{tmp}/x.json"])}


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_python_verbs_refuse_in_one_line(hostile, tmp_path, verb, kind):
    module, extra = VERBS[verb]
    extra = [a.format(tmp=tmp_path, log=hostile[kind]) for a in extra]
    res = subprocess.run([sys.executable, "-m", module, *extra, str(hostile[kind])],
                         capture_output=True, timeout=120, preexec_fn=limited)
    err = res.stderr.decode()
    assert res.returncode in (1, 2) and "Traceback" not in err, err[-2000:]
    assert "not a regular log file" in err and len(err.strip().splitlines()) == 1, err


C_VERBS = {"parse": ["parse"], "dxt": ["dxt"], "convert": ["convert", "{log}", "{tmp}/o.darshan"],
           "merge": ["merge", "-o", "{tmp}/m.darshan", "{log}"]}


@pytest.mark.parametrize("kind", ["fifo", "zero", "dev"])
@pytest.mark.parametrize("verb", sorted(C_VERBS))
def test_c_verbs_refuse_in_one_line(hostile, tmp_path, verb, kind):
    tool = os.environ.get("IOLENS_BIN")
    if not tool:
        pytest.skip("set IOLENS_BIN to the built iolens tool")
    args = [a.format(tmp=tmp_path, log=hostile[kind]) for a in C_VERBS[verb]]
    if "{log}" not in " ".join(C_VERBS[verb]):
        args.append(str(hostile[kind]))
    res = subprocess.run([tool, *args], capture_output=True, timeout=60, preexec_fn=limited)
    err = res.stderr.decode()
    assert res.returncode in (1, 2, 255), err
    assert "not a regular log file" in err, err
