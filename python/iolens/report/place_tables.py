"""Tables and the figure of the Platform and Lustre sections (data in
platform.py and lustre.py)."""
from __future__ import annotations

import math

from . import lustre, platform
from .figures import READ, WRITE, _figure, _finish
from .tables import Cell, Table
from .units import byte_scale, human_bytes, human_seconds as seconds

TOP = 20


def platform_facts(data):
    rows = platform.fact_rows(data)
    if not rows:
        return None
    return Table(["fact", "value", "meaning"],
                 [[Cell(k, key=f"platform.{k}"), Cell(v, key=f"platform.{k}.value", value=v), d]
                  for k, v, d in rows])


def mount_facts(data):
    frame = platform.mounts(data)
    if not len(frame):
        return None
    rows = []
    for r in frame.itertuples(index=False):
        bsize = "not looked up" if math.isnan(r.block_size) else human_bytes(r.block_size)
        rows.append([r.mount, r.fs_type, Cell(r.kind, key=f"mount.{r.mount}.kind", value=r.kind),
                     Cell(bsize, key=f"mount.{r.mount}.block_size",
                          value="" if math.isnan(r.block_size) else str(int(r.block_size))),
                     str(r.files), human_bytes(r.bytes)])
    return Table(["mount point", "fs type", "kind", "block size", "files", "data moved"], rows)


def stripe_settings(data):
    f = lustre.files(data)
    if not len(f):
        return None
    f = f.sort_values("bytes", ascending=False, na_position="last").head(TOP)
    rows = []
    for rid, r in f.iterrows():
        osts = ", ".join(map(str, r.osts[:16])) + (" ..." if len(r.osts) > 16 else "")
        rows.append([r["name"], Cell(human_bytes(r.stripe_size), f"lustre.{r['name']}.stripe_size",
                                     str(int(r.stripe_size))),
                     Cell(str(int(r.stripe_count)), f"lustre.{r['name']}.stripe_count",
                          str(int(r.stripe_count))),
                     str(int(r.components)), r.pool or "-", osts,
                     "n/a" if math.isnan(r.get("extent", math.nan)) else human_bytes(r.extent),
                     "n/a" if math.isnan(r.get("bytes", math.nan)) else human_bytes(r.bytes)])
    return Table(["file", "stripe size", "stripe count", "components", "pool", "OSTs",
                  "file size (extent)", "data moved"], rows)


def ost_spread(data):
    """Bytes and seconds per OST from the view: exact from a DXT trace (each
    operation split over the stripes it touches), else estimated from counters."""
    frame = data.view.ost
    if not len(frame):
        return None
    word = "" if frame.attrs.get("source") == "trace" else "estimated "
    return Table(["OST", "files", f"{word}data", f"{word}read time", f"{word}write time"],
                 [[Cell(str(int(r.ost)), f"ost.{int(r.ost)}", str(int(r.ost))),
                   str(int(r.files)),
                   Cell(human_bytes(r.bytes), f"ost.{int(r.ost)}.bytes", "%.0f" % r.bytes),
                   Cell(seconds(r.read_time), f"ost.{int(r.ost)}.read_time", "%.6f" % r.read_time),
                   Cell(seconds(r.write_time), f"ost.{int(r.ost)}.write_time",
                        "%.6f" % r.write_time)]
                  for r in frame.head(3 * TOP).itertuples(index=False)])


def ost_spread_figure(data):
    frame = data.view.ost
    if not len(frame) or not frame["bytes"].any():
        return None
    word = "data" if frame.attrs.get("source") == "trace" else "estimated data"
    frame = frame.sort_values("ost").head(128)
    fig, ax = _figure(height=3.0)
    ax = ax[0, 0]
    scale, unit = byte_scale(frame["bytes"].max())
    ax.bar(frame["ost"].astype(str), frame["bytes"] / scale, color=READ)
    ax.set_xlabel("OST index")
    ax.set_ylabel(f"{word} ({unit})")
    ax.set_title("Data per OST")
    ax.tick_params(axis="x", labelsize="small", labelrotation=90)
    return _finish(fig)


def ost_time_figure(data):
    """Read and write seconds per OST, in the same OST order as the data figure:
    equal bytes with unequal seconds point at a slow storage target (the
    diagnosis rule slow-ost)."""
    frame = data.view.ost
    if not len(frame) or not (frame["read_time"] + frame["write_time"]).any():
        return None
    word = "time" if frame.attrs.get("source") == "trace" else "estimated time"
    frame = frame.sort_values("ost").head(128)
    fig, ax = _figure(height=3.0)
    ax = ax[0, 0]
    labels = frame["ost"].astype(str)
    ax.bar(labels, frame["read_time"], color=READ, label="read")
    ax.bar(labels, frame["write_time"], bottom=frame["read_time"], color=WRITE, label="write")
    ax.set_xlabel("OST index")
    ax.set_ylabel(f"{word} (seconds)")
    ax.set_title("Time per OST")
    ax.legend(fontsize="small")
    ax.tick_params(axis="x", labelsize="small", labelrotation=90)
    return _finish(fig)


def misfits(data):
    frame = lustre.misfits(data)
    if not len(frame):
        return ("Every Lustre file's stripe count and size fit its size and access pattern."
                if len(lustre.files(data)) else None)
    frame = frame.sort_values("bytes", ascending=False).head(TOP)
    return Table(["file", "stripe size", "stripe count", "file size (extent)",
                  "common access size", "data moved", "why it does not fit"],
                 [[r.name, human_bytes(r.stripe_size), str(r.stripe_count), human_bytes(r.extent),
                   human_bytes(r.access), human_bytes(r.bytes),
                   Cell(r.reason, key=f"misfit.{r.name}", value=r.reason)]
                  for r in frame.itertuples(index=False)])
