"""`iolens export`: the Perfetto protobuf and Chrome JSON traces are read back
(the protobuf with our own wire decoder): slices nest, no two slices of a track
overlap, POSIX slices nest only under MPI-IO ones, and the operations and bytes
per process equal `iolens dxt`'s.  Run on every corpus log with DXT and on a
log of our own traced with `iolens run --trace`."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

from explore_helpers import corpus_dxt_logs, decode, dxt_rows, dxt_totals, traced_log
from iolens.export.cli import main as export_main


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


class Sequence:
    """A packet sequence's incremental state: interned strings and the delta clock."""

    def __init__(self):
        self.interned = defaultdict(dict)     # InternedData field -> iid -> text
        self.delta_clock = None               # sequence clock id whose timestamps are deltas
        self.default_clock = None
        self.now = None

    def read(self, pkt):
        """The packet's absolute timestamp (None without one), after taking its
        clock snapshot, defaults and interned data."""
        if 6 in pkt:                          # ClockSnapshot
            for c in decode(pkt[6][0])[1]:
                clock = decode(c)
                if clock.get(3) == [1]:
                    self.delta_clock, self.now = clock[1][0], clock[2][0]
        if 59 in pkt:                         # TracePacketDefaults
            self.default_clock = decode(pkt[59][0])[58][0]
        if 12 in pkt:                         # InternedData
            for field, entries in decode(pkt[12][0]).items():
                for e in entries:
                    entry = decode(e)
                    assert entry[1][0] not in self.interned[field], "an iid is defined once"
                    self.interned[field][entry[1][0]] = entry[2][0].decode()
        if 8 not in pkt:
            return None
        if self.default_clock is not None and self.default_clock == self.delta_clock:
            self.now += pkt[8][0]
            return self.now
        return pkt[8][0]

    def name(self, ev):
        return ev[23][0].decode() if 23 in ev else self.interned[2][ev[10][0]]

    def annotations(self, ev):
        out = {}
        for raw in ev[4]:
            a = decode(raw)
            name = a[10][0].decode() if 10 in a else self.interned[3][a[1][0]]
            if 17 in a:
                out[name] = self.interned[29][a[17][0]]
            elif 6 in a:
                out[name] = a[6][0].decode()
            else:
                out[name] = _signed(a[4][0])
        return out


def perfetto_readback(path):
    """(totals, facts) from a .pftrace: totals as dxt_totals() gives them."""
    trace = decode(path.read_bytes())
    assert set(trace) == {1}, "a Trace holds only packets (field 1)"
    proc_pid, track_parent, counters, names = {}, {}, set(), {}
    stacks = defaultdict(list)
    last_ts = defaultdict(int)
    totals = defaultdict(lambda: [0, 0])
    counter_values = defaultdict(list)
    meta, seqs, files = {}, defaultdict(Sequence), set()
    for raw in trace[1]:
        pkt = decode(raw)
        assert len(pkt[10]) == 1, "every packet is on a sequence"
        seq = seqs[pkt[10][0]]
        ts = seq.read(pkt)
        if 60 in pkt:
            td = decode(pkt[60][0])
            uuid = td[1][0]
            if 3 in td:
                proc_pid[uuid] = decode(td[3][0])[1][0]
            if 5 in td:
                track_parent[uuid] = td[5][0]
            if 8 in td:
                counters.add(uuid)
            if 2 in td:
                names[uuid] = td[2][0].decode()
            continue
        if 11 not in pkt:
            continue
        assert ts is not None and 0 <= ts < 1 << 62, "a real timestamp"
        ev = decode(pkt[11][0])
        kind, track = ev[9][0], ev[11][0]
        if kind == 4:
            assert track in counters
            counter_values[names[track]].append(ev[44][0])
            continue
        if kind == 3:
            meta.update(seq.annotations(ev))
            continue
        assert track in track_parent, "slice on a declared track"
        assert ts >= last_ts[track], "events of a track in time order"
        last_ts[track] = ts
        st = stacks[track]
        if kind == 1:
            name = seq.name(ev)
            if st:
                assert st[-1][1].startswith("MPI-IO") and name.startswith("POSIX"), \
                    f"{name} nested in {st[-1][1]}"
            ann = seq.annotations(ev)
            files.add(ann["file"])
            st.append((ts, name))
            module, op = name.split()
            rank = proc_pid[track_parent[track]] - 1
            totals[(module, rank, op)][0] += 1
            totals[(module, rank, op)][1] += ann["size"]
        else:
            assert kind == 2 and st, "an end closes an open slice"
            assert st.pop()[0] <= ts
    assert all(not s for s in stacks.values()), "every slice ends"
    return {k: tuple(v) for k, v in totals.items()}, {"meta": meta, "counters": counter_values,
                                                      "files": files, "sequences": seqs}


