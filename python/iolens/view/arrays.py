"""A module's decoded records as named numpy columns, before any DataFrame.

The record checks and the fleet's sums read a few counters of every record of
every module.  Wrapped in a DataFrame, each column read costs pandas' item
access (about 0.1 ms, tens of columns per module), more than the arithmetic:
on the fleet's logs that made an ingest 8x slower.  ``Arrays`` holds the C
core's decoded columns (iolens._core) as they come and answers what the view's
formulas ask of a frame: ``len``, ``name in``, ``[name]`` (an ndarray) and
``columns``, so the same formula reads either (view.columns.counter)."""
from __future__ import annotations

from typing import Dict, Iterable, Optional

import numpy as np

from .. import _frames
from .._meta import ModuleInfo


class Arrays:
    """Equal-length named columns: id (uint64), rank (int64), name (object),
    and the chosen counters.  Read-only views of the decoded buffers."""

    def __init__(self, columns: Dict[str, np.ndarray], n: int):
        self._columns = columns
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __contains__(self, name: str) -> bool:
        return name in self._columns

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name]

    @property
    def columns(self):
        return self._columns.keys()

    def take(self, keep: np.ndarray) -> "Arrays":
        """The rows where the boolean mask `keep` is true (copies)."""
        return Arrays({k: v[keep] for k, v in self._columns.items()}, int(keep.sum()))


def read(log, info: ModuleInfo, columns: Optional[Iterable[str]]) -> Arrays:
    """The module's records with the `columns` counters (every counter when
    None), streamed by the C core when it can (only those counters are ever
    held), else taken from the whole decoded region (DFS, DAOS)."""
    if info.name not in log.modules:
        d = None
    elif columns is not None:
        ci, fi = _frames.selected_counters(info, columns)
        d = log._c.records_columns(info.id, ci, fi)
        if d is not None:
            return _arrays(log, d, [info.counters[i] for i in ci],
                           [info.fcounters[i] for i in fi], range(len(ci)), range(len(fi)))
        d = log._c.records(info.id)
    else:
        ci, fi = range(len(info.counters)), range(len(info.fcounters))
        d = log._c.records(info.id)
    if d is None:
        return _empty(info, columns)
    return _arrays(log, d, [info.counters[i] for i in ci],
                   [info.fcounters[i] for i in fi], ci, fi)


def _arrays(log, d: dict, int_names, flt_names, ci, fi) -> Arrays:
    ids, rank, ints, flts = _frames.record_arrays(d)
    cols = {"id": ids, "rank": rank,
            "name": log._name_lookup[_frames.view(d["name_code"], np.int32)]}
    cols.update(zip(int_names, (ints[:, i] for i in ci)))
    cols.update(zip(flt_names, (flts[:, i] for i in fi)))
    return Arrays(cols, d["count"])


def _empty(info: ModuleInfo, columns) -> Arrays:
    wanted = set(info.counters) | set(info.fcounters) if columns is None else set(columns)
    cols = {"id": np.zeros(0, np.uint64), "rank": np.zeros(0, np.int64),
            "name": np.zeros(0, object)}
    cols.update((c, np.zeros(0, np.int64)) for c in info.counters if c in wanted)
    cols.update((c, np.zeros(0, np.float64)) for c in info.fcounters if c in wanted)
    return Arrays(cols, 0)
