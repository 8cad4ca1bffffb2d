"""Shared helpers of the explorer and export tests: corpus logs with DXT, our
own traced logs, the C tool, a small protobuf wire decoder and totals from
`iolens dxt`."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import iolens

REPO = Path(__file__).resolve().parents[2]
CORPUS = (REPO / ".." / "shared" / "corpus" / "logs").resolve()


def has_dxt(path: Path) -> bool:
    try:
        with iolens.open(path) as log:
            return any(m.startswith("DXT_") for m in log.modules)
    except iolens.LogError:
        return False


def corpus_dxt_logs() -> list:
    """Every corpus log with a DXT region, or one skip marker with the reason."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"log corpus not found at {CORPUS} (needs ../shared beside the repo)"))]
    logs = [p for p in sorted(CORPUS.glob("**/*.darshan")) if has_dxt(p)]
    return [pytest.param(p, id=str(p.relative_to(CORPUS))) for p in logs]


def corpus_log(part: str) -> Path:
    hits = sorted(CORPUS.glob(f"**/*{part}*.darshan")) if CORPUS.is_dir() else []
    if not hits:
        pytest.skip(f"corpus log matching {part!r} not found under {CORPUS}")
    return hits[0]


def iolens_bin() -> str:
    tool = os.environ.get("IOLENS_BIN") or str(REPO / "build" / "src" / "tools" / "iolens")
    if not os.access(tool, os.X_OK):
        tool = shutil.which("iolens")
    if not tool:
        pytest.skip("the C iolens tool is not built (set IOLENS_BIN)")
    return tool


WORKLOAD = r"""
import os, sys, threading
d = sys.argv[1]
def work(k):
    with open(os.path.join(d, f"f{k}.dat"), "wb") as f:
        for i in range(20):
            f.write(b"x" * (4096 * (1 + i % 4)))
    with open(os.path.join(d, f"f{k}.dat"), "rb") as f:
        while f.read(8192):
            pass
ts = [threading.Thread(target=work, args=(k,)) for k in range(3)]
[t.start() for t in ts]
[t.join() for t in ts]
"""


def traced_log(tmp: Path, program=("-c", WORKLOAD), extra_env=None) -> Path:
    """A log of our own: `iolens run --trace` over a Python workload (`program`: the
    interpreter's arguments before the data directory; default a threaded one)."""
    logdir, data = tmp / "logs", tmp / "data"
    logdir.mkdir()
    data.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_LOG"))}
    env["LD_PRELOAD"] = ""
    env.update(extra_env or {})
    r = subprocess.run([iolens_bin(), "run", "--trace", "--logpath", str(logdir), "--",
                        sys.executable, *program, str(data)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    logs = sorted(logdir.glob("**/*.darshan"))
    assert len(logs) == 1, logs
    return logs[0]


def dxt_rows(path: Path) -> list:
    """Every segment `iolens dxt` prints: ((module, rank, op), length, start s,
    end s), times as printed (4 decimals)."""
    out = subprocess.run([iolens_bin(), "dxt", "--show-incomplete", str(path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] in ("X_POSIX", "X_MPIIO"):
            key = ("MPI-IO" if f[0] == "X_MPIIO" else "POSIX", int(f[1]), f[2])
            rows.append((key, int(f[5]), float(f[6]), float(f[7])))
    return rows


def dxt_totals(path: Path) -> dict:
    """(module, rank, op) -> (operations, bytes) from `iolens dxt` text."""
    acc = defaultdict(lambda: [0, 0])
    for key, length, _, _ in dxt_rows(path):
        acc[key][0] += 1
        acc[key][1] += length
    return {k: tuple(v) for k, v in acc.items()}


# ------------------------------------------------------------ protobuf wire format
def read_varint(buf: bytes, pos: int):
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def decode(buf: bytes) -> dict:
    """field number -> list of values (int for varints, float for 64-bit, bytes for
    length-delimited).  Raises on anything malformed."""
    out, pos = defaultdict(list), 0
    while pos < len(buf):
        k, pos = read_varint(buf, pos)
        field, wire = k >> 3, k & 7
        if wire == 0:
            v, pos = read_varint(buf, pos)
        elif wire == 1:
            v = struct.unpack_from("<d", buf, pos)[0]
            pos += 8
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            v = buf[pos:pos + n]
            assert len(v) == n, "truncated field"
            pos += n
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out[field].append(v)
    assert pos == len(buf)
    return out


def opened(log_path, cache: Path):
    """The index and summary of a log (the index in ``cache``)."""
    from iolens.explore.index import index_for
    from iolens.explore.views import summary
    with iolens.open(log_path) as log:
        idx = index_for(log, cache)
        return idx, summary(log, idx)


def start_server(log_path, cache: Path, listen: str = "127.0.0.1"):
    """Serve a log's explorer: (page URL with its token, summary, index, app, server)."""
    from iolens.explore.server import Explorer, page_url, serve
    idx, data = opened(log_path, cache)
    app = Explorer(idx, data)
    server = serve(app, 0, listen)
    return page_url(app, server), data, idx, app, server
