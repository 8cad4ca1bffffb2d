"""The command-line contract of every verb (docs/cli.md, "The same on every verb",
"Exit status", "Messages", "Outputs"), tested as one table: every verb that
`iolens --help` lists, through every kind of bad input.

- `--help` and `--version` work on every verb;
- a usage error (unknown option, contradictory flags, an out-of-range port, an
  output naming an input) exits 2 and says so on a line `iolens VERB: ...`;
- a log the verb cannot use exits 1 (255 for parse and dxt) with one line
  `iolens VERB: PATH: what went wrong`: the path once, no traceback, no `[Errno N]`;
- an output is never an input, never left truncated, and never readable by others.

The verbs come from `iolens --help`, so a new verb fails
test_every_listed_verb_is_in_the_table until it has its row here."""
from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

TIMEOUT = 120          # seconds: a verb that blocks (a FIFO) or reads forever fails
MEMORY = 3 << 30       # address space of a verb on a hostile input (a report needs ~2 GiB)


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from rt_helpers import runtime, tool  # noqa: E402,F401  (fixtures)


def sh(argv, timeout=TIMEOUT, **kw):
    """Run; stdout and stderr as bytes (file names need not be UTF-8)."""
    return subprocess.run([os.fsencode(a) if isinstance(a, (bytes, Path)) else a for a in argv],
                          capture_output=True, timeout=timeout, **kw)


def listed_verbs(tool) -> list:
    """The verbs `iolens --help` lists (the lines under "verbs:")."""
    text = sh([tool, "--help"]).stdout.decode()
    block = text.split("verbs:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", block, re.M)]


# ---------------------------------------------------------------- the verbs
# How each verb is run on one log.  {log}: the input; {out}: an output it writes;
# {good}: a readable log (diff compares two); {dir}: a directory for its output.
LOG_VERBS = {
    "parse":    ["{log}"],
    "dxt":      ["{log}"],
    "convert":  ["{log}", "{out}"],
    "merge":    ["-o", "{out}", "{log}"],
    "recover":  ["--keep", "--logdir", "{dir}", "{log}"],
    "report":   ["{log}", "-o", "{out}"],
    "diff":     ["{good}", "{log}"],
    "diagnose": ["{log}", "-o", "{out}"],
    "explore":  ["{log}", "-o", "{out}"],
    "export":   ["{log}", "-o", "{out}"],
    "fleet":    ["job-stats", "{log}"],
}
# Verbs that read no log: only the rows every verb has.
OTHER_VERBS = {"run", "config", "keygen", "top", "exporter"}
# The verbs whose {out} above is written from the log (recover's name is its own).
WRITERS = [v for v, a in LOG_VERBS.items() if "{out}" in a]
# Flags that contradict each other, per verb that has such a pair.
CONTRADICTIONS = {
    "convert":  ["--zlib", "--bzip2", "{log}", "{out}"],
    "export":   ["--perfetto", "--format", "json", "{log}", "-o", "{out}"],
    "diagnose": ["--json", "--sarif", "{log}"],
    "explore":  ["--port", "8000", "{log}", "-o", "{out}"],
}


def status_for(verb):
    return 255 if verb in ("parse", "dxt") else 1


def argv_for(tool, verb, log, out=None, good=None, outdir=None, template=None):
    subst = {"{log}": log, "{out}": out, "{good}": good, "{dir}": outdir}
    return [tool, verb] + [subst.get(a, a) for a in (template or LOG_VERBS[verb])]


# ---------------------------------------------------------------- the logs
@pytest.fixture(scope="module")
def real_log(tool, runtime, tmp_path_factory):
    """A real log with DXT traces: `iolens run --trace` of a shell writing a file."""
    base = tmp_path_factory.mktemp("real")
    logs = base / "logs"
    logs.mkdir()
    r = sh([tool, "run", "--trace", "--logpath", logs, "--", "sh", "-c",
            f"echo hello > {base}/f; cat {base}/f {base}/f > /dev/null"],
           env={**os.environ, "IOLENS_RUNTIME": str(runtime)})
    assert r.returncode == 0, r.stderr
    (log,) = logs.rglob("*.darshan")
    os.chmod(log, 0o644)          # readable by the nobody rows
    return log


