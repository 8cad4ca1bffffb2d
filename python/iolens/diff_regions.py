"""Regions compared between two runs (`iolens diff`; issue 33, docs/regions.md).

Each run's REGION records are summed over ranks per region name: its runs
(count) and seconds inside it, and per layer the bytes read and written, the data
and metadata operations and the I/O time spent inside it.  Every region of either
run is listed with both runs' figures; a figure that changed carries its delta.
Counts, bytes and operations are exact, so any difference is a change.  Times
differ between two runs of one program by noise, so a time changed only when it
moved as much as diff's I/O-time change needs (diff.TIME_NOISE) and by at least
TIME_FLOOR seconds."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .diff import TIME_NOISE, _human, ratio_size
from .log import Log
from .region_frame import LAYER_SUMS, region_layer_sums, region_runs

TIME_FLOOR = 0.1                # seconds apart at least, besides diff.TIME_NOISE
RUN_FIGURES = ("count", "total_time")


@dataclass
class Figure:
    """One figure in both runs (None: the region is not in that run)."""
    name: str
    a: Optional[float]
    b: Optional[float]

    @property
    def is_time(self) -> bool:
        return self.name.endswith("time")

    @property
    def changed(self) -> bool:
        if self.a is None or self.b is None or self.a == self.b:
            return False
        if not self.is_time:
            return True
        return abs(self.b - self.a) >= TIME_FLOOR and ratio_size(self.a, self.b) > TIME_NOISE

    def to_dict(self) -> dict:
        delta = self.b - self.a if self.changed else None
        return {"a": self.a, "b": self.b, "delta": delta, "changed": self.changed}


@dataclass
class RegionDiff:
    region: str
    where: str                                  # "both", "a" or "b"
    figures: List[Figure] = field(default_factory=list)
    layers: Dict[str, List[Figure]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.where != "both" or any(
            f.changed for f in self.figures + [f for fs in self.layers.values() for f in fs])

    def to_dict(self) -> dict:
        return {"region": self.region, "in": self.where, "changed": self.changed,
                **{f.name: f.to_dict() for f in self.figures},
                "layers": {layer: {f.name: f.to_dict() for f in figs}
                           for layer, figs in self.layers.items()}}


def region_summary(log: Log) -> Optional[Dict[str, dict]]:
    """{region: {count, total_time, layers: {layer: {figure: value}}}} summed over
    ranks, layers with no I/O left out; None when the log has no REGION records."""
    if "REGION" not in log.modules:
        return None
    frame = log.regions()
    if not len(frame):
        return None
    out: Dict[str, dict] = {}
    for name, run in region_runs(frame).iterrows():
        out[str(name)] = {k: float(run[k]) for k in RUN_FIGURES} | {"layers": {}}
    for (name, layer), sums in region_layer_sums(frame).iterrows():
        figures = {k: float(sums[k]) for k in LAYER_SUMS}
        if any(figures.values()):
            out[str(name)]["layers"][str(layer)] = figures
    return out


def compare_regions(a: Optional[Dict[str, dict]], b: Optional[Dict[str, dict]]
                    ) -> Optional[List[RegionDiff]]:
    """Every region of either run, changed ones first, then by name; None when
    neither run has regions."""
    if a is None and b is None:
        return None
    a, b = a or {}, b or {}
    out = []
    for name in sorted(set(a) | set(b)):
        ra, rb = a.get(name), b.get(name)
        where = "both" if ra and rb else ("a" if ra else "b")
        diff = RegionDiff(name, where, [Figure(k, _get(ra, k), _get(rb, k))
                                        for k in RUN_FIGURES])
        layers = dict.fromkeys([*(ra or {}).get("layers", {}), *(rb or {}).get("layers", {})])
        for layer in layers:
            la = (ra or {}).get("layers", {}).get(layer, {} if ra else None)
            lb = (rb or {}).get("layers", {}).get(layer, {} if rb else None)
            diff.layers[layer] = [Figure(k, _get(la, k), _get(lb, k)) for k in LAYER_SUMS]
        out.append(diff)
    out.sort(key=lambda d: not d.changed)       # stable: by name within each kind
    return out


def _get(figures: Optional[dict], key: str) -> Optional[float]:
    return None if figures is None else float(figures.get(key, 0.0))


def diff_regions(path_a, path_b) -> Optional[List[RegionDiff]]:
    with Log(path_a) as la, Log(path_b) as lb:
        return compare_regions(region_summary(la), region_summary(lb))


def region_lines(diffs: List[RegionDiff]) -> List[str]:
    """The text section: one head line per region, then its figures (A -> B, with
    the delta of each figure that changed)."""
    out = ["regions (REGION records, summed over ranks; A -> B):"]
    for d in diffs:
        state = {"a": "only in A", "b": "only in B"}.get(d.where,
                                                         "changed" if d.changed else "unchanged")
        out.append(f"  `{d.region}`: {state}")
        out.append("      " + ", ".join(_show(f) for f in d.figures))
        for layer, figs in d.layers.items():
            out.append(f"      {layer}: " + ", ".join(_show(f) for f in figs))
    return out


_LABEL = {"count": "count", "total_time": "time", "bytes_read": "bytes read",
          "bytes_written": "bytes written", "data_ops": "data ops", "meta_ops": "meta ops",
          "io_time": "I/O time"}


def _value(v: float, unit: str) -> str:
    return _human(v, unit) if unit else f"{int(v):,}"


def _show(f: Figure) -> str:
    unit = "s" if f.is_time else ("B" if f.name.startswith("bytes") else "")
    if f.a is None or f.b is None:
        return f"{_LABEL[f.name]} {_value(f.a if f.b is None else f.b, unit)}"
    if f.a == f.b:
        return f"{_LABEL[f.name]} {_value(f.a, unit)}"
    text = f"{_LABEL[f.name]} {_value(f.a, unit)} -> {_value(f.b, unit)}"
    if f.changed:
        sign = "+" if f.b > f.a else "-"
        text += f" ({sign}{_value(abs(f.b - f.a), unit)})"
    return text
