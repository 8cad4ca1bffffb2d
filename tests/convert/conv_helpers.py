"""Running `iolens convert`/`keygen`/`merge` and reading their output back."""
import subprocess
import zlib
from pathlib import Path


def run(tool, *args, check=True, timeout=120):
    r = subprocess.run([str(tool), *map(str, args)], capture_output=True, text=True,
                       timeout=timeout)
    if check:
        assert r.returncode == 0, f"iolens {' '.join(map(str, args))}: {r.stderr}"
    return r


def job_start(path):
    import iolens
    with iolens.open(path) as lg:
        return lg.job["start_time_sec"], lg.job["start_time_nsec"]


def start_shifts(paths, merged=None):
    """Each log's start in seconds after the earliest one's (or after the start of
    the `merged` log: the earliest of all its inputs), computed as merge computes
    the shift it moves that log's times by (docs/convert.md)."""
    starts = [job_start(p) for p in paths]
    s0, n0 = job_start(merged) if merged else min(starts)
    return [float(s - s0) + float(n - n0) * 1e-9 for s, n in starts]


def record_lines(tool, log):
    """The counter lines of `iolens parse` (module, rank, id, counter, value, name,
    mount, fs type), as tuples; comments and blank lines dropped."""
    out = run(tool, "parse", log).stdout
    return [tuple(l.split("\t")) for l in out.splitlines() if l and not l.startswith("#")]


def dxt_lines(tool, log):
    out = run(tool, "dxt", log, check=False).stdout
    return [l for l in out.splitlines() if l and not l.startswith("#")]


def keygen(tool, path):
    run(tool, "keygen", path)
    return Path(path)


def region_streams(path, offset, length):
    """Decompress a region of concatenated zlib streams: (payload, number of streams)."""
    data = Path(path).read_bytes()[offset:offset + length]
    out, n = b"", 0
    while data:
        d = zlib.decompressobj()
        out += d.decompress(data)
        data = d.unused_data
        n += 1
    return out, n