def json_readback(path):
    doc = json.loads(path.read_text())
    by_track = defaultdict(list)
    totals = defaultdict(lambda: [0, 0])
    for ev in doc["traceEvents"]:
        if ev["ph"] == "X":
            start = round(ev["ts"] * 1000)
            by_track[(ev["pid"], ev["tid"])].append((start, start + round(ev["dur"] * 1000),
                                                     ev["name"]))
            module, op = ev["name"].split()
            totals[(module, ev["pid"] - 1, op)][0] += 1
            totals[(module, ev["pid"] - 1, op)][1] += ev["args"]["size"]
    for slices in by_track.values():
        slices.sort(key=lambda s: (s[0], -s[1], not s[2].startswith("MPI-IO")))
        stack = []
        for s, e, name in slices:
            while stack and stack[-1][1] <= s:
                stack.pop()
            if stack:   # overlapping slices on one track must nest, POSIX under MPI-IO
                assert e <= stack[-1][1] + 1, (s, e, stack[-1])   # 1 ns: microsecond rounding
                assert stack[-1][2].startswith("MPI-IO") and name.startswith("POSIX")
            stack.append((s, e, name))
    return {k: tuple(v) for k, v in totals.items()}, doc


def check_log(log, tmp_path):
    want = dxt_totals(log)
    assert want, "the log has traced operations"
    pf, js = tmp_path / "t.pftrace", tmp_path / "t.json"
    assert export_main([str(log), "--perfetto", "-o", str(pf)]) == 0
    assert export_main([str(log), "--format", "json", "-o", str(js)]) == 0
    got, facts = perfetto_readback(pf)
    assert got == want
    assert "nprocs" in facts["meta"] and "exe" in facts["meta"]
    bw = facts["counters"]["bandwidth"]
    assert bw and min(bw) >= 0
    assert facts["counters"]["read bandwidth"] and facts["counters"]["write bandwidth"]
    # the bandwidth is the view's: one layer (POSIX when traced, else MPI-IO),
    # never the MPI-IO bytes added to the POSIX bytes of the same data
    layer = "POSIX" if any(k[0] == "POSIX" for k in want) else "MPI-IO"
    total_bytes = sum(v[1] for k, v in want.items() if k[0] == layer)
    got_js, doc = json_readback(js)
    assert got_js == want
    _times_equal_dxt(doc, log)
    assert doc["metadata"]["nprocs"] == facts["meta"]["nprocs"]
    counters = [e for e in doc["traceEvents"] if e["ph"] == "C" and e["name"] == "bandwidth"]
    if len(counters) > 1:
        step = (counters[1]["ts"] - counters[0]["ts"]) / 1e6
        # (the step is read back from timestamps rounded to whole nanoseconds)
        assert sum(e["args"]["bytes/s"] for e in counters) * step == \
            pytest.approx(total_bytes, rel=1e-4)


def _times_equal_dxt(doc, log):
    """Each "X" event's start and end (ts, ts + dur) are those `iolens dxt` prints
    (to its 4 decimals) for the same module, rank and operation: the starts, and
    the ends, of a (module, rank, op) compared in sorted order."""
    json_times, dxt_times = defaultdict(lambda: ([], [])), defaultdict(lambda: ([], []))
    for ev in doc["traceEvents"]:
        if ev["ph"] == "X":
            module, op = ev["name"].split()
            starts, ends = json_times[(module, ev["pid"] - 1, op)]
            starts.append(ev["ts"] / 1e6)
            ends.append((ev["ts"] + ev["dur"]) / 1e6)
    for key, _, start, end in dxt_rows(log):
        dxt_times[key][0].append(start)
        dxt_times[key][1].append(end)
    assert json_times.keys() == dxt_times.keys()
    for key, (starts, ends) in dxt_times.items():
        for mine, printed in zip(json_times[key], (starts, ends)):
            assert sorted(mine) == pytest.approx(sorted(printed), abs=5.1e-5), key


@pytest.mark.parametrize("log", corpus_dxt_logs())
def test_export_corpus_log(log, tmp_path):
    check_log(log, tmp_path)


def test_export_own_traced_log(tmp_path):
    check_log(traced_log(tmp_path), tmp_path)


def test_export_refuses_log_without_dxt(tmp_path, capsys):
    from explore_helpers import corpus_log
    log = corpus_log("imbalanced-io")
    assert export_main([str(log), "-o", str(tmp_path / "x.pftrace")]) == 1
    assert "no DXT trace" in capsys.readouterr().err
    assert not (tmp_path / "x.pftrace").exists()


def test_iolens_export_verb_runs_the_entry_point(tmp_path):
    """`iolens export ...` (the C command) runs the installed iolens-export."""
    import os
    import shutil
    import subprocess
    import sys
    from explore_helpers import corpus_log, iolens_bin
    bindir = os.path.dirname(sys.executable)
    if not shutil.which("iolens-export", path=bindir + os.pathsep + os.environ.get("PATH", "")):
        pytest.skip("iolens-export is not installed (scripts/setup.sh installs the package)")
    log = corpus_log("mpi-io-test_id4373053")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               IOLENS_CACHE_DIR=str(tmp_path / "cache"))
    out = tmp_path / "t.json"
    r = subprocess.run([iolens_bin(), "export", "--format", "json", str(log), "-o", str(out)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json_readback(out)[0] == dxt_totals(log)
