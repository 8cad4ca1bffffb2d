"""Helpers and fixtures of the log-corpus compatibility tests (made available to
the tests by conftest.py; imported under this unique name because every test
directory has a conftest module of its own).

The corpus lives beside the repository, at ../shared (never copied into the
project).  Tests that need it skip with a visible reason when it is absent.

Fixtures and helpers:
  shared_dir      Path of ../shared (skips if absent)
  corpus_logs     sorted list of every corpus *.darshan log (skips if none)
  iolens_bin      path of the built `iolens` command (skips if not found)
  expected_for(log, kind)   Path of the upstream output for a log, or None;
                  kind is "parser", "summary" or "dxt"
  read_expected(path)       text of an .xz expected file
  run_iolens(bin, args)     subprocess.CompletedProcess with TZ=UTC
"""
import lzma
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = (REPO / ".." / "shared").resolve()
CORPUS_LOGS = SHARED / "corpus" / "logs"
CORPUS_EXPECTED = SHARED / "corpus" / "expected"


def find_iolens():
    """The iolens binary: $IOLENS_BIN, else build/src/tools/iolens, else PATH."""
    env = os.environ.get("IOLENS_BIN")
    if env:
        return Path(env) if Path(env).is_file() else None
    local = REPO / "build" / "src" / "tools" / "iolens"
    if local.is_file():
        return local
    found = shutil.which("iolens")
    return Path(found) if found else None


def all_corpus_logs():
    """Every corpus log, sorted; empty when the corpus is absent (collection time)."""
    if not CORPUS_LOGS.is_dir():
        return []
    return sorted(CORPUS_LOGS.rglob("*.darshan"))


def log_id(log):
    """Short test id of a corpus log: <directory>/<file stem>."""
    return f"{log.parent.name}/{log.stem}"


def expected_for(log, kind):
    """Expected upstream output of `kind` for a corpus log, or None.

    logs/<dir>/<name>.darshan corresponds to expected/<dir>/<name>.<kind>.txt.xz."""
    path = CORPUS_EXPECTED / log.parent.name / f"{log.stem}.{kind}.txt.xz"
    return path if path.is_file() else None


def read_expected(path):
    with lzma.open(path, "rt", encoding="utf-8", errors="surrogateescape",
                   newline="") as f:
        return f.read()


def run_iolens(binary, args, timeout=300):
    """Run `iolens ARGS` in the C locale and UTC (the reference outputs use UTC)."""
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    return subprocess.run([str(binary), *map(str, args)], capture_output=True,
                          env=env, timeout=timeout)


@pytest.fixture(scope="session")
def shared_dir():
    if not SHARED.is_dir():
        pytest.skip(f"shared test data not found at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def corpus_logs(shared_dir):
    logs = all_corpus_logs()
    if not logs:
        pytest.skip(f"no corpus logs under {CORPUS_LOGS}")
    return logs


@pytest.fixture(scope="session")
def iolens_bin():
    binary = find_iolens()
    if binary is None:
        pytest.skip("iolens binary not found (set IOLENS_BIN, build into build/, "
                    "or put iolens on PATH)")
    return binary


# ---------------------------------------------------------------- synthetic logs
def make_log(path, modules, names=None, partial=0, exe="synthetic",
             mounts=(("ext4", "/"),), start=1_700_000_000, end=1_700_000_010):
    """Write a minimal log version 3.41 (little-endian, zlib) to `path`.

    modules: {module id: (record version, uncompressed payload bytes)}
    names:   {record id: name}
    mounts:  (fs type, mount point) pairs, in the order stored.
    Built from the log-format spec (sections 2.1, 4.1, 4.4, 5.1), independently of
    the iolens writer, so tests can feed hand-made (also hostile) records."""
    import struct
    import zlib
    job = struct.pack("<7q", 1000, start, 0, end, 0, 1, 4242)
    job += b"lib_ver=3.5.0\n".ljust(1024, b"\0")
    exe_mounts = exe + "".join(f"\n{t}\t{m}" for t, m in mounts)
    job += exe_mounts.encode() + b"\0"
    blob = b""
    for rid, name in (names or {}).items():
        blob += struct.pack("<Q", rid) + name.encode() + b"\0"
    regions = [zlib.compress(job), zlib.compress(blob) if blob else b""]
    mod_map = {}
    off = 1328 + len(regions[0])
    name_map = (off, len(regions[1]))
    off += len(regions[1])
    body = regions[0] + regions[1]
    for mid in sorted(modules):
        ver, payload = modules[mid]
        comp = zlib.compress(payload)
        mod_map[mid] = (off, len(comp), ver)
        body += comp
        off += len(comp)
    hdr = b"3.41".ljust(8, b"\0") + struct.pack("<q", 6567223) + bytes([0]) + bytes(7)
    hdr += struct.pack("<QQQ", partial, *name_map)
    for i in range(64):
        o, n, _ = mod_map.get(i, (0, 0, 0))
        hdr += struct.pack("<QQ", o, n)
    for i in range(64):
        hdr += struct.pack("<I", mod_map.get(i, (0, 0, 0))[2])
    assert len(hdr) == 1328
    Path(path).write_bytes(hdr + body)
    return Path(path)
