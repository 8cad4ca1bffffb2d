"""`iolens parse` prints darshan-parser's text byte for byte (log-format spec 9).

For every corpus log, the output of
  iolens parse --show-incomplete LOG                        vs expected/<dir>/<log>.parser.txt.xz
  iolens parse --show-incomplete --total --file --perf LOG  vs expected/<dir>/<log>.summary.txt.xz
must be identical except for lines listed in allowed-parse-deviations.txt (places
where upstream prints a wrong value and we print the right one; each reason is
documented in docs/deviations.md).  The reference outputs were captured with
stderr merged into stdout, so upstream's stderr warnings appear wherever its stdout
buffer happened to be flushed; they are removed from the reference and must appear
on our stderr instead.

Also: exit status (255 for logs with incomplete modules without --show-incomplete),
and clean failures (message on stderr, non-zero exit, no signal) for missing,
truncated and corrupted logs.
"""
import fnmatch
import random
import re
import struct
from pathlib import Path

import pytest

from compat_helpers import (all_corpus_logs, expected_for, log_id, read_expected, run_iolens,
                      REPO)

DEVIATIONS_FILE = Path(__file__).with_name("allowed-parse-deviations.txt")
DOCS = REPO / "docs" / "deviations.md"
STDERR_NOTES = re.compile(
    r"# Warning: no log utility handlers defined for module [^\n]*, SKIPPING\.\n"
    r"|# Warning: module id \d+ is unknown\. You may need a newer version of the "
    r"Darshan utilities to parse it\.\n")
LOGS = all_corpus_logs()
SUMMARY_ARGS = ["--total", "--file", "--perf"]


def load_deviations():
    """Entries: (log glob, kind glob, line matcher, reason)."""
    entries = []
    for raw in DEVIATIONS_FILE.read_text().splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        log_glob, kind, pattern, reason = [f.strip() for f in raw.split("|", 3)]
        if pattern.startswith("re:"):
            rx = re.compile(pattern[3:])
        else:   # a counter name: its counter line or its total_ line
            rx = re.compile(r"(^[^\t]*\t[^\t]*\t[^\t]*\t|^total_)" + re.escape(pattern)
                            + r"[\t:]")
        entries.append((log_glob, kind, rx, reason))
    return entries


DEVIATIONS = load_deviations()


def allowed(log, kind, got, want):
    name = log_id(log)
    for log_glob, kind_glob, rx, _ in DEVIATIONS:
        if fnmatch.fnmatch(name, log_glob) and fnmatch.fnmatch(kind, kind_glob) \
                and rx.search(got) and rx.search(want):
            return True
    return False


def compare(log, kind, got, want):
    """Differing lines not covered by an allowed deviation, as (line no, got, want)."""
    gl, wl = got.split("\n"), want.split("\n")
    bad = [(i + 1, g, w) for i, (g, w) in enumerate(zip(gl, wl))
           if g != w and not allowed(log, kind, g, w)]
    for i in range(min(len(gl), len(wl)), max(len(gl), len(wl))):
        bad.append((i + 1, gl[i] if i < len(gl) else "<missing>",
                    wl[i] if i < len(wl) else "<missing>"))
    return bad


def check_output(iolens_bin, log, kind, args):
    exp = expected_for(log, kind)
    if exp is None:
        pytest.skip(f"no expected {kind} output for {log_id(log)}")
    want = read_expected(exp)
    notes = STDERR_NOTES.findall(want)
    want = STDERR_NOTES.sub("", want)
    res = run_iolens(iolens_bin, ["parse", "--show-incomplete", *args, log])
    assert res.returncode == 0, \
        f"exit {res.returncode}: {res.stderr.decode(errors='replace')[:500]}"
    got = res.stdout.decode("utf-8", "surrogateescape")
    bad = compare(log, kind, got, want)
    shown = "\n".join(f"  line {n}:\n    got:  {g!r}\n    want: {w!r}"
                      for n, g, w in bad[:5])
    assert not bad, f"{len(bad)} line(s) differ from upstream's {kind} output:\n{shown}"
    err = res.stderr.decode(errors="replace")
    for note in notes:
        assert note in err, f"stderr lacks upstream's warning {note!r}"


