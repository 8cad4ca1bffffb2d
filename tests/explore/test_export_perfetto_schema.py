"""`iolens export --perfetto` read with Perfetto's OWN schema: the trace protos
shipped in the `perfetto` package on PyPI (perfetto_trace_pb2), parsed by
`protobuf`, not by our wire decoder (test_explore_export.py).  Every message
must be one Perfetto knows, field by field (no unknown field anywhere), and the
trace must follow the rules trace_packet.proto states for a reader:

- every packet is on a sequence (trusted_packet_sequence_id);
- a sequence's first packet sets SEQ_INCREMENTAL_STATE_CLEARED, and a packet
  that uses incremental state (interned iids, or a timestamp on the
  sequence-scoped incremental clock named by TracePacketDefaults) sets
  SEQ_NEEDS_INCREMENTAL_STATE (or clears the state itself);
- every iid is defined once, before its use, in the sequence's InternedData;
- a sequence-scoped clock (ids 64-127) is declared by a ClockSnapshot on its own
  sequence, which ties it to BOOTTIME;
- every event's track is declared before, every parent track too.

Then the slices Perfetto would show are compared with `iolens dxt`: operations
and bytes per (module, rank, operation), and each operation's start and end
(dxt prints 4 decimals).  Runs on every corpus log with DXT and on a log of our
own traced with `iolens run --trace`."""
from __future__ import annotations

from collections import defaultdict

import pytest

from explore_helpers import corpus_dxt_logs, dxt_rows, traced_log
from iolens.export.cli import main as export_main

try:
    from google.protobuf.unknown_fields import UnknownFieldSet
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
except Exception as err:     # absent, or a protobuf too old for Perfetto's generated code
    pytest.skip("Perfetto's trace protos are not usable (pip install perfetto protobuf, "
                f"requirements-test.txt): {type(err).__name__}: {err}", allow_module_level=True)

CLEARED = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
NEEDS = pb.TracePacket.SEQ_NEEDS_INCREMENTAL_STATE
BOOTTIME = pb.BUILTIN_CLOCK_BOOTTIME
SEQUENCE_CLOCKS = range(64, 128)        # clock_snapshot.proto: sequence-scoped clock ids
DXT_PRINTED = 0.5e-4 + 1e-9             # `iolens dxt` rounds times to 4 decimals
INTERNED = {"event_categories": "name", "event_names": "name",
            "debug_annotation_names": "name", "debug_annotation_string_values": "str"}


def assert_known(msg, where="Trace"):
    """No field of ``msg`` or of any message inside it is unknown to Perfetto's
    schema (a field number or enum value the schema lacks lands there)."""
    unknown = UnknownFieldSet(msg)
    assert len(unknown) == 0, f"{where}: unknown fields {[f.field_number for f in unknown]}"
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        repeated = getattr(field, "is_repeated", None)     # protobuf >= 5; older: its label
        if repeated is None:
            repeated = field.label == field.LABEL_REPEATED
        if repeated:
            for i, item in enumerate(value):
                assert_known(item, f"{where}.{field.name}[{i}]")
        else:
            assert_known(value, f"{where}.{field.name}")


