"""Time and bytes per Lustre OST (docs/metrics.md, "Per OST").

With a DXT trace each operation is placed exactly: every layout component of
the file (a progressive, PFL, layout has several, each with its own extent,
stripe size and OSTs) takes the part of the operation inside its extent, and
within a component the bytes go to the stripes they fall in, so an operation
that spans several stripes is split across their OSTs.  Its time is split in
proportion to its bytes.  Stripe j of a component holds the component-relative
offsets [k*size*count + j*size, ... + size) for every k.

A file's operations are taken from one layer only: its POSIX segments when it
has any, else its MPI-IO ones (the same bytes, never added).  An MPI-IO offset
of -1 (the runtime did not know it), an offset outside every component and a
file without a layout go to no OST; their bytes are counted as unplaced.

Without a trace, ``estimate`` spreads each file's POSIX bytes and time evenly
over the stripes its extent covers, component by component."""
from __future__ import annotations

from typing import Dict

import numpy as np
import pandas as pd

SIZE, COUNT = "LUSTRE_COMP_STRIPE_SIZE", "LUSTRE_COMP_STRIPE_COUNT"
START, END = "LUSTRE_COMP_EXT_START", "LUSTRE_COMP_EXT_END"
COLUMNS = ["ost", "files", "bytes_read", "bytes_written", "read_time", "write_time"]
_BATCH = 1 << 22        # segment x stripe cells computed at once


def layouts(lustre: pd.DataFrame) -> Dict[int, list]:
    """Record id -> [(start, end, stripe size, OST ids)] per component (end None =
    to the end of the file); components without OSTs or stripe size are skipped."""
    out: Dict[int, list] = {}
    if lustre is None or not len(lustre):
        return out
    n = len(lustre)
    starts = lustre[START].to_numpy() if START in lustre else np.zeros(n, np.int64)
    ends = lustre[END].to_numpy() if END in lustre else np.full(n, -1, np.int64)
    for rid, s, e, size, osts in zip(lustre["id"].to_numpy(), starts, ends,
                                      lustre[SIZE].to_numpy(), lustre["ost_ids"]):
        osts = np.asarray(osts, np.int64).ravel()
        if size <= 0 or not len(osts):
            continue
        out.setdefault(int(rid), []).append(
            (max(int(s), 0), None if int(e) < 0 else int(e), int(size), osts))
    return out


def _stripe_bytes(lo: np.ndarray, hi: np.ndarray, size: int, count: int) -> np.ndarray:
    """(n, count) bytes of [lo, hi) (component-relative) held by each stripe."""
    j = np.arange(count, dtype=np.float64) * size
    cycle = float(size) * count

    def below(x):   # bytes of [0, x) in stripe j
        x = x.astype(np.float64)[:, None]
        return np.floor(x / cycle) * size + np.clip(np.mod(x, cycle) - j, 0, size)
    return below(hi) - below(lo)


