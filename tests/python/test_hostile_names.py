"""File names that are not UTF-8 (issue 26).

A log's names are bytes, and POSIX file names need not be UTF-8.  Python gets such
names as `surrogateescape` strings (and as bytes: Log.name_bytes), the writer takes
either, and a log read and written again keeps every name byte for byte.  Every
verb runs on such a log without a traceback, and what it prints or writes as text
is valid UTF-8: each byte that is not shows as \\xNN.  Before the fix the writer
refused such names, and `diff`, `explore` and `report` died with UnicodeEncodeError
(pandas' string dtype, and UTF-8 output, cannot hold them)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import iolens
from iolens._meta import module_info
from iolens.write import Writer, write_copy

RAW = [b"/data/caf\xe9.dat", b"/data/\xff\xfe/x\x80y", b"/data/ok.dat", b"/data/\xc3\xa9t\xc3\xa9"]
NAMES = [n.decode("utf-8", "surrogateescape") for n in RAW]
EXE = b"/bin/\xe9app -x"
HOST = b"n\xe9de"


def write_log(path, names=NAMES, exe=EXE.decode("utf-8", "surrogateescape"),
              host=HOST.decode("utf-8", "surrogateescape"), mounts=(("/data", "lustre"),)):
    n = len(names)
    ids = [1000 + i for i in range(n)]
    with Writer(path) as w:
        w.set_job(uid=1, start_time_sec=100, end_time_sec=200, nprocs=2, jobid=7, exe=exe,
                  mounts=list(mounts))
        w.add_names(ids, list(names))
        for mod in ("POSIX", "STDIO"):
            info = module_info(mod)
            c = np.zeros((n, len(info.counters)), dtype=np.int64)
            f = np.zeros((n, len(info.fcounters)))
            c[:, info.counters.index(info.prefix + "OPENS")] = 1
            c[:, info.counters.index(info.prefix + "WRITES")] = 3
            c[:, info.counters.index(info.prefix + "BYTES_WRITTEN")] = 4096 * (1 + np.arange(n))
            if mod == "POSIX":      # the 3 writes in their size bin: a consistent record
                c[:, info.counters.index("POSIX_SIZE_WRITE_1K_10K")] = 3
            f[:, info.fcounters.index(info.prefix + "F_WRITE_TIME")] = 2.0
            w.put_records(mod, ids, [0, 1, -1, 0][:n], c, f)
        w.put_dxt("DXT_POSIX", ids[:2], [0, 1], [host, "node"], [1, 1], [0, 0], [0, 0],
                  [10, 10], [0.0, 1.0], [0.5, 1.5])
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    d = tmp_path_factory.mktemp("names")
    other = d / "plain.darshan"
    write_log(other, names=["/data/a", "/data/b"], exe="/bin/app", host="node")
    return {"bad": write_log(d / "bad.darshan"), "plain": other, "dir": d}


def names_of(path):
    with iolens.open(path) as log:
        return log.names, log.name_bytes, log.exe, log.mounts, \
            log.dxt("POSIX")["hostname"].tolist() if "hostname" in log.dxt("POSIX") else None


def test_names_read_as_surrogateescape_and_bytes(logs):
    names, raw, exe, mounts, _ = names_of(logs["bad"])
    assert [names[1000 + i] for i in range(len(NAMES))] == NAMES
    assert [raw[1000 + i] for i in range(len(RAW))] == RAW
    assert exe.encode("utf-8", "surrogateescape") == EXE


def test_names_round_trip_byte_for_byte(logs, tmp_path):
    """Read, write again (from the strings, from the bytes, and by the C rewriter),
    read again: the same bytes."""
    names, raw, exe, mounts, _ = names_of(logs["bad"])
    again = write_log(tmp_path / "again.darshan", names=[names[1000 + i] for i in range(len(RAW))],
                      exe=exe)
    as_bytes = write_log(tmp_path / "bytes.darshan", names=list(RAW), exe=EXE, host=HOST,
                         mounts=[(b"/d\xe9ta", b"lustre")])
    copied = tmp_path / "copy.darshan"
    write_copy(logs["bad"], copied)
    for path in (again, as_bytes, copied):
        _, raw2, exe2, _, _ = names_of(path)
        assert raw2 == raw, path
        assert exe2.encode("utf-8", "surrogateescape") == EXE, path
    assert names_of(as_bytes)[3][0][0].encode("utf-8", "surrogateescape") == b"/d\xe9ta"
    with pytest.raises(ValueError):
        write_log(tmp_path / "nul.darshan", names=["/a\0b"])


def c_tool():
    tool = os.environ.get("IOLENS_BIN") or shutil.which("iolens")
    if not tool:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    return tool


def test_the_c_tools_print_the_bytes(logs):
    """darshan-parser prints names as they are: so do parse and dxt."""
    out = subprocess.run([c_tool(), "parse", str(logs["bad"])], capture_output=True, timeout=60)
    assert out.returncode == 0 and all(r in out.stdout for r in RAW), out.stderr
    out = subprocess.run([c_tool(), "dxt", str(logs["bad"])], capture_output=True, timeout=60)
    assert out.returncode == 0 and RAW[0] in out.stdout and HOST in out.stdout, out.stderr


PY_VERBS = {
    "report": ("iolens.report.cli", ["-o", "{dir}/r.html", "{bad}"], "{dir}/r.html"),
    "diagnose": ("iolens.diagnose.cli", ["{bad}"], None),
    "diagnose-json": ("iolens.diagnose.cli", ["--json", "{bad}"], None),
    "diff": ("iolens.diff_cli", ["{bad}", "{plain}"], None),
    "diff-same": ("iolens.diff_cli", ["{bad}", "{bad}"], None),
    "diff-json": ("iolens.diff_cli", ["--json", "{bad}", "{plain}"], None),
    "explore": ("iolens.explore.cli", ["--cache", "{dir}/cache", "-o", "{dir}/e.html", "{bad}"],
                "{dir}/e.html"),
    "export-json": ("iolens.export.cli", ["--cache", "{dir}/cache2", "--format", "json", "-o",
                                          "{dir}/x.json", "{bad}"], "{dir}/x.json"),
    "export-perfetto": ("iolens.export.cli", ["--cache", "{dir}/cache3", "-o", "{dir}/x.pftrace",
                                              "{bad}"], None),
}


@pytest.mark.parametrize("verb", sorted(PY_VERBS))
def test_every_verb_takes_such_names(logs, verb):
    module, args, written = PY_VERBS[verb]
    fill = {k: str(v) for k, v in logs.items()}
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="")   # a UTF-8 terminal
    res = subprocess.run([sys.executable, "-m", module, *[a.format(**fill) for a in args]],
                         capture_output=True, timeout=300, env=env)
    err = res.stderr.decode(errors="replace")
    assert "Traceback" not in err and res.returncode in (0, 1), err[-2000:]
    res.stdout.decode("utf-8")                         # text output is valid UTF-8
    if written and not written.endswith(".pftrace"):
        text = open(written.format(**fill), "rb").read().decode("utf-8")
        if verb in ("report", "explore"):
            assert "\\xe9" in text                     # shown as \xNN, not dropped
    if verb == "diff":
        assert "caf\\xe9.dat" in res.stdout.decode()


@pytest.mark.parametrize("verb", ["job-stats", "file-stats"])
def test_fleet_stats_take_such_names(logs, verb):
    pytest.importorskip("pyarrow")
    res = subprocess.run([sys.executable, "-m", "iolens.fleet.cli", verb, str(logs["bad"])],
                         capture_output=True, timeout=300,
                         env=dict(os.environ, LC_ALL="C.UTF-8"))
    err = res.stderr.decode(errors="replace")
    assert "Traceback" not in err and res.returncode == 0, err[-2000:]
    if verb == "file-stats":    # stored and shown as \xNN (docs/fleet.md)
        assert "/data/caf\\xe9.dat" in res.stdout.decode()


@pytest.mark.parametrize("verb", sorted(PY_VERBS))
def test_a_log_whose_own_path_is_not_utf8(logs, tmp_path, verb):
    """The log's path itself: b"/tmp/.../r\\xe9sultat.darshan" (explore and export
    hashed it for their cache key, and died)."""
    odd = os.fsdecode(os.path.join(os.fsencode(str(tmp_path)), b"r\xe9sultat.darshan"))
    shutil.copyfile(logs["bad"], odd)
    module, args, _ = PY_VERBS[verb]
    fill = {"bad": odd, "plain": str(logs["plain"]), "dir": str(tmp_path)}
    res = subprocess.run([sys.executable, "-m", module, *[a.format(**fill) for a in args]],
                         capture_output=True, timeout=300,
                         env=dict(os.environ, LC_ALL="C.UTF-8"))
    err = res.stderr.decode(errors="replace")
    assert "Traceback" not in err and res.returncode in (0, 1), err[-2000:]