class Sequence:
    """One packet sequence's incremental state, as a Perfetto reader keeps it."""

    def __init__(self):
        self.valid = False               # a CLEARED packet seen
        self.interned = {}               # (InternedData field, iid) -> text
        self.clock = None                # TracePacketDefaults.timestamp_clock_id
        self.clocks = {}                 # sequence clock id -> [value now, BOOTTIME at value]

    def clear(self):
        self.valid, self.interned, self.clock, self.clocks = True, {}, None, {}

    def intern(self, data):
        for field, text in INTERNED.items():
            for entry in getattr(data, field):
                key = (field, entry.iid)
                assert entry.iid > 0 and key not in self.interned, f"{key} defined once"
                value = getattr(entry, text)
                self.interned[key] = value.decode() if isinstance(value, bytes) else value

    def lookup(self, field, iid):
        assert (field, iid) in self.interned, f"{field} iid {iid} is not interned"
        return self.interned[(field, iid)]

    def snapshot(self, snap):
        boot = {c.clock_id: c.timestamp for c in snap.clocks}
        assert BOOTTIME in boot, "a sequence clock is tied to BOOTTIME"
        for c in snap.clocks:
            if c.clock_id in SEQUENCE_CLOCKS:
                self.clocks[c.clock_id] = [c.timestamp, boot[BOOTTIME] - c.timestamp, c.is_incremental]

    def time(self, pkt) -> int:
        """The packet's BOOTTIME nanoseconds (the trace's clock)."""
        clock = pkt.timestamp_clock_id if pkt.HasField("timestamp_clock_id") else self.clock
        if clock is None or clock == BOOTTIME:
            return pkt.timestamp
        assert clock in self.clocks, f"clock {clock} declared on its sequence before use"
        state = self.clocks[clock]
        state[0] = state[0] + pkt.timestamp if state[2] else pkt.timestamp
        return state[0] + state[1]

    def uses_state(self, pkt) -> bool:
        """Does the packet need this sequence's incremental state to be read?"""
        if pkt.HasField("timestamp") and not pkt.HasField("timestamp_clock_id") and self.clock:
            return True
        if pkt.HasField("track_event"):
            ev = pkt.track_event
            return (ev.HasField("name_iid") or len(ev.category_iids) > 0
                    or any(a.HasField("name_iid") or a.HasField("string_value_iid")
                           for a in ev.debug_annotations))
        return pkt.HasField("interned_data")


def annotations(seq: Sequence, ev) -> dict:
    out = {}
    for a in ev.debug_annotations:
        name = a.name if a.HasField("name") else seq.lookup("debug_annotation_names", a.name_iid)
        kind = a.WhichOneof("value")
        assert kind is not None, f"annotation {name} has a value"
        out[name] = (seq.lookup("debug_annotation_string_values", a.string_value_iid)
                     if kind == "string_value_iid" else getattr(a, kind))
    return out


def perfetto_slices(path):
    """Parse ``path`` with Perfetto's schema, check the reader's rules (module
    docstring) and return the slices, [((module, rank, op), size, start s, end s)],
    and the ranks of the declared process tracks."""
    trace = pb.Trace.FromString(path.read_bytes())
    assert_known(trace)
    seqs = defaultdict(Sequence)
    tracks, pids, counters = {}, {}, set()          # uuid -> parent uuid; process uuid -> pid
    open_slices = defaultdict(list)
    slices = []
    for n, pkt in enumerate(trace.packet):
        where = f"packet {n}"
        assert pkt.HasField("trusted_packet_sequence_id"), f"{where}: on a sequence"
        seq = seqs[pkt.trusted_packet_sequence_id]
        if pkt.sequence_flags & CLEARED:
            seq.clear()
        assert seq.valid, f"{where}: its sequence's first packet clears the incremental state"
        if seq.uses_state(pkt):
            assert pkt.sequence_flags & (NEEDS | CLEARED), \
                f"{where}: uses incremental state without SEQ_NEEDS_INCREMENTAL_STATE"
        if pkt.HasField("trace_packet_defaults"):
            seq.clock = pkt.trace_packet_defaults.timestamp_clock_id
        if pkt.HasField("interned_data"):
            seq.intern(pkt.interned_data)
        kind = pkt.WhichOneof("data")
        assert kind in (None, "clock_snapshot", "track_descriptor", "track_event"), where
        if kind is None:
            assert pkt.HasField("interned_data") or pkt.HasField("trace_packet_defaults"), \
                f"{where}: an empty packet"
        elif kind == "clock_snapshot":
            seq.snapshot(pkt.clock_snapshot)
        elif kind == "track_descriptor":
            td = pkt.track_descriptor
            assert td.uuid and td.uuid not in tracks, f"{where}: a new track uuid"
            assert not td.HasField("parent_uuid") or td.parent_uuid in tracks, \
                f"{where}: parent declared first"
            tracks[td.uuid] = td.parent_uuid if td.HasField("parent_uuid") else None
            if td.HasField("process"):
                assert td.process.pid > 0 and td.process.pid not in pids.values()
                pids[td.uuid] = td.process.pid
            if td.HasField("counter"):
                counters.add(td.uuid)
        else:
            assert pkt.HasField("timestamp"), f"{where}: an event has a time"
            ts = seq.time(pkt)
            assert 0 <= ts < 1 << 62, f"{where}: a real timestamp ({ts})"
            slices += _event(seq, pkt.track_event, ts, tracks, pids, counters,
                             open_slices, where)
    assert not any(open_slices.values()), "every slice ends"
    return slices, {pid - 1 for pid in pids.values()}


