"""Accumulates, chunk by chunk, everything the explorer shows besides the
segments themselves: the binned pyramid and the totals behind the summary views.

Per-lane and per-file totals are kept per layer (DXT_POSIX, DXT_MPIIO) and the
views take one layer each (POSIX when it has segments), since an MPI-IO
operation and the POSIX operations under it move the same bytes.

Memory is fixed by the number of lanes, files and bins, never by the number of
segments (the caller feeds pieces of the sorted columns, of any size, in order).

The pieces are regrouped into blocks of BLOCK rows at fixed positions of the
sorted order, so that the floating-point sums (bytes, busy time) come out the
same to the last bit however the caller cuts its pieces: an index built out of
core equals one built in memory."""
from __future__ import annotations

import math

import numpy as np

from .index import bins_for

SIZE_BUCKETS = 48          # log2 buckets of transfer sizes: [2^k, 2^(k+1)), bucket 0 holds 0-1 byte
OFFSET_SAMPLE = 20_000     # at most this many (time, offset) points for the spatial view
BLOCK = 1 << 20            # rows summed at a time: fixes the float sums' order, bounds temporaries


def _concat(parts, copy=False) -> dict:
    if len(parts) == 1 and not copy:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _layer(count: np.ndarray) -> np.ndarray:
    """Per lane or file (column of `count` [mod, x]): 0 (POSIX) when it has POSIX
    segments, else 1 (MPI-IO).  The two layers carry the same data, so a total
    takes one of them, never their sum (the view's rule, docs/metrics.md)."""
    return np.where(count[0] > 0, 0, 1)


