"""`iolens dxt` prints darshan-dxt-parser's text byte for byte (log-format spec 10).

For every corpus log with an upstream reference `expected/<dir>/<log>.dxt.txt.xz`
(captured with `darshan-dxt-parser --show-incomplete`, TZ=UTC), the output of
`iolens dxt --show-incomplete LOG` must be identical, except for lines listed in
allowed-dxt-deviations.txt (places where upstream prints a wrong value and we
print the right one, each documented in docs/deviations.md, section DXT).

Synthetic logs (built from the spec by compat_helpers.make_log) cover what the corpus
lacks: thread ids (DXT_POSIX v2), Lustre striping beside DXT_POSIX, DXT_MPIIO v1,
and hostile or cut records, which must fail cleanly.
"""
import fnmatch
import re
import struct
from pathlib import Path

import pytest

from compat_helpers import (all_corpus_logs, expected_for, log_id, make_log, read_expected,
                      run_iolens, REPO)

ALLOW_FILE = Path(__file__).with_name("allowed-dxt-deviations.txt")
DOCS = REPO / "docs" / "deviations.md"
DXT_LOGS = [log for log in all_corpus_logs() if expected_for(log, "dxt")]
OTHER_LOGS = [log for log in all_corpus_logs() if not expected_for(log, "dxt")]

DXT_POSIX, DXT_MPIIO, LUSTRE = 10, 11, 8
SEG_FMT = "%8s%8d%7s%9d%16d%16d%12.4f%12.4f"


def load_allowed():
    """Entries (log glob on <dir>/<stem>, compiled line regex, reason)."""
    entries = []
    for raw in ALLOW_FILE.read_text().splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        log_glob, pattern, reason = [f.strip() for f in raw.split("|", 2)]
        entries.append((log_glob, re.compile(pattern), reason))
    return entries


def differing_lines(log, got, want, allowed):
    """(line number, ours, upstream) for every difference no allowed entry covers."""
    gl, wl = got.split("\n"), want.split("\n")
    name = log_id(log)
    rules = [rx for g, rx, _ in allowed if fnmatch.fnmatch(name, g)]
    bad = [(i + 1, g, w) for i, (g, w) in enumerate(zip(gl, wl))
           if g != w and not any(rx.search(g) and rx.search(w) for rx in rules)]
    for i in range(min(len(gl), len(wl)), max(len(gl), len(wl))):
        bad.append((i + 1, gl[i] if i < len(gl) else "<missing>",
                    wl[i] if i < len(wl) else "<missing>"))
    return bad


def test_allowed_deviations_are_documented():
    docs = DOCS.read_text()
    assert "## DXT" in docs, "docs/deviations.md lacks its DXT section"
    for log_glob, _, reason in load_allowed():
        assert reason in docs, f"reason for {log_glob} not in docs/deviations.md: {reason}"


@pytest.mark.parametrize("log", DXT_LOGS, ids=log_id)
def test_dxt_matches_upstream(iolens_bin, log):
    want = read_expected(expected_for(log, "dxt"))
    res = run_iolens(iolens_bin, ["dxt", "--show-incomplete", log])
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    got = res.stdout.decode("utf-8", errors="surrogateescape")
    bad = differing_lines(log, got, want, load_allowed())
    shown = "\n".join(f"  line {n}:\n    ours:     {g!r}\n    upstream: {w!r}"
                      for n, g, w in bad[:5])
    assert not bad, f"{log_id(log)}: {len(bad)} differing lines\n{shown}"


def test_corpus_has_dxt_references(corpus_logs):
    if not DXT_LOGS:
        pytest.skip("no expected .dxt.txt.xz files in the corpus")
    assert len(DXT_LOGS) >= 1


@pytest.mark.parametrize("log", OTHER_LOGS, ids=log_id)
def test_logs_without_dxt(iolens_bin, log):
    """Every other corpus log reads cleanly; without DXT data it says so."""
    res = run_iolens(iolens_bin, ["dxt", "--show-incomplete", log])
    assert res.returncode == 0, res.stderr.decode(errors="replace")
    out = res.stdout.decode(errors="replace")
    assert "\n# darshan log version: " in "\n" + out
    if "# DXT_POSIX module:" not in out and "# DXT_MPIIO module:" not in out:
        assert out.endswith("\n# no DXT module data available for this Darshan log.\n")