@pytest.mark.parametrize("log", LOGS, ids=[log_id(p) for p in LOGS])
def test_parser_output(iolens_bin, corpus_logs, log):
    check_output(iolens_bin, log, "parser", [])


@pytest.mark.parametrize("log", LOGS, ids=[log_id(p) for p in LOGS])
def test_summary_output(iolens_bin, corpus_logs, log):
    check_output(iolens_bin, log, "summary", SUMMARY_ARGS)


def partial_flag_set(log):
    """Does the header of a corpus log mark a module incomplete?  Read through
    upstream's expected text: a partial module prints *WARNING* there."""
    exp = expected_for(log, "parser")
    return exp is not None and "contains incomplete data!" in read_expected(exp)


@pytest.mark.parametrize("log", LOGS, ids=[log_id(p) for p in LOGS])
def test_exit_status(iolens_bin, corpus_logs, log):
    res = run_iolens(iolens_bin, ["parse", log])
    if partial_flag_set(log):
        assert res.returncode == 255, "a log with incomplete data must exit 255"
        err = res.stderr.decode(errors="replace")
        assert "*ERROR*" in err and "--show-incomplete" in err, err[:500]
        assert b"*WARNING*" not in res.stdout
    else:
        assert res.returncode == 0, res.stderr.decode(errors="replace")[:500]


def test_deviation_reasons_documented(shared_dir):
    if not DOCS.is_file():
        pytest.fail(f"{DOCS} is missing: every allowed deviation needs its reason there")
    docs = DOCS.read_text()
    missing = sorted({r for *_, r in DEVIATIONS if r not in docs})
    assert not missing, f"reasons not in docs/deviations.md: {missing}"


def test_deviations_all_used(iolens_bin, corpus_logs):
    """Every entry names at least one existing log (stale entries hide regressions)."""
    names = [log_id(p) for p in corpus_logs]
    stale = [g for g, *_ in DEVIATIONS if not any(fnmatch.fnmatch(n, g) for n in names)]
    assert not stale, f"entries matching no corpus log: {stale}"


# ---------------------------------------------------------------- bad input
def assert_clean_failure(res, what):
    assert res.returncode > 0, f"{what}: exit {res.returncode} (want a failure, no signal)"
    err = res.stderr.decode(errors="replace")
    assert "iolens parse: " in err, f"{what}: stderr {err[:300]!r}"


def test_missing_file(iolens_bin, tmp_path):
    res = run_iolens(iolens_bin, ["parse", tmp_path / "nope.darshan"])
    assert_clean_failure(res, "missing file")
    assert "nope.darshan" in res.stderr.decode()


def test_not_a_log(iolens_bin, tmp_path):
    path = tmp_path / "text.darshan"
    path.write_text("this is not a darshan log\n" * 100)
    assert_clean_failure(run_iolens(iolens_bin, ["parse", path]), "text file")


def test_usage_error(iolens_bin):
    res = run_iolens(iolens_bin, ["parse", "--no-such-option", "x"])
    assert res.returncode == 2 and b"usage" in res.stderr


def current_log(corpus_logs):
    """A small 3.41 log (1328-byte header) to patch."""
    for p in corpus_logs:
        if p.stem == "mpi-io-test-x86_64-3.5.0":
            return bytearray(p.read_bytes())
    pytest.skip("corpus log mpi-io-test-x86_64-3.5.0 not found")


def test_unknown_record_version(iolens_bin, corpus_logs, tmp_path):
    data = current_log(corpus_logs)
    struct.pack_into("<I", data, 1072 + 4 * 1, 99)        # mod_ver[POSIX] = 99
    bad = tmp_path / "posix-v99.darshan"
    bad.write_bytes(data)
    res = run_iolens(iolens_bin, ["parse", bad])
    assert_clean_failure(res, "POSIX version 99")
    err = res.stderr.decode()
    assert "POSIX" in err and "99" in err, err


