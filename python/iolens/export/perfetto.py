"""Perfetto's native trace format: a ``Trace`` message, i.e. a sequence of
``TracePacket``s (field 1), each length-delimited.

Field numbers follow the public Perfetto protos (trace_packet.proto,
track_descriptor.proto, track_event.proto, debug_annotation.proto,
process_descriptor.proto, counter_descriptor.proto).  Timestamps are
nanoseconds since the job started."""
from __future__ import annotations

from typing import BinaryIO

from .model import TraceModel
from .protowire import f_bytes, f_double, f_int, f_str

# TracePacket
P_TIMESTAMP, P_SEQ_ID, P_TRACK_EVENT, P_SEQ_FLAGS, P_TRACK_DESCRIPTOR = 8, 10, 11, 13, 60
SEQ_INCREMENTAL_STATE_CLEARED = 1
# TrackDescriptor / ProcessDescriptor / CounterDescriptor
TD_UUID, TD_NAME, TD_PROCESS, TD_PARENT, TD_COUNTER = 1, 2, 3, 5, 8
PD_PID, PD_NAME = 1, 6
CD_UNIT, CD_UNIT_NAME = 3, 6
UNIT_SIZE_BYTES = 3
# TrackEvent
TE_ANNOTATIONS, TE_TYPE, TE_TRACK, TE_CATEGORIES, TE_NAME, TE_DOUBLE_COUNTER = 4, 9, 11, 22, 23, 44
SLICE_BEGIN, SLICE_END, INSTANT, COUNTER = 1, 2, 3, 4
# DebugAnnotation
DA_INT, DA_STRING, DA_NAME = 4, 6, 10

SEQUENCE = 1
JOB_TRACK = 1
COUNTER_TRACK_BASE = 10


def pid_of(rank: int) -> int:
    """Perfetto process ids: rank + 1 (pid 0 means "the kernel" to trace viewers)."""
    return rank + 1


def _packet(body: bytes, ts: int = None, first: bool = False) -> bytes:
    p = b""
    if ts is not None:
        p += f_int(P_TIMESTAMP, ts)
    p += body + f_int(P_SEQ_ID, SEQUENCE)
    if first:
        p += f_int(P_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED)
    return f_bytes(1, p)


def _annotation(name: str, value) -> bytes:
    body = f_str(DA_NAME, name)
    body += f_int(DA_INT, value) if isinstance(value, int) else f_str(DA_STRING, str(value))
    return f_bytes(TE_ANNOTATIONS, body)


def write(model: TraceModel, out: BinaryIO) -> None:
    job = f_int(TD_UUID, JOB_TRACK) + f_str(TD_NAME, "job")
    out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, job), first=True))
    meta = b"".join(_annotation(k, v) for k, v in model.metadata.items())
    out.write(_packet(f_bytes(P_TRACK_EVENT, f_int(TE_TYPE, INSTANT) + f_int(TE_TRACK, JOB_TRACK)
                              + f_str(TE_NAME, "job metadata") + meta), ts=0))
    for rank, name in sorted(model.ranks.items()):
        proc = f_int(PD_PID, pid_of(rank)) + f_str(PD_NAME, name)
        out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, f_int(TD_UUID, _process_uuid(rank))
                                  + f_bytes(TD_PROCESS, proc))))
    for t in model.tracks:
        desc = (f_int(TD_UUID, t.uuid) + f_str(TD_NAME, t.name)
                + f_int(TD_PARENT, _process_uuid(t.rank)))
        out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, desc)))
    counter_uuid = {}
    for k, (name, (unit, _, _)) in enumerate(model.counters.items()):
        counter_uuid[name] = COUNTER_TRACK_BASE + k
        cdesc = (f_int(CD_UNIT, UNIT_SIZE_BYTES) if unit == "bytes"
                 else f_str(CD_UNIT_NAME, unit))
        out.write(_packet(f_bytes(P_TRACK_DESCRIPTOR, f_int(TD_UUID, counter_uuid[name])
                                  + f_str(TD_NAME, name) + f_bytes(TD_COUNTER, cdesc))))
    for name, (_, times, values) in model.counters.items():
        head = f_int(TE_TYPE, COUNTER) + f_int(TE_TRACK, counter_uuid[name])
        for ts, v in zip(times.tolist(), values.tolist()):
            out.write(_packet(f_bytes(P_TRACK_EVENT, head + f_double(TE_DOUBLE_COUNTER, v)), ts=ts))
    _write_slices(model, out)


def _write_slices(model: TraceModel, out: BinaryIO) -> None:
    """The slice events; every part that repeats is encoded once (10^5-10^6 events)."""
    c = model.cols
    begin_head = f_int(TE_TYPE, SLICE_BEGIN)
    end_head = f_int(TE_TYPE, SLICE_END)
    category = f_str(TE_CATEGORIES, "io")
    offset_name, size_name = f_str(DA_NAME, "offset"), f_str(DA_NAME, "size")
    track_bytes = [f_int(TE_TRACK, t.uuid) for t in model.tracks]
    names, files = {}, {}
    for ts, begin, i, t in model.events():
        if begin:
            key = (int(c["mod"][i]), int(c["op"][i]))
            name = names.get(key)
            if name is None:
                name = names[key] = f_str(TE_NAME, model.slice_name(i))
            fcode = int(c["file"][i])
            file_ann = files.get(fcode)
            if file_ann is None:
                file_ann = files[fcode] = _annotation("file", model.files[fcode])
            body = (begin_head + track_bytes[t] + category + name + file_ann
                    + f_bytes(TE_ANNOTATIONS, offset_name + f_int(DA_INT, int(c["offset"][i])))
                    + f_bytes(TE_ANNOTATIONS, size_name + f_int(DA_INT, int(c["length"][i]))))
        else:
            body = end_head + track_bytes[t]
        out.write(_packet(f_bytes(P_TRACK_EVENT, body), ts=ts))


def _process_uuid(rank: int) -> int:
    return 1 << 32 | pid_of(rank)
