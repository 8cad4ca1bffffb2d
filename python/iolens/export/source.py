"""The operations an export writes, streamed in start order in bounded memory.

Both DXT modules are read in chunks (``Log._c.dxt_reader``, as the view and the
explorer's index read them); damaged segments are set aside by the view's rules
(iolens.view.damage: NaN, infinite or negative times, an end before the start,
an end past the run, an impossible offset) and counted; the selection (time
window, ranks, file pattern) is applied; the rest goes through the explorer's
out-of-core stable sort by start (explore/index_sort.py, used through its API:
no index or cache is written) and comes back in pieces with final lane codes.

Memory: one decoded chunk, the rows sorted at once (``sort_rows``), the lane and
file tables and the bandwidth bins; never the trace.  Temporary run files (42
bytes per selected segment) go to a private temporary directory."""
from __future__ import annotations

import fnmatch
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

import numpy as np

from .._meta import module_info
from ..explore.index import COLUMNS, MODULES
from ..explore.index_build import _ModuleScan, _Tables, damage_meta
from ..explore.index_sort import ExternalSort
from ..view import damage as dmg
from ..view.intervals import IntervalScan

# The explorer's columns but the region, which no export writes: the run files
# hold 42 bytes per segment.
SORT_COLUMNS = {k: v for k, v in COLUMNS.items() if k != "region"}
CHUNK_ROWS = 250_000        # segments decoded at a time
SORT_ROWS = 500_000         # rows sorted in memory at a time
# Largest time written (s): 2^62 ns, so that no nanosecond count can overflow int64.
MAX_SECONDS = float(1 << 62) / 1e9


@dataclass
class Selection:
    """What part of the trace to export: operations overlapping [t0, t1] s, of
    the ranks in ``ranks`` (None = all), on files whose name matches ``files``
    (an fnmatch pattern, None = all)."""

    t0: float = 0.0
    t1: float = float("inf")
    ranks: Optional[frozenset] = None
    files: Optional[str] = None

    @property
    def everything(self) -> bool:
        return (self.t0 <= 0 and self.t1 == float("inf") and self.ranks is None
                and self.files is None)


class TraceSource:
    """Reads, selects and sorts; then ``pieces()`` streams the result.

    After construction: ``nseg`` (selected operations), ``lanes`` (lane code ->
    {rank, thread, host}), ``files`` (file code -> name), ``damage`` (the view's
    Damage of the segments set aside), ``bandwidth`` (IntervalScan of the
    selected operations: POSIX, else MPI-IO, as the view chooses), ``modules``."""

    def __init__(self, log, selection: Selection = Selection(),
                 chunk_rows: int = CHUNK_ROWS, sort_rows: int = SORT_ROWS):
        self.selection = selection
        run_time = max(float(log.job.get("run_time") or 0.0), 0.0)
        self.tables = _Tables(run_time)
        span = max(run_time + dmg.margin(run_time), 1.0)
        self._scans = {name: IntervalScan(span, name) for name in MODULES}
        self._tmp = tempfile.TemporaryDirectory(prefix="iolens-export.")
        self._sorter = ExternalSort(Path(self._tmp.name), SORT_COLUMNS, sort_rows,
                                    chunk_rows)
        self._rank_of: List[int] = []            # provisional lane -> rank
        self._file_ok = np.zeros(0, bool)        # provisional file code -> selected
        self.modules = []
        self.nseg = 0
        for m, name in enumerate(MODULES):
            if name in log.modules:
                self.modules.append(name)
                self._read(log, m, name, chunk_rows)
        self.damage = self.tables.damage
        self._lane_map, self.lanes = self.tables.lane_codes()
        self._file_map, self.files = self.tables.file_codes()

    # ------------------------------------------------------------ reading
    def _read(self, log, m: int, name: str, chunk_rows: int) -> None:
        scan = _ModuleScan(log, self.tables, m, name)
        reader = log._c.dxt_reader(module_info(name).id)
        while (d := reader.read(chunk_rows)) is not None:
            scan.records(d)
            piece = scan.segments(d) if d["nseg"] else None
            del d
            if piece is not None:
                piece = self._select(self._in_range(piece, name))
            if piece is not None:
                self.nseg += len(piece["start"])
                self._scans[name].add(piece["start"], piece["end"], piece["length"],
                                      piece["op"].astype(bool))
                piece.pop("region", None)
                self._sorter.add(piece)
        scan.done()

    def _in_range(self, piece: dict, name: str) -> dict:
        """Times beyond MAX_SECONDS (possible when the log has no run time to
        check them against) are set aside as bad times: they have no int64 ns."""
        far = piece["end"] > MAX_SECONDS
        if not far.any():
            return piece
        self.tables.damage.add(name, {"bad-time": int(far.sum())}, int(far.sum()),
                               segments=True)
        return {k: v[~far] for k, v in piece.items()}

    def _select(self, piece: dict) -> Optional[dict]:
        sel = self.selection
        if sel.everything:
            return piece
        keep = np.ones(len(piece["start"]), bool)
        if sel.t0 > 0 or sel.t1 != float("inf"):
            keep &= (piece["end"] >= sel.t0) & (piece["start"] <= sel.t1)
        if sel.ranks is not None:
            self._rank_of += [k[0] for k in list(self.tables.pair_id)[len(self._rank_of):]]
            ranks = np.asarray(self._rank_of, np.int64)
            want = np.isin(ranks, np.fromiter(sel.ranks, np.int64, len(sel.ranks)))
            keep &= want[piece["lane"]]
        if sel.files is not None:
            names = list(self.tables.file_id)
            new = names[len(self._file_ok):]
            self._file_ok = np.concatenate(
                [self._file_ok, [fnmatch.fnmatchcase(n, sel.files) for n in new]]).astype(bool)
            keep &= self._file_ok[piece["file"]]
        if keep.all():
            return piece
        if not keep.any():
            return None
        return {k: v[keep] for k, v in piece.items()}

    # ------------------------------------------------------------ results
    def damage_meta(self) -> dict:
        return damage_meta(self.damage)

    @property
    def bandwidth(self) -> Optional[IntervalScan]:
        for name in MODULES:
            if self._scans[name].operations:
                return self._scans[name]
        return None

    def pieces(self) -> Iterator[dict]:
        """The selected operations in stable start order, in pieces of at most
        sort_rows rows: start/end (s), lane and file (final codes), op (1 =
        write), mod (1 = MPI-IO), offset, length.  Once only."""
        try:
            for piece in self._sorter.sorted():
                piece["lane"] = self._lane_map[piece["lane"]]
                piece["file"] = self._file_map[piece["file"]]
                yield piece
        finally:
            self.close()

    def close(self) -> None:
        self._tmp.cleanup()
