"""Rules on where files live, from the runtime's mount facts (node-local or
shared, per mount: the platform key mntfs and tmpfs, docs/runtime.md)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..platform import node_kind_of
from .measure import io_time, per_process, size, total
from .model import Hit


def off_node_local(ctx, frame) -> np.ndarray | None:
    """1.0 for each record not on a node-local mount, 0.0 for one on it; None when
    the log does not say which mounts are node-local."""
    facts = ctx.mount_facts
    if facts is None or frame is None:
        return None
    return (node_kind_of(facts, frame["name"]) != "node-local").astype(float)


def node_local_shared(ctx):
    nodes, source = ctx.nodes
    frame = ctx.frame("POSIX")
    if not nodes or nodes < 2 or frame is None or not len(frame):
        return None
    off = off_node_local(ctx, frame)
    if off is None:
        return None
    local = off == 0
    df = pd.DataFrame({"id": frame["id"].to_numpy(), "rank": frame["rank"].to_numpy(),
                       "name": frame["name"].to_numpy(),
                       "written": total(frame, ["POSIX_BYTES_WRITTEN"]),
                       "time": io_time(frame, "POSIX")})[local]
    if not len(df):
        return None
    g = df.groupby("id").agg(name=("name", "first"), written=("written", "sum"),
                             time=("time", "sum"), ranks=("rank", "nunique"),
                             shared=("rank", "min"))
    hit = ((g["shared"] < 0) | (g["ranks"] > 1)) & (g["written"] > 0)
    if not hit.any():
        return None
    sel = g[hit].sort_values("written", ascending=False)
    lines = [f"{int(hit.sum())} files on node-local storage were written by processes of a "
             f"job on {nodes} nodes ({source}): each node has its own file of that name"]
    for _, row in sel.head(3).iterrows():
        who = "every process" if row["shared"] < 0 else f"{int(row['ranks'])} processes"
        lines.append(f"  {row['name']}: {size(row['written'])} written by {who}")
    return Hit("Shared file on node-local storage in a multi-node job", lines,
               per_process(float(sel["time"].sum()), ctx.nprocs),
               "I/O seconds on these files per process: an upper bound",
               {"files": int(hit.sum()), "nodes": nodes,
                "bytes_written": float(sel["written"].sum())},
               [str(n) for n in sel["name"].head(5)])
