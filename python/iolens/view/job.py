"""JobView: the one view of a log that every tool reads (docs/metrics.md).

Built once per log.  Building it checks every I/O module's records for damage
(streaming the few counters the checks need) and keeps one bit per record; every
frame it gives has the damaged records removed.  What is costly (DXT traces,
intervals, per-OST sums) is computed on first use and kept."""
from __future__ import annotations

import functools
from typing import Dict, Optional, Tuple

import numpy as np
import pandas as pd

from .._meta import module_info, modules
from ..derived import parser_figures
from ..errors import LogError
from . import damage as dmg
from .arrays import Arrays, read as read_arrays
from .intervals import IntervalScan
from .layers import job_bytes, layer_bytes, layers_of
from .ost import estimate
from .parser import Perf, perf, perf_counters, perf_from_figures
from .times import IoTime, io_time
from .trace import from_counters, posix_per_file, scan

# Modules whose records the checks and figures read: the I/O interfaces with a
# fixed counter record (from the module table, never a hand-written list).
IO_MODULES = tuple(m.name for m in modules().values() if m.role == "io" and m.kind == "counters")
_READ_ERRORS = (LogError, KeyError, ValueError, OSError)
# A module's checked counters are kept for later figures (view.arrays) up to
# this many records (about 20 MiB for 40 counters); larger modules are read
# again when asked, so the view's memory stays bounded.
KEEP_CHECKED_RECORDS = 1 << 16


