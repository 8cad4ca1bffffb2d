"""Perfetto's native trace format, streamed: a ``Trace`` message, i.e. a
sequence of length-delimited ``TracePacket``s (field 1).

Field numbers follow the public Perfetto protos (trace_packet.proto,
clock_snapshot.proto, trace_packet_defaults.proto, interned_data.proto,
track_descriptor.proto, track_event.proto, debug_annotation.proto,
process_descriptor.proto, counter_descriptor.proto).

Two packet sequences:
- SLICES (1) holds the operations.  Its first packets declare a sequence-scoped
  incremental clock (every timestamp is the delta to the previous packet's,
  nanoseconds, starting at 0 = job start) and the interned strings: the
  category, the four slice names and the three annotation names once, each file
  name once before its first use.  Track descriptors come as tracks first appear.
  Each begin is about 30 bytes, each end about 10; they are encoded a piece at a
  time in C (iolens._core.encode_slice_packets).
- META (2) holds the job track and its metadata instant, and the bandwidth
  counters, with absolute timestamps (ns since job start)."""
from __future__ import annotations

from typing import BinaryIO

import numpy as np

from .. import _core
from .protowire import f_bytes, f_double, f_int, f_str
from .sink import write_in_slices

# TracePacket
P_CLOCK_SNAPSHOT, P_TIMESTAMP, P_SEQ_ID, P_TRACK_EVENT = 6, 8, 10, 11
P_INTERNED, P_SEQ_FLAGS, P_DEFAULTS, P_TRACK_DESCRIPTOR = 12, 13, 59, 60
SEQ_INCREMENTAL_STATE_CLEARED, SEQ_NEEDS_INCREMENTAL_STATE = 1, 2
# ClockSnapshot / Clock / TracePacketDefaults
CS_CLOCKS, CLOCK_ID, CLOCK_TS, CLOCK_INCREMENTAL = 1, 1, 2, 3
BOOTTIME, DELTA_CLOCK = 6, 64           # 64: the first sequence-scoped clock id
DEF_TIMESTAMP_CLOCK = 58
# InternedData and its entries (iid = 1, name/str = 2)
I_CATEGORIES, I_NAMES, I_ANNOTATION_NAMES, I_STRINGS = 1, 2, 3, 29
# TrackDescriptor / ProcessDescriptor / CounterDescriptor
TD_UUID, TD_NAME, TD_PROCESS, TD_PARENT, TD_COUNTER = 1, 2, 3, 5, 8
PD_PID, PD_NAME = 1, 6
CD_UNIT_NAME = 6
# TrackEvent
TE_ANNOTATIONS, TE_TYPE = 4, 9
TE_TRACK, TE_NAME, TE_DOUBLE_COUNTER = 11, 23, 44
INSTANT, COUNTER = 3, 4        # (begin 1 and end 2: core_protobuf.c)
# DebugAnnotation
DA_INT, DA_STRING, DA_NAME = 4, 6, 10

SLICES, META = 1, 2
ENCODE_ROWS = 1 << 18       # events encoded at a time: bounds the temporary arrays
JOB_TRACK = 1
COUNTER_TRACK_BASE = 10
SLICE_NAMES = ("POSIX read", "POSIX write", "MPI-IO read", "MPI-IO write")  # iid - 1
ANNOTATION_NAMES = ("file", "offset", "size")                              # iid - 1


def pid_of(rank: int) -> int:
    """Perfetto process ids: rank + 1 (pid 0 means "the kernel" to trace viewers)."""
    return rank + 1


def _process_uuid(rank: int) -> int:
    return 1 << 32 | pid_of(rank)


def _packet(body: bytes, seq: int, ts: int = None, flags: int = 0) -> bytes:
    p = f_int(P_TIMESTAMP, ts) if ts is not None else b""
    p += body + f_int(P_SEQ_ID, seq)
    if flags:
        p += f_int(P_SEQ_FLAGS, flags)
    return f_bytes(1, p)


def _annotation(name: str, value) -> bytes:
    body = f_str(DA_NAME, name)
    body += f_int(DA_INT, value) if isinstance(value, int) else f_str(DA_STRING, str(value))
    return f_bytes(TE_ANNOTATIONS, body)


def _interned(field: int, iid: int, text: str) -> bytes:
    return f_bytes(field, f_int(1, iid) + f_str(2, text))


