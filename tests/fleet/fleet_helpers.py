"""Shared helpers of the fleet tests: corpus location, generated and damaged
logs, and running `iolens fleet` as a subprocess with a bounded wait."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = (REPO / ".." / "shared" / "corpus" / "logs").resolve()

# A facility config for the generated logs (synth.MOUNTS).
CONFIG = """
[classes]
scratch = ["/lus/scratch"]
home = ["/home"]
node-local = ["/tmp"]
"""


def corpus_logs() -> list:
    return sorted(str(p) for p in CORPUS.glob("**/*.darshan")) if CORPUS.is_dir() else []


def need_corpus() -> list:
    logs = corpus_logs()
    if not logs:
        pytest.skip(f"log corpus not found at {CORPUS} (needs ../shared beside the repo)")
    return logs


def fleet(*args, timeout=300, check=True):
    run = subprocess.run([sys.executable, "-m", "iolens.fleet.cli", *map(str, args)],
                         capture_output=True, text=True, timeout=timeout)
    if check:
        assert run.returncode == 0, run.stderr
    return run


def write_config(directory: Path) -> str:
    path = directory / "facility.toml"
    path.write_text(CONFIG)
    return str(path)


def damaged_logs(directory: Path, good: str) -> dict:
    """Bad logs made from a good one: name -> expected reason fragment."""
    data = Path(good).read_bytes()
    os.makedirs(directory, exist_ok=True)
    cases = {
        "truncated.darshan": data[: len(data) // 2],
        "header-only.darshan": data[:40],
        "empty.darshan": b"",
        "garbage.darshan": b"this is not a darshan log at all\n" * 20,
        "flipped.darshan": data[:200] + bytes(b ^ 0xFF for b in data[200:400]) + data[400:],
    }
    for name, content in cases.items():
        (directory / name).write_bytes(content)
    return {str(directory / n): n for n in cases}


def write_log(path, *, names=("/lus/scratch/u1/out.0",), exe="/opt/apps/app/bin/app -i in",
              jobid=7, partial=0, bytes_read=4096, nprocs=1, compression="zlib") -> str:
    """A small log written with iolens.Writer: one POSIX record per name and
    rank 0, `bytes_read` bytes read in each, the job values given."""
    import numpy as np
    from iolens._meta import module_info, record_id
    from iolens.write import Writer
    info = module_info("POSIX")
    ids = [record_id(n) for n in names]
    ints = np.zeros((len(names), len(info.counters)), np.int64)
    ints[:, info.counters.index("POSIX_BYTES_READ")] = bytes_read
    ints[:, info.counters.index("POSIX_READS")] = 1
    # a consistent record (the view sets inconsistent ones aside as damage):
    # the one read in its size bin, its extent covering its bytes
    ints[:, info.counters.index("POSIX_SIZE_READ_" + _size_bin(bytes_read))] = 1
    ints[:, info.counters.index("POSIX_MAX_BYTE_READ")] = max(bytes_read - 1, 0)
    with Writer(str(path), compression=compression) as w:
        w.set_job(uid=1000, start_time_sec=1_750_000_000, end_time_sec=1_750_000_060,
                  nprocs=nprocs, jobid=jobid, exe=exe, mounts=[("/lus/scratch", "lustre")])
        w.add_names(ids, list(names))
        w.put_records("POSIX", ids, [0] * len(names), ints,
                      np.zeros((len(names), len(info.fcounters))))
        if partial:
            w.set_partial(partial)
    return str(path)


def _size_bin(size: int) -> str:
    """The POSIX access-size histogram bin of one access of `size` bytes."""
    bins = ((100, "0_100"), (1 << 10, "100_1K"), (10 << 10, "1K_10K"), (100 << 10, "10K_100K"),
            (1 << 20, "100K_1M"), (4 << 20, "1M_4M"), (10 << 20, "4M_10M"),
            (100 << 20, "10M_100M"), (1 << 30, "100M_1G"))
    return next((name for top, name in bins if size < top), "1G_PLUS")


def write_non_utf8_log(path) -> str:
    """A valid log whose file name and command line hold the byte 0xFF (not
    UTF-8), given to iolens.Writer as surrogateescape text, as the reader gives it."""
    return write_log(path, names=("/lus/scratch/u1/bad\udcffname",), exe="/opt/bad\udcffexe -x")
