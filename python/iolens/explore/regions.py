"""The explorer's regions (program phases, docs/regions.md): the bands the page
draws (from the REGION records: each region's first begin and last end per rank)
and the region of every traced segment, which the index keeps as a column so the
page can filter by region.

Codes: the index's ``region`` column holds, per segment, the position of its
region's name in ``meta["regions"]`` (sorted names), or NO_REGION outside every
region.  The summary's region names start with ``meta["regions"]`` in that order,
then the REGION records' names that no segment ran in, so one code names one
region for the bands, the selector and the filter alike."""
from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from ..errors import LogError
from ..region_frame import region_spans

NO_REGION = -1
# Bands the summary carries at most: one per region and rank, else job-wide spans
# (one per region), so the page stays small for any number of ranks.
MAX_SPANS = 20_000


class SegmentRegions:
    """The region of each segment of one DXT module, chunk by chunk in stored order
    (the order of the index's streaming reader and of ``Log.dxt``).

    The names come from ``Log.dxt(module)["region"]`` (the region's name, <NA>
    outside any region), read once per module when the log has the DXT_REGION
    module; a log without it costs nothing (every segment: NO_REGION).  That
    column comes with the whole module's frame (the streaming reader does not
    carry regions), so indexing a log with segment regions loads each DXT module
    whole once, then keeps one code per segment (4 bytes) while it is indexed:
    the index's bounded memory holds for logs without segment regions only."""

    def __init__(self, log, module: str, names: Dict[str, int]):
        self.names, self.pos = names, 0
        self.codes: Optional[np.ndarray] = None
        if "DXT_REGION" in (log.modules or {}):
            try:
                column = log.dxt(module).get("region")
            except (LogError, KeyError, ValueError):
                column = None
            if column is not None:
                self.codes = self._encode(column)

    def _encode(self, column) -> np.ndarray:
        """Provisional codes (first appearance); final ones come from final_codes()."""
        codes = np.full(len(column), NO_REGION, np.int32)
        present = column.notna().to_numpy()
        found = column[present].astype(str).to_numpy()
        codes[present] = [self.names.setdefault(n, len(self.names)) for n in found]
        return codes

    def next(self, n: int) -> np.ndarray:
        """The provisional codes of the next `n` segments."""
        lo, self.pos = self.pos, self.pos + n
        if self.codes is None or lo >= len(self.codes):
            return np.full(n, NO_REGION, np.int32)
        part = self.codes[lo:self.pos]
        return np.concatenate([part, np.full(n - len(part), NO_REGION, np.int32)])


def final_codes(names: Dict[str, int]):
    """(provisional -> final code array, sorted names); NO_REGION stays itself."""
    order = sorted(names)
    remap = np.zeros(len(names) + 1, np.int32)      # index k + 1 for provisional k (the column's type)
    remap[0] = NO_REGION
    for final, name in enumerate(order):
        remap[names[name] + 1] = final
    return remap, order


def bands(log, segment_names: List[str]) -> dict:
    """The page's region data: ``names`` (segment regions first, see the module's
    docstring), ``filterable`` (how many of them the index's segments carry: the
    selector's choices) and ``spans`` (columns region, rank, start, end: per region and
    rank, rank -1 for a record shared by every rank; job-wide spans per region
    when there would be more than MAX_SPANS)."""
    names = list(segment_names)
    empty = {"names": names, "filterable": len(names),
             "spans": {"region": [], "rank": [], "start": [], "end": []}}
    if "REGION" not in (log.modules or {}):
        return empty
    try:
        frame = log.regions()
    except (LogError, KeyError, ValueError):
        return empty
    runs = region_spans(frame, float(log.job.get("run_time") or 0.0))
    names += sorted(set(runs["region"]) - set(names))
    code = {n: i for i, n in enumerate(names)}
    if len(runs) > MAX_SPANS:
        runs = runs.groupby("region", as_index=False).agg(start=("start", "min"),
                                                          end=("end", "max"))
        runs["rank"] = -1
    return {"names": names, "filterable": len(segment_names),
            "spans": {"region": [code[n] for n in runs["region"]],
                      "rank": runs["rank"].astype(int).tolist(),
                      "start": runs["start"].astype(float).tolist(),
                      "end": runs["end"].astype(float).tolist()}}
