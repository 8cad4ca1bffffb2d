"""The threaded workloads run clean under ThreadSanitizer, with exact counts.

Needs a ThreadSanitizer build of the runtime, named by IOLENS_TSAN_RUNTIME
(scripts/test.sh builds one in build-tsan/); skipped, saying so, without it."""
import subprocess
from pathlib import Path

import pytest

from rt_helpers import logs_in, run_under, tsan_preload

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def tsan_setup(tmp_path_factory):
    libtsan, lib = tsan_preload()
    exe = tmp_path_factory.mktemp("tsan") / "rtprobe"
    subprocess.run(["cc", "-O1", "-g", "-pthread", "-fsanitize=thread", "-o", str(exe),
                    str(HERE / "progs" / "rtprobe.c")], check=True)
    # The TSan runtime must come first: it has to be set up before our wrappers run.
    return f"{libtsan} {lib}", exe


@pytest.mark.parametrize("mode,threads", [("threads", "8"), ("sthreads", "8"), ("hammer", "8"),
                                          ("hammer", "70"), ("waves", "100")])
def test_threads_clean_under_tsan(tsan_setup, tool, tmp_path, mode, threads):
    preload, exe = tsan_setup
    r = run_under(preload, [exe, mode, tmp_path, threads], tmp_path / "logs", check=False,
                  extra_env={"TSAN_OPTIONS": "halt_on_error=0 exitcode=66"})
    assert "ThreadSanitizer" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-2000:]
    logs = [p for p in logs_in(tmp_path / "logs") if "rtprobe" in p.name]
    assert len(logs) == 1
    text = subprocess.run([str(tool), "parse", str(logs[0])], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    if mode == "threads":
        writes = [l.split("\t") for l in text.stdout.splitlines()
                  if l.startswith("POSIX\t") and "\tPOSIX_WRITES\t" in l]
        assert sum(int(f[4]) for f in writes) == 8 * 200 + 8 * 200   # shared + per-thread files
    if mode == "hammer":   # record locks, by fd and by name, and per-thread heat maps
        writes = [l.split("\t") for l in text.stdout.splitlines()
                  if l.startswith("POSIX\t") and "\tPOSIX_WRITES\t" in l]
        assert sum(int(f[4]) for f in writes) == 2 * int(threads) * 2000
    if mode == "waves":    # heat maps of exited threads taken over (under TSan too)
        written = [l.split("\t") for l in text.stdout.splitlines()
                   if l.startswith("POSIX\t") and "\tPOSIX_BYTES_WRITTEN\t" in l]
        assert sum(int(f[4]) for f in written) == 50 * sum((t % 7 + 1) * 100 for t in range(100))


@pytest.fixture(scope="module")
def tsan_dxt_probe(tsan_setup, tmp_path_factory):
    exe = tmp_path_factory.mktemp("tsan-dxt") / "dxt_probe"
    subprocess.run(["cc", "-O1", "-g", "-pthread", "-fsanitize=thread", "-o", str(exe),
                    str(HERE / "progs" / "dxt_probe.c"), "-lrt"], check=True)
    return exe


@pytest.mark.parametrize("prog", ["rtprobe", "dxt_probe"])
def test_dxt_threads_clean_under_tsan(tsan_setup, tsan_dxt_probe, tool, tmp_path, prog):
    """The 8-thread workloads with DXT tracing on: no report, and every operation of
    the threads is in the trace (`iolens dxt` segment lines per file)."""
    preload, rtprobe = tsan_setup
    if prog == "rtprobe":    # 200 x (write own, pwrite shared), then 200 reads of own
        argv, per_thread, shared = [rtprobe, "threads", tmp_path, "8"], (200, 200), 8 * 200
    else:                    # dxt_probe: the same shape, 300 operations each
        argv, per_thread, shared = [tsan_dxt_probe, "threads", tmp_path, "8", "300"], (300, 300), 8 * 300
    r = run_under(preload, argv, tmp_path / "logs", check=False,
                  extra_env={"TSAN_OPTIONS": "halt_on_error=0 exitcode=66", "DXT_ENABLE_IO_TRACE": ""})
    assert "ThreadSanitizer" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-2000:]
    logs = [p for p in logs_in(tmp_path / "logs") if prog in p.name]
    assert len(logs) == 1
    text = subprocess.run([str(tool), "dxt", str(logs[0])], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    counts, name = {}, None
    for line in text.stdout.splitlines():
        if line.startswith("# DXT, file_name:") or ", file_name: " in line:
            name = Path(line.split("file_name: ", 1)[1]).name
        elif line.startswith(" X_POSIX"):
            op = line.split()[2]
            counts[(name, op)] = counts.get((name, op), 0) + 1
    want = {("shared.dat", "write"): shared}
    for t in range(8):
        want[(f"thread-{t}.dat", "write")], want[(f"thread-{t}.dat", "read")] = per_thread
    assert counts == want


@pytest.fixture(scope="module")
def tsan_lockprobe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("tsan-lock") / "lockprobe"
    subprocess.run(["cc", "-O1", "-g", "-pthread", "-fsanitize=thread", "-o", str(exe),
                    str(HERE / "progs" / "lockprobe.c")], check=True)
    return exe


def test_stream_threads_clean_under_tsan(tsan_setup, tsan_lockprobe, tool, tmp_path):
    """STDIO record locks and the lock-free stream table (test_record_locks.py's
    8-thread stream workload): no report, and the counts are exact."""
    from test_record_locks import check_streams, counters
    preload, _ = tsan_setup
    r = run_under(preload, [tsan_lockprobe, "streams", tmp_path, "8"], tmp_path / "logs",
                  check=False, extra_env={"TSAN_OPTIONS": "halt_on_error=0 exitcode=66"})
    assert "ThreadSanitizer" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-2000:]
    check_streams(counters(tool, tmp_path / "logs"), tmp_path, 8)
