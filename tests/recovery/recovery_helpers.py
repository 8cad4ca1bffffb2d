"""Running programs under the runtime with their own log and safety-copy
directories, recovering, and reading counters back through `iolens parse`."""
import os
import subprocess
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def env_for(runtime, logdir, mmapdir, extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DARSHAN_", "DXT_", "IOLENS_"))}
    env.update({"LD_PRELOAD": str(runtime), "DARSHAN_ENABLE_NONMPI": "1",
                "DARSHAN_LOGPATH": str(logdir), "DARSHAN_MMAP_LOGPATH": str(mmapdir)})
    env.update(extra or {})
    return env


def dirs(tmp_path):
    logdir, mmapdir = tmp_path / "logs", tmp_path / "mmap"
    logdir.mkdir()
    mmapdir.mkdir()
    return logdir, mmapdir


def build(src, out):
    subprocess.run(["cc", "-O1", "-o", str(out), str(HERE / "progs" / src)], check=True)
    return out


def logs(d):
    return sorted(p for p in Path(d).rglob("*.darshan"))


def safety_copies(d):
    return sorted(Path(d).glob("*_mmap-log-*.darshan"))


def wait_gone(copies, timeout=60.0):
    """Wait (bounded) until the processes that own `copies` have died: a launcher
    may return while a rank it signalled is still dying, and `iolens recover`
    rightly refuses the copy of a live process.  The pid is the number after the
    job id in the copy's name (<rank>_<exe>_id<jobid>-<pid>_mmap-log-...)."""
    import re
    import time
    pids = {int(m.group(1)) for c in copies
            if (m := re.search(r"_id\d+-(\d+)_mmap-log-", c.name))}
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("Z", "X"):
                alive.append(pid)
        if not alive:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes {sorted(pids)} still alive after {timeout} s")


def recover(tool, copies, logdir):
    r = subprocess.run([str(tool), "recover", "--logdir", str(logdir)] + [str(c) for c in copies],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def counters(tool, log):
    """{(module, file name, rank): {counter: value}} and the header lines, from
    `iolens parse` (which must succeed: the log is valid)."""
    r = subprocess.run([str(tool), "parse", str(log)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{log}: {r.stderr}"
    out = defaultdict(dict)
    head = {}
    for line in r.stdout.splitlines():
        if line.startswith("# ") and ": " in line:
            k, v = line[2:].split(": ", 1)
            head[k] = head[k] + "\n" + v if k in head else v
            continue
        f = line.split("\t")
        if len(f) >= 6 and not line.startswith("#"):
            v = float(f[4]) if "." in f[4] or "e" in f[4] else int(f[4])
            out[(f[0], f[5], int(f[1]))][f[3]] = v
    return out, head


def by_file(recs, module, name):
    """The records of one file (any rank)."""
    return [v for (m, n, _), v in recs.items() if m == module and n == name]


def file_records(tool, logdir, module, name):
    """The records of one file in every log under logdir."""
    return [rec for log in logs(logdir) for rec in by_file(counters(tool, log)[0], module, name)]


def one_log_with_all_files(tool, run, logdir, mmapdir, nfiles=64):
    """Recover what is left; then exactly one log, holding each of the files
    run/data.<i> (i < nfiles) once (the probes of progs/probe_io.h).  Returns the
    log's records."""
    left = safety_copies(mmapdir)
    if left:
        recover(tool, left, logdir)
    assert safety_copies(mmapdir) == []
    found = logs(logdir)
    assert len(found) == 1, found
    recs, _ = counters(tool, found[0])
    for i in range(nfiles):
        r = by_file(recs, "POSIX", str(Path(run) / f"data.{i}"))
        assert len(r) == 1 and r[0]["POSIX_OPENS"] == 1, (i, r)
    return recs
