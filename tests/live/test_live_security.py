"""A second user sees none of the first user's jobs (issue 30): the copies are
0600, and `iolens top` and a user-run `iolens exporter` read only what their
user can open, while root sees all.  Needs root and setpriv: the job runs as
uid 65534; the viewer is uid 0 stripped of the capabilities that bypass file
modes (DAC override and read search), so that files bind it as they bind any
other user (the test's Python lives under /root, which uid 65534 cannot enter)."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from iolens.live.copies import find_copies

OTHER = 65534       # nobody

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                reason="needs root and setpriv to act as a second user")


def as_owner(argv):
    """The job's user."""
    return [shutil.which("setpriv"), f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups",
            *map(str, argv)]


def as_other(argv):
    """Another user: no capability that passes over a file's mode."""
    return [shutil.which("setpriv"), "--bounding-set=-dac_override,-dac_read_search",
            *map(str, argv)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_other_user_sees_nothing(tool, runtime, progs, tmp_path):
    shm, work = tmp_path / "shm", tmp_path / "work"
    shm.mkdir()
    os.chmod(shm, 0o1777)               # like /dev/shm: everyone may create files
    work.mkdir()
    os.chown(work, OTHER, OTHER)
    for d in [tmp_path, *tmp_path.parents]:
        if d.stat().st_uid == 0 and d != Path("/"):
            os.chmod(d, d.stat().st_mode | 0o005)   # the job's user reaches its dirs
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(shm), DARSHAN_LOGPATH=str(work), HOME=str(work))
    p = subprocess.Popen(as_owner([progs("steady"), work, "secret", "999"]), env=env)
    try:
        end = time.monotonic() + 60
        while not find_copies([str(shm)]) and time.monotonic() < end:
            time.sleep(0.05)
        assert find_copies([str(shm)]), "no copy appeared"
        mine = subprocess.run([str(tool), "top", "--once", "--json", "--interval", "0",
                               "--dir", str(shm)], capture_output=True, text=True, timeout=60)
        assert json.loads(mine.stdout)["jobs"], "root sees the job"
        env_other = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        theirs = subprocess.run(as_other([tool, "top", "--once", "--json", "--interval", "0",
                                          "--dir", shm]),
                                capture_output=True, text=True, timeout=60, env=env_other)
        assert theirs.returncode == 0, theirs.stderr
        assert json.loads(theirs.stdout)["jobs"] == []
        port = free_port()
        exporter = subprocess.Popen(as_other([tool, "exporter", "--listen", f"127.0.0.1:{port}",
                                              "--dir", shm]), env=env_other,
                                    stderr=subprocess.PIPE, text=True)
        try:
            text = None
            end = time.monotonic() + 60
            while text is None and time.monotonic() < end:
                try:
                    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                                  timeout=5).read().decode()
                except OSError:
                    time.sleep(0.1)
            assert text is not None, "the exporter never answered"
            assert "iolens_node_jobs 0" in text
            assert "secret" not in text and "job=" not in text
        finally:
            exporter.terminate()
            exporter.wait(timeout=10)
    finally:
        (work / "go").touch()
        p.wait(timeout=90)