def test_partial_module_without_show_incomplete(iolens_bin, corpus_logs):
    logs = [log for log in corpus_logs if log.stem == "partial_data_dxt"]
    if not logs:
        pytest.skip("corpus log partial_data_dxt not present")
    res = run_iolens(iolens_bin, ["dxt", logs[0]])
    err = res.stderr.decode()
    assert res.returncode == 255
    assert "# *ERROR*: The DXT_POSIX module contains incomplete data!" in err
    assert "option to darshan-dxt-parser." in err
    assert "# DXT, file_id:" not in res.stdout.decode()


# ---------------------------------------------------------------- clean failures
def assert_clean_failure(res, *needles):
    assert res.returncode > 0, f"status {res.returncode} (negative = killed by a signal)"
    err = res.stderr.decode(errors="replace")
    assert err.strip(), "no message on stderr"
    assert "AddressSanitizer" not in err and "runtime error" not in err, err
    for needle in needles:
        assert needle in err, err


def test_missing_file(iolens_bin, tmp_path):
    assert_clean_failure(run_iolens(iolens_bin, ["dxt", tmp_path / "nope.darshan"]))


def test_usage_errors(iolens_bin):
    assert_clean_failure(run_iolens(iolens_bin, ["dxt"]), "usage")
    assert_clean_failure(run_iolens(iolens_bin, ["dxt", "--bogus", "x"]), "usage")


