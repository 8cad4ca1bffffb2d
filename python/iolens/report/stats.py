"""Column-wise aggregates behind the report's figures and tables.

Every function takes the ReportData and returns small frames (bounded by the
number of interfaces, ranks, mount points or a top-N limit), never one Python
object per record."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .interfaces import INTERFACES, PREFIX, perf_module, present
from .perf import col, perf

TOP_N = 10
SIZE_BINS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M",
             "4M_10M", "10M_100M", "100M_1G", "1G_PLUS")
# Modules whose records are files with names users recognise.
FILE_MODULES = ("POSIX", "STDIO", "MPI-IO", "H5F", "PNETCDF_FILE", "DFS")
DATA_MODULES = ("POSIX", "STDIO", "MPI-IO", "H5D", "PNETCDF_VAR", "DFS", "DAOS")


def overview(data) -> list:
    """Per interface: (interface, module, Perf, fraction of run time in I/O)."""
    rows = []
    for iface in present(data):
        module = perf_module(data, iface)
        if module is None:
            continue
        p = perf(data.frame(module), PREFIX[module], data.nprocs)
        frac = p.agg_time_by_slowest / data.run_time if data.run_time > 0 else float("nan")
        rows.append((iface.name, module, p, frac))
    return rows


def cost(data) -> pd.DataFrame:
    """Average seconds per process in read, write and metadata, per interface."""
    rows = {}
    for iface in present(data):
        sums = np.zeros(3)
        for module in iface.time_modules:
            frame = data.frame(module)
            if frame is None or not len(frame):
                continue
            prefix = PREFIX[module]
            for k, kind in enumerate(("READ", "WRITE", "META")):
                sums[k] += col(frame, f"{prefix}F_{kind}_TIME", 0.0).sum()
        rows[iface.name] = sums / data.nprocs
    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=["read", "write", "metadata"])


def op_counts(data) -> dict:
    """{interface: Series(label -> count)} for interfaces with records."""
    out = {}
    for iface in present(data):
        counts = {}
        for label, counters in iface.ops:
            total = 0
            for name in counters:
                module = _module_of(name)
                frame = data.frame(module)
                if frame is not None and name in frame.columns:
                    total += int(np.clip(frame[name].to_numpy(), 0, None).sum())
            counts[label] = total
        out[iface.name] = pd.Series(counts)
    return out


def _module_of(counter: str) -> str:
    # Longest prefix first: PNETCDF_VAR_ must win over a shorter match.
    for module, prefix in sorted(PREFIX.items(), key=lambda kv: -len(kv[1])):
        if counter.startswith(prefix):
            return module
    raise KeyError(counter)


def size_histograms(data) -> dict:
    """{module: DataFrame(index=size bin, columns=read/write)} of access counts."""
    out = {}
    for module in DATA_MODULES:
        frame = data.frame(module)
        if frame is None or not len(frame):
            continue
        prefix = PREFIX[module]
        hist = {}
        for op in ("READ", "WRITE"):
            names = [_size_column(frame, prefix, op, b) for b in SIZE_BINS]
            if any(n is None for n in names):
                break
            hist[op.lower()] = [int(np.clip(frame[n].to_numpy(), 0, None).sum())
                                for n in names]
        if len(hist) == 2:
            out[module] = pd.DataFrame(hist, index=SIZE_BINS)
    return out


def _size_column(frame, prefix, op, size_bin):
    for name in (f"{prefix}SIZE_{op}_{size_bin}", f"{prefix}SIZE_{op}_AGG_{size_bin}"):
        if name in frame.columns:
            return name
    return None


def common_accesses(data) -> pd.DataFrame:
    """Most common access sizes per module, summed exactly over records."""
    parts = []
    for module in DATA_MODULES:
        frame = data.frame(module)
        prefix = PREFIX[module]
        if frame is None or f"{prefix}ACCESS1_ACCESS" not in frame.columns:
            continue
        sizes = np.concatenate([frame[f"{prefix}ACCESS{k}_ACCESS"].to_numpy() for k in range(1, 5)])
        counts = np.concatenate([frame[f"{prefix}ACCESS{k}_COUNT"].to_numpy() for k in range(1, 5)])
        keep = counts > 0
        if not keep.any():
            continue
        agg = (pd.DataFrame({"size": sizes[keep], "count": counts[keep]})
               .groupby("size")["count"].sum().nlargest(TOP_N).reset_index())
        agg.insert(0, "module", module)
        parts.append(agg)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


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
    """Bytes read/written and file counts per mount point, per module."""
    parts = []
    for module in ("POSIX", "STDIO", "DFS"):
        frame = data.frame(module)
        if frame is None or not len(frame) or "name" not in frame.columns:
            continue
        prefix = PREFIX[module]
        per_name = pd.DataFrame({
            "name": frame["name"], "id": frame["id"],
            "read": col(frame, prefix + "BYTES_READ"),
            "written": col(frame, prefix + "BYTES_WRITTEN")}).groupby(
                "name", dropna=False).agg(read=("read", "sum"),
                                          written=("written", "sum"),
                                          files=("id", "nunique")).reset_index()
        mnt = mount_of(per_name["name"], data.mounts)
        per_name = pd.concat([per_name, mnt], axis=1)
        agg = per_name.groupby(["mount", "fs"]).agg(
            files=("files", "sum"), read=("read", "sum"),
            written=("written", "sum")).reset_index()
        agg.insert(0, "module", module)
        parts.append(agg)
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["read", "written"], ascending=False, kind="stable")


def file_table(data) -> pd.DataFrame:
    """One row per (module, file): bytes and I/O time summed over records."""
    parts = []
    for module in ("POSIX", "STDIO", "MPI-IO", "H5D", "PNETCDF_VAR", "DFS", "DAOS"):
        frame = data.frame(module)
        if frame is None or not len(frame):
            continue
        prefix = PREFIX[module]
        t = sum(col(frame, f"{prefix}F_{k}_TIME", 0.0) for k in ("READ", "WRITE", "META"))
        part = pd.DataFrame({
            "name": frame["name"].fillna("(no name)") if "name" in frame else frame["id"].astype(str),
            "read": col(frame, prefix + "BYTES_READ"),
            "written": col(frame, prefix + "BYTES_WRITTEN"), "time": t})
        part = part.groupby("name").sum().reset_index()
        part.insert(0, "module", module)
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def top_files(data, key: str) -> pd.DataFrame:
    files = file_table(data)
    if not len(files):
        return files
    if key == "bytes":
        files = files.assign(bytes=files["read"] + files["written"])
    files = files[files[key] > 0]
    return files.nlargest(TOP_N, key)


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
    """Shared records (rank -1): fastest and slowest process and variances."""
    parts = []
    for module in ("POSIX", "MPI-IO", "STDIO", "H5D", "PNETCDF_VAR", "DFS", "DAOS"):
        frame = data.frame(module)
        prefix = PREFIX[module]
        if frame is None or f"{prefix}FASTEST_RANK" not in frame.columns:
            continue
        sel = frame[frame["rank"] < 0]
        if not len(sel):
            continue
        part = pd.DataFrame({
            "module": module, "name": sel["name"].fillna("(no name)"),
            "fastest rank": sel[prefix + "FASTEST_RANK"],
            "fastest time": col(sel, prefix + "F_FASTEST_RANK_TIME", 0.0),
            "fastest bytes": sel[prefix + "FASTEST_RANK_BYTES"],
            "slowest rank": sel[prefix + "SLOWEST_RANK"],
            "slowest time": col(sel, prefix + "F_SLOWEST_RANK_TIME", 0.0),
            "slowest bytes": sel[prefix + "SLOWEST_RANK_BYTES"],
            "time variance": col(sel, prefix + "F_VARIANCE_RANK_TIME", np.nan),
            "bytes variance": col(sel, prefix + "F_VARIANCE_RANK_BYTES", np.nan)})
        parts.append(part)
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    return out.nlargest(2 * TOP_N, "slowest time")


def shared_count(data) -> int:
    return sum(int((data.frame(m)["rank"] < 0).sum()) for m in ("POSIX", "MPI-IO", "STDIO")
               if data.has(m))


TIMELINE_MODULES = ("POSIX", "MPI-IO", "STDIO", "H5D", "PNETCDF_VAR", "DFS")


def timeline(data) -> pd.DataFrame:
    """First and last access per (module, rank); rank -1 = shared records."""
    parts = []
    for module in TIMELINE_MODULES:
        frame = data.frame(module)
        if frame is None or not len(frame):
            continue
        prefix = PREFIX[module]
        starts = [col(frame, f"{prefix}F_{k}_START_TIMESTAMP", 0.0) for k in ("OPEN", "READ", "WRITE")]
        ends = [col(frame, f"{prefix}F_{k}_END_TIMESTAMP", 0.0) for k in ("CLOSE", "READ", "WRITE", "OPEN")]
        # Zero means "never happened"; ignore it when taking the minimum.
        start = np.min([np.where(s > 0, s, np.inf) for s in starts], axis=0)
        end = np.max(ends, axis=0)
        ok = np.isfinite(start) & (end >= start)
        if not ok.any():
            continue
        part = pd.DataFrame({"rank": frame["rank"].to_numpy()[ok],
                             "start": start[ok], "end": end[ok]})
        part = part.groupby("rank").agg(start=("start", "min"), end=("end", "max")).reset_index()
        part.insert(0, "module", module)
        parts.append(part)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


HEAT_BINS = 100


def dxt_heatmap(data):
    """Bytes per rank per time bin from DXT segments: {api: (width, read,
    write, ranks)}; each segment's bytes go to the bin of its start time."""
    out = {}
    for module, api in (("DXT_POSIX", "POSIX"), ("DXT_MPIIO", "MPIIO")):
        seg = data.dxt(module)
        if seg is None or not len(seg):
            continue
        end = max(float(seg["end"].max()), data.run_time, 1e-9)
        width = end / HEAT_BINS
        ranks, idx = np.unique(seg["rank"].to_numpy(), return_inverse=True)
        bins = np.minimum((seg["start"].to_numpy() / width).astype(np.int64), HEAT_BINS - 1)
        mats = {}
        for op in ("read", "write"):
            mat = np.zeros((len(ranks), HEAT_BINS))
            mask = (seg["op"] == op).to_numpy()
            np.add.at(mat, (idx[mask], bins[mask]), seg["length"].to_numpy()[mask])
            mats[op] = mat
        out[api] = (width, mats["read"], mats["write"], ranks)
    return out


def lustre(data) -> pd.DataFrame:
    """Striping per file: stripe size and count of each file's first layout
    component, the number of components and OSTs."""
    frame = data.lustre()
    if frame is None or not len(frame):
        return pd.DataFrame()
    first = frame[frame["component"] == 0].drop_duplicates("id")
    return pd.DataFrame({
        "file": first["name"].fillna("(no name)").to_numpy(),
        "stripe size (bytes)": first["LUSTRE_COMP_STRIPE_SIZE"].to_numpy(),
        "stripe count": first["LUSTRE_COMP_STRIPE_COUNT"].to_numpy(),
        "components": first["num_comps"].to_numpy(),
        "OSTs": first["num_stripes"].to_numpy()}).head(2 * TOP_N)
