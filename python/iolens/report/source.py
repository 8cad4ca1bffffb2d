"""The report's data: the log's JobView (iolens.view), which loads each
module's frames once with damaged records set aside, plus the report's own
notes and memo.  Every figure of the report comes from the view."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import LogError
from ..view import JobView
from .progress import Progress


def _safe(call, default=None):
    """Call a data-layer accessor; a module the log cannot decode yields the
    default so that one damaged module does not sink the whole report."""
    try:
        return call()
    except (LogError, KeyError, ValueError, OSError):
        return default


class ReportData:
    """Wraps an open log (the `iolens.open` API) for the report sections."""

    def __init__(self, log, file: str | None = None):
        self.log = log
        self.file = file
        self.progress = Progress(enabled=False)   # the page sets its own
        self.job = dict(log.job)
        self.exe = log.exe or ""
        self.version = log.version
        self.mounts = list(log.mounts or [])
        self.modules = dict(log.modules or {})
        self.view = JobView(log, file)
        self.notes: list[str] = list(self.view.notes)
        self._memo: dict = {}
        self._read: set = set()

    def memo(self, fn):
        """fn(self), computed once: a figure and its table share aggregates."""
        if fn not in self._memo:
            self._memo[fn] = fn(self)
        return self._memo[fn]

    @property
    def nprocs(self) -> int:
        return self.view.nprocs

    @property
    def run_time(self) -> float:
        return self.view.run_time

    @property
    def damage(self):
        """What the view set aside (iolens.view.Damage)."""
        return self.view.damage

    def has(self, module: str) -> bool:
        frame = self.frame(module)
        return frame is not None and len(frame) > 0

    def frame(self, module: str) -> pd.DataFrame | None:
        """The module's undamaged records (one row each), or None if absent."""
        if module in self.modules and module not in self._read:
            self._read.add(module)
            self.progress.note(f"reading the {module} records")
        return self.view.records(module)

    def frames(self, modules):
        """(module, records) for each of `modules` present with at least one record."""
        for module in modules:
            frame = self.frame(module)
            if frame is not None and len(frame):
                yield module, frame

    def dxt(self, module: str) -> pd.DataFrame | None:
        """Undamaged DXT segments (one row each) of DXT_POSIX or DXT_MPIIO, or None."""
        return self.view.dxt(module)

    def heatmap(self):
        """Runtime heat map as {api: (width_s, read[ranks, bins],
        write[ranks, bins], ranks)}; empty when absent or restricted to a file
        (heat map bins are per process and API, not per file)."""
        if self.file is not None or "HEATMAP" not in self.modules:
            return {}
        raw = _safe(lambda: self.log.heatmap(), None)
        return normalize_heatmap(raw)

    def lustre(self) -> pd.DataFrame | None:
        """Lustre layouts, one row per (record, component), or None."""
        return self.view.lustre()

    def partial_modules(self) -> list[str]:
        """Modules whose partial flag is set, with or without a data region."""
        flagged = dict(getattr(self.log, "partial", None) or {})
        for name, info in self.modules.items():
            if _info(info, "partial"):
                flagged[name] = True
        return [name for name, on in flagged.items() if on]


def _info(info, key, default=None):
    if isinstance(info, dict):
        return info.get(key, default)
    return getattr(info, key, default)


def normalize_heatmap(raw) -> dict:
    """The data layer's heat map rows (api, rank, bin, width, read_bytes,
    write_bytes) as dense per-API matrices."""
    if raw is None or not len(raw):
        return {}
    raw = raw.rename(columns={"read_bytes": "read", "write_bytes": "write"})
    return {str(api): _dense(g) for api, g in raw.groupby("api", sort=True, observed=True)}


def _dense(frame: pd.DataFrame):
    ranks, rank_idx = np.unique(frame["rank"].to_numpy(), return_inverse=True)
    bins = frame["bin"].to_numpy().astype(np.int64)
    nbins = int(bins.max()) + 1 if len(bins) else 0
    read = np.zeros((len(ranks), nbins))
    write = np.zeros((len(ranks), nbins))
    np.add.at(read, (rank_idx, bins), frame["read"].to_numpy())
    np.add.at(write, (rank_idx, bins), frame["write"].to_numpy())
    width = float(frame["width"].iloc[0]) if "width" in frame.columns else 0.1
    return width, read, write, ranks
