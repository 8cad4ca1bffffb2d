"""Builds the explorer's index (layout: ``index.py``) from a log in bounded memory.

1. Scan: both DXT modules are read in chunks of ``chunk_rows`` segments
   (``Log._c.dxt_reader``, the C library's streaming iterator).  Damaged segments
   (the view's segment checks: NaN/inf or negative times, an end before the
   start, an end after the run, an impossible offset) are skipped and counted in
   meta["damage"].  Each chunk becomes
   the index's columns with *provisional* lane and file codes (in order of first
   appearance), and goes to the external sort (``index_sort.py``).  The lane and
   file tables, the span and the segment count are gathered on the way.
2. The final codes are those of the in-memory definition: lanes sorted by (rank,
   thread) - by rank alone when no segment has a thread id - and files by name,
   over the records of the modules that have segments.
3. The sorted pieces get their final codes and are appended to the column files
   and fed to the summariser (pyramid and summary views).

Peak memory: the rows of ``sort_rows`` (a bucket group being sorted, or the rows
kept before the first spill: 46 bytes each plus the sort order and one gathered
column) and one decoded chunk of ``chunk_rows`` with its temporaries, plus the
per-record, per-lane and per-file tables and the summariser's fixed arrays;
never the trace (750-810 MiB with the defaults at 10^8 segments).  Temporary run
files (46 bytes per segment) live in the index's temporary directory.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Dict, List

import numpy as np

from .. import _frames
from .._meta import module_info
from ..view.damage import Damage, segment_checks
from .index_sort import ExternalSort
from .regions import SegmentRegions, final_codes

CHUNK_ROWS = 2_000_000     # segments decoded at a time
SORT_ROWS = 8_000_000      # rows sorted in memory at a time


class _Tables:
    """Lanes, files, span and counts, gathered chunk by chunk."""

    def __init__(self, run_time: float = 0.0):
        self.run_time = run_time                 # for the damage checks
        self.damage = Damage()                   # segments set aside
        self.pair_id: Dict[tuple, int] = {}      # (rank, thread) -> provisional lane
        self.file_id: Dict[str, int] = {}        # name -> provisional file code
        self.threaded = False
        self.nseg = 0
        self.end_max = -np.inf                   # largest finite end
        self.ranks: List[np.ndarray] = []        # record ranks of modules with segments
        self.hosts: Dict[int, str] = {}          # rank -> first hostname seen
        self.names: set = set()                  # record names of modules with segments
        self.region_id: Dict[str, int] = {}      # region name -> provisional code

    def lane_codes(self):
        """(provisional -> final lane code array, lane table)."""
        pairs = list(self.pair_id)
        remap = np.zeros(max(1, len(pairs)), np.int32)
        if self.threaded:
            keys = sorted(pairs, key=lambda p: (p[0] % (1 << 64), p[1]))
            pos = {p: i for i, p in enumerate(keys)}
            lanes = [(r, t) for r, t in keys]
        else:
            ranks = np.unique(np.concatenate(self.ranks)) if self.ranks else np.zeros(0, np.int64)
            pos = {p: int(np.searchsorted(ranks, p[0])) for p in pairs}
            lanes = [(int(r), None) for r in ranks]
        for p, i in self.pair_id.items():
            remap[i] = pos[p]
        table = [{"rank": r, "thread": t, "host": self.hosts.get(r, "")} for r, t in lanes]
        return remap, table

    def file_codes(self):
        """(provisional -> final file code array, sorted file names)."""
        names = sorted(self.names)
        code = {n: i for i, n in enumerate(names)}
        remap = np.full(max(1, len(self.file_id)), -1, np.int32)
        for n, i in self.file_id.items():
            remap[i] = code.get(n, -1)
        return remap, names


class _ModuleScan:
    """One DXT module's records so far (per-record rank and provisional file)."""

    def __init__(self, log, tables: _Tables, mod: int, name: str):
        self.log, self.t, self.mod, self.name = log, tables, mod, name
        self.regions = SegmentRegions(log, name, tables.region_id)
        self.rank = np.zeros(0, np.int64)
        self.file = np.zeros(0, np.int32)
        self.hosts: List[str] = []
        self.names: List[str] = []
        self.nseg = 0

    def records(self, d: dict) -> None:
        ids = np.frombuffer(d["id"], np.uint64)
        if not len(ids):
            return
        names = self.log._name_lookup[_frames.view(d["name_code"], np.int32)]
        names = [n if isinstance(n, str) else f"<record {i:#x}>" for n, i in zip(names, ids)]
        fid = self.t.file_id
        codes = np.array([fid.setdefault(n, len(fid)) for n in names], np.int32)
        self.rank = np.concatenate([self.rank, np.frombuffer(d["rank"], np.int64)])
        self.file = np.concatenate([self.file, codes])
        self.hosts += d["hostnames"]
        self.names += names

    def segments(self, d: dict):
        """The chunk's undamaged segments as index columns (None if none is left)."""
        seg = {"rec": _frames.view(d["seg_rec"], np.int64),
               "tid": _frames.view(d["thread_id"], np.uint64),
               "start": _frames.view(d["start"], np.float64),
               "end": _frames.view(d["end"], np.float64),
               "op": _frames.view(d["seg_write"], np.int8),
               "offset": _frames.view(d["offset"], np.int64),
               "length": _frames.view(d["length"], np.int64),
               "region": self.regions.next(int(d["nseg"]))}
        seg = skip_damaged(seg, self.t.damage, self.name, self.t.run_time)
        n = len(seg["start"])
        if not n:
            return None
        rec, tid, pid = seg["rec"], seg["tid"], self.t.pair_id
        if tid is not None and tid.any():
            self.t.threaded = True
            keys, inv = np.unique(np.stack([self.rank[rec].astype(np.uint64), tid], axis=1),
                                  axis=0, return_inverse=True)
            keys = [(_signed(int(r)), int(th)) for r, th in keys]
        else:
            # segments come record by record: one lane per run of equal record index
            new = np.empty(n, bool)
            new[0] = True
            np.not_equal(rec[1:], rec[:-1], out=new[1:])
            keys = [(r, 0) for r in self.rank[rec[new]].tolist()]
            inv = np.cumsum(new) - 1
        lane = np.array([pid.setdefault(k, len(pid)) for k in keys], np.int32)[inv.ravel()]
        self.t.end_max = max(self.t.end_max, _finite_max(seg["end"]))
        self.nseg += n
        return {"start": seg["start"], "end": seg["end"], "lane": lane, "op": seg["op"],
                "mod": np.full(n, self.mod, np.int8), "file": self.file[rec],
                "offset": seg["offset"], "length": seg["length"], "region": seg["region"]}

    def done(self) -> None:
        """Records count for lanes and files only if their module has segments."""
        if not self.nseg:
            return
        self.t.nseg += self.nseg
        self.t.ranks.append(self.rank)
        for r, h in zip(self.rank.tolist(), self.hosts):
            self.t.hosts.setdefault(r, h)
        self.t.names.update(self.names)