def test_unknown_module_id(iolens_bin, corpus_logs, tmp_path):
    data = current_log(corpus_logs)
    struct.pack_into("<QQ", data, 48 + 16 * 20, 1400, 10)  # a region for module id 20
    struct.pack_into("<I", data, 1072 + 4 * 20, 1)
    path = tmp_path / "module20.darshan"
    path.write_bytes(data)
    res = run_iolens(iolens_bin, ["parse", path])
    assert res.returncode == 0, res.stderr
    assert b"# <UNKNOWN> module (id 20): 10 bytes (compressed), ver=1\n" in res.stdout
    assert b"# Warning: module id 20 is unknown." in res.stderr


def pick_logs(corpus_logs):
    """A few small logs of different versions and byte orders."""
    want = ["mpi-io-test-x86_64-3.5.0", "mpi-io-test-ppc64-3.0.0",
            "mpi-io-test-x86_64-3.1.6", "treddy_h5d_no_h5f"]
    found = [p for p in corpus_logs if p.stem in want]
    if not found:
        pytest.skip("none of the small corpus logs used for corruption tests found")
    return found


def test_truncated_logs(iolens_bin, corpus_logs, tmp_path):
    for log in pick_logs(corpus_logs):
        data = log.read_bytes()
        for cut in sorted({0, 1, 8, 100, 359, 700, 1327, 1400, len(data) // 2,
                           len(data) - 40, len(data) - 1}):
            if not 0 <= cut < len(data):
                continue
            bad = tmp_path / f"{log.stem}.cut{cut}.darshan"
            bad.write_bytes(data[:cut])
            assert_clean_failure(run_iolens(iolens_bin, ["parse", "--all", bad]),
                                 f"{log.name} cut at {cut}")


def test_corrupted_logs(iolens_bin, corpus_logs, tmp_path):
    """Flipped bytes anywhere: either a clean failure or a normal run, never a
    signal; corrupting the magic number always fails."""
    rng = random.Random(1234)
    for log in pick_logs(corpus_logs):
        data = bytearray(log.read_bytes())
        magic = bytearray(data)
        magic[8:16] = b"\xff" * 8
        bad = tmp_path / f"{log.stem}.magic.darshan"
        bad.write_bytes(magic)
        assert_clean_failure(run_iolens(iolens_bin, ["parse", bad]), "bad magic")
        for trial in range(12):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            bad = tmp_path / f"{log.stem}.mut{trial}.darshan"
            bad.write_bytes(mutated)
            res = run_iolens(iolens_bin, ["parse", "--all", bad])
            assert res.returncode >= 0, f"{bad.name}: killed by signal {-res.returncode}"
            if res.returncode == 0 or b"incomplete data" in res.stderr:
                continue   # the flipped bytes were in counters, or set a partial bit
            assert_clean_failure(res, bad.name)


# ---------------------------------------------------------------- convert
def counter_lines(stdout):
    """Counter, total_ and other data lines: everything but comments and blanks
    (headers, regions and version-specific description texts legitimately differ)."""
    return [l for l in stdout.split(b"\n") if l and not l.startswith(b"#")]


@pytest.mark.parametrize("log", LOGS, ids=[log_id(p) for p in LOGS])
def test_convert_keeps_counters(iolens_bin, corpus_logs, log, tmp_path):
    small = log.stat().st_size < 100_000
    for comp in (["--zlib", "--bzip2"] if small else ["--zlib"]):
        out = tmp_path / f"converted{comp}.darshan"
        res = run_iolens(iolens_bin, ["convert", comp, log, out])
        assert res.returncode == 0, res.stderr.decode(errors="replace")[:500]
        orig = run_iolens(iolens_bin, ["parse", "--all", log])
        conv = run_iolens(iolens_bin, ["parse", "--all", out])
        assert conv.returncode == orig.returncode == 0, conv.stderr[:500]
        want = "BZIP2" if comp == "--bzip2" else "ZLIB"
        assert b"# darshan log version: 3.41\n" in conv.stdout
        assert f"# compression method: {want}\n".encode() in conv.stdout
        a, b = counter_lines(orig.stdout), counter_lines(conv.stdout)
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        assert len(a) == len(b) and not diff, \
            f"{comp}: {len(a)} vs {len(b)} lines, {len(diff)} differ; first: {diff[:3]}"