class OstScan:
    """Per-OST sums fed with DXT chunks of one module at a time."""

    def __init__(self, lustre: pd.DataFrame):
        self.layouts = layouts(lustre)
        self.sums: Dict[int, np.ndarray] = {}       # ost -> [read B, write B, read s, write s]
        self.files: Dict[int, set] = {}
        self.unplaced = 0.0
        self.posix_files: set = set()
        self.traced: set = set()                    # files with segments placed here

    def add(self, module: str, ids, offset, length, start, end, write) -> None:
        ids = np.asarray(ids, np.uint64)
        keep = np.ones(len(ids), bool)
        if module == "DXT_POSIX":
            self.posix_files.update(int(i) for i in np.unique(ids))
        elif self.posix_files:
            keep = ~np.isin(ids, np.fromiter(self.posix_files, np.uint64))
        for rid in np.unique(ids[keep]):
            self.traced.add(int(rid))
            sel = keep & (ids == rid)
            self._file(int(rid), offset[sel], length[sel], end[sel] - start[sel], write[sel])

    def _file(self, rid, offset, length, dur, write) -> None:
        comps = self.layouts.get(rid)
        placed = (offset >= 0) & (length > 0)
        if comps is None:
            self.unplaced += float(length[length > 0].sum())
            return
        self.unplaced += float(length[(offset < 0) & (length > 0)].sum())
        lo, hi = offset[placed].astype(np.float64), (offset + length)[placed].astype(np.float64)
        dur, write = dur[placed], write[placed]
        covered = np.zeros(len(lo))
        for c_start, c_end, size, osts in comps:
            a = np.maximum(lo, c_start)
            b = hi if c_end is None else np.minimum(hi, c_end)
            inside = b > a
            if not inside.any():
                continue
            self._component(rid, a[inside] - c_start, b[inside] - c_start, size, osts,
                            dur[inside] / (hi - lo)[inside], write[inside])
            covered[inside] += (b - a)[inside]
        self.unplaced += float(np.maximum((hi - lo) - covered, 0).sum())

    def _component(self, rid, lo, hi, size, osts, sec_per_byte, write) -> None:
        step = max(1, _BATCH // len(osts))
        for at in range(0, len(lo), step):
            part = slice(at, at + step)
            cells = _stripe_bytes(lo[part], hi[part], size, len(osts))
            w = write[part]
            rate = sec_per_byte[part][:, None]
            rows = (cells[~w].sum(0), cells[w].sum(0),
                    (cells[~w] * rate[~w]).sum(0), (cells[w] * rate[w]).sum(0))
            self._put(rid, osts, np.stack(rows))

    def _put(self, rid, osts, rows: np.ndarray) -> None:
        for k, ost in enumerate(osts.tolist()):
            if not rows[:, k].any():
                continue
            acc = self.sums.setdefault(ost, np.zeros(4))
            acc += rows[:, k]
            self.files.setdefault(ost, set()).add(rid)

    def frame(self, untraced: pd.DataFrame = None) -> pd.DataFrame:
        """The traced files' sums, plus the estimate (``estimate``) of the Lustre
        files the trace does not cover, from `untraced` (their POSIX figures)."""
        rows = [(o, len(self.files.get(o, ())), *v) for o, v in self.sums.items()]
        frame = pd.DataFrame(rows, columns=COLUMNS)
        source, unplaced = "trace", self.unplaced
        if untraced is not None and len(untraced):
            rest = untraced[~untraced["id"].isin(np.fromiter(self.traced, np.uint64))]
            guess = estimate_frame(self.layouts, rest)
            if len(guess[0]):
                source = "trace+estimate"
                frame = _combine(frame, guess, self.files)
            unplaced += guess[2]
        return _sorted(frame, source, unplaced)


def _combine(frame: pd.DataFrame, guess, traced_files) -> pd.DataFrame:
    sums, files, _ = guess
    out = {int(r.ost): np.array([r.bytes_read, r.bytes_written, r.read_time, r.write_time])
           for r in frame.itertuples(index=False)}
    for o, v in sums.items():
        out[o] = out.get(o, np.zeros(4)) + v
    rows = [(o, len(traced_files.get(o, set()) | files.get(o, set())), *v)
            for o, v in out.items()]
    return pd.DataFrame(rows, columns=COLUMNS)


def _sorted(frame: pd.DataFrame, source: str, unplaced: float) -> pd.DataFrame:
    frame["bytes"] = frame["bytes_read"] + frame["bytes_written"]
    frame = frame.sort_values(["bytes", "ost"], ascending=[False, True]).reset_index(drop=True)
    frame.attrs.update(source=source, unplaced_bytes=float(unplaced))
    return frame


def estimate(lustre: pd.DataFrame, posix: pd.DataFrame) -> pd.DataFrame:
    """Per-OST figures without a trace: each file's POSIX bytes and time spread
    evenly over the stripes its extent (largest offset + 1) covers."""
    sums, files, unplaced = estimate_frame(layouts(lustre), posix)
    rows = [(o, len(files[o]), *v) for o, v in sums.items()]
    return _sorted(pd.DataFrame(rows, columns=COLUMNS), "estimate", unplaced)


def estimate_frame(lay: Dict[int, list], posix: pd.DataFrame):
    """({ost: [read B, write B, read s, write s]}, {ost: files}, unplaced bytes)."""
    sums: Dict[int, np.ndarray] = {}
    files: Dict[int, set] = {}
    unplaced = 0.0
    if posix is None or not len(posix):
        return sums, files, unplaced
    for rid, g in posix.groupby("id", sort=False):
        moved = np.array([g["bytes_read"].sum(), g["bytes_written"].sum(),
                          g["read_time"].sum(), g["write_time"].sum()], np.float64)
        comps = lay.get(int(rid))
        if comps is None:
            unplaced += moved[0] + moved[1]
            continue
        extent = max(float(g["extent"].max()), 1.0)
        spans = [(size, osts, (extent if e is None else min(extent, e)) - s)
                 for s, e, size, osts in comps]
        spans = [(size, osts, length) for size, osts, length in spans if length > 0]
        covered = sum(length for _, _, length in spans)
        for size, osts, length in spans:
            used = osts[:max(1, min(len(osts), int(-(-length // size))))]
            for o in used.tolist():
                sums.setdefault(o, np.zeros(4))
                sums[o] += moved * length / covered / len(used)
                files.setdefault(o, set()).add(int(rid))
    return sums, files, unplaced