def skip_damaged(seg: dict, damage: Damage, module: str, run_time: float) -> dict:
    """`seg` (equal-length arrays) without the segments the view sets aside as
    damage (iolens.view.damage.segment_checks), which are counted in `damage`."""
    bad, kinds = segment_checks(seg["start"], seg["end"], seg["offset"], seg["length"],
                                run_time, module == "DXT_MPIIO")
    damage.add(module, kinds, int(bad.sum()), segments=True)
    if not bad.any():
        return seg
    keep = ~bad
    return {k: (v[keep] if v is not None and len(v) == len(keep) else v) for k, v in seg.items()}


def damage_meta(damage: Damage) -> dict:
    """meta["damage"]: segments set aside per module and kind, keys sorted (the
    same text however the trace was cut into chunks)."""
    return {"set_aside": dict(sorted(damage.set_aside.items())),
            "segments": {m: dict(sorted(k.items())) for m, k in sorted(damage.segments.items())}}


def _signed(u: int) -> int:
    """An int64 rank that went through uint64, back."""
    return u - (1 << 64) if u >= 1 << 63 else u


def _finite_max(a: np.ndarray) -> float:
    """Largest finite value, -inf if none (hostile logs may hold NaN or inf)."""
    top = float(a.max()) if len(a) else -np.inf
    if not np.isfinite(top):
        fin = a[np.isfinite(a)]
        top = float(fin.max()) if len(fin) else -np.inf
    return top