def test_convert_errors(iolens_bin, tmp_path):
    res = run_iolens(iolens_bin, ["convert", tmp_path / "missing.darshan",
                                  tmp_path / "out.darshan"])
    assert res.returncode == 1 and b"iolens convert: " in res.stderr
    assert not (tmp_path / "out.darshan").exists()
    assert run_iolens(iolens_bin, ["convert", "only-one-arg"]).returncode == 2


# ---------------------------------------------------------------- golden runtime logs
def golden_logs():
    d = (REPO / ".." / "shared" / "golden" / "runtime").resolve()
    return sorted(d.glob("*.darshan")) if d.is_dir() else []


GOLDEN = golden_logs()


@pytest.mark.parametrize("log", GOLDEN, ids=[p.stem for p in GOLDEN])
@pytest.mark.parametrize("kind,args", [("txt", []), ("total.txt", SUMMARY_ARGS)])
def test_golden_output(iolens_bin, shared_dir, log, kind, args):
    """Upstream 3.5.0 runtime logs of the reference workloads: byte-identical."""
    exp = log.with_name(f"{log.stem}.{kind}.xz")
    if not exp.is_file():
        pytest.skip(f"no upstream {kind} output for golden log {log.name}")
    want = read_expected(exp)
    # the reference text was made with --show-incomplete (w04 hits the record limit)
    res = run_iolens(iolens_bin, ["parse", "--show-incomplete", *args, log])
    assert res.returncode == 0, res.stderr.decode(errors="replace")[:500]
    got = res.stdout.decode("utf-8", "surrogateescape")
    gl, wl = got.split("\n"), want.split("\n")
    bad = [(i + 1, g, w) for i, (g, w) in enumerate(zip(gl, wl)) if g != w]
    assert len(gl) == len(wl) and not bad, \
        f"{len(bad)} line(s) differ ({len(gl)} vs {len(wl)} lines); first: {bad[:3]}"


# ---------------------------------------------------------------- DFS / DAOS
def build_log(path, modules, names=b"", partial=0):
    """A 3.41 log (spec sections 2.1, 4.1, 5.1): modules maps id -> (version,
    uncompressed payload); names is the raw name region payload."""
    import zlib
    job = struct.pack("<7q", 1000, 1700000000, 0, 1700000010, 0, 2, 42)
    job += b"lib_ver=3.5.0\n".ljust(1024, b"\0")
    job += b"ior -a DFS\nlustre\t/lus\0"
    regions = [zlib.compress(job), zlib.compress(names)]
    ids = sorted(modules)
    regions += [zlib.compress(modules[m][1]) for m in ids]
    offs, pos = [], 1328
    for r in regions:
        offs.append(pos)
        pos += len(r)
    hdr = bytearray(1328)
    hdr[0:4] = b"3.41"
    struct.pack_into("<qBxxxxxxxQQQ", hdr, 8, 6567223, 0, partial, offs[1], len(regions[1]))
    for k, mod in enumerate(ids):
        struct.pack_into("<QQ", hdr, 48 + 16 * mod, offs[k + 2], len(regions[k + 2]))
        struct.pack_into("<I", hdr, 1072 + 4 * mod, modules[mod][0])
    path.write_bytes(bytes(hdr) + b"".join(regions))