def _copy(src, dst):
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o644)
    return dst


def _file(path, data):
    path.write_bytes(data)
    return path


def _truncated(real, d):
    data = real.read_bytes()
    (d / "cut.darshan").write_bytes(data[: len(data) // 2])
    return d / "cut.darshan"


def _future(real, d):
    data = bytearray(real.read_bytes())
    data[0:8] = b"9.99\0\0\0\0"
    (d / "future.darshan").write_bytes(bytes(data))
    return d / "future.darshan"


def _fifo(real, d):
    os.mkfifo(d / "pipe.darshan")
    return d / "pipe.darshan"


def _loop(real, d):
    os.symlink("loop2.darshan", d / "loop1.darshan")
    os.symlink("loop1.darshan", d / "loop2.darshan")
    return d / "loop1.darshan"


def _huge_nprocs(real, d):
    """A log of one small record whose job claims 2^27 processes."""
    import numpy as np
    import iolens
    from iolens._meta import module_info
    from iolens.write import Writer
    path, mi = d / "huge.darshan", module_info("POSIX")
    with iolens.open(real) as src, Writer(path) as w:
        job = src.job
        w.set_job(start_time_sec=job["start_time_sec"], end_time_sec=job["end_time_sec"],
                  nprocs=1 << 27, jobid=job["jobid"], exe="huge")
        w.add_names([1], ["/tmp/huge-file"])
        w.put_records("POSIX", [1], [0], np.ones((1, len(mi.counters))),
                      np.ones((1, len(mi.fcounters))))
    return path


def _damaged(real, d):
    """The end of the last region overwritten: the log opens, its last module fails."""
    data = bytearray(real.read_bytes())
    data[-48:] = b"\xa5" * 48
    (d / "damaged.darshan").write_bytes(bytes(data))
    return d / "damaged.darshan"


BAD = {    # kind -> (how to make it, expected: "fail" or "ok", mark per verb)
    "missing":     (lambda real, d: d / "missing.darshan", "fail"),
    "directory":   (lambda real, d: d, "fail"),
    "empty":       (lambda real, d: _file(d / "empty.darshan", b""), "fail"),
    "not_a_log":   (lambda real, d: _file(d / "notes.darshan", b"a text file\n" * 50), "fail"),
    "truncated":   (_truncated, "fail"),
    "future":      (_future, "fail"),
    "fifo":        (_fifo, "fail"),
    "char_device": (lambda real, d: Path("/dev/zero"), "fail"),
    "symlink_loop": (_loop, "fail"),
    "non_utf8_name": (lambda real, d: _copy(real, Path(os.fsdecode(bytes(d) + b"/\xff\xfe.darshan"))),
                      "ok"),
    "huge_nprocs": (_huge_nprocs, "ok"),
}
# A verb that blocks on these is stopped after this many seconds (it should refuse
# them at once).
SPECIAL_FILE_TIMEOUT = 30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


# Verbs with subcommands speak as "iolens VERB SUB:" (the subcommand the table runs).
SPEAKER = {"fleet": "fleet job-stats"}


def assert_failure_line(r, verb, path, status):
    err = r.stderr
    assert r.returncode == status, (r.returncode, err)
    assert b"Traceback" not in err and b"[Errno" not in err, err
    who = f"iolens {SPEAKER.get(verb, verb)}:".encode()
    mine = [line for line in err.splitlines() if line.startswith(who)]
    assert len(mine) == 1, err
    assert mine[0].startswith(who + b" " + os.fsencode(path) + b": "), err
    assert err.count(os.fsencode(path)) == 1, err


def _rows():
    for verb in LOG_VERBS:
        for kind in BAD:
            yield pytest.param(verb, kind, id=f"{verb}-{kind}")


@pytest.mark.parametrize("verb,kind", list(_rows()))
def test_bad_input(tool, real_log, tmp_path, verb, kind):
    make, expect = BAD[kind]
    d = tmp_path / "in"
    d.mkdir()
    path = make(real_log, d)
    outdir = tmp_path / "out"
    outdir.mkdir()
    argv = argv_for(tool, verb, path, outdir / "o.out", real_log, outdir)
    r = sh(argv, preexec_fn=_limit_memory, cwd=outdir,
           timeout=SPECIAL_FILE_TIMEOUT if kind in ("fifo", "char_device") else TIMEOUT)
    if expect == "ok" and verb != "recover" and (kind != "huge_nprocs" or r.returncode == 0):
        assert r.returncode == 0, r.stderr
        assert b"Traceback" not in r.stderr
    else:   # recover takes only safety copies; a claim of 2^27 processes may be refused
        assert_failure_line(r, verb, path, status_for(verb))


def obeying_file_modes(argv):
    """ARGV run so that file modes bind it: as root, without the capabilities that
    bypass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("running as root without setpriv(1): file modes cannot be made to bind")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"] + argv


@pytest.mark.parametrize("verb", LOG_VERBS)
def test_permission_denied(tool, real_log, tmp_path, verb):
    log = _copy(real_log, tmp_path / "private.darshan")
    log.chmod(0)
    r = sh(obeying_file_modes(argv_for(tool, verb, log, tmp_path / "o.out", real_log, tmp_path)),
           cwd=tmp_path)
    assert_failure_line(r, verb, log, status_for(verb))
    assert b"Permission denied" in r.stderr


# ---------------------------------------------------------------- outputs
@pytest.mark.parametrize("verb", WRITERS)
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_output_naming_an_input_is_refused(tool, real_log, tmp_path, verb, how):
    log = _copy(real_log, tmp_path / "in.darshan")
    before = log.read_bytes()
    out = {"same": lambda: log,
           "symlink": lambda: (tmp_path / "link").symlink_to(log) or tmp_path / "link",
           "hardlink": lambda: os.link(log, tmp_path / "hard") or tmp_path / "hard"}[how]()
    r = sh(argv_for(tool, verb, log, out, real_log, tmp_path), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"iolens {verb}: {out}: "), lines
    assert "refusing to overwrite" in lines[0]
    assert log.read_bytes() == before and not log.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["in.darshan"] + ([] if how == "same" else [out.name]))


@pytest.mark.parametrize("verb", [v for v in WRITERS if v != "merge"])
def test_output_through_a_symlink_replaces_its_target(tool, real_log, tmp_path, verb):
    """A link to another file is written through: the target gets the output, the
    link stays a link."""
    target = tmp_path / "target"
    target.write_text("older\n")
    link = tmp_path / "link"
    link.symlink_to(target)
    r = sh(argv_for(tool, verb, real_log, link, real_log, tmp_path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and target.read_bytes() != b"older\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "target"]


@pytest.mark.parametrize("verb", WRITERS)
def test_output_in_a_missing_directory(tool, real_log, tmp_path, verb):
    out = tmp_path / "no" / "such" / "o.out"
    r = sh(argv_for(tool, verb, real_log, out, real_log, tmp_path))
    assert r.returncode == 1, r.stderr
    assert r.stderr.decode().splitlines() == [
        f"iolens {verb}: {out}: the directory {out.parent} does not exist"]


@pytest.mark.parametrize("verb", WRITERS)
def test_unwritable_output_directory(tool, real_log, tmp_path, verb):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    out = locked / "o.out"
    r = sh(obeying_file_modes(argv_for(tool, verb, real_log, out, real_log, tmp_path)),
           cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.decode().splitlines() == [
        f"iolens {verb}: {out}: cannot write in {locked}: Permission denied"]
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("verb", WRITERS)
def test_output_is_private_whatever_the_umask(tool, real_log, tmp_path, verb):
    out = tmp_path / "o.out"
    out.write_text("an older file, replaced\n")
    out.chmod(0o644)
    if verb == "merge":
        out.unlink()                  # merge never replaces a file
    r = sh(argv_for(tool, verb, real_log, out, real_log, tmp_path), cwd=tmp_path,
           preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    mode = stat.S_IMODE(out.stat().st_mode)
    assert mode == (0o400 if verb in ("convert", "merge") else 0o600), oct(mode)
    assert [p.name for p in tmp_path.iterdir()] == ["o.out"]      # nothing left beside it


@pytest.mark.parametrize("verb", [v for v in WRITERS if v != "merge"])
def test_failed_run_keeps_the_existing_output(tool, real_log, tmp_path, verb):
    """A log that fails part-way (convert: its last region damaged, so the output
    was already begun; the others: cut in half) leaves OUT as it was."""
    log = (_damaged if verb == "convert" else _truncated)(real_log, tmp_path)
    out = tmp_path / "o.out"
    out.write_text("precious\n")
    r = sh(argv_for(tool, verb, log, out, real_log, tmp_path), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([log.name, "o.out"])


@pytest.fixture(scope="module")
def big_log(real_log, tmp_path_factory):
    """A log of many records, so that `convert` takes a while to write it."""
    import numpy as np
    from iolens._meta import module_info
    from iolens.write import Writer
    path, mi, n = tmp_path_factory.mktemp("big") / "big.darshan", module_info("POSIX"), 200_000
    rng = np.random.default_rng(7)
    with Writer(path, compression="none") as w:
        w.set_job(start_time_sec=1, end_time_sec=2, nprocs=4, jobid=7, exe="big")
        ids = np.arange(1, n + 1, dtype=np.uint64)
        w.add_names(ids.tolist(), [f"/scratch/f{i}" for i in range(n)])
        w.put_records("POSIX", ids, np.full(n, -1), rng.integers(0, 1 << 40, (n, len(mi.counters))),
                      rng.random((n, len(mi.fcounters))))
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_interrupted_convert_keeps_the_existing_output(tool, big_log, tmp_path, sig):
    """Stopped while its partial file exists, then signalled: OUT is untouched and
    the partial file is gone."""
    out = tmp_path / "o.darshan"
    out.write_text("precious\n")
    p = subprocess.Popen([str(tool), "convert", "--bzip2", str(big_log), str(out)],
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + TIMEOUT
    while p.poll() is None and time.monotonic() < deadline:
        partial = [q for q in tmp_path.iterdir() if q.name.startswith(".iolens-partial-")]
        if partial and any(partial[0].iterdir()):
            p.send_signal(signal.SIGSTOP)
            if partial[0].exists():
                break
            p.send_signal(signal.SIGCONT)
        time.sleep(0.001)
    assert p.poll() is None, "convert ended before it could be interrupted"
    p.send_signal(sig)
    p.send_signal(signal.SIGCONT)
    assert p.wait(timeout=TIMEOUT) == -sig
    assert out.read_text() == "precious\n"
    assert [q.name for q in tmp_path.iterdir()] == ["o.darshan"]


def test_interrupted_report_keeps_the_existing_pdf(tool, real_log, tmp_path):
    """The Python verbs end on SIGTERM as on Ctrl-C (iolens._verb): stopped while
    the PDF is printed into its partial file, then terminated, `report` leaves the
    existing PDF as it was and no partial file."""
    pdf = tmp_path / "r.pdf"
    pdf.write_text("precious\n")
    p = subprocess.Popen([str(tool), "report", str(real_log), "--pdf", str(pdf)],
                         stderr=subprocess.PIPE, cwd=tmp_path)
    deadline = time.monotonic() + TIMEOUT
    while p.poll() is None and time.monotonic() < deadline:
        if any(q.name.startswith(".iolens-partial-") for q in tmp_path.iterdir()):
            p.send_signal(signal.SIGSTOP)
            if any(q.name.startswith(".iolens-partial-") for q in tmp_path.iterdir()):
                break
            p.send_signal(signal.SIGCONT)
        time.sleep(0.005)
    assert p.poll() is None, "report ended before it could be interrupted"
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGCONT)
    assert p.wait(timeout=TIMEOUT) == 128 + signal.SIGTERM, p.stderr.read()
    assert b"Traceback" not in p.stderr.read()
    assert pdf.read_text() == "precious\n"
    assert sorted(q.name for q in tmp_path.iterdir()) == ["r.pdf"]


# ---------------------------------------------------------------- usage
@pytest.mark.parametrize("verb", CONTRADICTIONS)
def test_contradictory_flags_are_refused(tool, real_log, tmp_path, verb):
    out = tmp_path / "o.out"
    r = sh(argv_for(tool, verb, real_log, out, template=CONTRADICTIONS[verb]))
    assert r.returncode == 2, r.stderr
    first = r.stderr.decode().splitlines()[0]
    assert first.startswith(f"iolens {verb}: ") and "Traceback" not in r.stderr.decode()
    assert not out.exists()


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_out_of_range_port_is_a_usage_error(tool, real_log, port):
    r = sh([tool, "explore", "--no-browser", "--port", port, real_log])
    assert r.returncode == 2, r.stderr
    assert r.stderr.decode().splitlines()[0] == (
        f"iolens explore: argument --port: {port} is not a port number (0 to 65535)")


def test_port_in_use_names_the_port(tool, real_log):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = sh([tool, "explore", "--no-browser", "--serve-seconds", "0", "--port", str(port),
                real_log])
    assert (r.returncode, r.stderr.decode()) == (
        1, f"iolens explore: port {port}: Address already in use\n")


def test_every_listed_verb_is_in_the_table(tool):
    verbs = listed_verbs(tool)
    assert len(verbs) >= 14
    assert set(verbs) == set(LOG_VERBS) | OTHER_VERBS, "give each new verb its row above"


@pytest.fixture(scope="module")
def verbs(tool):
    return listed_verbs(tool)


def _version():
    from importlib.metadata import version
    return version("iolens")


def test_help_version_and_unknown_option_on_every_verb(tool, verbs):
    for verb in verbs:
        h = sh([tool, verb, "--help"])
        assert h.returncode == 0 and h.stdout.startswith(f"usage: iolens {verb}".encode()), verb
        v = sh([tool, verb, "--version"])
        assert (v.returncode, v.stdout.decode(), v.stderr) == (
            0, f"iolens {verb} {_version()}\n", b""), verb
        u = sh([tool, verb, "--no-such-option"])
        assert u.returncode == 2, (verb, u.stderr)
        first = u.stderr.decode().splitlines()[0]
        assert first.startswith(f"iolens {verb}: "), (verb, first)
        assert "Traceback" not in u.stderr.decode()


# ---------------------------------------------------------------- merge
def test_merge_of_different_jobs_needs_workflow(tool, runtime, real_log, tmp_path):
    """Two runs of a program are two jobs: merged only with --workflow."""
    logs = tmp_path / "logs"
    logs.mkdir()
    r = sh([tool, "run", "--logpath", logs, "--", "sh", "-c", f"echo x > {tmp_path}/g"],
           env={**os.environ, "IOLENS_RUNTIME": str(runtime)})
    assert r.returncode == 0, r.stderr
    (other,) = logs.rglob("*.darshan")
    import iolens
    ids = []
    for p in (real_log, other):
        with iolens.open(p) as log:
            ids.append(log.job["jobid"])
    assert ids[0] != ids[1]
    out = tmp_path / "m.darshan"
    r = sh([tool, "merge", "-o", out, real_log, other])
    assert r.returncode == 2 and not out.exists()
    (line,) = r.stderr.decode().splitlines()
    assert line == (f"iolens merge: {other}: job id {ids[1]}, not {ids[0]} as {real_log}; "
                    "logs of different jobs are merged with --workflow")
    r = sh([tool, "merge", "--workflow", "-o", out, real_log, other])
    assert r.returncode == 0 and out.exists(), r.stderr
