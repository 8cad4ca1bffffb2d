"""Findings per region (issue 33; docs/diagnosis.md, "Per region").

A rule with a ``region_pattern`` names a pattern the REGION records can show per
program phase: small requests (mean request size), metadata-heavy I/O (share of
metadata operations) and, when the DXT segments carry a ``region`` column, random
access.  When its finding's pattern shows in some regions and not in others, the
finding names both, each with its figures.  This is attribution of the finding
that fired, not a finding of its own: its cost, its root cause and the
per-process cap do not change.  Where the pattern is in every region with I/O
(or in none) no split is claimed.  Logs without regions are left as they are."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import pandas as pd

from .. import _meta
from ..region_frame import region_layer_sums
from .checks_access import SMALL_IO_MODULES
from .measure import pct, size

# What each pattern is called in a finding, and the layers it is judged on.
WORDS = {"small": "small requests", "metadata": "metadata-heavy I/O",
         "random": "random access"}
SMALL_LAYERS = SMALL_IO_MODULES        # the small-request rules' layers, first called first


def _meta_layers(table):
    """The metadata rules' layers: the file-system layers the REGION records hold."""
    held = set(table.index.get_level_values("layer"))
    return tuple(layer for layer in _meta.file_system_layers() if layer in held)


@dataclass
class RegionFigures:
    """One region's I/O on the layer(s) a pattern is judged on, summed over ranks."""
    region: str
    layer: str
    data_ops: float
    meta_ops: float
    bytes: float
    io_time: float
    io_share: float                 # of those layers' I/O time inside all regions
    random_share: Optional[float] = None    # non-sequential share (DXT), when judged
    random_ops: float = 0.0                 # ... and how many accesses that is

    @property
    def mean_request(self) -> float:
        return self.bytes / self.data_ops if self.data_ops else 0.0

    @property
    def meta_share(self) -> float:
        ops = self.data_ops + self.meta_ops
        return self.meta_ops / ops if ops else 0.0

    def text(self) -> str:
        out = (f"`{self.region}`: {self.layer} {int(self.data_ops):,} data operations "
               f"averaging {size(self.mean_request)}, {int(self.meta_ops):,} metadata "
               f"operations ({pct(self.meta_ops, self.data_ops + self.meta_ops)})")
        if self.random_share is not None:
            out += f", {100 * self.random_share:.1f} % not sequential"
        return out + f", {100 * self.io_share:.0f} % of the regions' {self.layer} I/O time"

    def to_dict(self) -> dict:
        return {"region": self.region, "layer": self.layer,
                "data_ops": int(self.data_ops), "meta_ops": int(self.meta_ops),
                "bytes": int(self.bytes), "mean_request_bytes": float(self.mean_request),
                "meta_share": float(self.meta_share), "io_seconds": float(self.io_time),
                "io_share": float(self.io_share),
                "random_share": None if self.random_share is None else float(self.random_share)}


@dataclass
class RegionSplit:
    """The regions a finding's pattern is in and those it is not in."""
    pattern: str
    shown: List[RegionFigures] = field(default_factory=list)
    absent: List[RegionFigures] = field(default_factory=list)

    def headline(self) -> str:
        def names(figs):
            return ", ".join(f"`{f.region}`" for f in figs)
        word = "region" if len(self.shown) == 1 else "regions"
        return f"in {word} {names(self.shown)}, not in {names(self.absent)}"

    def lines(self) -> List[str]:
        out = [f"{WORDS[self.pattern]} by region (REGION records):"]
        out += [f"  in {f.text()}" for f in self.shown]
        out += [f"  not in {f.text()}" for f in self.absent]
        return out

    def to_dict(self) -> dict:
        return {"pattern": self.pattern, "in": [f.to_dict() for f in self.shown],
                "not_in": [f.to_dict() for f in self.absent]}


def attribute(finding, ctx) -> None:
    """Split `finding` by region when its rule names a pattern, the log has
    regions and the pattern shows in some regions but not in all: the finding
    gains ``regions``, its message names them and its evidence their figures.
    Every region's values are recorded as the rule's tests (--explain)."""
    pattern = finding.rule.region_pattern
    table = _table(ctx) if pattern else None
    if table is None:
        return
    judged = JUDGES[pattern](ctx, table)
    if judged is None:
        return
    split = RegionSplit(pattern, [f for f, s in judged if s], [f for f, s in judged if not s])
    if not split.shown or not split.absent:
        ctx.measure(f"regions with I/O showing {WORDS[pattern]}, of {len(judged)} "
                    "(no split by region unless some do and some do not)", len(split.shown))
        return
    finding.regions = split
    finding.hit.message += f" {split.headline()}"
    finding.hit.evidence += split.lines()


