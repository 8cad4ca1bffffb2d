"""The Lustre section's numbers: each file's stripe settings next to its size and
access pattern, the estimated bytes per OST, and the files whose striping does
not fit them.

Bytes and time per OST come from the view (iolens.view.ost).  The fit rules use
the diagnosis thresholds (diagnose/thresholds.toml, [lustre]), so the report and
`iolens diagnose` judge a file alike."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..diagnose.engine import load_thresholds

from ..view.ost import COUNT, SIZE


def _posix_per_file(data) -> pd.DataFrame:
    """Per record id: bytes moved, extent (largest offset + 1), most common
    access size, processes, shared (a rank -1 record or several ranks)."""
    frame = data.frame("POSIX")
    if frame is None or not len(frame):
        return pd.DataFrame(columns=["bytes", "extent", "access", "ranks", "shared"])
    df = pd.DataFrame({
        "id": frame["id"].to_numpy(),
        "rank": frame["rank"].to_numpy(),
        "bytes": (frame["POSIX_BYTES_READ"].clip(lower=0)
                  + frame["POSIX_BYTES_WRITTEN"].clip(lower=0)).to_numpy(),
        "extent": np.maximum(frame["POSIX_MAX_BYTE_READ"], frame["POSIX_MAX_BYTE_WRITTEN"])
        .clip(lower=-1).to_numpy() + 1,
        "access": frame["POSIX_ACCESS1_ACCESS"].clip(lower=0).to_numpy()})
    g = df.groupby("id").agg(bytes=("bytes", "sum"), extent=("extent", "max"),
                             access=("access", "max"), ranks=("rank", "nunique"),
                             min_rank=("rank", "min"))
    g["shared"] = (g["min_rank"] < 0) | (g["ranks"] > 1)
    return g.drop(columns="min_rank")


def files(data) -> pd.DataFrame:
    """One row per Lustre file: name, first component's stripe size and count,
    components, OSTs, pool, and the POSIX bytes, extent and access size."""
    lus = data.lustre()
    if lus is None or not len(lus):
        return pd.DataFrame()
    first = lus[lus["component"] == 0].drop_duplicates("id").set_index("id")
    osts = lus.groupby("id")["ost_ids"].agg(
        lambda s: sorted({int(o) for a in s for o in np.asarray(a).ravel()}))
    out = pd.DataFrame({
        "name": first["name"].fillna("(no name)"),
        "stripe_size": first[SIZE], "stripe_count": first[COUNT],
        "components": first["num_comps"], "pool": first["pool_name"].fillna(""),
        "osts": osts.reindex(first.index)})
    return out.join(_posix_per_file(data), how="left")


def misfits(data) -> pd.DataFrame:
    """Files whose stripe count or size does not fit their size and access
    pattern, with the reason: (name, stripe size, count, extent, access, reason)."""
    f = files(data)
    if not len(f) or "bytes" not in f or f["bytes"].isna().all():
        return pd.DataFrame()
    th = load_thresholds()["lustre"]
    f = f.dropna(subset=["bytes"])
    rows = []
    for r in f.itertuples():
        size, count = int(r.stripe_size), int(r.stripe_count)
        reasons = []
        if count == 1 and (r.extent >= th["large_file"]
                           or (r.shared and r.bytes >= th["shared_min_bytes"])):
            reasons.append("large or shared file on a single OST")
        if count > 1 and size > 0 and 0 < r.extent <= size:
            reasons.append(f"file fits in one stripe: {count - 1} of its {count} OSTs hold nothing")
        if r.access > 0 and size > 0 and r.bytes >= th["shared_min_bytes"] and (
                r.access < th["access_multiple"] * size or (r.access >= size and r.access % size)):
            reasons.append("common access size is not a multiple of the stripe size")
        if reasons:
            rows.append((r.name, size, count, int(r.extent), int(r.access), int(r.bytes),
                         "; ".join(reasons)))
    return pd.DataFrame(rows, columns=["name", "stripe_size", "stripe_count", "extent",
                                       "access", "bytes", "reason"])
