"""What the rules read: the log's JobView (iolens.view: damaged records and
segments already set aside), its thresholds, and the counter columns the rules
declared they need, each module decoded once.

Only declared counters are kept (``JobView.records(columns=...)``), so a
million-record log costs a handful of numeric columns, not every counter.
``col`` is the view's reading of a counter (-1, "not monitored", as 0)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Dict, Iterable, Optional

import numpy as np
import pandas as pd

from .._meta import module_info, trace_modules
from ..errors import LogError
from ..view.times import io_time as view_io_time
from .scale import show
from ..view import JobView
from ..view.columns import amount as col  # noqa: F401 - the rules' counter reader


_OPS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}


@dataclass(frozen=True)
class Test:
    """One threshold test a check made: ``value op limit`` (the limit is the
    threshold ``key`` in force), or, with no key, a reason the rule did not apply."""
    label: str
    value: Optional[float]
    op: str
    key: str
    limit: object
    passed: bool

    def text(self) -> str:
        if not self.key:
            if self.value is None:
                return f"not applicable: {self.label}"
            return f"{self.label} = {self.value:g}"
        name = self.key.split(".")[1]
        mark = "yes" if self.passed else "no"
        return (f"{self.label} = {show(name, self.value)} {self.op} {self.key} "
                f"({show(name, self.limit)}): {mark}")


class Context:
    def __init__(self, log, thresholds: dict, needs: Dict[str, Iterable[str]], view=None):
        """`view`: the log's JobView when the caller has one already (the report):
        its records are then read whole, from its cache, not decoded again."""
        self.log = log
        self.th = thresholds
        self.rule = ""                       # the rule being checked (set by the engine)
        self.tests: Dict[str, list] = {}     # rule id -> [Test] (what --explain shows)
        self._needs = {m: sorted(set(c)) for m, c in needs.items()}
        self._shared_view = view is not None
        self.view = view if view is not None else JobView(log)
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

    # ---------------------------------------------------------------- explain
    def gate(self, label: str, value, op: str, key: str) -> bool:
        """Compare a measured value with the threshold ``key`` ("table.name") in
        force, record the test for --explain, and return whether it passed."""
        table, name = key.split(".")
        limit = self.th[table][name]
        passed = bool(_OPS[op](float(value), float(limit)))
        self.tests.setdefault(self.rule, []).append(Test(label, float(value), op, key, limit,
                                                         passed))
        return passed

    def gate_each(self, label: str, values, op: str, key: str):
        """gate() over an array: the element-wise result; --explain shows the value
        closest to passing (the largest for > and >=, the smallest for < and <=)."""
        table, name = key.split(".")
        limit = self.th[table][name]
        arr = np.asarray(values, dtype=np.float64)
        passed = _OPS[op](arr, float(limit))
        best = (arr.max() if op.startswith(">") else arr.min()) if arr.size else 0.0
        self.tests.setdefault(self.rule, []).append(
            Test(label + (" (the file closest to the threshold)" if arr.size > 1 else ""),
                 float(best), op, key, limit, bool(np.any(passed))))
        return passed

    def measure(self, label: str, value) -> None:
        """Record a measured value that no single threshold judges (for --explain)."""
        self.tests.setdefault(self.rule, []).append(Test(label, float(value), "", "", None,
                                                         False))

    def skip(self, reason: str) -> None:
        """Record why the rule does not apply to this log (for --explain)."""
        self.tests.setdefault(self.rule, []).append(Test(reason, None, "", "", None, False))

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
            if self._shared_view:
                return self.view.records(module)
            return self.view.records(module, columns=self._needs.get(module) or [])
        except KeyError as err:
            self.notes.append(f"{module} records could not be read: {err}")
            return None

    def io_time(self, module: str):
        """The view's per-process I/O time of a module (iolens.view.times.io_time,
        the darshan-parser --perf arithmetic), computed on the declared columns
        this context already holds rather than on a second, all-counter frame."""
        key = "IOTIME:" + module
        if key not in self._frames:
            frame = self.frame(module)
            self._frames[key] = None if frame is None or not len(frame) else \
                view_io_time(frame, module_info(module).prefix, self.nprocs)
        return self._frames[key]

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
        for name in trace_modules():
            mod = name[len("DXT_"):]          # dxt_records takes the traced module's symbol
            if name in self.modules:
                try:
                    hosts = self.log.dxt_records(mod)["hostname"]
                except (LogError, ValueError):
                    continue
                if len(hosts):
                    return int(pd.Series(hosts).astype(str).nunique()), "DXT host names"
        return None, None

