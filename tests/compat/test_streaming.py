"""`iolens parse` and `iolens dxt` stream (issue 19): records and DXT segments are
printed as they are decoded, so memory stays flat as logs grow, and damage part-way
through a region is reported by name after the records before it.

Large logs come from bench's gen_stream_log (built beside iolens); byte-identity
with upstream on them needs /opt/upstream-3.5.0 (skipped with a reason otherwise).
Peak memory is read from the child's rusage (os.wait4), never timed."""
import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from compat_helpers import make_log, run_iolens

UPSTREAM = Path("/opt/upstream-3.5.0/bin")
DXT_POSIX, POSIX = 10, 1


@pytest.fixture(scope="module")
def gen(iolens_bin):
    tool = Path(iolens_bin).resolve().parents[2] / "bench" / "gen_stream_log"
    if not tool.is_file():
        pytest.skip(f"gen_stream_log not built ({tool})")

    def make(path, *args):
        subprocess.run([str(tool), *map(str, args), str(path)], check=True,
                       capture_output=True, timeout=300)
        return path
    return make


def measure(binary, args, timeout=600):
    """(exit status, peak RSS in KiB) of `binary args`, stdout discarded.  GNU time
    (Debian's `time`, in setup.sh) reports it: a child's own rusage would count the
    pages it shared with this Python process before exec."""
    gnu_time = Path("/usr/bin/time")
    if not gnu_time.is_file():
        pytest.skip("GNU time (/usr/bin/time, Debian package `time`) is not installed")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    res = subprocess.run([str(gnu_time), "-f", "maxrss=%M", str(binary), *map(str, args)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         timeout=timeout)
    line = [x for x in res.stderr.decode().splitlines() if x.startswith("maxrss=")][-1]
    return res.returncode, int(line.split("=")[1])


# ---------------------------------------------------------------- bounded memory
def test_dxt_memory_does_not_grow_with_the_trace(iolens_bin, gen, tmp_path):
    """2,000,000 segments (64 MB of payload) are printed in a few MB; a whole-log
    reader held over 100 MB here."""
    small = gen(tmp_path / "small.darshan", "-k", "dxt", "-n", 20000, "-f", 10)
    big = gen(tmp_path / "big.darshan", "-k", "dxt", "-n", 2000000, "-f", 10)
    rc_s, rss_s = measure(iolens_bin, ["dxt", small])
    rc_b, rss_b = measure(iolens_bin, ["dxt", big])
    assert rc_s == 0 and rc_b == 0
    assert rss_b < 16 * 1024, f"peak RSS {rss_b} KiB for 2M segments"
    assert rss_b < rss_s + 4 * 1024, f"peak RSS grew from {rss_s} to {rss_b} KiB"


def test_parse_memory_is_the_names_only(iolens_bin, gen, tmp_path):
    """100,000 POSIX records (70 MB of payload): the counter lines and summaries
    stream; only the names (100,000 of 33 bytes) are held."""
    log = gen(tmp_path / "p.darshan", "-k", "posix", "-n", 100000)
    rc, rss = measure(iolens_bin, ["parse", log])
    assert rc == 0 and rss < 24 * 1024, f"parse: status {rc}, peak RSS {rss} KiB"
    rc, rss = measure(iolens_bin, ["parse", "--total", "--perf", log])
    assert rc == 0 and rss < 8 * 1024, f"parse --total --perf: status {rc}, {rss} KiB"
    rc, rss = measure(iolens_bin, ["parse", "--file", log])
    assert rc == 0 and rss < 24 * 1024, f"parse --file: status {rc}, {rss} KiB"


# ---------------------------------------------------------------- same text as upstream
@pytest.mark.parametrize("mode", [[], ["--total"], ["--file"], ["--perf"],
                                  ["--total", "--file", "--perf"], ["--all"]])
def test_generated_posix_log_matches_darshan_parser(iolens_bin, gen, tmp_path, mode):
    if not (UPSTREAM / "darshan-parser").is_file():
        pytest.skip(f"upstream darshan-parser not found in {UPSTREAM}")
    log = gen(tmp_path / "p.darshan", "-k", "posix", "-n", 3000, "-s", 500, "-z", "bzip2")
    ours = run_iolens(iolens_bin, ["parse", *mode, log])
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    theirs = subprocess.run([str(UPSTREAM / "darshan-parser"), *mode, str(log)],
                            capture_output=True, env=env, timeout=300)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout == theirs.stdout


@pytest.mark.parametrize("comp", ["zlib", "bzip2"])
def test_generated_trace_matches_darshan_dxt_parser(iolens_bin, gen, tmp_path, comp):
    if not (UPSTREAM / "darshan-dxt-parser").is_file():
        pytest.skip(f"upstream darshan-dxt-parser not found in {UPSTREAM}")
    # 150,000 segments in streams of 300 KiB of payload: the 1 MiB window and the
    # 256 KiB input chunks cross stream ends and record ends everywhere
    log = gen(tmp_path / "d.darshan", "-k", "dxt", "-n", 150000, "-f", 7, "-s", 300,
              "-z", comp)
    ours = run_iolens(iolens_bin, ["dxt", log])
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    theirs = subprocess.run([str(UPSTREAM / "darshan-dxt-parser"), str(log)],
                            capture_output=True, env=env, timeout=300)
    assert ours.returncode == theirs.returncode == 0
    assert ours.stdout == theirs.stdout


def test_thread_counts_are_counted_ahead(iolens_bin, gen, tmp_path):
    """DXT_POSIX v2: the thread count printed before each record's segments is the
    number of distinct ids among them (the generator cycles 4 ids; a record of 3
    segments has 3)."""
    log = gen(tmp_path / "t.darshan", "-k", "dxt", "-v", 2, "-n", 40003, "-f", 4)
    out = run_iolens(iolens_bin, ["dxt", log])
    assert out.returncode == 0
    text = out.stdout.decode()
    assert text.count("# DXT, number of threads: 4\n") == 4
    tids = [line.split()[-1] for line in text.splitlines() if line.startswith(" X_POSIX")]
    assert len(tids) == 40003 and set(tids) == {str(140000000000000 + k) for k in range(4)}


# ---------------------------------------------------------------- damage part-way
def dxt_payload(nrec, nseg):
    parts = []
    for i in range(nrec):
        parts.append(struct.pack("<Qqq", 1000 + i, i, 0) + b"host".ljust(64, b"\0"))
        parts.append(struct.pack("<qq", nseg, 0))
        parts.extend(struct.pack("<qqdd", k * 4096, 4096, k * 0.5, k * 0.5 + 0.25)
                     for k in range(nseg))
    return b"".join(parts)


def corrupt_region(path, module, at_fraction):
    """Flip bytes inside the compressed region of `module` (header offsets 48+16*id)."""
    data = bytearray(Path(path).read_bytes())
    off, length = struct.unpack_from("<QQ", data, 48 + 16 * module)
    pos = off + int(length * at_fraction)
    for k in range(16):
        data[pos + k] ^= 0x5A
    Path(path).write_bytes(bytes(data))


def test_dxt_damage_part_way_names_the_region(iolens_bin, tmp_path):
    payload = dxt_payload(20, 2000)
    log = make_log(tmp_path / "d.darshan", {DXT_POSIX: (1, payload)})
    corrupt_region(log, DXT_POSIX, 0.8)
    res = run_iolens(iolens_bin, ["dxt", log])
    err = res.stderr.decode()
    assert res.returncode == 255
    assert "Error: failed to parse DXT_POSIX module record." in err
    assert "DXT_POSIX module region [off" in err and "compressed byte" in err, err
    # the records before the damage were printed, as darshan-dxt-parser prints them
    assert res.stdout.decode().count("# DXT, file_id:") >= 1


def test_dxt_record_cut_short_names_the_record(iolens_bin, tmp_path):
    payload = dxt_payload(3, 100)
    log = make_log(tmp_path / "d.darshan", {DXT_POSIX: (1, payload[:-40])})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert res.returncode == 255
    assert "DXT_POSIX record 2: 100 write + 0 read segments do not fit in the 3160 bytes left" \
        in res.stderr.decode()
    assert res.stdout.decode().count("# DXT, file_id:") == 3


def test_parse_damage_part_way_names_the_region(iolens_bin, gen, tmp_path):
    log = gen(tmp_path / "p.darshan", "-k", "posix", "-n", 30000)
    corrupt_region(log, POSIX, 0.9)
    for mode in ([], ["--total"]):
        res = run_iolens(iolens_bin, ["parse", *mode, log])
        err = res.stderr.decode()
        assert res.returncode == 255
        assert f"iolens parse: {log}: POSIX module: POSIX module region [off" in err, err
        assert "total_POSIX_OPENS" not in res.stdout.decode()


def test_lazy_names_are_still_checked(iolens_bin, tmp_path):
    """--total holds no names, but a name region without its NUL still fails."""
    rec = struct.pack("<Qq", 7, 0) + bytes(8 * (69 + 17))
    log = make_log(tmp_path / "n.darshan", {POSIX: (4, rec)},
                   names={7: "/a/long/name/that/leaves/room/for/the/replacement/region"})
    data = bytearray(log.read_bytes())
    noff, nlen = struct.unpack_from("<QQ", data, 32)
    bad = zlib.compress(struct.pack("<Q", 7) + b"/no-terminator")
    assert len(bad) <= nlen
    data[noff:noff + len(bad)] = bad
    struct.pack_into("<Q", data, 40, len(bad))      # the name region's new length
    log.write_bytes(bytes(data))
    res = run_iolens(iolens_bin, ["parse", "--total", log])
    assert res.returncode == 255
    assert "has no terminating NUL" in res.stderr.decode()


def test_thread_count_beyond_the_set_is_exact(iolens_bin, tmp_path):
    """A record with more distinct thread ids than the counting set holds (2^16) is
    counted exactly, partition by partition, still in bounded memory."""
    nseg = 70000
    head = struct.pack("<Qqq", 77, 0, 0) + b"host".ljust(64, b"\0") + struct.pack("<qq", nseg, 0)
    segs = b"".join(struct.pack("<qqddQ", k * 8, 8, k * 1e-6, k * 1e-6 + 5e-7, 1000 + k)
                    for k in range(nseg))
    # and a second record whose ids repeat: 3 distinct
    head2 = struct.pack("<Qqq", 78, 1, 0) + b"host".ljust(64, b"\0") + struct.pack("<qq", 0, 6)
    segs2 = b"".join(struct.pack("<qqddQ", k, 1, 0.0, 0.0, 5 + k % 3) for k in range(6))
    log = make_log(tmp_path / "t.darshan", {DXT_POSIX: (2, head + segs + head2 + segs2)})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert res.returncode == 0, res.stderr.decode()
    text = res.stdout.decode()
    assert f"# DXT, number of threads: {nseg}\n" in text
    assert "# DXT, number of threads: 3\n" in text


# ---------------------------------------------------------------- logs from a pipe
def test_a_log_from_a_pipe_reads_as_from_its_file(iolens_bin, gen, tmp_path):
    """`xz -dc log.xz | iolens parse /dev/stdin`: a pipe cannot be re-read region by
    region, so it is read whole; the text is the file's, and damage is still named."""
    log = gen(tmp_path / "d.darshan", "-k", "dxt", "-n", 2000, "-f", 4)
    data = log.read_bytes()
    for verb in (["parse"], ["parse", "--total", "--file"], ["dxt"]):
        from_file = subprocess.run([iolens_bin, *verb, str(log)], capture_output=True,
                                   timeout=120, env=dict(os.environ, TZ="UTC"))
        piped = subprocess.run([iolens_bin, *verb, "/dev/stdin"], input=data, capture_output=True,
                               timeout=120, env=dict(os.environ, TZ="UTC"))
        assert from_file.returncode == 0 and piped.returncode == 0, piped.stderr
        assert piped.stdout == from_file.stdout and b"# darshan log version" in piped.stdout
    cut = subprocess.run([iolens_bin, "parse", "/dev/stdin"], input=data[:200], capture_output=True,
                         timeout=120)
    assert cut.returncode != 0 and b"200 bytes" in cut.stderr, cut.stderr
    folder = subprocess.run([iolens_bin, "parse", str(tmp_path)], capture_output=True, timeout=60)
    assert folder.returncode != 0 and b"is a directory" in folder.stderr, folder.stderr