def build_into(log, root: Path, modules, columns, chunk_rows: int = CHUNK_ROWS,
               sort_rows: int = SORT_ROWS) -> None:
    """Write the index of ``log`` into the (empty, temporary) directory ``root``."""
    from .index import INDEX_VERSION, bins_for, write_pyramid
    from .summary_build import Summariser
    tables = _Tables(max(float(log.job.get("run_time") or 0.0), 0.0))
    work = root / "runs"
    work.mkdir()
    chunk_rows, sort_rows = int(chunk_rows), int(sort_rows)
    sorter = ExternalSort(work, columns, sort_rows, chunk_rows)
    present = []
    for m, name in enumerate(modules):
        info = module_info(name)
        if info.name not in log.modules:
            continue
        present.append(name)
        scan = _ModuleScan(log, tables, m, info.name)
        reader = log._c.dxt_reader(info.id)
        while (d := reader.read(chunk_rows)) is not None:
            scan.records(d)
            piece = scan.segments(d) if d["nseg"] else None
            if piece is not None:
                sorter.add(piece)
            del piece
            del d
        scan.done()
    meta = {"version": INDEX_VERSION, "log": os.path.realpath(log.path),
            "nseg": tables.nseg, "lanes": [], "files": [], "span": 1.0, "max_dur": 0.0,
            "modules": present, "damage": damage_meta(tables.damage), "regions": []}
    if not tables.nseg:
        write_pyramid(root, np.zeros((2, 0, 1), np.uint32), np.zeros((2, 0, 1)),
                      np.zeros((2, 0, 1)), np.zeros((2, 0, 1), np.uint32))
        np.save(root / "long.npy", np.zeros(0, np.int64))
        shutil.rmtree(work)
        (root / "meta.json").write_text(json.dumps(meta))
        return
    lane_map, meta["lanes"] = tables.lane_codes()
    file_map, meta["files"] = tables.file_codes()
    region_map, meta["regions"] = final_codes(tables.region_id)
    meta["span"] = max(tables.end_max, 1e-9)
    summary = Summariser(meta, len(meta["lanes"]), len(meta["files"]))
    assert summary.nb == bins_for(len(meta["lanes"]))
    out = _ColumnFiles(root, columns, tables.nseg)
    try:
        for piece in sorter.sorted():
            piece["lane"] = lane_map[piece["lane"]]
            piece["file"] = file_map[piece["file"]]
            piece["region"] = region_map[piece["region"] + 1]
            out.append(piece)
            summary.feed(piece)
            del piece
    finally:
        out.close()
    if out.written != tables.nseg:     # a broken sort must not leave a plausible index
        raise RuntimeError(f"explorer index: {out.written} of {tables.nseg} rows written")
    summary.finish()
    shutil.rmtree(work)
    write_pyramid(root, *summary.pyramid())
    np.save(root / "long.npy", summary.long_index())
    meta.update(summary.views())
    (root / "meta.json").write_text(json.dumps(meta))


class _ColumnFiles:
    """The ``.npy`` column files, written front to back (never memory-mapped
    while writing, so the pages written do not count as this process's memory)."""

    def __init__(self, root: Path, columns, n: int):
        self.dtypes = {k: np.dtype(v) for k, v in columns.items()}
        self.written = 0
        self.files = {}
        for name, dt in self.dtypes.items():
            f = open(root / f"{name}.npy", "wb")
            self.files[name] = f
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(dt), "fortran_order": False,
                    "shape": (n,)})

    def append(self, piece: dict) -> None:
        for name, f in self.files.items():
            np.ascontiguousarray(piece[name], self.dtypes[name]).tofile(f)
        self.written += len(piece["start"])

    def close(self) -> None:
        for f in self.files.values():
            f.close()
