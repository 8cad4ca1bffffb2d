"""The Chrome JSON export made cheap (issue 29, 15 M segments under 18 s): complete
"X" events whose times have the fewest digits that keep every nanosecond and
still equal the log's; no constant category; the C order of tied starts and the
C track placer's shortcut give what the straightforward rules give."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np

import iolens
from iolens import _core
from iolens.export.placement import Placement, to_ns
from iolens.export.perfetto import SLICE_NAMES
from test_export_stream import NAMES, TINY, write_log


def _encode(start, end):
    n = len(start)
    return _core.encode_json_slices(
        np.ones(n, np.int64), np.full(n, 1000, np.int64), np.zeros(n, np.int8),
        np.asarray(start, np.int64), np.asarray(end, np.int64), np.zeros(n, np.int32),
        np.zeros(n, np.int64), np.full(n, 4096, np.int64),
        [json.dumps(s).encode() for s in SLICE_NAMES], [json.dumps(NAMES[0]).encode()])


def test_times_have_the_fewest_digits_that_keep_each_nanosecond():
    start = [0, 1, 10, 1500, 240000, 1768740000000, 123456789, (1 << 62) - 1]
    end = [s + d for s, d in zip(start, [250, 1000, 120000, 1, 10, 290000, 7, 0])]
    lines = _encode(start, end).decode().split(",\n")
    texts = [(line.split('"ts":')[1].split(",")[0], line.split('"dur":')[1].split(",")[0])
             for line in lines]
    assert texts == [("0", "0.25"), ("0.001", "1"), ("0.01", "120"), ("1.5", "0.001"),
                     ("240", "0.01"), ("1768740000", "290"), ("123456.789", "0.007"),
                     ("4611686018427387.903", "0")]
    for line, s, e in zip(lines, start, end):
        ev = json.loads(line)
        assert "cat" not in ev and ev["ph"] == "X"
        # exact: the decimal text times 1000 is the integer nanosecond count
        ts, dur = line.split('"ts":')[1].split(",")[0], line.split('"dur":')[1].split(",")[0]
        assert _ns(ts) == s and _ns(dur) == e - s


def _ns(text: str) -> int:
    whole, _, frac = text.partition(".")
    return int(whole) * 1000 + int(frac.ljust(3, "0") or 0)


def test_json_times_and_fields_equal_the_log(tmp_path):
    """Every segment of the log is one "X" event with its module, rank, operation,
    file, offset, size, and start and duration to the nanosecond (what `iolens dxt`
    prints, at full precision), through several chunks, sorted pieces and ties."""
    log = write_log(tmp_path / "t.darshan", damaged=False)
    want = Counter()
    with iolens.open(log) as lg:
        for mod, label in (("DXT_POSIX", "POSIX"), ("DXT_MPIIO", "MPI-IO")):
            d = lg.dxt(mod)
            start, end = to_ns(d["start"].to_numpy()), to_ns(d["end"].to_numpy())
            for r, s, e in zip(d.itertuples(), start.tolist(), end.tolist()):
                want[(f"{label} {r.op}", int(r.rank), r.name, int(r.offset), int(r.length),
                      s, e - s)] += 1
    out = tmp_path / "t.json"
    with iolens.open(log) as lg, open(out, "wb") as f:
        from iolens.export import chrome_json
        from iolens.export.model import Export
        chrome_json.write(Export(lg, **TINY), f)
    got = Counter()
    for line in out.read_text().splitlines()[1:-1]:
        if '"ph":"X"' not in line:
            continue
        ev = json.loads(line.rstrip(","))
        ts, dur = line.split('"ts":')[1].split(",")[0], line.split('"dur":')[1].split(",")[0]
        got[(ev["name"], ev["pid"] - 1, ev["args"]["file"], ev["args"]["offset"],
             ev["args"]["size"], _ns(ts), _ns(dur))] += 1
    assert got == want and sum(want.values()) > 1000


def test_tied_starts_ordered_as_the_rule_says():
    """processing_order (C) against the rule written as one numpy lexsort: start,
    longer first, MPI-IO first, then the rows' own order."""
    rng = np.random.default_rng(5)
    # runs of ~16 tied starts, and one of over 100 (sorted another way in C)
    start = np.sort(np.concatenate([rng.integers(0, 300, 4900), np.full(100, 150)]))
    end = start + rng.integers(0, 4, 5000)
    mod = rng.integers(0, 2, 5000).astype(np.int8)
    order = np.empty(5000, np.int64)
    assert _core.processing_order(start, end, mod, order)
    rows = np.arange(5000)
    assert (order == np.lexsort((rows, -mod.astype(np.int16), -end, start))).all()
    distinct = np.arange(10, dtype=np.int64)
    assert not _core.processing_order(distinct, distinct + 1, np.zeros(10, np.int8),
                                      np.empty(10, np.int64))