def test_truncated_corpus_logs(iolens_bin, tmp_path):
    if not DXT_LOGS:
        pytest.skip("no DXT corpus logs")
    for log in DXT_LOGS[:4]:
        data = log.read_bytes()
        for cut in (100, 1328 + 10, len(data) // 2, len(data) - 7):
            bad = tmp_path / f"cut{cut}.darshan"
            bad.write_bytes(data[:cut])
            res = run_iolens(iolens_bin, ["dxt", "--show-incomplete", bad])
            assert_clean_failure(res)


# ---------------------------------------------------------------- synthetic logs
def dxt_record(rid, rank, host, segs, nwrite, seg_size=32, counts=None):
    """A DXT record; segs = [(offset, length, start, end, thread id)]."""
    wc, rc = counts if counts else (nwrite, len(segs) - nwrite)
    rec = struct.pack("<Qqq", rid, rank, 0) + host.encode().ljust(64, b"\0")
    rec += struct.pack("<qq", wc, rc)
    for off, length, t0, t1, tid in segs:
        rec += struct.pack("<qqdd", off, length, t0, t1)
        if seg_size == 40:
            rec += struct.pack("<Q", tid)
    return rec


def lustre_record(rid, rank, comps, osts):
    """comps = [(size, count, pattern, flags, ext_start, ext_end, mirror, pool)]."""
    rec = struct.pack("<Qqqq", rid, rank, len(comps), len(osts))
    for *counters, pool in comps:
        rec += struct.pack("<7q", *counters) + pool.encode().ljust(16, b"\0")
    return rec + struct.pack(f"<{len(osts)}q", *osts)


FILE_ID = 0x1234_5678_9ABC_DEF0
MiB = 1 << 20


def test_threads_and_lustre_striping(iolens_bin, tmp_path):
    """DXT_POSIX v2 (thread ids) beside a PFL Lustre layout: upstream main's layout,
    with the OST list of each segment computed by the rule of spec section 10."""
    decoy = lustre_record(FILE_ID, 1, [(MiB, 1, 0, 0, 0, -1, -1, "")], [99])
    layout = lustre_record(FILE_ID, 0, [
        (MiB, 2, 0, 0, 0, 4 * MiB, -1, "pool1"),
        (2 * MiB, 1, 0, 0, 4 * MiB, -1, -1, ""),
        (-1, 0, -1, -1, -1, -1, -1, ""),            # unused slot: truncated away
    ], [7, 9, 3])
    segs = [(0, 3 * MiB, 0.5, 0.75, 11), (5 * MiB, 1000, 1.0, 1.25, 12),
            (4 * MiB - 304, 1000, 2.0, 2.5, 11)]
    log = make_log(tmp_path / "lustre.darshan", {
        LUSTRE: (2, decoy + layout),
        DXT_POSIX: (2, dxt_record(FILE_ID, 0, "node1", segs, 2, seg_size=40)),
    }, names={FILE_ID: "/lus/run/file.dat"}, mounts=(("ext4", "/"), ("lustre", "/lus")))
    res = run_iolens(iolens_bin, ["dxt", log])
    assert res.returncode == 0, res.stderr.decode()
    lines = res.stdout.decode().split("\n")
    start = lines.index(f"# DXT, file_id: {FILE_ID}, file_name: /lus/run/file.dat")
    osts = [" [7] [9]", " [3]", " [9] [3]"]
    want = [
        "# DXT, rank: 0, hostname: node1",
        "# DXT, number of threads: 2",
        "# DXT, write_count: 2, read_count: 1",
        "# DXT, mnt_pt: /lus, fs_type: lustre",
        "# DXT, Lustre stripe components:",
        "#\t[Component 1] stripe_ext: 0 - 4194304, stripe_size: 1048576, "
        "stripe_count: 2, OSTs: 7 9",
        "#\t[Component 2] stripe_ext: 4194304 - EOF, stripe_size: 2097152, "
        "stripe_count: 1, OSTs: 3",
        "# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)"
        "      End(s)   [OST]   Pthread-ID",
    ]
    for k, (seg, ost) in enumerate(zip(segs, osts)):
        kind, num = ("write", k) if k < 2 else ("read", k - 2)
        want.append(SEG_FMT % ("X_POSIX", 0, kind, num, seg[0], seg[1], seg[2], seg[3])
                    + "  " + ost + "  " + " %4d" % seg[4])
    assert lines[start + 1:start + 1 + len(want)] == want


def test_mpiio_v1_offsets_unknown(iolens_bin, tmp_path):
    segs = [(4096, 100, 0.25, 0.5, 0), (8192, 200, 0.75, 1.0, 0)]
    log = make_log(tmp_path / "mpiio1.darshan", {
        DXT_MPIIO: (1, dxt_record(FILE_ID, 3, "h", segs, 1)),
    }, names={FILE_ID: "/data/x"})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert res.returncode == 0, res.stderr.decode()
    out = res.stdout.decode().split("\n")
    assert SEG_FMT % ("X_MPIIO", 3, "write", 0, -1, 100, 0.25, 0.5) in out
    assert SEG_FMT % ("X_MPIIO", 3, "read", 0, -1, 200, 0.75, 1.0) in out
    assert "# DXT, mnt_pt: /, fs_type: ext4" in out
    assert "# DXT, number of threads: 1" not in out


def test_record_without_name(iolens_bin, tmp_path):
    log = make_log(tmp_path / "noname.darshan", {
        DXT_POSIX: (1, dxt_record(77, 0, "h", [(0, 1, 0.0, 0.1, 0)], 1)),
    })
    res = run_iolens(iolens_bin, ["dxt", log])
    out = res.stdout.decode().split("\n")
    assert "# DXT, file_id: 77, file_name: (null)" in out
    assert "# DXT, mnt_pt: UNKNOWN, fs_type: UNKNOWN" in out
    assert SEG_FMT % ("X_POSIX", 0, "write", 0, 0, 1, 0.0, 0.1) + "   " in out


@pytest.mark.parametrize("counts", [(1 << 62, 0), (0, 1 << 62), (-1, 1), (2, 0),
                                    ((1 << 63) - 1, (1 << 63) - 1)])
def test_hostile_segment_counts(iolens_bin, tmp_path, counts):
    """Counts that the bytes left cannot hold: a clear error, no allocation attempt."""
    good = dxt_record(5, 0, "h", [(0, 1, 0.0, 0.1, 0)], 1)
    bad = dxt_record(6, 0, "h", [(0, 1, 0.0, 0.1, 0)], 1, counts=counts)
    log = make_log(tmp_path / "hostile.darshan", {DXT_POSIX: (1, good + bad)})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert_clean_failure(res, "Error: failed to parse DXT_POSIX module record.",
                         "DXT_POSIX record 1")
    assert res.returncode == 255


def test_short_trailing_bytes_end_the_module(iolens_bin, tmp_path):
    """Fewer bytes than a record header after the last record: end of module (3.3)."""
    rec = dxt_record(5, 0, "h", [(0, 1, 0.0, 0.1, 0)], 1)
    log = make_log(tmp_path / "tail.darshan", {DXT_POSIX: (1, rec + bytes(50))})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert res.returncode == 0, res.stderr.decode()
    assert res.stdout.decode().count("# DXT, file_id: 5,") == 1


def test_unknown_dxt_version(iolens_bin, tmp_path):
    rec = dxt_record(5, 0, "h", [], 0)
    log = make_log(tmp_path / "v9.darshan", {DXT_POSIX: (9, rec)})
    res = run_iolens(iolens_bin, ["dxt", log])
    assert_clean_failure(res)
