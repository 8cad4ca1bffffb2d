"""Just enough of the protobuf wire format to write Perfetto traces: varints,
length-delimited fields and 64-bit doubles (encoded from the public wire-format
rules; no generated code, no protobuf dependency).  ``Rows`` encodes
millions of messages of one shape at once."""
from __future__ import annotations

import functools
import struct

import numpy as np

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


# ---------------------------------------------------------------- many rows at once
class Rows:
    """Many small messages of the same shape, encoded with numpy (no Python
    loop per row): a row is a sequence of parts, each constant bytes or a varint
    (one value per row), each present in every row or only where a mask says.
    ``lengths()`` gives each row's size so far (for length prefixes);
    ``encode()`` the rows back to back."""

    def __init__(self, n: int):
        self.n = n
        self.parts = []          # (kind, payload, mask)

    def const(self, data: bytes, mask=None) -> "Rows":
        self.parts.append(("c", np.frombuffer(data, np.uint8), mask))
        return self

    def varint(self, values, mask=None) -> "Rows":
        v = np.asarray(values)
        v = v.astype(np.int64).view(np.uint64) if v.dtype.kind == "i" else v.astype(np.uint64)
        self.parts.append(("v", v, mask))
        return self

    def _size(self, kind, payload, mask) -> np.ndarray:
        size = (np.full(self.n, len(payload), np.int64) if kind == "c"
                else varint_sizes(payload))
        return size if mask is None else np.where(mask, size, 0)

    def lengths(self) -> np.ndarray:
        total = np.zeros(self.n, np.int64)
        for part in self.parts:
            total += self._size(*part)
        return total

    def encode(self) -> bytes:
        sizes = [self._size(*p) for p in self.parts]
        row_len = np.sum(sizes, axis=0) if sizes else np.zeros(self.n, np.int64)
        out = np.zeros(int(row_len.sum()), np.uint8)
        pos = np.zeros(self.n, np.int64)
        pos[1:] = np.cumsum(row_len)[:-1]
        for (kind, payload, mask), size in zip(self.parts, sizes):
            if kind == "c":
                at = pos if mask is None else pos[mask]
                for j, byte in enumerate(payload.tolist()):
                    out[at + j] = byte
            else:
                _put_varints(out, pos, payload, size)
            pos += size
        return out.tobytes()


def varint_sizes(v: np.ndarray) -> np.ndarray:
    """Bytes of each uint64 value as a varint (1-10)."""
    size = np.ones(len(v), np.int64)
    for k in range(1, 10):
        size += v >= np.uint64(1 << (7 * k))
    return size


def _put_varints(out: np.ndarray, pos: np.ndarray, v: np.ndarray, size: np.ndarray) -> None:
    for j in range(int(size.max()) if len(size) else 0):
        sel = size > j
        group = ((v[sel] >> np.uint64(7 * j)) & np.uint64(0x7F)).astype(np.uint8)
        group |= np.where(size[sel] > j + 1, 0x80, 0).astype(np.uint8)
        out[pos[sel] + j] = group