def write(export, out: BinaryIO) -> None:
    """Write the whole trace of ``export`` (model.Export) to ``out``."""
    _write_meta(export, out)
    _write_preamble(out)
    files_seen = np.zeros(len(export.files), bool)
    ranks_seen = set()
    last_ts = 0
    for batch in export.batches():
        head = b""
        for t in batch.new_tracks:
            if t.rank not in ranks_seen:
                ranks_seen.add(t.rank)
                proc = f_int(PD_PID, pid_of(t.rank)) + f_str(PD_NAME, export.process_name(t.rank))
                head += _packet(f_bytes(P_TRACK_DESCRIPTOR, f_int(TD_UUID, _process_uuid(t.rank))
                                        + f_bytes(TD_PROCESS, proc)), SLICES)
            desc = (f_int(TD_UUID, t.uuid) + f_str(TD_NAME, t.name)
                    + f_int(TD_PARENT, _process_uuid(t.rank)))
            head += _packet(f_bytes(P_TRACK_DESCRIPTOR, desc), SLICES)
        if len(batch.ops):
            head += _new_files(export.files, batch.ops["file"], files_seen)
        out.write(head)
        for a in range(0, len(batch.ts), ENCODE_ROWS):
            write_in_slices(out, _events(export, batch, slice(a, a + ENCODE_ROWS), last_ts))
            last_ts = int(batch.ts[min(a + ENCODE_ROWS, len(batch.ts)) - 1])


def _write_meta(export, out: BinaryIO) -> None:
    job = f_int(TD_UUID, JOB_TRACK) + f_str(TD_NAME, "job")
    out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, job), META,
                      flags=SEQ_INCREMENTAL_STATE_CLEARED))
    meta = b"".join(_annotation(k, v) for k, v in export.metadata.items())
    out.write(_packet(f_bytes(P_TRACK_EVENT, f_int(TE_TYPE, INSTANT) + f_int(TE_TRACK, JOB_TRACK)
                              + f_str(TE_NAME, "job metadata") + meta), META, ts=0))
    for k, (name, (unit, times, values)) in enumerate(export.counters().items()):
        uuid = COUNTER_TRACK_BASE + k
        out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, f_int(TD_UUID, uuid) + f_str(TD_NAME, name)
                                  + f_bytes(TD_COUNTER, f_str(CD_UNIT_NAME, unit))), META))
        head = f_int(TE_TYPE, COUNTER) + f_int(TE_TRACK, uuid)
        out.write(b"".join(
            _packet(f_bytes(P_TRACK_EVENT, head + f_double(TE_DOUBLE_COUNTER, v)), META, ts=ts)
            for ts, v in zip(times.tolist(), values.tolist())))


def _write_preamble(out: BinaryIO) -> None:
    """The slice sequence's interned strings and clock: incremental, 0 = job
    start = BOOTTIME 0 (the snapshot after the packet that clears the sequence's
    state, so no reader can take it for state to clear)."""
    interned = _interned(I_CATEGORIES, 1, "io")
    interned += b"".join(_interned(I_NAMES, i + 1, n) for i, n in enumerate(SLICE_NAMES))
    interned += b"".join(_interned(I_ANNOTATION_NAMES, i + 1, n)
                         for i, n in enumerate(ANNOTATION_NAMES))
    body = f_bytes(P_DEFAULTS, f_int(DEF_TIMESTAMP_CLOCK, DELTA_CLOCK)) + f_bytes(P_INTERNED,
                                                                                  interned)
    out.write(_packet(body, SLICES, flags=SEQ_INCREMENTAL_STATE_CLEARED))
    clocks = (f_bytes(CS_CLOCKS, f_int(CLOCK_ID, DELTA_CLOCK) + f_int(CLOCK_TS, 0)
                      + f_int(CLOCK_INCREMENTAL, 1))
              + f_bytes(CS_CLOCKS, f_int(CLOCK_ID, BOOTTIME) + f_int(CLOCK_TS, 0)))
    out.write(_packet(f_bytes(P_CLOCK_SNAPSHOT, clocks), SLICES))


def _new_files(files, codes: np.ndarray, seen: np.ndarray) -> bytes:
    """One packet interning the file names first used by ``codes`` (iid = code + 1)."""
    used = np.unique(codes)
    new = used[~seen[used]]
    if not len(new):
        return b""
    seen[new] = True
    body = b"".join(_interned(I_STRINGS, int(c) + 1, files[c]) for c in new.tolist())
    return _packet(f_bytes(P_INTERNED, body), SLICES, flags=SEQ_NEEDS_INCREMENTAL_STATE)


def _events(export, batch, part: slice, last_ts: int) -> bytes:
    """The begin and end packets of events ``part`` of the batch
    (iolens._core.encode_slice_packets)."""
    begin = batch.begin[part]
    ops = batch.ops
    uuid = np.asarray([t.uuid for t in export.placement.tracks], np.int64)[batch.track[part]]
    delta = np.diff(batch.ts[part], prepend=np.int64(last_ts))
    if len(ops):
        row = np.where(begin, batch.row[part], 0)
        name_iid = 1 + 2 * ops["mod"][row].astype(np.int64) + ops["op"][row]
        file_iid = ops["file"][row].astype(np.int64) + 1
        offset = ops["offset"][row].astype(np.int64)
        size = ops["length"][row].astype(np.int64)
    else:
        name_iid = file_iid = offset = size = np.zeros(len(delta), np.int64)
    return _core.encode_slice_packets(delta, begin.astype(np.int8), uuid, name_iid,
                                      file_iid, offset, size)
