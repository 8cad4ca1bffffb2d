"""The streaming export (issue 29): with budgets of a few hundred rows, so the
trace goes through several chunks, run files and sorted pieces, a generated
trace with overlapping operations in one lane, MPI-IO calls over their POSIX
operations, ties, zero-length operations and damaged segments is exported
whole and correct; the selection flags cut it as `iolens dxt` would; the
partial flag and the damage are carried; the C encoder equals the reference
encoder field by field; peak memory stays bounded on a few million segments."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest

import iolens
from explore_helpers import dxt_totals
from iolens import _core
from iolens.export import chrome_json, perfetto
from iolens.export.cli import main as export_main
from iolens.export.model import Export
from iolens.export.protowire import f_bytes, f_int
from iolens.export.source import Selection
from iolens.write import Writer
from test_explore_export import json_readback, perfetto_readback

NAMES = [f"/scratch/job/part{i}.h5" for i in range(5)] + ["/home/u/notes.txt"]
TINY = {"chunk_rows": 97, "sort_rows": 300}


def _ops(rng, n, t0, t1, dur=0.02):
    start = np.sort(rng.uniform(t0, t1, n))
    return {"offset": rng.integers(0, 1 << 30, n), "length": rng.integers(1, 1 << 20, n),
            "start": start, "end": start + rng.uniform(0, dur, n)}


def write_log(path, damaged=True, partial=0):
    """4 ranks.  POSIX: per rank 3 files read and written at once (overlaps in
    one lane), 40 operations at exactly 1.5 s, zero-length ones; MPI-IO: calls
    each containing the POSIX operation placed inside it.  Damaged POSIX
    segments (NaN, inf, negative, end before start, after the run) when asked."""
    rng = np.random.default_rng(29)
    ids = [iolens.record_id(n) for n in NAMES]
    recs, cols = [], defaultdict(list)
    for r in range(4):
        for k in range(3):
            f = (r + k) % len(NAMES)
            seg = _ops(rng, 150, 0.0, 9.0)
            seg["start"][:10] = 1.5
            seg["end"][:10] = 1.5 + rng.uniform(0, 0.02, 10)
            seg["end"][10:15] = seg["start"][10:15]          # zero length
            recs.append((ids[f], r, 80, 70))
            for c, v in seg.items():
                cols[c].append(v)
    mp_recs, mp = [], defaultdict(list)
    # the MPI-IO calls: around the first 30 POSIX operations of each rank's first file
    for r in range(4):
        s, e = cols["start"][3 * r][20:50], cols["end"][3 * r][20:50]
        mp_recs.append((ids[r % len(NAMES)], r, 30, 0))
        mp["start"].append(s - 1e-4)
        mp["end"].append(e + 1e-4)
        mp["offset"].append(cols["offset"][3 * r][20:50])
        mp["length"].append(cols["length"][3 * r][20:50])
    posix = {c: np.concatenate(v) for c, v in cols.items()}
    if damaged:
        posix["start"][[3, 400]] = [np.nan, -1.0]
        posix["end"][[700, 900]] = [np.inf, posix["start"][900] - 1]
        posix["end"][1000] = 500.0                            # after the 10 s run
    with Writer(path) as w:
        w.set_job(nprocs=4, jobid=29, end_time_sec=10, exe="/bin/app")
        w.add_names(ids, NAMES)
        w.put_dxt("DXT_POSIX", [i for i, *_ in recs], [r for _, r, *_ in recs],
                  ["nid0"] * len(recs), [a for *_, a, _ in recs], [b for *_, b in recs], **posix)
        w.put_dxt("DXT_MPIIO", [i for i, *_ in mp_recs], [r for _, r, *_ in mp_recs],
                  ["nid0"] * 4, [30] * 4, [0] * 4,
                  **{c: np.concatenate(v) for c, v in mp.items()})
        if partial:
            w.set_partial(partial)
    return path


def export_both(log, tmp_path, selection=Selection(), sizes=TINY):
    pf, js = tmp_path / "t.pftrace", tmp_path / "t.json"
    with iolens.open(log) as lg:
        ex = Export(lg, selection, **sizes)
        with open(pf, "wb") as out:
            perfetto.write(ex, out)
        ex = Export(lg, selection, **sizes)
        with open(js, "wb") as out:
            chrome_json.write(ex, out)
    return perfetto_readback(pf), json_readback(js)


def test_small_budgets_export_everything_in_order(tmp_path):
    log = write_log(tmp_path / "a.darshan", damaged=False)
    (got, facts), (got_js, doc) = export_both(log, tmp_path)
    assert got == got_js == dxt_totals(log)
    # several pieces, overlaps, MPI-IO parents: the readbacks checked the nesting
    assert facts["meta"]["partial"] == "no"
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"}
    assert "I/O (overlap 2)" in names, "three files at once in one rank: three tracks"


def test_damaged_segments_skipped_and_noted(tmp_path, capsys):
    log = write_log(tmp_path / "d.darshan")
    with iolens.open(log) as lg:
        want = len(lg.dxt("DXT_POSIX")) + len(lg.dxt("DXT_MPIIO")) - 5
    (got, facts), (got_js, doc) = export_both(log, tmp_path)
    assert sum(v[0] for v in got.values()) == want
    assert got == got_js
    note = facts["meta"]["damage"]
    assert "DXT_POSIX: 5 damaged segments skipped" in note
    assert "bad-time 3" in note and "end-before-start 1" in note and "after-run 1" in note
    assert doc["metadata"]["damage"] == note
    for e in doc["traceEvents"]:
        if "ts" in e:
            assert np.isfinite(e["ts"]) and 0 <= e["ts"] < 2 ** 62 / 1e3
    assert export_main([str(log), "-o", str(tmp_path / "c.pftrace")]) == 0
    assert "5 damaged segments skipped" in capsys.readouterr().err


def test_times_beyond_int64_nanoseconds_are_set_aside(tmp_path):
    """Without a run time the view cannot call an end "after the run": a time
    of 1e300 s must still never become a timestamp (it was -2^63)."""
    rng = np.random.default_rng(3)
    seg = _ops(rng, 50, 0, 5)
    seg["end"][7] = 1e300
    path = tmp_path / "far.darshan"
    with Writer(path) as w:
        w.set_job(nprocs=1, jobid=1, exe="/bin/x")       # no end time: run time 0
        w.add_names([iolens.record_id(NAMES[0])], NAMES[:1])
        w.put_dxt("DXT_POSIX", [iolens.record_id(NAMES[0])], [0], ["n"], [25], [25], **seg)
    (got, facts), (_, doc) = export_both(path, tmp_path)
    assert sum(v[0] for v in got.values()) == 49
    assert "bad-time 1" in facts["meta"]["damage"]
    assert max(e.get("ts", 0) + e.get("dur", 0) for e in doc["traceEvents"]) < 10e6


def test_partial_flag_in_both_formats(tmp_path, capsys):
    from iolens._meta import module_info
    log = write_log(tmp_path / "p.darshan", damaged=False,
                    partial=1 << module_info("DXT_POSIX").id)
    (_, facts), (_, doc) = export_both(log, tmp_path)
    assert facts["meta"]["partial"] == doc["metadata"]["partial"] == "yes: DXT_POSIX"
    assert export_main([str(log), "--format", "json", "-o", str(tmp_path / "p.json")]) == 0
    assert "the log is partial (DXT_POSIX)" in capsys.readouterr().err


def _dxt_rows(log):
    """(module, rank, op, start, end, name) of every undamaged segment."""
    rows = []
    with iolens.open(log) as lg:
        for mod, label in (("DXT_POSIX", "POSIX"), ("DXT_MPIIO", "MPI-IO")):
            d = lg.dxt(mod)
            for r in d.itertuples():
                rows.append((label, int(r.rank), "write" if r.op == "write" else "read",
                             r.start, r.end, r.name, int(r.length)))
    return rows


@pytest.mark.parametrize("args,keep", [
    (["--time", "2:4.5"], lambda m, r, o, s, e, n: e >= 2 and s <= 4.5),
    (["--time", "8:"], lambda m, r, o, s, e, n: e >= 8),
    (["--ranks", "0,2-3"], lambda m, r, o, s, e, n: r in (0, 2, 3)),
    (["--files", "/scratch/*part[13].h5"], lambda m, r, o, s, e, n: n.endswith(("1.h5", "3.h5"))),
    (["--ranks", "1", "--time", ":3", "--files", "*.h5"],
     lambda m, r, o, s, e, n: r == 1 and s <= 3),
])
def test_selection_flags(tmp_path, args, keep):
    log = write_log(tmp_path / "s.darshan", damaged=False)
    want = defaultdict(lambda: [0, 0])
    for m, r, o, s, e, n, size in _dxt_rows(log):
        if keep(m, r, o, s, e, n):
            want[(m, r, o)][0] += 1
            want[(m, r, o)][1] += size
    want = {k: tuple(v) for k, v in want.items()}
    assert want and want != dxt_totals(log)
    pf, js = tmp_path / "s.pftrace", tmp_path / "s.json"
    assert export_main([str(log), "-o", str(pf)] + args) == 0
    assert export_main([str(log), "--format", "json", "-o", str(js)] + args) == 0
    got, facts = perfetto_readback(pf)
    assert got == want
    assert json_readback(js)[0] == want
    assert facts["meta"]["selection"]


@pytest.mark.parametrize("bad", [["--time", "5"], ["--time", "4:2"], ["--time", "x:1"],
                                 ["--ranks", "3-1"], ["--ranks", "a"]])
def test_bad_selection_is_a_usage_error(tmp_path, bad):
    log = write_log(tmp_path / "b.darshan", damaged=False)
    with pytest.raises(SystemExit) as exc:
        export_main([str(log), "-o", str(tmp_path / "x")] + bad)
    assert exc.value.code == 2


def test_empty_selection_fails_without_output(tmp_path, capsys):
    log = write_log(tmp_path / "e.darshan", damaged=False)
    out = tmp_path / "e.pftrace"
    assert export_main([str(log), "-o", str(out), "--ranks", "7"]) == 1
    assert "no traced operation to export in the selection" in capsys.readouterr().err
    assert not out.exists()


def test_c_packet_encoder_equals_reference_encoder():
    """encode_slice_packets against packets built field by field (protowire)."""
    rows = [(5, 1, 1003, 2, 7, 1 << 40, 4096), (0, 0, 1003, 0, 0, 0, 0),
            (1 << 61, 1, 1 << 33, 4, 1 << 20, -1, 0), (127, 0, 1000, 0, 0, 0, 0),
            (128, 1, 129, 3, 128, 300, (1 << 63) - 1)]
    got = _core.encode_slice_packets(*[np.array(c, np.int8 if k == 1 else np.int64)
                                       for k, c in enumerate(zip(*rows))])
    want = b""
    for delta, begin, track, name, file, offset, size in rows:
        ev = f_int(9, 1 if begin else 2) + f_int(11, track)
        if begin:
            ev += f_int(3, 1) + f_int(10, name)
            ev += f_bytes(4, f_int(1, 1) + f_int(17, file))
            ev += f_bytes(4, f_int(1, 2) + f_int(4, offset))
            ev += f_bytes(4, f_int(1, 3) + f_int(4, size))
        want += f_bytes(1, f_int(8, delta) + f_bytes(11, ev) + f_int(10, 1) + f_int(13, 2))
    assert got == want


MEMORY_CHILD = r"""
import sys
from iolens.export.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not os.environ.get("IOLENS_LONG"), reason="long: set IOLENS_LONG=1 "
                    "(exports 3 million segments twice, about a minute)")
