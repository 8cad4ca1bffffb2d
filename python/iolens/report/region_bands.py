"""Region bands on the report's timelines (docs/report.md, "Region bands"): each
program phase (REGION record, docs/regions.md) drawn as a shaded span of the time
axis, from its first begin to its last end, in one colour per region name.

A REGION record holds only a region's first begin and last end, so a region run
many times shows as one band over all its runs.  Where a plot has one row per rank,
a rank's record shades that rank's rows and a shared record (rank -1, the MPI
reduction) the whole height; a plot without ranks shades each region's job-wide
span.  At most MAX_REGIONS names are drawn (those with the most time); the figure's
note names the rest.  Nested regions are all drawn: a region whose span holds
another drawn region's span on the same rank (an outer one) is drawn lighter, so
the inner ones show through.  A log without regions gets no band, no legend entry
and no note."""
from __future__ import annotations

from dataclasses import dataclass

from matplotlib.colors import to_rgba
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory, offset_copy
import numpy as np
import pandas as pd

from ..errors import LogError
from ..region_frame import region_spans

MAX_REGIONS = 12
LEGEND_ROWS = 8         # legend entries beyond which a legend takes two columns
MAX_NAMED = 40          # names of regions not drawn that a note lists
# More per-rank rectangles than this in one figure: job-wide spans instead (one
# rectangle per region), so a 100,000-rank job draws as fast as a small one.
MAX_RANK_BANDS = 4096
MIN_SHARE = 0.004
INNER_ALPHA, OUTER_ALPHA, EDGE_ALPHA = 0.28, 0.11, 0.9
# One colour per drawn region (MAX_REGIONS), unlike the modules' tab10 and the heat
# maps' viridis: ColorBrewer's Set1, then three of its Dark2.
COLORS = ("#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#a6a600", "#a65628",
          "#f781bf", "#999999", "#1b9e77", "#7570b3", "#e7298a")


@dataclass(frozen=True)
class Bands:
    spans: pd.DataFrame   # region, rank, start, end: one row per drawn region and rank
    colors: dict          # region -> colour
    outer: frozenset      # regions drawn lighter (their span holds another's)
    left_out: tuple       # names not drawn, most time first


def bands(data) -> Bands | None:
    """The report's region bands, computed once; None when the log has no regions."""
    return data.memo(_bands)


def _bands(data):
    if "REGION" not in data.modules:
        return None
    try:
        frame = data.log.regions()
    except (LogError, KeyError, ValueError, OSError):
        return None
    runs = region_spans(frame, data.run_time)
    if not len(runs):
        return None
    ranked = runs.groupby("region", sort=False)["total_time"].sum().sort_values(
        ascending=False, kind="stable").index.tolist()
    drawn = runs[runs["region"].isin(ranked[:MAX_REGIONS])]
    order = drawn.groupby("region", sort=False)["start"].min().sort_values(kind="stable").index
    colors = {name: COLORS[k % len(COLORS)] for k, name in enumerate(order)}
    return Bands(drawn[["region", "rank", "start", "end"]].reset_index(drop=True), colors,
                 _outer(drawn), tuple(ranked[MAX_REGIONS:]))


def _outer(spans):
    """Regions whose span holds another region's span on the same rank (a shared
    record, rank -1, is on every rank; equal spans: neither holds the other).  Past
    MAX_RANK_BANDS spans, the regions' job-wide spans are compared instead."""
    if len(spans) > MAX_RANK_BANDS:
        spans = spans.groupby("region", as_index=False).agg(start=("start", "min"),
                                                            end=("end", "max"))
        spans["rank"] = -1
    s = spans[["region", "rank", "start", "end"]]
    shared = s[s["rank"] == -1].drop(columns="rank")
    pairs = pd.concat([s.merge(s, on="rank"), s.drop(columns="rank").merge(shared, how="cross"),
                       shared.merge(s.drop(columns="rank"), how="cross")], ignore_index=True)
    holds = ((pairs.region_x != pairs.region_y) & (pairs.start_x <= pairs.start_y)
             & (pairs.end_x >= pairs.end_y)
             & ((pairs.start_x != pairs.start_y) | (pairs.end_x != pairs.end_y)))
    return frozenset(pairs.region_x[holds])