class Summariser:
    def __init__(self, meta: dict, nlanes: int, nfiles: int):
        self.meta = meta
        self.nl, self.nf = nlanes, nfiles
        self.nb = bins_for(nlanes)
        self.span = float(meta["span"])
        self.cells = 2 * max(nlanes, 1) * self.nb
        self.count = np.zeros(self.cells, np.int64)
        self.nbytes = np.zeros(self.cells)
        self.busy = np.zeros(self.cells)
        # per module (POSIX, MPI-IO): the views take one layer per lane and file
        self.lane_bytes = np.zeros((2, 2, nlanes))           # [mod, op, lane]
        self.lane_busy = np.zeros((2, nlanes))
        self.lane_count = np.zeros((2, nlanes), np.int64)
        self.lane_first = np.full(nlanes, np.inf)
        self.lane_last = np.full(nlanes, -np.inf)
        self.file_bytes = np.zeros((2, 2, nfiles))           # [mod, op, file]
        self.file_count = np.zeros((2, nfiles), np.int64)
        self.sizes = np.zeros((2, 2, SIZE_BUCKETS), np.int64)     # [mod, op, bucket]
        self.mpi = np.zeros(self.cells, np.int64)            # MPI-IO share of count
        self.max_dur = 0.0
        # operations longer than one pyramid bin, by row: queries look for them
        # here instead of widening every window by the longest operation
        self.long_after = self.span / self.nb
        self.long_rows = []
        self.stride = max(1, math.ceil(meta["nseg"] / OFFSET_SAMPLE))
        self.samples = []
        self.fed = 0               # rows summed so far (start of the pending block)
        self.pending = []          # pieces of the block being gathered
        self.npending = 0

    def feed(self, c: dict) -> None:
        """The next rows of the sorted columns (a dict of equal-length arrays)."""
        n, i = len(c["start"]), 0
        while i < n:
            take = min(BLOCK - self.npending, n - i)
            piece = {k: v[i:i + take] for k, v in c.items()} if take < n else c
            self.pending.append(piece)
            self.npending += take
            i += take
            if self.npending == BLOCK:
                self._flush()
        if self.pending:        # copies: views would keep the caller's whole piece alive
            self.pending = [_concat(self.pending, copy=True)]

    def finish(self) -> None:
        """Sums the last, partial block; call once after the last feed()."""
        if self.npending:
            self._flush()

    def _flush(self) -> None:
        parts, self.pending = self.pending, []
        block = _concat(parts)
        del parts
        self._add(block, self.fed)
        self.fed += self.npending
        self.npending = 0

    def _add(self, c: dict, lo: int) -> None:
        start, end = c["start"], c["end"]
        dur = np.clip(end - start, 0.0, None)
        dur = np.where(np.isfinite(dur), dur, 0.0)
        op = c["op"].astype(np.int64) & 1
        lane = c["lane"].astype(np.int64)
        length = np.clip(c["length"], 0, None).astype(np.float64)
        b = np.clip(np.nan_to_num(start / self.span * self.nb), 0, self.nb - 1).astype(np.int64)
        flat = (op * self.nl + lane) * self.nb + b
        self.count += np.bincount(flat, minlength=self.cells)
        self.mpi += np.bincount(flat, weights=c["mod"] == 1, minlength=self.cells).astype(np.int64)
        self.long_rows.append(lo + np.nonzero(dur > self.long_after)[0])
        self.nbytes += np.bincount(flat, weights=length, minlength=self.cells)
        self.busy += np.bincount(flat, weights=dur, minlength=self.cells)
        # per (operation, lane) and (operation, file) in one pass each: bincount adds each
        # cell's rows in row order, so the sums are those of masking by operation
        mod = c["mod"].astype(np.int64) & 1
        lanes, files = mod * self.nl + lane, mod * self.nf + c["file"]
        self.lane_bytes += np.bincount((mod * 2 + op) * self.nl + lane, weights=length,
                                       minlength=4 * self.nl).reshape(2, 2, self.nl)
        self.file_bytes += np.bincount((mod * 2 + op) * self.nf + c["file"], weights=length,
                                       minlength=4 * self.nf).reshape(2, 2, self.nf)
        self.lane_busy += np.bincount(lanes, weights=dur, minlength=2 * self.nl).reshape(2, -1)
        self.lane_count += np.bincount(lanes, minlength=2 * self.nl).reshape(2, -1)
        self.file_count += np.bincount(files, minlength=2 * self.nf).reshape(2, -1)
        np.fmin.at(self.lane_first, lane, start)    # fmin: a NaN start is no first
        np.fmax.at(self.lane_last, lane, end)
        bucket = np.zeros(len(length), np.int64)
        pos = length >= 1
        bucket[pos] = np.minimum(np.log2(length[pos]).astype(np.int64), SIZE_BUCKETS - 1)
        key = (mod * 2 + op) * SIZE_BUCKETS + bucket
        self.sizes += np.bincount(key, minlength=self.sizes.size).reshape(self.sizes.shape)
        if len(dur):
            self.max_dur = max(self.max_dur, float(dur.max()))
        first = (-lo) % self.stride
        pick = np.arange(first, len(start), self.stride)
        self.samples.append(np.stack([start[pick], c["offset"][pick].astype(np.float64),
                                      lane[pick].astype(np.float64), op[pick].astype(np.float64),
                                      c["file"][pick].astype(np.float64)], axis=1))

    def pyramid(self):
        shape = (2, self.nl, self.nb)
        return (self.count.reshape(shape).astype(np.uint32), self.nbytes.reshape(shape),
                self.busy.reshape(shape), self.mpi.reshape(shape).astype(np.uint32))

    def long_index(self) -> np.ndarray:
        """Rows (in start order) of the operations longer than ``long_after``."""
        return np.concatenate(self.long_rows) if self.long_rows else np.zeros(0, np.int64)

    def views(self) -> dict:
        samples = np.concatenate(self.samples) if self.samples else np.zeros((0, 5))
        fin = np.isfinite(self.lane_first)
        lane_mod = _layer(self.lane_count)
        file_mod = _layer(self.file_count)
        lanes, files = np.arange(self.nl), np.arange(self.nf)
        return {
            "bins": self.nb,
            "max_dur": self.max_dur,
            "long_after": self.long_after,
            "lane_totals": {
                "read_bytes": self.lane_bytes[lane_mod, 0, lanes].tolist(),
                "write_bytes": self.lane_bytes[lane_mod, 1, lanes].tolist(),
                "busy": self.lane_busy[lane_mod, lanes].tolist(),
                "count": self.lane_count[lane_mod, lanes].tolist(),
                "first": np.where(fin, self.lane_first, 0).tolist(),
                "last": np.where(np.isfinite(self.lane_last), self.lane_last, 0).tolist()},
            "file_totals": {"read_bytes": self.file_bytes[file_mod, 0, files].tolist(),
                            "write_bytes": self.file_bytes[file_mod, 1, files].tolist(),
                            "count": self.file_count[file_mod, files].tolist()},
            "sizes": self.sizes.tolist(),
            "offset_sample": {"t": samples[:, 0].tolist(), "offset": samples[:, 1].tolist(),
                              "lane": samples[:, 2].astype(int).tolist(),
                              "op": samples[:, 3].astype(int).tolist(),
                              "file": samples[:, 4].astype(int).tolist(),
                              "stride": self.stride},
        }