def _table(ctx) -> Optional[pd.DataFrame]:
    """The REGION records summed over ranks: one row per region and layer, or None."""
    key = "REGIONS"
    if key not in ctx._frames:
        frame = ctx.log.regions() if "REGION" in ctx.modules else None
        if frame is None or not len(frame):
            ctx._frames[key] = None
        else:
            ctx._frames[key] = region_layer_sums(frame)
    return ctx._frames[key]


def _figures(table, layers, name) -> Optional[RegionFigures]:
    """A region's figures summed over `layers`; None when it did no I/O there.
    The I/O-time share is of those layers' time inside every region."""
    rows = table[table.index.get_level_values("layer").isin(layers)]
    mine = rows[rows.index.get_level_values("region") == name].sum()
    if mine["data_ops"] + mine["meta_ops"] <= 0:
        return None
    all_time = float(rows["io_time"].sum())
    return RegionFigures(name, "+".join(layers), float(mine["data_ops"]),
                         float(mine["meta_ops"]),
                         float(mine["bytes_read"] + mine["bytes_written"]),
                         float(mine["io_time"]),
                         float(mine["io_time"]) / all_time if all_time > 0 else 0.0)


def _names(table):
    return list(dict.fromkeys(table.index.get_level_values("region")))


def _judged(ctx, table, figures_of, tests):
    """Each region with I/O on the pattern's layers (``figures_of(name)`` not None):
    (its figures, whether every test passed).  A test is (label, figure attribute,
    op, threshold key), recorded by ctx.gate for --explain."""
    out = []
    for name in _names(table):
        fig = figures_of(name)
        if fig is None:
            continue
        passed = [ctx.gate(f"region `{name}`: {label.format(layer=fig.layer)}",
                           getattr(fig, attr), op, key) for label, attr, op, key in tests]
        out.append((fig, all(passed)))
    return out


def _small(ctx, table):
    """Mean request size below sizes.small_request over at least small_io.min_count
    data operations, on the first layer of SMALL_LAYERS the region used."""
    def figures_of(name):
        return next((f for f in (_figures(table, (layer,), name) for layer in SMALL_LAYERS)
                     if f is not None and f.data_ops > 0), None)
    return _judged(ctx, table, figures_of, [
        ("{layer} data operations", "data_ops", ">=", "small_io.min_count"),
        ("{layer} mean request size", "mean_request", "<", "sizes.small_request")])


def _metadata(ctx, table):
    """Metadata operations more than regions.meta_fraction of the POSIX and STDIO
    operations, and at least regions.min_meta_ops of them."""
    return _judged(ctx, table, lambda name: _figures(table, _meta_layers(table), name), [
        ("metadata operations", "meta_ops", ">=", "regions.min_meta_ops"),
        ("metadata share of the operations", "meta_share", ">", "regions.meta_fraction")])


def _random(ctx, table):
    """From DXT segments that carry their region (a ``region`` column not all
    <NA>: log.dxt() has the column always, <NA> without DXT_REGION): the share
    of each region's POSIX accesses, after the first of each process, file and
    direction, that start before the end of the access before them."""
    seg = ctx.dxt("POSIX")
    if seg is None or "region" not in seg.columns or seg["region"].isna().all():
        ctx.skip("per region: the log's DXT segments carry no region")
        return None
    shares = random_shares(seg)

    def figures_of(name):
        fig = _figures(table, ("POSIX",), name)
        if fig is None or name not in shares.index:
            return None
        later, fig.random_ops = shares.loc[name, "later"], float(shares.loc[name, "random"])
        fig.random_share = fig.random_ops / later if later else 0.0
        return fig
    return _judged(ctx, table, figures_of, [
        ("non-sequential accesses (DXT)", "random_ops", ">=", "random.min_count"),
        ("their share (DXT)", "random_share", ">", "random.fraction")])


def random_shares(seg: pd.DataFrame) -> pd.DataFrame:
    """Per region name (the ``region`` column; null or "" outside every region):
    ``later`` (accesses after the first of their process, file and direction) and
    ``random`` (those starting before the end of the access before them)."""
    seg = seg.sort_values(["rank", "id", "op", "start"], kind="stable")
    same = np.ones(max(len(seg) - 1, 0), dtype=bool)    # row i+1 continues row i's stream
    for col in ("rank", "id", "op"):
        v = seg[col].to_numpy()
        same &= v[1:] == v[:-1]
    offset = seg["offset"].to_numpy(dtype=np.float64)
    end = offset + seg["length"].to_numpy(dtype=np.float64)
    later = np.r_[False, same] if len(seg) else np.zeros(0, dtype=bool)
    rand = later & (offset < np.r_[0.0, end[:-1]])
    named = seg["region"].astype(object).to_numpy()
    region = np.where(pd.isna(named), "", named.astype(str))     # no region: ""
    df = pd.DataFrame({"region": region, "later": later, "random": rand})
    return df[df["region"] != ""].groupby("region")[["later", "random"]].sum()


JUDGES = {"small": _small, "metadata": _metadata, "random": _random}
