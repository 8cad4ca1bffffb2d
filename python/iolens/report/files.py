"""File-level aggregates: mount points, top files, sequential access,
shared files and Lustre striping.  Column-wise; results are bounded by top-N
limits or by the number of mount points."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .interfaces import DATA_MODULES, FILE_SYSTEM_MODULES, PREFIX
from ..view.columns import counter as col
from .special import MPI_INTERNAL, STREAM, kind_of

# Mount-point labels of the files that are not the user's (special.py); their rows
# come after every real mount point.
SPECIAL_MOUNTS = {STREAM: "(standard streams)", MPI_INTERNAL: "(MPI-internal files)"}

TOP_N = 10


def mount_of(names: pd.Series, mounts) -> pd.DataFrame:
    """Mount point and fs type of each name: the first mount point (longest
    first, stable) that is a byte prefix of the name, else UNKNOWN."""
    ordered = sorted(mounts, key=lambda m: -len(m[0].encode()))
    point = pd.Series("UNKNOWN", index=names.index, dtype=object)
    fstype = point.copy()
    todo = names.notna() & (names.astype(str) != "")
    text = names.astype(str)
    for mnt, fs in ordered:
        hit = todo & text.str.startswith(mnt)
        point[hit], fstype[hit] = mnt, fs
        todo &= ~hit
        if not todo.any():
            break
    return pd.DataFrame({"mount": point, "fs": fstype})


def by_mount(data) -> pd.DataFrame:
    return data.memo(_by_mount)


def _by_mount(data) -> pd.DataFrame:
    """Bytes read/written and file counts per mount point, per module; the
    standard streams and MPI-internal files in rows of their own (`special`
    set), after the mount points of the user's files."""
    parts = []
    for module, frame in data.frames(FILE_SYSTEM_MODULES):
        if "name" not in frame.columns or not _named(frame["name"]).any():
            continue      # objects without names (DAOS) are on no mount point
        files = _per_id(frame, PREFIX[module])
        mnt = mount_of(files["name"], data.mounts)
        inside = container_of(frame.drop_duplicates("id"))
        if inside is not None:     # DFS paths are in a container, on no host mount
            mnt.loc[inside.notna().to_numpy(), "mount"] = inside.dropna().to_numpy()
            mnt.loc[inside.notna().to_numpy(), "fs"] = "N/A"
        kind = kind_of(files["name"])
        mnt.loc[kind != "", "mount"] = kind[kind != ""].map(SPECIAL_MOUNTS)
        mnt.loc[kind != "", "fs"] = "-"
        mnt["special"] = kind != ""
        agg = pd.concat([files, mnt], axis=1).groupby(["special", "mount", "fs"]).agg(
            files=("name", "size"), read=("read", "sum"),
            written=("written", "sum")).reset_index()
        agg.insert(0, "module", module)
        parts.append(agg)
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["special", "read", "written"], ascending=[True, False, False],
                           kind="stable").reset_index(drop=True)


def container_of(frame: pd.DataFrame):
    """Per record, "pool:container" (uuids) of the DAOS container its name is a
    path in (DFS records), NaN for others; None when the module has no such
    columns.  `iolens parse` prints it as the mount point, with fs type N/A."""
    if "pool" not in frame.columns or "container" not in frame.columns:
        return None
    pool, cont = frame["pool"].fillna("").astype(str), frame["container"].fillna("").astype(str)
    label = pool + ":" + cont
    return label.where((pool != "") & (cont != "")).reset_index(drop=True)


def _named(names: pd.Series) -> pd.Series:
    return names.notna() & (names.astype(str) != "")


def _per_id(frame, prefix) -> pd.DataFrame:
    """Bytes and I/O time summed per record id, with the file's name.
    Grouping by the integer id is much cheaper than by the name string."""
    t = sum(col(frame, f"{prefix}F_{k}_TIME", 0.0) for k in ("READ", "WRITE", "META"))
    work = pd.DataFrame({"id": frame["id"].to_numpy(),
                         "read": col(frame, prefix + "BYTES_READ"),
                         "written": col(frame, prefix + "BYTES_WRITTEN"), "time": t})
    out = work.groupby("id", sort=False).sum()
    names = frame.drop_duplicates("id").set_index("id")["name"] if "name" in frame else None
    label = (names.reindex(out.index) if names is not None
             else pd.Series(out.index.astype(str), index=out.index))
    out.insert(0, "name", label.astype(object).where(label.notna(), "(no name)").to_numpy())
    return out.reset_index(drop=True)


def file_table(data) -> pd.DataFrame:
    return data.memo(_file_table)


