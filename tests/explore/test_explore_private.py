"""The explorer is private by default (issue 29): requests without the run's
token, with a Host that does not name the server or with a foreign Origin get
403; the index cache is 0700/0600 and another user cannot read it; the cache
is size-capped (least recently used first), optional, and can be cleared."""
from __future__ import annotations

import http.client
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import iolens
from explore_helpers import corpus_log, opened, start_server
from explore_traces import damaged
from iolens.explore import cache
from iolens.explore.cli import main as explore_main
from iolens.explore.index import index_for
from iolens.explore.server import Explorer


@pytest.fixture
def server(tmp_path):
    _, _, _, app, srv = start_server(damaged(tmp_path / "small.darshan"), tmp_path / "cache")
    yield app, srv.server_address[1]
    srv.shutdown()


def get(port, path, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


@pytest.mark.parametrize("path", ["/", "/api/summary", "/api/spans"])
def test_token_host_and_origin_are_checked(server, path):
    app, port = server
    good = f"{path}?token={app.token}"
    assert get(port, good)[0] == 200
    assert get(port, good, {"Host": f"localhost:{port}"})[0] == 200
    assert get(port, good, {"Origin": f"http://127.0.0.1:{port}"})[0] == 200
    assert get(port, path)[0] == 403                                    # no token
    wrong = app.token[:-1] + ("y" if app.token.endswith("x") else "x")  # always differs
    assert get(port, f"{path}?token={wrong}")[0] == 403                 # wrong token
    status, body = get(port, good, {"Host": f"evil.example:{port}"})  # DNS rebinding
    assert status == 403 and b"shared.dat" not in body
    assert get(port, good, {"Host": "127.0.0.1:1"})[0] == 403
    assert get(port, good, {"Origin": "http://evil.example"})[0] == 403
    assert get(port, good, {"Origin": f"http://127.0.0.1:{port + 1}"})[0] == 403


def test_each_run_has_its_own_token(tmp_path):
    idx, data = opened(damaged(tmp_path / "small.darshan"), tmp_path / "cache")
    a, b = Explorer(idx, data), Explorer(idx, data)
    assert a.token != b.token and len(a.token) >= 32


def test_listen_address_still_needs_the_token(tmp_path):
    _, _, _, app, srv = start_server(damaged(tmp_path / "small.darshan"), tmp_path / "cache",
                                     "0.0.0.0")
    port = srv.server_address[1]
    try:
        assert srv.server_address[0] == "0.0.0.0"
        assert get(port, "/api/summary")[0] == 403
        assert get(port, f"/api/summary?token={app.token}")[0] == 200
    finally:
        srv.shutdown()


def as_other_user(argv):
    """ARGV run as uid/gid 65534 (nobody), for permission checks."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        pytest.skip("needs root and setpriv(1) to run as another user")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + argv


def test_cache_is_private(tmp_path):
    # a cache under a directory every user may enter, as ~/.cache often is
    top = Path(tempfile.mkdtemp(prefix="iolens-private-"))
    try:
        top.chmod(0o755)
        where = top / "cache"
        log = damaged(tmp_path / "small.darshan")
        with iolens.open(log) as lg:
            idx = index_for(lg, where)
        assert (where.stat().st_mode & 0o777) == 0o700
        assert (idx.root.stat().st_mode & 0o777) == 0o700
        files = [f for f in idx.root.rglob("*") if f.is_file()]
        assert files and all((f.stat().st_mode & 0o777) == 0o600 for f in files)
        for argv in (["ls", str(where)], ["cat", str(idx.root / "meta.json")]):
            r = subprocess.run(as_other_user(argv), capture_output=True, timeout=30)
            assert r.returncode != 0 and b"shared.dat" not in r.stdout, argv
            assert b"Permission denied" in r.stderr
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_cache_is_capped_least_recently_used_first(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    logs = [damaged(tmp_path / f"l{i}.darshan") for i in range(3)]
    roots = []
    for i, log in enumerate(logs):
        with iolens.open(log) as lg:
            roots.append(index_for(lg, where).root)
        os.utime(roots[-1], (1000 + i, 1000 + i))       # distinct last uses
    size = sum(f.stat().st_size for f in roots[0].rglob("*") if f.is_file())
    with iolens.open(logs[0]) as lg:                     # use the oldest again
        index_for(lg, where)
    monkeypatch.setenv("IOLENS_CACHE_MAX_BYTES", str(int(size * 2.5)))
    new = damaged(tmp_path / "l3.darshan")
    with iolens.open(new) as lg:
        kept = index_for(lg, where).root
    assert kept.is_dir() and roots[0].is_dir()           # just built; just used
    assert not roots[1].exists()                          # least recently used
    assert sum(f.stat().st_size for f in where.rglob("*") if f.is_file()) <= size * 2.5


def test_clear_cache_removes_only_indexes(tmp_path, capsys):
    where = tmp_path / "cache"
    with iolens.open(damaged(tmp_path / "l.darshan")) as lg:
        root = index_for(lg, where).root
    (where / "notes.txt").write_text("mine")
    assert explore_main(["--clear-cache", "--cache", str(where)]) == 0
    assert not root.exists() and (where / "notes.txt").read_text() == "mine"
    assert "1 index(es) removed" in capsys.readouterr().out


def test_unwritable_cache_is_optional_for_o(tmp_path, capsys):
    log = corpus_log("mpi-io-test_id4373053")
    ro = tmp_path / "ro"
    ro.mkdir()
    out = tmp_path / "page.html"
    ro.chmod(0o500)
    try:
        # as root the mode does not bind: a regular file where the cache should be does
        blocked = ro / "cache" if os.geteuid() else tmp_path / "file-not-dir"
        if os.geteuid() == 0:
            blocked.write_text("x")
        assert explore_main([str(log), "-o", str(out), "--cache", str(blocked)]) == 0
    finally:
        ro.chmod(0o700)
    assert out.stat().st_size > 10_000
    assert "indexing in a temporary directory" in capsys.readouterr().err
