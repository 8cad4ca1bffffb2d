"""Just enough of the protobuf wire format to write Perfetto traces: varints,
length-delimited fields and 64-bit doubles (encoded from the public wire-format
rules; no generated code, no protobuf dependency).  The slice packets,
millions of them, are encoded in C (iolens._core.encode_slice_packets)."""
from __future__ import annotations

import functools
import struct

VARINT, I64, LEN = 0, 1, 2


_ONE_BYTE = [bytes((i,)) for i in range(128)]


def varint(value: int) -> bytes:
    """Unsigned LEB128; negative int64 values take their two's complement (10 bytes)."""
    if 0 <= value < 128:
        return _ONE_BYTE[value]
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


@functools.lru_cache(maxsize=None)
def key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def f_int(field: int, value: int) -> bytes:
    return key(field, VARINT) + varint(int(value))


def f_double(field: int, value: float) -> bytes:
    return key(field, I64) + struct.pack("<d", float(value))


def f_bytes(field: int, payload: bytes) -> bytes:
    return key(field, LEN) + varint(len(payload)) + payload


def f_str(field: int, text: str) -> bytes:
    return f_bytes(field, text.encode("utf-8", "replace"))