def draw(ax, b: Bands | None, rows: dict | None = None, over: bool = False) -> list:
    """Shade `b`'s regions on `ax`; return their legend handles ([] without regions).
    `rows` maps a rank to the y centres of its rows (one unit high) in a per-rank
    plot; None (or too many rectangles) shades job-wide spans.  `over` draws on top
    of an image (outlined, lighter) instead of beneath the data."""
    if b is None:
        return []
    spans, xlim, ylim = b.spans, ax.get_xlim(), ax.get_ylim()   # bands move no limit
    if rows is not None and sum(len(rows.get(r, ())) for r in spans["rank"]) > MAX_RANK_BANDS:
        rows = None
    # a band narrower than this share of the axis is widened, so that it shows
    spans = spans.assign(end=np.maximum(spans["end"], spans["start"] + MIN_SHARE * (xlim[1] - xlim[0])))
    if rows is None:
        spans = spans.groupby("region", sort=False).agg(start=("start", "min"),
                                                          end=("end", "max")).reset_index()
        spans["rank"] = -1
    for region, part in spans.groupby("region", sort=False):
        face, edge = _paint(b, region, over)
        style = dict(facecolor=face, edgecolor=edge, linewidth=0.8 if over else 0,
                     zorder=3 if over else 0.5)
        wide = part[part["rank"] == -1]
        for start, end in zip(wide["start"], wide["end"]):
            ax.axvspan(start, end, **style)
        ys, lefts, widths = [], [], []
        for rank, start, end in zip(part["rank"], part["start"], part["end"]):
            for y in (rows or {}).get(rank, ()) if rank != -1 else ():
                ys.append(y), lefts.append(start), widths.append(end - start)
        if ys:
            ax.barh(ys, widths, left=lefts, height=1.0, rasterized=len(ys) > 500, **style)
        _label(ax, region, float(part["start"].min()))
    ax.set_xlim(xlim), ax.set_ylim(ylim)
    return [Patch(facecolor=_paint(b, r, False)[0], edgecolor=b.colors[r],
                  label=_text(f"region: {r}")) for r in b.colors]


def _paint(b, region, over):
    alpha = OUTER_ALPHA if region in b.outer or over else INNER_ALPHA
    return to_rgba(b.colors[region], alpha), to_rgba(b.colors[region], EDGE_ALPHA if over else 0)


def _label(ax, region, start):
    """The region's name at the top of its first band, written upwards."""
    where = blended_transform_factory(ax.transData, ax.transAxes)
    ax.text(start, 0.98, " " + region, transform=where, rotation=90, va="top", ha="left",
            fontsize=6.5, color="#333", clip_on=True, zorder=4, parse_math=False)


def _text(label):
    """A legend label as written: a "$" is a dollar sign, not mathtext."""
    return label.replace("$", r"\$")


def legend(ax, handles, **kw):
    """The axes' legend with the region entries after its own (none: unchanged); a
    long one in two columns, the figure made tall enough to hold it."""
    own, labels = ax.get_legend_handles_labels()
    entries = len(own) + len(handles)
    ncol = 2 if handles and entries > LEGEND_ROWS else 1
    if handles:
        fig = ax.figure
        fig.set_figheight(max(fig.get_figheight(), 0.8 + 0.2 * -(-entries // ncol)))
    ax.legend(own + handles, labels + [h.get_label() for h in handles], ncol=ncol, **kw)


def legend_below(ax, handles):
    """A legend of the region entries alone, under the axes (figures whose right
    side holds a colour bar)."""
    if handles:
        below_label = offset_copy(ax.transAxes, fig=ax.figure, y=-26, units="points")
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                  bbox_transform=below_label, ncol=min(len(handles), 4), fontsize="x-small",
                  frameon=False)


def with_note(data, fig):
    """The figure, or (the sentence naming the regions not drawn, the figure)."""
    b = bands(data)
    if fig is None or isinstance(fig, (str, tuple)) or b is None or not b.left_out:
        return fig
    names = ", ".join(f"“{n}”" for n in b.left_out[:MAX_NAMED])
    more = len(b.left_out) - MAX_NAMED
    names += f" and {more} more (the per-phase table lists them)" if more > 0 else ""
    return (f"Region bands show the {MAX_REGIONS} regions with the most time; "
            f"not drawn: {names}.", fig)