class JobView:
    """The job-level figures of one open ``iolens.Log``.

    ``file`` restricts records, traces and figures to one file name."""

    def __init__(self, log, file: Optional[str] = None):
        self.log = log
        self.file = file
        self.job = dict(log.job)
        self.modules = dict(log.modules)
        self.notes: list = []          # data that could not be read, said once each
        self.damage = dmg.Damage()
        self._bad: Dict[str, np.ndarray] = {}
        self._frames: Dict[Tuple[str, Optional[tuple]], Optional[pd.DataFrame]] = {}
        self._arrays: Dict[Tuple[str, Optional[tuple]], Optional[Arrays]] = {}
        for module in IO_MODULES:
            if module in self.modules:
                self._check(module)
        # one streamed pass over the trace: segment damage, intervals, per-OST sums
        self._trace = scan(self)

    # ------------------------------------------------------------ job facts
    @property
    def nprocs(self) -> int:
        """Processes of the job (at least 1)."""
        return max(int(self.job.get("nprocs") or 1), 1)

    @property
    def run_time(self) -> float:
        """Run time in seconds as darshan-parser computes it (never negative)."""
        return max(float(self.job.get("run_time") or 0.0), 0.0)

    # ------------------------------------------------------------ records
    def _check(self, module: str) -> None:
        info = module_info(module)
        needed = dmg.needed_counters(info)
        try:
            cols = read_arrays(self.log, info, needed)
        except _READ_ERRORS as err:
            self.notes.append(f"The {module} records could not be read ({err}); "
                              "they are left out.")
            self._bad[module] = None
            return
        bad, kinds = dmg.record_checks(cols, info, self.nprocs, self.run_time)
        self._bad[module] = bad
        self.damage.add(module, kinds, int(bad.sum()), segments=False)
        if len(cols) <= KEEP_CHECKED_RECORDS:
            self._arrays[(module, tuple(sorted(set(needed))))] = self._kept(
                module, lambda: cols, lambda got, keep: got.take(keep))

    def records(self, module: str, columns=None) -> Optional[pd.DataFrame]:
        """The module's undamaged records (``Log.records`` columns; only `columns`
        when given), restricted to ``file``; None when absent or unreadable."""
        key = (module, None if columns is None else tuple(sorted(set(columns))))
        if key not in self._frames:
            self._frames[key] = self._load(module, columns)
        return self._frames[key]

    def _load(self, module: str, columns) -> Optional[pd.DataFrame]:
        return self._kept(module, lambda: self.log.records(module, columns=columns),
                          lambda frame, keep: frame[keep].reset_index(drop=True))

    def _kept(self, module: str, read, take):
        """`read`() of a module's records with the damaged ones and (with
        ``file``) other files' ones left out by `take`(got, keep mask)."""
        if module not in self.modules or self._bad.get(module, False) is None:
            return None
        try:
            got = read()
        except _READ_ERRORS as err:
            self.notes.append(f"The {module} records could not be read ({err}); "
                              "they are left out.")
            return None
        bad = self._bad.get(module)
        if bad is not None and bad.any():
            got = take(got, ~bad)
        if self.file is not None:
            got = take(got, np.asarray(got["name"]) == self.file)
        return got

    def arrays(self, module: str, columns=None) -> Optional[Arrays]:
        """The undamaged records as decoded numpy columns (view.arrays.Arrays:
        id, rank, name and the `columns` counters, every counter when None),
        restricted to ``file``; None when absent or unreadable.  What
        ``records`` gives, without building a DataFrame: for figures computed
        over many logs (fleet).  Cached per (module, columns)."""
        key = (module, None if columns is None else tuple(sorted(set(columns))))
        if key not in self._arrays:
            held = self._holding(module, columns)
            self._arrays[key] = held if held is not None else self._read_arrays(module, columns)
        return self._arrays[key]

    def _holding(self, module: str, columns) -> Optional[Arrays]:
        """Arrays already read that hold every one of `columns` (None if none)."""
        if columns is None:
            return None
        for (mod, _), got in self._arrays.items():
            if mod == module and got is not None and all(c in got for c in columns):
                return got
        return None

    def _read_arrays(self, module: str, columns) -> Optional[Arrays]:
        return self._kept(module, lambda: read_arrays(self.log, module_info(module), columns),
                          lambda got, keep: got.take(keep))

    # ------------------------------------------------------------ times, bytes
    def perf(self, module: str) -> Optional[Perf]:
        """darshan-parser's ``--perf`` figures of one module (bytes, slowest rank,
        its I/O time, agg_perf_by_slowest in MiB/s), or None without records.

        From the format library (iolens.derived, exactly ``iolens parse --perf``)
        when every record of the module is kept; the same formula over the kept
        records (view.parser) when some were set aside as damage, when the view
        is restricted to one file, or for modules the parser does not summarise
        (H5D, PNETCDF_VAR)."""
        info = module_info(module)
        frame = self.arrays(module, perf_counters(info))
        if frame is None or not len(frame):
            return None
        if info.summaries and self.file is None and not self.damage.set_aside.get(module):
            figures = self._parser_figures(info.name)
            if figures is not None:
                return perf_from_figures(figures)
        return perf(frame, info.prefix, self.nprocs)

    def _parser_figures(self, module: str) -> Optional[dict]:
        try:
            return parser_figures(self.log, module)
        except _READ_ERRORS as err:
            self.notes.append(f"The {module} parser figures could not be computed ({err}).")
            return None

    def io_time(self, module: str) -> Optional[IoTime]:
        """Per-process and per-job I/O time of one module (see times.IoTime)."""
        frame = self.records(module)
        if frame is None or not len(frame):
            return None
        return io_time(frame, module_info(module).prefix, self.nprocs)

    @functools.cached_property
    def layers(self) -> pd.DataFrame:
        """Every I/O layer's undamaged records joined by file (``Log.layers`` columns)."""
        return layers_of(self)

    def layer_bytes(self) -> pd.DataFrame:
        """Per layer (index): bytes_read, bytes_written, each layer on its own.
        Layers are never added: POSIX bytes under MPI-IO or HDF5 are the same data."""
        return layer_bytes(self.layers)

    def job_bytes(self) -> Tuple[int, int]:
        """(read, written) bytes of the job, each file counted once: at its
        file-system layer (POSIX, STDIO, DFS, DAOS) when it has one, else at the
        lowest layer that recorded it."""
        return job_bytes(self.layers)

    # ------------------------------------------------------------ traces
    def dxt(self, module: str = "POSIX") -> Optional[pd.DataFrame]:
        """Undamaged DXT segments (``Log.dxt`` columns) restricted to ``file``;
        None without a trace.  Holds the whole trace: use ``intervals``/``ost``
        for job figures of large traces."""
        name = "DXT_" + module.replace("-", "").replace("DXT_", "")
        key = (name, None)
        if key not in self._frames:
            frame = None
            if name in self.modules:
                try:
                    frame = self.log.dxt(name)
                except _READ_ERRORS as err:
                    self.notes.append(f"The {name} trace could not be read ({err}).")
            if frame is not None:
                bad, _ = dmg.segment_checks(
                    frame["start"].to_numpy(), frame["end"].to_numpy(),
                    frame["offset"].to_numpy(), frame["length"].to_numpy(),
                    self.run_time, name == "DXT_MPIIO")
                frame = frame[~bad]
                if self.file is not None:
                    frame = frame[frame["name"] == self.file]
                frame = frame.reset_index(drop=True)
            self._frames[key] = frame
        return self._frames[key]

    @functools.cached_property
    def intervals(self) -> IntervalScan:
        """Busy intervals, gaps, phases, bytes in flight and bandwidth, from DXT
        segments, or from the counters' first-start/last-end timestamps of the
        file-system layers when there is no trace (see intervals.IntervalScan)."""
        traced, _ = self._trace
        if traced is not None:
            return traced
        return from_counters(self)

    @functools.cached_property
    def ost(self) -> pd.DataFrame:
        """Per OST: ost, files, bytes_read, bytes_written, read_time, write_time,
        bytes; attrs source ("trace", "estimate", or "trace+estimate" when some
        Lustre files have no segments) and unplaced_bytes."""
        traced, scan_ost = self._trace
        if traced is not None and scan_ost.traced:
            return scan_ost.frame(posix_per_file(self))
        return estimate(self.lustre(), posix_per_file(self))

    def name(self, rec_id: int) -> Optional[str]:
        """A record's name (the log's name table)."""
        return self.log.name(rec_id)

    def lustre(self) -> Optional[pd.DataFrame]:
        """Lustre layouts, one row per (record, component), restricted to ``file``."""
        key = ("LUSTRE", None)
        if key not in self._frames:
            frame = None
            if "LUSTRE" in self.modules:
                try:
                    frame = self.log.lustre()
                except _READ_ERRORS as err:
                    self.notes.append(f"The LUSTRE records could not be read ({err}).")
            if frame is not None and self.file is not None:
                frame = frame[frame["name"] == self.file].reset_index(drop=True)
            self._frames[key] = frame
        return self._frames[key]



__all__ = ["JobView", "IO_MODULES"]