def build_daos_log(path):
    """Two DFS records (same id, different ranks) and one DAOS record (spec 7.12,
    7.13); no corpus log has these modules."""
    pool = bytes(range(1, 17))
    cont = bytes(range(0xa0, 0xb0))

    def dfs(rank, chunk):
        ints = [0] * 52
        ints[0] = 2            # DFS_OPENS
        ints[14] = 100         # DFS_BYTES_READ
        ints[47] = chunk       # DFS_CHUNK_SIZE
        return (struct.pack("<Qq", 11, rank) + struct.pack("<52q", *ints)
                + struct.pack("<15d", *([0.5] * 15)) + pool + cont)

    ints = [0] * 64
    ints[23] = 7               # DAOS_NB_OPS
    ints[57] = 3               # DAOS_OBJ_OTYPE
    daos = (struct.pack("<Qq", 22, -1) + struct.pack("<64q", *ints)
            + struct.pack("<15d", *([0.25] * 15)) + pool + bytes(16)
            + struct.pack("<QQ", 5, 6))
    build_log(path, {16: (1, dfs(0, 1024) + dfs(1, 2048)), 17: (1, daos)},
              names=struct.pack("<Q", 11) + b"/dfs/file\0")


def test_dfs_daos_columns_and_totals(iolens_bin, tmp_path):
    log = tmp_path / "daos.darshan"
    build_daos_log(log)
    res = run_iolens(iolens_bin, ["parse", "--all", "--no-uuid", log])
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    assert "DFS\t0\t11\tDFS_OPENS\t2\t/dfs/file\tN/A\tN/A\n" in out
    assert "DAOS\t-1\t22\tDAOS_OBJ_OTYPE\t3\t5.6\tN/A:N/A\tN/A\n" in out
    # --total: copies (last record) for the chunk size, sums for counts, and
    # DAOS_NB_OPS is never folded (upstream behaviour, spec 9.5)
    assert "total_DFS_CHUNK_SIZE: 2048\n" in out
    assert "total_DFS_OPENS: 4\n" in out
    assert "total_DAOS_NB_OPS: 0\n" in out
    assert "total_DAOS_OBJ_OTYPE: 3\n" in out
    uu = run_iolens(iolens_bin, ["parse", log]).stdout.decode()   # uuids by default
    assert uu == run_iolens(iolens_bin, ["parse", "--uuid", log]).stdout.decode()
    pool = "01020304-0506-0708-090a-0b0c0d0e0f10"
    cont = "a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"
    assert f"\t/dfs/file\t{pool}:{cont}\tN/A\n" in uu
    # DAOS prints the uuid pair even when the container uuid is zero
    assert f"\t5.6\t{pool}:00000000-0000-0000-0000-000000000000\tN/A\n" in uu


def test_mdhim_null_and_partial_only(iolens_bin, tmp_path):
    """MDHIM server histogram lines (spec 7.14), the NULL module's warning, and a
    partial bit on a module without data (9.2, 9.3)."""
    mdhim = struct.pack("<Qq5q4d2q", 33, 0, 4, 5, 6, 7, 3, 0.5, 0.25, 0.125, 1.0, 10, 20)
    mdhim += struct.pack("<q", 30)               # MDHIM_SERVERS = 3 values
    null = struct.pack("<Qq2q2d", 44, 0, 1, 2, 0.5, 0.5)
    log = tmp_path / "mdhim.darshan"
    build_log(log, {0: (1, null), 12: (1, mdhim)},
              names=struct.pack("<Q", 33) + b"total-mdhim-obj-stats\0",
              partial=1 << 9)                    # STDIO incomplete, no STDIO data
    res = run_iolens(iolens_bin, ["parse", "--show-incomplete", log])
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    for k, v in enumerate((10, 20, 30)):
        assert f"MDHIM\t0\t33\tMDHIM_SERVER_{k}\t{v}\ttotal-mdhim-obj-stats\t" in out
    assert "MDHIM\t0\t33\tMDHIM_F_GET_MAX_DURATION\t1.000000\t" in out
    assert "# STDIO module: 0 bytes (compressed), ver=0\n" in out
    assert "# *WARNING*: The STDIO module contains incomplete data!" in out
    assert b"no log utility handlers defined for module NULL, SKIPPING." in res.stderr
    res = run_iolens(iolens_bin, ["parse", log])
    assert res.returncode == 255 and b"*ERROR*: The STDIO module" in res.stderr
