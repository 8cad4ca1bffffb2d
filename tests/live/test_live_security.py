"""A second user sees none of the first user's jobs (issue 30): the copies are
0600, and `iolens top` and a user-run `iolens exporter` read only what their
user can open.  Needs root (to run as another uid with setpriv)."""
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from iolens.live.copies import find_copies

OTHER = 65534       # nobody

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                                reason="needs root and setpriv to act as a second user")


def as_other(argv, **kw):
    return [shutil.which("setpriv"), f"--reuid={OTHER}", f"--regid={OTHER}", "--clear-groups",
            *map(str, argv)]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_other_user_sees_nothing(tool, runtime, progs, tmp_path):
    shm, work = tmp_path / "shm", tmp_path / "work"
    shm.mkdir(mode=0o1777)
    os.chmod(shm, 0o1777)               # like /dev/shm: everyone may create files
    os.chmod(tmp_path, 0o755)
    work.mkdir()
    env = dict(os.environ, LD_PRELOAD=str(runtime), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_MMAP_LOGPATH=str(shm), DARSHAN_LOGPATH=str(tmp_path))
    p = subprocess.Popen([str(progs("steady")), str(work), "secret", "999"], env=env)
    try:
        end = time.monotonic() + 20
        while not find_copies([str(shm)]) and time.monotonic() < end:
            time.sleep(0.05)
        assert find_copies([str(shm)]), "no copy appeared"
        mine = subprocess.run([str(tool), "top", "--once", "--json", "--interval", "0",
                               "--dir", str(shm)], capture_output=True, text=True, timeout=60)
        assert json.loads(mine.stdout)["jobs"], "the owner (root) sees the job"
        env_other = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        env_other["HOME"] = "/"
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
            end = time.monotonic() + 20
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
        p.wait(timeout=30)