def _file_table(data) -> pd.DataFrame:
    """One row per (module, file): bytes and I/O time summed over records."""
    parts = []
    for module, frame in data.frames(DATA_MODULES):
        part = _per_id(frame, PREFIX[module])
        part.insert(0, "module", module)
        part["kind"] = kind_of(part["name"]).to_numpy()
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def top_files(data, key: str) -> pd.DataFrame:
    """The user's files (not the standard streams or MPI-internal files) with
    the largest `key` ("time" or "bytes")."""
    files = file_table(data)
    if not len(files):
        return files
    files = files[files["kind"] == ""]
    if key == "bytes":
        files = files.assign(bytes=files["read"] + files["written"])
    files = files[files[key] > 0]
    return files.nlargest(TOP_N, key)


def special_files(data) -> pd.DataFrame:
    """The standard streams and MPI-internal files: streams first, then by data
    moved and time; at most 2 * TOP_N rows."""
    files = file_table(data)
    if not len(files):
        return files
    files = files[files["kind"] != ""].assign(bytes=lambda f: f["read"] + f["written"])
    return files.sort_values(["kind", "bytes", "time"], ascending=[False, False, False],
                             kind="stable").head(2 * TOP_N)


def sequential(data) -> pd.DataFrame:
    """Share of POSIX reads and writes that were sequential and consecutive."""
    frame = data.frame("POSIX")
    if frame is None or not len(frame):
        return pd.DataFrame()
    rows = {}
    for op, total in (("READS", "READS"), ("WRITES", "WRITES")):
        n = int(col(frame, "POSIX_" + total).clip(0).sum())
        if n == 0:
            continue
        rows[op.lower()] = {
            "operations": n,
            "sequential": int(col(frame, "POSIX_SEQ_" + op).clip(0).sum()),
            "consecutive": int(col(frame, "POSIX_CONSEC_" + op).clip(0).sum())}
    return pd.DataFrame.from_dict(rows, orient="index")


def shared_files(data) -> pd.DataFrame:
    """Files used by more than one process: fastest and slowest process and
    the variance of I/O time and bytes across processes.  Files the runtime
    reduced to one record (rank -1) carry these as counters; files kept as
    one record per process get them computed here.  The standard streams and
    MPI-internal files are left out (special_files lists them)."""
    parts = []
    for module, frame in data.frames(DATA_MODULES):
        prefix = PREFIX[module]
        parts.append(_reduced(frame, prefix, module))
        parts.append(_per_process(frame, prefix, module))
    parts = [p for p in parts if p is not None and len(p)]
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    out = out[kind_of(out["name"]).to_numpy() == ""]
    return out.nlargest(2 * TOP_N, "slowest time")


def _reduced(frame, prefix, module):
    if f"{prefix}FASTEST_RANK" not in frame.columns:
        return None
    sel = frame[frame["rank"] < 0]
    return pd.DataFrame({
        "module": module, "name": sel["name"].fillna("(no name)").astype(str),
        "fastest rank": sel[prefix + "FASTEST_RANK"],
        "fastest time": col(sel, prefix + "F_FASTEST_RANK_TIME", 0.0),
        "fastest bytes": sel[prefix + "FASTEST_RANK_BYTES"],
        "slowest rank": sel[prefix + "SLOWEST_RANK"],
        "slowest time": col(sel, prefix + "F_SLOWEST_RANK_TIME", 0.0),
        "slowest bytes": sel[prefix + "SLOWEST_RANK_BYTES"],
        "time variance": col(sel, prefix + "F_VARIANCE_RANK_TIME", np.nan),
        "bytes variance": col(sel, prefix + "F_VARIANCE_RANK_BYTES", np.nan)})


def _per_process(frame, prefix, module):
    sel = frame[frame["rank"] >= 0]
    if not len(sel):
        return None
    work = pd.DataFrame({
        "id": sel["id"].to_numpy(), "rank": sel["rank"].to_numpy(),
        "name": sel["name"].fillna("(no name)").astype(str).to_numpy(),
        "t": sum(col(sel, f"{prefix}F_{k}_TIME", 0.0) for k in ("READ", "WRITE", "META")),
        "b": col(sel, prefix + "BYTES_READ") + col(sel, prefix + "BYTES_WRITTEN")})
    work = work[work.groupby("id")["rank"].transform("nunique") > 1].reset_index(drop=True)
    if not len(work):
        return None
    groups = work.groupby("id", sort=False)
    fast, slow = work.loc[groups["t"].idxmin()], work.loc[groups["t"].idxmax()]
    return pd.DataFrame({
        "module": module, "name": fast["name"].to_numpy(),
        "fastest rank": fast["rank"].to_numpy(), "fastest time": fast["t"].to_numpy(),
        "fastest bytes": fast["b"].to_numpy(),
        "slowest rank": slow["rank"].to_numpy(), "slowest time": slow["t"].to_numpy(),
        "slowest bytes": slow["b"].to_numpy(),
        "time variance": groups["t"].var(ddof=0).to_numpy(),
        "bytes variance": groups["b"].var(ddof=0).to_numpy()})