def _reference_tracks(lane, start, end, mod):
    """The placement rules, looking at every track each time: a POSIX operation
    inside the open MPI-IO operation on top of a track goes on it; any other goes
    to the first track with nothing open, else a new one.  Tracks numbered across
    lanes in order of first use."""
    lanes, ids, out = {}, {}, []
    for ln, s, e, m in zip(lane, start, end, mod):
        tracks = lanes.setdefault(ln, [])
        nest = free = None
        for k, st in enumerate(tracks):
            while st and st[-1][0] <= s:
                st.pop()
            if st and nest is None and e <= st[-1][0] and st[-1][1] == 1 and m != 1:
                nest = k
            elif not st and free is None:
                free = k
        k = nest if nest is not None else free
        if k is None:
            tracks.append([])
            k = len(tracks) - 1
        tracks[k].append((e, m))
        out.append(ids.setdefault((ln, k), len(ids)))
    return out


def test_track_placer_equals_the_rules():
    """The C placer stops at the first free track when nothing can nest; its
    tracks are the rules' own, over pieces, with MPI-IO calls and POSIX inside."""
    rng = np.random.default_rng(11)
    n = 6000
    start = np.sort(rng.integers(0, 20000, n)).astype(np.int64)
    mod = (rng.random(n) < 0.2).astype(np.int8)
    end = start + np.where(mod == 1, rng.integers(50, 400, n), rng.integers(0, 60, n))
    lane = rng.integers(0, 5, n).astype(np.int32)
    order = np.lexsort((-mod.astype(np.int16), -end, start))
    start, end, mod, lane = start[order], end[order], mod[order], lane[order]
    placer = _core.TrackPlacer(5)
    got = np.empty(n, np.int32)
    for a in range(0, n, 700):                      # calls continue one another
        placer.place(lane[a:a + 700], start[a:a + 700], end[a:a + 700], mod[a:a + 700],
                     got[a:a + 700])
    want = _reference_tracks(lane.tolist(), start.tolist(), end.tolist(), mod.tolist())
    assert got.tolist() == want
    assert max(want) > 10, "overlaps: several tracks per lane"


def test_placement_names_tracks_within_their_lane():
    lanes = [{"rank": 0, "thread": None, "host": "h"}, {"rank": 1, "thread": None, "host": "h"}]
    p = Placement(lanes)
    piece = {"start": np.array([0.0, 0.0, 1.0, 1.0, 1.0]),
             "end": np.array([5.0, 5.0, 2.0, 2.0, 2.0]),
             "lane": np.array([1, 0, 0, 1, 1], np.int32), "mod": np.zeros(5, np.int8),
             "op": np.zeros(5, np.int8), "file": np.zeros(5, np.int32),
             "offset": np.zeros(5, np.int64), "length": np.ones(5, np.int64)}
    (ops, new), = list(p.placed([piece]))
    assert [(t.rank, t.number) for t in new] == [(1, 0), (0, 0), (0, 1), (1, 1), (1, 2)]
    assert [t.name for t in new][2:] == ["I/O (overlap 1)", "I/O (overlap 1)", "I/O (overlap 2)"]
    assert ops["track"].tolist() == [0, 1, 2, 3, 4]
