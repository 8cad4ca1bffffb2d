"""Figure functions: each takes the ReportData and returns a matplotlib
Figure, or None when the log has no data for it.  Titles, axis labels with
units and captions live here and in the registry, never in the page code."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be set first)
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

from . import activity, files, stats  # noqa: E402

READ, WRITE, META = "#4C72B0", "#DD8452", "#55A868"
MIB = 1048576.0


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


def by_mount(data):
    frame = files.by_mount(data)
    if not len(frame) or not (frame["read"] + frame["written"]).any():
        return None
    frame = frame[(frame["read"] + frame["written"]) > 0].head(files.TOP_N)
    labels = [f"{m} ({mod})" for m, mod in zip(frame["mount"], frame["module"])]
    fig, ax = _figure(height=0.8 + 0.45 * len(frame))
    ax = ax[0, 0]
    y = np.arange(len(frame))
    ax.barh(y - 0.2, frame["read"] / MIB, 0.4, color=READ, label="read")
    ax.barh(y + 0.2, frame["written"] / MIB, 0.4, color=WRITE, label="written")
    ax.set_yticks(y, labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("data (MiB)")
    ax.set_ylabel("mount point (module)")
    ax.set_title("Data per mount point")
    ax.legend(fontsize="small")
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


def timeline(data):
    frame = activity.timeline(data)
    if not len(frame):
        return None
    modules = list(dict.fromkeys(frame["module"]))
    nranks = frame["rank"].nunique()
    fig, ax = _figure(height=min(2.2 + 0.08 * nranks, 7.0))
    ax = ax[0, 0]
    colors = plt.get_cmap("tab10")
    # Each module gets its own slice of a rank's row, thin enough not to
    # hide the others when there are many ranks.
    lane = 0.8 / len(modules)
    width = max(0.3, min(4.0, 220.0 / (nranks * len(modules))))
    for k, module in enumerate(modules):
        part = frame[frame["module"] == module]
        offset = (k - (len(modules) - 1) / 2) * lane
        ax.hlines(part["rank"] + offset, part["start"], part["end"], color=colors(k),
                  linewidth=width, label=module, rasterized=len(part) > 2000)
    ax.set_xlabel("time since job start (seconds)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("rank (−1 = shared files)")
    ax.set_title("File access timeline per process")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _finish(fig)


def _heat(maps, title):
    if not maps:
        return None
    fig, axes = _figure(height=2.8 * len(maps), rows=len(maps))
    for ax, (api, (width, read, write, ranks)) in zip(axes[:, 0], maps.items()):
        total = (read + write) / MIB
        extent = (0, width * total.shape[1], ranks.max() + 0.5, ranks.min() - 0.5)
        image = ax.imshow(total, aspect="auto", interpolation="nearest", cmap="viridis",
                          extent=extent, vmin=0)
        fig.colorbar(image, ax=ax, label="data moved (MiB)")
        ax.set_title(f"{title}: {api}")
        ax.set_xlabel("time since job start (seconds)")
        # Rows are the ranks that moved data; only a contiguous set of ranks
        # may be labelled with rank numbers.
        contiguous = ranks.max() - ranks.min() + 1 == len(ranks)
        ax.set_ylabel("rank" if contiguous else "process (ranks with data, ascending)")
        if not contiguous:
            image.set_extent((0, width * total.shape[1], len(ranks) - 0.5, -0.5))
    return _finish(fig)


def heatmap(data):
    if data.file is not None:
        return ("The runtime heat map counts bytes per process and API, not per file, "
                "so a per-file report leaves it out.")
    return _heat(data.heatmap(), "Heat map")


def dxt_heatmap(data):
    return _heat(activity.dxt_heatmap(data), "DXT heat map")


def dxt_threads(data):
    """Bytes per time bin for every (rank, thread) lane of the traces with thread ids."""
    maps = {api: b for api, b in ((api, activity.dxt_thread_bins(data, module))
                                  for module, api in (("DXT_POSIX", "POSIX"),
                                                      ("DXT_MPIIO", "MPI-IO"))) if b}
    if not maps:
        return None if activity.dxt_threads(data) is not None else activity.NO_THREAD_IDS
    heights = [1.2 + 0.28 * len(labels) for _, _, labels in maps.values()]
    fig, axes = _figure(height=sum(heights), rows=len(maps),
                        gridspec_kw={"height_ratios": heights})
    for ax, (api, (width, mat, labels)) in zip(axes[:, 0], maps.items()):
        extent = (0, width * mat.shape[1], len(labels) - 0.5, -0.5)
        image = ax.imshow(mat / MIB, aspect="auto", interpolation="nearest", cmap="viridis",
                          extent=extent, vmin=0)
        fig.colorbar(image, ax=ax, label="data moved (MiB)")
        ax.set_yticks(range(len(labels)), labels, fontsize="small")
        ax.set_title(f"Per-thread activity: {api}")
        ax.set_xlabel("time since job start (seconds)")
    return _finish(fig)
