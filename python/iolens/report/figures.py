"""Figure functions: each takes the ReportData and returns a matplotlib
Figure, or None when the log has no data for it.  Titles, axis labels with
units and captions live here and in the registry, never in the page code."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be set first)
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

from . import activity, files, region_bands, stats  # noqa: E402
from .interfaces import TRACE_MODULES, api_name  # noqa: E402
from .units import byte_scale, human_seconds  # noqa: E402

READ, WRITE, META = "#4C72B0", "#DD8452", "#55A868"


def _figure(width=7.0, height=3.2, rows=1, cols=1, **kw):
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False, **kw)
    return fig, axes


def _panels(count: int, panel_height: float):
    """A grid of `count` panels, two per row when there are several."""
    cols = 1 if count == 1 else 2
    rows = -(-count // cols)
    fig, axes = _figure(width=7.0 if cols == 1 else 10.5, height=panel_height * rows,
                        rows=rows, cols=cols)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, axes.flat[:count]


def _finish(fig):
    fig.tight_layout()
    return fig


def io_cost(data):
    frame = stats.cost(data)
    if not len(frame) or not frame.to_numpy().any():
        return None
    fig, ax = _figure(height=0.6 + 0.45 * len(frame))
    ax = ax[0, 0]
    left = np.zeros(len(frame))
    for column, color in zip(frame.columns, (READ, WRITE, META)):
        ax.barh(frame.index, frame[column], left=left, color=color, label=column)
        left += frame[column].to_numpy()
    ax.invert_yaxis()
    ax.set_xlabel("average time per process (seconds)")
    ax.set_ylabel("interface")
    ax.set_title("I/O cost per process")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    return _finish(fig)


def op_counts(data):
    counts = {k: v for k, v in stats.op_counts(data).items() if v.sum() > 0}
    if not counts:
        return None
    fig, axes = _panels(len(counts), 2.8)
    for ax, (name, series) in zip(axes, counts.items()):
        ax.bar(series.index, series.to_numpy(), color=READ)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{name} operation counts")
        ax.set_ylabel("operations (count)")
        ax.set_xlabel("operation")
        ax.tick_params(axis="x", labelrotation=30, labelsize="small")
        plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
    return _finish(fig)


def access_sizes(data):
    hists = {k: v for k, v in stats.size_histograms(data).items() if v.to_numpy().sum() > 0}
    if not hists:
        return None
    fig, axes = _panels(len(hists), 3.0)
    x = np.arange(len(stats.SIZE_BINS))
    for ax, (module, hist) in zip(axes, hists.items()):
        ax.bar(x - 0.2, hist["read"], 0.4, color=READ, label="read")
        ax.bar(x + 0.2, hist["write"], 0.4, color=WRITE, label="write")
        ax.set_xticks(x, [b.replace("_", "–").replace("–PLUS", "+") for b in hist.index],
                      fontsize="small", rotation=30, ha="right", rotation_mode="anchor")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(f"{module} access sizes")
        ax.set_xlabel("access size (bytes)")
        ax.set_ylabel("accesses (count)")
        ax.legend(fontsize="small")
    return _finish(fig)


def _middle_cut(text: str, keep: int = 36) -> str:
    """text shortened in its middle to fit an axis label (a DFS container's
    "pool:container" uuids are 73 characters); the table beside keeps it whole."""
    return text if len(text) <= keep else text[:keep // 2 - 1] + "…" + text[-(keep // 2):]


def by_mount(data):
    frame = files.by_mount(data)
    if not len(frame) or not (frame["read"] + frame["written"]).any():
        return None
    # The standard streams and MPI-internal files stay in the table only.
    frame = frame[~frame["special"] & ((frame["read"] + frame["written"]) > 0)].head(files.TOP_N)
    if not len(frame):
        return None
    labels = [f"{_middle_cut(m)} ({mod})" for m, mod in zip(frame["mount"], frame["module"])]
    fig, ax = _figure(height=1.6 + 0.45 * len(frame))
    ax = ax[0, 0]
    y = np.arange(len(frame))
    scale, unit = byte_scale(max(frame["read"].max(), frame["written"].max()))
    ax.barh(y - 0.2, frame["read"] / scale, 0.4, color=READ, label="read")
    ax.barh(y + 0.2, frame["written"] / scale, 0.4, color=WRITE, label="written")
    ax.set_yticks(y, labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel(f"data ({unit})")
    ax.set_ylabel("mount point (module)")
    ax.set_title("Data per mount point")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _finish(fig)


def sequential(data):
    frame = files.sequential(data)
    if not len(frame):
        return None
    fig, ax = _figure(height=2.6)
    ax = ax[0, 0]
    x = np.arange(len(frame))
    share = frame[["sequential", "consecutive"]].div(frame["operations"], axis=0) * 100
    ax.bar(x - 0.2, share["sequential"], 0.4, color=READ, label="sequential")
    ax.bar(x + 0.2, share["consecutive"], 0.4, color=WRITE, label="consecutive")
    ax.set_xticks(x, [f"POSIX {op}" for op in frame.index])
    ax.set_ylim(0, 105)
    ax.set_ylabel("share of operations (%)")
    ax.set_xlabel("operation type")
    ax.set_title("Sequential and consecutive POSIX accesses")
    ax.legend(fontsize="small")
    return _finish(fig)


# The access timeline draws a span shorter than this share of the time axis at
# this width, outlined, so that a 10 ms open-to-close shows in a 10 min job.
MIN_SPAN_SHARE = 0.006


def timeline(data):
    frame = activity.timeline(data)
    if not len(frame):
        return None
    modules = list(dict.fromkeys(frame["module"]))
    nranks = frame["rank"].nunique()
    span = max(data.run_time, float(frame["end"].max()), 1e-9)
    min_width = MIN_SPAN_SHARE * span
    fig, ax = _figure(height=min(2.2 + 0.18 * nranks * len(modules) ** 0.5, 7.0))
    ax = ax[0, 0]
    colors = plt.get_cmap("tab10")
    # Each module gets its own slice of a rank's row.
    lane = 0.8 / len(modules)
    outline = f"< {human_seconds(min_width)}, widened"
    for k, module in enumerate(modules):
        part = frame[frame["module"] == module]
        y = part["rank"].to_numpy() + (k - (len(modules) - 1) / 2) * lane
        start = part["start"].to_numpy()
        width = part["end"].to_numpy() - start
        short = width < min_width
        many = len(part) > 2000
        ax.barh(y, np.maximum(width, min_width), left=start, height=lane * 0.9,
                color=colors(k), label=module, rasterized=many)
        if short.any():
            ax.barh(y[short], min_width, left=start[short], height=lane * 0.9, fill=False,
                    edgecolor="black", linewidth=0.6, rasterized=many, label=outline)
            outline = None   # one legend entry for all modules
    ax.set_xlim(0, max(span, float(frame["start"].max()) + min_width) * 1.01)
    ranks = np.unique(frame["rank"].to_numpy())
    # over the spans: a rank's span usually covers its whole run, and would hide them
    bands = region_bands.draw(ax, region_bands.bands(data), {r: [r] for r in ranks}, over=True)
    region_bands.legend(ax, bands, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_xlabel("time since job start (seconds)")
    if len(ranks) <= 32:
        ax.set_yticks(ranks)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("rank (−1 = shared files)")
    ax.set_title("File access timeline per process")
    return region_bands.with_note(data, _finish(fig))


# A heat map with fewer bins than this inside the job's run time shows no change
# over time; per-process bars show what it recorded instead.
MIN_HEAT_BINS = 3


def _heat(maps, title, run_time, bands=None):
    """Heat maps of {api: (width, read, write, ranks)}: one panel per API that
    moved data, bins after the job's end left out, the colour scale in the unit
    that fits the largest bin.  A single process gets bars over time instead,
    because a one-row heat map shows amounts only as shades of one band.  `bands`
    (region_bands.Bands) are shaded on every panel."""
    maps = {api: m for api, m in maps.items() if (m[1] + m[2]).any()}
    if not maps:
        return None
    fig, axes = _figure(height=2.8 * len(maps), rows=len(maps))
    for ax, (api, (width, read, write, ranks)) in zip(axes[:, 0], maps.items()):
        ax.set_title(f"{title}: {api_name(api)}" + (f" (rank {ranks[0]})" if len(ranks) == 1 else ""))
        ax.set_xlabel("time since job start (seconds)")
        if len(ranks) == 1:
            _bins_as_bars(ax, width, _trim(read, width, run_time, read + write),
                          _trim(write, width, run_time, read + write), bands)
        else:
            _heat_panel(fig, ax, width, _trim(read + write, width, run_time), ranks, bands)
    return _finish(fig)


def _bins_as_bars(ax, width, read, write, bands=None):
    scale, unit = byte_scale((read + write).max())
    x = np.arange(read.shape[1]) * width
    ax.bar(x, read[0] / scale, width, align="edge", color=READ, label="read")
    ax.bar(x, write[0] / scale, width, bottom=read[0] / scale, align="edge", color=WRITE,
           label="written")
    ax.set_xlim(0, x[-1] + width)
    ax.set_ylabel(f"data moved ({unit})")
    handles = region_bands.draw(ax, bands)
    region_bands.legend(ax, handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _heat_panel(fig, ax, width, total, ranks, bands=None):
    scale, unit = byte_scale(total.max())
    # Rows are the ranks that moved data; only a contiguous set of ranks may be
    # labelled with rank numbers.
    contiguous = ranks.max() - ranks.min() + 1 == len(ranks)
    top, bottom = (ranks.min() - 0.5, ranks.max() + 0.5) if contiguous else (-0.5, len(ranks) - 0.5)
    image = ax.imshow(total / scale, aspect="auto", interpolation="nearest", cmap="viridis",
                      extent=(0, width * total.shape[1], bottom, top), vmin=0)
    fig.colorbar(image, ax=ax, label=f"data moved ({unit})")
    ax.set_ylabel("rank" if contiguous else "process (ranks with data, ascending)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    rows = {int(r): [int(r) if contiguous else k] for k, r in enumerate(ranks)}
    region_bands.legend_below(ax, region_bands.draw(ax, bands, rows, over=True))


def _trim(matrix, width, run_time, data=None):
    """The bins up to the job's end, and every bin that holds data (in `data`,
    default `matrix`)."""
    data = matrix if data is None else data
    used = np.flatnonzero(data.any(axis=0))
    keep = max(int(np.ceil(run_time / width)) if width > 0 else 0,
               int(used[-1]) + 1 if len(used) else 0, 1)
    return matrix[:, :keep]


def _per_process(maps, run_time, width):
    """Bytes read and written per process and API, for a heat map too coarse to
    show time: (sentence, figure)."""
    maps = {api: m for api, m in maps.items() if (m[1] + m[2]).any()}
    if not maps:
        return "The runtime heat map recorded no data moved."
    fig, axes = _panels(len(maps), 2.6)
    for ax, (api, (_, read, write, ranks)) in zip(axes, maps.items()):
        reads, writes = read.sum(axis=1), write.sum(axis=1)
        scale, unit = byte_scale(max(reads.max(), writes.max()))
        x = np.arange(len(ranks))
        ax.bar(x - 0.2, reads / scale, 0.4, color=READ, label="read")
        ax.bar(x + 0.2, writes / scale, 0.4, color=WRITE, label="written")
        ax.set_xticks(x, [str(r) for r in ranks] if len(ranks) <= 32 else [""] * len(ranks))
        ax.set_xlabel("rank")
        ax.set_ylabel(f"data moved ({unit})")
        ax.set_title(f"Data moved per process: {api_name(api)}")
        ax.legend(fontsize="small", loc="best")
        ax.margins(y=0.15)
    sentence = (f"The job ran {human_seconds(run_time)}, less than {MIN_HEAT_BINS} of the "
                f"runtime heat map's {human_seconds(width)} time bins, so the heat map cannot "
                "show change over time; the bars show the data each process moved.")
    return sentence, _finish(fig)


def heatmap(data):
    if data.file is not None:
        return ("The runtime heat map counts bytes per process and API, not per file, "
                "so a per-file report leaves it out.")
    maps = data.heatmap()
    if not maps:
        return None
    width = min(m[0] for m in maps.values())
    if width > 0 and data.run_time < MIN_HEAT_BINS * width:
        return _per_process(maps, data.run_time, width)
    drawn = _heat(maps, "Heat map", data.run_time, region_bands.bands(data))
    return region_bands.with_note(data, drawn) or "The runtime heat map recorded no data moved."


def dxt_heatmap(data):
    drawn = _heat(activity.dxt_heatmap(data), "DXT heat map", data.run_time,
                  region_bands.bands(data))
    return region_bands.with_note(data, drawn)


def dxt_threads(data):
    """Bytes per time bin for every (rank, thread) lane of the traces with thread ids."""
    maps = {api_name(module): b for module, b in ((module, activity.dxt_thread_bins(data, module))
                                                  for module in TRACE_MODULES) if b}
    modules = {api_name(module): module for module in TRACE_MODULES}
    if not maps:
        return None if activity.dxt_threads(data) is not None else activity.NO_THREAD_IDS
    heights = [1.2 + 0.28 * len(labels) for _, _, labels in maps.values()]
    fig, axes = _figure(height=sum(heights), rows=len(maps),
                        gridspec_kw={"height_ratios": heights})
    for ax, (api, (width, mat, labels)) in zip(axes[:, 0], maps.items()):
        scale, unit = byte_scale(mat.max())
        extent = (0, width * mat.shape[1], len(labels) - 0.5, -0.5)
        image = ax.imshow(mat / scale, aspect="auto", interpolation="nearest", cmap="viridis",
                          extent=extent, vmin=0)
        fig.colorbar(image, ax=ax, label=f"data moved ({unit})")
        ax.set_yticks(range(len(labels)), labels, fontsize="small")
        ax.set_title(f"Per-thread activity: {api}")
        ax.set_xlabel("time since job start (seconds)")
        rows = {}
        for k, rank in enumerate(activity.dxt_lane_ranks(data, modules[api])):
            rows.setdefault(rank, []).append(k)
        region_bands.legend_below(ax, region_bands.draw(ax, region_bands.bands(data), rows,
                                                        over=True))
    return region_bands.with_note(data, _finish(fig))