def _event(seq, ev, ts, tracks, pids, counters, open_slices, where) -> list:
    """The slice an end event closes, as a list of 0 or 1."""
    assert ev.track_uuid in tracks, f"{where}: event on a declared track"
    if ev.type == ev.TYPE_COUNTER:
        assert ev.track_uuid in counters and ev.HasField("double_counter_value")
        return []
    assert ev.track_uuid not in counters, f"{where}: a slice on a counter track"
    if ev.type == ev.TYPE_INSTANT:
        return []
    stack = open_slices[ev.track_uuid]
    if ev.type == ev.TYPE_SLICE_BEGIN:
        name = ev.name if ev.HasField("name") else seq.lookup("event_names", ev.name_iid)
        for iid in ev.category_iids:
            seq.lookup("event_categories", iid)
        stack.append((ts, name, annotations(seq, ev)))
        return []
    assert ev.type == ev.TYPE_SLICE_END and stack, f"{where}: an end closes an open slice"
    start, name, args = stack.pop()
    assert start <= ts
    module, op = name.split()
    rank = pids[tracks[ev.track_uuid]] - 1            # pid = rank + 1 (export/perfetto.py)
    assert isinstance(args["file"], str) and args["offset"] >= -1
    return [((module, rank, op), args["size"], start / 1e9, ts / 1e9)]


def check_against_dxt(log, tmp_path):
    want = dxt_rows(log)
    assert want, "the log has traced operations"
    out = tmp_path / "t.pftrace"
    assert export_main([str(log), "--perfetto", "-o", str(out)]) == 0
    got, ranks = perfetto_slices(out)
    assert ranks == {key[1] for key, _, _, _ in want}, "a process track per rank with operations"
    assert _totals(got) == _totals(want)
    got_times, want_times = _times(got), _times(want)
    for key, (starts, ends) in want_times.items():
        # sorted lists: each value within DXT_PRINTED of its match iff the sorted ones are
        for name, a, b in (("start", got_times[key][0], starts), ("end", got_times[key][1], ends)):
            worst = max(abs(x - y) for x, y in zip(a, b))
            assert worst <= DXT_PRINTED, f"{key} {name} differs from iolens dxt by {worst} s"


def _totals(rows) -> dict:
    acc = defaultdict(lambda: [0, 0])
    for key, size, _, _ in rows:
        acc[key][0] += 1
        acc[key][1] += size
    return {k: tuple(v) for k, v in acc.items()}


def _times(rows) -> dict:
    acc = defaultdict(lambda: ([], []))
    for key, _, start, end in rows:
        acc[key][0].append(start)
        acc[key][1].append(end)
    return {k: (sorted(s), sorted(e)) for k, (s, e) in acc.items()}


@pytest.mark.parametrize("log", corpus_dxt_logs())
def test_perfetto_schema_corpus_log(log, tmp_path):
    check_against_dxt(log, tmp_path)


def test_perfetto_schema_own_traced_log(tmp_path):
    check_against_dxt(traced_log(tmp_path), tmp_path)


def test_perfetto_schema_sees_a_foreign_field():
    """The unknown-field check is real: a field number Perfetto's TracePacket
    lacks is reported (so a wrong field number in the export would be)."""
    packet = pb.TracePacket(trusted_packet_sequence_id=1).SerializeToString()
    packet += bytes([0xF8, 0xFF, 0x7F, 1])   # key of field 2^18 - 1, varint 1: not in the schema
    trace = pb.Trace.FromString(bytes([0x0A, len(packet)]) + packet)
    with pytest.raises(AssertionError, match="unknown fields"):
        assert_known(trace)
