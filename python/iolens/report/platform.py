"""The Platform section's data: the platform facts of the job metadata and the
mount facts (node-local or shared, block size) with the data each mount saw."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..platform import PLATFORM_KEYS, expand_hostlist, mount_facts, platform
from .files import container_of
from .interfaces import FILE_SYSTEM_MODULES


def facts(data) -> dict:
    return platform(data.job.get("metadata") or {})


def has_facts(data) -> bool:
    return bool(facts(data))


def has_mount_facts(data) -> bool:
    return "mntfs" in facts(data)


def fact_rows(data) -> list:
    """(key, value as shown, meaning) in the table's order."""
    got = facts(data)
    rows = []
    for key, _cap, _anon, desc in PLATFORM_KEYS:
        if key not in got:
            continue
        value = got[key]
        if key == "hosts":
            names = expand_hostlist(value)
            value = f"{value} ({len(names)} name{'s' if len(names) != 1 else ''})"
        rows.append((key, value, desc))
    return rows


def mounts(data) -> pd.DataFrame:
    """Mount facts with the files and bytes of the file-system modules on each."""
    frame = mount_facts(data.mounts, facts(data))
    files = pd.Series(0, index=frame.index)
    moved = pd.Series(0.0, index=frame.index)
    for module, recs in data.frames(FILE_SYSTEM_MODULES):
        prefix = module + "_"
        if "name" not in recs or prefix + "BYTES_READ" not in recs:
            continue
        where = _mount_index(frame, recs["name"])
        inside = container_of(recs)
        if inside is not None:    # a DFS path is in a container, on no host mount
            where = np.where(inside.isna().to_numpy(), where, -1)
        nbytes = recs[prefix + "BYTES_READ"].clip(lower=0) + recs[prefix + "BYTES_WRITTEN"].clip(lower=0)
        per = pd.DataFrame({"m": where, "b": nbytes.to_numpy(), "id": recs["id"].to_numpy()})
        per = per[per["m"] >= 0]
        files = files.add(per.groupby("m")["id"].nunique(), fill_value=0)
        moved = moved.add(per.groupby("m")["b"].sum(), fill_value=0)
    frame["files"] = files.astype(int)
    frame["bytes"] = moved
    return frame


def _mount_index(frame: pd.DataFrame, names: pd.Series):
    """Row of `frame` holding each name (longest mount point), -1 for none."""
    order = sorted(range(len(frame)), key=lambda i: -len(frame.at[i, "mount"]))
    values = names.fillna("").astype(str)
    out = pd.Series(-1, index=values.index)
    todo = pd.Series(True, index=values.index)
    for i in order:
        point = frame.at[i, "mount"]
        hit = todo & (values.str.startswith(point.rstrip("/") + "/") | (values == point))
        out[hit] = i
        todo &= ~hit
    return out.to_numpy()

