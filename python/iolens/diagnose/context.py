"""What the rules read: the log's JobView (iolens.view: damaged records and
segments already set aside), its thresholds, and the counter columns the rules
declared they need, each module decoded once.

Only declared counters are kept (``JobView.records(columns=...)``), so a
million-record log costs a handful of numeric columns, not every counter.
``col`` is the view's reading of a counter (-1, "not monitored", as 0)."""
from __future__ import annotations

import functools
from typing import Dict, Iterable, Optional

import numpy as np
import pandas as pd

from ..errors import LogError
from ..view import JobView
from ..view.columns import amount as col  # noqa: F401 - the rules' counter reader


class Context:
    def __init__(self, log, thresholds: dict, needs: Dict[str, Iterable[str]]):
        self.log = log
        self.th = thresholds
        self._needs = {m: sorted(set(c)) for m, c in needs.items()}
        self.view = JobView(log)
        self.notes: list = list(self.view.notes)   # data the rules could not read
        self._frames: dict = {}
        self.job = dict(log.job)
        self.modules = dict(log.modules)
        self.partial = dict(log.partial)
        self.metadata = self.job.get("metadata", {}) or {}

    # ---------------------------------------------------------------- job
    @property
    def nprocs(self) -> int:
        return self.view.nprocs

    @property
    def run_time(self) -> float:
        return self.view.run_time

    # ---------------------------------------------------------------- records
    def has(self, module: str) -> bool:
        frame = self.frame(module)
        return frame is not None and len(frame) > 0

    def frame(self, module: str) -> Optional[pd.DataFrame]:
        """The module's records with the declared counters, or None if absent/undecodable."""
        if module not in self._frames:
            self._frames[module] = self._load(module)
        return self._frames[module]

    def _load(self, module):
        if module not in self.modules:
            return None
        try:
            return self.view.records(module, columns=self._needs.get(module) or [])
        except KeyError as err:
            self.notes.append(f"{module} records could not be read: {err}")
            return None

    @functools.cached_property
    def lustre(self) -> Optional[pd.DataFrame]:
        """First layout component of every Lustre file: id, stripe_size, stripe_count, osts."""
        if "LUSTRE" not in self.modules:
            return None
        df = self.view.lustre()
        if df is None:
            return None
        df = df[df["component"] == 0]
        return pd.DataFrame({
            "id": df["id"].to_numpy(),
            "stripe_size": df["LUSTRE_COMP_STRIPE_SIZE"].to_numpy(),
            "stripe_count": df["LUSTRE_COMP_STRIPE_COUNT"].to_numpy(),
            "osts": df["ost_ids"].to_numpy()})

    def dxt(self, module: str = "POSIX") -> Optional[pd.DataFrame]:
        """DXT segments (read only by the DXT rules), or None without DXT data."""
        key = "DXT:" + module
        if key not in self._frames:
            frame = self.view.dxt(module)
            self._frames[key] = frame if frame is not None and len(frame) else None
        return self._frames[key]

    def name(self, rec_id) -> str:
        """A record's name, found in the frames already decoded (a scan of one id
        column) before the log's full name table, which costs a dict of every name."""
        rid = np.uint64(rec_id)
        for frame in self._frames.values():
            if isinstance(frame, pd.DataFrame) and "name" in frame and "id" in frame:
                hit = np.flatnonzero(frame["id"].to_numpy() == rid)
                if hit.size and frame["name"].iat[hit[0]]:
                    return str(frame["name"].iat[hit[0]])
        return self.log.name(int(rec_id)) or f"<record {int(rec_id)}>"

    # ---------------------------------------------------------------- mounts
    @functools.cached_property
    def _mounts(self):
        return sorted(self.log.mounts or [], key=lambda m: -len(m[0]))

    def mount_of(self, path: str):
        """(mount point, fs type) holding path: the longest matching mount point."""
        for point, fstype in self._mounts:
            if path == point or path.startswith(point.rstrip("/") + "/") or point == "/":
                return point, fstype
        return None, None

    @functools.cached_property
    def mount_facts(self) -> Optional[pd.DataFrame]:
        """Per mount: kind (node-local / shared / unknown) and block size, from the
        platform keys mntfs and tmpfs; None when the log does not say."""
        try:
            facts = self.log.mount_facts
        except (LogError, ValueError) as err:
            self.notes.append(f"mount facts could not be read: {err}")
            return None
        return facts if len(facts) and (facts["kind"] != "unknown").any() else None

    # ---------------------------------------------------------------- platform
    def meta_int(self, *keys) -> Optional[int]:
        """First integer job-metadata value among keys (platform data, when recorded)."""
        for key in keys:
            try:
                return int(str(self.metadata[key]).strip())
            except (KeyError, ValueError):
                continue
        return None

    @functools.cached_property
    def nodes(self):
        """(node count, where it came from), or (None, None)."""
        n = self.meta_int("nnodes", "nodes", "SLURM_NNODES", "num_nodes")
        if n:
            return n, "job metadata"
        for mod in ("POSIX", "MPIIO"):
            name = "DXT_" + mod
            if name in self.modules:
                try:
                    hosts = self.log.dxt_records(mod)["hostname"]
                except (LogError, ValueError):
                    continue
                if len(hosts):
                    return int(pd.Series(hosts).astype(str).nunique()), "DXT host names"
        return None, None