def test_export_memory_is_bounded(tmp_path):
    """Peak RSS of the export of 3,000,000 segments: under 400 MiB in both formats
    (ru_maxrss of the children is the largest of them all, the generator's included:
    about 100 MiB).  The index-based export took 871 MiB on this log."""
    from explore_helpers import REPO
    gen = REPO / "build" / "bench" / "gen_big_log"
    if not os.access(gen, os.X_OK):
        pytest.skip(f"{gen} is not built (cmake --build build)")
    subprocess.run([str(gen), "-n", "1", "-m", "3000000", str(tmp_path)], check=True,
                   capture_output=True, timeout=300)
    log = tmp_path / "big_dxt.darshan"
    for fmt in ("perfetto", "json"):
        out = tmp_path / f"big.{fmt}"
        r = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(log), "--format", fmt,
                            "-o", str(out)], capture_output=True, text=True, timeout=1200)
        assert r.returncode == 0, r.stderr
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        assert peak_mib < 400, f"{fmt}: peak {peak_mib:.0f} MiB"
        assert "3000000 operations" in r.stdout
        if fmt == "json":              # valid, read line by line (json.load would take GiBs)
            with open(out) as f:
                head = next(f)
                assert head.startswith('{"displayTimeUnit"') and head.endswith('"traceEvents":[\n')
                slices = 0
                for line in f:
                    if line == "]}\n":
                        break
                    slices += json.loads(line.rstrip(",\n"))["ph"] == "X"
                assert slices == 3_000_000 and next(f, None) is None
        out.unlink()
